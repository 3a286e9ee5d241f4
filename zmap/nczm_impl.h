/* zmap internals: what a store kind implements, and the helpers the store kinds share.
 * Not installed; only the zmap sources include it.
 *
 * The dispatcher (nczm.c) owns argument checking so that each store can trust its input:
 * keys are validated, NULL pointers rejected, and writes to a read-only map refused before
 * a driver is called. A driver therefore only does the store-specific work and reports
 * failures through nczm_seterr(), which names the store and the key.
 */
#ifndef NCZM_IMPL_H
#define NCZM_IMPL_H

#include "nczm.h"

#include <string.h>

#include <stdarg.h>

#if defined(__GNUC__) || defined(__clang__)
#define NCZM_PRINTF(fmt, args) __attribute__((format(printf, fmt, args)))
#else
#define NCZM_PRINTF(fmt, args)
#endif

/* Prefix of the temporary names the directory store writes before renaming into place;
 * search() hides them so a crashed writer's debris never shows up as a child. */
#define NCZM_TMP_PREFIX ".nczm-tmp"

/* One store kind. open/destroy/probe work on a parsed URL (S3 needs more than a path:
 * endpoint, bucket, profile from the fragment). Every other entry gets an open map.
 *
 * Memory contract: open allocates the kind's own struct (with struct nczm_map as its first
 * member) and initialises the base with nczm_map_init(). close releases only what the kind
 * added; the dispatcher then frees the base fields and the block itself. This keeps the
 * one-owner rule simple: whatever nczm_map_init allocated, nczm_close frees.
 *
 * get_many/put_many may be NULL, in which case the dispatcher loops over read_all/write.
 * A store with real concurrency (S3 via libcurl multi) implements them natively. Contract
 * for both: on entry every request has status NCZM_OK (to be done) or an error already set
 * by the dispatcher (bad key, ...) which the driver must leave alone; the driver sets the
 * status of each request it handles, and for gets fills buf/len (NUL-terminated, owned by
 * the caller) only on success. The driver's return value is for failures of the batch as a
 * whole (out of memory before any request ran, connection pool dead); per-request failures
 * go in the statuses. The driver should leave the message of the first failed request (in
 * array order, NOTFOUND of gets excluded) in the map's errmsg.
 *
 * get_into_many (optional, same contract; buffers are the caller's): without it the
 * dispatcher loops over len + read, two lookups per object; a store that can size and
 * read an object in one go (one open+fstat+pread, one ranged GET) implements it. */
