/* Zarr v2 dtype strings <-> ncztr_dtype <-> HDF5 datatypes. */
#include "ncztr_types.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "=" and a missing byte-order character mean the machine's order (NumPy semantics). */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define NATIVE_BIG 1
#else
#define NATIVE_BIG 0
#endif

/* Largest fixed string accepted. HDF5 allows up to 2^32-1 bytes, but the fill value and
 * every element buffer are this big, so a hostile .zarray ("|S4294967295") could make a
 * reader allocate gigabytes per element; 64 MiB per string is far beyond real use. */
#define MAX_STRING_SIZE (1ull << 26)

/* Names the NumPy kinds we recognise but cannot store, so the message says what it is. */
static const char *unsupported_kind(char k)
{
    switch (k) {
    case 'c':
        return "complex";
    case 'm':
        return "timedelta";
    case 'M':
        return "datetime";
    case 'U':
        return "unicode string";
    case 'O':
        return "Python object";
    case 'V':
        return "raw void/structured";
    default:
        return NULL;
    }
}

herr_t ncztr_dtype_parse(const char *text, const char *what, ncztr_dtype *out)
{
    herr_t ret = SUCCEED;
    const char *p, *body;
    char order = 0;
    char kind;
    unsigned long long n = 0;
    const char *kname;
    ncztr_dtype dt;

    if (!what)
        what = "dtype";
    if (!out)
        NCZ_GOTO(FAIL, NCZ_E_ARGS, "%s: no output for the dtype", what);
    if (!text)
        NCZ_GOTO(FAIL, NCZ_E_FORMAT, "%s: missing dtype", what);
    memset(&dt, 0, sizeof dt);
    if (strlen(text) >= NCZTR_DTYPE_MAX)
        NCZ_GOTO(FAIL, NCZ_E_FORMAT, "%s: invalid dtype \"%.40s...\" (too long)", what, text);

    p = text;
    if (*p == '<' || *p == '>' || *p == '|' || *p == '=')
        order = *p++;
    body = p;
    kind = *p++;
    if (kind == '\0')
        NCZ_GOTO(FAIL, NCZ_E_FORMAT, "%s: invalid dtype \"%s\"", what, text);
    if ((kname = unsupported_kind(kind)) != NULL)
        NCZ_GOTO(FAIL, NCZ_E_UNSUPPORTED, "%s: unsupported dtype \"%s\" (%s)", what, text, kname);
    if (kind != 'i' && kind != 'u' && kind != 'f' && kind != 'b' && kind != 'S')
        NCZ_GOTO(FAIL, NCZ_E_FORMAT, "%s: invalid dtype \"%s\"", what, text);

    /* The size: plain decimal digits, no sign, no leading zero, nothing after. */
    if (*p < '1' || *p > '9') {
        if (kind == 'S' && *p == '0' && p[1] == '\0')
            NCZ_GOTO(FAIL, NCZ_E_UNSUPPORTED, "%s: unsupported dtype \"%s\" (zero-length string)", what,
                     text);
        NCZ_GOTO(FAIL, NCZ_E_FORMAT, "%s: invalid dtype \"%s\" (bad size)", what, text);
    }
    for (; *p >= '0' && *p <= '9'; p++) {
        n = n * 10 + (unsigned long long)(*p - '0');
        if (n > MAX_STRING_SIZE)
            NCZ_GOTO(FAIL, NCZ_E_UNSUPPORTED, "%s: unsupported dtype \"%s\" (size too large)", what, text);
    }
    if (*p != '\0')
        NCZ_GOTO(FAIL, NCZ_E_FORMAT, "%s: invalid dtype \"%s\"", what, text);

    switch (kind) {
    case 'i':
    case 'u':
        if (n != 1 && n != 2 && n != 4 && n != 8)
            NCZ_GOTO(FAIL, NCZ_E_UNSUPPORTED, "%s: unsupported dtype \"%s\" (%llu-byte integer)", what, text,
                     n);
        dt.tclass = kind == 'i' ? NCZTR_T_INT : NCZTR_T_UINT;
        break;
    case 'f':
        if (n == 2)
            NCZ_GOTO(FAIL, NCZ_E_UNSUPPORTED, "%s: unsupported dtype \"%s\" (16-bit float)", what, text);
        if (n != 4 && n != 8)
            NCZ_GOTO(FAIL, NCZ_E_UNSUPPORTED, "%s: unsupported dtype \"%s\" (%llu-byte float)", what, text,
                     n);
        dt.tclass = NCZTR_T_FLOAT;
        break;
    case 'b':
        if (n != 1)
            NCZ_GOTO(FAIL, NCZ_E_FORMAT, "%s: invalid dtype \"%s\" (bool must be 1 byte)", what, text);
        dt.tclass = NCZTR_T_UINT;
        dt.is_bool = 1;
        break;
    default: /* 'S' */
        /* Every "S1" is a character (netCDF NC_CHAR); longer ones are strings. */
        dt.tclass = n == 1 ? NCZTR_T_CHAR : NCZTR_T_STRING;
        break;
    }
    dt.size = (size_t)n;

    /* Byte order only means something for multi-byte numbers; "|" there would leave the
     * order of the chunk bytes unknown, so it is refused rather than guessed. */
    if (dt.size > 1 && dt.tclass != NCZTR_T_CHAR && dt.tclass != NCZTR_T_STRING) {
        if (order == '|')
            NCZ_GOTO(FAIL, NCZ_E_FORMAT, "%s: invalid dtype \"%s\" (multi-byte number needs '<' or '>')",
                     what, text);
        if (order == '=' || order == 0)
            order = NATIVE_BIG ? '>' : '<';
        dt.big_endian = order == '>';
    } else if (order == '=' || order == 0) {
        order = '|';
    } else if (dt.tclass != NCZTR_T_CHAR && dt.tclass != NCZTR_T_STRING) {
        /* a 1-byte number's order changes no byte, but HDF5 keeps it as part of the type
         * (H5T_STD_I8BE is not H5T_STD_I8LE): ">i1" says which */
        dt.big_endian = order == '>';
    }

    /* Canonical text: as written, except that "=" / no prefix become the explicit order so
     * that what we write back is never machine-dependent. */
    {
        size_t blen = strlen(body);
        if (blen + 2 > sizeof dt.zarr)
            NCZ_GOTO(FAIL, NCZ_E_FORMAT, "%s: invalid dtype \"%s\" (too long)", what, text);
        dt.zarr[0] = order;
        memcpy(dt.zarr + 1, body, blen + 1);
    }
    *out = dt;
done:
    return ret;
}

