/* Reads a whole dataset of a store through the connector (H5Dread) and writes its values,
 * C order, little-endian, to a file: the C reader of v3_readers.sh, whose bytes are
 * compared with what zarr-python reads. On failure prints HDF5's error stack (the
 * connector's message) and exits 1. Text and bytes (fixed or variable-length strings, and
 * variable-length sequences of 1-byte integers) are written as records, one per element:
 * uint32 LE length, then the bytes (a fixed string without its trailing NULs), the form
 * v3_make.py writes zarr-python's str and bytes values in.
 * With ROWS, the dataset is read in blocks of ROWS along its first dimension, one H5Dread
 * each (a reader taking a shard in parts).
 * Usage: interop_read_raw STORE DATASET OUTFILE [ROWS] */
#include "connector_check.h"

#include <hdf5.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int put_record(FILE *out, const void *p, size_t len)
{
    unsigned char l[4] = {(unsigned char)len, (unsigned char)(len >> 8), (unsigned char)(len >> 16),
                          (unsigned char)(len >> 24)};
    return fwrite(l, 1, 4, out) == 4 && (len == 0 || fwrite(p, 1, len, out) == len) ? 0 : -1;
}

/* Writes n elements of text type t from buf as records. */
static int write_records(FILE *out, hid_t t, const unsigned char *buf, size_t n)
{
    size_t esz = H5Tget_size(t);
    bool vstr = H5Tis_variable_str(t) > 0, vlen = H5Tget_class(t) == H5T_VLEN;
    for (size_t i = 0; i < n; i++) {
        const unsigned char *e = buf + i * esz;
        int r;
        if (vstr) {
            const char *s = *(char *const *)e;
            r = put_record(out, s, s ? strlen(s) : 0);
        } else if (vlen) {
            const hvl_t *h = (const hvl_t *)e;
            r = put_record(out, h->p, h->len);
        } else {
            size_t len = esz;
            while (len > 0 && e[len - 1] == 0)
                len--;
            r = put_record(out, e, len);
        }
        if (r < 0)
            return -1;
    }
    return 0;
}

/* The whole dataset into buf: one H5Dread, or one per block of rows along dimension 0. */
static herr_t read_all(hid_t d, hid_t mt, hid_t s, hsize_t rows, unsigned char *buf)
{
    hsize_t dims[H5S_MAX_RANK];
    int rank = H5Sget_simple_extent_dims(s, dims, NULL);
    if (rows == 0 || rank < 1)
        return H5Dread(d, mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf);
    hid_t ms = H5Screate_simple(rank, dims, NULL), fs = H5Scopy(s);
    herr_t r = ms >= 0 && fs >= 0 ? 0 : -1;
    for (hsize_t row = 0; row < dims[0] && r >= 0; row += rows) {
        hsize_t start[H5S_MAX_RANK] = {row}, count[H5S_MAX_RANK];
        for (int k = 0; k < rank; k++)
            count[k] = k ? dims[k] : (row + rows < dims[0] ? rows : dims[0] - row);
        r = H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL) < 0 ||
                    H5Sselect_hyperslab(ms, H5S_SELECT_SET, start, NULL, count, NULL) < 0
                ? -1
                : H5Dread(d, mt, ms, fs, H5P_DEFAULT, buf);
    }
    if (ms >= 0)
        H5Sclose(ms);
    if (fs >= 0)
        H5Sclose(fs);
    return r;
}

int main(int argc, char **argv)
{
    if (argc != 4 && argc != 5) {
        fprintf(stderr, "usage: interop_read_raw STORE DATASET OUTFILE [ROWS]\n");
        return 2;
    }
    hsize_t rows = argc == 5 ? (hsize_t)strtoull(argv[4], NULL, 10) : 0;
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
    hid_t super = mt >= 0 && H5Tget_class(mt) == H5T_VLEN ? H5Tget_super(mt) : H5I_INVALID_HID;
    bool text = mt >= 0 && (H5Tget_class(mt) == H5T_STRING || (super >= 0 && H5Tget_size(super) == 1));
    if (buf && read_all(d, mt, s, rows, buf) >= 0) {
        FILE *out = fopen(argv[3], "wb");
        int w = !out   ? -1
                : text ? write_records(out, mt, buf, (size_t)n)
                       : (fwrite(buf, esz, (size_t)n, out) == (size_t)n ? 0 : -1);
        if (out && fclose(out) != 0)
            w = -1;
        if (w == 0)
            rc = 0;
        else
            perror(argv[3]);
        if (H5Tis_variable_str(mt) > 0 || H5Tget_class(mt) == H5T_VLEN)
            H5Treclaim(mt, s, H5P_DEFAULT, buf);
    }
    if (super >= 0)
        H5Tclose(super);
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
