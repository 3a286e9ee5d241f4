/* HDF5 enum, compound and array types: Zarr v2 structured dtypes <-> HDF5 types, exact
 * HDF5 types kept as Base64 of H5Tencode, and attribute values of those types as JSON. */
#include "ncztr_types.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define NATIVE_BIG 1
#else
#define NATIVE_BIG 0
#endif

#define MAX_DEPTH  8                 /* nesting of compounds in a structured dtype */
#define MAX_FIELDS 4096              /* fields of one compound */
#define MAX_RECORD ((size_t)1 << 26) /* bytes of one record (as for fixed strings) */

/* Keeps the error stack across HDF5 calls made while cleaning up (they clear it). */
static void close_type(hid_t t)
{
    if (t < 0)
        return;
    hid_t es = ncz_err_save();
    H5Tclose(t);
    ncz_err_restore(es);
}

static bool is_half(hid_t t)
{
    size_t spos, epos, esize, mpos, msize;
    return H5Tget_class(t) == H5T_FLOAT && H5Tget_size(t) == 2 &&
           H5Tget_fields(t, &spos, &epos, &esize, &mpos, &msize) >= 0 && esize == 5 && msize == 10 &&
           (H5Tget_order(t) == H5T_ORDER_LE || H5Tget_order(t) == H5T_ORDER_BE);
}

bool ncztr_ctype_is_special(hid_t type)
{
    H5T_class_t c = H5Tget_class(type);
    return c == H5T_ENUM || c == H5T_COMPOUND || c == H5T_ARRAY || c == H5T_BITFIELD || c == H5T_OPAQUE;
}

bool ncztr_cattr_is_special(hid_t type)
{
    return ncztr_ctype_is_special(type) || is_half(type);
}

