/* Wrappers around every callback: while a callback runs, the connector's messages are held
 * (HDF5 clears its error stack at the start of nearly every API call the callback makes
 * while cleaning up) and pushed onto HDF5's stack when the callback returns failure.
 * Generated from the prototypes in H5VL_nczarr.h: keep one wrapper per callback. */
#include "H5VL_nczarr.h"

void *H5VL_nczarr_cb_file_create(const char *name, unsigned flags, hid_t fcpl_id, hid_t fapl_id,
                                 hid_t dxpl_id, void **req)
{
    size_t mark = ncz_err_begin();
    void *r = H5VL_nczarr_file_create(name, flags, fcpl_id, fapl_id, dxpl_id, req);
    ncz_err_end(mark, r == NULL);
    return r;
}

void *H5VL_nczarr_cb_file_open(const char *name, unsigned flags, hid_t fapl_id, hid_t dxpl_id, void **req)
{
    size_t mark = ncz_err_begin();
    void *r = H5VL_nczarr_file_open(name, flags, fapl_id, dxpl_id, req);
    ncz_err_end(mark, r == NULL);
    return r;
}

herr_t H5VL_nczarr_cb_file_get(void *file, H5VL_file_get_args_t *args, hid_t dxpl_id, void **req)
{
    size_t mark = ncz_err_begin();
    herr_t r = H5VL_nczarr_file_get(file, args, dxpl_id, req);
    ncz_err_end(mark, r < 0);
    return r;
}

herr_t H5VL_nczarr_cb_file_specific(void *file, H5VL_file_specific_args_t *args, hid_t dxpl_id, void **req)
{
    size_t mark = ncz_err_begin();
    herr_t r = H5VL_nczarr_file_specific(file, args, dxpl_id, req);
    ncz_err_end(mark, r < 0);
    return r;
}

herr_t H5VL_nczarr_cb_file_optional(void *file, H5VL_optional_args_t *args, hid_t dxpl_id, void **req)
{
    size_t mark = ncz_err_begin();
    herr_t r = H5VL_nczarr_file_optional(file, args, dxpl_id, req);
    ncz_err_end(mark, r < 0);
    return r;
}

herr_t H5VL_nczarr_cb_file_close(void *file, hid_t dxpl_id, void **req)
{
    size_t mark = ncz_err_begin();
    herr_t r = H5VL_nczarr_file_close(file, dxpl_id, req);
    ncz_err_end(mark, r < 0);
    return r;
}

void *H5VL_nczarr_cb_group_create(void *obj, const H5VL_loc_params_t *loc_params, const char *name,
                                  hid_t lcpl_id, hid_t gcpl_id, hid_t gapl_id, hid_t dxpl_id, void **req)
{
    size_t mark = ncz_err_begin();
    void *r = H5VL_nczarr_group_create(obj, loc_params, name, lcpl_id, gcpl_id, gapl_id, dxpl_id, req);
    ncz_err_end(mark, r == NULL);
    return r;
}

void *H5VL_nczarr_cb_group_open(void *obj, const H5VL_loc_params_t *loc_params, const char *name,
                                hid_t gapl_id, hid_t dxpl_id, void **req)
{
    size_t mark = ncz_err_begin();
    void *r = H5VL_nczarr_group_open(obj, loc_params, name, gapl_id, dxpl_id, req);
    ncz_err_end(mark, r == NULL);
    return r;
}

herr_t H5VL_nczarr_cb_group_get(void *obj, H5VL_group_get_args_t *args, hid_t dxpl_id, void **req)
{
    size_t mark = ncz_err_begin();
    herr_t r = H5VL_nczarr_group_get(obj, args, dxpl_id, req);
    ncz_err_end(mark, r < 0);
    return r;
}

herr_t H5VL_nczarr_cb_group_specific(void *obj, H5VL_group_specific_args_t *args, hid_t dxpl_id, void **req)
{
    size_t mark = ncz_err_begin();
    herr_t r = H5VL_nczarr_group_specific(obj, args, dxpl_id, req);
    ncz_err_end(mark, r < 0);
    return r;
}

