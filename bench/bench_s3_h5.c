/* The HDF5 side of bench/bench_s3.sh: an unmodified HDF5 program, run with
 * HDF5_VOL_CONNECTOR=nczarr... against a store on S3 (the name is the store's URL).
 *
 *   bench_s3_h5 arrays URL N          N small arrays (float32[16], one chunk each, written,
 *                                     one text attribute each) in the root group
 *   bench_s3_h5 walk URL              open, then what ncdump -h shows of each array: its type,
 *                                     shape, chunks and every attribute's value; close
 *   bench_s3_h5 write URL NCHUNK ELEMS  one float32 array of NCHUNK chunks of ELEMS values,
 *                                     written with one H5Dwrite
 *   bench_s3_h5 read URL              reads that array with one H5Dread and checks it
 *   bench_s3_h5 delete URL...         deletes those stores (H5Fdelete), untimed
 *
 * Prints "seconds=T" (create or open up to and including close) and, for walk, "objects=N".
 * Not a test: no assertion on speed. */
#include <hdf5.h>
#include <stdint.h>
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

/* The timed span: a mode that prepares or checks data outside it moves its ends. */
static double t_start, t_end;

/* The value every element of the throughput array holds: its index, as float32 can. */
static float value_at(size_t i)
{
    return (float)(i % 16777216u);
}

static int make_arrays(const char *url, long n)
{
    hid_t f = H5Fcreate(url, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    hsize_t dim = 16;
    hid_t sp = H5Screate_simple(1, &dim, NULL), scalar = H5Screate(H5S_SCALAR);
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE), str = H5Tcopy(H5T_C_S1);
    int ok = f >= 0 && sp >= 0 && scalar >= 0 && dcpl >= 0 && str >= 0 && H5Pset_chunk(dcpl, 1, &dim) >= 0 &&
             H5Tset_size(str, 6) >= 0;
    float v[16];
    for (long i = 0; i < n && ok; i++) {
        char name[32];
        snprintf(name, sizeof name, "var%04ld", i);
        for (int j = 0; j < 16; j++)
            v[j] = (float)(i + j);
        hid_t d = H5Dcreate2(f, name, H5T_IEEE_F32LE, sp, H5P_DEFAULT, dcpl, H5P_DEFAULT);
        hid_t a = d >= 0 ? H5Acreate2(d, "units", str, scalar, H5P_DEFAULT, H5P_DEFAULT) : -1;
        ok = d >= 0 && a >= 0 && H5Dwrite(d, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) >= 0 &&
             H5Awrite(a, str, "kelvin") >= 0;
        if (a >= 0)
            H5Aclose(a);
        if (d >= 0)
            H5Dclose(d);
    }
    H5Tclose(str);
    H5Pclose(dcpl);
    H5Sclose(scalar);
    H5Sclose(sp);
    if (f >= 0 && H5Fclose(f) < 0)
        ok = 0;
    return ok ? 0 : -1;
}

static herr_t show_attr(hid_t loc, const char *name, const H5A_info_t *info, void *op_data)
{
    (void)info;
    hid_t a = H5Aopen(loc, name, H5P_DEFAULT);
    hid_t t = a >= 0 ? H5Aget_type(a) : -1, s = a >= 0 ? H5Aget_space(a) : -1;
    herr_t ret = -1;
    if (t >= 0 && s >= 0) {
        hssize_t n = H5Sget_simple_extent_npoints(s);
        size_t size = H5Tget_size(t);
        void *buf = n >= 0 && size > 0 ? calloc((size_t)(n ? n : 1), size) : NULL;
        if (buf && H5Aread(a, t, buf) >= 0)
            ret = 0;
        if (buf && H5Tdetect_class(t, H5T_VLEN) > 0)
            H5Treclaim(t, s, H5P_DEFAULT, buf);
        free(buf);
    }
    if (s >= 0)
        H5Sclose(s);
    if (t >= 0)
        H5Tclose(t);
    if (a >= 0)
        H5Aclose(a);
    if (ret == 0)
        ++*(long *)op_data;
    return ret;
}

static herr_t show_object(hid_t g, const char *name, const H5L_info2_t *info, void *op_data)
{
    (void)info;
    H5O_info2_t oi;
    if (H5Oget_info_by_name3(g, name, &oi, H5O_INFO_BASIC, H5P_DEFAULT) < 0)
        return -1;
    long attrs = 0;
    if (oi.type == H5O_TYPE_GROUP) {
        hid_t sub = H5Gopen2(g, name, H5P_DEFAULT);
        herr_t r = sub >= 0 ? H5Literate2(sub, H5_INDEX_NAME, H5_ITER_INC, NULL, show_object, op_data) : -1;
        if (r >= 0)
            r = H5Aiterate2(sub, H5_INDEX_NAME, H5_ITER_INC, NULL, show_attr, &attrs);
        if (sub >= 0)
            H5Gclose(sub);
        return r < 0 ? -1 : 0;
    }
    if (oi.type != H5O_TYPE_DATASET)
        return 0;
    hid_t d = H5Dopen2(g, name, H5P_DEFAULT);
    hid_t t = d >= 0 ? H5Dget_type(d) : -1, s = d >= 0 ? H5Dget_space(d) : -1;
    hid_t dcpl = d >= 0 ? H5Dget_create_plist(d) : -1;
    hsize_t dims[H5S_MAX_RANK], chunks[H5S_MAX_RANK];
    int ok = t >= 0 && s >= 0 && dcpl >= 0 && H5Tget_class(t) >= 0 &&
             H5Sget_simple_extent_dims(s, dims, NULL) >= 0;
    if (ok && H5Pget_layout(dcpl) == H5D_CHUNKED)
        ok = H5Pget_chunk(dcpl, H5S_MAX_RANK, chunks) >= 0;
    if (ok)
        ok = H5Aiterate2(d, H5_INDEX_NAME, H5_ITER_INC, NULL, show_attr, &attrs) >= 0;
    if (dcpl >= 0)
        H5Pclose(dcpl);
    if (s >= 0)
        H5Sclose(s);
    if (t >= 0)
        H5Tclose(t);
    if (d >= 0)
        H5Dclose(d);
    if (ok)
        ++*(long *)op_data;
    return ok ? 0 : -1;
}

