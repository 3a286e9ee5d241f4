/* lz4 as numcodecs stores it: a 4-byte little-endian size, then one LZ4 block. (HDF5's lz4
 * filter 32004 frames its blocks otherwise: the same filter id, not the same bytes.) Pure
 * computation, thread-safe. */
#include "ncztr_codec_internal.h"

#include <limits.h>
#include <lz4.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct lz4_state {
    int acceleration;
} lz4_state;

static int parse(const json_t *j, bool v3, const ncztr_cctx *cx, void **state, char *msg, size_t msglen)
{
    (void)v3;
    (void)cx;
    long long v;
    if (ncztr_codec_int(j, "acceleration", 1, INT_MIN, INT_MAX, &v, msg, msglen) < 0)
        return -1;
    lz4_state *s = malloc(sizeof *s);
    if (!s) {
        NCZTR_CODEC_MSG("out of memory");
        return -1;
    }
    s->acceleration = (int)v;
    *state = s;
    return 1;
}

static size_t encode_bound(const void *state, size_t inlen)
{
    (void)state;
    if (inlen > (size_t)LZ4_MAX_INPUT_SIZE)
        return 0; /* no buffer will do: ncztr_codec_encode says why */
    return (size_t)LZ4_compressBound((int)inlen) + 4;
}

/* Into the caller's buffer of cap >= encode_bound bytes, a bound that is not 0 (whole
 * chunks into the array's pooled buffers, a shard's inner chunks into its writer's). */
static int encode_into(const void *state, const ncztr_cctx *cx, const void *in, size_t inlen, void *out,
                       size_t cap, size_t *outlen, ncztr_cerr *e)
{
    (void)cx;
    if (cap - 4 > (size_t)INT_MAX)
        cap = (size_t)INT_MAX + 4;
    unsigned char *buf = out;
    uint32_t n = (uint32_t)inlen;
    for (int k = 0; k < 4; k++)
        buf[k] = (unsigned char)(n >> (8 * k));
    int r = inlen ? LZ4_compress_fast(in, (char *)buf + 4, (int)inlen, (int)(cap - 4),
                                      ((const lz4_state *)state)->acceleration)
                  : 0;
    if (inlen && r <= 0)
        return NCZTR_CODEC_FAIL(e, "lz4: compression failed");
    *outlen = (size_t)r + 4;
    return 0;
}

static int decode(const void *state, const ncztr_cctx *cx, const void *in, size_t inlen, void *out,
                  size_t cap, ncztr_dres *res, ncztr_cerr *e)
{
    (void)state;
    (void)cx;
    const unsigned char *p = in;
    if (inlen < 4)
        return NCZTR_CODEC_FAIL(e, "lz4: %zu bytes cannot hold the 4-byte size header", inlen);
    size_t n = (size_t)p[0] | (size_t)p[1] << 8 | (size_t)p[2] << 16 | (size_t)p[3] << 24;
    /* checked before any room is made for it (a chunk of variable-length elements gets what
     * the header asks for): an LZ4 block emits at most 255 bytes a byte */
    if (n > (uint64_t)(inlen - 4) * 255 + 16)
        return NCZTR_CODEC_FAIL(
            e, "lz4: the header states %zu uncompressed bytes, more than %zu compressed bytes hold", n,
            inlen - 4);
    if (n > cap)
        return NCZTR_CODEC_ROOM(e, "lz4: the header states %zu uncompressed bytes, expected at most %zu", n,
                                cap);
    res->where = NCZTR_D_OUT;
    res->outlen = n;
    if (n == 0)
        return 0;
    if (inlen - 4 > (size_t)INT_MAX || n > (size_t)INT_MAX)
        return NCZTR_CODEC_FAIL(e, "lz4: a chunk of %zu bytes is over LZ4's limit", n);
    int r = LZ4_decompress_safe((const char *)p + 4, out, (int)(inlen - 4), (int)n);
    if (r < 0 || (size_t)r != n)
        return NCZTR_CODEC_FAIL(e, "lz4: the compressed block is corrupt");
    return 0;
}

static int to_filt(const void *state, const ncztr_cctx *cx, ncztr_filt *f, char *msg, size_t msglen)
{
    (void)state;
    (void)cx;
    (void)msg;
    (void)msglen;
    memset(f, 0, sizeof *f);
    f->id = NCZTR_FILTER_LZ4;
    f->flags = H5Z_FLAG_MANDATORY;
    return 1;
}

static json_t *from_filt(const ncztr_filt *f, char *msg, size_t msglen)
{
    (void)f;
    json_t *j = ncztr_codec_with_int(ncztr_codec_obj("lz4"), "acceleration", 1);
    if (!j)
        NCZTR_CODEC_MSG("out of memory building a codec");
    return j;
}

const ncztr_codec_class ncztr_codec_lz4 = {
    .v2id = "lz4",
    .kind = NCZTR_CK_B2B,
    .filter = NCZTR_FILTER_LZ4,
    .parse = parse,
    .encode_bound = encode_bound,
    .encode_into = encode_into,
    .decode = decode,
    .free_state = free,
    .to_filt = to_filt,
    .from_filt = from_filt,
};
