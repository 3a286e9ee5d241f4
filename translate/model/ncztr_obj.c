/* Objects of the model: made, counted and freed (with their attributes, array part, indexes
 * and id), placed in and taken out of the tree, named by path and by store key. The bottom
 * of the model: it calls only the indexes, the ids and the key names below it. */
#include "ncztr_format.h"
#include "ncztr_model_internal.h"
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static herr_t grow(void **arr, size_t *cap, size_t need, size_t elsize)
{
    if (need <= *cap)
        return SUCCEED;
    size_t ncap = *cap ? *cap * 2 : 8;
    while (ncap < need)
        ncap *= 2;
    void *p = realloc(*arr, ncap * elsize);
    if (!p)
        return NCZ_PUSH(NCZ_E_NOMEM, "out of memory growing a list to %zu entries", need);
    *arr = p;
    *cap = ncap;
    return SUCCEED;
}

ncztr_obj *ncztr_obj_new(ncztr_file *f, ncztr_objkind kind, const char *name)
{
    ncztr_obj *o = calloc(1, sizeof *o);
    if (!o || !(o->name = strdup(name))) {
        free(o);
        NCZ_PUSH(NCZ_E_NOMEM, "out of memory creating object \"%s\"", name);
        return NULL;
    }
    o->kind = kind;
    o->file = f;
    o->refcount = 1; /* its id comes when it is attached (ncztr_ids_take) */
    return o;
}

static void attr_free(ncztr_attr *a)
{
    ncztr_attrval_clear(&a->val);
    free(a->load_error);
    json_decref(a->raw);
    free(a->name);
    free(a);
}

void ncztr_attr_ref(ncztr_attr *a)
{
    a->refcount++;
}

void ncztr_attr_unref(ncztr_attr *a)
{
    if (a && --a->refcount == 0)
        attr_free(a);
}

static void obj_free(ncztr_obj *o)
{
    for (size_t i = 0; i < o->nattrs; i++) {
        o->attrs[i]->deleted = true;
        ncztr_attr_unref(o->attrs[i]);
    }
    free(o->attrs);
    for (size_t i = 0; i < o->nchildren; i++) {
        o->children[i]->parent = NULL;
        ncztr_obj_unref(o->children[i]);
    }
    free(o->children);
    for (size_t i = 0; i < o->ndims; i++)
        free(o->dims[i].name);
    free(o->dims);
    char *anon = o->anonymous && o->kind == NCZTR_ARRAY && !o->file->readonly ? ncztr_obj_key(o) : NULL;
    if (o->arr)
        ncztr_array_free(o->arr);
    if (anon && o->file->map && !o->file->shared_skip) /* never named: what it wrote goes with it */
        (void)nczm_delete_tree(o->file->map, anon);
    free(anon);
    ncztr_index_obj_free(o);
    ncztr_ids_forget(o);
    json_decref(o->hdf5);
    free(o->target_path);
    free(o->group_error);
    free(o->ext_file);
    free(o->name);
    free(o->esc_key);
    free(o->esc_from);
    free(o);
}

void ncztr_obj_ref(ncztr_obj *o)
{
    o->refcount++;
}

void ncztr_obj_unref(ncztr_obj *o)
{
    if (o && --o->refcount == 0)
        obj_free(o);
}

herr_t ncztr_obj_attach(ncztr_obj *parent, ncztr_obj *child)
{
    bool had_id = child->id != 0;
    if (ncztr_ids_take(child, parent) < 0)
        return FAIL;
    if (grow((void **)&parent->children, &parent->children_cap, parent->nchildren + 1, sizeof(ncztr_obj *)) <
        0) {
        if (!had_id) {
            ncztr_ids_forget(child);
            child->id = 0;
        }
        return FAIL;
    }
    parent->children[parent->nchildren++] = child;
    child->parent = parent;
    child->corder = parent->next_child_corder++;
    ncztr_index_child_added(parent, child);
    return SUCCEED;
}

