/* Partial shard writes. A writer taking a shard in parts (a sequential writer of half a shard
 * per call) would otherwise keep the shard raw in the chunk cache, filled, copied into, then
 * copied out inner chunk by inner chunk to be encoded: three passes over every byte before
 * the codecs. Where a block covers each inner chunk it touches whole, those inner chunks are
 * gathered from the user's buffer and encoded at once on the worker pool, and kept encoded
 * (the shard's pending state) until the shard is complete, when it is stored as its pieces
 * and index with one put and no copy; a flush (or any other access to that shard, or the
 * cache's budget) stores it earlier, taking its other inner chunks from the stored shard as
 * they are, without decoding them. Raw inner chunks, in a store that builds objects in
 * pieces (the directory store), are not kept at all: each is written from the user's rows
 * straight to its place in a temporary shard file (its offset is fixed: every raw inner
 * chunk has the same size), and the index is added and the file renamed into place when
 * the shard is complete: the kernel's copy is the only one, as for an unsharded raw chunk. */
#include "ncztr_chunkio_internal.h"
#include "ncztr_codec.h"
#include "nczc_workers.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NONE UINT64_MAX

/* Pending shards of one array built in the store at once, at most (one open file each);
 * the others wait in memory. */
#define MAX_BUILT 64
/* Runs of the user's buffer one inner chunk may be written from; one with more is gathered
 * first. */
#define BUILD_IOV 1024

static int p_match(const void *item, const void *key, size_t keylen)
{
    return memcmp(((const ncztr_pshard *)item)->coord, key, keylen * sizeof(uint64_t)) == 0;
}

static ncztr_pshard *p_find(ncztr_chunkcache *c, const uint64_t *coord)
{
    if (!c || !c->pix.count)
        return NULL;
    return nczc_hindex_find(&c->pix, ncztr_coord_hash(coord, c->rank), p_match, coord, (size_t)c->rank);
}

static void p_unlink(ncztr_chunkcache *c, ncztr_pshard *p)
{
    nczc_hindex_remove(&c->pix, p->hash, p);
    if (p->prev)
        p->prev->next = p->next;
    else
        c->phead = p->next;
    if (p->next)
        p->next->prev = p->prev;
    else
        c->ptail = p->prev;
    p->prev = p->next = NULL;
    c->pbytes -= p->bytes;
}

static void inner_release(ncztr_chunkcache *c, ncztr_pinner *in)
{
    if (in->pooled)
        ncztr_pool_give(&c->ipool, in->enc);
    else
        free(in->enc);
    in->enc = NULL;
    in->pooled = false;
}

static void p_free(ncztr_chunkcache *c, ncztr_pshard *p)
{
    if (!p)
        return;
    if (p->b) { /* never completed: nothing of it reaches the store */
        nczm_obj_abort(p->b);
        c->nbuilt--;
    }
    for (size_t i = 0; p->in && i < p->ninner; i++)
        inner_release(c, &p->in[i]);
    free(p->in);
    free(p);
}

/* The pending shard at coord, made (most recently written) when absent; NULL when out of
 * memory. */
static ncztr_pshard *p_get(ncztr_chunkcache *c, const uint64_t *coord, size_t ninner)
{
    ncztr_pshard *p = p_find(c, coord);
    if (p) {
        if (c->phead != p) { /* most recently written first */
            p->prev->next = p->next;
            if (p->next)
                p->next->prev = p->prev;
            else
                c->ptail = p->prev;
            p->prev = NULL;
            p->next = c->phead;
            c->phead->prev = p;
            c->phead = p;
        }
        return p;
    }
    if (!(p = calloc(1, sizeof *p + (size_t)c->rank * sizeof(uint64_t))) ||
        !(p->in = calloc(ninner, sizeof *p->in))) {
        free(p);
        return NULL;
    }
    memcpy(p->coord, coord, (size_t)c->rank * sizeof(uint64_t));
    p->ninner = ninner;
    p->hash = ncztr_coord_hash(coord, c->rank);
    if (nczc_hindex_add(&c->pix, p->hash, p) != 0) {
        p_free(c, p);
        return NULL;
    }
    p->next = c->phead;
    if (c->phead)
        c->phead->prev = p;
    else
        c->ptail = p;
    c->phead = p;
    return p;
}

