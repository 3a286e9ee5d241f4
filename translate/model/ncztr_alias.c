/* Extra hard links ("aliases"): a second (third, ...) name of a group or an array. NCZarr
 * keeps an object under one key, its path, so an alias owns no keys: it is a member of its
 * group of kind NCZTR_ALIAS, with its own creation order, listed in the group's
 * "_nczarr_group.hdf5_links" as {name: absolute path of the object}. netCDF-C and
 * zarr-python ignore keys of _nczarr_group they do not know, so they simply do not see the
 * extra names. The alias refers to its object by id, which survives renames; the stored
 * path is brought up to date before each save (ncztr_alias_refresh). */
#include "ncztr_model_internal.h"

#include <stdlib.h>
#include <string.h>

herr_t ncztr_alias_create(ncztr_obj *target, ncztr_obj *parent, const char *name)
{
    ncztr_file *f = parent->file;
    if (target->file != f)
        return NCZ_PUSH(NCZ_E_ARGS, "hard link \"%s\": the object is in another store", name);
    if (f->readonly)
        return NCZ_PUSH(NCZ_E_ARGS, "cannot create hard link \"%s\": the store is open read-only", name);
    if (f->opts.pure_zarr)
        return NCZ_PUSH(NCZ_E_NOTREPR,
                        "hard link \"%s\": a second name for an object is not representable in pure Zarr "
                        "(mode=zarr); it needs the NCZarr group metadata",
                        name);
    if (target->kind == NCZTR_ALIAS || ncztr_obj_unlinked(target))
        return NCZ_PUSH(NCZ_E_NOTFOUND, "hard link \"%s\": the object it would name has no name in the store",
                        name);
    if (parent->kind != NCZTR_GROUP || ncztr_obj_unlinked(parent))
        return NCZ_PUSH(NCZ_E_ARGS, "cannot create hard link \"%s\": the location is not a linked group",
                        name);
    if (ncztr_check_alias_name(name) < 0)
        return FAIL;
    if (ncztr_child(parent, name))
        return NCZ_PUSH(NCZ_E_EXISTS, "cannot create hard link \"%s\": a link with that name already exists",
                        name);
    ncztr_obj *a = ncztr_obj_new(f, NCZTR_ALIAS, name);
    if (!a)
        return FAIL;
    a->target_id = target->id;
    a->target_known = true;
    if (!(a->target_path = ncztr_obj_path(target)) || ncztr_obj_attach(parent, a) < 0) {
        ncztr_obj_unref(a);
        return NCZ_PUSH(NCZ_E_NOMEM, "out of memory creating hard link \"%s\"", name);
    }
    parent->attrs_dirty = true;
    if (!f->has_aliases && f->root)
        f->root->attrs_dirty = true; /* its "hdf5_links_below" goes */
    f->has_aliases = true;
    return SUCCEED;
}

herr_t ncztr_symlink_create(ncztr_obj *parent, const char *name, H5L_type_t cls, const char *value,
                            const char *file)
{
    ncztr_file *f = parent->file;
    const char *what = cls == H5L_TYPE_SOFT ? "soft link" : "external link";
    if (f->readonly)
        return NCZ_PUSH(NCZ_E_ARGS, "cannot create %s \"%s\": the store is open read-only", what, name);
    if (f->opts.pure_zarr)
        return NCZ_PUSH(NCZ_E_NOTREPR,
                        "%s \"%s\": links other than a group's members are not representable in pure Zarr "
                        "(mode=zarr); they need the NCZarr group metadata",
                        what, name);
    if ((cls != H5L_TYPE_SOFT && cls != H5L_TYPE_EXTERNAL) || !value || !*value ||
        (cls == H5L_TYPE_EXTERNAL && (!file || !*file)))
        return NCZ_PUSH(NCZ_E_ARGS, "cannot create %s \"%s\": no target given", what, name);
    if (parent->kind != NCZTR_GROUP || ncztr_obj_unlinked(parent))
        return NCZ_PUSH(NCZ_E_ARGS, "cannot create %s \"%s\": the location is not a linked group", what,
                        name);
    if (ncztr_check_alias_name(name) < 0)
        return FAIL;
    if (ncztr_child(parent, name))
        return NCZ_PUSH(NCZ_E_EXISTS, "cannot create %s \"%s\": a link with that name already exists", what,
                        name);
    ncztr_obj *a = ncztr_obj_new(f, NCZTR_ALIAS, name);
    if (!a)
        return FAIL;
    a->link_class = cls;
    if (!(a->target_path = strdup(value)) || (file && !(a->ext_file = strdup(file))) ||
        ncztr_obj_attach(parent, a) < 0) {
        ncztr_obj_unref(a);
        return NCZ_PUSH(NCZ_E_NOMEM, "out of memory creating %s \"%s\"", what, name);
    }
    parent->attrs_dirty = true;
    if (!f->has_aliases && f->root)
        f->root->attrs_dirty = true; /* its "hdf5_links_below" goes */
    f->has_aliases = true;
    return SUCCEED;
}

