/* Grows unlimited dimensions in several writes within one create session (nc_open of a
 * store's plain path would look for an HDF5 file): records appended one by one with
 * nc_sync between them, a second unlimited dimension grown by pieces of different sizes, a
 * variable with two unlimited dimensions written in blocks, and a write past the end that
 * leaves fill values behind.
 *   nc4_grow OUTPUT */
#include "nc4_util.h"

int main(int argc, char **argv)
{
    const char *path = nc4_out_path(argc, argv);
    int nc, dt, dr, dx, vt, vv, vr, vboth, g, dstep, vstep;
    NCT(nc_create(path, NC_NETCDF4 | NC_CLOBBER, &nc));
    nc4_show_hdf5_errors();
    NCT(nc_def_dim(nc, "time", NC_UNLIMITED, &dt));
    NCT(nc_def_dim(nc, "rec", NC_UNLIMITED, &dr));
    NCT(nc_def_dim(nc, "x", 3, &dx));
    NCT(nc_def_var(nc, "time", NC_DOUBLE, 1, &dt, &vt));
    int d2[2] = {dt, dx};
    NCT(nc_def_var(nc, "v", NC_FLOAT, 2, d2, &vv));
    NCT(nc_def_var(nc, "r", NC_INT, 1, &dr, &vr));
    int db[2] = {dt, dr};
    NCT(nc_def_var(nc, "both", NC_SHORT, 2, db, &vboth));
    NCT(nc_def_grp(nc, "sub", &g));
    NCT(nc_def_dim(g, "step", NC_UNLIMITED, &dstep));
    int ds[2] = {dstep, dt};
    NCT(nc_def_var(g, "per_step", NC_INT, 2, ds, &vstep));
    NCT(nc_enddef(nc));

    /* one record at a time, synced every other record */
    for (size_t i = 0; i < 5; i++) {
        double t = 0.5 * (double)i;
        float row[3] = {(float)i, (float)i + 0.25f, (float)i + 0.5f};
        size_t s1 = i, start[2] = {i, 0}, count[2] = {1, 3};
        NCT(nc_put_var1_double(nc, vt, &s1, &t));
        NCT(nc_put_vara_float(nc, vv, start, count, row));
        if (i % 2 == 1)
            NCT(nc_sync(nc));
    }
    /* rec grown by pieces of 2, 3 and 1 */
    int rv[6] = {1, 2, 3, 4, 5, 6};
    size_t rs = 0, pieces[3] = {2, 3, 1};
    for (int p = 0; p < 3; p++) {
        NCT(nc_put_vara_int(nc, vr, &rs, &pieces[p], rv + rs));
        rs += pieces[p];
        NCT(nc_sync(nc));
    }
    /* two unlimited dimensions, two blocks */
    short b1[4] = {11, 12, 21, 22}, b2[3] = {33, 34, 35};
    size_t bs1[2] = {0, 0}, bc1[2] = {2, 2}, bs2[2] = {2, 1}, bc2[2] = {1, 3};
    NCT(nc_put_vara_short(nc, vboth, bs1, bc1, b1));
    NCT(nc_put_vara_short(nc, vboth, bs2, bc2, b2));
    NCT(nc_sync(nc));
    /* past the end: time grows to 8, records 5 and 6 stay fill */
    double t7 = 9.75;
    size_t s7 = 7;
    NCT(nc_put_var1_double(nc, vt, &s7, &t7));
    /* the group's own unlimited dimension, against the root's */
    int ps[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    size_t ss[2] = {0, 0}, sc[2] = {1, 8};
    NCT(nc_put_vara_int(g, vstep, ss, sc, ps));
    ss[0] = 2;
    sc[1] = 4;
    NCT(nc_put_vara_int(g, vstep, ss, sc, ps + 4));
    NCT(nc_close(nc));
    return 0;
}
