/* Exact HDF5 types kept beside a Zarr dtype that cannot say everything (enum, compound,
 * array): Base64 of H5Tencode, checked when decoded since the text comes from the store. */
#include "ncztr_types.h"
#include "ncztr_h5compat.h"

#include <stdlib.h>
#include <string.h>

#define MAX_ENCODED ((size_t)1 << 20) /* bytes of an encoded HDF5 type */

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
