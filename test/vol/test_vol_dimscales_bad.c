/* Corrupt NCZarr dimension metadata, as a store from an untrusted source can hold: an
 * array whose _nczarr_array.dimension_references names a dimension that does not exist (in
 * an existing group, in a missing group), a _nczarr_group.dimensions size that disagrees
 * with the shape of an array using it, and more references than the array has
 * dimensions. The stores are written here in the layout netCDF-C 4.10.1 writes. netCDF-C
 * opens the first three, deriving the dimension: so does the connector, the array's own
 * shape winning, with a warning on the error stack naming the key and the dimension; the
 * last fails with an NCZarr error (never a crash, never data under a wrong shape). The
 * other objects stay readable. */
#include "vol_test_util.h"

#include <hdf5_hl.h>

#include <sys/stat.h>

static char dir[4096];

static void put(const char *store, const char *key, const char *text)
{
    char path[8192];
    snprintf(path, sizeof path, "%s/%s", store, key);
    FILE *f = fopen(path, "w");
    if (!f || fputs(text, f) < 0 || fclose(f) != 0) {
        perror(path);
        exit(2);
    }
}

static void put_chunk(const char *store, const char *key)
{
    char path[8192];
    snprintf(path, sizeof path, "%s/%s", store, key);
    FILE *f = fopen(path, "wb");
    int v[6] = {1, 2, 3, 4, 5, 6};
    if (!f || fwrite(v, sizeof v, 1, f) != 1 || fclose(f) != 0) {
        perror(path);
        exit(2);
    }
}

static void mkdirs(const char *store, const char *sub)
{
    char path[8192];
    snprintf(path, sizeof path, "%s/%s", store, sub);
    if (mkdir(path, 0755) != 0) {
        perror(path);
        exit(2);
    }
}

#define ARRAY_ATTR_TYPES                                                                                     \
    "\"_nczarr_attr\": {\"types\": {\"_nczarr_array\": \"|J0\", \"_nczarr_attr\": \"|J0\"}}"
#define ZARRAY6                                                                                              \
    "{\"zarr_format\": 2, \"shape\": [6], \"dtype\": \"<i4\", \"chunks\": [6], \"fill_value\": -1, "         \
    "\"order\": \"C\", \"compressor\": null, \"filters\": null}"

/* An int32 array of 6 elements (1..6 in one chunk) with the given dimension references. */
static void put_array(const char *store, const char *name, const char *refs)
{
    char key[512], text[2048];
    mkdirs(store, name);
    snprintf(key, sizeof key, "%s/.zarray", name);
    put(store, key, ZARRAY6);
    snprintf(key, sizeof key, "%s/.zattrs", name);
    snprintf(text, sizeof text,
             "{\"_nczarr_array\": {\"dimension_references\": %s, \"storage\": \"chunked\"}, " ARRAY_ATTR_TYPES
             "}",
             refs);
    put(store, key, text);
    snprintf(key, sizeof key, "%s/0", name);
    put_chunk(store, key);
}

/* DIR/TAG.zarr: root dimensions `dims` (a JSON dict), arrays n (the coordinate of n),
 * good (over n) and bad (with `bad_refs`), group g with inner (over /n). */
static void make_store(const char *tag, const char *dims, const char *bad_refs, char *out, size_t len)
{
    snprintf(out, len, "%s/%s.zarr", dir, tag);
    rm_rf(out);
    if (mkdir(out, 0755) != 0) {
        perror(out);
        exit(2);
    }
    char text[4096];
    put(out, ".zgroup", "{\"zarr_format\": 2}");
    snprintf(text, sizeof text,
             "{\"_nczarr_group\": {\"dimensions\": %s, \"arrays\": [\"n\", \"good\", \"bad\"], "
             "\"groups\": [\"g\"]}, \"_nczarr_superblock\": {\"version\": \"2.0.0\"}, "
             "\"_nczarr_attr\": {\"types\": {\"_nczarr_group\": \"|J0\", \"_nczarr_superblock\": \"|J0\", "
             "\"_nczarr_attr\": \"|J0\"}}}",
             dims);
    put(out, ".zattrs", text);
    put_array(out, "n", "[\"/n\"]");
    put_array(out, "good", "[\"/n\"]");
    put_array(out, "bad", bad_refs);
    mkdirs(out, "g");
    put(out, "g/.zgroup", "{\"zarr_format\": 2}");
    put(out, "g/.zattrs",
        "{\"_nczarr_group\": {\"dimensions\": {}, \"arrays\": [\"inner\"], \"groups\": []}, "
        "\"_nczarr_attr\": {\"types\": {\"_nczarr_group\": \"|J0\", \"_nczarr_attr\": \"|J0\"}}}");
    put_array(out, "g/inner", "[\"/n\"]");
}

