/* Link callbacks. NCZarr is a tree: every object has one name, its key. Further hard
 * links to an object, soft links and external links are aliases (translate/model/
 * ncztr_alias.c), members of their group kept in its NCZarr metadata; user-defined links
 * cannot be represented and fail with a message saying so. External links are kept and
 * listed, not followed. Moving, deleting, querying and iterating work on the tree. */
#include "H5VL_nczarr.h"
#include "H5VL_nczarr_native.h"
#include "H5VL_nczarr_xcopy.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The new link's name from the location of a link creation, for messages. */
static const char *new_link_name(const H5VL_loc_params_t *lp)
{
    if (lp && lp->type == H5VL_OBJECT_BY_NAME && lp->loc_data.loc_by_name.name)
        return lp->loc_data.loc_by_name.name;
    return "?";
}

/* True when a path names no link: "", "/", ".", or anything ending in "." (HDF5 resolves
 * such a path to the location itself, which no link of it points to). */
static bool names_no_link(const char *path)
{
    size_t len = strlen(path);
    while (len > 0 && path[len - 1] == '/')
        len--;
    if (len == 0)
        return true;
    const char *last = path + len;
    while (last > path && last[-1] != '/')
        last--;
    return (size_t)(path + len - last) == 1 && last[0] == '.';
}

/* The object a link location points to: BY_NAME (a path whose last component is the
 * link) or BY_IDX (the n-th link of the named group). Fails for paths that name no link,
 * as HDF5 does ("/" or "." have no link of their own). */
static ncztr_obj *link_target(H5VL_nczarr_obj_t *o, const H5VL_loc_params_t *lp)
{
    if (!o || !o->node) {
        NCZ_PUSH(NCZ_E_ARGS, "link operation on an invalid location");
        return NULL;
    }
    if (H5VL_nczarr_check_lapl(lp) < 0)
        return NULL;
    if (lp->type == H5VL_OBJECT_BY_NAME) {
        const char *name = lp->loc_data.loc_by_name.name;
        if (!name) {
            NCZ_PUSH(NCZ_E_ARGS, "link operation: no link name given");
            return NULL;
        }
        if (names_no_link(name)) {
            NCZ_PUSH(NCZ_E_NOTFOUND, "\"%s\" does not name a link", name);
            return NULL;
        }
    } else if (lp->type == H5VL_OBJECT_BY_IDX) {
        if (!lp->loc_data.loc_by_idx.name) {
            NCZ_PUSH(NCZ_E_ARGS, "link operation: no group name given");
            return NULL;
        }
    } else {
        NCZ_PUSH(NCZ_E_ARGS, "link operation: unsupported location type %d", (int)lp->type);
        return NULL;
    }
    /* The link itself: an alias, not the object it names. */
    ncztr_obj *n = NULL;
    if (lp->type == H5VL_OBJECT_BY_NAME) {
        if (ncztr_obj_is_deleted(o->node)) {
            NCZ_PUSH(NCZ_E_NOTFOUND, "object \"%s\" has been deleted", ncztr_obj_name(o->node));
            return NULL;
        }
        if (!(n = ncztr_find_link(o->node, lp->loc_data.loc_by_name.name))) {
            char buf[256];
            NCZ_PUSH(NCZ_E_NOTFOUND, "link \"%s\" does not exist (relative to \"%s\")",
                     lp->loc_data.loc_by_name.name, ncztr_obj_where(o->node, buf, sizeof buf));
            return NULL;
        }
    } else {
        ncztr_obj *g = NULL;
        if (ncztr_lookup(o->node, lp->loc_data.loc_by_idx.name, &g) < 0)
            return NULL;
        if (ncztr_obj_kind(g) != NCZTR_GROUP) {
            NCZ_PUSH(NCZ_E_ARGS, "\"%s\" is not a group", lp->loc_data.loc_by_idx.name);
            return NULL;
        }
        n = ncztr_child_by_idx(g, lp->loc_data.loc_by_idx.idx_type, lp->loc_data.loc_by_idx.order,
                               lp->loc_data.loc_by_idx.n);
    }
    if (n && !ncztr_obj_parent(n)) {
        NCZ_PUSH(NCZ_E_NOTFOUND, "the root group has no link");
        return NULL;
    }
    return n;
}

/* A soft link's value, or an external link's as HDF5 packs it (a version/flags byte, the
 * file name, the object path, each string with its NUL): the size it needs; copies what
 * fits into buf. */
