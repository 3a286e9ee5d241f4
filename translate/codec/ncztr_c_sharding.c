/* sharding_indexed (Zarr v3): an array->bytes codec that stores a chunk (a shard) as the
 * encoded inner chunks one after another and an index of (offset, length) pairs, uint64,
 * one pair per inner chunk in C order, encoded by "index_codecs", at the end of the object
 * or at its start ("index_location"). An inner chunk never written has both values
 * 2^64-1 and is all fill; shards are chunks to the rest of the connector, so a whole shard
 * is decoded or encoded at once (and a partial write rewrites the shard, as in Zarr); a
 * reader that places inner chunks itself takes them one by one (decode_each), and one that
 * needs some of them reads the index, then only their bytes (index_span, index_read,
 * decode_inner); a writer of whole inner chunks encodes them one by one and writes the
 * index (encode_inner, index_write). */
#include "ncztr_codec_internal.h"
#include "ncztr_err.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NONE UINT64_MAX

typedef struct shard_state {
    ncztr_cctx inner;              /* the inner chunk */
    uint64_t grid[NCZTR_MAX_RANK]; /* inner chunks per shard dimension */
    size_t ninner;
    ncztr_chain *chain;  /* the inner chunks' codecs */
    ncztr_chain *ichain; /* the index's codecs */
    size_t index_bytes;  /* the encoded index's size */
    bool index_start;
    bool index_big; /* the index's uint64 are big-endian */
} shard_state;

static void free_state(void *p)
{
    shard_state *s = p;
    if (!s)
        return;
    if (s->inner.chain_ops) {
        s->inner.chain_ops->free(s->chain);
        s->inner.chain_ops->free(s->ichain);
    }
    free(s);
}

/* The encoded size of the index, when its codecs give a fixed one: bytes, then crc32c. */
static int index_size(const json_t *codecs, size_t raw, size_t *out, bool *big, char *msg, size_t msglen)
{
    *out = raw;
    *big = false;
    for (size_t k = 0; k < json_array_size(codecs); k++) {
        const json_t *c = json_array_get(codecs, k);
        const char *name = json_string_value(json_object_get(c, "name"));
        const json_t *conf = json_object_get(c, "configuration");
        if (name && !strcmp(name, "bytes")) {
            const char *en = json_string_value(json_object_get(conf, "endian"));
            *big = en && !strcmp(en, "big");
        } else if (name && !strcmp(name, "crc32c")) {
            *out += 4;
        } else {
            NCZTR_CODEC_MSG("codec \"sharding_indexed\": index codec \"%s\" gives no fixed index size",
                            name ? name : "?");
            return -1;
        }
    }
    return 0;
}

