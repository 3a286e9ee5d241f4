/* Bad input: a good store written through the connector is copied and one key of the copy
 * is rewritten on disk (missing keys, wrong JSON types, bad sizes, unsupported dtypes,
 * short chunks, corrupt .zattrs, ...). Opening or reading the damaged array must fail with
 * an NCZarr error naming the key or dtype, never crash, and the other dataset of the same
 * store must still open and read its values. Also: bad names given to H5Dcreate. */
#include "vol_test_util.h"

#include <sys/stat.h>

static char dir[4096];
static char good[4200];

static const int good_vals[6] = {10, 11, 12, 13, 14, 15};
static const int bad_vals[6] = {0, 1, 2, 3, 4, 5};

static void write_key(const char *store, const char *key, const char *text, size_t len)
{
    char p[8300];
    snprintf(p, sizeof p, "%s/%s", store, key);
    FILE *fp = fopen(p, "wb");
    if (!fp) {
        perror(p);
        exit(2);
    }
    if (len && fwrite(text, 1, len, fp) != len)
        exit(2);
    fclose(fp);
}

static void put_key(const char *store, const char *key, const char *text)
{
    write_key(store, key, text, strlen(text));
}

static void remove_key(const char *store, const char *key)
{
    char p[8300];
    snprintf(p, sizeof p, "%s/%s", store, key);
    remove(p);
}

/* A fresh copy of the good store, named after the case. */
static void copy_store(const char *tag, char *out, size_t len)
{
    copy_store_to(good, dir, tag, out, len);
}

/* Two 1-D int32 datasets of 6 elements in chunks of 3, an attribute on each of them and
 * on the root, and an empty group. */
