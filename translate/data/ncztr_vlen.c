/* Datasets of variable-length elements: Zarr object arrays ("|O" in v2, "string" and
 * "variable_length_bytes" in v3), whose object codec (translate/codec/ncztr_c_vlen.c) is
 *   "vlen-utf8"  text: HDF5 variable-length UTF-8 strings (how zarr-python and xarray
 *                store strings),
 *   "vlen-bytes" bytes: HDF5 sequences of uint8,
 *   "vlen-array" sequences of numbers (HDF5 H5T_VLEN; the form of zarr-python's ragged
 *                arrays): dtype "|O", filters [{"id": "vlen-array", "dtype": "<u4"}];
 *   and, as "vlen-utf8" text, one JSON text per element for values with variable-length
 *   parts inside (kind 'j': strings in compounds, sequences of sequences or compounds; the
 *   exact HDF5 type kept in "_nczarr_array.hdf5_type"; an unwritten element is all zero,
 *   NULL strings and empty sequences, HDF5's default).
 *
 * Chunks of these arrays have no fixed size, so they bypass the fixed-size chunk path and
 * its cache: an I/O call decodes the chunks it touches through the array's codec chain
 * into arrays of hvl_t (owning their bytes), moves elements one by one between them and the
 * application's buffer (converting numbers, terminating text), and a write stores the
 * chunks it changed before returning. */
#include "ncztr_array_internal.h"
#include "ncztr_chunkio_internal.h"
#include "ncztr_codec.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One decoded chunk: nel sequences of the stored number type. */
typedef struct vchunk {
    uint64_t coord[NCZTR_MAX_RANK];
    uint64_t lin; /* linear index in the chunk grid: the table's key */
    hvl_t *el;
    bool dirty;
} vchunk;

typedef struct vctx {
    ncztr_obj *o;
    ncztr_chain *chain; /* the array's, owned by it */
    char kind;          /* 'u' text, 'b' bytes, 'a' numbers, 'j' JSON (ncztr_zarray.vlen_kind) */
    hid_t mtype;        /* 'j': the application's element type */
    ncztr_cgeom g;
    int rank;
    hsize_t shape[NCZTR_MAX_RANK];
    uint64_t nch[NCZTR_MAX_RANK]; /* chunks per dimension */
    bool forder;
    hid_t fbase, mbase; /* number types: stored, application's */
    size_t fbsz, mbsz;
    unsigned char *scratch;
    size_t scap;
    /* decoded chunks: open addressing on lin */
    vchunk **slots;
    size_t nslots, count;
    /* the application's allocator (H5Pset_vlen_mem_manager), reads only */
    H5MM_allocate_t alloc;
    void *alloc_info;
    H5MM_free_t free_fn;
    void *free_info;
} vctx;

static void free_elems(hvl_t *el, size_t n)
{
    if (!el)
        return;
    for (size_t i = 0; i < n; i++)
        free(el[i].p);
    free(el);
}

/* Decodes a chunk object into its elements, through the array's codec chain. */
static herr_t decode(const vctx *x, const char *key, const unsigned char *buf, size_t len, hvl_t **out)
{
    size_t nel = x->g.chunk_elems;
    ncztr_cerr e;
    hvl_t *el = calloc(nel ? nel : 1, sizeof *el);
    if (!el)
        return NCZ_PUSH(NCZ_E_NOMEM, "out of memory reading chunk \"%s\"", key);
    if (ncztr_chain_decode(x->chain, buf, len, el, nel * sizeof *el, &e) < 0) {
        free(el); /* the codec freed the elements it had made */
        return ncztr_codec_failed(x->o, "decode", key, &e);
    }
    *out = el;
    return SUCCEED;
}

/* The elements of a chunk never written: empty, or text's fill value. */
static hvl_t *missing(const vctx *x)
{
    size_t nel = x->g.chunk_elems;
    hvl_t *el = calloc(nel ? nel : 1, sizeof *el);
    const char *fill = x->o->arr->za.vlen_fill;
    size_t fl = fill ? strlen(fill) : 0;
    for (size_t i = 0; el && fl && i < nel; i++) {
        if (!(el[i].p = malloc(fl))) {
            free_elems(el, i);
            el = NULL;
            break;
        }
        memcpy(el[i].p, fill, fl);
        el[i].len = fl;
    }
    if (!el)
        NCZ_PUSH(NCZ_E_NOMEM, "out of memory");
    return el;
}

