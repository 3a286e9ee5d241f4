/* The two moments dimension scales and shared dimensions meet (see ncztr_dimscale.c):
 * after a load, the scales are found or made from the dimensions; before a save, the
 * dimensions and dimension references are derived from the scales. */
#include "ncztr_array_internal.h"
#include "ncztr_model_internal.h"
#include "ncztr_zarray.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- after a load ---- */

/* netCDF-4's dataset for a dimension without a variable: 32-bit big-endian floats never
 * written (all fill, 0), chunks of 1 when unlimited. */
static herr_t make_dimonly(ncztr_obj *g, const ncztr_dim *d)
{
    herr_t ret = SUCCEED;
    char *fqn = ncztr_ds_dim_fqn(g, d->name);
    json_t *nca = NULL;
    ncztr_obj *c = NULL;
    if (!fqn)
        return FAIL;
    /* netCDF-4 makes a fixed dimension's dataset contiguous (chunked only when unlimited):
     * one chunk of 2^32 elements or more would not even be describable to HDF5 */
    nca = d->unlimited || d->size == 0
              ? json_pack("{s:[s]}", "dimension_references", fqn)
              : json_pack("{s:[s], s:s}", "dimension_references", fqn, "storage", "contiguous");
    NCZ_CHECK_ALLOC(nca, FAIL);
    c = ncztr_obj_new(g->file, NCZTR_ARRAY, d->name);
    if (!c)
        NCZ_GOTO_QUIET(FAIL);
    c->arr = calloc(1, sizeof *c->arr);
    NCZ_CHECK_ALLOC(c->arr, FAIL);
    c->arr->type = c->arr->dcpl = H5I_INVALID_HID;
    ncztr_zarray *za = &c->arr->za;
    if (ncztr_zarray_set_rank(za, 1) < 0)
        NCZ_GOTO_QUIET(FAIL);
    za->shape[0] = d->size;
    za->chunks[0] = d->unlimited || d->size == 0 ? 1 : d->size;
    za->order = 'C';
    za->dimsep = '.';
    za->has_fill = 1;
    if (ncztr_dtype_parse(">f4", d->name, &za->dtype) < 0)
        NCZ_GOTO_QUIET(FAIL);
    za->fill = calloc(1, za->dtype.size);
    NCZ_CHECK_ALLOC(za->fill, FAIL);
    if (ncztr_array_setup_loaded(c, nca, NULL, d->name, d->name) < 0)
        NCZ_GOTO_QUIET(FAIL);
    c->arr->dimonly = true;
    if (ncztr_obj_attach(g, c) < 0)
        NCZ_GOTO_QUIET(FAIL);
    c = NULL;
done:
    ncztr_obj_unref(c);
    json_decref(nca);
    free(fqn);
    return ret;
}

static herr_t rename_non_coord(ncztr_obj *g, ncztr_obj *c)
{
    char *nn = NULL;
    if (asprintf(&nn, "%s%s", NCZTR_NON_COORD, c->name) < 0)
        return NCZ_PUSH(NCZ_E_NOMEM, "out of memory");
    if (ncztr_child(g, nn)) {
        free(nn); /* the name is taken: leave the array as it is */
        return SUCCEED;
    }
    ncztr_index_child_removed(g, c);
    free(c->name);
    c->name = nn;
    ncztr_index_child_added(g, c);
    if (c->id) {
        /* a group read after the open gives ids as it goes: the id follows the name shown */
        ncztr_ids_forget(c);
        c->id = 0;
        return ncztr_ids_take(c, g);
    }
    return SUCCEED;
}

