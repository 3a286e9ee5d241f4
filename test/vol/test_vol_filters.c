/* Filters through the connector: deflate, shuffle, fletcher32, bzip2, zstd, blosc and lz4
 * (numcodecs' lz4), all the connector's own, set through the dcpl write and read back
 * identical (blosc and zstd with no plugin on the path too), H5Dget_create_plist shows the
 * expanded parameters, .zarray holds integer codec parameters; a chunk written with
 * shuffle+deflate+fletcher32 is stored in native HDF5's format (HDF5 reads its chunks); an
 * unknown codec and corrupt chunks are errors for the read that names them. */
#include "vol_test_util.h"
#include "ncztr_h5compat.h"

#include <sys/stat.h>
#include <zlib.h>

static char dir[4096];

#define NR 50
#define NC 30

static void fill_data(float *v)
{
    for (int i = 0; i < NR; i++)
        for (int j = 0; j < NC; j++)
            v[i * NC + j] = (float)(100.0 + 0.25 * i + 0.5 * j + (i * j % 7) * 0.125);
}

static const char *zarray_of(const char *store, const char *name)
{
    char p[8300];
    snprintf(p, sizeof p, "%s/%s/.zarray", store, name);
    return slurp(p);
}

typedef struct fcase {
    const char *name;
    int nfilt;
    H5Z_filter_t ids[3];
    unsigned flags[3];
    size_t ncd[3];
    unsigned cd[3][7];
    const char *zarray_has[3]; /* texts .zarray must contain */
} fcase;

static const fcase cases[] = {
    {"deflate",
     1,
     {H5Z_FILTER_DEFLATE},
     {H5Z_FLAG_OPTIONAL},
     {1},
     {{6}},
     {"\"id\": \"zlib\"", "\"level\": 6"}},
    {"shuffle_deflate",
     2,
     {H5Z_FILTER_SHUFFLE, H5Z_FILTER_DEFLATE},
     {H5Z_FLAG_OPTIONAL, H5Z_FLAG_OPTIONAL},
     {0, 1},
     {{0}, {4}},
     {"\"elementsize\": 4", "\"id\": \"zlib\""}},
    {"fletcher32", 1, {H5Z_FILTER_FLETCHER32}, {H5Z_FLAG_MANDATORY}, {0}, {{0}}, {"\"id\": \"fletcher32\""}},
    {"bzip2", 1, {307}, {H5Z_FLAG_MANDATORY}, {1}, {{9}}, {"\"id\": \"bz2\"", "\"level\": 9"}},
    {"zstd", 1, {32015}, {H5Z_FLAG_MANDATORY}, {1}, {{3}}, {"\"id\": \"zstd\"", "\"level\": 3"}},
    {"blosc_lz4",
     1,
     {32001},
     {H5Z_FLAG_MANDATORY},
     {7},
     {{0, 0, 0, 0, 5, 1, 1}},
     {"\"cname\": \"lz4\"", "\"clevel\": 5", "\"shuffle\": 1"}},
    {"blosc_zstd",
     1,
     {32001},
     {H5Z_FLAG_MANDATORY},
     {7},
     {{0, 0, 0, 0, 3, 2, 5}},
     {"\"cname\": \"zstd\"", "\"shuffle\": 2"}},
    {"lz4", 1, {32004}, {H5Z_FLAG_MANDATORY}, {0}, {{0}}, {"\"id\": \"lz4\"", "\"acceleration\": 1"}},
};

