/* A commit's new subtrees (nczm_filecommit.c). When pass one of a commit of many objects
 * finds the directory of a key missing, the topmost missing directory above it (a new
 * group with all its arrays, say) is made under a temporary name beside where it belongs,
 * every object below it is written there under its own name, and pass two renames that
 * one directory into place: one rename instead of one per object, and still nothing of
 * it is seen before pass two, or after a crash before it (the temporary's name is hidden
 * from listings, as the temporaries of single objects are). The objects directly in the
 * top directory (a new group's own .zgroup and .zattrs) are temporaries there, renamed
 * with the objects outside after the directory is in place: until then no Zarr reader
 * takes the temporary directory for a group or an array, should a crash leave it behind.
 * A directory that appears in the meantime has the subtree moved into it entry by entry
 * instead. */
#include "nczm_file_internal.h"

#include <pthread.h>
#include <stdatomic.h>

/* Subtrees one commit keeps at most; a commit that finds more missing directories (many
 * new arrays in a group already on disk, each its own subtree) makes the rest in place,
 * as before: a new subtree saves a rename per object only when it holds many. */
#define NCZM_SUB_MAX 16

typedef struct sub_entry {
    char *key; /* the directory's key ("g", "a/b") */
    size_t klen;
    char *tmp; /* its temporary's key, beside it ("a/.nczm-tmp.d...") */
    size_t tlen;
    size_t leaf; /* where the last segment of key and of tmp starts (the same offset) */
} sub_entry;

struct nczm_subtrees {
    pthread_mutex_t mu; /* held while an entry is added */
    atomic_size_t n;    /* entries published: each is written before n counts it */
    sub_entry e[NCZM_SUB_MAX];
};

nczm_subtrees *nczm_sub_new(void)
{
    nczm_subtrees *s = calloc(1, sizeof *s);
    if (s && pthread_mutex_init(&s->mu, NULL) != 0) {
        free(s);
        return NULL;
    }
    if (s)
        atomic_init(&s->n, 0);
    return s;
}

void nczm_sub_free(nczm_subtrees *s)
{
    if (!s)
        return;
    size_t n = atomic_load(&s->n);
    for (size_t i = 0; i < n; i++) {
        free(s->e[i].key);
        free(s->e[i].tmp);
    }
    pthread_mutex_destroy(&s->mu);
    free(s);
}

/* The entry whose directory holds the first plen bytes of key (a directory key), or NULL. */
static const sub_entry *covering(nczm_subtrees *s, const char *key, size_t plen)
{
    size_t n = atomic_load_explicit(&s->n, memory_order_acquire);
    for (size_t i = 0; i < n; i++) {
        const sub_entry *e = &s->e[i];
        if (plen >= e->klen && memcmp(key, e->key, e->klen) == 0 && (plen == e->klen || key[e->klen] == '/'))
            return e;
    }
    return NULL;
}

int nczm_sub_redirect(nczm_subtrees *s, const char *key, size_t plen, char *out, size_t cap)
{
    const sub_entry *e = plen ? covering(s, key, plen) : NULL;
    if (!e)
        return 0;
    size_t rest = strlen(key + e->klen);
    if (e->tlen + rest + 1 > cap)
        return 0; /* written in place then, and merged at the end */
    memcpy(out, e->tmp, e->tlen);
    memcpy(out + e->tlen, key + e->klen, rest + 1);
    return plen == e->klen ? 2 : 1;
}

/* The length of the shortest missing directory prefix of key's first plen bytes, or 0 when
 * none is missing or one is not a directory (the caller's own path then says what). */
static size_t first_missing(const file_map *fm, const char *key, size_t plen)
{
    char path[PATH_MAX];
    if (plen >= sizeof path)
        return 0;
    for (size_t l = 1; l <= plen; l++) {
        if (l < plen && key[l] != '/')
            continue;
        struct stat sb;
        memcpy(path, key, l);
        path[l] = '\0';
        if (nczm_file_stat_key(fm, path, &sb) != 0)
            return errno == ENOENT ? l : 0;
        if (!S_ISDIR(sb.st_mode))
            return 0;
    }
    return 0;
}

/* Makes the new subtree's temporary directory for the key's first l bytes: 0 or errno. */
static int make_tmp_dir(const file_map *fm, const char *key, size_t l, sub_entry *e)
{
    static atomic_ulong counter;
    const char *slash = memrchr(key, '/', l);
    size_t pl = slash ? (size_t)(slash - key) : 0, off = slash ? pl + 1 : 0;
    char *k = strndup(key, l), *t = malloc(off + sizeof(NCZM_TMP_PREFIX) + 48);
    const char *leaf;
    int dfd = -1, err = ENOMEM;
    if (!k || !t)
        goto fail;
    /* T's parent exists: first_missing found T the first missing one */
    dfd = nczm_file_open_parent(fm, k, 0, &leaf);
    if (dfd < 0) {
        err = errno;
        goto fail;
    }
    memcpy(t, key, off);
    long me = (long)getpid();
    for (int tries = 0; tries < 100; tries++) {
        snprintf(t + off, sizeof(NCZM_TMP_PREFIX) + 48, "%s.%ld.d%lu", NCZM_TMP_PREFIX, me,
                 atomic_fetch_add(&counter, 1));
        if (mkdirat(dfd, t + off, 0777) == 0) {
            nczm_file_put_dir(fm, dfd);
            *e = (sub_entry){k, l, t, strlen(t), off};
            return 0;
        }
        if ((err = errno) != EEXIST)
            break;
    }
fail:
    nczm_file_put_dir(fm, dfd);
    free(k);
    free(t);
    return err;
}