void ncztr_pending_drop(ncztr_chunkcache *c, const uint64_t *coord)
{
    if (!c)
        return;
    ncztr_pshard *p = coord ? p_find(c, coord) : c->phead;
    while (p) {
        ncztr_pshard *next = coord ? NULL : p->next;
        p_unlink(c, p);
        p_free(c, p);
        p = next;
    }
}

/* ---- storing a pending shard ---- */

/* Completes shard p being built in the store: the inner chunks it has are in place, the
 * others are copied from the stored shard obj (objlen bytes; NULL: none) to theirs, else
 * never written (all fill); then the index, and the object is put in place. p and obj are
 * freed whatever the outcome. */
static herr_t p_store_built(ncztr_obj *o, const ncztr_cgeom *g, ncztr_pshard *p, unsigned char *obj,
                            size_t objlen)
{
    herr_t ret = SUCCEED;
    const ncztr_chain *chain = o->arr->chain;
    ncztr_chunkcache *c = o->arr->cache;
    size_t n = p->ninner, ibytes = g->chunk_bytes / n;
    bool at_start, any = false;
    size_t ib = ncztr_chain_shard_index_span(chain, &at_start);
    uint64_t base = at_start ? ib : 0;
    uint64_t *pairs = malloc(2 * n * sizeof *pairs), *stored = obj ? malloc(2 * n * sizeof *stored) : NULL;
    unsigned char *index = malloc(ib ? ib : 1);
    char *key = ncztr_chunk_key(g, p->coord);
    nczm_obj *b = p->b;
    ncztr_cerr e;
    p->b = NULL;
    c->nbuilt--;
    if (!key)
        NCZ_GOTO_QUIET(FAIL);
    if (!pairs || !index || (obj && !stored))
        NCZ_GOTO(FAIL, NCZ_E_NOMEM, "dataset \"%s\": out of memory storing shard \"%s\"", g->path, key);
    if (obj && (objlen < ib ||
                ncztr_chain_shard_index(chain, at_start ? obj : obj + objlen - ib, objlen, stored, &e) < 0))
        NCZ_GOTO(FAIL, NCZ_E_FORMAT, "dataset \"%s\": shard \"%s\", written in part: %s", g->path, key,
                 objlen < ib ? "the stored shard is too short for its index" : e.msg);
    for (size_t i = 0; i < n; i++) {
        const ncztr_pinner *in = &p->in[i];
        uint64_t at = base + (uint64_t)i * ibytes;
        pairs[2 * i] = pairs[2 * i + 1] = NONE;
        if (in->have) {
            if (in->len) {
                pairs[2 * i] = at;
                pairs[2 * i + 1] = ibytes;
            }
        } else if (stored && stored[2 * i] != NONE) {
            if (stored[2 * i + 1] != ibytes)
                NCZ_GOTO(FAIL, NCZ_E_FORMAT,
                         "dataset \"%s\": shard \"%s\", written in part: its stored inner chunk %zu has %llu "
                         "bytes, expected %zu",
                         g->path, key, i, (unsigned long long)stored[2 * i + 1], ibytes);
            struct iovec v = {obj + stored[2 * i], ibytes};
            int err = nczm_obj_pwritev(b, &v, 1, ibytes, at);
            if (err)
                NCZ_GOTO(FAIL, NCZ_E_STORE, "dataset \"%s\": shard \"%s\": writing inner chunk %zu: %s",
                         g->path, key, i, strerror(err));
            pairs[2 * i] = at;
            pairs[2 * i + 1] = ibytes;
        }
        any = any || pairs[2 * i] != NONE;
    }
    if (ncztr_chain_shard_index_encode(chain, pairs, index, &e) < 0)
        NCZ_GOTO(FAIL, NCZ_E_FORMAT, "dataset \"%s\": shard \"%s\": %s", g->path, key, e.msg);
    nczm_status st;
    if (!any) { /* no inner chunk at all: the index alone, as a shard kept in memory */
        nczm_obj_abort(b);
        b = NULL;
        st = nczm_write(o->file->map, key, index, ib);
    } else {
        struct iovec iv = {index, ib};
        int err = nczm_obj_pwritev(b, &iv, 1, ib, at_start ? 0 : base + (uint64_t)n * ibytes);
        if (err)
            NCZ_GOTO(FAIL, NCZ_E_STORE, "dataset \"%s\": shard \"%s\": writing its index: %s", g->path, key,
                     strerror(err));
        st = nczm_obj_commit(b);
        b = NULL;
    }
    if (st != NCZM_OK)
        NCZ_GOTO(FAIL, NCZ_E_STORE, "dataset \"%s\": storing shard \"%s\" failed: %s", g->path, key,
                 nczm_errmsg(o->file->map));
done:
    nczm_obj_abort(b);
    free(key);
    free(pairs);
    free(stored);
    free(index);
    free(obj);
    p_free(c, p);
    return ret;
}

