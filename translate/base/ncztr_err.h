/* The connector's own HDF5 error class and the one macro family every HDF5-aware module
 * (translate/, vol_connector/) uses to report failures.
 *
 * Usage: a function declares `herr_t ret = SUCCEED;` (or any `ret` variable), its cleanup
 * code starts at label `done:`, and
 *     NCZ_GOTO(FAIL, NCZ_E_FORMAT, "%s: missing key \"shape\"", key);
 * pushes "<message>" on the default error stack under the class "NCZarr VOL" and jumps
 * to done with ret = FAIL. NCZ_PUSH only pushes. Messages name the object, key or path.
 */
#ifndef NCZTR_ERR_H
#define NCZTR_ERR_H

#include <hdf5.h>

#ifndef SUCCEED
#define SUCCEED 0
#endif
#ifndef FAIL
#define FAIL (-1)
#endif

/* Minor error kinds (all under one major class "NCZarr VOL connector"). */
typedef enum ncz_errkind {
    NCZ_E_ARGS = 0,    /* bad argument from the application */
    NCZ_E_STORE,       /* the key/object store failed (I/O, permissions, missing) */
    NCZ_E_FORMAT,      /* store content is not valid Zarr/NCZarr (JSON, keys, sizes) */
    NCZ_E_UNSUPPORTED, /* valid, but not supported (dtype, codec, HDF5 feature) */
    NCZ_E_NOTREPR,     /* the HDF5 feature is not representable in NCZarr */
    NCZ_E_NOMEM,       /* allocation failed */
    NCZ_E_NOTFOUND,    /* object, attribute or link does not exist */
    NCZ_E_EXISTS,      /* object, attribute or link already exists */
    NCZ_E_HDF5,        /* an HDF5 library call made by the connector failed */
    NCZ_E_INTERNAL,    /* connector bug */
    NCZ_E_PARALLEL,    /* MPI: the ranks disagree, or one did not join a collective step */
    NCZ_E_COUNT
} ncz_errkind;

/* Registers the class once (idempotent); ncz_err_term unregisters. */
herr_t ncz_err_init(void);
void ncz_err_term(void);
/* HDF5 API calls clear the error stack on entry: an HDF5 call made while cleaning up after
 * an error (H5Tclose, say) would drop the message just pushed. ncz_err_save keeps the stack
 * aside and ncz_err_restore puts it back (H5I_INVALID_HID: nothing kept). Inside a callback
 * nothing is kept: the connector's messages are held by the connector until the callback
 * returns (ncz_err_begin), and HDF5 1.14 can leave a stack whose entries' strings it freed
 * (h5py's suite left one), which H5Eget_current_stack copies by strdup(NULL): a crash. */
hid_t ncz_err_save(void);
void ncz_err_restore(hid_t saved);
/* Pushes one formatted message. Returns FAIL for convenience. */
herr_t ncz_err_push(const char *file, const char *func, unsigned line, ncz_errkind kind, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

#define NCZ_PUSH(kind, ...) ncz_err_push(__FILE__, __func__, __LINE__, (kind), __VA_ARGS__)
/* A warning: pushed like NCZ_PUSH, but left on the error stack even when the callback
 * succeeds (the call works; the stack says what it had to make of the input). */
herr_t ncz_err_warn(const char *file, const char *func, unsigned line, ncz_errkind kind, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
#define NCZ_WARN(kind, ...) ncz_err_warn(__FILE__, __func__, __LINE__, (kind), __VA_ARGS__)
#define NCZ_GOTO(retval, kind, ...)                                                                          \
    do {                                                                                                     \
        ncz_err_push(__FILE__, __func__, __LINE__, (kind), __VA_ARGS__);                                     \
        ret = (retval);                                                                                      \
        goto done;                                                                                           \
    } while (0)
/* Jump without pushing: the callee already pushed its own message. */
#define NCZ_GOTO_QUIET(retval)                                                                               \
    do {                                                                                                     \
        ret = (retval);                                                                                      \
        goto done;                                                                                           \
    } while (0)
/* Checks an allocation. */
#define NCZ_CHECK_ALLOC(ptr, retval)                                                                         \
    do {                                                                                                     \
        if (!(ptr))                                                                                          \
            NCZ_GOTO(retval, NCZ_E_NOMEM, "out of memory in %s", __func__);                                  \
    } while (0)

/* HDF5 clears its default error stack at the start of almost every API call, so a message
 * pushed before cleanup code closes an id would vanish. While a VOL callback runs, messages
 * are therefore held by the connector and pushed onto HDF5's stack when the callback
 * returns failure. ncz_err_begin() returns a mark; ncz_err_end(mark, failed) pushes the
 * messages recorded since the mark (if failed) and drops them. Outside callbacks (unit
 * tests calling translate/ directly) messages go straight to HDF5's stack. */
size_t ncz_err_begin(void);
void ncz_err_end(size_t mark, int failed);

/* Takes the messages pushed since `mark` (from ncz_err_mark(); outside callbacks: since the
 * default stack was last cleared), joined with
 * "; " into a malloc'ed string (NULL if none), and clears the stack. Used where a failure
 * must be remembered and reported later (an array that cannot be loaded keeps the rest
 * of the store readable and reports its error when opened). */
size_t ncz_err_mark(void);
/* The messages on HDF5's default stack now: the connector's (pushed by callbacks that
 * failed) when there are any, else the innermost one of any class, joined with "; " into a
 * malloc'ed string (NULL if none); the stack is cleared. For code making HDF5 API calls
 * of its own inside a callback: a failed call's reasons stay on HDF5's stack only until
 * the next API call clears it. */
char *ncz_err_take_stack(void);
char *ncz_err_take_messages(size_t mark);
#endif
