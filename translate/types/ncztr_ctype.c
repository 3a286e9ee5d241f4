/* HDF5 enum, compound and array types: Zarr v2 structured dtypes <-> HDF5 types, exact
 * HDF5 types kept as Base64 of H5Tencode, and attribute values of those types as JSON. */
#include "ncztr_checked.h"
#include "ncztr_ctype_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define NATIVE_BIG 1
#else
#define NATIVE_BIG 0
#endif

#define MAX_DEPTH  NCZTR_CT_MAX_DEPTH
#define MAX_FIELDS NCZTR_CT_MAX_FIELDS
#define MAX_RECORD NCZTR_CT_MAX_RECORD
#define close_type ncztr_ct_close
#define is_half    ncztr_is_half_float

bool ncztr_is_half_float(hid_t t)
{
    size_t spos, epos, esize, mpos, msize;
    return H5Tget_class(t) == H5T_FLOAT && H5Tget_size(t) == 2 &&
           H5Tget_fields(t, &spos, &epos, &esize, &mpos, &msize) >= 0 && esize == 5 && msize == 10 &&
           (H5Tget_order(t) == H5T_ORDER_LE || H5Tget_order(t) == H5T_ORDER_BE);
}

bool ncztr_type_is_raw(hid_t t)
{
    H5T_class_t c = H5Tget_class(t);
    size_t n = H5Tget_size(t);
    bool pow2 = n == 1 || n == 2 || n == 4 || n == 8;
    H5T_order_t o = n > 1 && (c == H5T_INTEGER || c == H5T_FLOAT) ? H5Tget_order(t) : H5T_ORDER_LE;
    bool plain_order = o == H5T_ORDER_LE || o == H5T_ORDER_BE;
    switch (c) {
    case H5T_OPAQUE:
    case H5T_BITFIELD:
        return !pow2;
    case H5T_INTEGER:
        return !pow2 || !plain_order;
    case H5T_FLOAT: {
        size_t spos, epos, esize, mpos, msize;
        if (n == 2)
            return !is_half(t);
        if ((n != 4 && n != 8) || !plain_order || H5Tget_fields(t, &spos, &epos, &esize, &mpos, &msize) < 0)
            return true;
        return n == 4 ? esize != 8 || msize != 23 : esize != 11 || msize != 52;
    }
    default:
        return false;
    }
}

bool ncztr_ctype_is_special(hid_t type)
{
    H5T_class_t c = H5Tget_class(type);
    return c == H5T_ENUM || c == H5T_COMPOUND || c == H5T_ARRAY || c == H5T_BITFIELD || c == H5T_OPAQUE ||
           ncztr_type_is_raw(type);
}

bool ncztr_cattr_is_special(hid_t type)
{
    if (ncztr_ctype_is_special(type) || is_half(type))
        return true;
    /* sequences, and strings inside other types (a plain vlen string is text) */
    H5T_class_t c = H5Tget_class(type);
    return c == H5T_VLEN || ((c == H5T_COMPOUND || c == H5T_ARRAY) && ncztr_type_has_parts(type));
}

