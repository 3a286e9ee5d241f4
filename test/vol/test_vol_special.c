/* Datasets that NCZarr has no direct word for, stored in forms other readers understand:
 *  - anonymous datasets (H5Dcreate_anon) live in memory, their data under a key of their
 *    own, until H5Olink names them (the data moves to the name); an unlinked one leaves
 *    nothing in the store;
 *  - null dataspaces are empty 1-D arrays (shape [0]) marked "hdf5_null";
 *  - variable-length sequences of numbers are zarr-python's object arrays (dtype "|O",
 *    numcodecs "vlen-array").
 * Each survives closing and reopening the store, and what cannot be stored fails with an
 * NCZarr error instead of vanishing. */
#include "vol_test_util.h"

#include <dirent.h>
#include <stdint.h>
#include <sys/stat.h>

static char dir[4096];

static hid_t create_store(const char *tag, char *path, size_t len)
{
    return create_store_in(dir, tag, path, len);
}

static bool key_exists(const char *store, const char *key)
{
    char p[8400];
    struct stat sb;
    snprintf(p, sizeof p, "%s/%s", store, key);
    return stat(p, &sb) == 0;
}

/* Entries of the store's root directory, not counting .zgroup/.zattrs. */
static int root_entries(const char *store)
{
    DIR *d = opendir(store);
    int n = 0;
    struct dirent *de;
    while (d && (de = readdir(d)) != NULL)
        if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..") && strcmp(de->d_name, ".zgroup") &&
            strcmp(de->d_name, ".zattrs"))
            n++;
    if (d)
        closedir(d);
    return n;
}

/* ---------------------------------------------------------------- anonymous datasets */

static void test_anonymous(void)
{
    char p[4300];
    hid_t f = create_store("anon", p, sizeof p);
    hsize_t n = 4;
    int v[4] = {1, 2, 3, 4}, r[4] = {0}, av = 7, ar = 0;
    hid_t s = H5Screate_simple(1, &n, NULL), as = H5Screate(H5S_SCALAR);
    hid_t d = H5Dcreate_anon(f, H5T_STD_I32LE, s, H5P_DEFAULT, H5P_DEFAULT);
    REQUIRE(d >= 0 && is_nczarr(d), "H5Dcreate_anon");
    hid_t sp = H5Dget_space(d);
    CHECK(sp >= 0 && H5Sget_simple_extent_npoints(sp) == 4, "anonymous: H5Dget_space");
    H5Sclose(sp);
    /* its data waits under a key of its own until H5Olink names it (h5py writes so), and
     * moves with the name; read back before the link too */
    int early[4] = {0};
    CHECK(H5Dwrite(d, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) >= 0 &&
              H5Dread(d, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, early) >= 0 && early[3] == 4,
          "anonymous: write and read before H5Olink");
    /* attributes wait in memory with the dataset */
    hid_t a = H5Acreate2(d, "units", H5T_STD_I32LE, as, H5P_DEFAULT, H5P_DEFAULT);
    CHECK(a >= 0 && H5Awrite(a, H5T_NATIVE_INT, &av) >= 0, "anonymous: attribute");
    if (a >= 0)
        H5Aclose(a);
    CHECK(H5Olink(d, f, "named", H5P_DEFAULT, H5P_DEFAULT) >= 0, "H5Olink of the anonymous dataset");
    CHECK(H5Dwrite(d, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) >= 0, "anonymous: write once linked");
    H5Dclose(d);
    /* one that is never linked is gone with its last handle, leaving nothing behind, the
     * data it wrote neither */
    d = H5Dcreate_anon(f, H5T_STD_I32LE, s, H5P_DEFAULT, H5P_DEFAULT);
    CHECK(d >= 0 && H5Dwrite(d, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) >= 0 && H5Dflush(d) >= 0,
          "second H5Dcreate_anon, written");
    if (d >= 0)
        H5Dclose(d);
    CHECK(H5Fclose(f) >= 0, "anonymous: close");
    CHECK(root_entries(p) == 1 && key_exists(p, "named/.zarray"),
          "anonymous: the store holds only \"named\"");

    f = H5Fopen(p, H5F_ACC_RDONLY, H5P_DEFAULT);
    d = H5Dopen2(f, "named", H5P_DEFAULT);
    CHECK(d >= 0 && H5Dread(d, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, r) >= 0 &&
              memcmp(r, v, sizeof v) == 0,
          "anonymous: values after reopening (%d %d %d %d)", r[0], r[1], r[2], r[3]);
    a = H5Aopen(d, "units", H5P_DEFAULT);
    CHECK(a >= 0 && H5Aread(a, H5T_NATIVE_INT, &ar) >= 0 && ar == 7, "anonymous: attribute after reopening");
    if (a >= 0)
        H5Aclose(a);
    H5Dclose(d);
    H5Fclose(f);
    H5Sclose(s);
    H5Sclose(as);
}

