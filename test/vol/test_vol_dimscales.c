/* HDF5 dimension scales (H5DS) over the connector: a scale is a shared dimension of its
 * group and the scales attached to a dataset are its "dimension_references". Checked here:
 * every H5DS call on a new store and after reopening (where the H5DS attributes are made
 * from the NCZarr metadata), the metadata written (no CLASS/DIMENSION_LIST/REFERENCE_LIST
 * in .zattrs; dimensions with sizes and "unlimited"), detaching, renaming a scale, labels,
 * a netCDF-style dimension-only scale (a dimension, no array), and damaged dimension
 * metadata (a clear error, the rest readable). */
#include "vol_test_util.h"

#include <hdf5_hl.h>
#include <sys/wait.h>

static char dir[4096];

static void spit(const char *path, const char *text)
{
    FILE *fp = fopen(path, "wb");
    if (fp) {
        fputs(text, fp);
        fclose(fp);
    }
}

static herr_t scale_name_cb(hid_t did, unsigned dim, hid_t dsid, void *ud)
{
    (void)did;
    (void)dim;
    H5DSget_scale_name(dsid, ud, 64);
    return 1; /* the first one */
}

static void scale_of(hid_t d, unsigned dim, char *out)
{
    int idx = 0;
    out[0] = '\0';
    H5DSiterate_scales(d, dim, &idx, scale_name_cb, out);
}

static hid_t mkds(hid_t loc, const char *name, int rank, const hsize_t *dims, const hsize_t *max)
{
    hid_t sp = H5Screate_simple(rank, dims, max);
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    if (max) {
        hsize_t ch[2] = {2, 2};
        H5Pset_chunk(dcpl, rank, ch);
    }
    hid_t d = H5Dcreate2(loc, name, H5T_NATIVE_INT, sp, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    H5Sclose(sp);
    H5Pclose(dcpl);
    return d;
}

/* HDF5's H5DSattach_scale (1.14.6) leaks the references it reads from an existing
 * REFERENCE_LIST, and a live reference holds its file open: the file is then written when
 * the program exits (H5VL_nczarr_flush_at_exit), as native HDF5 writes it when the library
 * shuts down. So the writing happens in a child process that exits. */
static void write_basic(const char *p)
{
    hid_t f = H5Fcreate(p, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    if (f < 0 || !is_nczarr(f))
        _exit(2);
    CHECK(is_nczarr(f), "the store is the connector's");
    hsize_t nx = 3, nt = 2, vd[2] = {2, 3}, vmax[2] = {H5S_UNLIMITED, 3}, tmax = H5S_UNLIMITED;
    hid_t x = mkds(f, "x", 1, &nx, NULL), t = mkds(f, "time", 1, &nt, &tmax), v = mkds(f, "v", 2, vd, vmax);
    hid_t g = H5Gcreate2(f, "g", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    hid_t w = mkds(g, "w", 1, &nx, NULL);
    CHECK(H5DSset_scale(x, "x") >= 0 && H5DSset_scale(t, "time") >= 0, "set_scale");
    CHECK(H5DSattach_scale(v, t, 0) >= 0 && H5DSattach_scale(v, x, 1) >= 0, "attach to v");
    CHECK(H5DSattach_scale(w, x, 0) >= 0, "attach a scale of the parent group");
    CHECK(H5DSis_scale(x) == 1 && H5DSis_scale(v) == 0, "is_scale");
    CHECK(H5DSis_attached(v, x, 1) == 1 && H5DSis_attached(v, x, 0) == 0, "is_attached");
    CHECK(H5DSget_num_scales(v, 0) == 1 && H5DSget_num_scales(v, 1) == 1, "get_num_scales");
    CHECK(H5DSset_label(v, 0, "T") >= 0 && H5DSset_label(v, 1, "X") >= 0, "set_label");
    H5Dclose(x);
    H5Dclose(t);
    H5Dclose(v);
    H5Dclose(w);
    H5Gclose(g);
    CHECK(H5Fclose(f) >= 0, "close");
    exit(ncz_test_failed_ ? 1 : 0);
}

/* Reopened: the scales come back from the dimensions; then detach and rename. */
static void modify_basic(const char *p)
{
    char name[64];
    hid_t f = H5Fopen(p, H5F_ACC_RDWR, H5P_DEFAULT), x, v, w;
    CHECK(is_nczarr(f), "reopened by the connector");
    x = H5Dopen2(f, "x", H5P_DEFAULT);
    v = H5Dopen2(f, "v", H5P_DEFAULT);
    w = H5Dopen2(f, "g/w", H5P_DEFAULT);
    CHECK(H5DSis_scale(x) == 1 && H5DSis_attached(v, x, 1) == 1 && H5DSis_attached(w, x, 0) == 1,
          "attachments after reopening");
    scale_of(v, 0, name);
    CHECK(strcmp(name, "time") == 0, "v's dimension 0 scale: %s", name);
    char lab[16] = "";
    H5DSget_label(v, 1, lab, sizeof lab);
    CHECK(strcmp(lab, "X") == 0, "label after reopening: %s", lab);
    CHECK(H5DSget_num_scales(x, 0) < 0 || H5DSget_num_scales(x, 0) == 0, "a scale has no scales");
    /* detach, then rename the scale: the other attachment follows it */
    CHECK(H5DSdetach_scale(w, x, 0) >= 0 && H5DSis_attached(w, x, 0) == 0, "detach");
    H5Dclose(x);
    CHECK(H5Lmove(f, "x", f, "xx", H5P_DEFAULT, H5P_DEFAULT) >= 0, "rename the scale");
    H5Dclose(v);
    H5Dclose(w);
    CHECK(H5Fclose(f) >= 0, "close after detach and rename");
    exit(ncz_test_failed_ ? 1 : 0);
}

static void in_child(void (*fn)(const char *), const char *p)
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0)
        fn(p);
    int st = -1;
    waitpid(pid, &st, 0);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "the child succeeded (status %d)", st);
}

