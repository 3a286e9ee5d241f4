/* The connector class, the plugin entry points HDF5 looks up when it loads the library
 * from HDF5_PLUGIN_PATH, start-up/shut-down, and introspection. */
#include "H5VL_nczarr.h"
#include "H5VL_nczarr_wrap.h"
#include "ncztr_h5compat.h"
#include "ncztr_codecs.h"
#include "nczc_workers.h"

#include <stdlib.h>

/* Honest capabilities: the HDF5 API test suite skips what these do not claim. No soft or
 * external links, no committed datatypes. References: object references (H5R_OBJECT2,
 * the H5R API) in attribute values, not in datasets; no region or attribute references.
 * Filters: deflate, shuffle, fletcher32 and plugin filters that have a Zarr codec
 * (translate/codec). */
#define H5VL_NCZARR_CAP_FLAGS                                                                                \
    (H5VL_CAP_FLAG_ATTR_BASIC | H5VL_CAP_FLAG_ATTR_MORE | H5VL_CAP_FLAG_DATASET_BASIC |                      \
     H5VL_CAP_FLAG_DATASET_MORE | H5VL_CAP_FLAG_FILE_BASIC | H5VL_CAP_FLAG_FILE_MORE |                       \
     H5VL_CAP_FLAG_GROUP_BASIC | H5VL_CAP_FLAG_GROUP_MORE | H5VL_CAP_FLAG_LINK_BASIC |                       \
     H5VL_CAP_FLAG_LINK_MORE | H5VL_CAP_FLAG_OBJECT_BASIC | H5VL_CAP_FLAG_OBJECT_MORE |                      \
     H5VL_CAP_FLAG_REF_BASIC | H5VL_CAP_FLAG_REF_MORE | H5VL_CAP_FLAG_OBJ_REF |                              \
     H5VL_CAP_FLAG_CREATION_ORDER | H5VL_CAP_FLAG_ITERATE | H5VL_CAP_FLAG_STORAGE_SIZE |                     \
     H5VL_CAP_FLAG_BY_IDX | H5VL_CAP_FLAG_GET_PLIST | H5VL_CAP_FLAG_FLUSH_REFRESH |                          \
     H5VL_CAP_FLAG_FILL_VALUES | H5VL_CAP_FLAG_HARD_LINKS | H5VL_CAP_FLAG_FILTERS |                          \
     H5VL_CAP_FLAG_SOFT_LINKS | H5VL_CAP_FLAG_STORED_DATATYPES)

/* The atclose callback is registered once per life of the library (HDF5 drops its list
 * when it shuts down, and calls terminate then). */
static bool g_atclose_registered = false;

static herr_t nczarr_initialize(hid_t vipl_id)
{
    (void)vipl_id;
    /* HDF5 runs its atclose callbacks first when it shuts down (at H5close or at exit),
     * before it closes every type and dataspace id and then the files still open: stores
     * are written while their ids are alive. Not atexit(): the plugin may be unloaded by
     * then (h5dump calls H5close), and a handler in unmapped code crashes the exit. */
    H5VL_nczarr_class = &H5VL_nczarr_g;
    if (!g_atclose_registered && H5atclose(H5VL_nczarr_flush_at_exit, NULL) >= 0)
        g_atclose_registered = true;
    H5VL_nczarr_exit_reset();
    H5VL_nczarr_compat_guard_h5e_vol();
    return ncz_err_init();
}

static herr_t nczarr_terminate(void)
{
    /* The chunk pipeline's threads: joined here so that nothing outlives the connector. */
    nczc_workers_shutdown();
    g_atclose_registered = false;
    ncztr_codec_term();
    ncz_err_term();
    return SUCCEED;
}