static herr_t group_loaded(ncztr_obj *g)
{
    size_t nd = g->ndims;
    for (size_t i = 0; i < nd; i++) {
        /* a copy: making a dataset may grow nothing here, but names are read after calls */
        ncztr_dim d = g->dims[i];
        if (ncztr_ds_is_anonymous(d.name))
            continue;
        ncztr_obj *c = ncztr_child(g, d.name);
        if (c && c->kind == NCZTR_ARRAY && c->arr) {
            if (ncztr_obj_load(c) < 0)
                return FAIL;
            char *fqn = ncztr_ds_dim_fqn(g, d.name);
            if (!fqn)
                return FAIL;
            ncztr_array *a = c->arr;
            bool coord = !a->load_error && !a->scalar && a->za.rank >= 1 && a->dimrefs && a->dimrefs[0] &&
                         strcmp(a->dimrefs[0], fqn) == 0;
            free(fqn);
            if (coord) {
                a->coord = true;
                continue;
            }
            if (rename_non_coord(g, c) < 0)
                return FAIL;
        } else if (c) {
            continue; /* a group or link of that name: no dataset can stand for it */
        }
        if (make_dimonly(g, &d) < 0)
            return FAIL;
    }
    size_t nc = g->nchildren;
    for (size_t i = 0; i < nc; i++) {
        ncztr_obj *c = g->children[i];
        c->synth_pending = c->kind == NCZTR_ARRAY;
        c->file->hooks.load_attrs = ncztr_obj_load_attrs; /* the attribute indexes make them */
        if (c->kind == NCZTR_GROUP && group_loaded(c) < 0)
            return FAIL;
    }
    return SUCCEED;
}

herr_t ncztr_dimscales_loaded(ncztr_file *f)
{
    if (!f->root)
        return SUCCEED;
    /* netCDF-4 keeps _NCProperties as an attribute of the root group */
    if (f->ncproperties && ncztr_ds_add_text(f->root, "_NCProperties", f->ncproperties) < 0)
        return FAIL;
    return group_loaded(f->root);
}

herr_t ncztr_dimscales_group_loaded(ncztr_obj *g)
{
    return group_loaded(g);
}

/* ---- before a save ---- */

typedef struct dimid_map {
    int *ids;
    ncztr_obj **scales;
    size_t n, cap;
} dimid_map;

static herr_t map_add(dimid_map *m, int id, ncztr_obj *s)
{
    if (m->n == m->cap) {
        size_t nc = m->cap ? 2 * m->cap : 16;
        int *ni = realloc(m->ids, nc * sizeof *ni);
        if (ni)
            m->ids = ni;
        ncztr_obj **ns = realloc(m->scales, nc * sizeof *ns);
        if (ns)
            m->scales = ns;
        if (!ni || !ns)
            return NCZ_PUSH(NCZ_E_NOMEM, "out of memory");
        m->cap = nc;
    }
    m->ids[m->n] = id;
    m->scales[m->n++] = s;
    return SUCCEED;
}

static bool first_int(const ncztr_attr *a, int *v)
{
    if (!a || a->load_error || H5Tget_class(a->val.type) != H5T_INTEGER || a->val.nelem < 1 || !a->val.data)
        return false;
    long long x = 0;
    if (H5Tconvert(a->val.type, H5T_NATIVE_LLONG, 1, memcpy(&x, a->val.data, H5Tget_size(a->val.type)), NULL,
                   H5P_DEFAULT) < 0)
        return false;
    *v = (int)x;
    return true;
}

/* Scale flags from the attributes of objects whose attributes are in memory. */
static void scale_flags(ncztr_obj *o)
{
    if (o->kind != NCZTR_ARRAY || !o->arr || o->synth_pending || o->arr->load_error)
        return;
    bool scale, dimonly;
    ncztr_ds_scale_attrs(o, &scale, &dimonly);
    o->arr->coord = scale && !dimonly;
    o->arr->dimonly = dimonly;
}

static bool is_scale(const ncztr_obj *o)
{
    return o->kind == NCZTR_ARRAY && o->arr && !o->deleted && !o->arr->load_error &&
           (o->arr->coord || o->arr->dimonly) && !o->arr->scalar && o->arr->za.rank >= 1;
}

/* Flags, then numbers the scales as netCDF-C does on read (see dimid_of): an explicit
 * _Netcdf4Dimid wins and moves the count past it. */
static herr_t number_one(ncztr_obj *c, dimid_map *m, int *next)
{
    for (size_t i = 0; i < m->n; i++)
        if (m->scales[i] == c)
            return SUCCEED;
    int id;
    if (!c->synth_pending && first_int(ncztr_attr_find_loaded(c, "_Netcdf4Dimid"), &id) && id >= 0) {
        if (id >= *next)
            *next = id + 1;
    } else {
        id = (*next)++;
    }
    return map_add(m, id, c);
}

