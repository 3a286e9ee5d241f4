/* Moving and copying objects (H5Lmove, H5Ocopy): model changes that must reach the store
 * first. A move writes the subtree and renames its keys in the store before the model
 * changes; a copy writes the source and copies its chunk objects (or its values, when the
 * copy's chunk layout differs). */
#include "ncztr_array_internal.h"
#include "ncztr_refsync.h"
#include "ncztr_store.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- moves ---- */

/* Writes the dirty chunks of every array at or below o, while their keys are still the old
 * ones, and empties the caches: chunk keys are derived from the node's path, so nothing
 * cached may straddle the rename. */
static herr_t evict_caches(ncztr_obj *o)
{
    if (o->kind == NCZTR_ARRAY)
        return ncztr_array_cache_evict(o);
    for (size_t i = 0; i < o->nchildren; i++)
        if (evict_caches(o->children[i]) < 0)
            return FAIL;
    return SUCCEED;
}

/* The key o would have as child new_name of parent. */
static char *child_key(const ncztr_obj *parent, const ncztr_obj *o, const char *new_name)
{
    size_t pl = strlen(NCZTR_NON_COORD);
    if (o->kind == NCZTR_ARRAY && strncmp(new_name, NCZTR_NON_COORD, pl) == 0 && new_name[pl])
        new_name += pl; /* see ncztr_obj_keyname */
    bool failed = false;
    char *esc = ncztr_key_escape(new_name, &failed); /* see ncztr_obj_keyname */
    if (failed)
        return NULL;
    char *pk = ncztr_obj_key(parent), *k = pk ? nczm_key_join(pk, esc ? esc : new_name) : NULL;
    if (pk && !k)
        NCZ_PUSH(NCZ_E_NOMEM, "out of memory building the key of \"%s\"", new_name);
    free(pk);
    free(esc);
    return k;
}

/* Moves o in the model under new_parent as *name (taken over: *name becomes NULL, or on
 * failure stays the caller's). On failure o is back under its old parent with its old
 * name: the old parent's child array still has the room. */
static herr_t relink(ncztr_obj *o, ncztr_obj *new_parent, char **name)
{
    ncztr_obj *op = o->parent;
    char *old_nm = o->name;
    ncztr_obj_ref(o);
    ncztr_obj_detach(o);
    o->name = *name;
    herr_t ret = ncztr_obj_attach(new_parent, o);
    if (ret < 0) {
        o->name = old_nm;
        ncztr_obj_attach(op, o);
    } else {
        *name = NULL;
        free(old_nm);
        ncztr_refattrs_touch(o->file); /* references to it are written as paths */
    }
    ncztr_obj_unref(o);
    return ret;
}

