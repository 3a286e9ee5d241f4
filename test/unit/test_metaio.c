/* Loading and saving metadata objects (.zgroup, .zarray, .zattrs with the _nczarr_* keys)
 * through translate/'s model: a model saved and loaded again is the same model, what lands
 * on disk has the keys netCDF-C and zarr-python read, and malformed objects are errors that
 * name their key (a damaged array fails alone; a damaged root fails the open). */
#include "json_test_util.h"
#include "ncz_test.h"
#include "ncztr_model_internal.h"
#include "ncztr_store.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char g_dir[4096];

#define CHECK_OK(e) CHECK((e) >= 0, "%s", err_text())

static void path_of(char *out, size_t len, const char *store, const char *key)
{
    snprintf(out, len, "%s/%s", store, key);
}

static json_t *load_json(const char *store, const char *key)
{
    char p[8192];
    size_t len = 0;
    path_of(p, sizeof p, store, key);
    char *text = read_file(p, &len);
    json_t *j = text ? json_loadb(text, len, 0, NULL) : NULL;
    free(text);
    return j;
}

static void put_text(const char *store, const char *key, const char *text)
{
    char p[8192];
    path_of(p, sizeof p, store, key);
    FILE *f = fopen(p, "wb");
    if (!f || fputs(text, f) < 0) {
        perror(p);
        exit(2);
    }
    fclose(f);
}

/* A store: group "g" with an int and a text attribute, array "g/v" (int32, 4x6, chunks 2x3,
 * fill 7) with an attribute. */
static void make_store(const char *store)
{
    ncztr_file *f = NULL;
    ncztr_obj *g = NULL, *v = NULL;
    ncztr_attr *a = NULL;
    CHECK_OK(ncztr_file_create(store, NCZM_CREATE | NCZM_TRUNC, NULL, &f));
    if (!f)
        return;
    CHECK_OK(ncztr_group_create(f->root, "g", &g));
    hid_t s1 = H5Screate(H5S_SCALAR), ts = H5Tcopy(H5T_C_S1);
    H5Tset_size(ts, 5);
    int n = 42;
    CHECK_OK(ncztr_attr_create(g, "n", H5T_STD_I32LE, s1, &a));
    CHECK_OK(ncztr_attr_write(g, a, H5T_NATIVE_INT, &n));
    ncztr_attr_unref(a);
    CHECK_OK(ncztr_attr_create(g, "title", ts, s1, &a));
    CHECK_OK(ncztr_attr_write(g, a, ts, "hello"));
    ncztr_attr_unref(a);
    hsize_t dims[2] = {4, 6}, chunks[2] = {2, 3};
    hid_t sp = H5Screate_simple(2, dims, NULL), dcpl = H5Pcreate(H5P_DATASET_CREATE);
    int fill = 7;
    H5Pset_chunk(dcpl, 2, chunks);
    H5Pset_fill_value(dcpl, H5T_NATIVE_INT, &fill);
    CHECK_OK(ncztr_array_create(g, "v", H5T_STD_I32LE, sp, dcpl, H5P_DEFAULT, &v));
    if (v) {
        double x = 2.5;
        CHECK_OK(ncztr_attr_create(v, "scale", H5T_IEEE_F64LE, s1, &a));
        CHECK_OK(ncztr_attr_write(v, a, H5T_NATIVE_DOUBLE, &x));
        ncztr_attr_unref(a);
        ncztr_obj_unref(v);
    }
    if (g)
        ncztr_obj_unref(g);
    H5Pclose(dcpl);
    H5Sclose(sp);
    H5Tclose(ts);
    H5Sclose(s1);
    CHECK_OK(ncztr_file_close(f));
}

