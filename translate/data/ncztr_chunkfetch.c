/* Fetching a batch's chunks (ncztr_fetch_chunks): raw ones straight into their buffers (or
 * the user's), encoded ones fetched and decoded on the worker pool, fused where the store
 * fetches on the pool (each object decoded by the thread that read it), else a batch read
 * then a batch decode; a missing chunk is all fill. */
#include "ncztr_array_internal.h"
#include "ncztr_chunkio_internal.h"
#include "ncztr_codec.h"
#include "ncztr_stages.h"
#include "nczc_workers.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A missing chunk is all fill: a write gets its own buffer to change, a read shares one. */
static herr_t missing_chunk(ncztr_ioctx *x, ncztr_cjob *jb)
{
    const char *path = x->g.path;
    if (jb->direct) {
        ncztr_fill_elems(&x->a->za, jb->direct, x->g.chunk_elems);
        jb->data = jb->direct;
        return SUCCEED;
    }
    if (x->write) {
        if (!(jb->data = ncztr_pool_take(x->pool, x->g.chunk_bytes)))
            return NCZ_PUSH(NCZ_E_NOMEM, "dataset \"%s\": out of memory for chunk \"%s\"", path, jb->key);
        jb->own = true;
        ncztr_fill_elems(&x->a->za, jb->data, x->g.chunk_elems);
        return SUCCEED;
    }
    if (!x->fillbuf) {
        if (!(x->fillbuf = malloc(x->g.chunk_bytes)))
            return NCZ_PUSH(NCZ_E_NOMEM, "dataset \"%s\": out of memory for chunk \"%s\"", path, jb->key);
        ncztr_fill_elems(&x->a->za, x->fillbuf, x->g.chunk_elems);
    }
    jb->data = x->fillbuf;
    return SUCCEED;
}

static herr_t bad_size(ncztr_ioctx *x, const ncztr_cjob *jb, size_t rawlen)
{
    char shp[256];
    ncztr_io_shape_str(&x->g, shp, sizeof shp);
    return NCZ_PUSH(NCZ_E_FORMAT,
                    "dataset \"%s\": chunk \"%s\" holds %zu bytes, expected %zu (a %s chunk of %zu-byte "
                    "elements); the chunk object is damaged or was written with another shape",
                    x->g.path, jb->key, rawlen, x->g.chunk_bytes, shp, x->g.esz);
}

/* Adopts a fetched raw chunk (owned, whatever the outcome): checks its size, and brings a
 * Fortran-ordered one into C order. */
static herr_t adopt_chunk(ncztr_ioctx *x, ncztr_cjob *jb, unsigned char *raw, size_t rawlen)
{
    const char *path = x->g.path;
    if (rawlen != x->g.chunk_bytes) {
        free(raw); /* maybe smaller than a chunk: not for the pool */
        return bad_size(x, jb, rawlen);
    }
    if (x->g.transpose) {
        unsigned char *c = ncztr_pool_take(x->pool, x->g.chunk_bytes);
        if (!c) {
            ncztr_pool_give(x->pool, raw);
            return NCZ_PUSH(NCZ_E_NOMEM, "dataset \"%s\": out of memory for chunk \"%s\"", path, jb->key);
        }
        ncztr_transpose(&x->g, raw, c, false);
        ncztr_pool_give(x->pool, raw);
        raw = c;
    }
    jb->data = raw;
    jb->own = true;
    return SUCCEED;
}

/* A raw chunk whose destination (the user's buffer, its runs there, or a pooled buffer)
 * would take the store's bytes slowly (ncztr_scratch_slow: a large block from malloc, in
 * most processes) is read by the fetching thread into a slot of its own in the scratch
 * and copied on at once, while it is in that core's cache: two fast copies cost less than
 * the slow one. The others are read where they were placed. */
typedef struct relay {
    const ncztr_ioctx *x;
    ncztr_cjob *jobs;
    const size_t *which;
    nczm_getinto *gets;
    nczm_getinto *placed; /* per item: the request as fetch_raw placed it */
    unsigned char *slow;  /* per item: relayed through a slot */
    unsigned char *slots;
    size_t stride;
} relay;

