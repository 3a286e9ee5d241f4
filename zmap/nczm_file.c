/* The directory-tree store: an object is a regular file at <root>/<key>, a prefix is a
 * directory. Writes go to a temporary file beside the target and are renamed over it, so a
 * reader (or a crash) sees the old object or the new one, never half of one. */
#include "nczm_impl.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct file_map {
    nczm_map base; /* must stay first: the dispatcher frees the block through it */
} file_map;

/* ---------------------------------------------------------------- helpers */

static char *key_path(const nczm_map *map, const char *key)
{
    return *key ? nczm_join(map->location, key) : strdup(map->location);
}

static int is_regular(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0 && S_ISREG(sb.st_mode);
}

/* A directory is a Zarr (v2) store when its root holds .zgroup or .zarray. */
static int is_store_dir(const char *root)
{
    int found = 0;
    const char *marks[] = {".zgroup", ".zarray"};
    for (size_t i = 0; i < 2 && !found; i++) {
        char *p = nczm_join(root, marks[i]);
        if (p)
            found = is_regular(p);
        free(p);
    }
    return found;
}

/* 1 empty, 0 not, -1 error (errno set). */
static int dir_is_empty(const char *path)
{
    DIR *d = opendir(path);
    if (!d)
        return -1;
    int empty = 1;
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0) {
            empty = 0;
            break;
        }
    }
    closedir(d);
    return empty;
}

/* Removes everything inside the directory open as dfd (closing dfd). Returns 0 or errno.
 * Works on descriptors so a symlink inside the tree is removed, never followed. */
