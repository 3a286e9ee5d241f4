/* Attribute values holding object references <-> .zattrs JSON (see ncztr_types.h): each
 * reference becomes the path of its object, which the layers above turn into an id and
 * back (the types layer knows no tree). */
#include "ncztr_refval.h"
#include "ncztr_types.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DEPTH 8 /* nesting of vlen sequences, compounds and arrays */

/* An object reference of either style (region references never get this far). */
static bool is_ref(hid_t t)
{
    ncztr_refkind k = ncztr_ref_kind(t);
    return k == NCZTR_REF_NEW || k == NCZTR_REF_OBJ;
}

/* The id in a reference slot of type t: an H5R_ref_t's kept id, or a hobj_ref_t. */
static uint64_t slot_id(hid_t t, const unsigned char *p)
{
    return ncztr_ref_kind(t) == NCZTR_REF_OBJ ? ncztr_oref_get(p) : ncztr_refval_slot_id(p);
}

static void slot_set(hid_t t, unsigned char *p, uint64_t id)
{
    if (ncztr_ref_kind(t) == NCZTR_REF_OBJ)
        ncztr_oref_set(p, id);
    else
        ncztr_refval_slot_set(p, id);
}

static void close_type(hid_t t)
{
    if (t < 0)
        return;
    hid_t es = ncz_err_save(); /* H5Tclose clears it */
    H5Tclose(t);
    ncz_err_restore(es);
}

static herr_t check(hid_t t, const char *what, int depth)
{
    herr_t ret = SUCCEED;
    hid_t sup = H5I_INVALID_HID;
    if (depth > MAX_DEPTH)
        return NCZ_PUSH(NCZ_E_NOTREPR, "%s: type nested too deeply", what);
    switch (H5Tget_class(t)) {
    case H5T_REFERENCE:
        /* a region reference names a selection kept in HDF5's global heap: no path says it */
        if (!is_ref(t))
            NCZ_GOTO(FAIL, NCZ_E_NOTREPR,
                     "%s: region references (H5T_STD_REF_DSETREG) cannot be stored in a Zarr store", what);
        break;
    case H5T_VLEN:
    case H5T_ARRAY:
        if (H5Tis_variable_str(t) > 0)
            NCZ_GOTO(FAIL, NCZ_E_NOTREPR, "%s: variable-length strings beside references are not supported",
                     what);
        if ((sup = H5Tget_super(t)) < 0)
            NCZ_GOTO(FAIL, NCZ_E_HDF5, "%s: cannot read a variable-length or array type", what);
        ret = check(sup, what, depth + 1);
        break;
    case H5T_COMPOUND: {
        int n = H5Tget_nmembers(t);
        for (int i = 0; i < n && ret >= 0; i++) {
            hid_t m = H5Tget_member_type(t, (unsigned)i);
            ret = m < 0 ? NCZ_PUSH(NCZ_E_HDF5, "%s: cannot read a compound member", what)
                        : check(m, what, depth + 1);
            close_type(m);
        }
        break;
    }
    case H5T_STRING:
        if (H5Tis_variable_str(t) > 0)
            NCZ_GOTO(FAIL, NCZ_E_NOTREPR, "%s: variable-length strings beside references are not supported",
                     what);
        break;
    case H5T_INTEGER:
    case H5T_FLOAT:
    case H5T_ENUM:
        break;
    default:
        NCZ_GOTO(FAIL, NCZ_E_NOTREPR, "%s: values of HDF5 type class %d beside references are not supported",
                 what, (int)H5Tget_class(t));
    }
done:
    close_type(sup);
    return ret;
}

herr_t ncztr_reftype_check(hid_t type, const char *what)
{
    return check(type, what, 0);
}

