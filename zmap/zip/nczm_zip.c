/* The zip store (libzip). Two layouts exist in the wild and both are read:
 *   folder: netCDF-C puts every key under a top-level folder named after the archive
 *           without its extension (x.nczarr.zip holds x.nczarr/.zgroup), with a directory
 *           entry for every folder;
 *   root:   zarr-python's ZipStore puts keys at the archive root, no directory entries.
 * New archives get the folder layout (what ncdump reads) unless NCZM_ZIP_ROOT.
 *
 * libzip only writes the archive in zip_close, reading added data from the sources until
 * then, and refuses to read back an entry it holds changes for. So the map keeps every
 * object written in this session in memory (pend[], indexed like the archive's entries):
 * the buffers stay alive for libzip and serve read-back of our own writes. */
#include "nczm_zip_internal.h"
#include "nczm_zipidx.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zip.h>

extern const nczm_driver nczm_zip_driver; /* defined at the end */

/* ---------------------------------------------------------------- helpers */

static zip_int64_t locate(zip_t *za, const char *name)
{
    return zip_name_locate(za, name, 0);
}

static int has_marker(zip_t *za, const char *folder, const char *const *marks)
{
    char buf[1200];
    for (size_t i = 0; marks && marks[i]; i++) {
        int n = snprintf(buf, sizeof buf, "%s%s", folder, marks[i]);
        if (n > 0 && (size_t)n < sizeof buf && locate(za, buf) >= 0)
            return 1;
    }
    return 0;
}

/* The archive's basename without its last extension plus '/': the netCDF-C folder. */
static char *folder_for(const char *path)
{
    const char *b = strrchr(path, '/');
    b = b ? b + 1 : path;
    size_t n = strlen(b);
    const char *dot = strrchr(b, '.');
    if (dot && dot > b)
        n = (size_t)(dot - b);
    char *f = malloc(n + 2);
    if (f) {
        memcpy(f, b, n);
        f[n] = '/';
        f[n + 1] = '\0';
    }
    return f;
}

/* Which layout does an open archive use? Sets *folder ("x/" or "") and returns 1, or 0 if
 * it holds no Zarr store. When the archive was renamed, netCDF-C's folder no longer
 * matches the file name; then a lone top-level folder with one of the marks is used. */
static int detect_layout(zip_t *za, const char *path, const char *const *marks, char **folder)
{
    *folder = NULL;
    char *f = folder_for(path);
    if (!f)
        return -1;
    if (has_marker(za, f, marks)) {
        *folder = f;
        return 1;
    }
    free(f);
    if (has_marker(za, "", marks)) {
        *folder = strdup("");
        return *folder ? 1 : -1;
    }
    zip_int64_t n = zip_get_num_entries(za, 0);
    size_t flen = 0;
    const char *first = NULL;
    for (zip_int64_t i = 0; i < n; i++) {
        const char *name = zip_get_name(za, (zip_uint64_t)i, 0);
        if (!name)
            continue;
        const char *slash = strchr(name, '/');
        if (!slash || slash == name)
            return 0;
        if (!first) {
            first = name;
            flen = (size_t)(slash - name) + 1;
        } else if (strncmp(name, first, flen) != 0) {
            return 0;
        }
    }
    if (!first)
        return 0;
    f = malloc(flen + 1);
    if (!f)
        return -1;
    memcpy(f, first, flen);
    f[flen] = '\0';
    if (!has_marker(za, f, marks)) {
        free(f);
        return 0;
    }
    *folder = f;
    return 1;
}

static nczm_status open_error(int zcode, const char *path, const char *op, char errmsg[NCZM_ERRLEN])
{
    zip_error_t ze;
    zip_error_init_with_code(&ze, zcode);
    nczm_status st;
    switch (zcode) {
    case ZIP_ER_NOENT:
        st = NCZM_NOTFOUND;
        break;
    case ZIP_ER_NOZIP:
    case ZIP_ER_INCONS:
        st = NCZM_NOTSTORE;
        break;
    case ZIP_ER_EXISTS:
        st = NCZM_EXISTS;
        break;
    case ZIP_ER_MEMORY:
        st = NCZM_NOMEM;
        break;
    case ZIP_ER_OPEN:
    case ZIP_ER_READ:
        st = nczm_errno_status(zip_error_code_system(&ze));
        if (st == NCZM_NOTFOUND)
            st = NCZM_IO;
        break;
    default:
        st = NCZM_IO;
    }
    nczm_fmterr(errmsg, st, "%s: %s: %s", path, op, zip_error_strerror(&ze));
    zip_error_fini(&ze);
    return st;
}

