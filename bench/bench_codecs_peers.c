/* bench_codecs' C peers: the nczarr connector and native HDF5 (one HDF5 program, two
 * FAPLs) and netCDF-C's NCZarr. Each call runs in a fresh child process (see
 * bench_codecs.c), which loads the source slabs, then times creating, writing and closing
 * the array, or opening, reading and closing it; comparing what was read with the source is
 * not timed. */
#include "bench_codecs.h"
#include <hdf5.h>
#ifdef HAVE_NETCDF
#include <netcdf.h>
#include <netcdf_filter.h>
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

int bench_have_netcdf(void)
{
#ifdef HAVE_NETCDF
    return 1;
#else
    return 0;
#endif
}

static const char *names[NPEERS] = {"bench_nczarr.zarr", "bench_native.h5", "bench_netcdf.zarr",
                                    "bench_zarr3.zarr",  "bench_ts.zarr",   "bench_zarrs.zarr",
                                    "bench_base.zarr"};

void bench_store_path(const bench_cfg *cfg, bench_peer peer, char *buf, size_t size)
{
    if (!cfg->s3[0]) {
        snprintf(buf, size, "%s/%s", cfg->dir, names[peer]);
        return;
    }
    if (BENCH_PYTHON_PEER(peer))
        bench_s3_path(cfg, peer, buf, size);
    else
        snprintf(buf, size, "%s/%s#mode=nczarr,s3", cfg->s3, names[peer]);
}

void bench_s3_path(const bench_cfg *cfg, bench_peer peer, char *buf, size_t size)
{
    const char *host = strstr(cfg->s3, "://"), *path = host ? strchr(host + 3, '/') : NULL;
    snprintf(buf, size, "s3:/%s/%s", path ? path : "/", names[peer]);
}

int bench_peer_env(const bench_cfg *cfg, bench_peer peer)
{
    /* Each peer sees only the plugins it should: native HDF5 and netCDF-C the filter
     * plugins (netCDF-C must not find the connector: it would load it as an HDF5 plugin of
     * its own), the connector its own directory and the filter plugins it runs. */
    char path[8400];
    if (BENCH_CONNECTOR_PEER(peer))
        snprintf(path, sizeof path, "%s:%s", peer == PEER_BASE ? cfg->base_dir : cfg->conn_dir,
                 cfg->filter_dir);
    else
        snprintf(path, sizeof path, "%s", cfg->filter_dir);
    if (setenv("HDF5_PLUGIN_PATH", path, 1) != 0 || unsetenv("HDF5_VOL_CONNECTOR") != 0 ||
        unsetenv("NCZARR_WORKERS") != 0)
        return -1;
    return 0;
}

static void hdf5_message(const char *what, char *msg, size_t size);

/* The one place that says how the connector is asked for a worker count: the info string
 * `workers=N` on its FAPL and, for builds that read it, NCZARR_WORKERS (set before the
 * first HDF5 call, which loads the connector). workers <= 0: the connector's default. */
static hid_t connector_fapl(const bench_cfg *cfg, int workers, char *msg, size_t msg_size)
{
    char num[32], opts[96] = "", what[160];
    size_t n = 0;
    if (cfg->zarr_format == 3)
        n += (size_t)snprintf(opts + n, sizeof opts - n, "v3 ");
    if (cfg->shards > 0)
        n += (size_t)snprintf(opts + n, sizeof opts - n, "shards=%d ", cfg->shards);
    if (workers > 0) {
        snprintf(num, sizeof num, "%d", workers);
        snprintf(opts + n, sizeof opts - n, "workers=%d", workers);
        if (setenv("NCZARR_WORKERS", num, 1) != 0) {
            snprintf(msg, msg_size, "cannot set NCZARR_WORKERS");
            return H5I_INVALID_HID;
        }
    }
    hid_t vol = H5VLregister_connector_by_name("nczarr", H5P_DEFAULT);
    if (vol < 0) {
        hdf5_message("H5VLregister_connector_by_name(\"nczarr\") (is the connector on HDF5_PLUGIN_PATH?)",
                     msg, msg_size);
        return H5I_INVALID_HID;
    }
    void *info = NULL;
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    snprintf(what, sizeof what, "H5VLconnector_str_to_info(\"%s\")", opts);
    if (fapl >= 0 && opts[0] && H5VLconnector_str_to_info(opts, vol, &info) < 0) {
        hdf5_message(what, msg, msg_size);
        H5Pclose(fapl);
        fapl = H5I_INVALID_HID;
    } else if (fapl < 0 || H5Pset_vol(fapl, vol, info) < 0) {
        hdf5_message("H5Pset_vol", msg, msg_size);
        if (fapl >= 0)
            H5Pclose(fapl);
        fapl = H5I_INVALID_HID;
    }
    if (info)
        H5VLfree_connector_info(vol, info);
    H5VLclose(vol);
    return fapl;
}

