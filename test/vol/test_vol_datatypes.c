/* Committed datatypes and soft/external links in a store (issue [10]):
 *  - H5Tcommit2 of a compound, an enum, a bitfield and a variable-length string type,
 *    H5Tcommit_anon + H5Olink (h5repack's way), a second hard link to one; H5Topen2 gives
 *    the same types back (H5Tequal), committed; H5Oget_info says NAMED_DATATYPE; attributes
 *    on a datatype; a dataset created with a committed type reads and writes; all of it
 *    again after reopening; H5Dopen of a datatype and H5Topen2 of a dataset refused;
 *    pure Zarr (mode=zarr) refuses a commit, naming why; one is left open at exit;
 *  - soft links (absolute, relative, dangling) and an external link: H5Lget_info2 types and
 *    value sizes, H5Lget_val, H5Oopen through a soft link, H5Lvisit2 does not go through
 *    them, H5Oopen through the external link fails naming the file; all kept on reopen; a
 *    malformed link entry refuses to open, naming the key. */
#include "vol_test_util.h"

static char dir[4096];

static hid_t compound_type(void)
{
    hid_t t = H5Tcreate(H5T_COMPOUND, 16);
    H5Tinsert(t, "a", 0, H5T_NATIVE_INT);
    H5Tinsert(t, "b", 8, H5T_NATIVE_DOUBLE);
    return t;
}

static hid_t enum_type(void)
{
    hid_t t = H5Tenum_create(H5T_NATIVE_SHORT);
    short v = 1;
    H5Tenum_insert(t, "ONE", &v);
    v = 7;
    H5Tenum_insert(t, "SEVEN", &v);
    return t;
}

static hid_t vstr_type(void)
{
    hid_t t = H5Tcopy(H5T_C_S1);
    H5Tset_size(t, H5T_VARIABLE);
    return t;
}

static bool opens_as(hid_t f, const char *name, hid_t want)
{
    hid_t t = H5Topen2(f, name, H5P_DEFAULT);
    bool ok = t >= 0 && H5Tcommitted(t) > 0 && H5Tequal(t, want) > 0;
    if (t >= 0)
        H5Tclose(t);
    return ok;
}

static H5O_type_t otype(hid_t f, const char *name)
{
    H5O_info2_t oi;
    if (H5Oget_info_by_name3(f, name, &oi, H5O_INFO_BASIC, H5P_DEFAULT) < 0)
        return H5O_TYPE_UNKNOWN;
    return oi.type;
}

static void check_types(hid_t f, const char *when)
{
    hid_t c = compound_type(), e = enum_type(), s = vstr_type();
    CHECK(opens_as(f, "types/pair", c) && opens_as(f, "types/color", e) &&
              opens_as(f, "types/bits", H5T_STD_B16LE) && opens_as(f, "types/text", s) &&
              opens_as(f, "anon", c) && opens_as(f, "types/pair_again", c),
          "%s: every committed type opens as itself", when);
    CHECK(otype(f, "types/pair") == H5O_TYPE_NAMED_DATATYPE && otype(f, "anon") == H5O_TYPE_NAMED_DATATYPE,
          "%s: H5Oget_info says NAMED_DATATYPE", when);
    hid_t t = H5Topen2(f, "types/pair", H5P_DEFAULT);
    int v = 0;
    hid_t a = t >= 0 ? H5Aopen(t, "version", H5P_DEFAULT) : H5I_INVALID_HID;
    CHECK(a >= 0 && H5Aread(a, H5T_NATIVE_INT, &v) >= 0 && v == 3, "%s: an attribute of a datatype", when);
    if (a >= 0)
        H5Aclose(a);
    if (t >= 0)
        H5Tclose(t);
    struct {
        int a;
        double b;
    } rec[2] = {{0, 0}, {0, 0}};
    hid_t d = H5Dopen2(f, "data", H5P_DEFAULT);
    CHECK(d >= 0 && H5Dread(d, c, H5S_ALL, H5S_ALL, H5P_DEFAULT, rec) >= 0 && rec[1].a == 2 &&
              rec[1].b == 2.5,
          "%s: a dataset of a committed type", when);
    if (d >= 0)
        H5Dclose(d);
    errtext_t et;
    hid_t bad;
    H5E_BEGIN_TRY
    {
        bad = H5Dopen2(f, "types/pair", H5P_DEFAULT);
    }
    H5E_END_TRY
    take_errors(&et);
    CHECK(bad < 0 && nczarr_error_has(&et, "committed datatype"), "%s: H5Dopen2 of a datatype refused:\n%s",
          when, et.text);
    H5E_BEGIN_TRY
    {
        bad = H5Topen2(f, "data", H5P_DEFAULT);
    }
    H5E_END_TRY
    take_errors(&et);
    CHECK(bad < 0 && nczarr_error_has(&et, "not a committed datatype"),
          "%s: H5Topen2 of a dataset refused:\n%s", when, et.text);
    H5Tclose(c);
    H5Tclose(e);
    H5Tclose(s);
}