static bool dest_slow(const nczm_getinto *g)
{
    uint64_t src = 0;
    for (int k = 0; k < g->iovcnt; k++) {
        if (ncztr_scratch_slow(g->iov[k].iov_base, src))
            return true;
        src += g->iov[k].iov_len;
    }
    return g->iovcnt == 0 && ncztr_scratch_slow(g->buf, 0);
}

/* nczm_get_into_each clears every request's runs: they are set again here. */
static void relay_before(void *ud, size_t i, unsigned slot)
{
    relay *r = ud;
    if (r->slow[i]) {
        r->gets[i].buf = r->slots + (size_t)slot * r->stride;
    } else {
        r->gets[i].iov = r->placed[i].iov;
        r->gets[i].iovcnt = r->placed[i].iovcnt;
    }
}

static void relay_after(void *ud, size_t i, unsigned slot)
{
    (void)slot;
    relay *r = ud;
    if (!r->slow[i])
        return;
    nczm_getinto *g = &r->gets[i];
    const nczm_getinto *pl = &r->placed[i];
    if (g->status == NCZM_OK && g->len == r->x->g.chunk_bytes) {
        if (pl->iovcnt)
            ncztr_box_copy(r->x, r->jobs[r->which[i]].coord, g->buf, true);
        else
            memcpy(pl->buf, g->buf, g->len);
    }
    /* as if read where it was placed, as far as fetch_raw can tell */
    g->buf = pl->buf;
    g->iov = pl->iov;
    g->iovcnt = pl->iovcnt;
}

/* Reads the raw chunks of gets, relaying those whose destination is slow where the store
 * fetches on the worker pool. */
static void get_raw(ncztr_ioctx *x, ncztr_cjob *jobs, const size_t *which, size_t n, nczm_getinto *gets)
{
    nczm_map *map = x->o->file->map;
    relay r = {x, jobs, which, gets, NULL, NULL, NULL, ncztr_scratch_stride(x->g.chunk_bytes)};
    size_t nslow = 0;
    if (nczm_map_fetches_each(map) && (r.slow = calloc(n, 1)))
        for (size_t i = 0; i < n; i++)
            nslow += (r.slow[i] = dest_slow(&gets[i]));
    unsigned ns = nczc_workers_slots(x->workers);
    if (nslow && (r.placed = malloc(n * sizeof *r.placed)) &&
        (r.slots = ncztr_scratch_get(x->o->file, NCZTR_SCR_SLOTS, ns, r.stride))) {
        memcpy(r.placed, gets, n * sizeof *gets);
        nczm_get_into_each(map, n, gets, relay_before, relay_after, &r); /* statuses examined after */
    } else {
        nczm_get_into_many(map, n, gets); /* per-request statuses are examined after */
    }
    free(r.slow);
    free(r.placed);
}

/* Uncompressed chunks have a known size: they are read straight into pooled buffers (or
 * the user's buffer, or the file's scratch for a streamed chunk). Asking for exactly
 * chunk_bytes still tells a short or long object (a damaged chunk). */
