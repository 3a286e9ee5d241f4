/* Internals of the dataset chunk path, shared by ncztr_chunkio.c (I/O calls, batches,
 * copying), ncztr_chunksel.c (selections -> chunks) and ncztr_chunkcache.c (chunk geometry,
 * the chunk cache, pending writes). translate/ only. */
#ifndef NCZTR_CHUNKIO_INTERNAL_H
#define NCZTR_CHUNKIO_INTERNAL_H

#include "ncztr_chunkio.h"
#include "ncztr_model_internal.h"
#include "nczc_hash.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/uio.h>

/* Chunk bytes moved by one batch (one get_many/put_many) and chunks per batch (bounds the
 * dataspace ids held at once). */
#define NCZTR_BATCH_BYTES  ((size_t)32 << 20)
#define NCZTR_BATCH_CHUNKS 4096

/* Chunk buffers of an array, reused across batches and calls. A big chunk freshly
 * malloc'ed is fresh memory: glibc maps it (or trims it back to the kernel when freed), so
 * every byte of every chunk cost a page fault and a page clearing, as much as the copy
 * itself (and on a virtual machine that hands freed memory back to its host, the host's
 * fault too). Fetches, whole-chunk writes, decodes and transpositions take raw buffers from
 * the cache's pool; encoded chunks go into buffers of its epool; evicted cache entries and
 * stored chunks give theirs back. A pool belongs to the array's chunk cache (freed with
 * it); during a call it keeps at most one batch worth of buffers, and between calls
 * (ncztr_pool_trim) what that call used, at least NCZTR_POOL_KEEP_BYTES worth (two buffers
 * when chunks are bigger): a writer whose every call spans a batch of chunks finds them
 * all again in the next call, and an array whose calls shrink gives the rest back. Every
 * buffer holds at least the pool's chunk_bytes. */
#define NCZTR_POOL_KEEP_BYTES ((size_t)8 << 20)
typedef struct ncztr_bufpool {
    unsigned char **v;
    size_t n, max;
    size_t chunk_bytes;
    size_t low;    /* the fewest kept since the last trim: buffers this call never took */
    bool short_of; /* a take since the last trim found none kept */
} ncztr_bufpool;
/* max buffers of chunk_bytes each; no allocation until the first give. */
void ncztr_pool_init(ncztr_bufpool *p, size_t chunk_bytes);
/* A buffer of chunk_bytes (a kept one, else malloc'ed); NULL when out of memory, nothing
 * pushed. */
unsigned char *ncztr_pool_take(ncztr_bufpool *p, size_t chunk_bytes);
/* Keeps buf for reuse, or frees it (when full, or p is NULL). buf may be NULL. */
void ncztr_pool_give(ncztr_bufpool *p, unsigned char *buf);
void ncztr_pool_clear(ncztr_bufpool *p);
/* At the end of a call: frees the kept buffers the call did not use, beyond
 * NCZTR_POOL_KEEP_BYTES worth (two buffers at least). */
void ncztr_pool_trim(ncztr_bufpool *p);

/* Geometry of an array's chunks, shared by I/O calls, flush and eviction. */
typedef struct ncztr_cgeom {
    int rank; /* >= 1: Zarr rank-0 arrays are handled as shape [1], key "0" */
    hsize_t chunks[NCZTR_MAX_RANK];
    size_t esz, chunk_elems, chunk_bytes;
    bool transpose; /* order 'F' with more than one non-trivial chunk dimension */
    char dimsep;
    bool chunk_c; /* Zarr v3's "c/" chunk keys */
    bool rank0;   /* a Zarr rank-0 array (rank 1 here): its one chunk key has no index in v3 */
    char *prefix; /* key prefix, "" at the store root */
    char *path;   /* "/sub/v", for messages */
} ncztr_cgeom;

herr_t ncztr_geom_init(const ncztr_obj *o, ncztr_cgeom *g);
void ncztr_geom_clear(ncztr_cgeom *g);
/* "<prefix>/i.j.k" (dimsep '.' or '/'), without "<prefix>/" at the store root; malloc'ed,
 * NULL after pushing an error. A Zarr rank-0 array has the single index [0]: key "0". */