static int parse(const json_t *j, bool v3, const ncztr_cctx *cx, void **state, char *msg, size_t msglen)
{
    (void)v3;
    const json_t *cs = j ? json_object_get(j, "chunk_shape") : NULL,
                 *codecs = j ? json_object_get(j, "codecs") : NULL;
    const json_t *icodecs = j ? json_object_get(j, "index_codecs") : NULL;
    const json_t *loc = j ? json_object_get(j, "index_location") : NULL;
    if (!json_is_array(cs) || (int)json_array_size(cs) != cx->rank || !json_is_array(codecs)) {
        NCZTR_CODEC_MSG("codec \"sharding_indexed\": needs \"chunk_shape\" (%d dimensions) and \"codecs\"",
                        cx->rank);
        return -1;
    }
    if (loc && !(json_is_string(loc) &&
                 (!strcmp(json_string_value(loc), "end") || !strcmp(json_string_value(loc), "start")))) {
        NCZTR_CODEC_MSG("codec \"sharding_indexed\": \"index_location\" must be \"end\" or \"start\"");
        return -1;
    }
    if (!cx->chain_ops) { /* a context not made by the chain: a connector bug */
        NCZTR_CODEC_MSG("codec \"sharding_indexed\": no chain operations in its context");
        return -1;
    }
    shard_state *s = calloc(1, sizeof *s);
    if (!s) {
        NCZTR_CODEC_MSG("out of memory");
        return -1;
    }
    *state = s;
    s->index_start = loc && !strcmp(json_string_value(loc), "start");
    s->inner = *cx;
    s->inner.utf32 = 0; /* converted outside the shard, on the whole array */
    s->ninner = 1;
    size_t elems = 1;
    for (int k = 0; k < cx->rank; k++) {
        const json_t *v = json_array_get(cs, (size_t)k);
        json_int_t n = json_is_integer(v) ? json_integer_value(v) : 0;
        if (n < 1 || cx->shape[k] % (uint64_t)n != 0) {
            NCZTR_CODEC_MSG(
                "codec \"sharding_indexed\": inner chunk_shape[%d] does not divide the shard's %llu", k,
                (unsigned long long)cx->shape[k]);
            return -1;
        }
        s->inner.shape[k] = (uint64_t)n;
        s->grid[k] = cx->shape[k] / (uint64_t)n;
        s->ninner *= (size_t)s->grid[k];
        elems *= (size_t)n;
    }
    s->inner.chunk_bytes = elems * cx->esz;
    json_t *dflt = NULL;
    if (!icodecs) /* the default: bytes little-endian, then crc32c */
        icodecs = dflt = json_pack("[{s:s, s:{s:s}}, {s:s}]", "name", "bytes", "configuration", "endian",
                                   "little", "name", "crc32c");
    if (!json_is_array(icodecs) ||
        index_size(icodecs, s->ninner * 16, &s->index_bytes, &s->index_big, msg, msglen) < 0) {
        if (!json_is_array(icodecs))
            NCZTR_CODEC_MSG("codec \"sharding_indexed\": \"index_codecs\" is not a list");
        json_decref(dflt);
        return -1;
    }
    ncztr_cctx icx = {.esz = 8, .rank = cx->rank + 1, .chunk_bytes = s->ninner * 16, .path = cx->path};
    for (int k = 0; k < cx->rank; k++)
        icx.shape[k] = s->grid[k];
    icx.shape[cx->rank] = 2;
    size_t mark = ncz_err_mark();
    herr_t r1 = s->inner.chain_ops->build_v3(codecs, &s->inner, &s->chain);
    herr_t r2 = r1 < 0 ? FAIL : s->inner.chain_ops->build_v3(icodecs, &icx, &s->ichain);
    json_decref(dflt);
    if (r1 < 0 || r2 < 0) {
        char *why = ncz_err_take_messages(mark);
        NCZTR_CODEC_MSG("codec \"sharding_indexed\": %s", why ? why : "its codecs are malformed");
        free(why);
        return -1;
    }
    const char *u = s->inner.chain_ops->unusable(s->chain);
    if (!u)
        u = s->inner.chain_ops->unusable(s->ichain);
    if (u) {
        NCZTR_CODEC_MSG("%s", u);
        return 0;
    }
    return 1;
}

static uint64_t get64(const unsigned char *p, bool big)
{
    uint64_t v = 0;
    for (int k = 0; k < 8; k++)
        v |= (uint64_t)p[big ? 7 - k : k] << (8 * k);
    return v;
}

static void put64(unsigned char *p, uint64_t v, bool big)
{
    for (int k = 0; k < 8; k++)
        p[big ? 7 - k : k] = (unsigned char)(v >> (8 * k));
}

/* Copies inner chunk number i (C order over the shard's grid of inner chunks) between the
 * shard (C order, cx's shape) and inner (C order, the inner shape), row by row. */
static void copy_inner(const shard_state *s, const ncztr_cctx *cx, size_t i, unsigned char *shard,
                       unsigned char *inner, bool to_shard)
{
    int rank = cx->rank;
    size_t esz = cx->esz;
    uint64_t origin[NCZTR_MAX_RANK];
    size_t rem = i;
    for (int k = rank - 1; k >= 0; k--) {
        origin[k] = (rem % s->grid[k]) * s->inner.shape[k];
        rem /= s->grid[k];
    }
    if (rank == 0) {
        if (to_shard)
            memcpy(shard, inner, esz);
        else
            memcpy(inner, shard, esz);
        return;
    }
    /* rows of the last dimension */
    size_t row = (size_t)s->inner.shape[rank - 1] * esz, nrows = 1;
    for (int k = 0; k < rank - 1; k++)
        nrows *= (size_t)s->inner.shape[k];
    uint64_t idx[NCZTR_MAX_RANK] = {0};
    for (size_t r = 0; r < nrows; r++) {
        size_t off = 0;
        for (int k = 0; k < rank; k++)
            off = off * (size_t)cx->shape[k] + (size_t)(origin[k] + (k < rank - 1 ? idx[k] : 0));
        if (to_shard)
            memcpy(shard + off * esz, inner + r * row, row);
        else
            memcpy(inner + r * row, shard + off * esz, row);
        for (int k = rank - 2; k >= 0; k--) {
            if (++idx[k] < s->inner.shape[k])
                break;
            idx[k] = 0;
        }
    }
}

