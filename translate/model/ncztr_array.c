/* Arrays: creation from HDF5 type/space/dcpl, setup of loaded arrays, and the HDF5 view
 * of an array (dataspace, type, creation plist, extent changes, storage size). */
#include "ncztr_checked.h"
#include "ncztr_array_internal.h"
#include "ncztr_format.h"
#include "ncztr_h5compat.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Contiguous and compact datasets have no chunks in HDF5; Zarr needs some. One object per
 * dataset (what netCDF-C does) fails past S3's 5 GB object limit and makes every partial
 * access read everything, so split into chunks of at most this many bytes. */
#define NCZTR_AUTO_CHUNK_BYTES    (8u << 20)
#define NCZTR_DEFAULT_CACHE_BYTES (16u << 20)
#define NCZTR_MAX_DEFAULT_CACHE   ((size_t)256 << 20)

/* An array's chunk cache unless the application sets one: 16 MiB, or room for four chunks
 * (up to 256 MiB) when they are larger, so that writes covering part of big chunks or
 * shards (rows of a 16 MiB shard, say, one call after another) complete them in memory
 * instead of storing, reading back and decoding each one again. */
static size_t default_cache_bytes(const ncztr_zarray *za)
{
    size_t bytes = za->dtype.size;
    for (int k = 0; k < za->rank && bytes < NCZTR_MAX_DEFAULT_CACHE; k++)
        bytes =
            za->chunks[k] > NCZTR_MAX_DEFAULT_CACHE ? NCZTR_MAX_DEFAULT_CACHE : bytes * (size_t)za->chunks[k];
    size_t four = bytes > NCZTR_MAX_DEFAULT_CACHE / 4 ? NCZTR_MAX_DEFAULT_CACHE : 4 * bytes;
    return four > NCZTR_DEFAULT_CACHE_BYTES ? four : NCZTR_DEFAULT_CACHE_BYTES;
}

/* The chunk cache size an application set in a dataset access plist, if it set one (the
 * default list, which HDF5 passes for H5P_DEFAULT, sets none). A dapl without a size of its
 * own reports the file access default (1 MiB in HDF5 1.14, 8 MiB in 2.x:
 * NCZTR_H5COMPAT_DEFAULT_CACHE_BYTES): only another size is the application's choice
 * (either would hold less than one 16 MiB shard). */
static void dapl_cache_bytes(hid_t dapl, size_t *bytes)
{
    size_t nslots = 0, nbytes = 0;
    double w0 = 0;
    if (dapl >= 0 && dapl != H5P_DEFAULT && dapl != H5P_DATASET_ACCESS_DEFAULT &&
        H5Pget_chunk_cache(dapl, &nslots, &nbytes, &w0) >= 0 && nbytes &&
        nbytes != NCZTR_H5COMPAT_DEFAULT_CACHE_BYTES)
        *bytes = nbytes;
}

herr_t ncztr_array_check_usable(const ncztr_obj *o)
{
    if (!o || o->kind != NCZTR_ARRAY || !o->arr)
        return NCZ_PUSH(NCZ_E_ARGS, "not a dataset");
    if (o->deleted)
        return NCZ_PUSH(NCZ_E_NOTFOUND, "dataset \"%s\" has been deleted", o->name);
    if (ncztr_obj_load(o) < 0)
        return FAIL;
    if (o->arr->load_error)
        return NCZ_PUSH(NCZ_E_FORMAT, "dataset \"%s\" cannot be used: %s", o->name, o->arr->load_error);
    return SUCCEED;
}

void ncztr_array_warn_loaded(const ncztr_obj *o)
{
    if (o->arr && o->arr->load_warning)
        NCZ_WARN(NCZ_E_FORMAT, "%s", o->arr->load_warning);
}

const char *ncztr_array_load_error(const ncztr_obj *o)
{
    if (o->kind != NCZTR_ARRAY || !o->arr)
        return NULL;
    if (ncztr_obj_load(o) < 0)
        return "out of memory reading its metadata";
    return o->arr->load_error;
}

/* Picks chunk shape for a dataset created without chunks: whole dimensions from the
 * fastest-varying end, halving the slowest ones until a chunk fits the budget. */
static void auto_chunks(int rank, const uint64_t *shape, size_t esize, uint64_t *chunks)
{
    for (int k = 0; k < rank; k++)
        chunks[k] = shape[k] ? shape[k] : 1;
    for (;;) {
        unsigned __int128 bytes = esize;
        for (int k = 0; k < rank; k++)
            bytes *= chunks[k];
        if (bytes <= NCZTR_AUTO_CHUNK_BYTES)
            break;
        int k = 0;
        while (k < rank && chunks[k] == 1)
            k++;
        if (k == rank)
            break;
        chunks[k] = (chunks[k] + 1) / 2;
    }
}

/* The longest key suffix an array of this rank adds below its own key: its metadata, or a
 * chunk key of up to 32 indices of 20 digits (Zarr v3's "/c" before them). */
size_t ncztr_array_key_extra(int rank)
{
    size_t chunk = 3 + 21 * (size_t)rank, meta = ncztr_meta_key_extra();
    return chunk > meta ? chunk : meta;
}