hid_t ncztr_dtype_to_hdf5(const ncztr_dtype *dt)
{
    hid_t ret = H5I_INVALID_HID;
    hid_t base = H5I_INVALID_HID;
    hid_t t = H5I_INVALID_HID;

    if (!dt)
        NCZ_GOTO(H5I_INVALID_HID, NCZ_E_ARGS, "no dtype given");
    switch (dt->tclass) {
    case NCZTR_T_INT:
    case NCZTR_T_UINT: {
        int s = dt->tclass == NCZTR_T_INT;
        int be = dt->big_endian;
        switch (dt->size) {
        case 1:
            base = s ? (be ? H5T_STD_I8BE : H5T_STD_I8LE) : (be ? H5T_STD_U8BE : H5T_STD_U8LE);
            break;
        case 2:
            base = s ? (be ? H5T_STD_I16BE : H5T_STD_I16LE) : (be ? H5T_STD_U16BE : H5T_STD_U16LE);
            break;
        case 4:
            base = s ? (be ? H5T_STD_I32BE : H5T_STD_I32LE) : (be ? H5T_STD_U32BE : H5T_STD_U32LE);
            break;
        case 8:
            base = s ? (be ? H5T_STD_I64BE : H5T_STD_I64LE) : (be ? H5T_STD_U64BE : H5T_STD_U64LE);
            break;
        default:
            NCZ_GOTO(H5I_INVALID_HID, NCZ_E_INTERNAL, "dtype \"%s\": bad integer size %zu", dt->zarr,
                     dt->size);
        }
        break;
    }
    case NCZTR_T_FLOAT:
        if (dt->size == 4)
            base = dt->big_endian ? H5T_IEEE_F32BE : H5T_IEEE_F32LE;
        else if (dt->size == 8)
            base = dt->big_endian ? H5T_IEEE_F64BE : H5T_IEEE_F64LE;
        else
            NCZ_GOTO(H5I_INVALID_HID, NCZ_E_INTERNAL, "dtype \"%s\": bad float size %zu", dt->zarr, dt->size);
        break;
    case NCZTR_T_CHAR:
        /* netCDF-4 writes NC_CHAR as H5T_C_S1 of size 1 and keeps its default NULLTERM
         * padding; doing the same makes our datasets look like netCDF-4's to HDF5 tools. */
        if ((t = H5Tcopy(H5T_C_S1)) < 0)
            NCZ_GOTO(H5I_INVALID_HID, NCZ_E_HDF5, "dtype \"%s\": H5Tcopy failed", dt->zarr);
        if (H5Tset_size(t, 1) < 0)
            NCZ_GOTO(H5I_INVALID_HID, NCZ_E_HDF5, "dtype \"%s\": H5Tset_size failed", dt->zarr);
        ret = t;
        t = H5I_INVALID_HID;
        goto done;
    case NCZTR_T_STRING:
        /* Zarr "S" values are NUL-padded bytes (NumPy bytes_), hence NULLPAD. */
        if (dt->size < 1)
            NCZ_GOTO(H5I_INVALID_HID, NCZ_E_INTERNAL, "dtype \"%s\": zero string size", dt->zarr);
        if ((t = H5Tcopy(H5T_C_S1)) < 0)
            NCZ_GOTO(H5I_INVALID_HID, NCZ_E_HDF5, "dtype \"%s\": H5Tcopy failed", dt->zarr);
        if (H5Tset_size(t, dt->size) < 0 || H5Tset_strpad(t, H5T_STR_NULLPAD) < 0)
            NCZ_GOTO(H5I_INVALID_HID, NCZ_E_HDF5, "dtype \"%s\": cannot make a %zu-byte string type",
                     dt->zarr, dt->size);
        ret = t;
        t = H5I_INVALID_HID;
        goto done;
    default:
        NCZ_GOTO(H5I_INVALID_HID, NCZ_E_INTERNAL, "dtype \"%s\": bad class %d", dt->zarr, (int)dt->tclass);
    }
    if ((ret = H5Tcopy(base)) < 0)
        NCZ_GOTO(H5I_INVALID_HID, NCZ_E_HDF5, "dtype \"%s\": H5Tcopy failed", dt->zarr);
done:
    if (t >= 0) {
        /* H5Tclose would clear the message just pushed (HDF5 API calls clear the stack). */
        hid_t errs = ncz_err_save();
        H5Tclose(t);
        ncz_err_restore(errs);
    }
    return ret;
}

