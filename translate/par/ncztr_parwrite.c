/* Dataset writes of many ranks: the pieces of chunks a rank writes only in part, sent to
 * each chunk's owner (MPI_Alltoallv), which merges them into the chunk and stores it once. */
#include "ncztr_par_internal.h"
#include "ncztr_h5compat.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#ifdef H5_HAVE_PARALLEL

/* True when this rank holds a piece of that chunk already: later writes of it must follow
 * the piece, so they become pieces too. */
static bool has_piece(const ncztr_par *p, const char *path, uint64_t chunk)
{
    for (size_t i = 0; i < p->npieces; i++)
        if (p->pieces[i].chunk == chunk && strcmp(p->pieces[i].path, path) == 0)
            return true;
    return false;
}

static unsigned char *encode_space(hid_t sp, size_t *len)
{
    *len = 0;
    if (H5Sencode2(sp, NULL, len, H5P_DEFAULT) < 0)
        return NULL;
    unsigned char *b = malloc(*len);
    if (b && H5Sencode2(sp, b, len, H5P_DEFAULT) < 0) {
        free(b);
        b = NULL;
    }
    return b;
}

static unsigned char *encode_type(hid_t t, size_t *len)
{
    *len = 0;
    if (H5Tencode(t, NULL, len) < 0)
        return NULL;
    unsigned char *b = malloc(*len);
    if (b && H5Tencode(t, b, len) < 0) {
        free(b);
        b = NULL;
    }
    return b;
}

/* Memory of this type holds pointers (sequences, variable-length strings, references),
 * which mean nothing in another process. */
static bool has_pointers(hid_t t)
{
    H5T_class_t c = H5Tget_class(t);
    bool r = c == H5T_VLEN || c == H5T_REFERENCE || (c == H5T_STRING && H5Tis_variable_str(t) > 0);
    if (c == H5T_COMPOUND) {
        int n = H5Tget_nmembers(t);
        for (int i = 0; !r && i < n; i++) {
            hid_t m = H5Tget_member_type(t, (unsigned)i);
            r = m >= 0 && has_pointers(m);
            if (m >= 0)
                H5Tclose(m);
        }
    } else if (c == H5T_ARRAY || c == H5T_ENUM) {
        hid_t b = H5Tget_super(t);
        r = b >= 0 && has_pointers(b);
        if (b >= 0)
            H5Tclose(b);
    }
    return r;
}

/* One partial chunk: its selection, the elements of buf it holds, queued for the owner. */
static herr_t add_piece(ncztr_obj *o, const char *path, hid_t mem_type, hid_t mem_space, hid_t file_space,
                        const void *buf, hid_t psel, uint64_t lin, const uint64_t *coord)
{
    ncztr_par *p = o->file->par;
    herr_t ret = SUCCEED;
    hid_t pmem = H5I_INVALID_HID;
    ncztr_piece pc = {.chunk = lin};
    hssize_t n = H5Sget_select_npoints(psel);
    size_t msz = H5Tget_size(mem_type);
    if (n < 0 || msz == 0)
        NCZ_GOTO(FAIL, NCZ_E_HDF5, "cannot size a piece of a chunk of \"%s\"", path);
    if (has_pointers(mem_type))
        NCZ_GOTO(
            FAIL, NCZ_E_UNSUPPORTED,
            "dataset \"%s\": variable-length data or references written to part of a chunk that another rank "
            "owns (chunk %llu of rank %d): with several ranks, write such data in whole chunks",
            path, (unsigned long long)lin, (int)(lin % (uint64_t)p->size));
    if ((pmem = H5Sselect_project_intersection(file_space, mem_space, psel)) < 0)
        NCZ_GOTO(FAIL, NCZ_E_HDF5, "cannot place a piece of a chunk of \"%s\" in the memory selection", path);
    pc.datalen = (size_t)n * msz;
    pc.path = strdup(path);
    pc.data = malloc(pc.datalen ? pc.datalen : 1);
    NCZ_CHECK_ALLOC(pc.path && pc.data, FAIL);
    if (H5Dgather(pmem, buf, mem_type, pc.datalen, pc.data, NULL, NULL) < 0)
        NCZ_GOTO(FAIL, NCZ_E_HDF5, "cannot gather a piece of a chunk of \"%s\"", path);
    if (!(pc.sel = encode_space(psel, &pc.sellen)) || !(pc.type = encode_type(mem_type, &pc.typelen)))
        NCZ_GOTO(FAIL, NCZ_E_HDF5, "cannot encode a piece of a chunk of \"%s\"", path);
    /* A copy this rank cached (or wrote) is stale once the owner merges the pieces. */
    if (ncztr_array_chunk_release(o, coord) < 0)
        NCZ_GOTO_QUIET(FAIL);
    if (p->npieces == p->cap) {
        size_t nc = p->cap ? 2 * p->cap : 16;
        ncztr_piece *v = realloc(p->pieces, nc * sizeof *v);
        NCZ_CHECK_ALLOC(v, FAIL);
        p->pieces = v;
        p->cap = nc;
    }
    p->pieces[p->npieces++] = pc;
    memset(&pc, 0, sizeof pc);
done:
    if (pmem >= 0)
        H5Sclose(pmem);
    ncztr_piece_clear(&pc);
    return ret;
}

