/* Array operations on chunk objects: changing the extent (fill written into cut boundary
 * chunks, chunks past the new edge deleted), storage size, and the flush on close. */
#include "ncztr_array_internal.h"
#include "ncztr_chunkio.h"
#include "ncztr_format.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Calls fn for every chunk index of the grid whose chunk index lies at or beyond lim in
 * some dimension (lim = NULL: every chunk). */
typedef herr_t (*chunk_fn)(ncztr_obj *o, const char *ckey, void *ud);

static herr_t chunk_key(const ncztr_obj *o, const uint64_t *idx, char **out)
{
    const ncztr_zarray *za = &o->arr->za;
    char *key = ncztr_obj_key(o);
    *out = key ? ncztr_chunk_key_at(key, za->rank, za->dimsep, za->chunk_c, idx) : NULL;
    free(key);
    return *out ? SUCCEED : NCZ_PUSH(NCZ_E_NOMEM, "out of memory");
}

static herr_t for_chunks(ncztr_obj *o, const uint64_t *lim, chunk_fn fn, void *ud)
{
    const ncztr_zarray *za = &o->arr->za;
    uint64_t n[NCZTR_MAX_RANK], idx[NCZTR_MAX_RANK] = {0};
    for (int k = 0; k < za->rank; k++) {
        n[k] = (za->shape[k] + za->chunks[k] - 1) / za->chunks[k];
        if (n[k] == 0)
            return SUCCEED;
    }
    for (;;) {
        bool sel = lim == NULL;
        for (int k = 0; k < za->rank && !sel; k++)
            if (idx[k] >= lim[k])
                sel = true;
        if (sel) {
            char *ck = NULL;
            if (chunk_key(o, idx, &ck) < 0)
                return FAIL;
            herr_t r = fn(o, ck, ud);
            free(ck);
            if (r < 0)
                return FAIL;
        }
        int k = za->rank - 1;
        while (k >= 0 && ++idx[k] == n[k])
            idx[k--] = 0;
        if (k < 0)
            break;
    }
    return SUCCEED;
}

static herr_t delete_chunk(ncztr_obj *o, const char *ckey, void *ud)
{
    (void)ud;
    if (o->file->shared_skip) /* rank 0 deletes them (translate/par) */
        return SUCCEED;
    nczm_status st = nczm_delete(o->file->map, ckey);
    if (st != NCZM_OK && st != NCZM_NOTFOUND)
        return NCZ_PUSH(NCZ_E_STORE, "cannot delete chunk \"%s\": %s", ckey, nczm_errmsg(o->file->map));
    return SUCCEED;
}

static herr_t add_size(ncztr_obj *o, const char *ckey, void *ud)
{
    uint64_t len = 0;
    nczm_status st = nczm_len(o->file->map, ckey, &len);
    if (st == NCZM_OK)
        *(hsize_t *)ud += len;
    else if (st != NCZM_NOTFOUND)
        return NCZ_PUSH(NCZ_E_STORE, "cannot stat chunk \"%s\": %s", ckey, nczm_errmsg(o->file->map));
    return SUCCEED;
}

/* A grid too large to ask for each chunk (a huge array written in a few places): the
 * objects listed under the array's key, less its metadata. */
static herr_t listed_size(ncztr_obj *o, hsize_t *size)
{
    herr_t ret = SUCCEED;
    nczm_list list = {0};
    char *key = ncztr_obj_key(o), *child = NULL;
    ncztr_zfmt fmt = o->file->zarr_format == 3 ? NCZTR_ZARR3 : NCZTR_ZARR2;
    const char *meta = ncztr_meta_name(fmt, false), *attrs = ncztr_attrs_name(fmt);
    NCZ_CHECK_ALLOC(key, FAIL);
    if (nczm_search(o->file->map, key, &list) != NCZM_OK)
        NCZ_GOTO(FAIL, NCZ_E_STORE, "cannot list \"%s\": %s", key, nczm_errmsg(o->file->map));
    for (size_t i = 0; i < list.count; i++) {
        const char *nm = list.names[i];
        uint64_t n = 0;
        if (nm[0] == '.' || (meta && !strcmp(nm, meta)) || (attrs && !strcmp(nm, attrs)))
            continue; /* chunk keys never start with '.' */
        free(child);
        if (!(child = nczm_key_join(key, nm)))
            NCZ_GOTO(FAIL, NCZ_E_NOMEM, "out of memory");
        if (nczm_tree_bytes(o->file->map, child, &n) != NCZM_OK)
            NCZ_GOTO(FAIL, NCZ_E_STORE, "cannot list \"%s\": %s", child, nczm_errmsg(o->file->map));
        *size += n;
    }
done:
    free(child);
    free(key);
    nczm_list_clear(&list);
    return ret;
}

herr_t ncztr_array_storage_size(ncztr_obj *o, hsize_t *size)
{
    *size = 0;
    if (ncztr_array_check_usable(o) < 0)
        return FAIL;
    if (o->anonymous)
        return SUCCEED; /* nothing of it is stored */
    if (!o->file->readonly && ncztr_array_flush(o) < 0)
        return FAIL;
    const ncztr_zarray *za = &o->arr->za;
    double grid = 1;
    for (int k = 0; k < za->rank; k++)
        grid *= (double)((za->shape[k] + za->chunks[k] - 1) / za->chunks[k]);
    if (grid <= 65536)
        return for_chunks(o, NULL, add_size, size);
    return listed_size(o, size);
}