/* Queues pending shard p as its pieces and index: the inner chunks it has, the others as
 * they are in the stored shard obj (objlen bytes; NULL: none), else none (all fill). p and
 * obj are freed whatever the outcome (obj by the put, when it holds pieces). */
static herr_t p_store(ncztr_obj *o, const ncztr_cgeom *g, ncztr_putlist *pl, ncztr_pshard *p,
                      unsigned char *obj, size_t objlen)
{
    if (p->b)
        return p_store_built(o, g, p, obj, objlen);
    herr_t ret = SUCCEED;
    const ncztr_chain *chain = o->arr->chain;
    size_t n = p->ninner, npart = 0, len = 0;
    bool at_start;
    size_t ib = ncztr_chain_shard_index_span(chain, &at_start);
    ncztr_chunkcache *c = o->arr->cache;
    uint64_t *pairs = malloc(2 * n * sizeof *pairs), *stored = NULL;
    void **parts = calloc(n + 2, sizeof *parts);
    bool *pooled = calloc(n + 2, sizeof *pooled);
    struct iovec *iov = calloc(n + 1, sizeof *iov);
    unsigned char *index = malloc(ib ? ib : 1);
    char *key = ncztr_chunk_key(g, p->coord);
    ncztr_cerr e;
    if (!key)
        NCZ_GOTO_QUIET(FAIL);
    if (!pairs || !parts || !pooled || !iov || !index)
        NCZ_GOTO(FAIL, NCZ_E_NOMEM, "dataset \"%s\": out of memory storing shard \"%s\"", g->path, key);
    if (obj) {
        if (!(stored = malloc(2 * n * sizeof *stored)))
            NCZ_GOTO(FAIL, NCZ_E_NOMEM, "dataset \"%s\": out of memory storing shard \"%s\"", g->path, key);
        if (objlen < ib ||
            ncztr_chain_shard_index(chain, at_start ? obj : obj + objlen - ib, objlen, stored, &e) < 0)
            NCZ_GOTO(FAIL, NCZ_E_FORMAT, "dataset \"%s\": shard \"%s\", written in part: %s", g->path, key,
                     objlen < ib ? "the stored shard is too short for its index" : e.msg);
    }
    if (at_start) {
        iov[npart++] = (struct iovec){index, ib};
        len = ib;
    }
    for (size_t i = 0; i < n; i++) {
        const ncztr_pinner *in = &p->in[i];
        struct iovec v = {in->enc, in->len};
        if (!in->have && stored && !(stored[2 * i] == NONE && stored[2 * i + 1] == NONE))
            v = (struct iovec){obj + stored[2 * i], (size_t)stored[2 * i + 1]}; /* as stored */
        if (!v.iov_base) {
            pairs[2 * i] = pairs[2 * i + 1] = NONE;
            continue;
        }
        pairs[2 * i] = len;
        pairs[2 * i + 1] = v.iov_len;
        iov[npart++] = v;
        len += v.iov_len;
    }
    if (ncztr_chain_shard_index_encode(chain, pairs, index, &e) < 0)
        NCZ_GOTO(FAIL, NCZ_E_FORMAT, "dataset \"%s\": shard \"%s\": %s", g->path, key, e.msg);
    if (!at_start) {
        iov[npart++] = (struct iovec){index, ib};
        len += ib;
    }
    /* the pieces' buffers now belong to the put */
    size_t np = 0;
    parts[np++] = index;
    index = NULL;
    if (obj)
        parts[np++] = obj;
    obj = NULL;
    for (size_t i = 0; i < n; i++) {
        if (p->in[i].enc) {
            pooled[np] = p->in[i].pooled;
            parts[np++] = p->in[i].enc;
        }
        p->in[i].enc = NULL;
        p->in[i].pooled = false;
    }
    ret = ncztr_pl_add_parts(g, pl, key, iov, (int)npart, len, parts, pooled, np, &c->ipool);
    key = NULL;
    iov = NULL;
    parts = NULL;
    pooled = NULL;
done:
    free(key);
    free(pairs);
    free(stored);
    free(parts);
    free(pooled);
    free(iov);
    free(index);
    free(obj);
    p_free(c, p);
    return ret;
}

