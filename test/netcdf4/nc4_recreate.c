/* A program that creates its output twice, as netCDF-C's own tests do: the first file has
 * a coordinate variable (netCDF-C attaches dimension scales, and HDF5 1.14.6's
 * H5DSattach_scale leaves objects of a non-native file open for good), the second, made
 * over it with NC_CLOBBER, is a classic-model file, which must read back as one.
 *   nc4_recreate OUTPUT */
#include "nc4_util.h"

#include <string.h>

int main(int argc, char **argv)
{
    const char *path = nc4_out_path(argc, argv);
    int nc, dx, vx, vv, fmt;
    NCT(nc_create(path, NC_NETCDF4 | NC_CLOBBER, &nc));
    nc4_show_hdf5_errors();
    NCT(nc_def_dim(nc, "x", 3, &dx));
    NCT(nc_def_var(nc, "x", NC_DOUBLE, 1, &dx, &vx));
    NCT(nc_def_var(nc, "v", NC_INT, 1, &dx, &vv));
    NCT(nc_enddef(nc));
    double xv[3] = {0.5, 1.5, 2.5};
    NCT(nc_put_var_double(nc, vx, xv));
    NCT(nc_close(nc));

    /* the same name again, the first file's objects still open in HDF5 */
    NCT(nc_create(path, NC_NETCDF4 | NC_CLASSIC_MODEL | NC_CLOBBER, &nc));
    NCT(nc_def_dim(nc, "t", NC_UNLIMITED, &dx));
    NCT(nc_def_var(nc, "t", NC_INT, 1, &dx, &vx));
    NCT(nc_put_att_text(nc, NC_GLOBAL, "title", 6, "second"));
    NCT(nc_enddef(nc));
    int tv[2] = {7, 8};
    size_t start = 0, count = 2;
    NCT(nc_put_vara_int(nc, vx, &start, &count, tv));
    NCT(nc_close(nc));

    NCT(nc_open(path, NC_NOWRITE, &nc));
    NCT(nc_inq_format(nc, &fmt));
    int nvars = 0;
    NCT(nc_inq_nvars(nc, &nvars));
    NCT(nc_close(nc));
    if (fmt != NC_FORMAT_NETCDF4_CLASSIC || nvars != 1) {
        fprintf(stderr, "reopened: format %d (want %d, classic model), %d variables (want 1)\n", fmt,
                NC_FORMAT_NETCDF4_CLASSIC, nvars);
        return 1;
    }
    return 0;
}
