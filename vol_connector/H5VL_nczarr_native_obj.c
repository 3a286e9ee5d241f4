/* The forwarding group, dataset, attribute, datatype, link and object callbacks for the
 * objects of native HDF5 files (H5VL_nczarr_native.h): each hands the native object behind
 * the proxy to HDF5's native connector and wraps what it opens or creates. Arguments that
 * carry objects of this connector (a hard link's target, a mounted file, the datasets of a
 * multi-dataset transfer) are unwrapped first; the route made sure they are native too. */
#include "H5VL_nczarr_native.h"

#include <stdlib.h>

#define NAT   H5VL_nczarr_native_id()
#define UNDER NCZ_UNDER

/* ---- group ---- */

void *H5VL_nczarr_native_group_create(void *obj, const H5VL_loc_params_t *loc_params, const char *name,
                                      hid_t lcpl_id, hid_t gcpl_id, hid_t gapl_id, hid_t dxpl_id, void **req)
{
    return H5VL_nczarr_native_wrap(
        H5VLgroup_create(UNDER(obj), loc_params, NAT, name, lcpl_id, gcpl_id, gapl_id, dxpl_id, req),
        H5I_GROUP);
}

void *H5VL_nczarr_native_group_open(void *obj, const H5VL_loc_params_t *loc_params, const char *name,
                                    hid_t gapl_id, hid_t dxpl_id, void **req)
{
    return H5VL_nczarr_native_wrap(H5VLgroup_open(UNDER(obj), loc_params, NAT, name, gapl_id, dxpl_id, req),
                                   H5I_GROUP);
}

herr_t H5VL_nczarr_native_group_get(void *obj, H5VL_group_get_args_t *args, hid_t dxpl_id, void **req)
{
    return H5VLgroup_get(UNDER(obj), NAT, args, dxpl_id, req);
}

herr_t H5VL_nczarr_native_group_specific(void *obj, H5VL_group_specific_args_t *args, hid_t dxpl_id,
                                         void **req)
{
    if (args->op_type == H5VL_GROUP_MOUNT) {
        H5VL_group_specific_args_t a = *args;
        a.args.mount.child_file = UNDER(args->args.mount.child_file);
        return H5VLgroup_specific(UNDER(obj), NAT, &a, dxpl_id, req);
    }
    /* H5Grefresh may close and reopen the object behind the id: obj is not used after. */
    return H5VLgroup_specific(UNDER(obj), NAT, args, dxpl_id, req);
}

herr_t H5VL_nczarr_native_group_optional(void *obj, H5VL_optional_args_t *args, hid_t dxpl_id, void **req)
{
    return H5VLgroup_optional(UNDER(obj), NAT, args, dxpl_id, req);
}

herr_t H5VL_nczarr_native_group_close(void *grp, hid_t dxpl_id, void **req)
{
    return H5VL_nczarr_native_close(grp, H5I_GROUP, dxpl_id, req);
}

/* ---- dataset ---- */

void *H5VL_nczarr_native_dataset_create(void *obj, const H5VL_loc_params_t *loc_params, const char *name,
                                        hid_t lcpl_id, hid_t type_id, hid_t space_id, hid_t dcpl_id,
                                        hid_t dapl_id, hid_t dxpl_id, void **req)
{
    return H5VL_nczarr_native_wrap(H5VLdataset_create(UNDER(obj), loc_params, NAT, name, lcpl_id, type_id,
                                                      space_id, dcpl_id, dapl_id, dxpl_id, req),
                                   H5I_DATASET);
}

void *H5VL_nczarr_native_dataset_open(void *obj, const H5VL_loc_params_t *loc_params, const char *name,
                                      hid_t dapl_id, hid_t dxpl_id, void **req)
{
    return H5VL_nczarr_native_wrap(H5VLdataset_open(UNDER(obj), loc_params, NAT, name, dapl_id, dxpl_id, req),
                                   H5I_DATASET);
}

