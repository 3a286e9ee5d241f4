/* Reads compressed arrays that zarr-python wrote, through the connector, for
 * codecs_foreign.sh:
 *
 *   codecs_reader DIR
 *
 * DIR holds store.zarr, names.txt (one array a line, named CASE_f32, CASE_i16 or CASE_u8)
 * and the values raw (f32.bin, i16.bin, u8.bin; little-endian). Each array is opened,
 * its type checked and all of it read with H5Dread; then one hyperslab that crosses chunk
 * edges. Prints "ok NAME" or "FAIL NAME: why"; the exit status is the number of failures
 * (at most 100). */
#include "connector_check.h"

#include <hdf5.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NI 50
#define NJ 70

static unsigned char *load(const char *dir, const char *file, size_t n)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return NULL;
    unsigned char *b = malloc(n);
    if (b && fread(b, 1, n, fp) != n) {
        free(b);
        b = NULL;
    }
    fclose(fp);
    return b;
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
static const char *failed(const char *what)
{
    static char why[640];
    deepest[0] = 0;
    H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, first_frame, NULL);
    snprintf(why, sizeof why, "%s: %s", what, deepest);
    return why;
}

/* Returns NULL when the array reads as expected, else why not. */
static const char *check(hid_t f, const char *name, hid_t file_type, hid_t mem_type, size_t esz,
                         const unsigned char *want)
{
    static char why[256];
    const char *res = NULL;
    unsigned char *got = malloc((size_t)NI * NJ * esz);
    hid_t d = H5Dopen2(f, name, H5P_DEFAULT), t = -1, s = -1, ms = -1;
    if (!got)
        return "out of memory";
    if (d < 0) {
        res = failed("H5Dopen2");
        goto done;
    }
    t = H5Dget_type(d);
    if (t < 0 || H5Tequal(t, file_type) <= 0) {
        res = "not the type zarr-python wrote";
        goto done;
    }
    memset(got, 0xa5, (size_t)NI * NJ * esz);
    if (H5Dread(d, mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, got) < 0) {
        res = failed("H5Dread");
        goto done;
    }
    for (size_t k = 0; k < (size_t)NI * NJ; k++)
        if (memcmp(got + k * esz, want + k * esz, esz)) {
            snprintf(why, sizeof why, "H5Dread: element (%zu, %zu) differs", k / NJ, k % NJ);
            res = why;
            goto done;
        }
    /* rows 10..39, columns 20..64: crosses chunk edges (chunks 16 x 32) */
    hsize_t start[2] = {10, 20}, count[2] = {30, 45};
    s = H5Dget_space(d);
    ms = H5Screate_simple(2, count, NULL);
    if (s < 0 || ms < 0 || H5Sselect_hyperslab(s, H5S_SELECT_SET, start, NULL, count, NULL) < 0 ||
        H5Dread(d, mem_type, ms, s, H5P_DEFAULT, got) < 0) {
        res = failed("H5Dread of a hyperslab");
        goto done;
    }
    for (hsize_t i = 0; i < count[0]; i++)
        for (hsize_t j = 0; j < count[1]; j++)
            if (memcmp(got + (i * count[1] + j) * esz, want + ((start[0] + i) * NJ + start[1] + j) * esz,
                       esz)) {
                snprintf(why, sizeof why, "hyperslab: element (%llu, %llu) differs",
                         (unsigned long long)(start[0] + i), (unsigned long long)(start[1] + j));
                res = why;
                goto done;
            }
done:
    if (ms >= 0)
        H5Sclose(ms);
    if (s >= 0)
        H5Sclose(s);
    if (t >= 0)
        H5Tclose(t);
    if (d >= 0)
        H5Dclose(d);
    free(got);
    return res;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s DIR\n", argv[0]);
        return 100;
    }
    const char *dir = argv[1];
    unsigned char *f32 = load(dir, "f32.bin", NI * NJ * 4), *i16 = load(dir, "i16.bin", NI * NJ * 2),
                  *u8 = load(dir, "u8.bin", NI * NJ);
    char path[4096], name[256];
    snprintf(path, sizeof path, "%s/names.txt", dir);
    FILE *names = fopen(path, "r");
    if (!f32 || !i16 || !u8 || !names) {
        fprintf(stderr, "cannot read the values or names.txt under %s\n", dir);
        return 100;
    }
    snprintf(path, sizeof path, "%s/store.zarr", dir);
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL); /* each failure is reported by its deepest message */
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (f < 0) {
        printf("FAIL: H5Fopen %s\n", path);
        return 100;
    }
    ncz_expect_connector(f, path);
    int nfail = 0;
    while (fscanf(names, "%255s", name) == 1) {
        const char *kind = strrchr(name, '_'), *why;
        if (kind && !strcmp(kind, "_f32"))
            why = check(f, name, H5T_IEEE_F32LE, H5T_IEEE_F32LE, 4, f32);
        else if (kind && !strcmp(kind, "_i16"))
            why = check(f, name, H5T_STD_I16LE, H5T_STD_I16LE, 2, i16);
        else if (kind && !strcmp(kind, "_u8"))
            why = check(f, name, H5T_STD_U8LE, H5T_STD_U8LE, 1, u8);
        else
            why = "unknown element kind in its name";
        if (why) {
            printf("FAIL %s: %s\n", name, why);
            nfail++;
        } else {
            printf("ok %s: H5Dread\n", name);
        }
    }
    fclose(names);
    H5Fclose(f);
    free(f32);
    free(i16);
    free(u8);
    return nfail > 100 ? 100 : nfail;
}
