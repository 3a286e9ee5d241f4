/* Wrappers around every callback: while a callback runs, the connector's messages are held
 * (HDF5 clears its error stack at the start of nearly every API call the callback makes
 * while cleaning up) and pushed onto HDF5's stack when the callback returns failure. One
 * wrapper per row of H5VL_nczarr_wrap.def. */
#include "H5VL_nczarr_wrap.h"

#define NCZ_WRAP_PTR(name, params, args)                                                                     \
    void *H5VL_nczarr_cb_##name params                                                                       \
    {                                                                                                        \
        size_t mark = ncz_err_begin();                                                                       \
        void *r = H5VL_nczarr_##name args;                                                                   \
        ncz_err_end(mark, r == NULL);                                                                        \
        return r;                                                                                            \
    }
#define NCZ_WRAP_ERR(name, params, args)                                                                     \
    herr_t H5VL_nczarr_cb_##name params                                                                      \
    {                                                                                                        \
        size_t mark = ncz_err_begin();                                                                       \
        herr_t r = H5VL_nczarr_##name args;                                                                  \
        ncz_err_end(mark, r < 0);                                                                            \
        return r;                                                                                            \
    }
#include "H5VL_nczarr_wrap.def"
