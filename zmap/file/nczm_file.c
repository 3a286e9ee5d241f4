/* The directory-tree store: an object is a regular file at <root>/<key>, a prefix is a
 * directory. Writes go to a temporary file beside the target and are renamed over it, so a
 * reader (or a crash) sees the old object or the new one, never half of one.
 *
 * A store may come from an untrusted source, and a symbolic link inside it could point
 * anywhere (a "chunk" that is a link to a private file would be read back as data). So
 * keys are resolved below a descriptor of the root, one segment at a time, and no
 * symbolic link inside the store is followed, whether it points outside the store or
 * not: a key that is a link or passes through one is refused (NCZM_PERM). The root's own
 * path is the caller's and may contain links. */
#include "nczm_file_internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

extern const nczm_driver nczm_file_driver; /* defined at the end */

/* ---------------------------------------------------------------- helpers */

static int is_regular(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0 && S_ISREG(sb.st_mode);
}

/* A directory is a Zarr store when its root holds one of the marks (a file). */
static int is_store_dir(const char *root, const char *const *marks)
{
    int found = 0;
    for (; marks && *marks && !found; marks++) {
        char *p = nczm_join(root, *marks);
        if (p)
            found = is_regular(p);
        free(p);
    }
    return found;
}

static int empty_dir(const char *path)
{
    int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    return fd < 0 ? errno : nczm_file_empty_dir_fd(fd);
}

/* Opens a key's file for reading and checks it is an object. */
static nczm_status open_object(nczm_map *map, const char *op, const char *key, int *fdp, uint64_t *size)
{
    /* O_NONBLOCK: opening a FIFO someone left in the tree must not hang. */
    int fd = nczm_file_open_key(FM(map), key, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0)
        return nczm_file_key_err(map, op, key, errno);
    struct stat sb;
    if (fstat(fd, &sb) != 0) {
        int e = errno;
        close(fd);
        return nczm_file_key_err(map, op, key, e);
    }
    if (!S_ISREG(sb.st_mode)) {
        close(fd);
        return nczm_seterr(map, NCZM_NOTFOUND, "%s: %s \"%s\": %s", map->location, op, key,
                           S_ISDIR(sb.st_mode) ? "is a prefix, not an object" : "not a regular file");
    }
    *fdp = fd;
    *size = (uint64_t)sb.st_size;
    return NCZM_OK;
}

/* count bytes of the object from start into the pieces of iov, in order (the kernel
 * scatters them: no copy through a buffer of ours). */
static nczm_status preadv_all(nczm_map *map, const char *key, int fd, const struct iovec *iov, int iovcnt,
                              size_t count, uint64_t start)
{
    nczm_iovcur c = {iov, iovcnt, 0, 0};
    while (count && c.k < c.n) {
        struct iovec v[NCZM_IOV_BATCH];
        int nv = nczm_iovcur_take(&c, v, NCZM_IOV_BATCH, count);
        ssize_t r = preadv(fd, v, nv, (off_t)start);
        if (r < 0) {
            if (errno == EINTR)
                continue;
            return nczm_file_key_err(map, "read", key, errno);
        }
        if (r == 0)
            return nczm_seterr(map, NCZM_IO, "%s: read \"%s\": object shrank while being read", map->location,
                               key);
        count -= (size_t)r;
        start += (uint64_t)r;
        nczm_iovcur_skip(&c, (size_t)r);
    }
    return NCZM_OK;
}

static nczm_status pread_all(nczm_map *map, const char *key, int fd, void *buf, size_t count, uint64_t start)
{
    struct iovec v = {buf, count};
    return preadv_all(map, key, fd, &v, 1, count, start);
}

/* ---------------------------------------------------------------- open/destroy/probe */