herr_t ncztr_array_set_extent(ncztr_obj *o, const hsize_t *size)
{
    herr_t ret = SUCCEED;
    ncztr_array *a = o->arr;
    void *fillbuf = NULL;
    hid_t fspace = H5I_INVALID_HID, mspace = H5I_INVALID_HID, stype = H5I_INVALID_HID;
    if (ncztr_array_check_stored(o) < 0)
        return FAIL;
    if (o->file->readonly)
        NCZ_GOTO(FAIL, NCZ_E_ARGS, "cannot change the extent of \"%s\": the store is open read-only",
                 o->name);
    if (a->scalar)
        NCZ_GOTO(FAIL, NCZ_E_ARGS, "cannot change the extent of scalar dataset \"%s\"", o->name);
    if (a->null_space)
        NCZ_GOTO(FAIL, NCZ_E_ARGS, "cannot change the extent of dataset \"%s\": its dataspace is null",
                 o->name);
    /* As in HDF5: only chunked datasets change extent (the layout is the one the
     * application asked for; every array loaded from a store is chunked). */
    hid_t dcpl = ncztr_array_own_dcpl(o);
    if (dcpl < 0)
        NCZ_GOTO_QUIET(FAIL);
    H5D_layout_t layout = H5Pget_layout(dcpl);
    if (layout == H5D_COMPACT || layout == H5D_CONTIGUOUS)
        NCZ_GOTO(FAIL, NCZ_E_ARGS,
                 "cannot change the extent of dataset \"%s\": it has %s storage, not chunked", o->name,
                 layout == H5D_COMPACT ? "compact" : "contiguous");
    bool shrink = false, change = false;
    for (int k = 0; k < a->za.rank; k++) {
        if (a->maxdims[k] != H5S_UNLIMITED && size[k] > a->maxdims[k])
            NCZ_GOTO(FAIL, NCZ_E_ARGS,
                     "dataset \"%s\": new size %llu of dimension %d exceeds its maximum %llu", o->name,
                     (unsigned long long)size[k], k, (unsigned long long)a->maxdims[k]);
        if (size[k] < a->za.shape[k])
            shrink = true;
        if (size[k] != a->za.shape[k])
            change = true;
    }
    if (!change)
        NCZ_GOTO_QUIET(SUCCEED);
    if (shrink) {
        /* HDF5 semantics: data cut off by a shrink is gone, and growing again shows fill.
         * Overwrite the cut part of the boundary chunks with fill, then drop the chunks
         * that lie wholly outside. */
        uint64_t lim[NCZTR_MAX_RANK];
        hsize_t old[NCZTR_MAX_RANK];
        for (int k = 0; k < a->za.rank; k++) {
            old[k] = a->za.shape[k];
            lim[k] = (size[k] + a->za.chunks[k] - 1) / a->za.chunks[k];
        }
        if ((stype = ncztr_array_storage_type(o)) < 0)
            NCZ_GOTO_QUIET(FAIL);
        fspace = H5Screate_simple(a->za.rank, old, NULL);
        for (int k = 0; k < a->za.rank; k++) {
            uint64_t edge = lim[k] * a->za.chunks[k];
            if (size[k] >= old[k] || size[k] == edge)
                continue;
            hsize_t start[NCZTR_MAX_RANK] = {0}, count[NCZTR_MAX_RANK];
            for (int j = 0; j < a->za.rank; j++)
                count[j] = old[j];
            start[k] = size[k];
            count[k] = (edge < old[k] ? edge : old[k]) - size[k];
            hsize_t n = 1;
            for (int j = 0; j < a->za.rank; j++)
                n *= count[j];
            free(fillbuf);
            fillbuf = malloc(n * a->za.dtype.size);
            NCZ_CHECK_ALLOC(fillbuf, FAIL);
            for (hsize_t i = 0; i < n; i++)
                if (a->za.has_fill)
                    memcpy((char *)fillbuf + i * a->za.dtype.size, a->za.fill, a->za.dtype.size);
                else
                    memset((char *)fillbuf + i * a->za.dtype.size, 0, a->za.dtype.size);
            if (H5Sselect_hyperslab(fspace, H5S_SELECT_SET, start, NULL, count, NULL) < 0)
                NCZ_GOTO(FAIL, NCZ_E_HDF5, "selection failed");
            if (mspace >= 0)
                H5Sclose(mspace);
            mspace = H5Screate_simple(1, &n, NULL);
            /* fill bytes are in storage form: stype is the fixed-width storage type */
            if (ncztr_array_write(o, stype, mspace, fspace, fillbuf) < 0)
                NCZ_GOTO_QUIET(FAIL);
        }
        /* Evict (not just flush): cached copies of the deleted chunks must not come back. */
        if (ncztr_array_cache_evict(o) < 0)
            NCZ_GOTO_QUIET(FAIL);
        if (for_chunks(o, lim, delete_chunk, NULL) < 0)
            NCZ_GOTO_QUIET(FAIL);
    }
    for (int k = 0; k < a->za.rank; k++)
        a->za.shape[k] = size[k];
    o->meta_dirty = true;
    o->file->root->attrs_dirty = true;
done:
    free(fillbuf);
    if (fspace >= 0)
        H5Sclose(fspace);
    if (mspace >= 0)
        H5Sclose(mspace);
    if (stype >= 0)
        H5Tclose(stype);
    return ret;
}

herr_t ncztr_array_close_flush(ncztr_obj *o)
{
    if (o->deleted || o->anonymous || !o->arr || o->arr->stub || o->arr->load_error || o->file->readonly)
        return SUCCEED;
    return ncztr_array_flush(o);
}
