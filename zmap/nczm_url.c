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

void nczm_url_clear(nczm_url *url)
{
    if (!url)
        return;
    free(url->location);
    free(url->mode);
    if (url->opts && url->drv && url->drv->opt_free)
        url->drv->opt_free(url->opts);
    url->location = NULL;
    url->mode = NULL;
    url->opts = NULL;
    url->drv = NULL;
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

/* The one driver the mode list names (*named NULL: none); NCZM_INVAL when it names more. */
static nczm_status mode_driver(const char *mode, const nczm_driver **named)
{
    *named = NULL;
    for (const nczm_driver *const *d = nczm_drivers; *d; d++) {
        if (!nczm_mode_has(mode, (*d)->mode))
            continue;
        if (*named)
            return NCZM_INVAL;
        *named = *d;
    }
    return NCZM_OK;
}

/* "s3:// or http(s)://" for messages: the schemes a driver takes */
static void schemes_text(const nczm_driver *d, char *buf, size_t len)
{
    size_t n = 0;
    buf[0] = '\0';
    const char *const *lists[2] = {d->schemes, d->mode_schemes};
    for (int l = 0; l < 2; l++)
        for (const char *const *s = lists[l]; s && *s && n + 1 < len; s++) {
            int w = snprintf(buf + n, len - n, "%s%s://", n ? " or " : "", *s);
            if (w < 0)
                return;
            n += (size_t)w;
        }
}

nczm_status nczm_url_parse(const char *name, nczm_url *out, char errmsg[NCZM_ERRLEN])
{
    if (errmsg)
        errmsg[0] = '\0';
    if (!out)
        return nczm_fmterr(errmsg, NCZM_INVAL, "nczm_url_parse: no output argument");
    out->kind = NCZM_KIND_NONE;
    out->drv = NULL;
    out->location = NULL;
    out->mode = NULL;
    out->opts = NULL;
    out->marks = out->prefetch = NULL;
    out->label_name = out->label_value = NULL;
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

    const nczm_driver *named = NULL, *drv = NULL;
    nczm_status st = NCZM_OK;
    char *loc = NULL, schemes[128];
    if (mode_driver(mode, &named) != NCZM_OK) {
        st = nczm_fmterr(errmsg, NCZM_INVAL, "%s: mode \"%s\" names more than one store kind", name, mode);
        goto fail;
    }

    int is_path = 1;
    if (slen) {
        char scheme[16];
        if (slen >= sizeof scheme) {
            st = nczm_fmterr(errmsg, NCZM_INVAL, "%s: unsupported URL scheme", name);
            goto fail;
        }
        for (size_t i = 0; i < slen; i++)
            scheme[i] = (char)tolower((unsigned char)name[i]);
        scheme[slen] = '\0';
        is_path = strcmp(scheme, "file") == 0;
        if (!is_path) {
            /* a driver that takes the scheme on its own, or when the mode names it */
            for (const nczm_driver *const *d = nczm_drivers; *d && !drv; d++)
                if (nczm_name_listed((*d)->schemes, scheme) ||
                    ((*d) == named && nczm_name_listed((*d)->mode_schemes, scheme)))
                    drv = *d;
            const nczm_driver *any = drv;
            for (const nczm_driver *const *d = nczm_drivers; *d && !any; d++)
                if (nczm_name_listed((*d)->mode_schemes, scheme))
                    any = *d;
            if (!any) {
                st = nczm_fmterr(errmsg, NCZM_INVAL, "%s: unsupported URL scheme \"%s\"", name, scheme);
                goto fail;
            }
            if (!drv || (named && named != drv)) {
                st = nczm_fmterr(errmsg, NCZM_INVAL,
                                 "%s: a %s:// URL is only supported by the %s store (#mode=...,%s)", name,
                                 scheme, any->name, any->mode);
                goto fail;
            }
            loc = dup_range(name, baselen);
            if (!loc)
                goto nomem;
        } else {
            const char *path = name + slen + 3;
            size_t plen = baselen - slen - 3;
            /* file://localhost/abs is the long spelling of file:///abs. */
            if (plen >= 10 && strncasecmp(path, "localhost/", 10) == 0) {
                path += 9;
                plen -= 9;
            }
            st = nczm_decode_range(path, plen, &loc);
            if (st == NCZM_NOMEM)
                goto nomem;
            if (st != NCZM_OK) {
                st = nczm_fmterr(errmsg, NCZM_INVAL, "%s: bad %%-escape in the path", name);
                goto fail;
            }
        }
    } else {
        loc = dup_range(name, baselen);
        if (!loc)
            goto nomem;
    }

    if (is_path) {
        if (named && !named->paths) {
            schemes_text(named, schemes, sizeof schemes);
            st = nczm_fmterr(errmsg, NCZM_INVAL, "%s: mode %s needs a URL (%s)", name, named->mode, schemes);
            goto fail;
        }
        size_t n = strlen(loc);
        while (n > 1 && loc[n - 1] == '/')
            loc[--n] = '\0';
        if (n == 0) {
            st = nczm_fmterr(errmsg, NCZM_INVAL, "%s: no path in the store name", name);
            goto fail;
        }
        drv = named;
        for (const nczm_driver *const *d = nczm_drivers; *d && !drv; d++)
            if ((*d)->paths && (!(*d)->claims_path || (*d)->claims_path(loc)))
                drv = *d;
        if (!drv) {
            st = nczm_fmterr(errmsg, NCZM_UNSUPPORTED, "%s: no store kind takes paths", name);
            goto fail;
        }
    }
    out->drv = drv;
    out->kind = drv->kind;
    if (hash && drv->opt_fragment &&
        (st = drv->opt_fragment(&out->opts, hash + 1, name, errmsg)) != NCZM_OK) {
        nczm_url_clear(out);
        goto fail;
    }
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