/* The store opens, `bad` fails with an NCZarr error mentioning one of the needles (or,
 * lenient, reads 1..6 with an NCZarr warning mentioning needle1), and n, good and g/inner
 * read back 1..6. */
static void check_store2(const char *tag, const char *dims, const char *bad_refs, const char *needle1,
                         const char *needle2, bool lenient);
static void check_store(const char *tag, const char *dims, const char *bad_refs, const char *needle1,
                        const char *needle2)
{
    check_store2(tag, dims, bad_refs, needle1, needle2, false);
}

static void check_lenient(const char *tag, const char *dims, const char *bad_refs, const char *needle)
{
    check_store2(tag, dims, bad_refs, needle, NULL, true);
}

static void check_store2(const char *tag, const char *dims, const char *bad_refs, const char *needle1,
                         const char *needle2, bool lenient)
{
    char path[8192];
    make_store(tag, dims, bad_refs, path, sizeof path);
    errtext_t et = {{0}, 0};
    hid_t f;
    H5E_BEGIN_TRY
    {
        f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    }
    H5E_END_TRY
    take_errors(&et);
    REQUIRE(f >= 0, "%s: the store must open (only one array is bad), got:\n%s", tag, et.text);
    CHECK(is_nczarr(f), "%s: not opened by the nczarr connector", tag);
    int buf[6] = {0};
    if (needle1 && lenient) {
        /* the warning comes with the open (open_and_read_ints keeps only the read's stack) */
        H5Eclear2(H5E_DEFAULT);
        hid_t d = H5Dopen2(f, "bad", H5P_DEFAULT);
        take_errors(&et);
        CHECK(d >= 0 && nczarr_error_has(&et, needle1) && nczarr_error_has(&et, "opens with its own shape"),
              "%s: /bad must open with an NCZarr warning mentioning \"%s\", got:\n%s", tag, needle1, et.text);
        CHECK(d >= 0 && H5DSget_num_scales(d, 0) <= 0, "%s: /bad has no dimension scale", tag);
        if (d >= 0)
            H5Dclose(d);
    } else if (needle1) {
        herr_t r = open_and_read_ints(f, "bad", buf, &et);
        CHECK(r < 0, "%s: opening or reading /bad must fail", tag);
        CHECK(nczarr_error_has(&et, needle1) || (needle2 && nczarr_error_has(&et, needle2)),
              "%s: expected an NCZarr error mentioning \"%s\"%s%s, got:\n%s", tag, needle1,
              needle2 ? " or " : "", needle2 ? needle2 : "", et.text);
    }
    const char *others[3] = {"n", "good", "g/inner"};
    for (int i = 0; i < (needle1 && !lenient ? 3 : 4); i++) {
        const char *name = i < 3 ? others[i] : "bad";
        memset(buf, 0, sizeof buf);
        et.len = 0;
        herr_t r = open_and_read_ints(f, name, buf, &et);
        CHECK(r >= 0 && buf[0] == 1 && buf[5] == 6, "%s: /%s must still read 1..6 (got %d..%d), errors:\n%s",
              tag, name, buf[0], buf[5], et.text);
    }
    CHECK(H5Fclose(f) >= 0, "%s: close", tag);
}

int main(void)
{
    scratch_dir(dir, sizeof dir, "dimscales-bad");
    /* the control: the same store, consistent */
    check_store("consistent", "{\"n\": 6}", "[\"/n\"]", NULL, NULL);
    check_lenient("missing_dim", "{\"n\": 6}", "[\"/nope\"]", "/nope");
    check_lenient("missing_group", "{\"n\": 6}", "[\"/nogroup/n\"]", "/nogroup/n");
    check_lenient("size_disagrees", "{\"n\": 6, \"wrongsize\": 5}", "[\"/wrongsize\"]", "wrongsize");
    check_store("too_many_refs", "{\"n\": 6}", "[\"/n\", \"/n\"]", "dimension_references", "bad");
    rm_rf(dir);
    TEST_MAIN_END();
}
