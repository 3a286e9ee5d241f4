/* translate/codec: HDF5 filters <-> Zarr codecs, and the per-array codec chain that
 * encodes and decodes chunk bytes.
 *
 * Two worlds meet here. On the HDF5 side a dataset's creation plist holds a filter
 * pipeline (ids, flags, cd_values). On the Zarr side a v2 .zarray holds "filters" (applied
 * in order when encoding) and "compressor" (applied last), a v3 zarr.json one typed list,
 * "codecs": two spellings of one chain, whose codecs are the classes of ncztr_registry.c
 * (one file each, ncztr_c_*.c). The mapping to HDF5: the last HDF5 filter is the
 * compressor, the rest are "filters", in order; names and parameters follow numcodecs
 * (zlib, gzip, shuffle, fletcher32, bz2, zstd, blosc, lz4).
 *
 * deflate (zlib), shuffle and fletcher32 are the connector's own, byte-compatible with
 * HDF5's built-in filters (HDF5 has no public filter pipeline for non-native connectors).
 * numcodecs' gzip and lz4 are the connector's own too (their bytes are not those of any
 * HDF5 filter), and so are bzip2 (filter 307: the same plain bzip2 stream; the plugin's
 * decoder never returns on a truncated one), zstd (32015) and blosc (32001, through c-blosc).
 * Every other filter (szip, filters the connector does not know) is run from an HDF5 filter
 * plugin found on the plugin path (H5PLget_plugin_info -> H5Z_class2_t), as netCDF-C's
 * NCZarr does. translate/plugin offers the connector's own codecs the other way round: as
 * HDF5 filter plugins with netCDF-C's codec tables.
 *
 * Threads: ncztr_chain_build and the dcpl functions call HDF5 and push errors: calling
 * thread only. ncztr_chain_encode/decode never call HDF5 or push: they may run on worker
 * threads, concurrently on one chain, and report failures in an ncztr_cerr that the
 * calling thread pushes.
 */
#ifndef NCZTR_CODECS_H
#define NCZTR_CODECS_H

#include "ncztr_types.h"

#include <hdf5.h>
#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- create time and the creation plist ---- */

/* Reads the filter pipeline of dcpl and returns the codec JSON to store (new references;
 * NULL where empty). What HDF5 would do in can_apply/set_local is done here: shuffle's
 * element size, blosc's type size and chunk size, and the set_local of plugin filters;
 * dcpl (the array's own copy) is modified in place so that H5Dget_create_plist shows the
 * expanded parameters. type: the stored element type; chunks: the chunk shape (rank
 * entries). A required filter that is neither built in nor found as a plugin, or that
 * has no Zarr codec, fails with a message naming it; an optional one
 * (H5Z_FLAG_OPTIONAL) that is unavailable is dropped from dcpl. */
herr_t ncztr_codecs_from_dcpl(hid_t dcpl, hid_t type, int rank, const hsize_t *chunks, const char *path,
                              json_t **filters, json_t **compressor);

/* Adds to dcpl the HDF5 filters of the stored codecs (H5Pget_filter2 then shows them),
 * for an array read from a store: v2's filters and compressor, or v3's codec list (its
 * bytes->bytes codecs, those of a shard's inner chunks). Codecs with no HDF5 filter id are
 * left out; the array still opens. esz: element size (for shuffle without "elementsize"). */
herr_t ncztr_codecs_to_dcpl(const json_t *filters, const json_t *compressor, const json_t *v3codecs,
                            size_t esz, hid_t dcpl);

/* The Zarr v3 codec list of a chain stored in v2's spelling (filters, compressor, as
 * ncztr_codecs_from_dcpl gives them): "bytes" in the dtype's byte order (an object array's
 * first filter, "vlen-utf8", in its place), then each codec as v3 names it. With inner (rank entries), the
 * list goes inside a "sharding_indexed" codec whose inner chunks have that shape. A new reference; NULL when
 * out of memory. */
json_t *ncztr_codecs_to_v3(const json_t *filters, const json_t *compressor, bool big_endian, size_t esz,
                           int rank, const uint64_t *inner);

/* Forgets the filter plugins found (the connector's terminate callback: no chain may be in
 * use); their libraries stay loaded. */
