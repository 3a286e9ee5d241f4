/* Fuzz target (a): a whole store. The input is a list of records, each a line
 * "@@<key>\n" followed by the object's bytes up to the next "\n@@" (fuzz_records.h); the
 * records become the objects of a directory store on tmpfs, which HDF5 then opens through
 * the connector of this build, walks (every link, object and attribute) and reads: every
 * dataset's first block, first chunk and last element, every attribute whole. Zarr v2, v3 and
 * consolidated metadata (.zmetadata) come from the keys the input names; text before the
 * first record holding "rw" opens the store for writing as well and adds a group and an
 * attribute, so that the metadata is saved again. The harness bounds what it asks for
 * (1 Mi elements, 64 MiB a read); whatever the connector allocates on its own is bounded by
 * libFuzzer's -malloc_limit_mb. */
#include "fuzz_records.h"

#include <hdf5.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define READ_MAX_ELEMENTS ((hsize_t)1 << 20)
#define READ_MAX_BYTES    ((size_t)64 << 20)

static char store_dir[4096];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    setenv("HDF5_PLUGIN_PATH", NCZARR_FUZZ_PLUGIN_DIR, 1);
    setenv("HDF5_VOL_CONNECTOR", "nczarr", 1);
    const char *tmp = getenv("TMPDIR");
    snprintf(store_dir, sizeof store_dir, "%s/nczarr-fuzz-store-%ld", tmp && *tmp ? tmp : "/tmp",
             (long)getpid());
    if (H5open() < 0)
        abort();
    /* HDF5 falls back to its native connector when a plugin does not load: every input
     * would then fail to open, and the target would fuzz nothing without a word */
    if (H5VLis_connector_registered_by_name("nczarr") <= 0) {
        fprintf(stderr, "fuzz_store: the nczarr connector did not load from %s\n", NCZARR_FUZZ_PLUGIN_DIR);
        abort();
    }
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    return 0;
}

/* Reads what sel selects of a dataset or an attribute (is_attr) in its own type, and frees
 * what a variable-length type allocated. */
static void read_selection(hid_t obj, int is_attr, hid_t ftype, hid_t fspace, hssize_t npoints)
{
    size_t tsize = H5Tget_size(ftype);
    if (npoints <= 0 || tsize == 0 || (size_t)npoints > READ_MAX_BYTES / tsize)
        return;
    hid_t mtype = H5Tget_native_type(ftype, H5T_DIR_DEFAULT);
    if (mtype < 0)
        mtype = H5Tcopy(ftype);
    if (mtype < 0)
        return;
    size_t msize = H5Tget_size(mtype);
    if (msize == 0 || (size_t)npoints > READ_MAX_BYTES / msize) {
        H5Tclose(mtype);
        return;
    }
    void *buf = calloc((size_t)npoints, msize);
    hsize_t n = (hsize_t)npoints;
    hid_t mspace = H5Screate_simple(1, &n, NULL);
    if (buf && mspace >= 0) {
        herr_t st =
            is_attr ? H5Aread(obj, mtype, buf) : H5Dread(obj, mtype, mspace, fspace, H5P_DEFAULT, buf);
        if (st >= 0)
            H5Treclaim(mtype, is_attr ? fspace : mspace, H5P_DEFAULT, buf);
    }
    if (mspace >= 0)
        H5Sclose(mspace);
    free(buf);
    H5Tclose(mtype);
}

static herr_t attr_cb(hid_t loc, const char *name, const H5A_info_t *info, void *ud)
{
    (void)info;
    (void)ud;
    hid_t a = H5Aopen(loc, name, H5P_DEFAULT);
    if (a < 0)
        return 0;
    hid_t t = H5Aget_type(a), s = H5Aget_space(a);
    if (t >= 0 && s >= 0)
        read_selection(a, 1, t, s, H5Sget_simple_extent_npoints(s));
    if (s >= 0)
        H5Sclose(s);
    if (t >= 0)
        H5Tclose(t);
    H5Aclose(a);
    return 0;
}

