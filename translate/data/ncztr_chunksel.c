/* Chunk-level view of a selection: which chunks an I/O call touches, and, per chunk, the
 * chunk-local file selection and the matching memory selection.
 *
 * Hyperslab and "all" selections are enumerated exactly from their structure ("all" and
 * regular hyperslabs are a product of per-dimension chunk ranges; irregular ones test each
 * chunk of the bounding box). Point selections, on either side, use element mode instead:
 * every selected element's chunk, offset in the chunk and offset in memory are listed
 * once and sorted by chunk, which costs O(n log n) however many chunks there are, where
 * projecting a point selection onto each chunk would cost O(n) per chunk.
 */
#include "ncztr_chunkio_internal.h"

#include <stdlib.h>
#include <string.h>

#define RMAX NCZTR_MAX_RANK

void ncztr_enum_clear(ncztr_chunk_enum *e)
{
    for (int k = 0; k < RMAX; k++)
        free(e->r[k]);
    free(e->el);
    memset(e, 0, sizeof *e);
}

static herr_t range_add(ncztr_chunk_enum *e, int k, uint64_t lo, uint64_t hi)
{
    if (e->nr[k] && lo <= e->r[k][e->nr[k] - 1].hi + 1) {
        if (hi > e->r[k][e->nr[k] - 1].hi)
            e->r[k][e->nr[k] - 1].hi = hi;
        return SUCCEED;
    }
    if (e->nr[k] == e->cap[k]) {
        size_t nc = e->cap[k] ? e->cap[k] * 2 : 4;
        ncztr_crange *v = realloc(e->r[k], nc * sizeof *v);
        if (!v)
            return NCZ_PUSH(NCZ_E_NOMEM, "out of memory listing chunks");
        e->r[k] = v;
        e->cap[k] = nc;
    }
    e->r[k][e->nr[k]++] = (ncztr_crange){lo, hi};
    return SUCCEED;
}

/* Chunks of dimension k touched by the 1-D pattern start + i*stride + [0, block), i <
 * count: by walking whichever is fewer, the blocks or the chunks they span. */
static herr_t regular_dim(ncztr_chunk_enum *e, int k, hsize_t ch, hsize_t start, hsize_t stride,
                          hsize_t count, hsize_t block)
{
    hsize_t last = start + (count - 1) * stride + block - 1;
    uint64_t c0 = start / ch, c1 = last / ch;
    if (count == 1 || stride <= block)
        return range_add(e, k, c0, c1);
    if (count <= c1 - c0 + 1) {
        for (hsize_t i = 0; i < count; i++) {
            hsize_t s = start + i * stride;
            if (range_add(e, k, s / ch, (s + block - 1) / ch) < 0)
                return FAIL;
        }
        return SUCCEED;
    }
    for (uint64_t c = c0; c <= c1; c++) {
        hsize_t lo = c * ch, hi = lo + ch - 1, i = 0;
        if (start + block - 1 < lo)
            i = (lo - (start + block - 1) + stride - 1) / stride; /* first block ending in the chunk */
        if (i < count && start + i * stride <= hi && range_add(e, k, c, c) < 0)
            return FAIL;
    }
    return SUCCEED;
}

/* Linear element offsets of a selection within its extent, in HDF5's iteration order
 * (list order for points). */
