/* The directory store's commits of many metadata objects (nczm_commit_many and the
 * streamed nczm_commit_begin...end): temporaries first, on the worker pool, then one sync,
 * the renames, one more sync. Objects below a directory that is missing go to a new
 * subtree under their own names instead, put in place by one rename (nczm_filesub.c).
 * Single objects: nczm_filewrite.c. */
#include "nczm_file_internal.h"
#include "nczc_workers.h"

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

/* The open directory above the one the first len bytes of key name (made where missing
 * with mkdirs), kept in c for the next sibling; -1 when it cannot be opened. *name and
 * *nl get the last segment of those len bytes. */
static int cached_grandparent(const file_map *fm, dir_cache *c, const char *key, size_t len, int mkdirs,
                              const char **name, size_t *nl)
{
    const char *slash = memrchr(key, '/', len);
    size_t gl = slash ? (size_t)(slash - key) : 0;
    *name = slash ? slash + 1 : key;
    *nl = len - (size_t)(*name - key);
    if (*nl == 0 || *nl >= NAME_MAX)
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
    return c->gfd;
}

/* The directory the first len bytes of key name, opened (made where missing with mkdirs)
 * below the grandparent c caches, or -1 when that cache does not serve this key: the
 * caller then walks from the root, which also tells every failure precisely. */