char *ncztr_chunk_key(const ncztr_cgeom *g, const uint64_t *coord);
/* Moves a whole chunk between C order and Fortran order. */
void ncztr_transpose(const ncztr_cgeom *g, const unsigned char *src, unsigned char *dst, bool c_to_f);
/* Fills nelem elements with the array's fill value (zeros without one). */
void ncztr_fill_elems(const ncztr_zarray *za, void *buf, size_t nelem);

/* The chunk cache: a hash index of chunk indices (common/nczc_hash.h) plus an LRU list. Entries hold raw
 * C-order chunk buffers; dirty entries are written on eviction and by ncztr_array_flush.
 * The budget is the array's cache_bytes, but always at least one chunk. */
typedef struct ncztr_cc_entry {
    struct ncztr_cc_entry *prev, *next; /* LRU list, head = most recently used */
    uint64_t hash;                      /* of coord, kept for the removal from the index */
    unsigned char *data;
    bool dirty;
    uint64_t coord[]; /* rank entries */
} ncztr_cc_entry;

/* A shard written in part in whole inner chunks (ncztr_shardwrite.c): its inner chunks
 * encoded already, waiting for the rest of the shard, or for a flush that takes the rest
 * from the stored shard. Never also in the chunk cache. */
typedef struct ncztr_pinner {
    void *enc; /* encoded bytes (NULL: all fill, never written) */
    size_t len;
    bool have;   /* written since the shard became pending */
    bool pooled; /* enc is a buffer of the cache's ipool, else malloc'ed */
} ncztr_pinner;
typedef struct ncztr_pshard {
    struct ncztr_pshard *prev, *next; /* head = most recently written */
    uint64_t hash;
    size_t ninner;      /* inner chunks per shard */
    size_t have, bytes; /* inner chunks written, their encoded bytes */
    ncztr_pinner *in;   /* ninner, C order over the shard's grid */
    /* Raw inner chunks in a store that builds objects in pieces: the shard being built
     * there, each inner chunk written at its place (its len: the raw size, or 0 when all
     * fill) as it comes, nothing of it kept here; else NULL. */
    nczm_obj *b;
    uint64_t coord[];
} ncztr_pshard;

struct ncztr_chunkcache {
    int rank;
    size_t chunk_bytes;
    nczc_hindex ix; /* entries by coord */
    size_t count, bytes;
    ncztr_cc_entry *head, *tail;
    ncztr_bufpool pool; /* the array's chunk buffers (see ncztr_bufpool) */
    nczc_hindex pix;    /* pending shards by coord */
    ncztr_pshard *phead, *ptail;
    size_t pbytes;       /* their encoded bytes, counted against the cache's budget */
    ncztr_bufpool ipool; /* buffers an inner chunk is encoded into (ibound bytes each) */
    size_t ibound;       /* 0 until the first partial shard write */
    /* buffers a whole chunk is encoded into, of the chain's bound each (its chunk_bytes; 0:
     * the chain cannot encode into a buffer given); max 0 until the first encode */
    ncztr_bufpool epool;
    size_t nbuilt; /* pending shards being built in the store (b), each an open file */
};

/* The hash of a chunk index of rank entries (ncztr_chunkgeom.c; the cache's and the pending shards' indexes).
 */
uint64_t ncztr_coord_hash(const uint64_t *coord, int rank);
/* The array's cache, created on first use (NULL after pushing an error). */
ncztr_chunkcache *ncztr_cc_get(ncztr_obj *o, const ncztr_cgeom *g);
/* NULL when absent (or c is NULL). */
ncztr_cc_entry *ncztr_cc_find(ncztr_chunkcache *c, const uint64_t *coord);
/* Marks an entry most recently used. */
void ncztr_cc_touch(ncztr_chunkcache *c, ncztr_cc_entry *e);
/* Adds a chunk as most recently used, taking ownership of data on success; NULL when out
 * of memory (data stays the caller's). */
ncztr_cc_entry *ncztr_cc_insert(ncztr_chunkcache *c, const uint64_t *coord, unsigned char *data, bool dirty);
/* Unlinks an entry; the caller frees it and its data (or gives the data to a pool). */
void ncztr_cc_remove(ncztr_chunkcache *c, ncztr_cc_entry *e);

