/* Chunk geometry, the per-array chunk cache (LRU, with write-back of dirty chunks), and
 * the queue of chunk writes stored with one nczm_put_many. */
#include "ncztr_chunkio_internal.h"
#include "ncztr_codec.h"
#include "ncztr_stages.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ===================================================================================== */
/* Geometry of an array's chunks, shared by I/O calls, flush and eviction.               */

void ncztr_geom_clear(ncztr_cgeom *g)
{
    free(g->prefix);
    free(g->path);
    g->prefix = g->path = NULL;
}

herr_t ncztr_geom_init(const ncztr_obj *o, ncztr_cgeom *g)
{
    const ncztr_zarray *za = &o->arr->za;
    memset(g, 0, sizeof *g);
    g->rank = za->rank > 0 ? za->rank : 1;
    g->esz = za->dtype.size;
    g->chunk_elems = 1;
    int big = 0;
    for (int k = 0; k < g->rank; k++) {
        g->chunks[k] = za->rank > 0 ? za->chunks[k] : 1;
        g->chunk_elems *= (size_t)g->chunks[k];
        big += g->chunks[k] > 1;
    }
    g->chunk_bytes = g->chunk_elems * g->esz;
    g->transpose = za->order == 'F' && big > 1;
    g->dimsep = za->dimsep == '/' ? '/' : '.';
    g->chunk_c = za->chunk_c;
    g->rank0 = za->rank == 0;
    g->prefix = ncztr_obj_key(o);
    g->path = ncztr_obj_path(o);
    if (!g->prefix || !g->path) {
        ncztr_geom_clear(g);
        return NCZ_PUSH(NCZ_E_NOMEM, "out of memory preparing dataset I/O");
    }
    return SUCCEED;
}

/* "<prefix>/i.j.k" (or without "<prefix>/" at the store root). A Zarr rank-0 array has
 * the single chunk index [0], hence the key "0". */
char *ncztr_chunk_key(const ncztr_cgeom *g, const uint64_t *coord)
{
    char *s = ncztr_chunk_key_at(g->prefix, g->rank0 ? 0 : g->rank, g->dimsep, g->chunk_c, coord);
    if (!s)
        NCZ_PUSH(NCZ_E_NOMEM, "out of memory building a chunk key of \"%s\"", g->path);
    return s;
}

/* Moves a chunk between C order (last index fastest) and Fortran order (first index
 * fastest), element by element: Fortran-ordered stores are rare enough not to need more. */
void ncztr_transpose(const ncztr_cgeom *g, const unsigned char *src, unsigned char *dst, bool c_to_f)
{
    size_t fstride[NCZTR_MAX_RANK], idx[NCZTR_MAX_RANK] = {0}, foff = 0, esz = g->esz;
    fstride[0] = 1;
    for (int k = 1; k < g->rank; k++)
        fstride[k] = fstride[k - 1] * (size_t)g->chunks[k - 1];
    for (size_t i = 0; i < g->chunk_elems; i++) {
        if (c_to_f)
            memcpy(dst + foff * esz, src + i * esz, esz);
        else
            memcpy(dst + i * esz, src + foff * esz, esz);
        for (int k = g->rank - 1; k >= 0; k--) {
            foff += fstride[k];
            if (++idx[k] < g->chunks[k])
                break;
            foff -= idx[k] * fstride[k];
            idx[k] = 0;
        }
    }
}

/* Fills nelem elements with the array's fill value (zeros without one). */
void ncztr_fill_elems(const ncztr_zarray *za, void *buf, size_t nelem)
{
    size_t esz = za->dtype.size, total = nelem * esz;
    bool zero = !za->has_fill || !za->fill;
    for (size_t i = 0; !zero && i < esz && za->fill[i] == 0; i++)
        zero = i + 1 == esz;
    if (zero || total == 0) {
        memset(buf, 0, total);
        return;
    }
    unsigned char *b = buf;
    memcpy(b, za->fill, esz);
    for (size_t done = esz; done < total;) {
        size_t n = done < total - done ? done : total - done;
        memcpy(b + done, b, n);
        done += n;
    }
}

/* ===================================================================================== */
/* Buffer pool of an array (see ncztr_chunkio_internal.h for why).                      */

void ncztr_pool_init(ncztr_bufpool *p, size_t chunk_bytes)
{
    memset(p, 0, sizeof *p);
    p->chunk_bytes = chunk_bytes;
    /* One batch's worth: what a batch takes, the next one's evictions and stores give
     * back. Small chunks come cheap from malloc's free lists anyway. */
    size_t max = chunk_bytes ? NCZTR_BATCH_BYTES / chunk_bytes + 1 : 1;
    p->max = max < NCZTR_BATCH_CHUNKS ? max : NCZTR_BATCH_CHUNKS;
}

unsigned char *ncztr_pool_take(ncztr_bufpool *p, size_t chunk_bytes)
{
    if (p && p->n && p->chunk_bytes >= chunk_bytes)
        return p->v[--p->n];
    return malloc(chunk_bytes ? chunk_bytes : 1);
}

void ncztr_pool_give(ncztr_bufpool *p, unsigned char *buf)
{
    if (!buf)
        return;
    if (p && !p->v && p->max)
        p->v = malloc(p->max * sizeof *p->v);
    if (!p || !p->v || p->n == p->max) {
        free(buf);
        return;
    }
    p->v[p->n++] = buf;
}

void ncztr_pool_trim(ncztr_bufpool *p)
{
    /* Two at least: a call that fills a chunk and stores another (shards written half by
     * half) finds both again in the next call rather than in fresh memory. */
    size_t keep = p->chunk_bytes ? NCZTR_POOL_KEEP_BYTES / p->chunk_bytes : 2;
    if (keep < 2)
        keep = 2;
    while (p->n > keep)
        free(p->v[--p->n]);
}

