/* Unit tests for the dataset data path (translate/data/ncztr_chunkio.c, ncztr_codec.c), driven
 * through the model API with plain HDF5 types, dataspaces and property lists (no VOL):
 * every kind of selection, type conversion, edge chunks, read-modify-write through the
 * chunk cache, missing and damaged chunks, variable-length strings, Fortran order, scalar
 * datasets, and reading back after the store is closed and reopened. Expected values are
 * computed here from a reference array. */
#include "ncz_test.h"
#include "ncztr_chunkio.h"
#include "ncztr_model_internal.h"
#include "ncztr_store.h"

#include <ftw.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#ifndef NCZ_SAMPLES_DIR
#error "NCZ_SAMPLES_DIR (the fixtures folder, test/data) is set by the build"
#endif

/* ---- error stack capture -------------------------------------------------------------- */
static char g_err[16384];

static herr_t walk_cb(unsigned n, const H5E_error2_t *e, void *data)
{
    (void)n;
    (void)data;
    if (e->desc && *e->desc) {
        size_t len = strlen(g_err);
        snprintf(g_err + len, sizeof g_err - len, "%s%s", len ? " | " : "", e->desc);
    }
    return 0;
}

/* The messages on the stack, joined; clears it. */
static const char *err_text(void)
{
    g_err[0] = '\0';
    H5Ewalk2(H5E_DEFAULT, H5E_WALK_DOWNWARD, walk_cb, NULL);
    H5Eclear2(H5E_DEFAULT);
    return g_err;
}

