/* S3 names and URLs. A store is every object below a root prefix in a bucket:
 *   s3://bucket/root/prefix                  endpoint from the options or the AWS settings
 *                                            (nczm_s3cred.c), default AWS in the region
 *   https://host[:port]/bucket/root#mode=..,s3   path style (any S3 server; http:// too)
 *   https://bucket.s3.region.amazonaws.com/root  virtual host (the bucket in the host name)
 *   https://s3.region.amazonaws.com/bucket/root  path style on AWS, region from the host
 * Requests address "<root>/<zmap key>", each segment percent-encoded in the path as SigV4
 * signs it (curl signs the path as given, CURLOPT_PATH_AS_IS keeps it so). */
#include "nczm_s3.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>

static int unreserved(unsigned char c)
{
    return isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~';
}

static void sb_put(s3_sb *b, const char *s, size_t n)
{
    if (b->oom)
        return;
    if (b->len + n + 1 > b->cap) {
        size_t nc = b->cap ? b->cap : 256;
        while (nc < b->len + n + 1)
            nc *= 2;
        char *ns = realloc(b->s, nc);
        if (!ns) {
            b->oom = 1;
            return;
        }
        b->s = ns;
        b->cap = nc;
    }
    memcpy(b->s + b->len, s, n);
    b->len += n;
    b->s[b->len] = '\0';
}

void s3_sb_add(s3_sb *b, const char *s)
{
    sb_put(b, s, strlen(s));
}

void s3_sb_enc(s3_sb *b, const char *s, int keep_slash)
{
    static const char hex[] = "0123456789ABCDEF";
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (unreserved(*p) || (keep_slash && *p == '/')) {
            sb_put(b, (const char *)p, 1);
        } else {
            char e[3] = {'%', hex[*p >> 4], hex[*p & 15]};
            sb_put(b, e, 3);
        }
    }
}

/* A carriage return is written as a character reference: an XML reader turns a literal
 * one (and CR LF) into a line feed, and the server would read another key. */
void s3_sb_xml(s3_sb *b, const char *s)
{
    for (; *s; s++) {
        const char *e = *s == '&'    ? "&amp;"
                        : *s == '<'  ? "&lt;"
                        : *s == '>'  ? "&gt;"
                        : *s == '"'  ? "&quot;"
                        : *s == '\'' ? "&apos;"
                        : *s == '\r' ? "&#13;"
                                     : NULL;
        if (e)
            s3_sb_add(b, e);
        else
            sb_put(b, s, 1);
    }
}

char *s3_sb_take(s3_sb *b)
{
    if (!b->oom && !b->s)
        sb_put(b, "", 0);
    char *s = b->oom ? NULL : b->s;
    if (b->oom)
        free(b->s);
    memset(b, 0, sizeof *b);
    return s;
}

char *s3_full_key(const s3_map *m, const char *key)
{
    const char *root = m->cfg.root;
    if (!*root)
        return strdup(key);
    if (!*key)
        return strdup(root);
    return nczm_join(root, key);
}

char *s3_url_of(const s3_map *m, const char *fullkey, const char *query)
{
    s3_sb u = {0};
    s3_sb_add(&u, m->cfg.base);
    s3_sb_add(&u, "/");
    s3_sb_enc(&u, fullkey, 1);
    if (query && *query) {
        s3_sb_add(&u, "?");
        s3_sb_add(&u, query);
    }
    return s3_sb_take(&u);
}

char *s3_key_url(const s3_map *m, const char *key, const char *query)
{
    const s3_cfg *c = &m->cfg;
    /* the key "" is the root prefix itself, without the '/' after it */
    size_t bl = c->key_base_len - (!*key && *c->root);
    size_t ql = query && *query ? strlen(query) + 1 : 0;
    /* room for the longest encoding, so that one allocation does */
    size_t cap = bl + 3 * strlen(key) + ql + 1;
    s3_sb u = {malloc(cap), 0, cap, 0};
    u.oom = !u.s;
    sb_put(&u, c->key_base, bl);
    s3_sb_enc(&u, key, 1);
    if (ql) {
        s3_sb_add(&u, "?");
        s3_sb_add(&u, query);
    }
    return s3_sb_take(&u);
}