static size_t link_val(ncztr_obj *n, void *buf, size_t size)
{
    const char *file = NULL, *v = ncztr_link_value(n, &file);
    if (!v)
        return 0;
    unsigned char tmp[1] = {0};
    const void *parts[3] = {tmp, file, v};
    size_t lens[3] = {1, file ? strlen(file) + 1 : 0, strlen(v) + 1}, off = 0;
    if (ncztr_link_class(n) == H5L_TYPE_SOFT)
        lens[0] = lens[1] = 0;
    for (int i = 0; i < 3; i++) {
        if (buf && off < size && lens[i])
            memcpy((char *)buf + off, parts[i], off + lens[i] <= size ? lens[i] : size - off);
        off += lens[i];
    }
    return off;
}

/* An alias has its own creation order and the token of the object it names (one whose
 * object is gone keeps its own, which names nothing: opening it reports why). */
static void fill_linfo(ncztr_obj *n, H5L_info2_t *li)
{
    memset(li, 0, sizeof *li);
    li->type = ncztr_link_class(n);
    if (li->type != H5L_TYPE_HARD) {
        li->corder_valid = true;
        uint64_t corder, ignored;
        ncztr_link_info(n, &corder, &ignored);
        li->corder = (int64_t)corder;
        li->cset = H5T_CSET_ASCII;
        li->u.val_size = link_val(n, NULL, 0);
        return;
    }
    li->corder_valid = true; /* the model always tracks link creation order */
    uint64_t corder, target_id;
    ncztr_link_info(n, &corder, &target_id);
    li->corder = (int64_t)corder;
    li->cset = H5T_CSET_ASCII;
    H5VL_nczarr_token_encode(target_id, &li->u.token);
}

/* H5Olink of an anonymous object (H5Gcreate_anon): links it as the path in loc_params. */
static herr_t link_anon(H5VL_nczarr_obj_t *cur, H5VL_nczarr_obj_t *loc, const H5VL_loc_params_t *lp,
                        hid_t lcpl_id, hid_t lapl_id)
{
    herr_t ret = SUCCEED;
    ncztr_obj *parent = NULL;
    char *leaf = NULL;
    unsigned crt = 0;
    if (!loc || !loc->node || lp->type != H5VL_OBJECT_BY_NAME || !lp->loc_data.loc_by_name.name)
        NCZ_GOTO(FAIL, NCZ_E_ARGS, "H5Olink: the new link must be given by name");
    const char *name = lp->loc_data.loc_by_name.name;
    if (H5VL_nczarr_check_plist(lcpl_id, H5P_LINK_CREATE, "link creation") < 0 ||
        H5VL_nczarr_check_plist(lapl_id, H5P_LINK_ACCESS, "link access") < 0)
        NCZ_GOTO_QUIET(FAIL);
    if (ncztr_obj_is_deleted(loc->node))
        NCZ_GOTO(FAIL, NCZ_E_NOTFOUND, "cannot link \"%s\": the location has been deleted", name);
    if (lcpl_id != H5P_DEFAULT && H5Pget_create_intermediate_group(lcpl_id, &crt) < 0)
        NCZ_GOTO(FAIL, NCZ_E_HDF5, "H5Olink: cannot read the link creation property list");
    if (ncztr_resolve_new(loc->node, name, crt != 0, &parent, &leaf) < 0 ||
        ncztr_link_anon(cur->node, parent, leaf) < 0)
        NCZ_GOTO_QUIET(FAIL);
done:
    free(leaf);
    return ret;
}

/* H5Lcreate_hard (and H5Lcopy): a further name for the object at cur/clp, as the path in
 * lp relative to loc. */