static void read_dataset(hid_t d)
{
    hid_t t = H5Dget_type(d), s = H5Dget_space(d);
    if (t < 0 || s < 0)
        goto done;
    int rank = H5Sget_simple_extent_ndims(s);
    if (rank < 0 || rank > H5S_MAX_RANK)
        goto done;
    if (rank == 0) {
        read_selection(d, 0, t, s, 1);
        goto done;
    }
    hsize_t dims[H5S_MAX_RANK], start[H5S_MAX_RANK], count[H5S_MAX_RANK];
    if (H5Sget_simple_extent_dims(s, dims, NULL) < 0)
        goto done;
    hsize_t total = 1;
    for (int i = 0; i < rank; i++) {
        if (dims[i] == 0)
            goto done;
        start[i] = 0;
        count[i] = dims[i];
    }
    /* The first block, cut down to READ_MAX_ELEMENTS in all. */
    for (int i = 0; i < rank; i++) {
        hsize_t room = READ_MAX_ELEMENTS / total;
        if (count[i] > room)
            count[i] = room ? room : 1;
        total *= count[i];
    }
    if (H5Sselect_hyperslab(s, H5S_SELECT_SET, start, NULL, count, NULL) >= 0)
        read_selection(d, 0, t, s, (hssize_t)total);
    /* The first chunk as the dataset's creation plist gives it: in a sharded array an inner
     * chunk, read by byte range from its shard (a partial shard read). */
    hid_t dcpl = H5Dget_create_plist(d);
    hsize_t cdims[H5S_MAX_RANK];
    if (dcpl >= 0 && H5Pget_layout(dcpl) == H5D_CHUNKED && H5Pget_chunk(dcpl, rank, cdims) == rank) {
        hsize_t n = 1;
        for (int i = 0; i < rank; i++) {
            count[i] = cdims[i] < dims[i] ? cdims[i] : dims[i];
            n = count[i] && n > READ_MAX_ELEMENTS / count[i] ? READ_MAX_ELEMENTS + 1 : n * count[i];
        }
        if (n <= READ_MAX_ELEMENTS && H5Sselect_hyperslab(s, H5S_SELECT_SET, start, NULL, count, NULL) >= 0)
            read_selection(d, 0, t, s, (hssize_t)n);
    }
    if (dcpl >= 0)
        H5Pclose(dcpl);
    /* The last element: another chunk (or shard) where there are several. */
    for (int i = 0; i < rank; i++) {
        start[i] = dims[i] - 1;
        count[i] = 1;
    }
    if (H5Sselect_hyperslab(s, H5S_SELECT_SET, start, NULL, count, NULL) >= 0)
        read_selection(d, 0, t, s, 1);
done:
    if (s >= 0)
        H5Sclose(s);
    if (t >= 0)
        H5Tclose(t);
}

static void walk_object(hid_t obj)
{
    H5Aiterate2(obj, H5_INDEX_NAME, H5_ITER_INC, NULL, attr_cb, NULL);
    H5I_type_t kind = H5Iget_type(obj);
    if (kind == H5I_DATASET) {
        read_dataset(obj);
        hid_t dcpl = H5Dget_create_plist(obj);
        if (dcpl >= 0)
            H5Pclose(dcpl);
    }
}

static herr_t link_cb(hid_t g, const char *name, const H5L_info2_t *info, void *ud)
{
    (void)ud;
    if (info->type == H5L_TYPE_SOFT) {
        char target[1024];
        H5Lget_val(g, name, target, sizeof target, H5P_DEFAULT);
        return 0;
    }
    if (info->type != H5L_TYPE_HARD)
        return 0;
    hid_t o = H5Oopen(g, name, H5P_DEFAULT);
    if (o < 0)
        return 0;
    H5O_info2_t oi;
    H5Oget_info3(o, &oi, H5O_INFO_ALL);
    walk_object(o);
    H5Oclose(o);
    return 0;
}

static void walk_file(hid_t f)
{
    hid_t root = H5Gopen2(f, "/", H5P_DEFAULT);
    if (root < 0)
        return;
    walk_object(root);
    H5Lvisit2(root, H5_INDEX_NAME, H5_ITER_INC, link_cb, NULL);
    H5Gclose(root);
}

static void write_some(hid_t f)
{
    hid_t g = H5Gcreate2(f, "fuzz_new_group", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (g >= 0)
        H5Gclose(g);
    hid_t s = H5Screate(H5S_SCALAR);
    hid_t a = H5Acreate2(f, "fuzz_new_attr", H5T_NATIVE_INT, s, H5P_DEFAULT, H5P_DEFAULT);
    if (a >= 0) {
        int v = 7;
        H5Awrite(a, H5T_NATIVE_INT, &v);
        H5Aclose(a);
    }
    H5Sclose(s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    int rw = 0;
    if (fuzz_records_to_dir(data, size, store_dir, &rw) != 0)
        return 0;
    hid_t f = H5Fopen(store_dir, rw ? H5F_ACC_RDWR : H5F_ACC_RDONLY, H5P_DEFAULT);
    if (f >= 0) {
        walk_file(f);
        if (rw)
            write_some(f);
        H5Fclose(f);
        if (rw) { /* what was saved opens again */
            f = H5Fopen(store_dir, H5F_ACC_RDONLY, H5P_DEFAULT);
            if (f >= 0) {
                walk_file(f);
                H5Fclose(f);
            }
        }
    }
    H5Eclear2(H5E_DEFAULT);
    fuzz_remove_tree(store_dir);
    return 0;
}
