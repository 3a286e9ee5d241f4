/* Dataset callbacks: creation from type/space/dcpl, the dataset queries, and reads and
 * writes, whose H5S_ALL / H5S_BLOCK ids are resolved here the way the native connector
 * resolves them before the model moves the bytes. */
#include "H5VL_nczarr.h"
#include "ncztr_par.h"

#include <stdlib.h>
#include <string.h>

/* Keeps a copy of the application's access plist for H5Dget_access_plist. The library's
 * default list (what H5Dcreate2 passes for H5P_DEFAULT) is not copied: that copy was a
 * fifth of the time of creating a small dataset; the query copies the default instead. */
static H5VL_nczarr_obj_t *keep_dapl(H5VL_nczarr_obj_t *o, hid_t dapl_id, const char *name)
{
    if (!o || dapl_id == H5P_DEFAULT || dapl_id == H5P_DATASET_ACCESS_DEFAULT || dapl_id < 0)
        return o;
    if ((o->dapl = H5Pcopy(dapl_id)) < 0) {
        NCZ_PUSH(NCZ_E_HDF5, "dataset \"%s\": cannot copy its access property list", name ? name : "");
        H5VL_nczarr_obj_release(o);
        return NULL;
    }
    return o;
}

/* HDF5 passes access plists through unchecked (the native connector fails when it reads
 * them): refuse ids that are not dataset access plists. */
static herr_t check_dapl(hid_t dapl_id)
{
    htri_t isa = -1;
    if (dapl_id == H5P_DEFAULT || dapl_id == H5P_DATASET_ACCESS_DEFAULT)
        return SUCCEED; /* what HDF5 passes for H5P_DEFAULT: no lookups per dataset */
    H5E_BEGIN_TRY
    {
        if (H5Iget_type(dapl_id) == H5I_GENPROP_LST)
            isa = H5Pisa_class(dapl_id, H5P_DATASET_ACCESS);
    }
    H5E_END_TRY
    if (isa <= 0)
        return NCZ_PUSH(NCZ_E_ARGS, "invalid dataset access property list (id %lld)", (long long)dapl_id);
    return SUCCEED;
}

void *H5VL_nczarr_dataset_create(void *obj, const H5VL_loc_params_t *loc_params, const char *name,
                                 hid_t lcpl_id, hid_t type_id, hid_t space_id, hid_t dcpl_id, hid_t dapl_id,
                                 hid_t dxpl_id, void **req)
{
    (void)dxpl_id;
    (void)req;
    H5VL_nczarr_obj_t *o = obj;
    ncztr_obj *base = H5VL_nczarr_resolve(o, loc_params), *parent = NULL, *d = NULL;
    char *leaf = NULL;
    H5VL_nczarr_obj_t *ret = NULL;
    if (!base || check_dapl(dapl_id) < 0)
        return NULL;
    if (dcpl_id == H5P_DEFAULT)
        dcpl_id = H5P_DATASET_CREATE_DEFAULT;
    if (!name) {
        /* H5Dcreate_anon: in memory until H5Olink names it (and gone if it never does) */
        if (ncztr_array_create_anon(ncztr_obj_file(base), type_id, space_id, dcpl_id, dapl_id, &d) < 0)
            return NULL;
        ret = keep_dapl(H5VL_nczarr_obj_new(H5I_DATASET, o->file, d, NULL), dapl_id, "(anonymous)");
        ncztr_obj_unref(d);
        return ret;
    }
    if (ncztr_resolve_new(base, name, H5VL_nczarr_lcpl_intermediate(lcpl_id), &parent, &leaf) < 0)
        return NULL;
    if (ncztr_array_create(parent, leaf, type_id, space_id, dcpl_id, dapl_id, &d) == SUCCEED) {
        ret = keep_dapl(H5VL_nczarr_obj_new(H5I_DATASET, o->file, d, NULL), dapl_id, name);
        ncztr_obj_unref(d);
    }
    free(leaf);
    return ret;
}

