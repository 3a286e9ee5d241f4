/* Store names: plain paths and netCDF-style URLs (file://...#mode=nczarr,file|zip), parsed
 * once into nczm_url so that each store kind gets its location and options. */
#include "nczm_impl.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>

int nczm_mode_has(const char *mode, const char *word)
{
    if (!mode || !word || !*word)
        return 0;
    size_t wl = strlen(word);
    const char *p = mode;
    while (*p) {
        const char *end = strchr(p, ',');
        if (!end)
            end = p + strlen(p);
        const char *b = p, *e = end;
        while (b < e && isspace((unsigned char)*b))
            b++;
        while (e > b && isspace((unsigned char)e[-1]))
            e--;
        if ((size_t)(e - b) == wl && strncasecmp(b, word, wl) == 0)
            return 1;
        p = *end ? end + 1 : end;
    }
    return 0;
}

void nczm_free_secret(char *s)
{
    if (s) {
        explicit_bzero(s, strlen(s));
        free(s);
    }
}

static void s3_opts_init(nczm_url *url)
{
    url->s3_endpoint = url->s3_region = url->s3_profile = NULL;
    url->s3_access_key = url->s3_secret_key = url->s3_session_token = url->s3_cainfo = NULL;
    url->s3_anonymous = 0;
    url->s3_multipart_threshold = 0;
    url->s3_max_keys = url->s3_connections = url->s3_retry_ms = 0;
}

void nczm_url_clear(nczm_url *url)
{
    if (!url)
        return;
    free(url->location);
    free(url->mode);
    free(url->s3_endpoint);
    free(url->s3_region);
    free(url->s3_profile);
    free(url->s3_access_key);
    nczm_free_secret(url->s3_secret_key);
    nczm_free_secret(url->s3_session_token);
    free(url->s3_cainfo);
    url->location = NULL;
    url->mode = NULL;
    s3_opts_init(url);
    url->kind = NCZM_KIND_NONE;
}

static char *dup_range(const char *s, size_t n)
{
    char *d = malloc(n + 1);
    if (d) {
        memcpy(d, s, n);
        d[n] = '\0';
    }
    return d;
}