static int walk(const char *url, long *objects)
{
    hid_t f = H5Fopen(url, H5F_ACC_RDONLY, H5P_DEFAULT);
    long attrs = 0;
    int ok = f >= 0 && H5Literate2(f, H5_INDEX_NAME, H5_ITER_INC, NULL, show_object, objects) >= 0 &&
             H5Aiterate2(f, H5_INDEX_NAME, H5_ITER_INC, NULL, show_attr, &attrs) >= 0;
    if (f >= 0 && H5Fclose(f) < 0)
        ok = 0;
    return ok ? 0 : -1;
}

static int write_array(const char *url, size_t nchunk, size_t elems)
{
    size_t n = nchunk * elems;
    float *buf = malloc(n * sizeof *buf);
    if (!buf)
        return -1;
    for (size_t i = 0; i < n; i++)
        buf[i] = value_at(i);
    t_start = now_s();
    hsize_t dim = n, chunk = elems;
    hid_t f = H5Fcreate(url, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    hid_t sp = H5Screate_simple(1, &dim, NULL), dcpl = H5Pcreate(H5P_DATASET_CREATE);
    int ok = f >= 0 && sp >= 0 && dcpl >= 0 && H5Pset_chunk(dcpl, 1, &chunk) >= 0 &&
             H5Pset_fill_time(dcpl, H5D_FILL_TIME_NEVER) >= 0;
    hid_t d = ok ? H5Dcreate2(f, "data", H5T_IEEE_F32LE, sp, H5P_DEFAULT, dcpl, H5P_DEFAULT) : -1;
    ok = d >= 0 && H5Dwrite(d, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) >= 0;
    if (d >= 0 && H5Dclose(d) < 0)
        ok = 0;
    if (dcpl >= 0)
        H5Pclose(dcpl);
    if (sp >= 0)
        H5Sclose(sp);
    if (f >= 0 && H5Fclose(f) < 0)
        ok = 0;
    t_end = now_s();
    free(buf);
    return ok ? 0 : -1;
}

static int read_array(const char *url)
{
    hid_t f = H5Fopen(url, H5F_ACC_RDONLY, H5P_DEFAULT);
    hid_t d = f >= 0 ? H5Dopen2(f, "data", H5P_DEFAULT) : -1;
    hid_t sp = d >= 0 ? H5Dget_space(d) : -1;
    hssize_t n = sp >= 0 ? H5Sget_simple_extent_npoints(sp) : -1;
    float *buf = n > 0 ? malloc((size_t)n * sizeof *buf) : NULL;
    int ok = buf && H5Dread(d, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) >= 0;
    if (sp >= 0)
        H5Sclose(sp);
    if (d >= 0)
        H5Dclose(d);
    if (f >= 0 && H5Fclose(f) < 0)
        ok = 0;
    t_end = now_s();
    for (hssize_t i = 0; ok && i < n; i++)
        if (buf[i] != value_at((size_t)i)) {
            fprintf(stderr, "bench_s3_h5: %s: element %lld is %g, not %g\n", url, (long long)i,
                    (double)buf[i], (double)value_at((size_t)i));
            ok = 0;
        }
    free(buf);
    return ok ? 0 : -1;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: bench_s3_h5 arrays URL N | walk URL | write URL NCHUNK ELEMS | read URL | "
                        "delete URL...\n");
        return 2;
    }
    const char *mode = argv[1], *url = argv[2];
    t_start = now_s();
    long objects = 0;
    int rc;
    if (!strcmp(mode, "arrays") && argc == 4)
        rc = make_arrays(url, atol(argv[3]));
    else if (!strcmp(mode, "walk") && argc == 3)
        rc = walk(url, &objects);
    else if (!strcmp(mode, "write") && argc == 5)
        rc = write_array(url, (size_t)atol(argv[3]), (size_t)atol(argv[4]));
    else if (!strcmp(mode, "read") && argc == 3)
        rc = read_array(url);
    else if (!strcmp(mode, "delete")) {
        rc = 0;
        for (int i = 2; i < argc && rc == 0; i++)
            rc = H5Fdelete(argv[i], H5P_DEFAULT) < 0 ? -1 : 0;
        return rc == 0 ? 0 : 1;
    } else {
        fprintf(stderr, "bench_s3_h5: bad arguments\n");
        return 2;
    }
    double dt = (t_end > 0 ? t_end : now_s()) - t_start;
    if (rc != 0) {
        fprintf(stderr, "bench_s3_h5: %s %s failed\n", mode, url);
        return 1;
    }
    printf("seconds=%.6f\n", dt);
    if (!strcmp(mode, "walk"))
        printf("objects=%ld\n", objects);
    return 0;
}