void *H5VL_nczarr_dataset_open(void *obj, const H5VL_loc_params_t *loc_params, const char *name,
                               hid_t dapl_id, hid_t dxpl_id, void **req)
{
    (void)dxpl_id;
    (void)req;
    H5VL_nczarr_obj_t *o = obj;
    if (check_dapl(dapl_id) < 0)
        return NULL;
    ncztr_obj *base = H5VL_nczarr_resolve(o, loc_params), *d = NULL;
    if (!base || ncztr_lookup(base, name ? name : ".", &d) < 0)
        return NULL;
    if (ncztr_obj_kind(d) != NCZTR_ARRAY || ncztr_obj_is_datatype(d)) {
        NCZ_PUSH(NCZ_E_ARGS, "\"%s\" is a %s, not a dataset", name,
                 ncztr_obj_kind(d) != NCZTR_ARRAY ? "group" : "committed datatype");
        return NULL;
    }
    if (ncztr_array_check_usable(d) < 0)
        return NULL;
    ncztr_array_warn_loaded(d);
    ncztr_array_set_cache_from_dapl(d, dapl_id);
    return keep_dapl(H5VL_nczarr_obj_new(H5I_DATASET, o->file, d, NULL), dapl_id, name);
}

/* Resolves the (mem, file) space pair the way the native connector does. mem and file get
 * new ids the caller closes. */
static herr_t resolve_spaces(ncztr_obj *d, hid_t mem_space_id, hid_t file_space_id, hid_t *mem, hid_t *file)
{
    *mem = *file = H5I_INVALID_HID;
    if (file_space_id == H5S_ALL || file_space_id == H5S_BLOCK) {
        if ((*file = ncztr_array_space(d)) < 0)
            return NCZ_PUSH(NCZ_E_HDF5, "dataset \"%s\": cannot build its dataspace", ncztr_obj_name(d));
    } else if (file_space_id == H5S_PLIST) {
        return NCZ_PUSH(NCZ_E_UNSUPPORTED, "dataset \"%s\": H5S_PLIST file selections are not supported",
                        ncztr_obj_name(d));
    } else if ((*file = H5Scopy(file_space_id)) < 0) {
        return NCZ_PUSH(NCZ_E_ARGS, "dataset \"%s\": invalid file dataspace", ncztr_obj_name(d));
    }
    if (mem_space_id == H5S_ALL) {
        *mem = H5Scopy(*file);
    } else if (mem_space_id == H5S_BLOCK) {
        hssize_t n = H5Sget_select_npoints(*file);
        hsize_t dim = n > 0 ? (hsize_t)n : 0;
        *mem = H5Screate_simple(1, &dim, NULL);
    } else {
        *mem = H5Scopy(mem_space_id);
    }
    if (*mem < 0) {
        H5Sclose(*file);
        *file = H5I_INVALID_HID;
        return NCZ_PUSH(NCZ_E_ARGS, "dataset \"%s\": invalid memory dataspace", ncztr_obj_name(d));
    }
    /* A file selection must lie inside the current extent. */
    if (file_space_id >= 0 && file_space_id != H5S_ALL && file_space_id != H5S_BLOCK &&
        H5Sselect_valid(*file) <= 0) {
        H5Sclose(*mem);
        H5Sclose(*file);
        *mem = *file = H5I_INVALID_HID;
        return NCZ_PUSH(NCZ_E_ARGS, "dataset \"%s\": the file selection is outside the dataset's extent",
                        ncztr_obj_name(d));
    }
    return SUCCEED;
}

/* An MPI program's collective transfer (H5Pset_dxpl_mpio): every rank is in the call. */
static bool xfer_collective(hid_t dxpl_id)
{
#ifdef H5_HAVE_PARALLEL
    H5FD_mpio_xfer_t mode = H5FD_MPIO_INDEPENDENT;
    if (H5Pget_dxpl_mpio(dxpl_id == H5P_DEFAULT ? H5P_DATASET_XFER_DEFAULT : dxpl_id, &mode) < 0) {
        H5Eclear2(H5E_DEFAULT);
        return false;
    }
    return mode == H5FD_MPIO_COLLECTIVE;
#else
    (void)dxpl_id;
    return false;
#endif
}

