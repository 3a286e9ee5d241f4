/* What every interposed call of the preload shares: telling native objects from others,
 * finding HDF5's own definitions, the error class, addresses from tokens
 * (H5VL_nczarr_preload.h says why each is so). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* RTLD_NEXT */
#endif
#include "H5VL_nczarr_preload.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Tells the connector that old-style references to a store's objects can be made in this
 * process (H5Rcreate is served here): it takes H5DS's attributes of such references only
 * then (translate/model/ncztr_model.c, ncztr_attr_create). */
NCP_API extern const int H5VL_nczarr_preload_loaded;
const int H5VL_nczarr_preload_loaded = 1;

/* ---- errors ---- */

static pthread_mutex_t g_err_lock = PTHREAD_MUTEX_INITIALIZER;
static hid_t g_cls = H5I_INVALID_HID;

/* Registers the class when it is not (first use, or after H5close dropped every id). Only
 * from ncp_serve, before anything can fail: H5Eregister_class clears the error stack. The
 * class stays registered for the process: unregistering it would close what entries still
 * on the stack use (ncztr_err.c, ncz_err_term, says how that ends). */
static void err_init(void)
{
    pthread_mutex_lock(&g_err_lock);
    if (g_cls == H5I_INVALID_HID || H5Iis_valid(g_cls) <= 0)
        g_cls = H5Eregister_class("NCZarr preload", "libnczarr_preload", "0.1.0");
    pthread_mutex_unlock(&g_err_lock);
}

herr_t ncp_push(const char *file, const char *func, unsigned line, hid_t maj, hid_t min, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    pthread_mutex_lock(&g_err_lock);
    hid_t cls = g_cls;
    pthread_mutex_unlock(&g_err_lock);
    /* HDF5's own class when the preload's could not be registered: the message matters more
     * than the name above it. The message is an argument, never a format (it may hold '%'). */
    H5Epush2(H5E_DEFAULT, file, func, line, cls >= 0 ? cls : H5E_ERR_CLS, maj, min, "%s", msg);
    return FAIL;
}

void ncp_close_keep(hid_t id)
{
    if (id < 0)
        return;
    hid_t saved = H5Eget_num(H5E_DEFAULT) > 0 ? H5Eget_current_stack() : H5I_INVALID_HID;
    H5Oclose(id);
    if (saved >= 0)
        H5Eset_current_stack(saved);
}

/* ---- native or not ---- */

bool ncp_serve(hid_t id)
{
    /* Only ids H5VLobject_is_native takes: it cannot fail then, so it pushes (and prints)
     * nothing, and HDF5's own definition reports every bad id in its own words. */
    if (H5Iis_valid(id) <= 0)
        return false;
    switch (H5Iget_type(id)) {
    case H5I_FILE:
    case H5I_GROUP:
    case H5I_DATASET:
    case H5I_ATTR:
        break;
    case H5I_DATATYPE:
        if (H5Tcommitted(id) <= 0)
            return false;
        break;
    default:
        return false;
    }
    bool native = true;
    if (H5VLobject_is_native(id, &native) < 0 || native)
        return false;
    err_init();
    return true;
}

void *ncp_real(_Atomic(void *) *slot, const char *name)
{
    /* Two threads may both look it up the first time: they find the same definition. */
    void *fn = atomic_load_explicit(slot, memory_order_acquire);
    if (!fn) {
        fn = dlsym(RTLD_NEXT, name);
        if (!fn) {
            NCP_PUSH(H5E_FUNC, H5E_NOTFOUND,
                     "%s: the HDF5 library this program uses has no definition of it (%s)", name, dlerror());
            return NULL;
        }
        atomic_store_explicit(slot, fn, memory_order_release);
    }
    return fn;
}

/* ---- addresses and tokens ---- */

herr_t ncp_token_to_addr(const H5O_token_t *token, haddr_t *addr)
{
    for (size_t i = 8; i < sizeof token->__data; i++)
        if (token->__data[i])
            return NCP_PUSH(H5E_OHDR, H5E_CANTUNSERIALIZE,
                            "the object's token has more than 8 bytes: it has no address of the "
                            "deprecated API (use the H5O_token_t calls)");
    uint64_t a = 0;
    for (int i = 0; i < 8; i++)
        a |= (uint64_t)token->__data[i] << (8 * i);
    *addr = (haddr_t)a;
    return SUCCEED;
}

void ncp_addr_to_token(haddr_t addr, H5O_token_t *token)
{
    memset(token, 0, sizeof *token);
    for (int i = 0; i < 8; i++)
        token->__data[i] = (uint8_t)((uint64_t)addr >> (8 * i));
}
