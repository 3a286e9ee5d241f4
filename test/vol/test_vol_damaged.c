/* Damaged stores, as a store from an untrusted source can be:
 *  - zip archives whose entries do not match the CRC-32 or the sizes recorded for them
 *    (the archive is written through the connector, then bytes of it are patched);
 *  - directory stores holding symbolic links, to files outside the store or inside it,
 *    in place of chunks, metadata objects or whole arrays;
 *  - a .zarray whose chunk shape has more elements than HDF5 can describe;
 *  - a chunk cut short that makes a write fail, which must not lose earlier writes.
 * Each must fail with an NCZarr error naming the key, never return the wrong bytes or
 * bytes of a file outside the store, and leave the rest of the store readable. */
#include "vol_test_util.h"

#include <stdint.h>
#include <sys/stat.h>

static char dir[4096];
static char good_dir[4200], good_zip[4200];

static const int good_vals[6] = {10, 11, 12, 13, 14, 15};
static const int bad_vals[6] = {20, 21, 22, 23, 24, 25};

/* Two 1-D int32 datasets "good" and "bad" of 6 elements in chunks of 3, an attribute on
 * the root. */
static void make_store(const char *path)
{
    hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    if (f < 0 || !is_nczarr(f)) {
        fprintf(stderr, "cannot create %s through the nczarr connector\n", path);
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
        H5Dclose(d);
    }
    hid_t a = H5Acreate2(f, "title", H5T_STD_I32LE, as, H5P_DEFAULT, H5P_DEFAULT);
    int v = 42;
    if (a < 0 || H5Awrite(a, H5T_NATIVE_INT, &v) < 0)
        exit(2);
    H5Aclose(a);
    H5Sclose(s);
    H5Sclose(as);
    H5Pclose(dcpl);
    if (H5Fclose(f) < 0)
        exit(2);
}

static void copy_path(const char *from, const char *tag, const char *ext, char *out, size_t len)
{
    char cmd[9000];
    snprintf(out, len, "%s/%s%s", dir, tag, ext);
    snprintf(cmd, sizeof cmd, "rm -rf '%s' && cp -r '%s' '%s'", out, from, out);
    if (system(cmd) != 0) {
        fprintf(stderr, "cannot copy: %s\n", cmd);
        exit(2);
    }
}

/* ---------------------------------------------------------------- zip patching */

typedef struct {
    unsigned char *data;
    size_t len;
} blob;

static blob load(const char *path)
{
    blob b = {NULL, 0};
    FILE *fp = fopen(path, "rb");
    if (!fp || fseek(fp, 0, SEEK_END) != 0) {
        perror(path);
        exit(2);
    }
    long n = ftell(fp);
    rewind(fp);
    b.data = malloc((size_t)n);
    if (!b.data || fread(b.data, 1, (size_t)n, fp) != (size_t)n)
        exit(2);
    b.len = (size_t)n;
    fclose(fp);
    return b;
}

static void save(const char *path, const blob *b)
{
    FILE *fp = fopen(path, "wb");
    if (!fp || fwrite(b->data, 1, b->len, fp) != b->len) {
        perror(path);
        exit(2);
    }
    fclose(fp);
}

static unsigned get16(const unsigned char *p)
{
    return (unsigned)p[0] | (unsigned)p[1] << 8;
}