static void test_attach_reopen(void)
{
    char p[4300], key[4400], name[64];
    hid_t f, v;
    snprintf(p, sizeof p, "%s/basic.zarr", dir);
    in_child(write_basic, p);

    /* what NCZarr readers see */
    snprintf(key, sizeof key, "%s/.zattrs", p);
    const char *root = slurp(key);
    CHECK(root && strstr(root, "\"x\": 3") && strstr(root, "\"time\": {\"size\": 2, \"unlimited\": 1}"),
          "root dimensions: %s", root ? root : "(none)");
    snprintf(key, sizeof key, "%s/v/.zattrs", p);
    const char *va = slurp(key);
    CHECK(va && strstr(va, "\"dimension_references\": [\"/time\",\"/x\"]") && !strstr(va, "DIMENSION_LIST") &&
              strstr(va, "DIMENSION_LABELS"),
          "v's metadata: %s", va ? va : "(none)");
    snprintf(key, sizeof key, "%s/x/.zattrs", p);
    const char *xa = slurp(key);
    CHECK(xa && !strstr(xa, "CLASS") && !strstr(xa, "REFERENCE_LIST"), "x's metadata: %s",
          xa ? xa : "(none)");

    in_child(modify_basic, p);
    snprintf(key, sizeof key, "%s/v/.zattrs", p);
    va = slurp(key);

    snprintf(key, sizeof key, "%s/v/.zattrs", p);
    va = slurp(key);
    CHECK(va && strstr(va, "[\"/time\",\"/xx\"]"), "v follows the renamed scale: %s", va ? va : "(none)");
    snprintf(key, sizeof key, "%s/g/w/.zattrs", p);
    const char *wa = slurp(key);
    CHECK(wa && !strstr(wa, "\"/xx\"") && !strstr(wa, "\"/x\""), "w detached: %s", wa ? wa : "(none)");

    f = H5Fopen(p, H5F_ACC_RDONLY, H5P_DEFAULT);
    v = H5Dopen2(f, "v", H5P_DEFAULT);
    scale_of(v, 1, name);
    /* as in HDF5, a renamed scale keeps its NAME; its dimension takes the new link name */
    CHECK(strcmp(name, "x") == 0, "renamed scale's NAME after reopening: %s", name);
    snprintf(key, sizeof key, "%s/.zattrs", p);
    const char *root2 = slurp(key);
    CHECK(strstr(root2, "\"xx\": 3") && !strstr(root2, "\"x\": 3"), "dimension renamed: %s", root2);
    H5Dclose(v);
    H5Fclose(f);
}

