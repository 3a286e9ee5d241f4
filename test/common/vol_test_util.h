/* Helpers for tests that run HDF5 calls through the connector. */
#ifndef VOL_TEST_UTIL_H
#define VOL_TEST_UTIL_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "ncz_test.h"

#include <ftw.h>
#include <hdf5.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* HDF5 falls back to the native connector silently when a plugin fails to load: every
 * test asserts that the id really belongs to "nczarr". */
static inline bool is_nczarr(hid_t id)
{
    char name[64] = "";
    if (H5VLget_connector_name(id, name, sizeof name) < 0)
        return false;
    return strcmp(name, "nczarr") == 0;
}

/* Collected error-stack text: "class: desc" lines. */
typedef struct {
    char text[8192];
    size_t len;
} errtext_t;

static herr_t vtu_walk(unsigned n, const H5E_error2_t *e, void *ud)
{
    (void)n;
    errtext_t *t = ud;
    char cls[64] = "";
    H5Eget_class_name(e->cls_id, cls, sizeof cls);
    int w = snprintf(t->text + t->len, sizeof t->text - t->len, "%s: %s\n", cls, e->desc ? e->desc : "");
    if (w > 0 && (size_t)w < sizeof t->text - t->len)
        t->len += (size_t)w;
    return 0;
}

/* Takes the current error stack's text and clears it. */
static inline void take_errors(errtext_t *t)
{
    t->len = 0;
    t->text[0] = '\0';
    hid_t st = H5Eget_current_stack();
    H5Ewalk2(st, H5E_WALK_UPWARD, vtu_walk, t);
    H5Eclose_stack(st);
}

/* Did the last failure carry a message of the connector's own class containing `needle`? */
static inline bool nczarr_error_has(const errtext_t *t, const char *needle)
{
    const char *p = t->text;
    while ((p = strstr(p, "NCZarr VOL: ")) != NULL) {
        const char *eol = strchr(p, '\n');
        size_t l = eol ? (size_t)(eol - p) : strlen(p);
        char line[2048];
        snprintf(line, sizeof line, "%.*s", (int)l, p);
        if (strstr(line, needle))
            return true;
        p += l;
    }
    return false;
}

/* Opening `path` with `flags` must fail with an NCZarr error mentioning `needle`. */
static inline void expect_open_error(const char *path, unsigned flags, const char *needle, const char *what)
{
    errtext_t et;
    hid_t f;
    H5E_BEGIN_TRY
    {
        f = H5Fopen(path, flags, H5P_DEFAULT);
    }
    H5E_END_TRY
    take_errors(&et);
    CHECK(f < 0, "%s: open must fail", what);
    CHECK(nczarr_error_has(&et, needle), "%s: expected an NCZarr error mentioning \"%s\", got:\n%s", what,
          needle, et.text);
    if (f >= 0)
        H5Fclose(f);
}

static int vtu_rm(const char *p, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb;
    (void)flag;
    (void)ftw;
    return remove(p);
}

static inline void rm_rf(const char *path)
{
    nftw(path, vtu_rm, 16, FTW_DEPTH | FTW_PHYS);
}

/* A fresh scratch directory under $TMPDIR (or /tmp). */
static inline void scratch_dir(char *buf, size_t len, const char *tag)
{
    const char *t = getenv("TMPDIR");
    snprintf(buf, len, "%s/nczarr-%s-XXXXXX", t && *t ? t : "/tmp", tag);
    if (!mkdtemp(buf)) {
        perror("mkdtemp");
        exit(2);
    }
}

/* The scratch directory's end: removed, unless NCZARR_KEEP_STORES names a directory, into
 * which it is moved (as <that directory>/<tag>) for the peers to judge the stores it holds
 * (test/interop/damaged_peers.sh). */
static inline void scratch_done(const char *dir, const char *tag)
{
    const char *keep = getenv("NCZARR_KEEP_STORES");
    if (!keep || !*keep) {
        rm_rf(dir);
        return;
    }
    char to[8192];
    snprintf(to, sizeof to, "%s/%s", keep, tag);
    rm_rf(to);
    if (rename(dir, to) != 0) {
        perror(to);
        exit(2);
    }
}

/* Creates DIR/TAG.zarr (its path in `path`) through the connector, or exits. */
static inline hid_t create_store_in(const char *dir, const char *tag, char *path, size_t len)
{
    snprintf(path, len, "%s/%s.zarr", dir, tag);
    hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    if (f < 0 || !is_nczarr(f)) {
        fprintf(stderr, "cannot create %s through the nczarr connector\n", path);
        exit(2);
    }
    return f;
}

/* A fresh copy of the store `src`, as DIR/TAG.zarr in `out`. */
static inline void copy_store_to(const char *src, const char *dir, const char *tag, char *out, size_t len)
{
    char cmd[9000];
    snprintf(out, len, "%s/%s.zarr", dir, tag);
    snprintf(cmd, sizeof cmd, "rm -rf '%s' && cp -r '%s' '%s'", out, src, out);
    if (system(cmd) != 0) {
        fprintf(stderr, "cannot copy the store: %s\n", cmd);
        exit(2);
    }
}

/* Opens dataset `name` in `f` and reads it as ints into buf: FAIL if either step fails.
 * The error stack of the failing step is appended to et. */
static inline herr_t open_and_read_ints(hid_t f, const char *name, int *buf, errtext_t *et)
{
    hid_t d;
    herr_t r = -1;
    H5E_BEGIN_TRY
    {
        d = H5Dopen2(f, name, H5P_DEFAULT);
    }
    H5E_END_TRY
    take_errors(et);
    if (d >= 0) {
        H5E_BEGIN_TRY
        {
            r = H5Dread(d, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf);
        }
        H5E_END_TRY
        take_errors(et);
        H5Dclose(d);
    }
    return r;
}

/* Reads a whole small file into a static buffer ("" when absent). */
static inline const char *slurp(const char *path)
{
    static char buf[1 << 16];
    FILE *f = fopen(path, "rb");
    buf[0] = '\0';
    if (!f)
        return buf;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

#endif