void s3_url_display(const char *url, char *out, size_t outlen)
{
    size_t n = strcspn(url, "?#");
    if (n >= outlen)
        n = outlen - 1;
    memcpy(out, url, n);
    out[n] = '\0';
}

/* A bucket name S3 can put in a host name (no dots: a dotted name breaks the certificate's
 * wildcard). */
static int dns_bucket(const char *b)
{
    size_t n = strlen(b);
    if (n < 3 || n > 63 || b[0] == '-' || b[n - 1] == '-')
        return 0;
    for (size_t i = 0; i < n; i++)
        if (!(islower((unsigned char)b[i]) || isdigit((unsigned char)b[i]) || b[i] == '-'))
            return 0;
    return 1;
}

/* The host's dot-separated labels (at most 8), copied into buf. */
static size_t host_labels(const char *host, char *buf, size_t buflen, char *lab[8])
{
    snprintf(buf, buflen, "%s", host);
    size_t n = 0;
    for (char *p = buf; p && n < 8;) {
        lab[n++] = p;
        p = strchr(p, '.');
        if (p)
            *p++ = '\0';
    }
    return n;
}

static unsigned env_uint(const char *name, unsigned dflt, unsigned max)
{
    const char *v = getenv(name);
    if (!v || !*v)
        return dflt;
    char *end;
    unsigned long x = strtoul(v, &end, 10);
    return *end || x > max ? dflt : (unsigned)x;
}

static uint64_t env_u64(const char *name, uint64_t dflt)
{
    const char *v = getenv(name);
    if (!v || !*v)
        return dflt;
    char *end;
    unsigned long long x = strtoull(v, &end, 10);
    return *end ? dflt : (uint64_t)x;
}

void s3_cfg_clear(s3_cfg *c)
{
    free(c->base);
    free(c->bucket);
    free(c->root);
    free(c->key_base);
    free(c->region);
    free(c->sigv4);
    free(c->access);
    nczm_free_secret(c->secret);
    nczm_free_secret(c->token_hdr);
    free(c->cainfo);
    memset(c, 0, sizeof *c);
}

/* Tuning: the URL's options, else NCZM_S3_* environment variables (for tests and CI),
 * else the defaults. */
static void cfg_tuning(const nczm_url *url, s3_cfg *c)
{
    const nczm_s3_opts *uo = nczm_s3_opts_of(url);
    c->mpu_threshold = uo->multipart_threshold ? uo->multipart_threshold
                                               : env_u64("NCZM_S3_MULTIPART_THRESHOLD", (uint64_t)64 << 20);
    if (c->mpu_threshold < 1)
        c->mpu_threshold = 1;
    /* parts of 16 MiB, or as small as S3 allows when a low threshold asks for parts */
    uint64_t part = c->mpu_threshold < ((uint64_t)16 << 20) ? c->mpu_threshold : ((uint64_t)16 << 20);
    c->part_size = part < S3_PART_MIN ? S3_PART_MIN : (size_t)part;
    c->max_keys = uo->max_keys ? uo->max_keys : env_uint("NCZM_S3_MAX_KEYS", 1000, 1000);
    if (!c->max_keys)
        c->max_keys = 1000;
    c->conns = uo->connections ? uo->connections : env_uint("NCZM_S3_CONNECTIONS", 16, 1024);
    if (!c->conns)
        c->conns = 16;
    c->retry_ms = uo->retry_ms ? uo->retry_ms : 1000 * env_uint("NCZM_S3_RETRY_SECONDS", 20, 3600);
    /* A server that never answered is most likely not there: do not wait the whole retry
     * time for it to appear. */
    c->connect_ms = c->retry_ms < 3000 ? c->retry_ms : 3000;
    c->stall_s = env_uint("NCZM_S3_STALL_SECONDS", 20, 3600);
    if (!c->stall_s)
        c->stall_s = 20;
}

/* Splits the location into scheme, host[:port], bucket and root prefix, and decides the
 * addressing style. */
