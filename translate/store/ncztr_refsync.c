/* The paths stored in datasets of object references (H5T_STD_REF_OBJ, stored as text:
 * translate/model/ncztr_refarray.c) follow moves and deletes, as the references of
 * attributes do (their ids are kept in memory and written as paths at every save): a
 * dataset's values are in the store already, as paths, and the path of a moved object no
 * longer names it once it moved. So, around a move or delete, every such dataset is read
 * as ids before (each path gives the id its object has, which the move keeps), and the
 * elements whose object's path then differs are written again: the new path, or the null
 * reference for an object deleted. The datasets are usually small (one reference per
 * object named); a store holding none pays nothing. */
#include "ncztr_refsync.h"
#include "ncztr_store.h"

#include <stdlib.h>
#include <string.h>

typedef struct refset {
    ncztr_obj *o; /* a reference of its own */
    size_t n;
    uint64_t *ids;
    char **text; /* the paths as they were stored */
} refset;

typedef struct refsnap {
    refset *v;
    size_t n, cap;
} refsnap;

void ncztr_refsync_drop(void *snap)
{
    refsnap *s = snap;
    if (!s)
        return;
    for (size_t i = 0; i < s->n; i++) {
        ncztr_refdata_free_texts(s->v[i].text, s->v[i].n);
        free(s->v[i].ids);
        ncztr_obj_unref(s->v[i].o);
    }
    free(s->v);
    free(s);
}

/* The ids a dataset of references names now, into a new entry of s. */
static herr_t take(refsnap *s, ncztr_obj *o)
{
    herr_t ret = SUCCEED;
    refset e = {o, 0, NULL, NULL};
    hid_t sp = H5I_INVALID_HID;
    if ((sp = ncztr_array_space(o)) < 0)
        NCZ_GOTO(FAIL, NCZ_E_HDF5, "dataset \"%s\": cannot build its dataspace", o->name);
    hssize_t np = H5Sget_select_npoints(sp);
    if (np <= 0)
        NCZ_GOTO_QUIET(SUCCEED); /* nothing stored */
    e.n = (size_t)np;
    if (!(e.ids = calloc(e.n, sizeof *e.ids)) || !(e.text = calloc(e.n, sizeof *e.text)))
        NCZ_GOTO(FAIL, NCZ_E_NOMEM, "out of memory reading the references of dataset \"%s\"", o->name);
    if (ncztr_refdata_text_io(o, sp, e.n, e.text, false) < 0)
        NCZ_GOTO_QUIET(FAIL);
    for (size_t i = 0; i < e.n; i++)
        e.ids[i] = ncztr_refdata_id(o->file, e.text[i]);
    if (s->n == s->cap) {
        size_t nc = s->cap ? 2 * s->cap : 8;
        refset *nv = realloc(s->v, nc * sizeof *nv);
        NCZ_CHECK_ALLOC(nv, FAIL);
        s->v = nv;
        s->cap = nc;
    }
    ncztr_obj_ref(o);
    s->v[s->n++] = e;
    e.ids = NULL;
    e.text = NULL;
done:;
    hid_t es = ncz_err_save();
    ncztr_refdata_free_texts(e.text, e.n);
    free(e.ids);
    if (sp >= 0)
        H5Sclose(sp);
    ncz_err_restore(es);
    return ret;
}

static herr_t take_one(ncztr_obj *o, void *ud)
{
    if (!ncztr_array_is_ref(o) || o->deleted || o->arr->load_error)
        return SUCCEED;
    /* A dataset whose chunks cannot be read (a damaged store) keeps its paths as they are:
     * it must not stop a move or delete elsewhere, nor its own deletion. */
    size_t mark = ncz_err_mark();
    if (take(ud, o) < 0)
        free(ncz_err_take_messages(mark));
    return SUCCEED;
}

herr_t ncztr_refsync_before(ncztr_file *f, void **snap)
{
    *snap = NULL;
    /* (an MPI program writes no references: translate/data/ncztr_refdata.c) */
    if (!f->has_ref_arrays || f->readonly || !f->root || f->par)
        return SUCCEED;
    /* arrays not used yet are stubs, whose type is not known: the store said it holds
     * datasets of references, so every array is read once to find them */
    if (!f->ref_tree_loaded) {
        if (ncztr_tree_load(f->root) < 0)
            return FAIL;
        f->ref_tree_loaded = true;
    }
    refsnap *s = calloc(1, sizeof *s);
    if (!s)
        return NCZ_PUSH(NCZ_E_NOMEM, "out of memory");
    if (ncztr_tree_walk(f, take_one, s) < 0) {
        ncztr_refsync_drop(s);
        return FAIL;
    }
    *snap = s;
    return SUCCEED;
}

