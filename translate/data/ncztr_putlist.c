/* The queue of chunk writes: encoded on the worker pool, stored with one nczm_put_many. */
#include "ncztr_chunkio_internal.h"
#include "ncztr_codec.h"
#include "ncztr_stages.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void pitem_clear(ncztr_pitem *p, ncztr_bufpool *pool)
{
    if (p->enc != p->raw && p->enc != p->trans)
        free(p->enc);
    if (p->own_raw)
        ncztr_pool_give(pool, p->raw);
    ncztr_pool_give(pool, p->trans);
    free(p->key);
    free(p->iov);
    for (size_t i = 0; i < p->nparts; i++) {
        if (p->pooled && p->pooled[i])
            ncztr_pool_give(p->ppool, p->parts[i]);
        else
            free(p->parts[i]);
    }
    free(p->parts);
    free(p->pooled);
    memset(p, 0, sizeof *p);
}

void ncztr_pl_clear(ncztr_putlist *pl)
{
    for (size_t i = 0; i < pl->n; i++)
        pitem_clear(&pl->v[i], pl->pool);
    free(pl->v);
    memset(pl, 0, sizeof *pl);
}

/* Appends an item (owning what it holds, whatever the outcome). */
static herr_t pl_push(const ncztr_cgeom *g, ncztr_putlist *pl, ncztr_pitem *it)
{
    if (pl->n == pl->cap) {
        size_t nc = pl->cap ? pl->cap * 2 : 16;
        ncztr_pitem *v = realloc(pl->v, nc * sizeof *v);
        if (!v) {
            NCZ_PUSH(NCZ_E_NOMEM, "out of memory writing chunk \"%s\"", it->key);
            pitem_clear(it, pl->pool);
            return FAIL;
        }
        pl->v = v;
        pl->cap = nc;
    }
    pl->v[pl->n++] = *it;
    pl->bytes += g->chunk_bytes;
    return SUCCEED;
}

/* Queues a chunk: takes ownership of key, and of raw when own_raw, whatever the outcome.
 * Transposition and codecs wait for ncztr_pl_run, which runs them for the whole batch on
 * the worker pool. */
herr_t ncztr_pl_add(const ncztr_obj *o, const ncztr_cgeom *g, ncztr_putlist *pl, char *key,
                    unsigned char *raw, bool own_raw, ncztr_cc_entry *ent)
{
    (void)o;
    ncztr_pitem it = {.key = key, .raw = raw, .own_raw = own_raw, .ent = ent};
    return pl_push(g, pl, &it);
}

herr_t ncztr_pl_add_fill(const ncztr_cgeom *g, ncztr_putlist *pl, char *key, unsigned char *raw, bool own_raw,
                         void (*fill)(const void *ctx, void *job, unsigned char *raw), const void *ctx,
                         void *job)
{
    ncztr_pitem it = {
        .key = key, .raw = raw, .own_raw = own_raw, .fill = fill, .fill_ctx = ctx, .fill_job = job};
    return pl_push(g, pl, &it);
}

herr_t ncztr_pl_add_iov(const ncztr_cgeom *g, ncztr_putlist *pl, char *key, struct iovec *iov, int iovcnt)
{
    ncztr_pitem it = {.key = key, .iov = iov, .iovcnt = iovcnt};
    return pl_push(g, pl, &it);
}

herr_t ncztr_pl_add_parts(const ncztr_cgeom *g, ncztr_putlist *pl, char *key, struct iovec *iov, int iovcnt,
                          size_t len, void **parts, bool *pooled, size_t nparts, ncztr_bufpool *ppool)
{
    ncztr_pitem it = {.key = key,
                      .iov = iov,
                      .iovcnt = iovcnt,
                      .len = len,
                      .parts = parts,
                      .pooled = pooled,
                      .nparts = nparts,
                      .ppool = ppool};
    return pl_push(g, pl, &it);
}

/* Encodes every queued chunk (encode-all, on the worker pool). Items that fail keep enc
 * NULL; the first failure is pushed. */
