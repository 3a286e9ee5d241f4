/* Metadata at scale: stores whose size made the connector quadratic (or worse) before, each
 * case its own ctest entry (test/vol/scale.cmake), checking what the objects read back as.
 * Nothing here is timed: how fast the connector is at this scale is measured by
 * bench/bench_meta against native HDF5.
 *   attrs        a group with many attributes: created, iterated, opened by name, and by
 *                index in name and creation order (each once sorted the whole list);
 *   links        a group with many datasets: iterated with H5Oget_info_by_name, listed by
 *                index, reopened by token;
 *   ghosts       a group whose "_nczarr_group" lists 100000 groups that are not there;
 *   cons_pure    a consolidated pure Zarr store of many groups (each listing scanned every
 *                key of .zmetadata);
 *   zip_nested   3000 nested groups in a zip store, created, renamed and read back;
 *   zip_deep     a zip archive of 16 entries whose names have 30000 segments;
 *   dir_commit   a directory store of groups of arrays with attributes, written by a close
 *                that hands the objects to the store while it builds the rest (more than
 *                a few hundred), changed in part and saved again, read back whole.
 * Usage: test_vol_scale CASE */
#include "vol_test_util.h"

#include <zip.h>

static char dir[4096];

static hid_t create_file(const char *path)
{
    hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    if (f >= 0 && !is_nczarr(f)) {
        fprintf(stderr, "FAIL: %s was not created by the nczarr connector\n", path);
        exit(1);
    }
    return f;
}

/* ---- attrs ---- */

enum { NATTRS = 40000 };

typedef struct {
    long n;
    long long sum;
    bool sorted;
    char last[32];
} attr_walk;

static herr_t attr_cb(hid_t loc, const char *name, const H5A_info_t *info, void *data)
{
    (void)info;
    attr_walk *w = data;
    int v = -1;
    hid_t a = H5Aopen(loc, name, H5P_DEFAULT);
    if (a < 0 || H5Aread(a, H5T_NATIVE_INT, &v) < 0)
        return -1;
    H5Aclose(a);
    if (w->n && strcmp(w->last, name) >= 0)
        w->sorted = false;
    snprintf(w->last, sizeof w->last, "%s", name);
    w->n++;
    w->sum += v;
    return 0;
}

static void case_attrs(void)
{
    char path[4200], name[32];
    snprintf(path, sizeof path, "%s/attrs.zarr", dir);
    hid_t f = create_file(path);
    REQUIRE(f >= 0, "create %s", path);
    hid_t g = H5Gcreate2(f, "g", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), sp = H5Screate(H5S_SCALAR);
    /* created in reverse name order, so that name and creation order differ */
    for (int i = NATTRS - 1; i >= 0; i--) {
        snprintf(name, sizeof name, "a%06d", i);
        hid_t a = H5Acreate2(g, name, H5T_STD_I32LE, sp, H5P_DEFAULT, H5P_DEFAULT);
        REQUIRE(a >= 0 && H5Awrite(a, H5T_NATIVE_INT, &i) >= 0, "attribute %s", name);
        H5Aclose(a);
    }
    H5Sclose(sp);
    H5Gclose(g);
    REQUIRE(H5Fclose(f) >= 0, "close");

    f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    REQUIRE(f >= 0, "reopen");
    g = H5Gopen2(f, "g", H5P_DEFAULT);
    attr_walk w = {0, 0, true, ""};
    CHECK(H5Aiterate2(g, H5_INDEX_NAME, H5_ITER_INC, NULL, attr_cb, &w) >= 0, "iterate");
    CHECK(w.n == NATTRS && w.sorted, "iterated %ld attributes, in name order: %d", w.n, (int)w.sorted);
    CHECK(w.sum == (long long)NATTRS * (NATTRS - 1) / 2, "values sum to %lld", w.sum);
    /* by index: name order, both directions, and creation order */
    bool ok = true;
    for (int i = 0; i < NATTRS && ok; i++) {
        char got[32], want[32];
        snprintf(want, sizeof want, "a%06d", i);
        ok = H5Aget_name_by_idx(g, ".", H5_INDEX_NAME, H5_ITER_INC, (hsize_t)i, got, sizeof got,
                                H5P_DEFAULT) > 0 &&
             strcmp(got, want) == 0;
        snprintf(want, sizeof want, "a%06d", NATTRS - 1 - i);
        ok = ok &&
             H5Aget_name_by_idx(g, ".", H5_INDEX_NAME, H5_ITER_DEC, (hsize_t)i, got, sizeof got,
                                H5P_DEFAULT) > 0 &&
             strcmp(got, want) == 0;
        /* creation order is reverse name order here */
        ok = ok &&
             H5Aget_name_by_idx(g, ".", H5_INDEX_CRT_ORDER, H5_ITER_INC, (hsize_t)i, got, sizeof got,
                                H5P_DEFAULT) > 0 &&
             strcmp(got, want) == 0;
        if (!ok)
            CHECK(ok, "attribute %d by index", i);
    }
    H5Gclose(g);
    H5Fclose(f);
}

