/* Extra hard links (H5Lcreate_hard, H5Lcopy): further names of a group or dataset, kept in
 * their group's "_nczarr_group.hdf5_links". Lookup through an alias reaches the object;
 * iteration lists aliases as hard links with their own creation order; H5Oget_info counts
 * names; deleting an alias removes only the name; deleting an object's first name while
 * another name outside it remains is refused; cycles do not make walks loop; aliases
 * survive reopening; pure Zarr refuses them; an alias whose object is gone reports it. */
#include "vol_test_util.h"

#include <stdint.h>

static char dir[4096];

static hid_t create_store(const char *tag, char *path, size_t len)
{
    return create_store_in(dir, tag, path, len);
}

static H5O_token_t token_of(hid_t loc, const char *name)
{
    H5O_info2_t oi;
    memset(&oi, 0, sizeof oi);
    if (H5Oget_info_by_name3(loc, name, &oi, H5O_INFO_BASIC, H5P_DEFAULT) < 0)
        fprintf(stderr, "H5Oget_info_by_name3(%s) failed\n", name);
    return oi.token;
}

static unsigned rc_of(hid_t loc, const char *name)
{
    H5O_info2_t oi;
    memset(&oi, 0, sizeof oi);
    H5Oget_info_by_name3(loc, name, &oi, H5O_INFO_BASIC, H5P_DEFAULT);
    return oi.rc;
}

static bool same_token(hid_t loc, const char *a, const char *b)
{
    H5O_token_t ta = token_of(loc, a), tb = token_of(loc, b);
    int cmp = 1;
    return H5Otoken_cmp(loc, &ta, &tb, &cmp) >= 0 && cmp == 0;
}

typedef struct names {
    char v[16][32];
    int64_t corder[16];
    int n;
} names;

static herr_t collect(hid_t g, const char *name, const H5L_info2_t *li, void *ud)
{
    (void)g;
    names *nm = ud;
    if (nm->n < 16 && li->type == H5L_TYPE_HARD) {
        snprintf(nm->v[nm->n], sizeof nm->v[0], "%s", name);
        nm->corder[nm->n] = li->corder;
        nm->n++;
    }
    return 0;
}

static herr_t count_obj(hid_t o, const char *name, const H5O_info2_t *oi, void *ud)
{
    (void)o;
    (void)name;
    (void)oi;
    (*(int *)ud)++;
    return 0;
}

/* ------------------------------------------------------------------ the basics */

