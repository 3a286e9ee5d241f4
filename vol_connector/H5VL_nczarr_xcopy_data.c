/* Values copied across connectors (H5VL_nczarr_xcopy.c): a dataset's in blocks of whole
 * chunks (only the stored chunks of a sparse one, nothing of one never written; a block of
 * only the fill value is not written), an attribute's at once; values holding references
 * made to name the copies of their objects (H5VL_nczarr_xcopy_refs.c). */
#include "H5VL_nczarr_xcopy.h"
#include "H5VL_nczarr_xcopy_int.h"

#include <stdlib.h>
#include <string.h>

/* Whether `ptr` holds `n` copies of the element `fill`. */
static bool all_fill(const unsigned char *ptr, size_t n, const unsigned char *fill, size_t esz)
{
    return n == 0 || (!memcmp(ptr, fill, esz) && (n == 1 || !memcmp(ptr, ptr + esz, (n - 1) * esz)));
}

/* Reads values from one side, writes them on the other (after making their references
 * name the copies): attributes when both are attributes, else dataset selections. */
typedef struct xio {
    hid_t src, dst; /* attributes or datasets */
    bool attr;
    hid_t mem_type;  /* the values in memory */
    bool refs;       /* mem_type holds H5T_STD_REF values, to be made to name the copies */
    char label[512]; /* the source object's path, for messages */
} xio;

static herr_t move_values(xcopy *x, const xio *io, hid_t mspace, hid_t fspace, hsize_t n, const void *fill,
                          bool *skipped)
{
    herr_t ret = SUCCEED;
    size_t esz = H5Tget_size(io->mem_type);
    unsigned char *buf = calloc(n ? (size_t)n : 1, esz ? esz : 1);
    bool read = false;
    if (!buf)
        NCZ_GOTO(FAIL, NCZ_E_NOMEM, "out of memory copying %llu values", (unsigned long long)n);
    if ((io->attr ? H5Aread(io->src, io->mem_type, buf)
                  : H5Dread(io->src, io->mem_type, mspace, fspace, H5P_DEFAULT, buf)) < 0)
        XFAIL("copy: cannot read the values of \"%s\"", io->label);
    read = true;
    if (fill && all_fill(buf, (size_t)n, fill, esz)) {
        *skipped = true;
        goto done;
    }
    if (io->refs &&
        H5VL_nczarr_xcopy_remap(x->src_root, x->dst_root, x->dst_file, io->mem_type, buf, (size_t)n) < 0)
        NCZ_GOTO_QUIET(FAIL);
    if ((io->attr ? H5Awrite(io->dst, io->mem_type, buf)
                  : H5Dwrite(io->dst, io->mem_type, mspace, fspace, H5P_DEFAULT, buf)) < 0)
        XFAIL("copy: cannot write the values of the copy of \"%s\"", io->label);
done:
    if (read && buf &&
        (io->refs || H5Tdetect_class(io->mem_type, H5T_VLEN) > 0 || H5Tis_variable_str(io->mem_type) > 0)) {
        hid_t sp = mspace != H5S_ALL ? H5Scopy(mspace) : H5Screate_simple(1, &n, NULL);
        if (sp >= 0) {
            (void)H5Treclaim(io->mem_type, sp, H5P_DEFAULT, buf);
            H5Sclose(sp);
        }
    }
    free(buf);
    return ret;
}

/* The extent of each block, in elements: whole chunks (or rows of a contiguous dataset),
 * grown from the fastest dimension outwards up to XCOPY_BLOCK_BYTES. */
static void block_shape(int rank, const hsize_t *dims, const hsize_t *chunk, size_t esz, hsize_t *b)
{
    size_t bytes = esz ? esz : 1;
    for (int i = 0; i < rank; i++) {
        b[i] = chunk ? chunk[i] : 1;
        bytes *= (size_t)b[i];
    }
    for (int i = rank - 1; i >= 0; i--) {
        hsize_t mult = (dims[i] + b[i] - 1) / b[i];
        if (mult == 0)
            mult = 1;
        if (bytes * mult <= XCOPY_BLOCK_BYTES) {
            b[i] *= mult;
            bytes *= (size_t)mult;
            continue;
        }
        hsize_t k = bytes < XCOPY_BLOCK_BYTES ? XCOPY_BLOCK_BYTES / bytes : 1;
        b[i] *= k ? k : 1;
        break;
    }
}

typedef struct {
    hsize_t *off; /* rank offsets per chunk */
    size_t n, cap;
    int rank;
} chunklist;

