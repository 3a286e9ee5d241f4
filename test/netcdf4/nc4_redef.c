/* nc_redef after data was written: new dimensions (one unlimited), variables, attributes
 * and a group; a coordinate variable added later for a dimension that was so far only a
 * dimension (netCDF-4 replaces its dimension-only scale); attributes changed and deleted.
 *   nc4_redef OUTPUT */
#include "nc4_util.h"

int main(int argc, char **argv)
{
    const char *path = nc4_out_path(argc, argv);
    int nc, dx, dy, dt, va, vb, vc, vy, g, vg;
    NCT(nc_create(path, NC_NETCDF4 | NC_CLOBBER, &nc));
    nc4_show_hdf5_errors();
    NCT(nc_def_dim(nc, "x", 4, &dx));
    NCT(nc_def_var(nc, "a", NC_INT, 1, &dx, &va));
    NCT(nc_put_att_text(nc, va, "note", 5, "first"));
    NCT(nc_put_att_text(nc, NC_GLOBAL, "history", 7, "created"));
    NCT(nc_enddef(nc));
    int av[4] = {1, 2, 3, 4};
    NCT(nc_put_var_int(nc, va, av));

    /* first redefinition: a dimension, a 2-D variable over it, an unlimited dimension */
    NCT(nc_redef(nc));
    NCT(nc_def_dim(nc, "y", 2, &dy));
    int dyx[2] = {dy, dx};
    NCT(nc_def_var(nc, "b", NC_DOUBLE, 2, dyx, &vb));
    NCT(nc_def_dim(nc, "t", NC_UNLIMITED, &dt));
    NCT(nc_def_var(nc, "c", NC_FLOAT, 1, &dt, &vc));
    NCT(nc_put_att_text(nc, va, "units", 1, "m"));
    NCT(nc_put_att_text(nc, NC_GLOBAL, "history", 16, "created, redef 1"));
    NCT(nc_enddef(nc));
    double bv[8] = {0, 1, 2, 3, 4, 5, 6, 7};
    float cv[3] = {0.5f, 1.5f, 2.5f};
    size_t c0 = 0, c3 = 3;
    NCT(nc_put_var_double(nc, vb, bv));
    NCT(nc_put_vara_float(nc, vc, &c0, &c3, cv));

    /* second redefinition: y gets its coordinate variable, a group, a deleted attribute */
    NCT(nc_redef(nc));
    NCT(nc_def_var(nc, "y", NC_INT, 1, &dy, &vy));
    NCT(nc_put_att_text(nc, vy, "axis", 1, "Y"));
    NCT(nc_del_att(nc, va, "note"));
    NCT(nc_def_grp(nc, "later", &g));
    int dgt[2] = {dt, dy};
    NCT(nc_def_var(g, "gv", NC_SHORT, 2, dgt, &vg));
    NCT(nc_put_att_text(g, NC_GLOBAL, "added", 3, "yes"));
    NCT(nc_enddef(nc));
    int yv[2] = {100, 200};
    short gv[6] = {1, 2, 3, 4, 5, 6};
    size_t gs[2] = {0, 0}, gc[2] = {3, 2};
    NCT(nc_put_var_int(nc, vy, yv));
    NCT(nc_put_vara_short(g, vg, gs, gc, gv));
    NCT(nc_close(nc));
    return 0;
}
