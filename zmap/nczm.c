/* zmap dispatch: URL parsing, key validation, argument checks, and the calls into the
 * store kinds. Checks live here once so that every store rejects the same bad input with
 * the same status and message. */
#include "nczm_impl.h"

#include <ctype.h>
#include <errno.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <time.h>
#include <unistd.h>

/* No store holds longer keys; each driver has its own, smaller limit (key_max). */
#define NCZM_KEY_MAX 65535

/* ---------------------------------------------------------------- errors */

nczm_status nczm_seterr(nczm_map *map, nczm_status st, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(map->errmsg, sizeof map->errmsg, fmt, ap);
    va_end(ap);
    return st;
}

nczm_status nczm_long_err(nczm_map *map, const char *key, uint64_t len, size_t cap)
{
    return nczm_seterr(map, NCZM_LONG,
                       "%s: read \"%s\": the object is %llu bytes, more than the %zu expected", map->location,
                       key, (unsigned long long)len, cap);
}

nczm_status nczm_fmterr(char errmsg[NCZM_ERRLEN], nczm_status st, const char *fmt, ...)
{
    if (errmsg) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(errmsg, NCZM_ERRLEN, fmt, ap);
        va_end(ap);
    }
    return st;
}

nczm_status nczm_errno_status(int err)
{
    switch (err) {
    case ENOENT:
    case ENOTDIR:
        return NCZM_NOTFOUND;
    case EACCES:
    case EPERM:
    case EROFS:
        return NCZM_PERM;
    case ENOMEM:
        return NCZM_NOMEM;
    default:
        return NCZM_IO;
    }
}

const char *nczm_status_str(nczm_status st)
{
    switch (st) {
    case NCZM_OK:
        return "success";
    case NCZM_NOTFOUND:
        return "not found";
    case NCZM_EXISTS:
        return "already exists";
    case NCZM_BADKEY:
        return "invalid key";
    case NCZM_IO:
        return "I/O error";
    case NCZM_NOMEM:
        return "out of memory";
    case NCZM_PERM:
        return "permission denied";
    case NCZM_INVAL:
        return "invalid argument";
    case NCZM_SHORT:
        return "read past the end of the object";
    case NCZM_NOTSTORE:
        return "not a Zarr store";
    case NCZM_UNSUPPORTED:
        return "not supported";
    case NCZM_LONG:
        return "object longer than the buffer";
    }
    return "unknown zmap status";
}

/* ---------------------------------------------------------------- keys */

static int byte_ok(unsigned char c)
{
    return c >= 0x20 && c != 0x7f && c != '\\';
}

int nczm_segment_ok(const char *name, size_t len)
{
    if (len == 0 || (len == 1 && name[0] == '.') || (len == 2 && name[0] == '.' && name[1] == '.'))
        return 0;
    for (size_t i = 0; i < len; i++)
        if (name[i] == '/' || !byte_ok((unsigned char)name[i]))
            return 0;
    return 1;
}

const char *nczm_key_problem(const char *key)
{
    if (!key)
        return "key is NULL";
    size_t n = strlen(key);
    if (n == 0)
        return "key is empty";
    if (n > NCZM_KEY_MAX)
        return "key is longer than 65535 bytes";
    if (key[0] == '/')
        return "key starts with '/'";
    if (key[n - 1] == '/')
        return "key ends with '/'";
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)key[i];
        if (c == '\\')
            return "key contains a backslash";
        if (!byte_ok(c))
            return "key contains a control character";
    }
    const char *seg = key;
    for (;;) {
        const char *slash = strchr(seg, '/');
        size_t len = slash ? (size_t)(slash - seg) : strlen(seg);
        if (len == 0)
            return "key has an empty segment";
        if ((len == 1 && seg[0] == '.') || (len == 2 && seg[0] == '.' && seg[1] == '.'))
            return "key has a \".\" or \"..\" segment";
        if (!slash)
            break;
        seg = slash + 1;
    }
    return NULL;
}

nczm_status nczm_key_validate(const char *key)
{
    return nczm_key_problem(key) ? NCZM_BADKEY : NCZM_OK;
}

