/* Block selections (the connector's box mode: one block in the file, the same block in
 * memory, copied by arithmetic on worker threads) against native HDF5 as the judge: the
 * same random writes and reads go to a store and to a native HDF5 file, and every read
 * must give native HDF5's bytes. Memory is the block itself, a block inside a bigger
 * buffer, or a flat 1-D buffer; file blocks are plain, or made of touching regular
 * blocks; a few strided selections mix in the general path. Chunks at the edges, raw and
 * compressed, 1-D to 3-D; reads before and after reopening (cached and streamed chunks). */
#include "vol_test_util.h"

static char dir[4096];
static unsigned long long rng = 0x243F6A8885A308D3ull;

static unsigned rnd(unsigned n)
{
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return n ? (unsigned)(rng % n) : 0;
}

typedef struct bcase {
    const char *name;
    int rank;
    hsize_t dims[3], chunks[3];
    hid_t type;
    bool deflate;
} bcase;

/* A random selection in space fs (dims) and the matching memory space; returns the
 * memory space and the number of elements. */
static hid_t pick(const bcase *c, hid_t fs, size_t *nelem)
{
    int r = c->rank;
    hsize_t start[3] = {0}, count[3] = {0}, stride[3] = {0}, block[3] = {0};
    unsigned kind = rnd(10);
    *nelem = 1;
    for (int k = 0; k < r; k++) {
        count[k] = 1 + rnd((unsigned)c->dims[k]);
        start[k] = rnd((unsigned)(c->dims[k] - count[k] + 1));
        stride[k] = 1;
        block[k] = 1;
    }
    if (kind == 0) {
        /* strided: the general path */
        for (int k = 0; k < r; k++) {
            stride[k] = 2;
            count[k] = (count[k] + 1) / 2;
        }
        H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, stride, count, block);
    } else if (kind == 1) {
        /* touching blocks: count x block with stride == block */
        for (int k = 0; k < r; k++) {
            block[k] = count[k] % 2 == 0 ? 2 : 1;
            count[k] /= block[k];
            stride[k] = block[k];
        }
        H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, stride, count, block);
        for (int k = 0; k < r; k++)
            count[k] *= block[k];
    } else {
        H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL);
    }
    for (int k = 0; k < r; k++)
        *nelem *= count[k];
    unsigned mkind = rnd(3);
    if (mkind == 0) {
        hsize_t n = *nelem;
        return H5Screate_simple(1, &n, NULL);
    }
    if (mkind == 1)
        return H5Screate_simple(r, count, NULL);
    /* a block inside a bigger buffer */
    hsize_t md[3], ms[3];
    for (int k = 0; k < r; k++) {
        md[k] = count[k] + rnd(4);
        ms[k] = rnd((unsigned)(md[k] - count[k] + 1));
    }
    hid_t m = H5Screate_simple(r, md, NULL);
    H5Sselect_hyperslab(m, H5S_SELECT_SET, ms, NULL, count, NULL);
    return m;
}

static size_t mem_bytes(hid_t ms, size_t esz)
{
    hsize_t d[3];
    int r = H5Sget_simple_extent_ndims(ms);
    H5Sget_simple_extent_dims(ms, d, NULL);
    size_t n = 1;
    for (int k = 0; k < r; k++)
        n *= d[k];
    return n * esz;
}