herr_t ncztr_array_maxdims_new(ncztr_array *a)
{
    hsize_t *m = calloc(a->za.rank > 0 ? (size_t)a->za.rank : 1, sizeof *m);
    if (!m)
        return NCZ_PUSH(NCZ_E_NOMEM, "out of memory");
    free(a->maxdims);
    a->maxdims = m;
    return SUCCEED;
}

/* The new array's rank: za's shape and chunks, and maxdims, with room for it. */
static herr_t set_rank(ncztr_array *a, int rank)
{
    return ncztr_zarray_set_rank(&a->za, rank) < 0 ? FAIL : ncztr_array_maxdims_new(a);
}

/* The array of a new dataset from its HDF5 type, dataspace and creation plist; name is for
 * messages. */
static herr_t build_typed(ncztr_file *f, const char *name, hid_t type, hid_t space, hid_t dcpl, hid_t dapl,
                          ncztr_array **out)
{
    herr_t ret = SUCCEED;
    ncztr_array *a = NULL;
    hid_t stype = H5I_INVALID_HID;
    a = calloc(1, sizeof *a);
    NCZ_CHECK_ALLOC(a, FAIL);
    a->type = a->dcpl = H5I_INVALID_HID;
    ncztr_zarray *za = &a->za;
    htri_t isvlen = H5Tis_variable_str(type);
    a->vlen_string = isvlen > 0;
    a->maxstrlen = f->default_maxstrlen;
    /* Zarr readers (numpy) know "<f2" but netCDF-C does not: a 16-bit float dataset is
     * stored as float32 ("<f4"/">f4", exact for every half value) and remembered as half
     * in "_nczarr_array" so that HDF5 programs get their type back. */
    bool half = ncztr_is_half_float(type);
    H5T_class_t tcls = H5Tget_class(type);
    bool raw = ncztr_type_is_raw(type);
    bool special = tcls == H5T_COMPOUND || tcls == H5T_ARRAY || tcls == H5T_ENUM || tcls == H5T_BITFIELD ||
                   tcls == H5T_OPAQUE || raw;
    bool jvals = isvlen <= 0 && ncztr_array_json_elems(type);
    /* Zarr v3 has variable-length text ("string", vlen-utf8) where NCZarr v2 stores netCDF's
     * strings as fixed-width "|S" for netCDF-C */
    bool vtext = isvlen > 0 && f->zarr_format == 3;
    if (vtext) {
        if (ncztr_zarray_set_vlen(name, 'u', NULL, za) < 0)
            NCZ_GOTO_QUIET(FAIL);
        if (!(za->filters = json_pack("[{s:s}]", "id", "vlen-utf8")))
            NCZ_GOTO(FAIL, NCZ_E_NOMEM, "out of memory");
        a->vlen_string = false;
    } else if (jvals) {
        /* values with variable-length parts inside (strings in compounds or arrays, sequences
         * of anything but numbers): one JSON text per element, stored as "vlen-utf8" text
         * (zarr-python reads the texts); the exact type is kept (hdf5_type) */
        if (ncztr_cvalue_check(type, name) < 0 || ncztr_zarray_set_vlen(name, 'u', NULL, za) < 0)
            NCZ_GOTO_QUIET(FAIL);
        za->vlen_kind = 'j';
        if (!(za->filters = json_pack("[{s:s}]", "id", "vlen-utf8")))
            NCZ_GOTO(FAIL, NCZ_E_NOMEM, "out of memory");
        a->nc_hidden = true;
    } else if (tcls == H5T_VLEN) {
        /* numcodecs' "vlen-array" object arrays: zarr-python reads them (netCDF-C cannot,
         * so they are listed apart, as structured arrays are) */
        if (ncztr_vlen_from_hdf5(type, name, za) < 0)
            NCZ_GOTO_QUIET(FAIL);
        a->nc_hidden = true;
    } else if (tcls == H5T_COMPOUND || tcls == H5T_ARRAY || raw) {
        /* a Zarr structured dtype of packed records (a raw number: one "|V<n>" field); the
         * exact type is kept (hdf5_type) */
        hid_t st = ncztr_ctype_storage(type, name);
        if (st < 0)
            NCZ_GOTO_QUIET(FAIL);
        za->dtype.size = H5Tget_size(st);
        H5Tclose(st);
        if (!(za->structured = ncztr_struct_from_hdf5(type, name)))
            NCZ_GOTO_QUIET(FAIL);
        za->dtype.tclass = NCZTR_T_STRUCT;
        snprintf(za->dtype.zarr, sizeof za->dtype.zarr, "|V%zu", za->dtype.size);
        a->nc_hidden = true;
    } else if (tcls == H5T_ENUM || tcls == H5T_BITFIELD || tcls == H5T_OPAQUE) {
        /* the base integer dtype (a bitfield's or an opaque type's: the unsigned integer of
         * its size, same bytes); the exact type is kept (hdf5_type) */
        hid_t base = tcls == H5T_ENUM ? H5Tget_super(type) : ncztr_bits_base(type);
        herr_t r = base >= 0 ? ncztr_dtype_from_hdf5(base, 0, name, &za->dtype) : FAIL;
        if (base >= 0)
            H5Tclose(base);
        if (r < 0)
            NCZ_GOTO(FAIL, NCZ_E_NOTREPR, "dataset \"%s\": %s base type is not representable in NCZarr", name,
                     tcls == H5T_ENUM     ? "enum"
                     : tcls == H5T_OPAQUE ? "opaque"
                                          : "bitfield");
    } else if (ncztr_dtype_from_hdf5(
                   half ? (H5Tget_order(type) == H5T_ORDER_BE ? H5T_IEEE_F32BE : H5T_IEEE_F32LE) : type,
                   a->maxstrlen, name, &za->dtype) < 0)
        NCZ_GOTO_QUIET(FAIL);
    /* dataspace */
    H5S_class_t scls = H5Sget_simple_extent_type(space);
    if (scls == H5S_NULL) {
        /* no elements: an empty 1-D array (every reader sees no values), marked "hdf5_null" */
        a->null_space = true;
        if (set_rank(a, 1) < 0)
            NCZ_GOTO_QUIET(FAIL);
        za->shape[0] = a->maxdims[0] = 0;
        za->chunks[0] = 1;
    } else if (scls == H5S_SCALAR) {
        a->scalar = true;
        if (set_rank(a, 1) < 0)
            NCZ_GOTO_QUIET(FAIL);
        za->shape[0] = za->chunks[0] = 1;
        a->maxdims[0] = 1;
    } else {
        int rank = H5Sget_simple_extent_ndims(space);
        hsize_t dims[H5S_MAX_RANK], maxd[H5S_MAX_RANK];
        if (rank < 1 || rank > NCZTR_MAX_RANK || H5Sget_simple_extent_dims(space, dims, maxd) < 0)
            NCZ_GOTO(FAIL, NCZ_E_ARGS, "dataset \"%s\": unsupported dataspace (rank %d)", name, rank);
        if (set_rank(a, rank) < 0)
            NCZ_GOTO_QUIET(FAIL);
        uint64_t elems = 1;
        for (int k = 0; k < rank; k++) {
            za->shape[k] = dims[k];
            a->maxdims[k] = maxd[k];
            if (elems && !ncztr_mul_u64(elems, (uint64_t)dims[k], &elems))
                NCZ_GOTO(FAIL, NCZ_E_NOTREPR,
                         "dataset \"%s\": more than 2^64 elements, which a store could not open again", name);
        }
    }
    /* layout */
    H5D_layout_t layout = H5Pget_layout(dcpl);
    if (layout == H5D_VIRTUAL)
        NCZ_GOTO(FAIL, NCZ_E_NOTREPR, "dataset \"%s\": virtual datasets are not representable in NCZarr",
                 name);
    if (H5Pget_external_count(dcpl) > 0)
        NCZ_GOTO(FAIL, NCZ_E_NOTREPR, "dataset \"%s\": external storage is not representable in NCZarr",
                 name);
    if (a->null_space) {
        /* nothing to chunk: the shape [0], chunks [1] set above */
    } else if (layout == H5D_CHUNKED && !a->scalar) {
        hsize_t cd[H5S_MAX_RANK];
        int crank = H5Pget_chunk(dcpl, H5S_MAX_RANK, cd);
        if (crank != za->rank)
            NCZ_GOTO(FAIL, NCZ_E_ARGS, "dataset \"%s\": chunk rank %d does not match dataspace rank %d", name,
                     crank, za->rank);
        for (int k = 0; k < za->rank; k++) {
            if (cd[k] == 0)
                NCZ_GOTO(FAIL, NCZ_E_ARGS, "dataset \"%s\": chunk dimension %d is zero", name, k);
            if (a->maxdims[k] != H5S_UNLIMITED && cd[k] > a->maxdims[k])
                NCZ_GOTO(FAIL, NCZ_E_ARGS,
                         "dataset \"%s\": chunk dimension %d (%llu) exceeds the maximum dimension (%llu)",
                         name, k, (unsigned long long)cd[k], (unsigned long long)a->maxdims[k]);
            za->chunks[k] = cd[k];
        }
    } else if (a->scalar) {
        if (layout == H5D_COMPACT) /* one element: kept so that the dcpl says so again */
            a->storage = NCZTR_STORAGE_COMPACT;
    } else {
        a->storage = layout == H5D_COMPACT ? NCZTR_STORAGE_COMPACT : NCZTR_STORAGE_CONTIGUOUS;
        for (int k = 0; k < za->rank; k++)
            if (a->maxdims[k] != za->shape[k])
                NCZ_GOTO(FAIL, NCZ_E_ARGS,
                         "dataset \"%s\": an extendible dataset needs a chunked layout (as in HDF5)", name);
        auto_chunks(za->rank, za->shape, za->dtype.size, za->chunks);
    }
    za->order = 'C';
    za->dimsep = '.';
    a->type = jvals                                                   ? H5Tcopy(type)
              : tcls == H5T_VLEN                                      ? ncztr_array_elem_type(a)
              : vtext                                                 ? H5Tcopy(type)
              : a->vlen_string                                        ? ncztr_vlen_string_type(H5T_CSET_ASCII)
              : half || special || (H5Tget_class(type) == H5T_STRING) ? H5Tcopy(type)
                                                                      : ncztr_shared_type(f, &za->dtype);
    if (a->type < 0)
        NCZ_GOTO(FAIL, NCZ_E_HDF5, "dataset \"%s\": cannot copy its type", name);
    if ((stype = ncztr_array_elem_type(a)) < 0)
        NCZ_GOTO_QUIET(FAIL);
    if (tcls == H5T_VLEN || jvals) {
        /* unwritten elements are empty sequences, HDF5's default fill; another one has no
         * place in the "vlen-array" encoding (nor in JSON texts, where it would be "") */
        H5D_fill_value_t fv = H5D_FILL_VALUE_DEFAULT;
        if (H5Pfill_value_defined(dcpl, &fv) < 0 ||
            (fv == H5D_FILL_VALUE_USER_DEFINED && !ncztr_array_fill_is_zero(dcpl, type)))
            NCZ_GOTO(FAIL, NCZ_E_NOTREPR,
                     "dataset \"%s\": a fill value for variable-length sequences is not representable in "
                     "NCZarr (unwritten elements are empty sequences)",
                     name);
    } else if (vtext) {
        if (ncztr_array_text_fill_from_dcpl(dcpl, type, za, name) < 0)
            NCZ_GOTO_QUIET(FAIL);
    } else if (ncztr_array_fill_from_dcpl(dcpl, &za->dtype, a->vlen_string, stype, za, &a->fill_never, name) <
               0) {
        NCZ_GOTO_QUIET(FAIL);
    }
    if ((a->dcpl = dcpl == H5P_DATASET_CREATE_DEFAULT ? ncztr_shared_default_dcpl(f) : H5Pcopy(dcpl)) < 0)
        NCZ_GOTO(FAIL, NCZ_E_HDF5, "dataset \"%s\": cannot copy its type or creation plist", name);
    /* Filters become codecs; their expanded parameters (shuffle's element size, ...) go
     * back into the array's own dcpl, which H5Dget_create_plist returns. */
    hsize_t cdims[NCZTR_MAX_RANK];
    for (int k = 0; k < za->rank; k++)
        cdims[k] = za->chunks[k];
    if (za->dtype.tclass == NCZTR_T_VLEN) {
        /* the object codec (set above) first, then the filters, which see a stream of bytes */
        json_t *obj = json_incref(json_array_get(za->filters, 0));
        json_decref(za->filters);
        za->filters = NULL;
        herr_t r = ncztr_codecs_from_dcpl(a->dcpl, H5T_NATIVE_UCHAR, za->rank, cdims, name, &za->filters,
                                          &za->compressor);
        if (r == SUCCEED && !za->filters && !(za->filters = json_array()))
            r = NCZ_PUSH(NCZ_E_NOMEM, "out of memory");
        if (r == SUCCEED && json_array_insert(za->filters, 0, obj) < 0)
            r = NCZ_PUSH(NCZ_E_NOMEM, "out of memory");
        json_decref(obj);
        if (r < 0)
            NCZ_GOTO_QUIET(FAIL);
    } else if (ncztr_codecs_from_dcpl(a->dcpl, stype, za->rank, cdims, name, &za->filters, &za->compressor) <
               0) {
        NCZ_GOTO_QUIET(FAIL);
    }
    if (f->zarr_format == 3 && ncztr_array_to_v3(f, a, name) < 0)
        NCZ_GOTO_QUIET(FAIL);
    a->cache_bytes = default_cache_bytes(za);
    dapl_cache_bytes(dapl, &a->cache_bytes);
    *out = a;
    a = NULL;
done:
    if (stype >= 0)
        H5Tclose(stype);
    if (a)
        ncztr_array_free(a);
    return ret;
}