static herr_t fetch_raw(ncztr_ioctx *x, ncztr_cjob *jobs, const size_t *which, size_t n)
{
    herr_t ret = SUCCEED;
    nczm_map *map = x->o->file->map;
    const char *path = x->g.path;
    size_t nstream = 0, niov = 0, stride = ncztr_scratch_stride(x->g.chunk_bytes);
    /* Whole chunks inside the block go from the store straight to their runs in the
     * user's buffer where the store scatters (one copy per byte, the kernel's) */
    bool vec = x->box && !x->g.transpose && nczm_map_vectored(map);
    size_t *runs = calloc(n, sizeof *runs);
    if (!runs)
        return NCZ_PUSH(NCZ_E_NOMEM, "dataset \"%s\": out of memory fetching chunks", path);
    for (size_t i = 0; i < n; i++) {
        ncztr_cjob *jb = &jobs[which[i]];
        if (vec && jb->stream && jb->full &&
            (runs[i] = ncztr_box_iov(x, jb->coord, NULL, 0)) > NCZTR_IOV_MAX_RUNS)
            runs[i] = 0;
        niov += runs[i];
        nstream += jb->stream && !runs[i];
    }
    unsigned char *scr = NULL;
    struct iovec *iovs = niov ? malloc(niov * sizeof *iovs) : NULL;
    nczm_getinto *gets = calloc(n, sizeof *gets);
    if (!gets || (niov && !iovs) ||
        (nstream && !(scr = ncztr_scratch_get(x->o->file, NCZTR_SCR_FETCH, nstream, stride)))) {
        free(runs);
        free(iovs);
        free(gets);
        return NCZ_PUSH(NCZ_E_NOMEM, "dataset \"%s\": out of memory fetching chunks", path);
    }
    for (size_t i = 0, s = 0, v = 0; i < n; i++) {
        ncztr_cjob *jb = &jobs[which[i]];
        gets[i].key = jb->key;
        gets[i].cap = x->g.chunk_bytes;
        if (jb->direct) {
            gets[i].buf = jb->direct;
        } else if (runs[i]) {
            gets[i].iov = iovs + v;
            gets[i].iovcnt = (int)runs[i];
            ncztr_box_iov(x, jb->coord, iovs + v, runs[i]);
            v += runs[i];
        } else if (jb->stream)
            gets[i].buf = scr + (s++) * stride;
        else if (!(gets[i].buf = ncztr_pool_take(x->pool, x->g.chunk_bytes)))
            NCZ_GOTO(FAIL, NCZ_E_NOMEM, "dataset \"%s\": out of memory for chunk \"%s\"", path, jb->key);
    }
    get_raw(x, jobs, which, n, gets); /* per-request statuses are examined below */
    for (size_t i = 0; i < n && ret == SUCCEED; i++) {
        ncztr_cjob *jb = &jobs[which[i]];
        if (gets[i].status == NCZM_NOTFOUND) {
            ret = missing_chunk(x, jb);
        } else if ((jb->direct || jb->stream) && (gets[i].status == NCZM_OK || gets[i].status == NCZM_LONG)) {
            if (gets[i].len != x->g.chunk_bytes)
                ret = bad_size(x, jb, gets[i].len);
            jb->data = gets[i].buf;
            jb->copied = gets[i].iovcnt > 0; /* already where it belongs */
            gets[i].buf = NULL;
        } else if (gets[i].status == NCZM_OK || gets[i].status == NCZM_LONG) {
            unsigned char *raw = gets[i].buf;
            gets[i].buf = NULL;
            ret = adopt_chunk(x, jb, raw, gets[i].len);
        } else {
            NCZ_GOTO(FAIL, NCZ_E_STORE, "dataset \"%s\": cannot read chunk \"%s\": %s", path, jb->key,
                     nczm_errmsg(map));
        }
    }
done:
    for (size_t i = 0; i < n; i++)
        if (gets[i].buf != jobs[which[i]].direct && !jobs[which[i]].stream)
            ncztr_pool_give(x->pool, gets[i].buf);
    free(gets);
    free(iovs);
    free(runs);
    return ret;
}

/* Room for one fetched chunk still encoded: codecs rarely grow data by more than a few
 * bytes per KiB; a bigger object is fetched again on its own (fetch_encoded). Whole pages,
 * so that each room in the scratch keeps its skew. */
static size_t enc_room(const ncztr_cgeom *g)
{
    return ncztr_scratch_stride(g->chunk_bytes + g->chunk_bytes / 64 + 4096);
}

/* Fetches the stored (encoded) bytes of n chunks into the file's scratch, in one store
 * call; an object bigger than its room is fetched again into a buffer of its own
 * (gets[i].buf then differs from in[i], and is the caller's to free). */