/* The dtype text of a leaf member type (number, enum, fixed string). */
static herr_t leaf_dtype(hid_t t, const char *what, char out[NCZTR_DTYPE_MAX])
{
    herr_t ret = SUCCEED;
    H5T_class_t c = H5Tget_class(t);
    if (c == H5T_ENUM) {
        hid_t b = H5Tget_super(t);
        if (b < 0)
            NCZ_GOTO(FAIL, NCZ_E_HDF5, "%s: cannot get the base type of an enum", what);
        ret = leaf_dtype(b, what, out);
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
        if (leaf_dtype(base, what, s) < 0)
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
        if (leaf_dtype(type, what, s) < 0)
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
        if (__builtin_mul_overflow(total, (size_t)d[k], &total) || total > MAX_RECORD)
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

/* ---- attribute values --------------------------------------------------------------------- */

static json_t *elem_to_json(hid_t t, const unsigned char *p, const char *what, int depth);

static json_t *array_to_json(hid_t base, size_t bsz, const hsize_t *d, int nd, const unsigned char **p,
                             const char *what, int depth)
{
    json_t *l = json_array();
    if (!l) {
        NCZ_PUSH(NCZ_E_NOMEM, "out of memory");
        return NULL;
    }
    for (hsize_t i = 0; i < d[0]; i++) {
        json_t *e;
        if (nd > 1) {
            e = array_to_json(base, bsz, d + 1, nd - 1, p, what, depth);
        } else {
            e = elem_to_json(base, *p, what, depth + 1);
            *p += bsz;
        }
        if (!e || json_array_append_new(l, e) != 0) {
            if (e)
                NCZ_PUSH(NCZ_E_NOMEM, "out of memory");
            json_decref(l);
            return NULL;
        }
    }
    return l;
}

static json_t *elem_to_json(hid_t t, const unsigned char *p, const char *what, int depth)
{
    json_t *ret = NULL;
    hid_t sup = H5I_INVALID_HID;
    if (depth > MAX_DEPTH)
        NCZ_GOTO(NULL, NCZ_E_NOTREPR, "%s: type nested too deeply", what);
    switch (H5Tget_class(t)) {
    case H5T_ENUM:
    case H5T_BITFIELD:
    case H5T_OPAQUE:
        if ((sup = H5Tget_class(t) == H5T_ENUM ? H5Tget_super(t) : ncztr_bits_base(t)) < 0)
            NCZ_GOTO(NULL, NCZ_E_HDF5, "%s: cannot get the base type of an enum or bitfield", what);
        ret = elem_to_json(sup, p, what, depth + 1);
        break;
    case H5T_INTEGER:
    case H5T_FLOAT:
        if (is_half(t)) {
            float f = 0;
            unsigned char b[8];
            memcpy(b, p, 2);
            if (H5Tconvert(t, H5T_NATIVE_FLOAT, 1, b, NULL, H5P_DEFAULT) < 0)
                NCZ_GOTO(NULL, NCZ_E_HDF5, "%s: cannot convert a 16-bit float", what);
            memcpy(&f, b, sizeof f);
            ret = ncztr_json_real(f, 1);
        } else {
            ncztr_dtype dt;
            if (ncztr_dtype_from_hdf5(t, 0, what, &dt) < 0)
                NCZ_GOTO_QUIET(NULL);
            ret = ncztr_json_from_elem(&dt, p, what);
        }
        break;
    case H5T_STRING: {
        size_t size = H5Tget_size(t);
        if (H5Tis_variable_str(t) != 0)
            NCZ_GOTO(NULL, NCZ_E_NOTREPR, "%s: variable-length strings inside compounds are not supported",
                     what);
        size_t n = strnlen((const char *)p, size);
        if (H5Tget_strpad(t) == H5T_STR_SPACEPAD)
            while (n > 0 && p[n - 1] == ' ')
                n--;
        if (!(ret = json_stringn((const char *)p, n)))
            NCZ_GOTO(NULL, NCZ_E_NOTREPR, "%s: a string member is not valid UTF-8", what);
        break;
    }
    case H5T_COMPOUND: {
        int n = H5Tget_nmembers(t);
        json_t *o = json_object();
        NCZ_CHECK_ALLOC(o, NULL);
        for (int i = 0; i < n; i++) {
            char *nm = H5Tget_member_name(t, (unsigned)i);
            hid_t mt = H5Tget_member_type(t, (unsigned)i);
            size_t off = H5Tget_member_offset(t, (unsigned)i);
            json_t *e = nm && mt >= 0 ? elem_to_json(mt, p + off, what, depth + 1) : NULL;
            if (e && json_object_set_new(o, nm, e) != 0) {
                NCZ_PUSH(NCZ_E_NOMEM, "out of memory");
                e = NULL; /* taken over and freed by jansson */
            }
            if (nm)
                H5free_memory(nm);
            close_type(mt);
            if (!e) {
                json_decref(o);
                NCZ_GOTO_QUIET(NULL);
            }
        }
        ret = o;
        break;
    }
    case H5T_ARRAY: {
        hsize_t d[H5S_MAX_RANK];
        int nd = H5Tget_array_ndims(t);
        if (nd < 1 || nd > H5S_MAX_RANK || H5Tget_array_dims2(t, d) < 0 || (sup = H5Tget_super(t)) < 0)
            NCZ_GOTO(NULL, NCZ_E_HDF5, "%s: cannot read an array type", what);
        const unsigned char *q = p;
        ret = array_to_json(sup, H5Tget_size(sup), d, nd, &q, what, depth);
        break;
    }
    default:
        NCZ_GOTO(NULL, NCZ_E_NOTREPR, "%s: values of HDF5 type class %d are not representable in NCZarr",
                 what, (int)H5Tget_class(t));
    }
    if (!ret)
        NCZ_GOTO_QUIET(NULL);
done:
    close_type(sup);
    return ret;
}

static herr_t elem_from_json(hid_t t, const json_t *j, unsigned char *p, const char *what, int depth);

static herr_t array_from_json(hid_t base, size_t bsz, const hsize_t *d, int nd, const json_t *j,
                              unsigned char **p, const char *what, int depth)
{
    if (!json_is_array(j) || json_array_size(j) != d[0])
        return NCZ_PUSH(NCZ_E_FORMAT, "%s: expected a list of %llu values for an array type", what,
                        (unsigned long long)d[0]);
    for (hsize_t i = 0; i < d[0]; i++) {
        const json_t *e = json_array_get(j, i);
        if (nd > 1) {
            if (array_from_json(base, bsz, d + 1, nd - 1, e, p, what, depth) < 0)
                return FAIL;
        } else {
            if (elem_from_json(base, e, *p, what, depth + 1) < 0)
                return FAIL;
            *p += bsz;
        }
    }
    return SUCCEED;
}

static herr_t elem_from_json(hid_t t, const json_t *j, unsigned char *p, const char *what, int depth)
{
    herr_t ret = SUCCEED;
    hid_t sup = H5I_INVALID_HID;
    if (depth > MAX_DEPTH)
        NCZ_GOTO(FAIL, NCZ_E_FORMAT, "%s: type nested too deeply", what);
    switch (H5Tget_class(t)) {
    case H5T_ENUM:
    case H5T_BITFIELD:
    case H5T_OPAQUE:
        if ((sup = H5Tget_class(t) == H5T_ENUM ? H5Tget_super(t) : ncztr_bits_base(t)) < 0)
            NCZ_GOTO(FAIL, NCZ_E_HDF5, "%s: cannot get the base type of an enum or bitfield", what);
        ret = elem_from_json(sup, j, p, what, depth + 1);
        break;
    case H5T_INTEGER:
    case H5T_FLOAT: {
        ncztr_dtype dt;
        if (is_half(t)) {
            unsigned char b[8];
            if (ncztr_dtype_parse("<f4", what, &dt) < 0 || ncztr_json_to_elem(&dt, j, what, b) < 0)
                NCZ_GOTO_QUIET(FAIL);
            if (H5Tconvert(H5T_IEEE_F32LE, t, 1, b, NULL, H5P_DEFAULT) < 0)
                NCZ_GOTO(FAIL, NCZ_E_HDF5, "%s: cannot convert to a 16-bit float", what);
            memcpy(p, b, 2);
        } else if (ncztr_dtype_from_hdf5(t, 0, what, &dt) < 0 || ncztr_json_to_elem(&dt, j, what, p) < 0) {
            NCZ_GOTO_QUIET(FAIL);
        }
        break;
    }
    case H5T_STRING: {
        size_t size = H5Tget_size(t);
        if (H5Tis_variable_str(t) != 0)
            NCZ_GOTO(FAIL, NCZ_E_NOTREPR, "%s: variable-length strings inside compounds are not supported",
                     what);
        if (!json_is_string(j))
            NCZ_GOTO(FAIL, NCZ_E_FORMAT, "%s: expected a string", what);
        size_t n = json_string_length(j);
        if (n > size)
            n = size;
        memset(p, H5Tget_strpad(t) == H5T_STR_SPACEPAD ? ' ' : 0, size);
        memcpy(p, json_string_value(j), n);
        break;
    }
    case H5T_COMPOUND: {
        int n = H5Tget_nmembers(t);
        if (!json_is_object(j))
            NCZ_GOTO(FAIL, NCZ_E_FORMAT, "%s: expected an object for a compound value", what);
        for (int i = 0; i < n; i++) {
            char *nm = H5Tget_member_name(t, (unsigned)i);
            hid_t mt = H5Tget_member_type(t, (unsigned)i);
            size_t off = H5Tget_member_offset(t, (unsigned)i);
            const json_t *e = nm ? json_object_get(j, nm) : NULL;
            herr_t r = FAIL;
            if (!e)
                NCZ_PUSH(NCZ_E_FORMAT, "%s: compound value without member \"%s\"", what, nm ? nm : "?");
            else if (mt >= 0)
                r = elem_from_json(mt, e, p + off, what, depth + 1);
            if (nm)
                H5free_memory(nm);
            close_type(mt);
            if (r < 0)
                NCZ_GOTO_QUIET(FAIL);
        }
        break;
    }
    case H5T_ARRAY: {
        hsize_t d[H5S_MAX_RANK];
        int nd = H5Tget_array_ndims(t);
        if (nd < 1 || nd > H5S_MAX_RANK || H5Tget_array_dims2(t, d) < 0 || (sup = H5Tget_super(t)) < 0)
            NCZ_GOTO(FAIL, NCZ_E_HDF5, "%s: cannot read an array type", what);
        unsigned char *q = p;
        ret = array_from_json(sup, H5Tget_size(sup), d, nd, j, &q, what, depth);
        break;
    }
    default:
        NCZ_GOTO(FAIL, NCZ_E_NOTREPR, "%s: values of HDF5 type class %d are not supported", what,
                 (int)H5Tget_class(t));
    }
done:
    close_type(sup);
    return ret;
}

json_t *ncztr_celem_to_json(hid_t type, const void *elem, const char *what)
{
    return elem_to_json(type, elem, what, 0);
}

herr_t ncztr_celem_from_json(hid_t type, const json_t *j, void *elem, const char *what)
{
    return elem_from_json(type, j, elem, what, 0);
}

herr_t ncztr_cattr_to_json(const char *name, const ncztr_attrval *val, json_t **value,
                           char dtype[NCZTR_DTYPE_MAX])
{
    herr_t ret = SUCCEED;
    json_t *out = NULL;
    char what[300];
    snprintf(what, sizeof what, "attribute \"%s\"", name ? name : "");
    size_t esz = H5Tget_size(val->type);
    bool is_half_t = is_half(val->type);
    H5T_class_t vc = H5Tget_class(val->type);
    bool is_enum =
        vc == H5T_ENUM || vc == H5T_BITFIELD || vc == H5T_OPAQUE || is_half_t; /* numbers: NCZarr's rules */
    bool scalar = is_enum ? val->nelem == 1 : H5Sget_simple_extent_type(val->space) == H5S_SCALAR;
    hid_t st = ncztr_ctype_storage(val->type, what); /* validates every member */
    if (st < 0)
        NCZ_GOTO_QUIET(FAIL);
    close_type(st);
    if (is_half_t) {
        snprintf(dtype, NCZTR_DTYPE_MAX, "%cf4", H5Tget_order(val->type) == H5T_ORDER_BE ? '>' : '<');
    } else if (is_enum) {
        if (leaf_dtype(val->type, what, dtype) < 0)
            NCZ_GOTO_QUIET(FAIL);
    } else {
        /* JSON under ">S1", as netCDF-C types its JSON-valued attributes: it then shows the
         * JSON as text, while "|J0" on a user attribute makes it refuse the whole store.
         * The exact type is kept in "_nczarr_attr.hdf5.atypes". */
        snprintf(dtype, NCZTR_DTYPE_MAX, ">S1");
    }
    if (scalar && val->nelem == 1) {
        out = elem_to_json(val->type, val->data, what, 0);
    } else {
        out = json_array();
        NCZ_CHECK_ALLOC(out, FAIL);
        for (size_t i = 0; i < val->nelem; i++) {
            json_t *e = elem_to_json(val->type, (const unsigned char *)val->data + i * esz, what, 0);
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

herr_t ncztr_cattr_from_json(const char *name, json_t *value, hid_t type, ncztr_attrval *out)
{
    herr_t ret = SUCCEED;
    char what[300];
    ncztr_attrval v = {.type = H5I_INVALID_HID, .space = H5I_INVALID_HID};
    snprintf(what, sizeof what, "attribute \"%s\"", name ? name : "");
    H5T_class_t c = H5Tget_class(type);
    bool list;
    if (c == H5T_ARRAY) {
        /* list levels of one element: the dims of the array and of arrays inside it */
        int nd = 0;
        hid_t t = H5Tcopy(type);
        while (t >= 0 && H5Tget_class(t) == H5T_ARRAY) {
            nd += H5Tget_array_ndims(t);
            hid_t sup = H5Tget_super(t);
            H5Tclose(t);
            t = sup;
        }
        if (t >= 0)
            H5Tclose(t);
        list = json_is_array(value) && (json_array_size(value) == 0 || list_depth(value) > nd);
    } else {
        list = json_is_array(value);
    }
    size_t n = list ? json_array_size(value) : 1, esz = H5Tget_size(type);
    if ((v.type = H5Tcopy(type)) < 0)
        NCZ_GOTO(FAIL, NCZ_E_HDF5, "%s: cannot copy its type", what);
    hsize_t dim = n;
    if ((v.space = list ? H5Screate_simple(1, &dim, NULL) : H5Screate(H5S_SCALAR)) < 0)
        NCZ_GOTO(FAIL, NCZ_E_HDF5, "%s: cannot make a dataspace", what);
    if (!esz || !(v.data = calloc(n ? n : 1, esz)))
        NCZ_GOTO(FAIL, NCZ_E_NOMEM, "out of memory decoding %s", what);
    v.nelem = n;
    for (size_t i = 0; i < n; i++)
        if (elem_from_json(type, list ? json_array_get(value, i) : value, (unsigned char *)v.data + i * esz,
                           what, 0) < 0)
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

hid_t ncztr_bits_base(hid_t type)
{
    bool be = H5Tget_class(type) == H5T_BITFIELD && H5Tget_order(type) == H5T_ORDER_BE;
    switch (H5Tget_size(type)) {
    case 1:
        return H5Tcopy(H5T_STD_U8LE);
    case 2:
        return H5Tcopy(be ? H5T_STD_U16BE : H5T_STD_U16LE);
    case 4:
        return H5Tcopy(be ? H5T_STD_U32BE : H5T_STD_U32LE);
    case 8:
        return H5Tcopy(be ? H5T_STD_U64BE : H5T_STD_U64LE);
    default:
        NCZ_PUSH(NCZ_E_NOTREPR, "a %zu-byte %s is not representable in NCZarr (1, 2, 4 or 8 bytes are)",
                 H5Tget_size(type), H5Tget_class(type) == H5T_OPAQUE ? "opaque type" : "bitfield");
        return H5I_INVALID_HID;
    }
}
