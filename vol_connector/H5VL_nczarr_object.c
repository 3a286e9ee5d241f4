/* Generic object callbacks (H5O*, H5Iget_name, H5Iget_file_id, references): open any
 * group or dataset by name, index or token, describe it, and visit trees. */
#include "H5VL_nczarr.h"
#include "H5VL_nczarr_native.h"
#include "H5VL_nczarr_xcopy.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* H5VL_nczarr_resolve, after checking the pieces HDF5 may leave NULL. */
static ncztr_obj *locate(H5VL_nczarr_obj_t *o, const H5VL_loc_params_t *lp)
{
    if (!o || !o->node) {
        NCZ_PUSH(NCZ_E_ARGS, "object operation on an invalid location");
        return NULL;
    }
    if ((lp->type == H5VL_OBJECT_BY_NAME && !lp->loc_data.loc_by_name.name) ||
        (lp->type == H5VL_OBJECT_BY_IDX && !lp->loc_data.loc_by_idx.name) ||
        (lp->type == H5VL_OBJECT_BY_TOKEN && !lp->loc_data.loc_by_token.token)) {
        NCZ_PUSH(NCZ_E_ARGS, "object operation: no name or token given");
        return NULL;
    }
    if (H5VL_nczarr_check_lapl(lp) < 0)
        return NULL;
    return H5VL_nczarr_resolve(o, lp);
}

void *H5VL_nczarr_object_open(void *obj, const H5VL_loc_params_t *loc_params, H5I_type_t *opened_type,
                              hid_t dxpl_id, void **req)
{
    (void)dxpl_id;
    (void)req;
    H5VL_nczarr_obj_t *o = obj;
    char buf[256];
    if (loc_params->type == H5VL_OBJECT_BY_SELF) {
        NCZ_PUSH(NCZ_E_ARGS, "H5Oopen: the object must be given by name, index or token");
        return NULL;
    }
    ncztr_obj *n = locate(o, loc_params);
    if (!n)
        return NULL;
    /* An array whose metadata could not be loaded keeps the rest of the store usable and
     * reports why when it is opened, whichever API opens it. */
    const char *why = ncztr_array_load_error(n);
    if (why) {
        NCZ_PUSH(NCZ_E_FORMAT, "cannot open \"%s\": %s", ncztr_obj_where(n, buf, sizeof buf), why);
        return NULL;
    }
    H5I_type_t t = H5VL_nczarr_itype(n);
    H5VL_nczarr_obj_t *no = H5VL_nczarr_obj_new(t, o->file, n, NULL);
    if (no && opened_type)
        *opened_type = t;
    return no;
}

/* H5Ocopy. Within one store: a group with its subtree (or only its members with
 * H5O_COPY_SHALLOW_HIERARCHY_FLAG), or a dataset with its data, with attributes unless
 * H5O_COPY_WITHOUT_ATTR_FLAG, soft and external links copied as links. Across connectors,
 * or with the flags that expand soft or external links (which name objects by path), the
 * generic copy (H5VL_nczarr_xcopy.c). */
herr_t H5VL_nczarr_object_copy(void *src_obj, const H5VL_loc_params_t *loc_params1, const char *src_name,
                               void *dst_obj, const H5VL_loc_params_t *loc_params2, const char *dst_name,
                               hid_t ocpypl_id, hid_t lcpl_id, hid_t dxpl_id, void **req)
{
    (void)dxpl_id;
    (void)req;
    herr_t ret = SUCCEED;
    H5VL_nczarr_obj_t *so = src_obj, *dobj = dst_obj;
    ncztr_obj *sbase = NULL, *dbase = NULL, *src = NULL, *parent = NULL;
    char *leaf = NULL;
    unsigned cflags = 0, crt = 0, mflags = 0;
    if (!src_name || !*src_name || !dst_name || !*dst_name)
        NCZ_GOTO(FAIL, NCZ_E_ARGS, "H5Ocopy: no source or destination name given");
    if (H5VL_nczarr_check_plist(ocpypl_id, H5P_OBJECT_COPY, "object copy") < 0 ||
        H5VL_nczarr_check_plist(lcpl_id, H5P_LINK_CREATE, "link creation") < 0)
        NCZ_GOTO_QUIET(FAIL);
    if (ocpypl_id != H5P_DEFAULT && H5Pget_copy_object(ocpypl_id, &cflags) < 0)
        NCZ_GOTO(FAIL, NCZ_E_HDF5, "H5Ocopy: cannot read the object copy property list");
    if ((cflags & (H5O_COPY_EXPAND_SOFT_LINK_FLAG | H5O_COPY_EXPAND_EXT_LINK_FLAG)) ||
        H5VL_nczarr_copy_across(so, dobj))
        return H5VL_nczarr_xcopy_object(src_obj, src_name, dst_obj, dst_name, cflags, lcpl_id);
    if (!(sbase = locate(so, loc_params1)) || !(dbase = locate(dobj, loc_params2)))
        NCZ_GOTO_QUIET(FAIL);
    if (ncztr_lookup(sbase, src_name, &src) < 0)
        NCZ_GOTO_QUIET(FAIL);
    if (lcpl_id != H5P_DEFAULT && H5Pget_create_intermediate_group(lcpl_id, &crt) < 0)
        NCZ_GOTO(FAIL, NCZ_E_HDF5, "H5Ocopy: cannot read the link creation property list");
    if (cflags & H5O_COPY_SHALLOW_HIERARCHY_FLAG)
        mflags |= NCZTR_COPY_SHALLOW;
    if (cflags & H5O_COPY_WITHOUT_ATTR_FLAG)
        mflags |= NCZTR_COPY_NO_ATTRS;
    if (ncztr_resolve_new(dbase, dst_name, crt != 0, &parent, &leaf) < 0 ||
        ncztr_copy(src, parent, leaf, mflags, NULL) < 0)
        NCZ_GOTO_QUIET(FAIL);
done:
    free(leaf);
    return ret;
}

