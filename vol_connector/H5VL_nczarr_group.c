/* Group callbacks. Groups always track and index link and attribute creation order:
 * netCDF-C refuses a file whose groups do not, and NCZarr keeps creation order anyway
 * (the `_nczarr_group` lists and the order of .zattrs). */
#include "H5VL_nczarr.h"

#include <stdlib.h>
#include <string.h>

hid_t H5VL_nczarr_default_gcpl(void)
{
    hid_t gcpl = H5Pcreate(H5P_GROUP_CREATE);
    if (gcpl < 0)
        return H5I_INVALID_HID;
    if (H5Pset_link_creation_order(gcpl, H5P_CRT_ORDER_TRACKED | H5P_CRT_ORDER_INDEXED) < 0 ||
        H5Pset_attr_creation_order(gcpl, H5P_CRT_ORDER_TRACKED | H5P_CRT_ORDER_INDEXED) < 0) {
        H5Pclose(gcpl);
        return H5I_INVALID_HID;
    }
    return gcpl;
}

void *H5VL_nczarr_group_create(void *obj, const H5VL_loc_params_t *loc_params, const char *name,
                               hid_t lcpl_id, hid_t gcpl_id, hid_t gapl_id, hid_t dxpl_id, void **req)
{
    (void)dxpl_id;
    (void)req;
    H5VL_nczarr_obj_t *o = obj;
    ncztr_obj *base = H5VL_nczarr_resolve(o, loc_params), *parent = NULL, *g = NULL;
    char *leaf = NULL;
    H5VL_nczarr_obj_t *ret = NULL;
    if (!base)
        return NULL;
    if (H5VL_nczarr_check_plist(gcpl_id, H5P_GROUP_CREATE, "group creation") < 0 ||
        H5VL_nczarr_check_plist(gapl_id, H5P_GROUP_ACCESS, "group access") < 0)
        return NULL;
    if (!name) {
        /* H5Gcreate_anon: the group lives in memory until H5Olink names it (and is gone
         * with its last handle otherwise), as an unlinked HDF5 object is. */
        if (ncztr_group_create_anon(ncztr_obj_file(base), &g) < 0)
            return NULL;
    } else {
        if (ncztr_resolve_new(base, name, H5VL_nczarr_lcpl_intermediate(lcpl_id), &parent, &leaf) < 0)
            return NULL;
        if (ncztr_group_create(parent, leaf, &g) < 0) {
            free(leaf);
            return NULL;
        }
        free(leaf);
    }
    /* NCZarr has no place for HDF5's group creation settings: keep a non-default gcpl. */
    if (gcpl_id != H5P_DEFAULT && ncztr_obj_plist_keep(g, "gcpl", gcpl_id, H5P_GROUP_CREATE_DEFAULT) < 0) {
        if (!ncztr_obj_is_anonymous(g))
            ncztr_unlink(g);
        ncztr_obj_unref(g);
        return NULL;
    }
    ret = H5VL_nczarr_obj_new(H5I_GROUP, o->file, g, NULL);
    ncztr_obj_unref(g);
    return ret;
}

void *H5VL_nczarr_group_open(void *obj, const H5VL_loc_params_t *loc_params, const char *name, hid_t gapl_id,
                             hid_t dxpl_id, void **req)
{
    (void)dxpl_id;
    (void)req;
    H5VL_nczarr_obj_t *o = obj;
    if (H5VL_nczarr_check_plist(gapl_id, H5P_GROUP_ACCESS, "group access") < 0)
        return NULL;
    ncztr_obj *base = H5VL_nczarr_resolve(o, loc_params), *g = NULL;
    if (!base || ncztr_lookup(base, name ? name : ".", &g) < 0)
        return NULL;
    if (ncztr_obj_kind(g) != NCZTR_GROUP) {
        NCZ_PUSH(NCZ_E_ARGS, "\"%s\" is a dataset, not a group", name);
        return NULL;
    }
    return H5VL_nczarr_obj_new(H5I_GROUP, o->file, g, NULL);
}

