/* Writes the HDF5 types and names a store keeps through the connector's own forms (issue
 * [10]): values with variable-length parts inside (a compound holding a variable-length
 * string and a sequence, an array of sequences, a sequence of sequences, a sequence of
 * compounds), as datasets and as attributes; numbers no Zarr dtype describes (the x87
 * long double, a double in VAX byte order, a 100-byte opaque type); and link names a Zarr
 * key cannot hold (a leading '.', a backslash, 300 bytes). Run natively (an .h5 file) and
 * through the connector (a store), so that types_readers.sh can compare them. */
#include "connector_check.h"

#include <hdf5.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct rec {
    int i;
    char *s;
    hvl_t v;
} rec;

typedef struct pt {
    short x;
    double y;
} pt;

static int fails;

static void check(int ok, const char *what)
{
    if (!ok) {
        fprintf(stderr, "FAIL: %s\n", what);
        fails++;
    }
}

static hid_t rec_type(void)
{
    hid_t s = H5Tcopy(H5T_C_S1), v = H5Tvlen_create(H5T_NATIVE_INT), t = H5Tcreate(H5T_COMPOUND, sizeof(rec));
    H5Tset_size(s, H5T_VARIABLE);
    H5Tinsert(t, "i", HOFFSET(rec, i), H5T_NATIVE_INT);
    H5Tinsert(t, "s", HOFFSET(rec, s), s);
    H5Tinsert(t, "v", HOFFSET(rec, v), v);
    H5Tclose(s);
    H5Tclose(v);
    return t;
}

/* A dataset of n elements of type t (the file type ft) with values buf; the same values as
 * an attribute of it named "a". */
