/* The .zattrs of a v2 array or group written as text when it has no attributes of its own
 * to write (most: HDF5 programs seldom give arrays any, and netCDF-4's dimension attributes
 * are written as dimensions). build_zattrs (ncztr_save.c) makes the same text from a tree
 * of JSON values: for a file of many arrays, building and freeing those trees (some thirty
 * allocations an array) cost more than the rest of the save. Every key, value and their
 * order here follow build_zattrs's array and group branches; a change to one is a change
 * to both. */
#include "ncztr_save_internal.h"

#include <stdlib.h>
#include <string.h>

const char *ncztr_save_simple_name(const char *fqn)
{
    const char *s = strrchr(fqn, '/');
    return s ? s + 1 : fqn;
}

bool ncztr_save_finite_maxdims(const ncztr_array *a)
{
    for (int k = 0; k < a->za.rank; k++)
        if (a->maxdims[k] != H5S_UNLIMITED && a->maxdims[k] != a->za.shape[k])
            return true;
    return false;
}

/* A member's key (a literal needing no escape), after the one before it. */
static void key(ncztr_jtext *t, bool *first, const char *k)
{
    ncztr_jtext_raw(t, *first ? "\"" : ", \"");
    ncztr_jtext_raw(t, k);
    ncztr_jtext_raw(t, "\": ");
    *first = false;
}

/* A member whose value is a literal string needing no escape. */
static void str_member(ncztr_jtext *t, bool *first, const char *k, const char *v)
{
    key(t, first, k);
    ncztr_jtext_raw(t, "\"");
    ncztr_jtext_raw(t, v);
    ncztr_jtext_raw(t, "\"");
}

static void list_sep(ncztr_jtext *t, int k)
{
    if (k)
        ncztr_jtext_raw(t, ",");
}

/* "_nczarr_array": the array's NCZarr and HDF5 description. */
static herr_t nczarr_array(ncztr_jtext *t, const ncztr_obj *o)
{
    const ncztr_array *a = o->arr;
    bool first = true;
    ncztr_jtext_raw(t, "{");
    key(t, &first, "dimension_references");
    ncztr_jtext_raw(t, "[");
    for (int k = 0; !a->scalar && k < a->za.rank; k++) {
        list_sep(t, k);
        ncztr_jtext_str(t, a->dimrefs && a->dimrefs[k] ? a->dimrefs[k] : "");
    }
    ncztr_jtext_raw(t, "]");
    if (a->scalar) {
        key(t, &first, "scalar");
        ncztr_jtext_raw(t, "1");
    }
    if (a->null_space) {
        key(t, &first, "hdf5_null");
        ncztr_jtext_raw(t, "1");
    }
    if (a->is_datatype) {
        key(t, &first, "hdf5_datatype");
        ncztr_jtext_raw(t, "1");
    }
    if (a->za.dtype.tclass == NCZTR_T_STRING && !a->vlen_string) {
        key(t, &first, "fixedstring");
        ncztr_jtext_raw(t, "1");
    }
    if (ncztr_ctype_is_special(a->type) || a->ref_obj ||
        (a->za.dtype.tclass == NCZTR_T_VLEN && a->za.vlen_kind == 'j')) {
        char *b64 = ncztr_type_encode(a->type, o->name);
        if (!b64)
            return FAIL;
        key(t, &first, "hdf5_type");
        ncztr_jtext_str(t, b64);
        free(b64);
    }
    if (ncztr_zarray_fill_elided(&a->za)) {
        key(t, &first, "fill_zero");
        ncztr_jtext_raw(t, "1");
    }
    if (!a->scalar && ncztr_save_finite_maxdims(a)) {
        key(t, &first, "hdf5_maxdims");
        ncztr_jtext_raw(t, "[");
        for (int k = 0; k < a->za.rank; k++) {
            list_sep(t, k);
            if (a->maxdims[k] == H5S_UNLIMITED)
                ncztr_jtext_raw(t, "null");
            else
                ncztr_jtext_u64(t, (uint64_t)a->maxdims[k]);
        }
        ncztr_jtext_raw(t, "]");
    }
    if (ncztr_is_half_float(a->type)) {
        str_member(t, &first, "hdf5_dtype", H5Tget_order(a->type) == H5T_ORDER_BE ? ">f2" : "<f2");
    }
    str_member(t, &first, "storage",
               a->storage == NCZTR_STORAGE_CONTIGUOUS ? "contiguous"
               : a->storage == NCZTR_STORAGE_COMPACT  ? "compact"
                                                      : "chunked");
    ncztr_jtext_raw(t, "}");
    return SUCCEED;
}

