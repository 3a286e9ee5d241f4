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

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RMAX NCZTR_MAX_RANK

/* Chunk shape as "10x10", for messages. */
static void chunk_shape_str(const ncztr_cgeom *g, char *buf, size_t cap)
{
    size_t n = 0;
    buf[0] = '\0';
    for (int k = 0; k < g->rank && n + 24 < cap; k++)
        n += (size_t)snprintf(buf + n, cap - n, "%s%llu", k ? "x" : "", (unsigned long long)g->chunks[k]);
}

/* ===================================================================================== */
/* Sequence walking: byte runs of a selection, from HDF5's selection iterator.           */

static herr_t seqw_start(ncztr_seqw *w, hid_t space, size_t esz)
{
    /* Sharing the selection is safe: the space is not changed while iterating. */
    w->iter = H5Ssel_iter_create(space, esz, H5S_SEL_ITER_SHARE_WITH_DATASPACE);
    w->n = w->i = w->clen = 0;
    return w->iter < 0 ? FAIL : SUCCEED;
}

static void seqw_end(ncztr_seqw *w)
{
    if (w->iter >= 0)
        H5Ssel_iter_close(w->iter);
    w->iter = H5I_INVALID_HID;
}

/* Makes a current run available: 1, or 0 at the end, -1 on error. */
static int seqw_fill(ncztr_seqw *w)
{
    while (w->clen == 0) {
        if (w->i == w->n) {
            size_t nelem = 0;
            if (H5Ssel_iter_get_seq_list(w->iter, NCZTR_NSEQ, SIZE_MAX, &w->n, &nelem, w->off, w->len) < 0)
                return -1;
            w->i = 0;
            if (w->n == 0)
                return 0;
        }
        w->coff = w->off[w->i];
        w->clen = w->len[w->i];
        w->i++;
    }
    return 1;
}

/* Rewinds a walker to the start of its selection. */
static herr_t restart(ncztr_seqw *w, hid_t space, size_t esz)
{
    seqw_end(w);
    return seqw_start(w, space, esz);
}

/* Copies nbytes from src to dst, each side either walked along a selection (a walker) or
 * contiguous (NULL): the runs of both sides are consumed in lock step. */
static herr_t transfer(unsigned char *dst, ncztr_seqw *dw, const unsigned char *src, ncztr_seqw *sw,
                       size_t nbytes, const char *path)
{
    size_t dpos = 0, spos = 0;
    while (nbytes) {
        size_t l = nbytes;
        unsigned char *d = dst + dpos;
        const unsigned char *s = src + spos;
        if (dw) {
            if (seqw_fill(dw) <= 0)
                goto short_sel;
            l = dw->clen < l ? dw->clen : l;
            d = dst + dw->coff;
        }
        if (sw) {
            if (seqw_fill(sw) <= 0)
                goto short_sel;
            l = sw->clen < l ? sw->clen : l;
            s = src + sw->coff;
        }
        memcpy(d, s, l);
        if (dw) {
            dw->coff += l;
            dw->clen -= l;
        } else {
            dpos += l;
        }
        if (sw) {
            sw->coff += l;
            sw->clen -= l;
        } else {
            spos += l;
        }
        nbytes -= l;
    }
    return SUCCEED;
short_sel:
    return NCZ_PUSH(NCZ_E_INTERNAL, "dataset \"%s\": a selection iterator ended early", path);
}

/* ===================================================================================== */
/* Per-call context.                                                                     */

static void ctx_clear(ncztr_ioctx *x)
{
    for (int i = 0; i < 2; i++)
        if (x->own[i] >= 0)
            H5Sclose(x->own[i]);
    if (x->block >= 0)
        H5Sclose(x->block);
    if (x->st >= 0)
        H5Tclose(x->st);
    seqw_end(&x->fw);
    seqw_end(&x->mw);
    free(x->fillbuf);
    free(x->tmp1);
    free(x->tmp2);
    ncztr_pool_clear(&x->pool);
    ncztr_geom_clear(&x->g);
}

/* Replaces a scalar dataspace by a 1-element simple one with the same selection, so that
 * scalar arrays go through the rank-1 path. */
