/* Fill values and single numeric elements <-> JSON (Zarr v2 fill_value rules). */
#include "ncztr_types.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool ncztr_bytes_zero(const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++)
        if (b[i])
            return false;
    return true;
}

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define NATIVE_BIG 1
#else
#define NATIVE_BIG 0
#endif

/* Copies one element between the dtype's byte order and the machine's (same both ways). */
static void copy_swapped(unsigned char *dst, const unsigned char *src, size_t size, int big)
{
    if (size > 1 && big != NATIVE_BIG)
        for (size_t i = 0; i < size; i++)
            dst[i] = src[size - 1 - i];
    else
        memcpy(dst, src, size);
}

json_t *ncztr_json_from_elem(const ncztr_dtype *dt, const void *elem, const char *what)
{
    json_t *ret = NULL;
    unsigned char b[8];

    if (!what)
        what = "value";
    if (!dt || !elem || dt->size > 8 ||
        (dt->tclass != NCZTR_T_INT && dt->tclass != NCZTR_T_UINT && dt->tclass != NCZTR_T_FLOAT))
        NCZ_GOTO(NULL, NCZ_E_INTERNAL, "%s: not a numeric element", what);
    copy_swapped(b, elem, dt->size, dt->big_endian);
    if (dt->tclass == NCZTR_T_INT) {
        int64_t v;
        switch (dt->size) {
        case 1: {
            int8_t x;
            memcpy(&x, b, 1);
            v = x;
            break;
        }
        case 2: {
            int16_t x;
            memcpy(&x, b, 2);
            v = x;
            break;
        }
        case 4: {
            int32_t x;
            memcpy(&x, b, 4);
            v = x;
            break;
        }
        case 8:
            memcpy(&v, b, 8);
            break;
        default:
            NCZ_GOTO(NULL, NCZ_E_INTERNAL, "%s: bad integer size %zu", what, dt->size);
        }
        ret = json_integer((json_int_t)v);
    } else if (dt->tclass == NCZTR_T_UINT) {
        uint64_t v;
        switch (dt->size) {
        case 1:
            v = b[0];
            break;
        case 2: {
            uint16_t x;
            memcpy(&x, b, 2);
            v = x;
            break;
        }
        case 4: {
            uint32_t x;
            memcpy(&x, b, 4);
            v = x;
            break;
        }
        case 8:
            memcpy(&v, b, 8);
            break;
        default:
            NCZ_GOTO(NULL, NCZ_E_INTERNAL, "%s: bad integer size %zu", what, dt->size);
        }
        ret = dt->is_bool ? json_boolean(v != 0) : ncztr_json_uint64(v);
    } else if (dt->size == 4) {
        float f;
        memcpy(&f, b, 4);
        ret = ncztr_json_real(f, 1);
    } else if (dt->size == 8) {
        double d;
        memcpy(&d, b, 8);
        ret = ncztr_json_real(d, 0);
    } else {
        NCZ_GOTO(NULL, NCZ_E_INTERNAL, "%s: bad float size %zu", what, dt->size);
    }
    if (!ret)
        NCZ_GOTO(NULL, NCZ_E_NOMEM, "out of memory encoding %s", what);
done:
    return ret;
}

/* Describes a JSON value briefly for messages. */
static void describe(const json_t *j, char *buf, size_t size)
{
    uint64_t u;
    if (json_is_integer(j))
        snprintf(buf, size, "%" JSON_INTEGER_FORMAT, json_integer_value(j));
    else if (ncztr_json_get_uint64(j, &u))
        snprintf(buf, size, "%" PRIu64, u);
    else if (json_is_real(j))
        snprintf(buf, size, "%.17g", json_real_value(j));
    else if (json_is_string(j))
        snprintf(buf, size, "\"%.60s\"", json_string_value(j));
    else if (json_is_boolean(j))
        snprintf(buf, size, "%s", json_is_true(j) ? "true" : "false");
    else if (json_is_null(j))
        snprintf(buf, size, "null");
    else
        snprintf(buf, size, "%s", json_is_array(j) ? "an array" : "an object");
}