/* Quietly: is path a zip archive holding a Zarr store? */
static int is_zip_store(const char *path, const char *const *marks)
{
    int zcode;
    zip_t *za = zip_open(path, ZIP_RDONLY, &zcode);
    if (!za)
        return 0;
    char *folder = NULL;
    int ok = detect_layout(za, path, marks, &folder) == 1;
    free(folder);
    zip_discard(za);
    return ok;
}

/* Writing rewrites the archive through a temporary file beside it, so both the file and
 * its directory must be writable. */
static nczm_status check_writable(const char *path, int exists, char errmsg[NCZM_ERRLEN])
{
    if (exists && access(path, W_OK) != 0) {
        int e = errno;
        return nczm_fmterr(errmsg, nczm_errno_status(e) == NCZM_PERM ? NCZM_PERM : NCZM_IO,
                           "%s: open for writing: %s", path, strerror(e));
    }
    char *dir = nczm_parent_of(path);
    if (!dir)
        return nczm_fmterr(errmsg, NCZM_NOMEM, "%s: open: out of memory", path);
    nczm_status st = nczm_check_dir_writable(dir, path, errmsg);
    free(dir);
    return st;
}

static const pending *pend_of(const zip_map *zm, zip_uint64_t idx)
{
    return idx < zm->npend && zm->pend[idx].data ? &zm->pend[idx] : NULL;
}

static int index_entries(zip_map *zm)
{
    if (nczm_zx_init(&zm->ix) != 0)
        return -1;
    zip_int64_t n = zip_get_num_entries(zm->za, 0);
    for (zip_int64_t i = 0; i < n; i++) {
        const char *name = zip_get_name(zm->za, (zip_uint64_t)i, 0);
        if (name && strncmp(name, zm->folder, zm->folderlen) == 0 &&
            nczm_zx_add_entry(&zm->ix, name + zm->folderlen, i) != 0)
            return -1;
    }
    return 0;
}

/* ---------------------------------------------------------------- open/destroy/probe */