static herr_t sel_offsets(const char *path, hid_t space, size_t n, hsize_t *out)
{
    herr_t ret = SUCCEED;
    hsize_t off[NCZTR_NSEQ];
    size_t len[NCZTR_NSEQ], nseq = 0, nelem = 0, k = 0;
    hid_t it = H5Ssel_iter_create(space, 1, H5S_SEL_ITER_SHARE_WITH_DATASPACE);
    if (it < 0)
        NCZ_GOTO(FAIL, NCZ_E_HDF5, "dataset \"%s\": cannot iterate over a selection", path);
    do {
        if (H5Ssel_iter_get_seq_list(it, NCZTR_NSEQ, SIZE_MAX, &nseq, &nelem, off, len) < 0)
            NCZ_GOTO(FAIL, NCZ_E_HDF5, "dataset \"%s\": cannot iterate over a selection", path);
        for (size_t i = 0; i < nseq; i++)
            for (size_t j = 0; j < len[i]; j++) {
                if (k == n)
                    NCZ_GOTO(FAIL, NCZ_E_INTERNAL, "dataset \"%s\": selection larger than counted", path);
                out[k++] = off[i] + j;
            }
    } while (nseq > 0);
    if (k != n)
        NCZ_GOTO(FAIL, NCZ_E_INTERNAL, "dataset \"%s\": selection smaller than counted", path);
done:;
    hid_t es = ncztr_err_hold(ret);
    if (it >= 0)
        H5Ssel_iter_close(it);
    ncz_err_restore(es);
    return ret;
}

static int cmp_elem(const void *a, const void *b)
{
    const ncztr_elem *x = a, *y = b;
    if (x->chunk != y->chunk)
        return x->chunk < y->chunk ? -1 : 1;
    return x->i < y->i ? -1 : x->i > y->i; /* keeps selection order within a chunk */
}

/* Element mode: lists every selected element with its chunk (linear index in the chunk
 * grid), its offset inside the chunk and its offset in memory, sorted by chunk. */
static herr_t elem_init(ncztr_ioctx *x, ncztr_chunk_enum *e, size_t n)
{
    herr_t ret = SUCCEED;
    int rank = x->g.rank;
    const hsize_t *ch = x->g.chunks;
    hsize_t *tmp = malloc(n * sizeof *tmp);
    e->el = malloc(n * sizeof *e->el);
    NCZ_CHECK_ALLOC(tmp && e->el, FAIL);
    e->nel = n;
    for (int k = 0; k < rank; k++)
        e->nch[k] = (x->shape[k] + ch[k] - 1) / ch[k];
    if (sel_offsets(x->g.path, x->fspace, n, tmp) < 0)
        NCZ_GOTO_QUIET(FAIL);
    for (size_t i = 0; i < n; i++) {
        uint64_t c[RMAX], off = tmp[i], chunk = 0, local = 0;
        for (int k = rank - 1; k >= 0; k--) {
            c[k] = off % x->shape[k];
            off /= x->shape[k];
        }
        for (int k = 0; k < rank; k++) {
            chunk = chunk * e->nch[k] + c[k] / ch[k];
            local = local * ch[k] + c[k] % ch[k];
        }
        e->el[i] = (ncztr_elem){.chunk = chunk, .local = local, .i = i};
    }
    if (sel_offsets(x->g.path, x->mspace, n, tmp) < 0)
        NCZ_GOTO_QUIET(FAIL);
    for (size_t i = 0; i < n; i++)
        e->el[i].moff = tmp[i];
    qsort(e->el, n, sizeof *e->el, cmp_elem);
    x->el = e->el;
    x->single = e->el[0].chunk == e->el[n - 1].chunk;
done:
    free(tmp);
    return ret;
}

