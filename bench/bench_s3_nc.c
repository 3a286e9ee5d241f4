/* The netCDF-C side of bench/bench_s3.sh: netCDF-C's own NCZarr over its own S3 client,
 * the same array as bench_s3_h5 write/read (run without the connector, through the test
 * server's wrapper $NCZ_S3_NETCDF, on https://host:port/bucket/key#mode=nczarr,s3).
 *
 *   bench_s3_nc write URL NCHUNK ELEMS   one float32 variable of NCHUNK chunks of ELEMS
 *                                        values, nc_create + nc_put_var_float + nc_close
 *   bench_s3_nc read URL                 nc_open + nc_get_var_float + nc_close, checked
 *
 * Prints "seconds=T" (create or open up to and including close). Not a test. */
#include <netcdf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* As bench_s3_h5.c: every element holds its index, as float32 can. */
static float value_at(size_t i)
{
    return (float)(i % 16777216u);
}

static int fail(const char *what, const char *url, int st)
{
    fprintf(stderr, "bench_s3_nc: %s %s: %s\n", what, url, nc_strerror(st));
    return 1;
}

int main(int argc, char **argv)
{
    int nc, dim, var, st;
    if (argc == 5 && !strcmp(argv[1], "write")) {
        const char *url = argv[2];
        size_t nchunk = (size_t)atol(argv[3]), elems = (size_t)atol(argv[4]), n = nchunk * elems;
        float *buf = malloc(n * sizeof *buf);
        if (!buf || n == 0)
            return fail("write", url, NC_ENOMEM);
        for (size_t i = 0; i < n; i++)
            buf[i] = value_at(i);
        double t0 = now_s();
        if ((st = nc_create(url, NC_NETCDF4 | NC_CLOBBER, &nc)) || (st = nc_def_dim(nc, "x", n, &dim)) ||
            (st = nc_def_var(nc, "data", NC_FLOAT, 1, &dim, &var)) ||
            (st = nc_def_var_chunking(nc, var, NC_CHUNKED, &elems)) ||
            (st = nc_def_var_fill(nc, var, NC_NOFILL, NULL)) || (st = nc_enddef(nc)) ||
            (st = nc_put_var_float(nc, var, buf)) || (st = nc_close(nc))) {
            free(buf);
            return fail("write", url, st);
        }
        printf("seconds=%.6f\n", now_s() - t0);
        free(buf);
        return 0;
    }
    if (argc == 3 && !strcmp(argv[1], "read")) {
        const char *url = argv[2];
        size_t n = 0;
        double t0 = now_s();
        if ((st = nc_open(url, NC_NOWRITE, &nc)) || (st = nc_inq_varid(nc, "data", &var)) ||
            (st = nc_inq_vardimid(nc, var, &dim)) || (st = nc_inq_dimlen(nc, dim, &n)))
            return fail("read", url, st);
        float *buf = malloc((n ? n : 1) * sizeof *buf);
        if (!buf)
            return fail("read", url, NC_ENOMEM);
        if ((st = nc_get_var_float(nc, var, buf)) || (st = nc_close(nc))) {
            free(buf);
            return fail("read", url, st);
        }
        double dt = now_s() - t0;
        for (size_t i = 0; i < n; i++)
            if (buf[i] != value_at(i)) {
                fprintf(stderr, "bench_s3_nc: %s: element %zu is %g, not %g\n", url, i, (double)buf[i],
                        (double)value_at(i));
                free(buf);
                return 1;
            }
        free(buf);
        printf("seconds=%.6f\n", dt);
        return 0;
    }
    fprintf(stderr, "usage: bench_s3_nc write URL NCHUNK ELEMS | read URL\n");
    return 2;
}