herr_t H5VL_nczarr_object_get(void *obj, const H5VL_loc_params_t *loc_params, H5VL_object_get_args_t *args,
                              hid_t dxpl_id, void **req)
{
    (void)dxpl_id;
    (void)req;
    H5VL_nczarr_obj_t *o = obj;
    ncztr_obj *n = NULL;
    if (!o || !o->file)
        return NCZ_PUSH(NCZ_E_ARGS, "object get on an invalid location");
    switch (args->op_type) {
    case H5VL_OBJECT_GET_FILE:
        /* HDF5 looks the returned pointer up among file ids (H5I_find_id compares raw
         * pointers), so it must be the one behind them. With no file id left it registers
         * a new one, whose close will call file_close: account for that id here. */
        *args->args.get_file.file = &o->file->fobj;
        if (o->file->file_ids == 0) {
            o->file->file_ids++;
            o->file->rc++;
        }
        return SUCCEED;
    case H5VL_OBJECT_GET_NAME: {
        size_t len = 0;
        if (loc_params->type == H5VL_OBJECT_BY_SELF) {
            /* An unlinked (deleted or anonymous) object has no name: HDF5 reports an empty one. */
            n = o->node;
            if (!n)
                return NCZ_PUSH(NCZ_E_ARGS, "object name: invalid object");
            if (ncztr_obj_unlinked(n)) {
                len = H5VL_nczarr_copy_name("", args->args.get_name.buf, args->args.get_name.buf_size);
                if (args->args.get_name.name_len)
                    *args->args.get_name.name_len = len;
                return SUCCEED;
            }
        } else if (loc_params->type == H5VL_OBJECT_BY_TOKEN) {
            if (!(n = locate(o, loc_params)))
                return FAIL;
        } else {
            return NCZ_PUSH(NCZ_E_ARGS, "object name: unsupported location type %d", (int)loc_params->type);
        }
        char *path = ncztr_obj_path(n);
        if (!path)
            return FAIL;
        len = H5VL_nczarr_copy_name(path, args->args.get_name.buf, args->args.get_name.buf_size);
        free(path);
        if (args->args.get_name.name_len)
            *args->args.get_name.name_len = len;
        return SUCCEED;
    }
    case H5VL_OBJECT_GET_TYPE:
        if (!(n = locate(o, loc_params)))
            return FAIL;
        *args->args.get_type.obj_type = H5VL_nczarr_otype(n);
        return SUCCEED;
    case H5VL_OBJECT_GET_INFO:
        if (!(n = locate(o, loc_params)))
            return FAIL;
        return H5VL_nczarr_fill_oinfo(o->file, n, args->args.get_info.fields, args->args.get_info.oinfo);
    default:
        return NCZ_PUSH(NCZ_E_UNSUPPORTED, "object get operation %d is not supported", (int)args->op_type);
    }
}

/* H5Oexists_by_name, mirroring HDF5: "." and "/" exist, a missing last component is a
 * quiet "no", a missing or non-group component before it is an error. */
