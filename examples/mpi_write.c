/* A plain MPI HDF5 program (nothing in it names Zarr): every rank writes its band of rows
 * of a 2-D float dataset with one collective H5Dwrite; the bands do not fall on chunk
 * boundaries, so neighbouring ranks share chunks. Natively it writes one HDF5 file through
 * MPI-IO; with HDF5_VOL_CONNECTOR=nczarr (and a parallel HDF5) one Zarr store, each shared
 * chunk merged and compressed once, by one rank.
 *   mpirun -n 4 mpi_write out.zarr */
#include <hdf5.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define NY 1000
#define NX 800

int main(int argc, char **argv)
{
    int rank, nranks, rc = 1;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    const char *out = argc > 1 ? argv[1] : "mpi_write.zarr";

    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL);
    hid_t file = H5Fcreate(out, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    if (file < 0)
        goto done;

    /* metadata calls: every rank, the same arguments */
    hsize_t dims[2] = {NY, NX}, chunk[2] = {128, 200};
    hid_t space = H5Screate_simple(2, dims, NULL), dcpl = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_chunk(dcpl, 2, chunk);
    H5Pset_shuffle(dcpl);
    H5Pset_deflate(dcpl, 4);
    hid_t dset = H5Dcreate2(file, "temperature", H5T_IEEE_F32LE, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);

    /* raw data: this rank's rows, collectively */
    hsize_t r0 = (hsize_t)rank * NY / nranks, r1 = (hsize_t)(rank + 1) * NY / nranks;
    hsize_t start[2] = {r0, 0}, count[2] = {r1 - r0, NX};
    float *buf = malloc((r1 - r0) * NX * sizeof *buf + 1);
    for (hsize_t i = 0; i < r1 - r0; i++)
        for (hsize_t j = 0; j < NX; j++)
            buf[i * NX + j] = 273.15f + (float)(r0 + i) * 0.01f + (float)j * 0.001f;
    hid_t mem = H5Screate_simple(2, count, NULL), xfer = H5Pcreate(H5P_DATASET_XFER);
    H5Sselect_hyperslab(space, H5S_SELECT_SET, start, NULL, count, NULL);
    H5Pset_dxpl_mpio(xfer, H5FD_MPIO_COLLECTIVE);
    herr_t w = H5Dwrite(dset, H5T_NATIVE_FLOAT, mem, space, xfer, buf);
    free(buf);

    H5Pclose(xfer);
    H5Sclose(mem);
    H5Dclose(dset);
    H5Pclose(dcpl);
    H5Sclose(space);
    if (H5Fclose(file) >= 0 && w >= 0)
        rc = 0;
    if (rank == 0)
        printf("%s: %d ranks wrote %d x %d floats%s\n", out, nranks, NY, NX, rc ? " (FAILED)" : "");
done:
    H5Pclose(fapl);
    MPI_Finalize();
    return rc;
}