static herr_t link_hard(H5VL_nczarr_obj_t *cur, const H5VL_loc_params_t *clp, H5VL_nczarr_obj_t *loc,
                        const H5VL_loc_params_t *lp, hid_t lcpl_id, hid_t lapl_id)
{
    herr_t ret = SUCCEED;
    ncztr_obj *parent = NULL;
    char *leaf = NULL;
    unsigned crt = 0;
    if (!loc || !loc->node || lp->type != H5VL_OBJECT_BY_NAME || !lp->loc_data.loc_by_name.name)
        NCZ_GOTO(FAIL, NCZ_E_ARGS, "hard link: the new link must be given by name");
    const char *name = lp->loc_data.loc_by_name.name;
    if (H5VL_nczarr_check_plist(lcpl_id, H5P_LINK_CREATE, "link creation") < 0 ||
        H5VL_nczarr_check_plist(lapl_id, H5P_LINK_ACCESS, "link access") < 0)
        NCZ_GOTO_QUIET(FAIL);
    ncztr_obj *target = H5VL_nczarr_resolve(cur, clp);
    if (!target)
        NCZ_GOTO_QUIET(FAIL);
    if (ncztr_obj_is_deleted(loc->node))
        NCZ_GOTO(FAIL, NCZ_E_NOTFOUND, "cannot create hard link \"%s\": the location has been deleted", name);
    if (cur->file->tf != loc->file->tf)
        NCZ_GOTO(FAIL, NCZ_E_ARGS, "hard link \"%s\": the object is in another file", name);
    if (lcpl_id != H5P_DEFAULT && lcpl_id >= 0 && H5Pget_create_intermediate_group(lcpl_id, &crt) < 0)
        NCZ_GOTO(FAIL, NCZ_E_HDF5, "hard link: cannot read the link creation property list");
    if (ncztr_resolve_new(loc->node, name, crt != 0, &parent, &leaf) < 0 ||
        ncztr_alias_create(target, parent, leaf) < 0)
        NCZ_GOTO_QUIET(FAIL);
done:
    free(leaf);
    return ret;
}

/* H5Lcreate_soft and H5Lcreate_external (and H5Lcopy of such a link). */
static herr_t link_sym(H5VL_nczarr_obj_t *loc, const H5VL_loc_params_t *lp, hid_t lcpl_id, hid_t lapl_id,
                       H5L_type_t cls, const char *value, const char *file)
{
    herr_t ret = SUCCEED;
    ncztr_obj *parent = NULL;
    char *leaf = NULL;
    unsigned crt = 0;
    if (!loc || !loc->node || lp->type != H5VL_OBJECT_BY_NAME || !lp->loc_data.loc_by_name.name)
        NCZ_GOTO(FAIL, NCZ_E_ARGS, "link creation: the new link must be given by name");
    const char *name = lp->loc_data.loc_by_name.name;
    if (H5VL_nczarr_check_plist(lcpl_id, H5P_LINK_CREATE, "link creation") < 0 ||
        H5VL_nczarr_check_plist(lapl_id, H5P_LINK_ACCESS, "link access") < 0)
        NCZ_GOTO_QUIET(FAIL);
    if (ncztr_obj_is_deleted(loc->node))
        NCZ_GOTO(FAIL, NCZ_E_NOTFOUND, "cannot create link \"%s\": the location has been deleted", name);
    if (lcpl_id != H5P_DEFAULT && lcpl_id >= 0 && H5Pget_create_intermediate_group(lcpl_id, &crt) < 0)
        NCZ_GOTO(FAIL, NCZ_E_HDF5, "link creation: cannot read the link creation property list");
    if (ncztr_resolve_new(loc->node, name, crt != 0, &parent, &leaf) < 0 ||
        ncztr_symlink_create(parent, leaf, cls, value, file) < 0)
        NCZ_GOTO_QUIET(FAIL);
done:
    free(leaf);
    return ret;
}