/* What lands on disk is NCZarr: the keys netCDF-C and zarr-python read. */
static void test_on_disk(const char *store)
{
    json_t *zg = load_json(store, ".zgroup"), *za = load_json(store, ".zattrs");
    json_t *vz = load_json(store, "g/v/.zarray"), *va = load_json(store, "g/v/.zattrs");
    json_t *ga = load_json(store, "g/.zattrs");
    CHECK(zg && json_integer_value(json_object_get(zg, "zarr_format")) == 2, "root .zgroup");
    CHECK(za && json_is_object(json_object_get(za, "_nczarr_superblock")), "superblock in the root .zattrs");
    json_t *grp = za ? json_object_get(za, "_nczarr_group") : NULL;
    json_t *groups = grp ? json_object_get(grp, "groups") : NULL;
    CHECK(json_is_array(groups) && json_array_size(groups) == 1 &&
              strcmp(json_string_value(json_array_get(groups, 0)), "g") == 0,
          "root _nczarr_group.groups lists g");
    json_t *arrays = ga ? json_object_get(json_object_get(ga, "_nczarr_group"), "arrays") : NULL;
    CHECK(json_is_array(arrays) && json_array_size(arrays) == 1, "g's _nczarr_group.arrays lists v");
    CHECK(ga && json_integer_value(json_object_get(ga, "n")) == 42, "g's attribute n");
    CHECK(ga && json_is_string(json_object_get(ga, "title")) &&
              strcmp(json_string_value(json_object_get(ga, "title")), "hello") == 0,
          "g's text attribute is a JSON string");
    CHECK(vz && json_integer_value(json_object_get(vz, "zarr_format")) == 2, ".zarray zarr_format");
    CHECK(vz && strcmp(json_string_value(json_object_get(vz, "dtype")), "<i4") == 0, ".zarray dtype");
    json_t *shape = vz ? json_object_get(vz, "shape") : NULL,
           *chunks = vz ? json_object_get(vz, "chunks") : NULL;
    CHECK(json_array_size(shape) == 2 && json_integer_value(json_array_get(shape, 1)) == 6, ".zarray shape");
    CHECK(json_array_size(chunks) == 2 && json_integer_value(json_array_get(chunks, 1)) == 3,
          ".zarray chunks");
    CHECK(vz && json_integer_value(json_object_get(vz, "fill_value")) == 7, ".zarray fill_value");
    CHECK(va && json_is_array(json_object_get(va, "_ARRAY_DIMENSIONS")), "_ARRAY_DIMENSIONS for xarray");
    CHECK(va && json_is_object(json_object_get(va, "_nczarr_array")), "_nczarr_array in the array's .zattrs");
    json_decref(zg);
    json_decref(za);
    json_decref(vz);
    json_decref(va);
    json_decref(ga);
}

/* Loaded again, the model is the one saved. */
static void test_reload(const char *store)
{
    ncztr_file *f = NULL;
    CHECK_OK(ncztr_file_open(store, true, NULL, &f));
    REQUIRE(f, "cannot open %s", store);
    ncztr_obj *g = ncztr_child(f->root, "g");
    REQUIRE(g && g->kind == NCZTR_GROUP, "no group g");
    ncztr_attr *n = ncztr_attr_find(g, "n"), *t = ncztr_attr_find(g, "title");
    int nv = 0;
    char tv[6] = {0};
    CHECK(n && ncztr_attr_read(NULL, n, H5T_NATIVE_INT, &nv) >= 0 && nv == 42, "attribute n: %d", nv);
    hid_t ts = H5Tcopy(H5T_C_S1);
    H5Tset_size(ts, 5);
    CHECK(t && ncztr_attr_read(NULL, t, ts, tv) >= 0 && memcmp(tv, "hello", 5) == 0, "attribute title: %s",
          tv);
    H5Tclose(ts);
    ncztr_obj *v = ncztr_child(g, "v");
    CHECK(v && v->kind == NCZTR_ARRAY && ncztr_array_check_usable(v) >= 0, "array v: %s", err_text());
    if (v && ncztr_array_check_usable(v) >= 0) {
        hid_t sp = ncztr_array_space(v), ty = ncztr_array_type(v), dcpl = ncztr_array_dcpl(v);
        hsize_t d[2] = {0, 0}, c[2] = {0, 0};
        int fill = 0;
        CHECK(H5Sget_simple_extent_dims(sp, d, NULL) == 2 && d[0] == 4 && d[1] == 6, "shape %llu x %llu",
              (unsigned long long)d[0], (unsigned long long)d[1]);
        CHECK(H5Tequal(ty, H5T_STD_I32LE) > 0, "type int32 little-endian");
        CHECK(H5Pget_chunk(dcpl, 2, c) == 2 && c[0] == 2 && c[1] == 3, "chunks");
        CHECK(H5Pget_fill_value(dcpl, H5T_NATIVE_INT, &fill) >= 0 && fill == 7, "fill %d", fill);
        double x = 0;
        ncztr_attr *s = ncztr_attr_find(v, "scale");
        CHECK(s && ncztr_attr_read(NULL, s, H5T_NATIVE_DOUBLE, &x) >= 0 && x == 2.5, "array attribute scale");
        H5Sclose(sp);
        H5Tclose(ty);
        H5Pclose(dcpl);
    }
    CHECK_OK(ncztr_file_close(f));
}

