/* The directory store's changes: crash-safe writes (a temporary file renamed over the key),
 * deletes, listing and renaming subtrees; commits of many objects: nczm_filecommit.c.
 * Opening and reading: nczm_file.c. */
#include "nczm_file_internal.h"
#include "nczc_workers.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Writes the pieces iov[0..iovcnt) (len bytes in all) to fd: 0 or an errno value. */
static int write_all(int fd, const struct iovec *iov, int iovcnt, size_t len)
{
    nczm_iovcur c = {iov, iovcnt, 0, 0};
    size_t left = len;
    while (left && c.k < c.n) {
        struct iovec v[NCZM_IOV_BATCH];
        int nv = nczm_iovcur_take(&c, v, NCZM_IOV_BATCH, left);
        ssize_t w = writev(fd, v, nv);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return w < 0 ? errno : EIO;
        left -= (size_t)w;
        nczm_iovcur_skip(&c, (size_t)w);
    }
    return 0;
}

/* Writes the pieces iov[0..iovcnt) (len bytes in all) to a new temporary file in the open
 * directory dfd, on disk before it returns when sync; *tmpp gets its name (malloc'ed).
 * errno-style result: 0 or the error. */
int nczm_file_write_tmp_at(int dfd, const struct iovec *iov, int iovcnt, size_t len, int sync, char **tmpp)
{
    char *tmp = NULL;
    int fd = nczm_open_tmp_at(dfd, NULL, &tmp);
    if (fd < 0)
        return errno;
    int e = write_all(fd, iov, iovcnt, len);
    if (!e && sync && fdatasync(fd) != 0)
        e = errno;
    if (close(fd) != 0 && !e)
        e = errno;
    if (e) {
        unlinkat(dfd, tmp, 0);
        free(tmp);
        return e;
    }
    *tmpp = tmp;
    return 0;
}

/* The same written straight to leaf in dfd, a directory no reader sees yet (a commit's
 * new subtree, nczm_filesub.c), so no temporary is needed. */
int nczm_file_write_new_at(int dfd, const char *leaf, const struct iovec *iov, int iovcnt, size_t len)
{
    int fd = openat(dfd, leaf, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0666);
    if (fd < 0)
        return errno;
    int e = write_all(fd, iov, iovcnt, len);
    if (close(fd) != 0 && !e)
        e = errno;
    return e;
}

static nczm_status write_err(nczm_map *map, const char *key, int e)
{
    if (e == ENOTDIR)
        return nczm_seterr(map, NCZM_INVAL, "%s: write \"%s\": a prefix of the key is an object",
                           map->location, key);
    return nczm_file_key_err(map, "write", key, e);
}

/* Writes data to a new temporary file in the key's directory (made as needed), on disk
 * before it returns when sync. On success *dfdp is the open directory (release with
 * nczm_file_put_dir), *tmpp the temporary's name in it and *leafp the key's last segment. */
nczm_status nczm_file_write_tmp(nczm_map *map, const char *key, const struct iovec *iov, int iovcnt,
                                size_t len, int sync, int *dfdp, char **tmpp, const char **leafp)
{
    const file_map *fm = FM(map);
    int e = 0;
    *dfdp = -1;
    *tmpp = NULL;
    /* Directories are made as needed; retry in case a concurrent delete pruned one between
     * making it and creating the file in it. */
    for (int attempt = 0; attempt < 3; attempt++) {
        int dfd = nczm_file_open_parent(fm, key, 1, leafp);
        e = dfd < 0 ? errno : nczm_file_write_tmp_at(dfd, iov, iovcnt, len, sync, tmpp);
        if (!e) {
            *dfdp = dfd;
            return NCZM_OK;
        }
        nczm_file_put_dir(fm, dfd);
        if (e != ENOENT)
            break;
    }
    return write_err(map, key, e);
}

