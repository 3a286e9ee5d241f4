/* Datasets of old-style object references (H5T_STD_REF_OBJ, what h5py writes by default and
 * PyTables reads): a reference is kept as the path of its object, so such an array is
 * stored as text, as the store's variable-length string arrays are ("|S<maxstrlen>" in
 * NCZarr v2, which netCDF-C reads as strings; "string" text in Zarr v3), with the exact type
 * in "_nczarr_array.hdf5_type" so that HDF5 sees H5T_STD_REF_OBJ again. The null reference
 * (all zero, the fill value) is the empty string. The translation of values is the data
 * layer's (translate/data/ncztr_refdata.c); this is what the model decides at creation and
 * load. */
#include "ncztr_array_internal.h"

#include <string.h>

bool ncztr_array_is_ref(const ncztr_obj *o)
{
    return o && o->kind == NCZTR_ARRAY && o->arr && o->arr->ref_obj;
}

herr_t ncztr_refarray_check_new(const ncztr_file *f, hid_t type, hid_t dcpl, const char *name, bool *oref)
{
    *oref = false;
    /* a region reference names a selection HDF5 keeps in its global heap: no path says it */
    if (ncztr_type_has_region_ref(type))
        return NCZ_PUSH(NCZ_E_NOTREPR,
                        "dataset \"%s\": region references (H5T_STD_REF_DSETREG) cannot be stored in a Zarr "
                        "store",
                        name);
    if (!ncztr_type_has_obj_ref(type))
        return SUCCEED;
    if (ncztr_ref_kind(type) != NCZTR_REF_OBJ)
        return NCZ_PUSH(NCZ_E_NOTREPR,
                        "dataset \"%s\": object references inside compound, array or variable-length types "
                        "cannot be stored in a dataset of a Zarr store (a dataset of H5T_STD_REF_OBJ itself "
                        "can, and an attribute of any of these)",
                        name);
    if (f->opts.pure_zarr)
        return NCZ_PUSH(NCZ_E_NOTREPR,
                        "dataset \"%s\" holds object references, which pure Zarr (mode=zarr) has no place to "
                        "keep the type of",
                        name);
    if (ncztr_orefs_check_new("dataset", name) < 0)
        return FAIL;
    /* stored as text, unwritten elements read as "": the null reference, all zero */
    H5D_fill_value_t fv = H5D_FILL_VALUE_DEFAULT;
    if (H5Pfill_value_defined(dcpl, &fv) < 0)
        return NCZ_PUSH(NCZ_E_HDF5, "dataset \"%s\": cannot read fill settings from the creation plist",
                        name);
    if (fv == H5D_FILL_VALUE_USER_DEFINED && !ncztr_array_fill_is_zero(dcpl, type))
        return NCZ_PUSH(NCZ_E_NOTREPR,
                        "dataset \"%s\": a fill value other than the null reference is not representable for "
                        "object references in a Zarr store",
                        name);
    *oref = true;
    return SUCCEED;
}

herr_t ncztr_refarray_storage(hid_t dcpl, const char *name, hid_t *stype, hid_t *sdcpl)
{
    static const char *const empty = "";
    H5D_fill_value_t fv = H5D_FILL_VALUE_DEFAULT;
    *stype = ncztr_vlen_string_type(H5T_CSET_ASCII);
    *sdcpl = H5Pcopy(dcpl);
    /* the null reference as a fill value is the empty path (ncztr_refarray_check_new) */
    if (*stype < 0 || *sdcpl < 0 || H5Pfill_value_defined(dcpl, &fv) < 0 ||
        (fv == H5D_FILL_VALUE_USER_DEFINED && H5Pset_fill_value(*sdcpl, *stype, &empty) < 0)) {
        if (*stype >= 0)
            H5Tclose(*stype);
        if (*sdcpl >= 0)
            H5Pclose(*sdcpl);
        *stype = *sdcpl = H5I_INVALID_HID;
        return NCZ_PUSH(NCZ_E_HDF5, "dataset \"%s\": cannot set up the text its references are stored as",
                        name);
    }
    return SUCCEED;
}

herr_t ncztr_refarray_made(ncztr_file *f, ncztr_array *a, hid_t type, hid_t dcpl, const char *name)
{
    static const hobj_ref_t null_ref;
    H5D_fill_value_t fv = H5D_FILL_VALUE_DEFAULT;
    hid_t t = H5Tcopy(type);
    if (t < 0)
        return NCZ_PUSH(NCZ_E_HDF5, "dataset \"%s\": cannot copy its type", name);
    H5Tclose(a->type);
    a->type = t;
    a->ref_obj = true;
    /* the creation plist reports the fill value the application gave, in its type */
    if (H5Pfill_value_defined(dcpl, &fv) < 0 ||
        (fv == H5D_FILL_VALUE_USER_DEFINED && H5Pset_fill_value(a->dcpl, type, &null_ref) < 0))
        return NCZ_PUSH(NCZ_E_HDF5, "dataset \"%s\": cannot keep its fill value", name);
    f->has_ref_arrays = true;
    return SUCCEED;
}

herr_t ncztr_refarray_loaded(ncztr_obj *o, const char *key)
{
    ncztr_array *a = o->arr;
    const ncztr_zarray *za = &a->za;
    bool v2text = za->dtype.tclass == NCZTR_T_STRING && !za->utf32;
    bool v3text = za->dtype.tclass == NCZTR_T_VLEN && za->vlen_kind == 'u';
    if (ncztr_ref_kind(a->type) != NCZTR_REF_OBJ || (!v2text && !v3text))
        return NCZ_PUSH(
            NCZ_E_FORMAT,
            "%s: the kept HDF5 type holds object references, which are stored as text (dtype \"|S<n>\" "
            "or variable-length strings), not as dtype %s",
            key, za->dtype.zarr);
    /* H5Tdecode's type is not the application's memory type: the one it compares with */
    hid_t t = H5Tcopy(H5T_STD_REF_OBJ);
    if (t < 0)
        return NCZ_PUSH(NCZ_E_HDF5, "%s: cannot make the reference type", key);
    H5Tclose(a->type);
    a->type = t;
    a->ref_obj = true;
    a->vlen_string = v2text;
    if (v2text)
        a->maxstrlen = za->dtype.size;
    o->file->has_ref_arrays = true;
    return SUCCEED;
}