static void test_basics(void)
{
    char p[4300];
    errtext_t et;
    hid_t f = create_store("basic", p, sizeof p);
    hsize_t n = 3;
    int v[3] = {4, 5, 6}, r[3] = {0};
    hid_t gcpl = H5Pcreate(H5P_GROUP_CREATE);
    H5Pset_link_creation_order(gcpl, H5P_CRT_ORDER_TRACKED | H5P_CRT_ORDER_INDEXED);
    hid_t g = H5Gcreate2(f, "g", H5P_DEFAULT, gcpl, H5P_DEFAULT);
    hid_t s = H5Screate_simple(1, &n, NULL);
    hid_t d = H5Dcreate2(g, "data", H5T_NATIVE_INT, s, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    REQUIRE(g >= 0 && d >= 0, "setup");
    CHECK(H5Dwrite(d, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) >= 0, "write");
    H5Dclose(d);
    hid_t sub = H5Gcreate2(g, "sub", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    H5Gclose(sub);
    /* a second name for a dataset in another group, and one for a group */
    CHECK(H5Lcreate_hard(g, "data", f, "data_alias", H5P_DEFAULT, H5P_DEFAULT) >= 0, "alias of a dataset");
    CHECK(H5Lcreate_hard(f, "g/sub", g, "sub2", H5P_DEFAULT, H5P_DEFAULT) >= 0, "alias of a group");
    /* a cycle: a name for g inside g */
    CHECK(H5Lcreate_hard(g, ".", g, "self", H5P_DEFAULT, H5P_DEFAULT) >= 0, "alias of the group itself");
    /* an existing name is refused */
    H5E_BEGIN_TRY
    {
        CHECK(H5Lcreate_hard(g, "data", g, "sub", H5P_DEFAULT, H5P_DEFAULT) < 0, "an existing name");
    }
    H5E_END_TRY
    take_errors(&et);

    /* lookup through the aliases */
    hid_t da = H5Dopen2(f, "data_alias", H5P_DEFAULT);
    CHECK(da >= 0 && H5Dread(da, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, r) >= 0 && r[2] == 6,
          "read through the alias");
    if (da >= 0)
        H5Dclose(da);
    hid_t ga = H5Gopen2(f, "g/self/self/sub2", H5P_DEFAULT);
    CHECK(ga >= 0, "open a group through a chain of aliases");
    if (ga >= 0)
        H5Gclose(ga);
    hid_t oa = H5Oopen(f, "/g/self/data", H5P_DEFAULT);
    CHECK(oa >= 0, "H5Oopen through an alias");
    if (oa >= 0)
        H5Oclose(oa);
    CHECK(same_token(f, "data_alias", "g/data"), "an alias has its object's token");
    CHECK(same_token(f, "g/self", "g"), "the cycle has g's token");
    CHECK(rc_of(f, "g/data") == 2 && rc_of(f, "g") == 2 && rc_of(f, "g/sub") == 2, "rc counts names");

    /* iteration: aliases are hard links with their own creation order */
    names nm = {0};
    hsize_t idx = 0;
    CHECK(H5Literate2(g, H5_INDEX_CRT_ORDER, H5_ITER_INC, &idx, collect, &nm) >= 0, "iterate");
    CHECK(nm.n == 4 && !strcmp(nm.v[0], "data") && !strcmp(nm.v[1], "sub") && !strcmp(nm.v[2], "sub2") &&
              !strcmp(nm.v[3], "self") && nm.corder[3] == 3,
          "creation order: data sub sub2 self, got %d", nm.n);
    memset(&nm, 0, sizeof nm);
    idx = 0;
    CHECK(H5Literate2(g, H5_INDEX_NAME, H5_ITER_INC, &idx, collect, &nm) >= 0, "iterate by name");
    CHECK(nm.n == 4 && !strcmp(nm.v[0], "data") && !strcmp(nm.v[1], "self") && !strcmp(nm.v[2], "sub"),
          "name order");
    H5G_info_t gi;
    CHECK(H5Gget_info(g, &gi) >= 0 && gi.nlinks == 4 && gi.max_corder == 4, "H5Gget_info counts aliases");
    H5L_info2_t li;
    CHECK(H5Lget_info_by_idx2(g, ".", H5_INDEX_CRT_ORDER, H5_ITER_INC, 3, &li, H5P_DEFAULT) >= 0 &&
              li.type == H5L_TYPE_HARD && li.corder == 3,
          "H5Lget_info_by_idx of an alias");

    /* recursive walks end despite the cycle */
    int count = 0;
    CHECK(H5Ovisit3(f, H5_INDEX_NAME, H5_ITER_INC, count_obj, &count, H5O_INFO_BASIC) >= 0 && count == 4,
          "H5Ovisit sees each object once (/, g, g/data, g/sub), got %d", count);
    memset(&nm, 0, sizeof nm);
    CHECK(H5Lvisit2(f, H5_INDEX_NAME, H5_ITER_INC, collect, &nm) >= 0 && nm.n == 6,
          "H5Lvisit sees every link once, got %d", nm.n);

    /* deleting the first name while another remains outside is refused */
    H5E_BEGIN_TRY
    {
        CHECK(H5Ldelete(g, "data", H5P_DEFAULT) < 0, "delete of a first name with an alias elsewhere");
    }
    H5E_END_TRY
    take_errors(&et);
    CHECK(nczarr_error_has(&et, "data_alias"), "the refusal names the alias, got:\n%s", et.text);

    /* H5Lmove and H5Lcopy of an alias move/copy the name */
    CHECK(H5Lmove(f, "data_alias", g, "moved", H5P_DEFAULT, H5P_DEFAULT) >= 0, "move an alias");
    CHECK(H5Lcopy(g, "moved", f, "copied", H5P_DEFAULT, H5P_DEFAULT) >= 0, "copy an alias");
    CHECK(same_token(f, "copied", "g/data") && rc_of(f, "g/data") == 3, "the copy names the same dataset");
    /* H5Ocopy of a group with a cycle: the copy's alias names the copy */
    CHECK(H5Ocopy(f, "g", f, "gcopy", H5P_DEFAULT, H5P_DEFAULT) >= 0, "H5Ocopy of a group with a cycle");
    CHECK(same_token(f, "gcopy/self", "gcopy") && same_token(f, "gcopy/moved", "gcopy/data"),
          "aliases in the copy name the copied objects");
    /* deleting aliases removes only names */
    CHECK(H5Ldelete(f, "copied", H5P_DEFAULT) >= 0 && H5Ldelete(g, "moved", H5P_DEFAULT) >= 0,
          "delete the aliases");
    CHECK(rc_of(f, "g/data") == 1, "one name left");
    H5Gclose(g);
    H5Sclose(s);
    H5Pclose(gcpl);
    CHECK(H5Fclose(f) >= 0, "close");

    /* reopen: the aliases persist */
    f = H5Fopen(p, H5F_ACC_RDWR, H5P_DEFAULT);
    REQUIRE(f >= 0, "reopen");
    CHECK(same_token(f, "g/self", "g") && same_token(f, "g/sub2", "g/sub"), "aliases persist");
    CHECK(H5Lexists(f, "copied", H5P_DEFAULT) == 0, "deleted aliases stay deleted");
    /* a renamed object keeps its aliases, also across reopening */
    CHECK(H5Lmove(f, "g/sub", f, "renamed", H5P_DEFAULT, H5P_DEFAULT) >= 0, "rename the target");
    CHECK(same_token(f, "g/sub2", "renamed"), "the alias follows the rename");
    /* deleting a tree that holds its own cycle works */
    CHECK(H5Ldelete(f, "gcopy", H5P_DEFAULT) >= 0, "delete a tree with a cycle inside");
    CHECK(H5Fclose(f) >= 0, "close");
    f = H5Fopen(p, H5F_ACC_RDONLY, H5P_DEFAULT);
    REQUIRE(f >= 0, "reopen");
    CHECK(same_token(f, "g/sub2", "renamed") && rc_of(f, "renamed") == 2, "the alias followed the rename");
    CHECK(H5Lexists(f, "gcopy", H5P_DEFAULT) == 0, "the deleted tree is gone");
    H5Fclose(f);
}

/* ------------------------------------------------------------------ pure Zarr */

static void test_pure_zarr(void)
{
    char p[4300], url[4400];
    errtext_t et;
    snprintf(p, sizeof p, "%s/pure.zarr", dir);
    snprintf(url, sizeof url, "file://%s#mode=zarr,file", p);
    hid_t f = H5Fcreate(url, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    REQUIRE(f >= 0, "create a pure Zarr store");
    hid_t g = H5Gcreate2(f, "g", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    herr_t e;
    H5E_BEGIN_TRY
    {
        e = H5Lcreate_hard(f, "g", f, "again", H5P_DEFAULT, H5P_DEFAULT);
    }
    H5E_END_TRY
    take_errors(&et);
    CHECK(e < 0 && nczarr_error_has(&et, "not representable in pure Zarr"),
          "pure Zarr must refuse a second name, got:\n%s", et.text);
    H5Gclose(g);
    H5Fclose(f);
}

/* ------------------------------------------------------------------ damaged */

static void test_dangling(void)
{
    char p[4300], zattrs[4400], cmd[9000];
    errtext_t et;
    hid_t f = create_store("dangling", p, sizeof p);
    hid_t g = H5Gcreate2(f, "g", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    CHECK(H5Lcreate_hard(f, "g", f, "alias", H5P_DEFAULT, H5P_DEFAULT) >= 0, "alias");
    H5Gclose(g);
    H5Fclose(f);
    /* damage: the alias now names a group that does not exist */
    snprintf(zattrs, sizeof zattrs, "%s/.zattrs", p);
    snprintf(cmd, sizeof cmd, "sed -i 's#\"alias\": \"/g\"#\"alias\": \"/nowhere\"#' '%s'", zattrs);
    REQUIRE(system(cmd) == 0, "edit .zattrs");
    const char *text = slurp(zattrs);
    REQUIRE(text && strstr(text, "/nowhere"), "the store was damaged as intended");
    f = H5Fopen(p, H5F_ACC_RDWR, H5P_DEFAULT);
    REQUIRE(f >= 0, "a store with a dangling alias still opens");
    hid_t o;
    H5E_BEGIN_TRY
    {
        o = H5Oopen(f, "alias", H5P_DEFAULT);
    }
    H5E_END_TRY
    take_errors(&et);
    CHECK(o < 0 && nczarr_error_has(&et, "/nowhere") && nczarr_error_has(&et, "does not exist"),
          "opening a dangling alias must say why, got:\n%s", et.text);
    if (o >= 0)
        H5Oclose(o);
    names nm = {0};
    hsize_t idx = 0;
    CHECK(H5Literate2(f, H5_INDEX_NAME, H5_ITER_INC, &idx, collect, &nm) >= 0 && nm.n == 2,
          "iteration lists the dangling alias");
    int count = 0;
    herr_t e;
    H5E_BEGIN_TRY
    {
        e = H5Ovisit3(f, H5_INDEX_NAME, H5_ITER_INC, count_obj, &count, H5O_INFO_BASIC);
    }
    H5E_END_TRY
    take_errors(&et);
    CHECK(e < 0 && nczarr_error_has(&et, "/nowhere"), "H5Ovisit reports the dangling alias, got:\n%s",
          et.text);
    CHECK(H5Ldelete(f, "alias", H5P_DEFAULT) >= 0, "a dangling alias can be deleted");
    CHECK(H5Fclose(f) >= 0, "close");
    f = H5Fopen(p, H5F_ACC_RDONLY, H5P_DEFAULT);
    CHECK(f >= 0 && H5Lexists(f, "alias", H5P_DEFAULT) == 0, "the dangling alias is gone");
    if (f >= 0)
        H5Fclose(f);

    /* a malformed hdf5_links refuses to open, naming the key */
    f = create_store("badlinks", p, sizeof p);
    H5Fclose(f);
    snprintf(zattrs, sizeof zattrs, "%s/.zattrs", p);
    snprintf(cmd, sizeof cmd,
             "sed -i 's#\"_nczarr_group\": {#\"_nczarr_group\": {\"hdf5_links\": [1], #' '%s'", zattrs);
    REQUIRE(system(cmd) == 0, "edit .zattrs");
    expect_open_error(p, H5F_ACC_RDONLY, "hdf5_links", "malformed hdf5_links");
}

int main(void)
{
    scratch_dir(dir, sizeof dir, "hardlinks");
    test_basics();
    test_pure_zarr();
    test_dangling();
    rm_rf(dir);
    TEST_MAIN_END();
}