static herr_t dataset_io(size_t count, void *dset[], hid_t mem_type_id[], hid_t mem_space_id[],
                         hid_t file_space_id[], hid_t dxpl_id, void *rbuf[], const void *wbuf[])
{
    herr_t ret = SUCCEED;
    bool coll = wbuf && xfer_collective(dxpl_id);
    for (size_t i = 0; i < count && ret == SUCCEED; i++) {
        H5VL_nczarr_obj_t *o = dset[i];
        ncztr_obj *d = o->node;
        hid_t mem = H5I_INVALID_HID, file = H5I_INVALID_HID;
        if (ncztr_array_check_usable(d) < 0)
            return FAIL;
        if (resolve_spaces(d, mem_space_id[i], file_space_id[i], &mem, &file) < 0)
            return FAIL;
        if (ncztr_array_is_ref(d)) {
            /* H5T_STD_REF_OBJ: ids <-> the stored paths of their objects (as H5R_ref_t too,
             * which the file's reference operations make and take) */
            H5VL_nczarr_set_refops(o->file);
            ret = ncztr_refdata_io(d, mem_type_id[i], mem, file, rbuf ? rbuf[i] : (void *)(uintptr_t)wbuf[i],
                                   !rbuf);
        } else if (rbuf && ncztr_array_is_vlen(d) && !ncztr_obj_is_anonymous(d))
            /* the transfer plist's allocator makes the sequences (H5Dvlen_get_buf_size counts
             * bytes with one) */
            ret = ncztr_vlen_io(d, mem_type_id[i], mem, file, rbuf[i], false, dxpl_id);
        else if (rbuf)
            ret = ncztr_array_read(d, mem_type_id[i], mem, file, rbuf[i]);
        else
            ret = ncztr_par_write(d, mem_type_id[i], mem, file, wbuf[i], coll);
        H5Sclose(mem);
        H5Sclose(file);
    }
    return ret;
}

herr_t H5VL_nczarr_dataset_read(size_t count, void *dset[], hid_t mem_type_id[], hid_t mem_space_id[],
                                hid_t file_space_id[], hid_t dxpl_id, void *buf[], void **req)
{
    (void)req;
    return dataset_io(count, dset, mem_type_id, mem_space_id, file_space_id, dxpl_id, buf, NULL);
}

herr_t H5VL_nczarr_dataset_write(size_t count, void *dset[], hid_t mem_type_id[], hid_t mem_space_id[],
                                 hid_t file_space_id[], hid_t dxpl_id, const void *buf[], void **req)
{
    (void)req;
    return dataset_io(count, dset, mem_type_id, mem_space_id, file_space_id, dxpl_id, NULL, buf);
}