static herr_t pl_encode(const ncztr_obj *o, const ncztr_cgeom *g, ncztr_putlist *pl)
{
    ncztr_stage s;
    if (ncztr_stage_init(o, g, &s) < 0)
        return FAIL;
    if (!g->transpose && ncztr_chain_is_null(s.chain)) {
        for (size_t i = 0; i < pl->n; i++) { /* stored as they are: no work for threads */
            pl->v[i].enc = pl->v[i].raw;
            pl->v[i].enclen = g->chunk_bytes;
        }
        return SUCCEED;
    }
    ncztr_enc_item *items = calloc(pl->n, sizeof *items);
    if (!items)
        return NCZ_PUSH(NCZ_E_NOMEM, "out of memory encoding the chunks of \"%s\"", g->path);
    herr_t ret = SUCCEED;
    size_t m = 0, *at = calloc(pl->n, sizeof *at); /* the items to encode: not given as pieces */
    if (!at) {
        free(items);
        return NCZ_PUSH(NCZ_E_NOMEM, "out of memory encoding the chunks of \"%s\"", g->path);
    }
    for (size_t i = 0; i < pl->n; i++)
        if (!pl->v[i].iov)
            at[m++] = i;
    for (size_t k = 0; k < m; k++) {
        size_t i = at[k];
        items[k].raw = pl->v[i].raw;
        if (g->transpose && !(items[k].trans = pl->v[i].trans = ncztr_pool_take(pl->pool, g->chunk_bytes))) {
            ret = NCZ_PUSH(NCZ_E_NOMEM, "out of memory writing chunk \"%s\"", pl->v[i].key);
            break;
        }
    }
    if (ret == SUCCEED) {
        size_t bad = ncztr_stage_encode(&s, m, items);
        for (size_t k = 0; k < m; k++) {
            pl->v[at[k]].enc = items[k].enc;
            pl->v[at[k]].enclen = items[k].enclen;
        }
        if (bad < m)
            ret = ncztr_codec_failed(o, "encode", pl->v[at[bad]].key, &items[bad].err);
    }
    free(items);
    free(at);
    return ret;
}

/* ---- encoded and stored on the same thread ---- */

bool ncztr_pl_fuses(const ncztr_obj *o, const ncztr_cgeom *g)
{
    ncztr_chain *chain = ncztr_array_chain(o);
    return chain && (g->transpose || !ncztr_chain_is_null(chain)) && nczm_map_puts_each(o->file->map);
}

typedef struct fused {
    const ncztr_stage *s;
    ncztr_pitem *v;        /* the list's items, one per request */
    ncztr_enc_item *items; /* per request; raw NULL: stored as queued (pieces) */
    nczm_put *reqs;
    unsigned char *failed; /* per request: could not be encoded */
} fused;

/* nczm_put_each's hook: the chunk encoded just before its thread stores it, while its
 * bytes are in that core's cache; a chunk that cannot be encoded is left unwritten. */
static void encode_then_put(void *ud, size_t i, unsigned slot)
{
    (void)slot;
    fused *f = ud;
    ncztr_enc_item *it = &f->items[i];
    if (!it->raw)
        return;
    if (f->v[i].fill)
        f->v[i].fill(f->v[i].fill_ctx, f->v[i].fill_job, f->v[i].raw);
    if (ncztr_stage_encode_one(f->s, it) != 0) {
        f->failed[i] = 1;
        f->reqs[i].status = NCZM_INVAL;
        return;
    }
    f->reqs[i].buf = it->enc;
    f->reqs[i].len = it->enclen;
}

/* ncztr_pl_run where the store stores objects on the worker pool: each chunk encoded and
 * stored by one thread, with no wait between the two steps for the batch's other chunks
 * (and no second pass over the encoded bytes from memory). Empties the list. */
