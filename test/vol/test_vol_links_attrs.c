/* Attributes, links and generic objects through the connector: attribute create/open (by
 * name and index), read/write with conversion, info/name/space/type, exists/rename/
 * delete, H5Aiterate2 in both indexes and orders; H5Literate2/H5Lvisit2/H5Ovisit3 order
 * and names, H5Lexists/H5Ldelete/H5Lmove (tokens survive), H5Oopen by name/index/token,
 * tokens as strings; and clean failures for what NCZarr cannot hold (hard/soft/external
 * links) or for handles whose object was deleted. */
#include "vol_test_util.h"

static char dir[4096];

/* Runs a call that must fail, with HDF5's printing off, and keeps the error text. */
#define EXPECT_FAIL(call, needle, ...)                                                                       \
    do {                                                                                                     \
        errtext_t et_;                                                                                       \
        long long r_;                                                                                        \
        H5E_BEGIN_TRY                                                                                        \
        {                                                                                                    \
            r_ = (long long)(call);                                                                          \
            take_errors(&et_);                                                                               \
        }                                                                                                    \
        H5E_END_TRY                                                                                          \
        CHECK(r_ < 0, __VA_ARGS__);                                                                          \
        CHECK(nczarr_error_has(&et_, needle), "error for %s lacks \"%s\":\n%s", #call, needle, et_.text);    \
    } while (0)

/* ---- collecting iteration results ---- */
typedef struct {
    char names[64][64];
    int n;
    int stop_at;         /* return 1 after this many calls (0 = never) */
    H5I_type_t loc_type; /* type of the id the callback got */
    hid_t del_loc;       /* when >= 0: delete the next name in `del_name` during the first call */
    const char *del_name;
} collect_t;

static void collect(collect_t *c, hid_t loc, const char *name)
{
    if (c->n < 64)
        snprintf(c->names[c->n], sizeof c->names[0], "%s", name);
    c->n++;
    c->loc_type = H5Iget_type(loc);
}

static bool names_are(const collect_t *c, const char *const *want, int n)
{
    if (c->n != n)
        return false;
    for (int i = 0; i < n; i++)
        if (strcmp(c->names[i], want[i]) != 0)
            return false;
    return true;
}

static char *joined(const collect_t *c)
{
    static char buf[2048];
    buf[0] = '\0';
    for (int i = 0; i < c->n && i < 64; i++) {
        strncat(buf, c->names[i], sizeof buf - strlen(buf) - 2);
        strcat(buf, ",");
    }
    return buf;
}

static herr_t attr_cb(hid_t loc, const char *name, const H5A_info_t *ai, void *ud)
{
    collect_t *c = ud;
    (void)ai;
    collect(c, loc, name);
    if (c->del_name && c->n == 1) {
        H5Adelete(loc, c->del_name);
        H5Adelete(loc, name); /* the one being visited */
    }
    return c->stop_at && c->n >= c->stop_at ? 1 : 0;
}

static herr_t link_cb(hid_t loc, const char *name, const H5L_info2_t *li, void *ud)
{
    collect_t *c = ud;
    collect(c, loc, name);
    if (li->type != H5L_TYPE_HARD || !li->corder_valid)
        return -1;
    if (c->del_name && c->n == 1) {
        H5Ldelete(loc, c->del_name, H5P_DEFAULT);
        H5Ldelete(loc, name, H5P_DEFAULT);
    }
    return c->stop_at && c->n >= c->stop_at ? 1 : 0;
}

static herr_t obj_cb(hid_t loc, const char *name, const H5O_info2_t *oi, void *ud)
{
    collect_t *c = ud;
    (void)oi;
    collect(c, loc, name);
    return c->stop_at && c->n >= c->stop_at ? 1 : 0;
}

/* Callbacks that fail: the iteration must fail and say where. */
static herr_t attr_fail_cb(hid_t loc, const char *name, const H5A_info_t *ai, void *ud)
{
    (void)loc, (void)name, (void)ai, (void)ud;
    return -1;
}

static herr_t link_fail_cb(hid_t loc, const char *name, const H5L_info2_t *li, void *ud)
{
    (void)loc, (void)name, (void)li, (void)ud;
    return -1;
}

static herr_t obj_fail_cb(hid_t loc, const char *name, const H5O_info2_t *oi, void *ud)
{
    (void)loc, (void)name, (void)oi, (void)ud;
    return -1;
}

static hid_t make_store(const char *name, char *path, size_t len)
{
    snprintf(path, len, "%s/%s", dir, name);
    hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    return f;
}

static hid_t make_dset(hid_t loc, const char *name)
{
    hsize_t dims[1] = {4};
    hid_t sp = H5Screate_simple(1, dims, NULL);
    hid_t d = H5Dcreate2(loc, name, H5T_NATIVE_INT, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    H5Sclose(sp);
    return d;
}

static herr_t write_int_attr(hid_t loc, const char *name, int v)
{
    hid_t sp = H5Screate(H5S_SCALAR);
    hid_t a = H5Acreate2(loc, name, H5T_NATIVE_INT, sp, H5P_DEFAULT, H5P_DEFAULT);
    herr_t r = a < 0 ? -1 : H5Awrite(a, H5T_NATIVE_INT, &v);
    if (a >= 0)
        H5Aclose(a);
    H5Sclose(sp);
    return r;
}

static void test_attributes(void)
{
    char p[4200];
    hid_t f = make_store("attrs.zarr", p, sizeof p);
    REQUIRE(f >= 0 && is_nczarr(f), "store for attribute tests");
    hid_t g = H5Gcreate2(f, "g", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    hid_t d = make_dset(g, "v");
    REQUIRE(g >= 0 && d >= 0, "group and dataset");

    /* every kind: scalar int, double array, fixed string, vlen strings */
    CHECK(write_int_attr(f, "root_attr", 7) >= 0, "attribute on the file id (root group)");
    CHECK(write_int_attr(g, "zeta", 1) >= 0, "int attribute");
    hsize_t three = 3;
    hid_t sp3 = H5Screate_simple(1, &three, NULL);
    double dv[3] = {1.5, -2.25, 1e10};
    hid_t a = H5Acreate2(g, "alpha", H5T_NATIVE_DOUBLE, sp3, H5P_DEFAULT, H5P_DEFAULT);
    CHECK(a >= 0 && H5Awrite(a, H5T_NATIVE_DOUBLE, dv) >= 0, "double[3] attribute");
    CHECK(H5Iget_type(a) == H5I_ATTR, "attribute id type");
    H5Aclose(a);
    hid_t st = H5Tcopy(H5T_C_S1);
    H5Tset_size(st, 6);
    hid_t sps = H5Screate(H5S_SCALAR);
    a = H5Acreate2(g, "mid", st, sps, H5P_DEFAULT, H5P_DEFAULT);
    CHECK(a >= 0 && H5Awrite(a, st, "hello") >= 0, "fixed string attribute");
    H5Aclose(a);
    hid_t vs = H5Tcopy(H5T_C_S1);
    H5Tset_size(vs, H5T_VARIABLE);
    const char *vals[3] = {"one", "", "three"};
    a = H5Acreate2(d, "labels", vs, sp3, H5P_DEFAULT, H5P_DEFAULT);
    CHECK(a >= 0 && H5Awrite(a, vs, vals) >= 0, "vlen string attribute on a dataset");
    H5Aclose(a);
    /* create by name */
    a = H5Acreate_by_name(f, "g/v", "units", st, sps, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    const char units[6] = "m/s"; /* a buffer of the type's 6 bytes */
    CHECK(a >= 0 && H5Awrite(a, st, units) >= 0, "H5Acreate_by_name");
    H5Aclose(a);
    EXPECT_FAIL(H5Acreate2(g, "zeta", H5T_NATIVE_INT, sps, H5P_DEFAULT, H5P_DEFAULT), "already exists",
                "duplicate attribute must fail");

    /* read back, with conversion */
    a = H5Aopen(g, "zeta", H5P_DEFAULT);
    double z = 0;
    CHECK(a >= 0 && H5Aread(a, H5T_NATIVE_DOUBLE, &z) >= 0 && z == 1.0, "int read as double: %g", z);
    H5A_info_t ai;
    CHECK(H5Aget_info(a, &ai) >= 0 && ai.corder_valid && ai.corder == 0 && ai.data_size == sizeof(int),
          "H5Aget_info corder %u size %llu", (unsigned)ai.corder, (unsigned long long)ai.data_size);
    CHECK(H5Aget_storage_size(a) == sizeof(int), "storage size");
    char nm[64];
    CHECK(H5Aget_name(a, sizeof nm, nm) == 4 && strcmp(nm, "zeta") == 0, "H5Aget_name");
    CHECK(H5Aget_name(a, 3, nm) == 4 && strcmp(nm, "ze") == 0, "H5Aget_name truncates: %s", nm);
    hid_t acpl = H5Aget_create_plist(a);
    CHECK(acpl >= 0, "H5Aget_create_plist");
    H5Pclose(acpl);
    H5Aclose(a);
    a = H5Aopen_by_name(f, "g", "alpha", H5P_DEFAULT, H5P_DEFAULT);
    double rd[3] = {0};
    CHECK(a >= 0 && H5Aread(a, H5T_NATIVE_DOUBLE, rd) >= 0 && rd[1] == -2.25 && rd[2] == 1e10,
          "double array read back");
    hid_t asp = H5Aget_space(a), aty = H5Aget_type(a);
    CHECK(H5Sget_simple_extent_npoints(asp) == 3, "attribute dataspace");
    CHECK(H5Tget_class(aty) == H5T_FLOAT && H5Tget_size(aty) == 8, "attribute type");
    H5Sclose(asp);
    H5Tclose(aty);
    H5Aclose(a);
    a = H5Aopen(d, "labels", H5P_DEFAULT);
    char *rv[3] = {NULL};
    CHECK(a >= 0 && H5Aread(a, vs, rv) >= 0 && rv[0] && strcmp(rv[0], "one") == 0 && rv[2] &&
              strcmp(rv[2], "three") == 0,
          "vlen strings read back");
    hid_t vsp = H5Aget_space(a);
    H5Treclaim(vs, vsp, H5P_DEFAULT, rv);
    H5Sclose(vsp);
    H5Aclose(a);

    /* by index: creation order of g is zeta, alpha, mid */
    a = H5Aopen_by_idx(f, "g", H5_INDEX_CRT_ORDER, H5_ITER_INC, 1, H5P_DEFAULT, H5P_DEFAULT);
    CHECK(a >= 0 && H5Aget_name(a, sizeof nm, nm) > 0 && strcmp(nm, "alpha") == 0, "open_by_idx crt 1: %s",
          nm);
    H5Aclose(a);
    a = H5Aopen_by_idx(g, ".", H5_INDEX_NAME, H5_ITER_DEC, 0, H5P_DEFAULT, H5P_DEFAULT);
    CHECK(a >= 0 && H5Aget_name(a, sizeof nm, nm) > 0 && strcmp(nm, "zeta") == 0, "open_by_idx name dec 0");
    H5Aclose(a);
    CHECK(H5Aget_name_by_idx(f, "g", H5_INDEX_NAME, H5_ITER_INC, 1, nm, sizeof nm, H5P_DEFAULT) == 3 &&
              strcmp(nm, "mid") == 0,
          "H5Aget_name_by_idx: %s", nm);
    CHECK(H5Aget_info_by_idx(g, ".", H5_INDEX_CRT_ORDER, H5_ITER_DEC, 0, &ai, H5P_DEFAULT) >= 0 &&
              ai.corder == 2,
          "H5Aget_info_by_idx");
    CHECK(H5Aget_info_by_name(f, "g/v", "units", &ai, H5P_DEFAULT) >= 0 && ai.data_size == 6,
          "H5Aget_info_by_name");
    EXPECT_FAIL(H5Aopen_by_idx(g, ".", H5_INDEX_NAME, H5_ITER_INC, 3, H5P_DEFAULT, H5P_DEFAULT),
                "out of range", "attribute index out of range");
    EXPECT_FAIL(H5Aopen(g, "nope", H5P_DEFAULT), "does not exist", "missing attribute");
    EXPECT_FAIL(H5Aopen_by_name(f, "nogroup", "x", H5P_DEFAULT, H5P_DEFAULT), "does not exist",
                "attribute of a missing object");
    CHECK(H5Aget_num_attrs(g) == 3, "H5Aget_num_attrs");

    /* exists */
    CHECK(H5Aexists(g, "mid") > 0 && H5Aexists(g, "nope") == 0, "H5Aexists");
    CHECK(H5Aexists_by_name(f, "g/v", "labels", H5P_DEFAULT) > 0, "H5Aexists_by_name");

    /* iterate: both indexes, both orders, start index, early stop */
    static const char *crt_inc[] = {"zeta", "alpha", "mid"}, *crt_dec[] = {"mid", "alpha", "zeta"},
                      *name_inc[] = {"alpha", "mid", "zeta"}, *name_dec[] = {"zeta", "mid", "alpha"};
    collect_t c = {0};
    hsize_t idx = 0;
    CHECK(H5Aiterate2(g, H5_INDEX_CRT_ORDER, H5_ITER_INC, &idx, attr_cb, &c) == 0 &&
              names_are(&c, crt_inc, 3) && idx == 3,
          "crt inc: %s idx %llu", joined(&c), (unsigned long long)idx);
    CHECK(c.loc_type == H5I_GROUP, "callback location is a group id");
    memset(&c, 0, sizeof c);
    CHECK(H5Aiterate2(g, H5_INDEX_CRT_ORDER, H5_ITER_DEC, NULL, attr_cb, &c) == 0 &&
              names_are(&c, crt_dec, 3),
          "crt dec: %s", joined(&c));
    memset(&c, 0, sizeof c);
    CHECK(H5Aiterate2(g, H5_INDEX_NAME, H5_ITER_INC, NULL, attr_cb, &c) == 0 && names_are(&c, name_inc, 3),
          "name inc: %s", joined(&c));
    memset(&c, 0, sizeof c);
    CHECK(H5Aiterate_by_name(f, "g", H5_INDEX_NAME, H5_ITER_DEC, NULL, attr_cb, &c, H5P_DEFAULT) == 0 &&
              names_are(&c, name_dec, 3),
          "name dec by name: %s", joined(&c));
    memset(&c, 0, sizeof c);
    idx = 1;
    c.stop_at = 1;
    CHECK(H5Aiterate2(g, H5_INDEX_NAME, H5_ITER_INC, &idx, attr_cb, &c) == 1 && c.n == 1 &&
              strcmp(c.names[0], "mid") == 0 && idx == 2,
          "start at 1, stop after one: %s idx %llu", joined(&c), (unsigned long long)idx);
    memset(&c, 0, sizeof c);
    CHECK(H5Aiterate2(f, H5_INDEX_NAME, H5_ITER_INC, NULL, attr_cb, &c) == 0 && c.n == 1 &&
              c.loc_type == H5I_GROUP,
          "iterate on the file id visits the root group's attributes");
    memset(&c, 0, sizeof c);
    CHECK(H5Aiterate2(d, H5_INDEX_NAME, H5_ITER_INC, NULL, attr_cb, &c) == 0 && c.n == 2 &&
              c.loc_type == H5I_DATASET,
          "iterate on a dataset");
    EXPECT_FAIL(H5Aiterate2(g, H5_INDEX_NAME, H5_ITER_INC, NULL, attr_fail_cb, NULL),
                "callback failed on \"alpha\"", "failing attribute callback");
    EXPECT_FAIL(H5Aopen_by_name(f, "g", "zeta", H5P_DEFAULT, H5I_INVALID_HID), "invalid link access",
                "invalid lapl");
    EXPECT_FAIL(H5Aopen(g, "zeta", H5I_INVALID_HID), "invalid attribute access", "invalid aapl");
    idx = 5;
    EXPECT_FAIL(H5Aiterate2(g, H5_INDEX_NAME, H5_ITER_INC, &idx, attr_cb, &c), "out of range",
                "start index past the end");

    /* rename, delete (by name, by index), and deleting while iterating */
    CHECK(H5Arename(g, "mid", "middle") >= 0 && H5Aexists(g, "middle") > 0 && H5Aexists(g, "mid") == 0,
          "H5Arename");
    CHECK(H5Arename_by_name(f, "g", "middle", "mid", H5P_DEFAULT) >= 0, "H5Arename_by_name");
    EXPECT_FAIL(H5Arename(g, "mid", "zeta"), "already exists", "rename onto an existing name");
    CHECK(write_int_attr(g, "extra1", 1) >= 0 && write_int_attr(g, "extra2", 2) >= 0, "more attributes");
    CHECK(H5Adelete(g, "extra1") >= 0 && H5Aexists(g, "extra1") == 0, "H5Adelete");
    CHECK(H5Adelete_by_name(f, "g", "extra2", H5P_DEFAULT) >= 0, "H5Adelete_by_name");
    CHECK(write_int_attr(g, "extra3", 3) >= 0, "attribute");
    CHECK(H5Adelete_by_idx(f, "g", H5_INDEX_CRT_ORDER, H5_ITER_DEC, 0, H5P_DEFAULT) >= 0 &&
              H5Aexists(g, "extra3") == 0,
          "H5Adelete_by_idx");
    CHECK(write_int_attr(g, "t1", 1) >= 0 && write_int_attr(g, "t2", 2) >= 0, "attributes to delete");
    /* creation order, decreasing: t2 comes first and deletes t1 and itself */
    memset(&c, 0, sizeof c);
    c.del_name = "t1";
    herr_t ir = H5Aiterate2(g, H5_INDEX_CRT_ORDER, H5_ITER_DEC, NULL, attr_cb, &c);
    CHECK(ir == 0 && H5Aexists(g, "t1") == 0 && H5Aexists(g, "t2") == 0 && H5Aexists(g, "zeta") > 0,
          "deleting attributes inside H5Aiterate2: %s", joined(&c));

    /* handles to deleted attributes and to attributes of deleted objects report it */
    a = H5Aopen(g, "alpha", H5P_DEFAULT);
    CHECK(H5Adelete(g, "alpha") >= 0, "delete an open attribute");
    EXPECT_FAIL(H5Aread(a, H5T_NATIVE_DOUBLE, rd), "has been deleted", "read of a deleted attribute");
    CHECK(H5Aclose(a) >= 0, "close a deleted attribute");
    a = H5Aopen(d, "units", H5P_DEFAULT);
    CHECK(H5Ldelete(g, "v", H5P_DEFAULT) >= 0, "delete a dataset with an open attribute");
    char sbuf[8];
    EXPECT_FAIL(H5Aread(a, st, sbuf), "has been deleted", "read of an attribute of a deleted dataset");
    EXPECT_FAIL(H5Aget_space(a), "has been deleted", "space of an attribute of a deleted dataset");
    CHECK(H5Aclose(a) >= 0, "close it");
    H5Dclose(d);
    H5Gclose(g);
    CHECK(H5Fclose(f) >= 0, "close");

    /* persisted */
    f = H5Fopen(p, H5F_ACC_RDONLY, H5P_DEFAULT);
    REQUIRE(f >= 0 && is_nczarr(f), "reopen");
    a = H5Aopen_by_name(f, "g", "mid", H5P_DEFAULT, H5P_DEFAULT);
    char s6[6] = "";
    CHECK(a >= 0 && H5Aread(a, st, s6) >= 0 && strcmp(s6, "hello") == 0, "renamed string attr persisted: %s",
          s6);
    H5Aclose(a);
    memset(&c, 0, sizeof c);
    static const char *left[] = {"zeta", "mid"};
    CHECK(H5Aiterate_by_name(f, "g", H5_INDEX_CRT_ORDER, H5_ITER_INC, NULL, attr_cb, &c, H5P_DEFAULT) == 0 &&
              names_are(&c, left, 2),
          "attributes after reopen, creation order kept: %s", joined(&c));
    a = H5Aopen(f, "root_attr", H5P_DEFAULT);
    int iv = 0;
    CHECK(a >= 0 && H5Aread(a, H5T_NATIVE_INT, &iv) >= 0 && iv == 7, "root attribute");
    H5Aclose(a);
    EXPECT_FAIL(H5Acreate2(f, "new", H5T_NATIVE_INT, sps, H5P_DEFAULT, H5P_DEFAULT), "read-only",
                "attribute create on a read-only store");
    H5Fclose(f);
    H5Tclose(st);
    H5Tclose(vs);
    H5Sclose(sp3);
    H5Sclose(sps);
}

static void build_tree(hid_t f)
{
    /* /b (group) { x (dset), a (group) { y } }, /a (dset), /c (group) */
    hid_t b = H5Gcreate2(f, "b", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    H5Dclose(make_dset(b, "x"));
    hid_t ba = H5Gcreate2(b, "a", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    H5Dclose(make_dset(ba, "y"));
    H5Gclose(ba);
    H5Gclose(b);
    H5Dclose(make_dset(f, "a"));
    H5Gclose(H5Gcreate2(f, "c", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
}

static void test_links(void)
{
    char p[4200];
    hid_t f = make_store("links.zarr", p, sizeof p);
    REQUIRE(f >= 0 && is_nczarr(f), "store for link tests");
    build_tree(f);

    collect_t c = {0};
    hsize_t idx = 0;
    static const char *crt[] = {"b", "a", "c"}, *crt_dec[] = {"c", "a", "b"}, *nm_inc[] = {"a", "b", "c"};
    CHECK(H5Literate2(f, H5_INDEX_CRT_ORDER, H5_ITER_INC, &idx, link_cb, &c) == 0 && names_are(&c, crt, 3) &&
              idx == 3 && c.loc_type == H5I_GROUP,
          "literate crt inc: %s", joined(&c));
    memset(&c, 0, sizeof c);
    CHECK(H5Literate2(f, H5_INDEX_CRT_ORDER, H5_ITER_DEC, NULL, link_cb, &c) == 0 &&
              names_are(&c, crt_dec, 3),
          "literate crt dec: %s", joined(&c));
    memset(&c, 0, sizeof c);
    idx = 1;
    c.stop_at = 1;
    CHECK(H5Literate2(f, H5_INDEX_NAME, H5_ITER_INC, &idx, link_cb, &c) == 1 && c.n == 1 &&
              strcmp(c.names[0], "b") == 0 && idx == 2,
          "literate from 1, stop: %s idx %llu", joined(&c), (unsigned long long)idx);
    memset(&c, 0, sizeof c);
    CHECK(H5Literate_by_name2(f, "b", H5_INDEX_NAME, H5_ITER_INC, NULL, link_cb, &c, H5P_DEFAULT) == 0 &&
              c.n == 2 && strcmp(c.names[0], "a") == 0,
          "literate by name: %s", joined(&c));
    (void)nm_inc;

    /* visit: pre-order, relative names */
    static const char *vis_name[] = {"a", "b", "b/a", "b/a/y", "b/x", "c"};
    static const char *vis_crt[] = {"b", "b/x", "b/a", "b/a/y", "a", "c"};
    memset(&c, 0, sizeof c);
    CHECK(H5Lvisit2(f, H5_INDEX_NAME, H5_ITER_INC, link_cb, &c) == 0 && names_are(&c, vis_name, 6),
          "lvisit name: %s", joined(&c));
    memset(&c, 0, sizeof c);
    CHECK(H5Lvisit2(f, H5_INDEX_CRT_ORDER, H5_ITER_INC, link_cb, &c) == 0 && names_are(&c, vis_crt, 6),
          "lvisit crt: %s", joined(&c));
    memset(&c, 0, sizeof c);
    static const char *vis_b[] = {"a", "a/y", "x"};
    CHECK(H5Lvisit_by_name2(f, "b", H5_INDEX_NAME, H5_ITER_INC, link_cb, &c, H5P_DEFAULT) == 0 &&
              names_are(&c, vis_b, 3),
          "lvisit by name: %s", joined(&c));
    memset(&c, 0, sizeof c);
    c.stop_at = 3;
    CHECK(H5Lvisit2(f, H5_INDEX_NAME, H5_ITER_INC, link_cb, &c) == 1 && c.n == 3, "lvisit stops");

    EXPECT_FAIL(H5Literate2(f, H5_INDEX_NAME, H5_ITER_INC, NULL, link_fail_cb, NULL),
                "callback failed on \"a\"", "failing link callback");
    EXPECT_FAIL(H5Lvisit2(f, H5_INDEX_NAME, H5_ITER_INC, link_fail_cb, NULL), "callback failed on \"a\"",
                "failing visit callback");

    /* exists */
    CHECK(H5Lexists(f, "b", H5P_DEFAULT) > 0 && H5Lexists(f, "b/a/y", H5P_DEFAULT) > 0, "H5Lexists");
    CHECK(H5Lexists(f, "nope", H5P_DEFAULT) == 0 && H5Lexists(f, "/b/nope", H5P_DEFAULT) == 0,
          "missing link");
    CHECK(H5Lexists(f, "/", H5P_DEFAULT) > 0, "\"/\" exists");
    EXPECT_FAIL(H5Lexists(f, "nope/x", H5P_DEFAULT), "does not exist", "missing intermediate group");

    /* info / name / value */
    H5L_info2_t li;
    H5O_info2_t oi;
    CHECK(H5Lget_info2(f, "b/a", &li, H5P_DEFAULT) >= 0 && li.type == H5L_TYPE_HARD && li.corder_valid &&
              li.corder == 1,
          "H5Lget_info2");
    CHECK(H5Oget_info_by_name3(f, "b/a", &oi, H5O_INFO_BASIC, H5P_DEFAULT) >= 0 && oi.type == H5O_TYPE_GROUP,
          "H5Oget_info_by_name3");
    int cmp = 1;
    CHECK(H5Otoken_cmp(f, &li.u.token, &oi.token, &cmp) >= 0 && cmp == 0, "link token == object token");
    CHECK(H5Lget_info_by_idx2(f, "/", H5_INDEX_NAME, H5_ITER_DEC, 0, &li, H5P_DEFAULT) >= 0 && li.corder == 2,
          "H5Lget_info_by_idx2");
    char nm[64];
    CHECK(H5Lget_name_by_idx(f, ".", H5_INDEX_CRT_ORDER, H5_ITER_INC, 0, nm, sizeof nm, H5P_DEFAULT) == 1 &&
              strcmp(nm, "b") == 0,
          "H5Lget_name_by_idx: %s", nm);
    EXPECT_FAIL(H5Lget_name_by_idx(f, ".", H5_INDEX_NAME, H5_ITER_INC, 9, nm, sizeof nm, H5P_DEFAULT),
                "out of range", "link index out of range");
    EXPECT_FAIL(H5Lget_val(f, "b", nm, sizeof nm, H5P_DEFAULT), "hard link", "H5Lget_val of a hard link");
    EXPECT_FAIL(H5Lget_info2(f, "nope", &li, H5P_DEFAULT), "does not exist", "info of a missing link");

    /* what NCZarr cannot represent */
    /* (extra hard links are representable: test_vol_hardlinks.c) */
    EXPECT_FAIL(H5Lcreate_hard(f, "nope", f, "b2", H5P_DEFAULT, H5P_DEFAULT), "does not exist",
                "hard link to nothing");
    /* soft and external links are representable (test_vol_symlinks.c); made and removed here */
    CHECK(H5Lcreate_soft("/b", f, "s", H5P_DEFAULT, H5P_DEFAULT) >= 0 &&
              H5Lcreate_external("other.h5", "/x", f, "e", H5P_DEFAULT, H5P_DEFAULT) >= 0 &&
              H5Ldelete(f, "s", H5P_DEFAULT) >= 0 && H5Ldelete(f, "e", H5P_DEFAULT) >= 0,
          "soft and external links made and deleted");
    EXPECT_FAIL(H5Lcopy(f, "nope", f, "b3", H5P_DEFAULT, H5P_DEFAULT), "does not exist",
                "H5Lcopy of nothing");
    /* committed datatypes are representable (test_vol_datatypes.c) */
    EXPECT_FAIL(H5Topen2(f, "b", H5P_DEFAULT), "not a committed datatype", "H5Topen2 of a group");
    CHECK(H5Lexists(f, "b2", H5P_DEFAULT) == 0 && H5Lexists(f, "s", H5P_DEFAULT) == 0, "nothing was created");

    /* move: identity survives, open handles follow */
    H5O_info2_t before, after;
    hid_t y = H5Dopen2(f, "b/a/y", H5P_DEFAULT);
    CHECK(H5Oget_info3(y, &before, H5O_INFO_BASIC) >= 0, "info before move");
    CHECK(H5Lmove(f, "b/a/y", f, "c/y2", H5P_DEFAULT, H5P_DEFAULT) >= 0, "H5Lmove across groups");
    CHECK(H5Lexists(f, "b/a/y", H5P_DEFAULT) == 0 && H5Lexists(f, "c/y2", H5P_DEFAULT) > 0, "moved");
    CHECK(H5Oget_info_by_name3(f, "c/y2", &after, H5O_INFO_BASIC, H5P_DEFAULT) >= 0 &&
              H5Otoken_cmp(f, &before.token, &after.token, &cmp) >= 0 && cmp == 0,
          "token survives H5Lmove");
    CHECK(H5Iget_name(y, nm, sizeof nm) > 0 && strcmp(nm, "/c/y2") == 0, "open handle's name follows: %s",
          nm);
    int wdata[4] = {1, 2, 3, 4}, rdata[4] = {0};
    CHECK(H5Dwrite(y, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, wdata) >= 0, "write after move");
    H5Dclose(y);
    hid_t lcpl = H5Pcreate(H5P_LINK_CREATE);
    H5Pset_create_intermediate_group(lcpl, 1);
    CHECK(H5Lmove(f, "c", f, "n1/n2/c_moved", lcpl, H5P_DEFAULT) >= 0, "H5Lmove with intermediate groups");
    H5Pclose(lcpl);
    y = H5Dopen2(f, "n1/n2/c_moved/y2", H5P_DEFAULT);
    CHECK(y >= 0 && H5Dread(y, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, rdata) >= 0 && rdata[3] == 4,
          "data moved along");
    H5Dclose(y);
    hid_t bgrp = H5Gopen2(f, "b", H5P_DEFAULT);
    CHECK(H5Lmove(bgrp, "x", H5L_SAME_LOC, "x_renamed", H5P_DEFAULT, H5P_DEFAULT) >= 0, "rename in place");
    H5Gclose(bgrp);
    EXPECT_FAIL(H5Lmove(f, "b", f, "b/a/b", H5P_DEFAULT, H5P_DEFAULT), "into itself", "move into itself");
    EXPECT_FAIL(H5Lmove(f, "nope", f, "x", H5P_DEFAULT, H5P_DEFAULT), "does not exist",
                "move of a missing link");
    EXPECT_FAIL(H5Lmove(f, "a", f, "b", H5P_DEFAULT, H5P_DEFAULT), "already exists",
                "move onto an existing link");

    /* delete, by name and index, and inside an iteration */
    CHECK(H5Ldelete(f, "b/x_renamed", H5P_DEFAULT) >= 0 && H5Lexists(f, "b/x_renamed", H5P_DEFAULT) == 0,
          "H5Ldelete");
    CHECK(H5Ldelete_by_idx(f, "b", H5_INDEX_NAME, H5_ITER_INC, 0, H5P_DEFAULT) >= 0 &&
              H5Lexists(f, "b/a", H5P_DEFAULT) == 0,
          "H5Ldelete_by_idx");
    EXPECT_FAIL(H5Ldelete(f, "/", H5P_DEFAULT), "", "deleting the root");
    for (int i = 0; i < 4; i++) {
        char n[8];
        snprintf(n, sizeof n, "k%d", i);
        H5Gclose(H5Gcreate2(f, n, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
    }
    memset(&c, 0, sizeof c);
    c.del_name = "k2";
    CHECK(H5Literate2(f, H5_INDEX_NAME, H5_ITER_INC, NULL, link_cb, &c) == 0, "delete inside literate");
    CHECK(H5Lexists(f, "k2", H5P_DEFAULT) == 0 && H5Lexists(f, "a", H5P_DEFAULT) == 0 &&
              H5Lexists(f, "k3", H5P_DEFAULT) > 0,
          "links deleted inside the callback are gone: %s", joined(&c));
    memset(&c, 0, sizeof c);
    c.del_name = "k3";
    /* "b" comes first and deletes k3 and itself (a group: the visit must not descend) */
    CHECK(H5Lvisit2(f, H5_INDEX_NAME, H5_ITER_INC, link_cb, &c) == 0, "delete inside lvisit: %s", joined(&c));
    CHECK(H5Lexists(f, "b", H5P_DEFAULT) == 0 && H5Lexists(f, "k3", H5P_DEFAULT) == 0, "deleted by lvisit");
    CHECK(H5Fclose(f) >= 0, "close");

    f = H5Fopen(p, H5F_ACC_RDONLY, H5P_DEFAULT);
    REQUIRE(f >= 0, "reopen");
    memset(&c, 0, sizeof c);
    static const char *final[] = {"k0", "k1", "n1", "n1/n2", "n1/n2/c_moved", "n1/n2/c_moved/y2"};
    CHECK(H5Lvisit2(f, H5_INDEX_NAME, H5_ITER_INC, link_cb, &c) == 0 && names_are(&c, final, 6),
          "tree after reopen: %s", joined(&c));
    H5Fclose(f);
}

static bool on_disk(const char *store, const char *key)
{
    char p[4400];
    struct stat sb;
    snprintf(p, sizeof p, "%s/%s", store, key);
    return stat(p, &sb) == 0;
}

/* H5Lmove moves the chunk objects in the store (a directory rename, not a copy): the data
 * reads back at the new name, through a handle opened before the move too, including
 * what was still in the chunk cache, and no key is left under the old name. */
static void test_move_data(void)
{
    char p[4200];
    hid_t f = make_store("move.zarr", p, sizeof p);
    REQUIRE(f >= 0 && is_nczarr(f), "store for move tests");
    enum { N = 40, C = 8 };
    static int w[N][N], r[N][N];
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++)
            w[i][j] = i * 1000 + j;
    hsize_t dims[2] = {N, N}, chunk[2] = {C, C};
    hid_t sp = H5Screate_simple(2, dims, NULL), dcpl = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_chunk(dcpl, 2, chunk);
    hid_t g = H5Gcreate2(f, "g", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    hid_t d = H5Dcreate2(g, "big", H5T_NATIVE_INT, sp, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    REQUIRE(d >= 0, "chunked dataset");
    CHECK(H5Dwrite(d, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, w) >= 0, "write");
    CHECK(H5Fflush(f, H5F_SCOPE_GLOBAL) >= 0 && on_disk(p, "g/big/0.0") && on_disk(p, "g/big/4.4"),
          "chunks written under the old name");
    /* A dirty chunk still in the cache at the time of the move. */
    w[0][0] = -1;
    CHECK(H5Dwrite(d, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, w) >= 0, "write again");

    CHECK(H5Lmove(g, "big", f, "moved", H5P_DEFAULT, H5P_DEFAULT) >= 0, "H5Lmove of a dataset with data");
    CHECK(!on_disk(p, "g/big"), "no key left under the old name");
    CHECK(on_disk(p, "moved/.zarray") && on_disk(p, "moved/0.0") && on_disk(p, "moved/4.4"),
          "keys under the new name");
    memset(r, 0, sizeof r);
    CHECK(H5Dread(d, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, r) >= 0 && memcmp(r, w, sizeof r) == 0,
          "values read back through the open handle");
    H5Dclose(d);

    CHECK(H5Lmove(f, "g", f, "g2", H5P_DEFAULT, H5P_DEFAULT) >= 0 &&
              H5Lmove(f, "moved", f, "g2/big2", H5P_DEFAULT, H5P_DEFAULT) >= 0,
          "rename a group, then move the dataset into it");
    CHECK(!on_disk(p, "g") && !on_disk(p, "moved") && on_disk(p, "g2/big2/4.4"), "keys follow both moves");
    H5Gclose(g);
    CHECK(H5Fclose(f) >= 0, "close");

    f = H5Fopen(p, H5F_ACC_RDONLY, H5P_DEFAULT);
    REQUIRE(f >= 0, "reopen");
    d = H5Dopen2(f, "g2/big2", H5P_DEFAULT);
    memset(r, 0, sizeof r);
    CHECK(d >= 0 && H5Dread(d, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, r) >= 0 &&
              memcmp(r, w, sizeof r) == 0,
          "values read back after reopening");
    H5Dclose(d);
    H5Fclose(f);
    H5Pclose(dcpl);
    H5Sclose(sp);
}

static void test_objects(void)
{
    char p[4200];
    hid_t f = make_store("objects.zarr", p, sizeof p);
    REQUIRE(f >= 0 && is_nczarr(f), "store for object tests");
    build_tree(f);
    hid_t g = H5Oopen(f, "b", H5P_DEFAULT);
    CHECK(g >= 0 && H5Iget_type(g) == H5I_GROUP, "H5Oopen of a group");
    hid_t d = H5Oopen(g, "a/y", H5P_DEFAULT);
    CHECK(d >= 0 && H5Iget_type(d) == H5I_DATASET, "H5Oopen of a dataset");
    char nm[64];
    CHECK(H5Iget_name(d, nm, sizeof nm) == 6 && strcmp(nm, "/b/a/y") == 0, "H5Iget_name: %s", nm);
    CHECK(H5Iget_name(f, nm, sizeof nm) == 1 && strcmp(nm, "/") == 0, "H5Iget_name of the file: %s", nm);
    hid_t r = H5Oopen(f, "/", H5P_DEFAULT);
    CHECK(r >= 0 && H5Iget_type(r) == H5I_GROUP, "H5Oopen of the root");
    H5Oclose(r);
    hid_t byidx = H5Oopen_by_idx(f, "b", H5_INDEX_CRT_ORDER, H5_ITER_INC, 0, H5P_DEFAULT);
    CHECK(byidx >= 0 && H5Iget_type(byidx) == H5I_DATASET, "H5Oopen_by_idx gives b/x");
    H5Oclose(byidx);
    EXPECT_FAIL(H5Oopen(f, "b/nope", H5P_DEFAULT), "does not exist", "H5Oopen of a missing object");

    /* info */
    H5O_info2_t oi, oi2;
    CHECK(H5Oget_info3(d, &oi, H5O_INFO_ALL) >= 0 && oi.type == H5O_TYPE_DATASET && oi.rc == 1,
          "H5Oget_info3");
    unsigned long fno = 0;
    H5Fget_fileno(f, &fno);
    CHECK(oi.fileno == fno, "fileno matches the file");
    CHECK(H5Oget_info_by_idx3(f, "b", H5_INDEX_NAME, H5_ITER_INC, 0, &oi2, H5O_INFO_BASIC, H5P_DEFAULT) >=
                  0 &&
              oi2.type == H5O_TYPE_GROUP,
          "H5Oget_info_by_idx3");
    hid_t ds = H5Dopen2(f, "a", H5P_DEFAULT);
    write_int_attr(ds, "one", 1);
    write_int_attr(ds, "two", 2);
    CHECK(H5Oget_info3(ds, &oi2, H5O_INFO_NUM_ATTRS) >= 0 && oi2.num_attrs == 2, "num_attrs %llu",
          (unsigned long long)oi2.num_attrs);
    H5Dclose(ds);

    /* tokens */
    char *ts = NULL;
    CHECK(H5Otoken_to_str(d, &oi.token, &ts) >= 0 && ts && *ts, "H5Otoken_to_str");
    H5O_token_t tok;
    CHECK(ts && H5Otoken_from_str(d, ts, &tok) >= 0, "H5Otoken_from_str");
    int cmp = 1;
    CHECK(H5Otoken_cmp(d, &tok, &oi.token, &cmp) >= 0 && cmp == 0, "token round trip through a string");
    H5free_memory(ts);
    EXPECT_FAIL(H5Otoken_from_str(d, "12x", &tok), "not an nczarr object token", "garbage token string");
    EXPECT_FAIL(H5Otoken_from_str(d, "-1", &tok), "not an nczarr object token", "negative token string");
    EXPECT_FAIL(H5Otoken_from_str(d, "99999999999999999999999", &tok), "out of range", "huge token string");
    hid_t bt = H5Oopen_by_token(f, oi.token);
    CHECK(bt >= 0 && H5Iget_type(bt) == H5I_DATASET && H5Iget_name(bt, nm, sizeof nm) > 0 &&
              strcmp(nm, "/b/a/y") == 0,
          "H5Oopen_by_token: %s", nm);
    H5Oclose(bt);
    H5O_info2_t gi;
    H5Oget_info3(g, &gi, H5O_INFO_BASIC);
    CHECK(H5Otoken_cmp(f, &gi.token, &oi.token, &cmp) >= 0 && cmp != 0,
          "different objects, different tokens");
    H5O_token_t bogus;
    memset(&bogus, 0, sizeof bogus);
    bogus.__data[0] = 0xEE;
    bogus.__data[1] = 0xEE;
    EXPECT_FAIL(H5Oopen_by_token(f, bogus), "no object with token", "H5Oopen_by_token of an unknown token");

    /* exists */
    CHECK(H5Oexists_by_name(f, "b/a/y", H5P_DEFAULT) > 0 && H5Oexists_by_name(f, "b/zz", H5P_DEFAULT) == 0 &&
              H5Oexists_by_name(g, ".", H5P_DEFAULT) > 0,
          "H5Oexists_by_name");
    EXPECT_FAIL(H5Oexists_by_name(f, "zz/y", H5P_DEFAULT), "does not exist", "missing intermediate");

    /* visit: the object itself as ".", then everything below, with the start's id */
    collect_t c = {0};
    static const char *ov[] = {".", "a", "b", "b/a", "b/a/y", "b/x", "c"};
    CHECK(H5Ovisit3(f, H5_INDEX_NAME, H5_ITER_INC, obj_cb, &c, H5O_INFO_BASIC) == 0 && names_are(&c, ov, 7) &&
              c.loc_type == H5I_GROUP,
          "H5Ovisit3: %s", joined(&c));
    memset(&c, 0, sizeof c);
    static const char *ovb[] = {".", "x", "a", "a/y"};
    CHECK(H5Ovisit_by_name3(f, "b", H5_INDEX_CRT_ORDER, H5_ITER_INC, obj_cb, &c, H5O_INFO_BASIC,
                            H5P_DEFAULT) == 0 &&
              names_are(&c, ovb, 4),
          "H5Ovisit_by_name3: %s", joined(&c));
    memset(&c, 0, sizeof c);
    CHECK(H5Ovisit3(d, H5_INDEX_NAME, H5_ITER_INC, obj_cb, &c, H5O_INFO_BASIC) == 0 && c.n == 1 &&
              c.loc_type == H5I_DATASET,
          "H5Ovisit3 of a dataset visits only itself");
    EXPECT_FAIL(H5Ovisit3(f, H5_INDEX_NAME, H5_ITER_INC, obj_fail_cb, NULL, H5O_INFO_BASIC),
                "callback failed on \".\"", "failing object visit callback");
    EXPECT_FAIL(H5Oopen(f, "b", H5I_INVALID_HID), "invalid link access", "H5Oopen with an invalid lapl");
    memset(&c, 0, sizeof c);
    c.stop_at = 2;
    CHECK(H5Ovisit3(f, H5_INDEX_NAME, H5_ITER_DEC, obj_cb, &c, H5O_INFO_BASIC) == 1 && c.n == 2 &&
              strcmp(c.names[1], "c") == 0,
          "H5Ovisit3 stops: %s", joined(&c));

    /* new-style object references: lookup (name -> token), open by token, type, name */
    H5R_ref_t ref;
    CHECK(H5Rcreate_object(f, "/b/a/y", H5P_DEFAULT, &ref) >= 0, "H5Rcreate_object");
    H5O_type_t rt = H5O_TYPE_UNKNOWN;
    CHECK(H5Rget_obj_type3(&ref, H5P_DEFAULT, &rt) >= 0 && rt == H5O_TYPE_DATASET, "H5Rget_obj_type3");
    CHECK(H5Rget_obj_name(&ref, H5P_DEFAULT, nm, sizeof nm) == 6 && strcmp(nm, "/b/a/y") == 0,
          "H5Rget_obj_name: %s", nm);
    hid_t ro = H5Ropen_object(&ref, H5P_DEFAULT, H5P_DEFAULT);
    H5O_info2_t ri;
    CHECK(ro >= 0 && H5Oget_info3(ro, &ri, H5O_INFO_BASIC) >= 0 &&
              H5Otoken_cmp(f, &ri.token, &oi.token, &cmp) >= 0 && cmp == 0,
          "H5Ropen_object gives the same object");
    H5Oclose(ro);
    H5Rdestroy(&ref);
    CHECK(H5Rcreate_object(d, ".", H5P_DEFAULT, &ref) >= 0, "H5Rcreate_object with \".\" (as H5DS does)");
    ro = H5Ropen_object(&ref, H5P_DEFAULT, H5P_DEFAULT);
    CHECK(ro >= 0 && H5Iget_type(ro) == H5I_DATASET, "open a reference made from \".\"");
    H5Oclose(ro);
    H5Rdestroy(&ref);

    /* file of an object, with and without a file id left open */
    hid_t f2 = H5Iget_file_id(d);
    CHECK(f2 == f, "H5Iget_file_id returns the open file id");
    H5Fclose(f2); /* drops the reference H5Iget_file_id added */
    CHECK(H5Oflush(d) >= 0 && H5Orefresh(d) >= 0, "H5Oflush/H5Orefresh");
    EXPECT_FAIL(H5Oincr_refcount(d), "exactly one link", "H5Oincr_refcount");
    CHECK(H5Ocopy(f, "b", f, "bcopy", H5P_DEFAULT, H5P_DEFAULT) >= 0 &&
              H5Lexists(f, "bcopy/a", H5P_DEFAULT) > 0 && H5Lexists(f, "bcopy/a/y", H5P_DEFAULT) > 0,
          "H5Ocopy of a group within the store");
    CHECK(H5Ldelete(f, "bcopy", H5P_DEFAULT) >= 0, "delete the copy");
    char cbuf[8];
    EXPECT_FAIL(H5Oget_comment(d, cbuf, sizeof cbuf), "", "H5Oget_comment");
    CHECK(H5Fclose(f) >= 0, "close the file id with objects open");
    f2 = H5Iget_file_id(d);
    CHECK(f2 >= 0 && is_nczarr(f2), "H5Iget_file_id after the file id was closed");
    hid_t f3 = H5Iget_file_id(g);
    CHECK(f3 == f2, "the same new file id again");
    H5Fclose(f3);
    H5Fclose(f2);

    /* a deleted object's handle has no name */
    hid_t f4 = H5Iget_file_id(g);
    CHECK(H5Ldelete(f4, "b/a/y", H5P_DEFAULT) >= 0, "delete an open dataset");
    CHECK(H5Iget_name(d, nm, sizeof nm) == 0, "no name after deletion: %s", nm);
    H5Fclose(f4);
    H5Oclose(d);
    H5Oclose(g);
}

int main(void)
{
    scratch_dir(dir, sizeof dir, "linksattrs");
    test_attributes();
    test_links();
    test_move_data();
    test_objects();
    /* Every id the tests opened is closed: nothing may remain. */
    CHECK(H5Fget_obj_count(H5F_OBJ_ALL, H5F_OBJ_ALL) == 0, "ids left open: %zd",
          H5Fget_obj_count(H5F_OBJ_ALL, H5F_OBJ_ALL));
    if (getenv("NCZARR_KEEP") == NULL)
        rm_rf(dir);
    TEST_MAIN_END();
}