/* ---------------------------------------------------------------- chunk table */

static vchunk *find(const vctx *x, uint64_t lin)
{
    if (!x->nslots)
        return NULL;
    for (size_t i = (size_t)(lin * 0x9E3779B97F4A7C15u) & (x->nslots - 1);; i = (i + 1) & (x->nslots - 1)) {
        if (!x->slots[i])
            return NULL;
        if (x->slots[i]->lin == lin)
            return x->slots[i];
    }
}

static void place(vchunk **slots, size_t nslots, vchunk *c)
{
    size_t i = (size_t)(c->lin * 0x9E3779B97F4A7C15u) & (nslots - 1);
    while (slots[i])
        i = (i + 1) & (nslots - 1);
    slots[i] = c;
}

static herr_t insert(vctx *x, vchunk *c)
{
    if ((x->count + 1) * 2 > x->nslots) {
        size_t n = x->nslots ? x->nslots * 2 : 64;
        vchunk **s = calloc(n, sizeof *s);
        if (!s)
            return NCZ_PUSH(NCZ_E_NOMEM, "out of memory");
        for (size_t i = 0; i < x->nslots; i++)
            if (x->slots[i])
                place(s, n, x->slots[i]);
        free(x->slots);
        x->slots = s;
        x->nslots = n;
    }
    place(x->slots, x->nslots, c);
    x->count++;
    return SUCCEED;
}

/* The decoded chunk holding chunk coordinates coord (a missing one is all empty). */
static vchunk *get_chunk(vctx *x, const uint64_t *coord)
{
    uint64_t lin = 0;
    for (int k = 0; k < x->rank; k++)
        lin = lin * x->nch[k] + coord[k];
    vchunk *c = find(x, lin);
    if (c)
        return c;
    nczm_map *map = x->o->file->map;
    char *key = ncztr_chunk_key(&x->g, coord);
    void *buf = NULL;
    size_t len = 0;
    if (!key)
        return NULL;
    if (!(c = calloc(1, sizeof *c))) {
        NCZ_PUSH(NCZ_E_NOMEM, "out of memory");
        goto fail;
    }
    memcpy(c->coord, coord, sizeof c->coord);
    c->lin = lin;
    nczm_status st = nczm_read_all(map, key, &buf, &len);
    if (st == NCZM_NOTFOUND) {
        if (!(c->el = missing(x)))
            goto fail;
    } else if (st != NCZM_OK) {
        NCZ_PUSH(NCZ_E_STORE, "dataset \"%s\": cannot read chunk \"%s\": %s", x->g.path, key,
                 nczm_errmsg(map));
        goto fail;
    } else if (decode(x, key, buf, len, &c->el) < 0) {
        goto fail;
    }
    if (insert(x, c) < 0)
        goto fail;
    free(buf);
    free(key);
    return c;
fail:
    if (c)
        free_elems(c->el, x->g.chunk_elems);
    free(c);
    free(buf);
    free(key);
    return NULL;
}

/* ---------------------------------------------------------------- elements */

/* Room for n numbers of the larger of the two number types. */
static unsigned char *scratch(vctx *x, size_t n)
{
    size_t big = x->fbsz > x->mbsz ? x->fbsz : x->mbsz, need = n * big;
    if (n && need / n != big) {
        NCZ_PUSH(NCZ_E_NOMEM, "a sequence of %zu elements is too long", n);
        return NULL;
    }
    if (need > x->scap) {
        unsigned char *s = realloc(x->scratch, need);
        if (!s) {
            NCZ_PUSH(NCZ_E_NOMEM, "out of memory for a sequence of %zu elements", n);
            return NULL;
        }
        x->scratch = s;
        x->scap = need;
    }
    return x->scratch;
}

/* A copy of n numbers of type src (size ssz) as type dst (size dsz), in memory from
 * alloc (malloc when NULL). */
