/* Old-style object references (H5T_STD_REF_OBJ, an 8-byte hobj_ref_t: what h5py writes by
 * default, what h5repack copies references with and PyTables reads) through the connector.
 * HDF5's H5Rcreate refuses objects of a non-native file, so the references are built here
 * as the preload library builds them: the first 8 bytes of the object's token (H5Oget_info3),
 * and followed back with H5Oopen_by_token, their names compared with H5Iget_name.
 *  - attributes: scalar, 1-D, 2-D, a compound with a reference member, an array type and a
 *    vlen of references; read back before and after a reopen; stored as the objects' paths
 *    (typed |S<n> when none is null, the exact type kept); followed through H5Lmove of a
 *    group holding the targets, in the open and after a reopen; a deleted object's read as
 *    null; a reference naming no object written as null;
 *  - datasets: 1-D chunked written in part (unwritten elements: the null reference), a
 *    scalar, 2-D, partial reads into a larger memory buffer; stored as text with the exact
 *    type kept; the store reopened and a target moved before the dataset is used (then
 *    reopened again), a target deleted; the null reference as a fill value, another fill
 *    value refused; another memory type refused;
 *  - NCZarr v2's fixed-width text (the connector option maxstrlen): a path too long to
 *    write, and a move that would make a stored path too long, refused naming them;
 *  - refusals: region references (attributes and datasets), references inside a compound
 *    dataset, pure Zarr.
 * Runs once per store format (ctest: vol.test_vol_oldrefs and vol.test_vol_oldrefs_v3). */
#include "vol_test_util.h"

#include <dlfcn.h>

#include <H5VLconnector.h>
#include <stdint.h>
#include <sys/stat.h>

static char dir[4096];

/* The reference the preload makes for an object: the first 8 bytes of its token. */
static hobj_ref_t oref_of(hid_t loc, const char *name)
{
    H5O_info2_t oi;
    hobj_ref_t r = 0;
    memset(&oi, 0, sizeof oi);
    if (H5Oget_info_by_name3(loc, name, &oi, H5O_INFO_BASIC, H5P_DEFAULT) < 0)
        fprintf(stderr, "H5Oget_info_by_name3(%s) failed\n", name);
    memcpy(&r, &oi.token, sizeof r);
    return r;
}

/* The name of the object a reference leads to ("" for none). */
static const char *ref_target(hid_t f, hobj_ref_t r)
{
    static char buf[4][256];
    static int k;
    char *b = buf[k++ % 4];
    b[0] = '\0';
    if (!r)
        return b;
    H5O_token_t t;
    memset(&t, 0, sizeof t);
    memcpy(&t, &r, sizeof r);
    hid_t o;
    H5E_BEGIN_TRY
    {
        o = H5Oopen_by_token(f, t);
    }
    H5E_END_TRY
    if (o >= 0) {
        if (H5Iget_name(o, b, sizeof buf[0]) < 0)
            b[0] = '\0';
        H5Oclose(o);
    } else {
        snprintf(b, sizeof buf[0], "(no object)");
    }
    return b;
}

static bool v3_store(const char *p)
{
    char k[4300];
    struct stat st;
    snprintf(k, sizeof k, "%s/zarr.json", p);
    return stat(k, &st) == 0;
}

/* The root's metadata where attributes are: .zattrs in v2, zarr.json in v3. */
static const char *meta_of(const char *p, const char *obj)
{
    static char k[4400];
    snprintf(k, sizeof k, "%s%s%s/%s", p, *obj ? "/" : "", obj, v3_store(p) ? "zarr.json" : ".zattrs");
    return slurp(k);
}

static hid_t open_store(const char *p, unsigned flags)
{
    hid_t f = H5Fopen(p, flags, H5P_DEFAULT);
    if (f < 0 || !is_nczarr(f)) {
        fprintf(stderr, "cannot open %s through the nczarr connector\n", p);
        exit(2);
    }
    return f;
}

static void put_attr(hid_t loc, const char *name, hid_t type, hid_t space, const void *buf)
{
    hid_t a = H5Acreate2(loc, name, type, space, H5P_DEFAULT, H5P_DEFAULT);
    CHECK(a >= 0 && H5Awrite(a, type, buf) >= 0, "write attribute %s", name);
    if (a >= 0)
        H5Aclose(a);
}