static hid_t scalar_as_simple(hssize_t npts)
{
    hsize_t one = 1;
    hid_t s = H5Screate_simple(1, &one, NULL);
    if (s >= 0 && npts == 0 && H5Sselect_none(s) < 0) {
        H5Sclose(s);
        s = H5I_INVALID_HID;
    }
    return s;
}

/* Resolves the spaces and checks them against the array. *nsel = selected elements. */
static herr_t setup_spaces(ncztr_ioctx *x, hid_t mem_space, hid_t file_space, hssize_t *nsel)
{
    herr_t ret = SUCCEED;
    const char *path = x->g.path;
    int rank = x->g.rank;
    H5S_class_t fc = H5Sget_simple_extent_type(file_space);
    H5S_class_t mc = H5Sget_simple_extent_type(mem_space);
    hssize_t nf = H5Sget_select_npoints(file_space), nm = H5Sget_select_npoints(mem_space);
    if (fc == H5S_NO_CLASS || mc == H5S_NO_CLASS || nf < 0 || nm < 0)
        NCZ_GOTO(FAIL, NCZ_E_ARGS, "dataset \"%s\": invalid file or memory dataspace", path);
    if (nf != nm)
        NCZ_GOTO(FAIL, NCZ_E_ARGS,
                 "dataset \"%s\": the memory selection has %lld elements but the file selection has %lld",
                 path, (long long)nm, (long long)nf);
    *nsel = nf;
    if (nf == 0)
        NCZ_GOTO_QUIET(SUCCEED);
    if (fc == H5S_SCALAR) {
        if (rank != 1 || x->shape[0] != 1)
            NCZ_GOTO(FAIL, NCZ_E_ARGS, "dataset \"%s\": a scalar file dataspace for an array of rank %d",
                     path, rank);
        if ((x->fspace = x->own[0] = scalar_as_simple(nf)) < 0)
            NCZ_GOTO(FAIL, NCZ_E_HDF5, "dataset \"%s\": cannot create a dataspace", path);
    } else {
        hsize_t dims[H5S_MAX_RANK];
        int fr = H5Sget_simple_extent_ndims(file_space);
        if (fr != rank || H5Sget_simple_extent_dims(file_space, dims, NULL) < 0)
            NCZ_GOTO(FAIL, NCZ_E_ARGS, "dataset \"%s\": the file dataspace has rank %d, the array rank %d",
                     path, fr, rank);
        for (int k = 0; k < rank; k++)
            if (dims[k] != x->shape[k])
                NCZ_GOTO(FAIL, NCZ_E_ARGS,
                         "dataset \"%s\": dimension %d of the file dataspace is %llu, the array's is %llu",
                         path, k, (unsigned long long)dims[k], (unsigned long long)x->shape[k]);
        x->fspace = file_space;
    }
    if (mc == H5S_SCALAR) {
        if ((x->mspace = x->own[1] = scalar_as_simple(nm)) < 0)
            NCZ_GOTO(FAIL, NCZ_E_HDF5, "dataset \"%s\": cannot create a dataspace", path);
    } else {
        x->mspace = mem_space;
    }
    if (H5Sselect_valid(x->fspace) <= 0)
        NCZ_GOTO(FAIL, NCZ_E_ARGS, "dataset \"%s\": the file selection is outside the dataset's extent",
                 path);
    x->ftype = H5Sget_select_type(x->fspace);
    if (x->ftype != H5S_SEL_ALL && x->ftype != H5S_SEL_HYPERSLABS && x->ftype != H5S_SEL_POINTS)
        NCZ_GOTO(FAIL, NCZ_E_ARGS, "dataset \"%s\": unsupported file selection", path);
    if ((x->block = H5Screate_simple(rank, x->shape, NULL)) < 0)
        NCZ_GOTO(FAIL, NCZ_E_HDF5, "dataset \"%s\": cannot create a dataspace", path);
    if (x->ftype == H5S_SEL_ALL && H5Sget_select_type(x->mspace) == H5S_SEL_ALL &&
        H5Sget_simple_extent_ndims(x->mspace) == rank) {
        hsize_t md[H5S_MAX_RANK];
        x->same_all = H5Sget_simple_extent_dims(x->mspace, md, NULL) >= 0;
        for (int k = 0; k < rank && x->same_all; k++)
            x->same_all = md[k] == x->shape[k];
    }
done:
    return ret;
}