static herr_t fetch_encoded(ncztr_ioctx *x, nczm_getinto *gets, size_t n)
{
    nczm_map *map = x->o->file->map;
    size_t room = enc_room(&x->g);
    unsigned char *scr = ncztr_scratch_get(x->o->file, NCZTR_SCR_FETCH, n, room);
    if (!scr)
        return NCZ_PUSH(NCZ_E_NOMEM, "dataset \"%s\": out of memory fetching chunks", x->g.path);
    for (size_t i = 0; i < n; i++) {
        gets[i].buf = scr + i * room;
        gets[i].cap = room;
    }
    nczm_get_into_many(map, n, gets); /* per-request statuses are examined by the caller */
    for (size_t i = 0; i < n; i++) {
        if (gets[i].status != NCZM_LONG)
            continue;
        nczm_get one = {.key = gets[i].key};
        nczm_get_many(map, 1, &one);
        gets[i].status = one.status;
        gets[i].buf = one.buf;
        gets[i].len = one.len;
        gets[i].cap = 0; /* marks a buffer of its own */
    }
    return SUCCEED;
}

/* After a chunk decodes, on the worker that decoded it: its elements go to the user. */
typedef struct post_arg {
    const ncztr_ioctx *x;
    ncztr_cjob *jobs;
    const size_t *which, *iidx;
    hsize_t inner[NCZTR_MAX_RANK]; /* streamed shards: the inner chunk's shape */
} post_arg;

static void post_copy(void *arg, size_t k, unsigned char *raw)
{
    const post_arg *p = arg;
    ncztr_cjob *jb = &p->jobs[p->which[p->iidx[k]]];
    if (jb->direct)
        return;
    ncztr_box_copy(p->x, jb->coord, raw, true);
    jb->copied = true;
}

/* A streamed shard's inner chunk, on the worker that decoded it: to the user. */
static void inner_copy(void *arg, size_t k, size_t inner, const unsigned char *raw)
{
    const post_arg *p = arg;
    ncztr_box_copy_inner(p->x, p->jobs[p->which[p->iidx[k]]].coord, p->inner, inner, raw);
}

/* Fetch and decode fused (nczm_get_into_each): each chunk object is read into its thread's
 * buffer and decoded there at once, while its bytes are in that core's cache, rather than
 * a batch read into one big buffer first and decoded from memory after. */
typedef struct fused {
    const ncztr_stage *st;
    nczm_getinto *gets;
    ncztr_dec_item *items;
    unsigned char *enc; /* per thread: room bytes */
    size_t room;
    unsigned char *bad; /* per item: its decode failed */
} fused;

static void fused_before(void *ud, size_t i, unsigned slot)
{
    fused *f = ud;
    f->gets[i].buf = f->enc + (size_t)slot * f->room;
    f->gets[i].cap = f->room;
}

static void fused_after(void *ud, size_t i, unsigned slot)
{
    fused *f = ud;
    if (f->gets[i].status != NCZM_OK)
        return;
    f->items[i].in = f->gets[i].buf;
    f->items[i].inlen = f->gets[i].len;
    f->bad[i] = ncztr_stage_decode_one(f->st, f->items, i, slot) != 0;
    f->items[i].in = NULL; /* the buffer is the thread's next one */
}

/* Fetches and decodes the n jobs of which (items prepared for each, iidx the identity) on
 * the worker pool of a store that fetches there (nczm_map_fetches_each). A missing chunk is
 * all fill; an object longer than its room is fetched again on its own and decoded on the
 * calling thread. */
