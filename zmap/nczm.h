/* zmap: NCZarr's key/object store model.
 *
 * Keys are '/'-separated paths relative to the store root, written without a leading '/'
 * ("sub/temp/.zarray", "temp/0.1"); the empty key "" names the root when searching.
 * Only leaves hold content: an "object" is a key with bytes; a "prefix" is a key that has
 * objects below it. search(prefix) lists the immediate children of a prefix (objects and
 * prefixes alike), like an S3 listing with delimiter '/'.
 *
 * This layer knows nothing of HDF5 or JSON. Errors are nczm_status codes; the text of the
 * last error of a map is in nczm_errmsg(map) and names the failing key and store.
 */
#ifndef NCZM_H
#define NCZM_H

#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum nczm_status {
    NCZM_OK = 0,
    NCZM_NOTFOUND = -1, /* no object (or no store) at that key/location */
    NCZM_EXISTS = -2,   /* create with NCZM_EXCL on an existing store */
    NCZM_BADKEY = -3,   /* key fails validation (.., empty segment, control chars, ...) */
    NCZM_IO = -4,       /* operating-system or network I/O failure */
    NCZM_NOMEM = -5,
    NCZM_PERM = -6,         /* permission denied, or write to a read-only map */
    NCZM_INVAL = -7,        /* bad argument (bad URL, unknown store kind, ...) */
    NCZM_SHORT = -8,        /* a ranged read asks for bytes past the end of the object */
    NCZM_NOTSTORE = -9,     /* the location exists but is not a Zarr store */
    NCZM_UNSUPPORTED = -10, /* operation or store kind not built/supported */
    NCZM_LONG = -11         /* the object is longer than the caller's buffer (nczm_get_into_many) */
} nczm_status;

typedef enum nczm_kind {
    NCZM_KIND_NONE = 0,
    NCZM_KIND_FILE = 1, /* a directory tree */
    NCZM_KIND_ZIP = 2,  /* a zip archive (libzip) */
    NCZM_KIND_S3 = 3    /* objects below a key prefix in an S3 bucket (libcurl) */
} nczm_kind;

/* open/create flags */
#define NCZM_READONLY 0x1u /* open: no writes allowed */
#define NCZM_CREATE   0x2u /* create a new store */
#define NCZM_TRUNC    0x4u /* with CREATE: replace an existing store */
#define NCZM_EXCL     0x8u /* with CREATE: fail with NCZM_EXISTS if something is there */
#define NCZM_ZIP_ROOT                                                                                        \
    0x10u /* zip: put keys at the archive root (zarr-python ZipStore                                         \
            layout) instead of under a folder named after the zip file */

#define NCZM_ERRLEN 512

typedef struct nczm_map nczm_map;

struct nczm_driver;

/* A parsed store name: a plain path or a netCDF-style URL
 * (file:///abs/path#mode=nczarr,file, file:///x.zip#mode=nczarr,zip, s3://bucket/key).
 * The store kind comes from the fragment's mode list (file|zip|s3), else the URL scheme,
 * else the path (".zip" -> zip), else the directory store: each kind says what it takes in
 * the table of drivers (zmap/nczm_drivers.c). location is the filesystem path (directory,
 * zip) or the URL without fragment (S3). mode is the whole comma-separated mode list from
 * the fragment ("" when none), for upper layers to read nczarr/zarr/noxarray from. */