/* build_typed, where a dataset of object references is built as the text it is stored as
 * and then takes its own type (ncztr_refarray.c). */
static herr_t build_array(ncztr_file *f, const char *name, hid_t type, hid_t space, hid_t dcpl, hid_t dapl,
                          ncztr_array **out)
{
    bool oref = false;
    hid_t st = H5I_INVALID_HID, sd = H5I_INVALID_HID;
    if (ncztr_refarray_check_new(f, type, dcpl, name, &oref) < 0)
        return FAIL;
    if (!oref)
        return build_typed(f, name, type, space, dcpl, dapl, out);
    herr_t r = ncztr_refarray_storage(dcpl, name, &st, &sd);
    if (r >= 0)
        r = build_typed(f, name, st, space, sd, dapl, out);
    if (r >= 0 && ncztr_refarray_made(f, *out, type, dcpl, name) < 0) {
        ncztr_array_free(*out);
        *out = NULL;
        r = FAIL;
    }
    if (st >= 0)
        H5Tclose(st);
    if (sd >= 0)
        H5Pclose(sd);
    return r;
}

herr_t ncztr_array_create(ncztr_obj *parent, const char *name, hid_t type, hid_t space, hid_t dcpl,
                          hid_t dapl, ncztr_obj **out)
{
    herr_t ret = SUCCEED;
    ncztr_obj *o = NULL;
    ncztr_array *a = NULL;
    ncztr_file *f = parent->file;
    if (f->readonly)
        NCZ_GOTO(FAIL, NCZ_E_ARGS, "cannot create dataset \"%s\": the store is open read-only", name);
    if (ncztr_check_link_name(name, "dataset") < 0)
        NCZ_GOTO_QUIET(FAIL);
    if (ncztr_check_key_room(parent, name, ncztr_array_key_extra(H5Sget_simple_extent_ndims(space))) < 0)
        NCZ_GOTO_QUIET(FAIL);
    if (build_array(f, name, type, space, dcpl, dapl, &a) < 0)
        NCZ_GOTO_QUIET(FAIL);
    o = ncztr_obj_new(f, NCZTR_ARRAY, name);
    if (!o)
        NCZ_GOTO_QUIET(FAIL);
    o->arr = a;
    a = NULL;
    if (ncztr_obj_attach(parent, o) < 0)
        NCZ_GOTO_QUIET(FAIL);
    o->is_new = o->meta_dirty = o->attrs_dirty = true;
    parent->attrs_dirty = true;
    f->root->attrs_dirty = true; /* dimensions are derived on save */
    ncztr_obj_ref(o);
    *out = o;
    o = NULL;
done:
    if (a)
        ncztr_array_free(a);
    if (o && !o->parent)
        ncztr_obj_unref(o);
    return ret;
}

