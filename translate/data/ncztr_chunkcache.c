/* The per-array chunk cache (LRU, with write-back of dirty chunks through the write
 * queue), and the flushes and evictions of an array's chunks. */
#include "ncztr_chunkio_internal.h"
#include "ncztr_codec.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ===================================================================================== */
/* Chunk cache: a hash index of chunk indices plus an LRU list. Entries hold raw C-order  */
/* chunk buffers; dirty entries are written on eviction and by ncztr_array_flush.        */

/* key: the coord, keylen: its rank */
static int cc_match(const void *item, const void *key, size_t keylen)
{
    return memcmp(((const ncztr_cc_entry *)item)->coord, key, keylen * sizeof(uint64_t)) == 0;
}

void ncztr_chunkcache_free(ncztr_chunkcache *c)
{
    if (!c)
        return;
    for (ncztr_cc_entry *e = c->head, *n; e; e = n) {
        n = e->next;
        free(e->data);
        free(e);
    }
    ncztr_pending_drop(c, NULL);
    ncztr_pool_clear(&c->ipool);
    ncztr_pool_clear(&c->epool);
    ncztr_pool_clear(&c->pool);
    nczc_hindex_clear(&c->ix);
    nczc_hindex_clear(&c->pix);
    free(c);
}

ncztr_chunkcache *ncztr_cc_get(ncztr_obj *o, const ncztr_cgeom *g)
{
    if (o->arr->cache)
        return o->arr->cache;
    ncztr_chunkcache *c = calloc(1, sizeof *c);
    if (!c) {
        NCZ_PUSH(NCZ_E_NOMEM, "out of memory creating the chunk cache of \"%s\"", g->path);
        return NULL;
    }
    c->rank = g->rank;
    c->chunk_bytes = g->chunk_bytes;
    ncztr_pool_init(&c->pool, g->chunk_bytes);
    o->arr->cache = c;
    o->arr->cache_free = ncztr_chunkcache_free;
    return c;
}

static size_t cc_budget(const ncztr_array *a, const ncztr_cgeom *g)
{
    return a->cache_bytes > g->chunk_bytes ? a->cache_bytes : g->chunk_bytes;
}

ncztr_cc_entry *ncztr_cc_find(ncztr_chunkcache *c, const uint64_t *coord)
{
    if (!c)
        return NULL;
    return nczc_hindex_find(&c->ix, ncztr_coord_hash(coord, c->rank), cc_match, coord, (size_t)c->rank);
}

static void lru_unlink(ncztr_chunkcache *c, ncztr_cc_entry *e)
{
    if (e->prev)
        e->prev->next = e->next;
    else
        c->head = e->next;
    if (e->next)
        e->next->prev = e->prev;
    else
        c->tail = e->prev;
    e->prev = e->next = NULL;
}

static void lru_push(ncztr_chunkcache *c, ncztr_cc_entry *e)
{
    e->prev = NULL;
    e->next = c->head;
    if (c->head)
        c->head->prev = e;
    else
        c->tail = e;
    c->head = e;
}

void ncztr_cc_touch(ncztr_chunkcache *c, ncztr_cc_entry *e)
{
    if (c->head != e) {
        lru_unlink(c, e);
        lru_push(c, e);
    }
}

/* Adds a chunk as most recently used, taking ownership of data on success. NULL when out
 * of memory (data stays the caller's). */
ncztr_cc_entry *ncztr_cc_insert(ncztr_chunkcache *c, const uint64_t *coord, unsigned char *data, bool dirty)
{
    ncztr_cc_entry *e = malloc(sizeof *e + (size_t)c->rank * sizeof(uint64_t));
    if (!e)
        return NULL;
    memcpy(e->coord, coord, (size_t)c->rank * sizeof(uint64_t));
    e->hash = ncztr_coord_hash(coord, c->rank);
    e->data = data;
    e->dirty = dirty;
    if (nczc_hindex_add(&c->ix, e->hash, e) != 0) {
        free(e);
        return NULL;
    }
    lru_push(c, e);
    c->count++;
    c->bytes += c->chunk_bytes;
    return e;
}

/* Unlinks an entry; the caller frees it and its data. */
void ncztr_cc_remove(ncztr_chunkcache *c, ncztr_cc_entry *e)
{
    nczc_hindex_remove(&c->ix, e->hash, e);
    lru_unlink(c, e);
    c->count--;
    c->bytes -= c->chunk_bytes;
}

/* Evicts least recently used chunks until the cache fits its budget; dirty ones are
 * queued on pl. */
herr_t ncztr_cc_trim(ncztr_obj *o, const ncztr_cgeom *g, ncztr_putlist *pl)
{
    return ncztr_cc_make_room(o, g, pl, 0, 0);
}

