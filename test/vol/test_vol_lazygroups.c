/* Groups listed by their NCZarr parent, in a store opened read-only whose root says no group
 * holds extra links ("hdf5_links_below": false), have their .zattrs and members read when
 * first used, not on open (translate/store/ncztr_load.c, load_pending). Nothing of that may
 * show: a walk sees every group; a group whose .zattrs is damaged reports that, naming its
 * key, at each use while the rest stays readable (a store opened for writing still fails
 * on open); references held by a group's attributes name its own members; a store with an
 * extra link has no marker and counts the link; tokens of an earlier open still work. */
#include "vol_test_util.h"

static char dir[4096];

enum { NSUB = 5 };

static void put_int_attr(hid_t loc, const char *name, int v)
{
    hid_t s = H5Screate(H5S_SCALAR);
    hid_t a = H5Acreate2(loc, name, H5T_STD_I32LE, s, H5P_DEFAULT, H5P_DEFAULT);
    REQUIRE(a >= 0 && H5Awrite(a, H5T_NATIVE_INT, &v) >= 0, "write attribute %s", name);
    H5Aclose(a);
    H5Sclose(s);
}

static int get_int_attr(hid_t f, const char *obj, const char *name)
{
    int v = -1;
    hid_t a;
    H5E_BEGIN_TRY
    {
        a = H5Aopen_by_name(f, obj, name, H5P_DEFAULT, H5P_DEFAULT);
    }
    H5E_END_TRY
    if (a >= 0) {
        if (H5Aread(a, H5T_NATIVE_INT, &v) < 0)
            v = -1;
        H5Aclose(a);
    }
    return v;
}

/* g/sub0..sub4 with attribute "n" = i; sub1/inner and sub1's attribute "self", a reference
 * to it; sub2/deep with "n" = 22 and the dataset sub2/v. */
