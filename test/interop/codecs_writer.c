/* Writes one float32 and one int16 dataset per compression case, filters set through the
 * dcpl as any HDF5 program sets them, for codecs_writer.sh:
 *
 *   codecs_writer STORE RAWDIR
 *
 * RAWDIR receives the values as raw little-endian bytes (f32.bin, i16.bin), which every
 * reader is compared with. Then the store is opened again and each dataset is read back
 * (H5Dread) and its creation plist's filters checked (H5Pget_filter2). Each failing case
 * is named on stdout ("FAIL case: why"); the exit status is the number of failed cases. */
#include "connector_check.h"

#include <hdf5.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NI 60
#define NJ 90
#define CI 16
#define CJ 25

#define BLOSC_ID 32001
#define ZSTD_ID  32015
#define BZIP2_ID 307

typedef struct {
    const char *name;
    int nfilters;
    H5Z_filter_t ids[2]; /* in pipeline order */
} codec_case;

static const codec_case cases[] = {
    {"deflate", 1, {H5Z_FILTER_DEFLATE}},
    {"shuffle_deflate", 2, {H5Z_FILTER_SHUFFLE, H5Z_FILTER_DEFLATE}},
    {"blosc_lz4", 1, {BLOSC_ID}},
    {"blosc_zstd", 1, {BLOSC_ID}},
    {"zstd", 1, {ZSTD_ID}},
    {"bzip2", 1, {BZIP2_ID}},
    {"deflate_fletcher32", 2, {H5Z_FILTER_DEFLATE, H5Z_FILTER_FLETCHER32}},
};
#define NCASES (sizeof cases / sizeof cases[0])

static float f32[NI][NJ];
static short i16[NI][NJ];

static void make_values(void)
{
    /* a smooth field, as real data compresses, and integers with a sign */
    for (int i = 0; i < NI; i++)
        for (int j = 0; j < NJ; j++) {
            f32[i][j] = 20.0f + 10.0f * sinf((float)i * 0.05f) * cosf((float)j * 0.03f) + 0.001f * (float)j;
            i16[i][j] = (short)((i * 53 + j * 17) % 6000 - 3000);
        }
}

/* The deepest message of the current error stack (the connector's own reason). */
static char deepest[512];
static herr_t first_frame(unsigned n, const H5E_error2_t *e, void *data)
{
    (void)data;
    if (n == 0)
        snprintf(deepest, sizeof deepest, "%s", e->desc ? e->desc : "");
    return 0;
}
static const char *why(void)
{
    deepest[0] = 0;
    H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, first_frame, NULL);
    return deepest;
}

static int dump(const char *dir, const char *name, const void *buf, size_t n)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *fp = fopen(path, "wb");
    if (!fp)
        return -1;
    size_t w = fwrite(buf, 1, n, fp);
    return (fclose(fp) == 0 && w == n) ? 0 : -1;
}

static herr_t set_filters(hid_t dcpl, const char *name)
{
    /* blosc: cd_values 0-3 are filled in by the filter's set_local (revision, version, type
     * size, chunk size); 4 clevel, 5 shuffle (1 byte), 6 compressor (1 lz4, 5 zstd) */
    unsigned blosc_lz4[7] = {0, 0, 0, 0, 5, 1, 1};
    unsigned blosc_zstd[7] = {0, 0, 0, 0, 5, 1, 5};
    unsigned zstd_level = 3, bzip2_level = 9;
    if (!strcmp(name, "deflate"))
        return H5Pset_deflate(dcpl, 6);
    if (!strcmp(name, "shuffle_deflate"))
        return (H5Pset_shuffle(dcpl) < 0 || H5Pset_deflate(dcpl, 4) < 0) ? -1 : 0;
    if (!strcmp(name, "blosc_lz4"))
        return H5Pset_filter(dcpl, BLOSC_ID, H5Z_FLAG_MANDATORY, 7, blosc_lz4);
    if (!strcmp(name, "blosc_zstd"))
        return H5Pset_filter(dcpl, BLOSC_ID, H5Z_FLAG_MANDATORY, 7, blosc_zstd);
    if (!strcmp(name, "zstd"))
        return H5Pset_filter(dcpl, ZSTD_ID, H5Z_FLAG_MANDATORY, 1, &zstd_level);
    if (!strcmp(name, "bzip2"))
        return H5Pset_filter(dcpl, BZIP2_ID, H5Z_FLAG_MANDATORY, 1, &bzip2_level);
    if (!strcmp(name, "deflate_fletcher32"))
        return (H5Pset_deflate(dcpl, 6) < 0 || H5Pset_fletcher32(dcpl) < 0) ? -1 : 0;
    return -1;
}