herr_t ncztr_enum_init(ncztr_ioctx *x, ncztr_chunk_enum *e, size_t nsel)
{
    herr_t ret = SUCCEED;
    int rank = x->g.rank;
    const hsize_t *ch = x->g.chunks;
    e->rank = rank;
    x->elem = x->ftype == H5S_SEL_POINTS || H5Sget_select_type(x->mspace) == H5S_SEL_POINTS;
    if (x->elem)
        return elem_init(x, e, nsel);
    if (x->ftype == H5S_SEL_ALL) {
        for (int k = 0; k < rank; k++)
            if (range_add(e, k, 0, (x->shape[k] - 1) / ch[k]) < 0)
                NCZ_GOTO_QUIET(FAIL);
    } else if (H5Sis_regular_hyperslab(x->fspace) > 0) {
        hsize_t start[H5S_MAX_RANK], stride[H5S_MAX_RANK], count[H5S_MAX_RANK], block[H5S_MAX_RANK];
        if (H5Sget_regular_hyperslab(x->fspace, start, stride, count, block) < 0)
            NCZ_GOTO(FAIL, NCZ_E_HDF5, "dataset \"%s\": cannot read the hyperslab selection", x->g.path);
        for (int k = 0; k < rank; k++)
            if (regular_dim(e, k, ch[k], start[k], stride[k], count[k], block[k]) < 0)
                NCZ_GOTO_QUIET(FAIL);
    } else {
        hsize_t lo[H5S_MAX_RANK], hi[H5S_MAX_RANK];
        if (H5Sget_select_bounds(x->fspace, lo, hi) < 0)
            NCZ_GOTO(FAIL, NCZ_E_HDF5, "dataset \"%s\": cannot get the selection bounds", x->g.path);
        for (int k = 0; k < rank; k++)
            if (range_add(e, k, lo[k] / ch[k], hi[k] / ch[k]) < 0)
                NCZ_GOTO_QUIET(FAIL);
        e->filter = true;
    }
    x->single = true;
    for (int k = 0; k < rank; k++)
        x->single = x->single && e->nr[k] == 1 && e->r[k][0].lo == e->r[k][0].hi;
done:
    return ret;
}

size_t ncztr_enum_bound(const ncztr_chunk_enum *e, size_t cap)
{
    if (e->el)
        return e->nel < cap ? e->nel : cap;
    size_t n = 1;
    for (int k = 0; k < e->rank; k++) {
        uint64_t m = 0;
        for (size_t i = 0; i < e->nr[k] && m < cap; i++)
            m += e->r[k][i].hi - e->r[k][i].lo + 1;
        n *= m < cap ? (size_t)m : cap;
        if (n >= cap)
            return cap;
    }
    return n ? n : 1;
}

/* Start and inclusive end of a chunk's block, clipped to the extent. */
static void chunk_block(const ncztr_ioctx *x, const uint64_t *coord, hsize_t *start, hsize_t *end)
{
    for (int k = 0; k < x->g.rank; k++) {
        start[k] = coord[k] * x->g.chunks[k];
        end[k] = start[k] + x->g.chunks[k] - 1;
        if (end[k] >= x->shape[k])
            end[k] = x->shape[k] - 1;
    }
}

int ncztr_enum_next(ncztr_ioctx *x, ncztr_chunk_enum *e, uint64_t *coord, size_t *eb, size_t *ee)
{
    int rank = e->rank;
    *eb = *ee = 0;
    if (e->el) {
        if (e->ei == e->nel)
            return 0;
        size_t b = e->ei;
        uint64_t c = e->el[b].chunk;
        while (e->ei < e->nel && e->el[e->ei].chunk == c)
            e->ei++;
        *eb = b;
        *ee = e->ei;
        for (int k = rank - 1; k >= 0; k--) {
            coord[k] = c % e->nch[k];
            c /= e->nch[k];
        }
        return 1;
    }
    for (;;) {
        if (e->done)
            return 0;
        if (!e->started) {
            e->started = true;
            for (int k = 0; k < rank; k++) {
                if (e->nr[k] == 0) {
                    e->done = true;
                    return 0;
                }
                e->ri[k] = 0;
                e->cur[k] = e->r[k][0].lo;
            }
        } else {
            int k = rank - 1;
            for (; k >= 0; k--) {
                if (e->cur[k] < e->r[k][e->ri[k]].hi) {
                    e->cur[k]++;
                    break;
                }
                if (e->ri[k] + 1 < e->nr[k]) {
                    e->cur[k] = e->r[k][++e->ri[k]].lo;
                    break;
                }
                e->ri[k] = 0;
                e->cur[k] = e->r[k][0].lo;
            }
            if (k < 0) {
                e->done = true;
                return 0;
            }
        }
        if (e->filter) {
            hsize_t s[RMAX], t[RMAX];
            chunk_block(x, e->cur, s, t);
            htri_t in = H5Sselect_intersect_block(x->fspace, s, t);
            if (in < 0) {
                NCZ_PUSH(NCZ_E_HDF5, "dataset \"%s\": cannot intersect the selection with a chunk",
                         x->g.path);
                return -1;
            }
            if (!in)
                continue;
        }
        memcpy(coord, e->cur, (size_t)rank * sizeof *coord);
        return 1;
    }
}