static void *convert_seq(vctx *x, const void *p, size_t n, hid_t src, size_t ssz, hid_t dst, size_t dsz,
                         H5MM_allocate_t alloc, void *info)
{
    unsigned char *s = scratch(x, n);
    if (!s)
        return NULL;
    memcpy(s, p, n * ssz);
    if (H5Tconvert(src, dst, n, s, NULL, H5P_DEFAULT) < 0) {
        NCZ_PUSH(NCZ_E_HDF5, "dataset \"%s\": cannot convert the numbers of a sequence", x->g.path);
        return NULL;
    }
    void *out = alloc ? alloc(n * dsz, info) : malloc(n * dsz);
    if (!out) {
        NCZ_PUSH(NCZ_E_NOMEM, "out of memory for a sequence of %zu elements", n);
        return NULL;
    }
    memcpy(out, s, n * dsz);
    return out;
}

/* Element `idx` (linear, in the dataset's extent): its chunk and place in it. */
static hvl_t *element(vctx *x, hsize_t idx, vchunk **cp)
{
    uint64_t coord[NCZTR_MAX_RANK], local = 0;
    hsize_t in[NCZTR_MAX_RANK];
    for (int k = x->rank - 1; k >= 0; k--) {
        hsize_t c = idx % x->shape[k];
        idx /= x->shape[k];
        coord[k] = c / x->g.chunks[k];
        in[k] = c % x->g.chunks[k];
    }
    if (x->forder)
        for (int k = x->rank - 1; k >= 0; k--)
            local = local * x->g.chunks[k] + in[k];
    else
        for (int k = 0; k < x->rank; k++)
            local = local * x->g.chunks[k] + in[k];
    vchunk *c = get_chunk(x, coord);
    if (!c)
        return NULL;
    *cp = c;
    return &c->el[local];
}

static herr_t move_elem(vctx *x, bool write, hsize_t fidx, hvl_t *mem)
{
    vchunk *c = NULL;
    hvl_t *e = element(x, fidx, &c);
    if (!e)
        return FAIL;
    if (write) {
        hvl_t nv = {mem->len, NULL};
        if (mem->len && !mem->p)
            return NCZ_PUSH(NCZ_E_ARGS, "dataset \"%s\": a sequence of %zu elements without data", x->g.path,
                            mem->len);
        if (mem->len &&
            !(nv.p = convert_seq(x, mem->p, mem->len, x->mbase, x->mbsz, x->fbase, x->fbsz, NULL, NULL)))
            return FAIL;
        free(e->p);
        *e = nv;
        c->dirty = true;
    } else {
        hvl_t nv = {e->len, NULL};
        if (e->len && !(nv.p = convert_seq(x, e->p, e->len, x->fbase, x->fbsz, x->mbase, x->mbsz, x->alloc,
                                           x->alloc_info)))
            return FAIL;
        *mem = nv;
    }
    return SUCCEED;
}

/* Text: the application's char * (NULL reads as empty) <-> the element's bytes. A read
 * gives a NUL-terminated copy from the plist's allocator. */
static herr_t move_text(vctx *x, bool write, hsize_t fidx, char **mem)
{
    vchunk *c = NULL;
    hvl_t *e = element(x, fidx, &c);
    if (!e)
        return FAIL;
    if (write) {
        size_t l = *mem ? strlen(*mem) : 0;
        hvl_t nv = {l, NULL};
        if (l && !(nv.p = malloc(l)))
            return NCZ_PUSH(NCZ_E_NOMEM, "out of memory for a string of %zu bytes", l);
        if (l)
            memcpy(nv.p, *mem, l);
        free(e->p);
        *e = nv;
        c->dirty = true;
        return SUCCEED;
    }
    char *t = x->alloc ? x->alloc(e->len + 1, x->alloc_info) : malloc(e->len + 1);
    if (!t)
        return NCZ_PUSH(NCZ_E_NOMEM, "out of memory for a string of %zu bytes", e->len);
    if (e->len)
        memcpy(t, e->p, e->len);
    t[e->len] = '\0';
    *mem = t;
    return SUCCEED;
}

