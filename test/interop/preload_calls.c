/* Every call the preload library serves (vol_connector/preload/), made the way an old
 * program makes it, for preload_calls.sh:
 *   preload_calls write FILE   a group tree with a dataset, attributes, a committed datatype,
 *                              a soft link and a second hard link (creation order tracked,
 *                              as a store's always is, so that the orders agree)
 *   preload_calls read FILE    prints what each deprecated call answers: the same lines for
 *                              a native file natively, for a store through the connector
 *                              with the preload, and for the native file with the preload
 *                              (with and without the connector); addresses only as what they
 *                              must be (the token's, and opening the object they name)
 *   preload_calls read FILE [attr] [dset]
 *                              ... and references kept in an attribute, a dataset (those
 *                              the connector takes: probe)
 *   preload_calls bad FILE     a store through the connector with the preload: the refusals
 *                              and bad input, each with its message on HDF5's error stack,
 *                              and no crash; exits with the number of failed checks
 *   preload_calls region FILE  a native file's region references (HDF5's own, preload or not)
 *   preload_calls probe FILE   prints "attr" and "dset" when the file's connector takes
 *                              H5T_STD_REF_OBJ attributes and datasets
 * The deprecated calls are named by version (H5Literate1, ...): this program does not
 * depend on HDF5's API defaults. */
#include "connector_check.h"

#include <hdf5.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int g_failed = 0;