static void make_store(const char *path)
{
    rm_rf(path);
    hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    REQUIRE(f >= 0 && is_nczarr(f), "create %s", path);
    hid_t g = H5Gcreate2(f, "g", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    for (int i = 0; i < NSUB; i++) {
        char name[16];
        snprintf(name, sizeof name, "sub%d", i);
        hid_t s = H5Gcreate2(g, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        REQUIRE(s >= 0, "create %s", name);
        put_int_attr(s, "n", i);
        H5Gclose(s);
    }
    hid_t in = H5Gcreate2(f, "g/sub1/inner", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    H5Gclose(in);
    H5R_ref_t ref;
    hid_t sub1 = H5Gopen2(f, "g/sub1", H5P_DEFAULT), rs = H5Screate(H5S_SCALAR);
    REQUIRE(H5Rcreate_object(f, "/g/sub1/inner", H5P_DEFAULT, &ref) >= 0, "reference to sub1/inner");
    hid_t ra = H5Acreate2(sub1, "self", H5T_STD_REF, rs, H5P_DEFAULT, H5P_DEFAULT);
    REQUIRE(ra >= 0 && H5Awrite(ra, H5T_STD_REF, &ref) >= 0, "write the reference");
    H5Aclose(ra);
    /* the same from sub0, read in the same batch before sub1 */
    ra = H5Acreate_by_name(f, "g/sub0", "sib", H5T_STD_REF, rs, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    REQUIRE(ra >= 0 && H5Awrite(ra, H5T_STD_REF, &ref) >= 0, "write the sibling's reference");
    H5Aclose(ra);
    H5Rdestroy(&ref);
    H5Sclose(rs);
    H5Gclose(sub1);
    hid_t deep = H5Gcreate2(f, "g/sub2/deep", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    put_int_attr(deep, "n", 22);
    H5Gclose(deep);
    hsize_t n = 3;
    int v[3] = {7, 8, 9};
    hid_t sp = H5Screate_simple(1, &n, NULL);
    hid_t d = H5Dcreate2(f, "g/sub2/v", H5T_STD_I32LE, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    REQUIRE(d >= 0 && H5Dwrite(d, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) >= 0, "write g/sub2/v");
    H5Dclose(d);
    H5Sclose(sp);
    H5Gclose(g);
    REQUIRE(H5Fclose(f) >= 0, "close");
}

static herr_t count_cb(hid_t g, const char *name, const H5L_info2_t *info, void *data)
{
    (void)info;
    H5O_info2_t oi;
    if (H5Oget_info_by_name3(g, name, &oi, H5O_INFO_BASIC, H5P_DEFAULT) < 0 || oi.type != H5O_TYPE_GROUP)
        return -1;
    (*(int *)data)++;
    return 0;
}

static herr_t visit_cb(hid_t o, const char *name, const H5O_info2_t *info, void *data)
{
    (void)o;
    (void)name;
    (void)info;
    (*(int *)data)++;
    return 0;
}

static void test_good(const char *good)
{
    char p[4400];
    snprintf(p, sizeof p, "%s/.zattrs", good);
    CHECK(strstr(slurp(p), "\"hdf5_links_below\": false") != NULL, "the root says there are no extra links");
    hid_t f = H5Fopen(good, H5F_ACC_RDONLY, H5P_DEFAULT);
    REQUIRE(f >= 0, "open read-only");
    int n = 0;
    hid_t g = H5Gopen2(f, "g", H5P_DEFAULT);
    CHECK(H5Literate2(g, H5_INDEX_NAME, H5_ITER_INC, NULL, count_cb, &n) >= 0 && n == NSUB,
          "the walk sees %d groups", n);
    H5G_info_t gi;
    CHECK(H5Gget_info_by_name(g, "sub2", &gi, H5P_DEFAULT) >= 0 && gi.nlinks == 2, "sub2 has %llu links",
          (unsigned long long)gi.nlinks);
    H5Gclose(g);
    for (int i = 0; i < NSUB; i++) {
        char name[32];
        snprintf(name, sizeof name, "g/sub%d", i);
        CHECK(get_int_attr(f, name, "n") == i, "%s's attribute n", name);
    }
    CHECK(get_int_attr(f, "g/sub2/deep", "n") == 22, "a group two levels down is read");
    int v[3] = {0};
    errtext_t et;
    CHECK(open_and_read_ints(f, "g/sub2/v", v, &et) >= 0 && v[0] == 7 && v[2] == 9, "g/sub2/v reads: %s",
          et.text);
    /* references held by a group's attribute to its own member, and to a member of a
     * group read after it in the same batch */
    const char *holders[][2] = {{"g/sub1", "self"}, {"g/sub0", "sib"}};
    for (size_t i = 0; i < sizeof holders / sizeof *holders; i++) {
        H5R_ref_t ref;
        hid_t a = H5Aopen_by_name(f, holders[i][0], holders[i][1], H5P_DEFAULT, H5P_DEFAULT);
        CHECK(a >= 0 && H5Aread(a, H5T_STD_REF, &ref) >= 0, "read the reference %s", holders[i][1]);
        if (a < 0)
            continue;
        hid_t o = H5Ropen_object(&ref, H5P_DEFAULT, H5P_DEFAULT);
        char nm[64] = "";
        CHECK(o >= 0 && H5Iget_name(o, nm, sizeof nm) > 0 && strcmp(nm, "/g/sub1/inner") == 0,
              "the reference %s names /g/sub1/inner, got \"%s\"", holders[i][1], nm);
        if (o >= 0)
            H5Oclose(o);
        H5Rdestroy(&ref);
        H5Aclose(a);
    }
    H5O_token_t tok;
    H5O_info2_t oi;
    CHECK(H5Oget_info_by_name3(f, "g/sub2/deep", &oi, H5O_INFO_BASIC, H5P_DEFAULT) >= 0 && oi.rc == 1,
          "g/sub2/deep has one name");
    tok = oi.token;
    CHECK(H5Fclose(f) >= 0, "close");

    /* a token of an earlier open names the same object in a group not read yet */
    f = H5Fopen(good, H5F_ACC_RDONLY, H5P_DEFAULT);
    REQUIRE(f >= 0, "open read-only again");
    hid_t o = H5Oopen_by_token(f, tok);
    char nm[64] = "";
    CHECK(o >= 0 && H5Iget_name(o, nm, sizeof nm) > 0 && strcmp(nm, "/g/sub2/deep") == 0,
          "the token opens /g/sub2/deep, got \"%s\"", nm);
    if (o >= 0)
        H5Oclose(o);
    int nobj = 0;
    CHECK(H5Ovisit3(f, H5_INDEX_NAME, H5_ITER_INC, visit_cb, &nobj, H5O_INFO_BASIC) >= 0 && nobj == 10,
          "H5Ovisit sees %d objects", nobj);
    CHECK(H5Fclose(f) >= 0, "close");
}

/* The error of a damaged group comes at each use of it, naming its key. */
static void expect_group_fails(hid_t f, const char *name, const char *needle)
{
    errtext_t et;
    H5O_info2_t oi;
    herr_t r;
    H5E_BEGIN_TRY
    {
        r = H5Oget_info_by_name3(f, name, &oi, H5O_INFO_NUM_ATTRS, H5P_DEFAULT);
    }
    H5E_END_TRY
    take_errors(&et);
    CHECK(r < 0, "the attributes of %s cannot be counted", name);
    CHECK(nczarr_error_has(&et, needle), "%s: expected an NCZarr error mentioning \"%s\", got:\n%s", name,
          needle, et.text);
    H5G_info_t gi;
    H5E_BEGIN_TRY
    {
        r = H5Gget_info_by_name(f, name, &gi, H5P_DEFAULT);
    }
    H5E_END_TRY
    take_errors(&et);
    CHECK(r < 0 && nczarr_error_has(&et, needle), "H5Gget_info of %s must fail mentioning \"%s\", got:\n%s",
          name, needle, et.text);
}

static void test_damaged(const char *good)
{
    char path[4400], p[4600];
    copy_store_to(good, dir, "damaged", path, sizeof path);
    snprintf(p, sizeof p, "%s/g/sub3/.zattrs", path);
    FILE *fp = fopen(p, "w");
    REQUIRE(fp && fputs("{not json", fp) >= 0 && fclose(fp) == 0, "damage g/sub3/.zattrs");
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    REQUIRE(f >= 0, "a store with a damaged group opens read-only");
    int n = 0;
    hid_t g = H5Gopen2(f, "g", H5P_DEFAULT);
    CHECK(H5Literate2(g, H5_INDEX_NAME, H5_ITER_INC, NULL, count_cb, &n) >= 0 && n == NSUB,
          "the walk sees %d groups", n);
    H5Gclose(g);
    expect_group_fails(f, "g/sub3", "g/sub3/.zattrs");
    CHECK(get_int_attr(f, "g/sub4", "n") == 4, "the group after it is readable");
    CHECK(get_int_attr(f, "g/sub0", "n") == 0, "the group before it is readable");
    expect_group_fails(f, "g/sub3", "g/sub3/.zattrs"); /* the same again */
    CHECK(H5Fclose(f) >= 0, "close");
    expect_open_error(path, H5F_ACC_RDWR, "g/sub3", "a damaged group, opened for writing");
}

/* An extra link anywhere: the root has no marker, and the link is counted at once. */
static void test_links(const char *good)
{
    char path[4400], p[4600];
    copy_store_to(good, dir, "links", path, sizeof path);
    hid_t f = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
    REQUIRE(f >= 0, "open for writing");
    CHECK(H5Lcreate_hard(f, "/g/sub0", f, "/g/sub4/again", H5P_DEFAULT, H5P_DEFAULT) >= 0, "extra link");
    CHECK(H5Fclose(f) >= 0, "close");
    snprintf(p, sizeof p, "%s/.zattrs", path);
    CHECK(strstr(slurp(p), "hdf5_links_below") == NULL, "the root no longer says there are no extra links");
    f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    REQUIRE(f >= 0, "open read-only");
    H5O_info2_t oi;
    CHECK(H5Oget_info_by_name3(f, "g/sub0", &oi, H5O_INFO_BASIC, H5P_DEFAULT) >= 0 && oi.rc == 2,
          "g/sub0 has two names, got %u", oi.rc);
    CHECK(H5Fclose(f) >= 0, "close");
}

int main(void)
{
    char good[4200];
    scratch_dir(dir, sizeof dir, "lazygroups");
    snprintf(good, sizeof good, "%s/good.zarr", dir);
    make_store(good);
    test_good(good);
    test_damaged(good);
    test_links(good);
    rm_rf(dir);
    TEST_MAIN_END();
}