hid_t ncztr_reftype_rebuild(hid_t t)
{
    hid_t ret = H5I_INVALID_HID, sup = H5I_INVALID_HID, rs = H5I_INVALID_HID;
    switch (H5Tget_class(t)) {
    case H5T_REFERENCE:
        return H5Tcopy(ncztr_ref_kind(t) == NCZTR_REF_NEW   ? H5T_STD_REF
                       : ncztr_ref_kind(t) == NCZTR_REF_OBJ ? H5T_STD_REF_OBJ
                                                            : t);
    case H5T_VLEN:
        if (H5Tis_variable_str(t) > 0)
            return H5Tcopy(t);
        if ((sup = H5Tget_super(t)) >= 0 && (rs = ncztr_reftype_rebuild(sup)) >= 0)
            ret = H5Tvlen_create(rs);
        break;
    case H5T_ARRAY: {
        hsize_t d[H5S_MAX_RANK];
        int nd = H5Tget_array_ndims(t);
        if (nd >= 1 && nd <= H5S_MAX_RANK && H5Tget_array_dims2(t, d) >= 0 && (sup = H5Tget_super(t)) >= 0 &&
            (rs = ncztr_reftype_rebuild(sup)) >= 0)
            ret = H5Tarray_create2(rs, (unsigned)nd, d);
        break;
    }
    case H5T_COMPOUND: {
        int n = H5Tget_nmembers(t);
        if (n < 0 || (ret = H5Tcreate(H5T_COMPOUND, H5Tget_size(t))) < 0)
            break;
        for (int i = 0; i < n; i++) {
            char *nm = H5Tget_member_name(t, (unsigned)i);
            hid_t m = H5Tget_member_type(t, (unsigned)i);
            hid_t rm = m >= 0 ? ncztr_reftype_rebuild(m) : H5I_INVALID_HID;
            herr_t r = nm && rm >= 0 ? H5Tinsert(ret, nm, H5Tget_member_offset(t, (unsigned)i), rm) : FAIL;
            H5free_memory(nm);
            close_type(m);
            close_type(rm);
            if (r < 0) {
                close_type(ret);
                ret = H5I_INVALID_HID;
                break;
            }
        }
        break;
    }
    default:
        return H5Tcopy(t);
    }
    close_type(sup);
    close_type(rs);
    if (ret < 0)
        NCZ_PUSH(NCZ_E_HDF5, "cannot make a type holding references");
    return ret;
}

bool ncztr_reftype_elem_is_list(hid_t type)
{
    H5T_class_t c = H5Tget_class(type);
    return c == H5T_ARRAY || (c == H5T_VLEN && H5Tis_variable_str(type) <= 0);
}

/* ---- to JSON ---- */

typedef struct out_ctx {
    ncztr_ref_path_fn fn;
    void *ctx;
    const char *what;
    bool any_null;  /* a null reference was written */
    size_t longest; /* the longest path written */
} out_ctx;

static json_t *elem_out(out_ctx *c, hid_t t, const unsigned char *p, int depth);

/* Appends n elements of t at p to list l (taken over on failure: freed). */
static json_t *list_out(out_ctx *c, hid_t t, const unsigned char *p, size_t n, int depth)
{
    json_t *l = json_array();
    size_t sz = H5Tget_size(t);
    if (!l) {
        NCZ_PUSH(NCZ_E_NOMEM, "out of memory");
        return NULL;
    }
    for (size_t i = 0; i < n; i++) {
        json_t *e = elem_out(c, t, p + i * sz, depth + 1);
        if (!e || json_array_append_new(l, e) != 0) {
            if (e)
                NCZ_PUSH(NCZ_E_NOMEM, "out of memory");
            json_decref(l);
            return NULL;
        }
    }
    return l;
}

static json_t *array_out(out_ctx *c, hid_t base, const hsize_t *d, int nd, const unsigned char **p, int depth)
{
    if (nd == 1) {
        json_t *l = list_out(c, base, *p, d[0], depth);
        *p += d[0] * H5Tget_size(base);
        return l;
    }
    json_t *l = json_array();
    if (!l) {
        NCZ_PUSH(NCZ_E_NOMEM, "out of memory");
        return NULL;
    }
    for (hsize_t i = 0; i < d[0]; i++) {
        json_t *e = array_out(c, base, d + 1, nd - 1, p, depth);
        if (!e || json_array_append_new(l, e) != 0) {
            if (e)
                NCZ_PUSH(NCZ_E_NOMEM, "out of memory");
            json_decref(l);
            return NULL;
        }
    }
    return l;
}

static json_t *ref_out(out_ctx *c, hid_t t, const unsigned char *p)
{
    uint64_t id = slot_id(t, p);
    char *path = NULL;
    json_t *j;
    if (id && c->fn(c->ctx, id, &path) < 0)
        return NULL;
    if (!path) {
        c->any_null = true;
        j = json_null();
    } else {
        size_t n = strlen(path);
        if (n > c->longest)
            c->longest = n;
        if (!(j = json_stringn(path, n)))
            NCZ_PUSH(NCZ_E_NOTREPR, "%s: the path \"%s\" of a referenced object is not valid UTF-8", c->what,
                     path);
    }
    free(path);
    return j;
}

