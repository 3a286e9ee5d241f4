/* One run of the MPI write benchmark (bench/bench_mpi.sh drives it): every rank writes its
 * band of rows of a float32 array (16384 columns, chunks of 512 x 512, 1 MiB) with one
 * collective H5Dwrite, raw or shuffle+deflate, natively (MPI-IO into one file) or through
 * the connector (HDF5_VOL_CONNECTOR decides; this program does not know). Rank 0 prints the
 * seconds from H5Fcreate to the end of H5Fclose on the slowest rank, and the largest peak
 * RSS of a rank (KiB).
 *   bench_mpi OUT raw|deflate MIB */
#include <hdf5.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#define NX 16384
#define CH 512

int main(int argc, char **argv)
{
    int rank, nranks;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    if (argc != 4) {
        fprintf(stderr, "usage: bench_mpi OUT raw|deflate MIB\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int deflate = strcmp(argv[2], "deflate") == 0;
    hsize_t ny = (hsize_t)atol(argv[3]) * 1024 * 1024 / (NX * sizeof(float));
    hsize_t r0 = (hsize_t)rank * ny / (hsize_t)nranks, r1 = (hsize_t)(rank + 1) * ny / (hsize_t)nranks;
    float *buf = malloc((r1 - r0) * NX * sizeof *buf + 1);
    /* smooth fields with noise in the low bits, as simulation output: deflate gets ~2x */
    unsigned s = 12345u + (unsigned)rank;
    for (hsize_t i = 0; i < r1 - r0; i++)
        for (hsize_t j = 0; j < NX; j++) {
            s = s * 1664525u + 1013904223u;
            buf[i * NX + j] = 280.0f + (float)((r0 + i) % 1000) * 0.01f + (float)(j % 700) * 0.001f +
                              (float)(s >> 20) * 1e-6f;
        }
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL);
    hid_t f = H5Fcreate(argv[1], H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    hsize_t dims[2] = {ny, NX}, ch[2] = {CH, CH}, start[2] = {r0, 0}, count[2] = {r1 - r0, NX};
    hid_t sp = H5Screate_simple(2, dims, NULL), dcpl = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_chunk(dcpl, 2, ch);
    if (deflate) {
        H5Pset_shuffle(dcpl);
        H5Pset_deflate(dcpl, 1);
    }
    hid_t d = H5Dcreate2(f, "data", H5T_IEEE_F32LE, sp, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    hid_t ms = H5Screate_simple(2, count, NULL), xfer = H5Pcreate(H5P_DATASET_XFER);
    H5Sselect_hyperslab(sp, H5S_SELECT_SET, start, NULL, count, NULL);
    H5Pset_dxpl_mpio(xfer, H5FD_MPIO_COLLECTIVE);
    herr_t w = H5Dwrite(d, H5T_NATIVE_FLOAT, ms, sp, xfer, buf);
    H5Dclose(d);
    herr_t c = H5Fclose(f);
    MPI_Barrier(MPI_COMM_WORLD);
    double t = MPI_Wtime() - t0;
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    long rss = ru.ru_maxrss, maxrss = 0;
    int ok = f >= 0 && w >= 0 && c >= 0, allok = 0;
    MPI_Reduce(&rss, &maxrss, 1, MPI_LONG, MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_Reduce(&ok, &allok, 1, MPI_INT, MPI_MIN, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("%.4f %ld %s\n", t, maxrss, allok ? "ok" : "FAILED");
    H5Pclose(xfer);
    H5Pclose(dcpl);
    H5Pclose(fapl);
    H5Sclose(ms);
    H5Sclose(sp);
    free(buf);
    MPI_Finalize();
    return allok || rank ? 0 : 1;
}