herr_t ncztr_array_create_anon(ncztr_file *f, hid_t type, hid_t space, hid_t dcpl, hid_t dapl,
                               ncztr_obj **out)
{
    ncztr_array *a = NULL;
    if (f->readonly)
        return NCZ_PUSH(NCZ_E_ARGS, "cannot create an anonymous dataset: the store is open read-only");
    if (build_array(f, "(anonymous)", type, space, dcpl, dapl, &a) < 0)
        return FAIL;
    ncztr_obj *o = ncztr_obj_new(f, NCZTR_ARRAY, "");
    if (!o) {
        ncztr_array_free(a);
        return FAIL;
    }
    o->arr = a;
    o->anonymous = true;
    if (ncztr_ids_take(o, NULL) < 0) {
        ncztr_obj_unref(o);
        return FAIL;
    }
    o->is_new = o->meta_dirty = o->attrs_dirty = true;
    *out = o; /* the caller's reference is the only one */
    return SUCCEED;
}

herr_t ncztr_array_check_stored(const ncztr_obj *o)
{
    /* (an anonymous dataset keeps its data under a key of its own: ncztr_obj_key) */
    return ncztr_array_check_usable(o);
}

/* Finds a dimension by its fully qualified name ("/sub/y"). */
ncztr_dim *ncztr_find_dim(ncztr_file *f, const char *fqn, ncztr_obj **owner)
{
    const char *sl = strrchr(fqn, '/');
    if (!sl)
        return NULL;
    char *gpath = strndup(fqn, (size_t)(sl - fqn));
    if (!gpath)
        return NULL;
    ncztr_obj *g = *gpath ? ncztr_find(f->root, gpath) : f->root;
    free(gpath);
    if (!g || g->kind != NCZTR_GROUP)
        return NULL;
    ncztr_dim *d = ncztr_group_dim(g, sl + 1);
    if (d && owner)
        *owner = g;
    return d;
}

