/* Opens an existing store read-write and adds one integer attribute to the root group:
 * the smallest modification, to check that a store written by another tool keeps
 * everything else.  Usage: interop_add_attribute STORE NAME VALUE */
#include "connector_check.h"

#include <hdf5.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: interop_add_attribute STORE NAME VALUE\n");
        return 2;
    }
    hid_t f = H5Fopen(argv[1], H5F_ACC_RDWR, H5P_DEFAULT);
    if (f < 0)
        return 1;
    ncz_expect_connector(f, argv[1]);
    int v = atoi(argv[3]);
    hid_t s = H5Screate(H5S_SCALAR);
    hid_t a = H5Acreate2(f, argv[2], H5T_STD_I32LE, s, H5P_DEFAULT, H5P_DEFAULT);
    herr_t w = a >= 0 ? H5Awrite(a, H5T_NATIVE_INT, &v) : -1;
    if (a >= 0)
        H5Aclose(a);
    H5Sclose(s);
    return (H5Fclose(f) < 0 || w < 0) ? 1 : 0;
}