static herr_t fetch_fused(ncztr_ioctx *x, ncztr_cjob *jobs, const size_t *which, size_t n,
                          const ncztr_stage *st, nczm_getinto *gets, ncztr_dec_item *items)
{
    nczm_map *map = x->o->file->map;
    const char *path = x->g.path;
    unsigned ns = nczc_workers_slots(x->workers);
    fused f = {st, gets, items, NULL, enc_room(&x->g), calloc(n, 1)};
    if (!f.bad || !(f.enc = ncztr_scratch_get(x->o->file, NCZTR_SCR_FETCH, ns, f.room))) {
        free(f.bad);
        return NCZ_PUSH(NCZ_E_NOMEM, "dataset \"%s\": out of memory fetching chunks", path);
    }
    nczm_get_into_each(map, n, gets, fused_before, fused_after, &f); /* statuses examined below */
    herr_t r = SUCCEED;
    for (size_t i = 0; i < n && r == SUCCEED; i++) {
        ncztr_cjob *jb = &jobs[which[i]];
        if (gets[i].status == NCZM_LONG) { /* bigger than its room: on its own */
            nczm_get one = {.key = gets[i].key};
            nczm_get_many(map, 1, &one);
            gets[i].status = one.status;
            if (one.status == NCZM_OK) {
                items[i].in = one.buf;
                items[i].inlen = one.len;
                f.bad[i] = ncztr_stage_decode_one(st, items, i, 0) != 0;
                items[i].in = NULL;
            }
            free(one.buf);
        }
        if (gets[i].status == NCZM_NOTFOUND)
            r = missing_chunk(x, jb);
        else if (gets[i].status != NCZM_OK)
            r = NCZ_PUSH(NCZ_E_STORE, "dataset \"%s\": cannot read chunk \"%s\": %s", path, jb->key,
                         nczm_errmsg(map));
        else if (f.bad[i])
            r = NCZ_PUSH(NCZ_E_FORMAT, "dataset \"%s\": cannot decode chunk \"%s\": %s", path, jb->key,
                         items[i].err.msg);
        else if (!jb->stream) {
            jb->data = items[i].out;
            jb->own = !jb->direct;
            items[i].out = NULL;
        }
        jb->copied = jb->copied || (gets[i].status == NCZM_OK && items[i].each);
    }
    free(f.bad);
    return r;
}

