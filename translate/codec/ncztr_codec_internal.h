/* translate/codec internals: the codec classes (one file each, listed in ncztr_registry.c),
 * the plugin registry, and the mapping between one codec and one HDF5 filter. */
#ifndef NCZTR_CODEC_INTERNAL_H
#define NCZTR_CODEC_INTERNAL_H

#include "ncztr_codecs.h"

#include <pthread.h>
#include <stdint.h>

/* HDF5 filter ids the connector maps (registered ids: https://portal.hdfgroup.org). */
#define NCZTR_FILTER_BZIP2 307
#define NCZTR_FILTER_BLOSC 32001
#define NCZTR_FILTER_LZ4   32004
#define NCZTR_FILTER_ZSTD  32015

/* The most cd_values a filter may carry here (blosc has 7, szip 4). */
#define NCZTR_MAX_CD 16

#define NCZTR_CODEC_FAIL(e, ...) (snprintf((e)->msg, sizeof(e)->msg, __VA_ARGS__), -1)
/* A decoder's failure for want of room only: the data are sound so far and would decode
 * into more bytes (ncztr_stage_decode_grow tries more room for this failure alone; to the
 * chain's callers it is a failure like any other). */
#define NCZTR_CODEC_ROOM_SHORT   (-2)
#define NCZTR_CODEC_ROOM(e, ...) (snprintf((e)->msg, sizeof(e)->msg, __VA_ARGS__), NCZTR_CODEC_ROOM_SHORT)

/* Contexts kept for reuse by a codec's threads (ncztr_ctxpool.c): about one per worker. */
#define NCZTR_CTXPOOL_KEEP 16
typedef struct ncztr_ctxpool {
    pthread_mutex_t lock;
    void *v[NCZTR_CTXPOOL_KEEP];
    int n;
    void (*destroy)(void *);
} ncztr_ctxpool;
/* 0, or -1 when the lock cannot be made. destroy frees a context. */
int ncztr_ctxpool_init(ncztr_ctxpool *p, void (*destroy)(void *));
/* A kept context, or NULL: the caller makes one. */
void *ncztr_ctxpool_take(ncztr_ctxpool *p);
/* Keeps c for the next taker, or destroys it when the pool is full; c may be NULL. */
void ncztr_ctxpool_give(ncztr_ctxpool *p, void *c);
/* Destroys the kept contexts and the lock. */
void ncztr_ctxpool_clear(ncztr_ctxpool *p);
#define NCZTR_CODEC_MSG(...) snprintf(msg, msglen, __VA_ARGS__)

/* One HDF5 filter of a pipeline. */
typedef struct ncztr_filt {
    H5Z_filter_t id;
    unsigned flags;
    size_t ncd;
    unsigned cd[NCZTR_MAX_CD];
} ncztr_filt;

/* ---- codec classes ------------------------------------------------------------------ */

/* Where a codec sits in a chain, as Zarr v3 orders them: array->array codecs first, then
 * exactly one array->bytes codec, then bytes->bytes codecs. Zarr v2's "filters" and
 * "compressor" are all bytes->bytes after an implicit array->bytes "bytes". */
typedef enum ncztr_ckind { NCZTR_CK_A2A, NCZTR_CK_A2B, NCZTR_CK_B2B } ncztr_ckind;

/* Where a decoded result is (ncztr_dres.where). */
typedef enum ncztr_dwhere {
    NCZTR_D_OUT,   /* written to the caller's out (outlen bytes) */
    NCZTR_D_INPUT, /* the first outlen bytes of the input (a checksum stripped, nothing to do) */
    NCZTR_D_OWN    /* in own, malloc'ed, which the caller takes */
} ncztr_dwhere;

typedef struct ncztr_dres {
    ncztr_dwhere where;
    size_t outlen;
    void *own;
} ncztr_dres;

typedef struct ncztr_codec_class ncztr_codec_class;

