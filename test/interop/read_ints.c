/* Reads one int32 dataset of a store through the connector and prints its values, one
 * line, comma-separated; on failure prints HDF5's error stack (the connector's message)
 * and exits 1. The connector's side of damaged_peers.py, through the HDF5 API rather than
 * h5dump, which visits every object of a file before it dumps one.
 * Usage: interop_read_ints STORE DATASET */
#include "connector_check.h"

#include <hdf5.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: interop_read_ints STORE DATASET\n");
        return 2;
    }
    hid_t f = H5Fopen(argv[1], H5F_ACC_RDONLY, H5P_DEFAULT);
    if (f < 0)
        return 1;
    ncz_expect_connector(f, argv[1]);
    int rc = 1;
    hid_t d = H5Dopen2(f, argv[2], H5P_DEFAULT);
    hid_t s = d >= 0 ? H5Dget_space(d) : H5I_INVALID_HID;
    hssize_t n = s >= 0 ? H5Sget_simple_extent_npoints(s) : -1;
    int *v = n >= 0 ? malloc((size_t)n * sizeof *v + 1) : NULL;
    if (v && H5Dread(d, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) >= 0) {
        for (hssize_t i = 0; i < n; i++)
            printf("%s%d", i ? "," : "", v[i]);
        printf("\n");
        rc = 0;
    }
    free(v);
    if (s >= 0)
        H5Sclose(s);
    if (d >= 0)
        H5Dclose(d);
    H5Fclose(f);
    return rc;
}