/* Checks up front that the memory type converts to/from the stored one, so that a bad
 * type fails before any chunk is touched. */
static herr_t setup_types(ncztr_ioctx *x, hid_t mem_type)
{
    herr_t ret = SUCCEED;
    const char *path = x->g.path;
    x->mem_type = mem_type;
    if ((x->st = ncztr_array_elem_type(x->a)) < 0)
        NCZ_GOTO(FAIL, NCZ_E_INTERNAL, "dataset \"%s\": no HDF5 type for dtype %s", path,
                 x->a->za.dtype.zarr);
    if ((x->msz = H5Tget_size(mem_type)) == 0)
        NCZ_GOTO(FAIL, NCZ_E_ARGS, "dataset \"%s\": invalid memory datatype", path);
    htri_t eq = H5Tequal(x->st, mem_type);
    if (eq < 0)
        NCZ_GOTO(FAIL, NCZ_E_ARGS, "dataset \"%s\": invalid memory datatype", path);
    x->convert = !eq;
    if (!x->convert)
        NCZ_GOTO_QUIET(SUCCEED);
    H5T_class_t sc = H5Tget_class(x->st), mc = H5Tget_class(mem_type);
    if ((sc == H5T_STRING) != (mc == H5T_STRING))
        NCZ_GOTO(FAIL, NCZ_E_ARGS,
                 "dataset \"%s\": cannot convert between its %s values (dtype %s) and a %s memory type", path,
                 sc == H5T_STRING ? "string" : "numeric", x->a->za.dtype.zarr,
                 mc == H5T_STRING ? "string" : "non-string");
    if (sc == H5T_STRING && H5Tis_variable_str(mem_type) > 0)
        NCZ_GOTO_QUIET(SUCCEED); /* ncztr_convert does vlen <-> fixed itself */
    H5T_cdata_t *cdata = NULL;
    H5T_conv_t fn = NULL;
    H5E_BEGIN_TRY
    {
        fn = x->write ? H5Tfind(mem_type, x->st, &cdata) : H5Tfind(x->st, mem_type, &cdata);
    }
    H5E_END_TRY
    if (!fn)
        NCZ_GOTO(FAIL, NCZ_E_ARGS,
                 "dataset \"%s\": HDF5 cannot convert between the stored type (dtype %s) and the memory type",
                 path, x->a->za.dtype.zarr);
    /* Partial compound I/O: the destination's other members stay as they are. */
    x->bkg = x->write ? ncztr_convert_needs_bkg(mem_type, x->st) : ncztr_convert_needs_bkg(x->st, mem_type);
done:
    return ret;
}

/* Before writing variable-length strings into fixed-size storage: any string too long is
 * an error, found before a single chunk changes (never truncate silently). */
static herr_t check_strings(ncztr_ioctx *x)
{
    herr_t ret = SUCCEED;
    size_t limit = x->g.esz, idx = 0;
    ncztr_seqw *w = &x->mw;
    if (seqw_start(w, x->mspace, sizeof(char *)) < 0)
        NCZ_GOTO(FAIL, NCZ_E_HDF5, "dataset \"%s\": cannot iterate over the memory selection", x->g.path);
    int r;
    while ((r = seqw_fill(w)) > 0) {
        for (size_t off = 0; off < w->clen; off += sizeof(char *), idx++) {
            const char *s;
            memcpy(&s, x->ubuf + w->coff + off, sizeof s);
            size_t len = s ? strlen(s) : 0;
            if (len <= limit)
                continue;
            if (x->a->vlen_string)
                NCZ_GOTO(
                    FAIL, NCZ_E_ARGS,
                    "cannot write dataset \"%s\": string %zu of the selection is %zu bytes long, more than "
                    "the dataset's maximum string length %zu (strings are stored as fixed |S%zu values); "
                    "to store longer strings create the dataset with a larger limit: set the connector "
                    "option maxstrlen=N, e.g. HDF5_VOL_CONNECTOR=\"nczarr maxstrlen=N\"",
                    x->g.path, idx, len, limit, limit);
            NCZ_GOTO(
                FAIL, NCZ_E_ARGS,
                "cannot write dataset \"%s\": string %zu of the selection is %zu bytes long, more than the "
                "dataset's fixed string size %zu",
                x->g.path, idx, len, limit);
        }
        w->clen = 0;
    }
    if (r < 0)
        NCZ_GOTO(FAIL, NCZ_E_HDF5, "dataset \"%s\": cannot iterate over the memory selection", x->g.path);
done:;
    hid_t es = ncztr_err_hold(ret);
    seqw_end(w);
    ncztr_err_restore(es);
    return ret;
}

