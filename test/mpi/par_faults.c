/* MPI programs that go wrong, for test/mpi/faults.sh:
 *   par_faults mismatch OUT  rank 0 writes an attribute the others do not
 *   par_faults skip OUT      rank 1 leaves out a collective H5Dwrite the others make
 *   par_faults absent OUT    rank 1 never closes the file: the others give up after
 *                            NCZARR_MPI_TIMEOUT seconds
 *   par_faults kill OUT      a dataset is written and flushed; a second one is being written
 *                            when rank 2 is killed (SIGKILL)
 * The first two must fail on every rank with the connector's message; the program then
 * prints "failed as expected on every rank" and exits 0. Values are i * 100 + j. */
#include <hdf5.h>
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NY 40
#define NX 30

static int rank, nranks;

#define CHECK(x)                                                                                             \
    do {                                                                                                     \
        if ((x) < 0) {                                                                                       \
            fprintf(stderr, "rank %d: line %d: %s failed\n", rank, __LINE__, #x);                            \
            H5Eprint2(H5E_DEFAULT, stderr);                                                                  \
            MPI_Abort(MPI_COMM_WORLD, 1);                                                                    \
        }                                                                                                    \
    } while (0)

static hid_t make(hid_t f, const char *name)
{
    hsize_t dims[2] = {NY, NX}, ch[2] = {7, 8};
    hid_t s = H5Screate_simple(2, dims, NULL), dcpl = H5Pcreate(H5P_DATASET_CREATE);
    CHECK(H5Pset_chunk(dcpl, 2, ch));
    hid_t d = H5Dcreate2(f, name, H5T_STD_I32LE, s, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    CHECK(d);
    H5Pclose(dcpl);
    H5Sclose(s);
    return d;
}

/* This rank's band of rows, collectively. */
static herr_t write_band(hid_t d, hid_t dxpl)
{
    hsize_t r0 = (hsize_t)rank * NY / (hsize_t)nranks, r1 = (hsize_t)(rank + 1) * NY / (hsize_t)nranks;
    hsize_t start[2] = {r0, 0}, count[2] = {r1 - r0, NX};
    int *buf = malloc((r1 - r0 + 1) * NX * sizeof *buf);
    for (hsize_t i = 0; i < r1 - r0; i++)
        for (hsize_t j = 0; j < NX; j++)
            buf[i * NX + j] = (int)((r0 + i) * 100 + j);
    hid_t fs = H5Dget_space(d), ms = H5Screate_simple(2, count, NULL);
    H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL);
    herr_t r = H5Dwrite(d, H5T_NATIVE_INT, ms, fs, dxpl, buf);
    H5Sclose(ms);
    H5Sclose(fs);
    free(buf);
    return r;
}

/* Every rank saw its own failure: a message of the connector's error class on its stack. */
static int expect_failure(herr_t r, const char *what)
{
    int ok = r < 0, all = 0;
    if (r < 0) {
        fprintf(stderr, "rank %d: %s failed:\n", rank, what);
        H5Eprint2(H5E_DEFAULT, stderr);
    } else {
        fprintf(stderr, "rank %d: %s succeeded, but the ranks were out of step\n", rank, what);
    }
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (rank == 0 && all)
        printf("failed as expected on every rank\n");
    return all ? 0 : 1;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    if (argc != 3 || nranks < 3) {
        fprintf(stderr, "usage: par_faults mismatch|skip|absent|kill OUT (3 ranks or more)\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    const char *mode = argv[1];
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS), coll = H5Pcreate(H5P_DATASET_XFER);
    CHECK(H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL));
    CHECK(H5Pset_dxpl_mpio(coll, H5FD_MPIO_COLLECTIVE));
    hid_t f = H5Fcreate(argv[2], H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    CHECK(f);
    hid_t a = make(f, "a");
    CHECK(write_band(a, coll));
    CHECK(H5Fflush(f, H5F_SCOPE_GLOBAL));
    int rc = 0;
    double t0 = MPI_Wtime();
    if (strcmp(mode, "mismatch") == 0) {
        if (rank == 0) {
            hid_t s = H5Screate(H5S_SCALAR);
            hid_t at = H5Acreate2(a, "only_rank0", H5T_STD_I32LE, s, H5P_DEFAULT, H5P_DEFAULT);
            CHECK(H5Awrite(at, H5T_NATIVE_INT, &nranks));
            H5Aclose(at);
            H5Sclose(s);
        }
        CHECK(H5Dclose(a));
        H5E_BEGIN_TRY rc = expect_failure(H5Fclose(f), "H5Fclose");
        H5E_END_TRY
    } else if (strcmp(mode, "skip") == 0) {
        hid_t b = make(f, "b");
        herr_t r = rank == 1 ? 0 : write_band(b, coll);
        H5E_BEGIN_TRY
        {
            if (r >= 0)
                r = H5Dclose(b);
            if (r >= 0)
                r = H5Dclose(a);
            if (r >= 0)
                r = H5Fclose(f);
        }
        H5E_END_TRY
        rc = expect_failure(r, "the calls after the skipped H5Dwrite");
    } else if (strcmp(mode, "absent") == 0) {
        herr_t r = -1; /* rank 1 stays away; it counts as failed */
        CHECK(H5Dclose(a));
        if (rank != 1) {
            H5E_BEGIN_TRY r = H5Fclose(f);
            H5E_END_TRY
        }
        rc = expect_failure(r, "H5Fclose");
    } else if (strcmp(mode, "kill") == 0) {
        hid_t b = make(f, "b");
        if (rank == 2)
            raise(SIGKILL);
        write_band(b, coll);
        H5Fclose(f);
        rc = 1; /* never reached: mpirun ends the job */
    }
    if (rank == 0)
        printf("%s: the ranks learnt it after %.1f s\n", mode, MPI_Wtime() - t0);
    /* The file is out of step: its communicator may still have a step pending, so the job
     * ends here rather than in MPI_Finalize. */
    fflush(stdout);
    fflush(stderr);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Abort(MPI_COMM_WORLD, rc);
    return rc;
}