static void make_good(void)
{
    snprintf(good, sizeof good, "%s/good.zarr", dir);
    hid_t f = H5Fcreate(good, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    if (f < 0 || !is_nczarr(f)) {
        fprintf(stderr, "cannot create %s through the nczarr connector\n", good);
        exit(2);
    }
    hsize_t n = 6, c = 3;
    hid_t s = H5Screate_simple(1, &n, NULL), dcpl = H5Pcreate(H5P_DATASET_CREATE), as = H5Screate(H5S_SCALAR);
    H5Pset_chunk(dcpl, 1, &c);
    const char *names[2] = {"good", "bad"};
    const int *vals[2] = {good_vals, bad_vals};
    for (int i = 0; i < 2; i++) {
        hid_t d = H5Dcreate2(f, names[i], H5T_STD_I32LE, s, H5P_DEFAULT, dcpl, H5P_DEFAULT);
        if (d < 0 || H5Dwrite(d, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, vals[i]) < 0)
            exit(2);
        int v = 7 + i;
        hid_t a = H5Acreate2(d, "answer", H5T_STD_I32LE, as, H5P_DEFAULT, H5P_DEFAULT);
        if (a < 0 || H5Awrite(a, H5T_NATIVE_INT, &v) < 0)
            exit(2);
        H5Aclose(a);
        H5Dclose(d);
    }
    hid_t a = H5Acreate2(f, "title", H5T_STD_I32LE, as, H5P_DEFAULT, H5P_DEFAULT);
    int v = 42;
    if (a < 0 || H5Awrite(a, H5T_NATIVE_INT, &v) < 0)
        exit(2);
    H5Aclose(a);
    hid_t g = H5Gcreate2(f, "grp", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (g < 0 || H5Gclose(g) < 0)
        exit(2);
    H5Sclose(s);
    H5Sclose(as);
    H5Pclose(dcpl);
    if (H5Fclose(f) < 0)
        exit(2);
}

/* The other dataset of the store is intact: it opens, reads its values and its attribute. */
static void check_good(hid_t f, const char *what)
{
    int buf[6] = {0}, av = 0;
    hid_t d = H5Dopen2(f, "good", H5P_DEFAULT);
    CHECK(d >= 0 && is_nczarr(d), "%s: dataset \"good\" must still open", what);
    if (d < 0)
        return;
    CHECK(H5Dread(d, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) >= 0 &&
              memcmp(buf, good_vals, sizeof buf) == 0,
          "%s: dataset \"good\" must read its values (got %d %d %d %d %d %d)", what, buf[0], buf[1], buf[2],
          buf[3], buf[4], buf[5]);
    hid_t a = H5Aopen(d, "answer", H5P_DEFAULT);
    CHECK(a >= 0 && H5Aread(a, H5T_NATIVE_INT, &av) >= 0 && av == 7, "%s: attribute of \"good\" (%d)", what,
          av);
    if (a >= 0)
        H5Aclose(a);
    H5Dclose(d);
}

/* Case where the damaged dataset must fail to open (or, when it opens, to read) with an
 * NCZarr error containing `needle`; everything else stays readable. */
static void expect_bad(const char *store, const char *needle, const char *what)
{
    errtext_t et = {{0}, 0};
    hid_t f = H5Fopen(store, H5F_ACC_RDONLY, H5P_DEFAULT);
    CHECK(f >= 0, "%s: the store must still open", what);
    if (f < 0)
        return;
    CHECK(is_nczarr(f), "%s: file id is not served by the nczarr connector", what);
    int buf[6] = {0};
    herr_t r = open_and_read_ints(f, "bad", buf, &et);
    CHECK(r < 0, "%s: opening or reading the damaged dataset must fail", what);
    CHECK(nczarr_error_has(&et, needle), "%s: expected an NCZarr error mentioning \"%s\", got:\n%s", what,
          needle, et.text);
    /* listing the root still works and shows both links */
    CHECK(H5Lexists(f, "bad", H5P_DEFAULT) > 0 && H5Lexists(f, "good", H5P_DEFAULT) > 0,
          "%s: both links must still be listed", what);
    check_good(f, what);
    hid_t a = H5Aopen(f, "title", H5P_DEFAULT);
    int v = 0;
    CHECK(a >= 0 && H5Aread(a, H5T_NATIVE_INT, &v) >= 0 && v == 42, "%s: root attribute (%d)", what, v);
    if (a >= 0)
        H5Aclose(a);
    CHECK(H5Fclose(f) >= 0, "%s: close", what);
}

#define ZA_HEAD "{\"zarr_format\": 2, "
#define ZA_TAIL "\"fill_value\": 0, \"order\": \"C\", \"compressor\": null, \"filters\": null}"

static void zarray_case(const char *tag, const char *zarray, const char *needle)
{
    char p[4300];
    copy_store(tag, p, sizeof p);
    put_key(p, "bad/.zarray", zarray);
    expect_bad(p, needle, tag);
}

static void test_zarray(void)
{
    /* missing keys */
    zarray_case("noshape", ZA_HEAD "\"dtype\": \"<i4\", \"chunks\": [3], " ZA_TAIL, "shape");
    zarray_case("nodtype", ZA_HEAD "\"shape\": [6], \"chunks\": [3], " ZA_TAIL, "dtype");
    zarray_case("nochunks", ZA_HEAD "\"shape\": [6], \"dtype\": \"<i4\", " ZA_TAIL, "chunks");
    zarray_case("noformat", "{\"shape\": [6], \"dtype\": \"<i4\", \"chunks\": [3], " ZA_TAIL, "zarr_format");
    /* wrong JSON types */
    zarray_case("shapestr", ZA_HEAD "\"shape\": \"x\", \"dtype\": \"<i4\", \"chunks\": [3], " ZA_TAIL,
                "shape");
    zarray_case("chunksreal", ZA_HEAD "\"shape\": [6], \"dtype\": \"<i4\", \"chunks\": [2.5], " ZA_TAIL,
                "chunks");
    zarray_case("dtypenum", ZA_HEAD "\"shape\": [6], \"dtype\": 4, \"chunks\": [3], " ZA_TAIL, "dtype");
    zarray_case("notobject", "[1, 2, 3]", "bad/.zarray");
    zarray_case("notjson", "{\"zarr_format\": 2, \"shape\": [6", "bad/.zarray");
    zarray_case("fillstr",
                ZA_HEAD "\"shape\": [6], \"dtype\": \"<i4\", \"chunks\": [3], \"fill_value\": \"x\"}",
                "fill_value");
    zarray_case("order", ZA_HEAD "\"shape\": [6], \"dtype\": \"<i4\", \"chunks\": [3], \"order\": \"K\"}",
                "order");
    /* negative or zero sizes */
    zarray_case("shapeneg", ZA_HEAD "\"shape\": [-6], \"dtype\": \"<i4\", \"chunks\": [3], " ZA_TAIL,
                "shape");
    zarray_case("chunkzero", ZA_HEAD "\"shape\": [6], \"dtype\": \"<i4\", \"chunks\": [0], " ZA_TAIL,
                "chunks");
    zarray_case("chunkneg", ZA_HEAD "\"shape\": [6], \"dtype\": \"<i4\", \"chunks\": [-3], " ZA_TAIL,
                "chunks");
    zarray_case("rankdiff", ZA_HEAD "\"shape\": [6], \"dtype\": \"<i4\", \"chunks\": [3, 3], " ZA_TAIL,
                "chunks");
    /* sizes that overflow */
    zarray_case("chunkovf",
                ZA_HEAD "\"shape\": [6, 6, 6], \"dtype\": \"<i4\", "
                        "\"chunks\": [4294967296, 4294967296, 4294967296], " ZA_TAIL,
                "chunks");
    zarray_case("shapeovf",
                ZA_HEAD "\"shape\": [4294967296, 4294967296, 4294967296], \"dtype\": \"<i4\", "
                        "\"chunks\": [1, 1, 1], " ZA_TAIL,
                "shape");
    zarray_case("hugeint",
                ZA_HEAD "\"shape\": [99999999999999999999999], \"dtype\": \"<i4\", \"chunks\": [3], " ZA_TAIL,
                "bad/.zarray");
    /* unsupported dtypes */
    /* numpy types the connector maps: complex is no integer, and chunks of int32 values are
     * too short for datetime64 */
    zarray_case("complex", ZA_HEAD "\"shape\": [6], \"dtype\": \"<c8\", \"chunks\": [3], " ZA_TAIL, "<c8");
    zarray_case("object", ZA_HEAD "\"shape\": [6], \"dtype\": \"|O\", \"chunks\": [3], " ZA_TAIL, "|O");
    zarray_case("unicode", ZA_HEAD "\"shape\": [6], \"dtype\": \"<U5\", \"chunks\": [3], " ZA_TAIL, "<U5");
    zarray_case("datetime", ZA_HEAD "\"shape\": [6], \"dtype\": \"<M8[ns]\", \"chunks\": [3], " ZA_TAIL,
                "bad/0");
    /* bad structured dtypes (a foreign store): an error for that array only */
    zarray_case("structdup",
                ZA_HEAD
                "\"shape\": [6], \"dtype\": [[\"a\", \"<i4\"], [\"a\", \"<i2\"]], \"chunks\": [3], " ZA_TAIL,
                "appears twice");
    zarray_case("structfield", ZA_HEAD "\"shape\": [6], \"dtype\": [[\"a\"]], \"chunks\": [3], " ZA_TAIL,
                "structured dtype");
    zarray_case("structmember",
                ZA_HEAD "\"shape\": [6], \"dtype\": [[\"a\", \"<c8\"]], \"chunks\": [3], " ZA_TAIL, "<c8");
    zarray_case("structshape",
                ZA_HEAD "\"shape\": [6], \"dtype\": [[\"a\", \"<i4\", [0]]], \"chunks\": [3], " ZA_TAIL,
                "shape of field");
    zarray_case("structempty", ZA_HEAD "\"shape\": [6], \"dtype\": [], \"chunks\": [3], " ZA_TAIL,
                "structured dtype");
    zarray_case("structfill",
                ZA_HEAD "\"shape\": [6], \"dtype\": [[\"a\", \"<i4\"]], \"chunks\": [3], \"fill_value\": "
                        "\"!!\"}",
                "fill_value");
    zarray_case("codec",
                ZA_HEAD "\"shape\": [6], \"dtype\": \"<i4\", \"chunks\": [3], \"fill_value\": 0, "
                        "\"compressor\": {\"level\": 1}}",
                "compressor");
    zarray_case("unknowncodec",
                ZA_HEAD "\"shape\": [6], \"dtype\": \"<i4\", \"chunks\": [3], \"fill_value\": 0, "
                        "\"compressor\": {\"id\": \"nosuchcodec\"}}",
                "nosuchcodec");
    zarray_case("v3", "{\"zarr_format\": 3, \"shape\": [6], \"dtype\": \"<i4\", \"chunks\": [3]}",
                "zarr_format");
    zarray_case("empty", "", "bad/.zarray");

    /* a corrupt kept HDF5 type (Base64 of H5Tencode) in _nczarr_array.hdf5_type */
    char p[4300];
    copy_store("hdf5type_b64", p, sizeof p);
    put_key(p, "bad/.zattrs", "{\"_nczarr_array\": {\"hdf5_type\": \"@@@@\"}}");
    expect_bad(p, "not valid Base64", "hdf5type_b64");
    copy_store("hdf5type_junk", p, sizeof p);
    put_key(p, "bad/.zattrs", "{\"_nczarr_array\": {\"hdf5_type\": \"AwAYAwAABAAAABAIAAAEAAAAAAAg\"}}");
    expect_bad(p, "kept HDF5 type", "hdf5type_junk");
    copy_store("hdf5type_wrong", p, sizeof p);
    /* a valid enum over int8 for an <i4 array: does not match its dtype */
    put_key(
        p, "bad/.zattrs",
        "{\"_nczarr_array\": {\"hdf5_type\": \"AwAYAgAAAQAAABAIAAABAAAAAAAIAEZBTFNFAAAAVFJVRQAAAAAAAQ==\"}}");
    expect_bad(p, "does not match", "hdf5type_wrong");

    /* .zarray removed altogether (the array is still listed in _nczarr_group) */
    copy_store("nozarray", p, sizeof p);
    remove_key(p, "bad/.zarray");
    expect_bad(p, ".zarray", "nozarray");
}

static void test_chunks(void)
{
    char p[4300];
    /* a chunk object shorter than a chunk must be: no silent data, the key is named */
    copy_store("shortchunk", p, sizeof p);
    write_key(p, "bad/1", "\1\0\0\0\2\0", 6);
    expect_bad(p, "bad/1", "short chunk");
    /* an empty chunk object */
    copy_store("emptychunk", p, sizeof p);
    write_key(p, "bad/0", "", 0);
    expect_bad(p, "bad/0", "empty chunk");
    /* a chunk that is too long */
    copy_store("longchunk", p, sizeof p);
    write_key(p, "bad/0", "\1\0\0\0\2\0\0\0\3\0\0\0\4\0\0\0", 16);
    expect_bad(p, "bad/0", "long chunk");
    /* a directory where a chunk would be is a key prefix, not a chunk: like zarr-python's
     * DirectoryStore, the chunk reads as missing (fill), and nothing crashes */
    copy_store("dirchunk", p, sizeof p);
    remove_key(p, "bad/0");
    char k[8400];
    snprintf(k, sizeof k, "%s/bad/0", p);
    mkdir(k, 0755);
    hid_t f = H5Fopen(p, H5F_ACC_RDONLY, H5P_DEFAULT);
    CHECK(f >= 0 && is_nczarr(f), "dirchunk: open");
    if (f >= 0) {
        int buf[6] = {-1, -1, -1, -1, -1, -1}, want[6] = {0, 0, 0, 3, 4, 5};
        hid_t d = H5Dopen2(f, "bad", H5P_DEFAULT);
        CHECK(d >= 0 && H5Dread(d, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) >= 0 &&
                  memcmp(buf, want, sizeof buf) == 0,
              "dirchunk: chunk 0 must read as fill (got %d %d %d %d %d %d)", buf[0], buf[1], buf[2], buf[3],
              buf[4], buf[5]);
        if (d >= 0)
            H5Dclose(d);
        check_good(f, "dirchunk");
        H5Fclose(f);
    }
}

/* The group "grp" of a copy whose grp/.zgroup is `text`: opened for writing, where every
 * group is read at once, the store fails to open; read-only, where a group is read when
 * first used, the store opens, the rest reads, and using the group fails. Both name the
 * key and `needle`. */
static void subgroup_case(const char *tag, const char *text, const char *needle)
{
    char p[4300];
    copy_store(tag, p, sizeof p);
    put_key(p, "grp/.zgroup", text);
    expect_open_error(p, H5F_ACC_RDWR, "grp/.zgroup", tag);
    hid_t f = H5Fopen(p, H5F_ACC_RDONLY, H5P_DEFAULT), g = H5I_INVALID_HID;
    CHECK(f >= 0, "%s: opens read-only", tag);
    if (f < 0)
        return;
    check_good(f, tag);
    errtext_t et;
    H5G_info_t gi;
    herr_t r = -1;
    H5E_BEGIN_TRY
    {
        g = H5Gopen2(f, "grp", H5P_DEFAULT);
        r = g >= 0 ? H5Gget_info(g, &gi) : -1;
    }
    H5E_END_TRY
    take_errors(&et);
    CHECK(r < 0 && nczarr_error_has(&et, "grp/.zgroup") && nczarr_error_has(&et, needle),
          "%s: opening or listing the group must fail naming grp/.zgroup and \"%s\", got:\n%s", tag, needle,
          et.text);
    if (g >= 0)
        H5Gclose(g);
    H5Fclose(f);
}

static void test_zattrs(void)
{
    char p[4300];
    /* the array's .zattrs does not parse */
    copy_store("arrzattrs", p, sizeof p);
    put_key(p, "bad/.zattrs", "{\"answer\": 8, \"_nczarr_array\": {");
    expect_bad(p, "bad/.zattrs", "corrupt array .zattrs");
    /* the array's .zattrs is not an object */
    copy_store("arrzattrs2", p, sizeof p);
    put_key(p, "bad/.zattrs", "[1, 2]");
    expect_bad(p, "bad/.zattrs", "array .zattrs not an object");
    /* _nczarr_array of the wrong type */
    copy_store("ncarray", p, sizeof p);
    put_key(p, "bad/.zattrs", "{\"_nczarr_array\": [1, 2]}");
    expect_bad(p, "_nczarr_array", "_nczarr_array not an object");
    /* dimension references that do not match the rank */
    copy_store("dimrefs", p, sizeof p);
    put_key(p, "bad/.zattrs", "{\"_nczarr_array\": {\"dimension_references\": [\"/a\", \"/b\"]}}");
    expect_bad(p, "dimension", "dimension references of the wrong rank");
    /* the root's .zattrs does not parse: the store cannot be opened (it lists the children) */
    copy_store("rootzattrs", p, sizeof p);
    put_key(p, ".zattrs", "{\"title\": 42, \"_nczarr_group\": {");
    expect_open_error(p, H5F_ACC_RDONLY, ".zattrs", "corrupt root .zattrs");
    /* the root lists a child with a path in its name */
    copy_store("dotdot", p, sizeof p);
    put_key(p, ".zattrs",
            "{\"_nczarr_group\": {\"dimensions\": {}, \"arrays\": [\"good\", \"../bad\"], \"groups\": []}, "
            "\"_nczarr_superblock\": {\"version\": \"2.0.0\"}}");
    expect_open_error(p, H5F_ACC_RDONLY, "../bad", "child name with ..");
    /* .zgroup missing at the root */
    copy_store("nozgroup", p, sizeof p);
    remove_key(p, ".zgroup");
    expect_open_error(p, H5F_ACC_RDONLY, ".zgroup", "missing root .zgroup");
    /* .zgroup that is not Zarr v2 */
    copy_store("zgroup3", p, sizeof p);
    put_key(p, ".zgroup", "{\"zarr_format\": 3}");
    expect_open_error(p, H5F_ACC_RDONLY, "zarr_format", ".zgroup of another format");
    /* a sub-group's .zgroup cut short, or of another format: the root lists the group, but
     * other readers need its .zgroup, so the connector reads it too */
    subgroup_case("subzgroup", "{", "invalid JSON");
    subgroup_case("subzgroup3", "{\"zarr_format\": 3}", "zarr_format");
}

static void test_bad_names(void)
{
    char p[4300];
    copy_store("names", p, sizeof p);
    hid_t f = H5Fopen(p, H5F_ACC_RDWR, H5P_DEFAULT);
    REQUIRE(f >= 0 && is_nczarr(f), "open for writing");
    hsize_t n = 4;
    hid_t s = H5Screate_simple(1, &n, NULL);
    const char *bad[] = {"..", ".", "nosuch/x", "../x"};
    const char *needle[] = {"..", ".", "nosuch", ".."};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        errtext_t et = {{0}, 0};
        hid_t d;
        H5E_BEGIN_TRY
        {
            d = H5Dcreate2(f, bad[i], H5T_STD_I32LE, s, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        }
        H5E_END_TRY
        take_errors(&et);
        CHECK(d < 0, "H5Dcreate2(\"%s\") must fail", bad[i]);
        CHECK(nczarr_error_has(&et, needle[i]),
              "H5Dcreate2(\"%s\"): expected an NCZarr error naming it, got:\n%s", bad[i], et.text);
        if (d >= 0)
            H5Dclose(d);
    }
    /* names a key cannot hold are stored under escaped key names, never as those keys */
    const char *odd[] = {".zarray", "a\\b"}, *keys[] = {"_%2Ezarray/.zarray", "a%5Cb/.zarray"};
    for (size_t i = 0; i < 2; i++) {
        hid_t d = H5Dcreate2(f, odd[i], H5T_STD_I32LE, s, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        CHECK(d >= 0, "H5Dcreate2(\"%s\")", odd[i]);
        if (d >= 0)
            H5Dclose(d);
    }
    /* a name equal to another's escaped key name: refused, naming both */
    {
        errtext_t et = {{0}, 0};
        hid_t d;
        H5E_BEGIN_TRY
        {
            d = H5Dcreate2(f, "_%2Ezarray", H5T_STD_I32LE, s, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        }
        H5E_END_TRY
        take_errors(&et);
        CHECK(d < 0 && nczarr_error_has(&et, "_%2Ezarray") && nczarr_error_has(&et, ".zarray"),
              "a name that is another's key name must be refused, got:\n%s", et.text);
        if (d >= 0)
            H5Dclose(d);
    }
    H5Sclose(s);
    check_good(f, "after bad names");
    CHECK(H5Fflush(f, H5F_SCOPE_GLOBAL) >= 0, "flush");
    for (size_t i = 0; i < 2; i++) {
        char k[8400];
        struct stat st;
        snprintf(k, sizeof k, "%s/%s", p, keys[i]);
        CHECK(stat(k, &st) == 0, "no escaped key %s", k);
        CHECK(H5Lexists(f, odd[i], H5P_DEFAULT) > 0, "link \"%s\" is gone", odd[i]);
    }
    CHECK(H5Fclose(f) >= 0, "close");
    /* nothing was written outside the store */
    char k[8400];
    struct stat st;
    snprintf(k, sizeof k, "%s/x", dir);
    CHECK(stat(k, &st) != 0, "a key escaped the store: %s", k);
    snprintf(k, sizeof k, "%s/x/.zarray", p);
    CHECK(stat(k, &st) != 0, "a key was written: %s", k);
    snprintf(k, sizeof k, "%s/.zarray", p);
    CHECK(stat(k, &st) != 0, "the store's root became an array: %s", k);
    f = H5Fopen(p, H5F_ACC_RDONLY, H5P_DEFAULT);
    CHECK(f >= 0 && H5Lexists(f, ".zarray", H5P_DEFAULT) > 0 && H5Lexists(f, "a\\b", H5P_DEFAULT) > 0 &&
              H5Lexists(f, "_%2Ezarray", H5P_DEFAULT) == 0,
          "reopened: the escaped names come back as the link names");
    if (f >= 0)
        H5Fclose(f);
}

int main(void)
{
    scratch_dir(dir, sizeof dir, "badinput");
    make_good();
    /* the good store itself is fine */
    hid_t f = H5Fopen(good, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (f >= 0) {
        CHECK(is_nczarr(f), "file id is not served by the nczarr connector");
        check_good(f, "good store");
        int buf[6] = {0};
        hid_t d = H5Dopen2(f, "bad", H5P_DEFAULT);
        CHECK(d >= 0 && H5Dread(d, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) >= 0 &&
                  memcmp(buf, bad_vals, sizeof buf) == 0,
              "the undamaged \"bad\" dataset reads");
        if (d >= 0)
            H5Dclose(d);
        H5Fclose(f);
    }
    CHECK(f >= 0, "open the good store");
    test_zarray();
    test_chunks();
    test_zattrs();
    test_bad_names();
    scratch_done(dir, "badinput");
    TEST_MAIN_END();
}
