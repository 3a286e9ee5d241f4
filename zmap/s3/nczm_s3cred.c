/* S3 credentials, region, endpoint and CA bundle: what the URL's options leave unset comes
 * from the AWS environment variables and the AWS shared files, in the order the AWS tools
 * use:
 *   credentials: none at all when s3_anonymous; the options (s3_access_key +
 *     s3_secret_key); the profile the options or the URL's fragment name; AWS_ACCESS_KEY_ID +
 *     AWS_SECRET_ACCESS_KEY (+ AWS_SESSION_TOKEN); the profile AWS_PROFILE names, else
 *     "default"; else none (unsigned requests, for public buckets). A profile that is
 *     named but found in neither file is an error, not a silent fall back to anonymous.
 *   region: the option (or aws.region= in the fragment); AWS_REGION; AWS_DEFAULT_REGION;
 *     the profile's "region"; us-east-1. (A region in an AWS host name wins over all but
 *     the option: nczm_s3cfg.c.)
 *   endpoint, for s3:// names: the option; AWS_ENDPOINT_URL_S3; AWS_ENDPOINT_URL; the
 *     profile's "endpoint_url"; AWS itself.
 *   CA bundle: the option; AWS_CA_BUNDLE; the profile's "ca_bundle"; the system's.
 * A profile is "[name]" in the credentials file (AWS_SHARED_CREDENTIALS_FILE, else
 * ~/.aws/credentials) and "[profile name]" (or "[name]") in the config file
 * (AWS_CONFIG_FILE, else ~/.aws/config); the credentials file wins where both set a key. */
#include "nczm_s3.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

void s3_env_clear(s3_env *env)
{
    free(env->access);
    nczm_free_secret(env->secret);
    nczm_free_secret(env->token);
    free(env->region);
    free(env->endpoint);
    free(env->cainfo);
    memset(env, 0, sizeof *env);
}

/* The keys of one profile this driver reads. */
enum { P_ACCESS, P_SECRET, P_TOKEN, P_REGION, P_ENDPOINT, P_CA, P_NKEYS };
static const char *const pkeys[P_NKEYS] = {
    "aws_access_key_id", "aws_secret_access_key", "aws_session_token", "region", "endpoint_url", "ca_bundle"};

typedef struct profile {
    char *v[P_NKEYS];
    int found; /* the section exists in some file */
} profile;

static void profile_clear(profile *p)
{
    for (int i = 0; i < P_NKEYS; i++) {
        if (i == P_SECRET || i == P_TOKEN)
            nczm_free_secret(p->v[i]);
        else
            free(p->v[i]);
        p->v[i] = NULL;
    }
}

static char *trim(char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    size_t n = strlen(s);
    while (n && isspace((unsigned char)s[n - 1]))
        s[--n] = '\0';
    return s;
}

/* Is the section header line (inside the brackets, trimmed) the profile's? In the config
 * file a profile other than default is "profile <name>". */
static int section_is(char *sec, const char *name, int config)
{
    if (strcmp(sec, name) == 0)
        return 1;
    if (config && strncmp(sec, "profile", 7) == 0 && isspace((unsigned char)sec[7]))
        return strcmp(trim(sec + 8), name) == 0;
    return 0;
}

/* Reads the keys of [name] from one INI file into p, keeping values already there (the
 * file read first wins). A missing file is not an error; an unreadable one is. Lines
 * that start with blanks continue a nested block ("s3 =" sub-settings), which this
 * driver does not read. */
static nczm_status read_profile(const char *path, const char *name, int config, profile *p,
                                char errmsg[NCZM_ERRLEN])
{
    FILE *f = fopen(path, "r");
    if (!f)
        return errno == ENOENT || errno == ENOTDIR
                   ? NCZM_OK
                   : nczm_fmterr(errmsg, NCZM_PERM, "AWS file %s: %s", path, strerror(errno));
    char line[4096];
    int in = 0;
    nczm_status st = NCZM_OK;
    while (fgets(line, sizeof line, f)) {
        if (line[0] == ' ' || line[0] == '\t')
            continue;
        char *s = trim(line);
        if (!*s || *s == '#' || *s == ';')
            continue;
        if (*s == '[') {
            char *end = strchr(s, ']');
            if (end)
                *end = '\0';
            in = section_is(trim(s + 1), name, config);
            p->found |= in;
            continue;
        }
        char *eq = strchr(s, '=');
        if (!in || !eq)
            continue;
        *eq = '\0';
        char *k = trim(s), *v = trim(eq + 1);
        for (int i = 0; i < P_NKEYS; i++) {
            if (strcasecmp(k, pkeys[i]) != 0 || p->v[i] || !*v)
                continue;
            if (!(p->v[i] = strdup(v)))
                st = nczm_fmterr(errmsg, NCZM_NOMEM, "reading %s: out of memory", path);
        }
    }
    explicit_bzero(line, sizeof line);
    fclose(f);
    return st;
}

/* $VAR, else $HOME/.aws/<file>, malloc'ed; NULL when neither can be formed. */
static char *aws_file(const char *var, const char *file)
{
    const char *v = getenv(var);
    if (v && *v)
        return strdup(v);
    const char *home = getenv("HOME");
    if (!home || !*home)
        return NULL;
    size_t n = strlen(home) + strlen(file) + 8;
    char *s = malloc(n);
    if (s)
        snprintf(s, n, "%s/.aws/%s", home, file);
    return s;
}

