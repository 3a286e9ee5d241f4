/* zstd (numcodecs "zstd", Zarr v3 "zstd"): standard zstd frames, through libzstd (it was
 * run by the HDF5 zstd filter plugin 32015 before: calling libzstd itself saves the two
 * chunk copies the plugin interface makes, and gives the frame checksum Zarr v3's
 * "checksum" asks for). HDF5 programs see it as filter 32015 with the level as its one
 * parameter, as netCDF-C's plugin has it. Decoding checks a frame's checksum when it has
 * one. Thread-safe: the compression and decompression contexts are kept in the codec's
 * state for reuse (a context is a few hundred KiB that a fresh allocation would fault in
 * page by page for every chunk), each used by one thread at a time. */
#include "ncztr_codec_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>
#include <zstd_errors.h>

typedef struct zstd_state {
    int level;
    bool checksum;
    ncztr_ctxpool cc, dc; /* ZSTD_CCtx, ZSTD_DCtx */
} zstd_state;

static void free_cctx(void *c)
{
    ZSTD_freeCCtx(c);
}

static void free_dctx(void *d)
{
    ZSTD_freeDCtx(d);
}

static void free_state(void *p)
{
    zstd_state *s = p;
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
    long long v, ck;
    if (ncztr_codec_int(j, "level", 0, ZSTD_minCLevel(), ZSTD_maxCLevel(), &v, msg, msglen) < 0 ||
        ncztr_codec_int(j, "checksum", 0, 0, 1, &ck, msg, msglen) < 0)
        return -1;
    zstd_state *s = calloc(1, sizeof *s);
    if (!s || ncztr_ctxpool_init(&s->cc, free_cctx) < 0) {
        free(s);
        NCZTR_CODEC_MSG("out of memory");
        return -1;
    }
    if (ncztr_ctxpool_init(&s->dc, free_dctx) < 0) {
        ncztr_ctxpool_clear(&s->cc);
        free(s);
        NCZTR_CODEC_MSG("out of memory");
        return -1;
    }
    s->level = (int)v;
    s->checksum = ck != 0;
    *state = s;
    return 1;
}

static size_t encode_bound(const void *state, size_t inlen)
{
    (void)state;
    return ZSTD_compressBound(inlen);
}

/* Into the caller's buffer of cap >= encode_bound bytes (an inner chunk of a shard into a
 * buffer the shard's writer reuses). */
static int encode_into(const void *state, const ncztr_cctx *cx, const void *in, size_t inlen, void *out,
                       size_t cap, size_t *outlen, ncztr_cerr *e)
{
    (void)cx;
    /* the state is shared, but only its context pools change, under their locks */
    zstd_state *s = (zstd_state *)(uintptr_t)state;
    ZSTD_CCtx *c = ncztr_ctxpool_take(&s->cc);
    if (!c)
        c = ZSTD_createCCtx();
    size_t r = !c ? 0
               : ZSTD_isError(ZSTD_CCtx_reset(c, ZSTD_reset_session_and_parameters)) ||
                       ZSTD_isError(ZSTD_CCtx_setParameter(c, ZSTD_c_compressionLevel, s->level)) ||
                       ZSTD_isError(ZSTD_CCtx_setParameter(c, ZSTD_c_checksumFlag, s->checksum))
                   ? (size_t)-1
                   : ZSTD_compress2(c, out, cap, in, inlen);
    ncztr_ctxpool_give(&s->cc, c);
    if (!c || ZSTD_isError(r))
        return NCZTR_CODEC_FAIL(e, "zstd: %s", !c ? "out of memory" : ZSTD_getErrorName(r));
    *outlen = r;
    return 0;
}

static int decode(const void *state, const ncztr_cctx *cx, const void *in, size_t inlen, void *out,
                  size_t cap, ncztr_dres *res, ncztr_cerr *e)
{
    (void)cx;
    zstd_state *s = (zstd_state *)(uintptr_t)state;
    ZSTD_DCtx *d = ncztr_ctxpool_take(&s->dc);
    if (!d)
        d = ZSTD_createDCtx();
    if (!d)
        return NCZTR_CODEC_FAIL(e, "zstd: out of memory");
    size_t r = ZSTD_decompressDCtx(d, out, cap, in, inlen);
    ncztr_ctxpool_give(&s->dc, d);
    if (ZSTD_isError(r) && ZSTD_getErrorCode(r) == ZSTD_error_dstSize_tooSmall)
        return NCZTR_CODEC_ROOM(e, "zstd: %s (a stored chunk of %zu bytes, at most %zu expected out)",
                                ZSTD_getErrorName(r), inlen, cap);
    if (ZSTD_isError(r))
        return NCZTR_CODEC_FAIL(e, "zstd: %s (a stored chunk of %zu bytes, at most %zu expected out)",
                                ZSTD_getErrorName(r), inlen, cap);
    res->where = NCZTR_D_OUT;
    res->outlen = r;
    return 0;
}

static int to_filt(const void *state, const ncztr_cctx *cx, ncztr_filt *f, char *msg, size_t msglen)
{
    (void)cx;
    (void)msg;
    (void)msglen;
    memset(f, 0, sizeof *f);
    f->id = NCZTR_FILTER_ZSTD;
    f->flags = H5Z_FLAG_MANDATORY;
    f->ncd = 1;
    f->cd[0] = (unsigned)((const zstd_state *)state)->level;
    return 1;
}

static json_t *from_filt(const ncztr_filt *f, char *msg, size_t msglen)
{
    /* no "checksum": numcodecs before 0.12 (Debian 12's 0.11) rejects the key, and false is
     * the default of those that know it */
    json_t *j = ncztr_codec_with_int(ncztr_codec_obj("zstd"), "level", f->ncd ? (int)f->cd[0] : 0);
    if (!j)
        NCZTR_CODEC_MSG("out of memory building a codec");
    return j;
}

const ncztr_codec_class ncztr_codec_zstd = {
    .v2id = "zstd",
    .v3name = "zstd",
    .kind = NCZTR_CK_B2B,
    .filter = NCZTR_FILTER_ZSTD,
    .parse = parse,
    .encode_bound = encode_bound,
    .encode_into = encode_into,
    .decode = decode,
    .free_state = free_state,
    .to_filt = to_filt,
    .from_filt = from_filt,
};