herr_t H5VL_nczarr_link_create(H5VL_link_create_args_t *args, void *obj, const H5VL_loc_params_t *loc_params,
                               hid_t lcpl_id, hid_t lapl_id, hid_t dxpl_id, void **req)
{
    (void)dxpl_id;
    (void)req;
    const char *name = new_link_name(loc_params);
    switch (args->op_type) {
    case H5VL_LINK_CREATE_HARD: {
        /* H5Olink arrives here with the object BY_SELF: an anonymous object gets its first
         * name. Any other hard link gives an object a further name: an alias. */
        H5VL_nczarr_obj_t *cur = args->args.hard.curr_obj ? args->args.hard.curr_obj : obj;
        if (!cur || !cur->node)
            return NCZ_PUSH(NCZ_E_ARGS, "hard link \"%s\": invalid object location", name);
        const H5VL_loc_params_t *clp = &args->args.hard.curr_loc_params;
        bool self = clp->type == H5VL_OBJECT_BY_SELF ||
                    (clp->type == H5VL_OBJECT_BY_NAME && clp->loc_data.loc_by_name.name &&
                     !strcmp(clp->loc_data.loc_by_name.name, ".")); /* H5Lcreate_hard(obj, ".", ...) */
        if (self && ncztr_obj_is_anonymous(cur->node))
            return link_anon(cur, obj, loc_params, lcpl_id, lapl_id);
        /* H5L_SAME_LOC as the new location: HDF5 passes no object, meaning cur's */
        return link_hard(cur, &args->args.hard.curr_loc_params, obj ? obj : cur, loc_params, lcpl_id,
                         lapl_id);
    }
    case H5VL_LINK_CREATE_SOFT:
        return link_sym(obj, loc_params, lcpl_id, lapl_id, H5L_TYPE_SOFT, args->args.soft.target, NULL);
    case H5VL_LINK_CREATE_UD:
        if (args->args.ud.type == H5L_TYPE_EXTERNAL) {
            const char *file = NULL, *path = NULL;
            if (!args->args.ud.buf ||
                H5Lunpack_elink_val(args->args.ud.buf, args->args.ud.buf_size, NULL, &file, &path) < 0)
                return NCZ_PUSH(NCZ_E_ARGS, "external link \"%s\": its value cannot be read", name);
            return link_sym(obj, loc_params, lcpl_id, lapl_id, H5L_TYPE_EXTERNAL, path, file);
        }
        return NCZ_PUSH(
            NCZ_E_NOTREPR,
            "user-defined link \"%s\" (type %d): user-defined links are not representable in NCZarr", name,
            (int)args->args.ud.type);
    default:
        return NCZ_PUSH(NCZ_E_UNSUPPORTED, "link creation type %d is not supported", (int)args->op_type);
    }
}

herr_t H5VL_nczarr_link_copy(void *src_obj, const H5VL_loc_params_t *loc_params1, void *dst_obj,
                             const H5VL_loc_params_t *loc_params2, hid_t lcpl_id, hid_t lapl_id,
                             hid_t dxpl_id, void **req)
{
    (void)dxpl_id;
    (void)req;
    /* A copy of a hard link is another name for the same object (a deep copy of the
     * object is H5Ocopy's job). */
    H5VL_nczarr_obj_t *so = src_obj ? src_obj : dst_obj, *dobj = dst_obj ? dst_obj : src_obj;
    if (H5VL_nczarr_copy_across(so, dobj)) {
        if (loc_params1->type != H5VL_OBJECT_BY_NAME || loc_params2->type != H5VL_OBJECT_BY_NAME)
            return NCZ_PUSH(NCZ_E_ARGS, "H5Lcopy: the source and destination must be given by name");
        return H5VL_nczarr_xcopy_link(so, loc_params1->loc_data.loc_by_name.name, dobj,
                                      loc_params2->loc_data.loc_by_name.name, lcpl_id, lapl_id);
    }
    if (!so || !so->node || loc_params1->type != H5VL_OBJECT_BY_NAME)
        return NCZ_PUSH(NCZ_E_ARGS, "H5Lcopy: the source must be given by name");
    ncztr_obj *n = link_target(so, loc_params1);
    if (!n)
        return FAIL;
    if (ncztr_link_class(n) != H5L_TYPE_HARD) { /* the same link again */
        const char *file = NULL, *value = ncztr_link_value(n, &file);
        return link_sym(dobj, loc_params2, lcpl_id, lapl_id, ncztr_link_class(n), value, file);
    }
    H5VL_loc_params_t self = {.obj_type = H5I_GROUP, .type = H5VL_OBJECT_BY_SELF};
    H5VL_nczarr_obj_t tmp = *so;
    if (!(tmp.node = ncztr_deref(n, true)))
        return FAIL;
    return link_hard(&tmp, &self, dobj, loc_params2, lcpl_id, lapl_id);
}

/* The deepest existing group on the way to path's last component (relative to base, or
 * absolute): where a move would attach, or below which it would create groups. */
static ncztr_obj *deepest_existing(ncztr_obj *base, const char *path)
{
    ncztr_obj *cur = path[0] == '/' ? ncztr_file_root(ncztr_obj_file(base)) : base;
    const char *p = path;
    while (*p) {
        while (*p == '/')
            p++;
        size_t l = strcspn(p, "/");
        if (l == 0 || p[l + strspn(p + l, "/")] == '\0')
            break; /* no component, or the last one: the name of the new link */
        if (!(l == 1 && p[0] == '.')) {
            ncztr_obj *next = ncztr_deref(ncztr_child_len(cur, p, l), false);
            if (!next)
                break;
            cur = next;
        }
        p += l;
    }
    return cur;
}

/* H5Lmove: netCDF-C renames variables and groups this way, and dimension-scale
 * references must survive it, so the node keeps its id (token); only its link moves. */