typedef struct cjob {
    uint64_t coord[RMAX];
    char *key;
    unsigned char *data; /* raw C-order chunk */
    bool own;            /* data is ours (to free or hand to the cache) */
    ncztr_cc_entry *ent; /* data belongs to this cache entry */
    bool whole;          /* write: every in-bounds element is written */
    hid_t fsel;
    size_t eb, ee; /* element mode: the chunk's elements in x->el */
} cjob;

static herr_t grow_tmp(ncztr_ioctx *x, size_t n)
{
    size_t need = n * (x->g.esz > x->msz ? x->g.esz : x->msz);
    if (need <= x->tmpcap)
        return SUCCEED;
    free(x->tmp1);
    free(x->tmp2);
    x->tmp1 = malloc(need);
    x->tmp2 = malloc(need);
    x->tmpcap = x->tmp1 && x->tmp2 ? need : 0;
    if (!x->tmpcap)
        return NCZ_PUSH(NCZ_E_NOMEM, "dataset \"%s\": out of memory converting %zu values", x->g.path, n);
    return SUCCEED;
}

/* Element mode: one element at a time (point selections have no runs to exploit). */
static herr_t copy_elems(ncztr_ioctx *x, const cjob *jb)
{
    const ncztr_elem *el = x->el + jb->eb;
    size_t n = jb->ee - jb->eb, esz = x->g.esz, msz = x->msz;
    unsigned char *chunk = jb->data, *u = x->ubuf;
    if (!x->convert) {
        for (size_t i = 0; i < n; i++) {
            if (x->write)
                memcpy(chunk + el[i].local * esz, u + el[i].moff * msz, esz);
            else
                memcpy(u + el[i].moff * msz, chunk + el[i].local * esz, esz);
        }
        return SUCCEED;
    }
    if (grow_tmp(x, n) < 0)
        return FAIL;
    /* With x->bkg, tmp2 first holds the destination's current values (the background). */
    if (x->write) {
        for (size_t i = 0; i < n; i++)
            memcpy(x->tmp1 + i * msz, u + el[i].moff * msz, msz);
        if (x->bkg)
            for (size_t i = 0; i < n; i++)
                memcpy(x->tmp2 + i * esz, chunk + el[i].local * esz, esz);
        if (ncztr_convert_bkg(x->mem_type, x->tmp1, x->st, x->tmp2, n, x->g.path, x->bkg ? x->tmp2 : NULL) <
            0)
            return FAIL;
        for (size_t i = 0; i < n; i++)
            memcpy(chunk + el[i].local * esz, x->tmp2 + i * esz, esz);
    } else {
        for (size_t i = 0; i < n; i++)
            memcpy(x->tmp1 + i * esz, chunk + el[i].local * esz, esz);
        if (x->bkg)
            for (size_t i = 0; i < n; i++)
                memcpy(x->tmp2 + i * msz, u + el[i].moff * msz, msz);
        if (ncztr_convert_bkg(x->st, x->tmp1, x->mem_type, x->tmp2, n, x->g.path, x->bkg ? x->tmp2 : NULL) <
            0)
            return FAIL;
        for (size_t i = 0; i < n; i++)
            memcpy(u + el[i].moff * msz, x->tmp2 + i * msz, msz);
    }
    return SUCCEED;
}