/* One codec of a chain: its class, its parsed parameters and what it knows of the array
 * (ncztr_cctx: for codecs inside a shard, the inner chunk). */
typedef struct ncztr_stage {
    const ncztr_codec_class *cls;
    void *state;
    ncztr_cctx cx;
} ncztr_stage;

struct ncztr_codec_class {
    const char *v2id;   /* numcodecs id in Zarr v2 ("zlib"), NULL when v2 has none */
    const char *v3name; /* Zarr v3 name ("gzip"), NULL when v3 has none (then it reads as
                           "numcodecs.<v2id>", as zarr-python 3 names numcodecs codecs) */
    ncztr_ckind kind;
    bool vlen;           /* array->bytes of variable-length elements (ncztr_c_vlen.c) */
    bool nests;          /* holds a chain of its own (sharding), whose codecs say what it holds */
    H5Z_filter_t filter; /* the HDF5 filter it stands for, 0 when none */
    /* Parses one codec: in v2 the numcodecs object, in v3 its "configuration" (NULL when
     * absent). Returns 1 (*state set, or left NULL by codecs without parameters), 0 when the
     * codec cannot run here (msg says why, e.g. its plugin is missing: the chain is then
     * unusable, the array still opens), -1 when it is malformed (msg). Calling thread only
     * (may look up plugins). */
    int (*parse)(const json_t *j, bool v3, const ncztr_cctx *cx, void **state, char *msg, size_t msglen);
    /* The shape this codec hands to the next one (array->array codecs); NULL: unchanged. */
    void (*out_shape)(const void *state, const ncztr_cctx *in, ncztr_cctx *out);
    /* Encodes inlen bytes into *out (malloc'ed, *outlen bytes); *out = NULL means "the input
     * unchanged". Returns 0 or -1 (e set). Thread-safe, no HDF5 calls. NULL in a codec with
     * encode_into, which then encodes into a buffer of its bound (ncztr_codec_encode). */
    int (*encode)(const void *state, const ncztr_cctx *cx, const void *in, size_t inlen, void **out,
                  size_t *outlen, ncztr_cerr *e);
    /* Optional, both: the most bytes encode_into may write for inlen bytes in (0: none will
     * do, inlen is over the codec's limit), and encode into the caller's buffer of cap >=
     * that many bytes, called only when that bound is not 0 (*outlen written): as the last
     * codec of a chain, into a buffer the caller reuses rather than fresh memory. */
    size_t (*encode_bound)(const void *state, size_t inlen);
    int (*encode_into)(const void *state, const ncztr_cctx *cx, const void *in, size_t inlen, void *out,
                       size_t cap, size_t *outlen, ncztr_cerr *e);
    /* Decodes inlen bytes: into out (at most cap bytes) or as r says. Returns 0, -1, or
     * NCZTR_CODEC_ROOM_SHORT when cap bytes are too few for what the data decode to. */
    int (*decode)(const void *state, const ncztr_cctx *cx, const void *in, size_t inlen, void *out,
                  size_t cap, ncztr_dres *r, ncztr_cerr *e);
    /* Codecs that nest (sharding), optional: decodes the inner chunks one by one into sink
     * (ncztr_chain_decode_each), and the inner chunk's shape. */
    int (*decode_each)(const void *state, const ncztr_cctx *cx, const void *in, size_t inlen,
                       ncztr_inner_sink sink, void *ud, ncztr_cerr *e);
    const uint64_t *(*inner_shape)(const void *state);
    /* Reading part of a shard, optional (ncztr_chain_shard_index_span and what follows it):
     * the encoded index's size and place, the index decoded into (offset, length) pairs
     * checked against the object, and one inner chunk decoded. */
    size_t (*index_span)(const void *state, bool *at_start);
    int (*index_read)(const void *state, const void *in, uint64_t objlen, uint64_t *pairs, ncztr_cerr *e);
    const unsigned char *(*decode_inner)(const void *state, const ncztr_cctx *cx, const void *in,
                                         size_t inlen, unsigned char *scratch, ncztr_cerr *e);
    /* Writing a shard inner chunk by inner chunk, optional (ncztr_chain_inner_encode,
     * ncztr_chain_shard_index_encode). */
    size_t (*inner_bound)(const void *state);
    /* whether inner chunks are stored as their raw bytes: encode_inner then keeps a raw
     * chunk that is at dst itself where it is */
    bool (*inner_raw)(const void *state);
    int (*encode_inner)(const void *state, const ncztr_cctx *cx, const void *raw, void *dst, size_t cap,
                        void **out, size_t *outlen, ncztr_cerr *e);
    int (*index_write)(const void *state, const uint64_t *pairs, void *out, ncztr_cerr *e);
    void (*free_state)(void *state);
    /* The HDF5 filter of a parsed codec (for H5Pget_filter2 of an array read from a
     * store): 1, or 0 when it has none. NULL: none. */
    int (*to_filt)(const void *state, const ncztr_cctx *cx, ncztr_filt *f, char *msg, size_t msglen);
    /* The Zarr v2 codec object of HDF5 filter f (new reference), or NULL (msg set) when the
     * parameters cannot be stored. NULL: no filter maps here. */
    json_t *(*from_filt)(const ncztr_filt *f, char *msg, size_t msglen);
};