static nczm_status cfg_address(const nczm_url *url, const s3_env *e, s3_cfg *c, char **host_region,
                               char errmsg[NCZM_ERRLEN])
{
    const nczm_s3_opts *uo = nczm_s3_opts_of(url);
    const char *loc = url->location;
    const char *sep = strstr(loc, "://");
    if (!sep)
        return nczm_fmterr(errmsg, NCZM_INVAL, "%s: not an s3:// or http(s):// URL", loc);
    size_t slen = (size_t)(sep - loc);
    const char *auth = sep + 3, *path = strchr(auth, '/');
    size_t alen = path ? (size_t)(path - auth) : strlen(auth);
    if (!path)
        path = "";
    if (memchr(auth, '@', alen))
        return nczm_fmterr(errmsg, NCZM_INVAL,
                           "%s: credentials in the URL are not accepted (they would show wherever the "
                           "name does): give them as options, in AWS_* variables or an AWS profile",
                           "the S3 URL");
    if (alen == 0 || alen > 255)
        return nczm_fmterr(errmsg, NCZM_INVAL, "%s: no host or bucket in the URL", loc);
    /* a query would be taken for part of the key ('?' in a key is written %3F) */
    if (strchr(path, '?'))
        return nczm_fmterr(errmsg, NCZM_INVAL, "%s: an S3 store's URL has no query ('?')", loc);
    char hostbuf[256], labbuf[256];
    memcpy(hostbuf, auth, alen);
    hostbuf[alen] = '\0';
    while (*path == '/')
        path++;

    char *bucket = NULL, *prefix = NULL, *base = NULL;
    int is_s3 = slen == 2 && strncasecmp(loc, "s3", 2) == 0;
    int https = !is_s3 && slen == 5 && strncasecmp(loc, "https", 5) == 0;
    const char *rest = path; /* bucket/root for path style, root for virtual host */
    if (is_s3) {
        nczm_decode_range(hostbuf, alen, &bucket); /* NULL: a bad escape (or no memory) */
        if (!e->endpoint) {
            const char *region = uo->region ? uo->region : e->region ? e->region : "us-east-1";
            char b[512];
            if (bucket && dns_bucket(bucket))
                snprintf(b, sizeof b, "https://%s.s3.%s.amazonaws.com", bucket, region);
            else
                snprintf(b, sizeof b, "https://s3.%s.amazonaws.com/%s", region, bucket ? bucket : "");
            base = strdup(b);
            https = 1;
        } else {
            const char *ep = e->endpoint;
            int has_scheme = strstr(ep, "://") != NULL;
            https = !has_scheme || strncasecmp(ep, "https://", 8) == 0;
            if (has_scheme && !https && strncasecmp(ep, "http://", 7) != 0) {
                free(bucket);
                return nczm_fmterr(errmsg, NCZM_INVAL, "%s: S3 endpoint \"%s\" is not http:// or https://",
                                   loc, ep);
            }
            size_t el = strlen(ep);
            while (el > 1 && ep[el - 1] == '/')
                el--;
            s3_sb b = {0};
            s3_sb_add(&b, has_scheme ? "" : "https://");
            sb_put(&b, ep, el);
            s3_sb_add(&b, "/");
            if (bucket)
                s3_sb_enc(&b, bucket, 0);
            base = s3_sb_take(&b);
        }
    } else {
        char *lab[8];
        size_t nl = host_labels(hostbuf, labbuf, sizeof labbuf, lab);
        char *colon = strchr(lab[nl - 1], ':');
        if (colon)
            *colon = '\0'; /* the port is not part of the last label */
        int aws = nl >= 3 && strcasecmp(lab[nl - 2], "amazonaws") == 0 && strcasecmp(lab[nl - 1], "com") == 0;
        int vhost = nl >= 4 && strcasecmp(lab[0], "s3") != 0 && strcasecmp(lab[1], "s3") == 0;
        if (vhost) {
            bucket = strdup(lab[0]);
            if (nl >= (aws ? 5u : 4u) && !*host_region)
                *host_region = strdup(lab[2]);
        } else if (nl >= 4 && strcasecmp(lab[0], "s3") == 0) {
            *host_region = strdup(lab[1]);
        }
        if (!vhost) {
            size_t bl = strcspn(rest, "/");
            nczm_decode_range(rest, bl, &bucket);
            rest += bl;
            while (*rest == '/')
                rest++;
        }
        s3_sb b = {0};
        s3_sb_add(&b, https ? "https://" : "http://");
        s3_sb_add(&b, hostbuf);
        if (!vhost) {
            s3_sb_add(&b, "/");
            if (bucket)
                s3_sb_enc(&b, bucket, 0);
        }
        base = s3_sb_take(&b);
    }
    if (!base || !bucket) {
        free(base);
        free(bucket);
        return nczm_fmterr(errmsg, bucket || !base ? NCZM_NOMEM : NCZM_INVAL, "%s: %s", loc,
                           bucket || !base ? "out of memory" : "bad %-escape in the bucket name");
    }
    size_t rl = strlen(rest);
    while (rl && rest[rl - 1] == '/')
        rl--;
    nczm_decode_range(rest, rl, &prefix);
    nczm_status st = NCZM_OK;
    const char *why = NULL;
    if (!prefix)
        st = nczm_fmterr(errmsg, NCZM_INVAL, "%s: bad %%-escape in the key", loc);
    else if (!*bucket || strchr(bucket, '/') || strlen(bucket) > 255)
        st = nczm_fmterr(errmsg, NCZM_INVAL, "%s: no usable bucket name in the URL", loc);
    else if (*prefix && (why = nczm_key_problem(prefix)) != NULL)
        st = nczm_fmterr(errmsg, NCZM_BADKEY, "%s: the store's key \"%s\": %s", loc, prefix, why);
    else if (strlen(prefix) > S3_KEY_MAX - 16)
        st = nczm_fmterr(errmsg, NCZM_BADKEY, "%s: the store's key is longer than S3 allows", loc);
    if (st != NCZM_OK) {
        free(base);
        free(bucket);
        free(prefix);
        return st;
    }
    c->base = base;
    c->bucket = bucket;
    c->root = prefix;
    c->https = https;
    return NCZM_OK;
}