typedef struct nczm_url {
    nczm_kind kind;
    const struct nczm_driver *drv; /* the store kind's driver (opaque above zmap) */
    char *location;                /* malloc'ed */
    char *mode;                    /* malloc'ed, never NULL */
    /* The store kind's own options (S3: endpoint, region, credentials, ...): opaque, owned
     * by the URL, NULL while none is set. The fragment's (S3: aws.profile=, aws.region=) are
     * read by nczm_url_parse; callers set others by name with nczm_url_set before
     * nczm_open/nczm_destroy/nczm_probe; nczm_url_clear frees them. */
    void *opts;

    /* What makes a location a Zarr store, set by the caller after nczm_url_parse (the
     * formats above know the key names, storage does not): keys whose presence at the root
     * marks a store, and keys worth reading first when one is opened, in order (S3 GETs
     * them at open until one exists, and keeps it for the first whole read of that key: a
     * store with consolidated metadata opens with one request). Both NULL-terminated and
     * not owned (static lists of the caller). With marks NULL no location is a store. */
    const char *const *marks;
    const char *const *prefetch;
    /* A label for a new directory store's root, set by the caller (not owned; NULL: none):
     * written as the extended attribute label_name = label_value when the store is created,
     * where the file system takes user attributes (elsewhere the store just has none). */
    const char *label_name;
    const char *label_value;
} nczm_url;

/* The marks of url as text for messages: ".zgroup", ".zarray" or "zarr.json". */
void nczm_marks_text(const nczm_url *url, char *buf, size_t len);

nczm_status nczm_url_parse(const char *name, nczm_url *out, char errmsg[NCZM_ERRLEN]);
void nczm_url_clear(nczm_url *url);
/* Sets one option of the store kind by name, for an info-string parser (S3: endpoint,
 * region, profile, access_key, secret_key, session_token, cainfo (strings; "" unsets),
 * anonymous (0/1, true/false, yes/no), multipart_threshold (bytes), max_keys,
 * connections, retry_seconds: README "S3"). An option of another kind is checked by that
 * kind and then ignored, so that one set of options serves stores of every kind.
 * NCZM_INVAL (naming the option, never echoing a secret) for a name no kind takes or a bad
 * value. */
nczm_status nczm_url_set(nczm_url *url, const char *name, const char *value, char errmsg[NCZM_ERRLEN]);
/* Does some store kind take an option of this name (nczm_url_set)? 0 no, 1 yes,
 * NCZM_OPTION_SECRET when it carries a secret (S3: secret_key, session_token, access_key),
 * which a caller printing its options must not take. */
#define NCZM_OPTION_SECRET 2
int nczm_option_known(const char *name);
/* Checks a value for the option of that name (for a parser that keeps options for later):
 * NCZM_OK, or NCZM_INVAL with errmsg naming the option. */
nczm_status nczm_option_check(const char *name, const char *value, char errmsg[NCZM_ERRLEN]);
/* The store kinds' options without the secret ones, for messages: "S3: endpoint=,
 * region=, ..." (cut to len). */
void nczm_option_names(char *buf, size_t len);
/* Can only one process write a store of this kind at a time (a zip archive is rewritten
 * whole at close)? */
int nczm_url_single_writer(const nczm_url *url);
/* Does a comma-separated mode list contain this word (case-insensitive)? */
int nczm_mode_has(const char *mode, const char *word);

/* Open or create a store. On failure *out is NULL and errmsg says why (naming the path). */
nczm_status nczm_open(const nczm_url *url, unsigned flags, nczm_map **out, char errmsg[NCZM_ERRLEN]);
/* Flushes and frees. For zip this is when the archive is written. */
nczm_status nczm_close(nczm_map *map);
/* nczm_close that also says why it failed (the map, and so nczm_errmsg, is gone after
 * close): errmsg (may be NULL) gets the message, "" on success. */
nczm_status nczm_close_err(nczm_map *map, char errmsg[NCZM_ERRLEN]);
/* Remove a whole store (H5Fdelete). NCZM_NOTSTORE if the location is not a Zarr store:
 * never removes a directory without one of url->marks at its root. */
nczm_status nczm_destroy(const nczm_url *url, char errmsg[NCZM_ERRLEN]);
/* Is this location an existing Zarr store (its root holds one of url->marks, or for zip the
 * archive holds one at its root or under its folder)? Quiet: 1 yes, 0 no. */
int nczm_probe(const nczm_url *url);

/* Validates a key: non-empty, no leading or trailing '/', no empty segment, no "." or ".."
 * segment, no control characters or backslash. The length limit depends on the store
 * (nczm_key_max). */
