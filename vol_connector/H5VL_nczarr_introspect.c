/* Introspection: the connector's class, its capability flags, which optional operations it
 * serves. The class is the one registered (H5VL_nczarr.c sets it when HDF5 initialises the
 * connector), so that this file needs nothing above it. */
#include "H5VL_nczarr.h"

const H5VL_class_t *H5VL_nczarr_class;

herr_t H5VL_nczarr_introspect_get_conn_cls(void *obj, H5VL_get_conn_lvl_t lvl, const H5VL_class_t **conn_cls)
{
    (void)obj;
    (void)lvl;
    *conn_cls = H5VL_nczarr_class;
    return SUCCEED;
}

herr_t H5VL_nczarr_introspect_get_cap_flags(const void *info, uint64_t *cap_flags)
{
    (void)info;
    *cap_flags = H5VL_nczarr_class ? H5VL_nczarr_class->cap_flags : 0;
    return SUCCEED;
}

herr_t H5VL_nczarr_introspect_opt_query(void *obj, H5VL_subclass_t cls, int opt_type, uint64_t *flags)
{
    (void)obj;
    /* netCDF-C still calls H5Gget_objinfo (a native optional operation): we serve it. */
    if (cls == H5VL_SUBCLS_GROUP && opt_type == H5VL_NATIVE_GROUP_GET_OBJINFO)
        *flags = H5VL_OPT_QUERY_SUPPORTED | H5VL_OPT_QUERY_QUERY_METADATA;
    else
        *flags = 0;
    return SUCCEED;
}