static void put(hid_t loc, const char *name, hid_t ft, hid_t t, hsize_t n, const void *buf)
{
    hid_t sp = H5Screate_simple(1, &n, NULL);
    hid_t d = H5Dcreate2(loc, name, ft, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    check(d >= 0 && H5Dwrite(d, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) >= 0, name);
    hid_t a = d >= 0 ? H5Acreate2(d, "a", ft, sp, H5P_DEFAULT, H5P_DEFAULT) : H5I_INVALID_HID;
    check(a >= 0 && H5Awrite(a, t, buf) >= 0, name);
    if (a >= 0)
        H5Aclose(a);
    if (d >= 0)
        H5Dclose(d);
    H5Sclose(sp);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s FILE\n", argv[0]);
        return 2;
    }
    /* links in creation order, which h5dump --sort_by=creation_order shows */
    hid_t fcpl = H5Pcreate(H5P_FILE_CREATE);
    H5Pset_link_creation_order(fcpl, H5P_CRT_ORDER_TRACKED | H5P_CRT_ORDER_INDEXED);
    hid_t f = H5Fcreate(argv[1], H5F_ACC_TRUNC, fcpl, H5P_DEFAULT);
    H5Pclose(fcpl);
    if (f < 0)
        return 1;
    ncz_expect_connector(f, argv[1]);

    /* a compound with a variable-length string and a sequence (NULL string, empty sequence) */
    int s0[] = {1, 2, 3}, s2[] = {-7};
    rec r[3] = {{1, "one", {3, s0}}, {2, NULL, {0, NULL}}, {3, "drei \xc3\xbc", {1, s2}}};
    hid_t rt = rec_type();
    put(f, "records", rt, rt, 3, r);

    /* an array of 2 sequences of unsigned ints */
    unsigned u0[] = {5, 6}, u1[] = {7};
    hvl_t arr[2][2] = {{{2, u0}, {1, u1}}, {{0, NULL}, {2, u0}}};
    hsize_t two = 2;
    hid_t vu = H5Tvlen_create(H5T_NATIVE_UINT), at = H5Tarray_create2(vu, 1, &two);
    put(f, "array_of_seqs", at, at, 2, arr);

    /* a sequence of sequences, and a sequence of compounds */
    hvl_t inner[3] = {{2, u0}, {0, NULL}, {1, u1}};
    hvl_t outer[2] = {{3, inner}, {1, inner + 2}};
    hid_t vv = H5Tvlen_create(vu);
    put(f, "seq_of_seqs", vv, vv, 2, outer);
    pt pts[3] = {{1, 0.5}, {-2, 1e300}, {3, -0.0}};
    hvl_t ps[2] = {{2, pts}, {1, pts + 2}};
    hid_t ptt = H5Tcreate(H5T_COMPOUND, sizeof(pt));
    H5Tinsert(ptt, "x", HOFFSET(pt, x), H5T_NATIVE_SHORT);
    H5Tinsert(ptt, "y", HOFFSET(pt, y), H5T_NATIVE_DOUBLE);
    hid_t vp = H5Tvlen_create(ptt);
    put(f, "seq_of_compounds", vp, vp, 2, ps);

    /* numbers no Zarr dtype describes */
    long double ld[3];
    memset(ld, 0, sizeof ld); /* x87 uses 10 of the 16 bytes: the rest zeroed */
    ld[0] = 1.0L / 3.0L;
    ld[1] = -2.5L;
    ld[2] = 1e-4000L;
    put(f, "long_double", H5T_NATIVE_LDOUBLE, H5T_NATIVE_LDOUBLE, 3, ld);
    double dv[2] = {3.25, -1e10};
    /* HDF5's own VAX type: one made with H5Tset_order is written (natively too) in a form
     * HDF5 reads back as big-endian */
    hid_t vax = H5Tcopy(H5T_VAX_F64);
    put(f, "vax_double", vax, H5T_NATIVE_DOUBLE, 2, dv);
    unsigned char op[2][100];
    for (int i = 0; i < 200; i++)
        op[i / 100][i % 100] = (unsigned char)(i * 7);
    hid_t ot = H5Tcreate(H5T_OPAQUE, 100);
    H5Tset_tag(ot, "one hundred bytes");
    put(f, "opaque100", ot, ot, 2, op);

    /* link names a key cannot hold */
    char longname[301];
    memset(longname, 'n', 300);
    longname[300] = '\0';
    const char *names[] = {".hidden", "back\\slash", longname};
    for (int i = 0; i < 3; i++) {
        hid_t g = H5Gcreate2(f, names[i], H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        check(g >= 0, names[i]);
        if (g >= 0) {
            int v = i;
            hsize_t one = 1;
            hid_t sp = H5Screate_simple(1, &one, NULL);
            hid_t d = H5Dcreate2(g, ".data", H5T_STD_I32LE, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
            check(d >= 0 && H5Dwrite(d, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, &v) >= 0, ".data");
            if (d >= 0)
                H5Dclose(d);
            H5Sclose(sp);
            H5Gclose(g);
        }
    }
    /* a plain dataset after the others (stored apart from them: the creation order is kept),
     * with text attributes whose types their values do not say: a 20-byte string holding 19
     * characters, a space-padded one, one with no elements; and a sequence dataset with
     * the zero fill value netCDF-C sets explicitly */
    {
        hsize_t one = 1;
        int v = 42;
        hid_t sp = H5Screate_simple(1, &one, NULL), sc = H5Screate(H5S_SCALAR), nul = H5Screate(H5S_NULL);
        hid_t d = H5Dcreate2(f, "last_plain", H5T_STD_I32LE, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        check(d >= 0 && H5Dwrite(d, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, &v) >= 0, "last_plain");
        hid_t s20 = H5Tcopy(H5T_C_S1), s8 = H5Tcopy(H5T_C_S1), s1 = H5Tcopy(H5T_C_S1);
        H5Tset_size(s20, 20);
        H5Tset_size(s8, 8);
        H5Tset_strpad(s8, H5T_STR_SPACEPAD);
        char t20[20] = "nineteen characters", t8[8] = "abc     ";
        hid_t a1 = H5Acreate2(d, "s20", s20, sc, H5P_DEFAULT, H5P_DEFAULT);
        hid_t a2 = H5Acreate2(d, "s8", s8, sc, H5P_DEFAULT, H5P_DEFAULT);
        hid_t a3 = H5Acreate2(d, "empty", s1, nul, H5P_DEFAULT, H5P_DEFAULT);
        check(a1 >= 0 && H5Awrite(a1, s20, t20) >= 0 && a2 >= 0 && H5Awrite(a2, s8, t8) >= 0 && a3 >= 0,
              "string attributes");
        H5Aclose(a1);
        H5Aclose(a2);
        H5Aclose(a3);
        H5Tclose(s20);
        H5Tclose(s8);
        H5Tclose(s1);
        H5Dclose(d);
        hid_t vi = H5Tvlen_create(H5T_NATIVE_INT), dcpl = H5Pcreate(H5P_DATASET_CREATE);
        hvl_t zero = {0, NULL};
        H5Pset_fill_value(dcpl, vi, &zero);
        d = H5Dcreate2(f, "zero_fill_seqs", vi, sp, H5P_DEFAULT, dcpl, H5P_DEFAULT);
        int five = 5;
        hvl_t one5 = {1, &five};
        check(d >= 0 && H5Dwrite(d, vi, H5S_ALL, H5S_ALL, H5P_DEFAULT, &one5) >= 0,
              "a sequence dataset with the zero fill value");
        if (d >= 0)
            H5Dclose(d);
        H5Pclose(dcpl);
        H5Tclose(vi);
        H5Sclose(sp);
        H5Sclose(sc);
        H5Sclose(nul);
    }

    /* a record larger than 1 MiB with HDF5's zero fill value: "fill_value" null and
     * "fill_zero" (its Base64 would be as large as the record) */
    {
        hsize_t nrec = 140000, one = 1;
        hid_t art = H5Tarray_create2(H5T_NATIVE_DOUBLE, 1, &nrec), sp = H5Screate_simple(1, &one, NULL);
        double *big = malloc(nrec * sizeof *big);
        for (hsize_t i = 0; big && i < nrec; i++)
            big[i] = (double)i / 4;
        hid_t d = H5Dcreate2(f, "big_record", art, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        check(big && d >= 0 && H5Dwrite(d, art, H5S_ALL, H5S_ALL, H5P_DEFAULT, big) >= 0, "big_record");
        if (d >= 0)
            H5Dclose(d);
        free(big);
        H5Sclose(sp);
        H5Tclose(art);
    }

    /* a rename onto such a name, and away from one */
    check(H5Lmove(f, "records", f, ".records", H5P_DEFAULT, H5P_DEFAULT) >= 0, "move to .records");
    check(H5Lmove(f, "back\\slash", f, "plain", H5P_DEFAULT, H5P_DEFAULT) >= 0, "move to plain");

    H5Tclose(rt);
    H5Tclose(at);
    H5Tclose(vv);
    H5Tclose(vu);
    H5Tclose(vp);
    H5Tclose(ptt);
    H5Tclose(vax);
    H5Tclose(ot);
    check(H5Fclose(f) >= 0, "close");
    return fails;
}
