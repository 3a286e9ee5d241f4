/* Several processes, one store: the pattern of Dask workers over zarr-python. Run through the
 * connector (HDF5_VOL_CONNECTOR=nczarr):
 *   multiproc_writer create STORE NPROC NCHUNK   two arrays of NPROC*NCHUNK chunks, unwritten
 *   multiproc_writer write  STORE RANK NPROC     opens read-write, writes chunks RANK,
 *                                                RANK+NPROC, ... of both arrays, closes
 *   multiproc_writer writers STORE NPROC         runs NPROC "write" processes at once and
 *                                                waits for them all (exit 1 if any failed)
 *   multiproc_writer write-pausing STORE RANK NPROC
 *                                                "write", but after "a" is flushed it prints
 *                                                "flushed a" and waits for a line on stdin
 *   multiproc_writer verify STORE NPROC          every element is what its writer wrote
 *   multiproc_writer verify-a STORE NPROC        the same, of array "a" only
 * Chunks are rows of 512 elements: "a" int32, "b" float64 compressed with deflate. Each
 * writer selects its rows with one strided hyperslab, so one H5Dwrite touches NCHUNK
 * chunks. With MULTIPROC_BLOCKS=1 in the environment a writer's rows are one block instead,
 * rows RANK*NCHUNK to (RANK+1)*NCHUNK-1: shard-aligned when a shard holds a divisor of NCHUNK
 * rows (Zarr v3 with shards=N). */
#include "connector_check.h"

#include <hdf5.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

extern char **environ;

#define COLS 512

static int fail(const char *what, const char *store)
{
    fprintf(stderr, "multiproc_writer: %s failed on %s\n", what, store);
    H5Eprint2(H5E_DEFAULT, stderr);
    return 1;
}

static double value(hsize_t row, hsize_t col, int which)
{
    return which == 0 ? (double)(int)(row * 1000 + col) : (double)row + (double)col / 1024.0;
}