/* The native datasets of a multi-dataset transfer (*owned set when it was allocated). */
static void **unders(size_t count, void *dset[], void *one[1], void ***owned)
{
    void **u = count <= 1 ? one : malloc(count * sizeof *u);
    *owned = u == one ? NULL : u;
    if (!u) {
        NCZ_PUSH(NCZ_E_NOMEM, "out of memory for a transfer of %zu datasets", count);
        return NULL;
    }
    for (size_t i = 0; i < count; i++)
        u[i] = UNDER(dset[i]);
    return u;
}

herr_t H5VL_nczarr_native_dataset_read(size_t count, void *dset[], hid_t mem_type_id[], hid_t mem_space_id[],
                                       hid_t file_space_id[], hid_t dxpl_id, void *buf[], void **req)
{
    void *one[1], **owned;
    void **u = unders(count, dset, one, &owned);
    if (!u)
        return FAIL;
    herr_t r = H5VLdataset_read(count, u, NAT, mem_type_id, mem_space_id, file_space_id, dxpl_id, buf, req);
    free(owned);
    return r;
}

herr_t H5VL_nczarr_native_dataset_write(size_t count, void *dset[], hid_t mem_type_id[], hid_t mem_space_id[],
                                        hid_t file_space_id[], hid_t dxpl_id, const void *buf[], void **req)
{
    void *one[1], **owned;
    void **u = unders(count, dset, one, &owned);
    if (!u)
        return FAIL;
    herr_t r = H5VLdataset_write(count, u, NAT, mem_type_id, mem_space_id, file_space_id, dxpl_id, buf, req);
    free(owned);
    return r;
}

herr_t H5VL_nczarr_native_dataset_get(void *dset, H5VL_dataset_get_args_t *args, hid_t dxpl_id, void **req)
{
    return H5VLdataset_get(UNDER(dset), NAT, args, dxpl_id, req);
}

herr_t H5VL_nczarr_native_dataset_specific(void *obj, H5VL_dataset_specific_args_t *args, hid_t dxpl_id,
                                           void **req)
{
    /* H5Drefresh may close and reopen the object behind the id: obj is not used after. */
    return H5VLdataset_specific(UNDER(obj), NAT, args, dxpl_id, req);
}

herr_t H5VL_nczarr_native_dataset_optional(void *obj, H5VL_optional_args_t *args, hid_t dxpl_id, void **req)
{
    return H5VLdataset_optional(UNDER(obj), NAT, args, dxpl_id, req);
}

herr_t H5VL_nczarr_native_dataset_close(void *dset, hid_t dxpl_id, void **req)
{
    return H5VL_nczarr_native_close(dset, H5I_DATASET, dxpl_id, req);
}

/* ---- attribute ---- */

void *H5VL_nczarr_native_attr_create(void *obj, const H5VL_loc_params_t *loc_params, const char *attr_name,
                                     hid_t type_id, hid_t space_id, hid_t acpl_id, hid_t aapl_id,
                                     hid_t dxpl_id, void **req)
{
    return H5VL_nczarr_native_wrap(H5VLattr_create(UNDER(obj), loc_params, NAT, attr_name, type_id, space_id,
                                                   acpl_id, aapl_id, dxpl_id, req),
                                   H5I_ATTR);
}

void *H5VL_nczarr_native_attr_open(void *obj, const H5VL_loc_params_t *loc_params, const char *attr_name,
                                   hid_t aapl_id, hid_t dxpl_id, void **req)
{
    return H5VL_nczarr_native_wrap(
        H5VLattr_open(UNDER(obj), loc_params, NAT, attr_name, aapl_id, dxpl_id, req), H5I_ATTR);
}

herr_t H5VL_nczarr_native_attr_read(void *attr, hid_t mem_type_id, void *buf, hid_t dxpl_id, void **req)
{
    return H5VLattr_read(UNDER(attr), NAT, mem_type_id, buf, dxpl_id, req);
}

herr_t H5VL_nczarr_native_attr_write(void *attr, hid_t mem_type_id, const void *buf, hid_t dxpl_id,
                                     void **req)
{
    return H5VLattr_write(UNDER(attr), NAT, mem_type_id, buf, dxpl_id, req);
}