static hid_t make(hid_t f, const bcase *c)
{
    hid_t fs = H5Screate_simple(c->rank, c->dims, NULL), dcpl = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_chunk(dcpl, c->rank, c->chunks);
    if (c->deflate) {
        H5Pset_shuffle(dcpl);
        H5Pset_deflate(dcpl, 1);
    }
    int fill = -7;
    if (H5Tget_class(c->type) == H5T_INTEGER && H5Tget_size(c->type) == 4)
        H5Pset_fill_value(dcpl, H5T_NATIVE_INT, &fill);
    hid_t d = H5Dcreate2(f, c->name, c->type, fs, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    H5Sclose(fs);
    H5Pclose(dcpl);
    return d;
}

/* The same random read from both; the bytes must agree (the memory outside the selection
 * included: it must stay as it was). */
static void compare_read(const bcase *c, hid_t dz, hid_t dn, const char *when)
{
    size_t esz = H5Tget_size(c->type), nelem = 0;
    hid_t fs = H5Screate_simple(c->rank, c->dims, NULL);
    hid_t ms = pick(c, fs, &nelem);
    size_t nb = mem_bytes(ms, esz);
    unsigned char *a = malloc(nb), *b = malloc(nb);
    memset(a, 0xA5, nb);
    memset(b, 0xA5, nb);
    herr_t ra = H5Dread(dz, c->type, ms, fs, H5P_DEFAULT, a);
    herr_t rb = H5Dread(dn, c->type, ms, fs, H5P_DEFAULT, b);
    CHECK(ra >= 0 && rb >= 0, "%s %s: read failed (store %d, native %d)", c->name, when, (int)ra, (int)rb);
    CHECK(memcmp(a, b, nb) == 0, "%s %s: a read of %zu elements differs from native HDF5's", c->name, when,
          nelem);
    free(a);
    free(b);
    H5Sclose(ms);
    H5Sclose(fs);
}

/* All of the dataset through a buffer with a margin: every whole chunk is many runs of
 * memory (gathered and scattered by the store where it can), edge chunks are not. */
static void whole_margin(const bcase *c, hid_t dz, hid_t dn, bool write)
{
    size_t esz = H5Tget_size(c->type);
    hsize_t md[3], ms[3] = {1, 1, 1};
    for (int k = 0; k < c->rank; k++)
        md[k] = c->dims[k] + 2;
    hid_t m = H5Screate_simple(c->rank, md, NULL);
    H5Sselect_hyperslab(m, H5S_SELECT_SET, ms, NULL, c->dims, NULL);
    size_t nb = mem_bytes(m, esz);
    unsigned char *a = malloc(nb), *b = malloc(nb);
    for (size_t k = 0; k < nb; k++)
        a[k] = (unsigned char)rnd(256);
    memcpy(b, a, nb);
    if (write) {
        CHECK(H5Dwrite(dz, c->type, m, H5S_ALL, H5P_DEFAULT, a) >= 0 &&
                  H5Dwrite(dn, c->type, m, H5S_ALL, H5P_DEFAULT, b) >= 0,
              "%s: whole write with a margin", c->name);
    } else {
        CHECK(H5Dread(dz, c->type, m, H5S_ALL, H5P_DEFAULT, a) >= 0 &&
                  H5Dread(dn, c->type, m, H5S_ALL, H5P_DEFAULT, b) >= 0,
              "%s: whole read with a margin", c->name);
        CHECK(memcmp(a, b, nb) == 0, "%s: a whole read with a margin differs from native HDF5's", c->name);
    }
    free(a);
    free(b);
    H5Sclose(m);
}

/* A random block of whole chunks (to the array's edge where it reaches it) of at most
 * most chunks per dimension; returns its element count. */
static hsize_t pick_aligned(const bcase *c, unsigned most, hsize_t *start, hsize_t *count)
{
    hsize_t nelem = 1;
    for (int k = 0; k < c->rank; k++) {
        hsize_t nch = (c->dims[k] + c->chunks[k] - 1) / c->chunks[k], a = rnd((unsigned)nch),
                b = a + 1 + rnd((unsigned)(nch - a < most ? nch - a : most));
        b = b > nch ? nch : b;
        start[k] = a * c->chunks[k];
        count[k] = (b * c->chunks[k] < c->dims[k] ? b * c->chunks[k] : c->dims[k]) - start[k];
        nelem *= count[k];
    }
    return nelem;
}

/* The same write of a block of whole chunks (to the array's edge where it reaches it) to
 * both: in shards, whole inner chunks of part of a shard, which are encoded at once and kept
 * until the shard is complete or read or flushed (partial shard writes). */
static void aligned_write(const bcase *c, hid_t dz, hid_t dn)
{
    int r = c->rank;
    hsize_t start[3], count[3], nelem = pick_aligned(c, 2, start, count);
    size_t nb = (size_t)nelem * H5Tget_size(c->type);
    hid_t fs = H5Screate_simple(r, c->dims, NULL), ms = H5Screate_simple(r, count, NULL);
    H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL);
    unsigned char *buf = malloc(nb);
    for (size_t k = 0; k < nb; k++)
        buf[k] = (unsigned char)rnd(256);
    herr_t wa = H5Dwrite(dz, c->type, ms, fs, H5P_DEFAULT, buf);
    herr_t wb = H5Dwrite(dn, c->type, ms, fs, H5P_DEFAULT, buf);
    CHECK(wa >= 0 && wb >= 0, "%s: aligned write failed (store %d, native %d)", c->name, (int)wa, (int)wb);
    free(buf);
    H5Sclose(ms);
    H5Sclose(fs);
}

