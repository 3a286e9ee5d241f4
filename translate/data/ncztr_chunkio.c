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
 * order and codecs are applied only when talking to the store. Fetching and decoding:
 * ncztr_chunkfetch.c; the chunk cache and the write queue: ncztr_chunkcache.c; shards read
 * or written in part: ncztr_shardread.c, ncztr_shardwrite.c.
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
    if (ncztr_shard_read_partial(x, jobs, n) < 0 || ncztr_fetch_chunks(x, jobs, n) < 0)
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
        if (jb->whole && e && e->dirty) {
            /* Overwritten whole, but the cache holds values of earlier writes that were
             * never stored: the new values go into that entry, after every step of the
             * batch that can fail, so that a batch failing before them (a damaged chunk
             * to read, a store error) loses nothing an earlier write had done. */
            jb->ent = e;
            jb->data = e->data;
            ncztr_cc_touch(c, e);
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
    if (settle_pending(x, jobs, n, pl) < 0 || ncztr_fetch_chunks(x, jobs, n) < 0)
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
    x->epool = &cache->epool;
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