static nczm_status load_profile(const char *name, profile *p, char *where, size_t wlen,
                                char errmsg[NCZM_ERRLEN])
{
    char *cred = aws_file("AWS_SHARED_CREDENTIALS_FILE", "credentials");
    char *conf = aws_file("AWS_CONFIG_FILE", "config");
    nczm_status st = NCZM_OK;
    if (cred)
        st = read_profile(cred, name, 0, p, errmsg);
    if (st == NCZM_OK && conf)
        st = read_profile(conf, name, 1, p, errmsg);
    snprintf(where, wlen, "%s or %s", cred ? cred : "(no credentials file)",
             conf ? conf : "(no config file)");
    free(cred);
    free(conf);
    return st;
}

static const char *env(const char *name)
{
    const char *v = getenv(name);
    return v && *v ? v : NULL;
}

/* Takes a copy of the first non-NULL of a, b, c, d into *out. */
static int pick(char **out, const char *a, const char *b, const char *c, const char *d)
{
    const char *v = a ? a : b ? b : c ? c : d;
    *out = v ? strdup(v) : NULL;
    return v && !*out ? -1 : 0;
}

nczm_status s3_env_resolve(const nczm_url *url, s3_env *e, char errmsg[NCZM_ERRLEN])
{
    const nczm_s3_opts *uo = nczm_s3_opts_of(url);
    memset(e, 0, sizeof *e);
    profile p = {{NULL}, 0};
    char where[2 * 4096 + 64] = "";
    nczm_status st = NCZM_OK;
    const char *pname = uo->profile ? uo->profile : env("AWS_PROFILE");
    int named = pname != NULL;
    if (!pname)
        pname = "default";
    if ((st = load_profile(pname, &p, where, sizeof where, errmsg)) != NCZM_OK)
        goto done;
    /* a profile that is named must exist, unless nothing is to come from it */
    if (named && !p.found && !uo->anonymous && !(uo->access_key && uo->secret_key)) {
        st = nczm_fmterr(errmsg, NCZM_INVAL, "%s: AWS profile \"%s\" (from %s) is in neither %s",
                         url->location, pname, uo->profile ? "the store's options" : "AWS_PROFILE", where);
        goto done;
    }

    const char *ak = NULL, *sk = NULL, *tok = NULL;
    if (uo->anonymous) {
        e->from = "none (anonymous)";
    } else if (uo->access_key || uo->secret_key) {
        if (!uo->access_key || !uo->secret_key) {
            st = nczm_fmterr(errmsg, NCZM_INVAL, "%s: an S3 %s key was given without its %s key",
                             url->location, uo->access_key ? "access" : "secret",
                             uo->access_key ? "secret" : "access");
            goto done;
        }
        ak = uo->access_key, sk = uo->secret_key, tok = uo->session_token;
        e->from = "the store's options";
    } else if (uo->profile && p.v[P_ACCESS]) {
        ak = p.v[P_ACCESS], sk = p.v[P_SECRET], tok = p.v[P_TOKEN];
        e->from = "the profile the store's options name";
    } else if (env("AWS_ACCESS_KEY_ID") && env("AWS_SECRET_ACCESS_KEY")) {
        ak = env("AWS_ACCESS_KEY_ID"), sk = env("AWS_SECRET_ACCESS_KEY"), tok = env("AWS_SESSION_TOKEN");
        e->from = "AWS_ACCESS_KEY_ID";
    } else if (p.v[P_ACCESS]) {
        ak = p.v[P_ACCESS], sk = p.v[P_SECRET], tok = p.v[P_TOKEN];
        e->from = named ? "the AWS_PROFILE profile" : "the default AWS profile";
    } else {
        e->from = "none (anonymous)";
    }
    if (named && !uo->access_key && !uo->anonymous && uo->profile && !p.v[P_ACCESS]) {
        st = nczm_fmterr(errmsg, NCZM_INVAL,
                         "%s: AWS profile \"%s\" has no aws_access_key_id (credential_process, SSO and roles "
                         "are not supported)",
                         url->location, pname);
        goto done;
    }
    if (ak && !sk) {
        st = nczm_fmterr(errmsg, NCZM_INVAL, "%s: the credentials from %s have no secret access key",
                         url->location, e->from);
        goto done;
    }
    if (pick(&e->access, ak, NULL, NULL, NULL) || pick(&e->secret, sk, NULL, NULL, NULL) ||
        pick(&e->token, tok, NULL, NULL, NULL) ||
        pick(&e->region, uo->region, env("AWS_REGION"), env("AWS_DEFAULT_REGION"), p.v[P_REGION]) ||
        pick(&e->endpoint, uo->endpoint, env("AWS_ENDPOINT_URL_S3"), env("AWS_ENDPOINT_URL"),
             p.v[P_ENDPOINT]) ||
        pick(&e->cainfo, uo->cainfo, env("AWS_CA_BUNDLE"), p.v[P_CA], NULL))
        st = nczm_fmterr(errmsg, NCZM_NOMEM, "%s: out of memory", url->location);
done:
    profile_clear(&p);
    if (st != NCZM_OK)
        s3_env_clear(e);
    return st;
}