static int hexval(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* Decodes %XX in place. A bad escape or %00 makes the URL unusable (a NUL would silently
 * cut the path), so that is an error rather than something to pass through. */
static int percent_decode(char *s)
{
    char *w = s;
    for (const char *r = s; *r; r++) {
        if (*r != '%') {
            *w++ = *r;
            continue;
        }
        int hi = hexval(r[1]), lo = hi < 0 ? -1 : hexval(r[2]);
        if (hi < 0 || lo < 0 || (hi == 0 && lo == 0))
            return -1;
        *w++ = (char)(hi * 16 + lo);
        r += 2;
    }
    *w = '\0';
    return 0;
}

nczm_status nczm_decode_range(const char *s, size_t n, char **out)
{
    *out = NULL;
    char *d = dup_range(s, n);
    if (!d)
        return NCZM_NOMEM;
    if (percent_decode(d) != 0) {
        free(d);
        return NCZM_INVAL;
    }
    *out = d;
    return NCZM_OK;
}

/* The value(s) of mode= in a fragment "mode=a,b&other=x". Several mode= items are joined
 * with ',' so none is lost. Returns NULL only on out-of-memory. */
static char *fragment_mode(const char *frag, size_t fraglen, int *found)
{
    char *mode = calloc(1, 1);
    size_t mlen = 0;
    *found = 0;
    const char *p = frag, *end = frag + fraglen;
    while (mode && p < end) {
        const char *amp = memchr(p, '&', (size_t)(end - p));
        const char *iend = amp ? amp : end;
        if (iend - p >= 5 && strncasecmp(p, "mode=", 5) == 0) {
            size_t vl = (size_t)(iend - p - 5);
            char *nm = realloc(mode, mlen + vl + 2);
            if (!nm) {
                free(mode);
                return NULL;
            }
            mode = nm;
            if (mlen && vl)
                mode[mlen++] = ',';
            memcpy(mode + mlen, p + 5, vl);
            mlen += vl;
            mode[mlen] = '\0';
            *found = 1;
        }
        p = amp ? amp + 1 : end;
    }
    return mode;
}

static int has_zip_ext(const char *path)
{
    size_t n = strlen(path);
    return n > 4 && strcasecmp(path + n - 4, ".zip") == 0;
}

/* Length of "scheme" if name starts with "scheme://", else 0. */
static size_t scheme_len(const char *name)
{
    if (!isalpha((unsigned char)name[0]))
        return 0;
    size_t i = 1;
    while (isalnum((unsigned char)name[i]) || name[i] == '+' || name[i] == '-' || name[i] == '.')
        i++;
    return strncmp(name + i, "://", 3) == 0 ? i : 0;
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

nczm_status nczm_url_set(nczm_url *url, const char *name, const char *value, char errmsg[NCZM_ERRLEN])
{
    if (errmsg)
        errmsg[0] = '\0';
    if (!url || !name)
        return nczm_fmterr(errmsg, NCZM_INVAL, "nczm_url_set: no URL or option name");
    struct {
        const char *name;
        char **field;
        int secret;
    } strs[] = {{"endpoint", &url->s3_endpoint, 0},     {"region", &url->s3_region, 0},
                {"profile", &url->s3_profile, 0},       {"access_key", &url->s3_access_key, 0},
                {"secret_key", &url->s3_secret_key, 1}, {"session_token", &url->s3_session_token, 1},
                {"cainfo", &url->s3_cainfo, 0}};
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
        url->s3_anonymous = b;
        return NCZM_OK;
    }
    if (strcmp(name, "multipart_threshold") == 0 && parse_uint(value, UINT64_MAX, &x) == 0) {
        url->s3_multipart_threshold = x;
        return NCZM_OK;
    }
    if (strcmp(name, "max_keys") == 0 && parse_uint(value, 1000, &x) == 0) {
        url->s3_max_keys = (unsigned)x;
        return NCZM_OK;
    }
    if (strcmp(name, "connections") == 0 && parse_uint(value, 1024, &x) == 0) {
        url->s3_connections = (unsigned)x;
        return NCZM_OK;
    }
    if (strcmp(name, "retry_seconds") == 0 && parse_uint(value, 3600, &x) == 0) {
        url->s3_retry_ms = (unsigned)(x * 1000);
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
static nczm_status fragment_s3(const char *frag, nczm_url *out, const char *name, char errmsg[NCZM_ERRLEN])
{
    const struct {
        const char *key;
        char **field;
    } keys[] = {{"aws.profile", &out->s3_profile},
                {"awsprofile", &out->s3_profile},
                {"aws.region", &out->s3_region},
                {"awsregion", &out->s3_region}};
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
            free(*keys[i].field);
            *keys[i].field = *v ? v : NULL;
            if (!*v)
                free(v);
        }
        p = amp ? amp + 1 : p + ilen;
    }
    return NCZM_OK;
}

nczm_status nczm_url_parse(const char *name, nczm_url *out, char errmsg[NCZM_ERRLEN])
{
    if (errmsg)
        errmsg[0] = '\0';
    if (!out)
        return nczm_fmterr(errmsg, NCZM_INVAL, "nczm_url_parse: no output argument");
    out->kind = NCZM_KIND_NONE;
    out->location = NULL;
    out->mode = NULL;
    out->marks = out->prefetch = NULL;
    out->label_name = out->label_value = NULL;
    s3_opts_init(out);
    if (!name || !*name)
        return nczm_fmterr(errmsg, NCZM_INVAL, "empty store name");

    size_t slen = scheme_len(name);
    const char *hash;
    if (slen) {
        hash = strchr(name, '#');
    } else {
        /* A plain path may contain '#'; only a trailing "#...mode=..." is a fragment. */
        hash = strrchr(name, '#');
        if (hash) {
            int found;
            char *m = fragment_mode(hash + 1, strlen(hash + 1), &found);
            if (!m)
                return nczm_fmterr(errmsg, NCZM_NOMEM, "%s: out of memory", name);
            free(m);
            if (!found)
                hash = NULL;
        }
    }
    size_t baselen = hash ? (size_t)(hash - name) : strlen(name);
    int found = 0;
    char *mode = hash ? fragment_mode(hash + 1, strlen(hash + 1), &found) : calloc(1, 1);
    if (!mode)
        return nczm_fmterr(errmsg, NCZM_NOMEM, "%s: out of memory", name);

    int want_file = nczm_mode_has(mode, "file"), want_zip = nczm_mode_has(mode, "zip"),
        want_s3 = nczm_mode_has(mode, "s3");
    nczm_status st = NCZM_OK;
    nczm_kind kind = NCZM_KIND_NONE;
    char *loc = NULL;
    if (want_file + want_zip + want_s3 > 1) {
        st = nczm_fmterr(errmsg, NCZM_INVAL, "%s: mode \"%s\" names more than one store kind", name, mode);
        goto fail;
    }

    if (slen) {
        char scheme[16];
        if (slen >= sizeof scheme) {
            st = nczm_fmterr(errmsg, NCZM_INVAL, "%s: unsupported URL scheme", name);
            goto fail;
        }
        for (size_t i = 0; i < slen; i++)
            scheme[i] = (char)tolower((unsigned char)name[i]);
        scheme[slen] = '\0';
        if (strcmp(scheme, "file") == 0) {
            const char *path = name + slen + 3;
            size_t plen = baselen - slen - 3;
            /* file://localhost/abs is the long spelling of file:///abs. */
            if (plen >= 10 && strncasecmp(path, "localhost/", 10) == 0) {
                path += 9;
                plen -= 9;
            }
            if (want_s3) {
                st = nczm_fmterr(errmsg, NCZM_INVAL, "%s: mode s3 needs an s3:// or http(s):// URL", name);
                goto fail;
            }
            st = nczm_decode_range(path, plen, &loc);
            if (st == NCZM_NOMEM)
                goto nomem;
            if (st != NCZM_OK) {
                st = nczm_fmterr(errmsg, NCZM_INVAL, "%s: bad %%-escape in the path", name);
                goto fail;
            }
        } else if (strcmp(scheme, "s3") == 0 || strcmp(scheme, "http") == 0 || strcmp(scheme, "https") == 0) {
            int is_s3 = strcmp(scheme, "s3") == 0;
            if (want_file || want_zip || (!is_s3 && !want_s3)) {
                st = nczm_fmterr(errmsg, NCZM_INVAL,
                                 "%s: a %s:// URL is only supported as an S3 store (#mode=...,s3)", name,
                                 scheme);
                goto fail;
            }
            loc = dup_range(name, baselen);
            if (!loc)
                goto nomem;
            kind = NCZM_KIND_S3;
        } else {
            st = nczm_fmterr(errmsg, NCZM_INVAL, "%s: unsupported URL scheme \"%s\"", name, scheme);
            goto fail;
        }
    } else {
        if (want_s3) {
            st = nczm_fmterr(errmsg, NCZM_INVAL, "%s: mode s3 needs an s3:// or http(s):// URL", name);
            goto fail;
        }
        loc = dup_range(name, baselen);
        if (!loc)
            goto nomem;
    }

    if (kind != NCZM_KIND_S3) {
        size_t n = strlen(loc);
        while (n > 1 && loc[n - 1] == '/')
            loc[--n] = '\0';
        if (n == 0) {
            st = nczm_fmterr(errmsg, NCZM_INVAL, "%s: no path in the store name", name);
            goto fail;
        }
        kind = want_zip           ? NCZM_KIND_ZIP
               : want_file        ? NCZM_KIND_FILE
               : has_zip_ext(loc) ? NCZM_KIND_ZIP
                                  : NCZM_KIND_FILE;
    }
    if (kind == NCZM_KIND_S3 && hash && (st = fragment_s3(hash + 1, out, name, errmsg)) != NCZM_OK) {
        nczm_url_clear(out);
        goto fail;
    }
    out->kind = kind;
    out->location = loc;
    out->mode = mode;
    return NCZM_OK;

nomem:
    st = nczm_fmterr(errmsg, NCZM_NOMEM, "%s: out of memory", name);
fail:
    free(loc);
    free(mode);
    return st;
}

void nczm_marks_text(const nczm_url *url, char *buf, size_t len)
{
    size_t n = 0, count = 0;
    buf[0] = '\0';
    for (const char *const *m = url->marks; m && *m; m++)
        count++;
    size_t i = 0;
    for (const char *const *m = url->marks; m && *m && n < len; m++, i++) {
        int w = snprintf(buf + n, len - n, "%s%s", i == 0 ? "" : i + 1 == count ? " or " : ", ", *m);
        if (w < 0)
            break;
        n += (size_t)w;
    }
    if (!count)
        snprintf(buf, len, "(no store marks given)");
}