/* An HDF5 path uses link names; a store key the names of the keys (ncztr_obj_keyname). */
static const char *part(const ncztr_obj *o, bool key)
{
    return key ? ncztr_obj_keyname(o) : o->name;
}

static size_t path_len(const ncztr_obj *o, bool key)
{
    size_t n = 0;
    for (; o && o->parent; o = o->parent)
        n += strlen(part(o, key)) + 1;
    return n;
}

static char *build_path(const ncztr_obj *o, bool leading_slash)
{
    bool key = !leading_slash;
    size_t n = path_len(o, key);
    char *s = malloc(n + 2);
    if (!s) {
        NCZ_PUSH(NCZ_E_NOMEM, "out of memory building an object path");
        return NULL;
    }
    size_t pos = n;
    s[n] = '\0';
    for (; o && o->parent; o = o->parent) {
        const char *nm = part(o, key);
        size_t l = strlen(nm);
        pos -= l;
        memcpy(s + pos, nm, l);
        s[--pos] = '/';
    }
    if (n == 0)
        strcpy(s, leading_slash ? "/" : "");
    else if (!leading_slash)
        memmove(s, s + 1, n); /* drop the leading '/', keeping the NUL */
    return s;
}

const char *ncztr_obj_where(const ncztr_obj *n, char *buf, size_t size)
{
    char *p = (n && !n->deleted) ? ncztr_obj_path(n) : NULL;
    snprintf(buf, size, "%s", p ? p : (n ? n->name : "?"));
    free(p);
    return buf;
}

char *ncztr_obj_path(const ncztr_obj *o)
{
    return build_path(o, true);
}

char *ncztr_obj_key(const ncztr_obj *o)
{
    if (o->at_store_root)
        return strdup("");
    if (o->anonymous && o->kind == NCZTR_ARRAY)
        return ncztr_anon_key(o);
    return build_path(o, false);
}

bool ncztr_is_ancestor(const ncztr_obj *a, const ncztr_obj *b)
{
    for (const ncztr_obj *p = b; p; p = p->parent)
        if (p == a)
            return true;
    return false;
}

void ncztr_obj_detach(ncztr_obj *o)
{
    ncztr_obj *p = o->parent;
    if (!p)
        return;
    size_t i = ncztr_child_pos(p, o);
    if (i < p->nchildren) {
        memmove(p->children + i, p->children + i + 1, (p->nchildren - i - 1) * sizeof *p->children);
        p->nchildren--;
        ncztr_index_child_removed(p, o);
        if (p->nchildren == 0)
            p->next_child_corder = 0; /* as HDF5 does when a group's last link goes */
    }
    o->parent = NULL;
    p->attrs_dirty = true;
}

bool ncztr_obj_unlinked(const ncztr_obj *o)
{
    return o->deleted || o->anonymous || (!o->parent && o != o->file->root);
}

char *ncztr_anon_key(const ncztr_obj *o)
{
    char buf[64];
    snprintf(buf, sizeof buf, ".nczarr_anonymous/%016llx", (unsigned long long)o->id);
    return strdup(buf);
}

void ncztr_array_free(ncztr_array *a)
{
    if (!a)
        return;
    if (a->cache)
        a->cache_free(a->cache);
    ncztr_chain_free(a->chain);
    ncztr_dimrefs_free(a); /* by the rank: before za is cleared */
    ncztr_zarray_clear(&a->za);
    free(a->maxdims);
    /* A program that exits with its file open has its ids closed by HDF5's own shutdown,
     * which may free these before it closes the file: only what is still valid is closed. */
    if (a->type >= 0 && H5Iis_valid(a->type) > 0)
        H5Tclose(a->type);
    if (a->dcpl >= 0 && H5Iis_valid(a->dcpl) > 0)
        H5Pclose(a->dcpl);
    free(a->load_error);
    free(a->load_warning);
    free(a);
}

char *ncztr_obj_path_or(const ncztr_obj *o, const char *dflt)
{
    char *p = ncztr_obj_path(o);
    return p ? p : strdup(dflt);
}