typedef struct nczm_driver {
    nczm_kind kind;
    const char *name; /* "file", "zip", ... for messages */
    size_t key_max;   /* longest key the store can hold (S3: 1024; a file path: about 4 KiB) */

    /* How a store name picks the driver (nczm_url.c, over the table of nczm_drivers.c): the
     * word that names it in a URL's mode list ("#mode=nczarr,zip"); the URL schemes it takes
     * on its own (NULL-terminated, or NULL), and those it takes only when the mode names it
     * (http(s) is S3 only when asked for). A driver with paths set takes plain paths and
     * file:// URLs; claims_path (optional) says whether it takes such a path when no mode
     * names a driver (zip: a name ending in ".zip"); the path driver without claims_path is
     * the default. */
    const char *mode;
    const char *const *schemes;
    const char *const *mode_schemes;
    int paths;
    int (*claims_path)(const char *path);
    /* Nonzero when only one process may write a store (a zip archive is rewritten whole at
     * close). */
    int single_writer;
    /* The driver's own options (optional, all four or none): opt_names lists the names
     * opt_set takes (NULL-terminated). opt_set sets one on *opts, allocating it on first
     * use (a value NULL or "" unsets a string option); opt_fragment reads those a URL's
     * fragment may carry (name is the store name for messages); opt_free frees *opts. */
    const char *const *opt_names;
    const char *const *opt_secrets; /* those of opt_names that carry a secret (NULL: none) */
    nczm_status (*opt_set)(void **opts, const char *name, const char *value, char errmsg[NCZM_ERRLEN]);
    nczm_status (*opt_fragment)(void **opts, const char *fragment, const char *name,
                                char errmsg[NCZM_ERRLEN]);
    void (*opt_free)(void *opts);

    nczm_status (*open)(const nczm_url *url, unsigned flags, nczm_map **out, char errmsg[NCZM_ERRLEN]);
    nczm_status (*destroy)(const nczm_url *url, char errmsg[NCZM_ERRLEN]);
    int (*probe)(const nczm_url *url);

    nczm_status (*close)(nczm_map *map);
    nczm_status (*exists)(nczm_map *map, const char *key);
    nczm_status (*len)(nczm_map *map, const char *key, uint64_t *len);
    nczm_status (*read)(nczm_map *map, const char *key, uint64_t start, uint64_t count, void *buf);
    nczm_status (*read_all)(nczm_map *map, const char *key, void **buf, size_t *len);
    nczm_status (*write)(nczm_map *map, const char *key, const void *buf, size_t len);
    nczm_status (*delete_obj)(nczm_map *map, const char *key);
    /* prefix is a valid non-empty key: delete the object at prefix and everything below. */
    nczm_status (*delete_tree)(nczm_map *map, const char *prefix);
    /* prefix is "" or a valid key; out arrives zeroed. Sorting is the driver's job
     * (nczm_list_finish does it). */
    nczm_status (*search)(nczm_map *map, const char *prefix, nczm_list *out);

    /* Optional (without it the dispatcher loops over search): same contract as get_many;
     * a request the driver handles gets its status and, on success, its list. */
    nczm_status (*search_many)(nczm_map *map, size_t n, nczm_search_req *reqs);
    nczm_status (*get_many)(nczm_map *map, size_t n, nczm_get *reqs); /* optional */
    nczm_status (*put_many)(nczm_map *map, size_t n, nczm_put *reqs); /* optional */
    /* Metadata writes (nczm_commit_many): same contract as put_many, plus durability where
     * the store can give it. NULL: put_many's path (a zip archive is rewritten whole and
     * renamed into place at close anyway). */
    nczm_status (*commit_many)(nczm_map *map, size_t n, nczm_put *reqs); /* optional */
    /* Optional, all three or none (nczm_commit_begin...end; without them the dispatcher
     * calls commit_many at the end): begin returns the driver's state (NULL: commit_many
     * at the end after all); ready gets requests [0, n) checked and final; end commits
     * [0, n) (or, commit 0, removes what it wrote) and frees the state. */
    void *(*commit_begin)(nczm_map *map, nczm_put *reqs, size_t cap);
    /* Optional, all four or none (nczm_obj_begin...): an object built in pieces; key is
     * checked and the map writable. pwritev runs on any thread and sets no message. */
    nczm_status (*obj_begin)(nczm_map *map, const char *key, void **st);
    int (*obj_pwritev)(void *st, const struct iovec *iov, int iovcnt, size_t len, uint64_t off);
    nczm_status (*obj_commit)(void *st);
    void (*obj_abort)(void *st);
    void (*commit_ready)(void *st, size_t n);
    nczm_status (*commit_end)(void *st, size_t n, int commit);
    nczm_status (*get_into_many)(nczm_map *map, size_t n, nczm_getinto *reqs); /* optional */
    /* Optional: one request of get_into_many (size and read in one lookup), for the
     * dispatcher's loop. */
    nczm_status (*get_into)(nczm_map *map, nczm_getinto *req);
    /* Optional: one request of nczm_read_ranges (size and read in one lookup); without it
     * the dispatcher asks len, then read. */
    nczm_status (*read_range)(nczm_map *map, nczm_range *req);
    int ranges_cheap; /* nczm_map_ranges_cheap */
    /* Nonzero when read_all, write and get_into may run concurrently on byte copies of an
     * open map (map_size bytes each, every copy with its own errmsg), changing nothing
     * else in it: the dispatcher then runs the batches of a store without native ones on
     * the worker pool (nczc_workers.h), as many requests at once as the map's workers. */
    int concurrent;
    size_t map_size;
    /* Optional: write taking a gather list (iovcnt >= 1, len bytes in all). With it, and
     * when get_into and read_range honour a request's iov, the driver sets vectored: requests with a list
     * then reach it as they are; for other drivers the dispatcher gathers and scatters
     * through a buffer of its own. */
    nczm_status (*writev)(nczm_map *map, const char *key, const struct iovec *iov, int iovcnt, size_t len);
    int vectored;
    /* Optional, both: the prefixes are valid non-empty keys, the second neither equal to nor
     * below the first, the map writable. Statuses as documented for nczm_rename_tree. A
     * driver that cannot do a particular call its own way (a directory store spanning
     * file systems) returns NCZM_UNSUPPORTED having changed nothing; the dispatcher then
     * copies object by object through read_all/write, as it does when the entry is NULL. */
    nczm_status (*rename_tree)(nczm_map *map, const char *old_prefix, const char *new_prefix);
    nczm_status (*copy_tree)(nczm_map *map, const char *src_prefix, const char *dst_prefix);
} nczm_driver;

struct nczm_map {
    const nczm_driver *drv;
    nczm_kind kind;
    char *location; /* malloc'ed; the filesystem path or the URL */
    unsigned flags; /* as passed to nczm_open */
    int readonly;
    unsigned workers;  /* threads a batch may use (nczm_map_set_workers); 0 = default */
    size_t key_max;    /* this map's key limit when smaller than the driver's (S3: the root
                          prefix counts against S3's 1024 bytes); 0 = drv->key_max */
    uint64_t requests; /* network requests sent (nczm_map_requests) */
    char errmsg[NCZM_ERRLEN];
};

/* A store is created only inside an existing directory (never mkdir -p of its parents):
 * NCZM_NOTFOUND/NCZM_PERM with errmsg naming the parent otherwise. */
nczm_status nczm_check_parent(const char *path, char errmsg[NCZM_ERRLEN]);

/* A batch runs every request even after one fails, and each failure overwrites the map's
 * message: batches keep the first failure's message and put it back at the end. */
