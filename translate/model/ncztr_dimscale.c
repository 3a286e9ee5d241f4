/* HDF5 dimension scales <-> NCZarr shared dimensions.
 *
 * In NCZarr a dimension is an entry of its group's "_nczarr_group.dimensions" and an
 * array names its dimensions in "_nczarr_array.dimension_references"; HDF5 (H5DS) and
 * netCDF-4 say the same with datasets marked as scales and attributes: CLASS, NAME,
 * DIMENSION_LIST, REFERENCE_LIST, _Netcdf4Dimid, _Netcdf4Coordinates. Those attributes
 * live in memory as ordinary attributes, so that H5DS and netCDF-C work on them as on a
 * native file, but are never written ("plumbing"): a save derives the dimensions from
 * them (ncztr_dimscales_derive), and a load makes them again from the dimensions, on the
 * first use of an object's attributes (synth_pending), because an open must not read the
 * metadata of every array.
 *
 * A scale is the dimension of its own name in its group. A netCDF dimension without a
 * coordinate variable is, in netCDF-4, a float dataset named after it whose NAME starts
 * with NCZTR_DIM_ONLY_TEXT: here such a dataset is a dimension and no array
 * (ncztr_array.dimonly), and on load each such dimension gets one back. A variable named
 * like a dimension it is not the coordinate of is, in netCDF-4, the dataset
 * NCZTR_NON_COORD + name: its key drops the prefix, as netCDF-C's NCZarr names it. */
#include "ncztr_array_internal.h"
#include "ncztr_model_internal.h"
#include "ncztr_zarray.h"

#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct reflist_elem {
    H5R_ref_t ref;
    unsigned dim;
} reflist_elem;

bool ncztr_ds_is_anonymous(const char *dimname)
{
    return strncmp(dimname, "_Anonymous_", 11) == 0;
}

/* ---- reading the plumbing attributes ---- */

/* The text of a one-element string attribute into buf; false when it is not one. */
static bool attr_text(const ncztr_attr *a, char *buf, size_t size)
{
    if (!a || a->load_error || a->val.nelem != 1 || H5Tget_class(a->val.type) != H5T_STRING || !a->val.data)
        return false;
    if (H5Tis_variable_str(a->val.type) > 0) {
        const char *s = *(char *const *)a->val.data;
        snprintf(buf, size, "%s", s ? s : "");
    } else {
        size_t n = H5Tget_size(a->val.type);
        size_t l = strnlen(a->val.data, n);
        if (l >= size)
            l = size - 1;
        memcpy(buf, a->val.data, l);
        buf[l] = '\0';
    }
    return true;
}

static bool int_attr(const ncztr_attr *a)
{
    return a && !a->load_error && H5Tget_class(a->val.type) == H5T_INTEGER;
}

static bool class_is_scale(const ncztr_obj *o)
{
    char t[32];
    return attr_text(ncztr_attr_find_loaded(o, "CLASS"), t, sizeof t) && strcmp(t, "DIMENSION_SCALE") == 0;
}

void ncztr_ds_scale_attrs(const ncztr_obj *o, bool *scale, bool *dimonly)
{
    char t[128];
    *scale = class_is_scale(o);
    *dimonly = *scale && attr_text(ncztr_attr_find_loaded(o, "NAME"), t, sizeof t) &&
               strncmp(t, NCZTR_DIM_ONLY_TEXT, strlen(NCZTR_DIM_ONLY_TEXT)) == 0;
}

/* Whether o is a scale, and a netCDF dimension-only one: from what was loaded while its
 * attributes are pending, else from its attributes. */
static void scale_info(const ncztr_obj *o, bool *scale, bool *dimonly)
{
    *scale = *dimonly = false;
    if (o->kind != NCZTR_ARRAY || !o->arr || o->deleted || o->arr->load_error)
        return;
    if (o->synth_pending) {
        *scale = o->arr->coord || o->arr->dimonly;
        *dimonly = o->arr->dimonly;
        return;
    }
    ncztr_ds_scale_attrs(o, scale, dimonly);
}