static int empty_dir_fd(int dfd)
{
    DIR *d = fdopendir(dfd);
    if (!d) {
        int e = errno;
        close(dfd);
        return e;
    }
    int err = 0;
    struct dirent *de;
    while ((errno = 0, de = readdir(d)) != NULL) {
        const char *name = de->d_name;
        if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
            continue;
        int isdir = de->d_type == DT_DIR;
        if (de->d_type == DT_UNKNOWN) {
            struct stat sb;
            if (fstatat(dirfd(d), name, &sb, AT_SYMLINK_NOFOLLOW) == 0)
                isdir = S_ISDIR(sb.st_mode);
        }
        if (isdir) {
            int cfd = openat(dirfd(d), name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
            if (cfd < 0)
                err = errno;
            else
                err = empty_dir_fd(cfd);
            if (!err && unlinkat(dirfd(d), name, AT_REMOVEDIR) != 0)
                err = errno;
        } else if (unlinkat(dirfd(d), name, 0) != 0) {
            err = errno;
        }
        if (err)
            break;
    }
    if (!err && errno)
        err = errno;
    closedir(d);
    return err;
}

static int empty_dir(const char *path)
{
    int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    return fd < 0 ? errno : empty_dir_fd(fd);
}

/* After a delete, drop the directories that held only the deleted key, so that a prefix
 * exists exactly while something is below it (as on S3). Stops at the first non-empty
 * directory; the store root itself is never removed. */
static void prune_parents(const nczm_map *map, const char *key)
{
    char *path = key_path(map, key);
    if (!path)
        return;
    size_t rootlen = strlen(map->location);
    for (;;) {
        char *slash = strrchr(path, '/');
        if (!slash || (size_t)(slash - path) <= rootlen)
            break;
        *slash = '\0';
        if (rmdir(path) != 0)
            break;
    }
    free(path);
}

/* Makes the directories for every proper prefix of key. */
static int make_parents(const nczm_map *map, const char *key)
{
    char *path = key_path(map, key);
    if (!path)
        return ENOMEM;
    int err = 0;
    for (char *p = path + strlen(map->location) + 1; (p = strchr(p, '/')) != NULL; p++) {
        *p = '\0';
        if (mkdir(path, 0777) != 0 && errno != EEXIST) {
            err = errno;
            break;
        }
        *p = '/';
    }
    free(path);
    return err;
}

static nczm_status key_err(nczm_map *map, const char *op, const char *key, int e)
{
    return nczm_seterr(map, nczm_errno_status(e), "%s: %s \"%s\": %s", map->location, op, key, strerror(e));
}

/* Opens a key's file for reading and checks it is an object. */
static nczm_status open_object(nczm_map *map, const char *op, const char *key, int *fdp, uint64_t *size)
{
    char *path = key_path(map, key);
    if (!path)
        return nczm_seterr(map, NCZM_NOMEM, "%s: %s \"%s\": out of memory", map->location, op, key);
    /* O_NONBLOCK: opening a FIFO someone left in the tree must not hang. */
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    int e = errno;
    free(path);
    if (fd < 0)
        return key_err(map, op, key, e);
    struct stat sb;
    if (fstat(fd, &sb) != 0) {
        e = errno;
        close(fd);
        return key_err(map, op, key, e);
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

static nczm_status pread_all(nczm_map *map, const char *key, int fd, void *buf, size_t count, uint64_t start)
{
    char *p = buf;
    while (count) {
        size_t chunk = count > ((size_t)1 << 30) ? (size_t)1 << 30 : count;
        ssize_t r = pread(fd, p, chunk, (off_t)start);
        if (r < 0) {
            if (errno == EINTR)
                continue;
            return key_err(map, "read", key, errno);
        }
        if (r == 0)
            return nczm_seterr(map, NCZM_IO, "%s: read \"%s\": object shrank while being read", map->location,
                               key);
        p += r;
        count -= (size_t)r;
        start += (uint64_t)r;
    }
    return NCZM_OK;
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
            if (!S_ISDIR(sb.st_mode))
                return nczm_fmterr(errmsg, NCZM_NOTSTORE,
                                   "%s: create: %s, not a directory store; refusing to replace it", root,
                                   S_ISREG(sb.st_mode) ? "is a regular file" : "exists");
            int empty = dir_is_empty(root);
            if (empty < 0) {
                int e = errno;
                return nczm_fmterr(errmsg, nczm_errno_status(e), "%s: create: %s", root, strerror(e));
            }
            if (!empty && !is_store_dir(root))
                return nczm_fmterr(errmsg, NCZM_NOTSTORE,
                                   "%s: create: directory is not empty and is not a Zarr store (no .zgroup "
                                   "or .zarray at its root); refusing to %s it",
                                   root, (flags & NCZM_TRUNC) ? "delete" : "write into");
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
    } else {
        if (!exists)
            return nczm_fmterr(errmsg, NCZM_NOTFOUND, "%s: open: %s", root, strerror(ENOENT));
        if (!S_ISDIR(sb.st_mode))
            return nczm_fmterr(errmsg, NCZM_NOTSTORE, "%s: open: not a directory, so not a directory store",
                               root);
        if (!is_store_dir(root))
            return nczm_fmterr(errmsg, NCZM_NOTSTORE,
                               "%s: open: not a Zarr store (no .zgroup or .zarray at its root)", root);
        if (!(flags & NCZM_READONLY) && (st = nczm_check_dir_writable(root, root, errmsg)) != NCZM_OK)
            return st;
    }

    file_map *fm = calloc(1, sizeof *fm);
    if (!fm)
        return nczm_fmterr(errmsg, NCZM_NOMEM, "%s: open: out of memory", root);
    if ((st = nczm_map_init(&fm->base, &nczm_file_driver, root, flags, errmsg)) != NCZM_OK) {
        free(fm);
        return st;
    }
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
    if (!is_store_dir(root))
        return nczm_fmterr(errmsg, NCZM_NOTSTORE,
                           "%s: destroy: not a Zarr store (no .zgroup or .zarray at its root); refusing to "
                           "delete it",
                           root);
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
    return stat(url->location, &sb) == 0 && S_ISDIR(sb.st_mode) && is_store_dir(url->location);
}

/* ---------------------------------------------------------------- object operations */

static nczm_status file_close(nczm_map *map)
{
    (void)map;
    return NCZM_OK;
}

static nczm_status file_exists(nczm_map *map, const char *key)
{
    char *path = key_path(map, key);
    if (!path)
        return nczm_seterr(map, NCZM_NOMEM, "%s: exists \"%s\": out of memory", map->location, key);
    struct stat sb;
    int ok = stat(path, &sb) == 0;
    int e = errno;
    free(path);
    if (ok)
        return S_ISREG(sb.st_mode)
                   ? NCZM_OK
                   : nczm_seterr(map, NCZM_NOTFOUND, "%s: exists \"%s\": is a prefix, not an object",
                                 map->location, key);
    return key_err(map, "exists", key, e);
}

static nczm_status file_len(nczm_map *map, const char *key, uint64_t *len)
{
    char *path = key_path(map, key);
    if (!path)
        return nczm_seterr(map, NCZM_NOMEM, "%s: len \"%s\": out of memory", map->location, key);
    struct stat sb;
    int ok = stat(path, &sb) == 0;
    int e = errno;
    free(path);
    if (!ok)
        return key_err(map, "len", key, e);
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
static nczm_status file_get_into_many(nczm_map *map, size_t n, nczm_getinto *reqs)
{
    nczm_first_err fe = {.have = 0};
    for (size_t i = 0; i < n; i++) {
        nczm_getinto *r = &reqs[i];
        if (r->status != NCZM_OK)
            continue;
        int fd;
        uint64_t size = 0;
        nczm_status st = open_object(map, "read", r->key, &fd, &size);
        if (st == NCZM_OK) {
            r->len = size > SIZE_MAX ? SIZE_MAX : (size_t)size;
            if (size > r->cap)
                st = nczm_long_err(map, r->key, size, r->cap);
            else
                st = pread_all(map, r->key, fd, r->buf, (size_t)size, 0);
            close(fd);
        }
        r->status = st;
        nczm_first_err_note(&fe, map, st != NCZM_OK && st != NCZM_NOTFOUND);
    }
    nczm_first_err_restore(&fe, map);
    return NCZM_OK;
}

static nczm_status file_write(nczm_map *map, const char *key, const void *data, size_t len)
{
    char *path = key_path(map, key);
    char *dir = path ? nczm_parent_of(path) : NULL;
    char *tmp = NULL;
    nczm_status st = NCZM_OK;
    int fd = -1, e = 0;
    if (!dir) {
        st = nczm_seterr(map, NCZM_NOMEM, "%s: write \"%s\": out of memory", map->location, key);
        goto done;
    }
    /* Try the common case (directory already there) first; make the directories only when
     * missing, and retry in case a concurrent delete pruned one in between. */
    for (int attempt = 0; attempt < 3; attempt++) {
        fd = nczm_open_tmp(dir, &tmp);
        if (fd >= 0 || errno != ENOENT)
            break;
        if ((e = make_parents(map, key)) != 0) {
            errno = e;
            break;
        }
    }
    if (fd < 0) {
        e = errno;
        if (e == ENOTDIR)
            st = nczm_seterr(map, NCZM_INVAL, "%s: write \"%s\": a prefix of the key is an object",
                             map->location, key);
        else
            st = key_err(map, "write", key, e);
        goto done;
    }
    const char *p = data;
    size_t left = len;
    while (left) {
        ssize_t w = write(fd, p, left > ((size_t)1 << 30) ? (size_t)1 << 30 : left);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            e = w < 0 ? errno : EIO;
            break;
        }
        p += w;
        left -= (size_t)w;
    }
    if (close(fd) != 0 && !e)
        e = errno;
    if (!e && rename(tmp, path) != 0)
        e = errno;
    if (e) {
        unlink(tmp);
        if (e == EISDIR || e == ENOTEMPTY || e == EEXIST)
            st = nczm_seterr(map, NCZM_INVAL, "%s: write \"%s\": the key is a prefix (has objects below it)",
                             map->location, key);
        else
            st = key_err(map, "write", key, e);
    }
done:
    free(tmp);
    free(dir);
    free(path);
    return st;
}

static nczm_status file_delete(nczm_map *map, const char *key)
{
    char *path = key_path(map, key);
    if (!path)
        return nczm_seterr(map, NCZM_NOMEM, "%s: delete \"%s\": out of memory", map->location, key);
    struct stat sb;
    nczm_status st = NCZM_OK;
    if (lstat(path, &sb) != 0)
        st = key_err(map, "delete", key, errno);
    else if (S_ISDIR(sb.st_mode))
        st = nczm_seterr(map, NCZM_NOTFOUND, "%s: delete \"%s\": is a prefix, not an object", map->location,
                         key);
    else if (unlink(path) != 0)
        st = key_err(map, "delete", key, errno);
    free(path);
    if (st == NCZM_OK)
        prune_parents(map, key);
    return st;
}

static nczm_status file_delete_tree(nczm_map *map, const char *prefix)
{
    char *path = key_path(map, prefix);
    if (!path)
        return nczm_seterr(map, NCZM_NOMEM, "%s: delete_tree \"%s\": out of memory", map->location, prefix);
    struct stat sb;
    int e = 0;
    if (lstat(path, &sb) != 0) {
        e = errno;
        if (e == ENOENT || e == ENOTDIR)
            e = 0; /* nothing there is success */
    } else if (S_ISDIR(sb.st_mode)) {
        e = empty_dir(path);
        if (!e && rmdir(path) != 0)
            e = errno;
    } else if (unlink(path) != 0) {
        e = errno;
    }
    free(path);
    if (e)
        return key_err(map, "delete_tree", prefix, e);
    prune_parents(map, prefix);
    return NCZM_OK;
}

static nczm_status file_search(nczm_map *map, const char *prefix, nczm_list *out)
{
    char *path = key_path(map, prefix);
    if (!path)
        return nczm_seterr(map, NCZM_NOMEM, "%s: search \"%s\": out of memory", map->location, prefix);
    DIR *d = opendir(path);
    int e = errno;
    free(path);
    if (!d) {
        if (e == ENOENT || e == ENOTDIR)
            return NCZM_OK; /* no such prefix: no children, as on S3 */
        return key_err(map, "search", prefix, e);
    }
    size_t cap = 0;
    nczm_status st = NCZM_OK;
    struct dirent *de;
    while ((errno = 0, de = readdir(d)) != NULL) {
        const char *name = de->d_name;
        size_t n = strlen(name);
        if (strncmp(name, NCZM_TMP_PREFIX, sizeof(NCZM_TMP_PREFIX) - 1) == 0 || !nczm_segment_ok(name, n))
            continue; /* ".", "..", our temp files, and names no key could reach */
        if ((st = nczm_list_append(out, &cap, name, n)) != NCZM_OK) {
            st = nczm_seterr(map, st, "%s: search \"%s\": out of memory", map->location, prefix);
            break;
        }
    }
    if (st == NCZM_OK && errno)
        st = key_err(map, "search", prefix, errno);
    closedir(d);
    if (st == NCZM_OK)
        nczm_list_finish(out);
    return st;
}

/* One rename(2) moves the whole subtree, however many chunks it holds: no data is copied. */
static nczm_status file_rename_tree(nczm_map *map, const char *old_prefix, const char *new_prefix)
{
    const char *op = "rename_tree";
    char *src = key_path(map, old_prefix), *dst = key_path(map, new_prefix);
    nczm_status st = NCZM_OK;
    struct stat sb;
    int e;
    if (!src || !dst) {
        st = nczm_seterr(map, NCZM_NOMEM, "%s: %s \"%s\": out of memory", map->location, op, old_prefix);
        goto done;
    }
    if (lstat(src, &sb) != 0) {
        e = errno;
        st = e == ENOENT || e == ENOTDIR ? NCZM_NOTFOUND : nczm_errno_status(e);
        goto src_fail;
    }
    if (S_ISDIR(sb.st_mode)) {
        /* An empty directory holds no key: there is nothing to move. */
        int empty = dir_is_empty(src);
        if (empty != 0) {
            e = empty < 0 ? errno : ENOENT;
            st = nczm_errno_status(e);
            goto src_fail;
        }
    } else if (!S_ISREG(sb.st_mode)) {
        e = ENOENT;
        st = NCZM_NOTFOUND;
        goto src_fail;
    }
    if (lstat(dst, &sb) == 0) {
        /* An empty directory is debris of an interrupted write, not a prefix: drop it. */
        if (!S_ISDIR(sb.st_mode) || rmdir(dst) != 0) {
            st = nczm_seterr(map, NCZM_EXISTS, "%s: %s \"%s\" to \"%s\": the destination exists",
                             map->location, op, old_prefix, new_prefix);
            goto done;
        }
    } else if (errno == ENOTDIR) {
        st = nczm_seterr(map, NCZM_INVAL, "%s: %s \"%s\" to \"%s\": a prefix of the destination is an object",
                         map->location, op, old_prefix, new_prefix);
        goto done;
    } else if (errno != ENOENT) {
        st = key_err(map, op, new_prefix, errno);
        goto done;
    }
    if ((e = make_parents(map, new_prefix)) != 0) {
        st = e == ENOTDIR ? nczm_seterr(map, NCZM_INVAL,
                                        "%s: %s \"%s\" to \"%s\": a prefix of the destination is an object",
                                        map->location, op, old_prefix, new_prefix)
                          : key_err(map, op, new_prefix, e);
        prune_parents(map, new_prefix);
        goto done;
    }
    if (rename(src, dst) != 0) {
        e = errno;
        prune_parents(map, new_prefix); /* the directories made above, if still empty */
        if (e == EXDEV)                 /* the tree spans file systems: the dispatcher copies instead */
            st = NCZM_UNSUPPORTED;
        else if (e == EEXIST || e == ENOTEMPTY || e == EISDIR)
            st = nczm_seterr(map, NCZM_EXISTS, "%s: %s \"%s\" to \"%s\": the destination exists",
                             map->location, op, old_prefix, new_prefix);
        else if (e == ENOTDIR)
            st = nczm_seterr(map, NCZM_INVAL,
                             "%s: %s \"%s\" to \"%s\": a prefix of the destination is an object",
                             map->location, op, old_prefix, new_prefix);
        else
            st = key_err(map, op, old_prefix, e);
        goto done;
    }
    prune_parents(map, old_prefix);
    goto done;
src_fail:
    if (st == NCZM_NOTFOUND)
        nczm_seterr(map, st, "%s: %s \"%s\": nothing at or below that key", map->location, op, old_prefix);
    else
        key_err(map, op, old_prefix, e);
done:
    free(src);
    free(dst);
    return st;
}

const nczm_driver nczm_file_driver = {
    .kind = NCZM_KIND_FILE,
    .name = "file",
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
    .write = file_write,
    .delete_obj = file_delete,
    .delete_tree = file_delete_tree,
    .search = file_search,
    .get_many = NULL,
    .put_many = NULL,
    .get_into_many = file_get_into_many,
    .rename_tree = file_rename_tree,
    .copy_tree = NULL,
};
