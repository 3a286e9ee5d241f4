/* zlib and gzip: deflate streams with a zlib wrapper (numcodecs "zlib"; HDF5's deflate
 * filter writes the same format) or with a gzip wrapper (numcodecs "gzip", Zarr v3 "gzip").
 * Through libdeflate rather than zlib: on whole buffers, as chunks are, it compresses and
 * inflates faster than zlib at the same level (bench/bench_mpi.sh's deflate rows), into
 * streams any inflater reads: zlib's bytes differ, not its format. Thread-safe: libdeflate's
 * compressors and decompressors are kept in the codec's state for reuse, each used by one
 * thread at a time. */
#include "ncztr_codec_internal.h"

#include <libdeflate.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct level_state {
    int level;
    ncztr_ctxpool cc, dc; /* libdeflate compressors of that level, decompressors */
} level_state;

static void free_compressor(void *c)
{
    libdeflate_free_compressor(c);
}

static void free_decompressor(void *d)
{
    libdeflate_free_decompressor(d);
}

static void free_state(void *p)
{
    level_state *s = p;
    if (!s)
        return;
    ncztr_ctxpool_clear(&s->cc);
    ncztr_ctxpool_clear(&s->dc);
    free(s);
}

static int parse(const json_t *j, bool v3, const ncztr_cctx *cx, void **state, char *msg, size_t msglen)
{
    (void)v3;
    (void)cx;
    long long v;
    if (ncztr_codec_int(j, "level", 1, 0, 9, &v, msg, msglen) < 0)
        return -1;
    level_state *s = calloc(1, sizeof *s);
    if (!s || ncztr_ctxpool_init(&s->cc, free_compressor) < 0) {
        free(s);
        NCZTR_CODEC_MSG("out of memory");
        return -1;
    }
    if (ncztr_ctxpool_init(&s->dc, free_decompressor) < 0) {
        ncztr_ctxpool_clear(&s->cc);
        free(s);
        NCZTR_CODEC_MSG("out of memory");
        return -1;
    }
    s->level = (int)v;
    *state = s;
    return 1;
}

/* The bound across every compressor of this libdeflate (a NULL compressor asks for that). */
static size_t bound(bool gzip, size_t inlen)
{
    return gzip ? libdeflate_gzip_compress_bound(NULL, inlen) : libdeflate_zlib_compress_bound(NULL, inlen);
}

/* Into the caller's buffer of cap >= the bound (a chunk into a buffer of the array's pool,
 * not fresh memory per chunk). */
static int encode_into(const void *state, bool gzip, const void *in, size_t inlen, void *out, size_t cap,
                       size_t *outlen, ncztr_cerr *e)
{
    const char *name = gzip ? "gzip" : "zlib";
    /* the state is shared, but only its pools change, under their locks */
    level_state *s = (level_state *)(uintptr_t)state;
    struct libdeflate_compressor *c = ncztr_ctxpool_take(&s->cc);
    if (!c)
        c = libdeflate_alloc_compressor(s->level);
    if (!c)
        return NCZTR_CODEC_FAIL(e, "%s: out of memory", name);
    size_t n = gzip ? libdeflate_gzip_compress(c, in, inlen, out, cap)
                    : libdeflate_zlib_compress(c, in, inlen, out, cap);
    ncztr_ctxpool_give(&s->cc, c);
    if (n == 0) /* cannot happen with a buffer of the bound's size */
        return NCZTR_CODEC_FAIL(e, "%s: compression failed", name);
    *outlen = n;
    return 0;
}

static size_t zlib_bound(const void *state, size_t inlen)
{
    (void)state;
    return bound(false, inlen);
}

static size_t gzip_bound(const void *state, size_t inlen)
{
    (void)state;
    return bound(true, inlen);
}

static int zlib_encode_into(const void *state, const ncztr_cctx *cx, const void *in, size_t inlen, void *out,
                            size_t cap, size_t *outlen, ncztr_cerr *e)
{
    (void)cx;
    return encode_into(state, false, in, inlen, out, cap, outlen, e);
}

