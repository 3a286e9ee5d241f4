/* An object's attributes in its .zattrs (NCZarr's JSON attribute convention, with the
 * exact HDF5 types, shapes and name character sets NCZarr has no place for). */
#include "ncztr_save_internal.h"

#include <stdlib.h>
#include <string.h>

/* Strings whose type the value does not say: a list of fixed-length strings reads back as
 * variable-length strings (NCZarr's "|Sn" lists), one as a NUL-terminated ASCII string of
 * its text's length (">S1" text), variable-length strings as UTF-8; when that is not the
 * type (its size, padding or character set), it is kept too. */
static bool string_type_kept(const ncztr_attr *a)
{
    hid_t t = a->val.type;
    if (H5Tget_class(t) != H5T_STRING)
        return false;
    if (H5Tis_variable_str(t) != 0)
        return H5Tget_cset(t) != H5T_CSET_UTF8;
    if (a->val.nelem == 0)
        return true; /* [] reads back as variable-length strings: netCDF's empty char text */
    if (!a->val.data)
        return false;
    size_t size = H5Tget_size(t);
    if (a->val.nelem > 1)
        return size > 1;
    if (a->val.nelem != 1)
        return false;
    size_t n = strnlen(a->val.data, size);
    return size != (n ? n : 1) || H5Tget_strpad(t) != H5T_STR_NULLTERM || H5Tget_cset(t) != H5T_CSET_ASCII;
}

/* What NCZarr has no place for in an attribute: the shape of a rank > 1 attribute (its
 * value is stored flattened), of a 1-D one without elements (the value [] alone means
 * H5S_NULL) and of a single value where it is not the one a reader gives it from the value
 * alone (ncztr_attr_default_scalar: [] for a scalar, [1] for 1-D), into
 * "_nczarr_attr.hdf5.ashapes"; the character encoding of its name into
 * "_nczarr_attr.hdf5.acsets". An unreadable attribute keeps the shape it was found with.
 * json_list: its value is stored as a JSON list. */
static herr_t attr_extras(const ncztr_attr *a, bool json_list, json_t *ashapes, json_t *acsets)
{
    json_t *raw_shape = a->load_error ? json_object_get(a->raw, "ashape") : NULL;
    if (raw_shape && json_object_set(ashapes, a->name, raw_shape) < 0)
        return NCZ_PUSH(NCZ_E_NOMEM, "out of memory");
    int rank = a->load_error ? 0 : H5Sget_simple_extent_ndims(a->val.space);
    if (!a->load_error && a->val.nelem == 1 && rank <= 1) {
        bool scalar = rank == 0;
        if (scalar != ncztr_attr_default_scalar(a->val.type, json_list)) {
            json_t *l = scalar ? json_array() : json_pack("[i]", 1);
            if (!l || json_object_set_new(ashapes, a->name, l) < 0)
                return NCZ_PUSH(NCZ_E_NOMEM, "out of memory");
        }
    } else if (rank > 1 || (rank == 1 && a->val.nelem == 0)) {
        hsize_t dims[H5S_MAX_RANK];
        bool ok = true;
        json_t *l = json_array();
        if (!l || H5Sget_simple_extent_dims(a->val.space, dims, NULL) < 0) {
            json_decref(l);
            return NCZ_PUSH(NCZ_E_HDF5, "attribute \"%s\": cannot read its dataspace", a->name);
        }
        for (int k = 0; k < rank; k++)
            jadd(&ok, l, json_integer((json_int_t)dims[k]));
        if (!ok) {
            json_decref(l);
            return NCZ_PUSH(NCZ_E_NOMEM, "out of memory");
        }
        if (json_object_set_new(ashapes, a->name, l) < 0)
            return NCZ_PUSH(NCZ_E_NOMEM, "out of memory");
    }
    if (a->name_cset != H5T_CSET_ASCII &&
        json_object_set_new(acsets, a->name, json_integer(a->name_cset)) < 0)
        return NCZ_PUSH(NCZ_E_NOMEM, "out of memory");
    return SUCCEED;
}

/* An attribute that could not be read goes back as the store had it: value, types entry
 * and kept HDF5 type (see ncztr_attr.raw). types is NULL for pure Zarr. */
static herr_t unreadable_attr(const ncztr_attr *a, json_t *j, json_t *types, json_t **atypes)
{
    json_t *type = json_object_get(a->raw, "type"), *atype = json_object_get(a->raw, "atype");
    if (json_object_set(j, a->name, json_object_get(a->raw, "value")) < 0 ||
        (types && type && json_object_set(types, a->name, type) < 0))
        return NCZ_PUSH(NCZ_E_NOMEM, "out of memory");
    if (types && atype &&
        ((!*atypes && !(*atypes = json_object())) || json_object_set(*atypes, a->name, atype) < 0))
        return NCZ_PUSH(NCZ_E_NOMEM, "out of memory");
    return SUCCEED;
}

/* References are written as the paths their objects have now (renames before the save
 * are followed); one to an object no longer in the store as null. */
static herr_t ref_path(void *ctx, uint64_t id, char **path)
{
    ncztr_obj *t = ncztr_find_by_id(ctx, id);
    *path = NULL;
    if (t && !(*path = ncztr_obj_path(t)))
        return FAIL;
    return SUCCEED;
}

/* A floating-point array's "_FillValue" in a Zarr v3 store, as xarray writes and reads it
 * there: the Base64 of the value as a little-endian float64 (see xarray_fill in
 * ncztr_loadattrs.c). *v is replaced; left alone for other attributes. */