static json_t *elem_out(out_ctx *c, hid_t t, const unsigned char *p, int depth)
{
    json_t *ret = NULL;
    hid_t sup = H5I_INVALID_HID;
    if (depth > MAX_DEPTH)
        NCZ_GOTO(NULL, NCZ_E_NOTREPR, "%s: type nested too deeply", c->what);
    switch (H5Tget_class(t)) {
    case H5T_REFERENCE:
        ret = ref_out(c, t, p);
        break;
    case H5T_VLEN: {
        hvl_t v;
        memcpy(&v, p, sizeof v);
        if ((sup = H5Tget_super(t)) < 0)
            NCZ_GOTO(NULL, NCZ_E_HDF5, "%s: cannot read a variable-length type", c->what);
        ret = list_out(c, sup, v.p, v.p ? v.len : 0, depth);
        break;
    }
    case H5T_ARRAY: {
        hsize_t d[H5S_MAX_RANK];
        int nd = H5Tget_array_ndims(t);
        if (nd < 1 || nd > H5S_MAX_RANK || H5Tget_array_dims2(t, d) < 0 || (sup = H5Tget_super(t)) < 0)
            NCZ_GOTO(NULL, NCZ_E_HDF5, "%s: cannot read an array type", c->what);
        const unsigned char *q = p;
        ret = array_out(c, sup, d, nd, &q, depth);
        break;
    }
    case H5T_COMPOUND: {
        int n = H5Tget_nmembers(t);
        json_t *o = json_object();
        NCZ_CHECK_ALLOC(o, NULL);
        for (int i = 0; i < n; i++) {
            char *nm = H5Tget_member_name(t, (unsigned)i);
            hid_t m = H5Tget_member_type(t, (unsigned)i);
            json_t *e =
                nm && m >= 0 ? elem_out(c, m, p + H5Tget_member_offset(t, (unsigned)i), depth + 1) : NULL;
            if (e && json_object_set_new(o, nm, e) != 0) {
                NCZ_PUSH(NCZ_E_NOMEM, "out of memory");
                e = NULL; /* freed by jansson */
            }
            H5free_memory(nm);
            close_type(m);
            if (!e) {
                json_decref(o);
                NCZ_GOTO_QUIET(NULL);
            }
        }
        ret = o;
        break;
    }
    default:
        ret = ncztr_celem_to_json(t, p, c->what);
    }
done:
    close_type(sup);
    return ret;
}

herr_t ncztr_refattr_to_json(const char *name, const ncztr_attrval *val, ncztr_ref_path_fn fn, void *ctx,
                             json_t **value, char dtype[NCZTR_DTYPE_MAX])
{
    char what[300];
    snprintf(what, sizeof what, "attribute \"%s\"", name ? name : "");
    out_ctx c = {fn, ctx, what, false, 0};
    json_t *out = NULL;
    if (val->nelem && !val->data)
        return NCZ_PUSH(NCZ_E_ARGS, "%s: no data", what);
    if (H5Sget_simple_extent_type(val->space) == H5S_SCALAR && val->nelem == 1)
        out = elem_out(&c, val->type, val->data, 0);
    else
        out = list_out(&c, val->type, val->data, val->nelem, -1);
    if (!out)
        return FAIL;
    if (is_ref(val->type) && val->nelem && !c.any_null)
        snprintf(dtype, NCZTR_DTYPE_MAX, "|S%zu",
                 c.longest > NCZTR_DEFAULT_MAXSTRLEN ? c.longest : (size_t)NCZTR_DEFAULT_MAXSTRLEN);
    else
        snprintf(dtype, NCZTR_DTYPE_MAX, ">S1");
    *value = out;
    return SUCCEED;
}

/* ---- from JSON ---- */

typedef struct in_ctx {
    ncztr_ref_id_fn fn;
    void *ctx;
    const char *what;
} in_ctx;

static herr_t elem_in(const in_ctx *c, hid_t t, const json_t *j, unsigned char *p, int depth);

static herr_t list_in(const in_ctx *c, hid_t t, const json_t *j, unsigned char *p, size_t n, int depth)
{
    size_t sz = H5Tget_size(t);
    if (!json_is_array(j) || json_array_size(j) != n)
        return NCZ_PUSH(NCZ_E_FORMAT, "%s: expected a list of %zu values", c->what, n);
    for (size_t i = 0; i < n; i++)
        if (elem_in(c, t, json_array_get(j, i), p + i * sz, depth + 1) < 0)
            return FAIL;
    return SUCCEED;
}

static herr_t array_in(const in_ctx *c, hid_t base, const hsize_t *d, int nd, const json_t *j,
                       unsigned char **p, int depth)
{
    if (nd == 1) {
        herr_t r = list_in(c, base, j, *p, d[0], depth);
        *p += d[0] * H5Tget_size(base);
        return r;
    }
    if (!json_is_array(j) || json_array_size(j) != d[0])
        return NCZ_PUSH(NCZ_E_FORMAT, "%s: expected a list of %llu values for an array type", c->what,
                        (unsigned long long)d[0]);
    for (hsize_t i = 0; i < d[0]; i++)
        if (array_in(c, base, d + 1, nd - 1, json_array_get(j, i), p, depth) < 0)
            return FAIL;
    return SUCCEED;
}