void ncztr_codec_term(void);

/* ---- the codec chain of one array ---- */

typedef struct ncztr_chain ncztr_chain;

/* A failure reported by encode/decode, pushed by the calling thread. */
typedef struct ncztr_cerr {
    char msg[512];
} ncztr_cerr;

/* What the codecs of a chain know of the chunks they encode: for the codecs inside a shard,
 * the inner chunk. */
typedef struct ncztr_cctx {
    size_t esz;                     /* element size in bytes */
    int rank;                       /* 0 for a single element */
    uint64_t shape[NCZTR_MAX_RANK]; /* the chunk's shape in elements */
    size_t chunk_bytes;             /* esz times the product of shape */
    const unsigned char *fill;      /* esz bytes in the stored byte order, or NULL (zeros) */
    char utf32;                     /* numpy UTF-32 text ('<' or '>' its byte order): elements of
                                       esz / 4 code points on disk, NUL-padded UTF-8 above */
    bool vlen;                      /* elements of variable length: each an hvl_t (esz is its size) whose
                                       p is malloc'ed (see ncztr_c_vlen.c) */
    const char *path;               /* the array, for messages */
    /* The chain's own operations, for a codec holding chains of its own (sharding's inner
     * chunks and index): set by ncztr_chain_build, so that no codec calls up into the
     * chain (the chain -> registry -> codec calls go one way). */
    const struct ncztr_chain_ops *chain_ops;
} ncztr_cctx;

typedef struct ncztr_chain_ops {
    herr_t (*build_v3)(const json_t *codecs, const struct ncztr_cctx *cx, ncztr_chain **out);
    void (*free)(ncztr_chain *c);
    bool (*is_null)(const ncztr_chain *c);
    const char *(*unusable)(const ncztr_chain *c);
    int (*decode)(const ncztr_chain *c, const void *in, size_t inlen, void *out, size_t outlen,
                  ncztr_cerr *e);
    int (*encode)(const ncztr_chain *c, const void *in, size_t inlen, void **out, size_t *outlen,
                  ncztr_cerr *e);
    size_t (*encode_bound)(const ncztr_chain *c, size_t inlen);
    int (*encode_into)(const ncztr_chain *c, const void *in, size_t inlen, void *dst, size_t cap, void **out,
                       size_t *outlen, ncztr_cerr *e);
} ncztr_chain_ops;

/* Builds the chain once per array (plugins are looked up and loaded here) from the codecs
 * as stored: Zarr v2's filters (null or a list) and compressor (null or an object), or
 * (v3codecs not NULL) Zarr v3's codec list, array->array codecs, one array->bytes codec and
 * bytes->bytes codecs, in that order. An unknown codec or a missing plugin does not fail
 * the build: the chain is then unusable and every encode/decode reports, naming the codec
 * and the plugin path searched, so that the array still opens and only its data cannot be
 * read or written. Fails (pushing) for malformed codec JSON, a v3 list out of order, or
 * out of memory. cx: the array's chunk (cx->path names the array in messages). */
herr_t ncztr_chain_build(const json_t *filters, const json_t *compressor, const json_t *v3codecs,
                         const ncztr_cctx *cx, ncztr_chain **out);
void ncztr_chain_free(ncztr_chain *c);

/* True when chunks are stored as raw bytes (no codecs at all). */
bool ncztr_chain_is_null(const ncztr_chain *c);
/* NULL when usable, else why not (the message encode/decode would report). */
const char *ncztr_chain_unusable(const ncztr_chain *c);

/* Decodes one stored chunk of inlen bytes into out, which receives exactly outlen bytes
 * (the raw chunk size): a result of any other size is an error. Returns 0, or -1 with
 * e->msg set. Thread-safe. */
int ncztr_chain_decode(const ncztr_chain *c, const void *in, size_t inlen, void *out, size_t outlen,
                       ncztr_cerr *e);

/* A shard's inner chunks one by one (ncztr_chain_decode_each): number inner in C order
 * over the shard's grid of inner chunks, raw in C order of the inner shape. Runs on the
 * decoding thread; pushes nothing. */
typedef void (*ncztr_inner_sink)(void *ud, size_t inner, const unsigned char *raw);