static nczm_status zip_store_open(const nczm_url *url, unsigned flags, nczm_map **out,
                                  char errmsg[NCZM_ERRLEN])
{
    const char *path = url->location;
    struct stat sb;
    int exists = stat(path, &sb) == 0;
    if (!exists && errno != ENOENT) {
        int e = errno;
        return nczm_fmterr(errmsg, nczm_errno_status(e), "%s: open: %s", path, strerror(e));
    }
    if (exists && S_ISDIR(sb.st_mode))
        return nczm_fmterr(errmsg, NCZM_NOTSTORE, "%s: open: is a directory, not a zip archive", path);

    nczm_status st;
    int zflags, detect;
    if (flags & NCZM_CREATE) {
        if (exists) {
            if (flags & NCZM_EXCL)
                return nczm_fmterr(errmsg, NCZM_EXISTS, "%s: create: the path already exists", path);
            int empty = sb.st_size == 0;
            if (!empty && !is_zip_store(path, url->marks))
                return nczm_fmterr(
                    errmsg, NCZM_NOTSTORE,
                    "%s: create: the file exists and is not a zip archive holding a Zarr store; "
                    "refusing to %s it",
                    path, (flags & NCZM_TRUNC) ? "replace" : "modify");
            if ((st = check_writable(path, 1, errmsg)) != NCZM_OK)
                return st;
            detect = !(flags & NCZM_TRUNC) && !empty;
            zflags = detect ? 0 : ZIP_CREATE | ZIP_TRUNCATE;
        } else {
            if ((st = nczm_check_parent(path, errmsg)) != NCZM_OK)
                return st;
            if ((st = check_writable(path, 0, errmsg)) != NCZM_OK)
                return st;
            detect = 0;
            zflags = ZIP_CREATE | ZIP_EXCL;
        }
    } else {
        if (!exists)
            return nczm_fmterr(errmsg, NCZM_NOTFOUND, "%s: open: %s", path, strerror(ENOENT));
        if (!(flags & NCZM_READONLY) && (st = check_writable(path, 1, errmsg)) != NCZM_OK)
            return st;
        detect = 1;
        zflags = (flags & NCZM_READONLY) ? ZIP_RDONLY : 0;
    }

    int zcode = 0;
    zip_t *za = zip_open(path, zflags, &zcode);
    if (!za)
        return open_error(zcode, path, (flags & NCZM_CREATE) ? "create" : "open", errmsg);

    char *folder = NULL;
    if (detect) {
        int r = detect_layout(za, path, url->marks, &folder);
        if (r != 1) {
            zip_discard(za);
            char marks[128];
            nczm_marks_text(url, marks, sizeof marks);
            return r < 0 ? nczm_fmterr(errmsg, NCZM_NOMEM, "%s: open: out of memory", path)
                         : nczm_fmterr(errmsg, NCZM_NOTSTORE,
                                       "%s: open: the zip archive holds no Zarr store (no %s at its root or "
                                       "under its top folder)",
                                       path, marks);
        }
    } else {
        folder = (flags & NCZM_ZIP_ROOT) ? strdup("") : folder_for(path);
        if (!folder) {
            zip_discard(za);
            return nczm_fmterr(errmsg, NCZM_NOMEM, "%s: create: out of memory", path);
        }
        /* netCDF-C's reader expects the folder's own directory entry. */
        if (*folder && zip_dir_add(za, folder, ZIP_FL_ENC_UTF_8) < 0) {
            st = nczm_fmterr(errmsg, NCZM_IO, "%s: create: %s", path, nczm_zip_zerr(za));
            zip_discard(za);
            free(folder);
            return st;
        }
    }

    zip_map *zm = calloc(1, sizeof *zm);
    if (!zm || (st = nczm_map_init(&zm->base, &nczm_zip_driver, path, flags, errmsg)) != NCZM_OK) {
        st = zm ? st : nczm_fmterr(errmsg, NCZM_NOMEM, "%s: open: out of memory", path);
        free(zm);
        free(folder);
        zip_discard(za);
        return st;
    }
    zm->za = za;
    zm->folder = folder;
    zm->folderlen = strlen(folder);
    if (index_entries(zm) != 0) {
        st = nczm_fmterr(errmsg, NCZM_NOMEM, "%s: open: out of memory", path);
        nczm_zx_free(&zm->ix);
        zip_discard(za);
        free(folder);
        free(zm->base.location);
        free(zm);
        return st;
    }
    *out = &zm->base;
    return NCZM_OK;
}

static nczm_status zip_store_destroy(const nczm_url *url, char errmsg[NCZM_ERRLEN])
{
    const char *path = url->location;
    struct stat sb;
    if (stat(path, &sb) != 0) {
        int e = errno;
        return nczm_fmterr(errmsg, nczm_errno_status(e), "%s: destroy: %s", path, strerror(e));
    }
    if (S_ISDIR(sb.st_mode) || !is_zip_store(path, url->marks))
        return nczm_fmterr(errmsg, NCZM_NOTSTORE,
                           "%s: destroy: not a zip archive holding a Zarr store; refusing to delete it",
                           path);
    if (unlink(path) != 0) {
        int e = errno;
        return nczm_fmterr(errmsg, nczm_errno_status(e), "%s: destroy: %s", path, strerror(e));
    }
    return NCZM_OK;
}

static int zip_store_probe(const nczm_url *url)
{
    struct stat sb;
    return stat(url->location, &sb) == 0 && S_ISREG(sb.st_mode) && is_zip_store(url->location, url->marks);
}

static nczm_status zip_store_close(nczm_map *map)
{
    zip_map *zm = ZM(map);
    nczm_status st = NCZM_OK;
    if (map->readonly) {
        zip_discard(zm->za);
    } else if (zip_close(zm->za) != 0) {
        st = nczm_seterr(map, NCZM_IO, "%s: writing the archive: %s", map->location, nczm_zip_zerr(zm->za));
        zip_discard(zm->za);
    }
    /* Only now, with libzip done with its sources, may the buffers go. */
    for (size_t i = 0; i < zm->npend; i++)
        free(zm->pend[i].data);
    free(zm->pend);
    free(zm->folder);
    nczm_zx_free(&zm->ix);
    return st;
}

