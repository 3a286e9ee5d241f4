/* The connector's HDF5 error class: one major message, one minor message per ncz_errkind. */
#include "ncztr_err.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static hid_t g_cls = H5I_INVALID_HID;
static hid_t g_maj = H5I_INVALID_HID;
static hid_t g_min[NCZ_E_COUNT];

static const char *const g_min_text[NCZ_E_COUNT] = {
    "bad argument",
    "store access failed",
    "invalid Zarr/NCZarr content",
    "not supported",
    "not representable in NCZarr",
    "out of memory",
    "not found",
    "already exists",
    "HDF5 library call failed",
    "internal error",
    "ranks of the communicator disagree",
};

herr_t ncz_err_init(void)
{
    if (g_cls != H5I_INVALID_HID)
        return SUCCEED;
    g_cls = H5Eregister_class("NCZarr VOL", "vol-nczarr", "0.1.0");
    if (g_cls < 0)
        return FAIL;
    g_maj = H5Ecreate_msg(g_cls, H5E_MAJOR, "NCZarr VOL connector");
    for (int i = 0; i < NCZ_E_COUNT; i++)
        g_min[i] = H5Ecreate_msg(g_cls, H5E_MINOR, g_min_text[i]);
    return SUCCEED;
}

void ncz_err_term(void)
{
    if (g_cls == H5I_INVALID_HID)
        return;
    /* H5Eunregister_class closes the messages too, even those entries of the error stack
     * still use: clearing such an entry later fails half way (HDF5 1.14.6's
     * H5E__clear_entries frees its strings and stops before it drops the entry), which
     * leaves a stack that crashes H5Eprint2 (h5py's suite got there). The connector's
     * entries go first. */
    H5Eclear2(H5E_DEFAULT);
    H5Eunregister_class(g_cls);
    g_cls = H5I_INVALID_HID;
}

typedef struct pending_t {
    const char *file, *func;
    unsigned line;
    ncz_errkind kind;
    char *msg;
    int warn; /* pushed even when the callback succeeds */
} pending_t;

static pending_t *g_pending = NULL;
static size_t g_npending = 0, g_cappending = 0;
static int g_depth = 0;

static void push_now(const char *file, const char *func, unsigned line, ncz_errkind kind, const char *msg)
{
    if (g_cls == H5I_INVALID_HID && ncz_err_init() < 0) {
        fprintf(stderr, "nczarr: %s\n", msg);
        return;
    }
    if ((int)kind < 0 || kind >= NCZ_E_COUNT)
        kind = NCZ_E_INTERNAL;
    /* NCZARR_TRACE_ERRORS=1: every message also to stderr as it is pushed, for programs
     * that switch HDF5's error printing off and clear the stack (netCDF-C does both). */
    static int trace = -1;
    if (trace < 0) {
        const char *e = getenv("NCZARR_TRACE_ERRORS");
        trace = e && *e && strcmp(e, "0") != 0;
    }
    if (trace)
        fprintf(stderr, "nczarr: %s (%s)\n", msg, func);
    /* The message is passed as an argument, never as a format: it may contain '%'. */
    H5Epush2(H5E_DEFAULT, file, func, line, g_cls, g_maj, g_min[kind], "%s", msg);
}

hid_t ncz_err_save(void)
{
    if (g_depth > 0 || H5Eget_num(H5E_DEFAULT) <= 0)
        return H5I_INVALID_HID;
    return H5Eget_current_stack();
}

void ncz_err_restore(hid_t saved)
{
    if (saved >= 0)
        H5Eset_current_stack(saved);
}

size_t ncz_err_begin(void)
{
    g_depth++;
    return g_npending;
}

void ncz_err_end(size_t mark, int failed)
{
    if (g_depth > 0)
        g_depth--;
    for (size_t i = mark; i < g_npending; i++) {
        if (failed || g_pending[i].warn)
            push_now(g_pending[i].file, g_pending[i].func, g_pending[i].line, g_pending[i].kind,
                     g_pending[i].msg);
        free(g_pending[i].msg);
    }
    if (mark < g_npending)
        g_npending = mark;
    if (g_depth == 0 && g_npending == 0) {
        free(g_pending);
        g_pending = NULL;
        g_cappending = 0;
    }
}