static int set_filters(hid_t dcpl, bench_case c, int zstd_level)
{
    /* blosc: cd[0..3] are filled in by the plugin's set_local (version, type size, chunk
     * size); clevel 5, byte shuffle, lz4. */
    const unsigned blosc_cd[7] = {0, 0, 0, 0, 5, 1, 1};
    const unsigned zstd_cd[1] = {(unsigned)zstd_level};
    switch (c) {
    case CASE_DEFLATE:
        return H5Pset_shuffle(dcpl) < 0 || H5Pset_deflate(dcpl, 4) < 0 ? -1 : 0;
    case CASE_BLOSC:
        return H5Pset_filter(dcpl, 32001, H5Z_FLAG_MANDATORY, 7, blosc_cd) < 0 ? -1 : 0;
    case CASE_ZSTD:
        return H5Pset_filter(dcpl, 32015, H5Z_FLAG_MANDATORY, 1, zstd_cd) < 0 ? -1 : 0;
    default:
        return 0;
    }
}

typedef struct {
    char inner[768]; /* the innermost record: where the connector or the filter said what went wrong */
    char api[128];   /* the outermost: the API call */
    int n;
} err_walk;

static herr_t err_cb(unsigned n, const H5E_error2_t *e, void *data)
{
    err_walk *w = data;
    (void)n;
    if (w->n++ == 0)
        snprintf(w->inner, sizeof w->inner, "%s", e->desc ? e->desc : "?");
    snprintf(w->api, sizeof w->api, "%s", e->func_name ? e->func_name : "?");
    return 0;
}

static void hdf5_message(const char *what, char *msg, size_t size)
{
    err_walk w = {"", "", 0};
    H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, err_cb, &w);
    if (!w.n)
        snprintf(msg, size, "%s: (no HDF5 error record)", what);
    else if (!strncmp(what, w.api, strlen(w.api)))
        snprintf(msg, size, "%s: %s", what, w.inner);
    else
        snprintf(msg, size, "%s (%s): %s", what, w.api, w.inner);
}

