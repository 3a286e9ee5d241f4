/* Attribute values the model treats apart: those holding references, and the root's
 * _NCProperties (the file's, written where NCZarr keeps it). */
#include "ncztr_model_internal.h"

#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

/* Old-style object references read or written as H5R_ref_t (H5T_STD_REF), as HDF5
 * converts them: what h5dump and h5diff ask for. */
static bool as_new_refs(const ncztr_attr *a, hid_t mem_type)
{
    return ncztr_ref_kind(a->val.type) == NCZTR_REF_OBJ && ncztr_ref_kind(mem_type) == NCZTR_REF_NEW;
}

/* Values holding references are kept with object ids in place of each H5R_ref_t
 * (ncztr_refval.h): the application's type must be the attribute's own, as H5DS's are. */
static herr_t same_ref_type(const ncztr_attr *a, hid_t mem_type)
{
    if (as_new_refs(a, mem_type))
        return SUCCEED;
    if (H5Tequal(mem_type, a->val.type) <= 0)
        return NCZ_PUSH(
            NCZ_E_ARGS,
            "attribute \"%s\" holds references: it can be read and written only with its own type", a->name);
    return SUCCEED;
}

/* The root's _NCProperties is the file's (written as NCZarr writes it). */
herr_t ncztr_attr_set_ncproperties(ncztr_file *f, const ncztr_attr *a)
{
    char *t = NULL;
    if (H5Tget_class(a->val.type) == H5T_STRING && a->val.nelem == 1) {
        if (H5Tis_variable_str(a->val.type) > 0) {
            const char *s = *(char *const *)a->val.data;
            t = strdup(s ? s : "");
        } else {
            t = strndup(a->val.data, H5Tget_size(a->val.type));
        }
        if (!t)
            return NCZ_PUSH(NCZ_E_NOMEM, "out of memory");
    }
    free(f->ncproperties);
    f->ncproperties = t;
    return SUCCEED;
}

herr_t ncztr_orefs_check_new(const char *what, const char *name)
{
    /* Old-style references to a store's objects come from HDF5's H5Rcreate, which refuses
     * them unless the preload library serves it (it marks itself with this symbol). Without
     * it a program could only write references that name nothing: h5repack and h5copy then
     * write null ones and go on, a copy that loses every reference without a word; refusing
     * the write later crashes h5repack (its error path frees a buffer twice). So the array or
     * attribute is refused when it is made, saying what to load. */
    if (dlsym(RTLD_DEFAULT, "H5VL_nczarr_preload_loaded"))
        return SUCCEED;
    return NCZ_PUSH(NCZ_E_UNSUPPORTED,
                    "%s \"%s\": old-style object references (H5T_STD_REF_OBJ) to a store's objects can be "
                    "made only with the preload library libnczarr_preload.so on LD_PRELOAD (HDF5's H5Rcreate "
                    "refuses them otherwise: docs/python.md)",
                    what, name);
}

/* Whether an old-style object reference's id names a live object of the store f. */
static bool live_id(void *f, uint64_t id)
{
    return ncztr_find_by_id(f, id) != NULL;
}

herr_t ncztr_attr_read_refs(const ncztr_obj *o, const ncztr_attr *a, hid_t mem_type, void *buf)
{
    if (a->refs_pending) /* only while the store loads (ncztr_loadattrs.c) */
        return NCZ_PUSH(NCZ_E_ARGS, "attribute \"%s\": its references are not resolved yet", a->name);
    if (same_ref_type(a, mem_type) < 0)
        return FAIL;
    /* H5R_ref_t are made by the connector; old-style references are the ids themselves */
    bool conv = as_new_refs(a, mem_type);
    if (!o || ((conv || ncztr_type_has_ref(a->val.type)) && !o->file->refs.out))
        return NCZ_PUSH(NCZ_E_ARGS, "attribute \"%s\": references cannot be made here", a->name);
    if (conv)
        return ncztr_orefs_to_refs(a->val.data, buf, a->val.nelem, o->file->refs.out, o->file->refs.ctx,
                                   live_id, o->file, a->name);
    if (ncztr_refval_out(a->val.type, a->val.data, buf, a->val.nelem, o->file->refs.out, o->file->refs.ctx,
                         a->name) < 0)
        return FAIL;
    /* an object deleted since the write: a null reference, as the store will have */
    ncztr_refval_drop_dead(a->val.type, buf, a->val.nelem, live_id, o->file);
    return SUCCEED;
}

herr_t ncztr_attr_write_refs(ncztr_obj *o, ncztr_attr *a, hid_t mem_type, const void *buf)
{
    ncztr_file *f = o->file;
    if (same_ref_type(a, mem_type) < 0)
        return FAIL;
    bool conv = as_new_refs(a, mem_type);
    if ((conv || ncztr_type_has_ref(a->val.type)) && !f->refs.in)
        return NCZ_PUSH(NCZ_E_ARGS, "attribute \"%s\": references cannot be stored here", a->name);
    void *nd = calloc(a->val.nelem ? a->val.nelem : 1, H5Tget_size(a->val.type));
    if (!nd)
        return NCZ_PUSH(NCZ_E_NOMEM, "out of memory writing attribute \"%s\"", a->name);
    if (conv ? ncztr_orefs_from_refs(buf, nd, a->val.nelem, f->refs.in, f->refs.ctx, a->name) < 0
             : ncztr_refval_in(a->val.type, buf, nd, a->val.nelem, f->refs.in, f->refs.ctx, a->name) < 0) {
        free(nd);
        return FAIL;
    }
    /* An old-style reference is a bare number: one naming no object of this store (another
     * file's, or garbage) is kept as the null reference, not as an id that an object made
     * later might happen to get. */
    ncztr_refval_drop_dead(a->val.type, nd, a->val.nelem, live_id, f);
    ncztr_refval_free(a->val.type, a->val.data, a->val.nelem);
    free(a->val.data);
    a->val.data = nd;
    a->refs_pending = false;
    o->attrs_dirty = true;
    return SUCCEED;
}

static void touch(ncztr_obj *o)
{
    for (size_t i = 0; i < o->nattrs && !o->attrs_dirty; i++)
        if (!o->attrs[i]->load_error && o->attrs[i]->val.type >= 0 &&
            ncztr_type_has_path_ref(o->attrs[i]->val.type))
            o->attrs_dirty = true;
    for (size_t i = 0; i < o->nchildren; i++)
        touch(o->children[i]);
}

void ncztr_refattrs_touch(ncztr_file *f)
{
    if (f->has_ref_attrs && f->root)
        touch(f->root);
}