herr_t H5VL_nczarr_native_attr_get(void *obj, H5VL_attr_get_args_t *args, hid_t dxpl_id, void **req)
{
    return H5VLattr_get(UNDER(obj), NAT, args, dxpl_id, req);
}

herr_t H5VL_nczarr_native_attr_specific(void *obj, const H5VL_loc_params_t *loc_params,
                                        H5VL_attr_specific_args_t *args, hid_t dxpl_id, void **req)
{
    return H5VLattr_specific(UNDER(obj), loc_params, NAT, args, dxpl_id, req);
}

herr_t H5VL_nczarr_native_attr_optional(void *obj, H5VL_optional_args_t *args, hid_t dxpl_id, void **req)
{
    return H5VLattr_optional(UNDER(obj), NAT, args, dxpl_id, req);
}

herr_t H5VL_nczarr_native_attr_close(void *attr, hid_t dxpl_id, void **req)
{
    return H5VL_nczarr_native_close(attr, H5I_ATTR, dxpl_id, req);
}

/* ---- committed datatype ---- */

void *H5VL_nczarr_native_datatype_commit(void *obj, const H5VL_loc_params_t *loc_params, const char *name,
                                         hid_t type_id, hid_t lcpl_id, hid_t tcpl_id, hid_t tapl_id,
                                         hid_t dxpl_id, void **req)
{
    return H5VL_nczarr_native_wrap(H5VLdatatype_commit(UNDER(obj), loc_params, NAT, name, type_id, lcpl_id,
                                                       tcpl_id, tapl_id, dxpl_id, req),
                                   H5I_DATATYPE);
}

void *H5VL_nczarr_native_datatype_open(void *obj, const H5VL_loc_params_t *loc_params, const char *name,
                                       hid_t tapl_id, hid_t dxpl_id, void **req)
{
    return H5VL_nczarr_native_wrap(
        H5VLdatatype_open(UNDER(obj), loc_params, NAT, name, tapl_id, dxpl_id, req), H5I_DATATYPE);
}

herr_t H5VL_nczarr_native_datatype_get(void *dt, H5VL_datatype_get_args_t *args, hid_t dxpl_id, void **req)
{
    return H5VLdatatype_get(UNDER(dt), NAT, args, dxpl_id, req);
}

herr_t H5VL_nczarr_native_datatype_specific(void *obj, H5VL_datatype_specific_args_t *args, hid_t dxpl_id,
                                            void **req)
{
    /* H5Trefresh may close and reopen the object behind the id: obj is not used after. */
    return H5VLdatatype_specific(UNDER(obj), NAT, args, dxpl_id, req);
}

herr_t H5VL_nczarr_native_datatype_optional(void *obj, H5VL_optional_args_t *args, hid_t dxpl_id, void **req)
{
    return H5VLdatatype_optional(UNDER(obj), NAT, args, dxpl_id, req);
}

herr_t H5VL_nczarr_native_datatype_close(void *dt, hid_t dxpl_id, void **req)
{
    return H5VL_nczarr_native_close(dt, H5I_DATATYPE, dxpl_id, req);
}

/* ---- link ---- */

/* obj may be NULL in the link calls (H5L_SAME_LOC): then it stays NULL. */
static void *under_or_null(void *obj)
{
    return obj ? UNDER(obj) : NULL;
}

herr_t H5VL_nczarr_native_link_create(H5VL_link_create_args_t *args, void *obj,
                                      const H5VL_loc_params_t *loc_params, hid_t lcpl_id, hid_t lapl_id,
                                      hid_t dxpl_id, void **req)
{
    H5VL_link_create_args_t a = *args;
    if (a.op_type == H5VL_LINK_CREATE_HARD)
        a.args.hard.curr_obj = under_or_null(a.args.hard.curr_obj);
    return H5VLlink_create(&a, under_or_null(obj), loc_params, NAT, lcpl_id, lapl_id, dxpl_id, req);
}