/* Renames the temporary tmp in dfd over the key's leaf (removing the temporary on failure). */
nczm_status nczm_file_rename_tmp(nczm_map *map, const char *key, int dfd, const char *tmp, const char *leaf)
{
    /* renameat replaces a link at the key itself, never what it points to */
    if (renameat(dfd, tmp, dfd, leaf) == 0)
        return NCZM_OK;
    int e = errno;
    unlinkat(dfd, tmp, 0);
    if (e == EISDIR || e == ENOTEMPTY || e == EEXIST)
        return nczm_seterr(map, NCZM_INVAL, "%s: write \"%s\": the key is a prefix (has objects below it)",
                           map->location, key);
    return nczm_file_key_err(map, "write", key, e);
}

nczm_status nczm_file_writev(nczm_map *map, const char *key, const struct iovec *iov, int iovcnt, size_t len)
{
    int dfd;
    char *tmp;
    const char *leaf;
    nczm_status st = nczm_file_write_tmp(map, key, iov, iovcnt, len, 0, &dfd, &tmp, &leaf);
    if (st == NCZM_OK)
        st = nczm_file_rename_tmp(map, key, dfd, tmp, leaf);
    nczm_file_put_dir(FM(map), dfd);
    free(tmp);
    return st;
}

nczm_status nczm_file_write(nczm_map *map, const char *key, const void *data, size_t len)
{
    struct iovec v = {(void *)(uintptr_t)data, len};
    return nczm_file_writev(map, key, &v, 1, len);
}

/* An object built in pieces (nczm_obj_begin): a temporary in the key's directory, written
 * at offsets with pwritev from any thread, renamed over the key at the commit. Only the
 * temporary stays open in between (the directory is opened again at the end): a writer
 * of a wide array has a shard under way per column of shards. */
typedef struct file_obj {
    nczm_map *map;
    char *key;
    char *tmp;
    int fd;
    atomic_int err; /* the first errno of a pwritev */
} file_obj;

static void obj_free(file_obj *o)
{
    free(o->key);
    free(o->tmp);
    free(o);
}

nczm_status nczm_file_obj_begin(nczm_map *map, const char *key, void **stp)
{
    const file_map *fm = FM(map);
    file_obj *o = calloc(1, sizeof *o);
    if (!o || !(o->key = strdup(key))) {
        free(o);
        return nczm_seterr(map, NCZM_NOMEM, "%s: write \"%s\": out of memory", map->location, key);
    }
    o->map = map;
    atomic_init(&o->err, 0);
    int dfd;
    const char *leaf;
    nczm_status st = nczm_file_write_tmp(map, key, NULL, 0, 0, 0, &dfd, &o->tmp, &leaf);
    if (st != NCZM_OK) {
        obj_free(o);
        return st;
    }
    o->fd = openat(dfd, o->tmp, O_WRONLY | O_NOFOLLOW | O_CLOEXEC);
    if (o->fd < 0) {
        int e = errno;
        unlinkat(dfd, o->tmp, 0);
        nczm_file_put_dir(fm, dfd);
        obj_free(o);
        return nczm_file_key_err(map, "write", key, e);
    }
    nczm_file_put_dir(fm, dfd);
    *stp = o;
    return NCZM_OK;
}

int nczm_file_obj_pwritev(void *st, const struct iovec *iov, int iovcnt, size_t len, uint64_t off)
{
    file_obj *o = st;
    nczm_iovcur c = {iov, iovcnt, 0, 0};
    size_t left = len;
    int e = 0;
    while (left && c.k < c.n) {
        struct iovec v[NCZM_IOV_BATCH];
        int nv = nczm_iovcur_take(&c, v, NCZM_IOV_BATCH, left);
        ssize_t w = pwritev(o->fd, v, nv, (off_t)(off + (len - left)));
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            e = w < 0 ? errno : EIO;
            break;
        }
        left -= (size_t)w;
        nczm_iovcur_skip(&c, (size_t)w);
    }
    int none = 0;
    if (e)
        atomic_compare_exchange_strong(&o->err, &none, e);
    return e;
}