/* Checks that an expression failed and that the error text contains both substrings. */
#define CHECK_FAILS(expr, sub1, sub2)                                                                        \
    do {                                                                                                     \
        H5Eclear2(H5E_DEFAULT);                                                                              \
        herr_t r_ = (expr);                                                                                  \
        const char *t_ = err_text();                                                                         \
        if (getenv("NCZ_TEST_VERBOSE"))                                                                      \
            fprintf(stderr, "expected error: %s\n", t_);                                                     \
        CHECK(r_ < 0, "%s should fail", #expr);                                                              \
        CHECK(strstr(t_, (sub1)) && strstr(t_, (sub2)), "error \"%s\" lacks \"%s\"/\"%s\"", t_, (sub1),      \
              (sub2));                                                                                       \
    } while (0)

#define CHECK_OK(expr)                                                                                       \
    do {                                                                                                     \
        H5Eclear2(H5E_DEFAULT);                                                                              \
        herr_t r_ = (expr);                                                                                  \
        CHECK(r_ >= 0, "%s failed: %s", #expr, err_text());                                                  \
    } while (0)

/* ---- store helpers -------------------------------------------------------------------- */
static char g_dir[256], g_store[300];

static int rm_cb(const char *p, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb;
    (void)flag;
    (void)ftw;
    return remove(p);
}

static ncztr_obj *mk_array(ncztr_obj *parent, const char *name, hid_t type, int rank, const hsize_t *dims,
                           const hsize_t *chunks, const void *fill)
{
    hid_t sp = rank ? H5Screate_simple(rank, dims, NULL) : H5Screate(H5S_SCALAR);
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    if (chunks)
        H5Pset_chunk(dcpl, rank, chunks);
    if (fill)
        H5Pset_fill_value(dcpl, type, fill);
    ncztr_obj *o = NULL;
    herr_t r = ncztr_array_create(parent, name, type, sp, dcpl, H5P_DEFAULT, &o);
    CHECK(r >= 0, "creating %s: %s", name, err_text());
    H5Sclose(sp);
    H5Pclose(dcpl);
    return r < 0 ? NULL : o;
}

static ncztr_obj *find(ncztr_file *f, const char *path)
{
    ncztr_obj *o = ncztr_find(f->root, path);
    CHECK(o && o->kind == NCZTR_ARRAY, "array %s not found after reopening", path);
    /* its metadata is read on first use: these tests look at it directly */
    if (o)
        CHECK_OK(ncztr_obj_load(o));
    return o;
}

static hid_t space2(hsize_t a, hsize_t b)
{
    hsize_t d[2] = {a, b};
    return H5Screate_simple(2, d, NULL);
}

static hid_t space1(hsize_t n)
{
    return H5Screate_simple(1, &n, NULL);
}

/* ---- the 2-D reference array ---------------------------------------------------------- */
#define NR 10
#define NC 13
static int ref[NR][NC];
static int g_next = 1000;

/* Coordinates of a 2-D selection in HDF5's order (row-major, or list order for points). */
static size_t sel_coords(hid_t space, hsize_t (*co)[2])
{
    size_t n = 0;
    if (H5Sget_select_type(space) == H5S_SEL_POINTS) {
        hssize_t np = H5Sget_select_elem_npoints(space);
        H5Sget_select_elem_pointlist(space, 0, (hsize_t)np, &co[0][0]);
        return (size_t)np;
    }
    for (hsize_t r = 0; r < NR; r++)
        for (hsize_t c = 0; c < NC; c++) {
            hsize_t p[2] = {r, c};
            if (H5Sselect_intersect_block(space, p, p) > 0) {
                co[n][0] = r;
                co[n][1] = c;
                n++;
            }
        }
    return n;
}

static void check_all(ncztr_obj *o, const char *what)
{
    int got[NR][NC];
    hid_t fs = space2(NR, NC);
    memset(got, 0x55, sizeof got);
    CHECK_OK(ncztr_array_read(o, H5T_NATIVE_INT, fs, fs, got));
    int bad = 0;
    for (int r = 0; r < NR; r++)
        for (int c = 0; c < NC; c++)
            if (got[r][c] != ref[r][c] && bad++ < 3)
                CHECK(0, "%s: [%d][%d] = %d, expected %d", what, r, c, got[r][c], ref[r][c]);
    CHECK(bad == 0, "%s: %d wrong values", what, bad);
    H5Sclose(fs);
}

/* Writes new values through a file selection (contiguous memory), checks reading the
 * same selection back, in 1-D and in a 2-D memory space with the same selection, then the
 * whole array. */
static void rw_sel(ncztr_obj *o, hid_t fsel, const char *what)
{
    static hsize_t co[NR * NC * 2][2];
    static int vals[NR * NC * 2], got[NR * NC * 2];
    size_t n = sel_coords(fsel, co);
    hid_t mem = space1(n ? n : 1);
    if (!n)
        H5Sselect_none(mem);
    for (size_t i = 0; i < n; i++)
        vals[i] = g_next++;
    CHECK_OK(ncztr_array_write(o, H5T_NATIVE_INT, mem, fsel, vals));
    for (size_t i = 0; i < n; i++)
        ref[co[i][0]][co[i][1]] = vals[i];
    memset(got, 0, sizeof got);
    CHECK_OK(ncztr_array_read(o, H5T_NATIVE_INT, mem, fsel, got));
    for (size_t i = 0; i < n; i++)
        if (got[i] != ref[co[i][0]][co[i][1]]) {
            CHECK(0, "%s: element %zu (%llu,%llu) read %d, expected %d", what, i,
                  (unsigned long long)co[i][0], (unsigned long long)co[i][1], got[i],
                  ref[co[i][0]][co[i][1]]);
            break;
        }
    /* 2-D memory laid out like the file, same selection: unselected slots untouched */
    if (H5Sget_select_type(fsel) != H5S_SEL_POINTS) {
        int g2[NR][NC];
        for (int r = 0; r < NR; r++)
            for (int c = 0; c < NC; c++)
                g2[r][c] = -7;
        CHECK_OK(ncztr_array_read(o, H5T_NATIVE_INT, fsel, fsel, g2));
        int bad = 0;
        for (int r = 0; r < NR; r++)
            for (int c = 0; c < NC; c++) {
                hsize_t p[2] = {(hsize_t)r, (hsize_t)c};
                int want = H5Sselect_intersect_block(fsel, p, p) > 0 ? ref[r][c] : -7;
                bad += g2[r][c] != want;
            }
        CHECK(bad == 0, "%s: %d wrong values reading into a 2-D memory selection", what, bad);
    }
    H5Sclose(mem);
    check_all(o, what);
}

static void test_selections(ncztr_file *f)
{
    hsize_t dims[2] = {NR, NC}, ch[2] = {4, 5};
    int fillv = -1;
    ncztr_obj *o = mk_array(f->root, "a", H5T_NATIVE_INT, 2, dims, ch, &fillv);
    REQUIRE(o, "no array");
    for (int r = 0; r < NR; r++)
        for (int c = 0; c < NC; c++)
            ref[r][c] = -1;
    check_all(o, "fresh array reads as fill");
    CHECK(nczm_exists(f->map, "a/0.0") == NCZM_NOTFOUND, "reading must not create chunks");

    hid_t fs = space2(NR, NC);
    rw_sel(o, fs, "all");
    uint64_t len = 0;
    CHECK(nczm_len(f->map, "a/2.2", &len) == NCZM_OK && len == 4 * 5 * 4, "edge chunk a/2.2 is %llu bytes",
          (unsigned long long)len);

    hsize_t start[2] = {2, 3}, count[2] = {7, 9};
    H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL);
    rw_sel(o, fs, "regular block");

    hsize_t st2[2] = {1, 0}, stride[2] = {3, 4}, cnt2[2] = {3, 4}, blk[2] = {2, 1};
    H5Sselect_hyperslab(fs, H5S_SELECT_SET, st2, stride, cnt2, blk);
    rw_sel(o, fs, "strided blocks");

    hsize_t st3[2] = {0, 0}, stride3[2] = {1, 11}, cnt3[2] = {10, 2}, blk3[2] = {1, 1};
    H5Sselect_hyperslab(fs, H5S_SELECT_SET, st3, stride3, cnt3, blk3);
    rw_sel(o, fs, "columns with a stride skipping a chunk");

    hsize_t st4[2] = {5, 6}, cnt4[2] = {2, 3};
    H5Sselect_hyperslab(fs, H5S_SELECT_SET, st4, NULL, cnt4, NULL);
    rw_sel(o, fs, "block inside one chunk");

    hsize_t a0[2] = {0, 0}, ac[2] = {3, 13}, b0[2] = {6, 2}, bc[2] = {4, 3}, c0[2] = {3, 11}, cc[2] = {1, 1};
    H5Sselect_hyperslab(fs, H5S_SELECT_SET, a0, NULL, ac, NULL);
    H5Sselect_hyperslab(fs, H5S_SELECT_OR, b0, NULL, bc, NULL);
    H5Sselect_hyperslab(fs, H5S_SELECT_OR, c0, NULL, cc, NULL);
    CHECK(H5Sis_regular_hyperslab(fs) <= 0, "the union should be irregular");
    rw_sel(o, fs, "union of hyperslabs");

    hsize_t pts[6][2] = {{9, 12}, {0, 0}, {5, 7}, {5, 8}, {2, 11}, {8, 1}};
    H5Sselect_elements(fs, H5S_SELECT_SET, 6, &pts[0][0]);
    rw_sel(o, fs, "points");
    hsize_t pts1[2][2] = {{1, 1}, {0, 2}};
    H5Sselect_elements(fs, H5S_SELECT_SET, 2, &pts1[0][0]);
    rw_sel(o, fs, "points in one chunk, descending");

    /* points read into a memory point selection in another order */
    {
        hsize_t mp[3] = {4, 0, 2};
        hid_t mem = space1(5);
        H5Sselect_elements(fs, H5S_SELECT_SET, 3, &pts[0][0]);
        H5Sselect_elements(mem, H5S_SELECT_SET, 3, mp);
        int got[5] = {-9, -9, -9, -9, -9};
        CHECK_OK(ncztr_array_read(o, H5T_NATIVE_INT, mem, fs, got));
        CHECK(got[4] == ref[9][12] && got[0] == ref[0][0] && got[2] == ref[5][7] && got[1] == -9 &&
                  got[3] == -9,
              "points into memory points: %d %d %d %d %d", got[0], got[1], got[2], got[3], got[4]);
        H5Sclose(mem);
    }

    /* hyperslab read into an offset hyperslab of a bigger memory space */
    {
        hsize_t fst[2] = {3, 2}, fc[2] = {5, 9}, mst[2] = {7, 4};
        hid_t mem = space2(20, 20);
        H5Sselect_hyperslab(fs, H5S_SELECT_SET, fst, NULL, fc, NULL);
        H5Sselect_hyperslab(mem, H5S_SELECT_SET, mst, NULL, fc, NULL);
        static int big[20][20];
        memset(big, 0, sizeof big);
        CHECK_OK(ncztr_array_read(o, H5T_NATIVE_INT, mem, fs, big));
        int bad = 0;
        for (int r = 0; r < 20; r++)
            for (int c = 0; c < 20; c++) {
                bool in = r >= 7 && r < 12 && c >= 4 && c < 13;
                bad += big[r][c] != (in ? ref[r - 7 + 3][c - 4 + 2] : 0);
            }
        CHECK(bad == 0, "offset memory hyperslab: %d wrong", bad);
        H5Sclose(mem);
    }

    /* none */
    H5Sselect_none(fs);
    rw_sel(o, fs, "none");

    /* mismatched counts */
    {
        hid_t mem = space1(3);
        H5Sselect_all(fs);
        int v[3] = {0};
        CHECK_FAILS(ncztr_array_write(o, H5T_NATIVE_INT, mem, fs, v), "\"/a\"", "130");
        H5Sclose(mem);
    }

    /* type conversion: int32 storage read as double, written from double */
    {
        double d[NR][NC];
        H5Sselect_all(fs);
        CHECK_OK(ncztr_array_read(o, H5T_NATIVE_DOUBLE, fs, fs, d));
        int bad = 0;
        for (int r = 0; r < NR; r++)
            for (int c = 0; c < NC; c++)
                bad += d[r][c] != (double)ref[r][c];
        CHECK(bad == 0, "int read as double: %d wrong", bad);
        hsize_t s5[2] = {1, 1}, c5[2] = {8, 11};
        H5Sselect_hyperslab(fs, H5S_SELECT_SET, s5, NULL, c5, NULL);
        double w[8 * 11];
        for (int i = 0; i < 88; i++)
            w[i] = 5000.0 + i;
        hid_t mem = space1(88);
        CHECK_OK(ncztr_array_write(o, H5T_NATIVE_DOUBLE, mem, fs, w));
        for (int i = 0; i < 88; i++)
            ref[1 + i / 11][1 + i % 11] = 5000 + i;
        check_all(o, "after writing doubles");
        CHECK_FAILS(ncztr_array_write(o, H5T_C_S1, mem, fs, w), "\"/a\"", "convert");
        H5Sclose(mem);
    }
    H5Sclose(fs);
    ncztr_obj_unref(o);
}

/* Random selections on both sides, memory types and cache budgets, against the
 * reference array: exercises element mode (points on either side), projections and the
 * cache together. */
static unsigned g_seed = 12345;
static unsigned rnd(unsigned n)
{
    g_seed = g_seed * 1103515245u + 12345u;
    return (g_seed >> 8) % n;
}

static void random_file_sel(hid_t fs)
{
    switch (rnd(4)) {
    case 0:
        H5Sselect_all(fs);
        break;
    case 1: {
        hsize_t st[2], sd[2], ct[2], bk[2];
        hsize_t dim[2] = {NR, NC};
        for (int k = 0; k < 2; k++) {
            bk[k] = 1 + rnd(3);
            sd[k] = bk[k] + rnd(4);
            st[k] = rnd((unsigned)(dim[k] - bk[k] + 1));
            hsize_t maxc = (dim[k] - st[k] - bk[k]) / sd[k] + 1;
            ct[k] = 1 + rnd((unsigned)maxc);
        }
        H5Sselect_hyperslab(fs, H5S_SELECT_SET, st, sd, ct, bk);
        break;
    }
    case 2: {
        H5Sselect_none(fs);
        for (int b = 0; b < 3; b++) {
            hsize_t st[2] = {rnd(NR), rnd(NC)}, ct[2];
            ct[0] = 1 + rnd((unsigned)(NR - st[0]));
            ct[1] = 1 + rnd((unsigned)(NC - st[1]));
            H5Sselect_hyperslab(fs, b ? H5S_SELECT_OR : H5S_SELECT_SET, st, NULL, ct, NULL);
        }
        break;
    }
    default: {
        static hsize_t pts[40][2];
        static bool used[NR][NC];
        memset(used, 0, sizeof used);
        size_t n = 1 + rnd(40);
        for (size_t i = 0; i < n; i++) {
            hsize_t r, c;
            do {
                r = rnd(NR);
                c = rnd(NC);
            } while (used[r][c]); /* distinct, so that a write has one outcome */
            used[r][c] = true;
            pts[i][0] = r;
            pts[i][1] = c;
        }
        H5Sselect_elements(fs, H5S_SELECT_SET, n, &pts[0][0]);
    }
    }
}

static void test_random(ncztr_file *f)
{
    ncztr_obj *o = ncztr_find(f->root, "a");
    REQUIRE(o, "no array a");
    hid_t fs = space2(NR, NC);
    static hsize_t co[NR * NC][2], mpts[2 * NR * NC + 1];
    static double vals[2 * NR * NC + 1];
    int bad = 0;
    for (int it = 0; it < 300 && !bad; it++) {
        random_file_sel(fs);
        size_t n = sel_coords(fs, co);
        hsize_t mn = 2 * n + 1;
        hid_t ms = space1(mn);
        int mkind = (int)rnd(3);
        if (mkind == 1) { /* memory points in a shuffled order */
            for (size_t i = 0; i < mn; i++)
                mpts[i] = i;
            for (size_t i = mn - 1; i > 0; i--) {
                size_t j = rnd((unsigned)(i + 1));
                hsize_t t = mpts[i];
                mpts[i] = mpts[j];
                mpts[j] = t;
            }
            H5Sselect_elements(ms, H5S_SELECT_SET, n, mpts);
        } else if (mkind == 2) { /* every other slot */
            hsize_t st = 1, sd = 2, ct = n;
            H5Sselect_hyperslab(ms, H5S_SELECT_SET, &st, &sd, &ct, NULL);
        } else {
            hsize_t st = 0, ct = n;
            H5Sselect_hyperslab(ms, H5S_SELECT_SET, &st, NULL, &ct, NULL);
        }
        /* memory slot of the k-th selected element */
        size_t slot[NR * NC];
        for (size_t k = 0; k < n; k++)
            slot[k] = mkind == 1 ? (size_t)mpts[k] : mkind == 2 ? 1 + 2 * k : k;
        bool dbl = rnd(2);
        hid_t mt = dbl ? H5T_NATIVE_DOUBLE : H5T_NATIVE_INT;
        o->arr->cache_bytes = rnd(3) ? (size_t)1 << 20 : 0;
        memset(vals, 0, sizeof vals);
        if (rnd(2)) {
            for (size_t k = 0; k < n; k++) {
                int v = g_next++;
                if (dbl)
                    vals[slot[k]] = v;
                else
                    ((int *)vals)[slot[k]] = v;
                ref[co[k][0]][co[k][1]] = v;
            }
            H5Eclear2(H5E_DEFAULT);
            if (ncztr_array_write(o, mt, ms, fs, vals) < 0) {
                bad = 1;
                CHECK(0, "random write %d failed: %s", it, err_text());
            }
        } else {
            H5Eclear2(H5E_DEFAULT);
            if (ncztr_array_read(o, mt, ms, fs, vals) < 0) {
                bad = 1;
                CHECK(0, "random read %d failed: %s", it, err_text());
            }
            for (size_t k = 0; k < n && !bad; k++) {
                double got = dbl ? vals[slot[k]] : ((int *)vals)[slot[k]];
                if (got != ref[co[k][0]][co[k][1]]) {
                    bad = 1;
                    CHECK(0, "random read %d (mem kind %d, %s): element %zu got %g, expected %d", it, mkind,
                          dbl ? "double" : "int", k, got, ref[co[k][0]][co[k][1]]);
                }
            }
        }
        H5Sclose(ms);
    }
    CHECK(!bad, "random selections");
    o->arr->cache_bytes = (size_t)16 << 20;
    check_all(o, "after random selections");
    H5Sclose(fs);
}

/* Partial writes go through the cache; whole chunks straight to the store. */
static void test_cache(ncztr_file *f)
{
    hsize_t dims[2] = {8, 8}, ch[2] = {4, 4};
    int fillv = 7;
    ncztr_obj *o = mk_array(f->root, "m", H5T_NATIVE_INT, 2, dims, ch, &fillv);
    REQUIRE(o, "no array");
    hid_t fs = space2(8, 8);
    hsize_t s[2] = {0, 0}, c[2] = {4, 4};
    int v[16];
    for (int i = 0; i < 16; i++)
        v[i] = i;
    hid_t mem = space1(16);
    H5Sselect_hyperslab(fs, H5S_SELECT_SET, s, NULL, c, NULL);
    CHECK_OK(ncztr_array_write(o, H5T_NATIVE_INT, mem, fs, v));
    CHECK(nczm_exists(f->map, "m/0.0") == NCZM_OK, "a whole-chunk write goes straight to the store");
    hsize_t s2[2] = {5, 5}, c2[2] = {2, 2};
    H5Sselect_hyperslab(fs, H5S_SELECT_SET, s2, NULL, c2, NULL);
    hid_t mem4 = space1(4);
    int w[4] = {100, 101, 102, 103};
    CHECK_OK(ncztr_array_write(o, H5T_NATIVE_INT, mem4, fs, w));
    CHECK(nczm_exists(f->map, "m/1.1") == NCZM_NOTFOUND, "a partial write stays in the cache");
    int all[8][8];
    H5Sselect_all(fs);
    CHECK_OK(ncztr_array_read(o, H5T_NATIVE_INT, fs, fs, all));
    CHECK(all[5][5] == 100 && all[6][6] == 103 && all[4][4] == 7 && all[7][7] == 7 && all[3][3] == 15 &&
              all[0][7] == 7,
          "cached partial chunk reads back");
    CHECK_OK(ncztr_array_flush(o));
    CHECK(nczm_exists(f->map, "m/1.1") == NCZM_OK, "flush writes the dirty chunk");
    CHECK(nczm_exists(f->map, "m/0.1") == NCZM_NOTFOUND, "untouched chunks stay missing");
    /* whole-chunk write over a cached chunk drops the cached copy */
    H5Sselect_hyperslab(fs, H5S_SELECT_SET, (hsize_t[]){4, 4}, NULL, c, NULL);
    for (int i = 0; i < 16; i++)
        v[i] = 900 + i;
    CHECK_OK(ncztr_array_write(o, H5T_NATIVE_INT, mem, fs, v));
    H5Sselect_all(fs);
    CHECK_OK(ncztr_array_read(o, H5T_NATIVE_INT, fs, fs, all));
    CHECK(all[4][4] == 900 && all[7][7] == 915, "whole-chunk write replaces the cached chunk");

    /* a one-chunk cache with many partial writes: evictions write the chunks */
    hsize_t n1 = 1000, c1 = 10;
    ncztr_obj *s1 = mk_array(f->root, "s", H5T_NATIVE_INT, 1, &n1, &c1, NULL);
    REQUIRE(s1, "no array");
    s1->arr->cache_bytes = 0;
    hid_t f1 = space1(n1), m1 = space1(1);
    for (hsize_t i = 0; i < n1; i += 7) {
        int x = (int)i * 3;
        H5Sselect_elements(f1, H5S_SELECT_SET, 1, &i);
        CHECK_OK(ncztr_array_write(s1, H5T_NATIVE_INT, m1, f1, &x));
    }
    hsize_t pts[100];
    int pv[100];
    for (int i = 0; i < 100; i++) {
        pts[i] = (hsize_t)(i * 10 + 3);
        pv[i] = -i;
    }
    hid_t m100 = space1(100);
    H5Sselect_elements(f1, H5S_SELECT_SET, 100, pts);
    CHECK_OK(ncztr_array_write(s1, H5T_NATIVE_INT, m100, f1, pv));
    CHECK(s1->arr->cache != NULL, "the cache exists");
    static int got[1000];
    H5Sselect_all(f1);
    hid_t mall = space1(n1);
    CHECK_OK(ncztr_array_read(s1, H5T_NATIVE_INT, mall, f1, got));
    int bad = 0;
    for (int i = 0; i < 1000; i++) {
        int want = i % 10 == 3 ? -(i / 10) : (i % 7 == 0 ? i * 3 : 0);
        bad += got[i] != want;
    }
    CHECK(bad == 0, "one-chunk cache: %d wrong values", bad);
    CHECK_OK(ncztr_array_cache_evict(s1));
    CHECK(s1->arr->cache == NULL, "evict empties the cache");
    memset(got, 0, sizeof got);
    CHECK_OK(ncztr_array_read(s1, H5T_NATIVE_INT, mall, f1, got));
    bad = 0;
    for (int i = 0; i < 1000; i++)
        bad += got[i] != (i % 10 == 3 ? -(i / 10) : (i % 7 == 0 ? i * 3 : 0));
    CHECK(bad == 0, "after eviction: %d wrong values", bad);
    H5Sclose(f1);
    H5Sclose(m1);
    H5Sclose(m100);
    H5Sclose(mall);
    ncztr_obj_unref(s1);
    H5Sclose(mem);
    H5Sclose(mem4);
    H5Sclose(fs);
    ncztr_obj_unref(o);
}

/* Big-endian storage, read and written as native. */
static void test_bigendian(ncztr_file *f)
{
    hsize_t n = 7, c = 3;
    ncztr_obj *o = mk_array(f->root, "be", H5T_STD_I32BE, 1, &n, &c, NULL);
    REQUIRE(o, "no array");
    CHECK(strcmp(o->arr->za.dtype.zarr, ">i4") == 0, "dtype is %s", o->arr->za.dtype.zarr);
    int v[7] = {1, 2, 3, 0x01020304, -5, 6, 7}, got[7] = {0};
    hid_t fs = space1(n);
    CHECK_OK(ncztr_array_write(o, H5T_NATIVE_INT, fs, fs, v));
    void *raw = NULL;
    size_t len = 0;
    CHECK(nczm_read_all(f->map, "be/1", &raw, &len) == NCZM_OK && len == 12, "chunk be/1 has 12 bytes");
    if (raw) {
        const unsigned char *b = raw;
        CHECK(b[0] == 1 && b[1] == 2 && b[2] == 3 && b[3] == 4, "stored big-endian: %02x%02x%02x%02x", b[0],
              b[1], b[2], b[3]);
    }
    free(raw);
    CHECK_OK(ncztr_array_read(o, H5T_NATIVE_INT, fs, fs, got));
    CHECK(memcmp(v, got, sizeof v) == 0, "big-endian round trip");
    long long ll[7];
    CHECK_OK(ncztr_array_read(o, H5T_NATIVE_LLONG, fs, fs, ll));
    CHECK(ll[3] == 0x01020304 && ll[4] == -5, "big-endian int32 read as int64");
    H5Sclose(fs);
    ncztr_obj_unref(o);
}

/* Damaged chunks and codecs that are not supported yet fail cleanly. */
static void test_damaged(ncztr_file *f)
{
    hsize_t dims[2] = {6, 6}, ch[2] = {3, 3};
    ncztr_obj *o = mk_array(f->root, "t", H5T_NATIVE_INT, 2, dims, ch, NULL);
    REQUIRE(o, "no array");
    hid_t fs = space2(6, 6);
    int v[36], got[36];
    for (int i = 0; i < 36; i++)
        v[i] = i;
    CHECK_OK(ncztr_array_write(o, H5T_NATIVE_INT, fs, fs, v));
    CHECK(nczm_write(f->map, "t/1.1", "abc", 3) == NCZM_OK, "writing a short object");
    CHECK_OK(ncztr_array_cache_evict(o));
    CHECK_FAILS(ncztr_array_read(o, H5T_NATIVE_INT, fs, fs, got), "\"t/1.1\"", "holds 3 bytes, expected 36");
    hsize_t s[2] = {4, 4}, c[2] = {1, 1};
    hid_t one = space1(1);
    H5Sselect_hyperslab(fs, H5S_SELECT_SET, s, NULL, c, NULL);
    CHECK_FAILS(ncztr_array_write(o, H5T_NATIVE_INT, one, fs, v), "\"t/1.1\"", "expected 36");
    /* the rest stays readable, and a whole-chunk write repairs it without reading it */
    hsize_t s0[2] = {0, 0}, c3[2] = {3, 3};
    hid_t nine = space1(9);
    H5Sselect_hyperslab(fs, H5S_SELECT_SET, s0, NULL, c3, NULL);
    CHECK_OK(ncztr_array_read(o, H5T_NATIVE_INT, nine, fs, got));
    CHECK(got[0] == 0 && got[8] == 14, "undamaged chunk reads");
    H5Sselect_hyperslab(fs, H5S_SELECT_SET, (hsize_t[]){3, 3}, NULL, c3, NULL);
    CHECK_OK(ncztr_array_write(o, H5T_NATIVE_INT, nine, fs, v));
    CHECK_OK(ncztr_array_read(o, H5T_NATIVE_INT, nine, fs, got));
    CHECK(memcmp(got, v, 9 * sizeof(int)) == 0, "repaired chunk reads back");
    /* a chunk object longer than a chunk is damaged too, whether read or partly written */
    char longer[40] = {0};
    CHECK(nczm_write(f->map, "t/0.1", longer, sizeof longer) == NCZM_OK, "writing a long object");
    CHECK_OK(ncztr_array_cache_evict(o));
    H5Sselect_all(fs);
    CHECK_FAILS(ncztr_array_read(o, H5T_NATIVE_INT, fs, fs, got), "\"t/0.1\"", "holds 40 bytes, expected 36");
    H5Sselect_hyperslab(fs, H5S_SELECT_SET, (hsize_t[]){1, 4}, NULL, c, NULL);
    CHECK_FAILS(ncztr_array_write(o, H5T_NATIVE_INT, one, fs, v), "\"t/0.1\"", "holds 40 bytes");

    /* an unknown codec: reported by name; missing chunks still read as fill */
    CHECK_OK(ncztr_array_cache_evict(o));
    o->arr->za.compressor = json_pack("{s:s,s:i}", "id", "nosuchcodec", "level", 1);
    ncztr_chain_free(o->arr->chain); /* built from the codecs on first I/O: rebuilt */
    o->arr->chain = NULL;
    H5Sselect_all(fs);
    CHECK_FAILS(ncztr_array_read(o, H5T_NATIVE_INT, fs, fs, got), "dataset \"/t\"", "codec \"nosuchcodec\"");
    CHECK_FAILS(ncztr_array_write(o, H5T_NATIVE_INT, fs, fs, v), "codec \"nosuchcodec\"", "/t");
    json_decref(o->arr->za.compressor);
    o->arr->za.compressor = NULL;
    ncztr_chain_free(o->arr->chain);
    o->arr->chain = NULL;
    H5Sclose(one);
    H5Sclose(nine);
    H5Sclose(fs);
    ncztr_obj_unref(o);
}

static hid_t vlen_str(void)
{
    hid_t t = H5Tcopy(H5T_C_S1);
    H5Tset_size(t, H5T_VARIABLE);
    return t;
}

static void test_strings(ncztr_file *f)
{
    ncztr_obj *g = NULL;
    CHECK_OK(ncztr_group_create(f->root, "g", &g));
    REQUIRE(g, "no group");
    hid_t vt = vlen_str();
    hsize_t n = 5, c = 2;
    ncztr_obj *o = mk_array(g, "str", vt, 1, &n, &c, NULL);
    REQUIRE(o, "no array");
    CHECK(o->arr->vlen_string && o->arr->za.dtype.size == 128, "vlen string stored as |S128");
    static char s128[129], s200[201];
    memset(s128, 'q', 128);
    memset(s200, 'x', 200);
    const char *w[5] = {"alpha", NULL, "", "a longer string", s128};
    hid_t fs = space1(n);
    CHECK_OK(ncztr_array_write(o, vt, fs, fs, w));
    CHECK(nczm_exists(f->map, "g/str/2") == NCZM_OK, "chunk key under the group");
    char *r[5] = {0};
    CHECK_OK(ncztr_array_read(o, vt, fs, fs, r));
    CHECK(r[0] && strcmp(r[0], "alpha") == 0, "string 0: %s", r[0] ? r[0] : "(null)");
    CHECK(r[1] && strcmp(r[1], "") == 0, "NULL reads back as empty");
    CHECK(r[3] && strcmp(r[3], "a longer string") == 0, "string 3");
    CHECK(r[4] && strcmp(r[4], s128) == 0, "a string of exactly maxstrlen bytes survives");
    for (int i = 0; i < 5; i++)
        free(r[i]);
    const char *bad[2] = {"ok", s200};
    hid_t two = space1(2);
    H5Sselect_hyperslab(fs, H5S_SELECT_SET, (hsize_t[]){1}, NULL, (hsize_t[]){2}, NULL);
    CHECK_FAILS(ncztr_array_write(o, vt, two, fs, bad), "\"/g/str\"", "maxstrlen=N");
    CHECK_FAILS(ncztr_array_write(o, vt, two, fs, bad), "200 bytes", "128");
    char *r1[2] = {0};
    CHECK_OK(ncztr_array_read(o, vt, two, fs, r1));
    CHECK(r1[0] && strcmp(r1[0], "") == 0, "a failed write changes nothing");
    free(r1[0]);
    free(r1[1]);
    /* read as fixed-length strings */
    hid_t ft = H5Tcopy(H5T_C_S1);
    H5Tset_size(ft, 8);
    H5Tset_strpad(ft, H5T_STR_NULLPAD);
    char fx[5][8];
    H5Sselect_all(fs);
    CHECK_OK(ncztr_array_read(o, ft, fs, fs, fx));
    CHECK(memcmp(fx[0], "alpha\0\0\0", 8) == 0, "vlen dataset read as fixed strings");
    H5Tclose(ft);
    H5Tclose(vt);
    H5Sclose(two);
    H5Sclose(fs);
    ncztr_obj_unref(o);
    ncztr_obj_unref(g);
}

static void test_scalar_order_sep(ncztr_file *f)
{
    ncztr_obj *o = mk_array(f->root, "sc", H5T_NATIVE_DOUBLE, 0, NULL, NULL, NULL);
    REQUIRE(o, "no scalar");
    hid_t sc = H5Screate(H5S_SCALAR);
    double d = 3.5, g = 0;
    CHECK_OK(ncztr_array_write(o, H5T_NATIVE_DOUBLE, sc, sc, &d));
    CHECK(nczm_exists(f->map, "sc/0") == NCZM_OK, "scalar chunk key sc/0");
    CHECK_OK(ncztr_array_read(o, H5T_NATIVE_DOUBLE, sc, sc, &g));
    CHECK(g == 3.5, "scalar reads %g", g);
    int i = 0;
    CHECK_OK(ncztr_array_read(o, H5T_NATIVE_INT, sc, sc, &i));
    CHECK(i == 3, "scalar read as int: %d", i);
    ncztr_obj_unref(o);

    /* a Zarr rank-0 array (shape []) has the single chunk "0" */
    o = mk_array(f->root, "r0", H5T_NATIVE_SHORT, 0, NULL, NULL, NULL);
    REQUIRE(o, "no scalar");
    o->arr->za.rank = 0;
    short sv = -12, sg = 0;
    CHECK_OK(ncztr_array_write(o, H5T_NATIVE_SHORT, sc, sc, &sv));
    CHECK(nczm_exists(f->map, "r0/0") == NCZM_OK, "rank-0 chunk key r0/0");
    CHECK_OK(ncztr_array_read(o, H5T_NATIVE_SHORT, sc, sc, &sg));
    CHECK(sg == -12, "rank-0 array reads %d", sg);
    H5Sclose(sc);
    ncztr_obj_unref(o);

    /* Fortran order: chunks are stored transposed */
    hsize_t dims[2] = {6, 8}, ch[2] = {3, 4};
    o = mk_array(f->root, "F", H5T_NATIVE_INT, 2, dims, ch, NULL);
    REQUIRE(o, "no array");
    o->arr->za.order = 'F';
    int v[6][8];
    for (int r = 0; r < 6; r++)
        for (int c = 0; c < 8; c++)
            v[r][c] = r * 10 + c;
    hid_t fs = space2(6, 8);
    CHECK_OK(ncztr_array_write(o, H5T_NATIVE_INT, fs, fs, v));
    void *raw = NULL;
    size_t len = 0;
    CHECK(nczm_read_all(f->map, "F/1.1", &raw, &len) == NCZM_OK && len == 48, "F chunk present");
    if (raw) {
        int *e = raw; /* element (i,j) of chunk 1.1 at i + 3*j */
        CHECK(e[0] == 34 && e[1] == 44 && e[3] == 35 && e[11] == 57, "F order on disk: %d %d %d %d", e[0],
              e[1], e[3], e[11]);
    }
    free(raw);
    /* partial write through the cache, then flush */
    int x = -1;
    hid_t one = space1(1);
    H5Sselect_elements(fs, H5S_SELECT_SET, 1, (hsize_t[]){4, 6});
    CHECK_OK(ncztr_array_write(o, H5T_NATIVE_INT, one, fs, &x));
    v[4][6] = -1;
    H5Sclose(one);
    H5Sclose(fs);
    ncztr_obj_unref(o);

    /* dimension separator '/' */
    o = mk_array(f->root, "d", H5T_NATIVE_INT, 2, dims, ch, NULL);
    REQUIRE(o, "no array");
    o->arr->za.dimsep = '/';
    fs = space2(6, 8);
    CHECK_OK(ncztr_array_write(o, H5T_NATIVE_INT, fs, fs, v));
    CHECK(nczm_exists(f->map, "d/1/1") == NCZM_OK, "chunk key d/1/1");
    H5Sclose(fs);
    ncztr_obj_unref(o);
}

/* After close and reopen: everything written is there, read-only refuses writes. */
static void test_reopen(void)
{
    ncztr_file *f = NULL;
    CHECK_OK(ncztr_file_open(g_store, true, NULL, &f));
    REQUIRE(f, "reopen failed");
    ncztr_obj *a = find(f, "a");
    if (a)
        check_all(a, "after reopening");
    ncztr_obj *o = find(f, "F");
    if (o) {
        CHECK(o->arr->za.order == 'F', "order F kept");
        int v[6][8];
        hid_t fs = space2(6, 8);
        CHECK_OK(ncztr_array_read(o, H5T_NATIVE_INT, fs, fs, v));
        int bad = 0;
        for (int r = 0; r < 6; r++)
            for (int c = 0; c < 8; c++)
                bad += v[r][c] != (r == 4 && c == 6 ? -1 : r * 10 + c);
        CHECK(bad == 0, "order F reads back: %d wrong", bad);
        CHECK_FAILS(ncztr_array_write(o, H5T_NATIVE_INT, fs, fs, v), "\"/F\"", "read-only");
        H5Sclose(fs);
    }
    o = find(f, "d");
    if (o) {
        CHECK(o->arr->za.dimsep == '/', "dimension separator kept");
        int v[6][8];
        hid_t fs = space2(6, 8);
        CHECK_OK(ncztr_array_read(o, H5T_NATIVE_INT, fs, fs, v));
        CHECK(v[5][7] == 57 && v[4][6] == -1, "'/'-separated chunks read back");
        H5Sclose(fs);
    }
    o = find(f, "m");
    if (o) {
        int all[8][8];
        hid_t fs = space2(8, 8);
        CHECK_OK(ncztr_array_read(o, H5T_NATIVE_INT, fs, fs, all));
        CHECK(all[0][0] == 0 && all[4][4] == 900 && all[0][7] == 7, "cache array after reopen");
        H5Sclose(fs);
    }
    o = find(f, "sc");
    if (o) {
        double d = 0;
        hid_t sc = H5Screate(H5S_SCALAR);
        CHECK_OK(ncztr_array_read(o, H5T_NATIVE_DOUBLE, sc, sc, &d));
        CHECK(d == 3.5, "scalar after reopen: %g", d);
        H5Sclose(sc);
    }
    o = find(f, "g/str");
    if (o) {
        hid_t vt = vlen_str(), fs = space1(5);
        char *r[5] = {0};
        CHECK_OK(ncztr_array_read(o, vt, fs, fs, r));
        CHECK(r[3] && strcmp(r[3], "a longer string") == 0, "strings after reopen");
        for (int i = 0; i < 5; i++)
            free(r[i]);
        H5Tclose(vt);
        H5Sclose(fs);
    }
    CHECK_OK(ncztr_file_close(f));
}

/* Compressed sample data: until the codec is implemented the read must fail naming the
 * codec and the chunk key; once it is, the caller checks the values (true). */
static bool read_or_unsupported(herr_t r, const char *codec, const char *key)
{
    const char *t = err_text();
    if (r >= 0)
        return true;
    CHECK(strstr(t, codec) && strstr(t, key) && strstr(t, "is not supported yet"),
          "expected a codec \"%s\" error naming chunk %s, got \"%s\"", codec, key, t);
    return false;
}

/* Real stores written by zarr-python and netCDF-C (read-only). */
static void test_samples(void)
{
    char p[512];
    snprintf(p, sizeof p, "%s/zarr-python/basic.zarr", NCZ_SAMPLES_DIR);
    REQUIRE(access(p, F_OK) == 0, "fixture %s is missing", p);
    ncztr_file *f = NULL;
    CHECK_OK(ncztr_file_open(p, true, NULL, &f));
    REQUIRE(f, "cannot open %s", p);
    hid_t fs = space2(5, 7);
    const char *plain[] = {"t_int8", "t_int16", "t_int32", "t_int64", "t_float32"};
    for (int i = 0; i < 5; i++) {
        ncztr_obj *o = find(f, plain[i]);
        double v[35];
        if (!o)
            continue;
        CHECK_OK(ncztr_array_read(o, H5T_NATIVE_DOUBLE, fs, fs, v));
        int bad = 0;
        for (int k = 0; k < 35; k++)
            bad += v[k] != k * (i == 4 ? 0.5 : 1.0);
        CHECK(bad == 0, "zarr-python %s: %d wrong values", plain[i], bad);
    }
    ncztr_obj *o = find(f, "t_uint8");
    if (o) {
        unsigned char u[35];
        H5Eclear2(H5E_DEFAULT);
        if (read_or_unsupported(ncztr_array_read(o, H5T_NATIVE_UCHAR, fs, fs, u), "\"zlib\"",
                                "\"t_uint8/0.0\""))
            CHECK(u[0] == 0 && u[34] == 34, "zarr-python zlib chunks");
    }
    if ((o = find(f, "fixed_strings"))) {
        hid_t st = H5Tcopy(H5T_C_S1), s1 = space1(3);
        H5Tset_size(st, 6);
        H5Tset_strpad(st, H5T_STR_NULLPAD);
        char sv[3][6];
        H5Eclear2(H5E_DEFAULT);
        if (read_or_unsupported(ncztr_array_read(o, st, s1, s1, sv), "\"blosc\"", "\"fixed_strings/0\""))
            CHECK(memcmp(sv[0], "ab\0\0\0\0", 6) == 0 && memcmp(sv[2], "ghijkl", 6) == 0, "zarr-python |S6");
        H5Tclose(st);
        H5Sclose(s1);
    }
    if ((o = find(f, "sub/inner/floats"))) {
        hid_t s10 = space1(10), m2 = space1(2);
        float fl[2] = {0, 0};
        H5Sselect_hyperslab(s10, H5S_SELECT_SET, (hsize_t[]){8}, NULL, (hsize_t[]){2}, NULL);
        CHECK_OK(ncztr_array_read(o, H5T_NATIVE_FLOAT, m2, s10, fl));
        CHECK(fl[0] != fl[0] && fl[1] != fl[1], "never-written chunk reads as the NaN fill");
        H5Sselect_all(s10);
        float all[10];
        H5Eclear2(H5E_DEFAULT);
        if (read_or_unsupported(ncztr_array_read(o, H5T_NATIVE_FLOAT, s10, s10, all), "\"blosc\"",
                                "\"sub/inner/floats/0\""))
            CHECK(all[5] == 1.0f && all[9] != all[9], "zarr-python blosc chunks");
        H5Sclose(s10);
        H5Sclose(m2);
    }
    H5Sclose(fs);
    CHECK_OK(ncztr_file_close(f));

    /* arrays at the store root: Fortran order, and '/' as dimension separator */
    snprintf(p, sizeof p, "%s/zarr-python/order_f.zarr", NCZ_SAMPLES_DIR);
    f = NULL;
    CHECK_OK(ncztr_file_open(p, true, NULL, &f));
    if (f && (o = find(f, "order_f"))) {
        int v[15];
        fs = space2(3, 5);
        H5Eclear2(H5E_DEFAULT);
        if (read_or_unsupported(ncztr_array_read(o, H5T_NATIVE_INT, fs, fs, v), "\"blosc\"", "\"0.0\"")) {
            int bad = 0;
            for (int k = 0; k < 15; k++)
                bad += v[k] != k;
            CHECK(bad == 0, "zarr-python order F: %d wrong values", bad);
        }
        H5Sclose(fs);
    }
    if (f)
        CHECK_OK(ncztr_file_close(f));
    snprintf(p, sizeof p, "%s/zarr-python/slash_sep.zarr", NCZ_SAMPLES_DIR);
    f = NULL;
    CHECK_OK(ncztr_file_open(p, true, NULL, &f));
    if (f && (o = find(f, "slash_sep"))) {
        short v[16];
        fs = space2(4, 4);
        H5Eclear2(H5E_DEFAULT);
        if (read_or_unsupported(ncztr_array_read(o, H5T_NATIVE_SHORT, fs, fs, v), "\"blosc\"", "\"0/0\"")) {
            int bad = 0;
            for (int k = 0; k < 16; k++)
                bad += v[k] != k;
            CHECK(bad == 0, "zarr-python '/' separator: %d wrong values", bad);
        }
        H5Sclose(fs);
    }
    if (f)
        CHECK_OK(ncztr_file_close(f));

    /* netCDF-C: an oversized edge chunk, strings, chars, a scalar, nested groups */
    snprintf(p, sizeof p, "%s/netcdf-c-4.9.3/sample.nczarr.file", NCZ_SAMPLES_DIR);
    f = NULL;
    CHECK_OK(ncztr_file_open(p, true, NULL, &f));
    REQUIRE(f, "cannot open %s", p);
    if ((o = find(f, "time"))) {
        int t[3] = {-1, -1, -1};
        hid_t s3 = space1(3);
        CHECK_OK(ncztr_array_read(o, H5T_NATIVE_INT, s3, s3, t));
        CHECK(t[0] == 0 && t[1] == 1 && t[2] == 2, "netCDF-C time: %d %d %d", t[0], t[1], t[2]);
        H5Sclose(s3);
    }
    if ((o = find(f, "names"))) {
        hid_t vt = vlen_str(), s4 = space1(4);
        char *nm[4] = {0};
        CHECK_OK(ncztr_array_read(o, vt, s4, s4, nm));
        CHECK(nm[0] && nm[3] && !strcmp(nm[0], "alpha") && !strcmp(nm[3], "delta"), "netCDF-C strings");
        for (int i = 0; i < 4; i++)
            free(nm[i]);
        H5Tclose(vt);
        H5Sclose(s4);
    }
    if ((o = find(f, "label"))) {
        char lb[6] = {0};
        hid_t s6 = space1(6), ct = H5Tcopy(H5T_C_S1);
        H5Tset_strpad(ct, H5T_STR_NULLPAD);
        CHECK_OK(ncztr_array_read(o, ct, s6, s6, lb));
        CHECK(memcmp(lb, "hello", 5) == 0, "netCDF-C char variable");
        H5Tclose(ct);
        H5Sclose(s6);
    }
    if ((o = find(f, "scalar_int"))) {
        hid_t sc = H5Screate(H5S_SCALAR);
        int v = 0;
        CHECK_OK(ncztr_array_read(o, H5T_NATIVE_INT, sc, sc, &v));
        CHECK(v == 42, "netCDF-C scalar: %d", v);
        H5Sclose(sc);
    }
    if ((o = find(f, "sub/v"))) {
        short v[8];
        fs = space2(4, 2);
        CHECK_OK(ncztr_array_read(o, H5T_NATIVE_SHORT, fs, fs, v));
        CHECK(v[0] == 1 && v[7] == 8, "netCDF-C sub/v");
        H5Sclose(fs);
    }
    CHECK_OK(ncztr_file_close(f));
}

int main(void)
{
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    snprintf(g_dir, sizeof g_dir, "/tmp/ncz_chunkio_XXXXXX");
    if (!mkdtemp(g_dir)) {
        perror("mkdtemp");
        return EXIT_FAILURE;
    }
    snprintf(g_store, sizeof g_store, "%s/t.zarr", g_dir);
    ncztr_file *f = NULL;
    CHECK_OK(ncztr_file_create(g_store, NCZM_CREATE | NCZM_TRUNC, NULL, &f));
    if (f) {
        test_selections(f);
        test_random(f);
        test_cache(f);
        test_bigendian(f);
        test_damaged(f);
        test_strings(f);
        test_scalar_order_sep(f);
        CHECK_OK(ncztr_file_close(f));
        test_reopen();
    }
    test_samples();
    nftw(g_dir, rm_cb, 16, FTW_DEPTH | FTW_PHYS);
    ncz_err_term();
    H5close();
    TEST_MAIN_END();
}