/* The chunks of a write that went to other ranks as pieces. */
typedef struct skipset {
    const ncztr_zarray *za;
    uint64_t *lin; /* ascending */
    size_t n;
} skipset;

static bool skip_queued(void *ud, const uint64_t *coord)
{
    const skipset *s = ud;
    uint64_t lin = 0;
    for (int k = 0; k < s->za->rank; k++)
        lin = lin * ((s->za->shape[k] + s->za->chunks[k] - 1) / s->za->chunks[k]) + coord[k];
    size_t lo = 0, hi = s->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (s->lin[mid] < lin)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < s->n && s->lin[lo] == lin;
}

/* The selection of sp inside the block [cs, cs + blk): a copy ANDed with the block, or for
 * a point selection (which HDF5 does not combine with blocks) the points inside it. */
static hid_t chunk_part(hid_t sp, int r, const hsize_t *cs, const hsize_t *blk)
{
    hsize_t ones[NCZTR_MAX_RANK];
    for (int k = 0; k < r; k++)
        ones[k] = 1;
    hid_t out = H5Scopy(sp);
    if (out < 0 || H5Sget_select_type(sp) != H5S_SEL_POINTS) {
        if (out >= 0 && H5Sselect_hyperslab(out, H5S_SELECT_AND, cs, NULL, ones, blk) < 0) {
            H5Sclose(out);
            out = H5I_INVALID_HID;
        }
        return out;
    }
    hssize_t n = H5Sget_select_elem_npoints(sp);
    hsize_t *pts = n > 0 ? malloc((size_t)n * (size_t)r * sizeof *pts) : NULL;
    size_t kept = 0;
    if (!pts || H5Sget_select_elem_pointlist(sp, 0, (hsize_t)n, pts) < 0) {
        free(pts);
        H5Sclose(out);
        return H5I_INVALID_HID;
    }
    for (hssize_t i = 0; i < n; i++) {
        const hsize_t *pt = pts + (size_t)i * (size_t)r;
        bool in = true;
        for (int k = 0; k < r && in; k++)
            in = pt[k] >= cs[k] && pt[k] < cs[k] + blk[k];
        if (in)
            memmove(pts + kept++ * (size_t)r, pt, (size_t)r * sizeof *pts);
    }
    herr_t e = kept ? H5Sselect_elements(out, H5S_SELECT_SET, kept, pts) : H5Sselect_none(out);
    free(pts);
    if (e < 0) {
        H5Sclose(out);
        return H5I_INVALID_HID;
    }
    return out;
}

/* Splits a write: the chunks this rank writes whole, or owns, are written here; the pieces
 * of the others are queued. */