static herr_t select_block(ncztr_ioctx *x, hid_t space, const uint64_t *coord)
{
    hsize_t s[RMAX], t[RMAX], one[RMAX], cnt[RMAX];
    chunk_block(x, coord, s, t);
    for (int k = 0; k < x->g.rank; k++) {
        one[k] = 1;
        cnt[k] = t[k] - s[k] + 1;
    }
    return H5Sselect_hyperslab(space, H5S_SELECT_SET, s, NULL, one, cnt);
}

/* The file selection inside chunk coord, in chunk-local coordinates over the chunk's
 * full extent (so that iterator offsets index the raw chunk buffer). *vol = in-bounds
 * elements of the chunk. Not for element mode. */
hid_t ncztr_chunk_fsel(ncztr_ioctx *x, const uint64_t *coord, size_t *vol)
{
    int rank = x->g.rank;
    hsize_t s[RMAX], t[RMAX], one[RMAX], cnt[RMAX], zero[RMAX];
    hssize_t off[RMAX];
    hid_t fs = H5I_INVALID_HID;
    chunk_block(x, coord, s, t);
    *vol = 1;
    for (int k = 0; k < rank; k++) {
        one[k] = 1;
        zero[k] = 0;
        cnt[k] = t[k] - s[k] + 1;
        off[k] = (hssize_t)s[k];
        *vol *= (size_t)cnt[k];
    }
    if (x->ftype == H5S_SEL_ALL) {
        fs = H5Screate_simple(rank, x->g.chunks, NULL);
        if (fs >= 0 && *vol != x->g.chunk_elems &&
            H5Sselect_hyperslab(fs, H5S_SELECT_SET, zero, NULL, one, cnt) < 0)
            goto fail;
        return fs;
    }
    /* a hyperslab: keep the part inside the chunk, then move it to chunk coordinates */
    fs = H5Scopy(x->fspace);
    if (fs < 0 || (!x->single && H5Sselect_hyperslab(fs, H5S_SELECT_AND, s, NULL, one, cnt) < 0))
        goto fail;
    if (H5Sselect_adjust(fs, off) < 0 || H5Sset_extent_simple(fs, rank, x->g.chunks, NULL) < 0)
        goto fail;
    return fs;
fail:
    if (fs >= 0)
        H5Sclose(fs);
    return H5I_INVALID_HID;
}

/* The memory selection matching the file elements in chunk coord. *borrowed when it is
 * the memory space itself (not to be closed). Not for element mode. */
hid_t ncztr_chunk_msel(ncztr_ioctx *x, const uint64_t *coord, bool *borrowed)
{
    *borrowed = false;
    if (x->single) {
        *borrowed = true;
        return x->mspace;
    }
    if (x->same_all) {
        /* file "all" = memory "all" of the same shape: the block is the same in both */
        hid_t ms = H5Scopy(x->mspace);
        if (ms >= 0 && select_block(x, ms, coord) < 0) {
            H5Sclose(ms);
            ms = H5I_INVALID_HID;
        }
        return ms;
    }
    if (select_block(x, x->block, coord) < 0)
        return H5I_INVALID_HID;
    return H5Sselect_project_intersection(x->fspace, x->mspace, x->block);
}
