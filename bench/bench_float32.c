/* Writes and reads 256 MiB of float32 through the nczarr connector and through native
 * HDF5 in the same run, and prints throughput and the connector/native ratio.
 * Usage: bench_float32 [workdir] [MiB]   (HDF5_PLUGIN_PATH must find the connector)
 * When built with netCDF-C, its own NCZarr (the format's reference implementation) writes
 * and reads the same array as a third peer.
 * Not a test: no assertion on speed. */
#include <hdf5.h>
#ifdef HAVE_NETCDF
#include <netcdf.h>
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

typedef struct {
    double write_s, read_s;
} result_t;

static int run(hid_t fapl, const char *path, hsize_t n, hsize_t chunk, float *buf, float *back, result_t *r)
{
    hsize_t dims[2] = {n, n}, cdims[2] = {chunk, chunk};
    double t0 = now();
    hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    if (f < 0)
        return -1;
    hid_t sp = H5Screate_simple(2, dims, NULL);
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_chunk(dcpl, 2, cdims);
    hid_t d = H5Dcreate2(f, "data", H5T_IEEE_F32LE, sp, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    herr_t w = H5Dwrite(d, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf);
    H5Dclose(d);
    H5Pclose(dcpl);
    H5Sclose(sp);
    if (H5Fclose(f) < 0 || w < 0)
        return -1;
    r->write_s = now() - t0;

    t0 = now();
    f = H5Fopen(path, H5F_ACC_RDONLY, fapl);
    if (f < 0)
        return -1;
    d = H5Dopen2(f, "data", H5P_DEFAULT);
    herr_t rd = H5Dread(d, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, back);
    H5Dclose(d);
    H5Fclose(f);
    r->read_s = now() - t0;
    if (rd < 0 || memcmp(buf, back, (size_t)(n * n * sizeof(float))) != 0)
        return -1;
    return 0;
}

#ifdef HAVE_NETCDF
/* netCDF-C's NCZarr on the same data: nc_put_var/nc_get_var of the whole array. */
static int run_netcdf(const char *dir, hsize_t n, hsize_t chunk, float *buf, float *back, result_t *r)
{
    char url[4200];
    int nc, dims[2], var;
    size_t cs[2] = {(size_t)chunk, (size_t)chunk};
    snprintf(url, sizeof url, "file://%s/bench_nc.zarr#mode=nczarr,file", dir);
    double t0 = now();
    if (nc_create(url, NC_NETCDF4 | NC_CLOBBER, &nc) || nc_def_dim(nc, "y", (size_t)n, &dims[0]) ||
        nc_def_dim(nc, "x", (size_t)n, &dims[1]) || nc_def_var(nc, "data", NC_FLOAT, 2, dims, &var) ||
        nc_def_var_chunking(nc, var, NC_CHUNKED, cs) || nc_def_var_fill(nc, var, NC_NOFILL, NULL) ||
        nc_enddef(nc) || nc_put_var_float(nc, var, buf) || nc_close(nc))
        return -1;
    r->write_s = now() - t0;
    t0 = now();
    if (nc_open(url, NC_NOWRITE, &nc) || nc_inq_varid(nc, "data", &var) || nc_get_var_float(nc, var, back) ||
        nc_close(nc))
        return -1;
    r->read_s = now() - t0;
    return memcmp(buf, back, (size_t)(n * n * sizeof(float))) == 0 ? 0 : -1;
}
#endif

int main(int argc, char **argv)
{
    const char *dir = argc > 1 ? argv[1] : ".";
    double mib = argc > 2 ? atof(argv[2]) : 256.0;
    hsize_t n = 1;
    while ((double)((n * 2) * (n * 2) * 4) <= mib * 1048576.0)
        n *= 2;
    hsize_t chunk = n >= 1024 ? 1024 : n;
    size_t bytes = (size_t)(n * n * sizeof(float));
    float *buf = malloc(bytes), *back = malloc(bytes);
    if (!buf || !back)
        return 1;
    for (size_t i = 0; i < (size_t)(n * n); i++)
        buf[i] = (float)(i % 1000) * 0.5f;

    hid_t vol = H5VLregister_connector_by_name("nczarr", H5P_DEFAULT);
    if (vol < 0) {
        fprintf(stderr, "the nczarr connector was not found: set HDF5_PLUGIN_PATH\n");
        return 1;
    }
    hid_t zfapl = H5Pcreate(H5P_FILE_ACCESS);
    H5Pset_vol(zfapl, vol, NULL);
    hid_t nfapl = H5Pcreate(H5P_FILE_ACCESS);
    H5Pset_vol(nfapl, H5VL_NATIVE, NULL);

    char zpath[4096], npath[4096];
    snprintf(zpath, sizeof zpath, "%s/bench.zarr", dir);
    snprintf(npath, sizeof npath, "%s/bench.h5", dir);
    /* Alternate the two and keep each one's best of three: page-cache writeback of the
     * previous run otherwise decides more than the code under test. */
    result_t z = {1e30, 1e30}, h = {1e30, 1e30}, c = {1e30, 1e30};
    int have_nc = 0;
    for (int rep = 0; rep < 3; rep++) {
        result_t zr, hr;
#ifdef HAVE_NETCDF
        result_t cr;
        if (run_netcdf(dir, n, chunk, buf, back, &cr) == 0) {
            have_nc = 1;
            c.write_s = cr.write_s < c.write_s ? cr.write_s : c.write_s;
            c.read_s = cr.read_s < c.read_s ? cr.read_s : c.read_s;
        }
#endif
        if (run(nfapl, npath, n, chunk, buf, back, &hr) < 0 ||
            run(zfapl, zpath, n, chunk, buf, back, &zr) < 0) {
            fprintf(stderr, "benchmark run failed\n");
            H5Eprint2(H5E_DEFAULT, stderr);
            return 1;
        }
        h.write_s = hr.write_s < h.write_s ? hr.write_s : h.write_s;
        h.read_s = hr.read_s < h.read_s ? hr.read_s : h.read_s;
        z.write_s = zr.write_s < z.write_s ? zr.write_s : z.write_s;
        z.read_s = zr.read_s < z.read_s ? zr.read_s : z.read_s;
    }
    double mb = (double)bytes / 1048576.0;
    printf("float32 %llux%llu (%.0f MiB), chunks %llux%llu, uncompressed, best of 3\n", (unsigned long long)n,
           (unsigned long long)n, mb, (unsigned long long)chunk, (unsigned long long)chunk);
    printf("%-8s %12s %12s\n", "", "write MiB/s", "read MiB/s");
    printf("%-8s %12.1f %12.1f\n", "native", mb / h.write_s, mb / h.read_s);
    printf("%-8s %12.1f %12.1f\n", "nczarr", mb / z.write_s, mb / z.read_s);
    if (have_nc)
        printf("%-8s %12.1f %12.1f   (netCDF-C %s NCZarr)\n", "netcdf", mb / c.write_s, mb / c.read_s,
#ifdef HAVE_NETCDF
               nc_inq_libvers()
#else
               ""
#endif
        );
    printf("ratio nczarr/native: write %.2f  read %.2f\n", h.write_s / z.write_s, h.read_s / z.read_s);
    if (have_nc)
        printf("ratio nczarr/netCDF-C NCZarr: write %.2f  read %.2f\n", c.write_s / z.write_s,
               c.read_s / z.read_s);
    H5Pclose(zfapl);
    H5Pclose(nfapl);
    H5VLclose(vol);
    free(buf);
    free(back);
    return 0;
}