/* Flags, then numbers the scales as netCDF-C does on read (see dimid_of): an explicit
 * _Netcdf4Dimid wins and moves the count past it. A group's dimensions keep the order the
 * store had them in; new scales follow in creation order (netCDF-C creates the datasets
 * of dimensions in dimension order). */
static herr_t number_scales(ncztr_obj *g, dimid_map *m, int *next)
{
    for (size_t i = 0; i < g->nchildren; i++)
        if (!g->children[i]->deleted)
            scale_flags(g->children[i]);
    for (size_t i = 0; i < g->ndims; i++) {
        ncztr_obj *c = ncztr_child(g, g->dims[i].name);
        if (c && is_scale(c) && number_one(c, m, next) < 0)
            return FAIL;
    }
    for (size_t i = 0; i < g->nchildren; i++)
        if (is_scale(g->children[i]) && number_one(g->children[i], m, next) < 0)
            return FAIL;
    for (size_t i = 0; i < g->nchildren; i++)
        if (g->children[i]->kind == NCZTR_GROUP && !g->children[i]->deleted &&
            number_scales(g->children[i], m, next) < 0)
            return FAIL;
    return SUCCEED;
}

static int map_id(const dimid_map *m, const ncztr_obj *s)
{
    for (size_t i = 0; i < m->n; i++)
        if (m->scales[i] == s)
            return m->ids[i];
    return -1;
}

static ncztr_obj *map_scale(const dimid_map *m, int id)
{
    for (size_t i = 0; i < m->n; i++)
        if (m->ids[i] == id)
            return m->scales[i];
    return NULL;
}

/* The group's dimensions: one per scale (in netCDF's order), then the anonymous ones. */
static herr_t derive_group_dims(ncztr_obj *g, const dimid_map *m)
{
    size_t ns = 0;
    ncztr_obj **sc = calloc(g->nchildren ? g->nchildren : 1, sizeof *sc);
    ncztr_dim *nd = calloc(g->nchildren + g->ndims + 1, sizeof *nd);
    size_t n = 0;
    herr_t ret = SUCCEED;
    NCZ_CHECK_ALLOC(sc && nd, FAIL);
    for (size_t i = 0; i < g->nchildren; i++)
        if (is_scale(g->children[i]))
            sc[ns++] = g->children[i];
    /* insertion sort by dimid: a group has few */
    for (size_t i = 1; i < ns; i++)
        for (size_t j = i; j > 0 && map_id(m, sc[j - 1]) > map_id(m, sc[j]); j--) {
            ncztr_obj *t = sc[j];
            sc[j] = sc[j - 1];
            sc[j - 1] = t;
        }
    for (size_t i = 0; i < ns; i++) {
        ncztr_array *a = sc[i]->arr;
        nd[n].name = strdup(sc[i]->name);
        NCZ_CHECK_ALLOC(nd[n].name, FAIL);
        nd[n].unlimited = a->maxdims[0] == H5S_UNLIMITED;
        nd[n].size = a->za.shape[0];
        const ncztr_dim *old = ncztr_group_dim(g, sc[i]->name);
        if (old && nd[n].unlimited && old->unlimited && old->size > nd[n].size)
            nd[n].size = old->size;
        n++;
    }
    for (size_t i = 0; i < g->ndims; i++) {
        if (!ncztr_ds_is_anonymous(g->dims[i].name))
            continue;
        nd[n] = g->dims[i];
        nd[n].name = strdup(g->dims[i].name);
        NCZ_CHECK_ALLOC(nd[n].name, FAIL);
        n++;
    }
    bool same = n == g->ndims;
    for (size_t i = 0; same && i < n; i++)
        same = strcmp(nd[i].name, g->dims[i].name) == 0 && nd[i].size == g->dims[i].size &&
               nd[i].unlimited == g->dims[i].unlimited;
    if (!same) {
        for (size_t i = 0; i < g->ndims; i++)
            free(g->dims[i].name);
        free(g->dims);
        g->dims = nd;
        g->ndims = n;
        g->dims_cap = g->nchildren + g->ndims + 1;
        nczc_hindex_clear(&g->dim_ix);
        g->attrs_dirty = true;
        nd = NULL;
    }
done:
    if (nd)
        for (size_t i = 0; i < n; i++)
            free(nd[i].name);
    free(nd);
    free(sc);
    return ret;
}