/* Pure Zarr arrays name their dimensions in xarray's _ARRAY_DIMENSIONS: they become shared
 * dimensions of the root group, as netCDF-C infers them, so that saving the store keeps the
 * names. A name already defined with another size stays anonymous for this array. */
static herr_t dims_from_xarray(ncztr_obj *o, json_t *zattrs)
{
    ncztr_array *a = o->arr;
    json_t *ad = zattrs ? json_object_get(zattrs, "_ARRAY_DIMENSIONS") : NULL;
    if (!json_is_array(ad) || (int)json_array_size(ad) != a->za.rank)
        return SUCCEED;
    for (int k = 0; k < a->za.rank; k++) {
        json_t *n = json_array_get(ad, (size_t)k);
        if (!json_is_string(n) || ncztr_check_name(json_string_value(n), "dimension") < 0) {
            H5Eclear2(H5E_DEFAULT);
            return SUCCEED; /* not usable names: anonymous dimensions */
        }
    }
    if (!(a->dimrefs = ncztr_dimrefs_new(a)))
        return NCZ_PUSH(NCZ_E_NOMEM, "out of memory");
    ncztr_obj *root = o->file->root;
    for (int k = 0; k < a->za.rank; k++) {
        const char *name = json_string_value(json_array_get(ad, (size_t)k));
        ncztr_dim *d = ncztr_group_dim(root, name);
        if (!d && !(d = ncztr_group_add_dim(root, name, a->za.shape[k], false)))
            return NCZ_PUSH(NCZ_E_NOMEM, "out of memory");
        if (d->size != a->za.shape[k])
            continue;
        if (asprintf(&a->dimrefs[k], "/%s", name) < 0) {
            a->dimrefs[k] = NULL;
            return NCZ_PUSH(NCZ_E_NOMEM, "out of memory");
        }
    }
    return SUCCEED;
}