/* ---------------------------------------------------------------- object operations */

/* The entry of key (its index) and its size: what every read and len starts with. */
static nczm_status find_entry(zip_map *zm, const char *op, const char *key, zip_uint64_t *idxp,
                              uint64_t *size)
{
    nczm_status st = nczm_zip_find(zm, op, key, idxp);
    if (st)
        return st;
    zip_uint64_t idx = *idxp;
    const pending *p = pend_of(zm, idx);
    if (p) {
        *size = p->len;
        return NCZM_OK;
    }
    zip_stat_t zs;
    if (zip_stat_index(zm->za, idx, 0, &zs) != 0 || !(zs.valid & ZIP_STAT_SIZE))
        return nczm_seterr(&zm->base, NCZM_IO, "%s: %s \"%s\": %s", zm->base.location, op, key,
                           nczm_zip_zerr(zm->za));
    *size = zs.size;
    return NCZM_OK;
}

static nczm_status zip_store_exists(nczm_map *map, const char *key)
{
    zip_uint64_t idx;
    return nczm_zip_find(ZM(map), "exists", key, &idx);
}

static nczm_status zip_store_len(nczm_map *map, const char *key, uint64_t *len)
{
    zip_uint64_t idx;
    return find_entry(ZM(map), "len", key, &idx, len);
}

/* Reading an archive from an untrusted source: libzip compares an entry's data with the
 * CRC-32 and the size recorded in the archive only when a read reaches the entry's end, so
 * every read below goes on to the end (a ranged read costs the whole entry; no caller
 * reads ranges of large objects). An entry's recorded sizes are not trusted for
 * allocations either: read_whole grows its buffer with the data that really arrives. */

/* The data of an entry ended after `got` bytes, or went on past them (got > size), when
 * the archive records `size` bytes. */
static nczm_status entry_damaged(zip_map *zm, const char *key, uint64_t got, uint64_t size)
{
    if (got > size)
        return nczm_seterr(&zm->base, NCZM_IO,
                           "%s: read \"%s\": it holds more than the %llu bytes recorded as its size; the "
                           "archive entry is damaged",
                           zm->base.location, key, (unsigned long long)size);
    return nczm_seterr(&zm->base, NCZM_IO,
                       "%s: read \"%s\": it ends after %llu of the %llu bytes recorded as its size; the "
                       "archive entry is damaged",
                       zm->base.location, key, (unsigned long long)got, (unsigned long long)size);
}

static nczm_status fread_fail(zip_map *zm, const char *key, zip_file_t *zf)
{
    zip_error_t *ze = zip_file_get_error(zf);
    int code = zip_error_code_zip(ze);
    nczm_status st;
    if (code == ZIP_ER_CRC)
        st = nczm_seterr(&zm->base, NCZM_IO,
                         "%s: read \"%s\": its data does not match the CRC-32 recorded in the archive; the "
                         "archive entry is damaged",
                         zm->base.location, key);
    else if (code == ZIP_ER_INCONS || code == ZIP_ER_EOF)
        st = nczm_seterr(&zm->base, NCZM_IO,
                         "%s: read \"%s\": its data does not match the sizes recorded in the archive (%s); "
                         "the archive entry is damaged",
                         zm->base.location, key, zip_error_strerror(ze));
    else
        st = nczm_seterr(&zm->base, NCZM_IO, "%s: read \"%s\": %s", zm->base.location, key,
                         zip_error_strerror(ze));
    zip_fclose(zf);
    return st;
}

/* Reads to the end of an entry that already gave *got bytes: OK when it ends at exactly
 * size bytes and libzip found its CRC-32 right. Closes zf. */