herr_t ncztr_ct_leaf_dtype(hid_t t, const char *what, char out[NCZTR_DTYPE_MAX])
{
    herr_t ret = SUCCEED;
    H5T_class_t c = H5Tget_class(t);
    if (ncztr_type_is_raw(t)) {
        /* numpy's void of its size: the bytes as they are (the exact type is kept) */
        size_t n = H5Tget_size(t);
        if (n == 0 || n > MAX_RECORD)
            NCZ_GOTO(FAIL, NCZ_E_NOTREPR, "%s: a %zu-byte member is too large", what, n);
        snprintf(out, NCZTR_DTYPE_MAX, "|V%zu", n);
    } else if (c == H5T_ENUM) {
        hid_t b = H5Tget_super(t);
        if (b < 0)
            NCZ_GOTO(FAIL, NCZ_E_HDF5, "%s: cannot get the base type of an enum", what);
        ret = ncztr_ct_leaf_dtype(b, what, out);
        close_type(b);
    } else if (c == H5T_BITFIELD || c == H5T_OPAQUE) {
        /* its bytes are those of the unsigned integer of its size (the exact type is kept) */
        size_t n = H5Tget_size(t);
        if (n != 1 && n != 2 && n != 4 && n != 8)
            NCZ_GOTO(FAIL, NCZ_E_NOTREPR,
                     "%s: a %zu-byte %s is not representable in NCZarr (1, 2, 4 or 8 bytes are)", what, n,
                     c == H5T_OPAQUE ? "opaque type" : "bitfield");
        snprintf(out, NCZTR_DTYPE_MAX, "%cu%zu",
                 n == 1                            ? '|'
                 : H5Tget_order(t) == H5T_ORDER_BE ? '>'
                                                   : '<',
                 n);
    } else if (c == H5T_FLOAT && H5Tget_size(t) == 2) {
        if (!is_half(t))
            NCZ_GOTO(FAIL, NCZ_E_NOTREPR, "%s: non-IEEE 16-bit float is not representable in NCZarr", what);
        snprintf(out, NCZTR_DTYPE_MAX, "%cf2", H5Tget_order(t) == H5T_ORDER_BE ? '>' : '<');
    } else if (c == H5T_STRING) {
        htri_t vl = H5Tis_variable_str(t);
        size_t n = H5Tget_size(t);
        if (vl != 0 || n == 0)
            NCZ_GOTO(FAIL, NCZ_E_NOTREPR,
                     "%s: a variable-length string inside a compound or array type is not representable in "
                     "NCZarr",
                     what);
        if (n > MAX_RECORD)
            NCZ_GOTO(FAIL, NCZ_E_NOTREPR, "%s: %zu-byte string member is too large", what, n);
        snprintf(out, NCZTR_DTYPE_MAX, "|S%zu", n);
    } else if (c == H5T_INTEGER || c == H5T_FLOAT) {
        ncztr_dtype dt;
        if (ncztr_dtype_from_hdf5(t, 0, what, &dt) < 0)
            NCZ_GOTO_QUIET(FAIL);
        snprintf(out, NCZTR_DTYPE_MAX, "%s", dt.zarr);
    } else {
        NCZ_GOTO(FAIL, NCZ_E_NOTREPR,
                 "%s: a member of HDF5 type class %d (vlen, reference, opaque, bitfield or time) is not "
                 "representable in NCZarr",
                 what, (int)c);
    }
done:
    return ret;
}

static json_t *field_list(hid_t t, const char *what, int depth);

