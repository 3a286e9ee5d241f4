/* Copies across connectors (H5VL_nczarr_xcopy.c): H5Ocopy and H5Lcopy when the two ends
 * are not one store (a native HDF5 file and a store, or two stores). */
#ifndef H5VL_NCZARR_XCOPY_H
#define H5VL_NCZARR_XCOPY_H

#include <hdf5.h>

/* H5Ocopy's and H5Lcopy's arguments, with the objects HDF5 hands the callback (flags:
 * H5O_COPY_*, read from the object copy plist). */
herr_t H5VL_nczarr_xcopy_object(void *src_obj, const char *src_name, void *dst_obj, const char *dst_name,
                                unsigned flags, hid_t lcpl_id);
herr_t H5VL_nczarr_xcopy_link(void *src_obj, const char *src_name, void *dst_obj, const char *dst_name,
                              hid_t lcpl_id, hid_t lapl_id);

/* ---- references (H5VL_nczarr_xcopy_refs.c) ---- */
/* The memory type in which a type's values are read with every reference as an H5R_ref_t
 * (H5T_STD_REF), whatever reference type the file has: inside compounds, arrays and
 * variable-length sequences too. */
hid_t H5VL_nczarr_xcopy_ref_type(hid_t type);
/* Makes each of n values of mem_type (from H5VL_nczarr_xcopy_ref_type) at buf name, in
 * dst_file, the copy of the object it names: an object under src_root is named under
 * dst_root, any other by the same path. A reference whose object has no copy becomes a null
 * reference, as HDF5's H5Ocopy leaves references between files. */
herr_t H5VL_nczarr_xcopy_remap(const char *src_root, const char *dst_root, hid_t dst_file, hid_t mem_type,
                               void *buf, size_t n);

#endif