void nczm_key_quote(char *dst, size_t dstlen, const char *key)
{
    if (dstlen < 8) {
        if (dstlen)
            dst[0] = '\0';
        return;
    }
    if (!key) {
        snprintf(dst, dstlen, "(null)");
        return;
    }
    /* Invariant: o + 4 <= dstlen, so "..." and the NUL always fit and a cut key is
     * visibly cut. */
    size_t o = 0;
    for (size_t i = 0; key[i]; i++) {
        unsigned char c = (unsigned char)key[i];
        char tmp[8];
        int w = (c < 0x20 || c == 0x7f) ? snprintf(tmp, sizeof tmp, "\\x%02x", c)
                                        : snprintf(tmp, sizeof tmp, "%c", c);
        if (o + (size_t)w + 4 > dstlen) {
            memcpy(dst + o, "...", 4);
            return;
        }
        memcpy(dst + o, tmp, (size_t)w);
        o += (size_t)w;
    }
    dst[o] = '\0';
}

/* ---------------------------------------------------------------- lists */

nczm_status nczm_list_append(nczm_list *list, size_t *cap, const char *name, size_t len)
{
    if (list->count == *cap) {
        size_t ncap = *cap ? *cap * 2 : 16;
        char **nn = realloc(list->names, ncap * sizeof *nn);
        if (!nn)
            return NCZM_NOMEM;
        list->names = nn;
        *cap = ncap;
    }
    char *s = malloc(len + 1);
    if (!s)
        return NCZM_NOMEM;
    memcpy(s, name, len);
    s[len] = '\0';
    list->names[list->count++] = s;
    return NCZM_OK;
}

static int cmp_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

void nczm_list_finish(nczm_list *list)
{
    if (list->count < 2)
        return;
    qsort(list->names, list->count, sizeof *list->names, cmp_names);
    size_t w = 1;
    for (size_t r = 1; r < list->count; r++) {
        if (strcmp(list->names[r], list->names[w - 1]) == 0)
            free(list->names[r]);
        else
            list->names[w++] = list->names[r];
    }
    list->count = w;
}

void nczm_list_clear(nczm_list *list)
{
    if (!list)
        return;
    for (size_t i = 0; i < list->count; i++)
        free(list->names[i]);
    free(list->names);
    list->names = NULL;
    list->count = 0;
}

char *nczm_join(const char *dir, const char *name)
{
    size_t a = strlen(dir), b = strlen(name);
    char *s = malloc(a + b + 2);
    if (!s)
        return NULL;
    memcpy(s, dir, a);
    s[a] = '/';
    memcpy(s + a + 1, name, b + 1);
    return s;
}

/* ---------------------------------------------------------------- filesystem helpers */

/* The directory part of path ("." for a bare name, "/" for a top-level one). */
char *nczm_parent_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        return strdup(".");
    if (slash == path)
        return strdup("/");
    size_t n = (size_t)(slash - path);
    char *p = malloc(n + 1);
    if (p) {
        memcpy(p, path, n);
        p[n] = '\0';
    }
    return p;
}

/* Creates a new temporary file in dir. Not mkstemp: mkstemp creates mode 0600, and the
 * object must end up with the usual 0666 & ~umask, which O_CREAT applies for us without
 * touching the process-wide umask. O_EXCL gives the same no-clobber guarantee. */