static int chunk_cb(const hsize_t *offset, unsigned filter_mask, haddr_t addr, hsize_t size, void *ud)
{
    (void)filter_mask;
    (void)addr;
    (void)size;
    chunklist *c = ud;
    if (c->n == c->cap) {
        size_t nc = c->cap ? 2 * c->cap : 64;
        hsize_t *no = realloc(c->off, nc * (size_t)c->rank * sizeof *no);
        if (!no)
            return H5_ITER_ERROR;
        c->off = no;
        c->cap = nc;
    }
    memcpy(c->off + c->n++ * (size_t)c->rank, offset, (size_t)c->rank * sizeof *offset);
    return H5_ITER_CONT;
}

/* A chunked dataset with fewer than half its chunks stored (a native file's; a store does
 * not list its chunks through HDF5) is copied chunk by chunk, only the stored ones: 1 when
 * done so, 0 when it is not such a dataset, -1 on failure. */
static int copy_sparse_chunks(xcopy *x, const xio *io, hid_t sd, hid_t space, int rank, const hsize_t *dims,
                              const hsize_t *chunk, const void *fill)
{
    hsize_t stored = 0, total = 1;
    herr_t r = FAIL;
    for (int i = 0; i < rank; i++)
        total *= (dims[i] + chunk[i] - 1) / chunk[i];
    H5E_BEGIN_TRY
    {
        r = H5Dget_num_chunks(sd, H5S_ALL, &stored);
    }
    H5E_END_TRY
    if (r < 0 || stored >= total / 2)
        return 0;
    chunklist c = {NULL, 0, 0, rank};
    int ret = 1;
    if (H5Dchunk_iter(sd, H5P_DEFAULT, chunk_cb, &c) < 0) {
        H5VL_nczarr_xcopy_fail("copy of \"%s\": cannot list its chunks", io->label);
        ret = -1;
    }
    for (size_t k = 0; ret > 0 && k < c.n; k++) {
        hsize_t count[H5S_MAX_RANK], n = 1;
        const hsize_t *start = c.off + k * (size_t)rank;
        for (int i = 0; i < rank; i++) {
            count[i] = dims[i] - start[i] < chunk[i] ? dims[i] - start[i] : chunk[i];
            n *= count[i];
        }
        hid_t ms = H5I_INVALID_HID;
        bool skipped = false;
        if (H5Sselect_hyperslab(space, H5S_SELECT_SET, start, NULL, count, NULL) < 0 ||
            (ms = H5Screate_simple(rank, count, NULL)) < 0) {
            NCZ_PUSH(NCZ_E_HDF5, "copy of \"%s\": cannot select a chunk", io->label);
            ret = -1;
        } else if (move_values(x, io, ms, space, n, fill, &skipped) < 0)
            ret = -1;
        if (ms >= 0)
            H5Sclose(ms);
    }
    free(c.off);
    return ret;
}