static herr_t xarray_fill_json(const ncztr_obj *o, const ncztr_attr *a, json_t **v,
                               char dtype[NCZTR_DTYPE_MAX])
{
    const ncztr_zarray *za = o->kind == NCZTR_ARRAY && o->arr ? &o->arr->za : NULL;
    H5T_class_t c = H5Tget_class(a->val.type);
    if (o->file->zarr_format != 3 || !za || strcmp(a->name, "_FillValue") != 0 || a->val.nelem != 1 ||
        (c != H5T_INTEGER && c != H5T_FLOAT) || za->complex || za->dtype.tclass != NCZTR_T_FLOAT)
        return SUCCEED;
    unsigned char buf[32];
    size_t asz = H5Tget_size(a->val.type);
    if (asz > sizeof buf)
        return SUCCEED;
    memcpy(buf, a->val.data, asz);
    if (H5Tconvert(a->val.type, H5T_IEEE_F64LE, 1, buf, NULL, H5P_DEFAULT) < 0)
        return NCZ_PUSH(NCZ_E_HDF5, "attribute \"_FillValue\" of \"%s\": cannot convert it to float64",
                        o->name);
    char *b64 = ncztr_b64_encode(buf, 8);
    json_t *nv = b64 ? json_string(b64) : NULL;
    free(b64);
    if (!nv)
        return NCZ_PUSH(NCZ_E_NOMEM, "out of memory");
    json_decref(*v);
    *v = nv;
    snprintf(dtype, NCZTR_DTYPE_MAX, "%s", za->dtype.zarr);
    return SUCCEED;
}

/* The "_FillValue" attribute of a text array of a Zarr v3 store is left out: xarray fails
 * to open a group holding one (its FillValueCoder decodes numbers only), and the array's own
 * "fill_value" holds the same value (netCDF and HDF5 programs read it from there). */
static bool text_fill_attr(const ncztr_obj *o, const ncztr_attr *a)
{
    const ncztr_zarray *za = o->kind == NCZTR_ARRAY && o->arr ? &o->arr->za : NULL;
    return o->file->zarr_format == 3 && za && strcmp(a->name, "_FillValue") == 0 &&
           (za->dtype.tclass == NCZTR_T_STRING || za->dtype.tclass == NCZTR_T_CHAR ||
            (za->dtype.tclass == NCZTR_T_VLEN && za->vlen_kind != 'a'));
}

herr_t ncztr_save_user_attrs(const ncztr_obj *o, json_t *j, json_t *types, json_t **atypes, json_t *ashapes,
                             json_t *acsets)
{
    herr_t ret = SUCCEED;
    ncztr_file *f = o->file;
    bool nc = !f->opts.pure_zarr, ok = true;
    json_t *v = NULL;
    for (size_t i = 0; i < o->nattrs; i++) {
        char dtype[NCZTR_DTYPE_MAX];
        if (ncztr_attr_is_plumbing(o, o->attrs[i]))
            continue; /* written as dimensions */
        if (text_fill_attr(o, o->attrs[i]))
            continue;
        if (o->attrs[i]->load_error) {
            if (unreadable_attr(o->attrs[i], j, nc ? types : NULL, atypes) < 0 ||
                (nc && attr_extras(o->attrs[i], false, ashapes, acsets) < 0))
                NCZ_GOTO_QUIET(FAIL);
            continue;
        }
        bool refs = ncztr_type_has_path_ref(o->attrs[i]->val.type);
        if (refs ? ncztr_refattr_to_json(o->attrs[i]->name, &o->attrs[i]->val, ref_path, f, &v, dtype) < 0
                 : (ncztr_attr_to_json(o->attrs[i]->name, &o->attrs[i]->val, &v, dtype) < 0 ||
                    xarray_fill_json(o, o->attrs[i], &v, dtype) < 0))
            NCZ_GOTO_QUIET(FAIL);
        if (nc && (refs || ncztr_cattr_is_special(o->attrs[i]->val.type) || string_type_kept(o->attrs[i]))) {
            /* the exact type of an enum, compound, array, sequence, raw number, reference or
             * string attribute whose value does not say it: "_nczarr_attr.hdf5.atypes" */
            char *b64 = ncztr_type_encode(o->attrs[i]->val.type, o->attrs[i]->name);
            if (!b64 || (!*atypes && !(*atypes = json_object()))) {
                free(b64);
                NCZ_GOTO(FAIL, NCZ_E_NOMEM, "out of memory");
            }
            jset(&ok, *atypes, o->attrs[i]->name, json_string(b64));
            free(b64);
        }
        bool json_list = json_is_array(v);
        jset(&ok, j, o->attrs[i]->name, v);
        jset(&ok, types, o->attrs[i]->name, json_string(dtype));
        v = NULL;
        if (nc && attr_extras(o->attrs[i], json_list, ashapes, acsets) < 0)
            NCZ_GOTO_QUIET(FAIL);
    }
    if (!ok)
        NCZ_GOTO(FAIL, NCZ_E_NOMEM, "out of memory");
done:
    json_decref(v);
    return ret;
}

bool ncztr_save_attrs_none(const ncztr_obj *o)
{
    for (size_t i = 0; i < o->nattrs; i++)
        if (!ncztr_attr_is_plumbing(o, o->attrs[i]) && !text_fill_attr(o, o->attrs[i]))
            return false;
    return true;
}
