/* The codec chain of one array: its codecs parsed once (plugins resolved) into stages that
 * encode and decode chunk bytes, in the order Zarr v3 types them: array->array codecs,
 * one array->bytes codec, bytes->bytes codecs. A v2 .zarray's "filters" then "compressor"
 * are its bytes->bytes codecs (the array->bytes step of v2, raw bytes in the dtype's
 * order, needs no stage). Encoding runs the stages in order, decoding in reverse.
 *
 * encode/decode make no HDF5 calls and push nothing (they run on worker threads). Every
 * decoding step is bounded: no stage may produce more than the raw chunk size plus a
 * little slack, and the last must produce exactly the raw chunk size. Chunks of
 * variable-length elements (ncztr_c_vlen.c) have no size known before decoding: their
 * steps may produce up to VLEN_MAX_BYTES, the room given growing as a step needs it. */
#include "ncztr_codec_internal.h"
#include "ncztr_err.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The most bytes one decoding step of a chunk of variable-length elements may produce:
 * 512 MiB. (At 2 GiB, an input of 242 bytes to fuzz_codecs, a zstd frame, had the
 * reader allocate 1 GiB on its way there.) */
#define VLEN_MAX_BYTES ((size_t)1 << 29)

struct ncztr_chain {
    bool vlen; /* its array->bytes codec is one of variable-length elements */
    size_t nst;
    ncztr_stage *st;
    char *unusable;
};

static bool codec_absent(const json_t *j)
{
    return j == NULL || json_is_null(j) || (json_is_array(j) && json_array_size(j) == 0);
}

/* The most bytes any decoding step may produce for a raw chunk of raw bytes: the raw size
 * plus what an incompressible chunk costs in a compressed stream (an intermediate result
 * may be compressed bytes). */
static size_t decode_bound(size_t raw)
{
    return raw + raw / 64 + 1024;
}

/* Parses codec k of the chain into its next stage. */
static herr_t add_stage(ncztr_chain *c, const json_t *codec, bool v3, const ncztr_cctx *cx)
{
    char msg[400] = "";
    ncztr_stage *s = &c->st[c->nst];
    int r = ncztr_stage_parse(codec, v3, cx, s, msg, sizeof msg);
    c->nst++; /* its state is freed with the chain in every case */
    if (r < 0)
        return NCZ_PUSH(NCZ_E_FORMAT, "array \"%s\": %s", cx->path, msg);
    if (r == 0 && !(c->unusable = strdup(msg)))
        return NCZ_PUSH(NCZ_E_NOMEM, "out of memory");
    return SUCCEED;
}

/* numpy's UTF-32 text: the conversion to the UTF-8 HDF5 shows comes first (ncztr_c_utf32.c) */
static void add_utf32(ncztr_chain *c, const ncztr_cctx *cx)
{
    if (!cx->utf32)
        return;
    c->st[0].cls = &ncztr_codec_utf32;
    c->st[0].cx = *cx;
    c->nst = 1;
}

herr_t ncztr_chain_build_v3(const json_t *codecs, const ncztr_cctx *cx, ncztr_chain **out)
{
    return ncztr_chain_build(NULL, NULL, codecs, cx, out);
}

static const ncztr_chain_ops chain_ops = {
    .build_v3 = ncztr_chain_build_v3,
    .free = ncztr_chain_free,
    .is_null = ncztr_chain_is_null,
    .unusable = ncztr_chain_unusable,
    .decode = ncztr_chain_decode,
    .encode = ncztr_chain_encode,
    .encode_bound = ncztr_chain_encode_bound,
    .encode_into = ncztr_chain_encode_into,
};

const ncztr_chain_ops *ncztr_chain_operations(void)
{
    return &chain_ops;
}

