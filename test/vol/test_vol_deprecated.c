/* HDF5's deprecated group and attribute calls that HDF5 hands a connector as native
 * operations, answered by the connector for a store as HDF5 answers them for a native file
 * (the same program runs on both and the answers are compared):
 *  - H5Giterate (ITERATE_OLD): the links in name order from an index, the callback's group
 *    id, the index after the last link handed over, a callback that stops the walk;
 *  - H5Gget_objinfo (GET_OBJINFO): the type of a group, a dataset and a committed datatype,
 *    the hard link count, a soft and an external link not followed (H5G_LINK, H5G_UDLINK and
 *    the value's length) and followed, objno the object's token in a store;
 *  - H5Aiterate1 (ATTR_ITERATE_OLD): attributes in creation order from an index, the index
 *    written back, the caller's location id handed to the callback. */
#include "ncztr_h5compat.h"
#include "vol_test_util.h"

static char dir[4096];

typedef struct walk {
    char names[16][32];
    int n, stop_at;
    hid_t want_loc; /* H5Aiterate1: the id the callback must get (-1: any) */
    int bad_loc;
} walk;

static herr_t group_cb(hid_t gid, const char *name, void *ud)
{
    walk *w = ud;
    if (H5Iget_type(gid) != H5I_GROUP)
        w->bad_loc = 1;
    snprintf(w->names[w->n % 16], sizeof w->names[0], "%s", name);
    w->n++;
    return w->stop_at && w->n == w->stop_at ? 1 : 0;
}

static herr_t attr_cb(hid_t loc, const char *name, void *ud)
{
    walk *w = ud;
    if (w->want_loc >= 0 && loc != w->want_loc)
        w->bad_loc = 1;
    snprintf(w->names[w->n % 16], sizeof w->names[0], "%s", name);
    w->n++;
    return 0;
}

/* What one file answers, for comparing a store with a native file. */
typedef struct answers {
    char it_all[256], it_from1[256], attrs_from1[256];
    int it_stop_ret, it_stop_idx, it_all_idx, attr_idx, bad_loc;
    H5G_stat_t st_g, st_d, st_t, st_soft_nofollow, st_soft_follow, st_ext_nofollow, st_hard2;
} answers;

static void joined(const walk *w, char *out, size_t n)
{
    out[0] = '\0';
    for (int i = 0; i < w->n && i < 16; i++)
        snprintf(out + strlen(out), n - strlen(out), "%s%s", i ? "," : "", w->names[i]);
}