herr_t H5VL_nczarr_group_get(void *obj, H5VL_group_get_args_t *args, hid_t dxpl_id, void **req)
{
    (void)dxpl_id;
    (void)req;
    H5VL_nczarr_obj_t *o = obj;
    switch (args->op_type) {
    case H5VL_GROUP_GET_GCPL:
        /* What the group was created with, else one saying that creation order is
         * tracked and indexed (as the model always does). */
        if ((args->args.get_gcpl.gcpl_id = ncztr_obj_plist_kept(o->node, "gcpl")) >= 0)
            return SUCCEED;
        if ((args->args.get_gcpl.gcpl_id = H5VL_nczarr_default_gcpl()) < 0)
            return NCZ_PUSH(NCZ_E_HDF5, "cannot create a group creation plist");
        return SUCCEED;
    case H5VL_GROUP_GET_INFO: {
        if (H5VL_nczarr_check_lapl(&args->args.get_info.loc_params) < 0)
            return FAIL;
        ncztr_obj *g = H5VL_nczarr_resolve(o, &args->args.get_info.loc_params);
        if (!g)
            return FAIL;
        if (ncztr_obj_kind(g) != NCZTR_GROUP)
            return NCZ_PUSH(NCZ_E_ARGS, "\"%s\" is not a group", ncztr_obj_name(g));
        if (ncztr_obj_load(g) < 0) /* a group not read yet: read now, or why it cannot be */
            return FAIL;
        H5G_info_t *gi = args->args.get_info.ginfo;
        gi->storage_type = H5G_STORAGE_TYPE_COMPACT;
        gi->nlinks = ncztr_group_nlinks(g);
        gi->max_corder = (int64_t)ncztr_group_next_corder(g);
        gi->mounted = false;
        return SUCCEED;
    }
    default:
        return NCZ_PUSH(NCZ_E_UNSUPPORTED, "group get operation %d is not supported", (int)args->op_type);
    }
}

herr_t H5VL_nczarr_group_specific(void *obj, H5VL_group_specific_args_t *args, hid_t dxpl_id, void **req)
{
    (void)dxpl_id;
    (void)req;
    H5VL_nczarr_obj_t *o = obj;
    switch (args->op_type) {
    case H5VL_GROUP_FLUSH:
        return ncztr_file_flush(o->file->tf);
    case H5VL_GROUP_REFRESH:
        return SUCCEED;
    case H5VL_GROUP_MOUNT:
    case H5VL_GROUP_UNMOUNT:
        return NCZ_PUSH(NCZ_E_NOTREPR, "mounting files is not supported on Zarr stores");
    default:
        return NCZ_PUSH(NCZ_E_UNSUPPORTED, "group operation %d is not supported", (int)args->op_type);
    }
}

herr_t H5VL_nczarr_group_optional(void *obj, H5VL_optional_args_t *args, hid_t dxpl_id, void **req)
{
    (void)dxpl_id;
    (void)req;
    H5VL_nczarr_obj_t *o = obj;
#ifndef H5_NO_DEPRECATED_SYMBOLS
    /* The deprecated group calls HDF5 hands a connector as native operations: H5Gget_objinfo
     * (netCDF-C 4.9.3 still calls it to test for a variable; h5py's object identity) and
     * H5Giterate. */
    if (args->op_type == H5VL_NATIVE_GROUP_GET_OBJINFO) {
        H5VL_native_group_get_objinfo_t *a = args->args;
        H5G_stat_t st;
        if (H5VL_nczarr_link_stat(o, &a->loc_params, a->follow_link, &st) < 0)
            return FAIL;
        if (a->statbuf)
            *a->statbuf = st;
        return SUCCEED;
    }
    if (args->op_type == H5VL_NATIVE_GROUP_ITERATE_OLD) {
        H5VL_native_group_iterate_old_t *a = args->args;
        return H5VL_nczarr_link_iterate_old(o, &a->loc_params, a->idx, a->last_obj, a->op, a->op_data);
    }
#endif
    return NCZ_NATIVE_ONLY("group", args->op_type);
}

herr_t H5VL_nczarr_group_close(void *grp, hid_t dxpl_id, void **req)
{
    (void)dxpl_id;
    (void)req;
    return H5VL_nczarr_obj_release(grp);
}