herr_t ncztr_json_to_elem(const ncztr_dtype *dt, const json_t *j, const char *what, void *elem)
{
    herr_t ret = SUCCEED;
    unsigned char b[8];
    char desc[96];

    if (!what)
        what = "value";
    if (!dt || !j || !elem || dt->size > 8 ||
        (dt->tclass != NCZTR_T_INT && dt->tclass != NCZTR_T_UINT && dt->tclass != NCZTR_T_FLOAT))
        NCZ_GOTO(FAIL, NCZ_E_INTERNAL, "%s: not a numeric element", what);
    describe(j, desc, sizeof desc);

    if (dt->tclass == NCZTR_T_FLOAT) {
        double d;
        uint64_t u;
        if (json_is_integer(j))
            d = (double)json_integer_value(j);
        else if (ncztr_json_get_uint64(j, &u))
            d = (double)u;
        else if (json_is_real(j))
            d = json_real_value(j);
        else if (json_is_boolean(j))
            d = json_is_true(j);
        else if (json_is_string(j) && !strcmp(json_string_value(j), "NaN"))
            d = NAN;
        else if (json_is_string(j) && !strcmp(json_string_value(j), "Infinity"))
            d = INFINITY;
        else if (json_is_string(j) && !strcmp(json_string_value(j), "-Infinity"))
            d = -INFINITY;
        else
            NCZ_GOTO(FAIL, NCZ_E_FORMAT, "%s: %s is not a number for dtype \"%s\"", what, desc, dt->zarr);
        if (dt->size == 4) {
            /* Values at or beyond FLT_MAX + half an ulp round to infinity: out of range. The
             * test is done in double because an out-of-range conversion is undefined in C. */
            const double lim = ldexp(1.0, 128) - ldexp(1.0, 103);
            float f;
            if (isfinite(d) && fabs(d) >= lim)
                NCZ_GOTO(FAIL, NCZ_E_FORMAT, "%s: value %s is out of range for dtype \"%s\"", what, desc,
                         dt->zarr);
            f = (float)d;
            memcpy(b, &f, 4);
        } else {
            memcpy(b, &d, 8);
        }
    } else {
        /* Integer dtypes: the value as a sign + magnitude pair, then a range check. */
        int neg = 0;
        uint64_t mag = 0;
        uint64_t maxpos, maxneg;
        if (json_is_integer(j)) {
            json_int_t v = json_integer_value(j);
            neg = v < 0;
            mag = neg ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
        } else if (ncztr_json_get_uint64(j, &mag)) {
            neg = 0;
        } else if (json_is_boolean(j)) {
            mag = json_is_true(j);
        } else if (json_is_real(j)) {
            /* Lenient: some writers emit 0.0 for an integer fill. Only integral values. */
            double d = json_real_value(j);
            if (!isfinite(d) || d != trunc(d))
                NCZ_GOTO(FAIL, NCZ_E_FORMAT, "%s: %s is not an integer for dtype \"%s\"", what, desc,
                         dt->zarr);
            if (fabs(d) >= 18446744073709551616.0)
                NCZ_GOTO(FAIL, NCZ_E_FORMAT, "%s: value %s is out of range for dtype \"%s\"", what, desc,
                         dt->zarr);
            neg = d < 0;
            mag = (uint64_t)fabs(d);
        } else {
            NCZ_GOTO(FAIL, NCZ_E_FORMAT, "%s: %s is not an integer for dtype \"%s\"", what, desc, dt->zarr);
        }
        if (dt->size != 1 && dt->size != 2 && dt->size != 4 && dt->size != 8)
            NCZ_GOTO(FAIL, NCZ_E_INTERNAL, "%s: bad integer size %zu", what, dt->size);
        if (dt->tclass == NCZTR_T_INT) {
            maxpos = (UINT64_C(1) << (8 * dt->size - 1)) - 1;
            maxneg = UINT64_C(1) << (8 * dt->size - 1);
        } else {
            maxpos = dt->size == 8 ? UINT64_MAX : (UINT64_C(1) << (8 * dt->size)) - 1;
            maxneg = 0;
        }
        if ((neg && mag > maxneg) || (!neg && mag > maxpos))
            NCZ_GOTO(FAIL, NCZ_E_FORMAT, "%s: value %s is out of range for dtype \"%s\"", what, desc,
                     dt->zarr);
        {
            /* Two's complement of the magnitude gives the bits of a negative value. */
            uint64_t bits = neg ? (uint64_t)0 - mag : mag;
            switch (dt->size) {
            case 1:
                b[0] = (unsigned char)bits;
                break;
            case 2: {
                uint16_t x = (uint16_t)bits;
                memcpy(b, &x, 2);
                break;
            }
            case 4: {
                uint32_t x = (uint32_t)bits;
                memcpy(b, &x, 4);
                break;
            }
            default:
                memcpy(b, &bits, 8);
                break;
            }
        }
    }
    copy_swapped(elem, b, dt->size, dt->big_endian);
done:
    return ret;
}

/* ---- fill values ----------------------------------------------------------------------- */