static void fill_elems(const ncztr_cctx *cx, unsigned char *buf, size_t nelem)
{
    if (!cx->fill) {
        memset(buf, 0, nelem * cx->esz);
        return;
    }
    for (size_t i = 0; i < nelem; i++)
        memcpy(buf + i * cx->esz, cx->fill, cx->esz);
}

static size_t index_span(const void *state, bool *at_start)
{
    const shard_state *s = state;
    *at_start = s->index_start;
    return s->index_bytes;
}

/* The index (index_bytes at in) of a shard object of objlen bytes, decoded into (offset,
 * length) pairs, each checked to lie in the object outside the index. */
static int index_read(const void *state, const void *in, uint64_t objlen, uint64_t *pairs, ncztr_cerr *e)
{
    const shard_state *s = state;
    if (objlen < s->index_bytes)
        return NCZTR_CODEC_FAIL(e, "sharding: the shard object is %llu bytes, too short for its index of %zu",
                                (unsigned long long)objlen, s->index_bytes);
    unsigned char *index = malloc(s->ninner * 16);
    if (!index)
        return NCZTR_CODEC_FAIL(e, "sharding: out of memory");
    if (s->inner.chain_ops->decode(s->ichain, in, s->index_bytes, index, s->ninner * 16, e) < 0) {
        char why[sizeof e->msg];
        snprintf(why, sizeof why, "%s", e->msg);
        free(index);
        return NCZTR_CODEC_FAIL(e, "sharding: the shard's index: %.400s", why);
    }
    /* the inner chunks' bytes lie outside the index */
    uint64_t lo = s->index_start ? s->index_bytes : 0, hi = s->index_start ? objlen : objlen - s->index_bytes;
    int rc = 0;
    for (size_t i = 0; i < s->ninner && rc == 0; i++) {
        uint64_t off = get64(index + 16 * i, s->index_big), len = get64(index + 16 * i + 8, s->index_big);
        pairs[2 * i] = off;
        pairs[2 * i + 1] = len;
        if (!(off == NONE && len == NONE) && (off < lo || off > hi || len > hi - off))
            rc = NCZTR_CODEC_FAIL(
                e,
                "sharding: inner chunk %zu lies at bytes [%llu, %llu + %llu) of a shard whose chunks "
                "occupy [%llu, %llu): the index is corrupt",
                i, (unsigned long long)off, (unsigned long long)off, (unsigned long long)len,
                (unsigned long long)lo, (unsigned long long)hi);
    }
    free(index);
    return rc;
}

/* One inner chunk: its stored bytes decoded into scratch (inner chunk_bytes), all fill when
 * in is NULL (never written), or in itself when stored raw. */
static const unsigned char *decode_inner(const void *state, const ncztr_cctx *cx, const void *in,
                                         size_t inlen, unsigned char *scratch, ncztr_cerr *e)
{
    const shard_state *s = state;
    if (!in) {
        fill_elems(&s->inner, scratch, s->inner.chunk_bytes / cx->esz);
        return scratch;
    }
    if (inlen == s->inner.chunk_bytes && !cx->vlen && s->inner.chain_ops->is_null(s->chain))
        return in; /* stored as it is */
    if (s->inner.chain_ops->decode(s->chain, in, inlen, scratch, s->inner.chunk_bytes, e) < 0)
        return NULL;
    return scratch;
}

/* Decodes the shard's inner chunks in order, handing each to sink: stored ones decoded
 * (raw ones straight from the object), never written ones all fill. */