/* Stores the m pending shards ps (unlinked already, freed here): complete ones at once,
 * the others merged with their stored shards, fetched in one store call. */
static herr_t p_store_many(ncztr_obj *o, const ncztr_cgeom *g, ncztr_putlist *pl, ncztr_pshard **ps, size_t m)
{
    herr_t ret = SUCCEED;
    nczm_get *gets = calloc(m, sizeof *gets);
    char **keys = calloc(m, sizeof *keys);
    size_t ng = 0;
    if (!gets || !keys) {
        ret = NCZ_PUSH(NCZ_E_NOMEM, "dataset \"%s\": out of memory storing shards", g->path);
        goto done;
    }
    for (size_t i = 0; i < m; i++) {
        if (ps[i]->have == ps[i]->ninner)
            continue;
        if (!(keys[i] = ncztr_chunk_key(g, ps[i]->coord))) {
            ret = FAIL;
            goto done;
        }
        gets[ng++].key = keys[i];
    }
    if (ng)
        nczm_get_many(o->file->map, ng, gets); /* per-request statuses are examined below */
    for (size_t i = 0, k = 0; i < m; i++) {
        ncztr_pshard *p = ps[i];
        ps[i] = NULL;
        if (p->have == p->ninner) {
            ret = p_store(o, g, pl, p, NULL, 0) < 0 ? FAIL : ret;
            continue;
        }
        nczm_get *gt = &gets[k++];
        if (gt->status == NCZM_OK) {
            ret = p_store(o, g, pl, p, gt->buf, gt->len) < 0 ? FAIL : ret;
            gt->buf = NULL; /* the put's, or freed */
        } else if (gt->status == NCZM_NOTFOUND) {
            ret = p_store(o, g, pl, p, NULL, 0) < 0 ? FAIL : ret;
        } else {
            ret = NCZ_PUSH(NCZ_E_STORE, "dataset \"%s\": cannot read shard \"%s\" to complete it: %s",
                           g->path, gt->key, nczm_errmsg(o->file->map));
            p_free(o->arr->cache, p);
        }
    }
done:
    for (size_t i = 0; i < m; i++)
        p_free(o->arr->cache, ps[i]);
    for (size_t k = 0; gets && k < ng; k++)
        free(gets[k].buf);
    for (size_t i = 0; keys && i < m; i++)
        free(keys[i]);
    free(gets);
    free(keys);
    return ret;
}

herr_t ncztr_pending_settle(ncztr_obj *o, const ncztr_cgeom *g, const uint64_t *coord, ncztr_putlist *pl,
                            bool *queued)
{
    ncztr_chunkcache *c = o->arr->cache;
    ncztr_pshard *p = p_find(c, coord);
    if (!p)
        return SUCCEED;
    p_unlink(c, p);
    if (o->deleted || o->file->readonly) {
        p_free(c, p);
        return SUCCEED;
    }
    *queued = true;
    return p_store_many(o, g, pl, &p, 1);
}

