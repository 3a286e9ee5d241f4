/* Writes a store with a dataset of variable-length sequences of int32 ("ragged": element i
 * holds i numbers 10*i+k) and an ordinary int32 dataset ("plain"), for vlen_readers.sh. */
#include "connector_check.h"

#include <hdf5.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    if (argc < 2)
        return 2;
    hid_t f = H5Fcreate(argv[1], H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    if (f < 0)
        return 1;
    ncz_expect_connector(f, argv[1]);
    hsize_t n = 5, c = 2;
    hid_t s = H5Screate_simple(1, &n, NULL), dcpl = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_chunk(dcpl, 1, &c);
    hid_t t = H5Tvlen_create(H5T_NATIVE_INT);
    hvl_t w[5];
    int plain[5];
    for (int i = 0; i < 5; i++) {
        w[i].len = (size_t)i;
        w[i].p = malloc((size_t)(i + 1) * sizeof(int));
        for (int k = 0; k < i; k++)
            ((int *)w[i].p)[k] = 10 * i + k;
        plain[i] = i * i;
    }
    hid_t d = H5Dcreate2(f, "ragged", t, s, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    int bad = d < 0 || H5Dwrite(d, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, w) < 0;
    H5Dclose(d);
    d = H5Dcreate2(f, "plain", H5T_STD_I32LE, s, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    bad |= d < 0 || H5Dwrite(d, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, plain) < 0;
    H5Dclose(d);
    H5Treclaim(t, s, H5P_DEFAULT, w);
    H5Tclose(t);
    H5Sclose(s);
    H5Pclose(dcpl);
    bad |= H5Fclose(f) < 0;
    if (!bad)
        printf("wrote %s\n", argv[1]);
    return bad;
}