static int gzip_encode_into(const void *state, const ncztr_cctx *cx, const void *in, size_t inlen, void *out,
                            size_t cap, size_t *outlen, ncztr_cerr *e)
{
    (void)cx;
    return encode_into(state, true, in, inlen, out, cap, outlen, e);
}

/* A zlib or a gzip stream, told apart by its header (gzip's starts 1f 8b, which no zlib
 * header can). */
static int decode(const void *state, const ncztr_cctx *cx, const void *in, size_t inlen, void *out,
                  size_t cap, ncztr_dres *res, ncztr_cerr *e)
{
    (void)cx;
    level_state *s = (level_state *)(uintptr_t)state;
    const unsigned char *b = in;
    bool gzip = inlen >= 2 && b[0] == 0x1f && b[1] == 0x8b;
    const char *name = gzip ? "gzip" : "zlib";
    struct libdeflate_decompressor *d = ncztr_ctxpool_take(&s->dc);
    if (!d)
        d = libdeflate_alloc_decompressor();
    if (!d)
        return NCZTR_CODEC_FAIL(e, "%s: out of memory", name);
    size_t used = 0, n = 0;
    enum libdeflate_result r = gzip ? libdeflate_gzip_decompress_ex(d, in, inlen, out, cap, &used, &n)
                                    : libdeflate_zlib_decompress_ex(d, in, inlen, out, cap, &used, &n);
    ncztr_ctxpool_give(&s->dc, d);
    switch (r) {
    case LIBDEFLATE_SUCCESS:
        res->where = NCZTR_D_OUT;
        res->outlen = n;
        return 0;
    case LIBDEFLATE_INSUFFICIENT_SPACE:
        return NCZTR_CODEC_ROOM(e, "%s: the data inflates to more than the %zu bytes expected", name, cap);
    default:
        return NCZTR_CODEC_FAIL(e, "%s: the compressed stream (%zu bytes) is damaged or truncated", name,
                                inlen);
    }
}

/* HDF5 has one deflate filter: gzip shows as it too (the same stream inside another
 * wrapper), but a deflate pipeline is stored as zlib. */
static int to_filt(const void *state, const ncztr_cctx *cx, ncztr_filt *f, char *msg, size_t msglen)
{
    (void)cx;
    (void)msg;
    (void)msglen;
    memset(f, 0, sizeof *f);
    f->id = H5Z_FILTER_DEFLATE;
    f->flags = H5Z_FLAG_OPTIONAL;
    f->ncd = 1;
    f->cd[0] = (unsigned)((const level_state *)state)->level;
    return 1;
}

static json_t *from_filt(const ncztr_filt *f, char *msg, size_t msglen)
{
    json_t *j = ncztr_codec_with_int(ncztr_codec_obj("zlib"), "level", f->ncd ? f->cd[0] : 1);
    if (!j)
        NCZTR_CODEC_MSG("out of memory building a codec");
    return j;
}

const ncztr_codec_class ncztr_codec_zlib = {
    .v2id = "zlib",
    .kind = NCZTR_CK_B2B,
    .filter = H5Z_FILTER_DEFLATE,
    .parse = parse,
    .encode_bound = zlib_bound,
    .encode_into = zlib_encode_into,
    .decode = decode,
    .free_state = free_state,
    .to_filt = to_filt,
    .from_filt = from_filt,
};

const ncztr_codec_class ncztr_codec_gzip = {
    .v2id = "gzip",
    .v3name = "gzip",
    .kind = NCZTR_CK_B2B,
    .filter = H5Z_FILTER_DEFLATE,
    .parse = parse,
    .encode_bound = gzip_bound,
    .encode_into = gzip_encode_into,
    .decode = decode,
    .free_state = free_state,
    .to_filt = to_filt,
};