static int create(const char *store, hsize_t nproc, hsize_t nchunk)
{
    hsize_t dims[2] = {nproc * nchunk, COLS}, chunk[2] = {1, COLS};
    hid_t f = H5Fcreate(store, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    if (f < 0)
        return fail("H5Fcreate", store);
    ncz_expect_connector(f, store);
    hid_t sp = H5Screate_simple(2, dims, NULL), dcpl = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_chunk(dcpl, 2, chunk);
    hid_t a = H5Dcreate2(f, "a", H5T_STD_I32LE, sp, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    H5Pset_deflate(dcpl, 1);
    hid_t b = H5Dcreate2(f, "b", H5T_IEEE_F64LE, sp, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    int bad = a < 0 || b < 0;
    H5Dclose(a);
    H5Dclose(b);
    H5Pclose(dcpl);
    H5Sclose(sp);
    if (H5Fclose(f) < 0 || bad)
        return fail("create", store);
    return 0;
}

static int blocks(void)
{
    const char *b = getenv("MULTIPROC_BLOCKS");
    return b && !strcmp(b, "1");
}

/* The row of the file that row r of rank's selection is. */
static hsize_t row_of(hsize_t r, hsize_t rank, hsize_t nproc, hsize_t nrows)
{
    return blocks() ? rank * nrows + r : rank + r * nproc;
}

/* The rows of one rank: RANK, RANK+NPROC, ... as a strided selection of the file space
 * (a block of rows with MULTIPROC_BLOCKS=1). */
static hid_t rank_rows(hid_t d, hsize_t rank, hsize_t nproc, hsize_t *nrows)
{
    hid_t fs = H5Dget_space(d);
    hsize_t dims[2];
    H5Sget_simple_extent_dims(fs, dims, NULL);
    *nrows = dims[0] / nproc;
    hsize_t start[2] = {rank, 0}, stride[2] = {nproc, 1}, count[2] = {*nrows, 1}, block[2] = {1, COLS};
    if (blocks()) {
        start[0] = rank * *nrows;
        stride[0] = 1;
        count[0] = 1;
        block[0] = *nrows;
    }
    if (H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, stride, count, block) < 0) {
        H5Sclose(fs);
        return H5I_INVALID_HID;
    }
    return fs;
}

/* write-pausing: after array "a" is written and flushed to the store, prints "flushed a"
 * and waits for a line on standard input before it writes "b" and closes, so that a test
 * can take the store's server away at a known point of the write (s3/faults.sh). */
static int pause_after_a(hid_t f, const char *store)
{
    if (H5Fflush(f, H5F_SCOPE_GLOBAL) < 0)
        return fail("H5Fflush", store);
    printf("flushed a\n");
    fflush(stdout);
    char line[16];
    if (!fgets(line, sizeof line, stdin)) {
        fprintf(stderr, "multiproc_writer: no go-ahead on standard input\n");
        return 1;
    }
    return 0;
}

static int write_rank(const char *store, hsize_t rank, hsize_t nproc, int pausing)
{
    hid_t f = H5Fopen(store, H5F_ACC_RDWR, H5P_DEFAULT);
    if (f < 0)
        return fail("H5Fopen read-write", store);
    ncz_expect_connector(f, store);
    int rc = 0;
    for (int which = 0; which < 2 && !rc; which++) {
        hid_t d = H5Dopen2(f, which ? "b" : "a", H5P_DEFAULT);
        hsize_t nrows = 0;
        hid_t fs = d < 0 ? H5I_INVALID_HID : rank_rows(d, rank, nproc, &nrows);
        double *buf = malloc(nrows * COLS * sizeof *buf);
        if (fs < 0 || !buf) {
            rc = fail("open/select", store);
        } else {
            for (hsize_t r = 0; r < nrows; r++)
                for (hsize_t c = 0; c < COLS; c++)
                    buf[r * COLS + c] = value(row_of(r, rank, nproc, nrows), c, which);
            hsize_t n = nrows * COLS;
            hid_t ms = H5Screate_simple(1, &n, NULL);
            if (H5Dwrite(d, H5T_NATIVE_DOUBLE, ms, fs, H5P_DEFAULT, buf) < 0)
                rc = fail("H5Dwrite", store);
            H5Sclose(ms);
        }
        free(buf);
        if (fs >= 0)
            H5Sclose(fs);
        if (d >= 0)
            H5Dclose(d);
        if (pausing && which == 0 && !rc)
            rc = pause_after_a(f, store);
    }
    if (H5Fclose(f) < 0 && !rc)
        rc = fail("H5Fclose", store);
    return rc;
}

static int verify(const char *store, hsize_t nproc, int only_a)
{
    hid_t f = H5Fopen(store, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (f < 0)
        return fail("H5Fopen", store);
    ncz_expect_connector(f, store);
    int rc = 0;
    for (int which = 0; which < (only_a ? 1 : 2) && !rc; which++) {
        hid_t d = H5Dopen2(f, which ? "b" : "a", H5P_DEFAULT);
        hid_t fs = d < 0 ? H5I_INVALID_HID : H5Dget_space(d);
        hsize_t dims[2] = {0, 0};
        if (fs >= 0)
            H5Sget_simple_extent_dims(fs, dims, NULL);
        double *buf = malloc(dims[0] * COLS * sizeof *buf + 1);
        if (fs < 0 || !buf || H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) < 0) {
            rc = fail("read", store);
        } else {
            size_t bad = 0;
            for (hsize_t r = 0; r < dims[0]; r++)
                for (hsize_t c = 0; c < COLS; c++)
                    if (buf[r * COLS + c] != value(r, c, which) && bad++ < 5)
                        fprintf(stderr, "multiproc_writer: %s[%llu][%llu] = %g, want %g (rank %llu)\n",
                                which ? "b" : "a", (unsigned long long)r, (unsigned long long)c,
                                buf[r * COLS + c], value(r, c, which), (unsigned long long)(r % nproc));
            if (bad) {
                fprintf(stderr, "multiproc_writer: %zu wrong elements in %s\n", bad, which ? "b" : "a");
                rc = 1;
            }
        }
        free(buf);
        if (fs >= 0)
            H5Sclose(fs);
        if (d >= 0)
            H5Dclose(d);
    }
    H5Fclose(f);
    return rc;
}

/* NPROC separate processes (this program again, "write"), as workers of a cluster would be;
 * this process never initialises HDF5. */
static int run_writers(const char *self, const char *store, unsigned nproc)
{
    pid_t pids[64];
    int rc = 0;
    if (nproc == 0 || nproc > 64) {
        fprintf(stderr, "multiproc_writer: 1 to 64 writers\n");
        return 2;
    }
    for (unsigned r = 0; r < nproc; r++) {
        char rank[16], n[16];
        snprintf(rank, sizeof rank, "%u", r);
        snprintf(n, sizeof n, "%u", nproc);
        char *args[] = {(char *)self, "write", (char *)store, rank, n, NULL};
        if (posix_spawn(&pids[r], "/proc/self/exe", NULL, NULL, args, environ) != 0) {
            fprintf(stderr, "multiproc_writer: cannot start writer %u\n", r);
            nproc = r;
            rc = 1;
            break;
        }
    }
    for (unsigned r = 0; r < nproc; r++) {
        int st = 0;
        if (waitpid(pids[r], &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
            fprintf(stderr, "multiproc_writer: writer %u failed (status %d)\n", r, st);
            rc = 1;
        }
    }
    return rc;
}

int main(int argc, char **argv)
{
    if (argc == 5 && !strcmp(argv[1], "create"))
        return create(argv[2], strtoull(argv[3], NULL, 10), strtoull(argv[4], NULL, 10));
    if (argc == 5 && (!strcmp(argv[1], "write") || !strcmp(argv[1], "write-pausing")))
        return write_rank(argv[2], strtoull(argv[3], NULL, 10), strtoull(argv[4], NULL, 10),
                          !strcmp(argv[1], "write-pausing"));
    if (argc == 4 && !strcmp(argv[1], "writers"))
        return run_writers(argv[0], argv[2], (unsigned)strtoul(argv[3], NULL, 10));
    if (argc == 4 && !strcmp(argv[1], "verify"))
        return verify(argv[2], strtoull(argv[3], NULL, 10), 0);
    if (argc == 4 && !strcmp(argv[1], "verify-a"))
        return verify(argv[2], strtoull(argv[3], NULL, 10), 1);
    fprintf(stderr, "usage: multiproc_writer create STORE NPROC NCHUNK | write[-pausing] STORE RANK NPROC | "
                    "writers STORE NPROC | verify[-a] STORE NPROC\n");
    return 2;
}