herr_t ncztr_pending_settle_all(ncztr_obj *o, const ncztr_cgeom *g, ncztr_putlist *pl, size_t keep_bytes)
{
    ncztr_chunkcache *c = o->arr ? o->arr->cache : NULL;
    if (!c || !c->phead)
        return SUCCEED;
    if (o->deleted || o->file->readonly) { /* a deleted array's chunks must not reappear */
        ncztr_pending_drop(c, NULL);
        return SUCCEED;
    }
    size_t m = 0, cap = 16;
    ncztr_pshard **ps = malloc(cap * sizeof *ps);
    if (!ps)
        return NCZ_PUSH(NCZ_E_NOMEM, "dataset \"%s\": out of memory storing shards", g->path);
    while (c->ptail && (keep_bytes == 0 || c->pbytes > keep_bytes)) {
        if (m == cap) {
            ncztr_pshard **nps = realloc(ps, 2 * cap * sizeof *ps);
            if (!nps)
                break; /* the rest waits for the next settle */
            ps = nps;
            cap *= 2;
        }
        ncztr_pshard *p = c->ptail; /* least recently written first */
        p_unlink(c, p);
        ps[m++] = p;
    }
    herr_t ret = p_store_many(o, g, pl, ps, m);
    free(ps);
    return ret;
}

/* ---- writing inner chunks ---- */

/* One inner chunk the block covers: its shard's job, its number, its encoded bytes. */
typedef struct w_item {
    size_t job, inner;
    void *dst; /* a buffer of the pool to encode into, or NULL */
    void *enc; /* dst, a buffer of the codecs', or NULL (all fill) */
    size_t len;
    nczm_obj *b;  /* its shard being built in the store: written there at off, len its size */
    uint64_t off; /* (0 when all fill) */
} w_item;

typedef struct w_arg {
    const ncztr_ioctx *x;
    const ncztr_chain *chain;
    const ncztr_cjob *jobs;
    w_item *items;
    size_t nitems;
    unsigned char *slots;
    size_t ibytes, ibound;
    bool raw; /* stored raw: each inner chunk is gathered into its pool buffer and kept there */
    ncztr_slot_errs *se;
    struct iovec *iovs;          /* BUILD_IOV per slot */
    const unsigned char *fillel; /* one element of fill */
} w_arg;

static bool runs_all_fill(const w_arg *a, const struct iovec *iov, size_t nv)
{
    size_t esz = a->x->g.esz;
    for (size_t v = 0; v < nv; v++) {
        const unsigned char *p = iov[v].iov_base;
        for (size_t k = 0; k + esz <= iov[v].iov_len; k += esz)
            if (memcmp(p + k, a->fillel, esz) != 0)
                return false;
    }
    return true;
}

/* A raw inner chunk to its place in its shard being built: from the user's rows, or
 * gathered first (past the array's edge, filled; or too many runs). */
static int build_one(const w_arg *a, w_item *it, size_t i, unsigned slot)
{
    struct iovec *iov = a->iovs + (size_t)slot * BUILD_IOV;
    const uint64_t *coord = a->jobs[it->job].coord;
    size_t nv = ncztr_box_iov_inner(a->x, coord, a->x->inner, it->inner, iov, BUILD_IOV);
    if (nv == 0) {
        unsigned char *raw = a->slots + (size_t)slot * a->ibytes;
        if (ncztr_box_gather_inner(a->x, coord, a->x->inner, it->inner, raw, false)) {
            ncztr_fill_elems(&a->x->a->za, raw, a->ibytes / a->x->g.esz);
            ncztr_box_gather_inner(a->x, coord, a->x->inner, it->inner, raw, true);
        }
        iov[0] = (struct iovec){raw, a->ibytes};
        nv = 1;
    }
    it->len = 0;
    if (runs_all_fill(a, iov, nv))
        return 0; /* never written, as zarr-python leaves an inner chunk of fill */
    int err = nczm_obj_pwritev(it->b, iov, (int)nv, a->ibytes, it->off);
    if (err) {
        ncztr_cerr e;
        snprintf(e.msg, sizeof e.msg, "writing it into the shard's temporary: %s", strerror(err));
        ncztr_slot_errs_note(a->se, slot, i, &e);
        return 1;
    }
    it->len = a->ibytes;
    return 0;
}