static nczm_status file_open(const nczm_url *url, unsigned flags, nczm_map **out, char errmsg[NCZM_ERRLEN])
{
    const char *root = url->location;
    struct stat sb;
    int exists = stat(root, &sb) == 0;
    if (!exists && errno != ENOENT) {
        int e = errno;
        return nczm_fmterr(errmsg, nczm_errno_status(e), "%s: open: %s", root, strerror(e));
    }
    nczm_status st;
    if (flags & NCZM_CREATE) {
        if (exists) {
            if (flags & NCZM_EXCL)
                return nczm_fmterr(errmsg, NCZM_EXISTS, "%s: create: the path already exists", root);
            if (!S_ISDIR(sb.st_mode) && !((flags & NCZM_TRUNC) && S_ISREG(sb.st_mode)))
                return nczm_fmterr(errmsg, NCZM_NOTSTORE,
                                   "%s: create: %s, not a directory store; refusing to replace it", root,
                                   S_ISREG(sb.st_mode) ? "is a regular file" : "exists");
        }
        if (exists && !S_ISDIR(sb.st_mode)) {
            /* Truncating create replaces a file, as native HDF5 and netCDF-C do (a program
             * rerun over its earlier HDF5 or netCDF-3 output). */
            if ((st = nczm_check_parent(root, errmsg)) != NCZM_OK)
                return st;
            if (unlink(root) != 0 || mkdir(root, 0777) != 0) {
                int e = errno;
                return nczm_fmterr(errmsg, nczm_errno_status(e), "%s: create: replacing the file: %s", root,
                                   strerror(e));
            }
        } else if (exists) {
            int empty = nczm_file_dir_is_empty_at(AT_FDCWD, root);
            if (empty < 0) {
                int e = errno;
                return nczm_fmterr(errmsg, nczm_errno_status(e), "%s: create: %s", root, strerror(e));
            }
            if (!empty && !is_store_dir(root, url->marks)) {
                char marks[128];
                nczm_marks_text(url, marks, sizeof marks);
                return nczm_fmterr(errmsg, NCZM_NOTSTORE,
                                   "%s: create: directory is not empty and is not a Zarr store (no %s at its "
                                   "root); refusing to %s it",
                                   root, marks, (flags & NCZM_TRUNC) ? "delete" : "write into");
            }
            if ((st = nczm_check_dir_writable(root, root, errmsg)) != NCZM_OK)
                return st;
            if ((flags & NCZM_TRUNC) && !empty) {
                int e = empty_dir(root);
                if (e)
                    return nczm_fmterr(errmsg, nczm_errno_status(e), "%s: create: removing the old store: %s",
                                       root, strerror(e));
            }
        } else {
            if ((st = nczm_check_parent(root, errmsg)) != NCZM_OK)
                return st;
            if (mkdir(root, 0777) != 0) {
                int e = errno;
                return nczm_fmterr(errmsg, e == EEXIST ? NCZM_EXISTS : nczm_errno_status(e), "%s: create: %s",
                                   root, strerror(e));
            }
        }
        if (url->label_name && url->label_value)
            (void)setxattr(root, url->label_name, url->label_value, strlen(url->label_value), 0);
    } else {
        if (!exists)
            return nczm_fmterr(errmsg, NCZM_NOTFOUND, "%s: open: %s", root, strerror(ENOENT));
        if (!S_ISDIR(sb.st_mode))
            return nczm_fmterr(errmsg, NCZM_NOTSTORE, "%s: open: not a directory, so not a directory store",
                               root);
        if (!is_store_dir(root, url->marks)) {
            char marks[128];
            nczm_marks_text(url, marks, sizeof marks);
            return nczm_fmterr(errmsg, NCZM_NOTSTORE, "%s: open: not a Zarr store (no %s at its root)", root,
                               marks);
        }
        if (!(flags & NCZM_READONLY) && (st = nczm_check_dir_writable(root, root, errmsg)) != NCZM_OK)
            return st;
    }

    int rootfd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (rootfd < 0) {
        int e = errno;
        return nczm_fmterr(errmsg, nczm_errno_status(e), "%s: open: %s", root, strerror(e));
    }
    file_map *fm = calloc(1, sizeof *fm);
    if (!fm) {
        close(rootfd);
        return nczm_fmterr(errmsg, NCZM_NOMEM, "%s: open: out of memory", root);
    }
    if ((st = nczm_map_init(&fm->base, &nczm_file_driver, root, flags, errmsg)) != NCZM_OK) {
        close(rootfd);
        free(fm);
        return st;
    }
    fm->rootfd = rootfd;
    *out = &fm->base;
    return NCZM_OK;
}

