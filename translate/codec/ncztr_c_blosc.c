/* blosc (numcodecs "blosc", Zarr v3 "blosc"), through c-blosc's context calls (thread-safe,
 * no global state): a chunk is one blosc frame, as numcodecs and the HDF5 blosc filter 32001
 * (hdf5-blosc) store it. It ran through that filter's plugin before; calling c-blosc itself
 * reads blosc with no plugin on the path, and lets the connector's own filter libraries
 * offer blosc to netCDF-C and to native HDF5 programs (translate/plugin) without a plugin
 * that looks itself up. HDF5 programs see filter 32001 with hdf5-blosc's cd_values: [0]
 * filter revision, [1] blosc format version, [2] type size, [3] chunk bytes, [4] clevel,
 * [5] shuffle, [6] compressor code. numcodecs' "blocksize" is blosc's internal block size
 * (0: automatic), and netCDF-C may record the chunk size there: neither is a filter
 * parameter. */
#include "ncztr_codec_internal.h"

#include <blosc.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* blosc's compressor codes (blosc.h BLOSC_*_COMPNAME / BLOSC_* codes) */
static const char *const cnames[] = {"blosclz", "lz4", "lz4hc", "snappy", "zlib", "zstd"};
#define NCNAMES (sizeof cnames / sizeof cnames[0])
/* Zarr v3's names of blosc's shuffle modes, by code */
static const char *const shuffles[] = {"noshuffle", "shuffle", "bitshuffle"};
/* hdf5-blosc's filter revision and blosc's format version, cd_values[0] and [1] */
#define FILTER_REVISION 2
#define FORMAT_VERSION  2
/* blosc rejects type sizes above this; hdf5-blosc's set_local then uses 1 */
#define MAX_TYPESIZE 255

static int parse(const json_t *j, bool v3, const ncztr_cctx *cx, void **state, char *msg, size_t msglen)
{
    long long clevel, shuffle = 1, typesize = (long long)cx->esz;
    if (ncztr_codec_int(j, "clevel", 5, 0, 9, &clevel, msg, msglen) < 0)
        return -1;
    const json_t *js = j ? json_object_get(j, "shuffle") : NULL;
    if (v3 && json_is_string(js)) {
        shuffle = -2;
        for (size_t k = 0; k < 3; k++)
            if (strcmp(json_string_value(js), shuffles[k]) == 0)
                shuffle = (long long)k;
        if (shuffle == -2) {
            NCZTR_CODEC_MSG("codec \"blosc\": unknown \"shuffle\" \"%s\"", json_string_value(js));
            return -1;
        }
    } else if (ncztr_codec_int(j, "shuffle", 1, -1, 2, &shuffle, msg, msglen) < 0) {
        return -1;
    }
    if (v3 && ncztr_codec_int(j, "typesize", (long long)cx->esz, 0, INT_MAX, &typesize, msg, msglen) < 0)
        return -1;
    const json_t *jc = j ? json_object_get(j, "cname") : NULL;
    const char *cname = jc ? json_string_value(jc) : "lz4";
    unsigned code = NCNAMES;
    for (unsigned k = 0; cname && k < NCNAMES; k++)
        if (strcmp(cname, cnames[k]) == 0)
            code = k;
    if (code == NCNAMES) {
        NCZTR_CODEC_MSG("codec \"blosc\": unknown compressor \"cname\" %s%s%s", cname ? "\"" : "",
                        cname ? cname : "(not a string)", cname ? "\"" : "");
        return -1;
    }
    if (shuffle == -1) /* numcodecs' AUTOSHUFFLE */
        shuffle = cx->esz == 1 ? 2 : 1;
    if (cx->chunk_bytes > UINT_MAX) {
        NCZTR_CODEC_MSG("codec \"blosc\": a chunk of %zu bytes is over blosc's limit", cx->chunk_bytes);
        return -1;
    }
    ncztr_filt *f = calloc(1, sizeof *f);
    if (!f) {
        NCZTR_CODEC_MSG("out of memory");
        return -1;
    }
    unsigned cd[7] = {FILTER_REVISION,
                      FORMAT_VERSION,
                      (unsigned)(typesize > MAX_TYPESIZE || typesize == 0 ? 1 : typesize),
                      (unsigned)cx->chunk_bytes,
                      (unsigned)clevel,
                      (unsigned)shuffle,
                      code};
    f->id = NCZTR_FILTER_BLOSC;
    f->flags = H5Z_FLAG_MANDATORY;
    f->ncd = 7;
    memcpy(f->cd, cd, sizeof cd);
    *state = f;
    return 1;
}