/* Fetches every job without data in one store call. Missing chunks are all fill. */
herr_t ncztr_fetch_chunks(ncztr_ioctx *x, ncztr_cjob *jobs, size_t njobs)
{
    if (x->a->dimonly) {
        /* a netCDF dimension without a variable has no chunks: its key may be that of the
         * variable of its name that is not its coordinate (netCDF-4's _nc4_non_coord_) */
        for (size_t j = 0; j < njobs; j++)
            if (!jobs[j].data && missing_chunk(x, &jobs[j]) < 0)
                return FAIL;
        return SUCCEED;
    }
    herr_t ret = SUCCEED;
    nczm_map *map = x->o->file->map;
    const char *path = x->g.path;
    nczm_getinto *gets = NULL;
    ncztr_dec_item *items = NULL;
    unsigned char **slots = NULL;
    ncztr_stage st;
    size_t *which = NULL, *iidx = NULL, n = 0, m = 0, nstream = 0;
    for (size_t j = 0; j < njobs; j++)
        n += !jobs[j].data && !jobs[j].iov && !jobs[j].partial;
    if (n == 0)
        return SUCCEED;
    which = calloc(n, sizeof *which);
    NCZ_CHECK_ALLOC(which, FAIL);
    n = 0;
    for (size_t j = 0; j < njobs; j++)
        if (!jobs[j].data && !jobs[j].iov && !jobs[j].partial)
            which[n++] = j;
    ncztr_chain *chain = ncztr_array_chain(x->o);
    if (!chain)
        NCZ_GOTO_QUIET(FAIL);
    if (ncztr_chain_is_null(chain)) {
        ret = fetch_raw(x, jobs, which, n);
        goto done;
    }
    if (ncztr_stage_init(x->o, &x->g, &st) < 0)
        NCZ_GOTO_QUIET(FAIL);
    /* Streamed shards skip the shard: their inner chunks go to the user as they decode. */
    post_arg pa = {x, jobs, NULL, NULL, {0}};
    uint64_t ishape[NCZTR_MAX_RANK];
    bool each = x->box && !x->write && ncztr_chain_inner_shape(chain, x->g.rank, ishape);
    for (int k = 0; each && k < x->g.rank; k++)
        pa.inner[k] = (hsize_t)ishape[k];
    gets = calloc(n, sizeof *gets);
    items = calloc(n, sizeof *items);
    iidx = calloc(n, sizeof *iidx);
    if (!gets || !items || !iidx)
        NCZ_GOTO(FAIL, NCZ_E_NOMEM, "dataset \"%s\": out of memory fetching chunks", path);
    for (size_t i = 0; i < n; i++) {
        gets[i].key = jobs[which[i]].key;
        nstream += jobs[which[i]].stream && !each;
    }
    pa.which = which;
    pa.iidx = iidx;
    if (x->box && !x->write) {
        st.post = post_copy;
        st.post_arg = &pa;
        st.inner = each ? inner_copy : NULL;
        st.inner_arg = &pa;
    }
    if (nstream) {
        unsigned ns = nczc_workers_slots(st.workers);
        unsigned char *sb = ncztr_scratch_get(x->o->file, NCZTR_SCR_SLOTS, ns, x->g.chunk_bytes);
        if (!sb || !(slots = calloc(ns, sizeof *slots)))
            NCZ_GOTO(FAIL, NCZ_E_NOMEM, "dataset \"%s\": out of memory decoding chunks", path);
        for (unsigned k = 0; k < ns; k++)
            slots[k] = sb + (size_t)k * x->g.chunk_bytes;
        st.slot_out = slots;
    }
    if (!x->g.transpose && nczm_map_fetches_each(map)) {
        /* every item prepared before the fetch: each decodes as soon as it arrives */
        for (size_t i = 0; i < n; i++) {
            ncztr_cjob *jb = &jobs[which[i]];
            iidx[i] = i;
            items[i].each = jb->stream && each;
            if (!jb->stream &&
                !(items[i].out = jb->direct ? jb->direct : ncztr_pool_take(x->pool, x->g.chunk_bytes)))
                NCZ_GOTO(FAIL, NCZ_E_NOMEM, "dataset \"%s\": out of memory for chunk \"%s\"", path, jb->key);
            m = i + 1;
        }
        NCZ_GOTO_QUIET(fetch_fused(x, jobs, which, n, &st, gets, items));
    }
    if (fetch_encoded(x, gets, n) < 0)
        NCZ_GOTO_QUIET(FAIL);
    for (size_t i = 0; i < n; i++) {
        ncztr_cjob *jb = &jobs[which[i]];
        if (gets[i].status == NCZM_NOTFOUND) {
            if (missing_chunk(x, jb) < 0)
                NCZ_GOTO_QUIET(FAIL);
            continue;
        }
        if (gets[i].status != NCZM_OK)
            NCZ_GOTO(FAIL, NCZ_E_STORE, "dataset \"%s\": cannot read chunk \"%s\": %s", path, jb->key,
                     nczm_errmsg(map));
        ncztr_dec_item *it = &items[m];
        iidx[m++] = i;
        it->in = gets[i].buf;
        it->inlen = gets[i].len;
        it->each = jb->stream && each;
        if (jb->stream)
            continue; /* decoded into the worker's slot (never with a transposition) */
        it->out = jb->direct ? jb->direct : ncztr_pool_take(x->pool, x->g.chunk_bytes);
        if (!it->out || (x->g.transpose && !(it->tmp = ncztr_pool_take(x->pool, x->g.chunk_bytes))))
            NCZ_GOTO(FAIL, NCZ_E_NOMEM, "dataset \"%s\": out of memory for chunk \"%s\"", path, jb->key);
    }
    /* decode-all: every fetched chunk of the batch at once, on the worker pool */
    size_t bad = ncztr_stage_decode(&st, m, items);
    if (bad < m)
        NCZ_GOTO(FAIL, NCZ_E_FORMAT, "dataset \"%s\": cannot decode chunk \"%s\": %s", path,
                 jobs[which[iidx[bad]]].key, items[bad].err.msg);
    for (size_t k = 0; k < m; k++) {
        ncztr_cjob *jb = &jobs[which[iidx[k]]];
        jb->copied = jb->copied || items[k].each;
        if (jb->stream)
            continue; /* copied, not kept */
        jb->data = items[k].out;
        jb->own = !jb->direct;
        items[k].out = NULL;
    }
done:
    for (size_t k = 0; items && k < m; k++) {
        if (items[k].out != jobs[which[iidx[k]]].direct)
            ncztr_pool_give(x->pool, items[k].out);
        ncztr_pool_give(x->pool, items[k].tmp);
    }
    if (gets)
        for (size_t i = 0; i < n; i++)
            if (gets[i].cap == 0)
                free(gets[i].buf); /* fetched again on its own */
    free(gets);
    free(items);
    free(iidx);
    free(which);
    free(slots);
    return ret;
}