static nczm_status file_destroy(const nczm_url *url, char errmsg[NCZM_ERRLEN])
{
    const char *root = url->location;
    struct stat sb;
    if (stat(root, &sb) != 0) {
        int e = errno;
        return nczm_fmterr(errmsg, nczm_errno_status(e), "%s: destroy: %s", root, strerror(e));
    }
    if (!S_ISDIR(sb.st_mode))
        return nczm_fmterr(errmsg, NCZM_NOTSTORE, "%s: destroy: not a directory store; refusing to delete it",
                           root);
    if (!is_store_dir(root, url->marks)) {
        char marks[128];
        nczm_marks_text(url, marks, sizeof marks);
        return nczm_fmterr(errmsg, NCZM_NOTSTORE,
                           "%s: destroy: not a Zarr store (no %s at its root); refusing to delete it", root,
                           marks);
    }
    int e = empty_dir(root);
    if (!e && rmdir(root) != 0)
        e = errno;
    if (e)
        return nczm_fmterr(errmsg, nczm_errno_status(e), "%s: destroy: %s", root, strerror(e));
    return NCZM_OK;
}

static int file_probe(const nczm_url *url)
{
    struct stat sb;
    return stat(url->location, &sb) == 0 && S_ISDIR(sb.st_mode) && is_store_dir(url->location, url->marks);
}

/* ---------------------------------------------------------------- object operations */

static nczm_status file_close(nczm_map *map)
{
    close(FM(map)->rootfd);
    return NCZM_OK;
}

static nczm_status file_exists(nczm_map *map, const char *key)
{
    struct stat sb;
    if (nczm_file_stat_key(FM(map), key, &sb) != 0)
        return nczm_file_key_err(map, "exists", key, errno);
    if (S_ISLNK(sb.st_mode))
        return nczm_file_key_err(map, "exists", key, ELOOP);
    if (!S_ISREG(sb.st_mode))
        return nczm_seterr(map, NCZM_NOTFOUND, "%s: exists \"%s\": is a prefix, not an object", map->location,
                           key);
    return NCZM_OK;
}

static nczm_status file_len(nczm_map *map, const char *key, uint64_t *len)
{
    struct stat sb;
    if (nczm_file_stat_key(FM(map), key, &sb) != 0)
        return nczm_file_key_err(map, "len", key, errno);
    if (S_ISLNK(sb.st_mode))
        return nczm_file_key_err(map, "len", key, ELOOP);
    if (!S_ISREG(sb.st_mode))
        return nczm_seterr(map, NCZM_NOTFOUND, "%s: len \"%s\": is a prefix, not an object", map->location,
                           key);
    *len = (uint64_t)sb.st_size;
    return NCZM_OK;
}

static nczm_status file_read(nczm_map *map, const char *key, uint64_t start, uint64_t count, void *buf)
{
    int fd;
    uint64_t size;
    nczm_status st = open_object(map, "read", key, &fd, &size);
    if (st)
        return st;
    if (start > size || count > size - start) {
        close(fd);
        return nczm_seterr(map, NCZM_SHORT,
                           "%s: read \"%s\": bytes %llu..%llu are past the end of the %llu-byte object",
                           map->location, key, (unsigned long long)start, (unsigned long long)(start + count),
                           (unsigned long long)size);
    }
    st = pread_all(map, key, fd, buf, (size_t)count, start);
    close(fd);
    return st;
}