static size_t encode_bound(const void *state, size_t inlen)
{
    (void)state;
    /* 0: no buffer will do, ncztr_codec_encode says why */
    return inlen > (size_t)BLOSC_MAX_BUFFERSIZE ? 0 : inlen + BLOSC_MAX_OVERHEAD;
}

/* Into the caller's buffer of cap >= encode_bound bytes, a bound that is not 0 (whole
 * chunks into the array's pooled buffers, a shard's inner chunks into its writer's). */
static int encode_into(const void *state, const ncztr_cctx *cx, const void *in, size_t inlen, void *out,
                       size_t cap, size_t *outlen, ncztr_cerr *e)
{
    (void)cx;
    const unsigned *cd = ((const ncztr_filt *)state)->cd;
    int n = blosc_compress_ctx((int)cd[4], (int)cd[5], cd[2], inlen, in, out, cap, cnames[cd[6]], 0, 1);
    if (n <= 0)
        return NCZTR_CODEC_FAIL(e, "blosc: compression with \"%s\" failed (is it built into this c-blosc?)",
                                cnames[cd[6]]);
    *outlen = (size_t)n;
    return 0;
}

/* The most bytes a frame of cbytes can decode to, by the compressor its header names (flags
 * bits 5-7): LZ77 codecs emit at most 255 bytes a byte of input (lz4, blosclz; snappy less),
 * zlib 1032, zstd 32768 (a block of 128 KiB as one repeated byte in 4); a frame stored
 * uncompressed (flags bit 1) holds exactly its bytes after the 16-byte header. */
static uint64_t frame_max(const unsigned char *h, size_t cbytes)
{
    if (h[2] & 0x02)
        return cbytes - BLOSC_MIN_HEADER_LENGTH;
    unsigned code = h[2] >> 5;
    uint64_t ratio = code <= 2 ? 256 : code == 3 ? 1040 : 32768;
    return (uint64_t)cbytes * ratio;
}

static int decode(const void *state, const ncztr_cctx *cx, const void *in, size_t inlen, void *out,
                  size_t cap, ncztr_dres *r, ncztr_cerr *e)
{
    (void)state;
    (void)cx;
    size_t n = 0;
    if (blosc_cbuffer_validate(in, inlen, &n) < 0)
        return NCZTR_CODEC_FAIL(e, "blosc: a damaged or truncated frame (%zu bytes)", inlen);
    /* the size the header states is checked before any room is made for it: a chunk whose
     * size is not known (variable-length elements) is given what the frame asks for */
    if (n > frame_max(in, inlen))
        return NCZTR_CODEC_FAIL(
            e, "blosc: a frame of %zu bytes states %zu bytes of data, more than it can hold", inlen, n);
    if (n > cap)
        return NCZTR_CODEC_ROOM(e, "blosc: the data decompresses to %zu bytes, more than the %zu expected", n,
                                cap);
    if (n && blosc_decompress_ctx(in, out, cap, 1) != (int)n)
        return NCZTR_CODEC_FAIL(e, "blosc: a damaged frame (%zu bytes)", inlen);
    r->where = NCZTR_D_OUT;
    r->outlen = n;
    return 0;
}

static int to_filt(const void *state, const ncztr_cctx *cx, ncztr_filt *f, char *msg, size_t msglen)
{
    (void)cx;
    (void)msg;
    (void)msglen;
    *f = *(const ncztr_filt *)state;
    return 1;
}

static json_t *from_filt(const ncztr_filt *f, char *msg, size_t msglen)
{
    const unsigned *cd = f->cd;
    size_t n = f->ncd;
    unsigned code = n > 6 ? cd[6] : 0;
    if (code >= NCNAMES) {
        NCZTR_CODEC_MSG("filter blosc: unknown compressor code %u", code);
        return NULL;
    }
    json_t *j = ncztr_codec_with_int(
        ncztr_codec_with_int(ncztr_codec_with_int(ncztr_codec_obj("blosc"), "clevel", n > 4 ? cd[4] : 5),
                             "shuffle", n > 5 ? cd[5] : 1),
        "blocksize", 0);
    if (j && json_object_set_new(j, "cname", json_string(cnames[code])) < 0) {
        json_decref(j);
        j = NULL;
    }
    if (!j)
        NCZTR_CODEC_MSG("out of memory building a codec");
    return j;
}

const ncztr_codec_class ncztr_codec_blosc = {
    .v2id = "blosc",
    .v3name = "blosc",
    .kind = NCZTR_CK_B2B,
    .filter = NCZTR_FILTER_BLOSC,
    .parse = parse,
    .encode_bound = encode_bound,
    .encode_into = encode_into,
    .decode = decode,
    .free_state = free,
    .to_filt = to_filt,
    .from_filt = from_filt,
};