herr_t H5VL_nczarr_link_move(void *src_obj, const H5VL_loc_params_t *loc_params1, void *dst_obj,
                             const H5VL_loc_params_t *loc_params2, hid_t lcpl_id, hid_t lapl_id,
                             hid_t dxpl_id, void **req)
{
    (void)lapl_id;
    (void)dxpl_id;
    (void)req;
    herr_t ret = SUCCEED;
    H5VL_nczarr_obj_t *so = src_obj ? src_obj : dst_obj, *dobj = dst_obj ? dst_obj : src_obj;
    ncztr_obj *parent = NULL;
    char *leaf = NULL;
    char buf[256];
    unsigned crt_intermediate = 0;
    if (loc_params1->type != H5VL_OBJECT_BY_NAME || loc_params2->type != H5VL_OBJECT_BY_NAME ||
        !loc_params2->loc_data.loc_by_name.name || !dobj || !dobj->node)
        NCZ_GOTO(FAIL, NCZ_E_ARGS, "H5Lmove: source and destination must be given by name");
    const char *dst_name = loc_params2->loc_data.loc_by_name.name;
    ncztr_obj *n = link_target(so, loc_params1);
    if (!n)
        NCZ_GOTO_QUIET(FAIL);
    /* an alias moves as a name; the target's key does not change */
    if (ncztr_obj_is_deleted(dobj->node))
        NCZ_GOTO(FAIL, NCZ_E_NOTFOUND,
                 "cannot move \"%s\" to \"%s\": the destination location has been deleted",
                 loc_params1->loc_data.loc_by_name.name, dst_name);
    if (so->file->tf != dobj->file->tf || ncztr_obj_file(n) != ncztr_obj_file(dobj->node))
        NCZ_GOTO(FAIL, NCZ_E_ARGS,
                 "cannot move \"%s\" to \"%s\": source and destination are in different stores",
                 loc_params1->loc_data.loc_by_name.name, dst_name);
    if (lcpl_id >= 0 && lcpl_id != H5P_DEFAULT &&
        H5Pget_create_intermediate_group(lcpl_id, &crt_intermediate) < 0)
        NCZ_GOTO(FAIL, NCZ_E_HDF5, "H5Lmove: cannot read the link creation property list");
    /* Refuse moving a group below itself before any intermediate group gets created. */
    if (ncztr_obj_kind(n) == NCZTR_GROUP && ncztr_is_ancestor(n, deepest_existing(dobj->node, dst_name)))
        NCZ_GOTO(FAIL, NCZ_E_ARGS, "cannot move group \"%s\" into itself (\"%s\")",
                 ncztr_obj_where(n, buf, sizeof buf), dst_name);
    if (ncztr_resolve_new(dobj->node, dst_name, crt_intermediate != 0, &parent, &leaf) < 0)
        NCZ_GOTO_QUIET(FAIL);
    if (ncztr_move(n, parent, leaf) < 0)
        NCZ_GOTO_QUIET(FAIL);
done:
    free(leaf);
    return ret;
}

herr_t H5VL_nczarr_link_get(void *obj, const H5VL_loc_params_t *loc_params, H5VL_link_get_args_t *args,
                            hid_t dxpl_id, void **req)
{
    (void)dxpl_id;
    (void)req;
    ncztr_obj *n = link_target(obj, loc_params);
    if (!n)
        return FAIL;
    switch (args->op_type) {
    case H5VL_LINK_GET_INFO:
        fill_linfo(n, args->args.get_info.linfo);
        return SUCCEED;
    case H5VL_LINK_GET_NAME: {
        size_t len =
            H5VL_nczarr_copy_name(ncztr_obj_name(n), args->args.get_name.name, args->args.get_name.name_size);
        if (args->args.get_name.name_len)
            *args->args.get_name.name_len = len;
        return SUCCEED;
    }
    case H5VL_LINK_GET_VAL:
        if (ncztr_link_class(n) == H5L_TYPE_HARD) /* HDF5 refuses this for hard links too */
            return NCZ_PUSH(NCZ_E_ARGS, "\"%s\" is a hard link; it has no value", ncztr_obj_name(n));
        (void)link_val(n, args->args.get_val.buf, args->args.get_val.buf_size);
        return SUCCEED;
    default:
        return NCZ_PUSH(NCZ_E_UNSUPPORTED, "link get operation %d is not supported", (int)args->op_type);
    }
}