herr_t ncztr_refsync_check_move(const void *snap, const ncztr_obj *o, const ncztr_obj *new_parent,
                                const char *new_name)
{
    const refsnap *s = snap;
    herr_t ret = SUCCEED;
    if (!s || !s->n)
        return SUCCEED;
    char *op = ncztr_obj_path(o), *pp = ncztr_obj_path(new_parent);
    if (!op || !pp)
        NCZ_GOTO(FAIL, NCZ_E_NOMEM, "out of memory");
    /* the stored paths are the objects' paths now: those at or below o change prefix */
    size_t ol = strlen(op), nl = (strcmp(pp, "/") == 0 ? 0 : strlen(pp)) + 1 + strlen(new_name);
    for (size_t k = 0; k < s->n; k++) {
        const refset *e = &s->v[k];
        size_t w = ncztr_refdata_width(e->o);
        for (size_t i = 0; w != SIZE_MAX && i < e->n; i++) {
            const char *t = e->text[i];
            if (!t || strncmp(t, op, ol) != 0 || (t[ol] != '\0' && t[ol] != '/'))
                continue;
            size_t len = nl + strlen(t) - ol;
            if (len > w)
                NCZ_GOTO(FAIL, NCZ_E_NOTREPR,
                         "cannot move \"%s\" to \"%s\": dataset \"%s\" holds a reference to \"%s\", whose "
                         "path would be %zu bytes long, more than the %zu its elements hold (stored as fixed "
                         "|S%zu text; the connector option maxstrlen=N sets a larger limit for new datasets)",
                         op, new_name, e->o->name, t, len, w, w);
        }
    }
done:
    free(op);
    free(pp);
    return ret;
}

/* The selection of the elements idx[0..k) (linear, in C order) of space, in that order. */
static herr_t select_elems(hid_t space, const size_t *idx, size_t k, const char *name)
{
    int rank = H5Sget_simple_extent_ndims(space);
    hsize_t dims[H5S_MAX_RANK];
    if (rank <= 0 || H5Sget_simple_extent_dims(space, dims, NULL) < 0)
        return NCZ_PUSH(NCZ_E_HDF5, "dataset \"%s\": cannot read its dataspace", name);
    hsize_t *c = malloc(k * (size_t)rank * sizeof *c);
    if (!c)
        return NCZ_PUSH(NCZ_E_NOMEM, "out of memory");
    for (size_t j = 0; j < k; j++) {
        size_t lin = idx[j];
        for (int d = rank - 1; d >= 0; d--) {
            c[j * (size_t)rank + (size_t)d] = lin % dims[d];
            lin /= dims[d];
        }
    }
    herr_t r = H5Sselect_elements(space, H5S_SELECT_SET, k, c);
    free(c);
    return r < 0 ? NCZ_PUSH(NCZ_E_HDF5, "dataset \"%s\": cannot select the references to rewrite", name)
                 : SUCCEED;
}

/* The elements of e whose object's path changed, written again. */
static herr_t rewrite(ncztr_file *f, const refset *e)
{
    herr_t ret = SUCCEED;
    char **now = NULL, **put = NULL;
    size_t *idx = NULL, k = 0;
    hid_t sp = H5I_INVALID_HID;
    if (e->o->deleted)
        return SUCCEED; /* deleted itself */
    if (!(now = calloc(e->n, sizeof *now)) || !(put = calloc(e->n, sizeof *put)) ||
        !(idx = calloc(e->n, sizeof *idx)))
        NCZ_GOTO(FAIL, NCZ_E_NOMEM, "out of memory rewriting the references of dataset \"%s\"", e->o->name);
    for (size_t i = 0; i < e->n; i++) {
        if (!(now[i] = ncztr_refdata_path(f, e->ids[i])))
            NCZ_GOTO_QUIET(FAIL);
        if (strcmp(now[i], e->text[i] ? e->text[i] : "") != 0) {
            idx[k] = i;
            put[k++] = now[i];
        }
    }
    if (k == 0)
        NCZ_GOTO_QUIET(SUCCEED);
    if ((sp = ncztr_array_space(e->o)) < 0)
        NCZ_GOTO(FAIL, NCZ_E_HDF5, "dataset \"%s\": cannot build its dataspace", e->o->name);
    /* a scalar has its one element selected already */
    if (k < e->n && select_elems(sp, idx, k, e->o->name) < 0)
        NCZ_GOTO_QUIET(FAIL);
    if (ncztr_refdata_text_io(e->o, sp, k, k < e->n ? put : now, true) < 0)
        NCZ_GOTO_QUIET(FAIL);
done:;
    hid_t es = ncz_err_save();
    ncztr_refdata_free_texts(now, e->n);
    free(put);
    free(idx);
    if (sp >= 0)
        H5Sclose(sp);
    ncz_err_restore(es);
    return ret;
}

herr_t ncztr_refsync_after(ncztr_file *f, void *snap)
{
    refsnap *s = snap;
    herr_t ret = SUCCEED;
    for (size_t i = 0; s && i < s->n && ret >= 0; i++)
        ret = rewrite(f, &s->v[i]);
    ncztr_refsync_drop(s);
    return ret;
}
