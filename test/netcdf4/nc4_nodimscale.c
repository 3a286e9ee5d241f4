/* A file created with NC_NETCDF4 | NC_NODIMSCALE_ATTACH: netCDF-C attaches no dimension
 * scales to the variables and records their dimensions in _Netcdf4Coordinates only.
 *   nc4_nodimscale OUTPUT */
#include "nc4_util.h"

int main(int argc, char **argv)
{
    const char *path = nc4_out_path(argc, argv);
    int nc, g, dx, dy, dt, vx, vv, vw, vg;
    NCT(nc_create(path, NC_NETCDF4 | NC_NODIMSCALE_ATTACH | NC_CLOBBER, &nc));
    nc4_show_hdf5_errors();
    NCT(nc_def_dim(nc, "x", 3, &dx));
    NCT(nc_def_dim(nc, "y", 2, &dy));
    NCT(nc_def_dim(nc, "t", NC_UNLIMITED, &dt));
    NCT(nc_def_var(nc, "x", NC_DOUBLE, 1, &dx, &vx));
    int d3[3] = {dt, dy, dx};
    NCT(nc_def_var(nc, "v", NC_FLOAT, 3, d3, &vv));
    int d1[1] = {dy};
    NCT(nc_def_var(nc, "w", NC_INT, 1, d1, &vw));
    NCT(nc_put_att_text(nc, vv, "units", 1, "K"));
    NCT(nc_def_grp(nc, "g", &g));
    int dg[2] = {dy, dx};
    NCT(nc_def_var(g, "in_group", NC_SHORT, 2, dg, &vg));
    NCT(nc_enddef(nc));
    double xs[3] = {0.5, 1.5, 2.5};
    float v[12];
    for (int i = 0; i < 12; i++)
        v[i] = (float)i / 4.0f;
    int w[2] = {5, 6};
    short gv[6] = {1, 2, 3, 4, 5, 6};
    size_t start[3] = {0, 0, 0}, count[3] = {2, 2, 3};
    NCT(nc_put_var_double(nc, vx, xs));
    NCT(nc_put_vara_float(nc, vv, start, count, v));
    NCT(nc_put_var_int(nc, vw, w));
    NCT(nc_put_var_short(g, vg, gv));
    NCT(nc_close(nc));
    return 0;
}
