/* References (H5T_STD_REF) inside values the model keeps: attribute values hold each
 * H5R_ref_t slot as the referenced object's id (a uint64 in the slot's first bytes, the
 * rest zero), never as a live H5R_ref_t, because a live reference holds a file id open
 * and belongs to the application. Values are converted at the edge: in, when the
 * application writes (H5R_ref_t -> id), and out, when it reads (id -> a new H5R_ref_t
 * that the application releases with H5Rdestroy or H5Treclaim). Variable-length parts
 * (hvl_t) of both forms are malloc'ed, which is what H5Treclaim with H5P_DEFAULT frees.
 * Id 0 is the null reference (an all-zero H5R_ref_t). Old-style object references
 * (hobj_ref_t) are kept as the application has them, their 8 bytes being the id
 * (ncztr_oref_get): nothing to convert, only ids of no object to drop. */
#ifndef NCZTR_REFVAL_H
#define NCZTR_REFVAL_H

#include <hdf5.h>
#include <stdbool.h>
#include <stdint.h>

/* ref -> id; a null (all-zero) reference never reaches it. */
typedef herr_t (*ncztr_ref_in_fn)(void *ctx, const H5R_ref_t *ref, uint64_t *id);
/* id (never 0) -> a new live reference, or *ref left zeroed (a null reference) when the id
 * names no object any more. */
typedef herr_t (*ncztr_ref_out_fn)(void *ctx, uint64_t id, H5R_ref_t *ref);

/* Whether type holds an H5T_STD_REF anywhere (itself, a vlen, compound or array of it).
 * Old-style references (H5T_STD_REF_OBJ, _DSETREG) are not counted: their values are not
 * H5R_ref_t, and H5DS, the copies between files and the walks below treat only those. */
bool ncztr_type_has_ref(hid_t type);
/* What a reference type (class H5T_REFERENCE) holds, told by its size: an H5R_ref_t, an
 * old-style object reference (hobj_ref_t, H5T_STD_REF_OBJ) or an old-style region
 * reference (hdset_reg_ref_t, H5T_STD_REF_DSETREG); NCZTR_REF_NONE for other classes. */
typedef enum { NCZTR_REF_NONE, NCZTR_REF_NEW, NCZTR_REF_OBJ, NCZTR_REF_REGION } ncztr_refkind;
ncztr_refkind ncztr_ref_kind(hid_t type);
/* Whether type holds old-style object references (H5T_STD_REF_OBJ) / region references
 * (H5T_STD_REF_DSETREG) anywhere. */
bool ncztr_type_has_obj_ref(hid_t type);
bool ncztr_type_has_region_ref(hid_t type);
/* Whether type holds object references of either style anywhere: values a store keeps as
 * the paths of their objects (attributes: ncztr_refjson.c). */
bool ncztr_type_has_path_ref(hid_t type);
/* Whether values of type own memory: references, variable-length sequences or strings,
 * anywhere in it (what the walks below visit; a string is malloc'ed, a copy strdup'ed). */
bool ncztr_type_has_parts(hid_t type);
/* The application's value (n elements of type) -> the kept form in dst (zeroed by the
 * caller, n * H5Tget_size(type) bytes). On failure dst's vlen parts are freed. */
herr_t ncztr_refval_in(hid_t type, const void *src, void *dst, size_t n, ncztr_ref_in_fn fn, void *ctx,
                       const char *what);
/* The kept form -> the application's value (new references, malloc'ed vlen parts). On
 * failure what was made is released and dst zeroed. */
herr_t ncztr_refval_out(hid_t type, const void *src, void *dst, size_t n, ncztr_ref_out_fn fn, void *ctx,
                        const char *what);
/* A deep copy of n kept elements into dst (zeroed by the caller); on failure what was
 * made is freed and dst zeroed. */
herr_t ncztr_refval_copy(hid_t type, const void *src, void *dst, size_t n, const char *what);
/* Frees the vlen parts of n kept elements (not data itself). */
void ncztr_refval_free(hid_t type, void *data, size_t n);
/* Calls fn(id) for every non-null id of n kept elements, stopping at a negative return. */
herr_t ncztr_refval_ids(hid_t type, const void *data, size_t n, herr_t (*fn)(void *ctx, uint64_t id),
                        void *ctx);
/* The id kept in a reference slot. */
uint64_t ncztr_refval_slot_id(const void *slot);
void ncztr_refval_slot_set(void *slot, uint64_t id);
/* An old-style object reference (hobj_ref_t) of a store's object: the first 8 bytes of the
 * object's token, which are its id in little-endian order (what H5Rcreate puts there for a
 * non-native object, through the preload library), so the same bytes on every host. The
 * kept form of such a slot is the application's: these read and write it. */
uint64_t ncztr_oref_get(const void *slot);
void ncztr_oref_set(void *slot, uint64_t id);
/* n old-style object references (8 bytes each) as H5R_ref_t and back, for readers that ask
 * for H5T_STD_REF, as HDF5 converts them (h5dump, h5diff). out: a new reference for each
 * id live() knows (NULL: every non-zero id), the null reference for others; on failure the
 * references made are destroyed and dst zeroed. in: each H5R_ref_t's id (0 for a null
 * one). */
herr_t ncztr_orefs_to_refs(const void *src, H5R_ref_t *dst, size_t n, ncztr_ref_out_fn fn, void *ctx,
                           bool (*live)(void *ctx, uint64_t id), void *live_ctx, const char *what);
herr_t ncztr_orefs_from_refs(const H5R_ref_t *src, void *dst, size_t n, ncztr_ref_in_fn fn, void *ctx,
                             const char *what);
/* Sets to 0 (the null reference) every old-style object reference of n elements of type
 * whose id live() does not know: one to no object of the store, or to a deleted one. */
void ncztr_refval_drop_dead(hid_t type, void *data, size_t n, bool (*live)(void *ctx, uint64_t id),
                            void *ctx);

#endif