/* Moves the selected elements of one chunk between its buffer and the user's buffer. */
static herr_t copy_chunk(ncztr_ioctx *x, const cjob *jb)
{
    herr_t ret = SUCCEED;
    const char *path = x->g.path, *key = jb->key;
    unsigned char *chunk = jb->data;
    hid_t fsel = jb->fsel;
    bool borrowed = false;
    if (x->elem)
        return copy_elems(x, jb);
    hid_t msel = ncztr_chunk_msel(x, jb->coord, &borrowed);
    if (msel < 0)
        NCZ_GOTO(FAIL, NCZ_E_HDF5, "dataset \"%s\": cannot map chunk \"%s\" to the memory selection", path,
                 key);
    hssize_t nf = H5Sget_select_npoints(fsel), nm = H5Sget_select_npoints(msel);
    if (nf < 0 || nf != nm)
        NCZ_GOTO(FAIL, NCZ_E_INTERNAL, "dataset \"%s\": chunk \"%s\": %lld file elements but %lld in memory",
                 path, key, (long long)nf, (long long)nm);
    size_t n = (size_t)nf, esz = x->g.esz, msz = x->msz;
    if (n == 0)
        NCZ_GOTO_QUIET(SUCCEED);
    if (seqw_start(&x->fw, fsel, esz) < 0 || seqw_start(&x->mw, msel, msz) < 0)
        NCZ_GOTO(FAIL, NCZ_E_HDF5, "dataset \"%s\": cannot iterate over the selection of chunk \"%s\"", path,
                 key);
    if (!x->convert) {
        if (x->write)
            ret = transfer(chunk, &x->fw, x->ubuf, &x->mw, n * esz, path);
        else
            ret = transfer(x->ubuf, &x->mw, chunk, &x->fw, n * esz, path);
        NCZ_GOTO_QUIET(ret);
    }
    if (grow_tmp(x, n) < 0)
        NCZ_GOTO_QUIET(FAIL);
    /* With x->bkg, tmp2 first gathers the destination's current values (the background),
     * and the destination's walker starts again for the scatter. */
    if (x->write) {
        if (transfer(x->tmp1, NULL, x->ubuf, &x->mw, n * msz, path) < 0)
            NCZ_GOTO_QUIET(FAIL);
        if (x->bkg &&
            (transfer(x->tmp2, NULL, chunk, &x->fw, n * esz, path) < 0 || restart(&x->fw, fsel, esz) < 0))
            NCZ_GOTO(FAIL, NCZ_E_HDF5, "dataset \"%s\": cannot iterate over the selection of chunk \"%s\"",
                     path, key);
        if (ncztr_convert_bkg(x->mem_type, x->tmp1, x->st, x->tmp2, n, path, x->bkg ? x->tmp2 : NULL) < 0 ||
            transfer(chunk, &x->fw, x->tmp2, NULL, n * esz, path) < 0)
            NCZ_GOTO_QUIET(FAIL);
    } else {
        if (transfer(x->tmp1, NULL, chunk, &x->fw, n * esz, path) < 0)
            NCZ_GOTO_QUIET(FAIL);
        if (x->bkg &&
            (transfer(x->tmp2, NULL, x->ubuf, &x->mw, n * msz, path) < 0 || restart(&x->mw, msel, msz) < 0))
            NCZ_GOTO(FAIL, NCZ_E_HDF5,
                     "dataset \"%s\": cannot iterate over the memory selection of chunk \"%s\"", path, key);
        if (ncztr_convert_bkg(x->st, x->tmp1, x->mem_type, x->tmp2, n, path, x->bkg ? x->tmp2 : NULL) < 0 ||
            transfer(x->ubuf, &x->mw, x->tmp2, NULL, n * msz, path) < 0)
            NCZ_GOTO_QUIET(FAIL);
    }
done:;
    hid_t es = ncztr_err_hold(ret);
    seqw_end(&x->fw);
    seqw_end(&x->mw);
    if (msel >= 0 && !borrowed)
        H5Sclose(msel);
    ncztr_err_restore(es);
    return ret;
}

/* ===================================================================================== */
/* Batches.                                                                              */

static void job_release(ncztr_ioctx *x, cjob *j)
{
    if (j->own)
        ncztr_pool_give(&x->pool, j->data);
    free(j->key);
    if (j->fsel >= 0)
        H5Sclose(j->fsel);
    j->data = NULL;
    j->key = NULL;
    j->own = false;
    j->ent = NULL;
    j->fsel = H5I_INVALID_HID;
}