/* JSON texts: the application's element (its own type, x->mtype) <-> the text of the
 * value in the array's exact type. A read's parts are malloc'ed (H5Treclaim frees them). */
static herr_t move_json(vctx *x, bool write, hsize_t fidx, unsigned char *mem)
{
    vchunk *c = NULL;
    hvl_t *e = element(x, fidx, &c);
    hid_t at = x->o->arr->type;
    if (!e)
        return FAIL;
    if (write) {
        herr_t ret = SUCCEED;
        size_t asz = H5Tget_size(at);
        unsigned char *v = calloc(1, asz);
        json_t *j = NULL;
        char *text = NULL;
        NCZ_CHECK_ALLOC(v, FAIL);
        if (ncztr_cvalue_convert(x->mtype, mem, at, v, 1, x->g.path) < 0 ||
            !(j = ncztr_celem_to_json(at, v, x->g.path)))
            NCZ_GOTO_QUIET(FAIL);
        if (!(text = ncztr_json_dump(j))) /* shortest reals, exact uint64 */
            NCZ_GOTO(FAIL, NCZ_E_NOMEM, "out of memory");
        free(e->p);
        e->len = strlen(text);
        e->p = text;
        text = NULL;
        c->dirty = true;
    done:;
        hid_t es = ncz_err_save();
        json_decref(j);
        ncztr_refval_free(at, v, 1);
        free(v);
        free(text);
        ncz_err_restore(es);
        return ret;
    }
    memset(mem, 0, H5Tget_size(x->mtype));
    if (!e->len) /* never written */
        return SUCCEED;
    json_error_t err;
    json_t *j = ncztr_json_parse_text(e->p, e->len, JSON_DECODE_ANY | JSON_ALLOW_NUL, &err);
    if (!j)
        return NCZ_PUSH(NCZ_E_FORMAT, "dataset \"%s\": an element is not JSON: %s", x->g.path, err.text);
    herr_t r = ncztr_celem_from_json(x->mtype, j, mem, x->g.path);
    json_decref(j);
    if (r < 0) {
        hid_t es = ncz_err_save();
        ncztr_refval_free(x->mtype, mem, 1);
        memset(mem, 0, H5Tget_size(x->mtype));
        ncz_err_restore(es);
    }
    return r;
}

/* ---------------------------------------------------------------- selections */

typedef struct seqit {
    hid_t it;
    size_t n, i;
    hsize_t off[NCZTR_NSEQ];
    size_t len[NCZTR_NSEQ];
} seqit;

static herr_t seqit_start(seqit *s, hid_t space)
{
    memset(s, 0, sizeof *s);
    if ((s->it = H5Ssel_iter_create(space, 1, 0)) < 0)
        return NCZ_PUSH(NCZ_E_HDF5, "cannot iterate over a selection");
    return SUCCEED;
}

/* The next selected element's linear index: 1, 0 at the end, -1 on error. */
static int seqit_next(seqit *s, hsize_t *idx)
{
    while (s->i >= s->n || s->len[s->i] == 0) {
        if (s->i < s->n) {
            s->i++;
            continue;
        }
        size_t nseq = 0, nbytes = 0;
        if (H5Ssel_iter_get_seq_list(s->it, NCZTR_NSEQ, SIZE_MAX, &nseq, &nbytes, s->off, s->len) < 0) {
            NCZ_PUSH(NCZ_E_HDF5, "cannot iterate over a selection");
            return -1;
        }
        if (nseq == 0)
            return 0;
        s->n = nseq;
        s->i = 0;
    }
    *idx = s->off[s->i]++;
    s->len[s->i]--;
    return 1;
}

static void seqit_end(seqit *s)
{
    if (s->it >= 0)
        H5Ssel_iter_close(s->it);
    s->it = H5I_INVALID_HID;
}

/* ---------------------------------------------------------------- the call */

/* A read that failed: the sequences of the first n elements it returned are freed (with
 * the plist's free function), so that the application has nothing to reclaim. */