static herr_t count_links(hid_t g, const char *name, const H5L_info2_t *li, void *ud)
{
    (void)g;
    (void)li;
    (void)name;
    (*(int *)ud)++;
    return 0;
}

static void check_links(hid_t f, const char *when)
{
    H5L_info2_t li;
    char val[64] = "";
    CHECK(H5Lget_info2(f, "soft_abs", &li, H5P_DEFAULT) >= 0 && li.type == H5L_TYPE_SOFT &&
              li.u.val_size == strlen("/types/pair") + 1 &&
              H5Lget_val(f, "soft_abs", val, sizeof val, H5P_DEFAULT) >= 0 && !strcmp(val, "/types/pair"),
          "%s: a soft link's info and value", when);
    CHECK(otype(f, "soft_abs") == H5O_TYPE_NAMED_DATATYPE &&
              otype(f, "types/soft_rel") == H5O_TYPE_NAMED_DATATYPE,
          "%s: H5Oget_info through absolute and relative soft links", when);
    CHECK(H5Lexists(f, "dangling", H5P_DEFAULT) > 0 && otype(f, "dangling") == H5O_TYPE_UNKNOWN,
          "%s: a dangling soft link exists and names nothing", when);
    unsigned char ev[64];
    const char *file = NULL, *path = NULL;
    CHECK(H5Lget_info2(f, "ext", &li, H5P_DEFAULT) >= 0 && li.type == H5L_TYPE_EXTERNAL &&
              H5Lget_val(f, "ext", ev, sizeof ev, H5P_DEFAULT) >= 0 &&
              H5Lunpack_elink_val(ev, li.u.val_size, NULL, &file, &path) >= 0 && !strcmp(file, "other.h5") &&
              !strcmp(path, "/x"),
          "%s: an external link's info and value", when);
    errtext_t et;
    hid_t o;
    H5E_BEGIN_TRY
    {
        o = H5Oopen(f, "ext", H5P_DEFAULT);
    }
    H5E_END_TRY
    take_errors(&et);
    CHECK(o < 0 && nczarr_error_has(&et, "other.h5"),
          "%s: opening through an external link fails naming the file:\n%s", when, et.text);
    int n = 0;
    CHECK(H5Lvisit2(f, H5_INDEX_NAME, H5_ITER_INC, count_links, &n) >= 0 && n == 12,
          "%s: H5Lvisit2 lists every link once, through none of the soft ones (%d)", when, n);
}

