/* A plain parallel netCDF-4 program (nothing in it names Zarr): nc_create_par, an unlimited
 * time dimension, each rank writing its band of latitudes of every time step collectively.
 * Natively it writes one netCDF-4 file; with HDF5_VOL_CONNECTOR=nczarr (netCDF-C and HDF5
 * built parallel) one NCZarr store, which netCDF-C's own NCZarr reads back.
 *   mpirun -n 4 netcdf_par_write out.zarr */
#include <mpi.h>
#include <netcdf.h>
#include <netcdf_par.h>
#include <stdio.h>
#include <stdlib.h>

#define NT   4
#define NLAT 90
#define NLON 180

#define TRY(call)                                                                                            \
    do {                                                                                                     \
        int e_ = (call);                                                                                     \
        if (e_ != NC_NOERR) {                                                                                \
            fprintf(stderr, "%s: %s\n", #call, nc_strerror(e_));                                             \
            MPI_Abort(MPI_COMM_WORLD, 1);                                                                    \
        }                                                                                                    \
    } while (0)

int main(int argc, char **argv)
{
    int rank, nranks, ncid, dims[3], var;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    const char *out = argc > 1 ? argv[1] : "netcdf_par_write.zarr";

    TRY(nc_create_par(out, NC_NETCDF4 | NC_CLOBBER, MPI_COMM_WORLD, MPI_INFO_NULL, &ncid));
    TRY(nc_def_dim(ncid, "time", NC_UNLIMITED, &dims[0]));
    TRY(nc_def_dim(ncid, "lat", NLAT, &dims[1]));
    TRY(nc_def_dim(ncid, "lon", NLON, &dims[2]));
    TRY(nc_def_var(ncid, "tas", NC_FLOAT, 3, dims, &var));
    size_t chunk[3] = {1, 32, 90};
    TRY(nc_def_var_chunking(ncid, var, NC_CHUNKED, chunk));
    TRY(nc_def_var_deflate(ncid, var, 1, 1, 4));
    TRY(nc_put_att_text(ncid, var, "units", 1, "K"));
    TRY(nc_enddef(ncid));
    TRY(nc_var_par_access(ncid, var, NC_COLLECTIVE));

    size_t l0 = (size_t)rank * NLAT / nranks, l1 = (size_t)(rank + 1) * NLAT / nranks;
    float *buf = malloc((l1 - l0) * NLON * sizeof *buf + 1);
    for (size_t t = 0; t < NT; t++) {
        for (size_t i = 0; i < l1 - l0; i++)
            for (size_t j = 0; j < NLON; j++)
                buf[i * NLON + j] = 250.0f + (float)t + (float)(l0 + i) * 0.5f + (float)j * 0.01f;
        size_t start[3] = {t, l0, 0}, count[3] = {1, l1 - l0, NLON};
        TRY(nc_put_vara_float(ncid, var, start, count, buf));
    }
    free(buf);
    TRY(nc_close(ncid));
    if (rank == 0)
        printf("%s: %d ranks wrote %d steps of %d x %d\n", out, nranks, NT, NLAT, NLON);
    MPI_Finalize();
    return 0;
}