static int decode_each(const void *state, const ncztr_cctx *cx, const void *in, size_t inlen,
                       ncztr_inner_sink sink, void *ud, ncztr_cerr *e)
{
    const shard_state *s = state;
    const unsigned char *p = in;
    if (inlen < s->index_bytes)
        return NCZTR_CODEC_FAIL(e, "sharding: the shard object is %zu bytes, too short for its index of %zu",
                                inlen, s->index_bytes);
    uint64_t *pairs = malloc(s->ninner * 2 * sizeof *pairs);
    unsigned char *tmp = malloc(s->inner.chunk_bytes ? s->inner.chunk_bytes : 1);
    int rc = 0;
    if (!pairs || !tmp)
        rc = NCZTR_CODEC_FAIL(e, "sharding: out of memory");
    else
        rc = index_read(state, s->index_start ? p : p + inlen - s->index_bytes, inlen, pairs, e);
    for (size_t i = 0; i < s->ninner && rc == 0; i++) {
        bool none = pairs[2 * i] == NONE && pairs[2 * i + 1] == NONE;
        const unsigned char *raw = decode_inner(state, cx, none ? NULL : p + pairs[2 * i],
                                                none ? 0 : (size_t)pairs[2 * i + 1], tmp, e);
        if (!raw) {
            char why[sizeof e->msg];
            snprintf(why, sizeof why, "%s", e->msg);
            rc = NCZTR_CODEC_FAIL(e, "sharding: inner chunk %zu: %.400s", i, why);
        } else {
            sink(ud, i, raw);
        }
    }
    free(pairs);
    free(tmp);
    return rc;
}

typedef struct into_shard {
    const shard_state *s;
    const ncztr_cctx *cx;
    unsigned char *shard;
} into_shard;

static void put_inner(void *ud, size_t i, const unsigned char *raw)
{
    const into_shard *u = ud;
    copy_inner(u->s, u->cx, i, u->shard, (unsigned char *)(uintptr_t)raw, true);
}

static int decode(const void *state, const ncztr_cctx *cx, const void *in, size_t inlen, void *out,
                  size_t cap, ncztr_dres *r, ncztr_cerr *e)
{
    if (cap < cx->chunk_bytes)
        return NCZTR_CODEC_FAIL(e, "sharding: no room for a shard of %zu bytes", cx->chunk_bytes);
    if (cx->vlen) /* elements whose parts the inner chunks own: none until decoded */
        memset(out, 0, cx->chunk_bytes);
    into_shard u = {state, cx, out};
    int rc = decode_each(state, cx, in, inlen, put_inner, &u, e);
    if (rc < 0 && cx->vlen) {
        hvl_t *el = out;
        for (size_t i = 0; i < cx->chunk_bytes / sizeof *el; i++)
            free(el[i].p);
    }
    r->where = NCZTR_D_OUT;
    r->outlen = cx->chunk_bytes;
    return rc;
}

static const uint64_t *inner_shape(const void *state)
{
    return ((const shard_state *)state)->inner.shape;
}

static bool all_fill(const ncztr_cctx *cx, const unsigned char *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        for (size_t k = 0; k < cx->esz; k++)
            if (b[i * cx->esz + k] != (cx->fill ? cx->fill[k] : 0))
                return false;
    return true;
}

/* One inner chunk (raw, C order of the inner shape) encoded: at dst when given (cap bytes)
 * and the codecs can write there, else *out is malloc'ed, or raw itself when stored as it
 * is; *out NULL when it is all fill (never written, as zarr-python does). */
static int encode_one(const shard_state *s, const ncztr_cctx *cx, const void *raw, void *dst, size_t cap,
                      void **out, size_t *outlen, ncztr_cerr *e)
{
    *out = NULL;
    *outlen = 0;
    if (all_fill(&s->inner, raw, s->inner.chunk_bytes / cx->esz))
        return 0;
    return s->inner.chain_ops->encode_into(s->chain, raw, s->inner.chunk_bytes, dst, cap, out, outlen, e);
}

static size_t inner_bound(const void *state)
{
    const shard_state *s = state;
    return s->inner.chain_ops->encode_bound(s->chain, s->inner.chunk_bytes);
}

static bool inner_raw(const void *state)
{
    const shard_state *s = state;
    return s->inner.chain_ops->is_null(s->chain);
}

/* encode_one, the result at dst or the caller's (a copy of raw when stored as it is, unless
 * raw is dst: a writer that gathers each inner chunk into its buffer stores it from there). */
static int encode_inner(const void *state, const ncztr_cctx *cx, const void *raw, void *dst, size_t cap,
                        void **out, size_t *outlen, ncztr_cerr *e)
{
    if (encode_one(state, cx, raw, raw == dst ? NULL : dst, cap, out, outlen, e) < 0)
        return -1;
    if (*out == raw && raw != dst) {
        if (!(*out = malloc(*outlen ? *outlen : 1)))
            return NCZTR_CODEC_FAIL(e, "sharding: out of memory");
        memcpy(*out, raw, *outlen);
    }
    return 0;
}

