/* Datatype callbacks: committed (named) datatypes, which the model keeps as arrays of the
 * type with no elements (translate/model/ncztr_datatype.c). HDF5 builds a committed type's
 * H5T from the encoded type the connector hands back (H5VL_DATATYPE_GET_BINARY). */
#include "H5VL_nczarr.h"

#include <stdlib.h>

void *H5VL_nczarr_datatype_commit(void *obj, const H5VL_loc_params_t *loc_params, const char *name,
                                  hid_t type_id, hid_t lcpl_id, hid_t tcpl_id, hid_t tapl_id, hid_t dxpl_id,
                                  void **req)
{
    (void)dxpl_id;
    (void)req;
    H5VL_nczarr_obj_t *o = obj;
    ncztr_obj *base = o ? H5VL_nczarr_resolve(o, loc_params) : NULL, *parent = NULL, *t = NULL;
    char *leaf = NULL;
    if (!base)
        return NULL;
    if (H5VL_nczarr_check_plist(lcpl_id, H5P_LINK_CREATE, "link creation") < 0 ||
        H5VL_nczarr_check_plist(tcpl_id, H5P_DATATYPE_CREATE, "datatype creation") < 0 ||
        H5VL_nczarr_check_plist(tapl_id, H5P_DATATYPE_ACCESS, "datatype access") < 0)
        return NULL;
    /* name is NULL for H5Tcommit_anon: linked later by H5Olink (H5Lcreate_hard) */
    if (!name) {
        if (ncztr_datatype_create_anon(ncztr_obj_file(base), type_id, &t) < 0)
            return NULL;
    } else {
        if (ncztr_resolve_new(base, name, H5VL_nczarr_lcpl_intermediate(lcpl_id), &parent, &leaf) < 0)
            return NULL;
        herr_t r = ncztr_datatype_create(parent, leaf, type_id, &t);
        free(leaf);
        if (r < 0)
            return NULL;
    }
    H5VL_nczarr_obj_t *ret = H5VL_nczarr_obj_new(H5I_DATATYPE, o->file, t, NULL);
    ncztr_obj_unref(t);
    return ret;
}

void *H5VL_nczarr_datatype_open(void *obj, const H5VL_loc_params_t *loc_params, const char *name,
                                hid_t tapl_id, hid_t dxpl_id, void **req)
{
    (void)dxpl_id;
    (void)req;
    H5VL_nczarr_obj_t *o = obj;
    if (H5VL_nczarr_check_plist(tapl_id, H5P_DATATYPE_ACCESS, "datatype access") < 0)
        return NULL;
    ncztr_obj *base = o ? H5VL_nczarr_resolve(o, loc_params) : NULL, *t = NULL;
    if (!base || ncztr_lookup(base, name ? name : ".", &t) < 0)
        return NULL;
    if (!ncztr_obj_is_datatype(t)) {
        NCZ_PUSH(NCZ_E_ARGS, "\"%s\" is a %s, not a committed datatype", name ? name : ".",
                 ncztr_obj_kind(t) == NCZTR_GROUP ? "group" : "dataset");
        return NULL;
    }
    return H5VL_nczarr_obj_new(H5I_DATATYPE, o->file, t, NULL);
}

herr_t H5VL_nczarr_datatype_get(void *dt, H5VL_datatype_get_args_t *args, hid_t dxpl_id, void **req)
{
    (void)dxpl_id;
    (void)req;
    H5VL_nczarr_obj_t *o = dt;
    ncztr_obj *n = o ? o->node : NULL;
    if (!n || !ncztr_obj_is_datatype(n))
        return NCZ_PUSH(NCZ_E_ARGS, "datatype operation on an object that is not a committed datatype");
    switch (args->op_type) {
    case H5VL_DATATYPE_GET_BINARY_SIZE:
    case H5VL_DATATYPE_GET_BINARY: {
        hid_t t = ncztr_array_type(n);
        size_t size = 0;
        herr_t r = t >= 0 ? H5Tencode(t, NULL, &size) : FAIL;
        if (r >= 0 && args->op_type == H5VL_DATATYPE_GET_BINARY) {
            void *buf = args->args.get_binary.buf;
            if (buf && args->args.get_binary.buf_size >= size)
                r = H5Tencode(t, buf, &size);
        } else if (r >= 0) {
            *args->args.get_binary_size.size = size;
        }
        if (t >= 0)
            H5Tclose(t);
        return r < 0 ? NCZ_PUSH(NCZ_E_HDF5, "datatype \"%s\": cannot encode its type", ncztr_obj_name(n))
                     : SUCCEED;
    }
    case H5VL_DATATYPE_GET_TCPL:
        if ((args->args.get_tcpl.tcpl_id = H5Pcreate(H5P_DATATYPE_CREATE)) < 0)
            return NCZ_PUSH(NCZ_E_HDF5, "cannot make a datatype creation property list");
        return SUCCEED;
    default:
        return NCZ_PUSH(NCZ_E_UNSUPPORTED, "datatype get operation %d is not supported", (int)args->op_type);
    }
}

herr_t H5VL_nczarr_datatype_close(void *dt, hid_t dxpl_id, void **req)
{
    (void)dxpl_id;
    (void)req;
    return H5VL_nczarr_obj_release(dt);
}

/* H5Tflush, H5Trefresh: a committed datatype never changes after its commit. */
herr_t H5VL_nczarr_datatype_specific(void *obj, H5VL_datatype_specific_args_t *args, hid_t dxpl_id,
                                     void **req)
{
    (void)obj;
    (void)dxpl_id;
    (void)req;
    if (args->op_type == H5VL_DATATYPE_FLUSH || args->op_type == H5VL_DATATYPE_REFRESH)
        return SUCCEED;
    return NCZ_PUSH(NCZ_E_UNSUPPORTED, "datatype operation %d is not supported", (int)args->op_type);
}

herr_t H5VL_nczarr_datatype_optional(void *obj, H5VL_optional_args_t *args, hid_t dxpl_id, void **req)
{
    (void)obj;
    (void)dxpl_id;
    (void)req;
    return NCZ_NATIVE_ONLY("datatype", args->op_type);
}
