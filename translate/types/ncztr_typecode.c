/* Exact HDF5 types kept beside a Zarr dtype that cannot say everything (enum, compound,
 * array): Base64 of H5Tencode, checked when decoded since the text comes from the store. */
#include "ncztr_types.h"
#include "ncztr_ctype_internal.h"
#include "ncztr_h5compat.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define MAX_ENCODED ((size_t)1 << 20)       /* bytes of an encoded HDF5 type */
#define MAX_NUMBER  ((size_t)2 * 65536 / 8) /* bytes: bit offset and precision, 16 bits each */

char *ncztr_type_encode(hid_t type, const char *what)
{
    char *ret = NULL;
    unsigned char *buf = NULL;
    size_t n = 0;
    if (H5Tencode(type, NULL, &n) < 0 || n == 0)
        NCZ_GOTO(NULL, NCZ_E_HDF5, "%s: H5Tencode failed", what);
    buf = malloc(n);
    NCZ_CHECK_ALLOC(buf, NULL);
    if (H5Tencode(type, buf, &n) < 0)
        NCZ_GOTO(NULL, NCZ_E_HDF5, "%s: H5Tencode failed", what);
    /* A float in VAX byte order (flag bits 0 and 6) needs version 3 of the datatype message,
     * which H5Tset_order does not raise to: HDF5 then decodes it as big-endian. */
    if (n > 4 && buf[2] == 0x11 && (buf[3] & 0x41) == 0x41)
        buf[2] = 0x31;
    if (!(ret = ncztr_b64_encode(buf, n)))
        NCZ_GOTO(NULL, NCZ_E_NOMEM, "out of memory");
done:
    free(buf);
    return ret;
}

static uint32_t get_le32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Skips a name of a compound or enum member at *pos: NUL-terminated, padded to a multiple
 * of 8 bytes before version 3 of the datatype message. */
static const char *skip_name(const unsigned char *b, size_t n, size_t *pos, unsigned version)
{
    const unsigned char *z = memchr(b + *pos, 0, n - *pos);
    if (!z)
        return "a member name runs past its end";
    size_t len = (size_t)(z - (b + *pos)), adv = version >= 3 ? len + 1 : (len + 8) / 8 * 8;
    if (len == 0)
        return "a member without a name";
    if (adv > n - *pos)
        return "a member name runs past its end";
    *pos += adv;
    return NULL;
}

/* Checks the datatype message at *pos of the n bytes at b (HDF5's format: class and version,
 * three bytes of flags, the size, the class's properties, member and base types) and moves
 * *pos past it; *tsize gets its size. HDF5 1.14's H5Tdecode takes no length and checks no
 * bound: a message that claims more than the store gave it would be read past its end (and
 * HDF5 leaks the member names it decoded before failing on sizes that do not fit), so the
 * kept type is walked here first. NULL when it holds together, else what does not. */
