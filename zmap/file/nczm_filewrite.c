/* The directory store's changes: crash-safe writes (a temporary file renamed over the key),
 * commits of many objects, deletes, listing and renaming subtrees. Opening and reading:
 * nczm_file.c. */
#include "nczm_file_internal.h"
#include "nczc_workers.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Writes the pieces iov[0..iovcnt) (len bytes in all) to a new temporary file in the open
 * directory dfd, on disk before it returns when sync; *tmpp gets its name (malloc'ed).
 * errno-style result: 0 or the error. */
static int write_tmp_at(int dfd, const struct iovec *iov, int iovcnt, size_t len, int sync, char **tmpp)
{
    char *tmp = NULL;
    int fd = nczm_open_tmp_at(dfd, NULL, &tmp), e = 0;
    if (fd < 0)
        return errno;
    nczm_iovcur c = {iov, iovcnt, 0, 0};
    size_t left = len;
    while (left && c.k < c.n) {
        struct iovec v[NCZM_IOV_BATCH];
        int nv = nczm_iovcur_take(&c, v, NCZM_IOV_BATCH, left);
        ssize_t w = writev(fd, v, nv);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            e = w < 0 ? errno : EIO;
            break;
        }
        left -= (size_t)w;
        nczm_iovcur_skip(&c, (size_t)w);
    }
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
static nczm_status write_tmp(nczm_map *map, const char *key, const struct iovec *iov, int iovcnt, size_t len,
                             int sync, int *dfdp, char **tmpp, const char **leafp)
{
    const file_map *fm = FM(map);
    int e = 0;
    *dfdp = -1;
    *tmpp = NULL;
    /* Directories are made as needed; retry in case a concurrent delete pruned one between
     * making it and creating the file in it. */
    for (int attempt = 0; attempt < 3; attempt++) {
        int dfd = nczm_file_open_parent(fm, key, 1, leafp);
        e = dfd < 0 ? errno : write_tmp_at(dfd, iov, iovcnt, len, sync, tmpp);
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
static nczm_status rename_tmp(nczm_map *map, const char *key, int dfd, const char *tmp, const char *leaf)
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
    nczm_status st = write_tmp(map, key, iov, iovcnt, len, 0, &dfd, &tmp, &leaf);
    if (st == NCZM_OK)
        st = rename_tmp(map, key, dfd, tmp, leaf);
    nczm_file_put_dir(FM(map), dfd);
    free(tmp);
    return st;
}

nczm_status nczm_file_write(nczm_map *map, const char *key, const void *data, size_t len)
{
    struct iovec v = {(void *)(uintptr_t)data, len};
    return nczm_file_writev(map, key, &v, 1, len);
}

/* Flushes the file system that holds the store. */
static nczm_status sync_store(nczm_map *map)
{
    if (syncfs(FM(map)->rootfd) == 0)
        return NCZM_OK;
    int e = errno;
    return nczm_seterr(map, nczm_errno_status(e), "%s: syncing metadata to disk: %s", map->location,
                       strerror(e));
}

/* Up to this many objects, a commit syncs each temporary (fdatasync) and each directory it
 * renames into (fsync), leaving the chunk data written before to the kernel's write-back as
 * native HDF5 does: a flush of a few objects never waits for gigabytes of data. Beyond it
 * one syncfs before and one after the renames cost less than two syncs per object. */
#define NCZM_SYNC_EACH_MAX 64

/* fsyncs the directory dfd unless one of the n directories in seen[] (dev, inode pairs) is
 * the same; adds it to seen. */
static int sync_dir_once(int dfd, dev_t *sdev, ino_t *sino, size_t *n)
{
    struct stat sb;
    if (fstat(dfd, &sb) != 0)
        return -1;
    for (size_t i = 0; i < *n; i++)
        if (sdev[i] == sb.st_dev && sino[i] == sb.st_ino)
            return 0;
    sdev[*n] = sb.st_dev;
    sino[(*n)++] = sb.st_ino;
    return fsync(dfd);
}

/* The open directory of the last key's parent, reused while the next keys share it (a
 * group's .zgroup and .zattrs, an array's .zarray and .zattrs): a commit opens each
 * directory once per pass, as many times as writing the objects one by one would. */
typedef struct dir_cache {
    const char *key; /* the key whose parent dfd is (borrowed) */
    size_t plen;     /* length of that parent prefix, without the '/' */
    int dfd;
    /* the parent's parent, shared by the consecutive keys of sibling objects
     * ("g/var1/.zarray", "g/var2/.zarray"): a new sibling directory is then made and opened
     * with two calls instead of a walk from the root */
    char *gkey; /* that prefix (owned), without the '/' */
    size_t glen;
    int gfd;
} dir_cache;

#define DIR_CACHE_INIT                                                                                       \
    {                                                                                                        \
        NULL, 0, -1, NULL, 0, -1                                                                             \
    }

static size_t parent_len(const char *key)
{
    const char *s = strrchr(key, '/');
    return s ? (size_t)(s - key) : 0;
}

/* The directory the first len bytes of key name, opened (made where missing with mkdirs)
 * below the grandparent c caches, or -1 when that cache does not serve this key: the
 * caller then walks from the root, which also tells every failure precisely. */
static int open_via_grandparent(const file_map *fm, dir_cache *c, const char *key, size_t len, int mkdirs)
{
    const char *slash = memrchr(key, '/', len);
    size_t gl = slash ? (size_t)(slash - key) : 0;
    const char *name = slash ? slash + 1 : key;
    size_t nl = len - (size_t)(name - key);
    char seg[256];
    if (nl == 0 || nl >= sizeof seg)
        return -1;
    if (!(c->gfd >= 0 && c->glen == gl && strncmp(c->gkey, key, gl) == 0)) {
        /* the grandparent: as a key whose last segment is the parent's name */
        char *gk = strndup(key, len);
        const char *leaf;
        int g = gk ? nczm_file_open_parent(fm, gk, mkdirs, &leaf) : -1;
        if (g < 0) {
            free(gk);
            return -1;
        }
        nczm_file_put_dir(fm, c->gfd);
        free(c->gkey);
        c->gkey = gk;
        c->glen = gl;
        c->gfd = g;
    }
    memcpy(seg, name, nl);
    seg[nl] = '\0';
    /* a new object's directory is usually missing: made first, then opened */
    if (mkdirs && mkdirat(c->gfd, seg, 0777) != 0 && errno != EEXIST)
        return -1;
    return openat(c->gfd, seg, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
}

/* The open parent directory of key (-1 with errno set), *leaf its last segment. */
static int cached_parent(const file_map *fm, dir_cache *c, const char *key, int mkdirs, const char **leaf)
{
    size_t pl = parent_len(key);
    if (c->dfd >= 0 && c->plen == pl && strncmp(c->key, key, pl) == 0) {
        *leaf = pl ? key + pl + 1 : key;
        return c->dfd;
    }
    nczm_file_put_dir(fm, c->dfd);
    c->dfd = pl ? open_via_grandparent(fm, c, key, pl, mkdirs) : -1;
    if (c->dfd >= 0)
        *leaf = key + pl + 1;
    else
        c->dfd = nczm_file_open_parent(fm, key, mkdirs, leaf);
    c->key = key;
    c->plen = pl;
    return c->dfd;
}

static void cache_drop(const file_map *fm, dir_cache *c)
{
    nczm_file_put_dir(fm, c->dfd);
    c->dfd = -1;
    nczm_file_put_dir(fm, c->gfd);
    c->gfd = -1;
    free(c->gkey);
    c->gkey = NULL;
}

/* Pass one of a commit over reqs[lo, hi): each object to a temporary beside its key (on disk
 * at once when sync). */
static void commit_write(nczm_map *map, nczm_put *reqs, size_t lo, size_t hi, int sync, char **tmps,
                         nczm_first_err *fe)
{
    const file_map *fm = FM(map);
    dir_cache dc = DIR_CACHE_INIT;
    for (size_t i = lo; i < hi; i++) {
        if (reqs[i].status != NCZM_OK)
            continue;
        const char *leaf;
        int dfd = cached_parent(fm, &dc, reqs[i].key, 1, &leaf);
        struct iovec v = {(void *)(uintptr_t)reqs[i].buf, reqs[i].len};
        int e = dfd < 0 ? errno : write_tmp_at(dfd, &v, 1, reqs[i].len, sync, &tmps[i]);
        if (e) {
            /* the slow path, with its retries and messages */
            cache_drop(fm, &dc);
            int dfd2;
            reqs[i].status = write_tmp(map, reqs[i].key, &v, 1, reqs[i].len, sync, &dfd2, &tmps[i], &leaf);
            nczm_file_put_dir(fm, dfd2);
        }
        nczm_first_err_note(fe, map, reqs[i].status != NCZM_OK);
    }
    cache_drop(fm, &dc);
}

/* Pass two over reqs[lo, hi): each temporary renamed into place when it and the sync before
 * succeeded (sync_st), else removed; with seen (a few objects) each directory renamed into
 * is synced. */
static void commit_rename(nczm_map *map, nczm_put *reqs, size_t lo, size_t hi, nczm_status sync_st,
                          char **tmps, dev_t *sdev, ino_t *sino, size_t *nseen, nczm_first_err *fe)
{
    const file_map *fm = FM(map);
    dir_cache dc = DIR_CACHE_INIT;
    for (size_t i = lo; i < hi; i++) {
        if (!tmps[i])
            continue;
        const char *leaf;
        int dfd = cached_parent(fm, &dc, reqs[i].key, 0, &leaf);
        if (dfd < 0)
            reqs[i].status = nczm_file_key_err(map, "write", reqs[i].key, errno);
        else if (reqs[i].status == NCZM_OK && sync_st == NCZM_OK) {
            reqs[i].status = rename_tmp(map, reqs[i].key, dfd, tmps[i], leaf);
            if (reqs[i].status == NCZM_OK && sdev && sync_dir_once(dfd, sdev, sino, nseen) != 0)
                reqs[i].status = nczm_file_key_err(map, "write", reqs[i].key, errno);
        } else {
            /* not on disk: the old object stays */
            unlinkat(dfd, tmps[i], 0);
            if (reqs[i].status == NCZM_OK)
                reqs[i].status = sync_st;
        }
        if (dfd < 0)
            cache_drop(fm, &dc);
        free(tmps[i]);
        tmps[i] = NULL;
        nczm_first_err_note(fe, map, reqs[i].status != NCZM_OK);
    }
    cache_drop(fm, &dc);
}

/* Many objects are committed in blocks of this many consecutive keys on the worker pool:
 * keys of one block share their directories (an object's .zarray and .zattrs), and each
 * block keeps its first failure, so the first in key order is the one reported. */
#define COMMIT_BLOCK 256

typedef struct commit_par {
    nczm_map *map;
    nczm_put *reqs;
    size_t n;
    char **tmps;
    int pass; /* 1: temporaries, 2: renames */
    nczm_status sync_st;
    unsigned char *copies; /* a map copy per slot (the driver's map_size bytes) */
    nczm_first_err *fes;   /* per block */
} commit_par;

static int commit_block(void *arg, size_t blk, unsigned slot)
{
    commit_par *c = arg;
    nczm_map *m = (nczm_map *)(void *)(c->copies + (size_t)slot * c->map->drv->map_size);
    size_t lo = blk * COMMIT_BLOCK, hi = lo + COMMIT_BLOCK < c->n ? lo + COMMIT_BLOCK : c->n;
    if (c->pass == 1)
        commit_write(m, c->reqs, lo, hi, 0, c->tmps, &c->fes[blk]);
    else
        commit_rename(m, c->reqs, lo, hi, c->sync_st, c->tmps, NULL, NULL, NULL, &c->fes[blk]);
    return 0;
}

/* Runs one pass of a commit of many objects on the pool; 0 when it cannot (one block, one
 * thread, or no memory), and the caller then runs it itself. */
static int commit_par_pass(commit_par *c, int pass)
{
    size_t nblk = (c->n + COMMIT_BLOCK - 1) / COMMIT_BLOCK;
    unsigned ns = nczc_workers_slots(c->map->workers);
    if (nblk < 2 || ns < 2)
        return 0;
    if (!c->copies || !c->fes) { /* the first pass on the pool; the second reuses them */
        free(c->copies);
        free(c->fes);
        c->copies = malloc((size_t)ns * c->map->drv->map_size);
        c->fes = malloc(nblk * sizeof *c->fes);
        if (!c->copies || !c->fes) {
            free(c->copies);
            free(c->fes);
            c->copies = NULL;
            c->fes = NULL;
            return 0;
        }
        for (unsigned s = 0; s < ns; s++)
            memcpy(c->copies + (size_t)s * c->map->drv->map_size, c->map, c->map->drv->map_size);
    }
    for (size_t b = 0; b < nblk; b++)
        c->fes[b].have = 0;
    c->pass = pass;
    nczc_parallel_for(nblk, ns, commit_block, c);
    return 1;
}

/* The first failure of a pass run on the pool, in key order. */
static void commit_par_errs(const commit_par *c, nczm_first_err *fe)
{
    size_t nblk = (c->n + COMMIT_BLOCK - 1) / COMMIT_BLOCK;
    for (size_t b = 0; b < nblk && !fe->have; b++)
        if (c->fes[b].have)
            *fe = c->fes[b];
}

/* Metadata objects, durably: every object goes to a temporary beside its key and reaches
 * the disk, then each is renamed into place and the renames reach the disk (per object and
 * directory for a few objects, by two syncfs for many: NCZM_SYNC_EACH_MAX; many objects
 * on the worker pool). A crash at any point leaves every object old or new, and whole. */
nczm_status nczm_file_commit_many(nczm_map *map, size_t n, nczm_put *reqs)
{
    nczm_first_err fe = {.have = 0};
    int each = n <= NCZM_SYNC_EACH_MAX;
    dev_t sdev[NCZM_SYNC_EACH_MAX];
    ino_t sino[NCZM_SYNC_EACH_MAX];
    size_t nseen = 0;
    char **tmps = calloc(n, sizeof *tmps);
    if (!tmps)
        return nczm_seterr(map, NCZM_NOMEM, "%s: out of memory writing metadata", map->location);
    commit_par par = {.map = map, .reqs = reqs, .n = n, .tmps = tmps};
    if (each || !commit_par_pass(&par, 1))
        commit_write(map, reqs, 0, n, each, tmps, &fe);
    else
        commit_par_errs(&par, &fe);
    nczm_status sync_st = each ? NCZM_OK : sync_store(map);
    nczm_first_err_note(&fe, map, sync_st != NCZM_OK);
    par.sync_st = sync_st;
    if (each || !commit_par_pass(&par, 2))
        commit_rename(map, reqs, 0, n, sync_st, tmps, each ? sdev : NULL, sino, &nseen, &fe);
    else
        commit_par_errs(&par, &fe);
    free(par.copies);
    free(par.fes);
    free(tmps);
    if (sync_st == NCZM_OK && !each)
        sync_st = sync_store(map);
    nczm_first_err_note(&fe, map, sync_st != NCZM_OK);
    nczm_first_err_restore(&fe, map);
    return sync_st;
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