static int run_hdf5(const bench_cfg *cfg, bench_peer peer, bench_case c, int phase, int workers, float *src,
                    float *back, double *secs, char *msg, size_t msg_size)
{
    char path[4300];
    bench_store_path(cfg, peer, path, sizeof path);
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    hid_t fapl = H5I_INVALID_HID;
    if (BENCH_CONNECTOR_PEER(peer))
        fapl = connector_fapl(cfg, workers, msg, msg_size);
    else if ((fapl = H5Pcreate(H5P_FILE_ACCESS)) >= 0 && H5Pset_vol(fapl, H5VL_NATIVE, NULL) < 0) {
        H5Pclose(fapl);
        fapl = H5I_INVALID_HID;
    }
    if (fapl < 0) {
        if (!msg[0])
            hdf5_message("the native file access list", msg, msg_size);
        return -1;
    }
    hsize_t dims[2] = {cfg->rows, cfg->cols}, cdims[2] = {cfg->crows, cfg->ccols};
    hsize_t mdims[2] = {cfg->slab_rows, cfg->cols};
    hid_t f = H5I_INVALID_HID, d = H5I_INVALID_HID, fsp = H5I_INVALID_HID, msp = H5I_INVALID_HID;
    hid_t dcpl = H5I_INVALID_HID;
    const char *what = "";
    size_t slab_elems = cfg->slab_rows * cfg->cols;
    double verify = 0, t0 = now();
    int ok = 0;
    if (phase == 0) {
        what = "H5Fcreate";
        if ((f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl)) < 0)
            goto done;
        what = "H5Dcreate2 (setting the filters)";
        if ((fsp = H5Screate_simple(2, dims, NULL)) < 0 || (dcpl = H5Pcreate(H5P_DATASET_CREATE)) < 0 ||
            H5Pset_chunk(dcpl, 2, cdims) < 0 || set_filters(dcpl, c, cfg->zstd_level) < 0 ||
            H5Pset_fill_time(dcpl, H5D_FILL_TIME_NEVER) < 0 ||
            (d = H5Dcreate2(f, "data", H5T_IEEE_F32LE, fsp, H5P_DEFAULT, dcpl, H5P_DEFAULT)) < 0)
            goto done;
    } else {
        what = "H5Fopen";
        if ((f = H5Fopen(path, H5F_ACC_RDONLY, fapl)) < 0)
            goto done;
        what = "H5Dopen2";
        if ((d = H5Dopen2(f, "data", H5P_DEFAULT)) < 0 || (fsp = H5Dget_space(d)) < 0)
            goto done;
    }
    if ((msp = H5Screate_simple(2, mdims, NULL)) < 0)
        goto done;
    for (size_t k = 0; k < cfg->rows / cfg->slab_rows; k++) {
        hsize_t start[2] = {k * cfg->slab_rows, 0};
        const float *want = src + (k % cfg->nslabs) * slab_elems;
        what = phase == 0 ? "H5Dwrite" : "H5Dread";
        if (H5Sselect_hyperslab(fsp, H5S_SELECT_SET, start, NULL, mdims, NULL) < 0)
            goto done;
        if (phase == 0) {
            if (H5Dwrite(d, H5T_NATIVE_FLOAT, msp, fsp, H5P_DEFAULT, want) < 0)
                goto done;
        } else {
            if (H5Dread(d, H5T_NATIVE_FLOAT, msp, fsp, H5P_DEFAULT, back) < 0)
                goto done;
            double v0 = now();
            if (memcmp(back, want, slab_elems * sizeof(float)) != 0) {
                snprintf(msg, msg_size, "rows %zu..%zu read back differ from what was written",
                         k * cfg->slab_rows, (k + 1) * cfg->slab_rows - 1);
                goto done;
            }
            verify += now() - v0;
        }
    }
    ok = 1;
done:
    if (!ok && !msg[0])
        hdf5_message(what, msg, msg_size);
    if (msp >= 0)
        H5Sclose(msp);
    if (fsp >= 0)
        H5Sclose(fsp);
    if (dcpl >= 0)
        H5Pclose(dcpl);
    if (d >= 0 && H5Dclose(d) < 0 && ok) {
        hdf5_message("H5Dclose", msg, msg_size);
        ok = 0;
    }
    if (f >= 0 && H5Fclose(f) < 0 && ok) {
        hdf5_message("H5Fclose", msg, msg_size);
        ok = 0;
    }
    *secs = now() - t0 - verify;
    H5Pclose(fapl);
    return ok ? 0 : -1;
}

