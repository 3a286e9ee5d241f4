/* Lookups by path (following soft links and aliases to their targets) and by object id.
 * Above the indexes and the objects; below everything that names objects by path. */
#include "ncztr_model_internal.h"
#include <stdlib.h>
#include <string.h>

/* Each component that is an alias (an extra hard link) stands for the object it names;
 * the last one too unless deref_last is false. */
static ncztr_obj *find_path(ncztr_obj *base, const char *path, bool deref_last)
{
    if (!base || !path)
        return NULL;
    ncztr_obj *cur = base;
    if (path[0] == '/')
        cur = base->file->root;
    const char *p = path;
    while (*p) {
        while (*p == '/')
            p++;
        if (!*p)
            break;
        size_t l = strcspn(p, "/");
        if (!(l == 1 && p[0] == '.')) {
            if (cur->kind == NCZTR_ALIAS && !(cur = ncztr_deref(cur, true)))
                return NULL;
            if (!(cur = ncztr_child_len(cur, p, l)))
                return NULL;
        }
        p += l;
    }
    if (deref_last || (path[0] && path[strlen(path) - 1] == '/'))
        cur = ncztr_deref(cur, true);
    return cur;
}

ncztr_obj *ncztr_find(ncztr_obj *base, const char *path)
{
    return find_path(base, path, true);
}

ncztr_obj *ncztr_find_link(ncztr_obj *base, const char *path)
{
    return find_path(base, path, false);
}

herr_t ncztr_lookup(ncztr_obj *base, const char *path, ncztr_obj **out)
{
    *out = ncztr_find(base, path);
    if (!*out) {
        char *bp = ncztr_obj_path(base);
        NCZ_PUSH(NCZ_E_NOTFOUND, "object \"%s\" does not exist (relative to \"%s\")", path, bp ? bp : "?");
        free(bp);
        return FAIL;
    }
    return SUCCEED;
}

/* Every group at or below o read (pending ones: ncztr_group_ready). */
static herr_t groups_ready(ncztr_obj *o)
{
    if (o->kind != NCZTR_GROUP)
        return SUCCEED;
    if (ncztr_group_ready(o) < 0)
        return FAIL;
    for (size_t i = 0; i < o->nchildren; i++)
        if (groups_ready(o->children[i]) < 0)
            return FAIL;
    return SUCCEED;
}

ncztr_obj *ncztr_find_by_id(ncztr_file *f, uint64_t id)
{
    if (!id)
        return NULL;
    ncztr_obj *o = ncztr_ids_get(f, id);
    /* a token from an earlier open may name an object in a group not read yet */
    if (!o && f->npending > 0 && f->root) {
        size_t mark = ncz_err_mark();
        if (groups_ready(f->root) < 0)
            free(ncz_err_take_messages(mark)); /* a group that cannot be read: not this id */
        o = ncztr_ids_get(f, id);
    }
    if (!o || ncztr_obj_unlinked(o))
        return NULL;
    /* inside a subtree being moved (detached for a moment) */
    const ncztr_obj *p = o;
    while (p->parent)
        p = p->parent;
    return p == f->root ? o : NULL;
}

/* A soft link's object: its value resolved now, from its group (HDF5's rule), every time. */
static ncztr_obj *soft_target(ncztr_obj *a, bool push)
{
    ncztr_obj *t = NULL;
    if (!a->deleted && !a->resolving && a->parent && a->target_path) {
        a->resolving = true;
        t = ncztr_find(a->parent, a->target_path);
        a->resolving = false;
    }
    if (t && ncztr_obj_unlinked(t))
        t = NULL;
    if (!t && push) {
        char *ap = ncztr_obj_path_or(a, a->name);
        NCZ_PUSH(NCZ_E_NOTFOUND, "soft link \"%s\" -> \"%s\" names no object (a dangling soft link)",
                 ap ? ap : a->name, a->target_path ? a->target_path : "?");
        free(ap);
    }
    return t;
}

ncztr_obj *ncztr_alias_target(ncztr_obj *a, bool push)
{
    ncztr_file *f = a->file;
    ncztr_obj *t = NULL;
    if (a->link_class == H5L_TYPE_SOFT)
        return soft_target(a, push);
    if (a->link_class == H5L_TYPE_EXTERNAL) {
        if (push) {
            char *ap = ncztr_obj_path_or(a, a->name);
            NCZ_PUSH(NCZ_E_UNSUPPORTED,
                     "external link \"%s\" -> \"%s\" in file \"%s\": the connector does not follow external "
                     "links out of a store (H5Lget_val gives the file and the object)",
                     ap ? ap : a->name, a->target_path ? a->target_path : "?",
                     a->ext_file ? a->ext_file : "?");
            free(ap);
        }
        return NULL;
    }
    if (!a->deleted && !a->resolving) {
        if (a->target_known) {
            t = ncztr_find_by_id(f, a->target_id);
        } else if (a->target_path) {
            a->resolving = true;
            t = ncztr_find(f->root, a->target_path);
            a->resolving = false;
            if (t && t->id) { /* (while a store loads, objects have no ids yet) */
                a->target_id = t->id;
                a->target_known = true;
            }
        }
    }
    if (t && (t->kind == NCZTR_ALIAS || ncztr_obj_unlinked(t)))
        t = NULL;
    if (!t && push) {
        char *ap = ncztr_obj_path_or(a, a->name);
        NCZ_PUSH(NCZ_E_NOTFOUND, "hard link \"%s\" names \"%s\", which does not exist in the store",
                 ap ? ap : a->name, a->target_path ? a->target_path : "?");
        free(ap);
    }
    return t;
}

ncztr_obj *ncztr_deref(ncztr_obj *o, bool push)
{
    return o && o->kind == NCZTR_ALIAS ? ncztr_alias_target(o, push) : o;
}