static void check_dcpl(hid_t d, const fcase *c)
{
    hid_t p = H5Dget_create_plist(d);
    CHECK(H5Pget_nfilters(p) == c->nfilt, "%s: %d filters in the dcpl", c->name, H5Pget_nfilters(p));
    for (int k = 0; k < c->nfilt && k < H5Pget_nfilters(p); k++) {
        unsigned flags = 0, cd[16] = {0}, cfg = 0;
        size_t n = 16;
        char nm[64];
        H5Z_filter_t id = H5Pget_filter2(p, (unsigned)k, &flags, &n, cd, sizeof nm, nm, &cfg);
        CHECK(id == c->ids[k], "%s: filter %d is %d", c->name, k, (int)id);
        if (id == H5Z_FILTER_SHUFFLE)
            CHECK(n == 1 && cd[0] == 4, "%s: shuffle's element size expanded to 4 (%zu values, %u)", c->name,
                  n, cd[0]);
        if (id == 32001)
            CHECK(n == 7 && cd[2] == 4 && cd[3] == 16 * 16 * 4 && cd[4] == c->cd[k][4] &&
                      cd[6] == c->cd[k][6],
                  "%s: blosc's type size and chunk size expanded (%u %u)", c->name, cd[2], cd[3]);
    }
    H5Pclose(p);
}

static void test_roundtrips(void)
{
    char store[4200];
    float v[NR * NC], back[NR * NC];
    fill_data(v);
    hid_t f = create_store_in(dir, "filters", store, sizeof store);
    hsize_t dims[2] = {NR, NC}, chunk[2] = {16, 16};
    hid_t s = H5Screate_simple(2, dims, NULL);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const fcase *c = &cases[i];
        hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
        H5Pset_chunk(dcpl, 2, chunk);
        for (int k = 0; k < c->nfilt; k++)
            H5Pset_filter(dcpl, c->ids[k], c->flags[k], c->ncd[k], c->cd[k]);
        hid_t d = H5Dcreate2(f, c->name, H5T_IEEE_F32LE, s, H5P_DEFAULT, dcpl, H5P_DEFAULT);
        CHECK(d >= 0, "%s: create", c->name);
        if (d < 0) {
            H5Pclose(dcpl);
            continue;
        }
        CHECK(H5Dwrite(d, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) >= 0, "%s: write", c->name);
        check_dcpl(d, c);
        H5Dclose(d);
        H5Pclose(dcpl);
    }
    H5Fclose(f);
    f = H5Fopen(store, H5F_ACC_RDONLY, H5P_DEFAULT);
    REQUIRE(f >= 0 && is_nczarr(f), "reopen");
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const fcase *c = &cases[i];
        hid_t d = H5Dopen2(f, c->name, H5P_DEFAULT);
        CHECK(d >= 0, "%s: open", c->name);
        if (d < 0)
            continue;
        memset(back, 0, sizeof back);
        CHECK(H5Dread(d, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, back) >= 0, "%s: read", c->name);
        CHECK(memcmp(v, back, sizeof v) == 0, "%s: values read back differ", c->name);
        check_dcpl(d, c);
        const char *z = zarray_of(store, c->name);
        for (int k = 0; k < 3 && c->zarray_has[k]; k++)
            CHECK(strstr(z, c->zarray_has[k]) != NULL, "%s: .zarray lacks %s:\n%s", c->name, c->zarray_has[k],
                  z);
        /* parameters are integers, never strings of integers */
        CHECK(strstr(z, "\"level\": \"") == NULL && strstr(z, "\"elementsize\": \"") == NULL &&
                  strstr(z, "\"clevel\": \"") == NULL,
              "%s: a codec parameter written as a string:\n%s", c->name, z);
        H5Dclose(d);
    }
    /* the compressor is the last filter, the rest are "filters" */
    const char *z = zarray_of(store, "shuffle_deflate");
    CHECK(strstr(z, "\"compressor\": {\"id\": \"zlib\"") && strstr(z, "\"filters\": [{\"id\": \"shuffle\""),
          "shuffle in filters, zlib as compressor:\n%s", z);
    H5Fclose(f);
    H5Sclose(s);
}

/* The deflate stream of a stored chunk (its fletcher32 checksum, 4 bytes, cut off), inflated
 * by zlib; 0 bytes when it is not a zlib stream. */
static size_t inflate_chunk(const unsigned char *c, size_t n, unsigned char *out, size_t cap)
{
    uLongf len = cap;
    if (n < 4 || uncompress(out, &len, c, n - 4) != Z_OK)
        return 0;
    return len;
}

