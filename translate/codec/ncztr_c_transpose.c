/* transpose (Zarr v3): an array->array codec that stores the chunk with its dimensions
 * permuted: "order" lists, for each stored dimension, the chunk's dimension it is (stored
 * shape[k] = shape[order[k]]). */
#include "ncztr_codec_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct transpose_state {
    int rank;
    int order[NCZTR_MAX_RANK];
} transpose_state;

static int parse(const json_t *j, bool v3, const ncztr_cctx *cx, void **state, char *msg, size_t msglen)
{
    (void)v3;
    const json_t *o = j ? json_object_get(j, "order") : NULL;
    if (!json_is_array(o) || (int)json_array_size(o) != cx->rank) {
        NCZTR_CODEC_MSG("codec \"transpose\": \"order\" must list the %d dimensions of the chunk", cx->rank);
        return -1;
    }
    transpose_state *s = calloc(1, sizeof *s);
    if (!s) {
        NCZTR_CODEC_MSG("out of memory");
        return -1;
    }
    bool seen[NCZTR_MAX_RANK] = {false};
    s->rank = cx->rank;
    for (int k = 0; k < cx->rank; k++) {
        const json_t *v = json_array_get(o, (size_t)k);
        json_int_t d = json_is_integer(v) ? json_integer_value(v) : -1;
        if (d < 0 || d >= cx->rank || seen[d]) {
            free(s);
            NCZTR_CODEC_MSG("codec \"transpose\": \"order\" is not a permutation of 0..%d", cx->rank - 1);
            return -1;
        }
        seen[d] = true;
        s->order[k] = (int)d;
    }
    *state = s;
    return 1;
}

static void out_shape(const void *state, const ncztr_cctx *in, ncztr_cctx *out)
{
    const transpose_state *s = state;
    *out = *in;
    for (int k = 0; k < s->rank; k++)
        out->shape[k] = in->shape[s->order[k]];
}

/* Copies the elements of src (shape `shape`, C order) to dst, where the element at index i
 * goes to the offset sum_k i[k] * dstride[k] (in elements). */
static void scatter(const unsigned char *src, unsigned char *dst, int rank, const uint64_t *shape,
                    const size_t *dstride, size_t esz)
{
    size_t idx[NCZTR_MAX_RANK] = {0}, off = 0, n = 1;
    for (int k = 0; k < rank; k++)
        n *= (size_t)shape[k];
    for (size_t i = 0; i < n; i++) {
        memcpy(dst + off * esz, src + i * esz, esz);
        for (int k = rank - 1; k >= 0; k--) {
            off += dstride[k];
            if (++idx[k] < shape[k])
                break;
            off -= idx[k] * dstride[k];
            idx[k] = 0;
        }
    }
}

/* C-order strides (in elements) of a shape. */
static void strides(int rank, const uint64_t *shape, size_t *st)
{
    size_t s = 1;
    for (int k = rank - 1; k >= 0; k--) {
        st[k] = s;
        s *= (size_t)shape[k];
    }
}

static int encode(const void *state, const ncztr_cctx *cx, const void *in, size_t inlen, void **out,
                  size_t *outlen, ncztr_cerr *e)
{
    const transpose_state *s = state;
    if (inlen != cx->chunk_bytes)
        return NCZTR_CODEC_FAIL(e, "transpose: %zu bytes, expected %zu", inlen, cx->chunk_bytes);
    unsigned char *dst = malloc(inlen ? inlen : 1);
    if (!dst)
        return NCZTR_CODEC_FAIL(e, "transpose: out of memory");
    /* element i of the chunk lands at stored index t with t[k] = i[order[k]] */
    ncztr_cctx t;
    size_t tst[NCZTR_MAX_RANK], dstride[NCZTR_MAX_RANK];
    out_shape(s, cx, &t);
    strides(s->rank, t.shape, tst);
    for (int k = 0; k < s->rank; k++)
        dstride[s->order[k]] = tst[k];
    scatter(in, dst, s->rank, cx->shape, dstride, cx->esz);
    *out = dst;
    *outlen = inlen;
    return 0;
}

static int decode(const void *state, const ncztr_cctx *cx, const void *in, size_t inlen, void *out,
                  size_t cap, ncztr_dres *r, ncztr_cerr *e)
{
    /* cx is the chunk as this codec takes it when encoding; the stored shape is out_shape's */
    const transpose_state *s = state;
    if (inlen != cx->chunk_bytes || cap < inlen)
        return NCZTR_CODEC_FAIL(e, "transpose: %zu bytes, expected %zu", inlen, cx->chunk_bytes);
    ncztr_cctx t;
    size_t cst[NCZTR_MAX_RANK], dstride[NCZTR_MAX_RANK];
    out_shape(s, cx, &t);
    strides(s->rank, cx->shape, cst);
    /* stored element at index t goes to chunk index i with i[order[k]] = t[k] */
    for (int k = 0; k < s->rank; k++)
        dstride[k] = cst[s->order[k]];
    scatter(in, out, s->rank, t.shape, dstride, cx->esz);
    r->where = NCZTR_D_OUT;
    r->outlen = inlen;
    return 0;
}

const ncztr_codec_class ncztr_codec_transpose = {
    .v3name = "transpose",
    .kind = NCZTR_CK_A2A,
    .parse = parse,
    .out_shape = out_shape,
    .encode = encode,
    .decode = decode,
    .free_state = free,
};