herr_t H5VL_nczarr_cb_group_optional(void *obj, H5VL_optional_args_t *args, hid_t dxpl_id, void **req)
{
    size_t mark = ncz_err_begin();
    herr_t r = H5VL_nczarr_group_optional(obj, args, dxpl_id, req);
    ncz_err_end(mark, r < 0);
    return r;
}

herr_t H5VL_nczarr_cb_group_close(void *grp, hid_t dxpl_id, void **req)
{
    size_t mark = ncz_err_begin();
    herr_t r = H5VL_nczarr_group_close(grp, dxpl_id, req);
    ncz_err_end(mark, r < 0);
    return r;
}

void *H5VL_nczarr_cb_dataset_create(void *obj, const H5VL_loc_params_t *loc_params, const char *name,
                                    hid_t lcpl_id, hid_t type_id, hid_t space_id, hid_t dcpl_id,
                                    hid_t dapl_id, hid_t dxpl_id, void **req)
{
    size_t mark = ncz_err_begin();
    void *r = H5VL_nczarr_dataset_create(obj, loc_params, name, lcpl_id, type_id, space_id, dcpl_id, dapl_id,
                                         dxpl_id, req);
    ncz_err_end(mark, r == NULL);
    return r;
}

void *H5VL_nczarr_cb_dataset_open(void *obj, const H5VL_loc_params_t *loc_params, const char *name,
                                  hid_t dapl_id, hid_t dxpl_id, void **req)
{
    size_t mark = ncz_err_begin();
    void *r = H5VL_nczarr_dataset_open(obj, loc_params, name, dapl_id, dxpl_id, req);
    ncz_err_end(mark, r == NULL);
    return r;
}

herr_t H5VL_nczarr_cb_dataset_read(size_t count, void *dset[], hid_t mem_type_id[], hid_t mem_space_id[],
                                   hid_t file_space_id[], hid_t dxpl_id, void *buf[], void **req)
{
    size_t mark = ncz_err_begin();
    herr_t r =
        H5VL_nczarr_dataset_read(count, dset, mem_type_id, mem_space_id, file_space_id, dxpl_id, buf, req);
    ncz_err_end(mark, r < 0);
    return r;
}

herr_t H5VL_nczarr_cb_dataset_write(size_t count, void *dset[], hid_t mem_type_id[], hid_t mem_space_id[],
                                    hid_t file_space_id[], hid_t dxpl_id, const void *buf[], void **req)
{
    size_t mark = ncz_err_begin();
    herr_t r =
        H5VL_nczarr_dataset_write(count, dset, mem_type_id, mem_space_id, file_space_id, dxpl_id, buf, req);
    ncz_err_end(mark, r < 0);
    return r;
}

herr_t H5VL_nczarr_cb_dataset_get(void *dset, H5VL_dataset_get_args_t *args, hid_t dxpl_id, void **req)
{
    size_t mark = ncz_err_begin();
    herr_t r = H5VL_nczarr_dataset_get(dset, args, dxpl_id, req);
    ncz_err_end(mark, r < 0);
    return r;
}

herr_t H5VL_nczarr_cb_dataset_specific(void *obj, H5VL_dataset_specific_args_t *args, hid_t dxpl_id,
                                       void **req)
{
    size_t mark = ncz_err_begin();
    herr_t r = H5VL_nczarr_dataset_specific(obj, args, dxpl_id, req);
    ncz_err_end(mark, r < 0);
    return r;
}

herr_t H5VL_nczarr_cb_dataset_optional(void *obj, H5VL_optional_args_t *args, hid_t dxpl_id, void **req)
{
    size_t mark = ncz_err_begin();
    herr_t r = H5VL_nczarr_dataset_optional(obj, args, dxpl_id, req);
    ncz_err_end(mark, r < 0);
    return r;
}