herr_t ncztr_move(ncztr_obj *o, ncztr_obj *new_parent, const char *new_name)
{
    herr_t ret = SUCCEED;
    char *old_key = NULL, *new_key = NULL, *nm = NULL;
    void *snap = NULL;
    nczm_map *map = o->file->map;
    if (!o->parent)
        NCZ_GOTO(FAIL, NCZ_E_ARGS, "cannot move the root group");
    if (o->file->readonly)
        NCZ_GOTO(FAIL, NCZ_E_ARGS, "cannot move \"%s\": the store is open read-only", o->name);
    if (o->at_store_root)
        NCZ_GOTO(FAIL, NCZ_E_UNSUPPORTED, "cannot move \"%s\": it is the array at the root of the store",
                 o->name);
    if (new_parent->kind != NCZTR_GROUP)
        NCZ_GOTO(FAIL, NCZ_E_ARGS, "cannot move \"%s\": the destination is not a group", o->name);
    if (ncztr_check_link_name(new_name, "link") < 0)
        NCZ_GOTO_QUIET(FAIL);
    if (ncztr_is_ancestor(o, new_parent))
        NCZ_GOTO(FAIL, NCZ_E_ARGS, "cannot move group \"%s\" into itself", o->name);
    ncztr_obj *existing = ncztr_child(new_parent, new_name);
    if (existing == o)
        NCZ_GOTO_QUIET(SUCCEED);
    if (existing)
        NCZ_GOTO(FAIL, NCZ_E_EXISTS, "cannot move \"%s\": destination \"%s\" already exists", o->name,
                 new_name);
    nm = strdup(new_name);
    NCZ_CHECK_ALLOC(nm, FAIL);
    /* the paths datasets of references store, as ids while the paths change */
    if (ncztr_refsync_before(o->file, &snap) < 0 ||
        ncztr_refsync_check_move(snap, o, new_parent, new_name) < 0)
        NCZ_GOTO_QUIET(FAIL);
    /* arrays that name a scale's dimension must follow the scale, not its old name */
    if (ncztr_dimscales_materialize(o) < 0)
        NCZ_GOTO_QUIET(FAIL);
    if (o->kind == NCZTR_ALIAS) {
        /* an alias owns no keys: moving it changes only its groups' metadata */
        if (relink(o, new_parent, &nm) < 0)
            NCZ_GOTO_QUIET(FAIL);
        new_parent->attrs_dirty = true;
        NCZ_GOTO_QUIET(SUCCEED);
    }
    /* Write the subtree as it is now, so that the keys to move exist, then move them in the
     * store (one directory rename for the directory store: no chunk is copied). The model
     * changes only once the store has, so a failure leaves both as they were. */
    if (evict_caches(o) < 0 || ncztr_save_tree(o->file) < 0)
        NCZ_GOTO_QUIET(FAIL);
    if (o->kind == NCZTR_ARRAY && o->arr && o->arr->dimonly) {
        /* a netCDF dimension-only dataset owns no keys */
        if (relink(o, new_parent, &nm) < 0)
            NCZ_GOTO_QUIET(FAIL);
        new_parent->attrs_dirty = true;
        NCZ_GOTO_QUIET(SUCCEED);
    }
    old_key = ncztr_obj_key(o);
    NCZ_CHECK_ALLOC(old_key, FAIL);
    if (!(new_key = child_key(new_parent, o, new_name)))
        NCZ_GOTO_QUIET(FAIL);
    if (!o->file->shared_skip && nczm_rename_tree(map, old_key, new_key) != NCZM_OK)
        NCZ_GOTO(FAIL, NCZ_E_STORE, "cannot move \"%s\" to \"%s\": %s", old_key, new_key, nczm_errmsg(map));
    ncztr_obj *op = o->parent;
    if (relink(o, new_parent, &nm) < 0) {
        if (!o->file->shared_skip && nczm_rename_tree(map, new_key, old_key) != NCZM_OK)
            NCZ_PUSH(NCZ_E_STORE, "cannot move \"%s\" back to \"%s\": %s", new_key, old_key,
                     nczm_errmsg(map));
        NCZ_GOTO_QUIET(FAIL);
    }
    op->attrs_dirty = true;
    new_parent->attrs_dirty = true;
    /* Dimension references name paths: rewrite metadata of everything on save. */
    o->attrs_dirty = true;
done:
    if (ret >= 0 && snap) {
        ret = ncztr_refsync_after(o->file, snap); /* the move is done: its paths are stored */
    } else if (snap) {
        hid_t es = ncz_err_save();
        ncztr_refsync_drop(snap);
        ncz_err_restore(es);
    }
    free(nm);
    free(old_key);
    free(new_key);
    return ret;
}

/* ---- anonymous objects ---- */

/* ---- copies (H5Ocopy) ---- */