herr_t ncztr_array_setup_loaded(ncztr_obj *o, json_t *nca, json_t *zattrs, const char *key, const char *zkey)
{
    herr_t ret = SUCCEED;
    ncztr_array *a = o->arr;
    ncztr_zarray *za = &a->za;
    bool fixedstring = false;
    if (!a->maxdims && ncztr_array_maxdims_new(a) < 0)
        NCZ_GOTO_QUIET(FAIL);
    if (nca) {
        if (!json_is_object(nca))
            NCZ_GOTO(FAIL, NCZ_E_FORMAT, "%s: \"_nczarr_array\" must be a JSON object", key);
        json_t *sc = json_object_get(nca, "scalar");
        if (sc && ((json_is_integer(sc) && json_integer_value(sc)) || json_is_true(sc)))
            a->scalar = true;
        json_t *nl = json_object_get(nca, "hdf5_null");
        if (nl && ((json_is_integer(nl) && json_integer_value(nl)) || json_is_true(nl)))
            a->null_space = true;
        json_t *dt = json_object_get(nca, "hdf5_datatype");
        a->is_datatype =
            a->null_space && dt && ((json_is_integer(dt) && json_integer_value(dt)) || json_is_true(dt));
        const char *st = json_string_value(json_object_get(nca, "storage"));
        if (st && !strcmp(st, "contiguous"))
            a->storage = NCZTR_STORAGE_CONTIGUOUS;
        else if (st && !strcmp(st, "compact"))
            a->storage = NCZTR_STORAGE_COMPACT;
        json_t *fz = json_object_get(nca, "fill_zero");
        if (fz && json_is_integer(fz) && json_integer_value(fz) == 1 && !za->has_fill &&
            za->dtype.tclass == NCZTR_T_STRUCT) {
            /* a large record's zero fill value, not written out (ncztr_zarray_fill_elided) */
            free(za->fill);
            za->fill = calloc(1, za->dtype.size);
            NCZ_CHECK_ALLOC(za->fill, FAIL);
            za->has_fill = 1;
        }
        json_t *fs = json_object_get(nca, "fixedstring");
        fixedstring = fs && ((json_is_integer(fs) && json_integer_value(fs)) || json_is_true(fs));
        json_t *refs = json_object_get(nca, "dimension_references");
        if (!refs)
            refs = json_object_get(nca, "dimrefs");
        if (refs && !json_is_array(refs))
            NCZ_GOTO(FAIL, NCZ_E_FORMAT, "%s: \"dimension_references\" must be a list", key);
        if (refs && json_array_size(refs) > 0 && !a->scalar) {
            if ((int)json_array_size(refs) != za->rank)
                NCZ_GOTO(FAIL, NCZ_E_FORMAT, "%s: %zu dimension references for an array of rank %d", key,
                         json_array_size(refs), za->rank);
            a->dimrefs = ncztr_dimrefs_new(a);
            NCZ_CHECK_ALLOC(a->dimrefs, FAIL);
            for (int k = 0; k < za->rank; k++) {
                json_t *r = json_array_get(refs, (size_t)k);
                if (!json_is_string(r) || json_string_value(r)[0] != '/')
                    NCZ_GOTO(FAIL, NCZ_E_FORMAT, "%s: dimension reference %d is not an absolute name", key,
                             k);
                a->dimrefs[k] = strdup(json_string_value(r));
                NCZ_CHECK_ALLOC(a->dimrefs[k], FAIL);
            }
        }
    }
    if (!a->dimrefs && !a->scalar && za->rank > 0 && dims_from_xarray(o, zattrs) < 0)
        NCZ_GOTO_QUIET(FAIL);
    if (za->rank == 0) {
        /* Zarr v2 scalar (shape []) */
        a->scalar = true;
    } else if (a->scalar && (za->rank != 1 || za->shape[0] != 1)) {
        NCZ_GOTO(FAIL, NCZ_E_FORMAT, "%s: a scalar array must have shape [1]", key);
    }
    if (a->null_space && (a->scalar || za->rank != 1 || za->shape[0] != 0))
        NCZ_GOTO(FAIL, NCZ_E_FORMAT, "%s: an array with a null dataspace (\"hdf5_null\") must have shape [0]",
                 key);
    /* NCZarr's references that do not hold (a dimension that does not exist, or of another
     * size than the array's shape): netCDF-C opens such an array, deriving the dimension,
     * so the connector opens it too, with its own shape and without shared dimensions,
     * and says so (dimension scales made from wrong references would be wrong). */
    ncztr_dim *dims[NCZTR_MAX_RANK] = {NULL};
    for (int k = 0; k < za->rank && a->dimrefs; k++) {
        if (!a->dimrefs[k])
            continue; /* anonymous (dims_from_xarray: a name taken with another size) */
        ncztr_dim *d = dims[k] = ncztr_find_dim(o->file, a->dimrefs[k], NULL);
        char why[1024];
        if (!nca)
            continue;
        if (!d)
            snprintf(
                why, sizeof why,
                "%s: dimension reference %d (\"%s\") names no dimension of the store's groups: the array "
                "opens with its own shape, without shared dimensions",
                key, k, a->dimrefs[k]);
        else if (!d->unlimited && d->size != za->shape[k])
            snprintf(why, sizeof why,
                     "%s: dimension \"%s\" has size %llu, but the array's shape is %llu in dimension %d: the "
                     "array opens with its own shape, without shared dimensions",
                     key, a->dimrefs[k], (unsigned long long)d->size, (unsigned long long)za->shape[k], k);
        else
            continue;
        free(a->load_warning);
        a->load_warning = strdup(why);
        NCZ_CHECK_ALLOC(a->load_warning, FAIL);
        ncztr_dimrefs_free(a);
        memset(dims, 0, sizeof dims);
    }
    /* a fixed dimension's maximum is its size, unless the connector kept a larger one */
    json_t *md = nca ? json_object_get(nca, "hdf5_maxdims") : NULL;
    for (int k = 0; k < za->rank; k++) {
        json_t *m = json_array_size(md) == (size_t)za->rank ? json_array_get(md, (size_t)k) : NULL;
        a->maxdims[k] = dims[k] && dims[k]->unlimited ? H5S_UNLIMITED : za->shape[k];
        if (a->maxdims[k] != H5S_UNLIMITED && json_is_integer(m) && json_integer_value(m) >= 0 &&
            (uint64_t)json_integer_value(m) > za->shape[k])
            a->maxdims[k] = (hsize_t)json_integer_value(m);
    }
    /* |Sn is netCDF's NC_STRING in stores netCDF-C wrote: NCZarr ones (with _nczarr_array)
     * and pure Zarr ones (they carry _NCProperties). zarr-python's |Sn are fixed strings. */
    a->vlen_string = za->dtype.tclass == NCZTR_T_STRING && (nca != NULL || o->file->ncproperties != NULL) &&
                     !fixedstring && !za->utf32;
    if (a->vlen_string)
        a->maxstrlen = za->dtype.size;
    /* "hdf5_dtype": "<f2" / ">f2": an HDF5 16-bit float dataset kept as float32. */
    json_t *hd = nca ? json_object_get(nca, "hdf5_dtype") : NULL;
    bool half = json_is_string(hd) && za->dtype.tclass == NCZTR_T_FLOAT && za->dtype.size == 4 &&
                (strcmp(json_string_value(hd), "<f2") == 0 || strcmp(json_string_value(hd), ">f2") == 0);
    /* "hdf5_type": Base64 of the exact HDF5 type (enum, compound, array) */
    json_t *ht = nca ? json_object_get(nca, "hdf5_type") : NULL;
    if (ht) {
        if (!json_is_string(ht))
            NCZ_GOTO(FAIL, NCZ_E_FORMAT, "%s: \"_nczarr_array.hdf5_type\" must be a string", key);
        if ((a->type = ncztr_type_decode(json_string_value(ht), key)) < 0)
            NCZ_GOTO_QUIET(FAIL);
        if (H5Tget_class(a->type) == H5T_REFERENCE) { /* the objects' paths, as text */
            if (ncztr_refarray_loaded(o, key) < 0)
                NCZ_GOTO_QUIET(FAIL);
        } else {
            if (ncztr_array_check_kept_type(a, key) < 0)
                NCZ_GOTO_QUIET(FAIL);
            if (za->dtype.tclass == NCZTR_T_VLEN)
                za->vlen_kind = 'j';
            a->vlen_string = false;
        }
    } else if (za->dtype.tclass == NCZTR_T_STRUCT) {
        /* a structured array from another writer: its packed compound type */
        if ((a->type = ncztr_struct_to_hdf5(za->structured, key)) < 0)
            NCZ_GOTO_QUIET(FAIL);
    } else if (za->dtype.tclass == NCZTR_T_VLEN || za->utf32) {
        a->type = ncztr_array_elem_type(a);
    } else {
        a->type = a->vlen_string ? ncztr_vlen_string_type(H5T_CSET_ASCII)
                  : half         ? H5Tcopy(json_string_value(hd)[0] == '>' ? H5T_IEEE_F16BE : H5T_IEEE_F16LE)
                                 : ncztr_shared_type(o->file, &za->dtype);
    }
    if (a->type < 0)
        NCZ_GOTO(FAIL, NCZ_E_HDF5, "%s: cannot build the HDF5 type", key);
    /* HDF5 refuses chunks of 2^32 elements or more: such an array cannot be described
     * (checked now, as the creation plist is only built when asked for). */
    if (!a->scalar && a->storage == NCZTR_STORAGE_CHUNKED) { /* others: no chunk in the dcpl */
        uint64_t elems = 1;
        for (int k = 0; k < za->rank && elems <= 0xffffffffu; k++)
            elems = za->chunks[k] > 0xffffffffu ? za->chunks[k] : elems * za->chunks[k];
        if (elems > 0xffffffffu)
            NCZ_GOTO(FAIL, NCZ_E_UNSUPPORTED,
                     "%s: \"chunks\" gives chunks of more than 2^32-1 elements, which HDF5 cannot describe",
                     zkey);
    }
    if (!za->has_fill && za->dtype.tclass != NCZTR_T_VLEN)
        a->fill_never = true;
    a->cache_bytes = default_cache_bytes(za);
done:
    return ret;
}

