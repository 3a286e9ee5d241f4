/* Renames inside a store written by examples/write_store, as netCDF-C does for every
 * variable and group rename (H5Lmove), and reads the moved values back through HDF5.
 * Usage: rename_store STORE (the connector comes from HDF5_VOL_CONNECTOR). */
#include "connector_check.h"

#include <hdf5.h>
#include <stdio.h>

#define CHECK(x)                                                                                             \
    do {                                                                                                     \
        if ((x) < 0) {                                                                                       \
            fprintf(stderr, "rename_store: %s failed at line %d\n", #x, __LINE__);                           \
            return 1;                                                                                        \
        }                                                                                                    \
    } while (0)

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: rename_store STORE\n");
        return 2;
    }
    hid_t f = H5Fopen(argv[1], H5F_ACC_RDWR, H5P_DEFAULT);
    CHECK(f);
    ncz_expect_connector(f, argv[1]);
    CHECK(H5Lmove(f, "temperature", f, "temp", H5P_DEFAULT, H5P_DEFAULT));
    CHECK(H5Lmove(f, "station", f, "site", H5P_DEFAULT, H5P_DEFAULT));
    float t[24];
    hid_t d = H5Dopen2(f, "temp", H5P_DEFAULT);
    CHECK(d);
    CHECK(H5Dread(d, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, t));
    CHECK(H5Dclose(d));
    for (int i = 0; i < 24; i++)
        if (t[i] != 270.5f + (float)i) {
            fprintf(stderr, "rename_store: temp[%d] = %g after the rename\n", i, (double)t[i]);
            return 1;
        }
    CHECK(H5Fclose(f));
    return 0;
}
