/* The chunk pipeline's parallel stages: decode-all (after a batch is fetched) and
 * encode-all (before a batch is stored), run over every chunk of a batch on the worker
 * pool (common/nczc_workers.h). Workers only run the codec chain and the Fortran-order
 * transposition; they never call HDF5 or push errors: each item carries its failure back
 * and the calling thread pushes it (ncztr_codec_failed). translate/ only. */
#ifndef NCZTR_STAGES_H
#define NCZTR_STAGES_H

#include "ncztr_chunkio_internal.h"
#include "ncztr_codecs.h"

/* The chain's own functions, or a test's stand-ins. */
typedef int (*ncztr_decode_fn)(const ncztr_chain *c, const void *in, size_t inlen, void *out, size_t outlen,
                               ncztr_cerr *e);
/* encode: into dst (cap bytes) where the chain's last codec can, else into a buffer of its
 * own (*out, malloc'ed), or *out is in itself (nothing to do). */
typedef int (*ncztr_encode_fn)(const ncztr_chain *c, const void *in, size_t inlen, void *dst, size_t cap,
                               void **out, size_t *outlen, ncztr_cerr *e);

typedef struct ncztr_stage {
    const ncztr_chain *chain;
    const ncztr_cgeom *g; /* chunk_bytes, and the shape when transposing */
    unsigned workers;     /* threads, the caller included (0: one per core) */
    ncztr_decode_fn decode;
    ncztr_encode_fn encode;
    /* Decode only: items without out decode into slot_out[slot] (chunk_bytes each, one per
     * thread, nczc_workers_slots(workers) of them); after each item decodes, post (when
     * set) runs on the same thread with the raw chunk: the chunk is still in that core's
     * cache. post must be thread-safe and push nothing. */
    unsigned char **slot_out;
    void (*post)(void *arg, size_t i, unsigned char *raw);
    void *post_arg;
    /* Decode only: items marked each are shards decoded inner chunk by inner chunk
     * (ncztr_chain_decode_each), inner called with each on the decoding thread (item i,
     * inner chunk number, its raw bytes); no out, no slot, no post. Thread-safe, pushes
     * nothing. */
    void (*inner)(void *arg, size_t i, size_t inner, const unsigned char *raw);
    void *inner_arg;
} ncztr_stage;

/* The stage of an array's chain (built on the calling thread, which pushes on failure). */
herr_t ncztr_stage_init(const ncztr_obj *o, const ncztr_cgeom *g, ncztr_stage *s);

typedef struct ncztr_dec_item {
    const void *in; /* stored bytes */
    size_t inlen;
    unsigned char *out; /* g->chunk_bytes: the raw C-order chunk (NULL: the slot's, no transpose) */
    unsigned char *tmp; /* with g->transpose, g->chunk_bytes of scratch; else unused */
    bool each;          /* a shard whose inner chunks go to the stage's inner (out unused) */
    ncztr_cerr err;
} ncztr_dec_item;

/* Decodes every item; returns the index of the first failed one (its err says why), n
 * when none failed. Pushes nothing. */
size_t ncztr_stage_decode(const ncztr_stage *s, size_t n, ncztr_dec_item *items);
/* Decodes item i of items on the thread of slot slot (a worker's of the stage's count);
 * 0, or 1 when it failed (its err says why). Pushes nothing. */
int ncztr_stage_decode_one(const ncztr_stage *s, ncztr_dec_item *items, size_t i, unsigned slot);

typedef struct ncztr_enc_item {
    const unsigned char *raw; /* the raw C-order chunk */
    unsigned char *trans;     /* with g->transpose, g->chunk_bytes to hold the Fortran order */
    unsigned char *dst;       /* cap bytes the chain may encode into, or NULL */
    size_t cap;
    void *enc; /* out: raw, trans, dst, or a malloc'ed buffer of the codec */
    size_t enclen;
    ncztr_cerr err;
} ncztr_enc_item;

/* Encodes every item (enc NULL where it failed); returns the index of the first failure,
 * n when none. Pushes nothing. */
size_t ncztr_stage_encode(const ncztr_stage *s, size_t n, ncztr_enc_item *items);

#endif
