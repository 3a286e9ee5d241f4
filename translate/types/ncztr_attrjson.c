/* NCZarr's JSON attribute convention: attribute values <-> .zattrs JSON. */
#include "ncztr_refval.h"
#include "ncztr_types.h"

#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ====================================================================================== */
/* Attributes                                                                             */
/* ====================================================================================== */

#define TEXT_DTYPE ">S1"

/* Length of a fixed-size string element as text: its padding dropped, trailing NULs for
 * NULLTERM/NULLPAD, trailing blanks for SPACEPAD (how HDF5 pads those). A NUL inside the
 * text stays (a "\u0000" in the JSON): HDF5 keeps every byte of a fixed-size string, and
 * a program that put one there reads it back. */
static size_t fixed_len(const char *s, size_t size, H5T_str_t pad)
{
    size_t n = size;
    char padc = pad == H5T_STR_SPACEPAD ? ' ' : '\0';
    while (n > 0 && s[n - 1] == padc)
        n--;
    if (pad == H5T_STR_SPACEPAD) /* a space-padded string ends at a NUL too */
        n = strnlen(s, n);
    return n;
}

/* Char text that is a JSON object or array is stored as that JSON (NCZarr's convention:
 * Zarr tools then see the structure), but only when every reader gets the same bytes back:
 * the connector and netCDF-C both print the value in one canonical spacing (see
 * ncztr_json_dump), so the text must be exactly that dump. Other spacing, escapes that
 * decode to something else, duplicate keys or reals in another notation would come back
 * changed, so such text stays a JSON string. So does text with a \u escape: netCDF-C's
 * JSON parser does not decode those. */
static json_t *text_as_json(const char *s, size_t n)
{
    json_error_t err;
    json_t *j;
    char *back;
    int same;

    if (n < 2 || (s[0] != '{' && s[0] != '[') || memmem(s, n, "\\u", 2))
        return NULL;
    if (!(j = ncztr_json_parse_text(s, n, JSON_REJECT_DUPLICATES, &err)))
        return NULL;
    back = ncztr_json_dump(j);
    same = back && strlen(back) == n && !memcmp(back, s, n);
    free(back);
    if (!same) {
        json_decref(j);
        return NULL;
    }
    return j;
}

