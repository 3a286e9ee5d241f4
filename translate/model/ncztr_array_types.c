/* The HDF5 types, dataspaces and fill values of arrays: the type of a stored element,
 * strings, and the fill value a new array takes from its creation plist. */
#include "ncztr_array_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A variable-length string type: ASCII, HDF5's default for C strings, what HDF5 programs
 * create and h5dump shows, for NCZarr's strings; UTF-8 for Zarr's text (vlen-utf8). */
hid_t ncztr_vlen_string_type(H5T_cset_t cset)
{
    hid_t t = H5Tcopy(H5T_C_S1);
    if (t >= 0 && (H5Tset_size(t, H5T_VARIABLE) < 0 || H5Tset_cset(t, cset) < 0)) {
        H5Tclose(t);
        t = H5I_INVALID_HID;
    }
    return t;
}

bool ncztr_array_json_elems(hid_t type)
{
    H5T_class_t c = H5Tget_class(type);
    if ((c != H5T_VLEN && c != H5T_COMPOUND && c != H5T_ARRAY) || !ncztr_type_has_parts(type) ||
        ncztr_type_has_ref(type))
        return false;
    if (c != H5T_VLEN)
        return true;
    /* sequences of plain numbers are numcodecs' "vlen-array" */
    hid_t b = H5Tget_super(type);
    H5T_class_t bc = b >= 0 ? H5Tget_class(b) : H5T_NO_CLASS;
    bool numbers = (bc == H5T_INTEGER || bc == H5T_FLOAT) && !ncztr_type_is_raw(b) && !ncztr_is_half_float(b);
    if (b >= 0)
        H5Tclose(b);
    return !numbers;
}

hid_t ncztr_array_elem_type(const ncztr_array *a)
{
    if (a->za.dtype.tclass == NCZTR_T_VLEN && a->za.vlen_kind == 'j')
        return H5Tcopy(a->type);
    if (a->za.dtype.tclass == NCZTR_T_VLEN && a->za.vlen_kind == 'u')
        return ncztr_vlen_string_type(H5T_CSET_UTF8);
    if (a->za.utf32) { /* 4n bytes of NUL-padded UTF-8 above the chain (ncztr_c_utf32.c) */
        hid_t t = H5Tcopy(H5T_C_S1);
        if (t >= 0 && (H5Tset_size(t, a->za.dtype.size) < 0 || H5Tset_cset(t, H5T_CSET_UTF8) < 0 ||
                       H5Tset_strpad(t, H5T_STR_NULLPAD) < 0)) {
            H5Tclose(t);
            t = H5I_INVALID_HID;
        }
        return t;
    }
    if (a->za.dtype.tclass == NCZTR_T_VLEN) {
        hid_t base = ncztr_dtype_to_hdf5(&a->za.vlen_base);
        hid_t t = base >= 0 ? H5Tvlen_create(base) : H5I_INVALID_HID;
        if (base >= 0)
            H5Tclose(base);
        return t;
    }
    /* enum, compound, array: the packed form of the HDF5 type (its layout is the chunk's) */
    if (a->type >= 0 && ncztr_ctype_is_special(a->type))
        return ncztr_ctype_storage(a->type, "dataset");
    /* Zarr "S" values are raw bytes: a fixed string dataset keeps the application's
     * padding and character set, so that its own type reads back what it wrote, byte for
     * byte (as a native HDF5 dataset does). */
    if (!a->vlen_string && (a->za.dtype.tclass == NCZTR_T_STRING || a->za.dtype.tclass == NCZTR_T_CHAR) &&
        a->type >= 0 && H5Tget_class(a->type) == H5T_STRING && H5Tis_variable_str(a->type) == 0 &&
        H5Tget_size(a->type) == a->za.dtype.size)
        return H5Tcopy(a->type);
    return ncztr_dtype_to_hdf5(&a->za.dtype);
}

hid_t ncztr_array_storage_type(const ncztr_obj *o)
{
    hid_t t = ncztr_array_elem_type(o->arr);
    if (t < 0)
        NCZ_PUSH(NCZ_E_INTERNAL, "dataset \"%s\": no HDF5 type for dtype %s", o->name, o->arr->za.dtype.zarr);
    return t;
}