/* H5Lexists: like HDF5, every component but the last must exist (else it is an error);
 * the answer is whether the last one does. "/" always exists; a path ending in "." names
 * no link, so HDF5 answers false for it. */
static herr_t link_exists(H5VL_nczarr_obj_t *o, const char *path, hbool_t *exists)
{
    herr_t ret = SUCCEED;
    char *parent_path = NULL;
    char buf[256];
    if (!path)
        NCZ_GOTO(FAIL, NCZ_E_ARGS, "H5Lexists: no link name given");
    if (ncztr_obj_is_deleted(o->node))
        NCZ_GOTO(FAIL, NCZ_E_NOTFOUND, "object \"%s\" has been deleted", ncztr_obj_name(o->node));
    size_t len = strlen(path);
    while (len > 0 && path[len - 1] == '/')
        len--;
    if (len == 0 && path[0] == '/') {
        *exists = true;
        goto done;
    }
    if (names_no_link(path)) {
        *exists = false;
        goto done;
    }
    size_t start = len;
    while (start > 0 && path[start - 1] != '/')
        start--;
    /* The parent path keeps a leading '/' so that absolute paths stay absolute. */
    parent_path = strndup(path, start);
    NCZ_CHECK_ALLOC(parent_path, FAIL);
    ncztr_obj *g = ncztr_find(o->node, start ? parent_path : ".");
    if (!g)
        NCZ_GOTO(FAIL, NCZ_E_NOTFOUND, "H5Lexists(\"%s\"): group \"%.*s\" does not exist", path,
                 (int)(start > 1 ? start - 1 : start), parent_path);
    if (ncztr_obj_kind(g) != NCZTR_GROUP)
        NCZ_GOTO(FAIL, NCZ_E_ARGS, "H5Lexists(\"%s\"): \"%s\" is not a group", path,
                 ncztr_obj_where(g, buf, sizeof buf));
    char *leaf = strndup(path + start, len - start);
    NCZ_CHECK_ALLOC(leaf, FAIL);
    *exists = ncztr_child(g, leaf) != NULL;
    free(leaf);
done:
    free(parent_path);
    return ret;
}

/* One walk of H5Literate2 / H5Lvisit2. gid is the id handed to the callback: the group
 * iterated (H5Literate) or the group the visit started from (H5Lvisit), as in HDF5. */
typedef struct link_walk {
    hid_t gid;
    H5_index_t idx_type;
    H5_iter_order_t order;
    H5L_iterate2_t op;
    void *op_data;
    ncztr_objset *seen; /* groups visited (H5Lvisit), kept only in a store with extra hard links */
} link_walk;

/* Does H5Lvisit go into group g now? Only the first time it meets it, as HDF5 does:
 * without extra hard links that is every time; with them it ends cycles. -1: no memory. */
static int first_visit(link_walk *w, ncztr_obj *g)
{
    return ncztr_objset_first_visit(&w->seen, g);
}

/* The children of g in the requested order, each held by a reference so that callbacks
 * that delete or move links cannot free a node the walk still looks at. */
static ncztr_obj **snapshot(const ncztr_obj *g, const link_walk *w, size_t *n)
{
    *n = ncztr_group_nlinks(g);
    ncztr_obj **v = ncztr_children_sorted(g, w->idx_type, w->order);
    if (v)
        for (size_t i = 0; i < *n; i++)
            ncztr_obj_ref(v[i]);
    return v;
}

static void snapshot_free(ncztr_obj **v, size_t n)
{
    if (!v)
        return;
    for (size_t i = 0; i < n; i++)
        ncztr_obj_unref(v[i]);
    free(v);
}

static char *join_path(const char *prefix, const char *name)
{
    size_t pl = strlen(prefix), nl = strlen(name);
    char *s = malloc(pl + nl + 2);
    if (!s) {
        NCZ_PUSH(NCZ_E_NOMEM, "out of memory building a link path");
        return NULL;
    }
    if (pl) {
        memcpy(s, prefix, pl);
        s[pl++] = '/';
    }
    memcpy(s + pl, name, nl + 1);
    return s;
}

static herr_t call_op(const link_walk *w, ncztr_obj *c, const char *name)
{
    H5L_info2_t li;
    fill_linfo(c, &li);
    herr_t r = w->op(w->gid, name, &li, w->op_data);
    if (r < 0)
        NCZ_PUSH(NCZ_E_ARGS, "link iteration: the callback failed on \"%s\"", name);
    return r;
}

