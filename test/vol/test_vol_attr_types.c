/* Damaged "_nczarr_attr.types": a good store written through the connector is copied and
 * the types entry or the value of one attribute ("victim") is rewritten on disk. The
 * store and the object must still open and every other attribute read. Per case (see
 * ncztr_attr_decode):
 *  - an entry that is no dtype (unknown, size out of range, not a string) and a number
 *    the dtype cannot hold: opening the attribute fails with an NCZarr error naming it;
 *    it is still listed, and written back unchanged when the connector rewrites the object
 *    (also renamed or copied); deleting it works;
 *  - a value of another kind than its dtype (a Zarr tool edited it): the same. */
#include "vol_test_util.h"

#include <sys/stat.h>

static char dir[4096];
static char good[4200];

/* Replaces the one occurrence of `old` in a key of the store with `new`. */
static void edit(const char *store, const char *key, const char *old, const char *new)
{
    char p[8300], buf[1 << 16];
    snprintf(p, sizeof p, "%s/%s", store, key);
    snprintf(buf, sizeof buf, "%s", slurp(p));
    char *at = strstr(buf, old);
    if (!at || strstr(at + 1, old)) {
        fprintf(stderr, "%s: \"%s\" is not there exactly once:\n%s\n", p, old, buf);
        exit(2);
    }
    FILE *fp = fopen(p, "wb");
    if (!fp) {
        perror(p);
        exit(2);
    }
    fprintf(fp, "%.*s%s%s", (int)(at - buf), buf, new, at + strlen(old));
    fclose(fp);
}

/* A fresh copy of the good store, named after the case. */
static void copy_store(const char *tag, char *out, size_t len)
{
    copy_store_to(good, dir, tag, out, len);
}

static void put_int(hid_t loc, const char *name, int v)
{
    hid_t s = H5Screate(H5S_SCALAR);
    hid_t a = H5Acreate2(loc, name, H5T_STD_I32LE, s, H5P_DEFAULT, H5P_DEFAULT);
    if (a < 0 || H5Awrite(a, H5T_NATIVE_INT, &v) < 0)
        exit(2);
    H5Aclose(a);
    H5Sclose(s);
}

/* On the root and on dataset "d": "victim" = 7 and "keep" = 1 (int32), "t" = "hello";
 * on the root also "grid", 2x2 int32 (its shape is kept beside the flattened value). */
