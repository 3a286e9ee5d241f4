/* A netCDF-C program run with HDF5_VOL_CONNECTOR=nczarr: the connector is loaded into a
 * process that also holds netCDF-C's own NCZarr code. The sanitizer build links this
 * program with the sanitizers, so that the connector's code runs checked inside a netCDF-C
 * process (netCDF-C's installed tools cannot run with a preloaded ASan runtime: they
 * deadlock at exit in p11-kit's destructor, with or without the connector).
 *   netcdf_program create PATH   nc_create of a plain path (reaches the connector)
 *   netcdf_program open URL      nc_open + a walk of what it finds
 *   netcdf_program append PATH   nc_open(NC_WRITE) of what create wrote, one more record of
 *                                "v" along the unlimited dimension, an attribute, nc_close
 * Exit status: 0 when netCDF-C succeeded, 1 when it reported an error (both are fine for
 * the test, which only rejects a crash). */
#include <netcdf.h>
#include <stdio.h>
#include <string.h>

static int report(const char *what, int rc)
{
    if (rc != NC_NOERR)
        printf("%s: %s\n", what, nc_strerror(rc));
    return rc != NC_NOERR;
}

static int do_create(const char *path)
{
    int nc, dx = -1, dt = -1, v, rc;
    if (report("nc_create", nc_create(path, NC_NETCDF4 | NC_CLOBBER, &nc)))
        return 1;
    rc = nc_def_dim(nc, "x", 4, &dx) || nc_def_dim(nc, "t", NC_UNLIMITED, &dt);
    int dims[2] = {dt, dx};
    if (!rc)
        rc = nc_def_var(nc, "v", NC_FLOAT, 2, dims, &v);
    if (!rc)
        rc = nc_put_att_text(nc, NC_GLOBAL, "title", 4, "test");
    if (!rc) {
        float vals[4] = {1, 2, 3, 4};
        size_t start[2] = {0, 0}, count[2] = {1, 4};
        rc = nc_put_vara_float(nc, v, start, count, vals);
    }
    int crc = nc_close(nc);
    return report("define/write", rc) | report("nc_close", crc);
}

static int do_open(const char *url)
{
    int nc, nvars = 0, natts = 0;
    if (report("nc_open", nc_open(url, NC_NOWRITE, &nc)))
        return 1;
    int rc = nc_inq(nc, NULL, &nvars, &natts, NULL);
    printf("%d variables, %d global attributes\n", nvars, natts);
    for (int v = 0; !rc && v < nvars; v++) {
        char name[NC_MAX_NAME + 1];
        rc = nc_inq_varname(nc, v, name);
    }
    int crc = nc_close(nc);
    return report("walk", rc) | report("nc_close", crc);
}

static int do_append(const char *path)
{
    int nc, v, dt, rc;
    size_t nrec = 0;
    if (report("nc_open", nc_open(path, NC_WRITE, &nc)))
        return 1;
    rc = nc_inq_varid(nc, "v", &v) || nc_inq_dimid(nc, "t", &dt) || nc_inq_dimlen(nc, dt, &nrec);
    if (!rc) {
        float vals[4] = {5, 6, 7, 8};
        size_t start[2] = {nrec, 0}, count[2] = {1, 4};
        rc = nc_put_vara_float(nc, v, start, count, vals);
    }
    if (!rc)
        rc = nc_put_att_text(nc, NC_GLOBAL, "history", 8, "appended");
    int crc = nc_close(nc);
    printf("appended record %zu\n", nrec);
    return report("append", rc) | report("nc_close", crc);
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "create") == 0)
        return do_create(argv[2]);
    if (argc == 3 && strcmp(argv[1], "open") == 0)
        return do_open(argv[2]);
    if (argc == 3 && strcmp(argv[1], "append") == 0)
        return do_append(argv[2]);
    fprintf(stderr, "usage: netcdf_program create PATH | open URL | append PATH\n");
    return 2;
}