static int open_via_grandparent(const file_map *fm, dir_cache *c, const char *key, size_t len, int mkdirs)
{
    const char *name;
    size_t nl;
    char seg[NAME_MAX + 1];
    if (cached_grandparent(fm, c, key, len, mkdirs, &name, &nl) < 0)
        return -1;
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

/* The open directory of key for pass one (-1 with errno set), *leaf its last segment.
 * With sub, a key whose directory is missing is written in a new subtree: *wkey is then
 * the key as written there, in whichever of bufs the cache does not point into (it keeps
 * the key it last opened for), and *in is nczm_sub_redirect's 1 or 2 (else 0). */
static int pass_one_dir(const file_map *fm, dir_cache *dc, nczm_subtrees *sub, const char *key,
                        char (*bufs)[PATH_MAX], const char **wkey, const char **leaf, int *in)
{
    size_t pl = parent_len(key);
    char *buf = bufs[dc->key == bufs[0]];
    *wkey = key;
    *in = 0;
    if (!sub || !pl)
        return cached_parent(fm, dc, key, 1, leaf);
    if (!(*in = nczm_sub_redirect(sub, key, pl, buf, PATH_MAX))) {
        int dfd = cached_parent(fm, dc, key, 0, leaf);
        if (dfd >= 0 || errno != ENOENT)
            return dfd;
        if (!nczm_sub_add(fm, sub, key, pl) || !(*in = nczm_sub_redirect(sub, key, pl, buf, PATH_MAX)))
            return cached_parent(fm, dc, key, 1, leaf);
    }
    *wkey = buf;
    return cached_parent(fm, dc, buf, 1, leaf);
}

/* Pass one of a commit over reqs[lo, hi): each object to a temporary beside its key (on disk
 * at once when sync), or, below a new subtree (sub), under its own name there. */
static void commit_write(nczm_map *map, nczm_put *reqs, size_t lo, size_t hi, int sync, nczm_subtrees *sub,
                         char **tmps, nczm_first_err *fe)
{
    const file_map *fm = FM(map);
    dir_cache dc = DIR_CACHE_INIT;
    char bufs[2][PATH_MAX];
    for (size_t i = lo; i < hi; i++) {
        if (reqs[i].status != NCZM_OK)
            continue;
        const char *leaf, *wkey;
        int in;
        int dfd = pass_one_dir(fm, &dc, sub, reqs[i].key, bufs, &wkey, &leaf, &in);
        struct iovec v = {(void *)(uintptr_t)reqs[i].buf, reqs[i].len};
        if (in) {
            /* in the subtree's top directory a temporary, renamed by its key in pass two
             * once the directory is in place (nczm_filesub.c) */
            int e = dfd < 0   ? errno
                    : in == 2 ? nczm_file_write_tmp_at(dfd, &v, 1, reqs[i].len, 0, &tmps[i])
                              : nczm_file_write_new_at(dfd, leaf, &v, 1, reqs[i].len);
            if (e) {
                cache_drop(fm, &dc);
                reqs[i].status = nczm_file_key_err(map, "write", reqs[i].key, e);
            }
            nczm_first_err_note(fe, map, reqs[i].status != NCZM_OK);
            continue;
        }
        int e = dfd < 0 ? errno : nczm_file_write_tmp_at(dfd, &v, 1, reqs[i].len, sync, &tmps[i]);
        if (e) {
            /* the slow path, with its retries and messages */
            cache_drop(fm, &dc);
            int dfd2;
            reqs[i].status =
                nczm_file_write_tmp(map, reqs[i].key, &v, 1, reqs[i].len, sync, &dfd2, &tmps[i], &leaf);
            nczm_file_put_dir(fm, dfd2);
        }
        nczm_first_err_note(fe, map, reqs[i].status != NCZM_OK);
    }
    cache_drop(fm, &dc);
}

/* Renames the temporary tmp of key into place by its path below the key's grandparent
 * (cached in c): an array's two objects cost two renames, with no open and close of its
 * directory. That directory was made and opened with O_NOFOLLOW in pass one; a link put
 * in its place since would make the temporary's path name nothing there, and the rename
 * fail. 0, or -1 when the caller must rename through the open parent (which also reports
 * every failure precisely). */
static int rename_via_grandparent(const file_map *fm, dir_cache *c, const char *key, const char *tmp)
{
    size_t pl = parent_len(key), nl;
    const char *name, *leaf = key + pl + 1;
    char from[2 * NAME_MAX + 2], to[2 * NAME_MAX + 2];
    if (pl == 0)
        return -1;
    int g = cached_grandparent(fm, c, key, pl, 0, &name, &nl);
    size_t tl = strlen(tmp), ll = strlen(leaf);
    if (g < 0 || tl > NAME_MAX || ll > NAME_MAX)
        return -1;
    /* "<name>/<tmp>" and "<name>/<leaf>" (joined by hand: snprintf was most of this
     * function's own time) */
    memcpy(from, name, nl);
    from[nl] = '/';
    memcpy(to, from, nl + 1);
    memcpy(from + nl + 1, tmp, tl + 1);
    memcpy(to + nl + 1, leaf, ll + 1);
    return renameat(g, from, g, to) == 0 ? 0 : -1;
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
        if (!sdev && reqs[i].status == NCZM_OK && sync_st == NCZM_OK &&
            rename_via_grandparent(fm, &dc, reqs[i].key, tmps[i]) == 0) {
            free(tmps[i]);
            tmps[i] = NULL;
            continue;
        }
        const char *leaf;
        int dfd = cached_parent(fm, &dc, reqs[i].key, 0, &leaf);
        if (dfd < 0)
            reqs[i].status = nczm_file_key_err(map, "write", reqs[i].key, errno);
        else if (reqs[i].status == NCZM_OK && sync_st == NCZM_OK) {
            reqs[i].status = nczm_file_rename_tmp(map, reqs[i].key, dfd, tmps[i], leaf);
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
    atomic_size_t n; /* a streamed commit's: its capacity until it ends */
    char **tmps;
    nczm_subtrees *sub; /* pass one's new subtrees (NULL: none) */
    int pass;           /* 1: temporaries, 2: renames */
    nczm_status sync_st;
    unsigned char *copies; /* a map copy per slot (the driver's map_size bytes) */
    nczm_first_err *fes;   /* per block */
} commit_par;

static size_t nblocks(size_t n)
{
    return (n + COMMIT_BLOCK - 1) / COMMIT_BLOCK;
}

static int commit_block(void *arg, size_t blk, unsigned slot)
{
    commit_par *c = arg;
    nczm_map *m = (nczm_map *)(void *)(c->copies + (size_t)slot * c->map->drv->map_size);
    size_t n = atomic_load(&c->n);
    size_t lo = blk * COMMIT_BLOCK, hi = lo + COMMIT_BLOCK < n ? lo + COMMIT_BLOCK : n;
    if (c->pass == 1)
        commit_write(m, c->reqs, lo, hi, 0, c->sub, c->tmps, &c->fes[blk]);
    else
        commit_rename(m, c->reqs, lo, hi, c->sync_st, c->tmps, NULL, NULL, NULL, &c->fes[blk]);
    return 0;
}

/* A map copy per slot and a first failure per block of nblk, made once: 0 when no memory. */
static int commit_par_alloc(commit_par *c, size_t nblk, unsigned ns)
{
    if (c->copies && c->fes) /* the second pass reuses the first's */
        return 1;
    c->copies = malloc((size_t)ns * c->map->drv->map_size);
    c->fes = calloc(nblk, sizeof *c->fes);
    if (!c->copies || !c->fes) {
        free(c->copies);
        free(c->fes);
        c->copies = NULL;
        c->fes = NULL;
        return 0;
    }
    for (unsigned s = 0; s < ns; s++)
        memcpy(c->copies + (size_t)s * c->map->drv->map_size, c->map, c->map->drv->map_size);
    return 1;
}

/* Runs one pass of a commit of many objects on the pool; 0 when it cannot (one block, one
 * thread, or no memory), and the caller then runs it itself. */
static int commit_par_pass(commit_par *c, int pass)
{
    size_t nblk = nblocks(atomic_load(&c->n));
    unsigned ns = nczc_workers_slots(c->map->workers);
    if (nblk < 2 || ns < 2 || !commit_par_alloc(c, nblk, ns))
        return 0;
    for (size_t b = 0; b < nblk; b++)
        c->fes[b].have = 0;
    c->pass = pass;
    nczc_parallel_for(nblk, ns, commit_block, c);
    return 1;
}

/* The first failure of a pass run on the pool, in key order. */
static void commit_par_errs(const commit_par *c, nczm_first_err *fe)
{
    size_t nblk = nblocks(atomic_load(&c->n));
    for (size_t b = 0; b < nblk && !fe->have; b++)
        if (c->fes[b].have)
            *fe = c->fes[b];
}

/* The rest of a commit of reqs[0, n) whose temporaries are written when written (pass one
 * ran, on the pool, as a stream): pass one, the sync, pass two, the sync; with commit 0
 * only the temporaries are removed. Frees par's and tmps. */
static nczm_status commit_finish(nczm_map *map, size_t n, nczm_put *reqs, commit_par *par, int written,
                                 int commit)
{
    nczm_first_err fe = {.have = 0};
    int each = !written && n <= NCZM_SYNC_EACH_MAX;
    dev_t sdev[NCZM_SYNC_EACH_MAX];
    ino_t sino[NCZM_SYNC_EACH_MAX];
    size_t nseen = 0;
    char **tmps = par->tmps;
    atomic_store(&par->n, n);
    if (!commit && !written) { /* nothing written yet: nothing to take back */
        free(par->copies);
        free(par->fes);
        free(tmps);
        nczm_sub_free(par->sub);
        return NCZM_OK;
    }
    if (written)
        commit_par_errs(par, &fe);
    else if (each || !commit_par_pass(par, 1))
        /* a few objects are synced one by one, each in its own place */
        commit_write(map, reqs, 0, n, each, each ? NULL : par->sub, tmps, &fe);
    else
        commit_par_errs(par, &fe);
    /* taken back: the temporaries go, and nothing is reported */
    nczm_status sync_st = !commit ? NCZM_INVAL : each ? NCZM_OK : sync_store(map);
    if (commit)
        nczm_first_err_note(&fe, map, sync_st != NCZM_OK);
    par->sync_st = sync_st;
    /* new subtrees first: the objects renamed next may name them */
    nczm_sub_finish(map, par->sub, commit, sync_st, reqs, n, &fe);
    if (each || !commit_par_pass(par, 2))
        commit_rename(map, reqs, 0, n, sync_st, tmps, each ? sdev : NULL, sino, &nseen, &fe);
    else if (commit)
        commit_par_errs(par, &fe);
    free(par->copies);
    free(par->fes);
    free(tmps);
    nczm_sub_free(par->sub);
    if (!commit)
        return NCZM_OK;
    if (sync_st == NCZM_OK && !each)
        sync_st = sync_store(map);
    nczm_first_err_note(&fe, map, sync_st != NCZM_OK);
    nczm_first_err_restore(&fe, map);
    return sync_st;
}

/* Metadata objects, durably: every object goes to a temporary beside its key (or, many
 * objects below a missing directory, into a new subtree) and reaches the disk, then each
 * is renamed into place and the renames reach the disk (per object and directory for a
 * few objects, by two syncfs for many: NCZM_SYNC_EACH_MAX; many objects on the worker
 * pool). A crash at any point leaves every object old or new, and whole. */
nczm_status nczm_file_commit_many(nczm_map *map, size_t n, nczm_put *reqs)
{
    commit_par par = {.map = map, .reqs = reqs, .sub = nczm_sub_new()};
    atomic_init(&par.n, n);
    if (!(par.tmps = calloc(n, sizeof *par.tmps))) {
        nczm_sub_free(par.sub);
        return nczm_seterr(map, NCZM_NOMEM, "%s: out of memory writing metadata", map->location);
    }
    return commit_finish(map, n, reqs, &par, 0, 1);
}

/* A commit whose requests arrive as they are made (nczm_commit_begin): once more than
 * NCZM_SYNC_EACH_MAX have (fewer are synced one by one, at the end), pass one runs on the
 * pool as a stream of blocks, each block as soon as it is whole, while the caller builds
 * the next; the end is nczm_file_commit_many's. */
typedef struct file_commit {
    commit_par par;
    size_t cap;
    nczc_stream *s; /* pass one under way; NULL before, or when the pool cannot take it */
    int tried;      /* a stream was asked for */
} file_commit;

void *nczm_file_commit_begin(nczm_map *map, nczm_put *reqs, size_t cap)
{
    file_commit *fc = calloc(1, sizeof *fc);
    if (!fc)
        return NULL;
    fc->par.map = map;
    fc->par.reqs = reqs;
    fc->par.sub = nczm_sub_new();
    atomic_init(&fc->par.n, cap);
    fc->cap = cap;
    if (!(fc->par.tmps = calloc(cap ? cap : 1, sizeof *fc->par.tmps))) {
        nczm_sub_free(fc->par.sub);
        free(fc);
        return NULL;
    }
    return fc;
}

void nczm_file_commit_ready(void *st, size_t n)
{
    file_commit *fc = st;
    if (!fc->s && !fc->tried && n > NCZM_SYNC_EACH_MAX) {
        unsigned ns = nczc_workers_slots(fc->par.map->workers);
        fc->tried = 1;
        fc->par.pass = 1;
        if (ns >= 2 && commit_par_alloc(&fc->par, nblocks(fc->cap), ns))
            fc->s = nczc_stream_start(ns, commit_block, &fc->par);
    }
    if (fc->s)
        nczc_stream_ready(fc->s, n / COMMIT_BLOCK); /* whole blocks only */
}

nczm_status nczm_file_commit_end(void *st, size_t n, int commit)
{
    file_commit *fc = st;
    int written = fc->s != NULL;
    if (fc->s) {
        atomic_store(&fc->par.n, n);
        nczc_stream_finish(fc->s, nblocks(n));
    }
    nczm_status r = commit_finish(fc->par.map, n, fc->par.reqs, &fc->par, written, commit);
    free(fc);
    return r;
}