static const char *class_name(H5T_class_t c)
{
    switch (c) {
    case H5T_TIME:
        return "time";
    case H5T_BITFIELD:
        return "bitfield";
    case H5T_OPAQUE:
        return "opaque";
    case H5T_COMPOUND:
        return "compound";
    case H5T_REFERENCE:
        return "reference";
    case H5T_ENUM:
        return "enum";
    case H5T_VLEN:
        return "variable-length sequence";
    case H5T_ARRAY:
        return "array";
    default:
        return NULL;
    }
}

herr_t ncztr_dtype_from_hdf5(hid_t type, size_t maxstrlen, const char *what, ncztr_dtype *out)
{
    herr_t ret = SUCCEED;
    H5T_class_t cls;
    size_t size;
    ncztr_dtype dt;
    const char *cname;

    if (!what)
        what = "datatype";
    if (!out)
        NCZ_GOTO(FAIL, NCZ_E_ARGS, "%s: no output for the dtype", what);
    memset(&dt, 0, sizeof dt);
    if ((cls = H5Tget_class(type)) == H5T_NO_CLASS)
        NCZ_GOTO(FAIL, NCZ_E_ARGS, "%s: not a valid HDF5 datatype", what);
    if ((size = H5Tget_size(type)) == 0)
        NCZ_GOTO(FAIL, NCZ_E_HDF5, "%s: H5Tget_size failed", what);

    if (cls == H5T_INTEGER || cls == H5T_FLOAT) {
        H5T_order_t order = H5Tget_order(type);
        if (cls == H5T_INTEGER) {
            H5T_sign_t sign = H5Tget_sign(type);
            if (sign == H5T_SGN_ERROR)
                NCZ_GOTO(FAIL, NCZ_E_HDF5, "%s: H5Tget_sign failed", what);
            if (size != 1 && size != 2 && size != 4 && size != 8)
                NCZ_GOTO(FAIL, NCZ_E_NOTREPR, "%s: %zu-byte integer type is not representable in NCZarr",
                         what, size);
            dt.tclass = sign == H5T_SGN_2 ? NCZTR_T_INT : NCZTR_T_UINT;
        } else {
            if (size == 2)
                NCZ_GOTO(FAIL, NCZ_E_NOTREPR, "%s: 16-bit float type is not representable in NCZarr", what);
            if (size != 4 && size != 8)
                NCZ_GOTO(FAIL, NCZ_E_NOTREPR, "%s: %zu-byte float type is not representable in NCZarr", what,
                         size);
            /* A 4/8-byte float with a non-IEEE layout would be misread by every Zarr reader. */
            {
                size_t spos, epos, esize, mpos, msize;
                if (H5Tget_fields(type, &spos, &epos, &esize, &mpos, &msize) < 0)
                    NCZ_GOTO(FAIL, NCZ_E_HDF5, "%s: H5Tget_fields failed", what);
                if ((size == 4 && (esize != 8 || msize != 23)) || (size == 8 && (esize != 11 || msize != 52)))
                    NCZ_GOTO(FAIL, NCZ_E_NOTREPR,
                             "%s: non-IEEE %zu-byte float type is not representable in NCZarr", what, size);
            }
            dt.tclass = NCZTR_T_FLOAT;
        }
        if (size > 1) {
            if (order == H5T_ORDER_LE)
                dt.big_endian = 0;
            else if (order == H5T_ORDER_BE)
                dt.big_endian = 1;
            else
                NCZ_GOTO(FAIL, NCZ_E_NOTREPR,
                         "%s: numeric type with mixed/VAX byte order is not representable in NCZarr", what);
        }
        dt.size = size;
        if (size == 1) {
            /* "|" as numpy writes it, ">" for HDF5's big-endian 1-byte types (see the parser) */
            dt.big_endian = order == H5T_ORDER_BE;
            snprintf(dt.zarr, sizeof dt.zarr, "%c%c1", dt.big_endian ? '>' : '|',
                     dt.tclass == NCZTR_T_INT ? 'i' : 'u');
        } else
            snprintf(dt.zarr, sizeof dt.zarr, "%c%c%zu", dt.big_endian ? '>' : '<',
                     dt.tclass == NCZTR_T_INT    ? 'i'
                     : dt.tclass == NCZTR_T_UINT ? 'u'
                                                 : 'f',
                     size);
    } else if (cls == H5T_STRING) {
        htri_t vl = H5Tis_variable_str(type);
        if (vl < 0)
            NCZ_GOTO(FAIL, NCZ_E_HDF5, "%s: H5Tis_variable_str failed", what);
        if (vl) {
            size_t n = maxstrlen ? maxstrlen : NCZTR_DEFAULT_MAXSTRLEN;
            /* "|S1" reads back as a character, not a string: refuse rather than change type. */
            if (n < 2)
                NCZ_GOTO(FAIL, NCZ_E_ARGS, "%s: maximum string length %zu is too small (at least 2)", what,
                         n);
            if (n > MAX_STRING_SIZE)
                NCZ_GOTO(FAIL, NCZ_E_ARGS, "%s: maximum string length %zu is too large (limit %llu)", what, n,
                         MAX_STRING_SIZE);
            dt.tclass = NCZTR_T_STRING;
            dt.size = n;
            snprintf(dt.zarr, sizeof dt.zarr, "|S%zu", n);
        } else if (size == 1) {
            dt.tclass = NCZTR_T_CHAR;
            dt.size = 1;
            snprintf(dt.zarr, sizeof dt.zarr, ">S1");
        } else {
            if (size > MAX_STRING_SIZE)
                NCZ_GOTO(FAIL, NCZ_E_UNSUPPORTED, "%s: %zu-byte fixed strings are not supported (limit %llu)",
                         what, size, MAX_STRING_SIZE);
            dt.tclass = NCZTR_T_STRING;
            dt.size = size;
            snprintf(dt.zarr, sizeof dt.zarr, "|S%zu", size);
        }
    } else if ((cname = class_name(cls)) != NULL) {
        NCZ_GOTO(FAIL, NCZ_E_NOTREPR, "%s: %s type is not representable in NCZarr", what, cname);
    } else {
        NCZ_GOTO(FAIL, NCZ_E_NOTREPR, "%s: HDF5 type class %d is not representable in NCZarr", what,
                 (int)cls);
    }
    *out = dt;
done:
    return ret;
}
