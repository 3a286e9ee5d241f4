/* Fuzz target (b): the codec chain's decoders (translate/codec), every codec the connector
 * knows, sharding_indexed with its index and inner chunks included. The input is one line
 * of JSON saying what the array's metadata would say, then the stored chunk's bytes:
 *   {"v3": [codecs...]} or {"filters": [...] | null, "compressor": {...} | null},
 *   with "esz" (element size, default 1), "shape" (the chunk's shape, default [] : one
 *   element), "vlen" (variable-length elements: esz is then sizeof(hvl_t)), "utf32" ("<" or
 *   ">": numpy text) and "fill" (a byte the fill value is made of, else none)
 *   "\n" and the chunk's bytes.
 * The chain is built as ncztr_array_chain builds it, then the chunk is decoded whole
 * (ncztr_chain_decode) and, where the chain is a shard that decodes inner chunk by inner
 * chunk, also through ncztr_chain_decode_each and the partial-read calls
 * (ncztr_chain_shard_index, ncztr_chain_inner_decode). A chunk that decodes is encoded again
 * and decoded once more: it must come back byte for byte (codecs are lossless).
 * The harness bounds the chunk it asks for (16 MiB raw); every size the decoders take from
 * the bytes is the connector's to check. */
#include "ncztr_codecs.h"

#include <hdf5.h>
#include <jansson.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define RAW_MAX ((size_t)16 << 20)

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    /* filter plugins are HDF5's and third parties' code, not the connector's: none found */
    setenv("HDF5_PLUGIN_PATH", "/nonexistent-nczarr-fuzz-plugins", 1);
    if (H5open() < 0)
        abort();
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    return 0;
}

/* The chunk the header describes, within the harness's bounds; 0 when it is none. */
static int fuzz_cctx(const json_t *hdr, ncztr_cctx *cx, unsigned char *fill)
{
    memset(cx, 0, sizeof *cx);
    cx->path = "/fuzz";
    cx->vlen = json_is_true(json_object_get(hdr, "vlen"));
    json_t *e = json_object_get(hdr, "esz");
    json_int_t esz = e ? json_integer_value(e) : 1;
    if (cx->vlen)
        esz = (json_int_t)sizeof(hvl_t);
    if (esz < 1 || esz > 4096)
        return 0;
    cx->esz = (size_t)esz;
    const char *u = json_string_value(json_object_get(hdr, "utf32"));
    if (u && (u[0] == '<' || u[0] == '>') && !cx->vlen && cx->esz % 4 == 0)
        cx->utf32 = u[0];
    const json_t *shape = json_object_get(hdr, "shape");
    size_t rank = json_array_size(shape), nel = 1;
    if (rank > NCZTR_MAX_RANK)
        return 0;
    cx->rank = (int)rank;
    for (size_t k = 0; k < rank; k++) {
        json_int_t n = json_integer_value(json_array_get(shape, k));
        if (n < 1 || (uint64_t)n > RAW_MAX || nel > RAW_MAX / (size_t)n)
            return 0;
        cx->shape[k] = (uint64_t)n;
        nel *= (size_t)n;
    }
    if (nel > RAW_MAX / cx->esz)
        return 0;
    cx->chunk_bytes = nel * cx->esz;
    const json_t *f = json_object_get(hdr, "fill");
    if (json_is_integer(f) && !cx->vlen) {
        memset(fill, (int)(json_integer_value(f) & 0xff), cx->esz);
        cx->fill = fill;
    }
    return 1;
}

/* Frees the parts a chunk of variable-length elements owns. */
static void fuzz_free_vlen(const ncztr_cctx *cx, void *raw, size_t nbytes)
{
    if (!cx->vlen || !raw)
        return;
    hvl_t *el = raw;
    for (size_t i = 0; i < nbytes / sizeof *el; i++)
        free(el[i].p);
    memset(raw, 0, nbytes);
}

typedef struct fuzz_sink {
    size_t ibytes; /* an inner chunk's raw size */
    size_t n;
    unsigned sum;
} fuzz_sink;

/* Touches every byte an inner chunk hands over (ASan checks it lies in memory given). */
static void fuzz_inner_sink(void *ud, size_t inner, const unsigned char *raw)
{
    fuzz_sink *s = ud;
    (void)inner;
    for (size_t i = 0; i < s->ibytes; i++)
        s->sum += raw[i];
    s->n++;
}

/* The shard paths of a chain whose chunks are shards: each inner chunk handed over, then the
 * partial read (the index, then each inner chunk it names). */