nczm_status nczm_key_validate(const char *key);
/* The key of `name` below `prefix` ("" = the root: name itself), malloc'ed; NULL when out
 * of memory. The one place keys are joined. */
char *nczm_key_join(const char *prefix, const char *name);

/* Object operations. Keys as above. */
nczm_status nczm_exists(nczm_map *map, const char *key); /* NCZM_OK or NCZM_NOTFOUND */
nczm_status nczm_len(nczm_map *map, const char *key, uint64_t *len);
/* Reads exactly count bytes at start; NCZM_SHORT if the object is shorter. */
nczm_status nczm_read(nczm_map *map, const char *key, uint64_t start, uint64_t count, void *buf);
/* Reads a whole object into a malloc'ed buffer (*buf owned by the caller; a NUL byte is
 * appended after len bytes, so JSON text can be parsed in place). */
nczm_status nczm_read_all(nczm_map *map, const char *key, void **buf, size_t *len);
/* Writes a whole object atomically (a crash leaves the old object or the new one). */
nczm_status nczm_write(nczm_map *map, const char *key, const void *buf, size_t len);
/* Deletes one object; NCZM_NOTFOUND if absent. */
nczm_status nczm_delete(nczm_map *map, const char *key);
/* Deletes every object at or below prefix ("" is not allowed). OK if nothing was there. */
nczm_status nczm_delete_tree(nczm_map *map, const char *prefix);

/* Moves the object at old_prefix, or every object below it, to the same place under
 * new_prefix ("a/t/0.0" becomes "b/u/0.0" for a rename of "a/t" to "b/u"). Stores that can
 * move a whole subtree in one step (a directory rename, zip entry renames) do so without
 * copying any data; others copy every object, then delete the old ones. Neither prefix may
 * be "", and new_prefix may not be old_prefix or lie below it. The parents of new_prefix
 * are created as needed. NCZM_NOTFOUND if nothing is at or below old_prefix, NCZM_EXISTS if
 * something is at or below new_prefix, NCZM_INVAL if a proper prefix of new_prefix is an
 * object. */
nczm_status nczm_rename_tree(nczm_map *map, const char *old_prefix, const char *new_prefix);
/* Copies the object at src_prefix, or every object below it, to the same place under
 * dst_prefix; the same rules and statuses as nczm_rename_tree, and the source is left as it
 * was. On failure nothing is left at dst_prefix. */
nczm_status nczm_copy_tree(nczm_map *map, const char *src_prefix, const char *dst_prefix);

/* The bytes of every object at or below prefix ("" = the whole store), by listing. */
nczm_status nczm_tree_bytes(nczm_map *map, const char *prefix, uint64_t *sum);
/* Immediate children of prefix ("" = root), sorted by strcmp, each a bare name. */
typedef struct nczm_list {
    size_t count;
    char **names; /* malloc'ed, each malloc'ed */
} nczm_list;
nczm_status nczm_search(nczm_map *map, const char *prefix, nczm_list *out);
void nczm_list_clear(nczm_list *list);
/* Many searches at once (opening a store without .zmetadata lists every group): for each
 * request the result nczm_search would give; a remote store sends the listings together.
 * Each request has its own status and list (the caller clears every list); the call
 * returns the first failure, and the map's message names the failed prefixes. */
typedef struct nczm_search_req {
    const char *prefix; /* in: "" = the root */
    nczm_list list;     /* out */
    nczm_status status;
} nczm_search_req;
nczm_status nczm_search_many(nczm_map *map, size_t n, nczm_search_req *reqs);

/* Batches: many requests at once. The directory store runs them in a loop; a remote store
 * overlaps them. Each request has its own status; the call returns the first failure
 * (NCZM_NOTFOUND of a get is reported per request only, not as the call's result). */