/* Whether this chain's chunks are shards that decode inner chunk by inner chunk: the chain
 * is one sharding_indexed codec of fixed-size elements over rank dimensions. Then shape
 * gets the inner chunk's shape. */
bool ncztr_chain_inner_shape(const ncztr_chain *c, int rank, uint64_t *shape);

/* Decodes one stored shard, handing each inner chunk to sink (all fill where never
 * written) instead of assembling the shard: for a reader that places the inner chunks
 * itself, one copy fewer. Only where ncztr_chain_inner_shape holds. Returns 0, or -1 with
 * e->msg set (the inner chunks handed before the failure are not taken back).
 * Thread-safe. */
int ncztr_chain_decode_each(const ncztr_chain *c, const void *in, size_t inlen, ncztr_inner_sink sink,
                            void *ud, ncztr_cerr *e);

/* Reading part of a shard, where ncztr_chain_inner_shape holds: the encoded index's size
 * in bytes (0 for other chains) and whether it starts the shard object (else it ends it). */
size_t ncztr_chain_shard_index_span(const ncztr_chain *c, bool *at_start);
/* Decodes a shard's encoded index (ncztr_chain_shard_index_span bytes at in) of an object
 * of objlen bytes into two uint64 per inner chunk in C order, offset and length (both
 * UINT64_MAX: never written), each checked to lie in the object. Returns 0, or -1 with
 * e->msg set. Thread-safe. */
int ncztr_chain_shard_index(const ncztr_chain *c, const void *in, uint64_t objlen, uint64_t *pairs,
                            ncztr_cerr *e);
/* One inner chunk of a shard: its stored bytes (in NULL: never written, all fill) decoded
 * into scratch (the inner chunk's raw size), or in itself when stored raw; NULL with
 * e->msg set on failure. Thread-safe. */
const unsigned char *ncztr_chain_inner_decode(const ncztr_chain *c, const void *in, size_t inlen,
                                              unsigned char *scratch, ncztr_cerr *e);

/* Writing a shard inner chunk by inner chunk (where ncztr_chain_inner_shape holds): the room
 * an encoded inner chunk may take at dst (0: the inner codecs cannot write there); one inner
 * chunk, raw in C order of the inner shape, encoded at dst when dst (cap bytes, at least
 * that room) is given and the codecs can (*out is then dst), else into *out (malloc'ed, the
 * caller's), or *out NULL when it is all fill (never written); and the shard's index of
 * (offset, length) pairs (UINT64_MAX twice: never written) encoded into out,
 * ncztr_chain_shard_index_span bytes. Return 0, or -1 with e->msg set. Thread-safe. */
size_t ncztr_chain_inner_bound(const ncztr_chain *c);
/* Whether the inner chunks are stored as their raw bytes: a writer may then gather each
 * into the buffer it stores from and pass it as both raw and dst (kept there, no copy). */
bool ncztr_chain_inner_raw(const ncztr_chain *c);
int ncztr_chain_inner_encode(const ncztr_chain *c, const void *raw, void *dst, size_t cap, void **out,
                             size_t *outlen, ncztr_cerr *e);
int ncztr_chain_shard_index_encode(const ncztr_chain *c, const uint64_t *pairs, void *out, ncztr_cerr *e);

/* The room ncztr_chain_encode_into needs at dst for inlen raw bytes, or 0 when the chain's
 * last codec cannot write into the caller's buffer. */
size_t ncztr_chain_encode_bound(const ncztr_chain *c, size_t inlen);
/* ncztr_chain_encode, the result written at dst (cap bytes, at least
 * ncztr_chain_encode_bound) where the chain's last codec can (*out is then dst). */
int ncztr_chain_encode_into(const ncztr_chain *c, const void *in, size_t inlen, void *dst, size_t cap,
                            void **out, size_t *outlen, ncztr_cerr *e);

/* Encodes inlen raw bytes. On success *out is a malloc'ed buffer of *outlen bytes that
 * the caller frees; for the null chain *out is in itself (not to be freed). Returns 0, or
 * -1 with e->msg set. Thread-safe. */
int ncztr_chain_encode(const ncztr_chain *c, const void *in, size_t inlen, void **out, size_t *outlen,
                       ncztr_cerr *e);

#endif