/* Ends o: renamed over its key when commit and nothing failed, else removed. */
static nczm_status obj_end(file_obj *o, int commit)
{
    nczm_map *map = o->map;
    const file_map *fm = FM(map);
    int e = atomic_load(&o->err);
    if (close(o->fd) != 0 && !e)
        e = errno;
    const char *leaf;
    int dfd = nczm_file_open_parent(fm, o->key, 0, &leaf);
    nczm_status st = NCZM_OK;
    if (dfd < 0)
        st = nczm_file_key_err(map, "write", o->key, errno);
    else if (commit && !e)
        st = nczm_file_rename_tmp(map, o->key, dfd, o->tmp, leaf);
    else
        unlinkat(dfd, o->tmp, 0);
    if (commit && e && st == NCZM_OK)
        st = nczm_file_key_err(map, "write", o->key, e);
    nczm_file_put_dir(fm, dfd);
    obj_free(o);
    return st;
}

nczm_status nczm_file_obj_commit(void *st)
{
    return obj_end(st, 1);
}

void nczm_file_obj_abort(void *st)
{
    (void)obj_end(st, 0);
}

nczm_status nczm_file_delete(nczm_map *map, const char *key)
{
    const file_map *fm = FM(map);
    const char *leaf;
    int dfd = nczm_file_open_parent(fm, key, 0, &leaf);
    if (dfd < 0)
        return nczm_file_key_err(map, "delete", key, errno);
    struct stat sb;
    nczm_status st = NCZM_OK;
    if (fstatat(dfd, leaf, &sb, AT_SYMLINK_NOFOLLOW) != 0)
        st = nczm_file_key_err(map, "delete", key, errno);
    else if (S_ISDIR(sb.st_mode))
        st = nczm_seterr(map, NCZM_NOTFOUND, "%s: delete \"%s\": is a prefix, not an object", map->location,
                         key);
    else if (unlinkat(dfd, leaf, 0) != 0) /* a link is removed, never followed */
        st = nczm_file_key_err(map, "delete", key, errno);
    nczm_file_put_dir(fm, dfd);
    if (st == NCZM_OK)
        nczm_file_prune_parents(fm, key);
    return st;
}