static bool get_attr(hid_t loc, const char *name, hid_t type, void *buf)
{
    hid_t a = H5Aopen(loc, name, H5P_DEFAULT);
    bool ok = a >= 0 && H5Aread(a, type, buf) >= 0;
    if (a >= 0) {
        hid_t t = H5Aget_type(a);
        ok = ok && H5Tequal(t, type) > 0;
        H5Tclose(t);
        H5Aclose(a);
    }
    return ok;
}

/* ---- attributes ---- */

typedef struct rec {
    hobj_ref_t ref;
    int n;
} rec;

static hid_t rec_type(void)
{
    hid_t t = H5Tcreate(H5T_COMPOUND, sizeof(rec));
    H5Tinsert(t, "ref", HOFFSET(rec, ref), H5T_STD_REF_OBJ);
    H5Tinsert(t, "n", HOFFSET(rec, n), H5T_NATIVE_INT);
    return t;
}

static void make_targets(hid_t f)
{
    hid_t g = H5Gcreate2(f, "g", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    hid_t sub = H5Gcreate2(g, "sub", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    hid_t s = H5Screate_simple(1, (hsize_t[]){3}, NULL);
    hid_t d = H5Dcreate2(g, "d", H5T_NATIVE_INT, s, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    hid_t top = H5Dcreate2(f, "top", H5T_NATIVE_INT, s, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    CHECK(g >= 0 && sub >= 0 && d >= 0 && top >= 0, "create the targets");
    H5Dclose(top);
    H5Dclose(d);
    H5Sclose(s);
    H5Gclose(sub);
    H5Gclose(g);
}

/* The attributes' values, read and followed: the names they lead to, in order. */
static void check_attrs(hid_t f, const char *gd, const char *top, const char *g, const char *sub,
                        const char *when)
{
    hobj_ref_t one = 0, list[4] = {0}, grid[2][3], bad[2] = {0};
    rec rv[2];
    hobj_ref_t arr[2] = {0};
    hvl_t vl = {0, NULL};
    memset(grid, 0, sizeof grid);
    memset(rv, 0, sizeof rv);
    CHECK(get_attr(f, "one", H5T_STD_REF_OBJ, &one) && !strcmp(ref_target(f, one), gd), "%s: scalar -> %s",
          when, ref_target(f, one));
    CHECK(get_attr(f, "list", H5T_STD_REF_OBJ, list), "%s: read list", when);
    CHECK(!strcmp(ref_target(f, list[0]), g) && !strcmp(ref_target(f, list[1]), top) && list[2] == 0 &&
              !strcmp(ref_target(f, list[3]), sub),
          "%s: list -> %s %s %llu %s", when, ref_target(f, list[0]), ref_target(f, list[1]),
          (unsigned long long)list[2], ref_target(f, list[3]));
    CHECK(get_attr(f, "grid", H5T_STD_REF_OBJ, grid) && !strcmp(ref_target(f, grid[0][0]), gd) &&
              !strcmp(ref_target(f, grid[1][2]), g) && grid[0][1] == 0,
          "%s: 2-D -> %s %s", when, ref_target(f, grid[0][0]), ref_target(f, grid[1][2]));
    hid_t rt = rec_type();
    CHECK(get_attr(f, "rec", rt, rv) && !strcmp(ref_target(f, rv[0].ref), gd) && rv[0].n == 7 &&
              rv[1].ref == 0 && rv[1].n == -1,
          "%s: compound -> %s %d", when, ref_target(f, rv[0].ref), rv[0].n);
    H5Tclose(rt);
    hid_t at = H5Tarray_create2(H5T_STD_REF_OBJ, 1, (hsize_t[]){2});
    CHECK(get_attr(f, "arr", at, arr) && !strcmp(ref_target(f, arr[0]), top) &&
              !strcmp(ref_target(f, arr[1]), sub),
          "%s: array type -> %s %s", when, ref_target(f, arr[0]), ref_target(f, arr[1]));
    H5Tclose(at);
    hid_t vt = H5Tvlen_create(H5T_STD_REF_OBJ);
    CHECK(get_attr(f, "vl", vt, &vl) && vl.len == 3 && !strcmp(ref_target(f, ((hobj_ref_t *)vl.p)[0]), g) &&
              ((hobj_ref_t *)vl.p)[1] == 0 && !strcmp(ref_target(f, ((hobj_ref_t *)vl.p)[2]), gd),
          "%s: vlen of references (%zu)", when, vl.len);
    hid_t sp = H5Screate(H5S_SCALAR);
    H5Treclaim(vt, sp, H5P_DEFAULT, &vl);
    H5Sclose(sp);
    H5Tclose(vt);
    /* written with an id that names no object: the null reference */
    CHECK(get_attr(f, "bad", H5T_STD_REF_OBJ, bad) && bad[0] == 0 && !strcmp(ref_target(f, bad[1]), top),
          "%s: a reference to no object reads as null (%llu), the other as %s", when,
          (unsigned long long)bad[0], ref_target(f, bad[1]));
    /* as H5R_ref_t (H5T_STD_REF), as HDF5 converts them for h5dump and h5diff */
    H5R_ref_t nr[4];
    char nm[64] = "";
    memset(nr, 0, sizeof nr);
    hid_t a = H5Aopen(f, "list", H5P_DEFAULT);
    CHECK(a >= 0 && H5Aread(a, H5T_STD_REF, nr) >= 0 &&
              H5Rget_obj_name(&nr[3], H5P_DEFAULT, nm, sizeof nm) > 0 && !strcmp(nm, sub),
          "%s: list read as H5T_STD_REF -> %s", when, nm);
    for (int i = 0; i < 4; i++)
        H5Rdestroy(&nr[i]);
    if (a >= 0)
        H5Aclose(a);
    hid_t d = H5Dopen2(f, gd, H5P_DEFAULT);
    hobj_ref_t self = 0;
    CHECK(d >= 0 && get_attr(d, "self", H5T_STD_REF_OBJ, &self) && !strcmp(ref_target(f, self), gd),
          "%s: a dataset's reference to itself -> %s", when, ref_target(f, self));
    if (d >= 0)
        H5Dclose(d);
}

static void test_attrs(void)
{
    char p[4200];
    hid_t f = create_store_in(dir, "attrs", p, sizeof p);
    make_targets(f);
    hobj_ref_t gd = oref_of(f, "/g/d"), top = oref_of(f, "/top"), g = oref_of(f, "/g"),
               sub = oref_of(f, "/g/sub");
    REQUIRE(gd && top && g && sub && gd != top, "tokens make references");
    hid_t sc = H5Screate(H5S_SCALAR), s4 = H5Screate_simple(1, (hsize_t[]){4}, NULL);
    hid_t s2 = H5Screate_simple(1, (hsize_t[]){2}, NULL), s23 = H5Screate_simple(2, (hsize_t[]){2, 3}, NULL);
    put_attr(f, "one", H5T_STD_REF_OBJ, sc, &gd);
    hobj_ref_t list[4] = {g, top, 0, sub};
    put_attr(f, "list", H5T_STD_REF_OBJ, s4, list);
    hobj_ref_t grid[2][3] = {{gd, 0, top}, {sub, top, g}};
    put_attr(f, "grid", H5T_STD_REF_OBJ, s23, grid);
    hid_t rt = rec_type();
    rec rv[2] = {{gd, 7}, {0, -1}};
    put_attr(f, "rec", rt, s2, rv);
    H5Tclose(rt);
    hid_t at = H5Tarray_create2(H5T_STD_REF_OBJ, 1, (hsize_t[]){2});
    hobj_ref_t arr[2] = {top, sub};
    put_attr(f, "arr", at, sc, arr);
    H5Tclose(at);
    hid_t vt = H5Tvlen_create(H5T_STD_REF_OBJ);
    hobj_ref_t vals[3] = {g, 0, gd};
    hvl_t vl = {3, vals};
    put_attr(f, "vl", vt, sc, &vl);
    H5Tclose(vt);
    hobj_ref_t bad[2] = {(hobj_ref_t)0x0123456789abcdefULL, top};
    put_attr(f, "bad", H5T_STD_REF_OBJ, s2, bad);
    hid_t d = H5Dopen2(f, "/g/d", H5P_DEFAULT);
    put_attr(d, "self", H5T_STD_REF_OBJ, sc, &gd);
    H5Dclose(d);
    /* an attribute of references is read and written with its own type only */
    hid_t a = H5Aopen(f, "one", H5P_DEFAULT);
    long long wrong = 0;
    herr_t r;
    errtext_t et;
    H5E_BEGIN_TRY
    {
        r = H5Aread(a, H5T_NATIVE_LLONG, &wrong);
    }
    H5E_END_TRY
    take_errors(&et);
    CHECK(r < 0 && nczarr_error_has(&et, "one"), "read with another type is refused: %s", et.text);
    H5Aclose(a);
    check_attrs(f, "/g/d", "/top", "/g", "/g/sub", "written");
    H5Fclose(f);

    /* stored as paths; the plain references typed as strings for netCDF-C */
    const char *m = meta_of(p, "");
    CHECK(strstr(m, "\"/g/d\"") && strstr(m, "\"/g/sub\"") && strstr(m, "\"atypes\"") &&
              !strstr(m, "81985529216486895"),
          "the root's metadata holds the paths:\n%.2000s", m);
    CHECK(strstr(m, "\"one\": \"|S") || strstr(m, "\"one\":\"|S"), "a plain reference is typed |S<n>");

    f = open_store(p, H5F_ACC_RDONLY);
    check_attrs(f, "/g/d", "/top", "/g", "/g/sub", "reopened");
    H5Fclose(f);

    /* a move of the group holding targets: followed in the open and after a reopen */
    f = open_store(p, H5F_ACC_RDWR);
    CHECK(H5Lmove(f, "g", f, "h", H5P_DEFAULT, H5P_DEFAULT) >= 0, "H5Lmove /g -> /h");
    check_attrs(f, "/h/d", "/top", "/h", "/h/sub", "moved");
    H5Fclose(f);
    f = open_store(p, H5F_ACC_RDWR);
    check_attrs(f, "/h/d", "/top", "/h", "/h/sub", "moved and reopened");
    /* a deleted target: null */
    CHECK(H5Ldelete(f, "top", H5P_DEFAULT) >= 0, "H5Ldelete /top");
    hobj_ref_t l[4] = {0};
    CHECK(get_attr(f, "list", H5T_STD_REF_OBJ, l) && l[1] == 0 && !strcmp(ref_target(f, l[0]), "/h"),
          "a reference to a deleted object reads as null (%llu)", (unsigned long long)l[1]);
    H5Fclose(f);
    f = open_store(p, H5F_ACC_RDONLY);
    memset(l, 0, sizeof l);
    CHECK(get_attr(f, "list", H5T_STD_REF_OBJ, l) && l[1] == 0 && !strcmp(ref_target(f, l[3]), "/h/sub"),
          "after a reopen too");
    H5Fclose(f);
    H5Sclose(sc);
    H5Sclose(s4);
    H5Sclose(s2);
    H5Sclose(s23);
}

/* ---- datasets ---- */

static hid_t make_refs_dset(hid_t loc, const char *name, int rank, const hsize_t *dims, const hsize_t *chunk)
{
    hid_t s = H5Screate_simple(rank, dims, NULL), dcpl = H5Pcreate(H5P_DATASET_CREATE);
    if (chunk)
        H5Pset_chunk(dcpl, rank, chunk);
    hid_t d = H5Dcreate2(loc, name, H5T_STD_REF_OBJ, s, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    CHECK(d >= 0, "create dataset %s", name);
    H5Pclose(dcpl);
    H5Sclose(s);
    return d;
}

static bool read_all(hid_t f, const char *name, hobj_ref_t *buf)
{
    hid_t d = H5Dopen2(f, name, H5P_DEFAULT);
    bool ok = d >= 0 && H5Dread(d, H5T_STD_REF_OBJ, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) >= 0;
    if (d >= 0) {
        hid_t t = H5Dget_type(d);
        ok = ok && H5Tequal(t, H5T_STD_REF_OBJ) > 0;
        H5Tclose(t);
        H5Dclose(d);
    }
    return ok;
}

/* The datasets' values, followed: /refs = {0, gd, top, 0, g, 0}, /one = gd, /grid[1] = {sub,
 * gd, 0}. */
static void check_dsets(hid_t f, const char *gd, const char *top, const char *g, const char *sub,
                        const char *when)
{
    hobj_ref_t v[6], one = 0, grid[2][3];
    memset(v, 0xff, sizeof v);
    memset(grid, 0, sizeof grid);
    CHECK(read_all(f, "refs", v) && v[0] == 0 && !strcmp(ref_target(f, v[1]), gd) &&
              !strcmp(ref_target(f, v[2]), top) && v[3] == 0 && !strcmp(ref_target(f, v[4]), g) && v[5] == 0,
          "%s: /refs -> %llu %s %s %llu %s %llu", when, (unsigned long long)v[0], ref_target(f, v[1]),
          ref_target(f, v[2]), (unsigned long long)v[3], ref_target(f, v[4]), (unsigned long long)v[5]);
    CHECK(read_all(f, "one", &one) && !strcmp(ref_target(f, one), gd), "%s: scalar dataset -> %s", when,
          ref_target(f, one));
    CHECK(read_all(f, "grid", &grid[0][0]) && !strcmp(ref_target(f, grid[1][0]), sub) &&
              !strcmp(ref_target(f, grid[1][1]), gd) && grid[1][2] == 0 &&
              !strcmp(ref_target(f, grid[0][2]), top),
          "%s: 2-D dataset -> %s %s", when, ref_target(f, grid[1][0]), ref_target(f, grid[1][1]));
    /* a part: elements 1..4 of the file into every other element of a memory buffer */
    hobj_ref_t m[8];
    memset(m, 0, sizeof m);
    hid_t d = H5Dopen2(f, "refs", H5P_DEFAULT);
    hid_t fs = H5Dget_space(d), ms = H5Screate_simple(1, (hsize_t[]){8}, NULL);
    H5Sselect_hyperslab(fs, H5S_SELECT_SET, (hsize_t[]){1}, NULL, (hsize_t[]){4}, NULL);
    H5Sselect_hyperslab(ms, H5S_SELECT_SET, (hsize_t[]){0}, (hsize_t[]){2}, (hsize_t[]){4}, NULL);
    CHECK(H5Dread(d, H5T_STD_REF_OBJ, ms, fs, H5P_DEFAULT, m) >= 0 && !strcmp(ref_target(f, m[0]), gd) &&
              m[1] == 0 && !strcmp(ref_target(f, m[2]), top) && m[4] == 0 && !strcmp(ref_target(f, m[6]), g),
          "%s: a partial read into a strided memory selection", when);
    H5Sclose(ms);
    H5Sclose(fs);
    H5Dclose(d);
    /* as H5R_ref_t (H5T_STD_REF), as HDF5 converts them for h5dump and h5diff */
    H5R_ref_t nr[6];
    char nm[2][64] = {"", ""};
    memset(nr, 0, sizeof nr);
    d = H5Dopen2(f, "refs", H5P_DEFAULT);
    CHECK(H5Dread(d, H5T_STD_REF, H5S_ALL, H5S_ALL, H5P_DEFAULT, nr) >= 0 &&
              H5Rget_obj_name(&nr[1], H5P_DEFAULT, nm[0], sizeof nm[0]) > 0 && !strcmp(nm[0], gd) &&
              H5Rget_obj_name(&nr[4], H5P_DEFAULT, nm[1], sizeof nm[1]) > 0 && !strcmp(nm[1], g),
          "%s: read as H5T_STD_REF: %s %s", when, nm[0], nm[1]);
    for (int i = 0; i < 6; i++)
        H5Rdestroy(&nr[i]);
    H5Dclose(d);
}

static void test_dsets(void)
{
    char p[4200];
    hid_t f = create_store_in(dir, "dsets", p, sizeof p);
    make_targets(f);
    hobj_ref_t gd = oref_of(f, "/g/d"), top = oref_of(f, "/top"), g = oref_of(f, "/g"),
               sub = oref_of(f, "/g/sub");
    /* 6 elements in chunks of 4: elements 1..4 written, 0 and 5 left to the fill value */
    hid_t d = make_refs_dset(f, "refs", 1, (hsize_t[]){6}, (hsize_t[]){4});
    hid_t fs = H5Dget_space(d), ms = H5Screate_simple(1, (hsize_t[]){4}, NULL);
    H5Sselect_hyperslab(fs, H5S_SELECT_SET, (hsize_t[]){1}, NULL, (hsize_t[]){4}, NULL);
    hobj_ref_t w[4] = {gd, top, (hobj_ref_t)0x0123456789abcdefULL, g};
    CHECK(H5Dwrite(d, H5T_STD_REF_OBJ, ms, fs, H5P_DEFAULT, w) >= 0, "write part of /refs");
    H5Sclose(ms);
    H5Sclose(fs);
    /* another memory type: refused, naming the dataset */
    long long other[6];
    errtext_t et;
    herr_t r;
    H5E_BEGIN_TRY
    {
        r = H5Dread(d, H5T_NATIVE_LLONG, H5S_ALL, H5S_ALL, H5P_DEFAULT, other);
    }
    H5E_END_TRY
    take_errors(&et);
    CHECK(r < 0 && nczarr_error_has(&et, "refs") && nczarr_error_has(&et, "H5T_STD_REF_OBJ"),
          "a read with another type is refused: %s", et.text);
    H5Dclose(d);
    hid_t sc = H5Screate(H5S_SCALAR);
    d = H5Dcreate2(f, "one", H5T_STD_REF_OBJ, sc, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    CHECK(d >= 0 && H5Dwrite(d, H5T_STD_REF_OBJ, H5S_ALL, H5S_ALL, H5P_DEFAULT, &gd) >= 0, "scalar dataset");
    H5Dclose(d);
    /* written as H5R_ref_t (H5T_STD_REF): the same as the references of their objects */
    d = H5Dcreate2(f, "two", H5T_STD_REF_OBJ, sc, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    H5R_ref_t nr;
    hobj_ref_t back = 0;
    CHECK(d >= 0 && H5Rcreate_object(f, "/g/sub", H5P_DEFAULT, &nr) >= 0 &&
              H5Dwrite(d, H5T_STD_REF, H5S_ALL, H5S_ALL, H5P_DEFAULT, &nr) >= 0 &&
              H5Dread(d, H5T_STD_REF_OBJ, H5S_ALL, H5S_ALL, H5P_DEFAULT, &back) >= 0 && back == sub,
          "a dataset of H5T_STD_REF_OBJ written as H5T_STD_REF");
    H5Rdestroy(&nr);
    H5Dclose(d);
    d = make_refs_dset(f, "grid", 2, (hsize_t[]){2, 3}, NULL);
    hobj_ref_t grid[2][3] = {{g, 0, top}, {sub, gd, 0}};
    CHECK(H5Dwrite(d, H5T_STD_REF_OBJ, H5S_ALL, H5S_ALL, H5P_DEFAULT, grid) >= 0, "2-D dataset");
    H5Dclose(d);
    /* the null reference as a fill value; another refused */
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    hobj_ref_t fill = 0;
    H5Pset_fill_value(dcpl, H5T_STD_REF_OBJ, &fill);
    d = H5Dcreate2(f, "nullfill", H5T_STD_REF_OBJ, sc, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    hobj_ref_t rd = 1;
    CHECK(d >= 0 && H5Dread(d, H5T_STD_REF_OBJ, H5S_ALL, H5S_ALL, H5P_DEFAULT, &rd) >= 0 && rd == 0,
          "the null reference as a fill value");
    if (d >= 0)
        H5Dclose(d);
    fill = gd;
    H5Pset_fill_value(dcpl, H5T_STD_REF_OBJ, &fill);
    H5E_BEGIN_TRY
    {
        d = H5Dcreate2(f, "badfill", H5T_STD_REF_OBJ, sc, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    }
    H5E_END_TRY
    take_errors(&et);
    CHECK(d < 0 && nczarr_error_has(&et, "badfill"), "another fill value is refused: %s", et.text);
    if (d >= 0)
        H5Dclose(d);
    H5Pclose(dcpl);
    H5Sclose(sc);
    check_dsets(f, "/g/d", "/top", "/g", "/g/sub", "written");
    H5Fclose(f);

    /* stored as text with the exact type kept */
    char k[4400];
    snprintf(k, sizeof k, "%s/refs/%s", p, v3_store(p) ? "zarr.json" : ".zarray");
    const char *za = slurp(k);
    CHECK(v3_store(p) ? strstr(za, "\"string\"") != NULL : strstr(za, "\"|S") != NULL,
          "/refs is stored as text:\n%s", za);
    const char *m = meta_of(p, "refs");
    CHECK(strstr(m, "\"hdf5_type\""), "/refs keeps its HDF5 type:\n%.1500s", m);

    f = open_store(p, H5F_ACC_RDONLY);
    check_dsets(f, "/g/d", "/top", "/g", "/g/sub", "reopened");
    H5Fclose(f);

    /* moved before the datasets are used in this open, then reopened */
    f = open_store(p, H5F_ACC_RDWR);
    CHECK(H5Lmove(f, "g", f, "h", H5P_DEFAULT, H5P_DEFAULT) >= 0, "H5Lmove /g -> /h");
    H5Fclose(f);
    f = open_store(p, H5F_ACC_RDWR);
    check_dsets(f, "/h/d", "/top", "/h", "/h/sub", "moved and reopened");
    /* moved in the open after a read, followed at once */
    CHECK(H5Lmove(f, "h", f, "k", H5P_DEFAULT, H5P_DEFAULT) >= 0, "H5Lmove /h -> /k");
    check_dsets(f, "/k/d", "/top", "/k", "/k/sub", "moved again");
    /* a deleted target: null */
    CHECK(H5Ldelete(f, "top", H5P_DEFAULT) >= 0, "H5Ldelete /top");
    hobj_ref_t v[6];
    CHECK(read_all(f, "refs", v) && v[2] == 0 && !strcmp(ref_target(f, v[1]), "/k/d"),
          "a reference to a deleted object reads as null (%llu)", (unsigned long long)v[2]);
    H5Fclose(f);
    f = open_store(p, H5F_ACC_RDONLY);
    hobj_ref_t gr[2][3];
    CHECK(read_all(f, "refs", v) && v[2] == 0 && !strcmp(ref_target(f, v[4]), "/k"), "after a reopen too: %s",
          ref_target(f, v[4]));
    CHECK(read_all(f, "grid", &gr[0][0]) && gr[0][2] == 0 && !strcmp(ref_target(f, gr[1][1]), "/k/d"),
          "the 2-D dataset too");
    H5Fclose(f);
}

/* ---- paths longer than NCZarr v2's fixed-width text holds ---- */

static void test_long_paths(void)
{
    char p[4200];
    errtext_t et;
    herr_t r;
    /* a store whose new string datasets hold 8 bytes (the connector option maxstrlen=8) */
    hid_t cid = H5VLget_connector_id_by_name("nczarr"), fapl = H5Pcreate(H5P_FILE_ACCESS);
    void *info = NULL;
    REQUIRE(cid >= 0 && H5VLconnector_str_to_info("maxstrlen=8", cid, &info) >= 0 &&
                H5Pset_vol(fapl, cid, info) >= 0,
            "a file access list with maxstrlen=8");
    H5VLfree_connector_info(cid, info);
    snprintf(p, sizeof p, "%s/long.zarr", dir);
    hid_t f = H5Fcreate(p, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    REQUIRE(f >= 0 && is_nczarr(f), "create %s", p);
    hid_t g = H5Gcreate2(f, "g", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    hid_t l = H5Gcreate2(f, "longer_name", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    hid_t sc = H5Screate(H5S_SCALAR);
    hid_t d = H5Dcreate2(f, "refs", H5T_STD_REF_OBJ, sc, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    hobj_ref_t rg = oref_of(f, "/g"), rl = oref_of(f, "/longer_name"), back = 0;
    CHECK(d >= 0 && H5Dwrite(d, H5T_STD_REF_OBJ, H5S_ALL, H5S_ALL, H5P_DEFAULT, &rg) >= 0,
          "a path that fits");
    H5E_BEGIN_TRY
    {
        r = H5Dwrite(d, H5T_STD_REF_OBJ, H5S_ALL, H5S_ALL, H5P_DEFAULT, &rl);
    }
    H5E_END_TRY
    take_errors(&et);
    CHECK(r < 0 && nczarr_error_has(&et, "\"/longer_name\" of a referenced object is 12 bytes long") &&
              nczarr_error_has(&et, "maxstrlen"),
          "a path that does not fit is refused: %s", et.text);
    /* a move that would lengthen a stored path past the width: refused before anything moves */
    H5E_BEGIN_TRY
    {
        r = H5Lmove(f, "g", f, "a_rather_long_name", H5P_DEFAULT, H5P_DEFAULT);
    }
    H5E_END_TRY
    take_errors(&et);
    CHECK(r < 0 && nczarr_error_has(&et, "cannot move \"/g\""), "the move is refused: %s", et.text);
    CHECK(H5Lexists(f, "g", H5P_DEFAULT) > 0 &&
              H5Dread(d, H5T_STD_REF_OBJ, H5S_ALL, H5S_ALL, H5P_DEFAULT, &back) >= 0 && back == rg,
          "nothing moved, the reference still leads to /g");
    H5Dclose(d);
    H5Sclose(sc);
    H5Gclose(l);
    H5Gclose(g);
    H5Fclose(f);
    H5Pclose(fapl);
    H5VLclose(cid);
}

/* ---- refusals ---- */

static void expect_refused(hid_t id, const char *needle, const char *what)
{
    errtext_t et;
    take_errors(&et);
    CHECK(id < 0 && nczarr_error_has(&et, needle), "%s is refused with \"%s\": %s", what, needle, et.text);
}

static void test_refusals(void)
{
    char p[4200];
    hid_t f = create_store_in(dir, "refuse", p, sizeof p), sc = H5Screate(H5S_SCALAR), id;
    H5E_BEGIN_TRY
    {
        id = H5Dcreate2(f, "regions", H5T_STD_REF_DSETREG, sc, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    }
    H5E_END_TRY
    expect_refused(id,
                   "\"regions\": region references (H5T_STD_REF_DSETREG) cannot be stored in a Zarr store",
                   "a dataset of region references");
    H5E_BEGIN_TRY
    {
        id = H5Acreate2(f, "region", H5T_STD_REF_DSETREG, sc, H5P_DEFAULT, H5P_DEFAULT);
    }
    H5E_END_TRY
    expect_refused(id, "\"region\": region references (H5T_STD_REF_DSETREG) cannot be stored in a Zarr store",
                   "an attribute of region references");
    hid_t rt = rec_type();
    H5E_BEGIN_TRY
    {
        id = H5Dcreate2(f, "records", rt, sc, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    }
    H5E_END_TRY
    expect_refused(id, "\"records\": object references inside compound", "a compound dataset of references");
    H5Tclose(rt);
    H5Fclose(f);
    snprintf(p, sizeof p, "file://%s/pure.zarr#mode=zarr,file", dir);
    f = H5Fcreate(p, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    REQUIRE(f >= 0 && is_nczarr(f), "create a pure Zarr store");
    H5E_BEGIN_TRY
    {
        id = H5Acreate2(f, "r", H5T_STD_REF_OBJ, sc, H5P_DEFAULT, H5P_DEFAULT);
    }
    H5E_END_TRY
    expect_refused(id, "pure Zarr", "an attribute of references in pure Zarr");
    H5E_BEGIN_TRY
    {
        id = H5Dcreate2(f, "r", H5T_STD_REF_OBJ, sc, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    }
    H5E_END_TRY
    expect_refused(id, "pure Zarr", "a dataset of references in pure Zarr");
    H5Fclose(f);
    H5Sclose(sc);
}

/* Without the preload library (no H5Rcreate for a store's objects in this process) an
 * attribute or dataset of old-style references is refused when it is made, naming it. */
static void test_without_preload(void)
{
    char p[4200];
    hid_t f = create_store_in(dir, "nopre", p, sizeof p);
    REQUIRE(f >= 0, "store");
    hsize_t n = 2;
    hid_t s = H5Screate_simple(1, &n, NULL);
    errtext_t et = {{0}, 0};
    hid_t a, d;
    H5E_BEGIN_TRY
    {
        a = H5Acreate2(f, "r", H5T_STD_REF_OBJ, s, H5P_DEFAULT, H5P_DEFAULT);
    }
    H5E_END_TRY
    take_errors(&et);
    CHECK(a < 0 && nczarr_error_has(&et, "attribute \"r\": old-style object references"),
          "an attribute without the preload is refused: %s", et.text);
    if (a >= 0)
        H5Aclose(a);
    H5E_BEGIN_TRY
    {
        d = H5Dcreate2(f, "d", H5T_STD_REF_OBJ, s, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    }
    H5E_END_TRY
    take_errors(&et);
    CHECK(d < 0 && nczarr_error_has(&et, "only with the preload library libnczarr_preload.so"),
          "a dataset without the preload is refused: %s", et.text);
    if (d >= 0)
        H5Dclose(d);
    H5Sclose(s);
    H5Fclose(f);
}

int main(void)
{
    scratch_dir(dir, sizeof dir, "oldrefs");
    /* run by ctest with the preload library on LD_PRELOAD, and once without it */
    if (!dlsym(RTLD_DEFAULT, "H5VL_nczarr_preload_loaded")) {
        test_without_preload();
        scratch_done(dir, "oldrefs");
        TEST_MAIN_END();
    }
    test_attrs();
    test_dsets();
    test_long_paths();
    test_refusals();
    scratch_done(dir, "oldrefs"); /* NCZARR_KEEP_STORES=DIR keeps the stores to look at */
    TEST_MAIN_END();
}