/* The creation plist of a loaded array, built on first use: a store of 100000 arrays
 * would otherwise hold 100000 plists (about 10 KiB and tens of microseconds each) that
 * only H5Dget_create_plist ever reads. */
static hid_t loaded_dcpl(ncztr_array *a, const char *name)
{
    ncztr_zarray *za = &a->za;
    hid_t stype = H5I_INVALID_HID, dcpl = H5I_INVALID_HID;
    const char *why = "cannot create a dataset creation plist";
    if ((stype = ncztr_array_elem_type(a)) < 0) {
        why = "cannot build the HDF5 type of its chunk elements";
        goto fail;
    }
    if ((dcpl = H5Pcreate(H5P_DATASET_CREATE)) < 0)
        goto fail;
    if (a->storage == NCZTR_STORAGE_COMPACT) {
        why = "cannot set the compact layout";
        if (H5Pset_layout(dcpl, H5D_COMPACT) < 0)
            goto fail;
    } else if (!a->scalar && a->storage == NCZTR_STORAGE_CHUNKED) {
        /* at most 2^32-1 elements: checked when the array was loaded */
        hsize_t cd[NCZTR_MAX_RANK];
        for (int k = 0; k < za->rank; k++)
            cd[k] = za->chunks[k];
        ncztr_array_inner_chunks(za, cd);
        why = "cannot describe the chunk shape to HDF5";
        if (H5Pset_chunk(dcpl, za->rank, cd) < 0)
            goto fail;
    }
    why = "cannot set the fill value";
    if (za->dtype.tclass == NCZTR_T_VLEN) {
        /* unwritten elements read as empty sequences, HDF5's default fill, and text as "" or
         * the text of its fill value */
        if (za->vlen_fill && H5Pset_fill_value(dcpl, stype, &za->vlen_fill) < 0)
            goto fail;
    } else if (!za->has_fill) {
        H5Pset_fill_time(dcpl, H5D_FILL_TIME_NEVER);
    } else if (a->ref_obj) {
        /* the null reference: HDF5's default fill (a fill value in the text type would not
         * convert to the references the application reads it as) */
    } else if (a->vlen_string) {
        char *s = strndup((const char *)za->fill, za->dtype.size);
        hid_t vt = ncztr_vlen_string_type(H5T_CSET_ASCII);
        herr_t r = (s && vt >= 0) ? H5Pset_fill_value(dcpl, vt, &s) : FAIL;
        free(s);
        if (vt >= 0)
            H5Tclose(vt);
        if (r < 0)
            goto fail;
    } else if (za->dtype.tclass == NCZTR_T_STRING && za->dtype.size > 1 &&
               ncztr_bytes_zero(za->fill, za->dtype.size)) {
        /* A fixed-length string whose fill is all zero bytes: HDF5's default fill, as a
         * native file created without a fill value reports it (H5D_FILL_VALUE_DEFAULT); the
         * values read are the same. netCDF-C reads a user-defined fill value of such a
         * dataset into a buffer of a pointer's size (libhdf5/hdf5open.c get_fill_info), a
         * heap overflow; a default one it leaves alone. */
    } else if (H5Pset_fill_value(dcpl, stype, za->fill) < 0) {
        goto fail;
    }
    why = "cannot describe its codecs as HDF5 filters";
    if (ncztr_codecs_to_dcpl(za->filters, za->compressor, za->codecs,
                             za->dtype.tclass == NCZTR_T_VLEN ? 1 : za->dtype.size, dcpl) < 0)
        goto fail;
    H5Tclose(stype);
    a->dcpl = dcpl;
    return dcpl;
fail:
    if (stype >= 0)
        H5Tclose(stype);
    if (dcpl >= 0)
        H5Pclose(dcpl);
    NCZ_PUSH(NCZ_E_HDF5, "dataset \"%s\": %s", name, why);
    return H5I_INVALID_HID;
}

