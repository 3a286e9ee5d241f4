/* Attribute values of compound, array and other structured types as JSON: one JSON value
 * per element (ncztr_cvalue.c), a list of them, or the element itself for a scalar. */
#include "ncztr_ctype_internal.h"
#include "ncztr_refval.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The most bytes of an attribute's value of such a type in memory: an attribute is one JSON
 * value of .zattrs, read whole, unlike a dataset's chunks. */
#define MAX_ATTR_BYTES ((size_t)64 << 20)

/* Numbers by NCZarr's rules (enums, bitfields, opaque, 16-bit floats): a single one is bare. */
static bool numeric_like(hid_t type)
{
    H5T_class_t c = H5Tget_class(type);
    return (c == H5T_ENUM || c == H5T_BITFIELD || c == H5T_OPAQUE || ncztr_is_half_float(type)) &&
           !ncztr_type_is_raw(type);
}

bool ncztr_attr_default_scalar(hid_t type, bool json_list)
{
    H5T_class_t c = H5Tget_class(type);
    if (c == H5T_STRING)
        return H5Tis_variable_str(type) == 0;
    if (ncztr_type_has_path_ref(type) || (ncztr_cattr_is_special(type) && !numeric_like(type)))
        return !json_list;
    return false;
}

herr_t ncztr_cattr_to_json(const char *name, const ncztr_attrval *val, json_t **value,
                           char dtype[NCZTR_DTYPE_MAX])
{
    herr_t ret = SUCCEED;
    json_t *out = NULL;
    char what[300];
    snprintf(what, sizeof what, "attribute \"%s\"", name ? name : "");
    size_t esz = H5Tget_size(val->type);
    bool is_half_t = ncztr_is_half_float(val->type);
    bool is_enum = numeric_like(val->type);
    bool scalar = is_enum ? val->nelem == 1 : H5Sget_simple_extent_type(val->space) == H5S_SCALAR;
    if (ncztr_cvalue_check(val->type, what) < 0) /* every member has a JSON form */
        NCZ_GOTO_QUIET(FAIL);
    if (is_half_t) {
        snprintf(dtype, NCZTR_DTYPE_MAX, "%cf4", H5Tget_order(val->type) == H5T_ORDER_BE ? '>' : '<');
    } else if (is_enum) {
        if (ncztr_ct_leaf_dtype(val->type, what, dtype) < 0)
            NCZ_GOTO_QUIET(FAIL);
    } else {
        /* JSON under ">S1", as netCDF-C types its JSON-valued attributes: it then shows the
         * JSON as text, while "|J0" on a user attribute makes it refuse the whole store.
         * The exact type is kept in "_nczarr_attr.hdf5.atypes". */
        snprintf(dtype, NCZTR_DTYPE_MAX, ">S1");
    }
    if (scalar && val->nelem == 1) {
        out = ncztr_celem_to_json(val->type, val->data, what);
    } else {
        out = json_array();
        NCZ_CHECK_ALLOC(out, FAIL);
        for (size_t i = 0; i < val->nelem; i++) {
            json_t *e = ncztr_celem_to_json(val->type, (const unsigned char *)val->data + i * esz, what);
            if (!e)
                NCZ_GOTO_QUIET(FAIL);
            if (json_array_append_new(out, e) != 0)
                NCZ_GOTO(FAIL, NCZ_E_NOMEM, "out of memory");
        }
    }
    if (!out)
        NCZ_GOTO_QUIET(FAIL);
    *value = out;
    out = NULL;
done:
    json_decref(out);
    return ret;
}

/* Nesting depth of lists along first elements. */
static int list_depth(const json_t *j)
{
    int d = 0;
    while (json_is_array(j) && d < 64) {
        d++;
        j = json_array_size(j) ? json_array_get(j, 0) : NULL;
    }
    return d;
}

herr_t ncztr_cattr_from_json(const char *name, json_t *value, hid_t type, bool scalar, ncztr_attrval *out)
{
    herr_t ret = SUCCEED;
    char what[300];
    ncztr_attrval v = {.type = H5I_INVALID_HID, .space = H5I_INVALID_HID};
    snprintf(what, sizeof what, "attribute \"%s\"", name ? name : "");
    bool list = !scalar && json_is_array(value);
    if (list && ncztr_reftype_elem_is_list(type)) {
        /* an element is itself a list: count the list levels of one element (the dims of
         * arrays, one per sequence, along first members) */
        int nd = 0;
        hid_t t = H5Tcopy(type);
        while (t >= 0 && (H5Tget_class(t) == H5T_ARRAY || H5Tget_class(t) == H5T_VLEN)) {
            nd += H5Tget_class(t) == H5T_ARRAY ? H5Tget_array_ndims(t) : 1;
            hid_t sup = H5Tget_super(t);
            H5Tclose(t);
            t = sup;
        }
        if (t >= 0)
            H5Tclose(t);
        list = json_array_size(value) == 0 || list_depth(value) > nd;
    }
    size_t n = list ? json_array_size(value) : 1, esz = H5Tget_size(type);
    if ((v.type = H5Tcopy(type)) < 0)
        NCZ_GOTO(FAIL, NCZ_E_HDF5, "%s: cannot copy its type", what);
    hsize_t dim = n;
    if ((v.space = list ? H5Screate_simple(1, &dim, NULL) : H5Screate(H5S_SCALAR)) < 0)
        NCZ_GOTO(FAIL, NCZ_E_HDF5, "%s: cannot make a dataspace", what);
    /* the elements' size comes from the kept type, their number from the JSON: a few bytes
     * of JSON must not make gigabytes of value */
    if (esz > MAX_ATTR_BYTES || n > MAX_ATTR_BYTES / (esz ? esz : 1))
        NCZ_GOTO(FAIL, NCZ_E_FORMAT,
                 "%s: %zu values of %zu bytes are more than the %zu bytes an attribute may hold", what, n,
                 esz, MAX_ATTR_BYTES);
    if (!esz || !(v.data = calloc(n ? n : 1, esz)))
        NCZ_GOTO(FAIL, NCZ_E_NOMEM, "out of memory decoding %s", what);
    v.nelem = n;
    for (size_t i = 0; i < n; i++)
        if (ncztr_celem_from_json(type, list ? json_array_get(value, i) : value,
                                  (unsigned char *)v.data + i * esz, what) < 0)
            NCZ_GOTO_QUIET(FAIL);
    *out = v;
    v.type = v.space = H5I_INVALID_HID;
    v.data = NULL;
done:
    if (v.type >= 0 || v.space >= 0 || v.data) {
        hid_t es = ncz_err_save();
        ncztr_attrval_clear(&v);
        ncz_err_restore(es);
    }
    return ret;
}