static void run_case(hid_t fz, hid_t fn, const bcase *c)
{
    size_t esz = H5Tget_size(c->type);
    hid_t dz = make(fz, c), dn = make(fn, c);
    CHECK(dz >= 0 && dn >= 0, "%s: create", c->name);
    whole_margin(c, dz, dn, true);
    whole_margin(c, dz, dn, false);
    for (int i = 0; i < 60; i++) {
        size_t nelem = 0;
        hid_t fs = H5Screate_simple(c->rank, c->dims, NULL);
        hid_t ms = pick(c, fs, &nelem);
        size_t nb = mem_bytes(ms, esz);
        unsigned char *buf = malloc(nb);
        for (size_t k = 0; k < nb; k++)
            buf[k] = (unsigned char)rnd(256);
        herr_t wa = H5Dwrite(dz, c->type, ms, fs, H5P_DEFAULT, buf);
        herr_t wb = H5Dwrite(dn, c->type, ms, fs, H5P_DEFAULT, buf);
        CHECK(wa >= 0 && wb >= 0, "%s: write %d failed", c->name, i);
        free(buf);
        H5Sclose(ms);
        H5Sclose(fs);
        if (i % 3 == 0)
            compare_read(c, dz, dn, "while writing");
        if (i % 4 == 1)
            aligned_write(c, dz, dn);
    }
    /* blocks of whole chunks only, some shards left incomplete for the close to store */
    for (int i = 0; i < 12; i++) {
        aligned_write(c, dz, dn);
        if (i % 5 == 4)
            compare_read(c, dz, dn, "between aligned writes");
    }
    H5Dclose(dz);
    H5Dclose(dn);
}

/* A block of whole chunks (to the array's edge where it reaches it): in shards, whole inner
 * chunks of part of a shard, which are read by byte range (partial shard reads). */
static void aligned_read(const bcase *c, hid_t dz, hid_t dn)
{
    int r = c->rank;
    hsize_t start[3], count[3], nelem = pick_aligned(c, 64, start, count);
    size_t nb = (size_t)nelem * H5Tget_size(c->type);
    hid_t fs = H5Screate_simple(r, c->dims, NULL), ms = H5Screate_simple(r, count, NULL);
    H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL);
    unsigned char *a = malloc(nb), *b = malloc(nb);
    memset(a, 0xA5, nb);
    memset(b, 0x5A, nb);
    herr_t ra = H5Dread(dz, c->type, ms, fs, H5P_DEFAULT, a);
    herr_t rb = H5Dread(dn, c->type, ms, fs, H5P_DEFAULT, b);
    CHECK(ra >= 0 && rb >= 0, "%s: aligned read failed (store %d, native %d)", c->name, (int)ra, (int)rb);
    CHECK(memcmp(a, b, nb) == 0, "%s: an aligned read of %llu elements differs from native HDF5's", c->name,
          (unsigned long long)nelem);
    free(a);
    free(b);
    H5Sclose(ms);
    H5Sclose(fs);
}

/* A dataset written only in a few blocks of whole chunks: in shards, parts of shards never
 * stored before, completed at the close with fill. */
static void sparse_case(hid_t fz, hid_t fn, const bcase *c)
{
    hid_t dz = make(fz, c), dn = make(fn, c);
    CHECK(dz >= 0 && dn >= 0, "%s: create", c->name);
    for (int i = 0; i < 3; i++)
        aligned_write(c, dz, dn);
    H5Dclose(dz);
    H5Dclose(dn);
}

static size_t whole_bytes(const bcase *c)
{
    size_t n = H5Tget_size(c->type);
    for (int k = 0; k < c->rank; k++)
        n *= (size_t)c->dims[k];
    return n;
}

