/* Box mode of the chunk path: when the file selection is one block (a hyperslab of one
 * block, or "all") and the memory selection the same block, the elements of a chunk that a
 * call moves form a box whose place in both buffers is plain arithmetic. Copying such a box
 * calls no HDF5 function, so that it can run on the worker pool (several chunks at once,
 * or straight after a chunk is decoded on the worker that decoded it); the general path
 * walks HDF5's selection iterators on the calling thread. This is what netCDF's
 * nc_get_vara/nc_put_vara and most HDF5 programs ask for. */
#include "ncztr_chunkio_internal.h"
#include "nczc_workers.h"

#include <string.h>

#define RMAX NCZTR_MAX_RANK

/* The one block a selection makes (ALL, or a regular hyperslab whose blocks touch): start
 * and extent per dimension, and the extent dims. */
static bool one_block(hid_t space, int rank, hsize_t *start, hsize_t *count, hsize_t *dims)
{
    if (H5Sget_simple_extent_ndims(space) != rank || H5Sget_simple_extent_dims(space, dims, NULL) < 0)
        return false;
    H5S_sel_type t = H5Sget_select_type(space);
    if (t == H5S_SEL_ALL) {
        for (int k = 0; k < rank; k++) {
            start[k] = 0;
            count[k] = dims[k];
        }
        return true;
    }
    if (t != H5S_SEL_HYPERSLABS)
        return false;
    htri_t reg = H5Sis_regular_hyperslab(space);
    hsize_t st[RMAX], stride[RMAX], cnt[RMAX], blk[RMAX];
    if (reg <= 0 || H5Sget_regular_hyperslab(space, st, stride, cnt, blk) < 0) {
        H5Eclear2(H5E_DEFAULT);
        return false;
    }
    for (int k = 0; k < rank; k++) {
        if (cnt[k] > 1 && stride[k] != blk[k])
            return false;
        start[k] = st[k];
        count[k] = cnt[k] * blk[k];
    }
    return true;
}

void ncztr_box_setup(ncztr_ioctx *x)
{
    int rank = x->g.rank;
    hsize_t fdims[RMAX], mcount[RMAX], mdims[H5S_MAX_RANK], mstart[H5S_MAX_RANK];
    x->box = false;
    if (x->elem || x->convert || x->bkg || x->msz != x->g.esz ||
        !one_block(x->fspace, rank, x->bstart, x->bcount, fdims))
        return;
    if (one_block(x->mspace, rank, mstart, mcount, mdims)) {
        bool same = true;
        for (int k = 0; k < rank; k++)
            same = same && mcount[k] == x->bcount[k];
        if (same) {
            for (int k = 0; k < rank; k++) {
                x->mdims[k] = mdims[k];
                x->mstart[k] = mstart[k];
            }
            x->box = true;
            return;
        }
    }
    /* A memory selection of every element of its extent, whatever its rank: the buffer
     * holds the block densely in C order (a 1-D buffer for a 2-D block, say). */
    hssize_t nm = H5Sget_select_npoints(x->mspace);
    int mr = H5Sget_simple_extent_ndims(x->mspace);
    if (nm < 0 || mr < 1 || H5Sget_simple_extent_dims(x->mspace, mdims, NULL) < 0)
        return;
    hsize_t total = 1;
    for (int k = 0; k < mr; k++)
        total *= mdims[k];
    if ((hsize_t)nm != total)
        return;
    for (int k = 0; k < rank; k++) {
        x->mdims[k] = x->bcount[k];
        x->mstart[k] = 0;
    }
    x->box = true;
}

/* The part of the chunk of shape chunks at coord inside the block: its start in the chunk
 * (lo), extents (n) and start in memory (m), per dimension. */
static void piece_of(const ncztr_ioctx *x, const hsize_t *chunks, const uint64_t *coord, hsize_t *lo,
                     hsize_t *n, hsize_t *m)
{
    for (int k = 0; k < x->g.rank; k++) {
        hsize_t origin = coord[k] * chunks[k], a = origin > x->bstart[k] ? origin : x->bstart[k];
        hsize_t b = origin + chunks[k], be = x->bstart[k] + x->bcount[k];
        if (b > be)
            b = be;
        lo[k] = a - origin;
        n[k] = b > a ? b - a : 0;
        m[k] = x->mstart[k] + (a - x->bstart[k]);
    }
}

static void piece(const ncztr_ioctx *x, const uint64_t *coord, hsize_t *lo, hsize_t *n, hsize_t *m)
{
    piece_of(x, x->g.chunks, coord, lo, n, m);
}

int ncztr_box_cover(const ncztr_ioctx *x, const uint64_t *coord)
{
    hsize_t lo[RMAX], n[RMAX], m[RMAX];
    piece(x, coord, lo, n, m);
    int cover = NCZTR_BOX_FULL;
    for (int k = 0; k < x->g.rank; k++) {
        hsize_t origin = coord[k] * x->g.chunks[k], in = x->shape[k] - origin;
        if (in > x->g.chunks[k])
            in = x->g.chunks[k];
        if (lo[k] != 0 || n[k] != in)
            return NCZTR_BOX_PART;
        if (n[k] != x->g.chunks[k])
            cover = NCZTR_BOX_WHOLE; /* the chunk reaches past the array's edge */
    }
    return cover;
}

