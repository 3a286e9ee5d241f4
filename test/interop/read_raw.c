/* Reads a whole dataset of a store through the connector (H5Dread) and writes its values,
 * C order, little-endian, to a file: the C reader of v3_readers.sh, whose bytes are
 * compared with what zarr-python reads. On failure prints HDF5's error stack (the
 * connector's message) and exits 1.
 * Usage: interop_read_raw STORE DATASET OUTFILE */
#include "connector_check.h"

#include <hdf5.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: interop_read_raw STORE DATASET OUTFILE\n");
        return 2;
    }
    hid_t f = H5Fopen(argv[1], H5F_ACC_RDONLY, H5P_DEFAULT);
    if (f < 0)
        return 1;
    ncz_expect_connector(f, argv[1]);
    int rc = 1;
    hid_t d = H5Dopen2(f, argv[2], H5P_DEFAULT);
    hid_t s = d >= 0 ? H5Dget_space(d) : H5I_INVALID_HID, ft = d >= 0 ? H5Dget_type(d) : H5I_INVALID_HID;
    hid_t mt = ft >= 0 ? H5Tcopy(ft) : H5I_INVALID_HID;
    hssize_t n = s >= 0 ? H5Sget_simple_extent_npoints(s) : -1;
    size_t esz = mt >= 0 ? H5Tget_size(mt) : 0;
    /* integers, floats and enums (h5py's bool) in little-endian order */
    if (mt >= 0 && H5Tget_class(mt) != H5T_ENUM && H5Tget_order(mt) != H5T_ORDER_NONE)
        H5Tset_order(mt, H5T_ORDER_LE);
    unsigned char *buf = n >= 0 && esz ? malloc((size_t)n * esz + 1) : NULL;
    if (buf && H5Dread(d, mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) >= 0) {
        FILE *out = fopen(argv[3], "wb");
        if (out && fwrite(buf, esz, (size_t)n, out) == (size_t)n && fclose(out) == 0)
            rc = 0;
        else
            perror(argv[3]);
    }
    free(buf);
    if (mt >= 0)
        H5Tclose(mt);
    if (ft >= 0)
        H5Tclose(ft);
    if (s >= 0)
        H5Sclose(s);
    if (d >= 0)
        H5Dclose(d);
    H5Fclose(f);
    return rc;
}
