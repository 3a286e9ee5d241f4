/* An ordinary netCDF-4 program: nothing in it knows about Zarr or the connector. Run it
 * natively and it writes a netCDF-4 (HDF5) file; run it with
 *   HDF5_VOL_CONNECTOR=nczarr HDF5_PLUGIN_PATH=<dir of libnczarr_vol.so> ./netcdf_write out.zarr
 * and netCDF-C's HDF5 layer writes an NCZarr store through the connector, which ncdump
 * reads as 'file:///abs/out.zarr#mode=nczarr,file' (netCDF-C's own NCZarr). */
#include <netcdf.h>
#include <stdio.h>
#include <string.h>

#define CHECK(call)                                                                                          \
    do {                                                                                                     \
        int rc_ = (call);                                                                                    \
        if (rc_ != NC_NOERR) {                                                                               \
            fprintf(stderr, "%s: %s\n", #call, nc_strerror(rc_));                                            \
            return 1;                                                                                        \
        }                                                                                                    \
    } while (0)

/* A text attribute from a C string. */
static int put_text(int nc, int var, const char *name, const char *value)
{
    return nc_put_att_text(nc, var, name, strlen(value), value);
}

int main(int argc, char **argv)
{
    const char *path = argc > 1 ? argv[1] : "example_netcdf.zarr";
    int nc, dlat, dlon, dtime, vlat, vlon, vtime, vtemp;
    CHECK(nc_create(path, NC_NETCDF4 | NC_CLOBBER, &nc));

    /* Dimensions: two fixed, one unlimited (records are appended below). */
    CHECK(nc_def_dim(nc, "lat", 3, &dlat));
    CHECK(nc_def_dim(nc, "lon", 4, &dlon));
    CHECK(nc_def_dim(nc, "time", NC_UNLIMITED, &dtime));

    /* Coordinate variables (named like their dimension) and a data variable over all three. */
    CHECK(nc_def_var(nc, "lat", NC_FLOAT, 1, &dlat, &vlat));
    CHECK(nc_def_var(nc, "lon", NC_FLOAT, 1, &dlon, &vlon));
    CHECK(nc_def_var(nc, "time", NC_DOUBLE, 1, &dtime, &vtime));
    int dims[3] = {dtime, dlat, dlon};
    CHECK(nc_def_var(nc, "temperature", NC_FLOAT, 3, dims, &vtemp));

    /* Attributes: units, a fill value, and global metadata. */
    CHECK(put_text(nc, vlat, "units", "degrees_north"));
    CHECK(put_text(nc, vlon, "units", "degrees_east"));
    CHECK(put_text(nc, vtime, "units", "hours since 2024-01-01"));
    CHECK(put_text(nc, vtemp, "units", "K"));
    float fill = -999.0f;
    CHECK(nc_def_var_fill(nc, vtemp, NC_FILL, &fill));
    CHECK(put_text(nc, NC_GLOBAL, "title", "netCDF-4 through nczarr"));
    CHECK(nc_enddef(nc));

    float lat[3] = {-10.0f, 0.0f, 10.0f}, lon[4] = {0.0f, 90.0f, 180.0f, 270.0f};
    CHECK(nc_put_var_float(nc, vlat, lat));
    CHECK(nc_put_var_float(nc, vlon, lon));
    /* Two records, one write each: the unlimited dimension grows to 2. */
    for (size_t t = 0; t < 2; t++) {
        double hours = 6.0 * (double)t;
        float temp[3][4];
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 4; j++)
                temp[i][j] = 280.0f + (float)t + 0.5f * (float)(i * 4 + j);
        size_t start[3] = {t, 0, 0}, count[3] = {1, 3, 4};
        CHECK(nc_put_var1_double(nc, vtime, &t, &hours));
        CHECK(nc_put_vara_float(nc, vtemp, start, count, &temp[0][0]));
    }
    CHECK(nc_close(nc));
    return 0;
}