herr_t H5VL_nczarr_cb_dataset_close(void *dset, hid_t dxpl_id, void **req)
{
    size_t mark = ncz_err_begin();
    herr_t r = H5VL_nczarr_dataset_close(dset, dxpl_id, req);
    ncz_err_end(mark, r < 0);
    return r;
}

void *H5VL_nczarr_cb_attr_create(void *obj, const H5VL_loc_params_t *loc_params, const char *attr_name,
                                 hid_t type_id, hid_t space_id, hid_t acpl_id, hid_t aapl_id, hid_t dxpl_id,
                                 void **req)
{
    size_t mark = ncz_err_begin();
    void *r = H5VL_nczarr_attr_create(obj, loc_params, attr_name, type_id, space_id, acpl_id, aapl_id,
                                      dxpl_id, req);
    ncz_err_end(mark, r == NULL);
    return r;
}

void *H5VL_nczarr_cb_attr_open(void *obj, const H5VL_loc_params_t *loc_params, const char *attr_name,
                               hid_t aapl_id, hid_t dxpl_id, void **req)
{
    size_t mark = ncz_err_begin();
    void *r = H5VL_nczarr_attr_open(obj, loc_params, attr_name, aapl_id, dxpl_id, req);
    ncz_err_end(mark, r == NULL);
    return r;
}

herr_t H5VL_nczarr_cb_attr_read(void *attr, hid_t mem_type_id, void *buf, hid_t dxpl_id, void **req)
{
    size_t mark = ncz_err_begin();
    herr_t r = H5VL_nczarr_attr_read(attr, mem_type_id, buf, dxpl_id, req);
    ncz_err_end(mark, r < 0);
    return r;
}

herr_t H5VL_nczarr_cb_attr_write(void *attr, hid_t mem_type_id, const void *buf, hid_t dxpl_id, void **req)
{
    size_t mark = ncz_err_begin();
    herr_t r = H5VL_nczarr_attr_write(attr, mem_type_id, buf, dxpl_id, req);
    ncz_err_end(mark, r < 0);
    return r;
}

herr_t H5VL_nczarr_cb_attr_get(void *obj, H5VL_attr_get_args_t *args, hid_t dxpl_id, void **req)
{
    size_t mark = ncz_err_begin();
    herr_t r = H5VL_nczarr_attr_get(obj, args, dxpl_id, req);
    ncz_err_end(mark, r < 0);
    return r;
}

herr_t H5VL_nczarr_cb_attr_specific(void *obj, const H5VL_loc_params_t *loc_params,
                                    H5VL_attr_specific_args_t *args, hid_t dxpl_id, void **req)
{
    size_t mark = ncz_err_begin();
    herr_t r = H5VL_nczarr_attr_specific(obj, loc_params, args, dxpl_id, req);
    ncz_err_end(mark, r < 0);
    return r;
}

herr_t H5VL_nczarr_cb_attr_optional(void *obj, H5VL_optional_args_t *args, hid_t dxpl_id, void **req)
{
    size_t mark = ncz_err_begin();
    herr_t r = H5VL_nczarr_attr_optional(obj, args, dxpl_id, req);
    ncz_err_end(mark, r < 0);
    return r;
}

herr_t H5VL_nczarr_cb_attr_close(void *attr, hid_t dxpl_id, void **req)
{
    size_t mark = ncz_err_begin();
    herr_t r = H5VL_nczarr_attr_close(attr, dxpl_id, req);
    ncz_err_end(mark, r < 0);
    return r;
}

void *H5VL_nczarr_cb_datatype_commit(void *obj, const H5VL_loc_params_t *loc_params, const char *name,
                                     hid_t type_id, hid_t lcpl_id, hid_t tcpl_id, hid_t tapl_id,
                                     hid_t dxpl_id, void **req)
{
    size_t mark = ncz_err_begin();
    void *r =
        H5VL_nczarr_datatype_commit(obj, loc_params, name, type_id, lcpl_id, tcpl_id, tapl_id, dxpl_id, req);
    ncz_err_end(mark, r == NULL);
    return r;
}