herr_t ncztr_chain_build(const json_t *filters, const json_t *compressor, const json_t *v3codecs,
                         const ncztr_cctx *cx_in, ncztr_chain **out)
{
    herr_t ret = SUCCEED;
    *out = NULL;
    ncztr_cctx cx1 = *cx_in; /* every stage gets the chain's operations (ncztr_cctx.chain_ops) */
    cx1.chain_ops = &chain_ops;
    const ncztr_cctx *cx = &cx1;
    ncztr_chain *c = calloc(1, sizeof *c);
    NCZ_CHECK_ALLOC(c, FAIL);
    const char *path = cx->path;
    if (v3codecs) {
        if (!json_is_array(v3codecs) || json_array_size(v3codecs) == 0)
            NCZ_GOTO(FAIL, NCZ_E_FORMAT, "array \"%s\": \"codecs\" must be a non-empty list", path);
        size_t n = json_array_size(v3codecs);
        c->st = calloc(n + 1, sizeof *c->st);
        NCZ_CHECK_ALLOC(c->st, FAIL);
        add_utf32(c, cx);
        ncztr_cctx cur = *cx;
        int phase = NCZTR_CK_A2A;
        for (size_t k = 0; k < n && !c->unusable; k++) {
            if (add_stage(c, json_array_get(v3codecs, k), true, &cur) < 0)
                NCZ_GOTO_QUIET(FAIL);
            const ncztr_stage *s = &c->st[c->nst - 1];
            if (c->unusable && !s->cls)
                break; /* an unknown codec: its kind is not known either */
            const char *nm = s->cls->v3name ? s->cls->v3name : s->cls->v2id;
            if (s->cls->kind == NCZTR_CK_A2A && phase != NCZTR_CK_A2A)
                NCZ_GOTO(FAIL, NCZ_E_FORMAT,
                         "array \"%s\": codec %zu (\"%s\", array->array) comes after the "
                         "array->bytes codec",
                         path, k, nm);
            if (s->cls->kind == NCZTR_CK_A2B && phase != NCZTR_CK_A2A)
                NCZ_GOTO(FAIL, NCZ_E_FORMAT,
                         "array \"%s\": codec %zu (\"%s\") is a second array->bytes codec", path, k, nm);
            if (s->cls->kind == NCZTR_CK_B2B && phase == NCZTR_CK_A2A)
                NCZ_GOTO(FAIL, NCZ_E_FORMAT,
                         "array \"%s\": codec %zu (\"%s\", bytes->bytes) comes before an "
                         "array->bytes codec (such as \"bytes\")",
                         path, k, nm);
            if (s->cls->vlen || (s->cls->nests && cx->vlen))
                c->vlen = true;
            if (s->cls->kind == NCZTR_CK_A2A) {
                if (s->cls->out_shape)
                    s->cls->out_shape(s->state, &cur, &cur);
            } else {
                phase = NCZTR_CK_B2B;
            }
        }
        if (!c->unusable && phase != NCZTR_CK_B2B)
            NCZ_GOTO(FAIL, NCZ_E_FORMAT,
                     "array \"%s\": \"codecs\" has no array->bytes codec (such as \"bytes\")", path);
    } else {
        if (!codec_absent(filters) && !json_is_array(filters))
            NCZ_GOTO(FAIL, NCZ_E_FORMAT, "array \"%s\": \"filters\" is neither null nor a list", path);
        if (!codec_absent(compressor) && !json_is_object(compressor))
            NCZ_GOTO(FAIL, NCZ_E_FORMAT, "array \"%s\": \"compressor\" is neither null nor an object", path);
        size_t nf = json_is_array(filters) ? json_array_size(filters) : 0;
        size_t n = nf + (codec_absent(compressor) ? 0 : 1);
        c->st = calloc(n + 1, sizeof *c->st);
        NCZ_CHECK_ALLOC(c->st, FAIL);
        add_utf32(c, cx);
        for (size_t k = 0; k < n && !c->unusable; k++) {
            if (add_stage(c, k < nf ? json_array_get(filters, k) : compressor, false, cx) < 0)
                NCZ_GOTO_QUIET(FAIL);
            const ncztr_stage *s = &c->st[c->nst - 1];
            /* v2 spells the object codec of "|O" arrays as their first filter */
            if (s->cls && s->cls->vlen && k == 0)
                c->vlen = true;
            else if (s->cls && s->cls->kind != NCZTR_CK_B2B)
                NCZ_GOTO(FAIL, NCZ_E_FORMAT, "array \"%s\": codec \"%s\" is not a bytes->bytes codec", path,
                         s->cls->v2id ? s->cls->v2id : s->cls->v3name);
        }
    }
    if (!c->unusable && c->vlen != cx->vlen)
        NCZ_GOTO(FAIL, NCZ_E_FORMAT,
                 cx->vlen ? "array \"%s\": an array of variable-length elements needs an object codec "
                            "(\"vlen-utf8\", \"vlen-bytes\" or \"vlen-array\") first"
                          : "array \"%s\": its codecs are those of variable-length elements, its data type "
                            "is not",
                 path);
    *out = c;
    c = NULL;
done:
    ncztr_chain_free(c);
    return ret;
}

