/* References (H5T_STD_REF) inside values the model keeps: attribute values hold each
 * H5R_ref_t slot as the referenced object's id (a uint64 in the slot's first bytes, the
 * rest zero), never as a live H5R_ref_t, because a live reference holds a file id open
 * and belongs to the application. Values are converted at the edge: in, when the
 * application writes (H5R_ref_t -> id), and out, when it reads (id -> a new H5R_ref_t
 * that the application releases with H5Rdestroy or H5Treclaim). Variable-length parts
 * (hvl_t) of both forms are malloc'ed, which is what H5Treclaim with H5P_DEFAULT frees.
 * Id 0 is the null reference (an all-zero H5R_ref_t). */
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
 * Old-style references (H5T_STD_REF_OBJ, _DSETREG) are not counted: HDF5 refuses them for
 * non-native files before they reach the connector. */
bool ncztr_type_has_ref(hid_t type);
/* Whether values of type own memory: references, variable-length sequences or strings,
 * anywhere in it (what the walks below visit; a string is malloc'ed, a copy strdup'ed). */
bool ncztr_type_has_parts(hid_t type);
/* Whether it holds HDF5's deprecated references (H5T_STD_REF_OBJ, H5T_STD_REF_DSETREG),
 * which HDF5 lets only its native connector make (H5Rcreate). */
bool ncztr_type_has_old_ref(hid_t type);
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

#endif