static nczm_status finish_entry(zip_map *zm, const char *key, zip_file_t *zf, uint64_t got, uint64_t size)
{
    char scratch[8192];
    for (;;) {
        zip_int64_t r = zip_fread(zf, scratch, sizeof scratch);
        if (r < 0)
            return fread_fail(zm, key, zf);
        if (r == 0)
            break;
        got += (uint64_t)r;
        if (got > size) {
            zip_fclose(zf);
            return entry_damaged(zm, key, got, size);
        }
    }
    zip_fclose(zf);
    if (got != size)
        return entry_damaged(zm, key, got, size);
    return NCZM_OK;
}

/* Reads bytes [start, start+count) of an unchanged entry of recorded size `size` into buf
 * (start+count <= size), then the rest of the entry, checked. */
static nczm_status read_entry(zip_map *zm, const char *key, zip_uint64_t idx, uint64_t size, uint64_t start,
                              uint64_t count, char *buf)
{
    zip_file_t *zf = zip_fopen_index(zm->za, idx, 0);
    if (!zf)
        return nczm_seterr(&zm->base, NCZM_IO, "%s: read \"%s\": %s", zm->base.location, key,
                           nczm_zip_zerr(zm->za));
    uint64_t got = 0;
    char scratch[8192];
    while (got < start + count) {
        int skipping = got < start;
        uint64_t want = skipping ? start - got : start + count - got;
        char *dst = skipping ? scratch : buf + (got - start);
        if (skipping && want > sizeof scratch)
            want = sizeof scratch;
        zip_int64_t r = zip_fread(zf, dst, want);
        if (r < 0)
            return fread_fail(zm, key, zf);
        if (r == 0) {
            zip_fclose(zf);
            return entry_damaged(zm, key, got, size);
        }
        got += (uint64_t)r;
    }
    return finish_entry(zm, key, zf, got, size);
}

/* A whole unchanged entry into a malloc'ed buffer with a NUL byte after its data. */
static nczm_status read_whole(zip_map *zm, const char *key, zip_uint64_t idx, uint64_t size, char **bufp)
{
    /* Start from what the archive can hold for this entry (its compressed size, which a
     * stored entry equals), never from a recorded size alone, and grow only as data comes. */
    zip_stat_t zs;
    uint64_t cap = 1 << 16;
    if (zip_stat_index(zm->za, idx, 0, &zs) == 0 && (zs.valid & ZIP_STAT_COMP_SIZE) && zs.comp_size > cap)
        cap = zs.comp_size;
    if (cap > size)
        cap = size;
    if (cap >= SIZE_MAX - 1)
        return nczm_seterr(&zm->base, NCZM_NOMEM, "%s: read \"%s\": out of memory for %llu bytes",
                           zm->base.location, key, (unsigned long long)size);
    char *buf = malloc((size_t)cap + 1);
    zip_file_t *zf = buf ? zip_fopen_index(zm->za, idx, 0) : NULL;
    if (!zf) {
        free(buf);
        return buf ? nczm_seterr(&zm->base, NCZM_IO, "%s: read \"%s\": %s", zm->base.location, key,
                                 nczm_zip_zerr(zm->za))
                   : nczm_seterr(&zm->base, NCZM_NOMEM, "%s: read \"%s\": out of memory for %llu bytes",
                                 zm->base.location, key, (unsigned long long)cap);
    }
    uint64_t got = 0;
    while (got < size) {
        if (got == cap) {
            uint64_t ncap = cap > size / 2 ? size : cap * 2;
            char *nb = ncap < SIZE_MAX - 1 ? realloc(buf, (size_t)ncap + 1) : NULL;
            if (!nb) {
                zip_fclose(zf);
                free(buf);
                return nczm_seterr(&zm->base, NCZM_NOMEM, "%s: read \"%s\": out of memory for %llu bytes",
                                   zm->base.location, key, (unsigned long long)ncap);
            }
            buf = nb;
            cap = ncap;
        }
        zip_int64_t r = zip_fread(zf, buf + got, cap - got);
        if (r <= 0) {
            free(buf);
            if (r < 0)
                return fread_fail(zm, key, zf);
            zip_fclose(zf);
            return entry_damaged(zm, key, got, size);
        }
        got += (uint64_t)r;
    }
    nczm_status st = finish_entry(zm, key, zf, got, size);
    if (st) {
        free(buf);
        return st;
    }
    buf[size] = '\0';
    *bufp = buf;
    return NCZM_OK;
}

