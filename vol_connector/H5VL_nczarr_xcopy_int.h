/* What the files of the copy across connectors share (H5VL_nczarr_xcopy*.c). */
#ifndef H5VL_NCZARR_XCOPY_INT_H
#define H5VL_NCZARR_XCOPY_INT_H

#include "H5VL_nczarr.h"

#include <stdbool.h>

/* Data moves in blocks of about this many bytes (whole chunks, at least one). */
#define XCOPY_BLOCK_BYTES ((size_t)32 << 20)

typedef struct xseen {
    H5O_token_t tok; /* the source object */
    char *dst;       /* the path of its copy */
} xseen;

/* An object whose values hold references: written once every object is copied, so that
 * each reference can name the copy of its object. */
typedef struct xlater {
    char *src, *dst; /* paths of the object and of its copy */
    char *attr;      /* an attribute of it; NULL: a dataset's data */
} xlater;

typedef struct xcopy {
    unsigned flags; /* H5O_COPY_* */
    bool dst_store; /* the destination is a store, which keeps references as H5T_STD_REF */
    hid_t src_file; /* a file id of each side (owned) */
    hid_t dst_file;
    char *src_root; /* the copied object's path, and its copy's */
    char *dst_root;
    xseen *seen;
    size_t nseen, capseen;
    xlater *later;
    size_t nlater, caplater;
    H5E_auto2_t auto_func; /* the caller's error printing, off while copying */
    void *auto_data;
    bool auto_saved;
} xcopy;

/* Pushes a message with the reasons the last failed HDF5 call left on the stack (the next
 * API call would clear them); FAIL. */
herr_t H5VL_nczarr_xcopy_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
#define XFAIL(...)                                                                                           \
    do {                                                                                                     \
        H5VL_nczarr_xcopy_fail(__VA_ARGS__);                                                                 \
        NCZ_GOTO_QUIET(FAIL);                                                                                \
    } while (0)

/* The values of dataset sd written into dd, and of attribute sa into da (refs: they hold
 * references, made to name the copies; x->dst_root is set by then). */
herr_t H5VL_nczarr_xcopy_dataset_values(xcopy *x, hid_t sd, hid_t dd, bool refs);
herr_t H5VL_nczarr_xcopy_attr_value(xcopy *x, hid_t sa, hid_t da, bool refs);

#endif
