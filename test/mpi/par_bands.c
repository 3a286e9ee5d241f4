/* An unmodified MPI HDF5 program: every rank writes a band of rows of 2-D datasets whose
 * chunks straddle the bands (so ranks share chunks), raw and shuffle+deflate, with
 * collective and independent transfers, into groups and attributes made collectively; an
 * extendible dataset grows collectively. Then every rank reopens the file and checks every
 * value. Run on N ranks and on one, the outputs must be equal (test/mpi/run_par.sh).
 *   par_bands OUT */
#include <hdf5.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NY 101
#define NX 37
#define CY 16
#define CX 10

static int rank, nranks;

#define CHECK(x)                                                                                             \
    do {                                                                                                     \
        if ((x) < 0) {                                                                                       \
            fprintf(stderr, "rank %d: %s:%d: %s failed\n", rank, __FILE__, __LINE__, #x);                    \
            H5Eprint2(H5E_DEFAULT, stderr);                                                                  \
            MPI_Abort(MPI_COMM_WORLD, 1);                                                                    \
        }                                                                                                    \
    } while (0)

static float value(const char *name, hsize_t i, hsize_t j)
{
    return (float)(i * 1000 + j) + (float)(name[0] - 'a') * 0.25f;
}

static void band(hsize_t *r0, hsize_t *r1)
{
    *r0 = (hsize_t)rank * NY / (hsize_t)nranks;
    *r1 = (hsize_t)(rank + 1) * NY / (hsize_t)nranks;
}

static void put_attr_str(hid_t loc, const char *name, const char *text)
{
    hid_t t = H5Tcopy(H5T_C_S1), s = H5Screate(H5S_SCALAR);
    CHECK(H5Tset_size(t, strlen(text) + 1)); /* NUL included: h5diff reads such strings with strlen */
    hid_t a = H5Acreate2(loc, name, t, s, H5P_DEFAULT, H5P_DEFAULT);
    CHECK(a);
    CHECK(H5Awrite(a, t, text));
    H5Aclose(a);
    H5Sclose(s);
    H5Tclose(t);
}

/* Writes rows [r0, r1) x columns [c0, c0 + stride * (n - 1)] (stride 1 or 2) of name. */
static void write_rows(hid_t d, const char *name, hsize_t r0, hsize_t r1, hsize_t c0, hsize_t stride,
                       hid_t dxpl)
{
    if (r1 <= r0)
        return;
    hsize_t ncol = (NX - c0 + stride - 1) / stride;
    hsize_t start[2] = {r0, c0}, str[2] = {1, stride}, count[2] = {r1 - r0, ncol};
    float *buf = malloc((r1 - r0) * ncol * sizeof *buf);
    for (hsize_t i = 0; i < r1 - r0; i++)
        for (hsize_t j = 0; j < ncol; j++)
            buf[i * ncol + j] = value(name, r0 + i, c0 + j * stride);
    hid_t fs = H5Dget_space(d), ms = H5Screate_simple(2, count, NULL);
    CHECK(H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, str, count, NULL));
    CHECK(H5Dwrite(d, H5T_NATIVE_FLOAT, ms, fs, dxpl, buf));
    H5Sclose(ms);
    H5Sclose(fs);
    free(buf);
}