static nczm_status zip_store_read(nczm_map *map, const char *key, uint64_t start, uint64_t count, void *buf)
{
    zip_map *zm = ZM(map);
    zip_uint64_t idx;
    uint64_t size;
    nczm_status st = find_entry(zm, "read", key, &idx, &size);
    if (st)
        return st;
    if (start > size || count > size - start)
        return nczm_seterr(map, NCZM_SHORT,
                           "%s: read \"%s\": bytes %llu..%llu are past the end of the %llu-byte object",
                           map->location, key, (unsigned long long)start, (unsigned long long)(start + count),
                           (unsigned long long)size);
    const pending *p = pend_of(zm, idx);
    if (p) {
        if (count)
            memcpy(buf, p->data + start, (size_t)count);
        return NCZM_OK;
    }
    return read_entry(zm, key, idx, size, start, count, buf);
}

static nczm_status zip_store_read_all(nczm_map *map, const char *key, void **bufp, size_t *lenp)
{
    zip_map *zm = ZM(map);
    zip_uint64_t idx;
    uint64_t size;
    nczm_status st = find_entry(zm, "read", key, &idx, &size);
    if (st)
        return st;
    char *buf = NULL;
    const pending *p = pend_of(zm, idx);
    if (p) {
        if (!(buf = malloc(p->len + 1)))
            return nczm_seterr(map, NCZM_NOMEM, "%s: read \"%s\": out of memory for %zu bytes", map->location,
                               key, p->len);
        memcpy(buf, p->data, p->len);
        buf[p->len] = '\0';
    } else if ((st = read_whole(zm, key, idx, size, &buf)) != NCZM_OK) {
        return st;
    }
    *bufp = buf;
    *lenp = (size_t)size;
    return NCZM_OK;
}

/* One lookup per object instead of the dispatcher's two (len, then read). */
static nczm_status zip_store_get_into_many(nczm_map *map, size_t n, nczm_getinto *reqs)
{
    zip_map *zm = ZM(map);
    nczm_first_err fe = {.have = 0};
    for (size_t i = 0; i < n; i++) {
        nczm_getinto *r = &reqs[i];
        if (r->status != NCZM_OK)
            continue;
        zip_uint64_t idx;
        uint64_t size = 0;
        nczm_status st = find_entry(zm, "read", r->key, &idx, &size);
        if (!st) {
            r->len = size > SIZE_MAX ? SIZE_MAX : (size_t)size;
            const pending *p = pend_of(zm, idx);
            if (size > r->cap)
                st = nczm_long_err(map, r->key, size, r->cap);
            else if (p)
                memcpy(r->buf, p->data, p->len);
            else
                st = read_entry(zm, r->key, idx, size, 0, size, r->buf);
        }
        r->status = st;
        nczm_first_err_note(&fe, map, st != NCZM_OK && st != NCZM_NOTFOUND);
    }
    nczm_first_err_restore(&fe, map);
    return NCZM_OK;
}

/* Without a mode word, a path ending in ".zip" is an archive. */
static int zip_claims_path(const char *path)
{
    size_t n = strlen(path);
    return n > 4 && strcasecmp(path + n - 4, ".zip") == 0;
}

const nczm_driver nczm_zip_driver = {
    .kind = NCZM_KIND_ZIP,
    .name = "zip",
    .mode = "zip",
    .paths = 1,
    .claims_path = zip_claims_path,
    .single_writer = 1,
    .key_max = 60000, /* zip entry names are at most 65535 bytes, folder prefix included */
    .open = zip_store_open,
    .destroy = zip_store_destroy,
    .probe = zip_store_probe,
    .close = zip_store_close,
    .exists = zip_store_exists,
    .len = zip_store_len,
    .read = zip_store_read,
    .read_all = zip_store_read_all,
    .write = nczm_zip_write,
    .delete_obj = nczm_zip_delete,
    .delete_tree = nczm_zip_delete_tree,
    .search = nczm_zip_search,
    .get_many = NULL,
    .put_many = NULL,
    .get_into_many = zip_store_get_into_many,
    .rename_tree = nczm_zip_rename_tree,
    .copy_tree = NULL,
};