/* The runs of the user's buffer of a piece n[] at m[] of it (piece_of), in the piece's C
 * order, merged where they touch, into iov (at most cap of them); how many in all. */
static size_t piece_runs(const ncztr_ioctx *x, const hsize_t *n, const hsize_t *m, struct iovec *iov,
                         size_t cap)
{
    int rank = x->g.rank;
    size_t esz = x->g.esz, count = 0;
    size_t mstr[RMAX], moff = 0;
    for (int k = rank - 1; k >= 0; k--) {
        mstr[k] = k == rank - 1 ? esz : mstr[k + 1] * (size_t)x->mdims[k + 1];
        moff += (size_t)m[k] * mstr[k];
    }
    int d = rank - 1;
    size_t run = (size_t)n[d] * esz;
    while (d > 0 && n[d] == x->mdims[d]) { /* the piece is whole: only memory decides */
        d--;
        run *= (size_t)n[d];
    }
    hsize_t idx[RMAX] = {0};
    unsigned char *u = x->ubuf + moff, *end = NULL;
    for (;;) {
        if (count && end == u) {
            if (count <= cap)
                iov[count - 1].iov_len += run; /* touches the previous run */
        } else if (++count <= cap) {
            iov[count - 1] = (struct iovec){u, run};
        }
        end = u + run;
        int k = d - 1;
        for (; k >= 0; k--) {
            u += mstr[k];
            if (++idx[k] < n[k])
                break;
            u -= mstr[k] * (size_t)n[k];
            idx[k] = 0;
        }
        if (k < 0)
            return count;
    }
}

size_t ncztr_box_iov(const ncztr_ioctx *x, const uint64_t *coord, struct iovec *iov, size_t cap)
{
    hsize_t lo[RMAX], n[RMAX], m[RMAX];
    piece(x, coord, lo, n, m);
    return piece_runs(x, n, m, iov, cap);
}

unsigned char *ncztr_box_direct(const ncztr_ioctx *x, const uint64_t *coord)
{
    if (x->g.transpose)
        return NULL;
    hsize_t lo[RMAX], n[RMAX], m[RMAX];
    piece(x, coord, lo, n, m);
    int rank = x->g.rank;
    /* one run in memory: full memory rows from some dimension d on, single indices above */
    int d = rank - 1;
    while (d > 0 && n[d] == x->mdims[d])
        d--;
    for (int k = 0; k < d; k++)
        if (n[k] != 1)
            return NULL;
    size_t off = 0;
    for (int k = 0; k < rank; k++)
        off = off * (size_t)x->mdims[k] + (size_t)m[k];
    return x->ubuf + off * x->g.esz;
}

/* ncztr_box_copy for a chunk of shape chunks (a shard's inner chunk, say) */
static void copy_shaped(const ncztr_ioctx *x, const hsize_t *chunks, const uint64_t *coord,
                        unsigned char *chunk, bool to_user)
{
    int rank = x->g.rank;
    size_t esz = x->g.esz;
    hsize_t lo[RMAX], n[RMAX], m[RMAX];
    piece_of(x, chunks, coord, lo, n, m);
    size_t cstr[RMAX], mstr[RMAX], coff = 0, moff = 0;
    for (int k = rank - 1; k >= 0; k--) {
        cstr[k] = k == rank - 1 ? esz : cstr[k + 1] * (size_t)chunks[k + 1];
        mstr[k] = k == rank - 1 ? esz : mstr[k + 1] * (size_t)x->mdims[k + 1];
        if (n[k] == 0)
            return;
        coff += (size_t)lo[k] * cstr[k];
        moff += (size_t)m[k] * mstr[k];
    }
    /* Trailing dimensions that both buffers hold whole merge into one longer run. */
    int d = rank - 1;
    size_t run = (size_t)n[d] * esz;
    while (d > 0 && n[d] == chunks[d] && n[d] == x->mdims[d]) {
        d--;
        run *= (size_t)n[d];
    }
    hsize_t idx[RMAX] = {0};
    unsigned char *c = chunk + coff, *u = x->ubuf + moff;
    for (;;) {
        if (to_user)
            memcpy(u, c, run);
        else
            memcpy(c, u, run);
        int k = d - 1;
        for (; k >= 0; k--) {
            c += cstr[k];
            u += mstr[k];
            if (++idx[k] < n[k])
                break;
            c -= cstr[k] * (size_t)n[k];
            u -= mstr[k] * (size_t)n[k];
            idx[k] = 0;
        }
        if (k < 0)
            return;
    }
}

void ncztr_box_copy(const ncztr_ioctx *x, const uint64_t *coord, unsigned char *chunk, bool to_user)
{
    copy_shaped(x, x->g.chunks, coord, chunk, to_user);
}