static char *scale_fqn(const ncztr_obj *s)
{
    return s && s->parent && is_scale(s) ? ncztr_ds_dim_fqn(s->parent, s->name) : NULL;
}

/* An array's dimension references from its attributes in memory: its own dimension for a
 * scale, DIMENSION_LIST, then _Netcdf4Coordinates; what none names stays. */
static herr_t derive_array_refs(ncztr_obj *o, const dimid_map *m)
{
    ncztr_array *a = o->arr;
    if (o->synth_pending || !a || a->load_error || a->scalar || a->null_space || a->dimonly || a->za.rank < 1)
        return SUCCEED;
    ncztr_file *f = o->file;
    int rank = a->za.rank;
    ncztr_attr *dl = ncztr_attr_find_loaded(o, "DIMENSION_LIST"),
               *co = ncztr_attr_find_loaded(o, "_Netcdf4Coordinates");
    if (dl && (!ncztr_attr_is_plumbing(o, dl) || H5Tget_class(dl->val.type) != H5T_VLEN ||
               dl->val.nelem != (size_t)rank))
        dl = NULL;
    int coords[NCZTR_MAX_RANK];
    size_t ncoords = 0;
    if (co && ncztr_attr_is_plumbing(o, co) && co->val.nelem == (size_t)rank) {
        long long tmp[NCZTR_MAX_RANK];
        size_t esz = H5Tget_size(co->val.type);
        unsigned char buf[NCZTR_MAX_RANK * sizeof(long long)];
        memcpy(buf, co->val.data, (size_t)rank * esz);
        if (H5Tconvert(co->val.type, H5T_NATIVE_LLONG, (size_t)rank, buf, NULL, H5P_DEFAULT) >= 0) {
            memcpy(tmp, buf, (size_t)rank * sizeof *tmp);
            for (int k = 0; k < rank; k++)
                coords[k] = (int)tmp[k];
            ncoords = (size_t)rank;
        }
    }
    if (!a->dimrefs && !(a->dimrefs = ncztr_dimrefs_new(a)))
        return NCZ_PUSH(NCZ_E_NOMEM, "out of memory");
    for (int k = 0; k < rank; k++) {
        char *ref = NULL;
        if (k == 0 && is_scale(o))
            ref = ncztr_ds_dim_fqn(o->parent, o->name);
        if (!ref && dl) {
            const hvl_t *v = (const hvl_t *)dl->val.data + k;
            if (v->len >= 1 && v->p)
                ref = scale_fqn(ncztr_find_by_id(f, ncztr_refval_slot_id(v->p)));
        }
        if (!ref && ncoords)
            ref = scale_fqn(map_scale(m, coords[k]));
        if (!ref)
            continue;
        if (a->dimrefs[k] && strcmp(a->dimrefs[k], ref) == 0) {
            free(ref);
            continue;
        }
        free(a->dimrefs[k]);
        a->dimrefs[k] = ref;
        o->attrs_dirty = true;
    }
    return SUCCEED;
}

static herr_t derive_walk(ncztr_obj *g, const dimid_map *m)
{
    if (derive_group_dims(g, m) < 0)
        return FAIL;
    for (size_t i = 0; i < g->nchildren; i++) {
        ncztr_obj *c = g->children[i];
        if (c->deleted)
            continue;
        if (c->kind == NCZTR_GROUP && derive_walk(c, m) < 0)
            return FAIL;
        if (c->kind == NCZTR_ARRAY && derive_array_refs(c, m) < 0)
            return FAIL;
    }
    return SUCCEED;
}

herr_t ncztr_dimscales_derive(ncztr_file *f)
{
    herr_t ret = SUCCEED;
    dimid_map m = {0};
    int next = 0;
    if (!f->root)
        return SUCCEED;
    if (number_scales(f->root, &m, &next) < 0 || derive_walk(f->root, &m) < 0)
        ret = FAIL;
    free(m.ids);
    free(m.scales);
    return ret;
}