const H5VL_class_t H5VL_nczarr_g = {
    .version = H5VL_VERSION,
    .value = H5VL_NCZARR_VALUE,
    .name = H5VL_NCZARR_NAME,
    .conn_version = H5VL_NCZARR_VERSION,
    .cap_flags = H5VL_NCZARR_CAP_FLAGS,
    .initialize = nczarr_initialize,
    .terminate = nczarr_terminate,
    .info_cls =
        {
            .size = sizeof(H5VL_nczarr_info_t),
            .copy = H5VL_nczarr_info_copy,
            .cmp = H5VL_nczarr_info_cmp,
            .free = H5VL_nczarr_info_free,
            .to_str = H5VL_nczarr_info_to_str,
            .from_str = H5VL_nczarr_str_to_info,
        },
    /* Only the objects of native HDF5 files are wrapped (H5VL_nczarr_native.h). */
    .wrap_cls =
        {
            .get_object = H5VL_nczarr_cb_get_object,
            .get_wrap_ctx = H5VL_nczarr_cb_get_wrap_ctx,
            .wrap_object = H5VL_nczarr_cb_wrap_object,
            .unwrap_object = H5VL_nczarr_cb_unwrap_object,
            .free_wrap_ctx = H5VL_nczarr_cb_free_wrap_ctx,
        },
    .attr_cls =
        {
            .create = H5VL_nczarr_cb_attr_create,
            .open = H5VL_nczarr_cb_attr_open,
            .read = H5VL_nczarr_cb_attr_read,
            .write = H5VL_nczarr_cb_attr_write,
            .get = H5VL_nczarr_cb_attr_get,
            .specific = H5VL_nczarr_cb_attr_specific,
            .optional = H5VL_nczarr_cb_attr_optional,
            .close = H5VL_nczarr_cb_attr_close,
        },
    .dataset_cls =
        {
            .create = H5VL_nczarr_cb_dataset_create,
            .open = H5VL_nczarr_cb_dataset_open,
            .read = H5VL_nczarr_cb_dataset_read,
            .write = H5VL_nczarr_cb_dataset_write,
            .get = H5VL_nczarr_cb_dataset_get,
            .specific = H5VL_nczarr_cb_dataset_specific,
            .optional = H5VL_nczarr_cb_dataset_optional,
            .close = H5VL_nczarr_cb_dataset_close,
        },
    .datatype_cls =
        {
            .commit = H5VL_nczarr_cb_datatype_commit,
            .open = H5VL_nczarr_cb_datatype_open,
            .get = H5VL_nczarr_cb_datatype_get,
            .specific = H5VL_nczarr_cb_datatype_specific,
            .optional = H5VL_nczarr_cb_datatype_optional,
            .close = H5VL_nczarr_cb_datatype_close,
        },
    .file_cls =
        {
            .create = H5VL_nczarr_cb_file_create,
            .open = H5VL_nczarr_cb_file_open,
            .get = H5VL_nczarr_cb_file_get,
            .specific = H5VL_nczarr_cb_file_specific,
            .optional = H5VL_nczarr_cb_file_optional,
            .close = H5VL_nczarr_cb_file_close,
        },
    .group_cls =
        {
            .create = H5VL_nczarr_cb_group_create,
            .open = H5VL_nczarr_cb_group_open,
            .get = H5VL_nczarr_cb_group_get,
            .specific = H5VL_nczarr_cb_group_specific,
            .optional = H5VL_nczarr_cb_group_optional,
            .close = H5VL_nczarr_cb_group_close,
        },
    .link_cls =
        {
            .create = H5VL_nczarr_cb_link_create,
            .copy = H5VL_nczarr_cb_link_copy,
            .move = H5VL_nczarr_cb_link_move,
            .get = H5VL_nczarr_cb_link_get,
            .specific = H5VL_nczarr_cb_link_specific,
            .optional = H5VL_nczarr_cb_link_optional,
        },
    .object_cls =
        {
            .open = H5VL_nczarr_cb_object_open,
            .copy = H5VL_nczarr_cb_object_copy,
            .get = H5VL_nczarr_cb_object_get,
            .specific = H5VL_nczarr_cb_object_specific,
            .optional = H5VL_nczarr_cb_object_optional,
        },
    .introspect_cls =
        {
            .get_conn_cls = H5VL_nczarr_cb_introspect_get_conn_cls,
            .get_cap_flags = H5VL_nczarr_cb_introspect_get_cap_flags,
            .opt_query = H5VL_nczarr_cb_introspect_opt_query,
        },
    .request_cls = {NULL, NULL, NULL, NULL, NULL, NULL},
    .blob_cls =
        {
            .put = H5VL_nczarr_cb_blob_put,
            .get = H5VL_nczarr_cb_blob_get,
            .specific = H5VL_nczarr_cb_blob_specific,
            .optional = NULL,
        },
    .token_cls =
        {
            .cmp = H5VL_nczarr_cb_token_cmp,
            .to_str = H5VL_nczarr_cb_token_to_str,
            .from_str = H5VL_nczarr_cb_token_from_str,
        },
    .optional = NULL,
};

/* Plugin entry points (H5PLextern.h). */
H5PL_type_t H5PLget_plugin_type(void)
{
    return H5PL_TYPE_VOL;
}

const void *H5PLget_plugin_info(void)
{
    return &H5VL_nczarr_g;
}
