/* Token callbacks. A token is the node's 64-bit id (H5VL_nczarr_token_encode): unique in
 * an open store and stable across H5Lmove, which is what netCDF-C and H5DS compare; a hash
 * of the object's path when it was first known (translate/model/ncztr_ids.c), so that the
 * next open gives an object at the same path the same token. */
#include "H5VL_nczarr.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

herr_t H5VL_nczarr_token_cmp(void *obj, const H5O_token_t *token1, const H5O_token_t *token2, int *cmp_value)
{
    (void)obj;
    if (!token1 || !token2 || !cmp_value)
        return NCZ_PUSH(NCZ_E_ARGS, "token compare: missing argument");
    uint64_t a = H5VL_nczarr_token_decode(token1), b = H5VL_nczarr_token_decode(token2);
    *cmp_value = a < b ? -1 : a > b ? 1 : 0;
    return SUCCEED;
}

/* h5dump/h5ls print the string and free it with H5free_memory, i.e. free(): malloc it. */
herr_t H5VL_nczarr_token_to_str(void *obj, H5I_type_t obj_type, const H5O_token_t *token, char **token_str)
{
    (void)obj;
    (void)obj_type;
    if (!token || !token_str)
        return NCZ_PUSH(NCZ_E_ARGS, "token to string: missing argument");
    char tmp[24];
    int len = snprintf(tmp, sizeof tmp, "%" PRIu64, H5VL_nczarr_token_decode(token));
    char *s = malloc((size_t)len + 1);
    if (!s)
        return NCZ_PUSH(NCZ_E_NOMEM, "out of memory converting a token to a string");
    memcpy(s, tmp, (size_t)len + 1);
    *token_str = s;
    return SUCCEED;
}

herr_t H5VL_nczarr_token_from_str(void *obj, H5I_type_t obj_type, const char *token_str, H5O_token_t *token)
{
    (void)obj;
    (void)obj_type;
    if (!token_str || !token)
        return NCZ_PUSH(NCZ_E_ARGS, "token from string: missing argument");
    /* Only plain decimal digits: strtoull alone would accept blanks, signs ("-1" wraps
     * around) and trailing garbage. */
    if (token_str[0] < '0' || token_str[0] > '9')
        return NCZ_PUSH(NCZ_E_ARGS, "\"%s\" is not an nczarr object token (a decimal number)", token_str);
    char *end = NULL;
    errno = 0;
    unsigned long long v = strtoull(token_str, &end, 10);
    if (errno == ERANGE || v > UINT64_MAX)
        return NCZ_PUSH(NCZ_E_ARGS, "token \"%s\" is out of range", token_str);
    if (*end != '\0')
        return NCZ_PUSH(NCZ_E_ARGS, "\"%s\" is not an nczarr object token (a decimal number)", token_str);
    H5VL_nczarr_token_encode((uint64_t)v, token);
    return SUCCEED;
}
