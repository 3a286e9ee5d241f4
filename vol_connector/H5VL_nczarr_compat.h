/* Every HDF5 call whose name or behaviour differs between HDF5 1.14 and 2.x, in one place,
 * so that a port to a new HDF5 is this file. HDF5 2.0 renamed
 * H5VLstart_lib_state/H5VLfinish_lib_state to H5VLopen_lib_context/H5VLclose_lib_context
 * (the connector calls neither: it never re-enters HDF5 from another thread), removed
 * H5VLpeek_connector_id_by_name/_by_value, and made H5Pset* fail on the default property
 * lists (the connector only sets properties on lists it created). */
#ifndef H5VL_NCZARR_COMPAT_H
#define H5VL_NCZARR_COMPAT_H

#include <hdf5.h>
#include <stdbool.h>

/* A new reference to this connector's registered id, or H5I_INVALID_HID: the caller closes
 * it with H5VLclose. H5VLget_connector_id_by_name exists in 1.14 and 2.x alike; the
 * borrowed-reference variant (H5VLpeek_connector_id_by_name) is gone in 2.0. */
static inline hid_t H5VL_nczarr_compat_connector_id(const char *name)
{
    return H5VLget_connector_id_by_name(name);
}

/* HDF5 1.14.6's deprecated reference calls (H5Rcreate, H5Rdereference2, ...: six in
 * H5Rdeprec.c) refuse an object of a non-native connector with HGOTO_ERROR(H5E_REFERENCE,
 * H5E_VOL, ...), a major message id given as the minor one. Clearing that entry from the
 * stack drops a reference to H5E_VOL that was never taken (H5E__clear_entries takes it for
 * an application's message): after as many refusals as H5E_VOL had references the message
 * is gone, every later clear stops half way and leaves entries whose strings it freed, and
 * the next H5Eprint2 recurses until the stack overflows (h5py, whose 1.10 API calls
 * H5Rcreate, crashed so in its own test suite). The connector keeps H5E_VOL at least
 * H5VL_NCZARR_H5E_VOL_LOW references ahead: given H5VL_NCZARR_H5E_VOL_HIGH when it starts,
 * topped up as every callback begins (one lookup when nothing is missing). HDF5's own
 * H5I_get_ref/H5I_inc_ref (exported by libhdf5, H5Iprivate.h), not the API calls: an API
 * call costs a context push each, and a million of them took 20 ms of every process's
 * start. */
int H5I_get_ref(hid_t id, bool app_ref);
int H5I_inc_ref(hid_t id, bool app_ref);
#define H5VL_NCZARR_H5E_VOL_LOW  (1 << 17)
#define H5VL_NCZARR_H5E_VOL_HIGH (1 << 18)
static inline void H5VL_nczarr_compat_guard_h5e_vol(void)
{
    int n = H5I_get_ref(H5E_VOL_g, false); /* all references: a refusal drops one of those */
    if (n < 0 || n >= H5VL_NCZARR_H5E_VOL_LOW)
        return;
    for (; n < H5VL_NCZARR_H5E_VOL_HIGH; n++)
        if (H5I_inc_ref(H5E_VOL_g, true) < 0)
            break;
}

/* The H5T_t behind a datatype id. HDF5 takes a terminal connector's object of a committed
 * datatype for an H5T_t (H5T_get_actual_type, at the latest in H5T_top_term_package when
 * the library shuts down), so the connector hands it one; the public H5Iobject_verify
 * refuses library types, so this is HDF5's own H5I_object_verify, exported by libhdf5 in
 * 1.14 and 2.x alike (H5Iprivate.h). */
void *H5I_object_verify(hid_t id, H5I_type_t type);
static inline void *H5VL_nczarr_compat_type_object(hid_t type_id)
{
    return H5I_object_verify(type_id, H5I_DATATYPE);
}

#endif