/* Chunk writes waiting for one nczm_put_many. */
typedef struct ncztr_pitem {
    char *key;
    unsigned char *raw; /* C-order raw chunk */
    bool own_raw;
    unsigned char *trans; /* Fortran-order copy, or NULL */
    void *enc;            /* bytes to store: raw, trans, encbuf, or a buffer of the codec */
    size_t enclen;
    unsigned char *encbuf; /* of epool, given back once stored; or NULL */
    ncztr_bufpool *epool;
    ncztr_cc_entry *ent; /* flush: entry to mark clean once stored */
    /* instead of raw (NULL), a raw chunk stored as it is: its runs in the user's buffer,
     * gathered by the store (owned; chunk_bytes in all) */
    struct iovec *iov;
    int iovcnt;
    /* an encoded object given as pieces (a shard put together from its inner chunks): iov
     * with len bytes in all, the pieces' buffers owned here (nparts of them; those marked
     * pooled go back to ppool, the others are freed) */
    size_t len;
    void **parts;
    bool *pooled;
    size_t nparts;
    ncztr_bufpool *ppool;
} ncztr_pitem;

typedef struct ncztr_putlist {
    ncztr_pitem *v;
    size_t n, cap, bytes;
    ncztr_bufpool *pool; /* where stored and evicted chunk buffers go; NULL: freed */
} ncztr_putlist;
/* Queues a chunk (Fortran transposition and codecs applied here): takes ownership of key,
 * and of raw when own_raw, whatever the outcome. ent: a cache entry to mark clean once
 * stored, or NULL. */
herr_t ncztr_pl_add(const ncztr_obj *o, const ncztr_cgeom *g, ncztr_putlist *pl, char *key,
                    unsigned char *raw, bool own_raw, ncztr_cc_entry *ent);
/* Queues a raw chunk stored as it is, given as its runs in the user's buffer (iov, owned
 * from here on whatever the outcome); takes ownership of key. */
herr_t ncztr_pl_add_iov(const ncztr_cgeom *g, ncztr_putlist *pl, char *key, struct iovec *iov, int iovcnt);
/* Queues an encoded object given as pieces iov[0..iovcnt), len bytes in all; takes
 * ownership of key, iov, parts, pooled and the nparts buffers of parts (given back to ppool
 * where pooled, else freed, once stored) whatever the outcome. */
herr_t ncztr_pl_add_parts(const ncztr_cgeom *g, ncztr_putlist *pl, char *key, struct iovec *iov, int iovcnt,
                          size_t len, void **parts, bool *pooled, size_t nparts, ncztr_bufpool *ppool);
/* Stores every queued chunk with one store call and empties the list. */
herr_t ncztr_pl_run(const ncztr_obj *o, const ncztr_cgeom *g, ncztr_putlist *pl);
void ncztr_pl_clear(ncztr_putlist *pl);
/* Evicts least recently used chunks until the cache fits its budget; dirty ones are
 * queued on pl, the buffers of clean ones go to pl->pool. */
herr_t ncztr_cc_trim(ncztr_obj *o, const ncztr_cgeom *g, ncztr_putlist *pl);
/* The same, leaving room bytes free below the budget, but never evicting the keep most
 * recently used entries (the ones a batch is using). A read trims before fetching so that
 * the evicted buffers serve the fetch (through the pool) rather than fresh memory. */
herr_t ncztr_cc_make_room(ncztr_obj *o, const ncztr_cgeom *g, ncztr_putlist *pl, size_t room, size_t keep);

/* ---- per-call I/O (ncztr_chunkio.c, ncztr_chunksel.c) ---- */

/* Sequences fetched per H5Ssel_iter_get_seq_list call. */
#define NCZTR_NSEQ 1024

/* Every HDF5 API call clears the default error stack on entry, so cleanup code that runs
 * after a message was pushed keeps the stack aside meanwhile (ncz_err_restore puts it back). */
static inline hid_t ncztr_err_hold(herr_t ret)
{
    return ret < 0 ? ncz_err_save() : H5I_INVALID_HID;
}

/* Walks the byte runs of a selection (HDF5's selection iterator). */
typedef struct ncztr_seqw {
    hid_t iter;
    size_t n, i;
    hsize_t coff; /* current run: offset and bytes left */
    size_t clen;
    hsize_t off[NCZTR_NSEQ];
    size_t len[NCZTR_NSEQ];
} ncztr_seqw;