void *H5VL_nczarr_cb_datatype_open(void *obj, const H5VL_loc_params_t *loc_params, const char *name,
                                   hid_t tapl_id, hid_t dxpl_id, void **req)
{
    size_t mark = ncz_err_begin();
    void *r = H5VL_nczarr_datatype_open(obj, loc_params, name, tapl_id, dxpl_id, req);
    ncz_err_end(mark, r == NULL);
    return r;
}

herr_t H5VL_nczarr_cb_datatype_get(void *dt, H5VL_datatype_get_args_t *args, hid_t dxpl_id, void **req)
{
    size_t mark = ncz_err_begin();
    herr_t r = H5VL_nczarr_datatype_get(dt, args, dxpl_id, req);
    ncz_err_end(mark, r < 0);
    return r;
}

herr_t H5VL_nczarr_cb_datatype_close(void *dt, hid_t dxpl_id, void **req)
{
    size_t mark = ncz_err_begin();
    herr_t r = H5VL_nczarr_datatype_close(dt, dxpl_id, req);
    ncz_err_end(mark, r < 0);
    return r;
}

herr_t H5VL_nczarr_cb_link_create(H5VL_link_create_args_t *args, void *obj,
                                  const H5VL_loc_params_t *loc_params, hid_t lcpl_id, hid_t lapl_id,
                                  hid_t dxpl_id, void **req)
{
    size_t mark = ncz_err_begin();
    herr_t r = H5VL_nczarr_link_create(args, obj, loc_params, lcpl_id, lapl_id, dxpl_id, req);
    ncz_err_end(mark, r < 0);
    return r;
}

herr_t H5VL_nczarr_cb_link_copy(void *src_obj, const H5VL_loc_params_t *loc_params1, void *dst_obj,
                                const H5VL_loc_params_t *loc_params2, hid_t lcpl_id, hid_t lapl_id,
                                hid_t dxpl_id, void **req)
{
    size_t mark = ncz_err_begin();
    herr_t r =
        H5VL_nczarr_link_copy(src_obj, loc_params1, dst_obj, loc_params2, lcpl_id, lapl_id, dxpl_id, req);
    ncz_err_end(mark, r < 0);
    return r;
}

herr_t H5VL_nczarr_cb_link_move(void *src_obj, const H5VL_loc_params_t *loc_params1, void *dst_obj,
                                const H5VL_loc_params_t *loc_params2, hid_t lcpl_id, hid_t lapl_id,
                                hid_t dxpl_id, void **req)
{
    size_t mark = ncz_err_begin();
    herr_t r =
        H5VL_nczarr_link_move(src_obj, loc_params1, dst_obj, loc_params2, lcpl_id, lapl_id, dxpl_id, req);
    ncz_err_end(mark, r < 0);
    return r;
}

herr_t H5VL_nczarr_cb_link_get(void *obj, const H5VL_loc_params_t *loc_params, H5VL_link_get_args_t *args,
                               hid_t dxpl_id, void **req)
{
    size_t mark = ncz_err_begin();
    herr_t r = H5VL_nczarr_link_get(obj, loc_params, args, dxpl_id, req);
    ncz_err_end(mark, r < 0);
    return r;
}

herr_t H5VL_nczarr_cb_link_specific(void *obj, const H5VL_loc_params_t *loc_params,
                                    H5VL_link_specific_args_t *args, hid_t dxpl_id, void **req)
{
    size_t mark = ncz_err_begin();
    herr_t r = H5VL_nczarr_link_specific(obj, loc_params, args, dxpl_id, req);
    ncz_err_end(mark, r < 0);
    return r;
}

void *H5VL_nczarr_cb_object_open(void *obj, const H5VL_loc_params_t *loc_params, H5I_type_t *opened_type,
                                 hid_t dxpl_id, void **req)
{
    size_t mark = ncz_err_begin();
    void *r = H5VL_nczarr_object_open(obj, loc_params, opened_type, dxpl_id, req);
    ncz_err_end(mark, r == NULL);
    return r;
}