typedef struct nczm_get {
    const char *key; /* in */
    void *buf;       /* out: malloc'ed whole object (NUL appended), owned by the caller */
    size_t len;      /* out */
    nczm_status status;
} nczm_get;
typedef struct nczm_put {
    const char *key; /* in */
    const void *buf; /* in */
    size_t len;      /* in */
    nczm_status status;
    /* in, instead of buf (NULL): the object is these iovcnt pieces in order, len bytes in
     * all (gathered by the kernel where the store can: the directory store's writev) */
    const struct iovec *iov;
    int iovcnt;
} nczm_put;
nczm_status nczm_get_many(nczm_map *map, size_t n, nczm_get *reqs);
nczm_status nczm_put_many(nczm_map *map, size_t n, nczm_put *reqs);
/* put_many for metadata: after a crash (the process killed, or the machine) each object is
 * the old one or the new one, whole, and on return the objects are on stable storage
 * together with everything written before them, where the store can promise that (the
 * directory store: temporaries, one syncfs, renames, one syncfs). */
nczm_status nczm_commit_many(nczm_map *map, size_t n, nczm_put *reqs);
/* An object written in pieces at offsets of the caller's choosing, from any thread (the
 * pieces' ranges apart), then put in place whole by nczm_obj_commit, crash-safe as
 * nczm_write (a reader sees the old object or the whole new one): a shard whose inner
 * chunks arrive over several calls goes to its place in the new object as they come
 * instead of waiting in memory. Only where nczm_map_builds (the directory store);
 * elsewhere nczm_obj_begin fails with NCZM_UNSUPPORTED. */
typedef struct nczm_obj nczm_obj;
int nczm_map_builds(const nczm_map *map);
nczm_status nczm_obj_begin(nczm_map *map, const char *key, nczm_obj **out);
/* Writes the len bytes of iov[0, iovcnt) at off. Sets no message (other threads may be
 * writing): 0 or an errno value, which nczm_obj_commit then reports. */
int nczm_obj_pwritev(nczm_obj *o, const struct iovec *iov, int iovcnt, size_t len, uint64_t off);
/* Puts the object in place and frees o; a failure (or one of a pwritev before) is the
 * map's message, and nothing of the object stays. */
nczm_status nczm_obj_commit(nczm_obj *o);
/* Frees o; nothing of it stays. */
void nczm_obj_abort(nczm_obj *o);

/* nczm_commit_many of requests handed over as the caller makes them: a store may start on
 * them at once (the directory store writes their temporaries on the worker pool while the
 * caller builds the next), and none becomes visible before nczm_commit_end. reqs is the
 * caller's array of at most cap requests (whole buffers, no scatter lists), never moved
 * until the end; the caller uses neither the map nor the worker pool meanwhile (a call of
 * the pool runs alone on its caller). NULL when out of memory: use nczm_commit_many. */
typedef struct nczm_commit nczm_commit;
nczm_commit *nczm_commit_begin(nczm_map *map, nczm_put *reqs, size_t cap);
/* reqs[0, n) are final (n only grows). */
void nczm_commit_ready(nczm_commit *c, size_t n);
/* Ends the commit with reqs[0, n): committed as by nczm_commit_many when commit is
 * nonzero (statuses and result the same), else nothing of it stays (NCZM_OK). Frees c. */
nczm_status nczm_commit_end(nczm_commit *c, size_t n, int commit);

/* Whole objects into the caller's buffers, for objects whose size the caller expects
 * (uncompressed chunks): reusing buffers spares an allocation, and the page faults of its
 * fresh memory, per object. Each request reads the whole object into buf when it fits in
 * cap bytes; len is the object's length, also when it does not fit: then status is
 * NCZM_LONG and buf's content is unspecified (never a silently cut object). No NUL byte
 * is appended. Statuses and the call's result as for nczm_get_many. */
typedef struct nczm_getinto {
    const char *key; /* in */
    void *buf;       /* in: where the object goes */
    size_t cap;      /* in: bytes available at buf */
    size_t len;      /* out: the object's length */
    nczm_status status;
    /* in, instead of buf (NULL): the object's bytes go to these iovcnt pieces in order, cap
     * bytes in all (scattered by the kernel where the store can: the directory store's
     * preadv); an object shorter than cap fills the first len bytes of them */
    const struct iovec *iov;
    int iovcnt;
} nczm_getinto;
nczm_status nczm_get_into_many(nczm_map *map, size_t n, nczm_getinto *reqs);

