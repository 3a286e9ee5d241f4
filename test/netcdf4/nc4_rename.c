/* Renames variables, dimensions, attributes and groups (nc_rename_*) before closing, in
 * define mode and after data was written, as netCDF-4 allows: coordinate variables and
 * their dimensions together (in either order), a dimension without a coordinate variable,
 * data variables, a variable's and a global attribute, a group and a variable inside it.
 *   nc4_rename OUTPUT */
#include "nc4_util.h"

int main(int argc, char **argv)
{
    const char *path = nc4_out_path(argc, argv);
    int nc, g, dx, dy, dt, dz, vx, vy, vtemp, vlonely, vz, vdata;
    NCT(nc_create(path, NC_NETCDF4 | NC_CLOBBER, &nc));
    nc4_show_hdf5_errors();
    NCT(nc_def_dim(nc, "x", 3, &dx));
    NCT(nc_def_dim(nc, "y", 2, &dy));
    NCT(nc_def_dim(nc, "t", NC_UNLIMITED, &dt));
    NCT(nc_def_var(nc, "x", NC_FLOAT, 1, &dx, &vx));
    int d3[3] = {dt, dy, dx};
    NCT(nc_def_var(nc, "temp", NC_FLOAT, 3, d3, &vtemp));
    NCT(nc_def_var(nc, "y", NC_INT, 1, &dy, &vy));
    NCT(nc_def_var(nc, "lonely", NC_SHORT, 1, &dy, &vlonely));
    NCT(nc_put_att_text(nc, vtemp, "units", 1, "K"));
    NCT(nc_put_att_text(nc, NC_GLOBAL, "title", 6, "before"));
    NCT(nc_put_att_text(nc, vlonely, "comment", 4, "stay"));
    NCT(nc_def_grp(nc, "g", &g));
    NCT(nc_def_dim(g, "z", 2, &dz));
    NCT(nc_def_var(g, "z", NC_INT, 1, &dz, &vz));
    int d2[2] = {dz, dx};
    NCT(nc_def_var(g, "data", NC_DOUBLE, 2, d2, &vdata));
    NCT(nc_put_att_text(g, vdata, "long_name", 7, "payload"));

    /* define mode: a data variable, an attribute, and coordinate variables with their
     * dimensions (still coordinate variables). In data mode, netCDF-C 4.10.1 loses the
     * data of a coordinate variable renamed with its dimension, in netCDF-4 files too. */
    NCT(nc_rename_var(nc, vlonely, "lonely_renamed"));
    NCT(nc_rename_att(nc, vlonely, "comment", "remark"));
    NCT(nc_rename_dim(nc, dx, "lon"));
    NCT(nc_rename_var(nc, vx, "lon"));
    NCT(nc_rename_var(g, vz, "zz"));
    NCT(nc_rename_dim(g, dz, "zz"));
    NCT(nc_enddef(nc));

    float xs[3] = {1.5f, 2.5f, 3.5f}, temp[12];
    int ys[2] = {10, 20}, zs[2] = {7, 8};
    short lonely[2] = {-1, -2};
    double data[6] = {0.5, 1.5, 2.5, 3.5, 4.5, 5.5};
    for (int i = 0; i < 12; i++)
        temp[i] = (float)i;
    size_t start[3] = {0, 0, 0}, count[3] = {2, 2, 3};
    NCT(nc_put_var_float(nc, vx, xs));
    NCT(nc_put_vara_float(nc, vtemp, start, count, temp));
    NCT(nc_put_var_int(nc, vy, ys));
    NCT(nc_put_var_short(nc, vlonely, lonely));
    NCT(nc_put_var_int(g, vz, zs));
    NCT(nc_put_var_double(g, vdata, data));

    /* data mode, after the data was written */
    NCT(nc_rename_var(nc, vtemp, "temperature"));
    NCT(nc_rename_att(nc, vtemp, "units", "unit"));
    NCT(nc_rename_att(nc, NC_GLOBAL, "title", "headline"));
    NCT(nc_rename_dim(nc, dt, "time"));
    NCT(nc_rename_grp(g, "renamed_group"));
    NCT(nc_rename_var(g, vdata, "payload"));
    NCT(nc_close(nc));
    return 0;
}