void ncztr_chain_free(ncztr_chain *c)
{
    if (!c)
        return;
    for (size_t i = 0; i < c->nst; i++)
        ncztr_stage_clear(&c->st[i]);
    free(c->st);
    free(c->unusable);
    free(c);
}

bool ncztr_chain_is_null(const ncztr_chain *c)
{
    if (c->unusable)
        return false;
    for (size_t i = 0; i < c->nst; i++)
        if (c->st[i].cls != &ncztr_codec_bytes)
            return false;
    return true;
}

const char *ncztr_chain_unusable(const ncztr_chain *c)
{
    return c->unusable;
}

/* One decoding attempt of stage s into out (cap bytes), or into a buffer of cap bytes of its
 * own when out is NULL: *dstp is where the result is (NULL unless it is in a buffer). */
static int decode_once(const ncztr_stage *s, const unsigned char *src, size_t n, unsigned char *out,
                       size_t cap, unsigned char **dstp, ncztr_dres *res, ncztr_cerr *e)
{
    unsigned char *dst = out ? out : malloc(cap ? cap : 1);
    if (!dst)
        return NCZTR_CODEC_FAIL(e, "out of memory");
    res->where = NCZTR_D_OUT;
    res->outlen = 0;
    res->own = NULL;
    int r = s->cls->decode(s->state, &s->cx, src, n, dst, cap, res, e);
    if (r == 0 && res->where == NCZTR_D_OUT) {
        *dstp = dst;
        return 0;
    }
    if (dst != out)
        free(dst);
    *dstp = NULL;
    return r;
}

int ncztr_stage_decode_grow(const ncztr_stage *s, const void *src, size_t n, size_t max, unsigned char **dstp,
                            ncztr_dres *res, ncztr_cerr *e)
{
    size_t cap = n < max / 4 ? (n * 4 > 65536 ? n * 4 : 65536) : max;
    for (;;) {
        int r = decode_once(s, src, n, NULL, cap, dstp, res, e);
        if (r != NCZTR_CODEC_ROOM_SHORT || cap >= max)
            return r < 0 ? -1 : r;
        cap = cap < max / 4 ? cap * 4 : max;
    }
}

/* Runs decoding step s into dst (the caller's out) or into a buffer of its own. A step of a
 * chain of variable-length elements that is not the last has no known output size
 * (ncztr_stage_decode_grow, up to VLEN_MAX_BYTES). */
static int decode_step(const ncztr_chain *c, const ncztr_stage *s, const unsigned char *src, size_t n,
                       unsigned char *out, size_t outlen, size_t cap, unsigned char **dstp, ncztr_dres *res,
                       ncztr_cerr *e)
{
    if (!out && c->vlen)
        return ncztr_stage_decode_grow(s, src, n, VLEN_MAX_BYTES, dstp, res, e);
    return decode_once(s, src, n, out, out ? outlen : cap, dstp, res, e);
}