/* Element mode: one selected element. */
typedef struct ncztr_elem {
    uint64_t chunk; /* linear index in the chunk grid */
    uint64_t local; /* element offset inside the chunk (C order) */
    hsize_t moff;   /* element offset in the memory buffer */
    size_t i;       /* position in the selection */
} ncztr_elem;

typedef struct ncztr_ioctx {
    ncztr_obj *o;
    ncztr_array *a;
    ncztr_cgeom g;
    bool write;
    hsize_t shape[NCZTR_MAX_RANK];
    hid_t fspace, mspace; /* resolved spaces (possibly own[]) */
    hid_t own[2];
    hid_t block; /* file extent with one chunk's block selected (for projections) */
    H5S_sel_type ftype;
    bool single;          /* the selection lies in one chunk: the memory selection is used as is */
    bool same_all;        /* file and memory: "all" of the same extent */
    bool elem;            /* element mode (a point selection on either side) */
    const ncztr_elem *el; /* element mode: the elements, sorted by chunk (owned by the enum) */
    hid_t st, mem_type;
    size_t msz;
    bool convert;
    bool bkg; /* the conversion keeps destination compound members the source lacks */
    unsigned char *ubuf;
    unsigned char *fillbuf; /* read: one chunk of fill shared by missing chunks */
    unsigned char *tmp1, *tmp2;
    size_t tmpcap;
    ncztr_bufpool *pool;  /* the array's chunk buffers (its cache's) */
    ncztr_bufpool *epool; /* its encoded chunks' buffers (its cache's) */
    ncztr_seqw fw, mw;
    /* Box mode (ncztr_chunkbox.c): the file selection is one block, the memory selection
     * the same block; chunk pieces are then copied by arithmetic, on the worker pool. */
    bool box;
    hsize_t bstart[NCZTR_MAX_RANK], bcount[NCZTR_MAX_RANK]; /* the block in the array */
    hsize_t mdims[NCZTR_MAX_RANK], mstart[NCZTR_MAX_RANK];  /* memory extent, block start */
    unsigned workers;                                       /* the store's worker count */
    /* Read, box mode, sharded chains on a store that reads byte ranges cheaply: a shard the
     * block covers in part, in whole inner chunks, is read in part (ncztr_shardread.c). */
    bool partial;
    hsize_t inner[NCZTR_MAX_RANK]; /* then: the inner chunk's shape */
    size_t ninner;                 /* and the inner chunks per shard */
} ncztr_ioctx;

typedef struct ncztr_crange {
    uint64_t lo, hi;
} ncztr_crange;

/* The chunks an I/O call touches, in C order of chunk index. */
typedef struct ncztr_chunk_enum {
    int rank;
    /* range mode: the touched chunks are the product of per-dimension range lists */
    ncztr_crange *r[NCZTR_MAX_RANK];
    size_t nr[NCZTR_MAX_RANK], cap[NCZTR_MAX_RANK], ri[NCZTR_MAX_RANK];
    uint64_t cur[NCZTR_MAX_RANK];
    bool filter; /* irregular hyperslab: ranges are the bounding box, test each chunk */
    bool started, done;
    /* element mode */
    ncztr_elem *el;
    size_t nel, ei;
    uint64_t nch[NCZTR_MAX_RANK]; /* chunks per dimension */
} ncztr_chunk_enum;

/* Sets up the enumeration (and x->elem, x->el, x->single) for nsel selected elements. */
herr_t ncztr_enum_init(ncztr_ioctx *x, ncztr_chunk_enum *e, size_t nsel);
/* Next touched chunk into coord: 1, 0 at the end, -1 on error. In element mode [*eb, *ee)
 * are the chunk's elements in x->el. */
int ncztr_enum_next(ncztr_ioctx *x, ncztr_chunk_enum *e, uint64_t *coord, size_t *eb, size_t *ee);
/* An upper bound of the chunks the enumeration yields, capped at cap: sizes the batch. */
size_t ncztr_enum_bound(const ncztr_chunk_enum *e, size_t cap);
void ncztr_enum_clear(ncztr_chunk_enum *e);
/* The file selection inside chunk coord, in chunk-local coordinates over the chunk's full
 * extent, so that iterator offsets index the raw chunk buffer; *vol = in-bounds elements
 * of the chunk. Not for element mode. */