/* One field: [name, dtype] or [name, dtype, shape] for an array member. */
static json_t *field(const char *name, hid_t mt, const char *what, int depth)
{
    json_t *ret = NULL, *f = json_array(), *shape = NULL, *dt = NULL;
    hid_t sup = H5I_INVALID_HID, base = mt;
    NCZ_CHECK_ALLOC(f, NULL);
    /* an array (of arrays: numpy flattens them into one shape) */
    while (H5Tget_class(base) == H5T_ARRAY) {
        hsize_t d[H5S_MAX_RANK];
        int nd = H5Tget_array_ndims(base);
        if (nd < 1 || nd > H5S_MAX_RANK || H5Tget_array_dims2(base, d) < 0)
            NCZ_GOTO(NULL, NCZ_E_HDF5, "%s: cannot read the dimensions of an array type", what);
        if (!shape && !(shape = json_array()))
            NCZ_GOTO(NULL, NCZ_E_NOMEM, "out of memory");
        if (json_array_size(shape) + (size_t)nd > NCZTR_MAX_RANK)
            NCZ_GOTO(NULL, NCZ_E_NOTREPR, "%s: array type with more than %d dimensions", what,
                     NCZTR_MAX_RANK);
        for (int k = 0; k < nd; k++)
            if (json_array_append_new(shape, json_integer((json_int_t)d[k])) != 0)
                NCZ_GOTO(NULL, NCZ_E_NOMEM, "out of memory");
        hid_t nsup = H5Tget_super(base);
        close_type(sup);
        if ((sup = nsup) < 0)
            NCZ_GOTO(NULL, NCZ_E_HDF5, "%s: cannot get the base type of an array type", what);
        base = sup;
    }
    if (H5Tget_class(base) == H5T_COMPOUND) {
        if (!(dt = field_list(base, what, depth + 1)))
            NCZ_GOTO_QUIET(NULL);
    } else {
        char s[NCZTR_DTYPE_MAX];
        if (ncztr_ct_leaf_dtype(base, what, s) < 0)
            NCZ_GOTO_QUIET(NULL);
        dt = json_string(s);
    }
    /* jansson takes each value over, also when appending it fails */
    int bad = json_array_append_new(f, json_string(name)) != 0;
    bad |= json_array_append_new(f, dt) != 0;
    dt = NULL;
    if (shape) {
        bad |= json_array_append_new(f, shape) != 0;
        shape = NULL;
    }
    if (bad)
        NCZ_GOTO(NULL, NCZ_E_NOMEM, "out of memory");
    ret = f;
    f = NULL;
done:
    json_decref(f);
    json_decref(shape);
    json_decref(dt);
    close_type(sup);
    return ret;
}

static json_t *field_list(hid_t t, const char *what, int depth)
{
    json_t *ret = NULL, *l = NULL;
    if (depth > MAX_DEPTH)
        NCZ_GOTO(NULL, NCZ_E_NOTREPR, "%s: compound types nested deeper than %d levels", what, MAX_DEPTH);
    int n = H5Tget_nmembers(t);
    if (n < 1)
        NCZ_GOTO(NULL, NCZ_E_NOTREPR, "%s: a compound type without members is not representable in NCZarr",
                 what);
    l = json_array();
    NCZ_CHECK_ALLOC(l, NULL);
    for (int i = 0; i < n; i++) {
        char *nm = H5Tget_member_name(t, (unsigned)i);
        hid_t mt = H5Tget_member_type(t, (unsigned)i);
        json_t *f = nm && mt >= 0 ? field(nm, mt, what, depth) : NULL;
        if (nm)
            H5free_memory(nm);
        close_type(mt);
        if (!f)
            NCZ_GOTO_QUIET(NULL);
        if (json_array_append_new(l, f) != 0)
            NCZ_GOTO(NULL, NCZ_E_NOMEM, "out of memory");
    }
    ret = l;
    l = NULL;
done:
    json_decref(l);
    return ret;
}

json_t *ncztr_struct_from_hdf5(hid_t type, const char *what)
{
    json_t *l, *f;
    if (!what)
        what = "datatype";
    switch (H5Tget_class(type)) {
    case H5T_COMPOUND:
        return field_list(type, what, 0);
    case H5T_ARRAY:
    array:
        if (!(f = field(NCZTR_ARRAY_FIELD, type, what, 0)))
            return NULL;
        if (!(l = json_array())) {
            json_decref(f);
            NCZ_PUSH(NCZ_E_NOMEM, "out of memory");
            return NULL;
        }
        if (json_array_append_new(l, f) != 0) {
            json_decref(l);
            NCZ_PUSH(NCZ_E_NOMEM, "out of memory");
            return NULL;
        }
        return l;
    default:
        if (ncztr_type_is_raw(type)) /* one field of its bytes, as an array type */
            goto array;
        NCZ_PUSH(NCZ_E_INTERNAL, "%s: not a compound or array type", what);
        return NULL;
    }
}

/* ---- packed storage types ---------------------------------------------------------------- */