static unsigned char *page_buffer(size_t nb)
{
    return aligned_alloc(4096, (nb + 8191) / 4096 * 4096);
}

/* Whole reads into a buffer at several offsets in a page: where the kernel would copy the
 * store's bytes slowly (1 to 31 bytes past their offset in a page) the connector reads raw
 * chunks through its scratch and copies them on; the values must be native HDF5's. */
static void placed_reads(const bcase *c, hid_t dz, hid_t dn)
{
    static const size_t offs[] = {0, 8, 16, 24, 48, 2048, 4080};
    size_t nb = whole_bytes(c);
    unsigned char *b = malloc(nb), *base = page_buffer(nb);
    CHECK(b && base && H5Dread(dn, c->type, H5S_ALL, H5S_ALL, H5P_DEFAULT, b) >= 0, "%s: native whole read",
          c->name);
    for (size_t i = 0; base && i < sizeof offs / sizeof offs[0]; i++) {
        unsigned char *a = base + offs[i];
        memset(a, 0xA5, nb);
        herr_t r = H5Dread(dz, c->type, H5S_ALL, H5S_ALL, H5P_DEFAULT, a);
        CHECK(r >= 0 && memcmp(a, b, nb) == 0,
              "%s: a whole read into a buffer %zu bytes into a page differs from native HDF5's", c->name,
              offs[i]);
    }
    free(b);
    free(base);
}

/* Unsharded only: a raw chunk cut short and a raw chunk removed, read into a buffer 16
 * bytes into a page (through the connector's scratch): the short one fails naming it, the
 * removed one reads as fill. */
static void placed_damage(const char *pz)
{
    char key[4400];
    snprintf(key, sizeof key, "%s/d2/1.0", pz);
    CHECK(remove(key) == 0, "%s: remove", key);
    snprintf(key, sizeof key, "%s/d2/0.0", pz);
    CHECK(truncate(key, 1000) == 0, "%s: truncate", key);
    hid_t f = H5Fopen(pz, H5F_ACC_RDONLY, H5P_DEFAULT), d = H5Dopen2(f, "d2", H5P_DEFAULT);
    hsize_t start[2] = {16, 0}, count[2] = {16, 48}, dims[2] = {64, 48};
    size_t nb = (size_t)64 * 48 * sizeof(double);
    unsigned char *base = page_buffer(nb);
    double *a = base ? (double *)(void *)(base + 16) : NULL;
    errtext_t et;
    herr_t rc = 0;
    H5E_BEGIN_TRY
    {
        rc = a && d >= 0 ? H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, a) : 0;
    }
    H5E_END_TRY
    take_errors(&et);
    CHECK(rc < 0 && nczarr_error_has(&et, "d2/0.0") && nczarr_error_has(&et, "holds 1000 bytes"),
          "d2: a short raw chunk read through the scratch fails naming it (rc %d):\n%s", (int)rc, et.text);
    hid_t fs = H5Screate_simple(2, dims, NULL), ms = H5Screate_simple(2, count, NULL);
    H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL);
    bool fill = a && H5Dread(d, H5T_NATIVE_DOUBLE, ms, fs, H5P_DEFAULT, a) >= 0;
    for (size_t i = 0; fill && i < 16 * 48; i++)
        fill = a[i] == 0.0;
    CHECK(fill, "d2: a removed raw chunk read through the scratch is all fill");
    H5Sclose(ms);
    H5Sclose(fs);
    H5Dclose(d);
    H5Fclose(f);
    free(base);
}

static void reread(hid_t fz, hid_t fn, const bcase *c)
{
    hid_t dz = H5Dopen2(fz, c->name, H5P_DEFAULT), dn = H5Dopen2(fn, c->name, H5P_DEFAULT);
    CHECK(dz >= 0 && dn >= 0, "%s: reopen", c->name);
    whole_margin(c, dz, dn, false);
    placed_reads(c, dz, dn);
    for (int i = 0; i < 40; i++) {
        compare_read(c, dz, dn, "after reopening");
        if (i % 2 == 0)
            aligned_read(c, dz, dn);
    }
    H5Dclose(dz);
    H5Dclose(dn);
}