static herr_t split_write(ncztr_obj *o, hid_t mem_type, hid_t mem_space, hid_t file_space, const void *buf)
{
    ncztr_par *p = o->file->par;
    const ncztr_zarray *za = &o->arr->za;
    herr_t ret = SUCCEED;
    int r = za->rank;
    hsize_t lo[NCZTR_MAX_RANK], hi[NCZTR_MAX_RANK], cs[NCZTR_MAX_RANK], blk[NCZTR_MAX_RANK];
    uint64_t c[NCZTR_MAX_RANK], c0[NCZTR_MAX_RANK], c1[NCZTR_MAX_RANK];
    hid_t psel = H5I_INVALID_HID;
    skipset skip = {0};
    char *path = NULL;
    size_t first = p->npieces;
    hssize_t nsel = H5Sget_select_npoints(file_space);
    if (nsel < 0)
        return NCZ_PUSH(NCZ_E_HDF5, "cannot count the selection");
    if (r == 0 || nsel == 0 || H5Sget_simple_extent_ndims(file_space) != r)
        return ncztr_array_write(o, mem_type, mem_space, file_space, buf);
    if (H5Sget_select_bounds(file_space, lo, hi) < 0)
        return NCZ_PUSH(NCZ_E_HDF5, "cannot bound the selection");
    /* one block (all, or a hyperslab of one block): coverage by arithmetic */
    bool one_block = H5Sget_select_type(file_space) == H5S_SEL_ALL;
    if (!one_block && H5Sget_select_type(file_space) == H5S_SEL_HYPERSLABS &&
        H5Sget_select_hyper_nblocks(file_space) == 1)
        one_block = true;
    path = ncztr_obj_path(o);
    NCZ_CHECK_ALLOC(path, FAIL);
    for (int k = 0; k < r; k++) {
        c0[k] = c[k] = lo[k] / za->chunks[k];
        c1[k] = hi[k] / za->chunks[k];
    }
    for (;;) {
        uint64_t lin = 0, vol = 1;
        bool whole = true;
        for (int k = 0; k < r; k++) {
            uint64_t nch = (za->shape[k] + za->chunks[k] - 1) / za->chunks[k];
            lin = lin * nch + c[k];
            cs[k] = c[k] * za->chunks[k];
            uint64_t end = cs[k] + za->chunks[k] < za->shape[k] ? cs[k] + za->chunks[k] : za->shape[k];
            blk[k] = end - cs[k];
            vol *= blk[k];
            if (cs[k] < lo[k] || end - 1 > hi[k])
                whole = false;
        }
        int owner = (int)(lin % (uint64_t)p->size);
        bool queued = p->npieces > 0 && has_piece(p, path, lin);
        if (owner != p->rank && (!one_block || !whole || queued)) {
            if ((psel = chunk_part(file_space, r, cs, blk)) < 0)
                NCZ_GOTO(FAIL, NCZ_E_HDF5, "cannot select a chunk of \"%s\"", path);
            hssize_t n = H5Sget_select_npoints(psel);
            if (n < 0)
                NCZ_GOTO(FAIL, NCZ_E_HDF5, "cannot count a chunk's selection of \"%s\"", path);
            if (n > 0 && ((uint64_t)n < vol || queued) &&
                add_piece(o, path, mem_type, mem_space, file_space, buf, psel, lin, c) < 0)
                NCZ_GOTO_QUIET(FAIL);
            H5Sclose(psel);
            psel = H5I_INVALID_HID;
        }
        int k = r - 1;
        while (k >= 0 && ++c[k] > c1[k])
            c[k] = c0[k], k--;
        if (k < 0)
            break;
    }
    if (p->npieces == first) { /* nothing for other ranks: the whole write is local */
        ret = ncztr_array_write(o, mem_type, mem_space, file_space, buf);
        goto done;
    }
    /* the rest of the write, without the chunks just queued (their linear indices come in
     * ascending order: the loop above runs in C order) */
    skip.n = p->npieces - first;
    skip.lin = malloc(skip.n * sizeof *skip.lin);
    NCZ_CHECK_ALLOC(skip.lin, FAIL);
    for (size_t i = 0; i < skip.n; i++)
        skip.lin[i] = p->pieces[first + i].chunk;
    skip.za = za;
    ret = ncztr_array_write_except(o, mem_type, mem_space, file_space, buf, skip_queued, &skip);
done:
    if (psel >= 0)
        H5Sclose(psel);
    free(skip.lin);
    free(path);
    return ret;
}

herr_t ncztr_par_write(ncztr_obj *o, hid_t mem_type, hid_t mem_space, hid_t file_space, const void *buf,
                       bool collective)
{
    ncztr_file *f = o->file;
    if (!f->par)
        return ncztr_array_write(o, mem_type, mem_space, file_space, buf);
    herr_t ret = split_write(o, mem_type, mem_space, file_space, buf);
    if (collective)
        ret = ncztr_par_exchange(f, ret, "collective H5Dwrite");
    return ret;
}

/* ---- the exchange ---- */