static uint32_t get32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void put32(unsigned char *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

/* The central directory record of entry `name` (found by scanning for its signature,
 * which is enough for the small archives made here), or NULL. */
static unsigned char *central_entry(blob *b, const char *name)
{
    size_t nl = strlen(name);
    for (size_t i = 0; i + 46 <= b->len; i++) {
        unsigned char *p = b->data + i;
        if (get32(p) == 0x02014b50u && get16(p + 28) == nl && i + 46 + nl <= b->len &&
            memcmp(p + 46, name, nl) == 0)
            return p;
    }
    return NULL;
}

/* Where the data of entry `name` starts (after its local header). */
static unsigned char *entry_data(blob *b, const char *name)
{
    unsigned char *c = central_entry(b, name);
    if (!c)
        return NULL;
    unsigned char *l = b->data + get32(c + 42);
    if (get32(l) != 0x04034b50u)
        return NULL;
    return l + 30 + get16(l + 26) + get16(l + 28);
}

/* Flips the bits of byte `at` of an entry's data. */
static int zip_flip(const char *path, const char *name, size_t at)
{
    blob b = load(path);
    unsigned char *d = entry_data(&b, name);
    if (d)
        d[at] ^= 0xff;
    save(path, &b);
    free(b.data);
    return d != NULL;
}

/* Rewrites the recorded compressed and uncompressed sizes of an entry, in both its local
 * header and the central directory. */
static int zip_sizes(const char *path, const char *name, uint32_t comp, uint32_t size)
{
    blob b = load(path);
    unsigned char *c = central_entry(&b, name);
    if (c) {
        unsigned char *l = b.data + get32(c + 42);
        put32(c + 20, comp);
        put32(c + 24, size);
        put32(l + 18, comp);
        put32(l + 22, size);
    }
    save(path, &b);
    free(b.data);
    return c != NULL;
}

/* ---------------------------------------------------------------- checks */

/* The dataset "good" and the root attribute are intact. */
static void check_rest(hid_t f, const char *what)
{
    int buf[6] = {0}, v = 0;
    hid_t d = H5Dopen2(f, "good", H5P_DEFAULT);
    CHECK(d >= 0 && H5Dread(d, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) >= 0 &&
              memcmp(buf, good_vals, sizeof buf) == 0,
          "%s: dataset \"good\" must still read its values", what);
    if (d >= 0)
        H5Dclose(d);
    hid_t a = H5Aopen(f, "title", H5P_DEFAULT);
    CHECK(a >= 0 && H5Aread(a, H5T_NATIVE_INT, &v) >= 0 && v == 42, "%s: root attribute (%d)", what, v);
    if (a >= 0)
        H5Aclose(a);
}

/* Opening or reading "bad" must fail with an NCZarr error containing both needles; the
 * values read must never be the bytes of `forbidden` (may be NULL). */
static void expect_bad(const char *store, const char *needle1, const char *needle2, const char *forbidden,
                       const char *what)
{
    errtext_t et = {{0}, 0};
    hid_t f = H5Fopen(store, H5F_ACC_RDONLY, H5P_DEFAULT);
    CHECK(f >= 0 && is_nczarr(f), "%s: the store must still open through the connector", what);
    if (f < 0)
        return;
    int buf[6] = {0};
    herr_t r = open_and_read_ints(f, "bad", buf, &et);
    CHECK(r < 0, "%s: opening or reading the damaged dataset must fail (read %d %d %d %d %d %d)", what,
          buf[0], buf[1], buf[2], buf[3], buf[4], buf[5]);
    CHECK(nczarr_error_has(&et, needle1) && nczarr_error_has(&et, needle2),
          "%s: expected an NCZarr error mentioning \"%s\" and \"%s\", got:\n%s", what, needle1, needle2,
          et.text);
    if (forbidden)
        CHECK(memmem(buf, sizeof buf, forbidden, 8) == NULL,
              "%s: bytes of a file outside the store came back", what);
    check_rest(f, what);
    CHECK(H5Fclose(f) >= 0, "%s: close", what);
}

/* ---------------------------------------------------------------- zip */

static void test_zip(void)
{
    char p[4300];
    /* the undamaged archive reads */
    hid_t f = H5Fopen(good_zip, H5F_ACC_RDONLY, H5P_DEFAULT);
    CHECK(f >= 0 && is_nczarr(f), "zip: the good archive opens");
    if (f >= 0) {
        check_rest(f, "good zip");
        H5Fclose(f);
    }
    /* a chunk's data does not match its CRC-32: its wrong bytes must not come back */
    copy_path(good_zip, "crcchunk", ".zip", p, sizeof p);
    REQUIRE(zip_flip(p, "good/bad/0", 0), "zip: patch the chunk");
    expect_bad(p, "bad/0", "CRC-32", NULL, "zip CRC of a chunk");
    /* the same for the array's .zarray */
    copy_path(good_zip, "crczarray", ".zip", p, sizeof p);
    REQUIRE(zip_flip(p, "good/bad/.zarray", 20), "zip: patch .zarray");
    expect_bad(p, "bad/.zarray", "CRC-32", NULL, "zip CRC of .zarray");
    /* recorded sizes that lie: shorter than the data, longer, absurdly long */
    copy_path(good_zip, "sizeshort", ".zip", p, sizeof p);
    REQUIRE(zip_sizes(p, "good/bad/0", 12, 8), "zip: patch sizes");
    expect_bad(p, "bad/0", "recorded as its size", NULL, "zip size shorter than the chunk");
    copy_path(good_zip, "sizelong", ".zip", p, sizeof p);
    REQUIRE(zip_sizes(p, "good/bad/1", 12, 16), "zip: patch sizes");
    expect_bad(p, "bad/1", "damaged", NULL, "zip size longer than the chunk");
    copy_path(good_zip, "compshort", ".zip", p, sizeof p);
    REQUIRE(zip_sizes(p, "good/bad/0", 8, 12), "zip: patch sizes");
    expect_bad(p, "bad/0", "damaged", NULL, "zip compressed size shorter than the chunk");
    /* 4 GB recorded for a 100-byte .zarray: an error, and no 4 GB buffer */
    copy_path(good_zip, "sizehuge", ".zip", p, sizeof p);
    {
        blob b = load(p);
        unsigned char *c = central_entry(&b, "good/bad/.zarray");
        uint32_t real = c ? get32(c + 24) : 0;
        free(b.data);
        REQUIRE(real && zip_sizes(p, "good/bad/.zarray", real, 4000000000u), "zip: patch .zarray sizes");
    }
    expect_bad(p, "bad/.zarray", "damaged", NULL, "zip size of .zarray 4 GB");
    copy_path(good_zip, "comphuge", ".zip", p, sizeof p);
    {
        blob b = load(p);
        unsigned char *c = central_entry(&b, "good/bad/.zarray");
        uint32_t real = c ? get32(c + 24) : 0;
        free(b.data);
        REQUIRE(real && zip_sizes(p, "good/bad/.zarray", 4000000000u, real), "zip: patch .zarray sizes");
    }
    expect_bad(p, "bad/.zarray", "damaged", NULL, "zip compressed size of .zarray 4 GB");
}

/* ---------------------------------------------------------------- symbolic links */

static void relink(const char *store, const char *key, const char *target)
{
    char k[8400];
    snprintf(k, sizeof k, "%s/%s", store, key);
    rm_rf(k);
    if (symlink(target, k) != 0) {
        perror(k);
        exit(2);
    }
}

static void test_links(void)
{
    char p[4300], outside[4300], t[20000];
    /* a file outside the store, of exactly a chunk's size (3 int32) */
    snprintf(outside, sizeof outside, "%s/secret.bin", dir);
    FILE *fp = fopen(outside, "wb");
    if (!fp || fwrite("SECRET!!SECR", 1, 12, fp) != 12)
        exit(2);
    fclose(fp);
    /* a chunk that is a link to it (absolute, then relative) */
    copy_path(good_dir, "linkchunk", ".zarr", p, sizeof p);
    relink(p, "bad/0", outside);
    expect_bad(p, "bad/0", "symbolic link", "SECRET!!", "chunk linked outside (absolute)");
    copy_path(good_dir, "linkchunkrel", ".zarr", p, sizeof p);
    relink(p, "bad/1", "../../secret.bin");
    expect_bad(p, "bad/1", "symbolic link", "SECRET!!", "chunk linked outside (relative)");
    /* links that stay inside the store are refused too (see nczm_file.c) */
    copy_path(good_dir, "linkinside", ".zarr", p, sizeof p);
    relink(p, "bad/0", "1");
    expect_bad(p, "bad/0", "symbolic link", NULL, "chunk linked to another chunk");
    /* metadata: .zarray and .zattrs linked to good copies outside the store */
    snprintf(t, sizeof t,
             "cp '%s/bad/.zarray' '%s/outside.zarray' && cp '%s/bad/.zattrs' '%s/outside.zattrs'", good_dir,
             dir, good_dir, dir);
    if (system(t) != 0)
        exit(2);
    copy_path(good_dir, "linkzarray", ".zarr", p, sizeof p);
    snprintf(t, sizeof t, "%s/outside.zarray", dir);
    relink(p, "bad/.zarray", t);
    expect_bad(p, "bad/.zarray", "symbolic link", NULL, ".zarray linked outside");
    copy_path(good_dir, "linkzattrs", ".zarr", p, sizeof p);
    snprintf(t, sizeof t, "%s/outside.zattrs", dir);
    relink(p, "bad/.zattrs", t);
    expect_bad(p, "bad/.zattrs", "symbolic link", NULL, ".zattrs linked outside");
    /* the whole array directory is a link to a copy of it outside the store */
    snprintf(t, sizeof t, "rm -rf '%s/outarray' && cp -r '%s/bad' '%s/outarray'", dir, good_dir, dir);
    if (system(t) != 0)
        exit(2);
    copy_path(good_dir, "linkdir", ".zarr", p, sizeof p);
    snprintf(t, sizeof t, "%s/outarray", dir);
    relink(p, "bad", t);
    expect_bad(p, "bad/.zarray", "symbolic link", NULL, "array directory linked outside");
    /* the root's .zattrs: the store cannot be opened, and says why */
    copy_path(good_dir, "linkroot", ".zarr", p, sizeof p);
    snprintf(t, sizeof t, "cp '%s/.zattrs' '%s/outside.rootattrs'", good_dir, dir);
    if (system(t) != 0)
        exit(2);
    snprintf(t, sizeof t, "%s/outside.rootattrs", dir);
    relink(p, ".zattrs", t);
    expect_open_error(p, H5F_ACC_RDONLY, "symbolic link", "root .zattrs linked outside");

    /* writing through a linked array directory must not create files outside the store */
    copy_path(good_dir, "linkwrite", ".zarr", p, sizeof p);
    snprintf(t, sizeof t, "rm -rf '%s/outw' && mkdir '%s/outw'", dir, dir);
    if (system(t) != 0)
        exit(2);
    snprintf(t, sizeof t, "%s/outw", dir);
    relink(p, "sub", t);
    hid_t f = H5Fopen(p, H5F_ACC_RDWR, H5P_DEFAULT);
    CHECK(f >= 0 && is_nczarr(f), "linkwrite: open for writing");
    if (f >= 0) {
        errtext_t et;
        herr_t r;
        H5E_BEGIN_TRY
        {
            hid_t g = H5Gcreate2(f, "sub", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
            if (g >= 0)
                H5Gclose(g);
            r = H5Fclose(f);
        }
        H5E_END_TRY
        take_errors(&et);
        CHECK(r < 0 && nczarr_error_has(&et, "symbolic link"),
              "linkwrite: writing below a link must fail naming it, got:\n%s", et.text);
        struct stat sb;
        snprintf(t, sizeof t, "%s/outw/.zgroup", dir);
        CHECK(stat(t, &sb) != 0, "linkwrite: a key was written outside the store: %s", t);
        /* a failed close keeps the file open for another try: with the link gone, it
         * writes the group inside the store */
        if (r < 0) {
            snprintf(t, sizeof t, "%s/sub", p);
            unlink(t);
            CHECK(H5Fclose(f) >= 0, "linkwrite: closing again once the link is gone");
            snprintf(t, sizeof t, "%s/sub/.zgroup", p);
            CHECK(stat(t, &sb) == 0, "linkwrite: the group was not written the second time");
        }
    }
}

/* ---------------------------------------------------------------- chunk shape */

static void test_chunk_shape(void)
{
    char p[4300], k[8400];
    copy_path(good_dir, "chunkelems", ".zarr", p, sizeof p);
    snprintf(k, sizeof k, "%s/bad/.zarray", p);
    FILE *fp = fopen(k, "wb");
    const char *za =
        "{\"zarr_format\": 2, \"shape\": [6, 6], \"dtype\": \"|i1\", \"chunks\": [65536, 65536], "
        "\"fill_value\": 0, \"order\": \"C\", \"compressor\": null, \"filters\": null}";
    if (!fp || fputs(za, fp) < 0)
        exit(2);
    fclose(fp);
    snprintf(k, sizeof k, "%s/bad/.zattrs", p);
    if (!(fp = fopen(k, "wb")) || fputs("{}", fp) < 0)
        exit(2);
    fclose(fp);
    expect_bad(p, "bad/.zarray", "chunks", NULL, "chunk of 2^32 elements");
}

/* ---------------------------------------------------------------- a failed write */

/* A write that fails on a damaged chunk keeps what earlier writes were told was written:
 * chunk 0 of "bad" is written in part (held in the chunk cache, not yet stored), then a
 * write over all of chunk 0 and part of chunk 1, whose stored bytes are cut short, fails
 * reading chunk 1; chunk 0 must then read, and after the close store, the first write's
 * values, not those the store held before it. */
static void test_failed_write(void)
{
    char store[4300], key[4400];
    copy_path(good_dir, "failed_write", ".zarr", store, sizeof store);
    snprintf(key, sizeof key, "%s/bad/1", store);
    CHECK(truncate(key, 5) == 0, "%s: truncate", key);
    hid_t f = H5Fopen(store, H5F_ACC_RDWR, H5P_DEFAULT), d = H5Dopen2(f, "bad", H5P_DEFAULT);
    CHECK(f >= 0 && d >= 0, "failed write: open");
    hsize_t n = 6, start = 0, two = 2, five = 5;
    hid_t fs = H5Screate_simple(1, &n, NULL), ms2 = H5Screate_simple(1, &two, NULL),
          ms5 = H5Screate_simple(1, &five, NULL);
    const int first[2] = {100, 101}, second[5] = {200, 201, 202, 203, 204};
    H5Sselect_hyperslab(fs, H5S_SELECT_SET, &start, NULL, &two, NULL);
    CHECK(H5Dwrite(d, H5T_NATIVE_INT, ms2, fs, H5P_DEFAULT, first) >= 0, "failed write: the first write");
    H5Sselect_hyperslab(fs, H5S_SELECT_SET, &start, NULL, &five, NULL);
    errtext_t et = {{0}, 0};
    herr_t r;
    H5E_BEGIN_TRY
    {
        r = H5Dwrite(d, H5T_NATIVE_INT, ms5, fs, H5P_DEFAULT, second);
    }
    H5E_END_TRY
    take_errors(&et);
    CHECK(r < 0 && nczarr_error_has(&et, "bad/1"),
          "failed write: the second write must fail naming bad/1:\n%s", et.text);
    int buf[3] = {0};
    H5Sselect_hyperslab(fs, H5S_SELECT_SET, &start, NULL, (hsize_t[]){3}, NULL);
    hid_t ms3 = H5Screate_simple(1, (hsize_t[]){3}, NULL);
    CHECK(H5Dread(d, H5T_NATIVE_INT, ms3, fs, H5P_DEFAULT, buf) >= 0 && buf[0] == 100 && buf[1] == 101 &&
              buf[2] == bad_vals[2],
          "failed write: chunk 0 must hold the first write's values (read %d %d %d)", buf[0], buf[1], buf[2]);
    H5Sclose(ms3);
    H5Sclose(ms2);
    H5Sclose(ms5);
    H5Sclose(fs);
    H5Dclose(d);
    CHECK(H5Fclose(f) >= 0, "failed write: close");
    f = H5Fopen(store, H5F_ACC_RDONLY, H5P_DEFAULT);
    d = H5Dopen2(f, "bad", H5P_DEFAULT);
    int all[6] = {0};
    H5E_BEGIN_TRY
    {
        H5Dread(d, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, all);
    }
    H5E_END_TRY
    hid_t fs0 = H5Dget_space(d);
    hsize_t three = 3;
    H5Sselect_hyperslab(fs0, H5S_SELECT_SET, &start, NULL, &three, NULL);
    hid_t m3 = H5Screate_simple(1, &three, NULL);
    CHECK(H5Dread(d, H5T_NATIVE_INT, m3, fs0, H5P_DEFAULT, buf) >= 0 && buf[0] == 100 && buf[1] == 101,
          "failed write: after the close, chunk 0 must hold the first write's values (read %d %d %d)", buf[0],
          buf[1], buf[2]);
    H5Sclose(m3);
    H5Sclose(fs0);
    H5Dclose(d);
    H5Fclose(f);
}

int main(void)
{
    scratch_dir(dir, sizeof dir, "damaged");
    snprintf(good_dir, sizeof good_dir, "%s/good.zarr", dir);
    snprintf(good_zip, sizeof good_zip, "%s/good.zip", dir);
    make_store(good_dir);
    make_store(good_zip);
    test_zip();
    test_links();
    test_chunk_shape();
    test_failed_write();
    scratch_done(dir, "damaged");
    TEST_MAIN_END();
}