/* The index of (offset, length) pairs, encoded by the index codecs into out (index_bytes). */
static int index_write(const void *state, const uint64_t *pairs, void *out, ncztr_cerr *e)
{
    const shard_state *s = state;
    unsigned char *index = malloc(s->ninner * 16);
    void *eidx = NULL;
    size_t eilen = 0;
    if (!index)
        return NCZTR_CODEC_FAIL(e, "sharding: out of memory");
    for (size_t i = 0; i < 2 * s->ninner; i++)
        put64(index + 8 * i, pairs[i], s->index_big);
    int rc = s->inner.chain_ops->encode(s->ichain, index, s->ninner * 16, &eidx, &eilen, e);
    if (rc == 0 && eilen != s->index_bytes)
        rc = NCZTR_CODEC_FAIL(e, "sharding: the index encoded to %zu bytes, expected %zu", eilen,
                              s->index_bytes);
    if (rc == 0)
        memcpy(out, eidx, eilen);
    if (eidx != index)
        free(eidx);
    free(index);
    return rc;
}

/* The encoded inner chunks go one after another into the object itself, which starts
 * with room for them all at their usual size (codecs rarely grow data) and grows when
 * they do not fit: the shard is never copied whole once more at the end. */
static int encode(const void *state, const ncztr_cctx *cx, const void *in, size_t inlen, void **out,
                  size_t *outlen, ncztr_cerr *e)
{
    const shard_state *s = state;
    if (inlen != cx->chunk_bytes)
        return NCZTR_CODEC_FAIL(e, "sharding: %zu bytes, expected a shard of %zu", inlen, cx->chunk_bytes);
    uint64_t *pairs = malloc(s->ninner * 2 * sizeof *pairs);
    unsigned char *tmp = malloc(s->inner.chunk_bytes ? s->inner.chunk_bytes : 1);
    size_t base = s->index_start ? s->index_bytes : 0, blen = 0;
    size_t ocap = base + cx->chunk_bytes + cx->chunk_bytes / 64 + s->index_bytes + 64;
    unsigned char *obj = malloc(ocap);
    int rc = 0;
    if (!pairs || !tmp || !obj) {
        rc = NCZTR_CODEC_FAIL(e, "sharding: out of memory");
        goto done;
    }
    for (size_t i = 0; i < s->ninner && rc == 0; i++) {
        copy_inner(s, cx, i, (unsigned char *)(uintptr_t)in, tmp, false);
        void *enc = NULL;
        size_t elen = 0;
        if (encode_one(s, cx, tmp, NULL, 0, &enc, &elen, e) < 0) {
            rc = -1;
            break;
        }
        pairs[2 * i] = pairs[2 * i + 1] = NONE;
        if (!enc)
            continue; /* all fill */
        if (base + blen + elen + s->index_bytes > ocap) {
            size_t nc = (base + blen + elen + s->index_bytes) * 2;
            unsigned char *nb = realloc(obj, nc);
            if (!nb) {
                if (enc != tmp)
                    free(enc);
                rc = NCZTR_CODEC_FAIL(e, "sharding: out of memory");
                break;
            }
            obj = nb;
            ocap = nc;
        }
        memcpy(obj + base + blen, enc, elen);
        if (enc != tmp)
            free(enc);
        pairs[2 * i] = base + blen;
        pairs[2 * i + 1] = elen;
        blen += elen;
    }
    if (rc == 0 && index_write(state, pairs, obj + (s->index_start ? 0 : blen), e) == 0) {
        *out = obj;
        *outlen = blen + s->index_bytes;
        obj = NULL;
    } else {
        rc = -1;
    }
done:
    free(pairs);
    free(tmp);
    free(obj);
    return rc;
}

const ncztr_codec_class ncztr_codec_sharding = {
    .v3name = "sharding_indexed",
    .kind = NCZTR_CK_A2B,
    .nests = true,
    .parse = parse,
    .encode = encode,
    .decode = decode,
    .decode_each = decode_each,
    .inner_shape = inner_shape,
    .index_span = index_span,
    .index_read = index_read,
    .decode_inner = decode_inner,
    .inner_bound = inner_bound,
    .inner_raw = inner_raw,
    .encode_inner = encode_inner,
    .index_write = index_write,
    .free_state = free_state,
};