bool ncztr_attr_is_plumbing(const ncztr_obj *o, const ncztr_attr *a)
{
    if (!o->parent && o->kind == NCZTR_GROUP && strcmp(a->name, "_NCProperties") == 0)
        return true; /* written from ncztr_file.ncproperties */
    if (!o->parent && o->kind == NCZTR_GROUP && strcmp(a->name, "_nc3_strict") == 0)
        return true; /* netCDF-4's classic-model flag: NCZarr has no place for it */
    if (o->kind != NCZTR_ARRAY || a->load_error)
        return false;
    const char *n = a->name;
    if (strcmp(n, "DIMENSION_LIST") == 0 || strcmp(n, "REFERENCE_LIST") == 0)
        return ncztr_type_has_ref(a->val.type);
    if (strcmp(n, "_Netcdf4Coordinates") == 0)
        return int_attr(a);
    if (strcmp(n, "CLASS") == 0)
        return class_is_scale(o);
    if (strcmp(n, "_Netcdf4Dimid") == 0)
        return int_attr(a) && class_is_scale(o);
    if (strcmp(n, "NAME") == 0) {
        char t[1024];
        /* a scale's own name, or netCDF's text for a dimension-only one, is made again on
         * load; any other NAME is the application's and kept */
        return class_is_scale(o) && attr_text(a, t, sizeof t) &&
               (strcmp(t, o->name) == 0 || strncmp(t, NCZTR_DIM_ONLY_TEXT, strlen(NCZTR_DIM_ONLY_TEXT)) == 0);
    }
    return false;
}

/* ---- dimension names and numbers ---- */

/* "/g/x" for the dimension defined in g named name. */
char *ncztr_ds_dim_fqn(const ncztr_obj *g, const char *name)
{
    char *gp = ncztr_obj_path(g);
    char *s = NULL;
    if (gp && asprintf(&s, "%s%s%s", gp, strcmp(gp, "/") == 0 ? "" : "/", name) < 0)
        s = NULL;
    free(gp);
    if (!s)
        NCZ_PUSH(NCZ_E_NOMEM, "out of memory");
    return s;
}

/* The scale object standing for the dimension fqn: its coordinate variable or its
 * dimension-only dataset, or NULL. */
static ncztr_obj *scale_of_dim(ncztr_file *f, const char *fqn)
{
    ncztr_obj *g = NULL;
    ncztr_dim *d = fqn ? ncztr_find_dim(f, fqn, &g) : NULL;
    if (!d || !g || ncztr_ds_is_anonymous(d->name))
        return NULL;
    ncztr_obj *c = ncztr_child(g, d->name);
    if (!c || c->kind != NCZTR_ARRAY || !c->arr || c->deleted)
        return NULL;
    bool scale, dimonly;
    scale_info(c, &scale, &dimonly);
    return scale ? c : NULL;
}

/* netCDF-C numbers dimensions as it meets them: groups depth first in creation order,
 * each group's dimensions in order. *n counts up to (g, name); true when found. */
static bool count_dims(const ncztr_obj *at, const ncztr_obj *g, const char *name, int *n)
{
    for (size_t i = 0; i < at->ndims; i++) {
        if (at == g && strcmp(at->dims[i].name, name) == 0)
            return true;
        (*n)++;
    }
    for (size_t i = 0; i < at->nchildren; i++)
        if (at->children[i]->kind == NCZTR_GROUP && !at->children[i]->deleted &&
            count_dims(at->children[i], g, name, n))
            return true;
    return false;
}

static int dimid_of(ncztr_file *f, const char *fqn)
{
    ncztr_obj *g = NULL;
    ncztr_dim *d = ncztr_find_dim(f, fqn, &g);
    int n = 0;
    return d && g && count_dims(f->root, g, d->name, &n) ? n : -1;
}

/* ---- making attributes ---- */