hid_t ncztr_chunk_fsel(ncztr_ioctx *x, const uint64_t *coord, size_t *vol);
/* The memory selection matching the file elements in chunk coord; *borrowed when it is
 * the memory space itself (not to be closed). Not for element mode. */
hid_t ncztr_chunk_msel(ncztr_ioctx *x, const uint64_t *coord, bool *borrowed);

/* ---- one call's chunks (ncztr_chunkio.c) and their bytes (ncztr_chunkcopy.c) ---- */
/* One touched chunk of a call. */
typedef struct ncztr_cjob {
    uint64_t coord[NCZTR_MAX_RANK];
    char *key;
    unsigned char *data; /* raw C-order chunk */
    bool own;            /* data is ours (to free or hand to the cache) */
    ncztr_cc_entry *ent; /* data belongs to this cache entry */
    bool whole;          /* write: every in-bounds element is written */
    hid_t fsel;
    size_t eb, ee; /* element mode: the chunk's elements in x->el */
    /* The chunk is one contiguous run of the user's buffer (ncztr_io_direct_run): a read
     * lands there and a write is stored from there, with no chunk buffer in between. */
    unsigned char *direct;
    /* Read, box mode: every in-bounds element is read and the chunk is not cached: it is
     * fetched and decoded into scratch and copied on at once (never kept). */
    bool stream;
    bool copied;  /* read: its elements are in the user's buffer already */
    bool full;    /* box mode: covered NCZTR_BOX_FULL (the whole chunk is in the block) */
    bool partial; /* read in part: its index, then the inner chunks the block needs */
    /* write, box mode, raw chunks: the chunk's runs in the user's buffer, stored by the
     * store's gather I/O with no chunk buffer (owned; NULL otherwise) */
    struct iovec *iov;
    size_t niov;
} ncztr_cjob;

/* Fetches every job without data (nor a gather list, nor partial) in one store call and
 * decodes it: into its buffer (owned, to be cached), straight to the user (direct, or box
 * mode's streamed chunks, copied on the worker that decoded them). Missing chunks are all
 * fill. (ncztr_chunkfetch.c) */
herr_t ncztr_fetch_chunks(ncztr_ioctx *x, ncztr_cjob *jobs, size_t njobs);

/* Chunk shape as "10x10", for messages. */
void ncztr_io_shape_str(const ncztr_cgeom *g, char *buf, size_t cap);
/* Frees what a call set up in x. */
void ncztr_io_clear(ncztr_ioctx *x);

/* Resolves the spaces and checks them against the array. *nsel = selected elements. */
herr_t ncztr_io_setup_spaces(ncztr_ioctx *x, hid_t mem_space, hid_t file_space, hssize_t *nsel);

/* Checks up front that the memory type converts to/from the stored one, so that a bad
 * type fails before any chunk is touched. */
herr_t ncztr_io_setup_types(ncztr_ioctx *x, hid_t mem_type);

/* Before writing variable-length strings into fixed-size storage: any string too long is
 * an error, found before a single chunk changes (never truncate silently). */
herr_t ncztr_io_check_strings(ncztr_ioctx *x);

/* Where the whole chunk jb (jb->fsel set, vol in-bounds elements) is one contiguous run of
 * the user's buffer with the stored element layout (no type conversion, C order), the
 * start of that run; else NULL. */
unsigned char *ncztr_io_direct_run(ncztr_ioctx *x, const ncztr_cjob *jb, size_t vol);

/* Moves the selected elements of one chunk between its buffer and the user's buffer. */
herr_t ncztr_io_copy_chunk(ncztr_ioctx *x, const ncztr_cjob *jb);

/* ---- box mode (ncztr_chunkbox.c): no HDF5 calls but in ncztr_box_setup ---- */
/* Sets x->box and the block when the selections allow (after the spaces and types). */
void ncztr_box_setup(ncztr_ioctx *x);
/* How much of chunk coord the block covers: part of its elements in the array, all of
 * them (an edge chunk, reaching past the array), or the whole chunk. */