static herr_t object_exists(H5VL_nczarr_obj_t *o, const char *path, hbool_t *exists)
{
    herr_t ret = SUCCEED;
    char *parent_path = NULL, *leaf = NULL;
    char buf[256];
    if (!o->node || !path)
        NCZ_GOTO(FAIL, NCZ_E_ARGS, "H5Oexists_by_name: no object name given");
    if (ncztr_obj_is_deleted(o->node))
        NCZ_GOTO(FAIL, NCZ_E_NOTFOUND, "object \"%s\" has been deleted", ncztr_obj_name(o->node));
    size_t len = strlen(path);
    while (len > 0 && path[len - 1] == '/')
        len--;
    size_t start = len;
    while (start > 0 && path[start - 1] != '/')
        start--;
    parent_path = strndup(path, start);
    leaf = strndup(path + start, len - start);
    NCZ_CHECK_ALLOC(parent_path, FAIL);
    NCZ_CHECK_ALLOC(leaf, FAIL);
    ncztr_obj *g = ncztr_find(o->node, start ? parent_path : ".");
    if (!g)
        NCZ_GOTO(FAIL, NCZ_E_NOTFOUND, "H5Oexists_by_name(\"%s\"): group \"%.*s\" does not exist", path,
                 (int)(start > 1 ? start - 1 : start), parent_path);
    if (!*leaf || strcmp(leaf, ".") == 0) {
        *exists = true; /* the location itself ("/", ".", "a/.") */
        goto done;
    }
    if (ncztr_obj_kind(g) != NCZTR_GROUP)
        NCZ_GOTO(FAIL, NCZ_E_ARGS, "H5Oexists_by_name(\"%s\"): \"%s\" is not a group", path,
                 ncztr_obj_where(g, buf, sizeof buf));
    *exists = ncztr_deref(ncztr_child(g, leaf), false) != NULL;
done:
    free(parent_path);
    free(leaf);
    return ret;
}

/* One H5Ovisit3: every callback gets the id of the object the visit started from and a
 * name relative to it, as HDF5 does. */
typedef struct obj_walk {
    H5VL_nczarr_file_t *f;
    hid_t start_id;
    H5VL_object_visit_args_t *args;
    ncztr_objset *seen; /* objects visited, kept only in a store with extra hard links */
} obj_walk;

/* First time the walk meets n? (Always, in a store without extra hard links: then every
 * object has one name and comes up once.) -1: out of memory. */
static int first_visit(obj_walk *w, ncztr_obj *n)
{
    return ncztr_objset_first_visit(&w->seen, n);
}

static herr_t visit_call(const obj_walk *w, ncztr_obj *n, const char *name)
{
    H5O_info2_t oi;
    if (H5VL_nczarr_fill_oinfo(w->f, n, w->args->fields, &oi) < 0)
        return FAIL;
    herr_t r = w->args->op(w->start_id, name, &oi, w->args->op_data);
    if (r < 0)
        NCZ_PUSH(NCZ_E_ARGS, "object visit: the callback failed on \"%s\"", name);
    return r;
}

/* Depth-first pre-order over a group, over a snapshot of its children held by references
 * (callbacks may delete or move objects). An object with several names (extra hard links)
 * comes up once, under the first name met, as in HDF5: that also ends cycles. */
static herr_t visit_group(obj_walk *w, ncztr_obj *g, const char *prefix)
{
    herr_t ret = 0;
    size_t n = ncztr_group_nlinks(g);
    ncztr_obj **v = ncztr_children_sorted(g, w->args->idx_type, w->args->order);
    if (!v)
        return FAIL;
    for (size_t i = 0; i < n; i++)
        ncztr_obj_ref(v[i]);
    size_t pl = strlen(prefix);
    for (size_t i = 0; i < n && ret == 0; i++) {
        if (ncztr_obj_is_deleted(v[i]) || ncztr_link_class(v[i]) != H5L_TYPE_HARD)
            continue; /* H5Ovisit reaches objects by hard links only, as HDF5 does */
        ncztr_obj *obj = ncztr_deref(v[i], true);
        int first = obj ? first_visit(w, obj) : -1;
        if (first <= 0) {
            if (first < 0)
                ret = obj ? NCZ_PUSH(NCZ_E_NOMEM, "out of memory visiting objects") : FAIL;
            continue;
        }
        size_t nl = strlen(ncztr_obj_name(v[i]));
        char *path = malloc(pl + nl + 2);
        if (!path) {
            ret = NCZ_PUSH(NCZ_E_NOMEM, "out of memory visiting objects");
            break;
        }
        snprintf(path, pl + nl + 2, "%s%s%s", prefix, pl ? "/" : "", ncztr_obj_name(v[i]));
        ret = visit_call(w, obj, path);
        if (ret == 0 && ncztr_obj_kind(obj) == NCZTR_GROUP && !ncztr_obj_is_deleted(obj) &&
            !ncztr_obj_is_deleted(v[i]))
            ret = visit_group(w, obj, path);
        free(path);
    }
    for (size_t i = 0; i < n; i++)
        ncztr_obj_unref(v[i]);
    free(v);
    return ret;
}

