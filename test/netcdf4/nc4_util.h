/* Helpers for the netCDF-4 test programs of test/netcdf4: every netCDF call is checked and
 * the first failure ends the program with the call, its line and netCDF's message (after
 * HDF5's error stack, when nc4_show_hdf5_errors was called). */
#ifndef NC4_UTIL_H
#define NC4_UTIL_H
#include <hdf5.h>
#include <netcdf.h>
#include <stdio.h>
#include <stdlib.h>

#define NCT(call)                                                                                            \
    do {                                                                                                     \
        int nct_rc_ = (call);                                                                                \
        if (nct_rc_ != NC_NOERR) {                                                                           \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, nc_strerror(nct_rc_));             \
            H5Eset_auto2(H5E_DEFAULT, NULL, NULL); /* not the noise of closing what failed */                \
            exit(1);                                                                                         \
        }                                                                                                    \
    } while (0)

/* The programs take the output path (a plain path: a netCDF-4 file natively, a store when
 * HDF5_VOL_CONNECTOR=nczarr) as their only argument. */
static inline const char *nc4_out_path(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s OUTPUT\n", argv[0]);
        exit(2);
    }
    return argv[1];
}

/* netCDF-C turns HDF5's error printing off when it starts; the test scripts show a
 * program's output only when it fails, and then HDF5's error stack (the connector's
 * messages included) says why. Called after the first netCDF call. */
static inline void nc4_show_hdf5_errors(void)
{
    H5Eset_auto2(H5E_DEFAULT, (H5E_auto2_t)H5Eprint2, stderr);
}

#endif