static void fuzz_shard(const ncztr_chain *c, const ncztr_cctx *cx, const unsigned char *in, size_t inlen)
{
    uint64_t ishape[NCZTR_MAX_RANK];
    if (!ncztr_chain_inner_shape(c, cx->rank, ishape))
        return;
    size_t inel = 1, ninner = 1;
    for (int k = 0; k < cx->rank; k++) {
        inel *= (size_t)ishape[k];
        ninner *= (size_t)(cx->shape[k] / ishape[k]);
    }
    fuzz_sink s = {.ibytes = inel * cx->esz};
    ncztr_cerr e;
    ncztr_chain_decode_each(c, in, inlen, fuzz_inner_sink, &s, &e);
    bool at_start = false;
    size_t span = ncztr_chain_shard_index_span(c, &at_start);
    if (span == 0 || span > inlen)
        return;
    uint64_t *pairs = malloc(ninner * 2 * sizeof *pairs);
    unsigned char *scratch = malloc(s.ibytes ? s.ibytes : 1);
    if (pairs && scratch &&
        ncztr_chain_shard_index(c, at_start ? in : in + inlen - span, inlen, pairs, &e) == 0) {
        for (size_t i = 0; i < ninner; i++) {
            bool none = pairs[2 * i] == UINT64_MAX && pairs[2 * i + 1] == UINT64_MAX;
            const unsigned char *raw = ncztr_chain_inner_decode(
                c, none ? NULL : in + pairs[2 * i], none ? 0 : (size_t)pairs[2 * i + 1], scratch, &e);
            if (raw)
                fuzz_inner_sink(&s, i, raw);
        }
    }
    free(pairs);
    free(scratch);
}

/* A decoded chunk encoded and decoded again must come back the same. */
static void fuzz_roundtrip(const ncztr_chain *c, const ncztr_cctx *cx, const unsigned char *raw)
{
    void *enc = NULL;
    size_t elen = 0;
    ncztr_cerr e;
    if (ncztr_chain_encode(c, raw, cx->chunk_bytes, &enc, &elen, &e) < 0)
        return;
    unsigned char *back = calloc(1, cx->chunk_bytes ? cx->chunk_bytes : 1);
    if (back && ncztr_chain_decode(c, enc, elen, back, cx->chunk_bytes, &e) == 0) {
        if (cx->vlen) {
            const hvl_t *a = (const hvl_t *)raw, *b = (const hvl_t *)back;
            for (size_t i = 0; i < cx->chunk_bytes / sizeof *a; i++)
                if (a[i].len != b[i].len || (a[i].len && (!a[i].p) != (!b[i].p)))
                    __builtin_trap(); /* a sequence changed its length */
        } else if (memcmp(raw, back, cx->chunk_bytes) != 0) {
            __builtin_trap(); /* the codecs lost or changed bytes */
        }
    }
    fuzz_free_vlen(cx, back, cx->chunk_bytes);
    free(back);
    if (enc != raw)
        free(enc);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const unsigned char *nl = memchr(data, '\n', size);
    if (!nl)
        return 0;
    json_error_t jerr;
    json_t *hdr = json_loadb((const char *)data, (size_t)(nl - data), JSON_DECODE_ANY, &jerr);
    const unsigned char *in = nl + 1;
    size_t inlen = size - (size_t)(in - data);
    ncztr_cctx cx;
    unsigned char fill[4096];
    if (!json_is_object(hdr) || !fuzz_cctx(hdr, &cx, fill)) {
        json_decref(hdr);
        return 0;
    }
    const json_t *v3 = json_object_get(hdr, "v3");
    ncztr_chain *c = NULL;
    if (ncztr_chain_build(v3 ? NULL : json_object_get(hdr, "filters"),
                          v3 ? NULL : json_object_get(hdr, "compressor"), v3, &cx, &c) == 0) {
        unsigned char *raw = malloc(cx.chunk_bytes ? cx.chunk_bytes : 1);
        ncztr_cerr e;
        /* the input copied, so that ASan sees a read past the stored bytes */
        unsigned char *copy = malloc(inlen ? inlen : 1);
        if (raw && copy) {
            memcpy(copy, in, inlen);
            if (cx.vlen)
                memset(raw, 0, cx.chunk_bytes);
            if (ncztr_chain_decode(c, copy, inlen, raw, cx.chunk_bytes, &e) == 0) {
                fuzz_roundtrip(c, &cx, raw);
                fuzz_free_vlen(&cx, raw, cx.chunk_bytes);
            }
            fuzz_shard(c, &cx, copy, inlen);
        }
        free(copy);
        free(raw);
    }
    ncztr_chain_free(c);
    json_decref(hdr);
    H5Eclear2(H5E_DEFAULT);
    return 0;
}