herr_t ncztr_array_fill_from_dcpl(hid_t dcpl, const ncztr_dtype *dt, bool vlen, hid_t stype, ncztr_zarray *za,
                                  bool *never, const char *name)
{
    herr_t ret = SUCCEED;
    H5D_fill_time_t ft = H5D_FILL_TIME_IFSET;
    H5D_fill_value_t st = H5D_FILL_VALUE_DEFAULT;
    if (H5Pget_fill_time(dcpl, &ft) < 0 || H5Pfill_value_defined(dcpl, &st) < 0)
        NCZ_GOTO(FAIL, NCZ_E_HDF5, "dataset \"%s\": cannot read fill settings from the creation plist", name);
    za->fill = calloc(1, dt->size);
    NCZ_CHECK_ALLOC(za->fill, FAIL);
    *never = ft == H5D_FILL_TIME_NEVER;
    if (*never) {
        za->has_fill = 0;
        NCZ_GOTO_QUIET(SUCCEED);
    }
    za->has_fill = 1;
    if (st != H5D_FILL_VALUE_USER_DEFINED)
        NCZ_GOTO_QUIET(SUCCEED); /* HDF5's default fill is zero */
    if (vlen) {
        char *s = NULL;
        hid_t vt = ncztr_vlen_string_type(H5T_CSET_ASCII);
        if (vt < 0 || H5Pget_fill_value(dcpl, vt, &s) < 0) {
            if (vt >= 0)
                H5Tclose(vt);
            NCZ_GOTO(FAIL, NCZ_E_HDF5, "dataset \"%s\": cannot read the string fill value", name);
        }
        H5Tclose(vt);
        if (s) {
            size_t l = strlen(s);
            if (l > dt->size) {
                free(s);
                NCZ_GOTO(FAIL, NCZ_E_ARGS, "dataset \"%s\": fill value string is longer than %zu bytes", name,
                         dt->size);
            }
            memcpy(za->fill, s, l);
            free(s);
        }
    } else if (H5Pget_fill_value(dcpl, stype, za->fill) < 0) {
        NCZ_GOTO(FAIL, NCZ_E_HDF5, "dataset \"%s\": cannot convert the fill value to the dataset type", name);
    }
done:
    return ret;
}

bool ncztr_array_fill_is_zero(hid_t dcpl, hid_t type)
{
    size_t n = H5Tget_size(type);
    unsigned char *b = n ? calloc(1, n) : NULL;
    bool zero = b && H5Pget_fill_value(dcpl, type, b) >= 0 && ncztr_bytes_zero(b, n);
    if (b) {
        hid_t es = ncz_err_save(), sp = H5Screate(H5S_SCALAR);
        if (sp >= 0) { /* a fill with parts: what H5Pget_fill_value made */
            H5Treclaim(type, sp, H5P_DEFAULT, b);
            H5Sclose(sp);
        }
        ncz_err_restore(es);
    }
    free(b);
    return zero;
}

/* The fill value of a variable-length text array: a non-empty string given in dcpl. */
herr_t ncztr_array_text_fill_from_dcpl(hid_t dcpl, hid_t type, ncztr_zarray *za, const char *name)
{
    H5D_fill_value_t st = H5D_FILL_VALUE_DEFAULT;
    if (H5Pfill_value_defined(dcpl, &st) < 0)
        return NCZ_PUSH(NCZ_E_HDF5, "dataset \"%s\": cannot read fill settings from the creation plist",
                        name);
    if (st != H5D_FILL_VALUE_USER_DEFINED)
        return SUCCEED;
    char *s = NULL;
    hid_t vt = H5Tcopy(type); /* the application's character set: HDF5 converts none */
    herr_t r = vt >= 0 ? H5Pget_fill_value(dcpl, vt, &s) : FAIL;
    if (vt >= 0)
        H5Tclose(vt);
    if (r < 0)
        return NCZ_PUSH(NCZ_E_HDF5, "dataset \"%s\": cannot read the string fill value", name);
    if (s && *s && !(za->vlen_fill = strdup(s)))
        r = NCZ_PUSH(NCZ_E_NOMEM, "out of memory");
    free(s);
    return r;
}

/* A variable-length sequence type of numbers as an object dtype with the "vlen-array"
 * filter. Sequences of anything else (strings, compounds, sequences) have no Zarr form. */