/* A line of the transcript. */
static void out(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void out(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    putchar('\n');
}

/* The address the preload gives an object: its token's first 8 bytes, little-endian (a native
 * token is the address so encoded). */
static haddr_t token_addr(const H5O_token_t *t)
{
    uint64_t a = 0;
    for (int i = 0; i < 8; i++)
        a |= (uint64_t)t->__data[i] << (8 * i);
    return (haddr_t)a;
}

static haddr_t addr_of(hid_t loc, const char *name)
{
    H5O_info2_t i;
    if (H5Oget_info_by_name3(loc, name, &i, H5O_INFO_BASIC, H5P_DEFAULT) < 0)
        return HADDR_UNDEF;
    return token_addr(&i.token);
}

static const char *otype(H5O_type_t t)
{
    return t == H5O_TYPE_GROUP            ? "group"
           : t == H5O_TYPE_DATASET        ? "dataset"
           : t == H5O_TYPE_NAMED_DATATYPE ? "datatype"
                                          : "unknown";
}

static const char *ltype(H5L_type_t t)
{
    return t == H5L_TYPE_HARD       ? "hard"
           : t == H5L_TYPE_SOFT     ? "soft"
           : t == H5L_TYPE_EXTERNAL ? "external"
                                    : "other";
}

/* The name of the object behind id, or "?". x has two hard links (x and a/x2), and HDF5
 * names such an object by either (native HDF5 by the one it finds first): "/x|/a/x2". */
static const char *name_of(hid_t id, char *buf, size_t size)
{
    if (H5Iget_name(id, buf, size) < 0)
        snprintf(buf, size, "?");
    else if (strcmp(buf, "/x") == 0 || strcmp(buf, "/a/x2") == 0)
        snprintf(buf, size, "/x|/a/x2");
    return buf;
}

/* ---- write ---- */

static int write_file(const char *path)
{
    hid_t fcpl = H5Pcreate(H5P_FILE_CREATE), gcpl = H5Pcreate(H5P_GROUP_CREATE),
          dcpl = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_link_creation_order(fcpl, H5P_CRT_ORDER_TRACKED | H5P_CRT_ORDER_INDEXED);
    H5Pset_link_creation_order(gcpl, H5P_CRT_ORDER_TRACKED | H5P_CRT_ORDER_INDEXED);
    H5Pset_attr_creation_order(dcpl, H5P_CRT_ORDER_TRACKED | H5P_CRT_ORDER_INDEXED);
    hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, fcpl, H5P_DEFAULT);
    if (f < 0)
        return 1;
    ncz_expect_connector(f, path);
    hsize_t n = 3;
    int v[3] = {1, 2, 3};
    hid_t s = H5Screate_simple(1, &n, NULL), sc = H5Screate(H5S_SCALAR);
    hid_t a = H5Gcreate2(f, "a", H5P_DEFAULT, gcpl, H5P_DEFAULT);
    hid_t b = H5Gcreate2(a, "b", H5P_DEFAULT, gcpl, H5P_DEFAULT);
    hid_t y = H5Dcreate2(a, "y", H5T_STD_I32LE, s, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    hid_t x = H5Dcreate2(f, "x", H5T_STD_I32LE, s, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    hid_t t = H5Tcopy(H5T_STD_I16LE);
    int bad = a < 0 || b < 0 || y < 0 || x < 0 ||
              H5Tcommit2(f, "t", t, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT) < 0 ||
              H5Dwrite(y, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) < 0 ||
              H5Dwrite(x, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) < 0 ||
              H5Lcreate_soft("/x", a, "s", H5P_DEFAULT, H5P_DEFAULT) < 0 ||
              H5Lcreate_hard(f, "x", a, "x2", H5P_DEFAULT, H5P_DEFAULT) < 0;
    /* three attributes on a/y, out of name order, for H5Aiterate1's creation order */
    const char *anames[3] = {"units", "scale", "long_name"};
    for (int i = 0; i < 3 && !bad; i++) {
        hid_t at = H5Acreate2(y, anames[i], H5T_STD_I32LE, sc, H5P_DEFAULT, H5P_DEFAULT);
        bad = at < 0 || H5Awrite(at, H5T_NATIVE_INT, &v[i]) < 0;
        H5Aclose(at);
    }
    H5Tclose(t);
    H5Dclose(x);
    H5Dclose(y);
    H5Gclose(b);
    H5Gclose(a);
    H5Sclose(s);
    H5Sclose(sc);
    H5Pclose(fcpl);
    H5Pclose(gcpl);
    H5Pclose(dcpl);
    return H5Fclose(f) < 0 || bad;
}

/* ---- read ---- */

typedef struct walk {
    hid_t file;
    int stop_after; /* return 1 (stop) after this many calls; 0: never */
    int calls;
} walk;

/* H5Literate1/H5Lvisit1: the link, its type, and whether a hard link's address is its
 * object's */
static herr_t link_cb(hid_t g, const char *name, const H5L_info1_t *li, void *data)
{
    walk *w = data;
    w->calls++;
    if (li->type == H5L_TYPE_HARD)
        out("  %s hard addr=%s", name, li->u.address == addr_of(g, name) ? "token" : "WRONG");
    else
        out("  %s %s val_size=%zu", name, ltype(li->type), li->u.val_size);
    return w->stop_after && w->calls >= w->stop_after ? 1 : 0;
}

/* H5Ovisit1/2: the object, its type and attribute count, and whether its address opens it
 * (H5Oopen_by_addr) */
static herr_t obj_cb(hid_t o, const char *name, const H5O_info1_t *oi, void *data)
{
    walk *w = data;
    w->calls++;
    char buf[256] = "";
    hid_t id = oi->addr == HADDR_UNDEF ? H5I_INVALID_HID : H5Oopen_by_addr(o, oi->addr);
    out("  %s %s rc=%u attrs=%llu by_addr=%s", name, otype(oi->type), oi->rc,
        (unsigned long long)oi->num_attrs, id < 0 ? "-" : name_of(id, buf, sizeof buf));
    if (id >= 0)
        H5Oclose(id);
    return w->stop_after && w->calls >= w->stop_after ? 1 : 0;
}

static herr_t giter_cb(hid_t g, const char *name, void *data)
{
    (void)g;
    walk *w = data;
    w->calls++;
    out("  %s", name);
    return w->stop_after && w->calls >= w->stop_after ? 1 : 0;
}

static herr_t aiter_cb(hid_t loc, const char *name, void *data)
{
    (void)loc;
    (void)data;
    out("  %s", name);
    return 0;
}

static void info1(const char *what, herr_t r, const H5O_info1_t *oi, haddr_t want)
{
    if (r < 0) {
        out("%s: failed", what);
        return;
    }
    out("%s: %s rc=%u attrs=%llu addr=%s", what, otype(oi->type), oi->rc, (unsigned long long)oi->num_attrs,
        oi->addr == HADDR_UNDEF ? "undef"
        : oi->addr == want      ? "token"
                                : "WRONG");
}

static void read_links(hid_t f)
{
    walk w = {f, 0, 0};
    hsize_t idx = 0;
    out("H5Literate1 / name inc: %d", H5Literate1(f, H5_INDEX_NAME, H5_ITER_INC, &idx, link_cb, &w));
    out("  idx=%llu", (unsigned long long)idx);
    idx = 1;
    w.calls = 0;
    out("H5Literate_by_name1 a, crt_order dec from 1: %d",
        H5Literate_by_name1(f, "a", H5_INDEX_CRT_ORDER, H5_ITER_DEC, &idx, link_cb, &w, H5P_DEFAULT));
    out("  idx=%llu", (unsigned long long)idx);
    idx = 0;
    w.calls = 0;
    w.stop_after = 2;
    out("H5Literate_by_name1 a, stop after 2: %d",
        H5Literate_by_name1(f, "a", H5_INDEX_NAME, H5_ITER_INC, &idx, link_cb, &w, H5P_DEFAULT));
    out("  idx=%llu", (unsigned long long)idx);
    w.calls = w.stop_after = 0;
    out("H5Lvisit1 /: %d", H5Lvisit1(f, H5_INDEX_NAME, H5_ITER_INC, link_cb, &w));
    out("H5Lvisit_by_name1 a: %d",
        H5Lvisit_by_name1(f, "a", H5_INDEX_NAME, H5_ITER_INC, link_cb, &w, H5P_DEFAULT));
    const char *names[] = {"a/y", "a/s", "a/x2", "t"};
    for (int i = 0; i < 4; i++) {
        H5L_info1_t li;
        if (H5Lget_info1(f, names[i], &li, H5P_DEFAULT) < 0) {
            out("H5Lget_info1 %s: failed", names[i]);
            continue;
        }
        out("H5Lget_info1 %s: %s corder_valid=%d %s", names[i], ltype(li.type), (int)li.corder_valid,
            li.type == H5L_TYPE_HARD ? (li.u.address == addr_of(f, names[i]) ? "addr=token" : "addr=WRONG")
                                     : (li.u.val_size == 3 ? "val_size=3" : "val_size=WRONG"));
    }
    for (hsize_t n = 0; n < 5; n++) {
        H5L_info1_t li;
        char nm[64] = "";
        herr_t r = H5Lget_info_by_idx1(f, "a", H5_INDEX_NAME, H5_ITER_INC, n, &li, H5P_DEFAULT);
        H5Lget_name_by_idx(f, "a", H5_INDEX_NAME, H5_ITER_INC, n, nm, sizeof nm, H5P_DEFAULT);
        out("H5Lget_info_by_idx1 a %llu: %s %s", (unsigned long long)n, r < 0 ? "failed" : ltype(li.type),
            nm);
    }
    H5L_info1_t li;
    out("H5Lget_info1 a/missing: %s",
        H5Lget_info1(f, "a/missing", &li, H5P_DEFAULT) < 0 ? "failed" : "found");
}

static void read_objects(hid_t f)
{
    H5O_info1_t oi;
    hid_t y = H5Dopen2(f, "a/y", H5P_DEFAULT);
    haddr_t ay = addr_of(f, "a/y");
    info1("H5Oget_info1 a/y", H5Oget_info1(y, &oi), &oi, ay);
    info1("H5Oget_info2 a/y basic", H5Oget_info2(y, &oi, H5O_INFO_BASIC), &oi, ay);
    info1("H5Oget_info2 a/y num_attrs", H5Oget_info2(y, &oi, H5O_INFO_NUM_ATTRS), &oi, ay);
    /* the native fields: their values differ (a store object has no header), not whether
     * they can be asked for */
    out("H5Oget_info2 a/y hdr+meta_size: %s",
        H5Oget_info2(y, &oi, H5O_INFO_HDR | H5O_INFO_META_SIZE) < 0 ? "failed" : "ok");
    out("H5Oget_info2 a/y bad fields: %s", H5Oget_info2(y, &oi, 0x1000) < 0 ? "failed" : "ok");
    info1("H5Oget_info_by_name1 a/y", H5Oget_info_by_name1(f, "a/y", &oi, H5P_DEFAULT), &oi, ay);
    info1("H5Oget_info_by_name1 a/x2", H5Oget_info_by_name1(f, "a/x2", &oi, H5P_DEFAULT), &oi,
          addr_of(f, "x"));
    info1("H5Oget_info_by_name1 a/s", H5Oget_info_by_name1(f, "a/s", &oi, H5P_DEFAULT), &oi, addr_of(f, "x"));
    info1("H5Oget_info_by_name2 t basic", H5Oget_info_by_name2(f, "t", &oi, H5O_INFO_BASIC, H5P_DEFAULT), &oi,
          addr_of(f, "t"));
    info1("H5Oget_info_by_name1 a/missing", H5Oget_info_by_name1(f, "a/missing", &oi, H5P_DEFAULT), &oi, 0);
    info1("H5Oget_info_by_idx1 a crt 0",
          H5Oget_info_by_idx1(f, "a", H5_INDEX_CRT_ORDER, H5_ITER_INC, 0, &oi, H5P_DEFAULT), &oi,
          addr_of(f, "a/b"));
    info1("H5Oget_info_by_idx2 a name 3 time",
          H5Oget_info_by_idx2(f, "a", H5_INDEX_NAME, H5_ITER_INC, 3, &oi, H5O_INFO_TIME, H5P_DEFAULT), &oi,
          0);
    H5Dclose(y);
    char buf[256];
    hid_t o = H5Oopen_by_addr(f, addr_of(f, "a"));
    out("H5Oopen_by_addr a: %s", o < 0 ? "failed" : name_of(o, buf, sizeof buf));
    H5Oclose(o);
    o = H5Oopen_by_addr(f, addr_of(f, "t"));
    out("H5Oopen_by_addr t: %s type=%d", o < 0 ? "failed" : name_of(o, buf, sizeof buf), (int)H5Iget_type(o));
    H5Oclose(o);
    walk w = {f, 0, 0};
    out("H5Ovisit1 /: %d", H5Ovisit1(f, H5_INDEX_NAME, H5_ITER_INC, obj_cb, &w));
    w.calls = 0;
    out("H5Ovisit2 / basic, crt dec: %d",
        H5Ovisit2(f, H5_INDEX_CRT_ORDER, H5_ITER_DEC, obj_cb, &w, H5O_INFO_BASIC));
    w.calls = 0;
    out("H5Ovisit_by_name1 a: %d",
        H5Ovisit_by_name1(f, "a", H5_INDEX_NAME, H5_ITER_INC, obj_cb, &w, H5P_DEFAULT));
    w.calls = 0;
    w.stop_after = 2;
    out("H5Ovisit_by_name2 a all, stop after 2: %d",
        H5Ovisit_by_name2(f, "a", H5_INDEX_NAME, H5_ITER_INC, obj_cb, &w, H5O_INFO_ALL, H5P_DEFAULT));
}

static void read_refs(hid_t f)
{
    const char *names[] = {"a/y", "a", "t", "/", "a/s"};
    for (int i = 0; i < 5; i++) {
        hobj_ref_t ref = 0;
        char buf[256];
        if (H5Rcreate(&ref, f, names[i], H5R_OBJECT, -1) < 0) {
            out("H5Rcreate %s: failed", names[i]);
            continue;
        }
        hid_t o2 = H5Rdereference2(f, H5P_DEFAULT, H5R_OBJECT, &ref);
        hid_t o1 = H5Rdereference1(f, H5R_OBJECT, &ref);
        H5O_type_t t2 = H5O_TYPE_UNKNOWN;
        herr_t r2 = H5Rget_obj_type2(f, H5R_OBJECT, &ref, &t2);
        H5G_obj_t t1 = H5Rget_obj_type1(f, H5R_OBJECT, &ref);
        ssize_t len = H5Rget_name(f, H5R_OBJECT, &ref, buf, sizeof buf);
        char small[3] = "";
        ssize_t slen = H5Rget_name(f, H5R_OBJECT, &ref, small, sizeof small);
        if (strcmp(buf, "/x") == 0 || strcmp(buf, "/a/x2") == 0) {
            /* either name (name_of): the length and the truncation follow it */
            snprintf(buf, sizeof buf, "/x|/a/x2");
            len = slen = 0;
            small[0] = '\0';
        }
        out("H5Rcreate %s: ref=%s deref2=%s deref1=%s type2=%s type1=%d name=%s (%zd) small=%s (%zd)",
            names[i], ref == (hobj_ref_t)addr_of(f, names[i]) ? "token" : "WRONG",
            o2 < 0 ? "failed" : name_of(o2, (char[256]){0}, 256),
            o1 < 0 ? "failed" : name_of(o1, (char[256]){0}, 256), r2 < 0 ? "failed" : otype(t2), (int)t1,
            len < 0 ? "failed" : buf, len, slen < 0 ? "failed" : small, slen);
        if (o2 >= 0)
            H5Oclose(o2);
        if (o1 >= 0)
            H5Oclose(o1);
    }
}

/* References kept in an attribute and in a dataset (when the connector takes H5T_STD_REF_OBJ
 * there: with_attr, with_dset), read back and followed: the bytes stay an object's. */
static void read_stored_refs(hid_t f, int with_attr, int with_dset)
{
    hobj_ref_t refs[2] = {0, 0}, back[2] = {0, 0};
    char buf[2][256];
    hsize_t two = 2;
    if (H5Rcreate(&refs[0], f, "x", H5R_OBJECT, -1) < 0 ||
        H5Rcreate(&refs[1], f, "a/b", H5R_OBJECT, -1) < 0) {
        out("stored references: H5Rcreate failed");
        return;
    }
    hid_t s = H5Screate_simple(1, &two, NULL);
    for (int dset = 0; dset < 2; dset++) {
        if (!(dset ? with_dset : with_attr))
            continue;
        hid_t id = dset ? H5Dcreate2(f, "refs", H5T_STD_REF_OBJ, s, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT)
                        : H5Acreate2(f, "refs", H5T_STD_REF_OBJ, s, H5P_DEFAULT, H5P_DEFAULT);
        int ok = id >= 0 &&
                 (dset ? H5Dwrite(id, H5T_STD_REF_OBJ, H5S_ALL, H5S_ALL, H5P_DEFAULT, refs) >= 0 &&
                             H5Dread(id, H5T_STD_REF_OBJ, H5S_ALL, H5S_ALL, H5P_DEFAULT, back) >= 0
                       : H5Awrite(id, H5T_STD_REF_OBJ, refs) >= 0 && H5Aread(id, H5T_STD_REF_OBJ, back) >= 0);
        for (int i = 0; i < 2; i++) {
            hid_t o = ok ? H5Rdereference2(f, H5P_DEFAULT, H5R_OBJECT, &back[i]) : H5I_INVALID_HID;
            char nm[256];
            snprintf(buf[i], sizeof buf[i], "%s",
                     !ok     ? "refused"
                     : o < 0 ? "failed"
                             : name_of(o, nm, sizeof nm));
            if (o >= 0)
                H5Oclose(o);
        }
        out("references in a%s: %s %s", dset ? " dataset" : "n attribute", buf[0], buf[1]);
        if (id >= 0) {
            dset ? H5Dclose(id) : H5Aclose(id);
            dset ? H5Ldelete(f, "refs", H5P_DEFAULT) : H5Adelete(f, "refs");
        }
    }
    H5Sclose(s);
}

static void read_old_groups(hid_t f)
{
    walk w = {f, 0, 0};
    int idx = 1;
    out("H5Giterate a from 1: %d", H5Giterate(f, "a", &idx, giter_cb, &w));
    out("  idx=%d", idx);
    idx = 0;
    w.calls = 0;
    w.stop_after = 1;
    out("H5Giterate / stop after 1: %d", H5Giterate(f, "/", &idx, giter_cb, &w));
    out("  idx=%d", idx);
    hid_t y = H5Dopen2(f, "a/y", H5P_DEFAULT);
    unsigned an = 1;
    out("H5Aiterate1 a/y from 1: %d", H5Aiterate1(y, &an, aiter_cb, NULL));
    out("  attr_num=%u", an);
    H5Dclose(y);
}

/* Whether the preload library is in this process (/proc/self/maps), for the shell test to
 * know that a run it expects to be served, or forwarded, had it. */
static int preload_loaded(void)
{
    FILE *m = fopen("/proc/self/maps", "r");
    char line[4096];
    int found = 0;
    while (m && !found && fgets(line, sizeof line, m))
        found = strstr(line, "libnczarr_preload") != NULL;
    if (m)
        fclose(m);
    return found;
}

static int read_file(const char *path, int with_attr, int with_dset)
{
    fprintf(stderr, "preload: %s\n", preload_loaded() ? "loaded" : "absent");
    /* failures are lines of the transcript, not stack dumps */
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    hid_t f = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
    if (f < 0)
        return 1;
    ncz_expect_connector(f, path);
    read_links(f);
    read_objects(f);
    read_refs(f);
    read_stored_refs(f, with_attr, with_dset);
    read_old_groups(f);
    return H5Fclose(f) < 0;
}

/* ---- bad ---- */

/* The messages on the error stack, joined. */
static herr_t stack_cb(unsigned n, const H5E_error2_t *e, void *data)
{
    (void)n;
    char *s = data;
    size_t len = strlen(s);
    snprintf(s + len, 4096 - len, "%s%s", len ? " | " : "", e->desc ? e->desc : "");
    return 0;
}

/* failed: the call failed; the stack must hold want */
static void expect(const char *what, int failed, const char *want)
{
    char stack[4096] = "";
    H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, stack_cb, stack);
    if (!failed || !strstr(stack, want)) {
        printf("FAIL: %s: %s, stack: %s (wanted \"%s\")\n", what, failed ? "failed" : "succeeded", stack,
               want);
        g_failed++;
    } else
        printf("ok: %s: %s\n", what, want);
    /* printing a stack the preload pushed on must work */
    H5Eprint2(H5E_DEFAULT, stderr);
    H5Eclear2(H5E_DEFAULT);
}

static int bad_file(const char *path)
{
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    hid_t f = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
    if (f < 0)
        return 1;
    ncz_expect_connector(f, path);
    hid_t sc = H5Screate(H5S_SCALAR);
    hid_t g = H5Gcreate2(f, "gone", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    H5Gclose(g);
    hobj_ref_t ref = 0, null = 0;
    H5Rcreate(&ref, f, "gone", H5R_OBJECT, -1);
    H5Ldelete(f, "gone", H5P_DEFAULT);
    expect("dereferencing a deleted object", H5Rdereference2(f, H5P_DEFAULT, H5R_OBJECT, &ref) < 0,
           "it was deleted, or the reference belongs to another file");
    expect("the type of a deleted object", H5Rget_obj_type1(f, H5R_OBJECT, &ref) == H5G_UNKNOWN,
           "unable to open the object the reference names");
    expect("the name of a deleted object", H5Rget_name(f, H5R_OBJECT, &ref, NULL, 0) < 0,
           "unable to open the object the reference names");
    expect("a null reference", H5Rdereference2(f, H5P_DEFAULT, H5R_OBJECT, &null) < 0,
           "a null reference names no object");
    expect("an address that names no object", H5Oopen_by_addr(f, (haddr_t)12345) < 0,
           "no object has address 12345");
    expect("a reference to a missing name", H5Rcreate(&ref, f, "missing", H5R_OBJECT, -1) < 0,
           "unable to retrieve object token of \"missing\"");
    /* region references: a store has no global heap */
    hsize_t n = 3, start = 1, count = 1;
    hid_t s = H5Screate_simple(1, &n, NULL);
    H5Sselect_hyperslab(s, H5S_SELECT_SET, &start, NULL, &count, NULL);
    hdset_reg_ref_t reg;
    memset(&reg, 0, sizeof reg);
    expect("H5Rcreate of a region reference", H5Rcreate(&reg, f, "x", H5R_DATASET_REGION, s) < 0,
           "region references (H5R_DATASET_REGION) are kept in native HDF5's global heap");
    hid_t x = H5Dopen2(f, "x", H5P_DEFAULT);
    expect("H5Rget_region", H5Rget_region(x, H5R_DATASET_REGION, &reg) < 0, "only object references");
    expect("H5Rdereference2 of a region reference",
           H5Rdereference2(x, H5P_DEFAULT, H5R_DATASET_REGION, &reg) < 0, "region references");
    expect("H5Rget_name of a region reference", H5Rget_name(x, H5R_DATASET_REGION, &reg, NULL, 0) < 0,
           "region references");
    H5O_type_t t;
    expect("H5Rget_obj_type2 of a region reference", H5Rget_obj_type2(x, H5R_DATASET_REGION, &reg, &t) < 0,
           "region references");
    H5Dclose(x);
    H5Sclose(s);
    /* bad arguments */
    hsize_t idx = 0;
    expect("H5Literate1 without an operator",
           H5Literate1(f, H5_INDEX_NAME, H5_ITER_INC, &idx, NULL, NULL) < 0, "no operator specified");
    expect("H5Oget_info1 without a buffer", H5Oget_info1(f, NULL) < 0, "oinfo parameter cannot be NULL");
    expect("H5Oget_info_by_name1 of a missing name",
           H5Oget_info_by_name1(f, "nope", &(H5O_info1_t){0}, H5P_DEFAULT) < 0,
           "can't get data model info for object \"nope\"");
    expect("H5Rcreate of an unknown type", H5Rcreate(&ref, f, "x", (H5R_type_t)7, -1) < 0,
           "invalid reference type");
    H5Sclose(sc);
    /* a closed file: HDF5's own calls say so */
    if (H5Fclose(f) < 0)
        return 1;
    expect("H5Literate1 on a closed file",
           H5Literate1(f, H5_INDEX_NAME, H5_ITER_INC, &idx, link_cb, NULL) < 0,
           "invalid location identifier");
    expect("H5Rdereference2 on a closed file", H5Rdereference2(f, H5P_DEFAULT, H5R_OBJECT, &ref) < 0,
           "invalid file identifier");
    expect("H5Oopen_by_addr on a closed file", H5Oopen_by_addr(f, 1) < 0, "invalid location identifier");
    expect("H5Ovisit_by_name1 on a closed file",
           H5Ovisit_by_name1(f, "a", H5_INDEX_NAME, H5_ITER_INC, obj_cb, NULL, H5P_DEFAULT) < 0,
           "invalid location identifier");
    printf("%d failed\n", g_failed);
    return g_failed;
}

/* ---- region references of a native file: HDF5's own, with the preload or without ---- */

static int region_file(const char *path)
{
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    hid_t f = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT); /* a region goes to the global heap */
    if (f < 0)
        return 1;
    ncz_expect_connector(f, path);
    hsize_t n = 3, start = 1, count = 2;
    hid_t s = H5Screate_simple(1, &n, NULL);
    H5Sselect_hyperslab(s, H5S_SELECT_SET, &start, NULL, &count, NULL);
    hdset_reg_ref_t reg;
    char buf[256] = "";
    herr_t rc = H5Rcreate(&reg, f, "x", H5R_DATASET_REGION, s);
    hid_t sel = rc < 0 ? H5I_INVALID_HID : H5Rget_region(f, H5R_DATASET_REGION, &reg);
    hid_t d = rc < 0 ? H5I_INVALID_HID : H5Rdereference2(f, H5P_DEFAULT, H5R_DATASET_REGION, &reg);
    ssize_t len = rc < 0 ? -1 : H5Rget_name(f, H5R_DATASET_REGION, &reg, buf, sizeof buf);
    if (strcmp(buf, "/x") == 0 || strcmp(buf, "/a/x2") == 0)
        snprintf(buf, sizeof buf, "/x|/a/x2"); /* either name (name_of) */
    H5O_type_t t = H5O_TYPE_UNKNOWN;
    herr_t rt = rc < 0 ? -1 : H5Rget_obj_type2(f, H5R_DATASET_REGION, &reg, &t);
    out("region reference: create=%s selected=%lld deref=%s name=%s type=%s", rc < 0 ? "failed" : "ok",
        sel < 0 ? -1LL : (long long)H5Sget_select_npoints(sel),
        d < 0 ? "failed" : name_of(d, (char[256]){0}, 256), len < 0 ? "failed" : buf,
        rt < 0 ? "failed" : otype(t));
    if (sel >= 0)
        H5Sclose(sel);
    if (d >= 0)
        H5Dclose(d);
    H5Sclose(s);
    return H5Fclose(f) < 0 || rc < 0 || sel < 0 || d < 0 || len < 0 || rt < 0;
}

/* ---- which containers of old-style references the file's connector takes ---- */

/* Prints "attr" and "dset" for an attribute and a dataset of H5T_STD_REF_OBJ that can be
 * written, read back and followed in a new file at path. */
static int probe_file(const char *path)
{
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    if (f < 0)
        return 1;
    ncz_expect_connector(f, path);
    hid_t sc = H5Screate(H5S_SCALAR), g = H5Gcreate2(f, "g", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    hobj_ref_t ref = 0, back = 0;
    if (g < 0 || H5Rcreate(&ref, f, "g", H5R_OBJECT, -1) < 0)
        return 1;
    hid_t a = H5Acreate2(f, "r", H5T_STD_REF_OBJ, sc, H5P_DEFAULT, H5P_DEFAULT);
    hid_t o = a >= 0 && H5Awrite(a, H5T_STD_REF_OBJ, &ref) >= 0 && H5Aread(a, H5T_STD_REF_OBJ, &back) >= 0
                  ? H5Rdereference2(f, H5P_DEFAULT, H5R_OBJECT, &back)
                  : H5I_INVALID_HID;
    if (o >= 0)
        printf("attr ");
    H5Oclose(o);
    H5Aclose(a);
    back = 0;
    hid_t d = H5Dcreate2(f, "r", H5T_STD_REF_OBJ, sc, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    o = d >= 0 && H5Dwrite(d, H5T_STD_REF_OBJ, H5S_ALL, H5S_ALL, H5P_DEFAULT, &ref) >= 0 &&
                H5Dread(d, H5T_STD_REF_OBJ, H5S_ALL, H5S_ALL, H5P_DEFAULT, &back) >= 0
            ? H5Rdereference2(f, H5P_DEFAULT, H5R_OBJECT, &back)
            : H5I_INVALID_HID;
    if (o >= 0)
        printf("dset");
    printf("\n");
    H5Oclose(o);
    H5Dclose(d);
    H5Gclose(g);
    H5Sclose(sc);
    return H5Fclose(f) < 0;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: %s write|read|bad|region|probe FILE [attr] [dset]\n", argv[0]);
        return 2;
    }
    if (strcmp(argv[1], "write") == 0)
        return write_file(argv[2]);
    if (strcmp(argv[1], "read") == 0) {
        int with_attr = 0, with_dset = 0;
        for (int i = 3; i < argc; i++) {
            with_attr |= strcmp(argv[i], "attr") == 0;
            with_dset |= strcmp(argv[i], "dset") == 0;
        }
        return read_file(argv[2], with_attr, with_dset);
    }
    if (strcmp(argv[1], "region") == 0)
        return region_file(argv[2]);
    if (strcmp(argv[1], "probe") == 0)
        return probe_file(argv[2]);
    if (strcmp(argv[1], "bad") == 0)
        return bad_file(argv[2]);
    fprintf(stderr, "unknown mode %s\n", argv[1]);
    return 2;
}
