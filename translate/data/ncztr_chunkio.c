/* Dataset I/O: maps an HDF5 file selection onto the Zarr chunk grid, moves the bytes of
 * each touched chunk between the chunk buffer and the application's buffer, and keeps a
 * per-array LRU cache of chunks for partial writes and repeated reads.
 *
 * Per call: the touched chunks are enumerated (ncztr_chunksel.c), then processed in
 * batches so that one store call fetches (nczm_get_many) or stores (nczm_put_many) many
 * chunks at once, which is what a remote store overlaps. Each chunk gets a chunk-local
 * file selection and the matching memory selection; bytes move run by run along HDF5's
 * sequence lists, so a chunk-aligned write with equal types costs one memcpy per
 * contiguous run. Point selections go element by element instead (element mode).
 *
 * Working chunk buffers are always raw, C-ordered, in the stored byte order; Fortran
 * order and codecs are applied only when talking to the store. The chunk cache and the
 * write queue live in ncztr_chunkcache.c.
 */
#include "ncztr_array_internal.h"
#include "ncztr_chunkio_internal.h"
#include "ncztr_codec.h"
#include "ncztr_stages.h"
#include "nczc_workers.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RMAX NCZTR_MAX_RANK

/* ===================================================================================== */
/* Batches.                                                                              */

static void job_release(ncztr_ioctx *x, ncztr_cjob *j)
{
    if (j->own)
        ncztr_pool_give(x->pool, j->data);
    free(j->key);
    if (j->fsel >= 0)
        H5Sclose(j->fsel);
    j->data = NULL;
    j->key = NULL;
    j->own = false;
    j->ent = NULL;
    j->direct = NULL;
    j->stream = j->copied = j->full = j->partial = false;
    free(j->iov);
    j->iov = NULL;
    j->niov = 0;
    j->fsel = H5I_INVALID_HID;
}

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

/* Uncompressed chunks have a known size: they are read straight into pooled buffers (or
 * the user's buffer, or the file's scratch for a streamed chunk). Asking for exactly
 * chunk_bytes still tells a short or long object (a damaged chunk). */
static herr_t fetch_raw(ncztr_ioctx *x, ncztr_cjob *jobs, const size_t *which, size_t n)
{
    herr_t ret = SUCCEED;
    nczm_map *map = x->o->file->map;
    const char *path = x->g.path;
    size_t nstream = 0, niov = 0;
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
        (nstream && !(scr = ncztr_scratch_get(x->o->file, NCZTR_SCR_FETCH, nstream * x->g.chunk_bytes)))) {
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
            gets[i].buf = scr + (s++) * x->g.chunk_bytes;
        else if (!(gets[i].buf = ncztr_pool_take(x->pool, x->g.chunk_bytes)))
            NCZ_GOTO(FAIL, NCZ_E_NOMEM, "dataset \"%s\": out of memory for chunk \"%s\"", path, jb->key);
    }
    nczm_get_into_many(map, n, gets); /* per-request statuses are examined below */
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
 * bytes per KiB; a bigger object is fetched again on its own (fetch_encoded). */
static size_t enc_room(const ncztr_cgeom *g)
{
    return g->chunk_bytes + g->chunk_bytes / 64 + 4096;
}

/* Fetches the stored (encoded) bytes of n chunks into the file's scratch, in one store
 * call; an object bigger than its room is fetched again into a buffer of its own
 * (gets[i].buf then differs from in[i], and is the caller's to free). */