herr_t ncztr_cc_make_room(ncztr_obj *o, const ncztr_cgeom *g, ncztr_putlist *pl, size_t room, size_t keep)
{
    ncztr_chunkcache *c = o->arr->cache;
    size_t budget = cc_budget(o->arr, g);
    budget = budget > room ? budget - room : 0;
    herr_t ret = SUCCEED;
    while (c && c->bytes > budget && c->tail && c->count > keep) {
        ncztr_cc_entry *e = c->tail;
        ncztr_cc_remove(c, e);
        if (e->dirty) {
            char *key = ncztr_chunk_key(g, e->coord);
            if (!key) {
                ncztr_pool_give(pl->pool, e->data);
                ret = FAIL;
            } else if (ncztr_pl_add(o, g, pl, key, e->data, true, NULL) < 0) {
                ret = FAIL;
            }
        } else {
            ncztr_pool_give(pl->pool, e->data);
        }
        free(e);
    }
    return ret;
}

herr_t ncztr_array_flush(ncztr_obj *o)
{
    herr_t ret = SUCCEED;
    ncztr_cgeom g = {0};
    ncztr_putlist pl = {0};
    if (!o || !o->arr || !o->arr->cache)
        return SUCCEED;
    ncztr_chunkcache *c = o->arr->cache;
    if (o->deleted || o->file->readonly) {
        /* A deleted array's chunks must not reappear in the store. */
        for (ncztr_cc_entry *e = c->head; e; e = e->next)
            e->dirty = false;
        ncztr_pending_drop(c, NULL);
        return SUCCEED;
    }
    if (ncztr_geom_init(o, &g) < 0)
        return FAIL;
    pl.pool = &c->pool;
    if (ncztr_pending_settle_all(o, &g, &pl, 0) < 0)
        NCZ_GOTO_QUIET(FAIL);
    for (ncztr_cc_entry *e = c->tail; e; e = e->prev) {
        if (!e->dirty)
            continue;
        char *key = ncztr_chunk_key(&g, e->coord);
        if (!key || ncztr_pl_add(o, &g, &pl, key, e->data, false, e) < 0)
            NCZ_GOTO_QUIET(FAIL);
        if ((pl.bytes >= NCZTR_BATCH_BYTES || pl.n >= NCZTR_BATCH_CHUNKS) && ncztr_pl_run(o, &g, &pl) < 0)
            NCZ_GOTO_QUIET(FAIL);
    }
    if (ncztr_pl_run(o, &g, &pl) < 0)
        NCZ_GOTO_QUIET(FAIL);
done:
    ncztr_pl_clear(&pl);
    ncztr_pool_trim(&c->pool);
    ncztr_pool_trim(&c->epool);
    ncztr_geom_clear(&g);
    return ret;
}

herr_t ncztr_array_cache_evict(ncztr_obj *o)
{
    if (!o || !o->arr || !o->arr->cache)
        return SUCCEED;
    if (ncztr_array_flush(o) < 0)
        return FAIL;
    ncztr_chunkcache_free(o->arr->cache);
    o->arr->cache = NULL;
    return SUCCEED;
}

herr_t ncztr_array_chunk_release(ncztr_obj *o, const uint64_t *coord)
{
    herr_t ret = SUCCEED;
    ncztr_cgeom g = {0};
    ncztr_putlist pl = {0};
    ncztr_chunkcache *c = o->arr ? o->arr->cache : NULL;
    ncztr_cc_entry *e = ncztr_cc_find(c, coord);
    if (c && c->phead) { /* written in part and pending: stored now, as a dirty entry is */
        bool queued = false;
        pl.pool = &c->pool;
        if (ncztr_geom_init(o, &g) < 0 || ncztr_pending_settle(o, &g, coord, &pl, &queued) < 0 ||
            ncztr_pl_run(o, &g, &pl) < 0)
            ret = FAIL;
        ncztr_pl_clear(&pl);
        ncztr_geom_clear(&g);
        if (ret < 0)
            return FAIL;
    }
    if (!e)
        return SUCCEED;
    pl.pool = &c->pool;
    ncztr_cc_remove(c, e);
    if (e->dirty && !o->deleted && !o->file->readonly) {
        char *key = NULL;
        if (ncztr_geom_init(o, &g) < 0 || !(key = ncztr_chunk_key(&g, e->coord)))
            ncztr_pool_give(pl.pool, e->data), ret = FAIL;
        else if (ncztr_pl_add(o, &g, &pl, key, e->data, true, NULL) < 0 || ncztr_pl_run(o, &g, &pl) < 0)
            ret = FAIL;
    } else {
        ncztr_pool_give(pl.pool, e->data);
    }
    free(e);
    ncztr_pl_clear(&pl);
    ncztr_geom_clear(&g);
    return ret;
}