/* The same data with shuffle + deflate(4) + fletcher32, natively and through the connector:
 * the stored chunks hold the same thing in the same format. The connector's deflate is
 * libdeflate's, whose bytes are not zlib's: zlib inflates both to the same shuffled data,
 * and each chunk's fletcher32 checksum (over the deflate stream) is the one HDF5 computes,
 * since HDF5 reads the connector's chunk through H5Dwrite_chunk and H5Dread. */
static void test_native_bytes(void)
{
    char store[4200], h5[4200];
    float v[NR * NC];
    fill_data(v);
    hsize_t dims[2] = {NR, NC}, chunk[2] = {16, 16};
    hid_t s = H5Screate_simple(2, dims, NULL), dcpl = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_chunk(dcpl, 2, chunk);
    H5Pset_shuffle(dcpl);
    H5Pset_deflate(dcpl, 4);
    H5Pset_fletcher32(dcpl);

    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    H5Pset_vol(fapl, H5VL_NATIVE, NULL);
    snprintf(h5, sizeof h5, "%s/native.h5", dir);
    hid_t nf = H5Fcreate(h5, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    REQUIRE(nf >= 0, "create native file");
    hid_t nd = H5Dcreate2(nf, "x", H5T_IEEE_F32LE, s, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    REQUIRE(nd >= 0, "native dataset");
    CHECK(H5Dwrite(nd, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) >= 0, "native write");

    hid_t f = create_store_in(dir, "bytes", store, sizeof store);
    hid_t d = H5Dcreate2(f, "x", H5T_IEEE_F32LE, s, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    REQUIRE(d >= 0, "connector dataset");
    CHECK(H5Dwrite(d, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) >= 0, "connector write");
    H5Dclose(d);
    H5Fclose(f);

    static const char *keys[] = {"0.0", "0.1", "3.1"};
    static const hsize_t offs[][2] = {{0, 0}, {0, 16}, {48, 16}};
    for (int k = 0; k < 3; k++) {
        unsigned char nat[4096], ours[4096];
        hsize_t nbytes = 0;
        uint32_t mask = 0;
        CHECK(H5Dget_chunk_storage_size(nd, offs[k], &nbytes) >= 0 && nbytes > 0 && nbytes <= sizeof nat,
              "native chunk %s size", keys[k]);
        CHECK(ncztr_h5compat_read_chunk(nd, H5P_DEFAULT, offs[k], &mask, nat, sizeof nat) >= 0 && mask == 0,
              "native H5Dread_chunk %s", keys[k]);
        char p[8300];
        snprintf(p, sizeof p, "%s/x/%s", store, keys[k]);
        FILE *fp = fopen(p, "rb");
        size_t n = fp ? fread(ours, 1, sizeof ours, fp) : 0;
        if (fp)
            fclose(fp);
        unsigned char a[16 * 16 * 4 + 64], b[16 * 16 * 4 + 64];
        size_t na = inflate_chunk(nat, (size_t)nbytes, a, sizeof a), nb = inflate_chunk(ours, n, b, sizeof b);
        CHECK(na == 16 * 16 * 4 && nb == na && memcmp(a, b, na) == 0,
              "chunk %s: zlib inflates the connector's %zu bytes to %zu bytes, native HDF5's %llu to %zu, %s",
              keys[k], n, nb, (unsigned long long)nbytes, na, nb == na ? "which differ" : "");
        /* HDF5 takes the connector's chunk as it is (checksum and all) and reads the data */
        CHECK(n > 0 && H5Dwrite_chunk(nd, H5P_DEFAULT, 0, offs[k], n, ours) >= 0, "H5Dwrite_chunk %s",
              keys[k]);
    }
    float back[NR * NC];
    CHECK(H5Dread(nd, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, back) >= 0 &&
              memcmp(back, v, sizeof v) == 0,
          "native HDF5 reads the connector's chunks (checksums verified) as the data written");
    H5Dclose(nd);
    H5Fclose(nf);
    H5Pclose(fapl);
    H5Pclose(dcpl);
    H5Sclose(s);
}

/* Replaces the compressor of dataset `name` in store by `codec` (JSON text). */
static bool set_compressor(const char *store, const char *name, const char *codec)
{
    char p[8300];
    snprintf(p, sizeof p, "%s/%s/.zarray", store, name);
    char *z = strdup(slurp(p));
    char *c = z ? strstr(z, "\"compressor\"") : NULL;
    char *nul = c ? strstr(c, "null") : NULL;
    bool ok = false;
    if (nul) {
        FILE *fp = fopen(p, "wb");
        if (fp) {
            fprintf(fp, "%.*s%s%s", (int)(nul - z), z, codec, nul + 4);
            ok = fclose(fp) == 0;
        }
    }
    free(z);
    return ok;
}

static void expect_read_error(hid_t f, const char *name, const char *needle1, const char *needle2)
{
    errtext_t et = {{0}, 0};
    float back[NR * NC];
    hid_t d = H5Dopen2(f, name, H5P_DEFAULT);
    CHECK(d >= 0, "%s: the dataset opens", name);
    if (d < 0)
        return;
    hid_t p = H5Dget_create_plist(d);
    CHECK(p >= 0, "%s: its dcpl is readable", name);
    if (p >= 0)
        H5Pclose(p);
    herr_t r;
    H5E_BEGIN_TRY
    {
        r = H5Dread(d, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, back);
    }
    H5E_END_TRY
    take_errors(&et);
    CHECK(r < 0, "%s: the read fails", name);
    CHECK(nczarr_error_has(&et, needle1), "%s: expected \"%s\" in:\n%s", name, needle1, et.text);
    if (needle2)
        CHECK(nczarr_error_has(&et, needle2), "%s: expected \"%s\" in:\n%s", name, needle2, et.text);
    H5Dclose(d);
}

static void corrupt(const char *store, const char *name, const char *key, long at, int truncate_to)
{
    char p[8300];
    snprintf(p, sizeof p, "%s/%s/%s", store, name, key);
    if (truncate_to >= 0) {
        CHECK(truncate(p, truncate_to) == 0, "truncate %s", p);
        return;
    }
    FILE *fp = fopen(p, "r+b");
    REQUIRE(fp, "open %s", p);
    fseek(fp, at, SEEK_SET);
    int c = fgetc(fp);
    fseek(fp, at, SEEK_SET);
    fputc(c ^ 0x5a, fp);
    fclose(fp);
}

static void test_bad(void)
{
    char store[4200];
    float v[NR * NC];
    fill_data(v);
    hid_t f = create_store_in(dir, "bad", store, sizeof store);
    hsize_t dims[2] = {NR, NC}, chunk[2] = {16, 16};
    hid_t s = H5Screate_simple(2, dims, NULL);
    static const char *names[] = {"unknown", "noplugin", "zlib",  "fletcher",
                                  "lz4",     "zstd",     "blosc", "zlibtrunc"};
    /* noplugin: blosc and zstd, which the connector runs itself, read with no plugin
     * directory on the path */
    for (int k = 0; k < 8; k++) {
        hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
        H5Pset_chunk(dcpl, 2, chunk);
        if (k == 2 || k == 7)
            H5Pset_deflate(dcpl, 5);
        if (k == 3)
            H5Pset_fletcher32(dcpl);
        if (k == 4)
            H5Pset_filter(dcpl, 32004, 0, 0, NULL);
        if (k == 5 || k == 1)
            H5Pset_filter(dcpl, 32015, 0, 1, (unsigned[]){3});
        if (k == 6 || k == 1)
            H5Pset_filter(dcpl, 32001, 0, 7, (unsigned[]){0, 0, 0, 0, 5, 1, 1});
        hid_t d = H5Dcreate2(f, names[k], H5T_IEEE_F32LE, s, H5P_DEFAULT, dcpl, H5P_DEFAULT);
        CHECK(d >= 0 && H5Dwrite(d, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) >= 0, "%s: write",
              names[k]);
        H5Dclose(d);
        H5Pclose(dcpl);
    }
    H5Fclose(f);
    CHECK(set_compressor(store, "unknown", "{\"id\": \"foo\", \"x\": 1}"), "edit .zarray");
    corrupt(store, "zlib", "0.0", 10, -1);
    corrupt(store, "zlibtrunc", "1.1", 0, 20);
    corrupt(store, "fletcher", "1.0", 100, -1);
    corrupt(store, "lz4", "0.0", 0, -1);
    corrupt(store, "zstd", "0.1", 9, -1);
    corrupt(store, "blosc", "0.1", 5, -1);

    f = H5Fopen(store, H5F_ACC_RDONLY, H5P_DEFAULT);
    REQUIRE(f >= 0 && is_nczarr(f), "reopen");
    expect_read_error(f, "unknown", "codec \"foo\"", "no HDF5 filter id");
    expect_read_error(f, "zlib", "zlib", "0.0");
    expect_read_error(f, "zlibtrunc", "zlib", "1.1");
    expect_read_error(f, "fletcher", "fletcher32", "1.0");
    expect_read_error(f, "lz4", "lz4", "0.0");
    expect_read_error(f, "zstd", "0.1", NULL);
    expect_read_error(f, "blosc", "0.1", NULL);
    /* no plugin directory on the path: blosc and zstd read all the same */
    char saved[8][4096];
    unsigned n = 0;
    H5PLsize(&n);
    int ns = 0;
    while (n > 0 && ns < 8) {
        H5PLget(0, saved[ns], sizeof saved[ns]);
        H5PLremove(0);
        ns++;
        n--;
    }
    H5PLappend(dir);
    float back[NR * NC];
    hid_t d = H5Dopen2(f, "noplugin", H5P_DEFAULT);
    CHECK(d >= 0 && H5Dread(d, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, back) >= 0 &&
              memcmp(back, v, sizeof back) == 0,
          "zstd + blosc read with no plugin on the path");
    if (d >= 0)
        H5Dclose(d);
    H5PLremove(0);
    for (int k = 0; k < ns; k++)
        H5PLappend(saved[k]);
    H5Fclose(f);
    H5Sclose(s);
}

/* An optional filter that is unavailable is dropped; a required one fails naming it. */
static void test_unavailable(void)
{
    char store[4200];
    hid_t f = create_store_in(dir, "unavail", store, sizeof store);
    hsize_t dims[1] = {100}, chunk[1] = {10};
    hid_t s = H5Screate_simple(1, dims, NULL);
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_chunk(dcpl, 1, chunk);
    H5Pset_filter(dcpl, 31999, H5Z_FLAG_OPTIONAL, 0, NULL);
    H5Pset_deflate(dcpl, 1);
    hid_t d = H5Dcreate2(f, "opt", H5T_STD_I32LE, s, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    CHECK(d >= 0, "an unavailable optional filter does not stop H5Dcreate");
    if (d >= 0) {
        hid_t p = H5Dget_create_plist(d);
        CHECK(H5Pget_nfilters(p) == 1, "the optional filter is dropped (%d filters)", H5Pget_nfilters(p));
        H5Pclose(p);
        H5Dclose(d);
    }
    H5Pclose(dcpl);
    dcpl = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_chunk(dcpl, 1, chunk);
    H5Pset_filter(dcpl, 31999, H5Z_FLAG_MANDATORY, 0, NULL);
    errtext_t et = {{0}, 0};
    H5E_BEGIN_TRY
    {
        d = H5Dcreate2(f, "req", H5T_STD_I32LE, s, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    }
    H5E_END_TRY
    take_errors(&et);
    CHECK(d < 0, "an unavailable required filter fails H5Dcreate");
    CHECK(nczarr_error_has(&et, "31999"), "the error names the filter:\n%s", et.text);
    if (d >= 0)
        H5Dclose(d);
    H5Pclose(dcpl);
    H5Sclose(s);
    H5Fclose(f);
}

int main(void)
{
    scratch_dir(dir, sizeof dir, "filters");
    test_roundtrips();
    test_native_bytes();
    test_bad();
    test_unavailable();
    rm_rf(dir);
    TEST_MAIN_END();
}