enum { NCZTR_BOX_PART, NCZTR_BOX_WHOLE, NCZTR_BOX_FULL };
int ncztr_box_cover(const ncztr_ioctx *x, const uint64_t *coord);
/* For a chunk covered NCZTR_BOX_FULL: where it is one run of the user's buffer, its
 * start; else NULL. */
unsigned char *ncztr_box_direct(const ncztr_ioctx *x, const uint64_t *coord);
/* For a chunk covered NCZTR_BOX_FULL: the runs of the user's buffer that make up the chunk in
 * C order, merged where they touch, into iov when they are at most cap; returns how many
 * there are. */
size_t ncztr_box_iov(const ncztr_ioctx *x, const uint64_t *coord, struct iovec *iov, size_t cap);
/* The most runs a chunk may take to be moved by gather/scatter I/O rather than a copy. */
#define NCZTR_IOV_MAX_RUNS 4096
/* Moves the block's part of chunk coord between chunk (the raw C-order chunk) and the
 * user's buffer. Thread-safe for different chunks. */
void ncztr_box_copy(const ncztr_ioctx *x, const uint64_t *coord, unsigned char *chunk, bool to_user);
/* Copies inner chunk number i (C order over the shard's grid) of the shard at coord, raw
 * in C order of shape inner, to the user's buffer: what of it lies in the block. */
void ncztr_box_copy_inner(const ncztr_ioctx *x, const uint64_t *shard, const hsize_t *inner, size_t i,
                          const unsigned char *raw);
/* The inner chunks (of shape inner, numbered over the shard's grid) of the shard at coord
 * that the block touches: [lo[k], hi[k]) per dimension; true when it covers each of them
 * whole, as far as the array reaches. */
bool ncztr_box_inner_range(const ncztr_ioctx *x, const uint64_t *shard, const hsize_t *inner, uint64_t *lo,
                           uint64_t *hi);
/* The numbers (C order over the shard's grid) of the inner chunks of the shard at coord
 * that the block touches, into out when not NULL (room for a shard's count); how many. */
size_t ncztr_box_inner_list(const ncztr_ioctx *x, const uint64_t *shard, const hsize_t *inner, size_t *out);
/* Copies the block's part of inner chunk number i of the shard at coord from the user's
 * buffer into raw (C order of shape inner); returns whether the inner chunk reaches past
 * the array, and then copies only with copy set (the caller fills raw first). */
bool ncztr_box_gather_inner(const ncztr_ioctx *x, const uint64_t *shard, const hsize_t *inner, size_t i,
                            unsigned char *raw, bool copy);
/* Inner chunk i of shard (inner: the inner chunk's shape) as its runs in the user's buffer,
 * in the inner chunk's C order, merged where they touch, into iov (at most cap): how many,
 * or 0 when it is not covered whole by the block, reaches past the array's edge, or needs
 * more than cap runs (the caller then gathers it with ncztr_box_gather_inner). With iov
 * NULL: how many runs it takes (cap unused), or 0 as above. */
size_t ncztr_box_iov_inner(const ncztr_ioctx *x, const uint64_t *shard, const hsize_t *inner, size_t i,
                           struct iovec *iov, size_t cap);
/* ncztr_box_copy for every job with data that is neither direct nor copied, on the
 * worker pool. */
void ncztr_box_copy_jobs(const ncztr_ioctx *x, ncztr_cjob *jobs, size_t n, bool to_user);

/* Work items on the worker pool report failures per thread; the lowest failed item wins,
 * as a serial loop would report it. */
