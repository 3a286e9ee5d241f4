/* Text attributes that look like JSON, and attributes without elements, written by an
 * ordinary HDF5 program (run natively and through the connector by attr_fidelity.sh).
 * On group "g" and dataset "g/d": each text as a fixed-length string ("c_<name>") and as a
 * variable-length string ("s_<name>"); "empty", an int32 attribute with an H5S_NULL
 * dataspace; "zero", a float64 attribute with a 1-D dataspace of 0 elements; "rec", a
 * compound {a, b} = {1, 2} (stored as JSON: netCDF-C must still read the store); one value of
 * each kind twice, with a scalar dataspace ("one_<kind>_scalar") and a 1-D one of one element
 * ("one_<kind>_1d", as netCDF-4 writes every single value): int, double, an enum, a bool
 * enum, a variable-length UTF-8 and an ASCII string, a 6-byte NUL-terminated UTF-8 string
 * holding 5 characters (PyTables' CLASS), a space-padded string, a 7-byte NUL-padded string
 * with a NUL inside its text (h5py's and PyTables' bytes), a compound.
 * With --add, opens an existing file or store and adds the int32 attribute "added" = 42
 * to each object named, so that their metadata gets rewritten.
 * Usage: interop_attr_fidelity FILE | interop_attr_fidelity --add FILE OBJECT... */
#include "connector_check.h"

#include <hdf5.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(x)                                                                                             \
    do {                                                                                                     \
        if ((x) < 0) {                                                                                       \
            fprintf(stderr, "%s:%d: %s failed\n", __FILE__, __LINE__, #x);                                   \
            exit(1);                                                                                         \
        }                                                                                                    \
    } while (0)

static const struct {
    const char *name, *text;
} texts[] = {
    {"object", "{\"looks\":\"like json\",\"n\":3}"},
    {"list", "[1, 2]"},
    {"padded", " [1,2] "},
    {"true", "true"},
    {"quoted", "\"quoted\""},
    {"number", "3"},
    {"null", "null"},
    {"nested", "{\"a\":{\"b\":[true,null]},\"c\":\"\\u00e9\"}"},
    /* exactly as NCZarr prints JSON: stored as JSON, still read back as the same text */
    {"canonical", "{\"a\": [1,2], \"b\": \"c\"}"},
};

static void put(hid_t loc, const char *name, hid_t type, hid_t space, const void *buf)
{
    hid_t a = H5Acreate2(loc, name, type, space, H5P_DEFAULT, H5P_DEFAULT);
    CHECK(a);
    if (buf)
        CHECK(H5Awrite(a, type, buf));
    CHECK(H5Aclose(a));
}

/* One value of each kind, as a scalar and as 1-D of one element: both shapes survive. */
static void one_values(hid_t loc)
{
    hsize_t one = 1;
    hid_t sp[2] = {H5Screate(H5S_SCALAR), H5Screate_simple(1, &one, NULL)};
    const char *shape[2] = {"scalar", "1d"};
    hid_t vutf8 = H5Tcopy(H5T_C_S1), vascii = H5Tcopy(H5T_C_S1), f6 = H5Tcopy(H5T_C_S1),
          sp8 = H5Tcopy(H5T_C_S1), nul7 = H5Tcopy(H5T_C_S1);
    CHECK(H5Tset_size(vutf8, H5T_VARIABLE));
    CHECK(H5Tset_cset(vutf8, H5T_CSET_UTF8));
    CHECK(H5Tset_size(vascii, H5T_VARIABLE));
    CHECK(H5Tset_size(f6, 6));
    CHECK(H5Tset_cset(f6, H5T_CSET_UTF8));
    CHECK(H5Tset_size(sp8, 8));
    CHECK(H5Tset_strpad(sp8, H5T_STR_SPACEPAD));
    CHECK(H5Tset_size(nul7, 7));
    CHECK(H5Tset_strpad(nul7, H5T_STR_NULLPAD));
    hid_t en = H5Tenum_create(H5T_NATIVE_SHORT);
    short e0 = 0, e1 = 1;
    CHECK(H5Tenum_insert(en, "FALSE", &e0));
    CHECK(H5Tenum_insert(en, "TRUE", &e1));
    hid_t color = H5Tenum_create(H5T_NATIVE_INT);
    int red = 7, blue = 9;
    CHECK(H5Tenum_insert(color, "red", &red));
    CHECK(H5Tenum_insert(color, "blue", &blue));
    hid_t rec = H5Tcreate(H5T_COMPOUND, 2 * sizeof(int));
    CHECK(H5Tinsert(rec, "a", 0, H5T_NATIVE_INT));
    CHECK(H5Tinsert(rec, "b", sizeof(int), H5T_NATIVE_INT));
    int iv = -5, ab[2] = {3, 4};
    double dv = 2.5;
    /* ASCII text in a UTF-8 type: Debian 12's zarr-python 2.13 reads no UTF-8 metadata */
    const char *text = "hello", *ascii = "plain";
    struct {
        const char *kind;
        hid_t type;
        const void *buf;
    } kinds[] = {
        {"int", H5T_NATIVE_INT, &iv},   {"double", H5T_NATIVE_DOUBLE, &dv},
        {"enum", color, &blue},         {"bool", en, &e1},
        {"vutf8", vutf8, &text},        {"vascii", vascii, &ascii},
        {"fixed6", f6, "TABLE\0"},      {"spacepad", sp8, "ab      "},
        {"nulpad", nul7, "x \0 y\0\0"}, {"compound", rec, ab},
    };
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++)
        for (int s = 0; s < 2; s++) {
            char name[64];
            snprintf(name, sizeof name, "one_%s_%s", kinds[k].kind, shape[s]);
            put(loc, name, kinds[k].type, sp[s], kinds[k].buf);
        }
    H5Tclose(rec);
    H5Tclose(color);
    H5Tclose(en);
    H5Tclose(nul7);
    H5Tclose(sp8);
    H5Tclose(f6);
    H5Tclose(vascii);
    H5Tclose(vutf8);
    H5Sclose(sp[1]);
    H5Sclose(sp[0]);
}