/* nczm_get_into_many with the caller's work done on the thread that fetched each object,
 * while its bytes are in that core's cache: before(ud, i, slot) sets request i's buf and cap,
 * after(ud, i, slot) runs once it has its status and len. slot names the thread, below
 * nczc_workers_slots(nczm_map_workers(map)); both hooks must be thread-safe and call nothing
 * of the map; no scatter lists. NCZM_UNSUPPORTED, with nothing done, for a store that does
 * not fetch objects on the worker pool (nczm_map_fetches_each: the caller then fetches,
 * then works). Statuses and
 * the call's result as for nczm_get_many. */
typedef void (*nczm_each_fn)(void *ud, size_t i, unsigned slot);
/* Whether nczm_get_into_each runs on this store (it fetches objects on the worker pool). */
int nczm_map_fetches_each(const nczm_map *map);
nczm_status nczm_get_into_each(nczm_map *map, size_t n, nczm_getinto *reqs, nczm_each_fn before,
                               nczm_each_fn after, void *ud);

/* Byte ranges of objects, many at once (a shard's index, then the bytes of the inner
 * chunks a read needs). Each request reads exactly count bytes into buf: at start, or with
 * tail set the object's last count bytes; objlen is the object's length. NCZM_SHORT when
 * the object ends before the range does (objlen set); NCZM_NOTFOUND is reported per request
 * only, as for gets. Statuses and the call's result as for nczm_get_many. */
typedef struct nczm_range {
    const char *key; /* in */
    uint64_t start;  /* in: the first byte (unused with tail) */
    size_t count;    /* in: bytes to read */
    int tail;        /* in: the last count bytes */
    void *buf;       /* in: count bytes */
    uint64_t objlen; /* out */
    nczm_status status;
    /* in, instead of buf (NULL): the count bytes go to these iovcnt pieces in order
     * (scattered by the kernel where the store can: nczm_map_vectored; elsewhere through
     * a buffer of the dispatcher's) */
    const struct iovec *iov;
    int iovcnt;
} nczm_range;
nczm_status nczm_read_ranges(nczm_map *map, size_t n, nczm_range *reqs);

/* The longest key this store can hold (S3 allows 1024 bytes including the store's root
 * prefix, a directory store about 3 KiB, a zip archive 60000). */
size_t nczm_key_max(const nczm_map *map);
nczm_kind nczm_map_kind(const nczm_map *map);
const char *nczm_map_location(const nczm_map *map);
int nczm_map_readonly(const nczm_map *map);
/* From now on the map writes nothing: writes fail as on a read-only map, and what a zip
 * archive had pending is dropped at close (another map took its location over). */
void nczm_map_set_readonly(nczm_map *map);
/* Threads (the caller included) that one batch on this map, and the chunk work of the
 * layers above, may use (nczc_workers.h); 0, the default, means one per core. */
void nczm_map_set_workers(nczm_map *map, unsigned workers);
unsigned nczm_map_workers(const nczm_map *map);
/* Whether the store moves gather/scatter lists (nczm_put.iov, nczm_getinto.iov,
 * nczm_range.iov) itself,
 * straight between the caller's memory and the object; elsewhere they cost a copy. */
int nczm_map_vectored(const nczm_map *map);
/* Whether reading part of an object costs its bytes and no more than one lookup (local
 * stores): a reader may then read a shard's index and some of its inner chunks instead of
 * the whole shard. On S3 each range is a request of its own. */
int nczm_map_ranges_cheap(const nczm_map *map);
/* HTTP requests this map has sent, retries included (0 for local stores): what opening or
 * reading a remote store cost. */
uint64_t nczm_map_requests(const nczm_map *map);
/* The message of the last failure on this map (never NULL). */
const char *nczm_errmsg(const nczm_map *map);
const char *nczm_status_str(nczm_status st);

#ifdef __cplusplus
}
#endif
#endif