/* A copy of the good store with one object replaced. */
static void damaged(const char *good, const char *tag, const char *key, const char *text, char *out,
                    size_t len)
{
    char cmd[10000];
    snprintf(out, len, "%s/%s.zarr", g_dir, tag);
    snprintf(cmd, sizeof cmd, "rm -rf '%s' && cp -r '%s' '%s'", out, good, out);
    if (system(cmd) != 0)
        exit(2);
    put_text(out, key, text);
}

/* A damaged root object fails the open, naming the key. */
static void expect_open_fails(const char *good, const char *key, const char *text, const char *needle)
{
    char store[4400];
    damaged(good, "root", key, text, store, sizeof store);
    ncztr_file *f = NULL;
    err_reset();
    herr_t r = ncztr_file_open(store, true, NULL, &f);
    CHECK_FAILS(r < 0, key, needle);
    if (f)
        ncztr_file_close(f);
}

/* A damaged array opens with the store but is unusable, its error naming the key. */
static void expect_array_fails(const char *good, const char *key, const char *text, const char *needle)
{
    char store[4400];
    damaged(good, "array", key, text, store, sizeof store);
    ncztr_file *f = NULL;
    err_reset();
    CHECK(ncztr_file_open(store, true, NULL, &f) >= 0, "%s damaged: the store must open: %s", key,
          err_text());
    if (!f)
        return;
    ncztr_obj *g = ncztr_child(f->root, "g"), *v = g ? ncztr_child(g, "v") : NULL;
    err_reset();
    CHECK_FAILS(!v || ncztr_array_check_usable(v) < 0, key, needle);
    /* the rest of the store stays readable */
    CHECK(g && ncztr_attr_find(g, "n") != NULL, "%s damaged: g's attributes still load", key);
    ncztr_file_close(f);
}

static void test_malformed(const char *good)
{
    expect_open_fails(good, ".zgroup", "{\"zarr_format\": ", ".zgroup");
    expect_open_fails(good, ".zattrs", "[1, 2, 3]", "must be an object");
    expect_open_fails(good, ".zattrs", "{\"_nczarr_group\": {\"arrays\": 5, \"groups\": []}}", "arrays");
    expect_array_fails(good, "g/v/.zarray", "{\"zarr_format\": 2}", "shape");
    expect_array_fails(good, "g/v/.zarray", "not json at all", "g/v/.zarray");
    expect_array_fails(good, "g/v/.zarray",
                       "{\"zarr_format\": 2, \"shape\": [4, 6], \"chunks\": [2, -3], \"dtype\": \"<i4\", "
                       "\"compressor\": null, \"fill_value\": 0, \"filters\": null, \"order\": \"C\"}",
                       "chunks");
    expect_array_fails(good, "g/v/.zarray",
                       "{\"zarr_format\": 2, \"shape\": [4, 6], \"chunks\": [2, 3], \"dtype\": \"<q9\", "
                       "\"compressor\": null, \"fill_value\": 0, \"filters\": null, \"order\": \"C\"}",
                       "dtype");
    expect_array_fails(good, "g/v/.zattrs", "{\"_nczarr_array\": {\"dimrefs\": [\"/nope\"]}}", "g/v");
}

int main(void)
{
    char good[4200];
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    const char *t = getenv("TMPDIR");
    snprintf(g_dir, sizeof g_dir, "%s/nczarr-metaio-XXXXXX", t && *t ? t : "/tmp");
    if (!mkdtemp(g_dir)) {
        perror("mkdtemp");
        return 2;
    }
    snprintf(good, sizeof good, "%s/good.zarr", g_dir);
    make_store(good);
    test_on_disk(good);
    test_reload(good);
    test_malformed(good);
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_dir);
    if (system(cmd) != 0)
        fprintf(stderr, "cannot remove %s\n", g_dir);
    TEST_MAIN_END();
}
