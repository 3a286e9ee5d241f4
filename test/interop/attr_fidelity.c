/* Text attributes that look like JSON, and attributes without elements, written by an
 * ordinary HDF5 program (run natively and through the connector by attr_fidelity.sh).
 * On group "g" and dataset "g/d": each text as a fixed-length string ("c_<name>") and as a
 * variable-length string ("s_<name>"); "empty", an int32 attribute with an H5S_NULL
 * dataspace; "zero", a float64 attribute with a 1-D dataspace of 0 elements; "rec", a
 * compound {a, b} = {1, 2} (stored as JSON: netCDF-C must still read the store).
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
