/* Wrappers around every callback: while a callback runs, the connector's messages are held
 * (HDF5 clears its error stack at the start of nearly every API call the callback makes
 * while cleaning up) and pushed onto HDF5's stack when the callback returns failure. One
 * wrapper per row of H5VL_nczarr_wrap.def; each keeps HDF5's H5E_VOL message alive
 * (H5VL_nczarr_compat_guard_h5e_vol). The routed rows send the objects of native HDF5
 * files to H5VL_nczarr_native_<name> (H5VL_nczarr_native.h): the store callbacks never see
 * them, and so nothing of a native file reaches translate/. */
#include "H5VL_nczarr_wrap.h"
#include "ncztr_h5compat.h"
#include "H5VL_nczarr_native.h"

#define NCZ_WRAP_PTR(name, params, args)                                                                     \
    void *H5VL_nczarr_cb_##name params                                                                       \
    {                                                                                                        \
        size_t mark = ncz_err_begin();                                                                       \
        H5VL_nczarr_compat_guard_h5e_vol();                                                                  \
        void *r = H5VL_nczarr_##name args;                                                                   \
        ncz_err_end(mark, r == NULL);                                                                        \
        return r;                                                                                            \
    }
#define NCZ_WRAP_ERR(name, params, args)                                                                     \
    herr_t H5VL_nczarr_cb_##name params                                                                      \
    {                                                                                                        \
        size_t mark = ncz_err_begin();                                                                       \
        H5VL_nczarr_compat_guard_h5e_vol();                                                                  \
        herr_t r = H5VL_nczarr_##name args;                                                                  \
        ncz_err_end(mark, r < 0);                                                                            \
        return r;                                                                                            \
    }
#define NCZ_ROUTE_PTR(name, params, args, route)                                                             \
    void *H5VL_nczarr_cb_##name params                                                                       \
    {                                                                                                        \
        size_t mark = ncz_err_begin();                                                                       \
        H5VL_nczarr_compat_guard_h5e_vol();                                                                  \
        int native = (route);                                                                                \
        void *r = native > 0    ? H5VL_nczarr_native_##name args                                             \
                  : native == 0 ? H5VL_nczarr_##name args                                                    \
                                : NULL;                                                                      \
        ncz_err_end(mark, r == NULL);                                                                        \
        return r;                                                                                            \
    }
#define NCZ_ROUTE_ERR(name, params, args, route)                                                             \
    herr_t H5VL_nczarr_cb_##name params                                                                      \
    {                                                                                                        \
        size_t mark = ncz_err_begin();                                                                       \
        H5VL_nczarr_compat_guard_h5e_vol();                                                                  \
        int native = (route);                                                                                \
        herr_t r = native > 0    ? H5VL_nczarr_native_##name args                                            \
                   : native == 0 ? H5VL_nczarr_##name args                                                   \
                                 : FAIL;                                                                     \
        ncz_err_end(mark, r < 0);                                                                            \
        return r;                                                                                            \
    }
#include "H5VL_nczarr_wrap.def"