static herr_t copy_attrs(const ncztr_obj *src, ncztr_obj *dst)
{
    for (size_t i = 0; i < src->nattrs; i++) {
        const ncztr_attr *sa = src->attrs[i];
        if (ncztr_attr_is_plumbing(src, sa))
            continue; /* a copy is attached to no dimension scale */
        ncztr_attr *a = calloc(1, sizeof *a);
        if (!a || !(a->name = strdup(sa->name))) {
            free(a);
            return NCZ_PUSH(NCZ_E_NOMEM, "out of memory copying attribute \"%s\"", sa->name);
        }
        a->refcount = 1;
        a->name_cset = sa->name_cset;
        a->val.type = a->val.space = H5I_INVALID_HID;
        /* an unreadable attribute is copied as the store had it */
        bool copied = true;
        if (!sa->load_error)
            copied = ncztr_attrval_copy(&sa->val, &a->val) >= 0;
        else if (!(a->load_error = strdup(sa->load_error)) || !(a->raw = json_deep_copy(sa->raw))) {
            NCZ_PUSH(NCZ_E_NOMEM, "out of memory copying attribute \"%s\"", sa->name);
            copied = false;
        }
        if (!copied || ncztr_attr_append(dst, a) < 0) {
            ncztr_attr_unref(a); /* its only reference: frees it */
            return FAIL;
        }
    }
    dst->attrs_dirty = true;
    return SUCCEED;
}

static bool same_layout(const ncztr_zarray *a, const ncztr_zarray *b)
{
    if (a->rank != b->rank || a->order != b->order || a->dimsep != b->dimsep || a->chunk_c != b->chunk_c ||
        strcmp(a->dtype.zarr, b->dtype.zarr) != 0 || a->has_fill != b->has_fill ||
        (a->has_fill && memcmp(a->fill, b->fill, a->dtype.size) != 0) || !a->structured != !b->structured ||
        (a->structured && !json_equal(a->structured, b->structured)))
        return false;
    for (int k = 0; k < a->rank; k++)
        if (a->chunks[k] != b->chunks[k])
            return false;
    if (!a->compressor != !b->compressor || (a->compressor && !json_equal(a->compressor, b->compressor)))
        return false;
    return !a->filters == !b->filters && (!a->filters || json_equal(a->filters, b->filters));
}

/* The data of an array whose copy got another chunk layout: read all, write all. */
static herr_t copy_values(ncztr_obj *src, ncztr_obj *dst)
{
    herr_t ret = SUCCEED;
    hid_t t = ncztr_array_type(src), sp = ncztr_array_space(src);
    void *buf = NULL;
    hssize_t n = H5Sget_simple_extent_npoints(sp);
    size_t esz = t >= 0 ? H5Tget_size(t) : 0;
    if (t < 0 || sp < 0 || n < 0 || !esz)
        NCZ_GOTO(FAIL, NCZ_E_HDF5, "cannot copy the data of \"%s\"", src->name);
    if (n == 0)
        NCZ_GOTO_QUIET(SUCCEED);
    buf = calloc((size_t)n, esz);
    NCZ_CHECK_ALLOC(buf, FAIL);
    /* references: as ids (no HDF5 conversion reaches them), stored again as paths */
    if (ncztr_array_is_ref(src)
            ? ncztr_refdata_io(src, t, sp, sp, buf, false) < 0 ||
                  ncztr_refdata_io(dst, t, sp, sp, buf, true) < 0
            : ncztr_array_read(src, t, sp, sp, buf) < 0 || ncztr_array_write(dst, t, sp, sp, buf) < 0)
        ret = FAIL;
    if (H5Tis_variable_str(t) > 0 || H5Tget_class(t) == H5T_VLEN)
        H5Treclaim(t, sp, H5P_DEFAULT, buf);
done:
    free(buf);
    if (t >= 0)
        H5Tclose(t);
    if (sp >= 0)
        H5Sclose(sp);
    return ret;
}

/* Copies the chunk objects of an array, every key below skey but its metadata (".z*",
 * which the copy writes itself), to the same places below dkey, inside the store. */
