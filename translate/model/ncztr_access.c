/* What the VOL connector may know of the model's objects, attributes and files: their
 * structs are opaque outside translate/ (ncztr_model_internal.h), so it asks here. */
#include "ncztr_model_internal.h"

const char *ncztr_obj_name(const ncztr_obj *o)
{
    return o->name;
}

ncztr_objkind ncztr_obj_kind(const ncztr_obj *o)
{
    return o->kind;
}

bool ncztr_obj_is_deleted(const ncztr_obj *o)
{
    return o->deleted;
}

bool ncztr_obj_is_anonymous(const ncztr_obj *o)
{
    return o->anonymous;
}

ncztr_obj *ncztr_obj_parent(const ncztr_obj *o)
{
    return o->parent;
}

ncztr_file *ncztr_obj_file(const ncztr_obj *o)
{
    return o->file;
}

uint64_t ncztr_obj_id(const ncztr_obj *o)
{
    return o->id;
}

void ncztr_obj_info(ncztr_obj *o, bool with_nattrs, ncztr_objinfo *info)
{
    info->id = o->id;
    info->kind = o->kind;
    info->name_count = ncztr_name_count(o);
    info->nattrs = with_nattrs ? ncztr_obj_nattrs(o) : 0;
}

void ncztr_link_info(ncztr_obj *link, uint64_t *corder, uint64_t *target_id)
{
    *corder = link->corder;
    const ncztr_obj *t = ncztr_deref(link, false);
    *target_id = t ? t->id : link->id;
}

/* A group that cannot be read has no links: its error is on the stack (a caller that must
 * tell the two apart calls ncztr_obj_load first). */
size_t ncztr_group_nlinks(const ncztr_obj *g)
{
    return ncztr_group_ready(g) < 0 ? 0 : g->nchildren;
}

uint64_t ncztr_group_next_corder(const ncztr_obj *g)
{
    return ncztr_group_ready(g) < 0 ? 0 : g->next_child_corder;
}

bool ncztr_array_is_vlen(const ncztr_obj *o)
{
    return o->arr && o->arr->za.dtype.tclass == NCZTR_T_VLEN;
}

const char *ncztr_attr_name(const ncztr_attr *a)
{
    return a->name;
}

bool ncztr_attr_is_deleted(const ncztr_attr *a)
{
    return a->deleted;
}

H5T_cset_t ncztr_attr_name_cset(const ncztr_attr *a)
{
    return a->name_cset;
}

void ncztr_attr_set_name_cset(ncztr_attr *a, H5T_cset_t cset)
{
    a->name_cset = cset;
}

const char *ncztr_attr_load_error(const ncztr_attr *a)
{
    return a->load_error;
}

hid_t ncztr_attr_type(const ncztr_attr *a)
{
    return a->val.type;
}

hid_t ncztr_attr_space(const ncztr_attr *a)
{
    return a->val.space;
}

size_t ncztr_attr_nelem(const ncztr_attr *a)
{
    return a->val.nelem;
}

void ncztr_attr_info(const ncztr_attr *a, uint64_t *corder, H5T_cset_t *cset, hsize_t *data_size)
{
    *corder = a->corder;
    *cset = a->name_cset;
    /* 0 for one that cannot be read, which is still listed */
    *data_size = a->load_error ? 0 : (hsize_t)a->val.nelem * (hsize_t)H5Tget_size(a->val.type);
}

ncztr_obj *ncztr_file_root(const ncztr_file *f)
{
    return f->root;
}

bool ncztr_file_is_readonly(const ncztr_file *f)
{
    return f->readonly;
}

const char *ncztr_file_location(const ncztr_file *f)
{
    return f->url.location;
}

void ncztr_file_set_default_maxstrlen(ncztr_file *f, size_t maxstrlen)
{
    f->default_maxstrlen = maxstrlen;
}

void ncztr_file_set_workers(ncztr_file *f, unsigned workers)
{
    nczm_map_set_workers(f->map, workers);
}

void ncztr_file_set_refops(ncztr_file *f, ncztr_ref_in_fn in, ncztr_ref_out_fn out, void *ctx)
{
    f->refs.in = in;
    f->refs.out = out;
    f->refs.ctx = ctx;
}

static void note_parts(ncztr_obj *o)
{
    for (size_t i = 0; i < o->nattrs; i++)
        ncztr_attrval_note_parts(&o->attrs[i]->val);
    for (size_t i = 0; i < o->nchildren; i++)
        note_parts(o->children[i]);
}

void ncztr_file_note_parts(ncztr_file *f)
{
    if (f->root)
        note_parts(f->root);
}