/* Shards only: a shard written in part in whole inner chunks is completed at close from
 * the stored shard; a stored shard whose index is damaged makes that close fail with a
 * message naming the shard and the damage, never a crash. */
static void damaged_completion(const char *pz)
{
    hid_t f = H5Fopen(pz, H5F_ACC_RDWR, H5P_DEFAULT);
    hsize_t dims[2] = {16, 16}, chunks[2] = {4, 4}, start[2] = {0, 0}, count[2] = {4, 4};
    hid_t fs = H5Screate_simple(2, dims, NULL), dcpl = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_chunk(dcpl, 2, chunks);
    hid_t d = H5Dcreate2(f, "dmg", H5T_NATIVE_INT, fs, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    int all[256], part[16];
    for (int i = 0; i < 256; i++)
        all[i] = i;
    for (int i = 0; i < 16; i++)
        part[i] = -i;
    CHECK(f >= 0 && is_nczarr(f) && d >= 0 &&
              H5Dwrite(d, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, all) >= 0,
          "dmg: create and write");
    H5Dclose(d);
    H5Fclose(f);
    /* one byte of the first shard's index (its last 16 * 4 + 4 bytes) flipped: crc32c fails */
    char shard[4300];
    snprintf(shard, sizeof shard, "%s/dmg/c/0/0", pz);
    FILE *fp = fopen(shard, "r+b");
    CHECK(fp != NULL, "%s: the shard object", shard);
    if (fp) {
        fseek(fp, -10, SEEK_END);
        int ch = fgetc(fp);
        fseek(fp, -10, SEEK_END);
        fputc(ch ^ 0xFF, fp);
        fclose(fp);
    }
    f = H5Fopen(pz, H5F_ACC_RDWR, H5P_DEFAULT);
    d = H5Dopen2(f, "dmg", H5P_DEFAULT);
    hid_t ms = H5Screate_simple(2, count, NULL);
    H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL);
    CHECK(d >= 0 && H5Dwrite(d, H5T_NATIVE_INT, ms, fs, H5P_DEFAULT, part) >= 0,
          "dmg: one inner chunk written");
    errtext_t et;
    herr_t rc;
    H5E_BEGIN_TRY
    {
        rc = H5Dclose(d);
    }
    H5E_END_TRY
    take_errors(&et);
    CHECK(rc < 0 && nczarr_error_has(&et, "dmg/c/0/0") && nczarr_error_has(&et, "crc32c"),
          "dmg: completing a damaged shard fails naming it (rc %d):\n%s", (int)rc, et.text);
    H5E_BEGIN_TRY
    {
        H5Fclose(f);
    }
    H5E_END_TRY
    H5Sclose(ms);
    H5Sclose(fs);
    H5Pclose(dcpl);
}

/* A compound of 80 bytes written a block of whole chunks' rows at a time (in shards, each
 * raw inner chunk to its place as it comes, a fill element of that size compared against)
 * reads back as written, closed and opened again. */
static void compound_rows(void)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/compound.zarr", dir);
    hid_t t = H5Tcreate(H5T_COMPOUND, 80);
    for (int k = 0; k < 20; k++) {
        char field[8];
        snprintf(field, sizeof field, "f%d", k);
        H5Tinsert(t, field, (size_t)(4 * k), H5T_NATIVE_INT);
    }
    enum { R = 40, C = 30, NV = R * C * 20 };
    hsize_t dims[2] = {R, C}, chunks[2] = {4, 10}, blk[2] = {4, C};
    int *all = malloc(sizeof(int) * NV), *back = calloc(NV, sizeof(int));
    REQUIRE(all && back, "memory");
    for (int i = 0; i < NV; i++)
        all[i] = i % 97 == 0 ? 0 : i * 7 + 1;
    memset(all + 8 * C * 20, 0, sizeof(int) * 4 * C * 20); /* rows of fill */
    hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    REQUIRE(f >= 0 && is_nczarr(f), "%s is made by the connector", path);
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_chunk(dcpl, 2, chunks);
    hid_t fs = H5Screate_simple(2, dims, NULL), ms = H5Screate_simple(2, blk, NULL);
    hid_t d = H5Dcreate2(f, "c", t, fs, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    REQUIRE(d >= 0, "compound dataset");
    for (hsize_t r = 0; r < R; r += 4) {
        hsize_t start[2] = {r, 0};
        H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, blk, NULL);
        CHECK(H5Dwrite(d, t, ms, fs, H5P_DEFAULT, all + r * C * 20) >= 0, "rows %llu", (unsigned long long)r);
    }
    H5Dclose(d);
    H5Sclose(ms);
    H5Sclose(fs);
    H5Pclose(dcpl);
    CHECK(H5Fclose(f) >= 0, "close");
    f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    d = H5Dopen2(f, "c", H5P_DEFAULT);
    CHECK(d >= 0 && H5Dread(d, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, back) >= 0 &&
              memcmp(all, back, sizeof(int) * NV) == 0,
          "the compound dataset reads back as written");
    H5Dclose(d);
    H5Fclose(f);
    H5Tclose(t);
    free(all);
    free(back);
}