static void put_u64(unsigned char **w, uint64_t v)
{
    memcpy(*w, &v, 8);
    *w += 8;
}

static void put_bytes(unsigned char **w, const void *b, size_t n)
{
    put_u64(w, n);
    if (n)
        memcpy(*w, b, n);
    *w += n;
}

static size_t piece_bytes(const ncztr_piece *pc)
{
    return 4 * 8 + strlen(pc->path) + pc->sellen + pc->typelen + pc->datalen; /* 4 lengths */
}

/* Reads a length-prefixed field; NULL when the message is shorter than it says. */
static const unsigned char *get_bytes(const unsigned char **r, const unsigned char *end, size_t *n)
{
    uint64_t v;
    if ((size_t)(end - *r) < 8)
        return NULL;
    memcpy(&v, *r, 8);
    *r += 8;
    if (v > (uint64_t)(end - *r))
        return NULL;
    const unsigned char *b = *r;
    *r += v;
    *n = (size_t)v;
    return b;
}

/* Writes the pieces other ranks sent, in rank order. */
static herr_t apply(ncztr_file *f, const unsigned char *b, size_t len)
{
    herr_t ret = SUCCEED;
    const unsigned char *r = b, *end = b + len;
    while (ret == SUCCEED && r < end) {
        size_t pl = 0, sl = 0, tl = 0, dl = 0;
        const unsigned char *pth = get_bytes(&r, end, &pl);
        const unsigned char *sel = pth ? get_bytes(&r, end, &sl) : NULL;
        const unsigned char *typ = sel ? get_bytes(&r, end, &tl) : NULL;
        const unsigned char *dat = typ ? get_bytes(&r, end, &dl) : NULL;
        if (!dat)
            return NCZ_PUSH(NCZ_E_INTERNAL, "a message of chunk pieces is cut short");
        char *path = strndup((const char *)pth, pl);
        if (!path)
            return NCZ_PUSH(NCZ_E_NOMEM, "out of memory applying chunk pieces");
        ncztr_obj *o = ncztr_find(f->root, path);
        hid_t sp = H5I_INVALID_HID, ty = H5I_INVALID_HID, mem = H5I_INVALID_HID;
        if (!o || !o->arr) {
            ret = NCZ_PUSH(NCZ_E_PARALLEL, "another rank wrote to \"%s\", which is not a dataset here", path);
        } else if ((sp = H5Sdecode(sel)) < 0 || (ty = ncztr_h5compat_type_decode(typ, tl)) < 0) {
            ret = NCZ_PUSH(NCZ_E_HDF5, "cannot decode a piece of a chunk of \"%s\"", path);
        } else {
            hssize_t n = H5Sget_select_npoints(sp);
            hsize_t hn = n > 0 ? (hsize_t)n : 0;
            if (n < 0 || hn * H5Tget_size(ty) != dl)
                ret = NCZ_PUSH(NCZ_E_INTERNAL, "a piece of a chunk of \"%s\" has %zu bytes for %lld elements",
                               path, dl, (long long)n);
            else if (hn > 0 && (mem = H5Screate_simple(1, &hn, NULL)) < 0)
                ret = NCZ_PUSH(NCZ_E_HDF5, "cannot make a dataspace");
            else if (hn > 0)
                ret = ncztr_array_write(o, ty, mem, sp, dat);
        }
        if (mem >= 0)
            H5Sclose(mem);
        if (sp >= 0)
            H5Sclose(sp);
        if (ty >= 0)
            H5Tclose(ty);
        free(path);
    }
    return ret;
}