/* ---- the registry (ncztr_registry.c) ---- */

/* The class of a Zarr v2 codec id / a Zarr v3 codec name ("numcodecs.<id>" too) / an HDF5
 * filter id; NULL when none. */
const ncztr_codec_class *ncztr_codec_by_v2(const char *id);
const ncztr_codec_class *ncztr_codec_by_v3(const char *name);
const ncztr_codec_class *ncztr_codec_by_filter(H5Z_filter_t id);

/* Parses one stored codec into a stage: v2 (a numcodecs object with "id") or v3 (an object
 * with "name" and an optional "configuration"). Returns 1, 0 (unusable here: msg) or -1
 * (malformed: msg). */
int ncztr_stage_parse(const json_t *codec, bool v3, const ncztr_cctx *cx, ncztr_stage *s, char *msg,
                      size_t msglen);
void ncztr_stage_clear(ncztr_stage *s);

/* Decodes one stage whose output size is not known in advance (a chunk of variable-length
 * elements, a filter plugin's call): room for four times the input (64 KiB at least), four
 * times more while the stage says the room is too small (NCZTR_CODEC_ROOM_SHORT), up to max
 * bytes; any other failure is final (a damaged input must not have up to max bytes
 * allocated for it). The result: *dstp (malloc'ed) when res->where is NCZTR_D_OUT, else as res says. */
int ncztr_stage_decode_grow(const ncztr_stage *s, const void *src, size_t n, size_t max, unsigned char **dstp,
                            ncztr_dres *res, ncztr_cerr *e);

/* The HDF5 filter of one stored bytes->bytes codec (a codec that cannot run here, its plugin
 * missing, still has one): 1, 0 when it has none (msg), -1 when it is malformed (msg). */
int ncztr_codec_to_filt(const json_t *codec, bool v3, const ncztr_cctx *cx, ncztr_filt *f, char *msg,
                        size_t msglen);
/* The Zarr v2 codec object of HDF5 filter f (new reference), or NULL (msg set) when the
 * filter has no Zarr codec or its parameters cannot be stored. */
json_t *ncztr_filt_to_codec(const ncztr_filt *f, char *msg, size_t msglen);

/* A codec parameter: a JSON integer or a string holding one (netCDF-C 4.9.3 writes
 * strings). *out = dflt when the key is absent. Returns 0, or -1 (msg set) when the value
 * is neither or lies outside [lo, hi]. */
int ncztr_codec_int(const json_t *codec, const char *key, long long dflt, long long lo, long long hi,
                    long long *out, char *msg, size_t msglen);