static const char *msg_check(const unsigned char *b, size_t n, size_t *pos, int depth, uint32_t *tsize)
{
    if (depth > 32)
        return "nested too deeply";
    if (n - *pos < 8)
        return "a part runs past its end";
    const unsigned char *p = b + *pos;
    unsigned version = p[0] >> 4, cls = p[0] & 0x0f;
    uint32_t flags = (uint32_t)p[1] | (uint32_t)p[2] << 8 | (uint32_t)p[3] << 16, size = get_le32(p + 4);
    *pos += 8;
    *tsize = size;
    if (version < 1 || version > 5)
        return "a part of an unknown version";
    if (size == 0)
        return "a part of size 0";
    size_t fixed = 0, nm = flags & 0xffff;
    uint32_t sub = 0;
    const char *why = NULL;
    switch (cls) {
    case 0: /* integer: bit offset, precision */
    case 4: /* bitfield */
        fixed = 4;
        break;
    case 1: /* float: offsets, sizes, exponent bias */
        fixed = 12;
        break;
    case 2: /* time: precision */
        fixed = 2;
        break;
    case 3: /* string */
    case 7: /* reference */
        break;
    case 5: /* opaque: its tag */
        fixed = flags & 0xff;
        break;
    case 6: { /* compound: name, offset, (version 1) dimensions, type, per member */
        /* HDF5 also refuses members that overlap (and leaks the name it read then) */
        uint64_t(*span)[2] = nm ? malloc(nm * sizeof *span) : NULL, maxpos = 0;
        if (nm && !span)
            return "out of memory";
        for (size_t i = 0; i < nm && !why; i++) {
            uint64_t off = 0, count = 1;
            size_t onb = 4;
            if (version >= 3)
                for (onb = 1; onb < 4 && (size >> (8 * onb)) != 0; onb++)
                    ;
            if ((why = skip_name(b, n, pos, version)) != NULL)
                break;
            if (onb > n - *pos) {
                why = "a member offset runs past its end";
                break;
            }
            for (size_t k = 0; k < onb; k++)
                off |= (uint64_t)b[*pos + k] << (8 * k);
            *pos += onb;
            if (version == 1) {
                if (28 > n - *pos) {
                    why = "a member runs past its end";
                    break;
                }
                if (b[*pos] > 4) {
                    why = "a member of more than 4 dimensions";
                    break;
                }
                for (unsigned k = 0; k < b[*pos]; k++) {
                    uint32_t d = get_le32(b + *pos + 12 + 4 * k);
                    count = d == 0 ? 0 : count * d;
                }
                *pos += 28;
            }
            if ((why = msg_check(b, n, pos, depth + 1, &sub)) != NULL)
                break;
            uint64_t msz = count * sub;
            if (msz == 0 || off + msz > size) {
                why = "a compound member outside the compound";
                break;
            }
            for (size_t k = 0; off < maxpos && k < i && !why; k++)
                if (off + msz > span[k][0] && off < span[k][0] + span[k][1])
                    why = "compound members that overlap";
            span[i][0] = off;
            span[i][1] = msz;
            maxpos = off + msz > maxpos ? off + msz : maxpos;
        }
        free(span);
        break;
    }
    case 8: /* enum: base type, names, values */
        if ((why = msg_check(b, n, pos, depth + 1, &sub)) != NULL)
            break;
        if (sub != size)
            return "an enum not of its base type's size";
        for (size_t i = 0; i < nm && !why; i++)
            why = skip_name(b, n, pos, version);
        if (!why && (uint64_t)nm * sub > n - *pos)
            return "enum values run past its end";
        fixed = nm * sub;
        break;
    case 9:  /* variable-length sequence or string: base type */
    case 11: /* complex (HDF5 2): base type */
        why = msg_check(b, n, pos, depth + 1, &sub);
        break;
    case 10: /* array: rank, (before version 3) 3 reserved bytes, dimensions, permutation */
        if (n - *pos < 1 || b[*pos] > 32)
            return "an array of a bad rank";
        fixed = 1 + (version < 3 ? 3 : 0) + (size_t)b[*pos] * (version < 3 ? 8 : 4);
        if (fixed > n - *pos)
            return "an array runs past its end";
        *pos += fixed;
        fixed = 0;
        why = msg_check(b, n, pos, depth + 1, &sub);
        break;
    default:
        return "a part of an unknown class";
    }
    if (!why && fixed > n - *pos)
        return "a part runs past its end";
    *pos += why ? 0 : fixed;
    return why;
}

/* Whether t encodes to exactly the n bytes at enc: how a copy is compared with the type it
 * copies (H5Tequal says no for two equal reference types, or sequences of them). */
static bool encodes_as(hid_t t, const unsigned char *enc, size_t n)
{
    size_t m = 0;
    unsigned char *b = NULL;
    bool same = H5Tencode(t, NULL, &m) >= 0 && m == n && (b = malloc(m)) && H5Tencode(t, b, &m) >= 0 &&
                memcmp(b, enc, n) == 0;
    free(b);
    return same;
}

