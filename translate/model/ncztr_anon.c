/* Anonymous objects (H5Gcreate_anon, H5Dcreate_anon, H5Tcommit_anon): in memory, with no
 * name, until ncztr_link_anon gives them one. An anonymous dataset keeps the chunks it
 * writes under a key of its own, below a name starting with '.', which no Zarr reader
 * lists; they move to its name when it is linked, and go with it when it never is. */
#include "ncztr_array_internal.h"
#include "ncztr_format.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

herr_t ncztr_group_create_anon(ncztr_file *f, ncztr_obj **out)
{
    if (f->readonly)
        return NCZ_PUSH(NCZ_E_ARGS, "cannot create an anonymous group: the store is open read-only");
    ncztr_obj *g = ncztr_obj_new(f, NCZTR_GROUP, "");
    if (!g)
        return FAIL;
    g->anonymous = true;
    if (ncztr_ids_take(g, NULL) < 0) {
        ncztr_obj_unref(g);
        return FAIL;
    }
    g->is_new = g->meta_dirty = g->attrs_dirty = true;
    *out = g; /* the caller's reference is the only one */
    return SUCCEED;
}

herr_t ncztr_link_anon(ncztr_obj *o, ncztr_obj *parent, const char *name)
{
    if (!o->anonymous)
        return NCZ_PUSH(
            NCZ_E_NOTREPR,
            "cannot link \"%s\" as \"%s\": NCZarr cannot represent an object with more than one name",
            o->name, name);
    if (o->file != parent->file)
        return NCZ_PUSH(NCZ_E_ARGS, "cannot link an anonymous object as \"%s\": it belongs to another store",
                        name);
    if (parent->file->readonly)
        return NCZ_PUSH(NCZ_E_ARGS, "cannot link \"%s\": the store is open read-only", name);
    if (parent->kind != NCZTR_GROUP || ncztr_obj_unlinked(parent))
        return NCZ_PUSH(NCZ_E_ARGS, "cannot link \"%s\": the location is not a linked group", name);
    size_t extra = o->kind == NCZTR_ARRAY ? ncztr_array_key_extra(o->arr->za.rank) : ncztr_meta_key_extra();
    if (ncztr_check_link_name(name, "link") < 0 || ncztr_check_key_room(parent, name, extra) < 0)
        return FAIL;
    if (ncztr_child(parent, name))
        return NCZ_PUSH(NCZ_E_EXISTS, "cannot link \"%s\": a link with that name already exists", name);
    char *nm = strdup(name);
    char *anon_key = o->kind == NCZTR_ARRAY ? ncztr_obj_key(o) : NULL;
    if (!nm || (o->kind == NCZTR_ARRAY && !anon_key)) {
        free(nm);
        free(anon_key);
        return NCZ_PUSH(NCZ_E_NOMEM, "out of memory linking \"%s\"", name);
    }
    /* Named before it is attached: the parent's name index takes the name it has then. */
    char *old = o->name;
    o->name = nm;
    if (ncztr_obj_attach(parent, o) < 0) {
        o->name = old;
        free(nm);
        free(anon_key);
        return FAIL;
    }
    free(old);
    o->anonymous = false;
    if (anon_key) {
        /* the chunks it wrote while anonymous move to its name (chunks still in its cache
         * are written under the name) */
        char *key = ncztr_obj_key(o);
        nczm_status st = !key                   ? NCZM_NOMEM
                         : o->file->shared_skip ? NCZM_OK
                                                : nczm_rename_tree(o->file->map, anon_key, key);
        free(key);
        free(anon_key);
        if (st != NCZM_OK && st != NCZM_NOTFOUND) {
            NCZ_PUSH(NCZ_E_STORE, "linking \"%s\": cannot move the data it holds: %s", name,
                     nczm_errmsg(o->file->map));
            ncztr_obj_detach(o);
            o->anonymous = true;
            return FAIL;
        }
    }
    ncztr_refattrs_touch(o->file); /* references to it get its path */
    ncztr_obj_ref(o);              /* the tree's reference */
    o->is_new = o->meta_dirty = o->attrs_dirty = true;
    parent->attrs_dirty = true;
    if (o->kind == NCZTR_ARRAY)
        o->file->root->attrs_dirty = true; /* dimensions are derived on save */
    return SUCCEED;
}