void ncztr_pool_clear(ncztr_bufpool *p)
{
    for (size_t i = 0; i < p->n; i++)
        free(p->v[i]);
    free(p->v);
    p->v = NULL;
    p->n = 0;
}

/* ===================================================================================== */
/* Chunk cache: a hash table of chunk indices plus an LRU list. Entries hold raw C-order  */
/* chunk buffers; dirty entries are written on eviction and by ncztr_array_flush.        */

static uint64_t cc_hash(const uint64_t *coord, int rank)
{
    uint64_t h = 0x9e3779b97f4a7c15u;
    for (int k = 0; k < rank; k++) {
        h ^= coord[k] + 0x9e3779b97f4a7c15u + (h << 6) + (h >> 2);
        h *= 0xbf58476d1ce4e5b9u;
        h ^= h >> 31;
    }
    return h;
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
    ncztr_pool_clear(&c->pool);
    free(c->buckets);
    free(c);
}

ncztr_chunkcache *ncztr_cc_get(ncztr_obj *o, const ncztr_cgeom *g)
{
    if (o->arr->cache)
        return o->arr->cache;
    ncztr_chunkcache *c = calloc(1, sizeof *c);
    if (c && !(c->buckets = calloc(64, sizeof *c->buckets))) {
        free(c);
        c = NULL;
    }
    if (!c) {
        NCZ_PUSH(NCZ_E_NOMEM, "out of memory creating the chunk cache of \"%s\"", g->path);
        return NULL;
    }
    c->nbuckets = 64;
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
    uint64_t h = cc_hash(coord, c->rank);
    for (ncztr_cc_entry *e = c->buckets[h & (c->nbuckets - 1)]; e; e = e->hnext)
        if (e->hash == h && memcmp(e->coord, coord, (size_t)c->rank * sizeof *coord) == 0)
            return e;
    return NULL;
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

/* Doubles the bucket array; on allocation failure the table just stays denser. */
static void cc_rehash(ncztr_chunkcache *c)
{
    size_t nb = c->nbuckets * 2;
    ncztr_cc_entry **b = calloc(nb, sizeof *b);
    if (!b)
        return;
    for (ncztr_cc_entry *e = c->head; e; e = e->next) {
        size_t i = e->hash & (nb - 1);
        e->hnext = b[i];
        b[i] = e;
    }
    free(c->buckets);
    c->buckets = b;
    c->nbuckets = nb;
}

/* Adds a chunk as most recently used, taking ownership of data on success. NULL when out
 * of memory (data stays the caller's). */
ncztr_cc_entry *ncztr_cc_insert(ncztr_chunkcache *c, const uint64_t *coord, unsigned char *data, bool dirty)
{
    ncztr_cc_entry *e = malloc(sizeof *e + (size_t)c->rank * sizeof(uint64_t));
    if (!e)
        return NULL;
    memcpy(e->coord, coord, (size_t)c->rank * sizeof(uint64_t));
    e->hash = cc_hash(coord, c->rank);
    e->data = data;
    e->dirty = dirty;
    if (c->count + 1 > c->nbuckets)
        cc_rehash(c);
    size_t i = e->hash & (c->nbuckets - 1);
    e->hnext = c->buckets[i];
    c->buckets[i] = e;
    lru_push(c, e);
    c->count++;
    c->bytes += c->chunk_bytes;
    return e;
}

/* Unlinks an entry; the caller frees it and its data. */
void ncztr_cc_remove(ncztr_chunkcache *c, ncztr_cc_entry *e)
{
    ncztr_cc_entry **pp = &c->buckets[e->hash & (c->nbuckets - 1)];
    while (*pp && *pp != e)
        pp = &(*pp)->hnext;
    if (*pp)
        *pp = e->hnext;
    lru_unlink(c, e);
    c->count--;
    c->bytes -= c->chunk_bytes;
}

/* ===================================================================================== */
/* Pending chunk writes, stored with one nczm_put_many.                                  */

static void pitem_clear(ncztr_pitem *p, ncztr_bufpool *pool)
{
    if (p->enc != p->raw && p->enc != p->trans)
        free(p->enc);
    if (p->own_raw)
        ncztr_pool_give(pool, p->raw);
    ncztr_pool_give(pool, p->trans);
    free(p->key);
    free(p->iov);
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
    for (size_t i = 0; i < pl->n; i++) {
        items[i].raw = pl->v[i].raw;
        if (g->transpose && !(items[i].trans = pl->v[i].trans = ncztr_pool_take(pl->pool, g->chunk_bytes))) {
            ret = NCZ_PUSH(NCZ_E_NOMEM, "out of memory writing chunk \"%s\"", pl->v[i].key);
            break;
        }
    }
    if (ret == SUCCEED) {
        size_t bad = ncztr_stage_encode(&s, pl->n, items);
        for (size_t i = 0; i < pl->n; i++) {
            pl->v[i].enc = items[i].enc;
            pl->v[i].enclen = items[i].enclen;
        }
        if (bad < pl->n)
            ret = ncztr_codec_failed(o, "encode", pl->v[bad].key, &items[bad].err);
    }
    free(items);
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
        if (pl->v[i].iov) { /* raw, gathered from the user's buffer by the store */
            idx[m] = i;
            reqs[m].key = pl->v[i].key;
            reqs[m].iov = pl->v[i].iov;
            reqs[m].iovcnt = pl->v[i].iovcnt;
            reqs[m].len = g->chunk_bytes;
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
        return SUCCEED;
    }
    if (ncztr_geom_init(o, &g) < 0)
        return FAIL;
    pl.pool = &c->pool;
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