herr_t H5VL_nczarr_xcopy_dataset_values(xcopy *x, hid_t sd, hid_t dd, bool refs)
{
    herr_t ret = SUCCEED;
    hid_t ftype = H5I_INVALID_HID, space = H5I_INVALID_HID, dcpl = H5I_INVALID_HID, mspace = H5I_INVALID_HID;
    xio io = {sd, dd, false, H5I_INVALID_HID, refs, ""};
    (void)H5Iget_name(sd, io.label, sizeof io.label);
    unsigned char *fill = NULL;
    hsize_t dims[H5S_MAX_RANK], chunk[H5S_MAX_RANK], b[H5S_MAX_RANK], start[H5S_MAX_RANK],
        count[H5S_MAX_RANK];
    if ((ftype = H5Dget_type(sd)) < 0 || (space = H5Dget_space(sd)) < 0 ||
        (dcpl = H5Dget_create_plist(sd)) < 0)
        XFAIL("copy of \"%s\": cannot describe the dataset", io.label);
    if ((io.mem_type = refs ? H5VL_nczarr_xcopy_ref_type(ftype) : H5Tcopy(ftype)) < 0)
        NCZ_GOTO_QUIET(FAIL);
    hssize_t npts = H5Sget_simple_extent_npoints(space);
    if (npts <= 0)
        goto done;
    size_t esz = H5Tget_size(io.mem_type);
    bool vl = refs || H5Tdetect_class(io.mem_type, H5T_VLEN) > 0 || H5Tis_variable_str(io.mem_type) > 0;
    H5D_fill_time_t ft = H5D_FILL_TIME_IFSET;
    if (!vl && H5Pget_fill_time(dcpl, &ft) >= 0 && ft != H5D_FILL_TIME_NEVER) {
        /* a block of only the fill value reads back the same unwritten */
        if ((fill = calloc(1, esz)) && H5Pget_fill_value(dcpl, io.mem_type, fill) < 0) {
            free(fill);
            fill = NULL;
            H5Eclear2(H5E_DEFAULT);
        }
    }
    bool skipped = false;
    /* nothing stored (a huge dataset never written, say): every value is the fill value */
    H5D_layout_t layout = H5Pget_layout(dcpl);
    if (layout != H5D_COMPACT && layout != H5D_VIRTUAL && H5Pget_external_count(dcpl) <= 0 &&
        H5Dget_storage_size(sd) == 0)
        goto done;
    if (H5Sget_simple_extent_type(space) == H5S_SCALAR) {
        ret = move_values(x, &io, H5S_ALL, H5S_ALL, 1, fill, &skipped);
        goto done;
    }
    int rank = H5Sget_simple_extent_dims(space, dims, NULL);
    if (rank <= 0)
        NCZ_GOTO(FAIL, NCZ_E_HDF5, "copy of \"%s\": cannot read the dataspace", io.label);
    bool chunked = H5Pget_layout(dcpl) == H5D_CHUNKED && H5Pget_chunk(dcpl, rank, chunk) == rank;
    if (chunked) {
        int sparse = copy_sparse_chunks(x, &io, sd, space, rank, dims, chunk, fill);
        if (sparse != 0) {
            ret = sparse < 0 ? FAIL : SUCCEED;
            goto done;
        }
    }
    block_shape(rank, dims, chunked ? chunk : NULL, vl ? esz * 64 : esz, b);
    memset(start, 0, sizeof start);
    for (;;) {
        hsize_t n = 1;
        for (int i = 0; i < rank; i++) {
            count[i] = dims[i] - start[i] < b[i] ? dims[i] - start[i] : b[i];
            n *= count[i];
        }
        if (H5Sselect_hyperslab(space, H5S_SELECT_SET, start, NULL, count, NULL) < 0 ||
            (mspace = H5Screate_simple(rank, count, NULL)) < 0)
            NCZ_GOTO(FAIL, NCZ_E_HDF5, "copy of \"%s\": cannot select a block", io.label);
        if (move_values(x, &io, mspace, space, n, fill, &skipped) < 0)
            NCZ_GOTO_QUIET(FAIL);
        H5Sclose(mspace);
        mspace = H5I_INVALID_HID;
        int i = rank - 1;
        for (; i >= 0; i--) {
            start[i] += b[i];
            if (start[i] < dims[i])
                break;
            start[i] = 0;
        }
        if (i < 0)
            break;
    }
done:
    free(fill);
    if (mspace >= 0)
        H5Sclose(mspace);
    if (io.mem_type >= 0)
        H5Tclose(io.mem_type);
    if (dcpl >= 0)
        H5Pclose(dcpl);
    if (space >= 0)
        H5Sclose(space);
    if (ftype >= 0)
        H5Tclose(ftype);
    return ret;
}

herr_t H5VL_nczarr_xcopy_attr_value(xcopy *x, hid_t sa, hid_t da, bool refs)
{
    herr_t ret = SUCCEED;
    hid_t t = H5I_INVALID_HID, sp = H5I_INVALID_HID;
    xio io = {sa, da, true, H5I_INVALID_HID, refs, ""};
    (void)H5Aget_name(sa, sizeof io.label, io.label);
    bool skipped = false;
    if ((t = H5Aget_type(sa)) < 0 || (sp = H5Aget_space(sa)) < 0)
        XFAIL("copy of attribute \"%s\": cannot describe it", io.label);
    if ((io.mem_type = refs ? H5VL_nczarr_xcopy_ref_type(t) : H5Tcopy(t)) < 0)
        NCZ_GOTO_QUIET(FAIL);
    hssize_t n = H5Sget_simple_extent_npoints(sp);
    if (n > 0)
        ret = move_values(x, &io, H5S_ALL, H5S_ALL, (hsize_t)n, NULL, &skipped);
done:
    if (io.mem_type >= 0)
        H5Tclose(io.mem_type);
    if (sp >= 0)
        H5Sclose(sp);
    if (t >= 0)
        H5Tclose(t);
    return ret;
}

/* Pushes a message with the reasons the last failed HDF5 call left on the stack (the next
 * API call would clear them). */
herr_t H5VL_nczarr_xcopy_fail(const char *fmt, ...)
{
    char what[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    char *why = ncz_err_take_stack();
    NCZ_PUSH(NCZ_E_HDF5, "%s%s%s", what, why ? ": " : "", why ? why : "");
    free(why);
    return FAIL;
}