static int encode_one(void *arg, size_t i, unsigned slot)
{
    const w_arg *a = arg;
    w_item *it = &a->items[i];
    if (it->b) {
        /* a shard's inner chunks all by one thread, one shard per thread: writes into one
         * file wait for each other in the kernel (its inode lock) */
        if (i > 0 && a->items[i - 1].job == it->job)
            return 0; /* written by its shard's first item */
        for (size_t k = i; k < a->nitems && a->items[k].job == it->job; k++)
            if (build_one(a, &a->items[k], k, slot) != 0)
                return 1;
        return 0;
    }
    unsigned char *raw = a->raw ? it->dst : a->slots + (size_t)slot * a->ibytes;
    ncztr_cerr e;
    if (ncztr_box_gather_inner(a->x, a->jobs[it->job].coord, a->x->inner, it->inner, raw, false)) {
        /* it reaches past the array: the rest is fill */
        ncztr_fill_elems(&a->x->a->za, raw, a->ibytes / a->x->g.esz);
        ncztr_box_gather_inner(a->x, a->jobs[it->job].coord, a->x->inner, it->inner, raw, true);
    }
    if (ncztr_chain_inner_encode(a->chain, raw, it->dst, a->ibound, &it->enc, &it->len, &e) < 0) {
        ncztr_slot_errs_note(a->se, slot, i, &e);
        return 1;
    }
    return 0;
}

/* The shards of this call's inner chunks that are begun now are built in the store (at
 * most MAX_BUILT at once per array): their items get the object and their places. */
static herr_t build_begin(ncztr_ioctx *x, const ncztr_cjob *jobs, w_item *items, size_t nitems)
{
    ncztr_chunkcache *c = x->a->cache;
    size_t n = x->ninner, ibytes = x->g.chunk_bytes / n;
    bool at_start;
    uint64_t base = ncztr_chain_shard_index_span(x->a->chain, &at_start);
    if (!at_start)
        base = 0;
    for (size_t t = 0; t < nitems;) {
        size_t j = items[t].job;
        ncztr_pshard *p = p_get(c, jobs[j].coord, n);
        if (!p)
            return NCZ_PUSH(NCZ_E_NOMEM, "dataset \"%s\": out of memory for shard \"%s\"", x->g.path,
                            jobs[j].key);
        if (!p->b && p->have == 0 && c->nbuilt < MAX_BUILT &&
            nczm_obj_begin(x->o->file->map, jobs[j].key, &p->b) == NCZM_OK)
            c->nbuilt++; /* else (a store that refuses) the shard waits in memory */
        for (; t < nitems && items[t].job == j; t++)
            if (p->b) {
                items[t].b = p->b;
                items[t].off = base + (uint64_t)items[t].inner * ibytes;
            }
    }
    return SUCCEED;
}

