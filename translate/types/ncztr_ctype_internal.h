/* Shared by the two halves of the exact-type code: ncztr_ctype.c (structured dtypes and
 * packed storage types) and ncztr_cvalue.c (values as JSON). */
#ifndef NCZTR_CTYPE_INTERNAL_H
#define NCZTR_CTYPE_INTERNAL_H

#include "ncztr_refval.h"
#include "ncztr_types.h"

#define NCZTR_CT_MAX_DEPTH  8                 /* nesting of compounds, arrays, sequences */
#define NCZTR_CT_MAX_FIELDS 4096              /* fields of one compound */
#define NCZTR_CT_MAX_RECORD ((size_t)1 << 28) /* bytes of one record */
/* bytes of one variable-length sequence made from JSON, whose elements' size comes from a
 * kept type: a few bytes of JSON must not make gigabytes */
#define NCZTR_CT_MAX_SEQ ((size_t)1 << 26)

/* Keeps the error stack across HDF5 calls made while cleaning up (they clear it). */
static inline void ncztr_ct_close(hid_t t)
{
    if (t < 0)
        return;
    hid_t es = ncz_err_save();
    H5Tclose(t);
    ncz_err_restore(es);
}

/* The dtype text of a leaf member type (number, enum, fixed string, raw bytes "|V<n>"). */
herr_t ncztr_ct_leaf_dtype(hid_t t, const char *what, char out[NCZTR_DTYPE_MAX]);

#endif