/* A missing chunk is all fill: a write gets its own buffer to change, a read shares one. */
static herr_t missing_chunk(ncztr_ioctx *x, cjob *jb)
{
    const char *path = x->g.path;
    if (x->write) {
        if (!(jb->data = ncztr_pool_take(&x->pool, x->g.chunk_bytes)))
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

/* Adopts a fetched raw chunk (owned, whatever the outcome): checks its size, and brings a
 * Fortran-ordered one into C order. */
static herr_t adopt_chunk(ncztr_ioctx *x, cjob *jb, unsigned char *raw, size_t rawlen)
{
    const char *path = x->g.path;
    if (rawlen != x->g.chunk_bytes) {
        char shp[256];
        chunk_shape_str(&x->g, shp, sizeof shp);
        free(raw); /* maybe smaller than a chunk: not for the pool */
        return NCZ_PUSH(NCZ_E_FORMAT,
                        "dataset \"%s\": chunk \"%s\" holds %zu bytes, expected %zu (a %s chunk of %zu-byte "
                        "elements); the chunk object is damaged or was written with another shape",
                        path, jb->key, rawlen, x->g.chunk_bytes, shp, x->g.esz);
    }
    if (x->g.transpose) {
        unsigned char *c = ncztr_pool_take(&x->pool, x->g.chunk_bytes);
        if (!c) {
            ncztr_pool_give(&x->pool, raw);
            return NCZ_PUSH(NCZ_E_NOMEM, "dataset \"%s\": out of memory for chunk \"%s\"", path, jb->key);
        }
        ncztr_transpose(&x->g, raw, c, false);
        ncztr_pool_give(&x->pool, raw);
        raw = c;
    }
    jb->data = raw;
    jb->own = true;
    return SUCCEED;
}

/* Uncompressed chunks have a known size: they are read straight into pooled buffers.
 * Asking for exactly chunk_bytes still tells a short or long object (a damaged chunk). */
static herr_t fetch_raw(ncztr_ioctx *x, cjob *jobs, const size_t *which, size_t n)
{
    herr_t ret = SUCCEED;
    nczm_map *map = x->o->file->map;
    const char *path = x->g.path;
    nczm_getinto *gets = calloc(n, sizeof *gets);
    NCZ_CHECK_ALLOC(gets, FAIL);
    for (size_t i = 0; i < n; i++) {
        cjob *jb = &jobs[which[i]];
        gets[i].key = jb->key;
        gets[i].cap = x->g.chunk_bytes;
        if (!(gets[i].buf = ncztr_pool_take(&x->pool, x->g.chunk_bytes)))
            NCZ_GOTO(FAIL, NCZ_E_NOMEM, "dataset \"%s\": out of memory for chunk \"%s\"", path, jb->key);
    }
    nczm_get_into_many(map, n, gets); /* per-request statuses are examined below */
    for (size_t i = 0; i < n && ret == SUCCEED; i++) {
        cjob *jb = &jobs[which[i]];
        if (gets[i].status == NCZM_NOTFOUND) {
            ret = missing_chunk(x, jb);
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
        ncztr_pool_give(&x->pool, gets[i].buf);
    free(gets);
    return ret;
}

/* Fetches every job without data in one store call. Missing chunks are all fill. */
static herr_t fetch_chunks(ncztr_ioctx *x, cjob *jobs, size_t njobs)
{
    herr_t ret = SUCCEED;
    nczm_map *map = x->o->file->map;
    const char *path = x->g.path;
    nczm_get *gets = NULL;
    size_t *which = NULL, n = 0;
    for (size_t j = 0; j < njobs; j++)
        n += jobs[j].data == NULL;
    if (n == 0)
        return SUCCEED;
    which = calloc(n, sizeof *which);
    NCZ_CHECK_ALLOC(which, FAIL);
    n = 0;
    for (size_t j = 0; j < njobs; j++)
        if (!jobs[j].data)
            which[n++] = j;
    if (ncztr_codec_is_null(x->a)) {
        ret = fetch_raw(x, jobs, which, n);
        goto done;
    }
    gets = calloc(n, sizeof *gets);
    NCZ_CHECK_ALLOC(gets, FAIL);
    for (size_t i = 0; i < n; i++)
        gets[i].key = jobs[which[i]].key;
    nczm_get_many(map, n, gets); /* per-request statuses are examined below */
    for (size_t i = 0; i < n && ret == SUCCEED; i++) {
        cjob *jb = &jobs[which[i]];
        if (gets[i].status == NCZM_NOTFOUND) {
            ret = missing_chunk(x, jb);
            continue;
        }
        if (gets[i].status != NCZM_OK)
            NCZ_GOTO(FAIL, NCZ_E_STORE, "dataset \"%s\": cannot read chunk \"%s\": %s", path, jb->key,
                     nczm_errmsg(map));
        void *raw = NULL;
        size_t rawlen = 0;
        void *in = gets[i].buf;
        gets[i].buf = NULL;
        if (ncztr_codec_decode(x->o, jb->key, in, gets[i].len, &raw, &rawlen) < 0)
            NCZ_GOTO_QUIET(FAIL);
        ret = adopt_chunk(x, jb, raw, rawlen);
    }
done:
    if (gets)
        for (size_t i = 0; i < n; i++)
            free(gets[i].buf);
    free(gets);
    free(which);
    return ret;
}

static herr_t read_batch(ncztr_ioctx *x, cjob *jobs, size_t n, ncztr_putlist *pl)
{
    ncztr_chunkcache *c = x->a->cache;
    size_t hits = 0;
    for (size_t j = 0; j < n; j++) {
        if (!(jobs[j].key = ncztr_chunk_key(&x->g, jobs[j].coord)))
            return FAIL;
        if ((jobs[j].ent = ncztr_cc_find(c, jobs[j].coord))) {
            jobs[j].data = jobs[j].ent->data;
            ncztr_cc_touch(c, jobs[j].ent);
            hits++;
        }
    }
    /* The hits are now the most recently used entries: kept. */
    if (hits < n && ncztr_cc_make_room(x->o, &x->g, pl, (n - hits) * x->g.chunk_bytes, hits) < 0)
        return FAIL;
    if (fetch_chunks(x, jobs, n) < 0)
        return FAIL;
    for (size_t j = 0; j < n; j++) {
        size_t vol = 0;
        if (!x->elem && (jobs[j].fsel = ncztr_chunk_fsel(x, jobs[j].coord, &vol)) < 0)
            return NCZ_PUSH(NCZ_E_HDF5, "dataset \"%s\": cannot select within chunk \"%s\"", x->g.path,
                            jobs[j].key);
        if (copy_chunk(x, &jobs[j]) < 0)
            return FAIL;
    }
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

static herr_t write_batch(ncztr_ioctx *x, cjob *jobs, size_t n, ncztr_putlist *pl)
{
    const char *path = x->g.path;
    ncztr_chunkcache *c = x->a->cache;
    for (size_t j = 0; j < n; j++) {
        cjob *jb = &jobs[j];
        size_t vol = 0;
        if (!(jb->key = ncztr_chunk_key(&x->g, jb->coord)))
            return FAIL;
        if (x->elem) {
            jb->whole = false; /* points: always read-modify-write */
        } else {
            if ((jb->fsel = ncztr_chunk_fsel(x, jb->coord, &vol)) < 0)
                return NCZ_PUSH(NCZ_E_HDF5, "dataset \"%s\": cannot select within chunk \"%s\"", path,
                                jb->key);
            hssize_t np = H5Sget_select_npoints(jb->fsel);
            /* A partial compound write keeps the other members: never a whole overwrite. */
            jb->whole = np >= 0 && (size_t)np == vol && !x->bkg;
        }
        ncztr_cc_entry *e = ncztr_cc_find(c, jb->coord);
        if (jb->whole) {
            /* Overwritten whole: the old content is never read, and any cached copy is stale. */
            if (e) {
                ncztr_cc_remove(c, e);
                ncztr_pool_give(&x->pool, e->data);
                free(e);
            }
            if (!(jb->data = ncztr_pool_take(&x->pool, x->g.chunk_bytes)))
                return NCZ_PUSH(NCZ_E_NOMEM, "dataset \"%s\": out of memory for chunk \"%s\"", path, jb->key);
            jb->own = true;
            if (vol != x->g.chunk_elems) /* edge chunk: the overhang is stored too */
                ncztr_fill_elems(&x->a->za, jb->data, x->g.chunk_elems);
        } else if (e) {
            jb->ent = e;
            jb->data = e->data;
            e->dirty = true; /* set before copying: a failed copy may have changed it already */
            ncztr_cc_touch(c, e);
        }
    }
    if (fetch_chunks(x, jobs, n) < 0)
        return FAIL;
    for (size_t j = 0; j < n; j++)
        if (copy_chunk(x, &jobs[j]) < 0)
            return FAIL;
    for (size_t j = 0; j < n; j++) {
        cjob *jb = &jobs[j];
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
    if (ncztr_cc_trim(x->o, &x->g, pl) < 0)
        return FAIL;
    return ncztr_pl_run(x->o, &x->g, pl);
}

/* ===================================================================================== */

static herr_t do_io(ncztr_obj *o, hid_t mem_type, hid_t mem_space, hid_t file_space, void *buf, bool write)
{
    herr_t ret = SUCCEED;
    ncztr_ioctx *x = NULL;
    cjob *jobs = NULL;
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
    ncztr_pool_init(&x->pool, x->g.chunk_bytes);
    pl.pool = &x->pool;
    if (write && o->file->readonly)
        NCZ_GOTO(FAIL, NCZ_E_ARGS, "cannot write dataset \"%s\": the store is open read-only", x->g.path);
    for (int k = 0; k < x->g.rank; k++)
        x->shape[k] = x->a->za.rank > 0 ? x->a->za.shape[k] : 1;
    if (setup_spaces(x, mem_space, file_space, &nsel) < 0)
        NCZ_GOTO_QUIET(FAIL);
    if (nsel == 0)
        NCZ_GOTO_QUIET(SUCCEED);
    if (!buf)
        NCZ_GOTO(FAIL, NCZ_E_ARGS, "dataset \"%s\": no buffer for %lld elements", x->g.path, (long long)nsel);
    if (setup_types(x, mem_type) < 0)
        NCZ_GOTO_QUIET(FAIL);
    if (write && H5Tget_class(x->st) == H5T_STRING && H5Tis_variable_str(mem_type) > 0 &&
        check_strings(x) < 0)
        NCZ_GOTO_QUIET(FAIL);
    if (ncztr_enum_init(x, &en, (size_t)nsel) < 0)
        NCZ_GOTO_QUIET(FAIL);
    size_t jcap = ncztr_enum_bound(&en, NCZTR_BATCH_CHUNKS);
    jobs = calloc(jcap, sizeof *jobs);
    NCZ_CHECK_ALLOC(jobs, FAIL);
    for (;;) {
        jobs[njobs].fsel = H5I_INVALID_HID;
        int r = ncztr_enum_next(x, &en, jobs[njobs].coord, &jobs[njobs].eb, &jobs[njobs].ee);
        if (r < 0)
            NCZ_GOTO_QUIET(FAIL);
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
        ctx_clear(x);
        free(x);
    }
    ncztr_err_restore(es);
    return ret;
}

herr_t ncztr_array_read(ncztr_obj *o, hid_t mem_type, hid_t mem_space, hid_t file_space, void *buf)
{
    if (ncztr_array_check_stored(o) < 0)
        return FAIL;
    if (ncztr_array_is_vlen(o))
        return ncztr_vlen_io(o, mem_type, mem_space, file_space, buf, false, H5P_DEFAULT);
    return do_io(o, mem_type, mem_space, file_space, buf, false);
}

herr_t ncztr_array_write(ncztr_obj *o, hid_t mem_type, hid_t mem_space, hid_t file_space, const void *buf)
{
    if (ncztr_array_check_stored(o) < 0)
        return FAIL;
    /* The buffer is only read from on this path. */
    if (ncztr_array_is_vlen(o))
        return ncztr_vlen_io(o, mem_type, mem_space, file_space, (void *)(uintptr_t)buf, true, H5P_DEFAULT);
    return do_io(o, mem_type, mem_space, file_space, (void *)(uintptr_t)buf, true);
}