nczm_status s3_cfg_init(const nczm_url *url, s3_cfg *c, char errmsg[NCZM_ERRLEN])
{
    const nczm_s3_opts *uo = nczm_s3_opts_of(url);
    memset(c, 0, sizeof *c);
    s3_env e;
    nczm_status st = s3_env_resolve(url, &e, errmsg);
    if (st != NCZM_OK)
        return st;
    char *host_region = NULL;
    st = cfg_address(url, &e, c, &host_region, errmsg);
    if (st != NCZM_OK) {
        free(host_region);
        s3_env_clear(&e);
        return st;
    }
    /* the option or fragment, then the region the host names, then the environment */
    const char *region = uo->region ? uo->region : host_region ? host_region : e.region;
    c->region = strdup(region ? region : "us-east-1");
    free(host_region);
    c->cred_from = e.from;
    s3_sb kb = {0};
    s3_sb_add(&kb, c->base);
    s3_sb_add(&kb, "/");
    if (*c->root) {
        s3_sb_enc(&kb, c->root, 1);
        s3_sb_add(&kb, "/");
    }
    c->key_base_len = kb.len;
    c->key_base = s3_sb_take(&kb);
    int oom = !c->region || !c->key_base;
    if (e.access) {
        c->access = strdup(e.access);
        c->secret = strdup(e.secret);
        size_t n = strlen(c->region ? c->region : "") + 16;
        if ((c->sigv4 = malloc(n)) != NULL)
            snprintf(c->sigv4, n, "aws:amz:%s:s3", c->region ? c->region : "");
        oom |= !c->access || !c->secret || !c->sigv4;
        if (e.token) {
            n = strlen(e.token) + 32;
            if ((c->token_hdr = malloc(n)) != NULL)
                snprintf(c->token_hdr, n, "x-amz-security-token: %s", e.token);
            oom |= !c->token_hdr;
        }
    }
    if (e.cainfo)
        oom |= !(c->cainfo = strdup(e.cainfo));
    s3_env_clear(&e);
    if (oom) {
        s3_cfg_clear(c);
        return nczm_fmterr(errmsg, NCZM_NOMEM, "%s: out of memory", url->location);
    }
    cfg_tuning(url, c);
    return NCZM_OK;
}