static hid_t make(hid_t g, const char *name, bool zip, bool ext)
{
    hsize_t dims[2] = {ext ? 0 : NY, NX}, maxd[2] = {ext ? H5S_UNLIMITED : NY, NX}, ch[2] = {CY, CX};
    hid_t s = H5Screate_simple(2, dims, maxd), dcpl = H5Pcreate(H5P_DATASET_CREATE);
    CHECK(H5Pset_chunk(dcpl, 2, ch));
    float fill = -1;
    CHECK(H5Pset_fill_value(dcpl, H5T_NATIVE_FLOAT, &fill));
    if (zip) {
        CHECK(H5Pset_shuffle(dcpl));
        CHECK(H5Pset_deflate(dcpl, 4));
    }
    hid_t d = H5Dcreate2(g, name, H5T_IEEE_F32LE, s, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    CHECK(d);
    put_attr_str(d, "units", zip ? "K (deflated)" : "K");
    H5Pclose(dcpl);
    H5Sclose(s);
    return d;
}

static int check(hid_t f, const char *name)
{
    int bad = 0;
    hid_t d = H5Dopen2(f, name, H5P_DEFAULT);
    CHECK(d);
    float *buf = malloc(NY * NX * sizeof *buf);
    CHECK(H5Dread(d, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf));
    const char *base = strrchr(name, '/') + 1;
    for (hsize_t i = 0; i < NY; i++)
        for (hsize_t j = 0; j < NX; j++)
            if (buf[i * NX + j] != (*base != 'f' || j % 3 == 0 ? value(base, i, j) : -1.0f) && bad++ < 3)
                fprintf(stderr, "rank %d: %s[%llu][%llu] = %g, expected %g\n", rank, name,
                        (unsigned long long)i, (unsigned long long)j, buf[i * NX + j], value(base, i, j));
    free(buf);
    H5Dclose(d);
    return bad;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    if (argc != 2) {
        fprintf(stderr, "usage: par_bands OUT\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    CHECK(H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL));
    CHECK(H5Pset_all_coll_metadata_ops(fapl, 1));
    CHECK(H5Pset_coll_metadata_write(fapl, 1));
    hid_t f = H5Fcreate(argv[1], H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    CHECK(f);
    put_attr_str(f, "title", "bands of rows written by every rank");
    hid_t g = H5Gcreate2(f, "grid", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    CHECK(g);
    int iv[3] = {NY, NX, CY};
    hsize_t three = 3;
    hid_t as = H5Screate_simple(1, &three, NULL),
          a = H5Acreate2(g, "shape_and_chunk", H5T_STD_I32LE, as, H5P_DEFAULT, H5P_DEFAULT);
    CHECK(H5Awrite(a, H5T_NATIVE_INT, iv));
    H5Aclose(a);
    H5Sclose(as);

    hid_t coll = H5Pcreate(H5P_DATASET_XFER), ind = H5Pcreate(H5P_DATASET_XFER);
    CHECK(H5Pset_dxpl_mpio(coll, H5FD_MPIO_COLLECTIVE));
    CHECK(H5Pset_dxpl_mpio(ind, H5FD_MPIO_INDEPENDENT));
    hsize_t r0, r1;
    band(&r0, &r1);
    hsize_t mid = r0 + (r1 - r0) / 2;
    const char *names[4] = {"araw_coll", "braw_ind", "czip_coll", "dzip_ind"};
    for (int k = 0; k < 4; k++) {
        bool zip = k >= 2, collective = k % 2 == 0;
        hid_t d = make(g, names[k], zip, false);
        if (collective) {
            write_rows(d, names[k], r0, r1, 0, 1, coll);
        } else if (!zip) { /* even columns, then odd ones: selections of many blocks */
            write_rows(d, names[k], r0, r1, 0, 2, ind);
            write_rows(d, names[k], r0, r1, 1, 2, ind);
        } else { /* two halves of the band */
            write_rows(d, names[k], r0, mid, 0, 1, ind);
            write_rows(d, names[k], mid, r1, 0, 1, ind);
        }
        CHECK(H5Dclose(d));
    }
    /* points (every third column of the band), independently: point selections over shared
     * chunks */
    {
        hid_t d = make(g, "fpoints", false, false);
        size_t np = 0;
        hsize_t *pts = malloc((r1 - r0 + 1) * NX * 2 * sizeof *pts);
        float *pv = malloc((r1 - r0 + 1) * NX * sizeof *pv);
        for (hsize_t i = r0; i < r1; i++)
            for (hsize_t j = 0; j < NX; j += 3) {
                pts[2 * np] = i;
                pts[2 * np + 1] = j;
                pv[np++] = value("fpoints", i, j);
            }
        hid_t fs = H5Dget_space(d);
        hsize_t n1 = np;
        hid_t ms = H5Screate_simple(1, &n1, NULL);
        if (np) {
            CHECK(H5Sselect_elements(fs, H5S_SELECT_SET, np, pts));
        } else {
            CHECK(H5Sselect_none(fs));
            CHECK(H5Sselect_none(ms));
        }
        CHECK(H5Dwrite(d, H5T_NATIVE_FLOAT, ms, fs, ind, pv));
        H5Sclose(ms);
        H5Sclose(fs);
        free(pts);
        free(pv);
        CHECK(H5Dclose(d));
    }
    CHECK(H5Fflush(f, H5F_SCOPE_GLOBAL));
    /* an extendible dataset grown collectively, then written band by band */
    hid_t e = make(g, "eext", false, true);
    hsize_t nd[2] = {NY, NX};
    CHECK(H5Dset_extent(e, nd));
    write_rows(e, "eext", r0, r1, 0, 1, coll);
    CHECK(H5Dclose(e));
    H5Pclose(coll);
    H5Pclose(ind);
    H5Gclose(g);
    CHECK(H5Fclose(f));

    /* every rank reads everything back */
    f = H5Fopen(argv[1], H5F_ACC_RDONLY, fapl);
    CHECK(f);
    int bad = 0;
    const char *paths[5] = {"/grid/araw_coll", "/grid/braw_ind", "/grid/czip_coll", "/grid/dzip_ind",
                            "/grid/eext"};
    for (int k = 0; k < 5; k++)
        bad += check(f, paths[k]);
    CHECK(H5Fclose(f));
    H5Pclose(fapl);
    int allbad = 0;
    MPI_Allreduce(&bad, &allbad, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("%s: %d ranks, %d wrong values\n", argv[1], nranks, allbad);
    MPI_Finalize();
    return allbad != 0;
}