static void test_store(void)
{
    char p[4200];
    hid_t f = create_store_in(dir, "types", p, sizeof p);
    REQUIRE(f >= 0, "create");
    hid_t g = H5Gcreate2(f, "types", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    hid_t c = compound_type(), e = enum_type(), b = H5Tcopy(H5T_STD_B16LE), s = vstr_type();
    CHECK(H5Tcommit2(g, "pair", c, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT) >= 0 &&
              H5Tcommit2(g, "color", e, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT) >= 0 &&
              H5Tcommit2(g, "bits", b, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT) >= 0 &&
              H5Tcommit2(g, "text", s, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT) >= 0,
          "H5Tcommit2 of a compound, an enum, a bitfield and a string type");
    CHECK(H5Tcommitted(c) > 0, "the committed type is committed");
    int three = 3;
    hid_t s0 = H5Screate(H5S_SCALAR);
    hid_t a = H5Acreate2(c, "version", H5T_NATIVE_INT, s0, H5P_DEFAULT, H5P_DEFAULT);
    CHECK(a >= 0 && H5Awrite(a, H5T_NATIVE_INT, &three) >= 0, "an attribute on a committed datatype");
    H5Aclose(a);
    hid_t anon = compound_type();
    CHECK(H5Tcommit_anon(f, anon, H5P_DEFAULT, H5P_DEFAULT) >= 0 &&
              H5Lcreate_hard(anon, ".", f, "anon", H5P_DEFAULT, H5P_DEFAULT) >= 0,
          "H5Tcommit_anon, then a name (H5Lcreate_hard(type, \".\", ...) as h5repack does)");
    CHECK(H5Lcreate_hard(g, "pair", g, "pair_again", H5P_DEFAULT, H5P_DEFAULT) >= 0,
          "a second name of a committed datatype");
    hsize_t two = 2;
    hid_t s2 = H5Screate_simple(1, &two, NULL);
    hid_t d = H5Dcreate2(f, "data", c, s2, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    struct {
        int a;
        double b;
    } rec[2] = {{1, 1.5}, {2, 2.5}};
    CHECK(d >= 0 && H5Dwrite(d, c, H5S_ALL, H5S_ALL, H5P_DEFAULT, rec) >= 0, "a dataset of a committed type");
    H5Dclose(d);
    CHECK(H5Lcreate_soft("/types/pair", f, "soft_abs", H5P_DEFAULT, H5P_DEFAULT) >= 0 &&
              H5Lcreate_soft("pair", g, "soft_rel", H5P_DEFAULT, H5P_DEFAULT) >= 0 &&
              H5Lcreate_soft("/nowhere", f, "dangling", H5P_DEFAULT, H5P_DEFAULT) >= 0 &&
              H5Lcreate_external("other.h5", "/x", f, "ext", H5P_DEFAULT, H5P_DEFAULT) >= 0,
          "soft and external links");
    check_types(f, "open");
    check_links(f, "open");
    H5Tclose(anon);
    H5Tclose(c);
    H5Tclose(e);
    H5Tclose(b);
    H5Tclose(s);
    H5Sclose(s2);
    H5Sclose(s0);
    H5Gclose(g);
    CHECK(H5Fclose(f) >= 0, "close");
    f = H5Fopen(p, H5F_ACC_RDONLY, H5P_DEFAULT);
    REQUIRE(f >= 0, "reopen");
    check_types(f, "reopened");
    check_links(f, "reopened");
    H5Fclose(f);
    f = H5Fopen(p, H5F_ACC_RDWR, H5P_DEFAULT);
    CHECK(f >= 0 && H5Ldelete(f, "types/color", H5P_DEFAULT) >= 0 &&
              H5Ldelete(f, "dangling", H5P_DEFAULT) >= 0,
          "a committed datatype and a soft link deleted");
    if (f >= 0)
        H5Fclose(f);
    f = H5Fopen(p, H5F_ACC_RDONLY, H5P_DEFAULT);
    CHECK(f >= 0 && H5Lexists(f, "types/color", H5P_DEFAULT) == 0 &&
              H5Lexists(f, "dangling", H5P_DEFAULT) == 0 && H5Lexists(f, "types/pair", H5P_DEFAULT) > 0,
          "deletions kept");
    /* left open on purpose, with its file: the library closes both when it shuts down at
     * exit (HDF5 then looks behind the datatype's id; this used to crash) */
    CHECK(H5Topen2(f, "types/pair", H5P_DEFAULT) >= 0, "a committed datatype left open at exit");
}

static void test_pure_zarr(void)
{
    char p[4300], url[4400];
    snprintf(p, sizeof p, "%s/pure.zarr", dir);
    snprintf(url, sizeof url, "file://%s#mode=zarr,file", p);
    hid_t f = H5Fcreate(url, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    REQUIRE(f >= 0, "create a pure Zarr store");
    hid_t t = H5Tcopy(H5T_NATIVE_INT);
    errtext_t et;
    herr_t r;
    H5E_BEGIN_TRY
    {
        r = H5Tcommit2(f, "t", t, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    }
    H5E_END_TRY
    take_errors(&et);
    CHECK(r < 0 && nczarr_error_has(&et, "mode=zarr"), "mode=zarr refuses a committed datatype:\n%s",
          et.text);
    H5Tclose(t);
    H5Fclose(f);
}

/* A malformed soft or external link entry in "_nczarr_group.hdf5_links" refuses to open,
 * naming the key. */
static void test_bad_links(void)
{
    char p[4200], cmd[9000];
    const char *bad[] = {"{\"soft\": 5}", "{\"external\": {\"file\": \"x.h5\"}}"};
    for (int i = 0; i < 2; i++) {
        hid_t f = create_store_in(dir, i ? "badext" : "badsoft", p, sizeof p);
        H5Fclose(f);
        snprintf(
            cmd, sizeof cmd,
            "sed -i 's#\"_nczarr_group\": {#\"_nczarr_group\": {\"hdf5_links\": {\"l\": %s}, #' '%s/.zattrs'",
            bad[i], p);
        REQUIRE(system(cmd) == 0, "edit .zattrs");
        expect_open_error(p, H5F_ACC_RDONLY, "hdf5_links",
                          i ? "an external link without its path" : "a soft link whose value is a number");
    }
}

int main(void)
{
    scratch_dir(dir, sizeof dir, "datatypes");
    test_store();
    test_pure_zarr();
    test_bad_links();
    rm_rf(dir);
    TEST_MAIN_END();
}