herr_t ncztr_attr_to_json(const char *name, const ncztr_attrval *val, json_t **value,
                          char dtype[NCZTR_DTYPE_MAX])
{
    herr_t ret = SUCCEED;
    json_t *out = NULL;
    json_t *item = NULL;
    H5T_class_t cls;
    char what[300];

    if (!name)
        name = "";
    snprintf(what, sizeof what, "attribute \"%s\"", name);
    if (!val || !value || !dtype || val->type < 0)
        NCZ_GOTO(FAIL, NCZ_E_ARGS, "%s: invalid arguments", what);
    *value = NULL;
    dtype[0] = '\0';
    if (ncztr_cattr_is_special(val->type))
        return ncztr_cattr_to_json(name, val, value, dtype);
    if (val->nelem && !val->data)
        NCZ_GOTO(FAIL, NCZ_E_ARGS, "%s: no data", what);
    if ((cls = H5Tget_class(val->type)) == H5T_NO_CLASS)
        NCZ_GOTO(FAIL, NCZ_E_ARGS, "%s: invalid datatype", what);

    if (cls == H5T_STRING) {
        htri_t vl = H5Tis_variable_str(val->type);
        if (vl < 0)
            NCZ_GOTO(FAIL, NCZ_E_HDF5, "%s: H5Tis_variable_str failed", what);
        if (vl) {
            char *const *s = val->data;
            size_t longest = 0;
            if (val->nelem != 1 && !(out = json_array()))
                NCZ_GOTO(FAIL, NCZ_E_NOMEM, "out of memory encoding %s", what);
            for (size_t i = 0; i < val->nelem; i++) {
                /* A NULL string pointer (never written) is stored as "". */
                const char *t = s[i] ? s[i] : "";
                size_t n = strlen(t);
                if (n > longest)
                    longest = n;
                if (!(item = json_stringn(t, n)))
                    NCZ_GOTO(FAIL, NCZ_E_NOTREPR, "%s: string value %zu is not valid UTF-8", what, i);
                if (val->nelem == 1) {
                    out = item;
                } else if (json_array_append_new(out, item) < 0) {
                    item = NULL;
                    NCZ_GOTO(FAIL, NCZ_E_NOMEM, "out of memory encoding %s", what);
                }
                item = NULL;
            }
            snprintf(dtype, NCZTR_DTYPE_MAX, "|S%zu",
                     longest > NCZTR_DEFAULT_MAXSTRLEN ? longest : (size_t)NCZTR_DEFAULT_MAXSTRLEN);
        } else {
            size_t size = H5Tget_size(val->type);
            H5T_str_t pad = H5Tget_strpad(val->type);
            const char *base = val->data;
            if (size == 0 || pad == H5T_STR_ERROR)
                NCZ_GOTO(FAIL, NCZ_E_HDF5, "%s: cannot query the string type", what);
            if (val->nelem == 1) {
                size_t n = fixed_len(base, size, pad);
                /* JSON or a string, both typed ">S1" as netCDF-C does ("|J0" on a user
                 * attribute makes netCDF-C refuse the whole store). */
                if (!(out = text_as_json(base, n)) && !(out = json_stringn(base, n)))
                    NCZ_GOTO(FAIL, NCZ_E_NOTREPR, "%s: text is not valid UTF-8", what);
                snprintf(dtype, NCZTR_DTYPE_MAX, TEXT_DTYPE);
            } else {
                if (!(out = json_array()))
                    NCZ_GOTO(FAIL, NCZ_E_NOMEM, "out of memory encoding %s", what);
                for (size_t i = 0; i < val->nelem; i++) {
                    const char *t = base + i * size;
                    if (!(item = json_stringn(t, fixed_len(t, size, pad))))
                        NCZ_GOTO(FAIL, NCZ_E_NOTREPR, "%s: string value %zu is not valid UTF-8", what, i);
                    if (json_array_append_new(out, item) < 0) {
                        item = NULL;
                        NCZ_GOTO(FAIL, NCZ_E_NOMEM, "out of memory encoding %s", what);
                    }
                    item = NULL;
                }
                /* "|S1" (not ">S1") marks an array of 1-byte strings rather than char text. */
                snprintf(dtype, NCZTR_DTYPE_MAX, "|S%zu", size);
            }
        }
    } else {
        ncztr_dtype dt;
        const unsigned char *base = val->data;
        if (ncztr_dtype_from_hdf5(val->type, 0, what, &dt) < 0)
            NCZ_GOTO_QUIET(FAIL);
        if (val->nelem != 1 && !(out = json_array()))
            NCZ_GOTO(FAIL, NCZ_E_NOMEM, "out of memory encoding %s", what);
        for (size_t i = 0; i < val->nelem; i++) {
            if (!(item = ncztr_json_from_elem(&dt, base + i * dt.size, what)))
                NCZ_GOTO_QUIET(FAIL);
            if (val->nelem == 1) {
                out = item;
            } else if (json_array_append_new(out, item) < 0) {
                item = NULL;
                NCZ_GOTO(FAIL, NCZ_E_NOMEM, "out of memory encoding %s", what);
            }
            item = NULL;
        }
        snprintf(dtype, NCZTR_DTYPE_MAX, "%s", dt.zarr);
    }
    *value = out;
    out = NULL;
done:
    json_decref(item);
    json_decref(out);
    if (ret < 0 && dtype)
        dtype[0] = '\0';
    return ret;
}

/* ---- decoding ------------------------------------------------------------------------ */

static int is_special_float(const json_t *j)
{
    const char *s;
    if (!json_is_string(j))
        return 0;
    s = json_string_value(j);
    return !strcmp(s, "NaN") || !strcmp(s, "Infinity") || !strcmp(s, "-Infinity");
}

/* A string that is text (not our uint64 marker). */
static int is_text(const json_t *j)
{
    return json_is_string(j) && !ncztr_json_marked_u64(j, NULL);
}

static int is_number(const json_t *j)
{
    return json_is_integer(j) || json_is_real(j) || ncztr_json_marked_u64(j, NULL);
}

/* Char text: a fixed string of its length (1 if empty), NULLTERM, scalar. */
static herr_t make_text(const char *what, const char *s, size_t n, ncztr_attrval *out)
{
    herr_t ret = SUCCEED;

    if ((out->type = H5Tcopy(H5T_C_S1)) < 0 || H5Tset_size(out->type, n ? n : 1) < 0)
        NCZ_GOTO(FAIL, NCZ_E_HDF5, "%s: cannot make a %zu-byte string type", what, n);
    if ((out->space = H5Screate(H5S_SCALAR)) < 0)
        NCZ_GOTO(FAIL, NCZ_E_HDF5, "%s: H5Screate failed", what);
    /* One spare byte keeps the buffer a C string for callers that want one. */
    if (!(out->data = calloc(n + 1, 1)))
        NCZ_GOTO(FAIL, NCZ_E_NOMEM, "out of memory decoding %s", what);
    memcpy(out->data, s, n);
    out->nelem = 1;
done:
    return ret;
}