static hid_t storage_rec(hid_t type, const char *what, int depth)
{
    hid_t ret = H5I_INVALID_HID, sup = H5I_INVALID_HID, sst = H5I_INVALID_HID, t = H5I_INVALID_HID;
    hid_t *mts = NULL;
    int n = 0;
    if (depth > MAX_DEPTH)
        NCZ_GOTO(H5I_INVALID_HID, NCZ_E_NOTREPR, "%s: types nested deeper than %d levels", what, MAX_DEPTH);
    switch (H5Tget_class(type)) {
    case H5T_COMPOUND: {
        size_t total = 0, off = 0;
        if ((n = H5Tget_nmembers(type)) < 1)
            NCZ_GOTO(H5I_INVALID_HID, NCZ_E_NOTREPR,
                     "%s: a compound type without members is not representable in NCZarr", what);
        mts = calloc((size_t)n, sizeof *mts);
        NCZ_CHECK_ALLOC(mts, H5I_INVALID_HID);
        for (int i = 0; i < n; i++)
            mts[i] = H5I_INVALID_HID;
        for (int i = 0; i < n; i++) {
            hid_t mt = H5Tget_member_type(type, (unsigned)i);
            if (mt < 0)
                NCZ_GOTO(H5I_INVALID_HID, NCZ_E_HDF5, "%s: cannot read compound member %d", what, i);
            mts[i] = storage_rec(mt, what, depth + 1);
            close_type(mt);
            if (mts[i] < 0)
                NCZ_GOTO_QUIET(H5I_INVALID_HID);
            total += H5Tget_size(mts[i]);
        }
        if ((t = H5Tcreate(H5T_COMPOUND, total)) < 0)
            NCZ_GOTO(H5I_INVALID_HID, NCZ_E_HDF5, "%s: cannot create a packed compound type", what);
        for (int i = 0; i < n; i++) {
            char *nm = H5Tget_member_name(type, (unsigned)i);
            herr_t r = nm ? H5Tinsert(t, nm, off, mts[i]) : FAIL;
            if (nm)
                H5free_memory(nm);
            if (r < 0)
                NCZ_GOTO(H5I_INVALID_HID, NCZ_E_HDF5, "%s: cannot build the packed compound type", what);
            off += H5Tget_size(mts[i]);
        }
        ret = t;
        t = H5I_INVALID_HID;
        break;
    }
    case H5T_ARRAY: {
        hsize_t d[H5S_MAX_RANK];
        int nd = H5Tget_array_ndims(type);
        if (nd < 1 || nd > H5S_MAX_RANK || H5Tget_array_dims2(type, d) < 0 || (sup = H5Tget_super(type)) < 0)
            NCZ_GOTO(H5I_INVALID_HID, NCZ_E_HDF5, "%s: cannot read an array type", what);
        if ((sst = storage_rec(sup, what, depth + 1)) < 0)
            NCZ_GOTO_QUIET(H5I_INVALID_HID);
        if ((ret = H5Tarray_create2(sst, (unsigned)nd, d)) < 0)
            NCZ_GOTO(H5I_INVALID_HID, NCZ_E_HDF5, "%s: cannot build the packed array type", what);
        break;
    }
    default: {
        char s[NCZTR_DTYPE_MAX];
        if (ncztr_ct_leaf_dtype(type, what, s) < 0)
            NCZ_GOTO_QUIET(H5I_INVALID_HID);
        if ((ret = H5Tcopy(type)) < 0)
            NCZ_GOTO(H5I_INVALID_HID, NCZ_E_HDF5, "%s: cannot copy a member type", what);
        break;
    }
    }
done:
    if (mts)
        for (int i = 0; i < n; i++)
            close_type(mts[i]);
    free(mts);
    close_type(sup);
    close_type(sst);
    close_type(t);
    return ret;
}

hid_t ncztr_ctype_storage(hid_t type, const char *what)
{
    hid_t t = storage_rec(type, what ? what : "datatype", 0);
    if (t >= 0 && H5Tget_size(t) > MAX_RECORD) {
        close_type(t);
        NCZ_PUSH(NCZ_E_NOTREPR, "%s: records of more than %zu bytes are not supported", what, MAX_RECORD);
        return H5I_INVALID_HID;
    }
    return t;
}

