/* Native HDF5 files through the connector. With HDF5_VOL_CONNECTOR=nczarr every H5Fopen of
 * a program comes to the connector, native HDF5 files too (nccopy's input, h5dump of a .h5
 * file): a name that is a regular file with HDF5's signature is opened with HDF5's native
 * connector instead, and every object of such a file is handed to HDF5 as a small proxy
 * (H5VL_nczarr_native_t) whose callbacks forward to the native connector, the way HDF5's
 * pass-through connector (H5VLpassthru.c) does. The wrappers of H5VL_nczarr_wrap.c decide
 * by the route functions below which callbacks run: the store callbacks, the forwarding
 * ones of H5VL_nczarr_native*.c, or none (a call mixing a store and a native file). */
#ifndef H5VL_NCZARR_NATIVE_H
#define H5VL_NCZARR_NATIVE_H

#include "H5VL_nczarr.h"

/* What stands behind an id of an object of a native HDF5 file. */
typedef struct H5VL_nczarr_native_t {
    unsigned kind; /* H5VL_NCZARR_KIND_NATIVE */
    void *under;   /* the native connector's object (H5F_t, H5G_t, H5D_t, H5A_t, H5T_t) */
} H5VL_nczarr_native_t;

/* ---- routes: 1 = native, 0 = store, -1 = refused (the message is pushed) ---- */
/* obj (as HDF5 passes it to a callback; NULL is a store's business) */
int H5VL_nczarr_route(const void *obj);
/* A file name: 1 when it is a regular file carrying HDF5's signature at offset 0, 512,
 * 1024, 2048, ... (where HDF5 looks for a superblock). */
int H5VL_nczarr_route_name(const char *name);
/* Two objects of one call (either may be NULL): refused when one is native and the other not. */
int H5VL_nczarr_route_pair(const void *a, const void *b, const char *what);
/* H5Ocopy/H5Lcopy: native when both ends are (either may be NULL); else the store
 * callbacks, which copy across connectors themselves (H5VL_nczarr_xcopy.h). */
int H5VL_nczarr_route_copy(const void *a, const void *b);
/* In the store callbacks of H5Ocopy/H5Lcopy: whether the two ends are not one store (one
 * of them native, or two stores), the generic copy's case. */
bool H5VL_nczarr_copy_across(const void *a, const void *b);
/* H5Dread_multi/H5Dwrite_multi: all native or none. */
int H5VL_nczarr_route_dsets(size_t count, void *dset[]);
/* By file name for IS_ACCESSIBLE and DELETE (obj is NULL there), else by the file. */
int H5VL_nczarr_route_file_specific(const void *file, const H5VL_file_specific_args_t *args);
/* H5Fmount: the child file too. */
int H5VL_nczarr_route_group_specific(const void *obj, const H5VL_group_specific_args_t *args);
/* H5Lcreate_hard: the target's location too. */
int H5VL_nczarr_route_link_create(const H5VL_link_create_args_t *args, const void *obj);

/* Whether an id (of any connector) stands for an object of a native HDF5 file. The store
 * callbacks check the ids they are given before looking behind them. */
bool H5VL_nczarr_id_is_native(hid_t id);

/* ---- the forwarding callbacks, one per routed row of H5VL_nczarr_wrap.def ---- */
#define NCZ_WRAP_PTR(name, params, args)
#define NCZ_WRAP_ERR(name, params, args)
#define NCZ_ROUTE_PTR(name, params, args, route) void *H5VL_nczarr_native_##name params;
#define NCZ_ROUTE_ERR(name, params, args, route) herr_t H5VL_nczarr_native_##name params;
#include "H5VL_nczarr_wrap.def"
#undef NCZ_WRAP_PTR
#undef NCZ_WRAP_ERR
#undef NCZ_ROUTE_PTR
#undef NCZ_ROUTE_ERR

/* H5Fcreate of a native HDF5 file (the connector option "native"). */
void *H5VL_nczarr_native_file_create(const char *name, unsigned flags, hid_t fcpl_id, hid_t fapl_id,
                                     hid_t dxpl_id, void **req);

/* ---- object wrapping (wrap_cls), for both kinds of object ---- */
/* The native object behind a proxy; a store's object itself. */
void *H5VL_nczarr_get_object(const void *obj);
/* A context (for native objects only) that makes HDF5 wrap what the native connector hands
 * it while a call runs (the ids of iteration callbacks, a file's own VOL object). */
herr_t H5VL_nczarr_get_wrap_ctx(const void *obj, void **wrap_ctx);
void *H5VL_nczarr_wrap_object(void *obj, H5I_type_t obj_type, void *wrap_ctx);
void *H5VL_nczarr_unwrap_object(void *obj);
herr_t H5VL_nczarr_free_wrap_ctx(void *wrap_ctx);

/* ---- shared by H5VL_nczarr_native*.c ---- */
/* The native connector's id (not a new reference). */
hid_t H5VL_nczarr_native_id(void);
/* A new proxy for a native object just opened or created; closes it (by type) when the
 * proxy cannot be allocated. NULL in, NULL out. */
void *H5VL_nczarr_native_wrap(void *under, H5I_type_t type);
/* Closes the native object behind a proxy of that type, then frees the proxy (kept when the
 * close fails: HDF5 keeps the id and may close it again). */
herr_t H5VL_nczarr_native_close(void *proxy, H5I_type_t type, hid_t dxpl_id, void **req);
#define NCZ_UNDER(o) (((H5VL_nczarr_native_t *)(o))->under)

#endif