herr_t ncztr_save_array_zattrs_text(const ncztr_obj *o, char **text)
{
    herr_t ret = SUCCEED;
    const ncztr_array *a = o->arr;
    const ncztr_file *f = o->file;
    bool nc = !f->opts.pure_zarr, first = true;
    bool maxstrlen = nc && a->vlen_string && a->maxstrlen != f->default_maxstrlen;
    ncztr_jtext t = NCZTR_JTEXT_INIT;
    *text = NULL;
    if (o->hdf5 || !ncztr_save_attrs_none(o))
        return SUCCEED;
    for (int k = 0; a->dimrefs && k < a->za.rank; k++)
        if (a->dimrefs[k] && !ncztr_utf8_valid(a->dimrefs[k]))
            return SUCCEED;
    ncztr_jtext_raw(&t, "{");
    if (!f->opts.noxarray) {
        key(&t, &first, "_ARRAY_DIMENSIONS");
        ncztr_jtext_raw(&t, "[");
        if (a->scalar)
            ncztr_jtext_raw(&t, "\"_scalar_\"");
        else
            for (int k = 0; k < a->za.rank; k++) {
                list_sep(&t, k);
                ncztr_jtext_str(&t, a->dimrefs && a->dimrefs[k] ? ncztr_save_simple_name(a->dimrefs[k])
                                                                : "_unknown_");
            }
        ncztr_jtext_raw(&t, "]");
    }
    if (maxstrlen) {
        key(&t, &first, "_nczarr_maxstrlen");
        ncztr_jtext_u64(&t, (uint64_t)a->maxstrlen);
    }
    if (nc) {
        key(&t, &first, "_nczarr_array");
        if (nczarr_array(&t, o) < 0)
            NCZ_GOTO_QUIET(FAIL);
        key(&t, &first, "_nczarr_attr");
        ncztr_jtext_raw(&t, "{\"types\": {");
        bool tfirst = true;
        if (!f->opts.noxarray)
            str_member(&t, &tfirst, "_ARRAY_DIMENSIONS", "|J0");
        if (maxstrlen)
            str_member(&t, &tfirst, "_nczarr_maxstrlen", "<i4");
        str_member(&t, &tfirst, "_nczarr_array", "|J0");
        str_member(&t, &tfirst, "_nczarr_attr", "|J0");
        ncztr_jtext_raw(&t, "}}");
    }
    ncztr_jtext_raw(&t, "}");
    *text = ncztr_jtext_take(&t);
    if (!*text)
        NCZ_GOTO_QUIET(FAIL);
done:
    free(t.p);
    return ret;
}

int ncztr_save_load_rank(const ncztr_obj *c)
{
    if (c->kind == NCZTR_ARRAY)
        return !c->arr ? 0 : c->arr->dimonly ? -1 : c->arr->nc_hidden ? 1 : 0;
    return c->kind == NCZTR_GROUP ? 2 : 3;
}

/* Could the group's .zattrs be written here: no attribute or HDF5 setting of its own, no
 * link but to its own children, no child under an escaped key name or hidden from netCDF-C,
 * its children in the order a load gives them, every name UTF-8? */
static bool group_plain(const ncztr_obj *g)
{
    int last = 0;
    if (!g->parent || g->hdf5 || !ncztr_save_attrs_none(g))
        return false;
    for (size_t i = 0; i < g->nchildren; i++) {
        const ncztr_obj *c = g->children[i];
        if (c->kind == NCZTR_ALIAS)
            return false;
        const char *k = ncztr_obj_keyname(c);
        if (!k || (c->esc_key && k == c->esc_key) || !ncztr_utf8_valid(k))
            return false;
        int r = ncztr_save_load_rank(c);
        if (r == 1 || (r >= 0 && r < last))
            return false;
        if (r > last)
            last = r;
    }
    for (size_t i = 0; i < g->ndims; i++)
        if (!ncztr_utf8_valid(g->dims[i].name))
            return false;
    return true;
}

/* The key names of the group's children of one kind (arrays: not dimensions), as a list. */
static void name_list(ncztr_jtext *t, const ncztr_obj *g, ncztr_objkind kind)
{
    bool first = true;
    ncztr_jtext_raw(t, "[");
    for (size_t i = 0; i < g->nchildren; i++) {
        const ncztr_obj *c = g->children[i];
        if (c->kind != kind || (kind == NCZTR_ARRAY && c->arr && c->arr->dimonly))
            continue;
        if (!first)
            ncztr_jtext_raw(t, ",");
        first = false;
        ncztr_jtext_str(t, ncztr_obj_keyname(c));
    }
    ncztr_jtext_raw(t, "]");
}

herr_t ncztr_save_group_zattrs_text(const ncztr_obj *g, char **text)
{
    ncztr_jtext t = NCZTR_JTEXT_INIT;
    *text = NULL;
    if (!group_plain(g))
        return SUCCEED;
    if (g->file->opts.pure_zarr) {
        ncztr_jtext_raw(&t, "{}");
    } else {
        bool first = true;
        ncztr_jtext_raw(&t, "{\"_nczarr_group\": {\"dimensions\": {");
        for (size_t i = 0; i < g->ndims; i++) {
            const ncztr_dim *d = &g->dims[i];
            if (!first)
                ncztr_jtext_raw(&t, ", ");
            first = false;
            ncztr_jtext_str(&t, d->name);
            ncztr_jtext_raw(&t, d->unlimited ? ": {\"size\": " : ": ");
            ncztr_jtext_u64(&t, d->size);
            if (d->unlimited)
                ncztr_jtext_raw(&t, ", \"unlimited\": 1}");
        }
        ncztr_jtext_raw(&t, "}, \"arrays\": ");
        name_list(&t, g, NCZTR_ARRAY);
        ncztr_jtext_raw(&t, ", \"groups\": ");
        name_list(&t, g, NCZTR_GROUP);
        ncztr_jtext_raw(&t, "}, \"_nczarr_attr\": {\"types\": {\"_nczarr_group\": \"|J0\", \"_nczarr_attr\": "
                            "\"|J0\"}}}");
    }
    *text = ncztr_jtext_take(&t);
    return *text ? SUCCEED : FAIL;
}