/* A short name of a filter id for messages ("deflate", "blosc", or "" when unknown). */
const char *ncztr_filter_name(H5Z_filter_t id);

/* JSON helpers for the codec files: {"id": id}, and j with key = v (NULL on OOM; j is
 * released then). */
json_t *ncztr_codec_obj(const char *id);
json_t *ncztr_codec_with_int(json_t *j, const char *key, long long v);

/* ---- filter plugins (ncztr_plugins.c) ---- */

/* Looks up filter id among the HDF5 filter plugins on the plugin path (HDF5_PLUGIN_PATH or
 * HDF5's default directory, as H5PLget reports it: calling thread only). Each library is
 * opened once per process; libraries that are not filter plugins (the VOL connector
 * itself, netCDF-C's codec libraries) are closed again. *cls is NULL when no plugin has
 * the id; *dirs (malloc'ed, ':'-separated, always set on success) names the directories
 * searched, for messages. Fails (pushing) only when HDF5 cannot report the path or on out
 * of memory. */
herr_t ncztr_plugin_find(H5Z_filter_t id, const H5Z_class2_t **cls, char **dirs);

/* ---- the classes ---- */
extern const ncztr_codec_class ncztr_codec_zlib, ncztr_codec_gzip, ncztr_codec_shuffle,
    ncztr_codec_fletcher32, ncztr_codec_lz4, ncztr_codec_bz2, ncztr_codec_zstd, ncztr_codec_blosc,
    ncztr_codec_szip, ncztr_codec_bytes, ncztr_codec_transpose, ncztr_codec_crc32c, ncztr_codec_sharding,
    ncztr_codec_vlen_utf8, ncztr_codec_vlen_bytes, ncztr_codec_vlen_array, ncztr_codec_utf32;

/* ---- helpers some codecs share ---- */

/* HDF5's shuffle: byte k of every element together; trailing bytes that do not fill an
 * element stay where they are. out must not overlap in. */
void ncztr_shuffle(size_t esz, const void *in, size_t n, void *out);
void ncztr_unshuffle(size_t esz, const void *in, size_t n, void *out);
/* HDF5's Fletcher-32 checksum of n bytes (as H5_checksum_fletcher32 computes it). */
uint32_t ncztr_fletcher32(const void *data, size_t n);
/* CRC-32C (Castagnoli) of n bytes, as Zarr v3's crc32c codec appends it. */
uint32_t ncztr_crc32c(const void *data, size_t n);

/* The parse of a codec without parameters (checksums, utf32): always usable, no state. */
int ncztr_codec_parse_none(const json_t *j, bool v3, const ncztr_cctx *cx, void **state, char *msg,
                           size_t msglen);
/* Checksum codecs (crc32c, fletcher32): the bytes with sum appended as 4 bytes little-endian
 * (*out malloc'ed), and the sum a stored chunk of n >= 4 bytes ends with. */
int ncztr_sum_append(const char *name, uint32_t sum, const void *in, size_t inlen, void **out, size_t *outlen,
                     ncztr_cerr *e);
uint32_t ncztr_sum_stored(const void *in, size_t n);
/* A codec's encode into *out (malloc'ed), for a codec without one of its own through
 * encode_into and a buffer of its bound: the one path every caller takes. */
int ncztr_codec_encode(const ncztr_codec_class *cls, const void *state, const ncztr_cctx *cx, const void *in,
                       size_t inlen, void **out, size_t *outlen, ncztr_cerr *e);

/* The chain of the codecs inside a shard (ncztr_chain.c): built from a v3 codec list for
 * the inner chunk cx. */
herr_t ncztr_chain_build_v3(const json_t *codecs, const ncztr_cctx *cx, ncztr_chain **out);
/* The chain's operations, for a codec context made outside ncztr_chain_build
 * (ncztr_cctx.chain_ops). */
const ncztr_chain_ops *ncztr_chain_operations(void);

#endif
