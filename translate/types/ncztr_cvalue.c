/* Values of HDF5 types kept exactly (enum, compound, array, vlen sequences and strings
 * inside them, raw numbers) as JSON: attribute values, and the elements of datasets whose
 * values have variable-length parts (one JSON text per element). */
#include "ncztr_ctype_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DEPTH  NCZTR_CT_MAX_DEPTH
#define close_type ncztr_ct_close
#define is_half    ncztr_is_half_float

/* A raw value (ncztr_type_is_raw) is the Base64 of its bytes. */
static json_t *raw_to_json(const unsigned char *p, size_t n)
{
    char *b = ncztr_b64_encode(p, n);
    json_t *j = b ? json_string(b) : NULL;
    free(b);
    if (!j)
        NCZ_PUSH(NCZ_E_NOMEM, "out of memory");
    return j;
}

static herr_t raw_from_json(const json_t *j, unsigned char *p, size_t n, const char *what)
{
    size_t l = json_is_string(j) ? json_string_length(j) : 0;
    unsigned char *b = l ? malloc(l) : NULL;
    long got = b ? ncztr_b64_decode(json_string_value(j), l, b, l) : -1;
    if (got >= 0 && (size_t)got == n)
        memcpy(p, b, n);
    free(b);
    if (got < 0 || (size_t)got != n)
        return NCZ_PUSH(NCZ_E_FORMAT, "%s: expected the Base64 of %zu bytes", what, n);
    return SUCCEED;
}

/* ---- attribute values --------------------------------------------------------------------- */

static json_t *elem_to_json(hid_t t, const unsigned char *p, const char *what, int depth);

/* Whether the elements of base are plain numbers, and their dtype: the elements of an array
 * or sequence of numbers (a list of 140000 of them in one value) are then converted with the
 * dtype found once, not with HDF5 calls that find it again for each element. */
static bool plain_numbers(hid_t base, ncztr_dtype *dt)
{
    H5T_class_t c = H5Tget_class(base);
    if ((c != H5T_INTEGER && c != H5T_FLOAT) || ncztr_type_is_raw(base) || is_half(base))
        return false;
    hid_t es = ncz_err_save(); /* a failure here is the element's own conversion's to report */
    bool ok = ncztr_dtype_from_hdf5(base, 0, "", dt) >= 0;
    ncz_err_restore(es);
    return ok;
}