/* netCDF-4's dataset for a dimension without a variable is a dimension, not an array. */
static void test_dimonly(void)
{
    char p[4300], key[4400];
    hid_t f = create_store_in(dir, "dimonly", p, sizeof p);
    hsize_t n = 5, vd = 5;
    hid_t sp = H5Screate_simple(1, &n, NULL);
    hid_t d = H5Dcreate2(f, "n", H5T_IEEE_F32BE, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    char nm[80];
    snprintf(nm, sizeof nm, "This is a netCDF dimension but not a netCDF variable.%10d", 5);
    CHECK(H5DSset_scale(d, nm) >= 0, "dimension-only scale");
    hid_t v = mkds(f, "v", 1, &vd, NULL);
    CHECK(H5DSattach_scale(v, d, 0) >= 0, "attach");
    H5Dclose(v);
    H5Dclose(d);
    H5Sclose(sp);
    CHECK(H5Fclose(f) >= 0, "close");
    snprintf(key, sizeof key, "%s/n/.zarray", p);
    CHECK(access(key, F_OK) != 0, "no array for a dimension-only scale");
    snprintf(key, sizeof key, "%s/.zattrs", p);
    const char *root = slurp(key);
    CHECK(root && strstr(root, "\"n\": 5") && strstr(root, "\"arrays\": [\"v\"]"), "root: %s",
          root ? root : "");
    f = H5Fopen(p, H5F_ACC_RDONLY, H5P_DEFAULT);
    d = H5Dopen2(f, "n", H5P_DEFAULT);
    v = H5Dopen2(f, "v", H5P_DEFAULT);
    char got[80] = "";
    H5DSget_scale_name(d, got, sizeof got);
    CHECK(d >= 0 && strncmp(got, "This is a netCDF dimension", 26) == 0, "dimension-only dataset back: %s",
          got);
    CHECK(H5DSis_attached(v, d, 0) == 1, "attached after reopening");
    H5Dclose(d);
    H5Dclose(v);
    H5Fclose(f);
}

/* A dimension reference that does not hold: the array opens anyway, as in netCDF-C, with
 * its own shape and a warning naming the reference. */
static void expect_lenient(const char *p, const char *obj, const char *needle)
{
    errtext_t et;
    hid_t f = H5Fopen(p, H5F_ACC_RDONLY, H5P_DEFAULT);
    CHECK(f >= 0, "a store with damaged dimensions still opens");
    hid_t d = -1;
    H5Eclear2(H5E_DEFAULT);
    d = H5Dopen2(f, obj, H5P_DEFAULT);
    take_errors(&et);
    CHECK(d >= 0 && nczarr_error_has(&et, needle) && nczarr_error_has(&et, "opens with its own shape"),
          "opening %s: %s", obj, et.text);
    if (d >= 0)
        H5Dclose(d);
    hid_t ok = H5Dopen2(f, "x", H5P_DEFAULT);
    CHECK(ok >= 0, "the other arrays stay readable");
    H5Dclose(ok);
    H5Fclose(f);
}

static void test_damaged(void)
{
    char p[4300], key[4400], text[65536];
    hid_t f = create_store_in(dir, "damaged", p, sizeof p);
    hsize_t n = 3;
    hid_t x = mkds(f, "x", 1, &n, NULL), v = mkds(f, "v", 1, &n, NULL);
    H5DSset_scale(x, "x");
    H5DSattach_scale(v, x, 0);
    H5Dclose(x);
    H5Dclose(v);
    H5Fclose(f);
    snprintf(key, sizeof key, "%s/v/.zattrs", p);
    snprintf(text, sizeof text, "%s", slurp(key));
    char *at = strstr(text, "[\"/x\"]");
    CHECK(at != NULL, "v names /x: %s", text);
    if (!at)
        return;
    char bad[65536];
    snprintf(bad, sizeof bad, "%.*s[\"/nope\"]%s", (int)(at - text), text, at + 6);
    spit(key, bad);
    expect_lenient(p, "v", "/nope");
    /* a dimension whose size disagrees with the array's shape */
    spit(key, text);
    snprintf(key, sizeof key, "%s/.zattrs", p);
    snprintf(text, sizeof text, "%s", slurp(key));
    at = strstr(text, "\"x\": 3");
    CHECK(at != NULL, "root has x: %s", text);
    if (!at)
        return;
    snprintf(bad, sizeof bad, "%.*s\"x\": 7%s", (int)(at - text), text, at + 6);
    spit(key, bad);
    expect_lenient(p, "v", "has size 7");
}

int main(void)
{
    scratch_dir(dir, sizeof dir, "dimscales");
    test_attach_reopen();
    test_dimonly();
    test_damaged();
    rm_rf(dir);
    TEST_MAIN_END();
}
