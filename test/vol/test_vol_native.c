/* Native HDF5 files while the connector is the default (HDF5_VOL_CONNECTOR=nczarr): every
 * H5Fopen comes to the connector, which hands native HDF5 files to HDF5's native connector
 * and forwards every call on their objects. A file written natively (H5Pset_vol native,
 * while nczarr is the default) is opened through the connector and:
 *  - read: datasets (chunked+deflate, hyperslab, variable-length strings, compound, a
 *    committed datatype), attributes (string, double, vlen), H5Literate2 (its callback's
 *    ids are the connector's), H5Aiterate2, H5Ovisit3 with one fileno, tokens
 *    (cmp/to_str/from_str, open by token), old-style (H5Rdereference2) and new-style
 *    (H5Ropen_object, H5Rget_obj_name) references, dimension scales (H5DS), soft links,
 *    H5Iget_file_id, H5Fget_obj_count/ids, H5Fget_filesize (native-only, works);
 *  - written: groups, datasets, attributes, a reference attribute and a vlen attribute
 *    (the blob callbacks), H5Dset_extent, H5Dwrite_multi, H5Lmove, H5Ldelete, H5Freopen;
 *    read back natively;
 *  - mixed with a store: H5Ocopy from one to the other copies; H5Dwrite_multi over both fails with the
 *    connector's message, object counts stay per file;
 *  - H5Fis_accessible, H5Fdelete, a file whose superblock follows a 512-byte user block,
 *    and a regular file that is not HDF5 (an error, no crash).
 * "--write-native FILE" only writes the native file (test/interop/native_tools.sh). */
#include "vol_test_util.h"

#include <hdf5_hl.h>
#include <sys/stat.h>

static char dir[4096];

typedef struct {
    int a;
    double b;
} pair_t;

static hid_t native_fapl(void)
{
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    H5Pset_vol(fapl, H5VL_NATIVE, NULL);
    return fapl;
}

static bool id_native(hid_t id)
{
    hbool_t n = false;
    return H5VLobject_is_native(id, &n) >= 0 && n;
}

static void put_attr(hid_t loc, const char *name, hid_t type, hid_t space, const void *buf)
{
    hid_t a = H5Acreate2(loc, name, type, space, H5P_DEFAULT, H5P_DEFAULT);
    H5Awrite(a, type, buf);
    H5Aclose(a);
}

