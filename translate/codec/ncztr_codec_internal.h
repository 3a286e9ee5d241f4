/* translate/codec internals: the connector's own codecs, the plugin registry, and the
 * mapping between one codec's JSON and one HDF5 filter (id, flags, cd_values). */
#ifndef NCZTR_CODEC_INTERNAL_H
#define NCZTR_CODEC_INTERNAL_H

#include "ncztr_codecs.h"

#include <stdint.h>

/* HDF5 filter ids the connector maps (registered ids: https://portal.hdfgroup.org). */
#define NCZTR_FILTER_BZIP2 307
#define NCZTR_FILTER_BLOSC 32001
#define NCZTR_FILTER_LZ4   32004
#define NCZTR_FILTER_ZSTD  32015

/* The most cd_values a filter may carry here (blosc has 7, szip 4). */
#define NCZTR_MAX_CD 16

/* One HDF5 filter of a pipeline. */
typedef struct ncztr_filt {
    H5Z_filter_t id;
    unsigned flags;
    size_t ncd;
    unsigned cd[NCZTR_MAX_CD];
} ncztr_filt;

/* ---- codec JSON <-> one HDF5 filter (ncztr_codecmap.c); no HDF5 calls ---- */

/* A codec parameter: a JSON integer or a string holding one (netCDF-C 4.9.3 writes
 * strings). *out = dflt when the key is absent. Returns 0, or -1 (msg set) when the value
 * is neither or lies outside [lo, hi]. */
int ncztr_codec_int(const json_t *codec, const char *key, long long dflt, long long lo, long long hi,
                    long long *out, char *msg, size_t msglen);

/* The HDF5 filter a codec stands for, with the parameters HDF5 (or its plugin's set_local)
 * would hold: esz and chunk_bytes fill in shuffle's element size and blosc's type size and
 * chunk size. Returns 1 when mapped, 0 when the codec has no HDF5 filter id (msg set),
 * -1 when the codec JSON is malformed (msg set). */
int ncztr_codec_to_filt(const json_t *codec, size_t esz, size_t chunk_bytes, ncztr_filt *f, char *msg,
                        size_t msglen);

/* The codec JSON of an HDF5 filter (a new reference), or NULL when the filter has no
 * Zarr codec (msg set). */
json_t *ncztr_filt_to_codec(const ncztr_filt *f, char *msg, size_t msglen);

/* A short name of a filter id for messages ("deflate", "blosc", or "filter 12345"). */
const char *ncztr_filter_name(H5Z_filter_t id);

/* ---- the connector's own codecs (ncztr_builtin.c); thread-safe, no HDF5 calls ---- */

/* zlib (gzip: with the gzip wrapper). *out is malloc'ed. */
int ncztr_zlib_encode(int level, bool gzip, const void *in, size_t inlen, void **out, size_t *outlen,
                      ncztr_cerr *e);
/* Inflates a zlib or gzip stream into out (at most cap bytes; more is an error). */
int ncztr_zlib_decode(const void *in, size_t inlen, void *out, size_t cap, size_t *outlen, ncztr_cerr *e);

/* HDF5's shuffle: byte k of every element together; trailing bytes that do not fill an
 * element stay where they are. out must not overlap in. */
void ncztr_shuffle(size_t esz, const void *in, size_t n, void *out);
void ncztr_unshuffle(size_t esz, const void *in, size_t n, void *out);

/* HDF5's Fletcher-32 checksum of n bytes (as H5_checksum_fletcher32 computes it). */
uint32_t ncztr_fletcher32(const void *data, size_t n);
/* Checks the 4-byte little-endian footer of n bytes (HDF5 also accepts the checksum of
 * releases before 1.6.3, bytes swapped in each 16-bit half). Returns 0 or -1 (e set). */
int ncztr_fletcher32_check(const void *data, size_t n, ncztr_cerr *e);

/* numcodecs' lz4: a 4-byte little-endian size, then one LZ4 block. */
int ncztr_lz4_encode(int acceleration, const void *in, size_t inlen, void **out, size_t *outlen,
                     ncztr_cerr *e);
/* The uncompressed size the header states must be exactly want, or (want == 0) at most cap. */
int ncztr_lz4_decode(const void *in, size_t inlen, void *out, size_t cap, size_t want, size_t *outlen,
                     ncztr_cerr *e);

/* bzip2 streams (blockSize100k = level). */
int ncztr_bz2_encode(int level, const void *in, size_t inlen, void **out, size_t *outlen, ncztr_cerr *e);
int ncztr_bz2_decode(const void *in, size_t inlen, void *out, size_t cap, size_t *outlen, ncztr_cerr *e);

/* ---- filter plugins (ncztr_plugins.c) ---- */

/* Looks up filter id among the HDF5 filter plugins on the plugin path (HDF5_PLUGIN_PATH or
 * HDF5's default directory, as H5PLget reports it: calling thread only). Each library is
 * opened once per process; libraries that are not filter plugins (the VOL connector
 * itself, netCDF-C's codec libraries) are closed again. *cls is NULL when no plugin has
 * the id; *dirs (malloc'ed, ':'-separated, always set on success) names the directories
 * searched, for messages. Fails (pushing) only when HDF5 cannot report the path or on out
 * of memory. */
herr_t ncztr_plugin_find(H5Z_filter_t id, const H5Z_class2_t **cls, char **dirs);

#endif