/* ---- parsing structured dtypes ------------------------------------------------------------ */

static hid_t parse_list(const json_t *list, const char *what, int depth);

static hid_t parse_leaf(const char *s, const char *what)
{
    ncztr_dtype dt;
    hid_t t;
    if (!strcmp(s, "<f2") || !strcmp(s, ">f2") || (!strcmp(s, "=f2") && !NATIVE_BIG))
        return H5Tcopy(s[0] == '>' ? H5T_IEEE_F16BE : H5T_IEEE_F16LE);
    if (s[0] == '|' && s[1] == 'V' && s[2] >= '1' && s[2] <= '9') {
        /* raw bytes: an opaque type of that size */
        char *end;
        unsigned long long n = strtoull(s + 2, &end, 10);
        if (*end || n > MAX_RECORD) {
            NCZ_PUSH(NCZ_E_FORMAT, "%s: invalid structured dtype: bad void field \"%s\"", what, s);
            return H5I_INVALID_HID;
        }
        if ((t = H5Tcreate(H5T_OPAQUE, (size_t)n)) < 0)
            NCZ_PUSH(NCZ_E_HDF5, "%s: cannot make an opaque type", what);
        return t;
    }
    if (ncztr_dtype_parse(s, what, &dt) < 0)
        return H5I_INVALID_HID;
    if (dt.tclass == NCZTR_T_CHAR) {
        /* inside a record "S1" is a 1-byte string like any other */
        if ((t = H5Tcopy(H5T_C_S1)) < 0 || H5Tset_size(t, 1) < 0 || H5Tset_strpad(t, H5T_STR_NULLPAD) < 0) {
            close_type(t);
            NCZ_PUSH(NCZ_E_HDF5, "%s: cannot make a string type", what);
            return H5I_INVALID_HID;
        }
        return t;
    }
    return ncztr_dtype_to_hdf5(&dt);
}

/* One field [name, dtype(, shape)] -> *name, member type. */
static hid_t parse_field(const json_t *f, const char *what, int depth, const char **name)
{
    hid_t ret = H5I_INVALID_HID, base = H5I_INVALID_HID;
    size_t n = json_is_array(f) ? json_array_size(f) : 0;
    if (n != 2 && n != 3)
        NCZ_GOTO(H5I_INVALID_HID, NCZ_E_FORMAT,
                 "%s: invalid structured dtype: a field must be [name, dtype] or [name, dtype, shape]", what);
    const json_t *nm = json_array_get(f, 0), *dt = json_array_get(f, 1), *sh = json_array_get(f, 2);
    if (!json_is_string(nm) || json_string_length(nm) == 0 ||
        strlen(json_string_value(nm)) != json_string_length(nm))
        NCZ_GOTO(H5I_INVALID_HID, NCZ_E_FORMAT,
                 "%s: invalid structured dtype: a field name must be a non-empty string", what);
    *name = json_string_value(nm);
    if (json_is_string(dt))
        base = parse_leaf(json_string_value(dt), what);
    else if (json_is_array(dt))
        base = parse_list(dt, what, depth + 1);
    else
        NCZ_GOTO(H5I_INVALID_HID, NCZ_E_FORMAT, "%s: invalid structured dtype: field \"%s\" has no dtype",
                 what, *name);
    if (base < 0)
        NCZ_GOTO_QUIET(H5I_INVALID_HID);
    if (!sh) {
        ret = base;
        base = H5I_INVALID_HID;
        NCZ_GOTO_QUIET(ret);
    }
    size_t nd = json_is_array(sh) ? json_array_size(sh) : 0;
    hsize_t d[H5S_MAX_RANK];
    size_t total = H5Tget_size(base);
    if (nd < 1 || nd > H5S_MAX_RANK)
        NCZ_GOTO(H5I_INVALID_HID, NCZ_E_FORMAT, "%s: invalid structured dtype: bad shape of field \"%s\"",
                 what, *name);
    for (size_t k = 0; k < nd; k++) {
        const json_t *e = json_array_get(sh, k);
        if (!json_is_integer(e) || json_integer_value(e) < 1 || (size_t)json_integer_value(e) > MAX_RECORD)
            NCZ_GOTO(H5I_INVALID_HID, NCZ_E_FORMAT,
                     "%s: invalid structured dtype: shape of field \"%s\" must hold positive integers", what,
                     *name);
        d[k] = (hsize_t)json_integer_value(e);
        if (!ncztr_mul_size(total, (size_t)d[k], &total) || total > MAX_RECORD)
            NCZ_GOTO(H5I_INVALID_HID, NCZ_E_UNSUPPORTED, "%s: field \"%s\" is larger than %zu bytes", what,
                     *name, MAX_RECORD);
    }
    if ((ret = H5Tarray_create2(base, (unsigned)nd, d)) < 0)
        NCZ_GOTO(H5I_INVALID_HID, NCZ_E_HDF5, "%s: cannot build the array type of field \"%s\"", what, *name);
done:
    close_type(base);
    return ret;
}