nczm_status nczm_file_delete_tree(nczm_map *map, const char *prefix)
{
    const file_map *fm = FM(map);
    const char *leaf;
    struct stat sb;
    int e = 0;
    int dfd = nczm_file_open_parent(fm, prefix, 0, &leaf);
    if (dfd < 0) {
        e = errno;
    } else if (fstatat(dfd, leaf, &sb, AT_SYMLINK_NOFOLLOW) != 0) {
        e = errno;
    } else if (S_ISDIR(sb.st_mode)) {
        int cfd = openat(dfd, leaf, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        e = cfd < 0 ? errno : nczm_file_empty_dir_fd(cfd);
        if (!e && unlinkat(dfd, leaf, AT_REMOVEDIR) != 0)
            e = errno;
    } else if (unlinkat(dfd, leaf, 0) != 0) {
        e = errno;
    }
    nczm_file_put_dir(fm, dfd);
    if (e == ENOENT || e == ENOTDIR)
        e = 0; /* nothing there is success */
    if (e)
        return nczm_file_key_err(map, "delete_tree", prefix, e);
    nczm_file_prune_parents(fm, prefix);
    return NCZM_OK;
}

nczm_status nczm_file_search(nczm_map *map, const char *prefix, nczm_list *out)
{
    const file_map *fm = FM(map);
    int fd = *prefix ? nczm_file_open_key(fm, prefix, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
                     : openat(fm->rootfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    int e = errno;
    if (fd < 0 && e == ENOTDIR && *prefix) {
        /* O_DIRECTORY|O_NOFOLLOW on a link says ENOTDIR: a link is refused, an object has no
         * children */
        struct stat sb;
        if (nczm_file_stat_key(fm, prefix, &sb) == 0 && S_ISLNK(sb.st_mode))
            e = ELOOP;
    }
    DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
    if (!d) {
        if (fd >= 0) {
            e = errno;
            close(fd);
        }
        if (e == ENOENT || e == ENOTDIR)
            return NCZM_OK; /* no such prefix: no children, as on S3 */
        return nczm_file_key_err(map, "search", prefix, e);
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
        st = nczm_file_key_err(map, "search", prefix, errno);
    closedir(d);
    if (st == NCZM_OK)
        nczm_list_finish(out);
    return st;
}

/* One rename(2) moves the whole subtree, however many chunks it holds: no data is copied. */
nczm_status nczm_file_rename_tree(nczm_map *map, const char *old_prefix, const char *new_prefix)
{
    const char *op = "rename_tree";
    const file_map *fm = FM(map);
    const char *sleaf, *dleaf;
    nczm_status st = NCZM_OK;
    struct stat sb;
    int e, made = 0;
    int sdfd = nczm_file_open_parent(fm, old_prefix, 0, &sleaf), ddfd = -1;
    if (sdfd < 0) {
        e = errno;
        goto src_fail;
    }
    if (fstatat(sdfd, sleaf, &sb, AT_SYMLINK_NOFOLLOW) != 0) {
        e = errno;
        goto src_fail;
    }
    if (S_ISDIR(sb.st_mode)) {
        /* An empty directory holds no key: there is nothing to move. */
        int empty = nczm_file_dir_is_empty_at(sdfd, sleaf);
        if (empty != 0) {
            e = empty < 0 ? errno : ENOENT;
            goto src_fail;
        }
    } else if (S_ISLNK(sb.st_mode)) {
        e = ELOOP;
        goto src_fail;
    } else if (!S_ISREG(sb.st_mode)) {
        e = ENOENT;
        goto src_fail;
    }
    /* The destination's parents, made as needed (removed again on failure). */
    if ((ddfd = nczm_file_open_parent(fm, new_prefix, 0, &dleaf)) < 0 && errno == ENOENT) {
        ddfd = nczm_file_open_parent(fm, new_prefix, 1, &dleaf);
        made = ddfd >= 0;
    }
    if (ddfd < 0) {
        e = errno;
        st = e == ENOTDIR ? nczm_seterr(map, NCZM_INVAL,
                                        "%s: %s \"%s\" to \"%s\": a prefix of the destination is an object",
                                        map->location, op, old_prefix, new_prefix)
                          : nczm_file_key_err(map, op, new_prefix, e);
        goto fail;
    }
    if (fstatat(ddfd, dleaf, &sb, AT_SYMLINK_NOFOLLOW) == 0) {
        /* An empty directory is debris of an interrupted write, not a prefix: drop it. */
        if (!S_ISDIR(sb.st_mode) || unlinkat(ddfd, dleaf, AT_REMOVEDIR) != 0) {
            st = nczm_seterr(map, NCZM_EXISTS, "%s: %s \"%s\" to \"%s\": the destination exists",
                             map->location, op, old_prefix, new_prefix);
            goto fail;
        }
    } else if (errno != ENOENT) {
        st = nczm_file_key_err(map, op, new_prefix, errno);
        goto fail;
    }
    if (renameat(sdfd, sleaf, ddfd, dleaf) != 0) {
        e = errno;
        if (e == EXDEV) /* the tree spans file systems: the dispatcher copies instead */
            st = NCZM_UNSUPPORTED;
        else if (e == EEXIST || e == ENOTEMPTY || e == EISDIR)
            st = nczm_seterr(map, NCZM_EXISTS, "%s: %s \"%s\" to \"%s\": the destination exists",
                             map->location, op, old_prefix, new_prefix);
        else if (e == ENOTDIR)
            st = nczm_seterr(map, NCZM_INVAL,
                             "%s: %s \"%s\" to \"%s\": a prefix of the destination is an object",
                             map->location, op, old_prefix, new_prefix);
        else
            st = nczm_file_key_err(map, op, old_prefix, e);
        goto fail;
    }
    nczm_file_put_dir(fm, sdfd);
    nczm_file_put_dir(fm, ddfd);
    nczm_file_prune_parents(fm, old_prefix);
    return NCZM_OK;
src_fail:
    if (e == ENOENT || e == ENOTDIR)
        st = nczm_seterr(map, NCZM_NOTFOUND, "%s: %s \"%s\": nothing at or below that key", map->location, op,
                         old_prefix);
    else
        st = nczm_file_key_err(map, op, old_prefix, e);
fail:
    nczm_file_put_dir(fm, sdfd);
    nczm_file_put_dir(fm, ddfd);
    if (made)
        nczm_file_prune_parents(fm, new_prefix); /* the directories made above, if still empty */
    return st;
}