herr_t ncztr_par_exchange(ncztr_file *f, herr_t mine, const char *what)
{
    ncztr_par *p = f->par;
    herr_t ret = SUCCEED;
    int n = p ? p->size : 0;
    int *sc = NULL, *rc = NULL, *sd = NULL, *rd = NULL;
    unsigned char *sb = NULL, *rb = NULL;
    if (!p)
        return mine;
    sc = calloc((size_t)n, sizeof *sc);
    rc = calloc((size_t)n, sizeof *rc);
    sd = calloc((size_t)n, sizeof *sd);
    rd = calloc((size_t)n, sizeof *rd);
    size_t *sz = calloc((size_t)n, sizeof *sz);
    if (!sc || !rc || !sd || !rd || !sz)
        mine = NCZ_PUSH(NCZ_E_NOMEM, "out of memory exchanging chunk pieces");
    size_t total = 0;
    for (size_t i = 0; sz && i < p->npieces; i++)
        sz[p->pieces[i].chunk % (uint64_t)n] += piece_bytes(&p->pieces[i]);
    for (int i = 0; sz && i < n; i++) {
        if (total + sz[i] > INT_MAX && mine == SUCCEED)
            mine = NCZ_PUSH(NCZ_E_UNSUPPORTED,
                            "%s: over 2 GiB of chunk pieces for other ranks at once: flush more often", what);
        sd[i] = (int)total;
        sc[i] = (int)sz[i];
        total += sz[i];
    }
    free(sz);
    if (mine == SUCCEED && !(sb = malloc(total ? total : 1)))
        mine = NCZ_PUSH(NCZ_E_NOMEM, "out of memory exchanging chunk pieces");
    bool any = false;
    if (ncztr_par_begin(f, NCZTR_STEP_EXCHANGE, 0, mine < 0, &any, what) < 0)
        NCZ_GOTO_QUIET(FAIL);
    if (mine < 0)
        NCZ_GOTO_QUIET(FAIL);
    if (any)
        NCZ_GOTO(FAIL, NCZ_E_PARALLEL,
                 "%s failed on another rank (its message is on that rank's error stack)", what);
    /* pack, owner by owner */
    {
        unsigned char **w = calloc((size_t)n, sizeof *w);
        NCZ_CHECK_ALLOC(w, FAIL);
        for (int i = 0; i < n; i++)
            w[i] = sb + sd[i];
        for (size_t i = 0; i < p->npieces; i++) {
            const ncztr_piece *pc = &p->pieces[i];
            unsigned char **x = &w[pc->chunk % (uint64_t)n];
            put_bytes(x, pc->path, strlen(pc->path));
            put_bytes(x, pc->sel, pc->sellen);
            put_bytes(x, pc->type, pc->typelen);
            put_bytes(x, pc->data, pc->datalen);
        }
        free(w);
    }
    ncztr_par_drop_pieces(p);
    MPI_Request req;
    if (MPI_Ialltoall(sc, 1, MPI_INT, rc, 1, MPI_INT, p->comm, &req) != MPI_SUCCESS) {
        p->broken = true;
        NCZ_GOTO(FAIL, NCZ_E_PARALLEL, "%s: MPI_Ialltoall failed", what);
    }
    if (ncztr_par_wait(p, &req, what) < 0)
        NCZ_GOTO_QUIET(FAIL);
    size_t rtotal = 0;
    for (int i = 0; i < n; i++) {
        rd[i] = (int)rtotal;
        rtotal += (size_t)rc[i];
    }
    herr_t got = SUCCEED;
    if (rtotal > INT_MAX || !(rb = malloc(rtotal ? rtotal : 1))) {
        got = NCZ_PUSH(NCZ_E_NOMEM, "%s: cannot receive %zu bytes of chunk pieces", what, rtotal);
        memset(rc, 0, (size_t)n * sizeof *rc); /* receive nothing; the status step fails all */
        memset(rd, 0, (size_t)n * sizeof *rd);
        rb = malloc(1);
    }
    if (MPI_Ialltoallv(sb, sc, sd, MPI_BYTE, rb, rc, rd, MPI_BYTE, p->comm, &req) != MPI_SUCCESS) {
        p->broken = true;
        NCZ_GOTO(FAIL, NCZ_E_PARALLEL, "%s: MPI_Ialltoallv failed", what);
    }
    if (ncztr_par_wait(p, &req, what) < 0)
        NCZ_GOTO_QUIET(FAIL);
    if (got == SUCCEED)
        got = apply(f, rb, rtotal);
    ret = ncztr_par_status(f, got, what);
done:
    ncztr_par_drop_pieces(p);
    free(sc);
    free(rc);
    free(sd);
    free(rd);
    free(sb);
    free(rb);
    return ret;
}

#else

herr_t ncztr_par_write(ncztr_obj *o, hid_t mem_type, hid_t mem_space, hid_t file_space, const void *buf,
                       bool collective)
{
    (void)collective;
    return ncztr_array_write(o, mem_type, mem_space, file_space, buf);
}

herr_t ncztr_par_exchange(ncztr_file *f, herr_t mine, const char *what)
{
    (void)f, (void)what;
    return mine;
}

#endif
