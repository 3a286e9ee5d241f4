/* HDF5 ids and property lists that every object class's callbacks share: dropping an id
 * (keeping the error stack), checking a property list, visiting the open ids. */
#include "H5VL_nczarr.h"
#include "ncztr_h5compat.h"
#include "H5VL_nczarr_native.h"
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void H5VL_nczarr_drop_id(hid_t id, bool keep_errors)
{
    hid_t saved = keep_errors ? ncz_err_save() : H5I_INVALID_HID;
    H5Idec_ref(id);
    ncz_err_restore(saved);
}

herr_t H5VL_nczarr_check_plist(hid_t id, hid_t cls, const char *what)
{
    if (id == H5P_DEFAULT)
        return SUCCEED;
    if (H5Iget_type(id) != H5I_GENPROP_LST || (cls >= 0 && H5Pisa_class(id, cls) <= 0))
        return NCZ_PUSH(NCZ_E_ARGS, "invalid %s property list (id %lld)", what, (long long)id);
    return SUCCEED;
}

herr_t H5VL_nczarr_check_lapl(const H5VL_loc_params_t *lp)
{
    if (lp->type == H5VL_OBJECT_BY_NAME)
        return H5VL_nczarr_check_plist(lp->loc_data.loc_by_name.lapl_id, H5P_LINK_ACCESS, "link access");
    if (lp->type == H5VL_OBJECT_BY_IDX)
        return H5VL_nczarr_check_plist(lp->loc_data.loc_by_idx.lapl_id, H5P_LINK_ACCESS, "link access");
    return SUCCEED;
}

herr_t H5VL_nczarr_iterate_obj_ids(unsigned types, H5I_iterate_func_t cb, void *ud)
{
    static const struct {
        unsigned flag;
        H5I_type_t t;
    } map[] = {{H5F_OBJ_FILE, H5I_FILE},
               {H5F_OBJ_DATASET, H5I_DATASET},
               {H5F_OBJ_GROUP, H5I_GROUP},
               {H5F_OBJ_DATATYPE, H5I_DATATYPE},
               {H5F_OBJ_ATTR, H5I_ATTR}};
    herr_t ret = SUCCEED;
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
        if ((types & map[i].flag) && H5Iiterate(map[i].t, cb, ud) < 0)
            ret = FAIL;
    return ret;
}

hid_t H5VL_nczarr_connector_id(void)
{
    return H5VL_nczarr_compat_connector_id(H5VL_NCZARR_NAME);
}