static herr_t copy_chunks(nczm_map *map, const char *skey, const char *dkey)
{
    herr_t ret = SUCCEED;
    nczm_list list = {0};
    char *src = NULL, *dst = NULL;
    if (nczm_search(map, skey, &list) != NCZM_OK)
        NCZ_GOTO(FAIL, NCZ_E_STORE, "cannot list \"%s\": %s", skey, nczm_errmsg(map));
    for (size_t i = 0; i < list.count; i++) {
        if (strncmp(list.names[i], ".z", 2) == 0)
            continue;
        free(src);
        free(dst);
        dst = NULL;
        if (!(src = nczm_key_join(skey, list.names[i])) || !(dst = nczm_key_join(dkey, list.names[i])))
            NCZ_GOTO(FAIL, NCZ_E_NOMEM, "out of memory copying \"%s\"", skey);
        if (nczm_copy_tree(map, src, dst) != NCZM_OK)
            NCZ_GOTO(FAIL, NCZ_E_STORE, "cannot copy \"%s\" to \"%s\": %s", src, dst, nczm_errmsg(map));
    }
done:
    free(src);
    free(dst);
    nczm_list_clear(&list);
    return ret;
}

static herr_t copy_array(ncztr_obj *src, ncztr_obj *parent, const char *name, ncztr_obj **out)
{
    herr_t ret = SUCCEED;
    ncztr_obj *d = NULL;
    char *skey = NULL, *dkey = NULL;
    hid_t t = H5I_INVALID_HID, sp = H5I_INVALID_HID, dcpl = H5I_INVALID_HID;
    if (ncztr_array_check_stored(src) < 0)
        NCZ_GOTO_QUIET(FAIL);
    if ((t = ncztr_array_type(src)) < 0 || (sp = ncztr_array_space(src)) < 0 ||
        (dcpl = ncztr_array_dcpl(src)) < 0)
        NCZ_GOTO(FAIL, NCZ_E_HDF5, "cannot copy \"%s\": cannot read its type, dataspace or creation plist",
                 src->name);
    if (ncztr_array_create(parent, name, t, sp, dcpl, H5P_DEFAULT, &d) < 0)
        NCZ_GOTO_QUIET(FAIL);
    d->arr->maxstrlen = src->arr->maxstrlen;
    d->arr->is_datatype = src->arr->is_datatype; /* a committed datatype stays one */
    d->arr->nc_hidden = src->arr->nc_hidden;
    if (src->arr->fill_never == d->arr->fill_never && same_layout(&src->arr->za, &d->arr->za)) {
        /* Same chunks, same encoding: copy the chunk objects as they are. */
        if (ncztr_array_flush(src) < 0 || ncztr_save_tree(src->file) < 0)
            NCZ_GOTO_QUIET(FAIL);
        skey = ncztr_obj_key(src);
        dkey = ncztr_obj_key(d);
        NCZ_CHECK_ALLOC(skey, FAIL);
        NCZ_CHECK_ALLOC(dkey, FAIL);
        if (!src->at_store_root && copy_chunks(src->file->map, skey, dkey) < 0)
            NCZ_GOTO_QUIET(FAIL);
    } else if (copy_values(src, d) < 0) {
        NCZ_GOTO_QUIET(FAIL);
    }
    *out = d;
    d = NULL;
done:
    if (d) {
        ncztr_unlink(d);
        ncztr_obj_unref(d);
    }
    free(skey);
    free(dkey);
    if (t >= 0)
        H5Tclose(t);
    if (sp >= 0)
        H5Sclose(sp);
    if (dcpl >= 0)
        H5Pclose(dcpl);
    return ret;
}