int nczm_open_tmp_at(int dirfd, const char *dir, char **tmppath)
{
    static atomic_ulong counter;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    size_t n = (dir ? strlen(dir) + 1 : 0) + sizeof(NCZM_TMP_PREFIX) + 64;
    char *p = malloc(n);
    if (!p) {
        errno = ENOMEM;
        return -1;
    }
    for (int tries = 0; tries < 100; tries++) {
        unsigned long c = atomic_fetch_add(&counter, 1);
        unsigned long mix = (unsigned long)ts.tv_nsec * 2654435761u + c * 40503u + (unsigned long)tries;
        snprintf(p, n, "%s%s%s.%ld.%lu.%lx", dir ? dir : "", dir ? "/" : "", NCZM_TMP_PREFIX, (long)getpid(),
                 c, mix & 0xffffffu);
        int fd = openat(dirfd, p, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
        if (fd >= 0) {
            *tmppath = p;
            return fd;
        }
        if (errno != EEXIST)
            break;
    }
    int e = errno;
    free(p);
    errno = e;
    return -1;
}

int nczm_open_tmp(const char *dir, char **tmppath)
{
    return nczm_open_tmp_at(AT_FDCWD, dir, tmppath);
}

/* Can we create files in dir? access() alone is not enough: it says yes to root on a
 * read-only mount, so we also create and remove a scratch file. */
nczm_status nczm_check_dir_writable(const char *dir, const char *store, char errmsg[NCZM_ERRLEN])
{
    if (access(dir, W_OK | X_OK) != 0) {
        int e = errno;
        return nczm_fmterr(errmsg, nczm_errno_status(e) == NCZM_PERM ? NCZM_PERM : NCZM_IO,
                           "%s: open for writing: %s", store, strerror(e));
    }
    char *tmp = NULL;
    int fd = nczm_open_tmp(dir, &tmp);
    if (fd < 0) {
        int e = errno;
        return nczm_fmterr(errmsg, nczm_errno_status(e) == NCZM_PERM ? NCZM_PERM : NCZM_IO,
                           "%s: open for writing: cannot create a file in \"%s\": %s", store, dir,
                           strerror(e));
    }
    close(fd);
    unlink(tmp);
    free(tmp);
    return NCZM_OK;
}

/* ---------------------------------------------------------------- URLs */

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

void nczm_url_clear(nczm_url *url)
{
    if (!url)
        return;
    free(url->location);
    free(url->mode);
    url->location = NULL;
    url->mode = NULL;
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

nczm_status nczm_url_parse(const char *name, nczm_url *out, char errmsg[NCZM_ERRLEN])
{
    if (errmsg)
        errmsg[0] = '\0';
    if (!out)
        return nczm_fmterr(errmsg, NCZM_INVAL, "nczm_url_parse: no output argument");
    out->kind = NCZM_KIND_NONE;
    out->location = NULL;
    out->mode = NULL;
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
            loc = dup_range(path, plen);
            if (!loc)
                goto nomem;
            if (percent_decode(loc) != 0) {
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

/* ---------------------------------------------------------------- open/close */

nczm_status nczm_map_init(nczm_map *map, const nczm_driver *drv, const char *location, unsigned flags,
                          char errmsg[NCZM_ERRLEN])
{
    map->drv = drv;
    map->kind = drv->kind;
    map->flags = flags;
    map->readonly = (flags & NCZM_READONLY) != 0;
    map->errmsg[0] = '\0';
    map->location = strdup(location);
    if (!map->location)
        return nczm_fmterr(errmsg, NCZM_NOMEM, "%s: out of memory", location);
    return NCZM_OK;
}

static const nczm_driver *driver_for(const nczm_url *url, char errmsg[NCZM_ERRLEN], nczm_status *st)
{
    switch (url->kind) {
    case NCZM_KIND_FILE:
        return &nczm_file_driver;
    case NCZM_KIND_ZIP:
        return &nczm_zip_driver;
    case NCZM_KIND_S3:
        *st = nczm_fmterr(errmsg, NCZM_UNSUPPORTED, "%s: S3 store not built yet", url->location);
        return NULL;
    case NCZM_KIND_NONE:
        break;
    }
    *st = nczm_fmterr(errmsg, NCZM_INVAL, "%s: unknown store kind %d",
                      url->location ? url->location : "(no location)", (int)url->kind);
    return NULL;
}

static void copy_err(char errmsg[NCZM_ERRLEN], const char *msg)
{
    if (errmsg)
        snprintf(errmsg, NCZM_ERRLEN, "%s", msg);
}

nczm_status nczm_open(const nczm_url *url, unsigned flags, nczm_map **out, char errmsg[NCZM_ERRLEN])
{
    char msg[NCZM_ERRLEN] = "";
    nczm_status st = NCZM_INVAL;
    if (out)
        *out = NULL;
    if (!url || !out || !url->location) {
        copy_err(errmsg, "nczm_open: missing URL or output argument");
        return NCZM_INVAL;
    }
    const unsigned known = NCZM_READONLY | NCZM_CREATE | NCZM_TRUNC | NCZM_EXCL | NCZM_ZIP_ROOT;
    const char *bad = NULL;
    if (flags & ~known)
        bad = "unknown flag bits";
    else if ((flags & NCZM_READONLY) && (flags & NCZM_CREATE))
        bad = "READONLY and CREATE together";
    else if ((flags & (NCZM_TRUNC | NCZM_EXCL)) && !(flags & NCZM_CREATE))
        bad = "TRUNC or EXCL without CREATE";
    else if ((flags & NCZM_TRUNC) && (flags & NCZM_EXCL))
        bad = "TRUNC and EXCL together";
    if (bad) {
        st = nczm_fmterr(msg, NCZM_INVAL, "%s: open: bad flags 0x%x (%s)", url->location, flags, bad);
        copy_err(errmsg, msg);
        return st;
    }
    const nczm_driver *drv = driver_for(url, msg, &st);
    if (drv)
        st = drv->open(url, flags, out, msg);
    if (st != NCZM_OK)
        *out = NULL;
    copy_err(errmsg, msg);
    return st;
}

nczm_status nczm_close_err(nczm_map *map, char errmsg[NCZM_ERRLEN])
{
    if (errmsg)
        errmsg[0] = '\0';
    if (!map)
        return NCZM_OK;
    nczm_status st = map->drv->close(map);
    if (st != NCZM_OK)
        copy_err(errmsg, map->errmsg);
    free(map->location);
    free(map);
    return st;
}

nczm_status nczm_close(nczm_map *map)
{
    return nczm_close_err(map, NULL);
}

nczm_status nczm_destroy(const nczm_url *url, char errmsg[NCZM_ERRLEN])
{
    char msg[NCZM_ERRLEN] = "";
    nczm_status st = NCZM_INVAL;
    if (!url || !url->location) {
        copy_err(errmsg, "nczm_destroy: missing URL");
        return NCZM_INVAL;
    }
    const nczm_driver *drv = driver_for(url, msg, &st);
    if (drv)
        st = drv->destroy(url, msg);
    copy_err(errmsg, msg);
    return st;
}

int nczm_probe(const nczm_url *url)
{
    if (!url || !url->location || (url->kind != NCZM_KIND_FILE && url->kind != NCZM_KIND_ZIP))
        return 0;
    const nczm_driver *drv = url->kind == NCZM_KIND_FILE ? &nczm_file_driver : &nczm_zip_driver;
    return drv->probe(url) ? 1 : 0;
}

nczm_status nczm_check_parent(const char *path, char errmsg[NCZM_ERRLEN])
{
    char *parent = nczm_parent_of(path);
    if (!parent)
        return nczm_fmterr(errmsg, NCZM_NOMEM, "%s: create: out of memory", path);
    struct stat psb;
    int pok = stat(parent, &psb) == 0;
    int e = errno;
    nczm_status st = NCZM_OK;
    if (!pok || !S_ISDIR(psb.st_mode))
        st = nczm_fmterr(errmsg, !pok && nczm_errno_status(e) == NCZM_PERM ? NCZM_PERM : NCZM_NOTFOUND,
                         "%s: create: parent directory \"%s\" %s", path, parent,
                         pok           ? "is not a directory"
                         : e == ENOENT ? "does not exist"
                                       : strerror(e));
    free(parent);
    return st;
}

/* ---------------------------------------------------------------- object operations */

size_t nczm_key_max(const nczm_map *map)
{
    return map && map->drv->key_max ? map->drv->key_max : 1024;
}

static nczm_status check_key(nczm_map *map, const char *op, const char *key)
{
    const char *why = nczm_key_problem(key);
    char q[200];
    if (!why && strlen(key) <= nczm_key_max(map))
        return NCZM_OK;
    nczm_key_quote(q, sizeof q, key);
    if (!why)
        return nczm_seterr(map, NCZM_BADKEY,
                           "%s: %s \"%s\": key is %zu bytes, longer than the %zu bytes a %s store allows",
                           map->location, op, q, strlen(key), nczm_key_max(map), map->drv->name);
    return nczm_seterr(map, NCZM_BADKEY, "%s: %s \"%s\": %s", map->location, op, q, why);
}

static nczm_status check_writable(nczm_map *map, const char *op, const char *key)
{
    if (!map->readonly)
        return NCZM_OK;
    char q[200];
    nczm_key_quote(q, sizeof q, key);
    return nczm_seterr(map, NCZM_PERM, "%s: %s \"%s\": the store is open read-only", map->location, op, q);
}

#define CHECK_MAP(map)                                                                                       \
    do {                                                                                                     \
        if (!(map))                                                                                          \
            return NCZM_INVAL;                                                                               \
    } while (0)

nczm_status nczm_exists(nczm_map *map, const char *key)
{
    CHECK_MAP(map);
    nczm_status st = check_key(map, "exists", key);
    return st ? st : map->drv->exists(map, key);
}

nczm_status nczm_len(nczm_map *map, const char *key, uint64_t *len)
{
    CHECK_MAP(map);
    nczm_status st = check_key(map, "len", key);
    if (st)
        return st;
    if (!len)
        return nczm_seterr(map, NCZM_INVAL, "%s: len \"%s\": no output argument", map->location, key);
    *len = 0;
    return map->drv->len(map, key, len);
}

nczm_status nczm_read(nczm_map *map, const char *key, uint64_t start, uint64_t count, void *buf)
{
    CHECK_MAP(map);
    nczm_status st = check_key(map, "read", key);
    if (st)
        return st;
    if (!buf && count)
        return nczm_seterr(map, NCZM_INVAL, "%s: read \"%s\": no buffer", map->location, key);
#if SIZE_MAX < UINT64_MAX
    if (count > SIZE_MAX)
        return nczm_seterr(map, NCZM_INVAL, "%s: read \"%s\": range too large", map->location, key);
#endif
    if (start > UINT64_MAX - count)
        return nczm_seterr(map, NCZM_INVAL, "%s: read \"%s\": range too large", map->location, key);
    return map->drv->read(map, key, start, count, buf);
}

nczm_status nczm_read_all(nczm_map *map, const char *key, void **buf, size_t *len)
{
    CHECK_MAP(map);
    nczm_status st = check_key(map, "read", key);
    if (st)
        return st;
    if (!buf || !len)
        return nczm_seterr(map, NCZM_INVAL, "%s: read \"%s\": no output argument", map->location, key);
    *buf = NULL;
    *len = 0;
    return map->drv->read_all(map, key, buf, len);
}

nczm_status nczm_write(nczm_map *map, const char *key, const void *buf, size_t len)
{
    CHECK_MAP(map);
    nczm_status st = check_key(map, "write", key);
    if (!st)
        st = check_writable(map, "write", key);
    if (st)
        return st;
    if (!buf && len)
        return nczm_seterr(map, NCZM_INVAL, "%s: write \"%s\": no buffer", map->location, key);
    return map->drv->write(map, key, buf ? buf : "", len);
}

nczm_status nczm_delete(nczm_map *map, const char *key)
{
    CHECK_MAP(map);
    nczm_status st = check_key(map, "delete", key);
    if (!st)
        st = check_writable(map, "delete", key);
    return st ? st : map->drv->delete_obj(map, key);
}

nczm_status nczm_delete_tree(nczm_map *map, const char *prefix)
{
    CHECK_MAP(map);
    if (prefix && !*prefix)
        return nczm_seterr(
            map, NCZM_BADKEY,
            "%s: delete_tree \"\": the whole store cannot be deleted this way (use nczm_destroy)",
            map->location);
    nczm_status st = check_key(map, "delete_tree", prefix);
    if (!st)
        st = check_writable(map, "delete_tree", prefix);
    return st ? st : map->drv->delete_tree(map, prefix);
}

nczm_status nczm_search(nczm_map *map, const char *prefix, nczm_list *out)
{
    CHECK_MAP(map);
    if (!out)
        return nczm_seterr(map, NCZM_INVAL, "%s: search: no output argument", map->location);
    out->count = 0;
    out->names = NULL;
    if (!prefix)
        prefix = "";
    if (*prefix) {
        nczm_status st = check_key(map, "search", prefix);
        if (st)
            return st;
    }
    nczm_status st = map->drv->search(map, prefix, out);
    if (st != NCZM_OK)
        nczm_list_clear(out);
    return st;
}

/* The loops used when a store has no native batch: run the requests in order, keeping the
 * message of the first real failure (a later one would otherwise overwrite it). */
static nczm_status loop_get(nczm_map *map, size_t n, nczm_get *reqs)
{
    nczm_first_err fe = {.have = 0};
    for (size_t i = 0; i < n; i++) {
        if (reqs[i].status != NCZM_OK)
            continue;
        reqs[i].status = map->drv->read_all(map, reqs[i].key, &reqs[i].buf, &reqs[i].len);
        nczm_first_err_note(&fe, map, reqs[i].status != NCZM_OK && reqs[i].status != NCZM_NOTFOUND);
    }
    nczm_first_err_restore(&fe, map);
    return NCZM_OK;
}

static nczm_status loop_put(nczm_map *map, size_t n, nczm_put *reqs)
{
    nczm_first_err fe = {.have = 0};
    for (size_t i = 0; i < n; i++) {
        if (reqs[i].status != NCZM_OK)
            continue;
        reqs[i].status = map->drv->write(map, reqs[i].key, reqs[i].buf ? reqs[i].buf : "", reqs[i].len);
        nczm_first_err_note(&fe, map, reqs[i].status != NCZM_OK);
    }
    nczm_first_err_restore(&fe, map);
    return NCZM_OK;
}

nczm_status nczm_get_many(nczm_map *map, size_t n, nczm_get *reqs)
{
    CHECK_MAP(map);
    if (n == 0)
        return NCZM_OK;
    if (!reqs)
        return nczm_seterr(map, NCZM_INVAL, "%s: get_many: no requests", map->location);
    size_t first_bad = n;
    for (size_t i = 0; i < n; i++) {
        reqs[i].buf = NULL;
        reqs[i].len = 0;
        reqs[i].status = nczm_key_problem(reqs[i].key) ? NCZM_BADKEY : NCZM_OK;
        if (reqs[i].status != NCZM_OK && first_bad == n)
            first_bad = i;
    }
    nczm_status bst = map->drv->get_many ? map->drv->get_many(map, n, reqs) : loop_get(map, n, reqs);
    for (size_t i = 0; i < n; i++) {
        nczm_status s = reqs[i].status;
        if (s == NCZM_OK || s == NCZM_NOTFOUND)
            continue;
        if (i == first_bad)
            check_key(map, "read", reqs[i].key);
        return s;
    }
    return bst;
}

nczm_status nczm_put_many(nczm_map *map, size_t n, nczm_put *reqs)
{
    CHECK_MAP(map);
    if (n == 0)
        return NCZM_OK;
    if (!reqs)
        return nczm_seterr(map, NCZM_INVAL, "%s: put_many: no requests", map->location);
    size_t first_bad = n;
    for (size_t i = 0; i < n; i++) {
        if (nczm_key_problem(reqs[i].key))
            reqs[i].status = NCZM_BADKEY;
        else if (map->readonly)
            reqs[i].status = NCZM_PERM;
        else if (!reqs[i].buf && reqs[i].len)
            reqs[i].status = NCZM_INVAL;
        else
            reqs[i].status = NCZM_OK;
        if (reqs[i].status != NCZM_OK && first_bad == n)
            first_bad = i;
    }
    nczm_status bst = map->drv->put_many ? map->drv->put_many(map, n, reqs) : loop_put(map, n, reqs);
    for (size_t i = 0; i < n; i++) {
        nczm_status s = reqs[i].status;
        if (s == NCZM_OK)
            continue;
        if (i == first_bad) {
            if (s == NCZM_BADKEY)
                check_key(map, "write", reqs[i].key);
            else if (s == NCZM_PERM)
                check_writable(map, "write", reqs[i].key);
            else
                nczm_seterr(map, s, "%s: write \"%s\": no buffer", map->location, reqs[i].key);
        }
        return s;
    }
    return bst;
}

/* Without a native batch: size, then read, each object (the stores here are local, so the
 * second lookup is cheap). */
static nczm_status loop_get_into(nczm_map *map, size_t n, nczm_getinto *reqs)
{
    nczm_first_err fe = {.have = 0};
    for (size_t i = 0; i < n; i++) {
        if (reqs[i].status != NCZM_OK)
            continue;
        uint64_t len = 0;
        nczm_status st = map->drv->len(map, reqs[i].key, &len);
        if (st == NCZM_OK && len > reqs[i].cap)
            st = nczm_long_err(map, reqs[i].key, len, reqs[i].cap);
        if (st == NCZM_OK || st == NCZM_LONG)
            reqs[i].len = len > SIZE_MAX ? SIZE_MAX : (size_t)len;
        if (st == NCZM_OK && len)
            st = map->drv->read(map, reqs[i].key, 0, len, reqs[i].buf);
        reqs[i].status = st;
        nczm_first_err_note(&fe, map, st != NCZM_OK && st != NCZM_NOTFOUND);
    }
    nczm_first_err_restore(&fe, map);
    return NCZM_OK;
}

nczm_status nczm_get_into_many(nczm_map *map, size_t n, nczm_getinto *reqs)
{
    CHECK_MAP(map);
    if (n == 0)
        return NCZM_OK;
    if (!reqs)
        return nczm_seterr(map, NCZM_INVAL, "%s: get_into_many: no requests", map->location);
    size_t first_bad = n;
    for (size_t i = 0; i < n; i++) {
        reqs[i].len = 0;
        if (nczm_key_problem(reqs[i].key))
            reqs[i].status = NCZM_BADKEY;
        else if (!reqs[i].buf && reqs[i].cap)
            reqs[i].status = NCZM_INVAL;
        else
            reqs[i].status = NCZM_OK;
        if (reqs[i].status != NCZM_OK && first_bad == n)
            first_bad = i;
    }
    nczm_status bst =
        map->drv->get_into_many ? map->drv->get_into_many(map, n, reqs) : loop_get_into(map, n, reqs);
    for (size_t i = 0; i < n; i++) {
        nczm_status s = reqs[i].status;
        if (s == NCZM_OK || s == NCZM_NOTFOUND)
            continue;
        if (i == first_bad) {
            if (s == NCZM_BADKEY)
                check_key(map, "read", reqs[i].key);
            else
                nczm_seterr(map, s, "%s: read \"%s\": no buffer", map->location, reqs[i].key);
        }
        return s;
    }
    return bst;
}

/* ---------------------------------------------------------------- moving and copying subtrees */

/* Is anything at or below prefix? 1 yes, 0 no, or a (negative) status with the message set.
 * A leftover empty directory is nothing, as prefixes exist only while objects are below. */
static int tree_present(nczm_map *map, const char *prefix)
{
    nczm_status st = map->drv->exists(map, prefix);
    if (st != NCZM_NOTFOUND)
        return st == NCZM_OK ? 1 : st;
    nczm_list l = {0, NULL};
    st = map->drv->search(map, prefix, &l);
    int found = l.count > 0;
    nczm_list_clear(&l);
    return st != NCZM_OK ? st : found;
}

/* Copies from (an object, or every object below it) to the same places under to, one
 * object at a time through read_all/write. Iterative, with the suffixes still to visit on
 * a stack, because a zip key may hold 30000 segments and recursion that deep could
 * overflow the stack. */
static nczm_status copy_objects(nczm_map *map, const char *op, const char *from, const char *to)
{
    nczm_list todo = {0, NULL};
    size_t cap = 0;
    char *rel = NULL, *src = NULL, *dst = NULL;
    nczm_status st = nczm_list_append(&todo, &cap, "", 0);
    while (st == NCZM_OK && todo.count) {
        free(rel);
        free(src);
        free(dst);
        rel = todo.names[--todo.count];
        src = malloc(strlen(from) + strlen(rel) + 1);
        dst = malloc(strlen(to) + strlen(rel) + 1);
        if (!src || !dst) {
            st = NCZM_NOMEM;
            break;
        }
        strcat(strcpy(src, from), rel);
        strcat(strcpy(dst, to), rel);
        st = map->drv->exists(map, src);
        if (st == NCZM_OK) {
            void *buf = NULL;
            size_t len = 0;
            /* The source key is valid; the destination may be too long for the store. */
            if ((st = check_key(map, op, dst)) == NCZM_OK &&
                (st = map->drv->read_all(map, src, &buf, &len)) == NCZM_OK)
                st = map->drv->write(map, dst, buf, len);
            free(buf);
            continue;
        }
        if (st != NCZM_NOTFOUND)
            break;
        nczm_list kids = {0, NULL};
        st = map->drv->search(map, src, &kids);
        for (size_t i = 0; st == NCZM_OK && i < kids.count; i++) {
            size_t rl = strlen(rel), kl = strlen(kids.names[i]);
            char *sub = malloc(rl + kl + 2);
            if (!sub) {
                st = NCZM_NOMEM;
                break;
            }
            memcpy(sub, rel, rl);
            sub[rl] = '/';
            memcpy(sub + rl + 1, kids.names[i], kl + 1);
            st = nczm_list_append(&todo, &cap, sub, rl + kl + 1);
            free(sub);
        }
        nczm_list_clear(&kids);
    }
    if (st == NCZM_NOMEM)
        nczm_seterr(map, st, "%s: %s \"%s\": out of memory", map->location, op, from);
    free(rel);
    free(src);
    free(dst);
    nczm_list_clear(&todo);
    return st;
}

static nczm_status check_tree_args(nczm_map *map, const char *op, const char *from, const char *to)
{
    /* "" (the store root) fails here too: a store cannot be moved inside itself. */
    nczm_status st = check_key(map, op, from);
    if (!st)
        st = check_key(map, op, to);
    if (!st)
        st = check_writable(map, op, to);
    if (st)
        return st;
    size_t n = strlen(from);
    if (strncmp(to, from, n) == 0 && (to[n] == '\0' || to[n] == '/'))
        return nczm_seterr(map, NCZM_INVAL,
                           "%s: %s \"%s\" to \"%s\": the destination is the source or lies inside it",
                           map->location, op, from, to);
    return NCZM_OK;
}

/* For stores that cannot do it their own way: check, copy, then (move) delete the source.
 * A failed copy is removed again so the destination is left as it was. */
static nczm_status tree_by_objects(nczm_map *map, const char *op, const char *from, const char *to, int move)
{
    int r = tree_present(map, from);
    if (r <= 0)
        return r < 0 ? (nczm_status)r
                     : nczm_seterr(map, NCZM_NOTFOUND, "%s: %s \"%s\": nothing at or below that key",
                                   map->location, op, from);
    if ((r = tree_present(map, to)) != 0)
        return r < 0 ? (nczm_status)r
                     : nczm_seterr(map, NCZM_EXISTS, "%s: %s \"%s\" to \"%s\": the destination exists",
                                   map->location, op, from, to);
    nczm_status st = copy_objects(map, op, from, to);
    if (st != NCZM_OK) {
        char msg[NCZM_ERRLEN];
        memcpy(msg, map->errmsg, sizeof msg);
        map->drv->delete_tree(map, to);
        memcpy(map->errmsg, msg, sizeof msg);
        return st;
    }
    return move ? map->drv->delete_tree(map, from) : NCZM_OK;
}

nczm_status nczm_rename_tree(nczm_map *map, const char *old_prefix, const char *new_prefix)
{
    CHECK_MAP(map);
    nczm_status st = check_tree_args(map, "rename_tree", old_prefix, new_prefix);
    if (st)
        return st;
    if (map->drv->rename_tree &&
        (st = map->drv->rename_tree(map, old_prefix, new_prefix)) != NCZM_UNSUPPORTED)
        return st;
    return tree_by_objects(map, "rename_tree", old_prefix, new_prefix, 1);
}

nczm_status nczm_copy_tree(nczm_map *map, const char *src_prefix, const char *dst_prefix)
{
    CHECK_MAP(map);
    nczm_status st = check_tree_args(map, "copy_tree", src_prefix, dst_prefix);
    if (st)
        return st;
    if (map->drv->copy_tree && (st = map->drv->copy_tree(map, src_prefix, dst_prefix)) != NCZM_UNSUPPORTED)
        return st;
    return tree_by_objects(map, "copy_tree", src_prefix, dst_prefix, 0);
}

/* ---------------------------------------------------------------- accessors */

nczm_kind nczm_map_kind(const nczm_map *map)
{
    return map ? map->kind : NCZM_KIND_NONE;
}

const char *nczm_map_location(const nczm_map *map)
{
    return map && map->location ? map->location : "";
}

int nczm_map_readonly(const nczm_map *map)
{
    return map ? map->readonly : 1;
}

const char *nczm_errmsg(const nczm_map *map)
{
    return map ? map->errmsg : "no map";
}