herr_t ncztr_shard_write_partial(ncztr_ioctx *x, ncztr_cjob *jobs, size_t njobs, ncztr_putlist *pl)
{
    herr_t ret = SUCCEED;
    const char *path = x->g.path;
    const ncztr_chain *chain = x->a->chain;
    ncztr_chunkcache *c = x->a->cache;
    size_t ninner = x->ninner, nitems = 0, m = 0;
    for (size_t j = 0; j < njobs; j++)
        m += jobs[j].partial;
    if (m == 0)
        return SUCCEED;
    for (size_t j = 0; j < njobs; j++)
        nitems += jobs[j].partial ? ncztr_box_inner_list(x, jobs[j].coord, x->inner, NULL) : 0;
    size_t ibytes = x->g.chunk_bytes / ninner, *nums = malloc(ninner * sizeof *nums);
    unsigned ns = nczc_workers_slots(x->workers);
    struct iovec *iovs = NULL;
    unsigned char *fillel = NULL; /* one element of fill */
    w_item *items = calloc(nitems ? nitems : 1, sizeof *items);
    ncztr_slot_errs se = {0};
    unsigned char *slots = ncztr_scratch_get(x->o->file, NCZTR_SCR_SLOTS, ns, ibytes);
    if (!nums || !items || !slots || ncztr_slot_errs_init(&se, ns) < 0)
        NCZ_GOTO(FAIL, NCZ_E_NOMEM, "dataset \"%s\": out of memory writing shards", path);
    nitems = 0;
    for (size_t j = 0; j < njobs; j++) {
        size_t k = jobs[j].partial ? ncztr_box_inner_list(x, jobs[j].coord, x->inner, nums) : 0;
        for (size_t t = 0; t < k; t++)
            items[nitems++] = (w_item){.job = j, .inner = nums[t]};
    }
    /* inner chunks stored raw take no more room than their raw size: gathered in place */
    bool raw = ncztr_chain_inner_raw(chain);
    if (raw && !x->o->file->par && nczm_map_builds(x->o->file->map) &&
        build_begin(x, jobs, items, nitems) < 0)
        NCZ_GOTO_QUIET(FAIL);
    if (!c->ibound && (c->ibound = raw ? ibytes : ncztr_chain_inner_bound(chain)))
        ncztr_pool_init(&c->ipool, c->ibound);
    bool building = false;
    for (size_t t = 0; t < nitems; t++) {
        building = building || items[t].b;
        if (c->ibound && !items[t].b && !(items[t].dst = ncztr_pool_take(&c->ipool, c->ibound)))
            NCZ_GOTO(FAIL, NCZ_E_NOMEM, "dataset \"%s\": out of memory writing shards", path);
    }
    if (building && (!(iovs = malloc((size_t)ns * BUILD_IOV * sizeof *iovs)) || !(fillel = malloc(x->g.esz))))
        NCZ_GOTO(FAIL, NCZ_E_NOMEM, "dataset \"%s\": out of memory writing shards", path);
    if (building)
        ncztr_fill_elems(&x->a->za, fillel, 1);
    w_arg wa = {.x = x,
                .chain = chain,
                .jobs = jobs,
                .items = items,
                .nitems = nitems,
                .slots = slots,
                .ibytes = ibytes,
                .ibound = c->ibound,
                .raw = raw && c->ibound == ibytes,
                .se = &se,
                .iovs = iovs,
                .fillel = fillel};
    if (nczc_parallel_for(nitems, x->workers, encode_one, &wa) < nitems) {
        const char *why;
        const w_item *it = &items[ncztr_slot_errs_first(&se, &why)];
        NCZ_GOTO(FAIL, NCZ_E_FORMAT, "dataset \"%s\": shard \"%s\": cannot encode inner chunk %zu: %s", path,
                 jobs[it->job].key, it->inner, why);
    }
    /* into the shards' pending states; complete shards are stored */
    for (size_t t = 0; t < nitems;) {
        size_t j = items[t].job;
        ncztr_pshard *p = p_get(c, jobs[j].coord, ninner);
        if (!p)
            NCZ_GOTO(FAIL, NCZ_E_NOMEM, "dataset \"%s\": out of memory for shard \"%s\"", path, jobs[j].key);
        for (; t < nitems && items[t].job == j; t++) {
            ncztr_pinner *in = &p->in[items[t].inner];
            if (items[t].b) { /* in its place in the store already: nothing kept here */
                p->have += !in->have;
                *in = (ncztr_pinner){.len = items[t].len, .have = true};
                continue;
            }
            p->bytes -= in->len;
            c->pbytes -= in->len;
            inner_release(c, in);
            p->have += !in->have;
            bool pooled = items[t].enc && items[t].enc == items[t].dst;
            if (!pooled) /* unused: fill, or the codecs' own buffer */
                ncztr_pool_give(&c->ipool, items[t].dst);
            *in = (ncztr_pinner){.enc = items[t].enc, .len = items[t].len, .have = true, .pooled = pooled};
            items[t].enc = items[t].dst = NULL;
            p->bytes += in->len;
            c->pbytes += in->len;
        }
        if (p->have == ninner) {
            p_unlink(c, p);
            if (p_store_many(x->o, &x->g, pl, &p, 1) < 0)
                NCZ_GOTO_QUIET(FAIL);
        }
    }
done:
    for (size_t t = 0; items && t < nitems; t++) {
        if (items[t].enc != items[t].dst)
            free(items[t].enc);
        ncztr_pool_give(&c->ipool, items[t].dst);
    }
    /* a shard begun here whose inner chunks did not all arrive: as if never begun */
    for (size_t j = 0; ret < 0 && j < njobs; j++) {
        ncztr_pshard *p = jobs[j].partial ? p_find(c, jobs[j].coord) : NULL;
        if (p && p->have == 0) {
            p_unlink(c, p);
            p_free(c, p);
        }
    }
    free(iovs);
    free(fillel);
    free(items);
    free(nums);
    ncztr_slot_errs_clear(&se);
    return ret;
}