#ifdef HAVE_NETCDF
static int run_netcdf(const bench_cfg *cfg, bench_case c, int phase, float *src, float *back, double *secs,
                      char *msg, size_t msg_size)
{
    char path[4300], url[4400];
    bench_store_path(cfg, PEER_NETCDF, path, sizeof path);
    snprintf(url, sizeof url, "file://%s#mode=nczarr,file", path);
    int nc = -1, dims[2], var, st = NC_NOERR;
    size_t cs[2] = {cfg->crows, cfg->ccols}, count[2] = {cfg->slab_rows, cfg->cols};
    size_t slab_elems = cfg->slab_rows * cfg->cols;
    const char *what = "";
    double verify = 0, t0 = now();
#define NC_TRY(call, name)                                                                                   \
    do {                                                                                                     \
        what = name;                                                                                         \
        if ((st = (call)) != NC_NOERR)                                                                       \
            goto done;                                                                                       \
    } while (0)
    if (phase == 0) {
        NC_TRY(nc_create(url, NC_NETCDF4 | NC_CLOBBER, &nc), "nc_create");
        NC_TRY(nc_def_dim(nc, "y", cfg->rows, &dims[0]), "nc_def_dim");
        NC_TRY(nc_def_dim(nc, "x", cfg->cols, &dims[1]), "nc_def_dim");
        NC_TRY(nc_def_var(nc, "data", NC_FLOAT, 2, dims, &var), "nc_def_var");
        NC_TRY(nc_def_var_chunking(nc, var, NC_CHUNKED, cs), "nc_def_var_chunking");
        NC_TRY(nc_def_var_fill(nc, var, NC_NOFILL, NULL), "nc_def_var_fill");
        if (c == CASE_DEFLATE)
            NC_TRY(nc_def_var_deflate(nc, var, 1, 1, 4), "nc_def_var_deflate");
        else if (c == CASE_BLOSC)
            NC_TRY(nc_def_var_blosc(nc, var, BLOSC_LZ4, 5, 0, BLOSC_SHUFFLE), "nc_def_var_blosc");
        else if (c == CASE_ZSTD)
            NC_TRY(nc_def_var_zstandard(nc, var, cfg->zstd_level), "nc_def_var_zstandard");
        NC_TRY(nc_enddef(nc), "nc_enddef");
    } else {
        NC_TRY(nc_open(url, NC_NOWRITE, &nc), "nc_open");
        NC_TRY(nc_inq_varid(nc, "data", &var), "nc_inq_varid");
    }
    for (size_t k = 0; k < cfg->rows / cfg->slab_rows; k++) {
        size_t start[2] = {k * cfg->slab_rows, 0};
        const float *want = src + (k % cfg->nslabs) * slab_elems;
        if (phase == 0)
            NC_TRY(nc_put_vara_float(nc, var, start, count, want), "nc_put_vara_float");
        else {
            NC_TRY(nc_get_vara_float(nc, var, start, count, back), "nc_get_vara_float");
            double v0 = now();
            if (memcmp(back, want, slab_elems * sizeof(float)) != 0) {
                snprintf(msg, msg_size, "rows %zu..%zu read back differ from what was written",
                         k * cfg->slab_rows, (k + 1) * cfg->slab_rows - 1);
                nc_close(nc);
                return -1;
            }
            verify += now() - v0;
        }
    }
    what = "nc_close";
    st = nc_close(nc);
    nc = -1;
#undef NC_TRY
done:
    if (nc >= 0)
        nc_close(nc);
    *secs = now() - t0 - verify;
    if (st != NC_NOERR)
        snprintf(msg, msg_size, "%s: %s", what, nc_strerror(st));
    return st == NC_NOERR ? 0 : -1;
}
#endif

static int load_source(const bench_cfg *cfg, float *src, char *msg, size_t msg_size)
{
    size_t n = cfg->nslabs * cfg->slab_rows * cfg->cols;
    FILE *fp = fopen(cfg->src_path, "rb");
    size_t got = fp ? fread(src, sizeof(float), n, fp) : 0;
    if (fp)
        fclose(fp);
    if (got != n) {
        snprintf(msg, msg_size, "cannot read the source slabs %s", cfg->src_path);
        return -1;
    }
    return 0;
}

int bench_run_c_peer(const bench_cfg *cfg, bench_peer peer, bench_case c, int phase, int workers,
                     double *secs, char *msg, size_t msg_size)
{
    size_t slab_elems = cfg->slab_rows * cfg->cols;
    void *src_base = NULL, *back_base = NULL;
    float *src = bench_buffer(cfg, cfg->nslabs * slab_elems * sizeof(float), &src_base);
    float *back = phase == 1 ? bench_buffer(cfg, slab_elems * sizeof(float), &back_base) : NULL;
    int r = -1;
    msg[0] = 0;
    if (!src || (phase == 1 && !back))
        snprintf(msg, msg_size, "out of memory for the source slabs");
    else if (load_source(cfg, src, msg, msg_size) == 0) {
        if (phase == 1) /* touched before the clock starts, as the source is */
            memset(back, 0, slab_elems * sizeof(float));
        if (peer == PEER_NETCDF) {
#ifdef HAVE_NETCDF
            r = run_netcdf(cfg, c, phase, src, back, secs, msg, msg_size);
#else
            snprintf(msg, msg_size, "built without netCDF-C");
#endif
        } else
            r = run_hdf5(cfg, peer, c, phase, workers, src, back, secs, msg, msg_size);
    }
    free(src_base);
    free(back_base);
    return r;
}

void *bench_placed(size_t bytes, long offset, void **base)
{
    if (offset < 0)
        return *base = malloc(bytes);
    unsigned char *b = aligned_alloc(4096, (bytes + (size_t)offset + 4095) / 4096 * 4096);
    *base = b;
    return b ? b + offset : NULL;
}

void *bench_buffer(const bench_cfg *cfg, size_t bytes, void **base)
{
    return bench_placed(bytes, cfg->buf_offset, base);
}