static int write_case(hid_t f, const codec_case *c)
{
    hsize_t dims[2] = {NI, NJ}, chunks[2] = {CI, CJ};
    hid_t s = H5Screate_simple(2, dims, NULL), dcpl = H5Pcreate(H5P_DATASET_CREATE);
    int bad = 0;
    if (H5Pset_chunk(dcpl, 2, chunks) < 0 || set_filters(dcpl, c->name) < 0) {
        printf("FAIL %s: the dcpl refused the filters: %s\n", c->name, why());
        bad = 1;
    }
    for (int k = 0; k < 2 && !bad; k++) {
        char dname[64];
        snprintf(dname, sizeof dname, "%s_%s", c->name, k ? "i16" : "f32");
        hid_t d = H5Dcreate2(f, dname, k ? H5T_STD_I16LE : H5T_IEEE_F32LE, s, H5P_DEFAULT, dcpl, H5P_DEFAULT);
        if (d < 0) {
            printf("FAIL %s: H5Dcreate2 %s: %s\n", c->name, dname, why());
            bad = 1;
            break;
        }
        herr_t st = k ? H5Dwrite(d, H5T_NATIVE_SHORT, H5S_ALL, H5S_ALL, H5P_DEFAULT, i16)
                      : H5Dwrite(d, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, f32);
        if (st < 0) {
            printf("FAIL %s: H5Dwrite %s: %s\n", c->name, dname, why());
            bad = 1;
        }
        if (H5Dclose(d) < 0) {
            printf("FAIL %s: H5Dclose %s: %s\n", c->name, dname, why());
            bad = 1;
        }
    }
    H5Pclose(dcpl);
    H5Sclose(s);
    return bad;
}

/* Reads each dataset of a case back and checks the filters its creation plist shows. */
static int check_case(hid_t f, const codec_case *c)
{
    static float rf[NI][NJ];
    static short ri[NI][NJ];
    for (int k = 0; k < 2; k++) {
        char dname[64];
        snprintf(dname, sizeof dname, "%s_%s", c->name, k ? "i16" : "f32");
        hid_t d = H5Dopen2(f, dname, H5P_DEFAULT);
        if (d < 0) {
            printf("FAIL %s: H5Dopen2 %s: %s\n", c->name, dname, why());
            return 1;
        }
        int bad = 0;
        hid_t dcpl = H5Dget_create_plist(d);
        int n = dcpl < 0 ? -1 : H5Pget_nfilters(dcpl);
        if (n != c->nfilters) {
            printf("FAIL %s: %s shows %d filters, not %d\n", c->name, dname, n, c->nfilters);
            bad = 1;
        }
        for (int q = 0; q < n && q < c->nfilters; q++) {
            unsigned flags, cd[16];
            size_t ncd = 16;
            char fname[64];
            H5Z_filter_t id = H5Pget_filter2(dcpl, (unsigned)q, &flags, &ncd, cd, sizeof fname, fname, NULL);
            if (id != c->ids[q]) {
                printf("FAIL %s: %s filter %d is %d, not %d\n", c->name, dname, q, (int)id, (int)c->ids[q]);
                bad = 1;
            }
            if (id == H5Z_FILTER_SHUFFLE && (ncd < 1 || cd[0] != (k ? 2u : 4u))) {
                printf("FAIL %s: %s shuffle's element size is %u, not %u\n", c->name, dname, ncd ? cd[0] : 0u,
                       k ? 2u : 4u);
                bad = 1;
            }
        }
        if (dcpl >= 0)
            H5Pclose(dcpl);
        herr_t st = k ? H5Dread(d, H5T_NATIVE_SHORT, H5S_ALL, H5S_ALL, H5P_DEFAULT, ri)
                      : H5Dread(d, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, rf);
        if (st < 0) {
            printf("FAIL %s: H5Dread %s: %s\n", c->name, dname, why());
            bad = 1;
        } else if (k ? memcmp(ri, i16, sizeof i16) : memcmp(rf, f32, sizeof f32)) {
            printf("FAIL %s: H5Dread %s gives other values than were written\n", c->name, dname);
            bad = 1;
        }
        H5Dclose(d);
        if (bad)
            return 1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: %s STORE RAWDIR\n", argv[0]);
        return 100;
    }
    make_values();
    if (dump(argv[2], "f32.bin", f32, sizeof f32) < 0 || dump(argv[2], "i16.bin", i16, sizeof i16) < 0) {
        fprintf(stderr, "cannot write the raw values under %s\n", argv[2]);
        return 100;
    }
    int failed[NCASES] = {0};
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL); /* each failure is reported by its deepest message */
    hid_t f = H5Fcreate(argv[1], H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    if (f < 0) {
        printf("FAIL: H5Fcreate %s\n", argv[1]);
        return 100;
    }
    ncz_expect_connector(f, argv[1]);
    for (size_t c = 0; c < NCASES; c++)
        failed[c] = write_case(f, &cases[c]);
    if (H5Fclose(f) < 0)
        printf("FAIL: H5Fclose %s\n", argv[1]);
    f = H5Fopen(argv[1], H5F_ACC_RDONLY, H5P_DEFAULT);
    if (f < 0) {
        printf("FAIL: H5Fopen %s\n", argv[1]);
        return 100;
    }
    ncz_expect_connector(f, argv[1]);
    int nfail = 0;
    for (size_t c = 0; c < NCASES; c++) {
        if (!failed[c])
            failed[c] = check_case(f, &cases[c]);
        if (!failed[c])
            printf("ok %s: written, read back, filters shown\n", cases[c].name);
        nfail += failed[c];
    }
    H5Fclose(f);
    return nfail;
}