static herr_t elem_in(const in_ctx *c, hid_t t, const json_t *j, unsigned char *p, int depth)
{
    herr_t ret = SUCCEED;
    hid_t sup = H5I_INVALID_HID;
    if (depth > MAX_DEPTH)
        return NCZ_PUSH(NCZ_E_FORMAT, "%s: type nested too deeply", c->what);
    switch (H5Tget_class(t)) {
    case H5T_REFERENCE: {
        uint64_t id = 0;
        if (!json_is_null(j) && !json_is_string(j))
            NCZ_GOTO(FAIL, NCZ_E_FORMAT, "%s: a reference must be an object's path or null", c->what);
        if (json_is_string(j) && c->fn(c->ctx, json_string_value(j), &id) < 0)
            NCZ_GOTO_QUIET(FAIL);
        slot_set(t, p, id);
        break;
    }
    case H5T_VLEN: {
        if ((sup = H5Tget_super(t)) < 0)
            NCZ_GOTO(FAIL, NCZ_E_HDF5, "%s: cannot read a variable-length type", c->what);
        if (!json_is_array(j))
            NCZ_GOTO(FAIL, NCZ_E_FORMAT, "%s: expected a list for a variable-length value", c->what);
        size_t n = json_array_size(j), sz = H5Tget_size(sup);
        hvl_t v = {n, NULL};
        if (n && !(v.p = calloc(n, sz ? sz : 1)))
            NCZ_GOTO(FAIL, NCZ_E_NOMEM, "out of memory decoding %s", c->what);
        memcpy(p, &v, sizeof v); /* owned by the value from here: freed with it on failure */
        ret = list_in(c, sup, j, v.p, n, depth);
        break;
    }
    case H5T_ARRAY: {
        hsize_t d[H5S_MAX_RANK];
        int nd = H5Tget_array_ndims(t);
        if (nd < 1 || nd > H5S_MAX_RANK || H5Tget_array_dims2(t, d) < 0 || (sup = H5Tget_super(t)) < 0)
            NCZ_GOTO(FAIL, NCZ_E_HDF5, "%s: cannot read an array type", c->what);
        unsigned char *q = p;
        ret = array_in(c, sup, d, nd, j, &q, depth);
        break;
    }
    case H5T_COMPOUND: {
        int n = H5Tget_nmembers(t);
        if (!json_is_object(j))
            NCZ_GOTO(FAIL, NCZ_E_FORMAT, "%s: expected an object for a compound value", c->what);
        for (int i = 0; i < n && ret >= 0; i++) {
            char *nm = H5Tget_member_name(t, (unsigned)i);
            hid_t m = H5Tget_member_type(t, (unsigned)i);
            const json_t *e = nm ? json_object_get(j, nm) : NULL;
            if (!e || m < 0)
                ret = NCZ_PUSH(NCZ_E_FORMAT, "%s: compound value without member \"%s\"", c->what,
                               nm ? nm : "?");
            else
                ret = elem_in(c, m, e, p + H5Tget_member_offset(t, (unsigned)i), depth + 1);
            H5free_memory(nm);
            close_type(m);
        }
        break;
    }
    default:
        ret = ncztr_celem_from_json(t, j, p, c->what);
    }
done:
    close_type(sup);
    return ret;
}

herr_t ncztr_refattr_from_json(const char *name, const json_t *value, bool scalar, hid_t type, size_t nelem,
                               ncztr_ref_id_fn fn, void *ctx, void **data)
{
    char what[300];
    snprintf(what, sizeof what, "attribute \"%s\"", name ? name : "");
    in_ctx c = {fn, ctx, what};
    size_t sz = H5Tget_size(type);
    *data = NULL;
    if (!sz || (nelem && nelem > SIZE_MAX / sz))
        return NCZ_PUSH(NCZ_E_FORMAT, "%s: too many values", what);
    unsigned char *d = calloc(nelem ? nelem : 1, sz);
    if (!d)
        return NCZ_PUSH(NCZ_E_NOMEM, "out of memory decoding %s", what);
    herr_t r = scalar && nelem == 1 ? elem_in(&c, type, value, d, 0) : list_in(&c, type, value, d, nelem, -1);
    if (r < 0) {
        ncztr_refval_free(type, d, nelem);
        free(d);
        return FAIL;
    }
    *data = d;
    return SUCCEED;
}
