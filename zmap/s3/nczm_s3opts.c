/* The S3 store's options (nczm_s3opts.h): set by name, and read from a URL's fragment. */
#include "nczm_s3opts.h"
#include "nczm_impl.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* "awsprofile" is the connector info's and netCDF-C's spelling of "profile". */
const char *const nczm_s3_opt_names[] = {
    "endpoint",   "region",        "profile",       "awsprofile", "access_key",
    "secret_key", "session_token", "cainfo",        "anonymous",  "multipart_threshold",
    "max_keys",   "connections",   "retry_seconds", NULL};

/* Credentials: never taken from a text that gets printed (the connector info string). */
const char *const nczm_s3_opt_secrets[] = {"access_key", "secret_key", "session_token", NULL};

static const nczm_s3_opts unset;

const nczm_s3_opts *nczm_s3_opts_of(const nczm_url *url)
{
    return url && url->opts ? url->opts : &unset;
}

void nczm_s3_opt_free(void *opts)
{
    nczm_s3_opts *o = opts;
    if (!o)
        return;
    free(o->endpoint);
    free(o->region);
    free(o->profile);
    free(o->access_key);
    nczm_free_secret(o->secret_key);
    nczm_free_secret(o->session_token);
    free(o->cainfo);
    free(o);
}

/* Replaces a string option: value NULL or "" unsets it. */
static nczm_status set_str(char **field, const char *value, int secret)
{
    char *v = value && *value ? strdup(value) : NULL;
    if (value && *value && !v)
        return NCZM_NOMEM;
    if (secret)
        nczm_free_secret(*field);
    else
        free(*field);
    *field = v;
    return NCZM_OK;
}

static int parse_uint(const char *v, uint64_t max, uint64_t *out)
{
    if (!v || !isdigit((unsigned char)*v))
        return -1;
    uint64_t x = 0;
    for (; *v; v++) {
        if (!isdigit((unsigned char)*v) || x > (max - (uint64_t)(*v - '0')) / 10)
            return -1;
        x = x * 10 + (uint64_t)(*v - '0');
    }
    *out = x;
    return 0;
}

static int parse_bool(const char *v)
{
    const char *yes[] = {"1", "true", "yes", "on"}, *no[] = {"0", "false", "no", "off", ""};
    for (size_t i = 0; v && i < 4; i++)
        if (strcasecmp(v, yes[i]) == 0)
            return 1;
    for (size_t i = 0; v && i < 5; i++)
        if (strcasecmp(v, no[i]) == 0)
            return 0;
    return -1;
}

static nczm_s3_opts *opts_get(void **opts)
{
    if (!*opts)
        *opts = calloc(1, sizeof(nczm_s3_opts));
    return *opts;
}

nczm_status nczm_s3_opt_set(void **opts, const char *name, const char *value, char errmsg[NCZM_ERRLEN])
{
    nczm_s3_opts *o = opts_get(opts);
    if (!o)
        return nczm_fmterr(errmsg, NCZM_NOMEM, "S3 option %s: out of memory", name);
    struct {
        const char *name;
        char **field;
        int secret;
    } strs[] = {{"endpoint", &o->endpoint, 0},
                {"region", &o->region, 0},
                {"profile", &o->profile, 0},
                {"awsprofile", &o->profile, 0},
                {"access_key", &o->access_key, 0},
                {"secret_key", &o->secret_key, 1},
                {"session_token", &o->session_token, 1},
                {"cainfo", &o->cainfo, 0}};
    for (size_t i = 0; i < sizeof strs / sizeof *strs; i++)
        if (strcmp(name, strs[i].name) == 0)
            return set_str(strs[i].field, value, strs[i].secret) == NCZM_OK
                       ? NCZM_OK
                       : nczm_fmterr(errmsg, NCZM_NOMEM, "S3 option %s: out of memory", name);
    uint64_t x = 0;
    if (strcmp(name, "anonymous") == 0) {
        int b = parse_bool(value);
        if (b < 0)
            return nczm_fmterr(errmsg, NCZM_INVAL,
                               "S3 option anonymous=\"%s\": not 0/1, true/false or yes/no",
                               value ? value : "");
        o->anonymous = b;
        return NCZM_OK;
    }
    if (strcmp(name, "multipart_threshold") == 0 && parse_uint(value, UINT64_MAX, &x) == 0) {
        o->multipart_threshold = x;
        return NCZM_OK;
    }
    if (strcmp(name, "max_keys") == 0 && parse_uint(value, 1000, &x) == 0) {
        o->max_keys = (unsigned)x;
        return NCZM_OK;
    }
    if (strcmp(name, "connections") == 0 && parse_uint(value, 1024, &x) == 0) {
        o->connections = (unsigned)x;
        return NCZM_OK;
    }
    if (strcmp(name, "retry_seconds") == 0 && parse_uint(value, 3600, &x) == 0) {
        o->retry_ms = (unsigned)(x * 1000);
        return NCZM_OK;
    }
    const char *nums[] = {"multipart_threshold", "max_keys", "connections", "retry_seconds"};
    for (size_t i = 0; i < 4; i++)
        if (strcmp(name, nums[i]) == 0)
            return nczm_fmterr(errmsg, NCZM_INVAL, "S3 option %s=\"%s\": not a number in range", name,
                               value ? value : "");
    return nczm_fmterr(errmsg, NCZM_INVAL, "unknown S3 option \"%s\"", name);
}

/* The S3 keys of a fragment netCDF-C reads too: aws.profile= (its documentation also says
 * awsprofile=) and aws.region=, case-insensitive, values %-decoded. */
nczm_status nczm_s3_opt_fragment(void **opts, const char *frag, const char *name, char errmsg[NCZM_ERRLEN])
{
    const struct {
        const char *key, *opt;
    } keys[] = {{"aws.profile", "profile"},
                {"awsprofile", "profile"},
                {"aws.region", "region"},
                {"awsregion", "region"}};
    const char *p = frag;
    while (*p) {
        const char *amp = strchr(p, '&');
        size_t ilen = amp ? (size_t)(amp - p) : strlen(p);
        const char *eq = memchr(p, '=', ilen);
        for (size_t i = 0; eq && i < sizeof keys / sizeof *keys; i++) {
            size_t kl = strlen(keys[i].key);
            if ((size_t)(eq - p) != kl || strncasecmp(p, keys[i].key, kl) != 0)
                continue;
            char *v;
            nczm_status dst = nczm_decode_range(eq + 1, ilen - kl - 1, &v);
            if (dst == NCZM_NOMEM)
                return nczm_fmterr(errmsg, NCZM_NOMEM, "%s: out of memory", name);
            if (dst != NCZM_OK)
                return nczm_fmterr(errmsg, NCZM_INVAL, "%s: bad %%-escape in %s=", name, keys[i].key);
            nczm_status st = nczm_s3_opt_set(opts, keys[i].opt, v, errmsg);
            free(v);
            if (st != NCZM_OK)
                return st;
        }
        p = amp ? amp + 1 : p + ilen;
    }
    return NCZM_OK;
}