/* The array's own creation plist (not a copy), built when missing. */
hid_t ncztr_array_own_dcpl(const ncztr_obj *o)
{
    ncztr_array *a = o->arr;
    return a->dcpl >= 0 ? a->dcpl : loaded_dcpl(a, o->name);
}

hid_t ncztr_array_dcpl(const ncztr_obj *o)
{
    hid_t d = ncztr_array_own_dcpl(o);
    return d >= 0 ? H5Pcopy(d) : H5I_INVALID_HID;
}

size_t ncztr_array_cache_bytes(const ncztr_obj *o)
{
    return o->arr ? o->arr->cache_bytes : 0;
}

void ncztr_array_set_cache_from_dapl(ncztr_obj *o, hid_t dapl)
{
    if (o->arr)
        dapl_cache_bytes(dapl, &o->arr->cache_bytes);
}

herr_t ncztr_obj_load(const ncztr_obj *o)
{
    if (o->kind == NCZTR_GROUP)
        return ncztr_group_ready(o);
    if (o->kind != NCZTR_ARRAY || !o->arr || !o->arr->stub)
        return SUCCEED;
    /* Only the loader makes stubs, and it sets the hook when it does. Reading what was put
     * off changes nothing the caller can see but the cost of this call: a const node may be
     * completed. */
    return o->file->hooks.load_stub((ncztr_obj *)o);
}

herr_t ncztr_tree_load_readable(ncztr_obj *o)
{
    if (o->kind != NCZTR_GROUP)
        return ncztr_obj_load(o);
    size_t mark = ncz_err_mark();
    if (ncztr_group_ready(o) < 0) {
        free(ncz_err_take_messages(mark)); /* kept by the group for its own uses */
        return SUCCEED;
    }
    for (size_t i = 0; i < o->nchildren; i++)
        if (ncztr_tree_load_readable(o->children[i]) < 0)
            return FAIL;
    return SUCCEED;
}

herr_t ncztr_tree_load(ncztr_obj *o)
{
    if (o->kind != NCZTR_GROUP)
        return ncztr_obj_load(o);
    if (ncztr_group_ready(o) < 0)
        return FAIL;
    for (size_t i = 0; i < o->nchildren; i++)
        if (ncztr_tree_load(o->children[i]) < 0)
            return FAIL;
    return SUCCEED;
}