/* top: the copy being made (NULL until the first node exists), never copied into itself. */
static herr_t copy_rec(ncztr_obj *src, ncztr_obj *parent, const char *name, unsigned flags, int depth,
                       ncztr_obj *top, ncztr_obj **out)
{
    herr_t ret = SUCCEED;
    ncztr_obj *c = NULL, **kids = NULL;
    size_t nkids = 0;
    if (ncztr_link_class(src) != H5L_TYPE_HARD) {
        const char *file = NULL, *value = ncztr_link_value(src, &file);
        *out = NULL;
        return ncztr_symlink_create(parent, name, ncztr_link_class(src), value, file);
    }
    if (src->kind == NCZTR_ALIAS) {
        /* another name of the same object; ncztr_alias_fix_copy points it into the copy */
        ncztr_obj *t = ncztr_alias_target(src, false);
        *out = NULL;
        if (t)
            return ncztr_alias_create(t, parent, name);
        if (ncztr_check_link_name(name, "link") < 0 || !(c = ncztr_obj_new(parent->file, NCZTR_ALIAS, name)))
            return FAIL;
        if (!(c->target_path = strdup(src->target_path ? src->target_path : "/")) ||
            ncztr_obj_attach(parent, c) < 0) {
            ncztr_obj_unref(c);
            return NCZ_PUSH(NCZ_E_NOMEM, "out of memory copying hard link \"%s\"", name);
        }
        parent->attrs_dirty = true;
        return SUCCEED;
    } else if (src->kind == NCZTR_ARRAY) {
        if (copy_array(src, parent, name, &c) < 0)
            return FAIL;
    } else {
        if (ncztr_group_create(parent, name, &c) < 0)
            return FAIL;
        if (src->hdf5 && !(c->hdf5 = json_deep_copy(src->hdf5)))
            NCZ_GOTO(FAIL, NCZ_E_NOMEM, "out of memory copying \"%s\"", src->name);
        /* A shallow copy copies the group's members, but not theirs. */
        if (!((flags & NCZTR_COPY_SHALLOW) && depth > 0)) {
            /* Snapshot first: copying a group into itself must not copy the copy. */
            nkids = src->nchildren;
            kids = malloc((nkids ? nkids : 1) * sizeof *kids);
            NCZ_CHECK_ALLOC(kids, FAIL);
            for (size_t i = 0; i < nkids; i++) {
                kids[i] = src->children[i];
                ncztr_obj_ref(kids[i]);
            }
            for (size_t i = 0; i < nkids; i++) {
                ncztr_obj *k = NULL;
                if (kids[i] == c || kids[i] == top || kids[i]->deleted)
                    continue;
                if (copy_rec(kids[i], c, kids[i]->name, flags, depth + 1, top ? top : c, &k) < 0)
                    NCZ_GOTO_QUIET(FAIL);
                ncztr_obj_unref(k);
            }
        }
    }
    if (!(flags & NCZTR_COPY_NO_ATTRS) && copy_attrs(src, c) < 0)
        NCZ_GOTO_QUIET(FAIL);
    *out = c;
    c = NULL;
done:
    if (kids)
        for (size_t i = 0; i < nkids; i++)
            ncztr_obj_unref(kids[i]);
    free(kids);
    if (c) {
        ncztr_unlink(c);
        ncztr_obj_unref(c);
    }
    return ret;
}

herr_t ncztr_copy(ncztr_obj *src, ncztr_obj *parent, const char *name, unsigned flags, ncztr_obj **out)
{
    ncztr_obj *c = NULL;
    if (ncztr_obj_unlinked(src))
        return NCZ_PUSH(NCZ_E_NOTFOUND, "cannot copy \"%s\": it has no name in the store", src->name);
    if (src->file != parent->file)
        return NCZ_PUSH(NCZ_E_UNSUPPORTED,
                        "cannot copy \"%s\" to another store: H5Ocopy works within one store", src->name);
    if (parent->file->readonly)
        return NCZ_PUSH(NCZ_E_ARGS, "cannot copy \"%s\": the store is open read-only", src->name);
    if (ncztr_tree_load(src) < 0)
        return FAIL;
    if (copy_rec(src, parent, name, flags, 0, NULL, &c) < 0)
        return FAIL;
    if (ncztr_alias_fix_copy(src, c) < 0) {
        ncztr_unlink(c);
        ncztr_obj_unref(c);
        return FAIL;
    }
    if (out)
        *out = c;
    else
        ncztr_obj_unref(c);
    return SUCCEED;
}