herr_t H5VL_nczarr_cb_object_copy(void *src_obj, const H5VL_loc_params_t *loc_params1, const char *src_name,
                                  void *dst_obj, const H5VL_loc_params_t *loc_params2, const char *dst_name,
                                  hid_t ocpypl_id, hid_t lcpl_id, hid_t dxpl_id, void **req)
{
    size_t mark = ncz_err_begin();
    herr_t r = H5VL_nczarr_object_copy(src_obj, loc_params1, src_name, dst_obj, loc_params2, dst_name,
                                       ocpypl_id, lcpl_id, dxpl_id, req);
    ncz_err_end(mark, r < 0);
    return r;
}

herr_t H5VL_nczarr_cb_object_get(void *obj, const H5VL_loc_params_t *loc_params, H5VL_object_get_args_t *args,
                                 hid_t dxpl_id, void **req)
{
    size_t mark = ncz_err_begin();
    herr_t r = H5VL_nczarr_object_get(obj, loc_params, args, dxpl_id, req);
    ncz_err_end(mark, r < 0);
    return r;
}

herr_t H5VL_nczarr_cb_object_specific(void *obj, const H5VL_loc_params_t *loc_params,
                                      H5VL_object_specific_args_t *args, hid_t dxpl_id, void **req)
{
    size_t mark = ncz_err_begin();
    herr_t r = H5VL_nczarr_object_specific(obj, loc_params, args, dxpl_id, req);
    ncz_err_end(mark, r < 0);
    return r;
}

herr_t H5VL_nczarr_cb_object_optional(void *obj, const H5VL_loc_params_t *loc_params,
                                      H5VL_optional_args_t *args, hid_t dxpl_id, void **req)
{
    size_t mark = ncz_err_begin();
    herr_t r = H5VL_nczarr_object_optional(obj, loc_params, args, dxpl_id, req);
    ncz_err_end(mark, r < 0);
    return r;
}

herr_t H5VL_nczarr_cb_introspect_get_conn_cls(void *obj, H5VL_get_conn_lvl_t lvl,
                                              const H5VL_class_t **conn_cls)
{
    size_t mark = ncz_err_begin();
    herr_t r = H5VL_nczarr_introspect_get_conn_cls(obj, lvl, conn_cls);
    ncz_err_end(mark, r < 0);
    return r;
}

herr_t H5VL_nczarr_cb_introspect_get_cap_flags(const void *info, uint64_t *cap_flags)
{
    size_t mark = ncz_err_begin();
    herr_t r = H5VL_nczarr_introspect_get_cap_flags(info, cap_flags);
    ncz_err_end(mark, r < 0);
    return r;
}

herr_t H5VL_nczarr_cb_introspect_opt_query(void *obj, H5VL_subclass_t cls, int opt_type, uint64_t *flags)
{
    size_t mark = ncz_err_begin();
    herr_t r = H5VL_nczarr_introspect_opt_query(obj, cls, opt_type, flags);
    ncz_err_end(mark, r < 0);
    return r;
}

herr_t H5VL_nczarr_cb_token_cmp(void *obj, const H5O_token_t *token1, const H5O_token_t *token2,
                                int *cmp_value)
{
    size_t mark = ncz_err_begin();
    herr_t r = H5VL_nczarr_token_cmp(obj, token1, token2, cmp_value);
    ncz_err_end(mark, r < 0);
    return r;
}

herr_t H5VL_nczarr_cb_token_to_str(void *obj, H5I_type_t obj_type, const H5O_token_t *token, char **token_str)
{
    size_t mark = ncz_err_begin();
    herr_t r = H5VL_nczarr_token_to_str(obj, obj_type, token, token_str);
    ncz_err_end(mark, r < 0);
    return r;
}

herr_t H5VL_nczarr_cb_token_from_str(void *obj, H5I_type_t obj_type, const char *token_str,
                                     H5O_token_t *token)
{
    size_t mark = ncz_err_begin();
    herr_t r = H5VL_nczarr_token_from_str(obj, obj_type, token_str, token);
    ncz_err_end(mark, r < 0);
    return r;
}