/* Appends a made attribute (type and space are taken over; data too, in the kept form). */
static herr_t add_made(ncztr_obj *o, const char *name, hid_t type, hid_t space, void *data, size_t nelem)
{
    ncztr_attrval v = {type, space, nelem, data, 0};
    ncztr_attr *a = calloc(1, sizeof *a);
    if (!a || !(a->name = strdup(name))) {
        free(a);
        ncztr_attrval_clear(&v);
        return NCZ_PUSH(NCZ_E_NOMEM, "out of memory");
    }
    a->refcount = 1;
    a->val = v;
    if (ncztr_attr_append(o, a) < 0) {
        ncztr_attr_unref(a);
        return FAIL;
    }
    return SUCCEED;
}

herr_t ncztr_ds_add_text(ncztr_obj *o, const char *name, const char *text)
{
    if (ncztr_attr_find_loaded(o, name))
        return SUCCEED;
    size_t l = strlen(text) + 1;
    hid_t t = H5Tcopy(H5T_C_S1), s = H5Screate(H5S_SCALAR);
    char *d = malloc(l);
    if (t < 0 || s < 0 || !d || H5Tset_size(t, l) < 0 || H5Tset_strpad(t, H5T_STR_NULLTERM) < 0) {
        free(d);
        if (t >= 0)
            H5Tclose(t);
        if (s >= 0)
            H5Sclose(s);
        return NCZ_PUSH(NCZ_E_HDF5, "cannot make attribute \"%s\"", name);
    }
    memcpy(d, text, l);
    return add_made(o, name, t, s, d, 1);
}

static herr_t add_ints(ncztr_obj *o, const char *name, const int *v, size_t n, bool scalar)
{
    if (ncztr_attr_find_loaded(o, name))
        return SUCCEED;
    hid_t t = H5Tcopy(H5T_NATIVE_INT);
    hid_t s = scalar ? H5Screate(H5S_SCALAR) : H5Screate_simple(1, (hsize_t[]){n}, NULL);
    int *d = malloc((n ? n : 1) * sizeof *d);
    if (t < 0 || s < 0 || !d) {
        free(d);
        if (t >= 0)
            H5Tclose(t);
        if (s >= 0)
            H5Sclose(s);
        return NCZ_PUSH(NCZ_E_HDF5, "cannot make attribute \"%s\"", name);
    }
    memcpy(d, v, n * sizeof *d);
    return add_made(o, name, t, s, d, n);
}

/* DIMENSION_LIST: per dimension the ids of its scales (one here, or none). */
static herr_t add_dimlist(ncztr_obj *o, const uint64_t *ids, int rank)
{
    hid_t t = H5Tvlen_create(H5T_STD_REF), s = H5Screate_simple(1, (hsize_t[]){(hsize_t)rank}, NULL);
    hvl_t *d = calloc((size_t)rank, sizeof *d);
    bool ok = t >= 0 && s >= 0 && d;
    for (int k = 0; ok && k < rank; k++) {
        if (!ids[k])
            continue;
        if (!(d[k].p = calloc(1, sizeof(H5R_ref_t)))) {
            ok = false;
            break;
        }
        d[k].len = 1;
        ncztr_refval_slot_set(d[k].p, ids[k]);
    }
    if (!ok) {
        for (int k = 0; d && k < rank; k++)
            free(d[k].p);
        free(d);
        if (t >= 0)
            H5Tclose(t);
        if (s >= 0)
            H5Sclose(s);
        return NCZ_PUSH(NCZ_E_NOMEM, "cannot make attribute \"DIMENSION_LIST\"");
    }
    return add_made(o, "DIMENSION_LIST", t, s, d, (size_t)rank);
}

static hid_t reflist_type(void)
{
    hid_t t = H5Tcreate(H5T_COMPOUND, sizeof(reflist_elem));
    if (t < 0)
        return t;
    if (H5Tinsert(t, "dataset", offsetof(reflist_elem, ref), H5T_STD_REF) < 0 ||
        H5Tinsert(t, "dimension", offsetof(reflist_elem, dim), H5T_NATIVE_UINT) < 0) {
        H5Tclose(t);
        return H5I_INVALID_HID;
    }
    return t;
}