/* enc: n bytes, then NCZTR_H5COMPAT_DECODE_SLACK zero bytes */
static bool same_type(hid_t t, const unsigned char *enc, size_t n)
{
    hid_t t2 = H5I_INVALID_HID;
    H5E_BEGIN_TRY
    {
        t2 = ncztr_h5compat_type_decode(enc, n);
    }
    H5E_END_TRY
    bool same = t2 >= 0 && H5Tequal(t, t2) > 0;
    if (t2 >= 0)
        H5Tclose(t2);
    return same;
}

/* Whether a decoded type's sizes are those of its class in memory, where every walk over its
 * values (ncztr_refval.c, ncztr_cvalue.c) takes them to be: H5Tdecode keeps the size it
 * reads for a variable-length type of an unknown kind (neither sequence nor string), an
 * hvl_t read from an element too small for one. NULL when sound, else what is not. */
static const char *type_unsound(hid_t t, int depth)
{
    if (depth > 32)
        return "nested too deeply";
    H5T_class_t c = H5Tget_class(t);
    size_t size = H5Tget_size(t);
    if (c < 0 || size == 0)
        return "a part without class or size";
    if (size > NCZTR_CT_MAX_RECORD)
        return "an element larger than the connector's records may be";
    const char *why = NULL;
    hid_t sup = H5I_INVALID_HID;
    switch (c) {
    case H5T_INTEGER:
    case H5T_FLOAT:
    case H5T_BITFIELD:
    case H5T_TIME:
        /* bit offset and precision are 16-bit fields: bytes beyond them describe nothing,
         * and every value of such a type would be that many bytes made from one number */
        if (size > MAX_NUMBER)
            why = "a number of more bytes than its precision can describe";
        break;
    case H5T_STRING:
        if (H5Tis_variable_str(t) > 0 && size != sizeof(char *))
            why = "a variable-length string not of a pointer's size";
        break;
    case H5T_VLEN:
        if (size != sizeof(hvl_t))
            why = "a variable-length sequence not of hvl_t's size";
        else if ((sup = H5Tget_super(t)) < 0)
            why = "a variable-length sequence without a base type";
        else
            why = type_unsound(sup, depth + 1);
        break;
    case H5T_ENUM:
        if ((sup = H5Tget_super(t)) < 0 || H5Tget_size(sup) != size)
            why = "an enum not of its base type's size";
        else
            why = type_unsound(sup, depth + 1);
        break;
    case H5T_ARRAY: {
        int nd = H5Tget_array_ndims(t);
        hsize_t dims[H5S_MAX_RANK];
        size_t n = 1;
        if (nd < 1 || nd > H5S_MAX_RANK || H5Tget_array_dims2(t, dims) < 0)
            return "an array without dimensions";
        if ((sup = H5Tget_super(t)) < 0)
            return "an array without a base type";
        for (int k = 0; k < nd; k++)
            n = dims[k] && n > SIZE_MAX / dims[k] ? 0 : n * (size_t)dims[k];
        size_t bsz = H5Tget_size(sup);
        if (n == 0 || bsz == 0 || n > SIZE_MAX / bsz || n * bsz != size)
            why = "an array not of its elements' size";
        else
            why = type_unsound(sup, depth + 1);
        break;
    }
    case H5T_COMPOUND: {
        int nm = H5Tget_nmembers(t);
        for (int i = 0; nm >= 0 && i < nm && !why; i++) {
            hid_t mt = H5Tget_member_type(t, (unsigned)i);
            size_t off = H5Tget_member_offset(t, (unsigned)i), msz = mt >= 0 ? H5Tget_size(mt) : 0;
            if (mt < 0 || msz == 0 || off > size || msz > size - off)
                why = "a compound member outside the compound";
            else
                why = type_unsound(mt, depth + 1);
            if (mt >= 0)
                H5Tclose(mt);
        }
        if (nm < 0)
            why = "a compound without members";
        break;
    }
    default:
        break;
    }
    if (sup >= 0)
        H5Tclose(sup);
    return why;
}