H5L_type_t ncztr_link_class(const ncztr_obj *link)
{
    return link->kind == NCZTR_ALIAS ? link->link_class : H5L_TYPE_HARD;
}

const char *ncztr_link_value(const ncztr_obj *link, const char **file)
{
    if (file)
        *file = link->ext_file;
    return link->kind == NCZTR_ALIAS && link->link_class != H5L_TYPE_HARD ? link->target_path : NULL;
}

/* Calls fn on every alias at or below o (depth first; aliases are not followed). */
typedef herr_t (*alias_fn)(ncztr_obj *a, void *ctx);
static herr_t each_alias(ncztr_obj *o, alias_fn fn, void *ctx)
{
    if (o->kind == NCZTR_ALIAS) /* soft and external links name no object of their own */
        return o->link_class == H5L_TYPE_HARD ? fn(o, ctx) : SUCCEED;
    if (o->kind != NCZTR_GROUP)
        return SUCCEED;
    for (size_t i = 0; i < o->nchildren; i++)
        if (each_alias(o->children[i], fn, ctx) < 0)
            return FAIL;
    return SUCCEED;
}

typedef struct count_ctx {
    const ncztr_obj *o;
    unsigned n;
} count_ctx;

static herr_t count_one(ncztr_obj *a, void *ctx)
{
    count_ctx *c = ctx;
    if (ncztr_alias_target(a, false) == c->o)
        c->n++;
    return SUCCEED;
}

unsigned ncztr_name_count(ncztr_obj *o)
{
    count_ctx c = {o, ncztr_obj_unlinked(o) ? 0u : 1u};
    if (o->file->has_aliases && o->file->root)
        each_alias(o->file->root, count_one, &c);
    return c.n;
}

typedef struct unlink_ctx {
    ncztr_obj *o;
} unlink_ctx;

static herr_t check_one(ncztr_obj *a, void *ctx)
{
    ncztr_obj *o = ((unlink_ctx *)ctx)->o;
    if (ncztr_is_ancestor(o, a))
        return SUCCEED; /* goes with o */
    ncztr_obj *t = ncztr_alias_target(a, false);
    if (!t || !ncztr_is_ancestor(o, t))
        return SUCCEED;
    char *op = ncztr_obj_path_or(o, o->name), *ap = ncztr_obj_path_or(a, a->name),
         *tp = ncztr_obj_path_or(t, t->name);
    NCZ_PUSH(
        NCZ_E_UNSUPPORTED,
        "cannot delete \"%s\": \"%s\" still has the name \"%s\" (an extra hard link), and NCZarr keeps an "
        "object's data under its first name; delete \"%s\" first",
        op ? op : "?", tp ? tp : "?", ap ? ap : "?", ap ? ap : "?");
    free(op);
    free(ap);
    free(tp);
    return FAIL;
}

herr_t ncztr_alias_check_unlink(ncztr_obj *o)
{
    unlink_ctx c = {o};
    if (o->kind == NCZTR_ALIAS || !o->file->has_aliases || !o->file->root)
        return SUCCEED;
    return each_alias(o->file->root, check_one, &c);
}

typedef struct copy_ctx {
    ncztr_obj *src, *copy;
    size_t src_len; /* length of src's path */
} copy_ctx;

static herr_t fix_one(ncztr_obj *a, void *ctx)
{
    copy_ctx *c = ctx;
    ncztr_obj *t = ncztr_alias_target(a, false);
    if (!t || !ncztr_is_ancestor(c->src, t))
        return SUCCEED;
    char *tp = ncztr_obj_path(t);
    if (!tp)
        return NCZ_PUSH(NCZ_E_NOMEM, "out of memory copying hard link \"%s\"", a->name);
    const char *rel = t == c->src ? "." : tp + c->src_len + (c->src_len > 1);
    ncztr_obj *nt = ncztr_find(c->copy, rel);
    free(tp);
    if (nt && nt->kind != NCZTR_ALIAS) {
        char *np = ncztr_obj_path(nt);
        if (!np)
            return NCZ_PUSH(NCZ_E_NOMEM, "out of memory copying hard link \"%s\"", a->name);
        free(a->target_path);
        a->target_path = np;
        a->target_id = nt->id;
        a->target_known = true;
    }
    return SUCCEED;
}

herr_t ncztr_alias_fix_copy(ncztr_obj *src, ncztr_obj *copy)
{
    if (!copy->file->has_aliases)
        return SUCCEED;
    char *sp = ncztr_obj_path(src);
    if (!sp)
        return NCZ_PUSH(NCZ_E_NOMEM, "out of memory copying \"%s\"", src->name);
    copy_ctx c = {src, copy, strlen(sp)};
    free(sp);
    return each_alias(copy, fix_one, &c);
}