herr_t H5VL_nczarr_dataset_get(void *obj, H5VL_dataset_get_args_t *args, hid_t dxpl_id, void **req)
{
    (void)dxpl_id;
    (void)req;
    H5VL_nczarr_obj_t *o = obj;
    ncztr_obj *d = o->node;
    if (ncztr_array_check_usable(d) < 0)
        return FAIL;
    switch (args->op_type) {
    case H5VL_DATASET_GET_DAPL: {
        /* What the application set when opening/creating (prefixes, virtual view...). */
        hid_t dapl = H5Pcopy(o->dapl >= 0 ? o->dapl : H5P_DATASET_ACCESS_DEFAULT);
        if (dapl < 0)
            return NCZ_PUSH(NCZ_E_HDF5, "dataset \"%s\": cannot create its access property list",
                            ncztr_obj_name(d));
        /* netCDF-C reads its chunk cache settings back from here. */
        size_t nslots = H5D_CHUNK_CACHE_NSLOTS_DEFAULT, nbytes = 0;
        double w0 = H5D_CHUNK_CACHE_W0_DEFAULT;
        if (H5Pget_chunk_cache(dapl, &nslots, &nbytes, &w0) < 0 ||
            H5Pset_chunk_cache(dapl, nslots, ncztr_array_cache_bytes(d), w0) < 0) {
            H5Pclose(dapl);
            return NCZ_PUSH(NCZ_E_HDF5,
                            "dataset \"%s\": cannot set the chunk cache of its access property list",
                            ncztr_obj_name(d));
        }
        args->args.get_dapl.dapl_id = dapl;
        return SUCCEED;
    }
    case H5VL_DATASET_GET_DCPL:
        if ((args->args.get_dcpl.dcpl_id = ncztr_array_dcpl(d)) < 0)
            return NCZ_PUSH(NCZ_E_HDF5, "dataset \"%s\": cannot copy its creation plist", ncztr_obj_name(d));
        return SUCCEED;
    case H5VL_DATASET_GET_SPACE:
        if ((args->args.get_space.space_id = ncztr_array_space(d)) < 0)
            return NCZ_PUSH(NCZ_E_HDF5, "dataset \"%s\": cannot build its dataspace", ncztr_obj_name(d));
        return SUCCEED;
    case H5VL_DATASET_GET_SPACE_STATUS: {
        hsize_t sz = 0;
        if (ncztr_array_storage_size(d, &sz) < 0)
            return FAIL;
        *args->args.get_space_status.status =
            sz ? H5D_SPACE_STATUS_ALLOCATED : H5D_SPACE_STATUS_NOT_ALLOCATED;
        return SUCCEED;
    }
    case H5VL_DATASET_GET_STORAGE_SIZE:
        return ncztr_array_storage_size(d, args->args.get_storage_size.storage_size);
    case H5VL_DATASET_GET_TYPE:
        if ((args->args.get_type.type_id = ncztr_array_type(d)) < 0)
            return NCZ_PUSH(NCZ_E_HDF5, "dataset \"%s\": cannot copy its type", ncztr_obj_name(d));
        return SUCCEED;
    default:
        return NCZ_PUSH(NCZ_E_UNSUPPORTED, "dataset get operation %d is not supported", (int)args->op_type);
    }
}

herr_t H5VL_nczarr_dataset_specific(void *obj, H5VL_dataset_specific_args_t *args, hid_t dxpl_id, void **req)
{
    (void)dxpl_id;
    (void)req;
    H5VL_nczarr_obj_t *o = obj;
    ncztr_obj *d = o->node;
    switch (args->op_type) {
    case H5VL_DATASET_SET_EXTENT:
        return ncztr_array_set_extent(d, args->args.set_extent.size);
    case H5VL_DATASET_FLUSH:
        if (ncztr_array_check_usable(d) < 0 || (!ncztr_obj_is_anonymous(d) && ncztr_array_flush(d) < 0))
            return FAIL;
        return ncztr_file_flush(o->file->tf);
    case H5VL_DATASET_REFRESH:
        return SUCCEED;
    default:
        return NCZ_PUSH(NCZ_E_UNSUPPORTED, "dataset operation %d is not supported", (int)args->op_type);
    }
}

herr_t H5VL_nczarr_dataset_optional(void *obj, H5VL_optional_args_t *args, hid_t dxpl_id, void **req)
{
    (void)obj;
    (void)dxpl_id;
    (void)req;
    return NCZ_PUSH(
        NCZ_E_UNSUPPORTED,
        "dataset operation %d (direct chunk access, offsets, chunk queries) is specific to native "
        "HDF5 files and is not supported on Zarr stores",
        args->op_type);
}

herr_t H5VL_nczarr_dataset_close(void *dset, hid_t dxpl_id, void **req)
{
    (void)dxpl_id;
    (void)req;
    H5VL_nczarr_obj_t *o = dset;
    herr_t ret = SUCCEED;
    /* MPI: H5Dclose is collective; the pieces of chunks written independently go to their
     * owners here. */
    if (o->node && ncztr_par_active(ncztr_obj_file(o->node)) &&
        !ncztr_file_is_readonly(ncztr_obj_file(o->node)))
        ret = ncztr_par_exchange(ncztr_obj_file(o->node), SUCCEED, "H5Dclose");
    /* Dirty chunks of this dataset reach the store when it closes, as with HDF5's cache. */
    if (ret == SUCCEED && o->rc == 1 && o->node)
        ret = ncztr_array_close_flush(o->node);
    if (H5VL_nczarr_obj_release(o) < 0)
        ret = FAIL;
    return ret;
}