static void make_good(void)
{
    snprintf(good, sizeof good, "%s/good.zarr", dir);
    hid_t f = H5Fcreate(good, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    if (f < 0 || !is_nczarr(f)) {
        fprintf(stderr, "cannot create %s through the nczarr connector\n", good);
        exit(2);
    }
    hsize_t n = 3, g2[2] = {2, 2};
    hid_t s = H5Screate_simple(1, &n, NULL), ts = H5Screate(H5S_SCALAR), t = H5Tcopy(H5T_C_S1);
    H5Tset_size(t, 5);
    hid_t d = H5Dcreate2(f, "d", H5T_STD_I32LE, s, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (d < 0)
        exit(2);
    hid_t locs[2] = {f, d};
    for (int i = 0; i < 2; i++) {
        put_int(locs[i], "victim", 7);
        put_int(locs[i], "keep", 1);
        hid_t a = H5Acreate2(locs[i], "t", t, ts, H5P_DEFAULT, H5P_DEFAULT);
        if (a < 0 || H5Awrite(a, t, "hello") < 0)
            exit(2);
        H5Aclose(a);
    }
    hid_t gs = H5Screate_simple(2, g2, NULL);
    hid_t a = H5Acreate2(f, "grid", H5T_STD_I32LE, gs, H5P_DEFAULT, H5P_DEFAULT);
    int grid[4] = {1, 2, 3, 4};
    if (a < 0 || H5Awrite(a, H5T_NATIVE_INT, grid) < 0)
        exit(2);
    H5Aclose(a);
    H5Sclose(gs);
    H5Dclose(d);
    H5Sclose(s);
    H5Sclose(ts);
    H5Tclose(t);
    if (H5Fclose(f) < 0)
        exit(2);
}

/* The other attributes of obj are intact. */
static void check_others(hid_t obj, const char *what)
{
    int v = 0;
    char txt[6] = "";
    hid_t a = H5Aopen(obj, "keep", H5P_DEFAULT);
    CHECK(a >= 0 && H5Aread(a, H5T_NATIVE_INT, &v) >= 0 && v == 1, "%s: \"keep\" reads (%d)", what, v);
    if (a >= 0)
        H5Aclose(a);
    hid_t t = H5Tcopy(H5T_C_S1);
    H5Tset_size(t, 6);
    a = H5Aopen(obj, "t", H5P_DEFAULT);
    CHECK(a >= 0 && H5Aread(a, t, txt) >= 0 && !strcmp(txt, "hello"), "%s: \"t\" reads (%s)", what, txt);
    if (a >= 0)
        H5Aclose(a);
    H5Tclose(t);
}

static herr_t count_cb(hid_t loc, const char *name, const H5A_info_t *ai, void *data)
{
    (void)loc;
    (void)ai;
    if (!strcmp(name, "victim"))
        ++*(int *)data;
    return 0;
}

/* "victim" of object `obj` in `store` cannot be opened: an NCZarr error naming it and
 * containing `needle`; the store, the object and its other attributes are fine. */
static void expect_error(const char *store, const char *obj, const char *needle, const char *what)
{
    errtext_t et;
    hid_t f = H5Fopen(store, H5F_ACC_RDONLY, H5P_DEFAULT);
    CHECK(f >= 0 && is_nczarr(f), "%s: the store must still open", what);
    if (f < 0)
        return;
    hid_t o = H5Oopen(f, obj, H5P_DEFAULT);
    CHECK(o >= 0, "%s: the object must still open", what);
    if (o < 0) {
        H5Fclose(f);
        return;
    }
    hid_t a;
    H5E_BEGIN_TRY
    {
        a = H5Aopen(o, "victim", H5P_DEFAULT);
    }
    H5E_END_TRY
    take_errors(&et);
    CHECK(a < 0, "%s: opening the damaged attribute must fail", what);
    CHECK(nczarr_error_has(&et, "attribute \"victim\"") && nczarr_error_has(&et, needle),
          "%s: expected an NCZarr error naming \"victim\" and mentioning \"%s\", got:\n%s", what, needle,
          et.text);
    if (a >= 0)
        H5Aclose(a);
    /* by index too ("keep", "t", "victim" by name) */
    H5E_BEGIN_TRY
    {
        a = H5Aopen_by_idx(o, ".", H5_INDEX_NAME, H5_ITER_DEC, 0, H5P_DEFAULT, H5P_DEFAULT);
    }
    H5E_END_TRY
    take_errors(&et);
    CHECK(a < 0 && nczarr_error_has(&et, needle), "%s: H5Aopen_by_idx must fail the same way:\n%s", what,
          et.text);
    if (a >= 0)
        H5Aclose(a);
    /* still listed */
    int seen = 0;
    H5A_info_t ai;
    CHECK(H5Aexists(o, "victim") > 0, "%s: H5Aexists", what);
    CHECK(H5Aget_info_by_name(o, ".", "victim", &ai, H5P_DEFAULT) >= 0, "%s: H5Aget_info_by_name", what);
    CHECK(H5Aiterate2(o, H5_INDEX_NAME, H5_ITER_INC, NULL, count_cb, &seen) >= 0 && seen == 1,
          "%s: H5Aiterate2 lists it (%d)", what, seen);
    check_others(o, what);
    H5Oclose(o);
    CHECK(H5Fclose(f) >= 0, "%s: close", what);
}

/* A damaged root "victim": its value replaced by `value` (NULL: kept) and its types entry
 * by `type` (NULL: kept). */
static void damage(const char *tag, const char *key, const char *value, const char *type, char *p, size_t len)
{
    char v[256];
    copy_store(tag, p, len);
    if (value) {
        snprintf(v, sizeof v, "\"victim\": %s,", value);
        edit(p, key, "\"victim\": 7,", v);
    }
    if (type) {
        snprintf(v, sizeof v, "\"victim\": %s", type);
        edit(p, key, "\"victim\": \"<i4\"", v);
    }
}

static void error_case(const char *tag, const char *value, const char *type, const char *needle)
{
    char p[4300];
    damage(tag, ".zattrs", value, type, p, sizeof p);
    expect_error(p, "/", needle, tag);
}

static void test_errors(void)
{
    /* the entry is no dtype */
    error_case("unknown", NULL, "\"<x9\"", "\"<x9\"");
    error_case("word", NULL, "\"integer\"", "\"integer\"");
    error_case("complex", NULL, "\"<c8\"", "complex");
    error_case("wide", NULL, "\"<i16\"", "16-byte");
    error_case("odd", NULL, "\"<i3\"", "3-byte");
    error_case("strzero", "\"abc\"", "\"|S0\"", "zero-length");
    error_case("strhuge", "\"abc\"", "\"|S99999999999\"", "too");
    error_case("number", NULL, "5", "not a dtype string");
    error_case("null", NULL, "null", "not a dtype string");
    error_case("list", NULL, "[\"<i4\"]", "not a dtype string");
    /* a number the dtype cannot hold */
    error_case("range", "300", "\"|u1\"", "out of range");
    error_case("negative", "-1", "\"<u2\"", "out of range");
    error_case("fraction", "1.5", NULL, "not an integer");
    error_case("rangelist", "[1, 70000]", "\"<i2\"", "out of range");
    /* on a dataset */
    char p[4300];
    damage("dataset", "d/.zattrs", NULL, "\"<x9\"", p, sizeof p);
    expect_error(p, "/d", "\"<x9\"", "dataset");
}

/* A value of another kind than its dtype (a Zarr tool edited the value, or damage) is
 * refused like the errors above, naming the key and the dtype, and written back as it was
 * when the connector rewrites the object. */
static void test_kind_mismatch(void)
{
    error_case("text", "\"abc\"", NULL, "\"_nczarr_attr.types\" gives dtype \"<i4\" but the value is text");
    error_case("numbers", "[4, 5]", "\"|S128\"", "gives dtype \"|S128\" but the value holds a number");
    error_case("object", "{\"a\": 1}", NULL, "is an object");
    char p[4300], k[4400];
    damage("kept", ".zattrs", "\"abc\"", NULL, p, sizeof p);
    hid_t f = H5Fopen(p, H5F_ACC_RDWR, H5P_DEFAULT);
    CHECK(f >= 0, "kept: open");
    put_int(f, "more", 2);
    H5Fclose(f);
    snprintf(k, sizeof k, "%s/.zattrs", p);
    const char *z = slurp(k);
    CHECK(strstr(z, "\"victim\": \"abc\"") && strstr(z, "\"victim\": \"<i4\""), "kept: rewritten as:\n%s", z);
    expect_error(p, "/", "but the value is text", "kept");
}

/* The connector rewrites an object holding an unreadable attribute: it is written back as
 * the store had it (value, types entry, kept shape), also when renamed or copied. */
static void test_rewrite(void)
{
    char p[4300], k[4400];
    copy_store("rewrite", p, sizeof p);
    edit(p, ".zattrs", "\"victim\": \"<i4\"", "\"victim\": \"<x9\"");
    edit(p, ".zattrs", "\"grid\": \"<i4\"", "\"grid\": \"<q4\"");
    edit(p, "d/.zattrs", "\"victim\": \"<i4\"", "\"victim\": \"<x9\"");
    hid_t f = H5Fopen(p, H5F_ACC_RDWR, H5P_DEFAULT);
    CHECK(f >= 0 && is_nczarr(f), "rewrite: open read-write");
    if (f < 0)
        return;
    put_int(f, "more", 2);
    CHECK(H5Arename(f, "grid", "grid2") >= 0, "rewrite: rename the unreadable attribute");
    CHECK(H5Ocopy(f, "d", f, "d2", H5P_DEFAULT, H5P_DEFAULT) >= 0, "rewrite: copy the dataset");
    CHECK(H5Fclose(f) >= 0, "rewrite: close");
    snprintf(k, sizeof k, "%s/.zattrs", p);
    const char *z = slurp(k);
    CHECK(strstr(z, "\"victim\": 7") && strstr(z, "\"victim\": \"<x9\"") && strstr(z, "\"more\": 2") &&
              strstr(z, "\"grid2\": [1,2,3,4]") && strstr(z, "\"grid2\": \"<q4\"") &&
              strstr(z, "\"grid2\": [2,2]"),
          "rewrite: the root .zattrs lost what it had:\n%s", z);
    snprintf(k, sizeof k, "%s/d2/.zattrs", p);
    z = slurp(k);
    CHECK(strstr(z, "\"victim\": 7") && strstr(z, "\"victim\": \"<x9\""), "rewrite: the copy lost it:\n%s",
          z);
    expect_error(p, "/", "\"<x9\"", "rewrite root");
    expect_error(p, "/d2", "\"<x9\"", "rewrite copy");

    /* deleting it works and removes it from the store */
    f = H5Fopen(p, H5F_ACC_RDWR, H5P_DEFAULT);
    CHECK(f >= 0 && H5Adelete(f, "victim") >= 0, "rewrite: delete the unreadable attribute");
    if (f >= 0)
        H5Fclose(f);
    snprintf(k, sizeof k, "%s/.zattrs", p);
    z = slurp(k);
    CHECK(!strstr(z, "victim") && strstr(z, "\"keep\": 1"), "rewrite: after the delete:\n%s", z);
}

int main(void)
{
    scratch_dir(dir, sizeof dir, "attrtypes");
    make_good();
    hid_t f = H5Fopen(good, H5F_ACC_RDONLY, H5P_DEFAULT);
    CHECK(f >= 0 && is_nczarr(f), "open the good store");
    if (f >= 0) {
        int v = 0;
        hid_t a = H5Aopen(f, "victim", H5P_DEFAULT);
        CHECK(a >= 0 && H5Aread(a, H5T_NATIVE_INT, &v) >= 0 && v == 7 && H5Eget_num(H5E_DEFAULT) == 0,
              "the undamaged attribute reads (%d)", v);
        if (a >= 0)
            H5Aclose(a);
        check_others(f, "good store");
        H5Fclose(f);
    }
    test_errors();
    test_kind_mismatch();
    test_rewrite();
    rm_rf(dir);
    TEST_MAIN_END();
}