static json_t *array_to_json(hid_t base, size_t bsz, const hsize_t *d, int nd, const unsigned char **p,
                             const char *what, int depth)
{
    json_t *l = json_array();
    if (!l) {
        NCZ_PUSH(NCZ_E_NOMEM, "out of memory");
        return NULL;
    }
    ncztr_dtype dt;
    bool num = nd == 1 && d[0] > 1 && plain_numbers(base, &dt);
    for (hsize_t i = 0; i < d[0]; i++) {
        json_t *e;
        if (nd > 1) {
            e = array_to_json(base, bsz, d + 1, nd - 1, p, what, depth);
        } else {
            e = num ? ncztr_json_from_elem(&dt, *p, what) : elem_to_json(base, *p, what, depth + 1);
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
    if (ncztr_type_is_raw(t))
        return raw_to_json(p, H5Tget_size(t));
    switch (H5Tget_class(t)) {
    case H5T_VLEN: {
        hvl_t v;
        memcpy(&v, p, sizeof v);
        if ((sup = H5Tget_super(t)) < 0)
            NCZ_GOTO(NULL, NCZ_E_HDF5, "%s: cannot read a variable-length type", what);
        if (v.len && !v.p)
            NCZ_GOTO(NULL, NCZ_E_ARGS, "%s: a sequence of %zu elements without data", what, v.len);
        hsize_t d = v.len;
        const unsigned char *q = v.p;
        ret = array_to_json(sup, H5Tget_size(sup), &d, 1, &q, what, depth);
        break;
    }
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
        if (H5Tis_variable_str(t) > 0) {
            const char *v;
            memcpy(&v, p, sizeof v);
            if (!v)
                ret = json_null();
            else if (!(ret = json_string(v)))
                NCZ_GOTO(NULL, NCZ_E_NOTREPR, "%s: a variable-length string is not valid UTF-8", what);
            break;
        }
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
    ncztr_dtype dt;
    bool num = nd == 1 && d[0] > 1 && plain_numbers(base, &dt);
    for (hsize_t i = 0; i < d[0]; i++) {
        const json_t *e = json_array_get(j, i);
        if (nd > 1) {
            if (array_from_json(base, bsz, d + 1, nd - 1, e, p, what, depth) < 0)
                return FAIL;
        } else {
            if ((num ? ncztr_json_to_elem(&dt, e, what, *p) : elem_from_json(base, e, *p, what, depth + 1)) <
                0)
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
    if (ncztr_type_is_raw(t))
        return raw_from_json(j, p, H5Tget_size(t), what);
    switch (H5Tget_class(t)) {
    case H5T_VLEN: {
        /* malloc'ed, what H5Treclaim with H5P_DEFAULT frees */
        hvl_t v = {0, NULL};
        if (!json_is_array(j))
            NCZ_GOTO(FAIL, NCZ_E_FORMAT, "%s: expected a list for a variable-length sequence", what);
        if ((sup = H5Tget_super(t)) < 0)
            NCZ_GOTO(FAIL, NCZ_E_HDF5, "%s: cannot read a variable-length type", what);
        size_t bsz = H5Tget_size(sup);
        hsize_t d = json_array_size(j);
        if (d && (bsz > NCZTR_CT_MAX_SEQ || d > NCZTR_CT_MAX_SEQ / (bsz ? bsz : 1)))
            NCZ_GOTO(FAIL, NCZ_E_FORMAT,
                     "%s: a variable-length sequence of %llu elements of %zu bytes is more than %zu bytes",
                     what, (unsigned long long)d, bsz, NCZTR_CT_MAX_SEQ);
        if (d) {
            unsigned char *q = v.p = calloc(d, bsz ? bsz : 1);
            NCZ_CHECK_ALLOC(v.p, FAIL);
            v.len = d;
            if (array_from_json(sup, bsz, &d, 1, j, &q, what, depth) < 0) {
                hid_t es = ncz_err_save();
                ncztr_refval_free(sup, v.p, v.len);
                ncz_err_restore(es);
                free(v.p);
                NCZ_GOTO_QUIET(FAIL);
            }
        }
        memcpy(p, &v, sizeof v);
        break;
    }
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
        if (H5Tis_variable_str(t) > 0) {
            char *v = NULL;
            if (!json_is_null(j) && !json_is_string(j))
                NCZ_GOTO(FAIL, NCZ_E_FORMAT, "%s: expected a string", what);
            if (json_is_string(j) && !(v = strndup(json_string_value(j), json_string_length(j))))
                NCZ_GOTO(FAIL, NCZ_E_NOMEM, "out of memory");
            memcpy(p, &v, sizeof v);
            break;
        }
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

static herr_t check(hid_t t, const char *what, int depth)
{
    herr_t ret = SUCCEED;
    hid_t sup = H5I_INVALID_HID;
    if (depth > MAX_DEPTH)
        return NCZ_PUSH(NCZ_E_NOTREPR, "%s: type nested too deeply", what);
    if (H5Tget_size(t) > NCZTR_CT_MAX_RECORD)
        return NCZ_PUSH(NCZ_E_NOTREPR, "%s: values of more than %zu bytes are not supported", what,
                        NCZTR_CT_MAX_RECORD);
    if (ncztr_type_is_raw(t))
        return SUCCEED;
    switch (H5Tget_class(t)) {
    case H5T_INTEGER:
    case H5T_FLOAT:
    case H5T_STRING:
    case H5T_ENUM:
    case H5T_BITFIELD:
    case H5T_OPAQUE:
        break;
    case H5T_COMPOUND: {
        int n = H5Tget_nmembers(t);
        if (n < 1)
            NCZ_GOTO(FAIL, NCZ_E_NOTREPR,
                     "%s: a compound type without members is not representable in NCZarr", what);
        for (int i = 0; i < n && ret >= 0; i++) {
            hid_t m = H5Tget_member_type(t, (unsigned)i);
            ret = m < 0 ? NCZ_PUSH(NCZ_E_HDF5, "%s: cannot read a compound member", what)
                        : check(m, what, depth + 1);
            close_type(m);
        }
        break;
    }
    case H5T_ARRAY:
    case H5T_VLEN:
        if ((sup = H5Tget_super(t)) < 0)
            NCZ_GOTO(FAIL, NCZ_E_HDF5, "%s: cannot read an array or variable-length type", what);
        ret = check(sup, what, depth + 1);
        break;
    default:
        NCZ_GOTO(FAIL, NCZ_E_NOTREPR, "%s: values of HDF5 type class %d (%s) are not representable in NCZarr",
                 what, (int)H5Tget_class(t), H5Tget_class(t) == H5T_REFERENCE ? "reference" : "time");
    }
done:
    close_type(sup);
    return ret;
}

herr_t ncztr_cvalue_convert(hid_t src_t, const void *src, hid_t dst_t, void *dst, size_t n, const char *what)
{
    size_t ss = H5Tget_size(src_t), ds = H5Tget_size(dst_t);
    for (size_t i = 0; i < n; i++) {
        unsigned char *d = (unsigned char *)dst + i * ds;
        memset(d, 0, ds); /* a failed decode frees what it made of it */
        json_t *j = elem_to_json(src_t, (const unsigned char *)src + i * ss, what, 0);
        herr_t r = j ? elem_from_json(dst_t, j, d, what, 0) : FAIL;
        json_decref(j);
        if (r < 0) {
            hid_t es = ncz_err_save(); /* the HDF5 calls of the walk clear the stack */
            ncztr_refval_free(dst_t, dst, i + 1);
            memset(dst, 0, (i + 1) * ds);
            ncz_err_restore(es);
            return FAIL;
        }
    }
    return SUCCEED;
}

herr_t ncztr_cvalue_check(hid_t type, const char *what)
{
    return check(type, what ? what : "datatype", 0);
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