/* H5Lvisit2: depth-first pre-order as HDF5 does it, each group's links in index order
 * and a group's contents right after its own link. Names are relative to the start. Every
 * link comes up; a group's links only under the first of its names met. */
static herr_t visit_group(link_walk *w, ncztr_obj *g, const char *prefix)
{
    herr_t ret = 0;
    size_t n = 0;
    ncztr_obj **v = snapshot(g, w, &n);
    if (!v)
        return FAIL;
    for (size_t i = 0; i < n && ret == 0; i++) {
        if (ncztr_obj_is_deleted(v[i]))
            continue; /* removed by an earlier callback */
        char *path = join_path(prefix, ncztr_obj_name(v[i]));
        if (!path) {
            ret = FAIL;
            break;
        }
        ret = call_op(w, v[i], path);
        /* H5Lvisit goes down hard links only, as HDF5 does */
        ncztr_obj *t = ret == 0 && !ncztr_obj_is_deleted(v[i]) && ncztr_link_class(v[i]) == H5L_TYPE_HARD
                           ? ncztr_deref(v[i], false)
                           : NULL;
        if (t && ncztr_obj_kind(t) == NCZTR_GROUP) {
            int first = first_visit(w, t);
            if (first < 0)
                ret = NCZ_PUSH(NCZ_E_NOMEM, "out of memory visiting links");
            else if (first)
                ret = visit_group(w, t, path);
        }
        free(path);
    }
    snapshot_free(v, n);
    return ret;
}

/* H5Literate2: the links of one group from *idx_p on; *idx_p becomes the index after the
 * last link handed to the callback, as HDF5 sets it. */
static herr_t iterate_group(const link_walk *w, ncztr_obj *g, hsize_t *idx_p)
{
    herr_t ret = 0;
    size_t n = 0;
    char buf[256];
    hsize_t start = idx_p ? *idx_p : 0, passed = start;
    if (start > 0 && start >= ncztr_group_nlinks(g))
        return NCZ_PUSH(NCZ_E_ARGS, "link iteration on \"%s\": start index %llu is out of range (%zu links)",
                        ncztr_obj_where(g, buf, sizeof buf), (unsigned long long)start,
                        ncztr_group_nlinks(g));
    ncztr_obj **v = snapshot(g, w, &n);
    if (!v)
        return FAIL;
    for (size_t i = (size_t)start; i < n && ret == 0; i++) {
        passed++;
        if (!ncztr_obj_is_deleted(v[i]))
            ret = call_op(w, v[i], ncztr_obj_name(v[i]));
    }
    snapshot_free(v, n);
    if (idx_p)
        *idx_p = passed;
    return ret;
}

static herr_t link_iterate(H5VL_nczarr_obj_t *o, const H5VL_loc_params_t *lp, H5VL_link_iterate_args_t *it)
{
    char buf[256];
    if (lp->type != H5VL_OBJECT_BY_SELF && lp->type != H5VL_OBJECT_BY_NAME)
        return NCZ_PUSH(NCZ_E_ARGS, "link iteration: unsupported location type %d", (int)lp->type);
    if (lp->type == H5VL_OBJECT_BY_NAME && !lp->loc_data.loc_by_name.name)
        return NCZ_PUSH(NCZ_E_ARGS, "link iteration: no group name given");
    if (!it->op)
        return NCZ_PUSH(NCZ_E_ARGS, "link iteration: no callback");
    ncztr_obj *g = H5VL_nczarr_resolve(o, lp);
    if (!g)
        return FAIL;
    if (ncztr_obj_kind(g) != NCZTR_GROUP)
        return NCZ_PUSH(NCZ_E_ARGS, "link iteration: \"%s\" is not a group",
                        ncztr_obj_where(g, buf, sizeof buf));
    link_walk w = {H5I_INVALID_HID, it->idx_type, it->order, it->op, it->op_data, NULL};
    if ((w.gid = H5VL_nczarr_wrap_register(o->file, g)) < 0)
        return FAIL;
    herr_t ret = 0;
    if (it->recursive)
        ret = first_visit(&w, g) < 0 ? NCZ_PUSH(NCZ_E_NOMEM, "out of memory visiting links")
                                     : visit_group(&w, g, "");
    else
        ret = iterate_group(&w, g, it->idx_p);
    ncztr_objset_free(w.seen);
    H5VL_nczarr_drop_id(w.gid, ret < 0);
    return ret;
}

