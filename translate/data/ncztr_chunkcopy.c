/* Moving the bytes of one chunk between the chunk buffer and the application's buffer
 * (ncztr_chunkio.c's per-call context: spaces, types, sequence walkers, element copies). */
#include "ncztr_array_internal.h"
#include "ncztr_chunkio_internal.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RMAX NCZTR_MAX_RANK

/* Chunk shape as "10x10", for messages. */
void ncztr_io_shape_str(const ncztr_cgeom *g, char *buf, size_t cap)
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

void ncztr_io_clear(ncztr_ioctx *x)
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
    if (x->pool)
        ncztr_pool_trim(x->pool);
    if (x->epool)
        ncztr_pool_trim(x->epool);
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
herr_t ncztr_io_setup_spaces(ncztr_ioctx *x, hid_t mem_space, hid_t file_space, hssize_t *nsel)
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
herr_t ncztr_io_setup_types(ncztr_ioctx *x, hid_t mem_type)
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
herr_t ncztr_io_check_strings(ncztr_ioctx *x)
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
    ncz_err_restore(es);
    return ret;
}

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
static herr_t copy_elems(ncztr_ioctx *x, const ncztr_cjob *jb)
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

unsigned char *ncztr_io_direct_run(ncztr_ioctx *x, const ncztr_cjob *jb, size_t vol)
{
    if (x->elem || x->convert || x->bkg || x->g.transpose || x->msz != x->g.esz || vol != x->g.chunk_elems ||
        jb->fsel < 0)
        return NULL;
    /* Every element of the chunk is selected: in C order the chunk is one run. */
    hssize_t nf = H5Sget_select_npoints(jb->fsel);
    if (nf < 0 || (size_t)nf != x->g.chunk_elems)
        return NULL;
    bool borrowed = false;
    hid_t msel = ncztr_chunk_msel(x, jb->coord, &borrowed);
    if (msel < 0) {
        H5Eclear2(H5E_DEFAULT); /* not an error: the chunk just goes the usual way */
        return NULL;
    }
    unsigned char *run = NULL;
    hid_t it = H5Ssel_iter_create(msel, x->msz, H5S_SEL_ITER_SHARE_WITH_DATASPACE);
    size_t nseq = 0, nelem = 0, len[2];
    hsize_t off[2];
    herr_t r = it < 0 ? FAIL : H5Ssel_iter_get_seq_list(it, 2, SIZE_MAX, &nseq, &nelem, off, len);
    if (r >= 0 && nseq == 1 && len[0] == x->g.chunk_bytes)
        run = x->ubuf + off[0];
    if (it >= 0)
        H5Ssel_iter_close(it);
    if (!borrowed)
        H5Sclose(msel);
    if (r < 0)
        H5Eclear2(H5E_DEFAULT);
    return run;
}

/* Moves the selected elements of one chunk between its buffer and the user's buffer. */
herr_t ncztr_io_copy_chunk(ncztr_ioctx *x, const ncztr_cjob *jb)
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
    ncz_err_restore(es);
    return ret;
}
