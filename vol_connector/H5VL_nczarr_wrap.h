/* Wrapped callbacks (H5VL_nczarr_wrap.c): what the class struct points at, one per row of
 * H5VL_nczarr_wrap.def. */
#ifndef H5VL_NCZARR_WRAP_H
#define H5VL_NCZARR_WRAP_H
#include "H5VL_nczarr.h"

#define NCZ_WRAP_PTR(name, params, args)         void *H5VL_nczarr_cb_##name params;
#define NCZ_WRAP_ERR(name, params, args)         herr_t H5VL_nczarr_cb_##name params;
#define NCZ_ROUTE_PTR(name, params, args, route) void *H5VL_nczarr_cb_##name params;
#define NCZ_ROUTE_ERR(name, params, args, route) herr_t H5VL_nczarr_cb_##name params;
#include "H5VL_nczarr_wrap.def"
#undef NCZ_WRAP_PTR
#undef NCZ_WRAP_ERR
#undef NCZ_ROUTE_PTR
#undef NCZ_ROUTE_ERR

#endif