static void give_back(vctx *x, hid_t mem_space, void *buf, size_t msz, size_t n)
{
    seqit ms;
    hsize_t mi;
    if (seqit_start(&ms, mem_space) < 0)
        return;
    for (size_t i = 0; i < n && seqit_next(&ms, &mi) > 0; i++) {
        if (x->kind == 'j') {
            ncztr_refval_free(x->mtype, (unsigned char *)buf + mi * msz, 1);
            memset((unsigned char *)buf + mi * msz, 0, msz);
            continue;
        }
        if (x->kind == 'u') {
            char **t = (char **)((unsigned char *)buf + mi * msz);
            if (x->free_fn)
                x->free_fn(*t, x->free_info);
            else if (!x->alloc)
                free(*t);
            *t = NULL;
            continue;
        }
        hvl_t *h = (hvl_t *)((unsigned char *)buf + mi * msz);
        if (h->p) {
            if (x->free_fn)
                x->free_fn(h->p, x->free_info);
            else if (!x->alloc)
                free(h->p);
        }
        h->len = 0;
        h->p = NULL;
    }
    seqit_end(&ms);
}

static herr_t check_mem_type(vctx *x, hid_t mem_type)
{
    if (x->kind == 'j') {
        x->mtype = mem_type;
        return ncztr_cvalue_check(mem_type, x->g.path);
    }
    if (x->kind == 'u') {
        if (H5Tis_variable_str(mem_type) <= 0)
            return NCZ_PUSH(NCZ_E_ARGS,
                            "dataset \"%s\" holds variable-length strings: the memory type must be one too "
                            "(H5Tset_size(type, H5T_VARIABLE))",
                            x->g.path);
        return SUCCEED;
    }
    if (H5Tget_class(mem_type) != H5T_VLEN || H5Tis_variable_str(mem_type) > 0)
        return NCZ_PUSH(NCZ_E_ARGS,
                        "dataset \"%s\" holds variable-length sequences of numbers: the memory type must be "
                        "one too (H5Tvlen_create)",
                        x->g.path);
    x->mbase = H5Tget_super(mem_type);
    H5T_class_t c = x->mbase >= 0 ? H5Tget_class(x->mbase) : H5T_NO_CLASS;
    if (c != H5T_INTEGER && c != H5T_FLOAT)
        return NCZ_PUSH(NCZ_E_ARGS,
                        "dataset \"%s\" holds variable-length sequences of numbers: the memory type's "
                        "sequences must hold numbers",
                        x->g.path);
    x->mbsz = H5Tget_size(x->mbase);
    return SUCCEED;
}

static herr_t store_dirty(vctx *x)
{
    nczm_map *map = x->o->file->map;
    for (size_t i = 0; i < x->nslots; i++) {
        vchunk *c = x->slots[i];
        if (!c || !c->dirty)
            continue;
        char *key = ncztr_chunk_key(&x->g, c->coord);
        unsigned char *buf = NULL;
        size_t len = 0;
        if (!key)
            return FAIL;
        ncztr_cerr e;
        herr_t r = SUCCEED;
        void *enc = NULL;
        if (ncztr_chain_encode(x->chain, c->el, x->g.chunk_elems * sizeof *c->el, &enc, &len, &e) < 0)
            r = ncztr_codec_failed(x->o, "encode", key, &e);
        if (r == SUCCEED && enc == (void *)c->el) /* an object codec always makes new bytes */
            r = NCZ_PUSH(NCZ_E_INTERNAL, "dataset \"%s\": chunk \"%s\" was not encoded", x->g.path, key);
        else
            buf = enc;
        if (r == SUCCEED && nczm_write(map, key, buf, len) != NCZM_OK)
            r = NCZ_PUSH(NCZ_E_STORE, "dataset \"%s\": cannot write chunk \"%s\": %s", x->g.path, key,
                         nczm_errmsg(map));
        free(buf);
        free(key);
        if (r < 0)
            return FAIL;
        c->dirty = false;
    }
    return SUCCEED;
}