typedef struct refscan {
    const ncztr_obj *scale;
    const char *fqn;
    reflist_elem *v;
    size_t n, cap;
    bool oom;
} refscan;

static void refscan_add(refscan *r, uint64_t id, unsigned dim)
{
    if (r->n == r->cap) {
        size_t nc = r->cap ? 2 * r->cap : 8;
        reflist_elem *nv = realloc(r->v, nc * sizeof *nv);
        if (!nv) {
            r->oom = true;
            return;
        }
        r->v = nv;
        r->cap = nc;
    }
    memset(&r->v[r->n], 0, sizeof r->v[r->n]);
    ncztr_refval_slot_set(&r->v[r->n].ref, id);
    r->v[r->n].dim = dim;
    r->n++;
}

/* The arrays attached to r->scale: by their DIMENSION_LIST when it is in memory, else by
 * the dimension references they were loaded with. */
static herr_t refscan_walk(refscan *r, ncztr_obj *o)
{
    if (o->deleted || o->kind == NCZTR_ALIAS)
        return SUCCEED;
    if (o->kind == NCZTR_GROUP) {
        for (size_t i = 0; i < o->nchildren && !r->oom; i++)
            if (refscan_walk(r, o->children[i]) < 0)
                return FAIL;
        return SUCCEED;
    }
    if (o == r->scale || ncztr_obj_load(o) < 0)
        return o == r->scale ? SUCCEED : FAIL;
    ncztr_array *a = o->arr;
    if (!a || a->load_error || a->scalar)
        return SUCCEED;
    bool scale, dimonly;
    scale_info(o, &scale, &dimonly);
    if (scale)
        return SUCCEED; /* scales are not attached to anything */
    if (!o->synth_pending) {
        ncztr_attr *dl = ncztr_attr_find_loaded(o, "DIMENSION_LIST");
        if (!dl || !ncztr_type_has_ref(dl->val.type) || H5Tget_class(dl->val.type) != H5T_VLEN)
            return SUCCEED;
        const hvl_t *v = dl->val.data;
        for (size_t k = 0; v && k < dl->val.nelem; k++)
            for (size_t j = 0; j < v[k].len; j++)
                if (ncztr_refval_slot_id((const char *)v[k].p + j * sizeof(H5R_ref_t)) == r->scale->id)
                    refscan_add(r, o->id, (unsigned)k);
        return SUCCEED;
    }
    for (int k = 0; a->dimrefs && k < a->za.rank; k++)
        if (a->dimrefs[k] && strcmp(a->dimrefs[k], r->fqn) == 0)
            refscan_add(r, o->id, (unsigned)k);
    return SUCCEED;
}

static herr_t add_reflist(ncztr_obj *s, const char *fqn)
{
    herr_t ret = SUCCEED;
    refscan r = {s, fqn, NULL, 0, 0, false};
    if (ncztr_attr_find_loaded(s, "REFERENCE_LIST"))
        return SUCCEED;
    if (refscan_walk(&r, s->file->root) < 0)
        NCZ_GOTO_QUIET(FAIL);
    if (r.oom)
        NCZ_GOTO(FAIL, NCZ_E_NOMEM, "out of memory");
    if (r.n == 0)
        NCZ_GOTO_QUIET(SUCCEED);
    hid_t t = reflist_type(), sp = H5Screate_simple(1, (hsize_t[]){r.n}, NULL);
    if (t < 0 || sp < 0) {
        if (t >= 0)
            H5Tclose(t);
        if (sp >= 0)
            H5Sclose(sp);
        NCZ_GOTO(FAIL, NCZ_E_HDF5, "cannot make attribute \"REFERENCE_LIST\"");
    }
    ret = add_made(s, "REFERENCE_LIST", t, sp, r.v, r.n);
    r.v = NULL;
done:
    free(r.v);
    return ret;
}

