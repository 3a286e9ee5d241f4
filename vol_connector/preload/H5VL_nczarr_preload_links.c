/* The deprecated link calls (HDF5 1.14's src/H5Ldeprec.c): H5Literate1, H5Literate_by_name1,
 * H5Lget_info1, H5Lget_info_by_idx1, H5Lvisit1, H5Lvisit_by_name1. For a non-native object
 * each is its "2" form with H5L_info2_t turned into H5L_info1_t as HDF5's H5L__iterate2_shim
 * does it, the token of a hard link becoming its address (H5VL_nczarr_preload.h). h5py lists
 * groups with H5Literate_by_name1 (keys(), iteration, items()), visits links with
 * H5Lvisit_by_name1 and asks H5Lget_info1 for get(name, getlink=True). */
#include "H5VL_nczarr_preload.h"

#include <string.h>

#ifndef H5_NO_DEPRECATED_SYMBOLS

static herr_t link_info1(const H5L_info2_t *in, H5L_info1_t *out)
{
    memset(out, 0, sizeof *out);
    out->type = in->type;
    out->corder_valid = in->corder_valid;
    out->corder = in->corder;
    out->cset = in->cset;
    if (in->type == H5L_TYPE_HARD)
        return ncp_token_to_addr(&in->u.token, &out->u.address);
    out->u.val_size = in->u.val_size;
    return SUCCEED;
}

/* The application's H5L_iterate1_t behind an H5L_iterate2_t. */
typedef struct link_shim {
    H5L_iterate1_t op;
    void *op_data;
} link_shim;

static herr_t link_shim_cb(hid_t group, const char *name, const H5L_info2_t *info2, void *data)
{
    const link_shim *s = data;
    H5L_info1_t info1;
    memset(&info1, 0, sizeof info1);
    if (info2 && link_info1(info2, &info1) < 0)
        return H5_ITER_ERROR;
    return s->op(group, name, &info1, s->op_data);
}

NCP_API herr_t H5Literate1(hid_t group_id, H5_index_t idx_type, H5_iter_order_t order, hsize_t *idx_p,
                           H5L_iterate1_t op, void *op_data)
{
    if (!ncp_serve(group_id))
        NCP_FORWARD(H5Literate1, FAIL, group_id, idx_type, order, idx_p, op, op_data);
    if (!op)
        return NCP_PUSH(H5E_ARGS, H5E_BADVALUE, "no operator specified");
    link_shim s = {op, op_data};
    /* H5Literate2 reports its own failures and the operator's return value, as HDF5's does */
    return H5Literate2(group_id, idx_type, order, idx_p, link_shim_cb, &s);
}

NCP_API herr_t H5Literate_by_name1(hid_t loc_id, const char *group_name, H5_index_t idx_type,
                                   H5_iter_order_t order, hsize_t *idx_p, H5L_iterate1_t op, void *op_data,
                                   hid_t lapl_id)
{
    if (!ncp_serve(loc_id))
        NCP_FORWARD(H5Literate_by_name1, FAIL, loc_id, group_name, idx_type, order, idx_p, op, op_data,
                    lapl_id);
    if (!op)
        return NCP_PUSH(H5E_ARGS, H5E_BADVALUE, "no operator specified");
    link_shim s = {op, op_data};
    return H5Literate_by_name2(loc_id, group_name, idx_type, order, idx_p, link_shim_cb, &s, lapl_id);
}

NCP_API herr_t H5Lvisit1(hid_t group_id, H5_index_t idx_type, H5_iter_order_t order, H5L_iterate1_t op,
                         void *op_data)
{
    if (!ncp_serve(group_id))
        NCP_FORWARD(H5Lvisit1, FAIL, group_id, idx_type, order, op, op_data);
    if (!op)
        return NCP_PUSH(H5E_ARGS, H5E_BADVALUE, "no callback operator specified");
    link_shim s = {op, op_data};
    return H5Lvisit2(group_id, idx_type, order, link_shim_cb, &s);
}

NCP_API herr_t H5Lvisit_by_name1(hid_t loc_id, const char *group_name, H5_index_t idx_type,
                                 H5_iter_order_t order, H5L_iterate1_t op, void *op_data, hid_t lapl_id)
{
    if (!ncp_serve(loc_id))
        NCP_FORWARD(H5Lvisit_by_name1, FAIL, loc_id, group_name, idx_type, order, op, op_data, lapl_id);
    if (!op)
        return NCP_PUSH(H5E_ARGS, H5E_BADVALUE, "no callback operator specified");
    link_shim s = {op, op_data};
    return H5Lvisit_by_name2(loc_id, group_name, idx_type, order, link_shim_cb, &s, lapl_id);
}

NCP_API herr_t H5Lget_info1(hid_t loc_id, const char *name, H5L_info1_t *linfo, hid_t lapl_id)
{
    if (!ncp_serve(loc_id))
        NCP_FORWARD(H5Lget_info1, FAIL, loc_id, name, linfo, lapl_id);
    H5L_info2_t info2;
    /* the minor error of HDF5's own failure (H5E_NOTFOUND for a missing link) stays below */
    if (H5Lget_info2(loc_id, name, &info2, lapl_id) < 0)
        return NCP_PUSH(H5E_LINK, H5E_CANTGET, "unable to get link info of \"%s\"", name ? name : "(null)");
    H5L_info1_t info1;
    if (link_info1(&info2, &info1) < 0)
        return FAIL;
    if (linfo)
        *linfo = info1;
    return SUCCEED;
}

NCP_API herr_t H5Lget_info_by_idx1(hid_t loc_id, const char *group_name, H5_index_t idx_type,
                                   H5_iter_order_t order, hsize_t n, H5L_info1_t *linfo, hid_t lapl_id)
{
    if (!ncp_serve(loc_id))
        NCP_FORWARD(H5Lget_info_by_idx1, FAIL, loc_id, group_name, idx_type, order, n, linfo, lapl_id);
    H5L_info2_t info2;
    if (H5Lget_info_by_idx2(loc_id, group_name, idx_type, order, n, &info2, lapl_id) < 0)
        return NCP_PUSH(H5E_LINK, H5E_CANTGET, "unable to get info of link %llu of \"%s\"",
                        (unsigned long long)n, group_name ? group_name : "(null)");
    H5L_info1_t info1;
    if (link_info1(&info2, &info1) < 0)
        return FAIL;
    if (linfo)
        *linfo = info1;
    return SUCCEED;
}

#endif /* H5_NO_DEPRECATED_SYMBOLS */