hid_t ncztr_type_decode(const char *b64, const char *what)
{
    hid_t ret = H5I_INVALID_HID, t = H5I_INVALID_HID;
    unsigned char *buf = NULL, *again = NULL;
    size_t len = b64 ? strlen(b64) : 0, n2 = 0;
    long n;
    if (len == 0 || len > MAX_ENCODED)
        NCZ_GOTO(H5I_INVALID_HID, NCZ_E_FORMAT, "%s: the kept HDF5 type is empty or too long", what);
    buf = calloc(1, len + NCZTR_H5COMPAT_DECODE_SLACK);
    NCZ_CHECK_ALLOC(buf, H5I_INVALID_HID);
    if ((n = ncztr_b64_decode(b64, len, buf, len)) < 0)
        NCZ_GOTO(H5I_INVALID_HID, NCZ_E_FORMAT, "%s: the kept HDF5 type is not valid Base64", what);
    /* H5Tencode output starts with the datatype message id (3) and its encoding version (0). */
    if (n < 8 || buf[0] != 3 || buf[1] > 1)
        NCZ_GOTO(H5I_INVALID_HID, NCZ_E_FORMAT, "%s: the kept HDF5 type is not an encoded HDF5 datatype",
                 what);
    size_t pos = 2;
    uint32_t tsize = 0;
    const char *bad = msg_check(buf, (size_t)n, &pos, 0, &tsize);
    if (bad || pos != (size_t)n)
        NCZ_GOTO(H5I_INVALID_HID, NCZ_E_FORMAT, "%s: the kept HDF5 type is corrupt: %s", what,
                 bad ? bad : "bytes after its end");
    H5E_BEGIN_TRY
    {
        t = ncztr_h5compat_type_decode(buf, (size_t)n);
    }
    H5E_END_TRY
    if (t < 0)
        NCZ_GOTO(H5I_INVALID_HID, NCZ_E_FORMAT, "%s: the kept HDF5 type does not decode", what);
    /* It must re-encode to as many bytes (no trailing garbage, nothing read past the end),
     * the same ones or the same type (HDF5 encodes a VAX-order float's flags otherwise than
     * it decodes them). */
    if (H5Tencode(t, NULL, &n2) < 0 || n2 != (size_t)n ||
        !(again = calloc(1, n2 + NCZTR_H5COMPAT_DECODE_SLACK)) || H5Tencode(t, again, &n2) < 0 ||
        (memcmp(again, buf, n2) != 0 && !same_type(t, again, n2)))
        NCZ_GOTO(H5I_INVALID_HID, NCZ_E_FORMAT, "%s: the kept HDF5 type is corrupt", what);
    const char *why = type_unsound(t, 0);
    /* Every user of the type copies it (H5Tcopy), which lays some decoded types out again
     * (HDF5 recomputes the members' offsets): the copy must be the same type. */
    hid_t cp = why ? H5I_INVALID_HID : H5Tcopy(t);
    if (!why &&
        (cp < 0 || H5Tget_size(cp) != H5Tget_size(t) || !encodes_as(cp, again, n2) || type_unsound(cp, 0)))
        why = "its copy is another type";
    if (cp >= 0)
        H5Tclose(cp);
    if (why)
        NCZ_GOTO(H5I_INVALID_HID, NCZ_E_FORMAT, "%s: the kept HDF5 type is corrupt: %s", what, why);
    ret = t;
    t = H5I_INVALID_HID;
done:
    if (t >= 0) {
        hid_t es = ncz_err_save(); /* H5Tclose clears it */
        H5Tclose(t);
        ncz_err_restore(es);
    }
    free(buf);
    free(again);
    return ret;
}