int nczm_sub_add(const file_map *fm, nczm_subtrees *s, const char *key, size_t plen)
{
    if (!plen || atomic_load_explicit(&s->n, memory_order_acquire) >= NCZM_SUB_MAX)
        return 0;
    pthread_mutex_lock(&s->mu);
    int r = covering(s, key, plen) != NULL; /* another thread was first */
    size_t n = atomic_load_explicit(&s->n, memory_order_relaxed);
    if (!r && n < NCZM_SUB_MAX) {
        size_t l = first_missing(fm, key, plen);
        if (l && make_tmp_dir(fm, key, l, &s->e[n]) == 0) {
            atomic_store_explicit(&s->n, n + 1, memory_order_release);
            r = 1;
        }
    }
    pthread_mutex_unlock(&s->mu);
    return r;
}

/* Moves every entry of the directory from into the directory to, merging directories
 * that are in both, then leaves from empty: 0 or errno. Works on descriptors and follows
 * no link. Closes both. */
static int merge_dir(int from, int to)
{
    DIR *d = fdopendir(from);
    if (!d) {
        int e = errno;
        close(from);
        close(to);
        return e;
    }
    int err = 0;
    struct dirent *de;
    while (!err && (errno = 0, de = readdir(d)) != NULL) {
        const char *name = de->d_name;
        if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0 || renameat(dirfd(d), name, to, name) == 0)
            continue;
        err = errno;
        if (err != ENOTEMPTY && err != EEXIST && err != EISDIR)
            break;
        /* a directory in both: its entries one by one */
        int f = openat(dirfd(d), name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        int t = f >= 0 ? openat(to, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) : -1;
        if (f < 0 || t < 0) {
            err = errno;
            if (f >= 0)
                close(f);
            break;
        }
        err = merge_dir(f, t);
        if (!err && unlinkat(dirfd(d), name, AT_REMOVEDIR) != 0)
            err = errno;
    }
    if (!err && errno)
        err = errno;
    closedir(d);
    close(to);
    return err;
}

/* Puts entry e in place (commit) or removes it: 0 or errno. */
static int finish_one(const file_map *fm, const sub_entry *e, int commit)
{
    const char *leaf;
    int dfd = nczm_file_open_parent(fm, e->key, 0, &leaf), err = 0;
    if (dfd < 0)
        return errno;
    if (commit && renameat(dfd, e->tmp + e->leaf, dfd, leaf) == 0) {
        nczm_file_put_dir(fm, dfd);
        return 0;
    }
    err = commit ? errno : 0;
    if (commit && (err == ENOTEMPTY || err == EEXIST)) {
        /* the directory appeared since pass one */
        int f = openat(dfd, e->tmp + e->leaf, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        int t = f >= 0 ? openat(dfd, leaf, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) : -1;
        err = f < 0 || t < 0 ? errno : merge_dir(f, t);
        if (f >= 0 && t < 0)
            close(f);
    }
    /* what is left of the temporary goes */
    int f = openat(dfd, e->tmp + e->leaf, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (f >= 0 && nczm_file_empty_dir_fd(f) == 0)
        unlinkat(dfd, e->tmp + e->leaf, AT_REMOVEDIR);
    nczm_file_put_dir(fm, dfd);
    return err;
}

void nczm_sub_finish(nczm_map *map, nczm_subtrees *s, int commit, nczm_status sync_st, nczm_put *reqs,
                     size_t n, nczm_first_err *fe)
{
    size_t ns = s ? atomic_load(&s->n) : 0;
    for (size_t i = 0; i < ns; i++) {
        const sub_entry *e = &s->e[i];
        int err = finish_one(FM(map), e, commit && sync_st == NCZM_OK);
        if (!commit || (!err && sync_st == NCZM_OK))
            continue;
        /* none of the objects below it is in place: each one says so */
        for (size_t r = 0; r < n; r++) {
            const char *k = reqs[r].key;
            if (reqs[r].status != NCZM_OK || strncmp(k, e->key, e->klen) != 0 || k[e->klen] != '/')
                continue;
            reqs[r].status = err ? nczm_file_key_err(map, "write", k, err) : sync_st;
            nczm_first_err_note(fe, map, 1);
        }
    }
}