static nczm_status file_read_all(nczm_map *map, const char *key, void **bufp, size_t *lenp)
{
    int fd;
    uint64_t size;
    nczm_status st = open_object(map, "read", key, &fd, &size);
    if (st)
        return st;
    char *buf = size < SIZE_MAX ? malloc((size_t)size + 1) : NULL;
    if (!buf) {
        close(fd);
        return nczm_seterr(map, NCZM_NOMEM, "%s: read \"%s\": out of memory for %llu bytes", map->location,
                           key, (unsigned long long)size);
    }
    st = pread_all(map, key, fd, buf, (size_t)size, 0);
    close(fd);
    if (st) {
        free(buf);
        return st;
    }
    buf[size] = '\0';
    *bufp = buf;
    *lenp = (size_t)size;
    return NCZM_OK;
}

/* One open+fstat+pread per object: the size check costs no extra lookup. */
static nczm_status file_get_into(nczm_map *map, nczm_getinto *r)
{
    int fd;
    uint64_t size = 0;
    nczm_status st = open_object(map, "read", r->key, &fd, &size);
    if (st != NCZM_OK)
        return st;
    r->len = size > SIZE_MAX ? SIZE_MAX : (size_t)size;
    if (size > r->cap)
        st = nczm_long_err(map, r->key, size, r->cap);
    else if (r->iovcnt > 0)
        st = preadv_all(map, r->key, fd, r->iov, r->iovcnt, (size_t)size, 0);
    else
        st = pread_all(map, r->key, fd, r->buf, (size_t)size, 0);
    close(fd);
    return st;
}

/* One open+fstat+pread (or preadv) per range, as for file_get_into. */
static nczm_status file_read_range(nczm_map *map, nczm_range *r)
{
    int fd;
    nczm_status st = open_object(map, "read", r->key, &fd, &r->objlen);
    if (st != NCZM_OK)
        return st;
    uint64_t start;
    st = nczm_range_place(map, r, &start);
    if (st == NCZM_OK && r->count)
        st = r->iovcnt > 0 ? preadv_all(map, r->key, fd, r->iov, r->iovcnt, r->count, start)
                           : pread_all(map, r->key, fd, r->buf, r->count, start);
    close(fd);
    return st;
}

const nczm_driver nczm_file_driver = {
    .kind = NCZM_KIND_FILE,
    .name = "file",
    .mode = "file",
    .paths = 1, /* the default for paths: no claims_path */
    /* PATH_MAX is 4096 with the store's own path and a temporary-file suffix included */
    .key_max = 3072,
    .open = file_open,
    .destroy = file_destroy,
    .probe = file_probe,
    .close = file_close,
    .exists = file_exists,
    .len = file_len,
    .read = file_read,
    .read_all = file_read_all,
    .write = nczm_file_write,
    .delete_obj = nczm_file_delete,
    .delete_tree = nczm_file_delete_tree,
    .search = nczm_file_search,
    .get_many = NULL,
    .put_many = NULL,
    .commit_many = nczm_file_commit_many,
    .commit_begin = nczm_file_commit_begin,
    .commit_ready = nczm_file_commit_ready,
    .commit_end = nczm_file_commit_end,
    .obj_begin = nczm_file_obj_begin,
    .obj_pwritev = nczm_file_obj_pwritev,
    .obj_commit = nczm_file_obj_commit,
    .obj_abort = nczm_file_obj_abort,
    .get_into_many = NULL,
    .get_into = file_get_into,
    .read_range = file_read_range,
    .ranges_cheap = 1,
    /* Every call works on descriptors it opens itself, below the read-only rootfd. */
    .concurrent = 1,
    .map_size = sizeof(file_map),
    .writev = nczm_file_writev,
    .vectored = 1,
    .rename_tree = nczm_file_rename_tree,
    .copy_tree = NULL,
};