typedef struct ncztr_slot_errs {
    unsigned n;
    ncztr_cerr *err; /* per thread: the message of its lowest failed item */
    size_t *failed;  /* per thread: that item, or SIZE_MAX */
} ncztr_slot_errs;
/* 0, or -1 when out of memory (nothing pushed). */
static inline int ncztr_slot_errs_init(ncztr_slot_errs *se, unsigned nslots)
{
    se->n = nslots;
    se->err = malloc(nslots * sizeof *se->err);
    se->failed = malloc(nslots * sizeof *se->failed);
    for (unsigned s = 0; se->failed && s < nslots; s++)
        se->failed[s] = SIZE_MAX;
    return se->err && se->failed ? 0 : -1;
}
static inline void ncztr_slot_errs_note(ncztr_slot_errs *se, unsigned slot, size_t i, const ncztr_cerr *e)
{
    if (i < se->failed[slot]) {
        se->failed[slot] = i;
        se->err[slot] = *e;
    }
}
/* The lowest failed item (SIZE_MAX: none) and its message. */
static inline size_t ncztr_slot_errs_first(const ncztr_slot_errs *se, const char **msg)
{
    unsigned best = 0;
    for (unsigned s = 1; s < se->n; s++)
        best = se->failed[s] < se->failed[best] ? s : best;
    *msg = se->err[best].msg;
    return se->failed[best];
}
static inline void ncztr_slot_errs_clear(ncztr_slot_errs *se)
{
    free(se->err);
    free(se->failed);
    se->err = NULL;
    se->failed = NULL;
}

/* ---- partial shard reads (ncztr_shardread.c) ---- */
/* Sets x->partial and x->inner for a read call (after ncztr_box_setup). */
void ncztr_shard_partial_setup(ncztr_ioctx *x);
/* Whether the shard at coord, covered in part by the block, is read in part. */
bool ncztr_shard_partial_fits(const ncztr_ioctx *x, const uint64_t *coord);
/* Write: the block's part of every job marked partial, in whole inner chunks, gathered
 * from the user's buffer and encoded on the worker pool into the shard's pending state;
 * shards complete now are queued on pl. */
herr_t ncztr_shard_write_partial(ncztr_ioctx *x, ncztr_cjob *jobs, size_t n, ncztr_putlist *pl);
/* The pending shard at coord, if any, queued on pl whole: its other inner chunks taken from
 * the stored shard (all fill where it has none). *queued is set when one was. */
herr_t ncztr_pending_settle(ncztr_obj *o, const ncztr_cgeom *g, const uint64_t *coord, ncztr_putlist *pl,
                            bool *queued);
/* Every pending shard queued on pl that way (with one store call for the stored ones), or,
 * with keep_bytes, the least recently written until at most keep_bytes are pending. */
herr_t ncztr_pending_settle_all(ncztr_obj *o, const ncztr_cgeom *g, ncztr_putlist *pl, size_t keep_bytes);
/* Forgets the pending shard at coord (overwritten whole), or every one (coord NULL). */
void ncztr_pending_drop(ncztr_chunkcache *c, const uint64_t *coord);

/* Moves the block's part of every job marked partial to the user: each shard's index is
 * read, then the bytes of the inner chunks the block touches, which decode on the worker
 * pool straight into the user's buffer (jb->copied set; no data, nothing cached). */
herr_t ncztr_shard_read_partial(ncztr_ioctx *x, ncztr_cjob *jobs, size_t n);

/* ---- a file's scratch buffers (ncztr_scratch.c) ---- */
enum { NCZTR_SCR_FETCH, NCZTR_SCR_SLOTS, NCZTR_SCR_N };
/* Buffer which of at least n * each bytes (n slots of each bytes, or 1 of all), kept by the
 * file (contents not kept between gets); NULL when out of memory or when the product does
 * not fit in a size_t (nothing pushed). It starts NCZTR_SCRATCH_SKEW bytes into a page:
 * where stored bytes are read, see ncztr_scratch.c for why. */
unsigned char *ncztr_scratch_get(ncztr_file *f, int which, size_t n, size_t each);
/* Bytes per slot of n bytes in a scratch buffer cut into slots that each keep its skew. */
size_t ncztr_scratch_stride(size_t n);
#define NCZTR_PAGE ((size_t)4096)
/* The first offset from off in scratch buffer base where bytes read from offset src of an
 * object keep the skew (less than NCZTR_PAGE bytes on). */
size_t ncztr_scratch_place(const unsigned char *base, size_t off, uint64_t src);
/* Whether bytes from offset src of an object copy slowly to dst (see ncztr_scratch.c): a
 * reader then reads them into scratch and copies them on from there. */
bool ncztr_scratch_slow(const void *dst, uint64_t src);
/* At the end of an I/O call: gives big scratch back to the system. */
void ncztr_scratch_trim(ncztr_file *f);

#endif