static void make(hid_t f)
{
    hid_t g = H5Gcreate2(f, "g", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    hid_t s = H5Screate(H5S_SCALAR);
    /* created out of name order, so that name order and creation order differ */
    const char *names[] = {"c", "a", "b"};
    for (int i = 0; i < 3; i++) {
        hid_t d = H5Dcreate2(g, names[i], H5T_NATIVE_INT, s, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        REQUIRE(d >= 0, "dataset %s", names[i]);
        H5Dclose(d);
    }
    hid_t t = H5Tcopy(H5T_NATIVE_DOUBLE);
    REQUIRE(H5Tcommit2(f, "t", t, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT) >= 0, "commit a datatype");
    H5Tclose(t);
    REQUIRE(H5Lcreate_soft("/g/a", f, "soft", H5P_DEFAULT, H5P_DEFAULT) >= 0, "soft link");
    REQUIRE(H5Lcreate_external("other.h5", "/x", f, "ext", H5P_DEFAULT, H5P_DEFAULT) >= 0, "external link");
    REQUIRE(H5Lcreate_hard(g, "b", f, "b2", H5P_DEFAULT, H5P_DEFAULT) >= 0, "second hard link");
    hid_t d = H5Dopen2(g, "a", H5P_DEFAULT);
    int v = 1;
    const char *an[] = {"z", "x", "y"};
    for (int i = 0; i < 3; i++) {
        hid_t a = H5Acreate2(d, an[i], H5T_NATIVE_INT, s, H5P_DEFAULT, H5P_DEFAULT);
        REQUIRE(a >= 0 && H5Awrite(a, H5T_NATIVE_INT, &v) >= 0, "attribute %s", an[i]);
        H5Aclose(a);
    }
    H5Dclose(d);
    H5Sclose(s);
    H5Gclose(g);
}

static void ask(hid_t f, answers *a)
{
    memset(a, 0, sizeof *a);
    walk w = {0};
    int idx = 0;
    CHECK(H5Giterate(f, "g", &idx, group_cb, &w) == 0, "H5Giterate");
    joined(&w, a->it_all, sizeof a->it_all);
    a->it_all_idx = idx;
    a->bad_loc |= w.bad_loc;
    memset(&w, 0, sizeof w);
    idx = 1;
    CHECK(H5Giterate(f, "/g", &idx, group_cb, &w) == 0, "H5Giterate from 1");
    joined(&w, a->it_from1, sizeof a->it_from1);
    memset(&w, 0, sizeof w);
    w.stop_at = 2;
    idx = 0;
    a->it_stop_ret = H5Giterate(f, "g", &idx, group_cb, &w);
    a->it_stop_idx = idx;

    CHECK(H5Gget_objinfo(f, "g", 1, &a->st_g) >= 0, "H5Gget_objinfo group");
    CHECK(H5Gget_objinfo(f, "g/a", 1, &a->st_d) >= 0, "H5Gget_objinfo dataset");
    CHECK(H5Gget_objinfo(f, "t", 1, &a->st_t) >= 0, "H5Gget_objinfo datatype");
    CHECK(H5Gget_objinfo(f, "soft", 0, &a->st_soft_nofollow) >= 0, "H5Gget_objinfo soft, not followed");
    CHECK(H5Gget_objinfo(f, "soft", 1, &a->st_soft_follow) >= 0, "H5Gget_objinfo soft, followed");
    CHECK(H5Gget_objinfo(f, "ext", 0, &a->st_ext_nofollow) >= 0, "H5Gget_objinfo external, not followed");
    CHECK(H5Gget_objinfo(f, "b2", 1, &a->st_hard2) >= 0, "H5Gget_objinfo second hard link");

    hid_t d = H5Dopen2(f, "g/a", H5P_DEFAULT);
    memset(&w, 0, sizeof w);
    w.want_loc = d;
    unsigned an = 1;
    CHECK(H5Aiterate1(d, &an, attr_cb, &w) == 0, "H5Aiterate1");
    joined(&w, a->attrs_from1, sizeof a->attrs_from1);
    a->attr_idx = (int)an;
    a->bad_loc |= w.bad_loc;
    H5Dclose(d);
}

/* The fields a store answers as a native file does (not objno/fileno: addresses and file
 * numbers are the file's own; not mtime and the object header figures: a store has none). */
static void same_stat(const char *what, const H5G_stat_t *s, const H5G_stat_t *n)
{
    CHECK(s->type == n->type, "%s: type %d, native %d", what, (int)s->type, (int)n->type);
    CHECK(s->nlink == n->nlink, "%s: nlink %u, native %u", what, s->nlink, n->nlink);
    CHECK(s->linklen == n->linklen, "%s: linklen %zu, native %zu", what, s->linklen, n->linklen);
}

static void test_all(void)
{
    char store[4200], nat[4200];
    snprintf(nat, sizeof nat, "%s/native.h5", dir);
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    H5Pset_vol(fapl, H5VL_nczarr_compat_native_id(), NULL);
    hid_t fn = H5Fcreate(nat, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    REQUIRE(fn >= 0, "native file");
    make(fn);
    hid_t fs = create_store_in(dir, "store", store, sizeof store);
    make(fs);
    answers an, as;
    ask(fn, &an);
    ask(fs, &as);
    CHECK(!as.bad_loc && !an.bad_loc, "callbacks got the ids HDF5 gives (store %d, native %d)", as.bad_loc,
          an.bad_loc);
    CHECK(!strcmp(as.it_all, an.it_all) && !strcmp(as.it_all, "a,b,c"), "H5Giterate order: %s, native %s",
          as.it_all, an.it_all);
    CHECK(as.it_all_idx == an.it_all_idx, "H5Giterate's index: %d, native %d", as.it_all_idx, an.it_all_idx);
    CHECK(!strcmp(as.it_from1, an.it_from1), "H5Giterate from 1: %s, native %s", as.it_from1, an.it_from1);
    CHECK(as.it_stop_ret == an.it_stop_ret && as.it_stop_idx == an.it_stop_idx,
          "a callback stopping H5Giterate: returns %d at %d, native %d at %d", as.it_stop_ret, as.it_stop_idx,
          an.it_stop_ret, an.it_stop_idx);
    CHECK(!strcmp(as.attrs_from1, an.attrs_from1) && !strcmp(as.attrs_from1, "x,y"),
          "H5Aiterate1 from 1 in creation order: %s, native %s", as.attrs_from1, an.attrs_from1);
    CHECK(as.attr_idx == an.attr_idx, "H5Aiterate1's index: %d, native %d", as.attr_idx, an.attr_idx);
    same_stat("group", &as.st_g, &an.st_g);
    same_stat("dataset", &as.st_d, &an.st_d);
    same_stat("committed datatype", &as.st_t, &an.st_t);
    same_stat("soft link, not followed", &as.st_soft_nofollow, &an.st_soft_nofollow);
    same_stat("soft link, followed", &as.st_soft_follow, &an.st_soft_follow);
    same_stat("external link, not followed", &as.st_ext_nofollow, &an.st_ext_nofollow);
    same_stat("second hard link", &as.st_hard2, &an.st_hard2);
    CHECK(as.st_soft_follow.objno[0] == as.st_d.objno[0], "a followed soft link names its target's object");
    H5O_info2_t oi;
    CHECK(H5Oget_info_by_name3(fs, "g/a", &oi, H5O_INFO_BASIC, H5P_DEFAULT) >= 0, "token of g/a");
    uint64_t id = 0;
    memcpy(&id, &oi.token, sizeof id);
    CHECK(as.st_d.objno[0] == (unsigned long)id, "objno is the object's token in a store");
    /* bad input: nothing there, and a callback that fails */
    H5G_stat_t st;
    herr_t r;
    errtext_t et = {{0}, 0};
    H5E_BEGIN_TRY
    {
        r = H5Gget_objinfo(fs, "nothere", 1, &st);
    }
    H5E_END_TRY
    take_errors(&et);
    CHECK(r < 0 && nczarr_error_has(&et, "nothere"), "H5Gget_objinfo of nothing: %s", et.text);
    int idx = 0;
    H5E_BEGIN_TRY
    {
        r = H5Giterate(fs, "g/a", &idx, group_cb, &(walk){0});
    }
    H5E_END_TRY
    CHECK(r < 0, "H5Giterate of a dataset fails");
    H5Fclose(fs);
    H5Fclose(fn);
    H5Pclose(fapl);
}

int main(void)
{
    scratch_dir(dir, sizeof dir, "deprec");
    test_all();
    rm_rf(dir);
    TEST_MAIN_END();
}