herr_t H5VL_nczarr_native_link_copy(void *src_obj, const H5VL_loc_params_t *loc_params1, void *dst_obj,
                                    const H5VL_loc_params_t *loc_params2, hid_t lcpl_id, hid_t lapl_id,
                                    hid_t dxpl_id, void **req)
{
    return H5VLlink_copy(under_or_null(src_obj), loc_params1, under_or_null(dst_obj), loc_params2, NAT,
                         lcpl_id, lapl_id, dxpl_id, req);
}

herr_t H5VL_nczarr_native_link_move(void *src_obj, const H5VL_loc_params_t *loc_params1, void *dst_obj,
                                    const H5VL_loc_params_t *loc_params2, hid_t lcpl_id, hid_t lapl_id,
                                    hid_t dxpl_id, void **req)
{
    return H5VLlink_move(under_or_null(src_obj), loc_params1, under_or_null(dst_obj), loc_params2, NAT,
                         lcpl_id, lapl_id, dxpl_id, req);
}

herr_t H5VL_nczarr_native_link_get(void *obj, const H5VL_loc_params_t *loc_params, H5VL_link_get_args_t *args,
                                   hid_t dxpl_id, void **req)
{
    return H5VLlink_get(UNDER(obj), loc_params, NAT, args, dxpl_id, req);
}

herr_t H5VL_nczarr_native_link_specific(void *obj, const H5VL_loc_params_t *loc_params,
                                        H5VL_link_specific_args_t *args, hid_t dxpl_id, void **req)
{
    return H5VLlink_specific(UNDER(obj), loc_params, NAT, args, dxpl_id, req);
}

herr_t H5VL_nczarr_native_link_optional(void *obj, const H5VL_loc_params_t *loc_params,
                                        H5VL_optional_args_t *args, hid_t dxpl_id, void **req)
{
    return H5VLlink_optional(UNDER(obj), loc_params, NAT, args, dxpl_id, req);
}

/* ---- object ---- */

void *H5VL_nczarr_native_object_open(void *obj, const H5VL_loc_params_t *loc_params, H5I_type_t *opened_type,
                                     hid_t dxpl_id, void **req)
{
    void *under = H5VLobject_open(UNDER(obj), loc_params, NAT, opened_type, dxpl_id, req);
    return H5VL_nczarr_native_wrap(under, under ? *opened_type : H5I_BADID);
}

herr_t H5VL_nczarr_native_object_copy(void *src_obj, const H5VL_loc_params_t *loc_params1,
                                      const char *src_name, void *dst_obj,
                                      const H5VL_loc_params_t *loc_params2, const char *dst_name,
                                      hid_t ocpypl_id, hid_t lcpl_id, hid_t dxpl_id, void **req)
{
    return H5VLobject_copy(UNDER(src_obj), loc_params1, src_name, UNDER(dst_obj), loc_params2, dst_name, NAT,
                           ocpypl_id, lcpl_id, dxpl_id, req);
}

herr_t H5VL_nczarr_native_object_get(void *obj, const H5VL_loc_params_t *loc_params,
                                     H5VL_object_get_args_t *args, hid_t dxpl_id, void **req)
{
    /* H5VL_OBJECT_GET_FILE returns the native file as it is: HDF5 finds the file's id by
     * the terminal object (H5VL_nczarr_get_object), or wraps it for a new id. */
    return H5VLobject_get(UNDER(obj), loc_params, NAT, args, dxpl_id, req);
}

herr_t H5VL_nczarr_native_object_specific(void *obj, const H5VL_loc_params_t *loc_params,
                                          H5VL_object_specific_args_t *args, hid_t dxpl_id, void **req)
{
    /* H5Orefresh may close and reopen the object behind the id: obj is not used after. */
    return H5VLobject_specific(UNDER(obj), loc_params, NAT, args, dxpl_id, req);
}

herr_t H5VL_nczarr_native_object_optional(void *obj, const H5VL_loc_params_t *loc_params,
                                          H5VL_optional_args_t *args, hid_t dxpl_id, void **req)
{
    return H5VLobject_optional(UNDER(obj), loc_params, NAT, args, dxpl_id, req);
}
