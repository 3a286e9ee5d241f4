/* Array helpers shared by the loader, the saver and the chunk path (translate/ only). */
#ifndef NCZTR_ARRAY_INTERNAL_H
#define NCZTR_ARRAY_INTERNAL_H

#include "ncztr_model_internal.h"

/* After .zarray was parsed into o->arr->za and attributes were loaded: derives the HDF5
 * type, scalar flag, max dims (unlimited from the referenced dimensions) and dimension
 * references; the creation plist is built when first asked for. nczarr_array = the
 * `_nczarr_array` object or NULL. key names the array's .zattrs, zkey its .zarray, for
 * messages. */
herr_t ncztr_array_setup_loaded(ncztr_obj *o, json_t *nczarr_array, json_t *zattrs, const char *key,
                                const char *zkey);
/* Zeroed maxdims with room for za's rank (at least one), replacing any: as soon as za has
 * its rank, so that an array whose attributes then fail to load has them too. */
herr_t ncztr_array_maxdims_new(ncztr_array *a);
/* The HDF5 type of a plain dtype, shared by the file's arrays of that dtype: a new
 * reference to it (ncztr_shared.c). */
hid_t ncztr_shared_type(ncztr_file *f, const ncztr_dtype *dt);
/* HDF5's default dataset creation plist, shared by the file's datasets created with it: a
 * new reference to it. */
hid_t ncztr_shared_default_dcpl(ncztr_file *f);
/* The HDF5 type of one stored element (fixed strings for vlen-string arrays). */
hid_t ncztr_array_storage_type(const ncztr_obj *o);
/* The same without a message: the type the chunk bytes are read as (a fixed string
 * dataset's own string type, so padding and character set are the application's). */
hid_t ncztr_array_elem_type(const ncztr_array *a);

/* A variable-length string type of character set cset. */
hid_t ncztr_vlen_string_type(H5T_cset_t cset);
/* The fill value of a new array from its creation plist into za (dtype dt; vlen: a
 * variable-length string stored as fixed |S); *never when the fill time is "never". */
herr_t ncztr_array_fill_from_dcpl(hid_t dcpl, const ncztr_dtype *dt, bool vlen, hid_t stype, ncztr_zarray *za,
                                  bool *never, const char *name);
/* The fill value of a variable-length text array (vlen-utf8): a non-empty string given in
 * dcpl, read in the application's type. */
herr_t ncztr_array_text_fill_from_dcpl(hid_t dcpl, hid_t type, ncztr_zarray *za, const char *name);

/* A variable-length sequence type of numbers as zarr-python's object dtype with the
 * "vlen-array" filter (za's dtype, vlen_base and filters); NOTREPR for sequences of
 * anything else. */
/* Whether a dataset of this type stores one JSON text per element ('j' arrays): values with
 * variable-length parts inside (strings in compounds or arrays, sequences of anything but
 * plain numbers), no references. */
bool ncztr_array_json_elems(hid_t type);
/* Whether the fill value dcpl sets for type is all zero bytes: for values with
 * variable-length parts, empty sequences and NULL strings, HDF5's default (netCDF-C sets
 * it explicitly on every variable of a user-defined type). */
bool ncztr_array_fill_is_zero(hid_t dcpl, hid_t type);
/* A kept exact type ("_nczarr_array.hdf5_type") must describe the stored bytes: an enum,
 * bitfield or opaque type over the dtype's integers, a compound, array or raw number whose
 * structured dtype is the one in the metadata, a type with variable-length parts for
 * "vlen-utf8" JSON texts. FAIL naming key otherwise. */
herr_t ncztr_array_check_kept_type(const ncztr_array *a, const char *key);
herr_t ncztr_vlen_from_hdf5(hid_t type, const char *name, ncztr_zarray *za);

/* Datasets of old-style object references (ncztr_refarray.c). check_new: whether a new
 * dataset of type is one (*oref), refusing region references, references inside other
 * types, pure Zarr and a fill value other than the null reference. storage: the type and
 * creation plist the array is built with (text, its fill value the null reference's ""),
 * both the caller's. made: the built array becomes one of type (its creation plist keeps
 * dcpl's fill value in type). loaded: a loaded array whose kept type is one (its dtype
 * checked to be text). */
herr_t ncztr_refarray_check_new(const ncztr_file *f, hid_t type, hid_t dcpl, const char *name, bool *oref);
herr_t ncztr_refarray_storage(hid_t dcpl, const char *name, hid_t *stype, hid_t *sdcpl);
herr_t ncztr_refarray_made(ncztr_file *f, ncztr_array *a, hid_t type, hid_t dcpl, const char *name);
herr_t ncztr_refarray_loaded(ncztr_obj *o, const char *key);

/* The array's own creation plist (not a copy), built when missing. */
hid_t ncztr_array_own_dcpl(const ncztr_obj *o);

/* Finds a dimension by its fully qualified name; *owner = the defining group. */
ncztr_dim *ncztr_find_dim(ncztr_file *f, const char *fqn, ncztr_obj **owner);

/* A new array of a Zarr v3 store (ncztr_array_v3.c): its codecs in v3's spelling, "c/" chunk
 * keys and, with the shards option, shards of N x N x ... HDF5 chunks (fewer where the array
 * is smaller), the HDF5 chunks being the shards' inner chunks. Refuses (NCZ_E_NOTREPR) the
 * types v3 stores do not get yet. */
herr_t ncztr_array_to_v3(const ncztr_file *f, ncztr_array *a, const char *name);

/* The HDF5 chunk shape of a sharded v3 array: its shards' inner chunks, into cd (left as it
 * is for other arrays). */
void ncztr_array_inner_chunks(const ncztr_zarray *za, hsize_t *cd);

#endif