/* {"soft": "value"} or {"external": {"file": "name", "path": "/object"}} */
static herr_t load_symlink(ncztr_obj *g, const char *name, json_t *v, const char *what)
{
    json_t *soft = json_object_get(v, "soft"), *ext = json_object_get(v, "external");
    const char *file = ext ? json_string_value(json_object_get(ext, "file")) : NULL;
    const char *path = ext ? json_string_value(json_object_get(ext, "path")) : NULL;
    if (soft ? !json_string_value(soft) || !*json_string_value(soft) || ext
             : !file || !*file || !path || !*path)
        return NCZ_PUSH(NCZ_E_FORMAT,
                        "%s: link \"%s\" in \"_nczarr_group.hdf5_links\" must be an absolute path, "
                        "{\"soft\": \"value\"} or {\"external\": {\"file\": ..., \"path\": ...}}",
                        what, name);
    if (ncztr_child(g, name))
        return NCZ_PUSH(NCZ_E_FORMAT, "%s: link \"%s\" has the name of another member of the group", what,
                        name);
    bool ro = g->file->readonly, dirty = g->attrs_dirty;
    g->file->readonly = false; /* loading, not writing */
    herr_t r = ncztr_symlink_create(g, name, soft ? H5L_TYPE_SOFT : H5L_TYPE_EXTERNAL,
                                    soft ? json_string_value(soft) : path, file);
    g->file->readonly = ro;
    g->attrs_dirty = dirty;
    return r;
}

herr_t ncztr_alias_load(ncztr_obj *g, json_t *links, const char *what)
{
    const char *name;
    json_t *v;
    if (!links)
        return SUCCEED;
    if (!json_is_object(links))
        return NCZ_PUSH(NCZ_E_FORMAT, "%s: \"_nczarr_group.hdf5_links\" must be a JSON object", what);
    json_object_foreach(links, name, v)
    {
        if (json_is_object(v)) {
            if (load_symlink(g, name, v, what) < 0)
                return FAIL;
            continue;
        }
        if (!json_is_string(v) || json_string_value(v)[0] != '/')
            return NCZ_PUSH(NCZ_E_FORMAT,
                            "%s: hard link \"%s\" in \"_nczarr_group.hdf5_links\" must name an absolute path",
                            what, name);
        if (ncztr_check_alias_name(name) < 0)
            return NCZ_PUSH(NCZ_E_FORMAT, "%s: \"_nczarr_group.hdf5_links\" has a bad link name", what);
        if (ncztr_child(g, name))
            return NCZ_PUSH(NCZ_E_FORMAT, "%s: hard link \"%s\" has the name of another member of the group",
                            what, name);
        ncztr_obj *a = ncztr_obj_new(g->file, NCZTR_ALIAS, name);
        if (!a)
            return FAIL;
        if (!(a->target_path = strdup(json_string_value(v))) || ncztr_obj_attach(g, a) < 0) {
            ncztr_obj_unref(a);
            return NCZ_PUSH(NCZ_E_NOMEM, "out of memory loading hard link \"%s\"", name);
        }
        g->file->has_aliases = true;
    }
    return SUCCEED;
}

herr_t ncztr_alias_save(const ncztr_obj *g, json_t *nczarr_group)
{
    json_t *l = NULL;
    for (size_t i = 0; i < g->nchildren; i++) {
        const ncztr_obj *a = g->children[i];
        if (a->kind != NCZTR_ALIAS || a->deleted || !a->target_path)
            continue;
        json_t *v = a->link_class == H5L_TYPE_SOFT ? json_pack("{s:s}", "soft", a->target_path)
                    : a->link_class == H5L_TYPE_EXTERNAL
                        ? json_pack("{s:{s:s,s:s}}", "external", "file", a->ext_file ? a->ext_file : "",
                                    "path", a->target_path)
                        : json_string(a->target_path);
        if (v && !l && !(l = json_object())) {
            json_decref(v);
            v = NULL;
        }
        if (!v || json_object_set_new(l, a->name, v) < 0) {
            json_decref(l);
            return NCZ_PUSH(NCZ_E_NOMEM, "out of memory saving the hard links of \"%s\"", g->name);
        }
    }
    if (l && json_object_set_new(nczarr_group, "hdf5_links", l) < 0)
        return NCZ_PUSH(NCZ_E_NOMEM, "out of memory saving the hard links of \"%s\"", g->name);
    return SUCCEED;
}

static herr_t refresh_one(ncztr_obj *a, void *ctx)
{
    (void)ctx;
    ncztr_obj *t = ncztr_alias_target(a, false);
    if (!t)
        return SUCCEED; /* keeps what the store had */
    char *p = ncztr_obj_path(t);
    if (p && (!a->target_path || strcmp(p, a->target_path) != 0)) {
        free(a->target_path);
        a->target_path = p;
        p = NULL;
        if (a->parent)
            a->parent->attrs_dirty = true;
    }
    free(p);
    return SUCCEED;
}

void ncztr_alias_refresh(ncztr_file *f)
{
    if (f->has_aliases && f->root)
        each_alias(f->root, refresh_one, NULL);
}