/* The attributes of a loaded array that stand for its dimensions. */
static herr_t synth_array(ncztr_obj *o)
{
    herr_t ret = SUCCEED;
    ncztr_file *f = o->file;
    ncztr_array *a = o->arr;
    char *own = NULL;
    if (!a || a->load_error || a->scalar || a->null_space || a->za.rank < 1)
        return SUCCEED;
    bool nc = f->ncproperties != NULL;
    int rank = a->za.rank;
    int ids[NCZTR_MAX_RANK];
    bool all_named = a->dimrefs != NULL;
    for (int k = 0; k < rank && all_named; k++)
        all_named = a->dimrefs[k] && (ids[k] = dimid_of(f, a->dimrefs[k])) >= 0;
    if (nc && !a->dimonly && all_named && add_ints(o, "_Netcdf4Coordinates", ids, (size_t)rank, false) < 0)
        NCZ_GOTO_QUIET(FAIL);
    if (a->coord || a->dimonly) {
        if (!(own = ncztr_ds_dim_fqn(o->parent, o->name)))
            NCZ_GOTO_QUIET(FAIL);
        char name[160];
        if (a->dimonly)
            snprintf(name, sizeof name, "%s%10d", NCZTR_DIM_ONLY_TEXT,
                     a->maxdims[0] == H5S_UNLIMITED ? 0 : (int)a->za.shape[0]);
        else
            snprintf(name, sizeof name, "%s", o->name);
        if (ncztr_ds_add_text(o, "CLASS", "DIMENSION_SCALE") < 0 || ncztr_ds_add_text(o, "NAME", name) < 0)
            NCZ_GOTO_QUIET(FAIL);
        int id = dimid_of(f, own);
        /* netCDF-4 gives every dimension's scale its dimension id (coordinate variables
         * too): its HDF5 reader numbers the dimensions by them */
        if (nc && id >= 0 && add_ints(o, "_Netcdf4Dimid", &id, 1, true) < 0)
            NCZ_GOTO_QUIET(FAIL);
        if (add_reflist(o, own) < 0)
            NCZ_GOTO_QUIET(FAIL);
        NCZ_GOTO_QUIET(SUCCEED);
    }
    uint64_t sids[NCZTR_MAX_RANK];
    bool any = false;
    for (int k = 0; k < rank; k++) {
        ncztr_obj *s = a->dimrefs ? scale_of_dim(f, a->dimrefs[k]) : NULL;
        sids[k] = s ? s->id : 0;
        any |= s != NULL;
    }
    if (any && !ncztr_attr_find_loaded(o, "DIMENSION_LIST") && add_dimlist(o, sids, rank) < 0)
        NCZ_GOTO_QUIET(FAIL);
done:
    free(own);
    return ret;
}

herr_t ncztr_obj_load_attrs(const ncztr_obj *o)
{
    if (ncztr_obj_load(o) < 0)
        return FAIL;
    if (!o->synth_pending)
        return SUCCEED;
    /* Making attributes changes nothing the caller can see but what they look like from
     * the start: a const node may be completed, as by ncztr_obj_load. */
    ncztr_obj *m = (ncztr_obj *)o;
    if (o->kind != NCZTR_ARRAY) {
        m->synth_pending = false;
        return SUCCEED;
    }
    /* netCDF's dimension ids and a scale's REFERENCE_LIST count over the whole tree: what
     * can be read of it (a damaged group elsewhere leaves this array's attributes readable) */
    if (o->file->npending > 0 && ncztr_tree_load_readable(o->file->root) < 0)
        return FAIL;
    m->synth_pending = false;
    return synth_array(m);
}

static herr_t materialize_one(ncztr_obj *o, void *ud)
{
    (void)ud;
    return o->deleted ? SUCCEED : ncztr_obj_load_attrs(o);
}

herr_t ncztr_dimscales_materialize(ncztr_obj *moved)
{
    ncztr_file *f = moved->file;
    bool scale = moved->kind == NCZTR_GROUP, dimonly;
    if (!scale)
        scale_info(moved, &scale, &dimonly);
    /* only a group or a scale carries dimensions that other arrays name */
    return scale ? ncztr_tree_walk(f, materialize_one, NULL) : SUCCEED;
}
