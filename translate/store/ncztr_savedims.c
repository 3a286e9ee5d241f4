/* Dimensions before a save (ncztr_save.c): every array dimension must name a shared
 * dimension for netCDF-C, so each array's dimension references are resolved, anonymous
 * dimensions made or dropped, and arrays on unlimited dimensions take their length. */
#include "ncztr_save_internal.h"

#include <stdlib.h>
#include <string.h>

static ncztr_dim *add_dim(ncztr_obj *g, const char *name, uint64_t size, bool unlimited)
{
    ncztr_dim *d = ncztr_group_add_dim(g, name, size, unlimited);
    if (d)
        g->attrs_dirty = true;
    return d;
}

/* prefix and n in decimal into name, which has room for the prefix, 20 digits and the NUL:
 * what snprintf would write, without parsing a format for each array of a file of many. */
static void anon_name(char *name, const char *prefix, uint64_t n)
{
    char digits[24];
    size_t nd = 0, np = strlen(prefix);
    do
        digits[nd++] = (char)('0' + n % 10);
    while ((n /= 10) != 0);
    memcpy(name, prefix, np);
    for (size_t i = 0; i < nd; i++)
        name[np + i] = digits[nd - 1 - i];
    name[np + nd] = '\0';
}

static herr_t resolve_dims(ncztr_obj *o)
{
    if (o->deleted)
        return SUCCEED;
    if (o->kind == NCZTR_GROUP) {
        for (size_t i = 0; i < o->nchildren; i++)
            if (resolve_dims(o->children[i]) < 0)
                return FAIL;
        return SUCCEED;
    }
    ncztr_array *a = o->arr;
    if (!a || a->load_error || a->scalar || a->dimonly)
        return SUCCEED;
    ncztr_file *f = o->file;
    if (!a->dimrefs) {
        a->dimrefs = ncztr_dimrefs_new(a);
        if (!a->dimrefs)
            return NCZ_PUSH(NCZ_E_NOMEM, "out of memory");
    }
    for (int k = 0; k < a->za.rank; k++) {
        uint64_t len = a->za.shape[k];
        bool unlim = a->maxdims[k] == H5S_UNLIMITED;
        if (a->dimrefs[k]) {
            ncztr_obj *owner = NULL;
            ncztr_dim *d = ncztr_find_dim(f, a->dimrefs[k], &owner);
            if (d && d->unlimited == unlim && (d->size == len || d->unlimited)) {
                d->used = true;
                /* An anonymous unlimited dimension is its array's alone: it follows the
                 * array's length, shrinks included. A named one is the longest of its
                 * arrays (extend_to_dims then gives them all that length). */
                bool own = ncztr_ds_is_anonymous(d->name);
                if (d->unlimited && (d->size < len || (own && d->size != len))) {
                    d->size = len;
                    owner->attrs_dirty = true;
                }
                continue;
            }
            free(a->dimrefs[k]);
            a->dimrefs[k] = NULL;
        }
        /* Anonymous dimensions live in the root group, named as netCDF-C names the
         * dimensions it infers for pure Zarr arrays. An unlimited one belongs to its array
         * alone (its size follows that array): it gets a name no dimension has yet, which
         * the array's dimension references keep from then on. */
        char ref[96], *name = ref + 1;
        uint64_t u = 1;
        ref[0] = '/';
        if (unlim)
            do
                anon_name(name, "_Anonymous_UDim_", u++);
            while (ncztr_group_dim(f->root, name));
        else
            anon_name(name, "_Anonymous_Dim_", len);
        ncztr_dim *d = ncztr_group_dim(f->root, name);
        if (!d && !(d = add_dim(f->root, name, len, unlim)))
            return NCZ_PUSH(NCZ_E_NOMEM, "out of memory");
        d->used = true;
        if (unlim && d->size < len) {
            d->size = len;
            f->root->attrs_dirty = true;
        }
        if (!(a->dimrefs[k] = strdup(ref)))
            return NCZ_PUSH(NCZ_E_NOMEM, "out of memory");
        o->attrs_dirty = true;
    }
    return SUCCEED;
}

/* After resolve_dims, per node: a group drops the anonymous dimensions no array names any
 * more (their array was deleted, or named a scale's dimension since) and clears the others'
 * marks for the next save; an array on an unlimited dimension shorter than the dimension
 * takes its length. netCDF-C's NCZarr and xarray take an array's shape as the length of each
 * of its dimensions ("Invalid dimension size" otherwise), while netCDF-4 and HDF5 let a
 * dataset stay shorter (another variable wrote more records): the records it never wrote
 * read as fill, as netCDF shows them. Pruning a group before its arrays are visited is safe:
 * only dimensions no array names go. */
static herr_t settle_dims(ncztr_obj *o, void *ud)
{
    (void)ud;
    if (o->deleted)
        return SUCCEED;
    if (o->kind == NCZTR_GROUP) {
        size_t w = 0;
        for (size_t i = 0; i < o->ndims; i++) {
            ncztr_dim d = o->dims[i];
            if (!d.used && ncztr_ds_is_anonymous(d.name)) {
                free(d.name);
                o->attrs_dirty = true;
                continue;
            }
            d.used = false;
            o->dims[w++] = d;
        }
        if (w != o->ndims) {
            o->ndims = w;
            nczc_hindex_clear(&o->dim_ix);
        }
        return SUCCEED;
    }
    ncztr_array *a = o->arr;
    if (!a || a->load_error || a->scalar || a->dimonly || a->stub || !a->dimrefs)
        return SUCCEED;
    for (int k = 0; k < a->za.rank; k++) {
        if (!a->dimrefs[k] || a->maxdims[k] != H5S_UNLIMITED)
            continue;
        ncztr_dim *d = ncztr_find_dim(o->file, a->dimrefs[k], NULL);
        if (d && d->unlimited && d->size > a->za.shape[k]) {
            a->za.shape[k] = d->size;
            o->meta_dirty = true;
        }
    }
    return SUCCEED;
}

herr_t ncztr_save_dims(ncztr_file *f)
{
    if (resolve_dims(f->root) < 0)
        return FAIL;
    return ncztr_tree_walk(f, settle_dims, NULL);
}