/* Any JSON value as char text holding its dump. */
static herr_t make_json_text(const char *what, const json_t *value, ncztr_attrval *out)
{
    herr_t ret = SUCCEED;
    char *s = ncztr_json_dump(value);

    if (!s)
        NCZ_GOTO_QUIET(FAIL);
    ret = make_text(what, s, strlen(s), out);
done:
    free(s);
    return ret;
}

/* A JSON list is 1-D, anything else scalar; the empty list is an attribute without
 * elements, H5S_NULL (a zero-size 1-D shape comes back through "ashapes", see
 * ncztr_load.c). */
static hid_t make_space(const json_t *value, size_t n)
{
    hsize_t dim = n;
    if (!json_is_array(value))
        return H5Screate(H5S_SCALAR);
    return n ? H5Screate_simple(1, &dim, NULL) : H5Screate(H5S_NULL);
}

/* A JSON string or array of strings as variable-length UTF-8 strings. */
static herr_t make_vlen(const char *what, const json_t *value, ncztr_attrval *out)
{
    herr_t ret = SUCCEED;
    size_t n = json_is_array(value) ? json_array_size(value) : 1;
    char **s;

    /* UTF-8: JSON text is Unicode, and netCDF-4 strings and h5py's are UTF-8 */
    if ((out->type = H5Tcopy(H5T_C_S1)) < 0 || H5Tset_size(out->type, H5T_VARIABLE) < 0 ||
        H5Tset_cset(out->type, H5T_CSET_UTF8) < 0)
        NCZ_GOTO(FAIL, NCZ_E_HDF5, "%s: cannot make a variable-length string type", what);
    if ((out->space = make_space(value, n)) < 0)
        NCZ_GOTO(FAIL, NCZ_E_HDF5, "%s: cannot make a dataspace", what);
    if (!(out->data = calloc(n ? n : 1, sizeof(char *))))
        NCZ_GOTO(FAIL, NCZ_E_NOMEM, "out of memory decoding %s", what);
    out->nelem = n;
    s = out->data;
    for (size_t i = 0; i < n; i++) {
        const json_t *e = json_is_array(value) ? json_array_get(value, i) : value;
        if (!(s[i] = strndup(json_string_value(e), json_string_length(e))))
            NCZ_GOTO(FAIL, NCZ_E_NOMEM, "out of memory decoding %s", what);
    }
done:
    return ret;
}

/* A number or array of numbers in dtype dt. */
static herr_t make_numeric(const char *what, const ncztr_dtype *dt, const json_t *value, ncztr_attrval *out)
{
    herr_t ret = SUCCEED;
    size_t n = json_is_array(value) ? json_array_size(value) : 1;
    unsigned char *p;

    if (json_is_object(value) || json_is_null(value))
        NCZ_GOTO(FAIL, NCZ_E_FORMAT, "%s: dtype \"%s\" needs a number or an array of numbers, not %s", what,
                 dt->zarr, json_is_null(value) ? "null" : "an object");
    if ((out->type = ncztr_dtype_to_hdf5(dt)) < 0)
        NCZ_GOTO_QUIET(FAIL);
    if ((out->space = make_space(value, n)) < 0)
        NCZ_GOTO(FAIL, NCZ_E_HDF5, "%s: cannot make a dataspace", what);
    if (!(out->data = calloc(n ? n : 1, dt->size)))
        NCZ_GOTO(FAIL, NCZ_E_NOMEM, "out of memory decoding %s", what);
    out->nelem = n;
    p = out->data;
    for (size_t i = 0; i < n; i++) {
        const json_t *e = json_is_array(value) ? json_array_get(value, i) : value;
        if (json_is_null(e))
            NCZ_GOTO(FAIL, NCZ_E_FORMAT, "%s: null element %zu in a numeric value (dtype \"%s\")", what, i,
                     dt->zarr);
        if (json_is_array(e) || json_is_object(e))
            NCZ_GOTO(FAIL, NCZ_E_FORMAT, "%s: nested %s at element %zu in a numeric value (dtype \"%s\")",
                     what, json_is_array(e) ? "array" : "object", i, dt->zarr);
        if (ncztr_json_to_elem(dt, e, what, p + i * dt->size) < 0)
            NCZ_GOTO_QUIET(FAIL);
    }
done:
    return ret;
}

/* The dtype for a value without one (pure Zarr): from the kinds of its elements, or NULL
 * when it must be char text holding its JSON. *vlen is set for strings. */
