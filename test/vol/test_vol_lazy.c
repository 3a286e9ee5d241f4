/* Arrays listed by an NCZarr group have their .zarray/.zattrs read when first used, not on
 * open (translate/store/ncztr_load.c, ncztr_obj_load). Nothing of that may show: a walk sees
 * every listed array; an array whose metadata is damaged or missing reports that when it
 * is opened and the rest stays readable; with .zmetadata the metadata comes from it as on
 * open; and every operation on an array never opened (rename, copy, attribute delete,
 * attribute create, a store opened for writing and closed untouched) keeps its metadata whole. */
#include "vol_test_util.h"

static char dir[4096];

enum { NARR = 5, LEN = 4 };

static int value(int i, int k)
{
    return 100 * i + k;
}

/* g/a0..a4: int32 [4] with value(i, k), attribute "units" = i and, on a0, "scale" = 2. */
static void make_store(const char *path, bool consolidated)
{
    char url[4300];
    if (consolidated)
        snprintf(url, sizeof url, "file://%s#mode=nczarr,file,consolidated", path);
    else
        snprintf(url, sizeof url, "%s", path);
    rm_rf(path);
    hid_t f = H5Fcreate(url, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    if (f < 0 || !is_nczarr(f)) {
        fprintf(stderr, "FAIL: cannot create %s with the connector\n", url);
        exit(1);
    }
    hsize_t n = LEN;
    hid_t g = H5Gcreate2(f, "g", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), sp = H5Screate_simple(1, &n, NULL);
    hid_t as = H5Screate(H5S_SCALAR);
    for (int i = 0; i < NARR; i++) {
        char name[16];
        int v[LEN];
        for (int k = 0; k < LEN; k++)
            v[k] = value(i, k);
        snprintf(name, sizeof name, "a%d", i);
        hid_t d = H5Dcreate2(g, name, H5T_STD_I32LE, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        H5Dwrite(d, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, v);
        hid_t a = H5Acreate2(d, "units", H5T_STD_I32LE, as, H5P_DEFAULT, H5P_DEFAULT);
        H5Awrite(a, H5T_NATIVE_INT, &i);
        H5Aclose(a);
        if (i == 0) {
            int two = 2;
            a = H5Acreate2(d, "scale", H5T_STD_I32LE, as, H5P_DEFAULT, H5P_DEFAULT);
            H5Awrite(a, H5T_NATIVE_INT, &two);
            H5Aclose(a);
        }
        H5Dclose(d);
    }
    H5Sclose(as);
    H5Sclose(sp);
    H5Gclose(g);
    if (H5Fclose(f) < 0) {
        fprintf(stderr, "FAIL: cannot close %s\n", url);
        exit(1);
    }
}

static void write_file(const char *path, const char *text)
{
    FILE *fp = fopen(path, "w");
    if (!fp || fputs(text, fp) < 0 || fclose(fp) != 0) {
        perror(path);
        exit(2);
    }
}

typedef struct {
    int n, datasets;
} walk_t;

static herr_t walk_cb(hid_t g, const char *name, const H5L_info2_t *info, void *data)
{
    (void)info;
    walk_t *w = data;
    H5O_info2_t oi;
    if (H5Oget_info_by_name3(g, name, &oi, H5O_INFO_BASIC, H5P_DEFAULT) < 0)
        return -1;
    w->n++;
    w->datasets += oi.type == H5O_TYPE_DATASET;
    return 0;
}

/* Array i reads back its values and its "units" attribute. */
static void check_array(hid_t f, const char *name, int i, const char *what)
{
    errtext_t et;
    int v[LEN] = {0};
    CHECK(open_and_read_ints(f, name, v, &et) >= 0, "%s: %s must read: %s", what, name, et.text);
    int bad = 0;
    for (int k = 0; k < LEN; k++)
        bad += v[k] != value(i, k);
    CHECK(bad == 0, "%s: %s: %d wrong values", what, name, bad);
    int u = -1;
    hid_t a = H5Aopen_by_name(f, name, "units", H5P_DEFAULT, H5P_DEFAULT);
    CHECK(a >= 0 && H5Aread(a, H5T_NATIVE_INT, &u) >= 0 && u == i, "%s: %s units = %d", what, name, u);
    if (a >= 0)
        H5Aclose(a);
}

static void expect_open_fails(hid_t f, const char *name, const char *needle)
{
    errtext_t et;
    hid_t d;
    H5E_BEGIN_TRY
    {
        d = H5Dopen2(f, name, H5P_DEFAULT);
    }
    H5E_END_TRY
    take_errors(&et);
    CHECK(d < 0, "opening %s must fail", name);
    CHECK(nczarr_error_has(&et, needle), "opening %s: expected an NCZarr error mentioning \"%s\", got:\n%s",
          name, needle, et.text);
    if (d >= 0)
        H5Dclose(d);
}

/* Damaged or missing metadata: the walk lists every array, opening reports each error. */
static void test_damaged(const char *good)
{
    char path[4400], p[4600];
    copy_store_to(good, dir, "damaged", path, sizeof path);
    snprintf(p, sizeof p, "%s/g/a1/.zarray", path);
    write_file(p, "{not json");
    snprintf(p, sizeof p, "%s/g/a2/.zattrs", path);
    write_file(p, "[1, 2");
    snprintf(p, sizeof p, "%s/g/a3/.zarray", path);
    remove(p);
    snprintf(p, sizeof p, "%s/g/a4", path);
    rm_rf(p);
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    REQUIRE(f >= 0, "a store with damaged arrays must open");
    hid_t g = H5Gopen2(f, "g", H5P_DEFAULT);
    walk_t w = {0, 0};
    CHECK(H5Literate2(g, H5_INDEX_NAME, H5_ITER_INC, NULL, walk_cb, &w) >= 0 && w.n == NARR &&
              w.datasets == NARR,
          "the walk sees %d objects, %d datasets", w.n, w.datasets);
    H5O_info2_t oi;
    CHECK(H5Oget_info_by_name3(g, "a0", &oi, H5O_INFO_NUM_ATTRS, H5P_DEFAULT) >= 0 && oi.num_attrs == 2,
          "a0 has 2 attributes before it is opened");
    CHECK(H5Aexists_by_name(g, "a0", "scale", H5P_DEFAULT) > 0, "a0's attribute is found by name");
    H5Gclose(g);
    expect_open_fails(f, "g/a1", "invalid JSON");
    expect_open_fails(f, "g/a2", ".zattrs");
    expect_open_fails(f, "g/a3", "has no");
    expect_open_fails(f, "g/a4", "has no");
    check_array(f, "g/a0", 0, "damaged store");
    /* a second try reports the same */
    expect_open_fails(f, "g/a1", "invalid JSON");
    CHECK(H5Fclose(f) >= 0, "close");
}

/* With .zmetadata an array's metadata comes from it, even read after open. */
static void test_consolidated(const char *good)
{
    char path[4400], p[4600];
    copy_store_to(good, dir, "cons", path, sizeof path);
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    REQUIRE(f >= 0, "the consolidated store must open");
    for (int i = 0; i < 2; i++) {
        snprintf(p, sizeof p, "%s/g/a%d/%s", path, i, ".zarray");
        remove(p);
        snprintf(p, sizeof p, "%s/g/a%d/%s", path, i, ".zattrs");
        remove(p);
    }
    check_array(f, "g/a0", 0, "consolidated");
    H5O_info2_t oi;
    CHECK(H5Oget_info_by_name3(f, "g/a1", &oi, H5O_INFO_NUM_ATTRS, H5P_DEFAULT) >= 0 && oi.num_attrs == 1,
          "a1 has its attribute from .zmetadata");
    check_array(f, "g/a1", 1, "consolidated");
    CHECK(H5Fclose(f) >= 0, "close");
}

/* Opened for writing and closed without opening an array: every array's metadata is as it
 * was, and .zmetadata still has every entry. */
static void test_untouched(const char *good, bool consolidated)
{
    char path[4400], p[4600], before[NARR][2][1024];
    copy_store_to(good, dir, consolidated ? "untouched_cons" : "untouched", path, sizeof path);
    for (int i = 0; i < NARR; i++)
        for (int m = 0; m < 2; m++) {
            snprintf(p, sizeof p, "%s/g/a%d/%s", path, i, m ? ".zattrs" : ".zarray");
            snprintf(before[i][m], sizeof before[i][m], "%s", slurp(p));
        }
    hid_t f = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
    REQUIRE(f >= 0, "open for writing");
    hid_t g = H5Gopen2(f, "g", H5P_DEFAULT);
    walk_t w = {0, 0};
    CHECK(H5Literate2(g, H5_INDEX_NAME, H5_ITER_INC, NULL, walk_cb, &w) >= 0 && w.n == NARR, "walk");
    H5Gclose(g);
    CHECK(H5Fclose(f) >= 0, "close");
    for (int i = 0; i < NARR; i++)
        for (int m = 0; m < 2; m++) {
            snprintf(p, sizeof p, "%s/g/a%d/%s", path, i, m ? ".zattrs" : ".zarray");
            CHECK(strcmp(before[i][m], slurp(p)) == 0, "%s unchanged", p);
        }
    if (consolidated) {
        snprintf(p, sizeof p, "%s/.zmetadata", path);
        const char *zm = slurp(p);
        for (int i = 0; i < NARR; i++) {
            char k[64];
            snprintf(k, sizeof k, "\"g/a%d/.zarray\"", i);
            CHECK(strstr(zm, k) != NULL, ".zmetadata keeps %s", k);
            snprintf(k, sizeof k, "\"g/a%d/.zattrs\"", i);
            CHECK(strstr(zm, k) != NULL, ".zmetadata keeps %s", k);
        }
    }
    f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    REQUIRE(f >= 0, "reopen");
    for (int i = 0; i < NARR; i++) {
        char name[16];
        snprintf(name, sizeof name, "g/a%d", i);
        check_array(f, name, i, "after an untouched write open");
    }
    H5Fclose(f);
}

/* Operations on arrays never opened before them. */
static void test_operations(const char *good, bool consolidated)
{
    char path[4400];
    copy_store_to(good, dir, consolidated ? "ops_cons" : "ops", path, sizeof path);
    hid_t f = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
    REQUIRE(f >= 0, "open for writing");
    CHECK(H5Lmove(f, "g/a0", f, "g/b0", H5P_DEFAULT, H5P_DEFAULT) >= 0, "rename a0");
    CHECK(H5Ocopy(f, "g/a1", f, "g/c1", H5P_DEFAULT, H5P_DEFAULT) >= 0, "copy a1");
    CHECK(H5Adelete_by_name(f, "g/a2", "units", H5P_DEFAULT) >= 0, "delete a2's attribute");
    hid_t as = H5Screate(H5S_SCALAR);
    hid_t na =
        H5Acreate_by_name(f, "g/a3", "extra", H5T_STD_I32LE, as, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    int seven = 7;
    CHECK(na >= 0 && H5Awrite(na, H5T_NATIVE_INT, &seven) >= 0, "a new attribute on a3");
    if (na >= 0)
        H5Aclose(na);
    H5Sclose(as);
    CHECK(H5Ldelete(f, "g/a4", H5P_DEFAULT) >= 0, "delete a4");
    CHECK(H5Fclose(f) >= 0, "close");
    f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    REQUIRE(f >= 0, "reopen");
    check_array(f, "g/b0", 0, "renamed");
    int two = 0;
    hid_t a = H5Aopen_by_name(f, "g/b0", "scale", H5P_DEFAULT, H5P_DEFAULT);
    CHECK(a >= 0 && H5Aread(a, H5T_NATIVE_INT, &two) >= 0 && two == 2, "renamed: scale = %d", two);
    if (a >= 0)
        H5Aclose(a);
    check_array(f, "g/a1", 1, "copy source");
    check_array(f, "g/c1", 1, "copy");
    CHECK(H5Aexists_by_name(f, "g/a2", "units", H5P_DEFAULT) == 0, "a2's attribute is gone");
    H5O_info2_t oi;
    CHECK(H5Oget_info_by_name3(f, "g/a3", &oi, H5O_INFO_NUM_ATTRS, H5P_DEFAULT) >= 0 && oi.num_attrs == 2,
          "a3 has its old attribute and the new one");
    check_array(f, "g/a3", 3, "attribute added");
    CHECK(H5Lexists(f, "g/a4", H5P_DEFAULT) == 0, "a4 is deleted");
    CHECK(H5Lexists(f, "g/a0", H5P_DEFAULT) == 0, "a0 is renamed");
    H5Fclose(f);
}

/* A zip store: the entries of arrays never opened are read from the open archive later;
 * written back whole when the store is opened for writing. */
static void test_zip(void)
{
    char path[4400], cmd[9000];
    snprintf(path, sizeof path, "%s/lazy.zip", dir);
    make_store(path, false);
    hid_t f = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
    REQUIRE(f >= 0, "zip: open for writing");
    hid_t g = H5Gopen2(f, "g", H5P_DEFAULT);
    walk_t w = {0, 0};
    CHECK(H5Literate2(g, H5_INDEX_NAME, H5_ITER_INC, NULL, walk_cb, &w) >= 0 && w.n == NARR, "zip: walk");
    H5Gclose(g);
    check_array(f, "g/a2", 2, "zip");
    CHECK(H5Adelete_by_name(f, "g/a3", "units", H5P_DEFAULT) >= 0, "zip: delete a3's attribute");
    CHECK(H5Fclose(f) >= 0, "zip: close");
    f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    REQUIRE(f >= 0, "zip: reopen");
    for (int i = 0; i < NARR; i++) {
        char name[16];
        snprintf(name, sizeof name, "g/a%d", i);
        if (i != 3)
            check_array(f, name, i, "zip after writing");
    }
    CHECK(H5Aexists_by_name(f, "g/a3", "units", H5P_DEFAULT) == 0, "zip: a3's attribute is gone");
    CHECK(H5Aexists_by_name(f, "g/a0", "scale", H5P_DEFAULT) > 0, "zip: a0 keeps its attributes");
    H5Fclose(f);
    snprintf(cmd, sizeof cmd, "rm -f '%s'", path);
    CHECK(system(cmd) == 0, "remove the archive");
}

int main(void)
{
    char good[4200], good_cons[4200];
    scratch_dir(dir, sizeof dir, "lazy");
    snprintf(good, sizeof good, "%s/good.zarr", dir);
    snprintf(good_cons, sizeof good_cons, "%s/good_cons.zarr", dir);
    make_store(good, false);
    make_store(good_cons, true);
    test_damaged(good);
    test_consolidated(good_cons);
    test_untouched(good, false);
    test_untouched(good_cons, true);
    test_operations(good, false);
    test_operations(good_cons, true);
    test_zip();
    rm_rf(dir);
    TEST_MAIN_END();
}
