/* Decode-all and encode-all over the chunks of a batch, on the worker pool. */
#include "ncztr_stages.h"
#include "ncztr_codec.h"
#include "nczc_workers.h"

#include <string.h>

herr_t ncztr_stage_init(const ncztr_obj *o, const ncztr_cgeom *g, ncztr_stage *s)
{
    memset(s, 0, sizeof *s);
    if (!(s->chain = ncztr_array_chain(o)))
        return FAIL;
    s->g = g;
    s->workers = nczm_map_workers(o->file->map);
    s->decode = ncztr_chain_decode;
    s->encode = ncztr_chain_encode_into;
    return SUCCEED;
}

typedef struct dec_job {
    const ncztr_stage *s;
    ncztr_dec_item *items;
} dec_job;

typedef struct each_ud {
    const ncztr_stage *s;
    size_t i;
} each_ud;

static void each_inner(void *ud, size_t inner, const unsigned char *raw)
{
    const each_ud *u = ud;
    u->s->inner(u->s->inner_arg, u->i, inner, raw);
}

static int dec_one(void *arg, size_t i, unsigned slot)
{
    const dec_job *j = arg;
    return ncztr_stage_decode_one(j->s, j->items, i, slot);
}

int ncztr_stage_decode_one(const ncztr_stage *s, ncztr_dec_item *items, size_t i, unsigned slot)
{
    const dec_job jj = {s, items}, *j = &jj;
    const ncztr_cgeom *g = j->s->g;
    ncztr_dec_item *it = &j->items[i];
    if (it->each) {
        each_ud u = {j->s, i};
        return ncztr_chain_decode_each(j->s->chain, it->in, it->inlen, each_inner, &u, &it->err) < 0;
    }
    unsigned char *out = it->out ? it->out : j->s->slot_out[slot];
    unsigned char *dst = g->transpose ? it->tmp : out;
    if (j->s->decode(j->s->chain, it->in, it->inlen, dst, g->chunk_bytes, &it->err) < 0)
        return 1;
    if (g->transpose)
        ncztr_transpose(g, it->tmp, out, false);
    if (j->s->post)
        j->s->post(j->s->post_arg, i, out);
    return 0;
}

size_t ncztr_stage_decode(const ncztr_stage *s, size_t n, ncztr_dec_item *items)
{
    dec_job j = {s, items};
    return nczc_parallel_for(n, s->workers, dec_one, &j);
}

typedef struct enc_job {
    const ncztr_stage *s;
    ncztr_enc_item *items;
} enc_job;

static int enc_one(void *arg, size_t i, unsigned slot)
{
    (void)slot;
    const enc_job *j = arg;
    const ncztr_cgeom *g = j->s->g;
    ncztr_enc_item *it = &j->items[i];
    const unsigned char *src = it->raw;
    it->enc = NULL;
    it->enclen = 0;
    if (g->transpose) {
        ncztr_transpose(g, it->raw, it->trans, true);
        src = it->trans;
    }
    return j->s->encode(j->s->chain, src, g->chunk_bytes, it->dst, it->cap, &it->enc, &it->enclen, &it->err) <
           0;
}

size_t ncztr_stage_encode(const ncztr_stage *s, size_t n, ncztr_enc_item *items)
{
    enc_job j = {s, items};
    return nczc_parallel_for(n, s->workers, enc_one, &j);
}