static herr_t record(const char *file, const char *func, unsigned line, ncz_errkind kind, int warn,
                     const char *fmt, va_list ap) __attribute__((format(printf, 6, 0)));

herr_t ncz_err_push(const char *file, const char *func, unsigned line, ncz_errkind kind, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    herr_t r = record(file, func, line, kind, 0, fmt, ap);
    va_end(ap);
    return r;
}

herr_t ncz_err_warn(const char *file, const char *func, unsigned line, ncz_errkind kind, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    record(file, func, line, kind, 1, fmt, ap);
    va_end(ap);
    return SUCCEED;
}

static herr_t record(const char *file, const char *func, unsigned line, ncz_errkind kind, int warn,
                     const char *fmt, va_list ap)
{
    char msg[1024];
    vsnprintf(msg, sizeof msg, fmt, ap);
    if (g_depth == 0) {
        push_now(file, func, line, kind, msg);
        return FAIL;
    }
    if (g_npending == g_cappending) {
        size_t nc = g_cappending ? 2 * g_cappending : 16;
        pending_t *np = realloc(g_pending, nc * sizeof *np);
        if (!np) {
            push_now(file, func, line, kind, msg);
            return FAIL;
        }
        g_pending = np;
        g_cappending = nc;
    }
    char *copy = strdup(msg);
    if (!copy) {
        push_now(file, func, line, kind, msg);
        return FAIL;
    }
    g_pending[g_npending++] = (pending_t){file, func, line, kind, copy, warn};
    return FAIL;
}

typedef struct {
    char *buf;
    size_t len;
} collect_t;

static herr_t collect_cb(unsigned n, const H5E_error2_t *e, void *data)
{
    (void)n;
    collect_t *c = data;
    if (!e->desc || !*e->desc)
        return 0;
    size_t add = strlen(e->desc) + 2;
    char *nb = realloc(c->buf, c->len + add + 1);
    if (!nb)
        return -1;
    c->buf = nb;
    if (c->len) {
        memcpy(c->buf + c->len, "; ", 2);
        c->len += 2;
    }
    memcpy(c->buf + c->len, e->desc, add - 2);
    c->len += add - 2;
    c->buf[c->len] = '\0';
    return 0;
}

size_t ncz_err_mark(void)
{
    return g_npending;
}

char *ncz_err_take_messages(size_t mark)
{
    collect_t c = {NULL, 0};
    if (g_depth > 0) {
        /* inside a callback the messages since the mark are held here, not by HDF5 */
        for (size_t i = mark; i < g_npending; i++) {
            H5E_error2_t e = {0};
            e.desc = g_pending[i].msg;
            collect_cb(0, &e, &c);
            free(g_pending[i].msg);
        }
        if (mark < g_npending)
            g_npending = mark;
        H5Eclear2(H5E_DEFAULT);
        return c.buf;
    }
    hid_t st = H5Eget_current_stack();
    if (st >= 0) {
        H5Ewalk2(st, H5E_WALK_UPWARD, collect_cb, &c);
        H5Eclose_stack(st);
    }
    return c.buf;
}

typedef struct {
    collect_t ours;
    char *first; /* the innermost message of any class */
} stack_t_;

static herr_t stack_cb(unsigned n, const H5E_error2_t *e, void *data)
{
    (void)n;
    stack_t_ *s = data;
    if (!e->desc || !*e->desc)
        return 0;
    if (!s->first && !(s->first = strdup(e->desc)))
        return -1;
    return e->cls_id == g_cls ? collect_cb(n, e, &s->ours) : 0;
}

char *ncz_err_take_stack(void)
{
    stack_t_ s = {{NULL, 0}, NULL};
    /* walked in place: a copy of the stack (H5Eget_current_stack) may crash on entries
     * whose strings HDF5 freed (ncz_err_save) */
    H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, stack_cb, &s);
    H5Eclear2(H5E_DEFAULT);
    if (s.ours.buf) {
        free(s.first);
        return s.ours.buf;
    }
    return s.first;
}