herr_t ncztr_vlen_from_hdf5(hid_t type, const char *name, ncztr_zarray *za)
{
    herr_t ret = SUCCEED;
    hid_t base = H5Tget_super(type);
    H5T_class_t bc = base >= 0 ? H5Tget_class(base) : H5T_NO_CLASS;
    json_t *f = NULL, *fl = NULL;
    if (bc != H5T_INTEGER && bc != H5T_FLOAT)
        NCZ_GOTO(FAIL, NCZ_E_NOTREPR,
                 "dataset \"%s\": variable-length sequences of anything but numbers are not representable "
                 "in NCZarr",
                 name);
    if (ncztr_is_half_float(base) || ncztr_dtype_from_hdf5(base, 0, name, &za->vlen_base) < 0)
        NCZ_GOTO(FAIL, NCZ_E_NOTREPR,
                 "dataset \"%s\": the numbers of its variable-length sequences have no Zarr dtype", name);
    if (!(f = json_object()) || !(fl = json_array()) ||
        json_object_set_new(f, "id", json_string("vlen-array")) ||
        json_object_set_new(f, "dtype", json_string(za->vlen_base.zarr)) || json_array_append(fl, f))
        NCZ_GOTO(FAIL, NCZ_E_NOMEM, "out of memory");
    za->filters = fl;
    fl = NULL;
    za->vlen_kind = 'a';
    za->dtype.tclass = NCZTR_T_VLEN;
    za->dtype.size = sizeof(hvl_t);
    snprintf(za->dtype.zarr, sizeof za->dtype.zarr, "|O");
done:
    json_decref(f);
    json_decref(fl);
    if (base >= 0)
        H5Tclose(base);
    return ret;
}

/* A kept exact type must describe the stored bytes: an enum over the dtype's integers, a
 * compound/array whose structured dtype is the one in .zarray. */
herr_t ncztr_array_check_kept_type(const ncztr_array *a, const char *key)
{
    herr_t ret = SUCCEED;
    json_t *sj = NULL;
    hid_t base = H5I_INVALID_HID;
    const ncztr_zarray *za = &a->za;
    if (za->dtype.tclass == NCZTR_T_VLEN) {
        /* JSON texts: any type whose values have variable-length parts */
        if (za->vlen_kind != 'u' || !ncztr_array_json_elems(a->type) || ncztr_cvalue_check(a->type, key) < 0)
            NCZ_GOTO(FAIL, NCZ_E_FORMAT,
                     "%s: the kept HDF5 type of an object array must have variable-length parts, its "
                     "values stored as \"vlen-utf8\" JSON texts",
                     key);
        NCZ_GOTO_QUIET(SUCCEED);
    }
    if (ncztr_type_is_raw(a->type)) /* one "|V<n>" field */
        goto structured;
    switch (H5Tget_class(a->type)) {
    case H5T_ENUM:
    case H5T_BITFIELD:
    case H5T_OPAQUE: {
        ncztr_dtype dt;
        base = H5Tget_class(a->type) == H5T_ENUM ? H5Tget_super(a->type) : ncztr_bits_base(a->type);
        if (base < 0 || ncztr_dtype_from_hdf5(base, 0, key, &dt) < 0 || za->dtype.tclass == NCZTR_T_STRUCT ||
            strcmp(dt.zarr, za->dtype.zarr) != 0)
            NCZ_GOTO(FAIL, NCZ_E_FORMAT, "%s: the kept HDF5 enum type does not match dtype %s", key,
                     za->dtype.zarr);
        break;
    }
    case H5T_COMPOUND:
    case H5T_ARRAY:
    structured:
        if (za->dtype.tclass != NCZTR_T_STRUCT || !(sj = ncztr_struct_from_hdf5(a->type, key)) ||
            !json_equal(sj, za->structured))
            NCZ_GOTO(FAIL, NCZ_E_FORMAT, "%s: the kept HDF5 %s type does not match the structured dtype", key,
                     H5Tget_class(a->type) == H5T_ARRAY ? "array" : "compound");
        break;
    default:
        NCZ_GOTO(FAIL, NCZ_E_FORMAT,
                 "%s: the kept HDF5 type is not an enum, bitfield, opaque, compound or array type", key);
    }
done:
    json_decref(sj);
    if (base >= 0) {
        hid_t es = ncz_err_save();
        H5Tclose(base);
        ncz_err_restore(es);
    }
    return ret;
}

hid_t ncztr_array_space(const ncztr_obj *o)
{
    const ncztr_array *a = o->arr;
    if (a->scalar)
        return H5Screate(H5S_SCALAR);
    if (a->null_space)
        return H5Screate(H5S_NULL);
    hsize_t d[NCZTR_MAX_RANK], m[NCZTR_MAX_RANK];
    for (int k = 0; k < a->za.rank; k++) {
        d[k] = a->za.shape[k];
        m[k] = a->maxdims[k];
    }
    return H5Screate_simple(a->za.rank, d, m);
}

hid_t ncztr_array_type(const ncztr_obj *o)
{
    return H5Tcopy(o->arr->type);
}