static hid_t parse_list(const json_t *list, const char *what, int depth)
{
    hid_t ret = H5I_INVALID_HID, t = H5I_INVALID_HID;
    hid_t *mts = NULL;
    const char **names = NULL;
    size_t n = json_is_array(list) ? json_array_size(list) : 0, total = 0, off = 0;
    if (depth > MAX_DEPTH)
        NCZ_GOTO(H5I_INVALID_HID, NCZ_E_UNSUPPORTED, "%s: structured dtype nested deeper than %d levels",
                 what, MAX_DEPTH);
    if (n < 1 || n > MAX_FIELDS)
        NCZ_GOTO(H5I_INVALID_HID, NCZ_E_FORMAT, "%s: invalid structured dtype: %zu fields (1 to %d allowed)",
                 what, n, MAX_FIELDS);
    mts = calloc(n, sizeof *mts);
    names = calloc(n, sizeof *names);
    NCZ_CHECK_ALLOC(mts && names, H5I_INVALID_HID);
    for (size_t i = 0; i < n; i++)
        mts[i] = H5I_INVALID_HID;
    for (size_t i = 0; i < n; i++) {
        if ((mts[i] = parse_field(json_array_get(list, i), what, depth, &names[i])) < 0)
            NCZ_GOTO_QUIET(H5I_INVALID_HID);
        total += H5Tget_size(mts[i]);
        if (total > MAX_RECORD)
            NCZ_GOTO(H5I_INVALID_HID, NCZ_E_UNSUPPORTED, "%s: structured records larger than %zu bytes", what,
                     MAX_RECORD);
        for (size_t j = 0; j < i; j++)
            if (!strcmp(names[j], names[i]))
                NCZ_GOTO(H5I_INVALID_HID, NCZ_E_FORMAT,
                         "%s: invalid structured dtype: field \"%s\" appears twice", what, names[i]);
    }
    if ((t = H5Tcreate(H5T_COMPOUND, total)) < 0)
        NCZ_GOTO(H5I_INVALID_HID, NCZ_E_HDF5, "%s: cannot create a compound type", what);
    for (size_t i = 0; i < n; i++) {
        if (H5Tinsert(t, names[i], off, mts[i]) < 0)
            NCZ_GOTO(H5I_INVALID_HID, NCZ_E_HDF5, "%s: cannot insert field \"%s\"", what, names[i]);
        off += H5Tget_size(mts[i]);
    }
    ret = t;
    t = H5I_INVALID_HID;
done:
    if (mts)
        for (size_t i = 0; i < n; i++)
            close_type(mts[i]);
    free(mts);
    free(names);
    close_type(t);
    return ret;
}

hid_t ncztr_struct_to_hdf5(const json_t *list, const char *what)
{
    return parse_list(list, what ? what : "dtype", 0);
}
