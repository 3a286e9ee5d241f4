/* H5Giterate (HDF5 1.14's src/H5Gdeprec.c), which h5py's h5g.iterate and older programs
 * call: HDF5 sends it to the connector as the native optional operation
 * H5VL_NATIVE_GROUP_ITERATE_OLD, which the connector does not serve. For a non-native object
 * it is H5Literate_by_name2 in name order, increasing, from *idx_p, the operator called with
 * the group and the link's name, and *idx_p set to where the iteration stopped (the index
 * of the link after the last one visited), as native HDF5's H5G_iterate does.
 *
 * H5Aiterate1 is not here: HDF5 does not refuse it, and the connector serves its optional
 * operation itself (H5VL_NATIVE_ATTR_ITERATE_OLD, in creation order from *attr_num, as HDF5
 * does); interop.preload_calls checks it on a store. */
#include "H5VL_nczarr_preload.h"

#include <limits.h>

#ifndef H5_NO_DEPRECATED_SYMBOLS

typedef struct giter_shim {
    H5G_iterate_t op;
    void *op_data;
} giter_shim;

static herr_t giter_cb(hid_t group, const char *name, const H5L_info2_t *info, void *data)
{
    (void)info;
    const giter_shim *s = data;
    return s->op(group, name, s->op_data);
}

NCP_API herr_t H5Giterate(hid_t loc_id, const char *name, int *idx_p, H5G_iterate_t op, void *op_data)
{
    if (!ncp_serve(loc_id))
        NCP_FORWARD(H5Giterate, FAIL, loc_id, name, idx_p, op, op_data);
    if (!name || !*name)
        return NCP_PUSH(H5E_ARGS, H5E_BADVALUE, "no name specified");
    if (idx_p && *idx_p < 0)
        return NCP_PUSH(H5E_ARGS, H5E_BADVALUE, "invalid index specified");
    if (!op)
        return NCP_PUSH(H5E_ARGS, H5E_BADVALUE, "no operator specified");
    giter_shim s = {op, op_data};
    hsize_t idx = idx_p ? (hsize_t)*idx_p : 0;
    herr_t ret =
        H5Literate_by_name2(loc_id, name, H5_INDEX_NAME, H5_ITER_INC, &idx, giter_cb, &s, H5P_DEFAULT);
    if (ret < 0)
        NCP_PUSH(H5E_SYM, H5E_BADITER, "error iterating over the links of \"%s\"", name);
    /* HDF5 sets it whatever the outcome */
    if (idx_p)
        *idx_p = idx > (hsize_t)INT_MAX ? INT_MAX : (int)idx;
    return ret;
}

#endif /* H5_NO_DEPRECATED_SYMBOLS */
