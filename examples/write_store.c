/* An ordinary HDF5 program: nothing in it knows about Zarr. Run it with
 *   HDF5_VOL_CONNECTOR=nczarr HDF5_PLUGIN_PATH=<dir of libnczarr_vol.so> ./write_store out.zarr
 * and the "file" it writes is an NCZarr store that h5dump, ncdump and zarr-python read. */
#include <hdf5.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    const char *path = argc > 1 ? argv[1] : "example.zarr";
    hid_t file = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    if (file < 0) {
        fprintf(stderr, "cannot create %s\n", path);
        return 1;
    }

    /* A 2-D float dataset in 2x3 chunks, with a fill value and attributes. */
    hsize_t dims[2] = {4, 6}, chunk[2] = {2, 3};
    float temp[4][6];
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 6; j++)
            temp[i][j] = 270.5f + (float)(i * 6 + j);
    hid_t space = H5Screate_simple(2, dims, NULL);
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    float fill = -999.0f;
    H5Pset_chunk(dcpl, 2, chunk);
    H5Pset_fill_value(dcpl, H5T_NATIVE_FLOAT, &fill);
    hid_t dset = H5Dcreate2(file, "temperature", H5T_IEEE_F32LE, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    H5Dwrite(dset, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, temp);

    hid_t str = H5Tcopy(H5T_C_S1);
    const char *units = "K";
    H5Tset_size(str, strlen(units));
    hid_t scalar = H5Screate(H5S_SCALAR);
    hid_t attr = H5Acreate2(dset, "units", str, scalar, H5P_DEFAULT, H5P_DEFAULT);
    H5Awrite(attr, str, units);
    H5Aclose(attr);
    H5Tclose(str);

    double range[2] = {200.0, 350.0};
    hsize_t two = 2;
    hid_t space2 = H5Screate_simple(1, &two, NULL);
    attr = H5Acreate2(dset, "valid_range", H5T_IEEE_F64LE, space2, H5P_DEFAULT, H5P_DEFAULT);
    H5Awrite(attr, H5T_NATIVE_DOUBLE, range);
    H5Aclose(attr);

    /* A group with an integer dataset (no chunks given: the connector picks them). */
    hid_t grp = H5Gcreate2(file, "station", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    int counts[5] = {3, 1, 4, 1, 5};
    hsize_t five = 5;
    hid_t space3 = H5Screate_simple(1, &five, NULL);
    hid_t d2 = H5Dcreate2(grp, "counts", H5T_STD_I32LE, space3, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    H5Dwrite(d2, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, counts);
    int id = 7;
    attr = H5Acreate2(grp, "station_id", H5T_STD_I32LE, scalar, H5P_DEFAULT, H5P_DEFAULT);
    H5Awrite(attr, H5T_NATIVE_INT, &id);
    H5Aclose(attr);

    H5Dclose(d2);
    H5Sclose(space3);
    H5Gclose(grp);
    H5Sclose(space2);
    H5Sclose(scalar);
    H5Dclose(dset);
    H5Pclose(dcpl);
    H5Sclose(space);
    if (H5Fclose(file) < 0)
        return 1;
    printf("wrote %s\n", path);
    return 0;
}
