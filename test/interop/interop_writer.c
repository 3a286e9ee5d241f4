/* An HDF5 program covering the data model the connector maps to NCZarr: nested groups,
 * integer and float types in both byte orders, char, fixed and variable-length strings,
 * scalars, chunked/contiguous/compact layouts, fill values (user, default, never),
 * unwritten chunks, extendible datasets, strided/blocked/point writes, and attributes of
 * every kind on groups and datasets. The interop tests run it natively and through the
 * connector and let h5py/zarr-python, ncdump and h5dump judge the two results.
 * Usage: interop_writer FILE [--types] (adds enum, compound and array types) */
#include "connector_check.h"

#include <hdf5.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(x)                                                                                             \
    do {                                                                                                     \
        if ((x) < 0) {                                                                                       \
            fprintf(stderr, "interop_writer: %s failed at line %d\n", #x, __LINE__);                         \
            exit(1);                                                                                         \
        }                                                                                                    \
    } while (0)

/* groups track creation order, as netCDF-4 files do */
static hid_t g_gcpl;

static hid_t space1(hsize_t n)
{
    return H5Screate_simple(1, &n, NULL);
}

static void attr_num(hid_t loc, const char *name, hid_t ftype, hid_t mtype, hid_t space, const void *v)
{
    hid_t a = H5Acreate2(loc, name, ftype, space, H5P_DEFAULT, H5P_DEFAULT);
    CHECK(a);
    CHECK(H5Awrite(a, mtype, v));
    CHECK(H5Aclose(a));
}

static void attr_text(hid_t loc, const char *name, const char *text)
{
    hid_t t = H5Tcopy(H5T_C_S1), s = H5Screate(H5S_SCALAR);
    CHECK(H5Tset_size(t, strlen(text)));
    attr_num(loc, name, t, t, s, text);
    H5Tclose(t);
    H5Sclose(s);
}

static void attr_vlen_strings(hid_t loc, const char *name, const char **v, hsize_t n)
{
    hid_t t = H5Tcopy(H5T_C_S1), s = space1(n);
    CHECK(H5Tset_size(t, H5T_VARIABLE));
    attr_num(loc, name, t, t, s, v);
    H5Tclose(t);
    H5Sclose(s);
}

/* One 2-D dataset per numeric type, 5x7 in 2x3 chunks (edge chunks), values i*7+j. */
static void numeric_types(hid_t file)
{
    static const struct {
        const char *name;
        hid_t *ftype;
    } types[] = {{"i8", &H5T_STD_I8LE_g},     {"u8", &H5T_STD_U8LE_g},     {"i16", &H5T_STD_I16LE_g},
                 {"u16be", &H5T_STD_U16BE_g}, {"i32be", &H5T_STD_I32BE_g}, {"u32", &H5T_STD_U32LE_g},
                 {"i64", &H5T_STD_I64LE_g},   {"u64be", &H5T_STD_U64BE_g}, {"f32", &H5T_IEEE_F32LE_g},
                 {"f64be", &H5T_IEEE_F64BE_g}};
    hid_t g = H5Gcreate2(file, "types", H5P_DEFAULT, g_gcpl, H5P_DEFAULT);
    CHECK(g);
    hsize_t dims[2] = {5, 7}, chunk[2] = {2, 3};
    double v[35];
    for (int i = 0; i < 35; i++)
        v[i] = i * 1.5 - (i % 2 ? 0 : 0);
    for (size_t k = 0; k < sizeof types / sizeof types[0]; k++) {
        hid_t s = H5Screate_simple(2, dims, NULL), dcpl = H5Pcreate(H5P_DATASET_CREATE);
        CHECK(H5Pset_chunk(dcpl, 2, chunk));
        hid_t d = H5Dcreate2(g, types[k].name, *types[k].ftype, s, H5P_DEFAULT, dcpl, H5P_DEFAULT);
        CHECK(d);
        if (H5Tget_class(*types[k].ftype) == H5T_INTEGER) {
            long long iv[35];
            for (int i = 0; i < 35; i++)
                iv[i] = i * 3;
            CHECK(H5Dwrite(d, H5T_NATIVE_LLONG, H5S_ALL, H5S_ALL, H5P_DEFAULT, iv));
        } else {
            CHECK(H5Dwrite(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v));
        }
        hid_t sc = H5Screate(H5S_SCALAR);
        attr_num(d, "scale", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, sc, &v[3]);
        H5Sclose(sc);
        H5Dclose(d);
        H5Pclose(dcpl);
        H5Sclose(s);
    }
    H5Gclose(g);
}

static void strings(hid_t file)
{
    hid_t g = H5Gcreate2(file, "strings", H5P_DEFAULT, g_gcpl, H5P_DEFAULT);
    CHECK(g);
    /* 1-byte chars (netCDF NC_CHAR) */
    const char label[] = "hello!";
    hid_t c1 = H5Tcopy(H5T_C_S1), s = space1(6);
    hid_t d = H5Dcreate2(g, "label", c1, s, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    CHECK(d);
    CHECK(H5Dwrite(d, c1, H5S_ALL, H5S_ALL, H5P_DEFAULT, label));
    H5Dclose(d);
    H5Sclose(s);
    /* fixed-length strings */
    hid_t f8 = H5Tcopy(H5T_C_S1);
    CHECK(H5Tset_size(f8, 8));
    CHECK(H5Tset_strpad(f8, H5T_STR_NULLPAD));
    char fixed[3][8] = {"alpha", "beta", "gamma123"};
    s = space1(3);
    d = H5Dcreate2(g, "fixed", f8, s, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    CHECK(d);
    CHECK(H5Dwrite(d, f8, H5S_ALL, H5S_ALL, H5P_DEFAULT, fixed));
    H5Dclose(d);
    H5Sclose(s);
    /* variable-length strings */
    hid_t vs = H5Tcopy(H5T_C_S1);
    CHECK(H5Tset_size(vs, H5T_VARIABLE));
    const char *names[4] = {"north", "east", "", "a somewhat longer string"};
    s = space1(4);
    d = H5Dcreate2(g, "names", vs, s, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    CHECK(d);
    CHECK(H5Dwrite(d, vs, H5S_ALL, H5S_ALL, H5P_DEFAULT, names));
    attr_vlen_strings(d, "history", names, 2);
    H5Dclose(d);
    H5Sclose(s);
    H5Tclose(vs);
    H5Tclose(f8);
    H5Tclose(c1);
    attr_text(g, "title", "strings of every kind");
    H5Gclose(g);
}

static void layouts_and_fills(hid_t file)
{
    /* "layout" is created on the way */
    hid_t lcpl = H5Pcreate(H5P_LINK_CREATE);
    CHECK(H5Pset_create_intermediate_group(lcpl, 1));
    hid_t g = H5Gcreate2(file, "layout/deeper", lcpl, g_gcpl, H5P_DEFAULT);
    H5Pclose(lcpl);
    CHECK(g);
    hsize_t n = 10;
    int v[10];
    for (int i = 0; i < 10; i++)
        v[i] = 100 + i;
    /* contiguous (default), compact */
    hid_t s = space1(n);
    hid_t d = H5Dcreate2(g, "contiguous", H5T_STD_I32LE, s, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    CHECK(H5Dwrite(d, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, v));
    H5Dclose(d);
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    CHECK(H5Pset_layout(dcpl, H5D_COMPACT));
    d = H5Dcreate2(g, "compact", H5T_STD_I16LE, s, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    CHECK(H5Dwrite(d, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, v));
    H5Dclose(d);
    H5Pclose(dcpl);
    /* user fill, partly written (chunks 0 and 2 written, chunk 1 never) */
    dcpl = H5Pcreate(H5P_DATASET_CREATE);
    hsize_t c = 4;
    float fill = -999.0f;
    CHECK(H5Pset_chunk(dcpl, 1, &c));
    CHECK(H5Pset_fill_value(dcpl, H5T_NATIVE_FLOAT, &fill));
    d = H5Dcreate2(g, "filled", H5T_IEEE_F32LE, s, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    float fv[3] = {1.5f, 2.5f, 3.5f};
    hsize_t start = 0, count = 3;
    hid_t ms = space1(3), fs = H5Dget_space(d);
    CHECK(H5Sselect_hyperslab(fs, H5S_SELECT_SET, &start, NULL, &count, NULL));
    CHECK(H5Dwrite(d, H5T_NATIVE_FLOAT, ms, fs, H5P_DEFAULT, fv));
    start = 8;
    count = 2;
    H5Sclose(ms);
    ms = space1(2);
    CHECK(H5Sselect_hyperslab(fs, H5S_SELECT_SET, &start, NULL, &count, NULL));
    CHECK(H5Dwrite(d, H5T_NATIVE_FLOAT, ms, fs, H5P_DEFAULT, fv));
    H5Sclose(ms);
    H5Sclose(fs);
    H5Dclose(d);
    H5Pclose(dcpl);
    /* default fill (zero), nothing written */
    dcpl = H5Pcreate(H5P_DATASET_CREATE);
    CHECK(H5Pset_chunk(dcpl, 1, &c));
    d = H5Dcreate2(g, "unwritten", H5T_IEEE_F64LE, s, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    CHECK(d);
    H5Dclose(d);
    H5Pclose(dcpl);
    /* scalar */
    hid_t sc = H5Screate(H5S_SCALAR);
    long long big = 1234567890123LL;
    d = H5Dcreate2(g, "scalar", H5T_STD_I64LE, sc, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    CHECK(H5Dwrite(d, H5T_NATIVE_LLONG, H5S_ALL, H5S_ALL, H5P_DEFAULT, &big));
    attr_text(d, "comment", "a scalar");
    H5Dclose(d);
    H5Sclose(sc);
    H5Sclose(s);
    H5Gclose(g);
}

static void selections(hid_t file)
{
    /* 8x10 int dataset, chunks 3x4: strided blocks, then points, then a row */
    hsize_t dims[2] = {8, 10}, chunk[2] = {3, 4};
    hid_t s = H5Screate_simple(2, dims, NULL), dcpl = H5Pcreate(H5P_DATASET_CREATE);
    int zero = 0;
    CHECK(H5Pset_chunk(dcpl, 2, chunk));
    CHECK(H5Pset_fill_value(dcpl, H5T_NATIVE_INT, &zero));
    hid_t d = H5Dcreate2(file, "grid", H5T_STD_I32LE, s, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    CHECK(d);
    hsize_t start[2] = {0, 1}, stride[2] = {3, 4}, count[2] = {3, 2}, block[2] = {2, 2};
    int buf[24];
    for (int i = 0; i < 24; i++)
        buf[i] = i + 1;
    hid_t fs = H5Dget_space(d), ms = space1(24);
    CHECK(H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, stride, count, block));
    CHECK(H5Dwrite(d, H5T_NATIVE_INT, ms, fs, H5P_DEFAULT, buf));
    hsize_t pts[4][2] = {{7, 9}, {0, 0}, {4, 5}, {7, 0}};
    int pv[4] = {-1, -2, -3, -4};
    H5Sclose(ms);
    ms = space1(4);
    CHECK(H5Sselect_elements(fs, H5S_SELECT_SET, 4, &pts[0][0]));
    CHECK(H5Dwrite(d, H5T_NATIVE_INT, ms, fs, H5P_DEFAULT, pv));
    H5Sclose(ms);
    H5Sclose(fs);
    H5Dclose(d);
    H5Pclose(dcpl);
    H5Sclose(s);

    /* extendible: written, grown, written again */
    hsize_t cur = 4, max = H5S_UNLIMITED, c = 3;
    s = H5Screate_simple(1, &cur, &max);
    dcpl = H5Pcreate(H5P_DATASET_CREATE);
    CHECK(H5Pset_chunk(dcpl, 1, &c));
    d = H5Dcreate2(file, "series", H5T_IEEE_F64LE, s, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    double a[4] = {0.25, 0.5, 0.75, 1.0};
    CHECK(H5Dwrite(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, a));
    hsize_t newsize = 7, st = 4, cn = 3;
    CHECK(H5Dset_extent(d, &newsize));
    fs = H5Dget_space(d);
    ms = space1(3);
    CHECK(H5Sselect_hyperslab(fs, H5S_SELECT_SET, &st, NULL, &cn, NULL));
    CHECK(H5Dwrite(d, H5T_NATIVE_DOUBLE, ms, fs, H5P_DEFAULT, a));
    H5Sclose(ms);
    H5Sclose(fs);
    attr_text(d, "units", "days since 2000-01-01");
    H5Dclose(d);
    H5Pclose(dcpl);
    H5Sclose(s);
}

static void root_attributes(hid_t file)
{
    attr_text(file, "title", "interop sample");
    int version = 3;
    hid_t sc = H5Screate(H5S_SCALAR);
    attr_num(file, "version", H5T_STD_I32LE, H5T_NATIVE_INT, sc, &version);
    H5Sclose(sc);
    double coeffs[3] = {1.5, 2.5, 3.5};
    hid_t s3 = space1(3);
    attr_num(file, "coeffs", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, s3, coeffs);
    signed char flags[3] = {1, -2, 3};
    attr_num(file, "flags", H5T_STD_I8LE, H5T_NATIVE_SCHAR, s3, flags);
    unsigned short us[3] = {1, 2, 65535};
    attr_num(file, "ushorts", H5T_STD_U16BE, H5T_NATIVE_USHORT, s3, us);
    float f = 0.1f;
    sc = H5Screate(H5S_SCALAR);
    attr_num(file, "tenth", H5T_IEEE_F32LE, H5T_NATIVE_FLOAT, sc, &f);
    H5Sclose(sc);
    H5Sclose(s3);
    const char *hist[2] = {"created", "second line"};
    attr_vlen_strings(file, "history", hist, 2);
}

/* --types: enum, compound and array types (datasets and attributes) in group /usertypes,
 * and a 2-D attribute.
 * Kept out of the default run: netCDF-C shows them (natively) as user-defined types, which
 * NCZarr has no place for, so ncdump judges this part separately. */
typedef struct rec_inner {
    short a;
    unsigned char b;
} rec_inner;
typedef struct rec {
    int id;
    double x;
    char name[5];
    float v[3];
    rec_inner in;
} rec;

static void types_group(hid_t file)
{
    hid_t g = H5Gcreate2(file, "usertypes", H5P_DEFAULT, g_gcpl, H5P_DEFAULT);
    CHECK(g);
    /* enum over int, 2x3 in 1x2 chunks; a bool-like enum over signed char */
    hid_t color = H5Tenum_create(H5T_NATIVE_INT);
    int cv[3] = {0, 1, 2};
    CHECK(H5Tenum_insert(color, "RED", &cv[0]));
    CHECK(H5Tenum_insert(color, "GREEN", &cv[1]));
    CHECK(H5Tenum_insert(color, "BLUE", &cv[2]));
    hsize_t d2[2] = {2, 3}, c2[2] = {1, 2};
    hid_t s = H5Screate_simple(2, d2, NULL), dcpl = H5Pcreate(H5P_DATASET_CREATE);
    CHECK(H5Pset_chunk(dcpl, 2, c2));
    hid_t d = H5Dcreate2(g, "color", color, s, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    CHECK(d);
    int colors[6] = {0, 1, 2, 2, 1, 0};
    CHECK(H5Dwrite(d, color, H5S_ALL, H5S_ALL, H5P_DEFAULT, colors));
    H5Dclose(d);
    H5Sclose(s);
    H5Pclose(dcpl);
    hid_t flag = H5Tenum_create(H5T_NATIVE_SCHAR);
    signed char fv[2] = {0, 1};
    CHECK(H5Tenum_insert(flag, "FALSE", &fv[0]));
    CHECK(H5Tenum_insert(flag, "TRUE", &fv[1]));
    s = space1(4);
    d = H5Dcreate2(g, "flag", flag, s, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    CHECK(d);
    signed char flags[4] = {1, 0, 0, 1};
    CHECK(H5Dwrite(d, flag, H5S_ALL, H5S_ALL, H5P_DEFAULT, flags));
    H5Dclose(d);
    H5Sclose(s);

    /* a compound with padding, a fixed string, an array member and a nested compound:
     * 6 records in chunks of 4 (an edge chunk), record 5 never written (fill) */
    hid_t inner = H5Tcreate(H5T_COMPOUND, sizeof(rec_inner));
    CHECK(H5Tinsert(inner, "a", HOFFSET(rec_inner, a), H5T_NATIVE_SHORT));
    CHECK(H5Tinsert(inner, "b", HOFFSET(rec_inner, b), H5T_NATIVE_UCHAR));
    hid_t s5 = H5Tcopy(H5T_C_S1);
    CHECK(H5Tset_size(s5, 5));
    CHECK(H5Tset_strpad(s5, H5T_STR_NULLPAD));
    hsize_t three = 3;
    hid_t f3 = H5Tarray_create2(H5T_NATIVE_FLOAT, 1, &three);
    hid_t rt = H5Tcreate(H5T_COMPOUND, sizeof(rec));
    CHECK(H5Tinsert(rt, "id", HOFFSET(rec, id), H5T_NATIVE_INT));
    CHECK(H5Tinsert(rt, "x", HOFFSET(rec, x), H5T_NATIVE_DOUBLE));
    CHECK(H5Tinsert(rt, "name", HOFFSET(rec, name), s5));
    CHECK(H5Tinsert(rt, "v", HOFFSET(rec, v), f3));
    CHECK(H5Tinsert(rt, "in", HOFFSET(rec, in), inner));
    s = space1(6);
    hsize_t c4 = 4;
    dcpl = H5Pcreate(H5P_DATASET_CREATE);
    CHECK(H5Pset_chunk(dcpl, 1, &c4));
    d = H5Dcreate2(g, "table", rt, s, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    CHECK(d);
    rec recs[5];
    memset(recs, 0, sizeof recs);
    for (int i = 0; i < 5; i++) {
        recs[i].id = 100 + i;
        recs[i].x = i * 0.5 - 1;
        snprintf(recs[i].name, sizeof recs[i].name, "r%d", i);
        for (int k = 0; k < 3; k++)
            recs[i].v[k] = (float)(i * 10 + k);
        recs[i].in.a = (short)(-i);
        recs[i].in.b = (unsigned char)(200 + i);
    }
    hsize_t start = 0, count = 5;
    hid_t ms = space1(5);
    CHECK(H5Sselect_hyperslab(s, H5S_SELECT_SET, &start, NULL, &count, NULL));
    CHECK(H5Dwrite(d, rt, ms, s, H5P_DEFAULT, recs));
    /* compound attributes: one record (scalar) and two records */
    hid_t sc = H5Screate(H5S_SCALAR);
    attr_num(d, "origin", rt, rt, sc, &recs[1]);
    hid_t s2 = space1(2);
    attr_num(d, "pair", rt, rt, s2, recs);
    H5Sclose(ms);
    H5Dclose(d);
    H5Sclose(s);
    H5Pclose(dcpl);

    /* an array type: 4 vectors of 3 floats */
    s = space1(4);
    d = H5Dcreate2(g, "vectors", f3, s, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    CHECK(d);
    float vec[12];
    for (int i = 0; i < 12; i++)
        vec[i] = (float)i / 4;
    CHECK(H5Dwrite(d, f3, H5S_ALL, H5S_ALL, H5P_DEFAULT, vec));
    /* enum attributes (scalar and 1-D) and an array attribute */
    int blue = 2;
    attr_num(d, "tint", color, color, sc, &blue);
    attr_num(d, "tints", color, color, s2, cv);
    hsize_t two2[2] = {2, 2};
    hid_t m22 = H5Tarray_create2(H5T_NATIVE_INT, 2, two2);
    int m[4] = {1, 2, 3, 4};
    attr_num(d, "matrix", m22, m22, sc, m);
    H5Dclose(d);
    H5Sclose(s);
    attr_num(g, "mode", flag, flag, sc, &fv[1]);
    /* a 2-D attribute (netCDF-C's HDF5 reader refuses those, hence here): NCZarr stores it
     * as a flat JSON list */
    hsize_t d23[2] = {2, 3};
    hid_t s23 = H5Screate_simple(2, d23, NULL);
    int grid[6] = {1, 2, 3, 4, 5, 6};
    attr_num(g, "grid", H5T_STD_I32LE, H5T_NATIVE_INT, s23, grid);
    H5Sclose(s23);
    H5Sclose(sc);
    H5Sclose(s2);
    H5Tclose(m22);
    H5Tclose(rt);
    H5Tclose(f3);
    H5Tclose(s5);
    H5Tclose(inner);
    H5Tclose(flag);
    H5Tclose(color);
    H5Gclose(g);
}

int main(int argc, char **argv)
{
    if (argc < 2 || (argc > 2 && strcmp(argv[2], "--types") != 0)) {
        fprintf(stderr, "usage: interop_writer FILE [--types]\n");
        return 2;
    }
    hid_t fcpl = H5Pcreate(H5P_FILE_CREATE);
    g_gcpl = H5Pcreate(H5P_GROUP_CREATE);
    CHECK(H5Pset_link_creation_order(g_gcpl, H5P_CRT_ORDER_TRACKED | H5P_CRT_ORDER_INDEXED));
    CHECK(H5Pset_attr_creation_order(g_gcpl, H5P_CRT_ORDER_TRACKED | H5P_CRT_ORDER_INDEXED));
    /* netCDF-4 readers want creation order tracked, as netCDF-4 files have it */
    CHECK(H5Pset_link_creation_order(fcpl, H5P_CRT_ORDER_TRACKED | H5P_CRT_ORDER_INDEXED));
    CHECK(H5Pset_attr_creation_order(fcpl, H5P_CRT_ORDER_TRACKED | H5P_CRT_ORDER_INDEXED));
    hid_t file = H5Fcreate(argv[1], H5F_ACC_TRUNC, fcpl, H5P_DEFAULT);
    CHECK(file);
    ncz_expect_connector(file, argv[1]);
    root_attributes(file);
    numeric_types(file);
    strings(file);
    layouts_and_fills(file);
    selections(file);
    if (argc > 2)
        types_group(file);
    CHECK(H5Fclose(file));
    H5Pclose(fcpl);
    H5Pclose(g_gcpl);
    return 0;
}