#ifndef H5_NO_DEPRECATED_SYMBOLS
/* H5Giterate's callback behind H5Literate2's. */
typedef struct iterate_old {
    H5G_iterate_t op;
    void *op_data;
} iterate_old;

static herr_t iterate_old_cb(hid_t gid, const char *name, const H5L_info2_t *li, void *ud)
{
    (void)li;
    const iterate_old *w = ud;
    return w->op(gid, name, w->op_data);
}

herr_t H5VL_nczarr_link_iterate_old(H5VL_nczarr_obj_t *o, const H5VL_loc_params_t *lp, hsize_t idx,
                                    hsize_t *last, H5G_iterate_t op, void *op_data)
{
    iterate_old w = {op, op_data};
    H5VL_link_iterate_args_t it = {false, H5_INDEX_NAME, H5_ITER_INC, &idx, iterate_old_cb, &w};
    herr_t r = op ? link_iterate(o, lp, &it) : NCZ_PUSH(NCZ_E_ARGS, "H5Giterate: no callback");
    if (last)
        *last = idx;
    return r;
}

herr_t H5VL_nczarr_link_stat(H5VL_nczarr_obj_t *o, const H5VL_loc_params_t *lp, bool follow, H5G_stat_t *st)
{
    memset(st, 0, sizeof *st);
    st->fileno[0] = o->file->fileno;
    ncztr_obj *l = !follow && lp->type == H5VL_OBJECT_BY_NAME && !names_no_link(lp->loc_data.loc_by_name.name)
                       ? ncztr_find_link(o->node, lp->loc_data.loc_by_name.name)
                       : NULL;
    H5L_type_t lt = l ? ncztr_link_class(l) : H5L_TYPE_HARD;
    if (lt == H5L_TYPE_SOFT || lt == H5L_TYPE_EXTERNAL) {
        /* the link itself, as HDF5 reports a symbolic link it is told not to follow */
        st->type = lt == H5L_TYPE_SOFT ? H5G_LINK : H5G_UDLINK;
        st->linklen = link_val(l, NULL, 0);
        return SUCCEED;
    }
    ncztr_obj *n = H5VL_nczarr_resolve(o, lp);
    H5O_info2_t oi;
    if (!n || H5VL_nczarr_fill_oinfo(o->file, n, H5O_INFO_BASIC, &oi) < 0)
        return FAIL;
    st->objno[0] = (unsigned long)H5VL_nczarr_token_decode(&oi.token); /* its id: its address here */
    st->nlink = oi.rc;
    st->type = oi.type == H5O_TYPE_GROUP            ? H5G_GROUP
               : oi.type == H5O_TYPE_NAMED_DATATYPE ? H5G_TYPE
                                                    : H5G_DATASET;
    return SUCCEED;
}
#endif

herr_t H5VL_nczarr_link_specific(void *obj, const H5VL_loc_params_t *loc_params,
                                 H5VL_link_specific_args_t *args, hid_t dxpl_id, void **req)
{
    (void)dxpl_id;
    (void)req;
    H5VL_nczarr_obj_t *o = obj;
    if (!o || !o->node)
        return NCZ_PUSH(NCZ_E_ARGS, "link operation on an invalid location");
    if (H5VL_nczarr_check_lapl(loc_params) < 0)
        return FAIL;
    switch (args->op_type) {
    case H5VL_LINK_DELETE: {
        ncztr_obj *n = link_target(o, loc_params);
        if (!n)
            return FAIL;
        return ncztr_unlink(n);
    }
    case H5VL_LINK_EXISTS:
        if (loc_params->type != H5VL_OBJECT_BY_NAME)
            return NCZ_PUSH(NCZ_E_ARGS, "H5Lexists: unsupported location type %d", (int)loc_params->type);
        return link_exists(o, loc_params->loc_data.loc_by_name.name, args->args.exists.exists);
    case H5VL_LINK_ITER:
        return link_iterate(o, loc_params, &args->args.iterate);
    default:
        return NCZ_PUSH(NCZ_E_UNSUPPORTED, "link operation %d is not supported", (int)args->op_type);
    }
}

herr_t H5VL_nczarr_link_optional(void *obj, const H5VL_loc_params_t *loc_params, H5VL_optional_args_t *args,
                                 hid_t dxpl_id, void **req)
{
    (void)obj;
    (void)loc_params;
    (void)dxpl_id;
    (void)req;
    return NCZ_NATIVE_ONLY("link", args->op_type);
}