/* The native file: every kind of object the checks below read. */
static int write_native(const char *path, hsize_t userblock)
{
    hid_t fapl = native_fapl(), fcpl = H5Pcreate(H5P_FILE_CREATE);
    H5Pset_link_creation_order(fcpl, H5P_CRT_ORDER_TRACKED | H5P_CRT_ORDER_INDEXED);
    if (userblock)
        H5Pset_userblock(fcpl, userblock);
    hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, fcpl, fapl);
    H5Pclose(fcpl);
    H5Pclose(fapl);
    if (f < 0)
        return -1;
    hid_t s0 = H5Screate(H5S_SCALAR);
    hid_t g = H5Gcreate2(f, "g", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    H5Gclose(H5Gcreate2(g, "sub", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));

    hsize_t dims[2] = {4, 6}, chunk[2] = {2, 3};
    int v[4][6];
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 6; j++)
            v[i][j] = i * 10 + j;
    hid_t s2 = H5Screate_simple(2, dims, NULL), dcpl = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_chunk(dcpl, 2, chunk);
    H5Pset_deflate(dcpl, 4);
    hid_t d = H5Dcreate2(f, "d_int", H5T_STD_I32LE, s2, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    H5Dwrite(d, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, v);
    double scale = 0.5;
    put_attr(d, "scale", H5T_NATIVE_DOUBLE, s0, &scale);
    /* a dimension scale on the second dimension */
    hsize_t nx = 6;
    hid_t sx = H5Screate_simple(1, &nx, NULL);
    hid_t x = H5Dcreate2(f, "x", H5T_IEEE_F64LE, sx, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    double xv[6] = {0, 1, 2, 3, 4, 5};
    H5Dwrite(x, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, xv);
    H5DSset_scale(x, "x");
    H5DSattach_scale(d, x, 1);
    H5Dclose(x);
    H5Sclose(sx);
    H5Dclose(d);
    H5Pclose(dcpl);
    H5Sclose(s2);

    hsize_t n3 = 3, n2 = 2;
    hid_t s3 = H5Screate_simple(1, &n3, NULL), sn2 = H5Screate_simple(1, &n2, NULL);
    hid_t str = H5Tcopy(H5T_C_S1);
    H5Tset_size(str, H5T_VARIABLE);
    const char *words[3] = {"alpha", "beta", "gamma"};
    d = H5Dcreate2(f, "d_str", str, s3, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    H5Dwrite(d, str, H5S_ALL, H5S_ALL, H5P_DEFAULT, words);
    H5Dclose(d);

    hid_t pair = H5Tcreate(H5T_COMPOUND, sizeof(pair_t));
    H5Tinsert(pair, "a", HOFFSET(pair_t, a), H5T_NATIVE_INT);
    H5Tinsert(pair, "b", HOFFSET(pair_t, b), H5T_NATIVE_DOUBLE);
    pair_t pv[2];
    /* the padding is written to the file too */
    memset(pv, 0, sizeof pv);
    pv[0] = (pair_t){1, 1.5};
    pv[1] = (pair_t){2, 2.5};
    d = H5Dcreate2(f, "d_cmp", pair, sn2, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    H5Dwrite(d, pair, H5S_ALL, H5S_ALL, H5P_DEFAULT, pv);
    H5Dclose(d);
    hid_t named = H5Tcopy(pair);
    H5Tcommit2(f, "dt_pair", named, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    d = H5Dcreate2(f, "d_typed", named, sn2, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    H5Dwrite(d, pair, H5S_ALL, H5S_ALL, H5P_DEFAULT, pv);
    H5Dclose(d);
    H5Tclose(named);
    H5Tclose(pair);

    /* extendable */
    hsize_t n4 = 4, unl = H5S_UNLIMITED, c4 = 4;
    hid_t se = H5Screate_simple(1, &n4, &unl);
    dcpl = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_chunk(dcpl, 1, &c4);
    int ev[4] = {0, 1, 2, 3};
    d = H5Dcreate2(f, "d_ext", H5T_NATIVE_INT, se, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    H5Dwrite(d, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, ev);
    H5Dclose(d);
    H5Pclose(dcpl);
    H5Sclose(se);

    /* old-style object references in a dataset */
    hobj_ref_t oref[2];
    H5Rcreate(&oref[0], f, "g", H5R_OBJECT, -1);
    H5Rcreate(&oref[1], f, "d_int", H5R_OBJECT, -1);
    d = H5Dcreate2(f, "d_oref", H5T_STD_REF_OBJ, sn2, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    H5Dwrite(d, H5T_STD_REF_OBJ, H5S_ALL, H5S_ALL, H5P_DEFAULT, oref);
    H5Dclose(d);
    /* new-style references in an attribute */
    H5R_ref_t r2[2];
    H5Rcreate_object(f, "g/sub", H5P_DEFAULT, &r2[0]);
    H5Rcreate_object(f, "d_int", H5P_DEFAULT, &r2[1]);
    put_attr(f, "r2", H5T_STD_REF, sn2, r2);
    H5Rdestroy(&r2[0]);
    H5Rdestroy(&r2[1]);

    /* attributes */
    hid_t fs = H5Tcopy(H5T_C_S1);
    H5Tset_size(fs, 5);
    put_attr(f, "title", fs, s0, "hello");
    H5Tclose(fs);
    int one[1] = {1}, two[2] = {2, 3};
    hvl_t vl[2] = {{1, one}, {2, two}};
    hid_t vlt = H5Tvlen_create(H5T_NATIVE_INT);
    put_attr(g, "vl", vlt, sn2, vl);
    H5Tclose(vlt);

    H5Lcreate_soft("/d_int", f, "soft", H5P_DEFAULT, H5P_DEFAULT);
    H5Lcreate_hard(f, "d_int", g, "alias", H5P_DEFAULT, H5P_DEFAULT);
    H5Tclose(str);
    H5Sclose(s3);
    H5Sclose(sn2);
    H5Sclose(s0);
    H5Gclose(g);
    return H5Fclose(f);
}

typedef struct {
    int n;
    bool ids_ok;
    char names[16][32];
} iter_t;

static herr_t link_cb(hid_t gid, const char *name, const H5L_info2_t *info, void *ud)
{
    iter_t *it = ud;
    H5O_info2_t oi;
    /* the id HDF5 hands the callback goes through the connector too */
    if (!is_nczarr(gid) || H5Oget_info_by_name3(gid, name, &oi, H5O_INFO_BASIC, H5P_DEFAULT) < 0)
        it->ids_ok = false;
    (void)info;
    if (it->n < 16)
        snprintf(it->names[it->n], sizeof it->names[0], "%s", name);
    it->n++;
    return 0;
}

static herr_t attr_cb(hid_t loc, const char *name, const H5A_info_t *ai, void *ud)
{
    (void)loc;
    (void)name;
    (void)ai;
    (*(int *)ud)++;
    return 0;
}

typedef struct {
    int n;
    unsigned long fileno;
    bool same;
} visit_t;

static herr_t visit_cb(hid_t o, const char *name, const H5O_info2_t *oi, void *ud)
{
    (void)o;
    (void)name;
    visit_t *v = ud;
    if (v->n++ == 0)
        v->fileno = oi->fileno;
    else if (oi->fileno != v->fileno)
        v->same = false;
    return 0;
}

static herr_t scale_cb(hid_t did, unsigned dim, hid_t sid, void *ud)
{
    (void)did;
    (void)dim;
    char name[32] = "";
    H5Iget_name(sid, name, sizeof name);
    snprintf(ud, 32, "%s", name);
    return 0;
}

static void check_read(const char *path)
{
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    REQUIRE(f >= 0, "open the native file %s through the default connector", path);
    CHECK(is_nczarr(f), "the file id belongs to the nczarr connector");
    CHECK(id_native(f), "H5VLobject_is_native says the file is native HDF5");
    CHECK(H5Fis_accessible(path, H5P_DEFAULT) > 0, "H5Fis_accessible of a native file");

    int v[4][6], row[6];
    hid_t d = H5Dopen2(f, "d_int", H5P_DEFAULT);
    CHECK(is_nczarr(d) && id_native(d), "a dataset of the native file");
    CHECK(H5Dread(d, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) >= 0 && v[3][5] == 35 && v[1][2] == 12,
          "chunked, deflated int dataset");
    hsize_t start[2] = {2, 0}, count[2] = {1, 6}, n6 = 6;
    hid_t fsp = H5Dget_space(d), msp = H5Screate_simple(1, &n6, NULL);
    H5Sselect_hyperslab(fsp, H5S_SELECT_SET, start, NULL, count, NULL);
    CHECK(H5Dread(d, H5T_NATIVE_INT, msp, fsp, H5P_DEFAULT, row) >= 0 && row[0] == 20 && row[5] == 25,
          "a hyperslab");
    H5Sclose(fsp);
    H5Sclose(msp);
    double scale = 0;
    hid_t a = H5Aopen(d, "scale", H5P_DEFAULT);
    CHECK(H5Aread(a, H5T_NATIVE_DOUBLE, &scale) >= 0 && scale == 0.5, "double attribute");
    H5Aclose(a);
    int nscales = H5DSget_num_scales(d, 1);
    char sname[32] = "";
    CHECK(nscales == 1, "one dimension scale on dimension 1 (got %d)", nscales);
    CHECK(H5DSiterate_scales(d, 1, NULL, scale_cb, sname) >= 0 && strcmp(sname, "/x") == 0,
          "H5DSiterate_scales finds /x (got \"%s\")", sname);
    hid_t x = H5Dopen2(f, "x", H5P_DEFAULT);
    CHECK(H5DSis_scale(x) > 0 && H5DSis_attached(d, x, 1) > 0, "H5DSis_scale, H5DSis_attached");
    H5Dclose(x);

    hid_t fid = H5Iget_file_id(d);
    CHECK(fid == f, "H5Iget_file_id gives the file's id (%lld, %lld)", (long long)fid, (long long)f);
    if (fid >= 0)
        H5Fclose(fid);
    CHECK(H5Fget_obj_count(f, H5F_OBJ_ALL) == 2, "H5Fget_obj_count: the file and one dataset (%lld)",
          (long long)H5Fget_obj_count(f, H5F_OBJ_ALL));
    hid_t ids[4] = {-1, -1, -1, -1};
    CHECK(H5Fget_obj_ids(f, H5F_OBJ_DATASET, 4, ids) == 1 && ids[0] == d, "H5Fget_obj_ids lists the dataset");
    hsize_t fsize = 0;
    CHECK(H5Fget_filesize(f, &fsize) >= 0 && fsize > 0, "H5Fget_filesize (native only) works");
    H5Dclose(d);

    char *words[3] = {NULL, NULL, NULL};
    hid_t str = H5Tcopy(H5T_C_S1);
    H5Tset_size(str, H5T_VARIABLE);
    d = H5Dopen2(f, "d_str", H5P_DEFAULT);
    CHECK(H5Dread(d, str, H5S_ALL, H5S_ALL, H5P_DEFAULT, words) >= 0 && words[2] &&
              !strcmp(words[2], "gamma"),
          "variable-length strings");
    hid_t sp = H5Dget_space(d);
    H5Treclaim(str, sp, H5P_DEFAULT, words);
    H5Sclose(sp);
    H5Dclose(d);
    H5Tclose(str);

    pair_t pv[2] = {{0, 0}, {0, 0}};
    hid_t pair = H5Tcreate(H5T_COMPOUND, sizeof(pair_t));
    H5Tinsert(pair, "a", HOFFSET(pair_t, a), H5T_NATIVE_INT);
    H5Tinsert(pair, "b", HOFFSET(pair_t, b), H5T_NATIVE_DOUBLE);
    d = H5Dopen2(f, "d_typed", H5P_DEFAULT);
    hid_t dt = H5Dget_type(d), named = H5Topen2(f, "dt_pair", H5P_DEFAULT);
    CHECK(H5Tcommitted(dt) > 0 && named >= 0 && H5Tequal(dt, named) > 0, "a dataset of a committed datatype");
    CHECK(H5Dread(d, pair, H5S_ALL, H5S_ALL, H5P_DEFAULT, pv) >= 0 && pv[1].a == 2 && pv[1].b == 2.5,
          "compound values");
    H5Tclose(named);
    H5Tclose(dt);
    H5Tclose(pair);
    H5Dclose(d);

    char title[6] = "";
    hid_t fs = H5Tcopy(H5T_C_S1);
    H5Tset_size(fs, 5);
    a = H5Aopen(f, "title", H5P_DEFAULT);
    CHECK(H5Aread(a, fs, title) >= 0 && !strncmp(title, "hello", 5), "fixed string attribute");
    H5Aclose(a);
    H5Tclose(fs);
    hvl_t vl[2];
    hid_t vlt = H5Tvlen_create(H5T_NATIVE_INT);
    a = H5Aopen_by_name(f, "g", "vl", H5P_DEFAULT, H5P_DEFAULT);
    CHECK(H5Aread(a, vlt, vl) >= 0 && vl[1].len == 2 && ((int *)vl[1].p)[1] == 3, "vlen attribute");
    sp = H5Aget_space(a);
    H5Treclaim(vlt, sp, H5P_DEFAULT, vl);
    H5Sclose(sp);
    H5Aclose(a);
    H5Tclose(vlt);
    int nattrs = 0;
    CHECK(H5Aiterate2(f, H5_INDEX_NAME, H5_ITER_INC, NULL, attr_cb, &nattrs) >= 0 && nattrs == 2,
          "H5Aiterate2 on the root: 2 attributes (%d)", nattrs);

    iter_t it = {0, true, {{0}}};
    CHECK(H5Literate2(f, H5_INDEX_CRT_ORDER, H5_ITER_INC, NULL, link_cb, &it) >= 0 && it.n == 10 && it.ids_ok,
          "H5Literate2: 10 links (%d), ids through the connector", it.n);
    CHECK(!strcmp(it.names[0], "g") && !strcmp(it.names[9], "soft"), "creation order (%s ... %s)",
          it.names[0], it.names[9]);
    visit_t vv = {0, 0, true};
    unsigned long fileno = 0;
    CHECK(H5Ovisit3(f, H5_INDEX_NAME, H5_ITER_INC, visit_cb, &vv, H5O_INFO_BASIC) >= 0 && vv.n == 11 &&
              vv.same,
          "H5Ovisit3: 11 objects (%d) with one fileno", vv.n);
    CHECK(H5Fget_fileno(f, &fileno) >= 0 && fileno == vv.fileno, "the objects' fileno is the file's");

    H5O_info2_t o1, o2;
    H5Oget_info_by_name3(f, "d_int", &o1, H5O_INFO_BASIC, H5P_DEFAULT);
    H5Oget_info_by_name3(f, "g/alias", &o2, H5O_INFO_BASIC, H5P_DEFAULT);
    int cmp = 1;
    CHECK(H5Otoken_cmp(f, &o1.token, &o2.token, &cmp) >= 0 && cmp == 0 && o1.rc == 2, "a hard link's token");
    char *ts = NULL;
    H5O_token_t back;
    CHECK(H5Otoken_to_str(f, &o1.token, &ts) >= 0 && ts && H5Otoken_from_str(f, ts, &back) >= 0 &&
              !memcmp(&back, &o1.token, sizeof back),
          "token to string and back (%s)", ts ? ts : "");
    H5free_memory(ts);
    hid_t o = H5Oopen_by_token(f, o1.token);
    CHECK(o >= 0 && H5Iget_type(o) == H5I_DATASET && is_nczarr(o), "H5Oopen_by_token");
    H5Oclose(o);

    /* old-style references (what netCDF-4 files hold in DIMENSION_LIST) */
    hobj_ref_t oref[2];
    d = H5Dopen2(f, "d_oref", H5P_DEFAULT);
    H5Dread(d, H5T_STD_REF_OBJ, H5S_ALL, H5S_ALL, H5P_DEFAULT, oref);
    o = H5Rdereference2(d, H5P_DEFAULT, H5R_OBJECT, &oref[1]);
    char name[32] = "";
    CHECK(o >= 0 && H5Iget_name(o, name, sizeof name) > 0 && !strcmp(name, "/d_int"), "H5Rdereference2 (%s)",
          name);
    H5Oclose(o);
    H5Dclose(d);
    /* new-style references */
    H5R_ref_t r2[2];
    a = H5Aopen(f, "r2", H5P_DEFAULT);
    CHECK(H5Aread(a, H5T_STD_REF, r2) >= 0, "read new-style references");
    H5O_type_t ot = H5O_TYPE_UNKNOWN;
    name[0] = '\0';
    CHECK(H5Rget_obj_type3(&r2[0], H5P_DEFAULT, &ot) >= 0 && ot == H5O_TYPE_GROUP &&
              H5Rget_obj_name(&r2[0], H5P_DEFAULT, name, sizeof name) > 0 && !strcmp(name, "/g/sub"),
          "H5Rget_obj_type3, H5Rget_obj_name (%s)", name);
    o = H5Ropen_object(&r2[1], H5P_DEFAULT, H5P_DEFAULT);
    CHECK(o >= 0 && H5Iget_type(o) == H5I_DATASET && is_nczarr(o), "H5Ropen_object");
    H5Oclose(o);
    H5Rdestroy(&r2[0]);
    H5Rdestroy(&r2[1]);
    H5Aclose(a);

    char target[16] = "";
    CHECK(H5Lget_val(f, "soft", target, sizeof target, H5P_DEFAULT) >= 0 && !strcmp(target, "/d_int"),
          "soft link value");
    CHECK(H5Fclose(f) >= 0, "close");
}

static void check_write(const char *path)
{
    char store[4200];
    snprintf(store, sizeof store, "%s/mixed.zarr", dir);
    hid_t f = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
    REQUIRE(f >= 0 && is_nczarr(f), "open the native file read-write through the connector");
    hid_t z = H5Fcreate(store, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    REQUIRE(z >= 0 && is_nczarr(z) && !id_native(z), "a store beside it");

    hsize_t n5 = 5, n2 = 2;
    hid_t s5 = H5Screate_simple(1, &n5, NULL), s2 = H5Screate_simple(1, &n2, NULL),
          s0 = H5Screate(H5S_SCALAR);
    hid_t g = H5Gcreate2(f, "new", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    hid_t d = H5Dcreate2(g, "d", H5T_IEEE_F32LE, s5, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    hid_t zd = H5Dcreate2(z, "zd", H5T_NATIVE_INT, s5, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    CHECK(g >= 0 && d >= 0 && zd >= 0 && id_native(d), "create a group and a dataset in the native file");
    float fv[5] = {1, 2, 3, 4, 5};
    CHECK(H5Dwrite(d, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, fv) >= 0, "write");
    int answer = 42;
    put_attr(d, "answer", H5T_NATIVE_INT, s0, &answer);
    /* a reference and a vlen value: written through the blob callbacks */
    H5R_ref_t r;
    H5Rcreate_object(f, "d_int", H5P_DEFAULT, &r);
    hid_t a = H5Acreate2(g, "ref", H5T_STD_REF, s0, H5P_DEFAULT, H5P_DEFAULT);
    CHECK(a >= 0 && H5Awrite(a, H5T_STD_REF, &r) >= 0, "a reference attribute in the native file");
    H5Aclose(a);
    H5Rdestroy(&r);
    int seq[3] = {7, 8, 9};
    hvl_t vl = {3, seq};
    hid_t vlt = H5Tvlen_create(H5T_NATIVE_INT);
    a = H5Acreate2(g, "vl", vlt, s0, H5P_DEFAULT, H5P_DEFAULT);
    CHECK(a >= 0 && H5Awrite(a, vlt, &vl) >= 0, "a vlen attribute in the native file");
    H5Aclose(a);
    H5Tclose(vlt);

    hid_t e = H5Dopen2(f, "d_ext", H5P_DEFAULT);
    hsize_t n8 = 8, st = 4, cnt = 4;
    CHECK(H5Dset_extent(e, &n8) >= 0, "H5Dset_extent");
    hid_t fsp = H5Dget_space(e), msp = H5Screate_simple(1, &cnt, NULL);
    H5Sselect_hyperslab(fsp, H5S_SELECT_SET, &st, NULL, &cnt, NULL);
    int ev[4] = {4, 5, 6, 7};
    CHECK(H5Dwrite(e, H5T_NATIVE_INT, msp, fsp, H5P_DEFAULT, ev) >= 0, "write the new part");
    H5Sclose(fsp);
    H5Sclose(msp);

    /* multi-dataset transfers: both native, then native and store mixed */
    hid_t dd[2] = {d, e}, types[2] = {H5T_NATIVE_FLOAT, H5T_NATIVE_INT}, all[2] = {H5S_ALL, H5S_ALL};
    float fv2[5] = {10, 20, 30, 40, 50};
    int ev2[8] = {0, 1, 2, 3, 4, 5, 6, 70};
    const void *bufs[2] = {fv2, ev2};
    CHECK(H5Dwrite_multi(2, dd, types, all, all, H5P_DEFAULT, bufs) >= 0,
          "H5Dwrite_multi on native datasets");
    float fr[5] = {0};
    int er[8] = {0};
    void *rbufs[2] = {fr, er};
    CHECK(H5Dread_multi(2, dd, types, all, all, H5P_DEFAULT, rbufs) >= 0 && fr[4] == 50 && er[7] == 70,
          "H5Dread_multi on native datasets");
    errtext_t et;
    hid_t mixed[2] = {d, zd}, mtypes[2] = {H5T_NATIVE_FLOAT, H5T_NATIVE_INT};
    herr_t rc;
    H5E_BEGIN_TRY
    {
        rc = H5Dwrite_multi(2, mixed, mtypes, all, all, H5P_DEFAULT, bufs);
    }
    H5E_END_TRY
    take_errors(&et);
    CHECK(rc < 0 && nczarr_error_has(&et, "cannot mix"), "mixed H5Dwrite_multi fails clearly:\n%s", et.text);
    /* H5Ocopy across connectors (test_vol_xcopy covers it): the copy reads as the original */
    CHECK(H5Ocopy(f, "d_int", z, "copy", H5P_DEFAULT, H5P_DEFAULT) >= 0,
          "H5Ocopy from a native file into a store");
    {
        int cr[64] = {0};
        hid_t cd = H5Dopen2(z, "copy", H5P_DEFAULT);
        CHECK(cd >= 0 && H5Dread(cd, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, cr) >= 0 && cr[7] == 11,
              "the copy in the store holds the native dataset's values");
        if (cd >= 0)
            H5Dclose(cd);
    }
    CHECK(H5Fget_obj_count(z, H5F_OBJ_ALL) == 2 && H5Fget_obj_count(f, H5F_OBJ_ALL) == 4,
          "object counts stay per file (store %lld, native %lld)",
          (long long)H5Fget_obj_count(z, H5F_OBJ_ALL), (long long)H5Fget_obj_count(f, H5F_OBJ_ALL));
    H5Dclose(zd);
    H5Dclose(e);
    H5Dclose(d);
    H5Gclose(g);

    CHECK(H5Lmove(f, "new/d", f, "new/moved", H5P_DEFAULT, H5P_DEFAULT) >= 0, "H5Lmove");
    CHECK(H5Ldelete(f, "soft", H5P_DEFAULT) >= 0, "H5Ldelete");
    hid_t f2 = H5Freopen(f);
    CHECK(f2 >= 0 && is_nczarr(f2) && H5Lexists(f2, "new/moved", H5P_DEFAULT) > 0, "H5Freopen");
    if (f2 >= 0)
        H5Fclose(f2);
    CHECK(H5Fclose(z) >= 0 && H5Fclose(f) >= 0, "close both");
    H5Sclose(s5);
    H5Sclose(s2);
    H5Sclose(s0);

    /* read back natively */
    hid_t fapl = native_fapl();
    f = H5Fopen(path, H5F_ACC_RDONLY, fapl);
    H5Pclose(fapl);
    REQUIRE(f >= 0 && !is_nczarr(f), "reopen natively");
    d = H5Dopen2(f, "new/moved", H5P_DEFAULT);
    CHECK(d >= 0 && H5Dread(d, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, fr) >= 0 && fr[2] == 30,
          "the dataset written through the connector");
    a = H5Aopen(d, "answer", H5P_DEFAULT);
    answer = 0;
    CHECK(H5Aread(a, H5T_NATIVE_INT, &answer) >= 0 && answer == 42, "its attribute");
    H5Aclose(a);
    H5Dclose(d);
    d = H5Dopen2(f, "d_ext", H5P_DEFAULT);
    CHECK(H5Dread(d, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, er) >= 0 && er[6] == 6 && er[7] == 70,
          "the extended dataset");
    H5Dclose(d);
    a = H5Aopen_by_name(f, "new", "ref", H5P_DEFAULT, H5P_DEFAULT);
    char name[32] = "";
    CHECK(H5Aread(a, H5T_STD_REF, &r) >= 0 && H5Rget_obj_name(&r, H5P_DEFAULT, name, sizeof name) > 0 &&
              !strcmp(name, "/d_int"),
          "the reference attribute (%s)", name);
    H5Rdestroy(&r);
    H5Aclose(a);
    vlt = H5Tvlen_create(H5T_NATIVE_INT);
    a = H5Aopen_by_name(f, "new", "vl", H5P_DEFAULT, H5P_DEFAULT);
    vl.len = 0;
    vl.p = NULL;
    CHECK(H5Aread(a, vlt, &vl) >= 0 && vl.len == 3 && ((int *)vl.p)[2] == 9, "the vlen attribute");
    hid_t sp = H5Aget_space(a);
    H5Treclaim(vlt, sp, H5P_DEFAULT, &vl);
    H5Sclose(sp);
    H5Aclose(a);
    H5Tclose(vlt);
    CHECK(H5Lexists(f, "soft", H5P_DEFAULT) == 0, "the deleted link");
    H5Fclose(f);
}

static void check_files(void)
{
    char p[4200], q[4200];
    /* the superblock after a user block of 512 bytes */
    snprintf(p, sizeof p, "%s/userblock.h5", dir);
    REQUIRE(write_native(p, 512) >= 0, "write a native file with a user block");
    hid_t f = H5Fopen(p, H5F_ACC_RDONLY, H5P_DEFAULT);
    CHECK(f >= 0 && is_nczarr(f) && id_native(f) && H5Lexists(f, "d_int", H5P_DEFAULT) > 0,
          "a native file with a user block opens through the connector");
    if (f >= 0)
        H5Fclose(f);

    /* H5F_CLOSE_STRONG: closing the native file closes its objects (HDF5 walks every id,
     * the store's too), not those of a store open beside it */
    char z[4200];
    snprintf(z, sizeof z, "%s/strong.zarr", dir);
    hid_t zf = H5Fcreate(z, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    hid_t zg = H5Gcreate2(zf, "g", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    hsize_t n1 = 1;
    hid_t s1 = H5Screate_simple(1, &n1, NULL);
    hid_t za = H5Acreate2(zg, "a", H5T_NATIVE_INT, s1, H5P_DEFAULT, H5P_DEFAULT);
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    H5Pset_fclose_degree(fapl, H5F_CLOSE_STRONG);
    f = H5Fopen(p, H5F_ACC_RDONLY, fapl);
    H5Pclose(fapl);
    hid_t d = H5Dopen2(f, "d_int", H5P_DEFAULT), g = H5Gopen2(f, "g", H5P_DEFAULT);
    hid_t a = H5Aopen(d, "scale", H5P_DEFAULT);
    CHECK(f >= 0 && is_nczarr(f) && d >= 0 && g >= 0 && a >= 0, "open with H5F_CLOSE_STRONG");
    CHECK(H5Fclose(f) >= 0 && H5Iis_valid(d) <= 0 && H5Iis_valid(a) <= 0,
          "a strong close closes its objects");
    int one = 1;
    CHECK(H5Iis_valid(zg) > 0 && H5Awrite(za, H5T_NATIVE_INT, &one) >= 0,
          "the store's objects are still open");
    H5Aclose(za);
    H5Sclose(s1);
    H5Gclose(zg);
    H5Fclose(zf);
    CHECK(H5Fdelete(p, H5P_DEFAULT) >= 0 && access(p, F_OK) != 0, "H5Fdelete of a native file");

    /* a regular file that is not HDF5: the connector's error, no crash */
    snprintf(q, sizeof q, "%s/text.txt", dir);
    FILE *t = fopen(q, "w");
    fputs("not HDF5 at all\n", t);
    fclose(t);
    errtext_t et;
    H5E_BEGIN_TRY
    {
        f = H5Fopen(q, H5F_ACC_RDONLY, H5P_DEFAULT);
    }
    H5E_END_TRY
    take_errors(&et);
    CHECK(f < 0 && strstr(et.text, "NCZarr VOL: "), "a text file is no store and no HDF5 file:\n%s", et.text);
    CHECK(H5Fis_accessible(q, H5P_DEFAULT) == 0, "H5Fis_accessible of a text file is false");
    if (f >= 0)
        H5Fclose(f);

    /* H5Fcreate with H5F_ACC_TRUNC replaces a file at the path with a store, as native HDF5
     * replaces it (a program run again over its earlier output, an HDF5 or netCDF-3 file);
     * H5F_ACC_EXCL refuses it */
    CHECK(write_native(p, 0) == 0, "a native file to replace");
    const char *olds[] = {q, p};
    for (int i = 0; i < 2; i++) {
        struct stat sb;
        H5E_BEGIN_TRY
        {
            f = H5Fcreate(olds[i], H5F_ACC_EXCL, H5P_DEFAULT, H5P_DEFAULT);
        }
        H5E_END_TRY
        CHECK(f < 0 && stat(olds[i], &sb) == 0 && S_ISREG(sb.st_mode), "H5F_ACC_EXCL refuses the file %s",
              olds[i]);
        if (f >= 0)
            H5Fclose(f);
        f = H5Fcreate(olds[i], H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
        hid_t g = f >= 0 ? H5Gcreate2(f, "new", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT) : H5I_INVALID_HID;
        CHECK(f >= 0 && g >= 0, "H5F_ACC_TRUNC replaces the file %s with a store", olds[i]);
        if (g >= 0)
            H5Gclose(g);
        if (f >= 0)
            H5Fclose(f);
        CHECK(stat(olds[i], &sb) == 0 && S_ISDIR(sb.st_mode), "%s is a directory store now", olds[i]);
        f = H5Fopen(olds[i], H5F_ACC_RDONLY, H5P_DEFAULT);
        CHECK(f >= 0 && H5Lexists(f, "new", H5P_DEFAULT) > 0 && H5Lexists(f, "g", H5P_DEFAULT) == 0,
              "the new store reopens with the new content only");
        if (f >= 0)
            H5Fclose(f);
    }
}

int main(int argc, char **argv)
{
    if (argc == 3 && !strcmp(argv[1], "--write-native"))
        return write_native(argv[2], 0) < 0 ? EXIT_FAILURE : EXIT_SUCCESS;
    scratch_dir(dir, sizeof dir, "native");
    char path[4200];
    snprintf(path, sizeof path, "%s/native.h5", dir);
    if (write_native(path, 0) < 0) {
        fprintf(stderr, "FAIL: cannot write %s natively\n", path);
        return EXIT_FAILURE;
    }
    check_read(path);
    check_write(path);
    check_files();
    rm_rf(dir);
    TEST_MAIN_END();
}