/* ---- links ---- */

enum { NLINKS = 40000 };

typedef struct {
    long n;
    H5O_token_t *tokens;
    bool sorted;
    char last[32];
} link_walk;

static herr_t link_cb(hid_t g, const char *name, const H5L_info2_t *info, void *data)
{
    link_walk *w = data;
    H5O_info2_t oi;
    if (H5Oget_info_by_name3(g, name, &oi, H5O_INFO_BASIC | H5O_INFO_NUM_ATTRS, H5P_DEFAULT) < 0 ||
        oi.type != H5O_TYPE_DATASET)
        return -1;
    int cmp = 1;
    if (H5Otoken_cmp(g, &oi.token, &info->u.token, &cmp) < 0 || cmp != 0)
        return -1;
    if (w->n && strcmp(w->last, name) >= 0)
        w->sorted = false;
    snprintf(w->last, sizeof w->last, "%s", name);
    w->tokens[w->n++] = oi.token;
    return 0;
}

static void case_links(void)
{
    char path[4200], name[32];
    /* zip stores here and below: one file, so that the file system's speed at making
     * 100000s of small files does not decide the run time */
    snprintf(path, sizeof path, "%s/links.zip", dir);
    hid_t f = create_file(path);
    REQUIRE(f >= 0, "create %s", path);
    hid_t g = H5Gcreate2(f, "g", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    hsize_t one = 1;
    hid_t sp = H5Screate_simple(1, &one, NULL);
    for (int i = NLINKS - 1; i >= 0; i--) {
        snprintf(name, sizeof name, "v%06d", i);
        hid_t d = H5Dcreate2(g, name, H5T_STD_I32LE, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        REQUIRE(d >= 0, "dataset %s", name);
        H5Dclose(d);
    }
    H5Sclose(sp);
    H5Gclose(g);
    REQUIRE(H5Fclose(f) >= 0, "close");

    f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    REQUIRE(f >= 0, "reopen");
    g = H5Gopen2(f, "g", H5P_DEFAULT);
    link_walk w = {0, calloc(NLINKS, sizeof(H5O_token_t)), true, ""};
    REQUIRE(w.tokens, "memory");
    CHECK(H5Literate2(g, H5_INDEX_NAME, H5_ITER_INC, NULL, link_cb, &w) >= 0, "iterate");
    CHECK(w.n == NLINKS && w.sorted, "iterated %ld links, in name order: %d", w.n, (int)w.sorted);
    bool ok = true;
    for (int i = 0; i < NLINKS && ok; i++) {
        char got[32], want[32];
        snprintf(want, sizeof want, "v%06d", i);
        ok = H5Lget_name_by_idx(g, ".", H5_INDEX_NAME, H5_ITER_INC, (hsize_t)i, got, sizeof got,
                                H5P_DEFAULT) > 0 &&
             strcmp(got, want) == 0;
        snprintf(want, sizeof want, "v%06d", NLINKS - 1 - i);
        ok = ok &&
             H5Lget_name_by_idx(g, ".", H5_INDEX_CRT_ORDER, H5_ITER_INC, (hsize_t)i, got, sizeof got,
                                H5P_DEFAULT) > 0 &&
             strcmp(got, want) == 0;
        if (!ok)
            CHECK(ok, "link %d by index", i);
    }
    /* every dataset once more by its token */
    for (long i = 0; i < w.n && ok; i++) {
        hid_t o = H5Oopen_by_token(f, w.tokens[i]);
        ok = o >= 0 && H5Iget_type(o) == H5I_DATASET;
        if (o >= 0)
            H5Oclose(o);
        if (!ok)
            CHECK(ok, "dataset %ld by token", i);
    }
    free(w.tokens);
    H5Gclose(g);
    H5Fclose(f);
}

/* ---- ghosts ---- */

enum { NGHOSTS = 200000 };

static herr_t count_cb(hid_t g, const char *name, const H5L_info2_t *info, void *data)
{
    (void)g;
    (void)name;
    (void)info;
    (*(long *)data)++;
    return 0;
}

static void case_ghosts(void)
{
    char path[4200], zattrs[4300];
    snprintf(path, sizeof path, "%s/ghosts.zarr", dir);
    hid_t f = create_file(path);
    REQUIRE(f >= 0, "create %s", path);
    hid_t g = H5Gcreate2(f, "g", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    hid_t real = H5Gcreate2(g, "real", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    H5Gclose(real);
    H5Gclose(g);
    REQUIRE(H5Fclose(f) >= 0, "close");
    /* g's list names its one real group among 100000 that were never written */
    snprintf(zattrs, sizeof zattrs, "%s/g/.zattrs", path);
    FILE *fp = fopen(zattrs, "w");
    REQUIRE(fp, "rewrite %s", zattrs);
    fputs("{\"_nczarr_group\": {\"dimensions\": {}, \"arrays\": [], \"groups\": [", fp);
    for (int i = 0; i < NGHOSTS; i++)
        fprintf(fp, "\"ghost%06d\", %s", i, i == NGHOSTS / 2 ? "\"real\", " : "");
    fputs("\"last\"]}}", fp);
    REQUIRE(fclose(fp) == 0, "write %s", zattrs);

    f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    REQUIRE(f >= 0, "reopen");
    g = H5Gopen2(f, "g", H5P_DEFAULT);
    H5G_info_t gi;
    long n = 0;
    CHECK(H5Gget_info(g, &gi) >= 0 && gi.nlinks == NGHOSTS + 2, "links: %llu", (unsigned long long)gi.nlinks);
    CHECK(H5Literate2(g, H5_INDEX_NAME, H5_ITER_INC, NULL, count_cb, &n) >= 0 && n == NGHOSTS + 2,
          "iterated %ld", n);
    /* listed but absent: readable, empty groups (as before) */
    hid_t gh = H5Gopen2(g, "ghost012345", H5P_DEFAULT);
    CHECK(gh >= 0 && H5Gget_info(gh, &gi) >= 0 && gi.nlinks == 0, "a listed group that is not there");
    if (gh >= 0)
        H5Gclose(gh);
    H5Gclose(g);
    H5Fclose(f);
}

/* ---- cons_pure ---- */

enum { NCONS = 20000 };

static void case_cons_pure(void)
{
    char path[4200], url[4300], name[32];
    snprintf(path, sizeof path, "%s/cons.zip", dir);
    snprintf(url, sizeof url, "file://%s#mode=zarr,zip,consolidated", path);
    hid_t f = create_file(url);
    REQUIRE(f >= 0, "create %s", url);
    /* groups of one group each: every group is listed from .zmetadata */
    for (int i = 0; i < NCONS; i++) {
        snprintf(name, sizeof name, "g%06d/s", i);
        hid_t lcpl = H5Pcreate(H5P_LINK_CREATE);
        H5Pset_create_intermediate_group(lcpl, 1);
        hid_t g = H5Gcreate2(f, name, lcpl, H5P_DEFAULT, H5P_DEFAULT);
        H5Pclose(lcpl);
        REQUIRE(g >= 0, "group %s", name);
        H5Gclose(g);
    }
    REQUIRE(H5Fclose(f) >= 0, "close");

    f = H5Fopen(url, H5F_ACC_RDONLY, H5P_DEFAULT);
    REQUIRE(f >= 0, "reopen");
    long n = 0;
    H5G_info_t gi;
    CHECK(H5Literate2(f, H5_INDEX_NAME, H5_ITER_INC, NULL, count_cb, &n) >= 0 && n == NCONS, "iterated %ld",
          n);
    hid_t g = H5Gopen2(f, "g012345", H5P_DEFAULT);
    CHECK(g >= 0 && H5Gget_info(g, &gi) >= 0 && gi.nlinks == 1, "a group's one child");
    if (g >= 0)
        H5Gclose(g);
    H5Fclose(f);
}

/* ---- zip_nested ---- */

enum { NDEPTH = 3000 };

static void case_zip_nested(void)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/nested.zip", dir);
    hid_t f = create_file(path);
    REQUIRE(f >= 0, "create %s", path);
    hid_t cur = H5Gcreate2(f, "g", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    for (int i = 1; i < NDEPTH && cur >= 0; i++) {
        hid_t g = H5Gcreate2(cur, "g", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        H5Gclose(cur);
        cur = g;
    }
    REQUIRE(cur >= 0, "nested groups");
    H5Gclose(cur);
    REQUIRE(H5Fclose(f) >= 0, "close");

    /* the whole chain renamed near its top: every entry below changes name */
    f = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
    REQUIRE(f >= 0, "reopen for writing");
    CHECK(H5Lmove(f, "g/g", f, "g/h", H5P_DEFAULT, H5P_DEFAULT) >= 0, "rename the second level");
    REQUIRE(H5Fclose(f) >= 0, "close");

    f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    REQUIRE(f >= 0, "reopen");
    hid_t g = H5Gopen2(f, "g/h", H5P_DEFAULT);
    int depth = g >= 0 ? 2 : 0;
    for (;;) {
        H5G_info_t gi;
        if (g < 0 || H5Gget_info(g, &gi) < 0 || gi.nlinks != 1)
            break;
        hid_t c = H5Gopen2(g, "g", H5P_DEFAULT);
        H5Gclose(g);
        g = c;
        if (g >= 0)
            depth++;
    }
    if (g >= 0)
        H5Gclose(g);
    CHECK(depth == NDEPTH, "read back %d levels", depth);
    H5Fclose(f);
}

/* ---- zip_deep ---- */

enum { NDEEP_ENTRIES = 16, NSEGS = 29990 };

static void case_zip_deep(void)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/deep.zip", dir);
    int err = 0;
    zip_t *za = zip_open(path, ZIP_CREATE | ZIP_TRUNCATE, &err);
    REQUIRE(za, "zip_open %s: %d", path, err);
    static const char zgroup[] = "{\"zarr_format\": 2}";
    char *name = malloc(2 * NSEGS + 64);
    REQUIRE(name, "memory");
    /* a pure Zarr store at the archive root with one group, and deep entries of no group */
    zip_source_t *s = zip_source_buffer(za, zgroup, sizeof zgroup - 1, 0);
    REQUIRE(s && zip_file_add(za, ".zgroup", s, 0) >= 0, "add .zgroup");
    s = zip_source_buffer(za, zgroup, sizeof zgroup - 1, 0);
    REQUIRE(s && zip_file_add(za, "top/.zgroup", s, 0) >= 0, "add top/.zgroup");
    for (int e = 0; e < NDEEP_ENTRIES; e++) {
        size_t n = (size_t)sprintf(name, "d%d", e);
        for (int i = 0; i < NSEGS; i++) {
            name[n++] = '/';
            name[n++] = 'a';
        }
        strcpy(name + n, "/x");
        s = zip_source_buffer(za, "1", 1, 0);
        REQUIRE(s && zip_file_add(za, name, s, 0) >= 0, "add a deep entry");
    }
    REQUIRE(zip_close(za) == 0, "write %s", path);
    free(name);

    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    REQUIRE(f >= 0, "open %s", path);
    long n = 0;
    CHECK(H5Literate2(f, H5_INDEX_NAME, H5_ITER_INC, NULL, count_cb, &n) >= 0 && n == 1,
          "the root lists its one group: %ld", n);
    CHECK(H5Lexists(f, "top", H5P_DEFAULT) > 0, "top exists");
    H5Fclose(f);
}

/* ---- dir_commit ---- */

enum { NGROUPS = 40, NARRAYS = 60 };

static void case_dir_commit(void)
{
    char path[4200], name[64];
    snprintf(path, sizeof path, "%s/commit.zarr", dir);
    hid_t f = create_file(path);
    REQUIRE(f >= 0, "create %s", path);
    hsize_t three = 3;
    hid_t sp = H5Screate_simple(1, &three, NULL), scalar = H5Screate(H5S_SCALAR);
    for (int gi = 0; gi < NGROUPS; gi++) {
        snprintf(name, sizeof name, "g%03d", gi);
        hid_t g = H5Gcreate2(f, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        REQUIRE(g >= 0, "group %s", name);
        for (int ai = 0; ai < NARRAYS; ai++) {
            snprintf(name, sizeof name, "v%03d", ai);
            hid_t d = H5Dcreate2(g, name, H5T_STD_I32LE, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
            int vals[3] = {gi, ai, gi * 1000 + ai};
            hid_t a = H5Acreate2(d, "id", H5T_STD_I32LE, scalar, H5P_DEFAULT, H5P_DEFAULT);
            REQUIRE(d >= 0 && a >= 0 &&
                        H5Dwrite(d, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, vals) >= 0 &&
                        H5Awrite(a, H5T_NATIVE_INT, &vals[2]) >= 0,
                    "dataset %s", name);
            H5Aclose(a);
            H5Dclose(d);
        }
        H5Gclose(g);
    }
    REQUIRE(H5Fclose(f) >= 0, "close");
    /* a few objects changed, one added: a save with a few dirty objects among many */
    f = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
    REQUIRE(f >= 0, "reopen for writing");
    for (int gi = 0; gi < NGROUPS; gi += 13) {
        snprintf(name, sizeof name, "g%03d/v%03d", gi, NARRAYS - 1);
        hid_t d = H5Dopen2(f, name, H5P_DEFAULT), a = H5Aopen(d, "id", H5P_DEFAULT);
        int v = -gi;
        REQUIRE(d >= 0 && a >= 0 && H5Awrite(a, H5T_NATIVE_INT, &v) >= 0, "rewrite %s", name);
        H5Aclose(a);
        H5Dclose(d);
    }
    hid_t d = H5Dcreate2(f, "g000/extra", H5T_STD_I32LE, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    REQUIRE(d >= 0, "added dataset");
    H5Dclose(d);
    REQUIRE(H5Fclose(f) >= 0, "close after changes");

    f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    REQUIRE(f >= 0, "reopen");
    bool ok = H5Lexists(f, "g000/extra", H5P_DEFAULT) > 0;
    CHECK(ok, "the added dataset");
    for (int gi = 0; gi < NGROUPS && ok; gi++)
        for (int ai = 0; ai < NARRAYS && ok; ai++) {
            snprintf(name, sizeof name, "g%03d/v%03d", gi, ai);
            int vals[3] = {-1, -1, -1}, v = 0;
            d = H5Dopen2(f, name, H5P_DEFAULT);
            hid_t a = d >= 0 ? H5Aopen(d, "id", H5P_DEFAULT) : H5I_INVALID_HID;
            int want = ai == NARRAYS - 1 && gi % 13 == 0 ? -gi : gi * 1000 + ai;
            ok = a >= 0 && H5Dread(d, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, vals) >= 0 &&
                 H5Aread(a, H5T_NATIVE_INT, &v) >= 0 && vals[0] == gi && vals[1] == ai && v == want;
            CHECK(ok, "%s reads back (values %d %d, attribute %d)", name, vals[0], vals[1], v);
            if (a >= 0)
                H5Aclose(a);
            if (d >= 0)
                H5Dclose(d);
        }
    H5Fclose(f);
    H5Sclose(sp);
    H5Sclose(scalar);
    /* no temporary is left anywhere in the store */
    char cmd[4400];
    snprintf(cmd, sizeof cmd, "find '%s' -name '.nczm-tmp*' | grep -q .", path);
    CHECK(system(cmd) != 0, "temporaries left in %s", path);
}

int main(int argc, char **argv)
{
    static const struct {
        const char *name;
        void (*fn)(void);
    } cases[] = {{"attrs", case_attrs},          {"links", case_links},           {"ghosts", case_ghosts},
                 {"cons_pure", case_cons_pure},  {"zip_nested", case_zip_nested}, {"zip_deep", case_zip_deep},
                 {"dir_commit", case_dir_commit}};
    if (argc != 2) {
        fprintf(stderr, "usage: %s CASE\n", argv[0]);
        return 2;
    }
    scratch_dir(dir, sizeof dir, "scale");
    bool found = false;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        if (strcmp(argv[1], cases[i].name) == 0) {
            cases[i].fn();
            found = true;
        }
    CHECK(found, "unknown case \"%s\"", argv[1]);
    rm_rf(dir);
    TEST_MAIN_END();
}
