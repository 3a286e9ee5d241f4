/* Datatype callbacks. Zarr has no place for a named (committed) datatype: every array
 * carries its own dtype. Committing one fails, and a store can never hold one to open. */
#include "H5VL_nczarr.h"

void *H5VL_nczarr_datatype_commit(void *obj, const H5VL_loc_params_t *loc_params, const char *name,
                                  hid_t type_id, hid_t lcpl_id, hid_t tcpl_id, hid_t tapl_id, hid_t dxpl_id,
                                  void **req)
{
    (void)obj;
    (void)loc_params;
    (void)type_id;
    (void)lcpl_id;
    (void)tcpl_id;
    (void)tapl_id;
    (void)dxpl_id;
    (void)req;
    /* name is NULL for H5Tcommit_anon. */
    NCZ_PUSH(NCZ_E_NOTREPR,
             "cannot commit datatype \"%s\": committed datatypes are not representable in NCZarr",
             name ? name : "(anonymous)");
    return NULL;
}

void *H5VL_nczarr_datatype_open(void *obj, const H5VL_loc_params_t *loc_params, const char *name,
                                hid_t tapl_id, hid_t dxpl_id, void **req)
{
    (void)obj;
    (void)loc_params;
    (void)tapl_id;
    (void)dxpl_id;
    (void)req;
    NCZ_PUSH(NCZ_E_NOTFOUND, "no committed datatype \"%s\": NCZarr stores hold none", name ? name : "");
    return NULL;
}

herr_t H5VL_nczarr_datatype_get(void *dt, H5VL_datatype_get_args_t *args, hid_t dxpl_id, void **req)
{
    (void)dt;
    (void)dxpl_id;
    (void)req;
    /* Unreachable in practice: no datatype object is ever handed out. */
    return NCZ_PUSH(NCZ_E_UNSUPPORTED,
                    "datatype get operation %d is not supported: NCZarr has no committed datatypes",
                    (int)args->op_type);
}

herr_t H5VL_nczarr_datatype_close(void *dt, hid_t dxpl_id, void **req)
{
    (void)dxpl_id;
    (void)req;
    return H5VL_nczarr_obj_release(dt);
}

/* H5Tflush, H5Trefresh: there is never a committed datatype of a store to act on. */
herr_t H5VL_nczarr_datatype_specific(void *obj, H5VL_datatype_specific_args_t *args, hid_t dxpl_id,
                                     void **req)
{
    (void)obj;
    (void)dxpl_id;
    (void)req;
    return NCZ_PUSH(NCZ_E_UNSUPPORTED,
                    "datatype operation %d is not supported: NCZarr has no committed datatypes",
                    (int)args->op_type);
}

herr_t H5VL_nczarr_datatype_optional(void *obj, H5VL_optional_args_t *args, hid_t dxpl_id, void **req)
{
    (void)obj;
    (void)dxpl_id;
    (void)req;
    return NCZ_NATIVE_ONLY("datatype", args->op_type);
}