int ncztr_chain_decode(const ncztr_chain *c, const void *in, size_t inlen, void *out, size_t outlen,
                       ncztr_cerr *e)
{
    if (c->unusable)
        return NCZTR_CODEC_FAIL(e, "%s", c->unusable);
    const unsigned char *src = in;
    unsigned char *own = NULL; /* when set, src points into own */
    size_t n = inlen, cap = decode_bound(outlen);
    bool in_out = false; /* src is out */
    int r = 0;
    /* "bytes" at the bottom of the chain changes nothing (its size check is the last check
     * below): the stage above it decodes straight into out, saving a chunk-sized buffer and
     * a copy */
    size_t bottom = 0;
    while (bottom + 1 < c->nst && c->st[bottom].cls == &ncztr_codec_bytes)
        bottom++;
    for (size_t i = c->nst; i-- > bottom && r == 0;) {
        const ncztr_stage *s = &c->st[i];
        bool last = i == bottom;
        if (n > (c->vlen ? VLEN_MAX_BYTES : cap)) {
            r = NCZTR_CODEC_FAIL(e, "a stored chunk of %zu bytes is larger than any encoding of %zu bytes", n,
                                 c->vlen ? VLEN_MAX_BYTES : outlen);
            break;
        }
        /* the last step writes straight into out, unless it reads from it */
        unsigned char *dst = NULL;
        ncztr_dres res = {NCZTR_D_OUT, 0, NULL};
        r = decode_step(c, s, src, n, last && !in_out ? out : NULL, outlen, cap, &dst, &res, e);
        if (r < 0) {
            r = -1; /* short of room or not, a failure to the caller */
            break;
        }
        if (res.where == NCZTR_D_INPUT) {
            n = res.outlen; /* src stays */
            continue;
        }
        if (res.where == NCZTR_D_OWN)
            dst = res.own;
        if (own && (const unsigned char *)own == src)
            free(own);
        own = dst == out ? NULL : dst;
        src = dst;
        n = res.outlen;
        in_out = dst == out;
    }
    if (r == 0 && n != outlen)
        r = NCZTR_CODEC_FAIL(e, "the chunk decodes to %zu bytes, expected %zu", n, outlen);
    if (r == 0 && !in_out)
        memmove(out, src, n);
    free(own);
    return r;
}

bool ncztr_chain_inner_shape(const ncztr_chain *c, int rank, uint64_t *shape)
{
    if (c->unusable || c->vlen || c->nst != 1 || !c->st[0].cls->decode_each || c->st[0].cx.rank != rank ||
        c->st[0].cx.vlen || c->st[0].cx.utf32)
        return false;
    const uint64_t *in = c->st[0].cls->inner_shape(c->st[0].state);
    for (int k = 0; k < rank; k++)
        shape[k] = in[k];
    return true;
}

int ncztr_chain_decode_each(const ncztr_chain *c, const void *in, size_t inlen, ncztr_inner_sink sink,
                            void *ud, ncztr_cerr *e)
{
    if (c->unusable)
        return NCZTR_CODEC_FAIL(e, "%s", c->unusable);
    if (c->nst != 1 || !c->st[0].cls->decode_each)
        return NCZTR_CODEC_FAIL(e, "the chunks are not shards that decode inner chunk by inner chunk");
    const ncztr_stage *s = &c->st[0];
    return s->cls->decode_each(s->state, &s->cx, in, inlen, sink, ud, e);
}

/* The partial-shard calls: only for chains where ncztr_chain_inner_shape holds. */
static const ncztr_stage *shard_stage(const ncztr_chain *c)
{
    return !c->unusable && c->nst == 1 && c->st[0].cls->index_span ? &c->st[0] : NULL;
}

size_t ncztr_chain_shard_index_span(const ncztr_chain *c, bool *at_start)
{
    const ncztr_stage *s = shard_stage(c);
    *at_start = false;
    return s ? s->cls->index_span(s->state, at_start) : 0;
}

