/* Attribute values the model treats apart: those holding references, and the root's
 * _NCProperties (the file's, written where NCZarr keeps it). */
#include "ncztr_model_internal.h"

#include <stdlib.h>
#include <string.h>

/* Values holding references are kept with object ids in place of each H5R_ref_t
 * (ncztr_refval.h): the application's type must be the attribute's own, as H5DS's are. */
static herr_t same_ref_type(const ncztr_attr *a, hid_t mem_type)
{
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

herr_t ncztr_attr_read_refs(const ncztr_obj *o, const ncztr_attr *a, hid_t mem_type, void *buf)
{
    if (a->refs_pending) /* only while the store loads (ncztr_loadattrs.c) */
        return NCZ_PUSH(NCZ_E_ARGS, "attribute \"%s\": its references are not resolved yet", a->name);
    if (same_ref_type(a, mem_type) < 0)
        return FAIL;
    if (!o || !o->file->refs.out)
        return NCZ_PUSH(NCZ_E_ARGS, "attribute \"%s\": references cannot be made here", a->name);
    return ncztr_refval_out(a->val.type, a->val.data, buf, a->val.nelem, o->file->refs.out, o->file->refs.ctx,
                            a->name);
}

herr_t ncztr_attr_write_refs(ncztr_obj *o, ncztr_attr *a, hid_t mem_type, const void *buf)
{
    ncztr_file *f = o->file;
    if (same_ref_type(a, mem_type) < 0)
        return FAIL;
    if (!f->refs.in)
        return NCZ_PUSH(NCZ_E_ARGS, "attribute \"%s\": references cannot be stored here", a->name);
    void *nd = calloc(a->val.nelem ? a->val.nelem : 1, H5Tget_size(a->val.type));
    if (!nd)
        return NCZ_PUSH(NCZ_E_NOMEM, "out of memory writing attribute \"%s\"", a->name);
    if (ncztr_refval_in(a->val.type, buf, nd, a->val.nelem, f->refs.in, f->refs.ctx, a->name) < 0) {
        free(nd);
        return FAIL;
    }
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
            ncztr_type_has_ref(o->attrs[i]->val.type))
            o->attrs_dirty = true;
    for (size_t i = 0; i < o->nchildren; i++)
        touch(o->children[i]);
}

void ncztr_refattrs_touch(ncztr_file *f)
{
    if (f->has_ref_attrs && f->root)
        touch(f->root);
}
