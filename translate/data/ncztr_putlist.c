/* The queue of chunk writes: encoded on the worker pool, stored with one nczm_put_many. */
#include "ncztr_chunkio_internal.h"
#include "ncztr_codec.h"
#include "ncztr_stages.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void pitem_clear(ncztr_pitem *p, ncztr_bufpool *pool)
{
    if (p->enc != p->raw && p->enc != p->trans && p->enc != p->encbuf)
        free(p->enc);
    ncztr_pool_give(p->epool, p->encbuf);
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
    /* Encoded into the cache's buffers where the chain can: a buffer malloc'ed per chunk
     * is fresh memory every time (see ncztr_bufpool). */
    ncztr_chunkcache *c = o->arr ? o->arr->cache : NULL;
    if (c && !c->epool.max)
        ncztr_pool_init(&c->epool, ncztr_chain_encode_bound(s.chain, g->chunk_bytes));
    size_t bound = c ? c->epool.chunk_bytes : 0;
    for (size_t k = 0; k < m; k++) {
        size_t i = at[k];
        items[k].raw = pl->v[i].raw;
        if (bound && (pl->v[i].encbuf = ncztr_pool_take(&c->epool, bound))) {
            items[k].dst = pl->v[i].encbuf;
            items[k].cap = bound;
            pl->v[i].epool = &c->epool;
        }
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

/* Stores every queued chunk with one store call, marks flushed cache entries clean, and
 * empties the list. A chunk that cannot be encoded is not stored; the others still are. */
herr_t ncztr_pl_run(const ncztr_obj *o, const ncztr_cgeom *g, ncztr_putlist *pl)
{
    herr_t ret = SUCCEED;
    nczm_put *reqs = NULL;
    size_t *idx = NULL, m = 0;
    if (pl->n == 0)
        return SUCCEED;
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