int main(void)
{
    scratch_dir(dir, sizeof dir, "boxio");
    char pz[4200], pn[4200];
    snprintf(pz, sizeof pz, "%s/box.zarr", dir);
    snprintf(pn, sizeof pn, "%s/box.h5", dir);
    hid_t nfapl = H5Pcreate(H5P_FILE_ACCESS);
    H5Pset_vol(nfapl, H5VL_NATIVE, NULL);
    hid_t fz = H5Fcreate(pz, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    hid_t fn = H5Fcreate(pn, H5F_ACC_TRUNC, H5P_DEFAULT, nfapl);
    CHECK(fz >= 0 && is_nczarr(fz), "the store is made by the connector");
    CHECK(fn >= 0 && !is_nczarr(fn), "the judge is a native HDF5 file");
    const bcase cases[] = {
        {"i3", 3, {37, 29, 23}, {8, 7, 5}, H5T_NATIVE_INT, false},
        {"i3z", 3, {37, 29, 23}, {8, 7, 5}, H5T_NATIVE_INT, true},
        {"d2z", 2, {100, 61}, {16, 16}, H5T_NATIVE_DOUBLE, true},
        {"d2", 2, {64, 48}, {16, 48}, H5T_NATIVE_DOUBLE, false},
        {"u1", 1, {1000}, {64}, H5T_NATIVE_UCHAR, false},
        {"u1z", 1, {1000}, {64}, H5T_NATIVE_UCHAR, true},
    };
    const bcase sparse[] = {
        {"sparse_d2z", 2, {100, 61}, {16, 16}, H5T_NATIVE_DOUBLE, true},
        {"sparse_i3", 3, {37, 29, 23}, {8, 7, 5}, H5T_NATIVE_INT, false},
    };
    size_t nc = sizeof cases / sizeof cases[0], ns = sizeof sparse / sizeof sparse[0];
    for (size_t i = 0; i < nc; i++)
        run_case(fz, fn, &cases[i]);
    for (size_t i = 0; i < ns; i++)
        sparse_case(fz, fn, &sparse[i]);
    compound_rows();
    H5Fclose(fz);
    H5Fclose(fn);
    /* run with "shards=N" (vol.test_vol_boxio_shards), the arrays must really be sharded */
    const char *conn = getenv("HDF5_VOL_CONNECTOR");
    if (conn && strstr(conn, "shards=")) {
        char meta[4300];
        snprintf(meta, sizeof meta, "%s/i3z/zarr.json", pz);
        CHECK(strstr(slurp(meta), "\"sharding_indexed\"") != NULL, "%s: no sharding_indexed codec", meta);
        damaged_completion(pz);
    }
    fz = H5Fopen(pz, H5F_ACC_RDONLY, H5P_DEFAULT);
    fn = H5Fopen(pn, H5F_ACC_RDONLY, nfapl);
    CHECK(fz >= 0 && fn >= 0, "reopen both files");
    for (size_t i = 0; i < nc; i++)
        reread(fz, fn, &cases[i]);
    for (size_t i = 0; i < ns; i++)
        reread(fz, fn, &sparse[i]);
    H5Fclose(fz);
    H5Fclose(fn);
    H5Pclose(nfapl);
    if (!conn || !strstr(conn, "shards="))
        placed_damage(pz);
    rm_rf(dir);
    TEST_MAIN_END();
}
