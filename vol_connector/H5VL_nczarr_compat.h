/* Every HDF5 call whose name or behaviour differs between HDF5 1.14 and 2.x, in one place,
 * so that a port to a new HDF5 is this file. HDF5 2.0 renamed
 * H5VLstart_lib_state/H5VLfinish_lib_state to H5VLopen_lib_context/H5VLclose_lib_context
 * (the connector calls neither: it never re-enters HDF5 from another thread), removed
 * H5VLpeek_connector_id_by_name/_by_value, and made H5Pset* fail on the default property
 * lists (the connector only sets properties on lists it created). */
#ifndef H5VL_NCZARR_COMPAT_H
#define H5VL_NCZARR_COMPAT_H

#include <hdf5.h>

/* A new reference to this connector's registered id, or H5I_INVALID_HID: the caller closes
 * it with H5VLclose. H5VLget_connector_id_by_name exists in 1.14 and 2.x alike; the
 * borrowed-reference variant (H5VLpeek_connector_id_by_name) is gone in 2.0. */
static inline hid_t H5VL_nczarr_compat_connector_id(const char *name)
{
    return H5VLget_connector_id_by_name(name);
}

#endif