/* ---------------------------------------------------------------- null dataspaces */

static void test_null(void)
{
    char p[4300];
    hid_t f = create_store("null", p, sizeof p);
    hid_t s = H5Screate(H5S_NULL), as = H5Screate(H5S_SCALAR);
    int v = 5, r = 0, buf[1] = {0};
    hid_t d = H5Dcreate2(f, "nothing", H5T_IEEE_F64LE, s, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    REQUIRE(d >= 0, "create a dataset with a null dataspace");
    hid_t a = H5Acreate2(d, "att", H5T_STD_I32LE, as, H5P_DEFAULT, H5P_DEFAULT);
    CHECK(a >= 0 && H5Awrite(a, H5T_NATIVE_INT, &v) >= 0, "null: attribute");
    if (a >= 0)
        H5Aclose(a);
    CHECK(H5Dwrite(d, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) >= 0, "null: writing nothing");
    hsize_t ext = 3;
    herr_t e;
    H5E_BEGIN_TRY
    {
        e = H5Dset_extent(d, &ext);
    }
    H5E_END_TRY
    CHECK(e < 0, "null: H5Dset_extent must fail");
    H5Dclose(d);
    CHECK(H5Fclose(f) >= 0, "null: close");
    char k[8400];
    snprintf(k, sizeof k, "%s/nothing/.zarray", p);
    CHECK(strstr(slurp(k), "\"shape\": [0]") != NULL, "null: stored as shape [0]: %s", slurp(k));
    snprintf(k, sizeof k, "%s/nothing/.zattrs", p);
    CHECK(strstr(slurp(k), "\"hdf5_null\": 1") != NULL, "null: marked hdf5_null: %s", slurp(k));

    f = H5Fopen(p, H5F_ACC_RDONLY, H5P_DEFAULT);
    d = H5Dopen2(f, "nothing", H5P_DEFAULT);
    REQUIRE(d >= 0, "null: reopen");
    hid_t sp = H5Dget_space(d);
    CHECK(H5Sget_simple_extent_type(sp) == H5S_NULL, "null: the dataspace is null again");
    H5Sclose(sp);
    CHECK(H5Dread(d, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) >= 0, "null: reading nothing");
    a = H5Aopen(d, "att", H5P_DEFAULT);
    CHECK(a >= 0 && H5Aread(a, H5T_NATIVE_INT, &r) >= 0 && r == 5, "null: attribute after reopening");
    if (a >= 0)
        H5Aclose(a);
    H5Dclose(d);
    H5Fclose(f);

    /* "hdf5_null" on an array that has elements is damaged metadata */
    FILE *fp = fopen(k, "wb");
    if (!fp || fputs("{\"_nczarr_array\": {\"hdf5_null\": 1}}", fp) < 0)
        exit(2);
    fclose(fp);
    snprintf(k, sizeof k, "%s/nothing/.zarray", p);
    if (!(fp = fopen(k, "wb")) ||
        fputs(
            "{\"zarr_format\": 2, \"shape\": [3], \"dtype\": \"<f8\", \"chunks\": [3], \"fill_value\": null, "
            "\"order\": \"C\", \"compressor\": null, \"filters\": null}",
            fp) < 0)
        exit(2);
    fclose(fp);
    f = H5Fopen(p, H5F_ACC_RDONLY, H5P_DEFAULT);
    errtext_t et;
    H5E_BEGIN_TRY
    {
        d = H5Dopen2(f, "nothing", H5P_DEFAULT);
    }
    H5E_END_TRY
    take_errors(&et);
    CHECK(d < 0 && nczarr_error_has(&et, "hdf5_null") && nczarr_error_has(&et, "nothing/.zattrs"),
          "null: hdf5_null on shape [3] must fail naming the key, got:\n%s", et.text);
    if (d >= 0)
        H5Dclose(d);
    H5Fclose(f);
    H5Sclose(s);
    H5Sclose(as);
}

/* ---------------------------------------------------------------- vlen sequences */

#define VR 5
#define VC 4

/* Element (i, j) of the test data: i + j numbers (i*100 + j*10 + k) */
static hvl_t make_seq(int i, int j)
{
    hvl_t h = {(size_t)(i + j), NULL};
    if (h.len) {
        short *p = malloc(h.len * sizeof *p);
        for (size_t k = 0; k < h.len; k++)
            p[k] = (short)(i * 100 + j * 10 + (int)k);
        h.p = p;
    }
    return h;
}

static bool seq_is(const hvl_t *h, const double *want, size_t n)
{
    if (h->len != n)
        return false;
    for (size_t k = 0; k < n; k++)
        if (((const double *)h->p)[k] != want[k])
            return false;
    return true;
}

static void test_vlen(void)
{
    char p[4300], k[8400];
    hid_t f = create_store("vlen", p, sizeof p);
    hsize_t dims[2] = {VR, VC}, ch[2] = {2, 3};
    hid_t s = H5Screate_simple(2, dims, NULL), dcpl = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_chunk(dcpl, 2, ch);
    /* stored as big-endian int16, written from native shorts, read back as doubles */
    hid_t ft = H5Tvlen_create(H5T_STD_I16BE), mt = H5Tvlen_create(H5T_NATIVE_SHORT),
          rt = H5Tvlen_create(H5T_NATIVE_DOUBLE);
    hvl_t w[VR][VC], r[VR][VC];
    for (int i = 0; i < VR; i++)
        for (int j = 0; j < VC; j++)
            w[i][j] = make_seq(i, j);
    hid_t d = H5Dcreate2(f, "ragged", ft, s, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    REQUIRE(d >= 0, "create a dataset of variable-length sequences");
    CHECK(H5Dwrite(d, mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, w) >= 0, "vlen: write");
    hsize_t size = 0;
    CHECK(H5Dvlen_get_buf_size(d, mt, s, &size) >= 0, "vlen: H5Dvlen_get_buf_size");
    /* sum over i, j of (i + j) shorts */
    CHECK(size == (hsize_t)(VC * (VR * (VR - 1) / 2) + VR * (VC * (VC - 1) / 2)) * sizeof(short),
          "vlen: H5Dvlen_get_buf_size says %llu bytes", (unsigned long long)size);
    /* overwrite a 2x2 block across chunk borders with empty and one-element sequences */
    hsize_t start[2] = {1, 2}, cnt[2] = {2, 2};
    hid_t fs = H5Scopy(s), ms = H5Screate_simple(2, cnt, NULL);
    H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, cnt, NULL);
    short one = -7;
    hvl_t blk[4] = {{0, NULL}, {1, &one}, {1, &one}, {0, NULL}};
    CHECK(H5Dwrite(d, mt, ms, fs, H5P_DEFAULT, blk) >= 0, "vlen: partial write");
    H5Sclose(ms);
    H5Sclose(fs);
    H5Dclose(d);
    /* a dataset never written reads as empty sequences */
    d = H5Dcreate2(f, "unwritten", ft, s, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    CHECK(d >= 0, "vlen: second dataset");
    if (d >= 0)
        H5Dclose(d);
    CHECK(H5Fclose(f) >= 0, "vlen: close");
    H5Treclaim(mt, s, H5P_DEFAULT, w);

    /* on disk: zarr-python's object array, listed apart from netCDF's arrays */
    snprintf(k, sizeof k, "%s/ragged/.zarray", p);
    CHECK(strstr(slurp(k), "\"dtype\": \"|O\"") && strstr(slurp(k), "\"id\": \"vlen-array\"") &&
              strstr(slurp(k), "\"dtype\": \">i2\""),
          "vlen: .zarray %s", slurp(k));
    snprintf(k, sizeof k, "%s/.zattrs", p);
    CHECK(strstr(slurp(k), "\"hdf5_arrays\"") != NULL, "vlen: listed in hdf5_arrays: %s", slurp(k));
    snprintf(k, sizeof k, "%s/ragged/0.0", p);
    FILE *fp = fopen(k, "rb");
    unsigned char hdr[8] = {0};
    CHECK(fp && fread(hdr, 1, 8, fp) == 8 && hdr[0] == 6 && hdr[1] == 0 && hdr[4] == 0,
          "vlen: chunk 0.0 starts with 6 elements, the first empty");
    if (fp)
        fclose(fp);

    f = H5Fopen(p, H5F_ACC_RDONLY, H5P_DEFAULT);
    d = H5Dopen2(f, "ragged", H5P_DEFAULT);
    REQUIRE(d >= 0, "vlen: reopen");
    hid_t t = H5Dget_type(d);
    CHECK(H5Tequal(t, ft) > 0, "vlen: the dataset's type comes back");
    H5Tclose(t);
    CHECK(H5Dread(d, rt, H5S_ALL, H5S_ALL, H5P_DEFAULT, r) >= 0, "vlen: read");
    int bad = 0;
    for (int i = 0; i < VR; i++)
        for (int j = 0; j < VC; j++) {
            double want[16];
            size_t n = (size_t)(i + j);
            bool inblk = i >= 1 && i <= 2 && j >= 2 && j <= 3;
            if (inblk)
                n = ((i - 1) + (j - 2)) % 2 ? 1 : 0, want[0] = -7;
            else
                for (size_t q = 0; q < n; q++)
                    want[q] = i * 100 + j * 10 + (double)q;
            if (!seq_is(&r[i][j], want, n)) {
                bad++;
                fprintf(stderr, "element (%d,%d): %zu numbers\n", i, j, r[i][j].len);
            }
        }
    CHECK(bad == 0, "vlen: %d elements read back wrong", bad);
    H5Treclaim(rt, s, H5P_DEFAULT, r);
    /* two points, in reverse order */
    hsize_t pts[2][2] = {{4, 3}, {0, 1}}, two = 2;
    hvl_t pr[2];
    fs = H5Scopy(s);
    H5Sselect_elements(fs, H5S_SELECT_SET, 2, &pts[0][0]);
    ms = H5Screate_simple(1, &two, NULL);
    double w43[7] = {430, 431, 432, 433, 434, 435, 436}, w01[1] = {10};
    CHECK(H5Dread(d, rt, ms, fs, H5P_DEFAULT, pr) >= 0 && seq_is(&pr[0], w43, 7) && seq_is(&pr[1], w01, 1),
          "vlen: point selection");
    H5Treclaim(rt, ms, H5P_DEFAULT, pr);
    H5Sclose(fs);
    H5Sclose(ms);
    /* the memory type must be a sequence of numbers too */
    int plain[VR * VC];
    errtext_t et;
    herr_t e;
    H5E_BEGIN_TRY
    {
        e = H5Dread(d, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, plain);
    }
    H5E_END_TRY
    take_errors(&et);
    CHECK(e < 0, "vlen: reading as int must fail");
    H5Dclose(d);
    d = H5Dopen2(f, "unwritten", H5P_DEFAULT);
    CHECK(d >= 0 && H5Dread(d, rt, H5S_ALL, H5S_ALL, H5P_DEFAULT, r) >= 0 && r[2][2].len == 0 &&
              r[4][3].len == 0,
          "vlen: unwritten elements are empty");
    if (d >= 0) {
        H5Treclaim(rt, s, H5P_DEFAULT, r);
        H5Dclose(d);
    }
    H5Fclose(f);

    /* a damaged chunk: an error naming it */
    snprintf(k, sizeof k, "%s/ragged/1.1", p);
    if (truncate(k, 9) != 0)
        exit(2);
    f = H5Fopen(p, H5F_ACC_RDONLY, H5P_DEFAULT);
    d = H5Dopen2(f, "ragged", H5P_DEFAULT);
    H5E_BEGIN_TRY
    {
        e = H5Dread(d, rt, H5S_ALL, H5S_ALL, H5P_DEFAULT, r);
    }
    H5E_END_TRY
    take_errors(&et);
    CHECK(e < 0 && nczarr_error_has(&et, "ragged/1.1"),
          "vlen: a truncated chunk must fail naming it, got:\n%s", et.text);
    H5Dclose(d);
    H5Fclose(f);
    /* a "vlen-array" filter of a dtype that is not a number */
    snprintf(k, sizeof k, "%s/unwritten/.zarray", p);
    if (!(fp = fopen(k, "wb")) ||
        fputs(
            "{\"zarr_format\": 2, \"shape\": [5, 4], \"dtype\": \"|O\", \"chunks\": [5, 4], \"fill_value\": "
            "null, \"order\": \"C\", \"compressor\": null, \"filters\": [{\"id\": \"vlen-array\", \"dtype\": "
            "\"<c8\"}]}",
            fp) < 0)
        exit(2);
    fclose(fp);
    f = H5Fopen(p, H5F_ACC_RDONLY, H5P_DEFAULT);
    H5E_BEGIN_TRY
    {
        d = H5Dopen2(f, "unwritten", H5P_DEFAULT);
    }
    H5E_END_TRY
    take_errors(&et);
    CHECK(d < 0 && nczarr_error_has(&et, "unwritten/.zarray") && nczarr_error_has(&et, "<c8"),
          "vlen: a vlen-array of <c8 must fail naming the key, got:\n%s", et.text);
    if (d >= 0)
        H5Dclose(d);
    H5Fclose(f);
    H5Sclose(s);
    H5Pclose(dcpl);
    H5Tclose(ft);
    H5Tclose(mt);
    H5Tclose(rt);
}

/* Sequences of strings and of sequences are kept (one JSON text per element); sequences of
 * references and fill values of sequences are errors, not losses. */
static void test_vlen_refused(void)
{
    char p[4300];
    hid_t f = create_store("vlenrefused", p, sizeof p);
    hsize_t n = 3;
    hid_t s = H5Screate_simple(1, &n, NULL);
    hid_t str = H5Tcopy(H5T_C_S1);
    H5Tset_size(str, 4);
    hid_t types[2] = {H5Tvlen_create(str), H5Tvlen_create(H5T_NATIVE_INT)};
    hid_t inner = types[1];
    hid_t nested = H5Tvlen_create(inner), refs = H5Tvlen_create(H5T_STD_REF);
    const char *names[2] = {"strings", "nested"};
    hid_t use[2] = {types[0], nested};
    int iv[3] = {1, 2, 3};
    hvl_t in1[2] = {{3, iv}, {0, NULL}}, nv[3] = {{2, in1}, {0, NULL}, {1, in1}}, back[3];
    char sv[2][4] = {"ab", "cdef"};
    hvl_t strs[3] = {{2, sv}, {0, NULL}, {1, sv[1]}};
    const void *vals[2] = {strs, nv};
    for (int i = 0; i < 2; i++) {
        hid_t d = H5Dcreate2(f, names[i], use[i], s, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        CHECK(d >= 0 && H5Dwrite(d, use[i], H5S_ALL, H5S_ALL, H5P_DEFAULT, vals[i]) >= 0 &&
                  H5Dread(d, use[i], H5S_ALL, H5S_ALL, H5P_DEFAULT, back) >= 0,
              "vlen of %s: write and read", names[i]);
        if (d >= 0 && i == 0)
            CHECK(back[0].len == 2 && !memcmp(back[0].p, "ab\0\0cdef", 8) && back[1].len == 0 &&
                      back[2].len == 1 && !memcmp(back[2].p, "cdef", 4),
                  "vlen of strings reads back");
        if (d >= 0 && i == 1)
            CHECK(back[0].len == 2 && ((hvl_t *)back[0].p)[0].len == 3 &&
                      ((int *)((hvl_t *)back[0].p)[0].p)[2] == 3 && back[1].len == 0 && back[2].len == 1,
                  "vlen of sequences reads back");
        if (d >= 0) {
            H5Treclaim(use[i], s, H5P_DEFAULT, back);
            H5Dclose(d);
        }
    }
    {
        errtext_t et;
        hid_t d;
        H5E_BEGIN_TRY
        {
            d = H5Dcreate2(f, "refs", refs, s, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        }
        H5E_END_TRY
        take_errors(&et);
        CHECK(d < 0 && nczarr_error_has(&et, "not representable"),
              "vlen of references must be refused, got:\n%s", et.text);
        if (d >= 0)
            H5Dclose(d);
    }
    /* a fill value for sequences */
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    int fv[2] = {1, 2};
    hvl_t fill = {2, fv};
    H5Pset_fill_value(dcpl, types[1], &fill);
    errtext_t et;
    hid_t d;
    H5E_BEGIN_TRY
    {
        d = H5Dcreate2(f, "filled", types[1], s, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    }
    H5E_END_TRY
    take_errors(&et);
    CHECK(d < 0 && nczarr_error_has(&et, "fill value"), "vlen with a fill value must be refused, got:\n%s",
          et.text);
    if (d >= 0)
        H5Dclose(d);
    CHECK(H5Fclose(f) >= 0, "vlenrefused: close");
    CHECK(!key_exists(p, "refs/.zarray") && !key_exists(p, "filled/.zarray"),
          "vlenrefused: nothing was stored");
    H5Pclose(dcpl);
    H5Tclose(nested);
    H5Tclose(refs);
    H5Tclose(types[0]);
    H5Tclose(types[1]);
    H5Tclose(str);
    H5Sclose(s);
}

int main(void)
{
    scratch_dir(dir, sizeof dir, "special");
    test_anonymous();
    test_null();
    test_vlen();
    test_vlen_refused();
    rm_rf(dir);
    TEST_MAIN_END();
}