int ncztr_chain_shard_index(const ncztr_chain *c, const void *in, uint64_t objlen, uint64_t *pairs,
                            ncztr_cerr *e)
{
    const ncztr_stage *s = shard_stage(c);
    if (!s)
        return NCZTR_CODEC_FAIL(e, "the chunks are not shards with an index");
    return s->cls->index_read(s->state, in, objlen, pairs, e);
}

const unsigned char *ncztr_chain_inner_decode(const ncztr_chain *c, const void *in, size_t inlen,
                                              unsigned char *scratch, ncztr_cerr *e)
{
    const ncztr_stage *s = shard_stage(c);
    if (!s) {
        snprintf(e->msg, sizeof e->msg, "the chunks are not shards with an index");
        return NULL;
    }
    return s->cls->decode_inner(s->state, &s->cx, in, inlen, scratch, e);
}

size_t ncztr_chain_inner_bound(const ncztr_chain *c)
{
    const ncztr_stage *s = shard_stage(c);
    return s ? s->cls->inner_bound(s->state) : 0;
}

int ncztr_chain_inner_encode(const ncztr_chain *c, const void *raw, void *dst, size_t cap, void **out,
                             size_t *outlen, ncztr_cerr *e)
{
    const ncztr_stage *s = shard_stage(c);
    if (!s)
        return NCZTR_CODEC_FAIL(e, "the chunks are not shards with an index");
    return s->cls->encode_inner(s->state, &s->cx, raw, dst, cap, out, outlen, e);
}

bool ncztr_chain_inner_raw(const ncztr_chain *c)
{
    const ncztr_stage *s = shard_stage(c);
    return s && s->cls->inner_raw && s->cls->inner_raw(s->state);
}

int ncztr_chain_shard_index_encode(const ncztr_chain *c, const uint64_t *pairs, void *out, ncztr_cerr *e)
{
    const ncztr_stage *s = shard_stage(c);
    if (!s)
        return NCZTR_CODEC_FAIL(e, "the chunks are not shards with an index");
    return s->cls->index_write(s->state, pairs, out, e);
}

size_t ncztr_chain_encode_bound(const ncztr_chain *c, size_t inlen)
{
    const ncztr_stage *last = c->nst ? &c->st[c->nst - 1] : NULL;
    if (c->unusable || !last || !last->cls->encode_into)
        return 0;
    /* the codecs before the last one keep the size (filters); a bigger intermediate result
     * finds no room and is encoded into a buffer of its own */
    return last->cls->encode_bound(last->state, inlen);
}

int ncztr_chain_encode_into(const ncztr_chain *c, const void *in, size_t inlen, void *dst, size_t cap,
                            void **out, size_t *outlen, ncztr_cerr *e)
{
    if (c->unusable)
        return NCZTR_CODEC_FAIL(e, "%s", c->unusable);
    const unsigned char *src = in;
    unsigned char *own = NULL;
    size_t n = inlen;
    for (size_t i = 0; i < c->nst; i++) {
        const ncztr_stage *s = &c->st[i];
        void *res = NULL;
        size_t m = 0;
        int r;
        size_t b = i + 1 == c->nst && dst && s->cls->encode_into ? s->cls->encode_bound(s->state, n) : 0;
        if (b && b <= cap) {
            r = s->cls->encode_into(s->state, &s->cx, src, n, dst, cap, &m, e);
            res = dst;
        } else {
            r = ncztr_codec_encode(s->cls, s->state, &s->cx, src, n, &res, &m, e);
        }
        if (r < 0) {
            free(own);
            return -1;
        }
        if (!res)
            continue; /* unchanged */
        free(own);    /* this stage's input */
        own = res == dst ? NULL : res;
        src = res;
        n = m;
    }
    /* the null chain gives back in itself (not to be freed) */
    *out = (void *)(uintptr_t)src;
    *outlen = n;
    return 0;
}

int ncztr_chain_encode(const ncztr_chain *c, const void *in, size_t inlen, void **out, size_t *outlen,
                       ncztr_cerr *e)
{
    return ncztr_chain_encode_into(c, in, inlen, NULL, 0, out, outlen, e);
}
