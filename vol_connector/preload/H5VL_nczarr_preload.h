/* The preload library, libnczarr_preload.so (LD_PRELOAD). Since 1.14, HDF5 refuses its
 * deprecated calls for any object whose terminal VOL connector is not the native one ("... is
 * only meant to be used with the native VOL connector"): H5Literate1, H5Lget_info1, H5Ovisit1,
 * H5Oget_info1, H5Rcreate, H5Rdereference2 and the rest that h5py (built with H5_USE_110_API)
 * and PyTables make for listing a group, visiting, "a/b" in a group and object references.
 * This library defines those functions under HDF5's own names and signatures. For an
 * object of any other connector it serves each through the current API; for a native object,
 * and for an id HDF5 would refuse anyway, it calls HDF5's own definition
 * (dlsym(RTLD_NEXT)), untouched, so that a program on native files behaves exactly as
 * without it.
 *
 * Addresses: the old API speaks of haddr_t addresses (H5L_info1_t.u.address,
 * H5O_info1_t.addr, hobj_ref_t) where the current one has object tokens. The connector's
 * token of a store object is its 64-bit object id, little-endian in the token's first 8
 * bytes, the rest zero (H5VL_nczarr_token_encode), as a native token is its address. So an
 * address is the token's first 8 bytes read little-endian, and back, with nothing lost: what
 * H5Oget_info1 reports opens with H5Oopen_by_addr, what H5Rcreate makes dereferences. (A
 * native file the connector opens is native to H5VLobject_is_native: the connector names the
 * native connector as the terminal one, H5VL_nczarr_native_introspect_get_conn_cls, so HDF5's
 * own definitions answer for it, with its real addresses.) A token that does not fit
 * (another connector's, with more bytes) is an error, never a truncated address. */
#ifndef H5VL_NCZARR_PRELOAD_H
#define H5VL_NCZARR_PRELOAD_H

#include <hdf5.h>

#include <stdatomic.h>
#include <stdbool.h>

#ifndef SUCCEED
#define SUCCEED 0
#endif
#ifndef FAIL
#define FAIL (-1)
#endif

/* The interposed functions are the only symbols the library exports (it is built with
 * hidden visibility): nothing else of it can clash with a program's or a plugin's. */
#define NCP_API __attribute__((visibility("default")))

/* True when the call on id is the preload's to serve: id is a valid file, group, dataset,
 * attribute or committed datatype whose terminal connector is not the native one. False
 * sends the call to HDF5's own definition (native objects, and every id HDF5 refuses itself,
 * so that its own message says why). Registers the preload's error class first (below). */
bool ncp_serve(hid_t id);

/* HDF5's own definition of name: the next one after this library in the lookup order,
 * found once and kept in *slot. NULL, with a message pushed, when there is none. */
void *ncp_real(_Atomic(void *) *slot, const char *name);

/* return HDF5's own fn(args), or fail when HDF5 has no definition of it */
#define NCP_FORWARD(fn, fail, ...)                                                                           \
    do {                                                                                                     \
        static _Atomic(void *) ncp_slot_;                                                                    \
        __typeof__(&fn) ncp_real_ = (__typeof__(&fn))ncp_real(&ncp_slot_, #fn);                              \
        return ncp_real_ ? ncp_real_(__VA_ARGS__) : (fail);                                                  \
    } while (0)

/* Errors. The preload pushes its messages under an error class of its own ("NCZarr
 * preload", registered when first needed: H5Eregister_class clears the error stack, so
 * ncp_serve registers it before anything can fail) but with HDF5's own major and minor
 * errors, the very ones HDF5's definition reports at the same point: programs that map the
 * minor error to an exception (h5py: H5E_NOTFOUND is a KeyError, H5E_CANTOPENOBJ too) then
 * see what they see on a native file. When a call of the current API fails, its own
 * messages stay below the preload's. Usage: a function declares `ret`, its cleanup starts
 * at `done:`, and NCP_GOTO(FAIL, H5E_ARGS, H5E_BADVALUE, "...", ...) pushes and jumps. */
herr_t ncp_push(const char *file, const char *func, unsigned line, hid_t maj, hid_t min, const char *fmt, ...)
    __attribute__((format(printf, 6, 7)));
#define NCP_PUSH(maj, min, ...) ncp_push(__FILE__, __func__, __LINE__, (maj), (min), __VA_ARGS__)
/* the same from a helper, in the name of the interposed function call that it serves */
#define NCP_PUSH_AS(call, maj, min, ...) ncp_push(__FILE__, (call), __LINE__, (maj), (min), __VA_ARGS__)
#define NCP_GOTO(retval, maj, min, ...)                                                                      \
    do {                                                                                                     \
        NCP_PUSH((maj), (min), __VA_ARGS__);                                                                 \
        ret = (retval);                                                                                      \
        goto done;                                                                                           \
    } while (0)

/* H5Oclose(id) when id >= 0, keeping the error stack as it was: an HDF5 call clears the
 * stack on entry, and cleanup after a failure must not drop its reasons. */
void ncp_close_keep(hid_t id);

/* A token's address (its first 8 bytes, little-endian); FAIL, with a message, when the
 * token has more than 8 bytes of content (no lossless address). */
herr_t ncp_token_to_addr(const H5O_token_t *token, haddr_t *addr);
/* The token of an address: its 8 bytes little-endian, the rest zero. */
void ncp_addr_to_token(haddr_t addr, H5O_token_t *token);

#endif