static herr_t fetch_encoded(ncztr_ioctx *x, nczm_getinto *gets, size_t n)
{
    nczm_map *map = x->o->file->map;
    size_t room = enc_room(&x->g);
    unsigned char *scr = ncztr_scratch_get(x->o->file, NCZTR_SCR_FETCH, n * room);
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

/* Fetches every job without data in one store call. Missing chunks are all fill. */
static herr_t fetch_chunks(ncztr_ioctx *x, ncztr_cjob *jobs, size_t njobs)
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
        unsigned char *sb = ncztr_scratch_get(x->o->file, NCZTR_SCR_SLOTS, (size_t)ns * x->g.chunk_bytes);
        if (!sb || !(slots = calloc(ns, sizeof *slots)))
            NCZ_GOTO(FAIL, NCZ_E_NOMEM, "dataset \"%s\": out of memory decoding chunks", path);
        for (unsigned k = 0; k < ns; k++)
            slots[k] = sb + (size_t)k * x->g.chunk_bytes;
        st.slot_out = slots;
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

/* Shards of the batch written in part and pending (ncztr_shardwrite.c) are stored first,
 * so that what follows reads them from the store. */
static herr_t settle_pending(ncztr_ioctx *x, ncztr_cjob *jobs, size_t n, ncztr_putlist *pl)
{
    bool queued = false;
    if (!x->a->cache || !x->a->cache->phead)
        return SUCCEED;
    for (size_t j = 0; j < n; j++)
        if (!jobs[j].partial && ncztr_pending_settle(x->o, &x->g, jobs[j].coord, pl, &queued) < 0)
            return FAIL;
    return queued ? ncztr_pl_run(x->o, &x->g, pl) : SUCCEED;
}

static herr_t read_batch(ncztr_ioctx *x, ncztr_cjob *jobs, size_t n, ncztr_putlist *pl)
{
    ncztr_chunkcache *c = x->a->cache;
    size_t hits = 0, direct = 0, stream = 0, partial = 0;
    if (settle_pending(x, jobs, n, pl) < 0)
        return FAIL;
    for (size_t j = 0; j < n; j++) {
        ncztr_cjob *jb = &jobs[j];
        size_t vol = 0;
        if (!(jb->key = ncztr_chunk_key(&x->g, jb->coord)))
            return FAIL;
        if (!x->elem && !x->box && (jb->fsel = ncztr_chunk_fsel(x, jb->coord, &vol)) < 0)
            return NCZ_PUSH(NCZ_E_HDF5, "dataset \"%s\": cannot select within chunk \"%s\"", x->g.path,
                            jb->key);
        if ((jb->ent = ncztr_cc_find(c, jb->coord))) {
            jb->data = jb->ent->data;
            ncztr_cc_touch(c, jb->ent);
            hits++;
        } else if (x->box) {
            /* read whole: not worth caching (the caller has every byte of it) */
            int cover = ncztr_box_cover(x, jb->coord);
            jb->full = cover == NCZTR_BOX_FULL;
            if (jb->full && (jb->direct = ncztr_box_direct(x, jb->coord)))
                direct++;
            else if ((jb->stream = !x->g.transpose && cover != NCZTR_BOX_PART))
                stream++;
            else if ((jb->partial = ncztr_shard_partial_fits(x, jb->coord)))
                partial++;
        } else if ((jb->direct = ncztr_io_direct_run(x, jb, vol))) {
            direct++; /* read straight into the user's buffer, not cached */
        }
    }
    /* The hits are now the most recently used entries: kept. */
    size_t placed = hits + direct + stream + partial;
    if (placed < n && ncztr_cc_make_room(x->o, &x->g, pl, (n - placed) * x->g.chunk_bytes, hits) < 0)
        return FAIL;
    if (ncztr_shard_read_partial(x, jobs, n) < 0 || fetch_chunks(x, jobs, n) < 0)
        return FAIL;
    if (x->box)
        ncztr_box_copy_jobs(x, jobs, n, true);
    else
        for (size_t j = 0; j < n; j++)
            if (!jobs[j].direct && ncztr_io_copy_chunk(x, &jobs[j]) < 0)
                return FAIL;
    /* Keep what was fetched: repeated small reads of one chunk then hit memory. */
    for (size_t j = 0; j < n; j++) {
        if (!jobs[j].own)
            continue;
        if (!(c = ncztr_cc_get(x->o, &x->g)))
            return FAIL;
        if (ncztr_cc_insert(c, jobs[j].coord, jobs[j].data, false)) {
            jobs[j].own = false;
            jobs[j].data = NULL;
        }
    }
    if (ncztr_cc_trim(x->o, &x->g, pl) < 0)
        return FAIL;
    return ncztr_pl_run(x->o, &x->g, pl);
}

static herr_t write_batch(ncztr_ioctx *x, ncztr_cjob *jobs, size_t n, ncztr_putlist *pl)
{
    const char *path = x->g.path;
    ncztr_chunkcache *c = x->a->cache;
    ncztr_chain *chain = x->box && !x->g.transpose ? ncztr_array_chain(x->o) : NULL;
    bool vec = chain && ncztr_chain_is_null(chain) && nczm_map_vectored(x->o->file->map);
    for (size_t j = 0; j < n; j++) {
        ncztr_cjob *jb = &jobs[j];
        size_t vol = 0;
        bool edge = false; /* whole, but the chunk reaches past the array */
        if (!(jb->key = ncztr_chunk_key(&x->g, jb->coord)))
            return FAIL;
        if (x->elem) {
            jb->whole = false; /* points: always read-modify-write */
        } else if (x->box) {
            int cover = ncztr_box_cover(x, jb->coord);
            jb->whole = cover != NCZTR_BOX_PART;
            jb->full = cover == NCZTR_BOX_FULL;
            edge = cover == NCZTR_BOX_WHOLE;
        } else {
            if ((jb->fsel = ncztr_chunk_fsel(x, jb->coord, &vol)) < 0)
                return NCZ_PUSH(NCZ_E_HDF5, "dataset \"%s\": cannot select within chunk \"%s\"", path,
                                jb->key);
            hssize_t np = H5Sget_select_npoints(jb->fsel);
            /* A partial compound write keeps the other members: never a whole overwrite. */
            jb->whole = np >= 0 && (size_t)np == vol && !x->bkg;
            edge = vol != x->g.chunk_elems;
        }
        ncztr_cc_entry *e = ncztr_cc_find(c, jb->coord);
        if (!jb->whole && !e && x->partial && ncztr_shard_partial_fits(x, jb->coord)) {
            jb->partial = true; /* whole inner chunks of a shard: encoded now, kept pending */
            continue;
        }
        if (jb->whole) /* overwritten whole: what was pending is stale */
            ncztr_pending_drop(c, jb->coord);
        if (jb->whole) {
            /* Overwritten whole: the old content is never read, and any cached copy is stale. */
            if (e) {
                ncztr_cc_remove(c, e);
                ncztr_pool_give(x->pool, e->data);
                free(e);
            }
            if ((jb->direct = x->box ? (jb->full ? ncztr_box_direct(x, jb->coord) : NULL)
                                     : ncztr_io_direct_run(x, jb, vol))) {
                jb->data = jb->direct; /* stored from the user's buffer as it is */
                continue;
            }
            if (vec && jb->full) {
                /* gathered from its runs in the user's buffer by the store */
                size_t k = ncztr_box_iov(x, jb->coord, NULL, 0);
                if (k <= NCZTR_IOV_MAX_RUNS) {
                    if (!(jb->iov = malloc(k * sizeof *jb->iov)))
                        return NCZ_PUSH(NCZ_E_NOMEM, "dataset \"%s\": out of memory for chunk \"%s\"", path,
                                        jb->key);
                    jb->niov = ncztr_box_iov(x, jb->coord, jb->iov, k);
                    continue;
                }
            }
            if (!(jb->data = ncztr_pool_take(x->pool, x->g.chunk_bytes)))
                return NCZ_PUSH(NCZ_E_NOMEM, "dataset \"%s\": out of memory for chunk \"%s\"", path, jb->key);
            jb->own = true;
            if (edge) /* the overhang is stored too */
                ncztr_fill_elems(&x->a->za, jb->data, x->g.chunk_elems);
        } else if (e) {
            jb->ent = e;
            jb->data = e->data;
            e->dirty = true; /* set before copying: a failed copy may have changed it already */
            ncztr_cc_touch(c, e);
        }
    }
    if (settle_pending(x, jobs, n, pl) < 0 || fetch_chunks(x, jobs, n) < 0)
        return FAIL;
    if (x->box)
        ncztr_box_copy_jobs(x, jobs, n, false);
    else
        for (size_t j = 0; j < n; j++)
            if (!jobs[j].direct && ncztr_io_copy_chunk(x, &jobs[j]) < 0)
                return FAIL;
    if (ncztr_shard_write_partial(x, jobs, n, pl) < 0)
        return FAIL;
    for (size_t j = 0; j < n; j++) {
        ncztr_cjob *jb = &jobs[j];
        if (jb->direct) {
            herr_t r = ncztr_pl_add(x->o, &x->g, pl, jb->key, jb->direct, false, NULL);
            jb->key = NULL;
            if (r < 0)
                return FAIL;
            continue;
        }
        if (jb->iov) {
            herr_t r = ncztr_pl_add_iov(&x->g, pl, jb->key, jb->iov, (int)jb->niov);
            jb->key = NULL;
            jb->iov = NULL;
            if (r < 0)
                return FAIL;
            continue;
        }
        if (jb->ent || !jb->own)
            continue;
        if (!jb->whole) {
            if (!(c = ncztr_cc_get(x->o, &x->g)))
                return FAIL;
            if (ncztr_cc_insert(c, jb->coord, jb->data, true)) {
                jb->own = false;
                jb->data = NULL;
                continue;
            }
            /* no memory for an entry: write through */
        }
        bool own = jb->own;
        jb->own = false;
        herr_t r = ncztr_pl_add(x->o, &x->g, pl, jb->key, jb->data, own, NULL);
        jb->key = NULL;
        jb->data = NULL;
        if (r < 0)
            return FAIL;
    }
    /* pending shards beyond the cache's budget are stored, least recently written first */
    size_t budget = x->a->cache_bytes > x->g.chunk_bytes ? x->a->cache_bytes : x->g.chunk_bytes;
    if (ncztr_cc_trim(x->o, &x->g, pl) < 0 ||
        (c && c->pbytes > budget && ncztr_pending_settle_all(x->o, &x->g, pl, budget) < 0))
        return FAIL;
    return ncztr_pl_run(x->o, &x->g, pl);
}

/* ===================================================================================== */

static herr_t do_io(ncztr_obj *o, hid_t mem_type, hid_t mem_space, hid_t file_space, void *buf, bool write,
                    ncztr_chunk_skip_fn skip, void *skip_ud)
{
    herr_t ret = SUCCEED;
    ncztr_ioctx *x = NULL;
    ncztr_cjob *jobs = NULL;
    size_t njobs = 0;
    ncztr_chunk_enum en = {0};
    ncztr_putlist pl = {0};
    hssize_t nsel = 0;
    if (!o || o->kind != NCZTR_ARRAY || !o->arr)
        NCZ_GOTO(FAIL, NCZ_E_ARGS, "not a dataset");
    if (o->deleted)
        NCZ_GOTO(FAIL, NCZ_E_NOTFOUND, "dataset \"%s\" has been deleted", o->name);
    if (ncztr_obj_load(o) < 0)
        NCZ_GOTO_QUIET(FAIL);
    if (o->arr->load_error)
        NCZ_GOTO(FAIL, NCZ_E_FORMAT, "dataset \"%s\" cannot be used: %s", o->name, o->arr->load_error);
    x = calloc(1, sizeof *x);
    NCZ_CHECK_ALLOC(x, FAIL);
    x->own[0] = x->own[1] = x->block = x->st = H5I_INVALID_HID;
    x->fw.iter = x->mw.iter = H5I_INVALID_HID;
    x->o = o;
    x->a = o->arr;
    x->write = write;
    x->ubuf = buf;
    if (ncztr_geom_init(o, &x->g) < 0)
        NCZ_GOTO_QUIET(FAIL);
    ncztr_chunkcache *cache = ncztr_cc_get(o, &x->g);
    if (!cache)
        NCZ_GOTO_QUIET(FAIL);
    x->pool = &cache->pool;
    pl.pool = x->pool;
    if (write && o->file->readonly)
        NCZ_GOTO(FAIL, NCZ_E_ARGS, "cannot write dataset \"%s\": the store is open read-only", x->g.path);
    for (int k = 0; k < x->g.rank; k++)
        x->shape[k] = x->a->za.rank > 0 ? x->a->za.shape[k] : 1;
    if (ncztr_io_setup_spaces(x, mem_space, file_space, &nsel) < 0)
        NCZ_GOTO_QUIET(FAIL);
    if (nsel == 0)
        NCZ_GOTO_QUIET(SUCCEED);
    if (!buf)
        NCZ_GOTO(FAIL, NCZ_E_ARGS, "dataset \"%s\": no buffer for %lld elements", x->g.path, (long long)nsel);
    if (ncztr_io_setup_types(x, mem_type) < 0)
        NCZ_GOTO_QUIET(FAIL);
    if (write && H5Tget_class(x->st) == H5T_STRING && H5Tis_variable_str(mem_type) > 0 &&
        ncztr_io_check_strings(x) < 0)
        NCZ_GOTO_QUIET(FAIL);
    if (ncztr_enum_init(x, &en, (size_t)nsel) < 0)
        NCZ_GOTO_QUIET(FAIL);
    x->workers = nczm_map_workers(o->file->map);
    ncztr_box_setup(x);
    ncztr_shard_partial_setup(x);
    size_t jcap = ncztr_enum_bound(&en, NCZTR_BATCH_CHUNKS);
    jobs = calloc(jcap, sizeof *jobs);
    NCZ_CHECK_ALLOC(jobs, FAIL);
    for (;;) {
        jobs[njobs].fsel = H5I_INVALID_HID;
        int r = ncztr_enum_next(x, &en, jobs[njobs].coord, &jobs[njobs].eb, &jobs[njobs].ee);
        if (r < 0)
            NCZ_GOTO_QUIET(FAIL);
        if (r > 0 && skip && skip(skip_ud, jobs[njobs].coord))
            continue;
        njobs += r > 0;
        if (njobs && (r == 0 || njobs == jcap || njobs * x->g.chunk_bytes >= NCZTR_BATCH_BYTES)) {
            herr_t br = write ? write_batch(x, jobs, njobs, &pl) : read_batch(x, jobs, njobs, &pl);
            if (br < 0)
                NCZ_GOTO_QUIET(FAIL); /* the jobs are released below */
            for (size_t j = 0; j < njobs; j++)
                job_release(x, &jobs[j]);
            njobs = 0;
        }
        if (r == 0)
            break;
    }
done:;
    hid_t es = ncztr_err_hold(ret);
    if (jobs)
        for (size_t j = 0; j < njobs; j++)
            job_release(x, &jobs[j]);
    free(jobs);
    ncztr_enum_clear(&en);
    ncztr_pl_clear(&pl);
    if (x) {
        ncztr_io_clear(x);
        free(x);
    }
    if (o && o->file)
        ncztr_scratch_trim(o->file);
    ncz_err_restore(es);
    return ret;
}

herr_t ncztr_array_read(ncztr_obj *o, hid_t mem_type, hid_t mem_space, hid_t file_space, void *buf)
{
    if (ncztr_array_check_stored(o) < 0)
        return FAIL;
    if (ncztr_array_is_vlen(o))
        return ncztr_vlen_io(o, mem_type, mem_space, file_space, buf, false, H5P_DEFAULT);
    return do_io(o, mem_type, mem_space, file_space, buf, false, NULL, NULL);
}

herr_t ncztr_array_write(ncztr_obj *o, hid_t mem_type, hid_t mem_space, hid_t file_space, const void *buf)
{
    return ncztr_array_write_except(o, mem_type, mem_space, file_space, buf, NULL, NULL);
}

herr_t ncztr_array_write_except(ncztr_obj *o, hid_t mem_type, hid_t mem_space, hid_t file_space,
                                const void *buf, ncztr_chunk_skip_fn skip, void *skip_ud)
{
    if (ncztr_array_check_stored(o) < 0)
        return FAIL;
    if (o->arr->dimonly)
        return NCZ_PUSH(NCZ_E_NOTREPR,
                        "dataset \"%s\" stands for a netCDF dimension without a variable: NCZarr keeps "
                        "such a dimension's length only, so its data could not be stored",
                        o->name);
    /* The buffer is only read from on this path. */
    if (ncztr_array_is_vlen(o)) {
        if (skip)
            return NCZ_PUSH(NCZ_E_UNSUPPORTED, "dataset \"%s\": sequences cannot be written in part",
                            o->name);
        return ncztr_vlen_io(o, mem_type, mem_space, file_space, (void *)(uintptr_t)buf, true, H5P_DEFAULT);
    }
    return do_io(o, mem_type, mem_space, file_space, (void *)(uintptr_t)buf, true, skip, skip_ud);
}