static herr_t pl_run_fused(const ncztr_obj *o, const ncztr_cgeom *g, ncztr_putlist *pl)
{
    herr_t ret = SUCCEED;
    ncztr_stage s;
    size_t n = pl->n;
    ncztr_enc_item *items = NULL;
    nczm_put *reqs = NULL;
    unsigned char *failed = NULL;
    if (ncztr_stage_init(o, g, &s) < 0)
        NCZ_GOTO_QUIET(FAIL);
    items = calloc(n, sizeof *items);
    reqs = calloc(n, sizeof *reqs);
    failed = calloc(n, 1);
    if (!items || !reqs || !failed)
        NCZ_GOTO(FAIL, NCZ_E_NOMEM, "out of memory storing the chunks of \"%s\"", g->path);
    for (size_t i = 0; i < n; i++) {
        ncztr_pitem *p = &pl->v[i];
        reqs[i].key = p->key;
        if (p->iov) { /* raw pieces, gathered by the store */
            reqs[i].iov = p->iov;
            reqs[i].iovcnt = p->iovcnt;
            reqs[i].len = p->parts ? p->len : g->chunk_bytes;
            continue;
        }
        items[i].raw = p->raw;
        if (g->transpose && !(items[i].trans = p->trans = ncztr_pool_take(pl->pool, g->chunk_bytes)))
            NCZ_GOTO(FAIL, NCZ_E_NOMEM, "out of memory writing chunk \"%s\"", p->key);
    }
    fused f = {&s, pl->v, items, reqs, failed};
    if (nczm_put_each(o->file->map, n, reqs, encode_then_put, &f) == NCZM_BADKEY)
        ret = NCZ_PUSH(NCZ_E_STORE, "dataset \"%s\": cannot write its chunks: %s", g->path,
                       nczm_errmsg(o->file->map));
    size_t bad_enc = n, bad_put = n;
    for (size_t i = 0; i < n; i++) {
        if (items[i].raw) { /* what the encoder made is freed with the item */
            pl->v[i].enc = items[i].enc;
            pl->v[i].enclen = items[i].enclen;
        }
        if (failed[i]) {
            if (bad_enc == n)
                bad_enc = i;
        } else if (reqs[i].status == NCZM_OK) {
            if (pl->v[i].ent)
                pl->v[i].ent->dirty = false;
        } else if (bad_put == n) {
            bad_put = i;
        }
    }
    if (ret == SUCCEED && bad_enc < n)
        ret = ncztr_codec_failed(o, "encode", pl->v[bad_enc].key, &items[bad_enc].err);
    if (ret == SUCCEED && bad_put < n)
        ret = NCZ_PUSH(NCZ_E_STORE, "dataset \"%s\": cannot write chunk \"%s\": %s", g->path,
                       reqs[bad_put].key, nczm_errmsg(o->file->map));
done:
    free(items);
    free(reqs);
    free(failed);
    for (size_t i = 0; i < pl->n; i++)
        pitem_clear(&pl->v[i], pl->pool);
    pl->n = pl->bytes = 0;
    return ret;
}

/* Stores every queued chunk with one store call, marks flushed cache entries clean, and
 * empties the list. A chunk that cannot be encoded is not stored; the others still are. */
herr_t ncztr_pl_run(const ncztr_obj *o, const ncztr_cgeom *g, ncztr_putlist *pl)
{
    herr_t ret = SUCCEED;
    nczm_put *reqs = NULL;
    size_t *idx = NULL, m = 0;
    if (pl->n == 0)
        return SUCCEED;
    if (ncztr_pl_fuses(o, g))
        return pl_run_fused(o, g, pl);
    ret = pl_encode(o, g, pl);
    reqs = calloc(pl->n, sizeof *reqs);
    idx = calloc(pl->n, sizeof *idx);
    if (!reqs || !idx)
        NCZ_GOTO(FAIL, NCZ_E_NOMEM, "out of memory storing the chunks of \"%s\"", g->path);
    for (size_t i = 0; i < pl->n; i++) {
        if (pl->v[i].iov) { /* raw, gathered from the user's buffer by the store; or pieces */
            idx[m] = i;
            reqs[m].key = pl->v[i].key;
            reqs[m].iov = pl->v[i].iov;
            reqs[m].iovcnt = pl->v[i].iovcnt;
            reqs[m].len = pl->v[i].parts ? pl->v[i].len : g->chunk_bytes;
            m++;
            continue;
        }
        if (!pl->v[i].enc)
            continue;
        idx[m] = i;
        reqs[m].key = pl->v[i].key;
        reqs[m].buf = pl->v[i].enc;
        reqs[m].len = pl->v[i].enclen;
        m++;
    }
    nczm_put_many(o->file->map, m, reqs);
    for (size_t k = 0; k < m; k++) {
        if (reqs[k].status == NCZM_OK) {
            if (pl->v[idx[k]].ent)
                pl->v[idx[k]].ent->dirty = false;
        } else if (ret == SUCCEED) {
            ret = NCZ_PUSH(NCZ_E_STORE, "dataset \"%s\": cannot write chunk \"%s\": %s", g->path, reqs[k].key,
                           nczm_errmsg(o->file->map));
        }
    }
done:
    free(idx);
    free(reqs);
    for (size_t i = 0; i < pl->n; i++)
        pitem_clear(&pl->v[i], pl->pool);
    pl->n = pl->bytes = 0;
    return ret;
}
