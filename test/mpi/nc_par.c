/* An unmodified parallel netCDF-4 program: nc_create_par, an unlimited dimension grown by
 * collective writes, a deflated variable written collectively by bands of rows, a raw one
 * written independently, attributes; then nc_open_par and every rank checks every value.
 * Run on N ranks and on one, the outputs must be equal (test/mpi/run_par.sh).
 *   nc_par OUT [--no-reopen]
 * --no-reopen: for a store in a bucket (the connector's s3root), which netCDF-C cannot open
 * by a plain name (it decides a format from a path's first bytes, README "Store names"). */
#include <mpi.h>
#include <netcdf.h>
#include <netcdf_par.h>
#include <stdio.h>
#include <stdlib.h>

#define NT 3
#define NY 24
#define NX 13

static int rank, nranks;

#define NCT(call)                                                                                            \
    do {                                                                                                     \
        int rc_ = (call);                                                                                    \
        if (rc_ != NC_NOERR) {                                                                               \
            fprintf(stderr, "rank %d: %s:%d: %s: %s\n", rank, __FILE__, __LINE__, #call, nc_strerror(rc_));  \
            MPI_Abort(MPI_COMM_WORLD, 1);                                                                    \
        }                                                                                                    \
    } while (0)

static float temp(size_t t, size_t y, size_t x)
{
    return (float)(t * 10000 + y * 100 + x) * 0.5f;
}

static double pres(size_t y, size_t x)
{
    return 1000.0 + (double)y + (double)x / 100.0;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    if (argc != 2 && argc != 3) {
        fprintf(stderr, "usage: nc_par OUT [--no-reopen]\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int ncid, dt, dy, dx, vtemp, vpres, vcount, vy;
    NCT(nc_create_par(argv[1], NC_NETCDF4 | NC_CLOBBER, MPI_COMM_WORLD, MPI_INFO_NULL, &ncid));
    NCT(nc_put_att_text(ncid, NC_GLOBAL, "title", 22, "parallel netCDF-4 test"));
    NCT(nc_def_dim(ncid, "time", NC_UNLIMITED, &dt));
    NCT(nc_def_dim(ncid, "y", NY, &dy));
    NCT(nc_def_dim(ncid, "x", NX, &dx));
    int d3[3] = {dt, dy, dx}, d2[2] = {dy, dx};
    NCT(nc_def_var(ncid, "temp", NC_FLOAT, 3, d3, &vtemp));
    size_t ch[3] = {1, 10, 5};
    NCT(nc_def_var_chunking(ncid, vtemp, NC_CHUNKED, ch));
    NCT(nc_def_var_deflate(ncid, vtemp, 1, 1, 3));
    NCT(nc_put_att_text(ncid, vtemp, "units", 1, "K"));
    NCT(nc_def_var(ncid, "pres", NC_DOUBLE, 2, d2, &vpres));
    size_t ch2[2] = {7, 13};
    NCT(nc_def_var_chunking(ncid, vpres, NC_CHUNKED, ch2));
    NCT(nc_def_var(ncid, "count", NC_INT, 1, &dt, &vcount));
    NCT(nc_def_var(ncid, "y", NC_INT, 1, &dy, &vy));
    NCT(nc_enddef(ncid));

    size_t y0 = (size_t)rank * NY / (size_t)nranks, y1 = (size_t)(rank + 1) * NY / (size_t)nranks;
    /* temp: collective, one time step after the other (each grows "time") */
    NCT(nc_var_par_access(ncid, vtemp, NC_COLLECTIVE));
    float *tb = malloc((y1 - y0 + 1) * NX * sizeof *tb);
    for (size_t t = 0; t < NT; t++) {
        for (size_t y = y0; y < y1; y++)
            for (size_t x = 0; x < NX; x++)
                tb[(y - y0) * NX + x] = temp(t, y, x);
        size_t st[3] = {t, y0, 0}, cn[3] = {1, y1 - y0, NX};
        NCT(nc_put_vara_float(ncid, vtemp, st, cn, tb));
    }
    free(tb);
    /* count: collective, rank r writes time step r (ranks past the last write nothing) */
    NCT(nc_var_par_access(ncid, vcount, NC_COLLECTIVE));
    int cv = rank * 7 + 1;
    size_t cst = (size_t)rank < NT ? (size_t)rank : 0, ccn = (size_t)rank < NT ? 1 : 0;
    NCT(nc_put_vara_int(ncid, vcount, &cst, &ccn, &cv));
    if (nranks < NT) /* one rank: the other steps too */
        for (size_t t = (size_t)nranks; t < NT; t++) {
            int v = (int)t * 7 + 1;
            size_t one = 1;
            NCT(nc_put_vara_int(ncid, vcount, &t, &one, &v));
        }
    /* pres: independent, by bands of rows (chunks of 7 rows straddle them) */
    NCT(nc_var_par_access(ncid, vpres, NC_INDEPENDENT));
    double *pb = malloc((y1 - y0 + 1) * NX * sizeof *pb);
    for (size_t y = y0; y < y1; y++)
        for (size_t x = 0; x < NX; x++)
            pb[(y - y0) * NX + x] = pres(y, x);
    size_t pst[2] = {y0, 0}, pcn[2] = {y1 - y0, NX};
    if (y1 > y0)
        NCT(nc_put_vara_double(ncid, vpres, pst, pcn, pb));
    free(pb);
    /* y: rank 0 alone, independent */
    NCT(nc_var_par_access(ncid, vy, NC_INDEPENDENT));
    if (rank == 0) {
        int yv[NY];
        for (int i = 0; i < NY; i++)
            yv[i] = i * 10;
        NCT(nc_put_var_int(ncid, vy, yv));
    }
    NCT(nc_close(ncid));
    if (argc == 3) {
        if (rank == 0)
            printf("%s: %d ranks, written\n", argv[1], nranks);
        MPI_Finalize();
        return 0;
    }

    /* every rank reads everything back */
    NCT(nc_open_par(argv[1], NC_NOWRITE, MPI_COMM_WORLD, MPI_INFO_NULL, &ncid));
    int bad = 0;
    size_t nt = 0;
    NCT(nc_inq_dimlen(ncid, dt, &nt));
    if (nt != NT)
        fprintf(stderr, "rank %d: time has %zu steps, expected %d\n", rank, nt, NT), bad++;
    float *all = malloc(NT * NY * NX * sizeof *all);
    NCT(nc_get_var_float(ncid, vtemp, all));
    for (size_t t = 0; t < NT; t++)
        for (size_t y = 0; y < NY; y++)
            for (size_t x = 0; x < NX; x++)
                if (all[(t * NY + y) * NX + x] != temp(t, y, x) && bad++ < 3)
                    fprintf(stderr, "rank %d: temp[%zu][%zu][%zu] = %g\n", rank, t, y, x,
                            all[(t * NY + y) * NX + x]);
    free(all);
    double *pa = malloc(NY * NX * sizeof *pa);
    NCT(nc_get_var_double(ncid, vpres, pa));
    for (size_t y = 0; y < NY; y++)
        for (size_t x = 0; x < NX; x++)
            if (pa[y * NX + x] != pres(y, x) && bad++ < 6)
                fprintf(stderr, "rank %d: pres[%zu][%zu] = %g\n", rank, y, x, pa[y * NX + x]);
    free(pa);
    int cnt[NT];
    NCT(nc_get_var_int(ncid, vcount, cnt));
    for (int t = 0; t < NT; t++)
        if (cnt[t] != t * 7 + 1 && bad++ < 9)
            fprintf(stderr, "rank %d: count[%d] = %d\n", rank, t, cnt[t]);
    NCT(nc_close(ncid));
    int allbad = 0;
    MPI_Allreduce(&bad, &allbad, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("%s: %d ranks, %d wrong values\n", argv[1], nranks, allbad);
    MPI_Finalize();
    return allbad != 0;
}