static herr_t object_visit(H5VL_nczarr_obj_t *o, const H5VL_loc_params_t *lp, H5VL_object_visit_args_t *args)
{
    if (lp->type != H5VL_OBJECT_BY_SELF && lp->type != H5VL_OBJECT_BY_NAME)
        return NCZ_PUSH(NCZ_E_ARGS, "H5Ovisit: unsupported location type %d", (int)lp->type);
    if (!args->op)
        return NCZ_PUSH(NCZ_E_ARGS, "H5Ovisit: no callback");
    ncztr_obj *n = locate(o, lp);
    if (!n)
        return FAIL;
    /* A visit from a file id starts at the root group, which gets a group id. */
    obj_walk w = {o->file, H5I_INVALID_HID, args, NULL};
    if ((w.start_id = H5VL_nczarr_wrap_register(o->file, n)) < 0)
        return FAIL;
    herr_t ret = first_visit(&w, n) < 0 ? NCZ_PUSH(NCZ_E_NOMEM, "out of memory visiting objects") : 0;
    if (ret == 0)
        ret = visit_call(&w, n, ".");
    if (ret == 0 && ncztr_obj_kind(n) == NCZTR_GROUP)
        ret = visit_group(&w, n, "");
    ncztr_objset_free(w.seen);
    H5VL_nczarr_drop_id(w.start_id, ret < 0);
    return ret;
}

herr_t H5VL_nczarr_object_specific(void *obj, const H5VL_loc_params_t *loc_params,
                                   H5VL_object_specific_args_t *args, hid_t dxpl_id, void **req)
{
    (void)dxpl_id;
    (void)req;
    H5VL_nczarr_obj_t *o = obj;
    ncztr_obj *n = NULL;
    char buf[256];
    if (!o || !o->file)
        return NCZ_PUSH(NCZ_E_ARGS, "object operation on an invalid location");
    if (H5VL_nczarr_check_lapl(loc_params) < 0)
        return FAIL;
    switch (args->op_type) {
    case H5VL_OBJECT_CHANGE_REF_COUNT:
        if (!(n = locate(o, loc_params)))
            return FAIL;
        return NCZ_PUSH(NCZ_E_NOTREPR,
                        "cannot change the reference count of \"%s\": NCZarr objects have exactly one link",
                        ncztr_obj_where(n, buf, sizeof buf));
    case H5VL_OBJECT_EXISTS:
        if (loc_params->type != H5VL_OBJECT_BY_NAME)
            return NCZ_PUSH(NCZ_E_ARGS, "H5Oexists_by_name: unsupported location type %d",
                            (int)loc_params->type);
        return object_exists(o, loc_params->loc_data.loc_by_name.name, args->args.exists.exists);
    case H5VL_OBJECT_LOOKUP:
        /* name -> token, for H5Rcreate_object and H5DS (which use ".") */
        if (!(n = locate(o, loc_params)))
            return FAIL;
        H5VL_nczarr_token_encode(ncztr_obj_id(n), args->args.lookup.token_ptr);
        return SUCCEED;
    case H5VL_OBJECT_VISIT:
        return object_visit(o, loc_params, &args->args.visit);
    case H5VL_OBJECT_FLUSH:
        /* Metadata of one object cannot be written alone consistently (parents list their
         * children), so flushing any object flushes the store. */
        if (ncztr_file_flush(o->file->tf) < 0)
            return NCZ_PUSH(NCZ_E_STORE, "flushing \"%s\" failed", o->file->name);
        return SUCCEED;
    case H5VL_OBJECT_REFRESH:
        /* The model is the only writer while the store is open: nothing to re-read. */
        return SUCCEED;
    default:
        return NCZ_PUSH(NCZ_E_UNSUPPORTED, "object operation %d is not supported", (int)args->op_type);
    }
}

herr_t H5VL_nczarr_object_optional(void *obj, const H5VL_loc_params_t *loc_params, H5VL_optional_args_t *args,
                                   hid_t dxpl_id, void **req)
{
    (void)dxpl_id;
    (void)req;
    const char *what = "a native-only object operation";
    if (args->op_type == H5VL_NATIVE_OBJECT_GET_NATIVE_INFO) {
        /* h5stat: an object of a store has no HDF5 object header, B-tree or heap: all zero,
         * for an object that exists */
        H5VL_native_object_optional_args_t *na = args->args;
        if (!H5VL_nczarr_resolve(obj, loc_params))
            return FAIL;
        memset(na->get_native_info.ninfo, 0, sizeof *na->get_native_info.ninfo);
        return SUCCEED;
    }
    switch (args->op_type) {
    case H5VL_NATIVE_OBJECT_GET_COMMENT:
    case H5VL_NATIVE_OBJECT_SET_COMMENT:
        what = "object comments (H5Oget_comment/H5Oset_comment)";
        break;
    case H5VL_NATIVE_OBJECT_GET_NATIVE_INFO:
        what = "H5Oget_native_info";
        break;
    default:
        break;
    }
    return NCZ_PUSH(NCZ_E_UNSUPPORTED, "%s (operation %d) is not supported on Zarr stores", what,
                    args->op_type);
}
