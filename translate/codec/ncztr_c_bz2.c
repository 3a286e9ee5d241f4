/* bz2: plain bzip2 streams (blockSize100k = level), as numcodecs' bz2 and the HDF5 bzip2
 * filter 307 store them: run here because that plugin's decoder loops forever on a
 * truncated stream. Pure computation, thread-safe. */
#include "ncztr_codec_internal.h"

#include <bzlib.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct bz2_state {
    int level;
} bz2_state;

static int parse(const json_t *j, bool v3, const ncztr_cctx *cx, void **state, char *msg, size_t msglen)
{
    (void)v3;
    (void)cx;
    long long v;
    if (ncztr_codec_int(j, "level", 1, 1, 9, &v, msg, msglen) < 0)
        return -1;
    bz2_state *s = malloc(sizeof *s);
    if (!s) {
        NCZTR_CODEC_MSG("out of memory");
        return -1;
    }
    s->level = (int)v;
    *state = s;
    return 1;
}

/* bzip2's worst case: 1% more plus 600 bytes */
static size_t encode_bound(const void *state, size_t inlen)
{
    (void)state;
    size_t cap = inlen + inlen / 100 + 601;
    return cap > UINT_MAX ? 0 : cap; /* 0: no buffer will do, ncztr_codec_encode says why */
}

/* Into the caller's buffer of cap >= encode_bound bytes, a bound that is not 0 (whole
 * chunks into the array's pooled buffers, a shard's inner chunks into its writer's). */
static int encode_into(const void *state, const ncztr_cctx *cx, const void *in, size_t inlen, void *out,
                       size_t cap, size_t *outlen, ncztr_cerr *e)
{
    (void)cx;
    unsigned n = cap > UINT_MAX ? UINT_MAX : (unsigned)cap;
    int r = BZ2_bzBuffToBuffCompress(out, &n, (char *)(uintptr_t)in, (unsigned)inlen,
                                     ((const bz2_state *)state)->level, 0, 0);
    if (r != BZ_OK)
        return NCZTR_CODEC_FAIL(e, "bz2: compression failed (%d)", r);
    *outlen = n;
    return 0;
}

static int decode(const void *state, const ncztr_cctx *cx, const void *in, size_t inlen, void *out,
                  size_t cap, ncztr_dres *res, ncztr_cerr *e)
{
    (void)state;
    (void)cx;
    if (inlen > UINT_MAX || cap > UINT_MAX)
        return NCZTR_CODEC_FAIL(e, "bz2: a chunk of %zu bytes is too large", inlen > cap ? inlen : cap);
    unsigned n = (unsigned)cap;
    int r = BZ2_bzBuffToBuffDecompress(out, &n, (char *)(uintptr_t)in, (unsigned)inlen, 0, 0);
    if (r == BZ_OUTBUFF_FULL)
        return NCZTR_CODEC_ROOM(e, "bz2: the data decompresses to more than the %zu bytes expected", cap);
    if (r == BZ_UNEXPECTED_EOF)
        return NCZTR_CODEC_FAIL(e, "bz2: the compressed stream is truncated (%zu bytes)", inlen);
    if (r != BZ_OK)
        return NCZTR_CODEC_FAIL(e, "bz2: the compressed stream is corrupt (%d)", r);
    res->where = NCZTR_D_OUT;
    res->outlen = n;
    return 0;
}

static int to_filt(const void *state, const ncztr_cctx *cx, ncztr_filt *f, char *msg, size_t msglen)
{
    (void)cx;
    (void)msg;
    (void)msglen;
    memset(f, 0, sizeof *f);
    f->id = NCZTR_FILTER_BZIP2;
    f->flags = H5Z_FLAG_MANDATORY;
    f->ncd = 1;
    f->cd[0] = (unsigned)((const bz2_state *)state)->level;
    return 1;
}

static json_t *from_filt(const ncztr_filt *f, char *msg, size_t msglen)
{
    json_t *j = ncztr_codec_with_int(ncztr_codec_obj("bz2"), "level", f->ncd ? f->cd[0] : 9);
    if (!j)
        NCZTR_CODEC_MSG("out of memory building a codec");
    return j;
}

const ncztr_codec_class ncztr_codec_bz2 = {
    .v2id = "bz2",
    .kind = NCZTR_CK_B2B,
    .filter = NCZTR_FILTER_BZIP2,
    .parse = parse,
    .encode_bound = encode_bound,
    .encode_into = encode_into,
    .decode = decode,
    .free_state = free,
    .to_filt = to_filt,
    .from_filt = from_filt,
};