typedef struct nczm_first_err {
    char msg[NCZM_ERRLEN];
    int have;
} nczm_first_err;

static inline void nczm_first_err_note(nczm_first_err *fe, const nczm_map *map, int failed)
{
    if (failed && !fe->have) {
        memcpy(fe->msg, map->errmsg, sizeof fe->msg);
        fe->have = 1;
    }
}

static inline void nczm_first_err_restore(const nczm_first_err *fe, nczm_map *map)
{
    if (fe->have)
        memcpy(map->errmsg, fe->msg, sizeof fe->msg);
}

/* The store kinds, in the order a name is matched against them (nczm_drivers.c), ending
 * with NULL. */
extern const nczm_driver *const nczm_drivers[];
/* Is name in the NULL-terminated list names (which may be NULL)? */
int nczm_name_listed(const char *const *names, const char *name);

/* Fills the base of a freshly calloc'ed map. NCZM_NOMEM (with errmsg set) on failure. */
nczm_status nczm_map_init(nczm_map *map, const nczm_driver *drv, const char *location, unsigned flags,
                          char errmsg[NCZM_ERRLEN]);

/* Formats the map's last-error message and returns st, so a driver can write
 * `return nczm_seterr(map, NCZM_IO, "%s: read \"%s\": %s", ...)`. */
nczm_status nczm_seterr(nczm_map *map, nczm_status st, const char *fmt, ...) NCZM_PRINTF(3, 4);
/* Same for the errmsg buffer of open/destroy (which may be NULL: then nothing is written). */
nczm_status nczm_fmterr(char errmsg[NCZM_ERRLEN], nczm_status st, const char *fmt, ...) NCZM_PRINTF(3, 4);
/* The NCZM_LONG of nczm_get_into_many, with its message. */
nczm_status nczm_long_err(nczm_map *map, const char *key, uint64_t len, size_t cap);

/* errno -> status: ENOENT/ENOTDIR -> NOTFOUND, EACCES/EPERM/EROFS -> PERM, ENOMEM -> NOMEM,
 * anything else -> IO. */
nczm_status nczm_errno_status(int err);

/* Why a key is invalid, or NULL if it is valid. */
const char *nczm_key_problem(const char *key);
/* Is name usable as one segment of a key (what search() may list)? */
int nczm_segment_ok(const char *name, size_t len);
/* Writes key into dst as printable text (control bytes escaped, long keys cut with "...")
 * for error messages about keys that failed validation. */
void nczm_key_quote(char *dst, size_t dstlen, const char *key);

/* Growing a search result: append a copy of name[0..len); then sort by strcmp and drop
 * duplicates. cap is the caller's capacity counter, starting at 0 with a zeroed list. */
nczm_status nczm_list_append(nczm_list *list, size_t *cap, const char *name, size_t len);
void nczm_list_finish(nczm_list *list);

/* A fresh string of s[0..n) with its %XX escapes decoded: NCZM_OK with *out malloc'ed,
 * NCZM_INVAL on a bad escape or %00 (a NUL would silently cut the name), NCZM_NOMEM;
 * *out NULL on failure. */
nczm_status nczm_decode_range(const char *s, size_t n, char **out);
/* Frees a malloc'ed string that may hold a secret: its bytes are overwritten first, so that
 * a later allocation or a core dump does not show it. NULL is fine. */
void nczm_free_secret(char *s);

/* "dir/name" in a fresh malloc'ed string; NULL on out-of-memory. */
char *nczm_join(const char *dir, const char *name);
/* The directory part of a path ("." for a bare name), malloc'ed; NULL on out-of-memory. */
char *nczm_parent_of(const char *path);
/* Creates a new file NCZM_TMP_PREFIX... in dir, mode 0666 & ~umask; returns the fd and the
 * malloc'ed path in *tmppath, or -1 with errno set. */
int nczm_open_tmp(const char *dir, char **tmppath);
/* The same relative to the directory open as dirfd (dir NULL: in that directory itself);
 * *tmppath is then relative to dirfd too. */
int nczm_open_tmp_at(int dirfd, const char *dir, char **tmppath);
/* Can files be created in dir? NCZM_PERM (message naming store) if not. */
nczm_status nczm_check_dir_writable(const char *dir, const char *store, char errmsg[NCZM_ERRLEN]);

/* A NULL map is an argument error in every call. */
#define NCZM_CHECK_MAP(map)                                                                                  \
    do {                                                                                                     \
        if (!(map))                                                                                          \
            return NCZM_INVAL;                                                                               \
    } while (0)

/* Argument checks of the dispatcher (nczm.c), shared with the batch and tree calls: a
 * valid key for this map (op names the call in the message), and a map open for writing. */
nczm_status nczm_check_key(nczm_map *map, const char *op, const char *key);
/* Where range r starts in its object of r->objlen bytes; NCZM_SHORT (message set) when the
 * object ends before the range does. */
nczm_status nczm_range_place(nczm_map *map, const nczm_range *r, uint64_t *start);
nczm_status nczm_check_writable(nczm_map *map, const char *op, const char *key);

#endif