static const char *infer_dtype(const json_t *value, int *vlen)
{
    size_t n, i;
    int any_real = 0, any_big = 0, any_neg = 0, all_i32 = 1;
    const json_t *first;

    *vlen = 0;
    if (json_is_array(value)) {
        n = json_array_size(value);
        if (n == 0)
            return "<f8"; /* an empty list: no elements, typed as numpy types [] */
        first = json_array_get(value, 0);
    } else {
        n = 1;
        first = value;
    }
    if (is_text(first)) {
        /* A single string is char text (the caller handles it); arrays of strings only. */
        if (!json_is_array(value))
            return NULL;
        for (i = 0; i < n; i++)
            if (!is_text(json_array_get(value, i)))
                return NULL;
        *vlen = 1;
        return "|S128";
    }
    if (json_is_boolean(first)) {
        for (i = 0; i < n; i++)
            if (!json_is_boolean(json_is_array(value) ? json_array_get(value, i) : value))
                return NULL;
        return "|b1";
    }
    if (!is_number(first))
        return NULL;
    for (i = 0; i < n; i++) {
        const json_t *e = json_is_array(value) ? json_array_get(value, i) : value;
        if (json_is_integer(e)) {
            json_int_t v = json_integer_value(e);
            if (v < 0)
                any_neg = 1;
            if (v < INT32_MIN || v > INT32_MAX)
                all_i32 = 0;
        } else if (ncztr_json_marked_u64(e, NULL)) {
            any_big = 1;
        } else if (json_is_real(e) || is_special_float(e)) {
            any_real = 1;
        } else {
            return NULL;
        }
    }
    /* uint64 above INT64_MAX next to negative values fits no integer type. */
    if (any_real || (any_big && any_neg))
        return "<f8";
    if (any_big)
        return "<u8";
    return all_i32 ? "<i4" : "<i8";
}

herr_t ncztr_attr_from_json(const char *name, json_t *value, const char *dtype, ncztr_attrval *out)
{
    herr_t ret = SUCCEED;
    char what[300];
    ncztr_attrval v;
    ncztr_dtype dt;

    ncztr_attrval_init(&v);
    if (!name)
        name = "";
    snprintf(what, sizeof what, "attribute \"%s\"", name);
    if (!value || !out)
        NCZ_GOTO(FAIL, NCZ_E_ARGS, "%s: invalid arguments", what);
    ncztr_attrval_init(out);

    if (!dtype) {
        int vlen;
        const char *inferred = infer_dtype(value, &vlen);
        if (is_text(value)) {
            ret = make_text(what, json_string_value(value), json_string_length(value), &v);
        } else if (!inferred) {
            ret = make_json_text(what, value, &v);
        } else if (vlen) {
            ret = make_vlen(what, value, &v);
        } else {
            if (ncztr_dtype_parse(inferred, what, &dt) < 0)
                NCZ_GOTO_QUIET(FAIL);
            ret = make_numeric(what, &dt, value, &v);
        }
    } else {
        /* "|J0" (JSON, any byte-order prefix): not a storage dtype, so handled first. */
        const char *k = dtype + (dtype[0] == '<' || dtype[0] == '>' || dtype[0] == '|' || dtype[0] == '=');
        if (!strcmp(k, "J0")) {
            if (is_text(value))
                ret = make_text(what, json_string_value(value), json_string_length(value), &v);
            else
                ret = make_json_text(what, value, &v);
        } else {
            if (ncztr_dtype_parse(dtype, what, &dt) < 0)
                NCZ_GOTO_QUIET(FAIL);
            if (dt.tclass == NCZTR_T_CHAR || dt.tclass == NCZTR_T_STRING) {
                int all_text = is_text(value);
                if (json_is_array(value)) {
                    all_text = 1;
                    for (size_t i = 0; i < json_array_size(value); i++)
                        if (!is_text(json_array_get(value, i)))
                            all_text = 0;
                }
                /* netCDF's ">S1" is always char text; "|Sn" values are strings, and "|S1"
                 * with an array is our own 1-byte string array. Other JSON shapes under a
                 * string dtype (netCDF-C 4.9.3 writes JSON-valued char attributes as ">S1")
                 * become char text holding the JSON. */
                if (dt.tclass == NCZTR_T_CHAR && dtype[0] == '>') {
                    if (is_text(value))
                        ret = make_text(what, json_string_value(value), json_string_length(value), &v);
                    else
                        ret = make_json_text(what, value, &v);
                } else if (dt.tclass == NCZTR_T_CHAR && is_text(value)) {
                    ret = make_text(what, json_string_value(value), json_string_length(value), &v);
                } else if (all_text) {
                    ret = make_vlen(what, value, &v);
                } else {
                    ret = make_json_text(what, value, &v);
                }
            } else {
                ret = make_numeric(what, &dt, value, &v);
            }
        }
    }
    if (ret < 0)
        NCZ_GOTO_QUIET(FAIL);
    *out = v;
    ncztr_attrval_init(&v);
done:
    ncztr_attrval_clear(&v);
    return ret;
}
