/* Datasets through the connector: extents that shrink and grow (cut data is gone, fill
 * shows again), layouts and fill values reported back as the user set them, storage size
 * and space status, the chunk cache serving many small writes, selections of every kind
 * with memory types HDF5 converts, and the variable-length string width limit. */
#include "vol_test_util.h"

static char dir[4096];

static hid_t new_file(const char *name)
{
    char p[4200];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    hid_t f = H5Fcreate(p, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    if (f >= 0 && !is_nczarr(f)) {
        fprintf(stderr, "the nczarr connector did not load\n");
        exit(1);
    }
    return f;
}

static hid_t reopen(hid_t f, unsigned flags)
{
    char p[4200];
    H5Fget_name(f, p, sizeof p);
    H5Fclose(f);
    return H5Fopen(p, flags, H5P_DEFAULT);
}

static void test_extent(void)
{
    hid_t f = new_file("extent.zarr");
    REQUIRE(f >= 0, "create");
    hsize_t cur = 10, max = H5S_UNLIMITED, chunk = 4;
    hid_t s = H5Screate_simple(1, &cur, &max), dcpl = H5Pcreate(H5P_DATASET_CREATE);
    int fill = -7;
    H5Pset_chunk(dcpl, 1, &chunk);
    H5Pset_fill_value(dcpl, H5T_NATIVE_INT, &fill);
    hid_t d = H5Dcreate2(f, "x", H5T_STD_I32LE, s, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    REQUIRE(d >= 0, "create dataset");
    int v[10], back[16];
    for (int i = 0; i < 10; i++)
        v[i] = i;
    CHECK(H5Dwrite(d, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) >= 0, "write");
    hsize_t small = 5, big = 16;
    CHECK(H5Dset_extent(d, &small) >= 0, "shrink");
    CHECK(H5Dset_extent(d, &big) >= 0, "grow");
    H5Dclose(d);
    f = reopen(f, H5F_ACC_RDONLY);
    d = H5Dopen2(f, "x", H5P_DEFAULT);
    hid_t sp = H5Dget_space(d);
    hsize_t dims = 0, maxd = 0;
    H5Sget_simple_extent_dims(sp, &dims, &maxd);
    CHECK(dims == 16 && maxd == H5S_UNLIMITED, "extent %llu / %llu", (unsigned long long)dims,
          (unsigned long long)maxd);
    CHECK(H5Dread(d, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, back) >= 0, "read");
    for (int i = 0; i < 16; i++)
        CHECK(back[i] == (i < 5 ? i : -7), "element %d is %d after shrink+grow", i, back[i]);
    H5Sclose(sp);
    H5Dclose(d);
    H5Pclose(dcpl);
    H5Sclose(s);
    H5Fclose(f);
}

static void test_plists_and_sizes(void)
{
    hid_t f = new_file("plist.zarr");
    REQUIRE(f >= 0, "create");
    hsize_t n = 1000;
    hid_t s = H5Screate_simple(1, &n, NULL);
    /* contiguous stays contiguous in the dcpl; compact likewise */
    hid_t d = H5Dcreate2(f, "contig", H5T_IEEE_F64LE, s, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    hid_t dcpl = H5Dget_create_plist(d);
    CHECK(H5Pget_layout(dcpl) == H5D_CONTIGUOUS, "contiguous layout reported back");
    H5D_space_status_t st;
    CHECK(H5Dget_space_status(d, &st) >= 0 && st == H5D_SPACE_STATUS_NOT_ALLOCATED, "nothing written yet");
    CHECK(H5Dget_storage_size(d) == 0, "no storage yet");
    double v[1000];
    for (int i = 0; i < 1000; i++)
        v[i] = i * 0.5;
    CHECK(H5Dwrite(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) >= 0, "write");
    CHECK(H5Dget_storage_size(d) == 8000, "storage size %llu", (unsigned long long)H5Dget_storage_size(d));
    CHECK(H5Dget_space_status(d, &st) >= 0 && st == H5D_SPACE_STATUS_ALLOCATED, "allocated after a write");
    H5Pclose(dcpl);
    H5Dclose(d);
    dcpl = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_layout(dcpl, H5D_COMPACT);
    H5Pset_fill_time(dcpl, H5D_FILL_TIME_NEVER);
    d = H5Dcreate2(f, "compact", H5T_STD_I16BE, s, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    H5Pclose(dcpl);
    dcpl = H5Dget_create_plist(d);
    H5D_fill_time_t ft;
    CHECK(H5Pget_layout(dcpl) == H5D_COMPACT, "compact layout reported back");
    CHECK(H5Pget_fill_time(dcpl, &ft) >= 0 && ft == H5D_FILL_TIME_NEVER, "fill time never reported back");
    H5Pclose(dcpl);
    H5Dclose(d);
    /* chunk cache size from the dapl comes back from H5Dget_access_plist */
    hid_t dapl = H5Pcreate(H5P_DATASET_ACCESS);
    H5Pset_chunk_cache(dapl, 521, 3 << 20, 0.75);
    d = H5Dopen2(f, "contig", dapl);
    hid_t dapl2 = H5Dget_access_plist(d);
    size_t slots = 0, bytes = 0;
    double w0 = 0;
    CHECK(H5Pget_chunk_cache(dapl2, &slots, &bytes, &w0) >= 0 && bytes == (3u << 20), "cache bytes %zu",
          bytes);
    H5Pclose(dapl2);
    H5Pclose(dapl);
    H5Dclose(d);
    f = reopen(f, H5F_ACC_RDONLY);
    d = H5Dopen2(f, "compact", H5P_DEFAULT);
    dcpl = H5Dget_create_plist(d);
    CHECK(H5Pget_fill_time(dcpl, &ft) >= 0 && ft == H5D_FILL_TIME_NEVER, "no fill after reopen");
    H5Pclose(dcpl);
    H5Dclose(d);
    H5Sclose(s);
    H5Fclose(f);
}

/* Many one-element writes land in the cache and reach the store on close. */
static void test_cache_small_writes(void)
{
    hid_t f = new_file("cache.zarr");
    REQUIRE(f >= 0, "create");
    hsize_t dims[2] = {64, 64}, chunk[2] = {16, 16};
    hid_t s = H5Screate_simple(2, dims, NULL), dcpl = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_chunk(dcpl, 2, chunk);
    hid_t d = H5Dcreate2(f, "m", H5T_IEEE_F32LE, s, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    hid_t one = H5Screate(H5S_SCALAR), fs = H5Dget_space(d);
    for (hsize_t i = 0; i < 64; i++)
        for (hsize_t j = 0; j < 64; j += 3) {
            hsize_t start[2] = {i, j}, cnt[2] = {1, 1};
            float val = (float)(i * 100 + j);
            H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, cnt, NULL);
            if (H5Dwrite(d, H5T_NATIVE_FLOAT, one, fs, H5P_DEFAULT, &val) < 0) {
                CHECK(0, "small write %llu,%llu", (unsigned long long)i, (unsigned long long)j);
                i = 64;
                break;
            }
        }
    H5Sclose(fs);
    H5Sclose(one);
    H5Dclose(d);
    f = reopen(f, H5F_ACC_RDONLY);
    d = H5Dopen2(f, "m", H5P_DEFAULT);
    static float back[64][64];
    CHECK(H5Dread(d, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, back) >= 0, "read back");
    int bad = 0;
    for (int i = 0; i < 64; i++)
        for (int j = 0; j < 64; j++)
            if (back[i][j] != (j % 3 == 0 ? (float)(i * 100 + j) : 0.0f))
                bad++;
    CHECK(bad == 0, "%d elements wrong after many small writes", bad);
    H5Dclose(d);
    H5Pclose(dcpl);
    H5Sclose(s);
    H5Fclose(f);
}

static void test_selections(void)
{
    hid_t f = new_file("sel.zarr");
    REQUIRE(f >= 0, "create");
    hsize_t dims[2] = {9, 11}, chunk[2] = {4, 5};
    hid_t s = H5Screate_simple(2, dims, NULL), dcpl = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_chunk(dcpl, 2, chunk);
    hid_t d = H5Dcreate2(f, "g", H5T_STD_I32BE, s, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    int all[9][11];
    for (int i = 0; i < 9; i++)
        for (int j = 0; j < 11; j++)
            all[i][j] = i * 11 + j;
    CHECK(H5Dwrite(d, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, all) >= 0, "write all");
    /* read an irregular union (strided blocks OR a row) as double */
    hid_t fs = H5Dget_space(d);
    hsize_t st[2] = {1, 0}, str[2] = {4, 5}, cnt[2] = {2, 2}, blk[2] = {2, 3};
    H5Sselect_hyperslab(fs, H5S_SELECT_SET, st, str, cnt, blk);
    hsize_t rst[2] = {8, 0}, rcnt[2] = {1, 11};
    H5Sselect_hyperslab(fs, H5S_SELECT_OR, rst, NULL, rcnt, NULL);
    hssize_t np = H5Sget_select_npoints(fs);
    hsize_t nmem = (hsize_t)np;
    hid_t ms = H5Screate_simple(1, &nmem, NULL);
    double got[64];
    CHECK(np == 35 && H5Dread(d, H5T_NATIVE_DOUBLE, ms, fs, H5P_DEFAULT, got) >= 0, "irregular read (%lld)",
          (long long)np);
    /* expected: the selection's elements in row-major order */
    int k = 0, bad = 0;
    for (int i = 0; i < 9; i++)
        for (int j = 0; j < 11; j++) {
            bool in = i == 8 || ((i == 1 || i == 2 || i == 5 || i == 6) && (j % 5) < 3 && j < 8);
            if (in && k < 35 && got[k++] != (double)all[i][j])
                bad++;
        }
    CHECK(k == 35 && bad == 0, "irregular selection values (%d counted, %d wrong)", k, bad);
    H5Sclose(ms);
    /* points, written in an arbitrary order, read back one by one */
    hsize_t pts[3][2] = {{8, 10}, {0, 0}, {4, 7}};
    int pv[3] = {-1, -2, -3};
    hsize_t three = 3;
    ms = H5Screate_simple(1, &three, NULL);
    H5Sselect_elements(fs, H5S_SELECT_SET, 3, &pts[0][0]);
    CHECK(H5Dwrite(d, H5T_NATIVE_INT, ms, fs, H5P_DEFAULT, pv) >= 0, "point write");
    int pr[3] = {0, 0, 0};
    CHECK(H5Dread(d, H5T_NATIVE_INT, ms, fs, H5P_DEFAULT, pr) >= 0 && pr[0] == -1 && pr[1] == -2 &&
              pr[2] == -3,
          "point read %d %d %d", pr[0], pr[1], pr[2]);
    /* none */
    H5Sselect_none(fs);
    H5Sselect_none(ms);
    CHECK(H5Dwrite(d, H5T_NATIVE_INT, ms, fs, H5P_DEFAULT, pv) >= 0, "empty selection write");
    H5Sclose(ms);
    H5Sclose(fs);
    H5Dclose(d);
    H5Pclose(dcpl);
    H5Sclose(s);
    H5Fclose(f);
}

static void test_string_limit(void)
{
    hid_t f = new_file("str.zarr");
    REQUIRE(f >= 0, "create");
    hsize_t n = 2;
    hid_t s = H5Screate_simple(1, &n, NULL), t = H5Tcopy(H5T_C_S1);
    H5Tset_size(t, H5T_VARIABLE);
    hid_t d = H5Dcreate2(f, "names", t, s, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    char longer[300];
    memset(longer, 'x', sizeof longer - 1);
    longer[sizeof longer - 1] = '\0';
    const char *v[2] = {"short", longer};
    errtext_t et;
    herr_t r;
    H5E_BEGIN_TRY
    {
        r = H5Dwrite(d, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, v);
    }
    H5E_END_TRY
    take_errors(&et);
    CHECK(r < 0, "a string longer than maxstrlen must fail, not be truncated");
    CHECK(nczarr_error_has(&et, "maxstrlen"), "the error names the limit and how to raise it:\n%s", et.text);
    v[1] = "fits";
    CHECK(H5Dwrite(d, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) >= 0, "strings that fit");
    char *back[2] = {NULL, NULL};
    CHECK(H5Dread(d, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, back) >= 0 && back[0] &&
              strcmp(back[0], "short") == 0 && back[1] && strcmp(back[1], "fits") == 0,
          "vlen strings read back");
    H5Dvlen_reclaim(t, s, H5P_DEFAULT, back);
    H5Dclose(d);
    H5Tclose(t);
    H5Sclose(s);
    H5Fclose(f);
}

int main(void)
{
    scratch_dir(dir, sizeof dir, "data");
    test_extent();
    test_plists_and_sizes();
    test_cache_small_writes();
    test_selections();
    test_string_limit();
    rm_rf(dir);
    TEST_MAIN_END();
}