herr_t ncztr_vlen_io(ncztr_obj *o, hid_t mem_type, hid_t mem_space, hid_t file_space, void *buf, bool write,
                     hid_t dxpl)
{
    herr_t ret = SUCCEED;
    ncztr_array *a = o->arr;
    vctx x;
    seqit fs, ms;
    size_t msz = 0, done = 0;
    memset(&x, 0, sizeof x);
    fs.it = ms.it = x.fbase = x.mbase = H5I_INVALID_HID;
    x.o = o;
    if (ncztr_geom_init(o, &x.g) < 0)
        return FAIL;
    if (write && o->file->readonly)
        NCZ_GOTO(FAIL, NCZ_E_ARGS, "cannot write dataset \"%s\": the store is open read-only", x.g.path);
    x.kind = a->za.vlen_kind;
    if (!(x.chain = ncztr_array_chain(o)))
        NCZ_GOTO_QUIET(FAIL);
    if (check_mem_type(&x, mem_type) < 0)
        NCZ_GOTO_QUIET(FAIL);
    if ((x.fbase = ncztr_dtype_to_hdf5(&a->za.vlen_base)) < 0)
        NCZ_GOTO(FAIL, NCZ_E_HDF5, "dataset \"%s\": no HDF5 type for its numbers", x.g.path);
    x.fbsz = H5Tget_size(x.fbase);
    x.rank = x.g.rank;
    x.forder = a->za.order == 'F';
    for (int k = 0; k < x.rank; k++) {
        x.shape[k] = a->za.rank > 0 ? a->za.shape[k] : 1;
        x.nch[k] = (x.shape[k] + x.g.chunks[k] - 1) / x.g.chunks[k];
        if (!x.nch[k])
            x.nch[k] = 1;
    }
    if (!write && dxpl >= 0 && dxpl != H5P_DEFAULT) {
        if (H5Pget_vlen_mem_manager(dxpl, &x.alloc, &x.alloc_info, &x.free_fn, &x.free_info) < 0)
            NCZ_GOTO(FAIL, NCZ_E_HDF5, "dataset \"%s\": cannot read the transfer plist's allocator",
                     x.g.path);
    }
    hssize_t nf = H5Sget_select_npoints(file_space), nm = H5Sget_select_npoints(mem_space);
    if (nf < 0 || nm < 0 || nf != nm)
        NCZ_GOTO(FAIL, NCZ_E_ARGS, "dataset \"%s\": the memory and file selections differ in size", x.g.path);
    if (nf == 0)
        NCZ_GOTO_QUIET(SUCCEED);
    if (seqit_start(&fs, file_space) < 0 || seqit_start(&ms, mem_space) < 0)
        NCZ_GOTO_QUIET(FAIL);
    msz = H5Tget_size(mem_type);
    hsize_t fi, mi;
    for (;; done++) {
        int rf = seqit_next(&fs, &fi), rm = rf > 0 ? seqit_next(&ms, &mi) : 0;
        if (rf < 0 || rm < 0)
            NCZ_GOTO_QUIET(FAIL);
        if (rf == 0)
            break;
        if (rm == 0)
            NCZ_GOTO(FAIL, NCZ_E_ARGS, "dataset \"%s\": the memory selection ended early", x.g.path);
        void *m = (unsigned char *)buf + mi * msz;
        if ((x.kind == 'j'   ? move_json(&x, write, fi, m)
             : x.kind == 'u' ? move_text(&x, write, fi, m)
                             : move_elem(&x, write, fi, m)) < 0)
            NCZ_GOTO_QUIET(FAIL);
    }
    if (write && store_dirty(&x) < 0)
        NCZ_GOTO_QUIET(FAIL);
done:;
    hid_t es = ncztr_err_hold(ret);
    if (ret < 0 && !write && done)
        give_back(&x, mem_space, buf, msz, done);
    seqit_end(&fs);
    seqit_end(&ms);
    for (size_t i = 0; i < x.nslots; i++)
        if (x.slots[i]) {
            free_elems(x.slots[i]->el, x.g.chunk_elems);
            free(x.slots[i]);
        }
    free(x.slots);
    free(x.scratch);
    if (x.fbase >= 0)
        H5Tclose(x.fbase);
    if (x.mbase >= 0)
        H5Tclose(x.mbase);
    ncztr_geom_clear(&x.g);
    ncz_err_restore(es);
    return ret;
}