static void attributes(hid_t loc)
{
    hid_t scalar = H5Screate(H5S_SCALAR), vlen = H5Tcopy(H5T_C_S1);
    CHECK(H5Tset_size(vlen, H5T_VARIABLE));
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
        char name[64];
        hid_t fixed = H5Tcopy(H5T_C_S1);
        CHECK(H5Tset_size(fixed, strlen(texts[i].text)));
        snprintf(name, sizeof name, "c_%s", texts[i].name);
        put(loc, name, fixed, scalar, texts[i].text);
        snprintf(name, sizeof name, "s_%s", texts[i].name);
        put(loc, name, vlen, scalar, &texts[i].text);
        H5Tclose(fixed);
    }
    hid_t null = H5Screate(H5S_NULL);
    put(loc, "empty", H5T_STD_I32LE, null, NULL);
    hsize_t zero = 0;
    hid_t zs = H5Screate_simple(1, &zero, NULL);
    put(loc, "zero", H5T_IEEE_F64LE, zs, NULL);
    hid_t rec = H5Tcreate(H5T_COMPOUND, 2 * sizeof(int));
    CHECK(H5Tinsert(rec, "a", 0, H5T_STD_I32LE));
    CHECK(H5Tinsert(rec, "b", sizeof(int), H5T_STD_I32LE));
    int ab[2] = {1, 2};
    put(loc, "rec", rec, scalar, ab);
    H5Tclose(rec);
    one_values(loc);
    H5Sclose(zs);
    H5Sclose(null);
    H5Sclose(scalar);
    H5Tclose(vlen);
}

static int add(const char *file, char **objects, int n)
{
    hid_t f = H5Fopen(file, H5F_ACC_RDWR, H5P_DEFAULT);
    CHECK(f);
    ncz_expect_connector(f, file);
    hid_t s = H5Screate(H5S_SCALAR);
    int v = 42;
    for (int i = 0; i < n; i++) {
        hid_t o = H5Oopen(f, objects[i], H5P_DEFAULT);
        CHECK(o);
        put(o, "added", H5T_STD_I32LE, s, &v);
        CHECK(H5Oclose(o));
    }
    H5Sclose(s);
    CHECK(H5Fclose(f));
    return 0;
}

int main(int argc, char **argv)
{
    if (argc > 3 && !strcmp(argv[1], "--add"))
        return add(argv[2], argv + 3, argc - 3);
    if (argc != 2) {
        fprintf(stderr, "usage: interop_attr_fidelity FILE | interop_attr_fidelity --add FILE OBJECT...\n");
        return 2;
    }
    hid_t f = H5Fcreate(argv[1], H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    CHECK(f);
    ncz_expect_connector(f, argv[1]);
    hid_t g = H5Gcreate2(f, "g", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    CHECK(g);
    hsize_t n = 3;
    hid_t s = H5Screate_simple(1, &n, NULL);
    hid_t d = H5Dcreate2(g, "d", H5T_STD_I32LE, s, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    CHECK(d);
    int v[3] = {1, 2, 3};
    CHECK(H5Dwrite(d, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, v));
    attributes(g);
    attributes(d);
    H5Dclose(d);
    H5Sclose(s);
    H5Gclose(g);
    CHECK(H5Fclose(f));
    return 0;
}