void ncztr_box_copy_inner(const ncztr_ioctx *x, const uint64_t *shard, const hsize_t *inner, size_t i,
                          const unsigned char *raw)
{
    int rank = x->g.rank;
    uint64_t coord[RMAX];
    for (int k = rank - 1; k >= 0; k--) {
        uint64_t grid = x->g.chunks[k] / inner[k];
        coord[k] = shard[k] * grid + i % grid;
        i /= grid;
    }
    copy_shaped(x, inner, coord, (unsigned char *)(uintptr_t)raw, true);
}

bool ncztr_box_inner_range(const ncztr_ioctx *x, const uint64_t *shard, const hsize_t *inner, uint64_t *lo,
                           uint64_t *hi)
{
    hsize_t a[RMAX], n[RMAX], m[RMAX];
    piece(x, shard, a, n, m);
    bool whole = true;
    for (int k = 0; k < x->g.rank; k++) {
        /* the block's part of the shard: [a, a + n) from the shard's origin */
        hsize_t b = a[k] + n[k], left = x->shape[k] - shard[k] * x->g.chunks[k];
        lo[k] = a[k] / inner[k];
        hi[k] = n[k] ? (b + inner[k] - 1) / inner[k] : lo[k];
        whole = whole && a[k] % inner[k] == 0 && (b % inner[k] == 0 || b == left);
    }
    return whole;
}

size_t ncztr_box_inner_list(const ncztr_ioctx *x, const uint64_t *shard, const hsize_t *inner, size_t *out)
{
    int rank = x->g.rank;
    uint64_t lo[RMAX], hi[RMAX], idx[RMAX], grid[RMAX];
    size_t count = 0;
    ncztr_box_inner_range(x, shard, inner, lo, hi);
    for (int k = 0; k < rank; k++) {
        if (hi[k] <= lo[k])
            return 0;
        idx[k] = lo[k];
        grid[k] = x->g.chunks[k] / inner[k];
    }
    for (;;) {
        size_t num = 0;
        for (int k = 0; k < rank; k++)
            num = num * (size_t)grid[k] + (size_t)idx[k];
        if (out)
            out[count] = num;
        count++;
        int k = rank - 1;
        for (; k >= 0; k--) {
            if (++idx[k] < hi[k])
                break;
            idx[k] = lo[k];
        }
        if (k < 0)
            return count;
    }
}

bool ncztr_box_gather_inner(const ncztr_ioctx *x, const uint64_t *shard, const hsize_t *inner, size_t i,
                            unsigned char *raw, bool copy)
{
    int rank = x->g.rank;
    uint64_t coord[RMAX];
    bool edge = false;
    for (int k = rank - 1; k >= 0; k--) {
        uint64_t grid = x->g.chunks[k] / inner[k];
        coord[k] = shard[k] * grid + i % grid;
        i /= grid;
        edge = edge || (coord[k] + 1) * inner[k] > x->shape[k];
    }
    if (copy || !edge)
        copy_shaped(x, inner, coord, raw, false);
    return edge;
}

size_t ncztr_box_iov_inner(const ncztr_ioctx *x, const uint64_t *shard, const hsize_t *inner, size_t i,
                           struct iovec *iov, size_t cap)
{
    int rank = x->g.rank;
    uint64_t coord[RMAX] = {0};
    for (int k = rank - 1; k >= 0; k--) {
        uint64_t grid = x->g.chunks[k] / inner[k];
        coord[k] = shard[k] * grid + i % grid;
        i /= grid;
    }
    hsize_t lo[RMAX], n[RMAX], m[RMAX];
    piece_of(x, inner, coord, lo, n, m);
    for (int k = 0; k < rank; k++)
        if (lo[k] != 0 || n[k] != inner[k] || x->g.transpose)
            return 0; /* not covered whole by the block, or past the array's edge */
    size_t count = piece_runs(x, n, m, iov, cap);
    return !iov || count <= cap ? count : 0;
}

typedef struct copy_arg {
    const ncztr_ioctx *x;
    ncztr_cjob *jobs;
    bool to_user;
} copy_arg;

static int copy_one(void *arg, size_t i, unsigned slot)
{
    (void)slot;
    const copy_arg *a = arg;
    ncztr_cjob *jb = &a->jobs[i];
    if (jb->data && !jb->direct && !jb->copied) {
        ncztr_box_copy(a->x, jb->coord, jb->data, a->to_user);
        jb->copied = true;
    }
    return 0;
}

void ncztr_box_copy_jobs(const ncztr_ioctx *x, ncztr_cjob *jobs, size_t n, bool to_user)
{
    copy_arg a = {x, jobs, to_user};
    /* a few small pieces are not worth waking threads for */
    unsigned workers = n > 1 && n * x->g.chunk_bytes >= ((size_t)256 << 10) ? x->workers : 1;
    nczc_parallel_for(n, workers, copy_one, &a);
}