json_t *ncztr_fill_to_json(const ncztr_dtype *dt, const void *fill)
{
    json_t *ret = NULL;
    char *b64 = NULL;

    if (!dt)
        NCZ_GOTO(NULL, NCZ_E_ARGS, "fill value: no dtype");
    if (!fill) {
        ret = json_null();
    } else if (dt->tclass == NCZTR_T_STRUCT) {
        /* Structured dtypes: Base64 of the whole packed record, as zarr-python writes. */
        if (!(b64 = ncztr_b64_encode(fill, dt->size)))
            NCZ_GOTO(NULL, NCZ_E_NOMEM, "out of memory encoding a fill value");
        ret = json_string(b64);
    } else if (dt->tclass == NCZTR_T_CHAR || dt->tclass == NCZTR_T_STRING) {
        /* Trailing NULs dropped, as NumPy's bytes_ (and so zarr-python) does: all-zero
         * is "" and "ab\0\0" is Base64 of "ab". */
        const unsigned char *p = fill;
        size_t n = dt->size;
        while (n > 0 && p[n - 1] == 0)
            n--;
        if (n == 0) {
            ret = json_string("");
        } else {
            if (!(b64 = ncztr_b64_encode(p, n)))
                NCZ_GOTO(NULL, NCZ_E_NOMEM, "out of memory encoding a fill value");
            ret = json_string(b64);
        }
    } else {
        if (!(ret = ncztr_json_from_elem(dt, fill, "fill_value")))
            NCZ_GOTO_QUIET(NULL);
    }
    if (!ret)
        NCZ_GOTO(NULL, NCZ_E_NOMEM, "out of memory encoding a fill value");
done:
    free(b64);
    return ret;
}

herr_t ncztr_fill_from_json(const ncztr_dtype *dt, json_t *value, const char *what, void *fill_out,
                            int *has_fill)
{
    herr_t ret = SUCCEED;

    if (!what)
        what = "fill_value";
    if (!dt || !fill_out || !has_fill || dt->size == 0)
        NCZ_GOTO(FAIL, NCZ_E_ARGS, "%s: invalid arguments", what);
    *has_fill = 0;
    memset(fill_out, 0, dt->size);
    if (!value || json_is_null(value))
        goto done;

    if (dt->tclass == NCZTR_T_STRUCT) {
        /* Base64 of the record ("" or 0: all zero bytes); a short value is zero-padded. */
        int too_long;
        if (json_is_string(value) && json_string_length(value) > 0 &&
            ncztr_b64_decode_ex(json_string_value(value), json_string_length(value), fill_out, dt->size,
                                &too_long) < 0)
            NCZ_GOTO(FAIL, NCZ_E_FORMAT,
                     "%s: fill value for structured dtype must be Base64 of at most %zu bytes", what,
                     dt->size);
        if (!json_is_string(value) && !(json_is_integer(value) && json_integer_value(value) == 0))
            NCZ_GOTO(FAIL, NCZ_E_FORMAT, "%s: fill value for structured dtype must be a Base64 string", what);
    } else if (dt->tclass == NCZTR_T_CHAR || dt->tclass == NCZTR_T_STRING) {
        if (json_is_string(value)) {
            const char *s = json_string_value(value);
            size_t n = json_string_length(value);
            int too_long;
            if (n > 0 && ncztr_b64_decode_ex(s, n, fill_out, dt->size, &too_long) < 0) {
                if (too_long)
                    NCZ_GOTO(FAIL, NCZ_E_FORMAT,
                             "%s: Base64 fill value \"%.40s\" is longer than the dtype \"%s\" allows", what,
                             s, dt->zarr);
                /* Not Base64: take the text itself (what netCDF-C writes for a char fill),
                 * when it fits. */
                if (n > dt->size)
                    NCZ_GOTO(FAIL, NCZ_E_FORMAT,
                             "%s: fill value \"%.40s\" is neither Base64 nor text fitting dtype \"%s\"", what,
                             s, dt->zarr);
                memset(fill_out, 0, dt->size);
                memcpy(fill_out, s, n);
            }
        } else if (dt->tclass == NCZTR_T_CHAR && json_is_integer(value) && json_integer_value(value) >= 0 &&
                   json_integer_value(value) <= 255) {
            *(unsigned char *)fill_out = (unsigned char)json_integer_value(value);
        } else {
            NCZ_GOTO(FAIL, NCZ_E_FORMAT, "%s: fill value for dtype \"%s\" must be a string (\"\" or Base64)",
                     what, dt->zarr);
        }
    } else {
        if (ncztr_json_to_elem(dt, value, what, fill_out) < 0)
            NCZ_GOTO_QUIET(FAIL);
    }
    *has_fill = 1;
done:
    return ret;
}
