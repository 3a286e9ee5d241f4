/* Creation property lists NCZarr has no place for (a file's fcpl, a group's gcpl) kept with
 * their object, so that H5Fget_create_plist / H5Gget_create_plist return what was set: the
 * list's H5Pencode2 bytes as Base64 in "_nczarr_attr.hdf5.<key>" (ncztr_obj_hdf5_set). */
#include "ncztr_model_internal.h"

#include <stdlib.h>
#include <string.h>

herr_t ncztr_obj_plist_keep(ncztr_obj *n, const char *key, hid_t plist, hid_t default_plist)
{
    herr_t ret = SUCCEED;
    unsigned char *buf = NULL;
    char *text = NULL;
    size_t size = 0;
    if (plist == H5P_DEFAULT || plist == default_plist || H5Pequal(plist, default_plist) > 0)
        return ncztr_obj_hdf5_get(n, key) ? ncztr_obj_hdf5_set(n, key, NULL) : SUCCEED;
    if (H5Pencode2(plist, NULL, &size, H5P_DEFAULT) < 0 || !(buf = malloc(size ? size : 1)) ||
        H5Pencode2(plist, buf, &size, H5P_DEFAULT) < 0)
        NCZ_GOTO(FAIL, NCZ_E_HDF5, "cannot encode the %s property list of \"%s\"", key, n->name);
    if (!(text = ncztr_b64_encode(buf, size)))
        NCZ_GOTO(FAIL, NCZ_E_NOMEM, "out of memory encoding a property list");
    ret = ncztr_obj_hdf5_set(n, key, text);
done:
    free(buf);
    free(text);
    return ret;
}

hid_t ncztr_obj_plist_kept(const ncztr_obj *n, const char *key)
{
    const char *text = ncztr_obj_hdf5_get(n, key);
    if (!text)
        return H5I_INVALID_HID;
    size_t len = strlen(text);
    unsigned char *buf = malloc(len / 4 * 3 + 3);
    if (!buf)
        return H5I_INVALID_HID;
    hid_t id = H5I_INVALID_HID;
    /* A list that does not decode (damaged, or from another HDF5 version) falls back to
     * the default: the caller builds one. */
    if (ncztr_b64_decode(text, len, buf, len / 4 * 3 + 3) >= 0) {
        H5E_BEGIN_TRY
        {
            id = H5Pdecode(buf);
        }
        H5E_END_TRY
    }
    free(buf);
    return id;
}
