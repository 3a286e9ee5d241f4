/* Attribute callbacks. An attribute id stands for an H5VL_nczarr_obj_t of type H5I_ATTR
 * whose node is the owning group/array and whose attr is the model attribute; both are
 * reference counted, so the handle outlives H5Adelete/H5Ldelete and then reports the
 * deletion instead of touching freed memory. All data conversion happens in the model. */
#include "H5VL_nczarr.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The path of a node for messages, in a caller buffer (never NULL). A deleted node has
 * no path any more, so it is named by its last link name. */
/* The object an attribute operation addresses. BY_SELF is obj itself (the owner when obj
 * is an attribute id, the root for a file id) and BY_NAME a path from it. For BY_IDX
 * (H5Aopen_by_idx, H5Aget_name_by_idx, H5Aget_info_by_idx) HDF5 puts the OBJECT's name in
 * loc_by_idx.name and the index selects an attribute, not a link, so this must not go
 * through H5VL_nczarr_resolve's link-index lookup. */
static ncztr_obj *attr_owner(H5VL_nczarr_obj_t *o, const H5VL_loc_params_t *lp)
{
    ncztr_obj *n = NULL;
    char buf[256];
    if (!o || !o->node) {
        NCZ_PUSH(NCZ_E_ARGS, "attribute operation on an invalid location");
        return NULL;
    }
    if (H5VL_nczarr_check_lapl(lp) < 0)
        return NULL;
    switch (lp->type) {
    case H5VL_OBJECT_BY_SELF:
        n = o->node;
        break;
    case H5VL_OBJECT_BY_NAME:
        if (!lp->loc_data.loc_by_name.name) {
            NCZ_PUSH(NCZ_E_ARGS, "attribute operation: no object name given");
            return NULL;
        }
        return H5VL_nczarr_resolve(o, lp);
    case H5VL_OBJECT_BY_IDX: {
        const char *name = lp->loc_data.loc_by_idx.name ? lp->loc_data.loc_by_idx.name : ".";
        if (ncztr_obj_is_deleted(o->node)) {
            NCZ_PUSH(NCZ_E_NOTFOUND, "object \"%s\" has been deleted", ncztr_obj_name(o->node));
            return NULL;
        }
        if (ncztr_lookup(o->node, name, &n) < 0)
            return NULL;
        break;
    }
    default:
        NCZ_PUSH(NCZ_E_ARGS, "attribute operation: unsupported location type %d", (int)lp->type);
        return NULL;
    }
    if (ncztr_obj_is_deleted(n)) {
        NCZ_PUSH(NCZ_E_NOTFOUND, "object \"%s\" has been deleted", ncztr_obj_where(n, buf, sizeof buf));
        return NULL;
    }
    return n;
}

/* The attribute behind an attribute id, checked to be still alive. */
static ncztr_attr *live_attr(H5VL_nczarr_obj_t *o)
{
    char buf[256];
    if (!o || o->type != H5I_ATTR || !o->attr) {
        NCZ_PUSH(NCZ_E_ARGS, "not an attribute");
        return NULL;
    }
    if (ncztr_attr_is_deleted(o->attr)) {
        NCZ_PUSH(NCZ_E_NOTFOUND, "attribute \"%s\" has been deleted", ncztr_attr_name(o->attr));
        return NULL;
    }
    if (o->node && ncztr_obj_is_deleted(o->node)) {
        NCZ_PUSH(NCZ_E_NOTFOUND, "attribute \"%s\": its object \"%s\" has been deleted",
                 ncztr_attr_name(o->attr), ncztr_obj_where(o->node, buf, sizeof buf));
        return NULL;
    }
    return o->attr;
}

/* Looks an attribute up by name on n, reporting a missing one. */
static ncztr_attr *find_named(ncztr_obj *n, const char *name)
{
    char buf[256];
    if (!name) {
        NCZ_PUSH(NCZ_E_ARGS, "no attribute name given");
        return NULL;
    }
    ncztr_attr *a = ncztr_attr_find(n, name);
    if (!a)
        NCZ_PUSH(NCZ_E_NOTFOUND, "attribute \"%s\" does not exist on \"%s\"", name,
                 ncztr_obj_where(n, buf, sizeof buf));
    return a;
}

/* Bytes of the attribute's value as HDF5 reports them (0 for one that cannot be read). */
static hsize_t attr_bytes(const ncztr_attr *a)
{
    uint64_t corder;
    H5T_cset_t cset;
    hsize_t size;
    ncztr_attr_info(a, &corder, &cset, &size);
    return size;
}

static void fill_ainfo(const ncztr_attr *a, H5A_info_t *ai)
{
    memset(ai, 0, sizeof *ai);
    ai->corder_valid = true; /* the model always tracks attribute creation order */
    uint64_t corder;
    ncztr_attr_info(a, &corder, &ai->cset, &ai->data_size);
    ai->corder = (H5O_msg_crt_idx_t)corder;
}

static H5VL_nczarr_obj_t *wrap_attr(H5VL_nczarr_obj_t *o, ncztr_obj *owner, ncztr_attr *a)
{
    return H5VL_nczarr_obj_new(H5I_ATTR, o->file, owner, a);
}

void *H5VL_nczarr_attr_create(void *obj, const H5VL_loc_params_t *loc_params, const char *attr_name,
                              hid_t type_id, hid_t space_id, hid_t acpl_id, hid_t aapl_id, hid_t dxpl_id,
                              void **req)
{
    (void)dxpl_id;
    (void)req;
    H5VL_nczarr_obj_t *o = obj;
    ncztr_attr *a = NULL;
    char buf[256];
    H5T_cset_t cset = H5T_CSET_ASCII;
    if (H5VL_nczarr_check_plist(acpl_id, H5P_ATTRIBUTE_CREATE, "attribute creation") < 0 ||
        H5VL_nczarr_check_plist(aapl_id, H5P_ATTRIBUTE_ACCESS, "attribute access") < 0)
        return NULL;
    /* Of an acpl only the name's character encoding exists (kept with the attribute). */
    if (acpl_id != H5P_DEFAULT && H5Pget_char_encoding(acpl_id, &cset) < 0) {
        NCZ_PUSH(NCZ_E_ARGS, "attribute \"%s\": cannot read the character encoding of its creation plist",
                 attr_name ? attr_name : "");
        return NULL;
    }
    if (loc_params->type != H5VL_OBJECT_BY_SELF && loc_params->type != H5VL_OBJECT_BY_NAME) {
        NCZ_PUSH(NCZ_E_ARGS, "attribute \"%s\": cannot create at this kind of location",
                 attr_name ? attr_name : "");
        return NULL;
    }
    ncztr_obj *owner = attr_owner(o, loc_params);
    if (!owner)
        return NULL;
    if (!attr_name || !*attr_name) {
        NCZ_PUSH(NCZ_E_ARGS, "cannot create an attribute with an empty name on \"%s\"",
                 ncztr_obj_where(owner, buf, sizeof buf));
        return NULL;
    }
    if (ncztr_attr_create(owner, attr_name, type_id, space_id, &a) < 0)
        return NULL;
    ncztr_attr_set_name_cset(a, cset);
    H5VL_nczarr_obj_t *ao = wrap_attr(o, owner, a);
    ncztr_attr_unref(a); /* the handle took its own reference */
    return ao;
}

void *H5VL_nczarr_attr_open(void *obj, const H5VL_loc_params_t *loc_params, const char *attr_name,
                            hid_t aapl_id, hid_t dxpl_id, void **req)
{
    (void)dxpl_id;
    (void)req;
    H5VL_nczarr_obj_t *o = obj;
    if (H5VL_nczarr_check_plist(aapl_id, H5P_ATTRIBUTE_ACCESS, "attribute access") < 0)
        return NULL;
    ncztr_obj *owner = attr_owner(o, loc_params);
    ncztr_attr *a = NULL;
    if (!owner)
        return NULL;
    if (loc_params->type == H5VL_OBJECT_BY_IDX) {
        const H5VL_loc_by_idx_t *bi = &loc_params->loc_data.loc_by_idx;
        a = ncztr_attr_by_idx(owner, bi->idx_type, bi->order, bi->n);
    } else {
        a = find_named(owner, attr_name);
    }
    if (!a)
        return NULL;
    /* What the store had for it did not fit its "_nczarr_attr.types" entry (see
     * ncztr_attr_decode): it is listed, and opening it fails saying why. */
    char buf[256];
    if (ncztr_attr_load_error(a)) {
        NCZ_PUSH(NCZ_E_FORMAT, "cannot open an attribute of \"%s\": %s",
                 ncztr_obj_where(owner, buf, sizeof buf), ncztr_attr_load_error(a));
        return NULL;
    }
    return wrap_attr(o, owner, a);
}

herr_t H5VL_nczarr_attr_read(void *attr, hid_t mem_type_id, void *buf, hid_t dxpl_id, void **req)
{
    (void)dxpl_id;
    (void)req;
    ncztr_attr *a = live_attr(attr);
    if (!a)
        return FAIL;
    if (!buf && ncztr_attr_nelem(a) > 0)
        return NCZ_PUSH(NCZ_E_ARGS, "reading attribute \"%s\": no buffer", ncztr_attr_name(a));
    H5VL_nczarr_obj_t *o = attr;
    H5VL_nczarr_set_refops(o->file);
    return ncztr_attr_read(o->node, a, mem_type_id, buf);
}

herr_t H5VL_nczarr_attr_write(void *attr, hid_t mem_type_id, const void *buf, hid_t dxpl_id, void **req)
{
    (void)dxpl_id;
    (void)req;
    H5VL_nczarr_obj_t *o = attr;
    ncztr_attr *a = live_attr(o);
    if (!a)
        return FAIL;
    if (!buf && ncztr_attr_nelem(a) > 0)
        return NCZ_PUSH(NCZ_E_ARGS, "writing attribute \"%s\": no buffer", ncztr_attr_name(a));
    H5VL_nczarr_set_refops(o->file);
    return ncztr_attr_write(o->node, a, mem_type_id, buf);
}

/* The attribute a get operation addresses: the id itself for BY_SELF, else the one that
 * the object location plus a name (by_name) or an index (BY_IDX) select. */
static ncztr_attr *get_target(H5VL_nczarr_obj_t *o, const H5VL_loc_params_t *lp, const char *attr_name)
{
    if (lp->type == H5VL_OBJECT_BY_SELF)
        return live_attr(o);
    ncztr_obj *owner = attr_owner(o, lp);
    if (!owner)
        return NULL;
    if (lp->type == H5VL_OBJECT_BY_IDX)
        return ncztr_attr_by_idx(owner, lp->loc_data.loc_by_idx.idx_type, lp->loc_data.loc_by_idx.order,
                                 lp->loc_data.loc_by_idx.n);
    return find_named(owner, attr_name);
}

herr_t H5VL_nczarr_attr_get(void *obj, H5VL_attr_get_args_t *args, hid_t dxpl_id, void **req)
{
    (void)dxpl_id;
    (void)req;
    H5VL_nczarr_obj_t *o = obj;
    ncztr_attr *a = NULL;
    switch (args->op_type) {
    case H5VL_ATTR_GET_ACPL:
        if (!live_attr(o))
            return FAIL;
        /* An acpl holds only the name's character encoding. */
        if ((args->args.get_acpl.acpl_id = H5Pcreate(H5P_ATTRIBUTE_CREATE)) < 0)
            return NCZ_PUSH(NCZ_E_HDF5, "attribute \"%s\": cannot create its creation property list",
                            ncztr_attr_name(o->attr));
        if (ncztr_attr_name_cset(o->attr) != H5T_CSET_ASCII &&
            H5Pset_char_encoding(args->args.get_acpl.acpl_id, ncztr_attr_name_cset(o->attr)) < 0) {
            H5Pclose(args->args.get_acpl.acpl_id);
            args->args.get_acpl.acpl_id = H5I_INVALID_HID;
            return NCZ_PUSH(NCZ_E_HDF5,
                            "attribute \"%s\": cannot set the character encoding of its creation "
                            "property list",
                            ncztr_attr_name(o->attr));
        }
        return SUCCEED;
    case H5VL_ATTR_GET_INFO: {
        H5VL_attr_get_info_args_t *gi = &args->args.get_info;
        if (!(a = get_target(o, &gi->loc_params, gi->attr_name)))
            return FAIL;
        fill_ainfo(a, gi->ainfo);
        return SUCCEED;
    }
    case H5VL_ATTR_GET_NAME: {
        H5VL_attr_get_name_args_t *gn = &args->args.get_name;
        if (gn->loc_params.type != H5VL_OBJECT_BY_SELF && gn->loc_params.type != H5VL_OBJECT_BY_IDX)
            return NCZ_PUSH(NCZ_E_ARGS, "attribute name: unsupported location type %d",
                            (int)gn->loc_params.type);
        if (!(a = get_target(o, &gn->loc_params, NULL)))
            return FAIL;
        size_t len = H5VL_nczarr_copy_name(ncztr_attr_name(a), gn->buf, gn->buf_size);
        if (gn->attr_name_len)
            *gn->attr_name_len = len;
        return SUCCEED;
    }
    case H5VL_ATTR_GET_SPACE:
        if (!(a = live_attr(o)))
            return FAIL;
        if ((args->args.get_space.space_id = H5Scopy(ncztr_attr_space(a))) < 0)
            return NCZ_PUSH(NCZ_E_HDF5, "attribute \"%s\": cannot copy its dataspace", ncztr_attr_name(a));
        return SUCCEED;
    case H5VL_ATTR_GET_TYPE:
        if (!(a = live_attr(o)))
            return FAIL;
        if ((args->args.get_type.type_id = H5Tcopy(ncztr_attr_type(a))) < 0)
            return NCZ_PUSH(NCZ_E_HDF5, "attribute \"%s\": cannot copy its datatype", ncztr_attr_name(a));
        return SUCCEED;
    case H5VL_ATTR_GET_STORAGE_SIZE:
        if (!(a = live_attr(o)))
            return FAIL;
        *args->args.get_storage_size.data_size = attr_bytes(a);
        return SUCCEED;
    default:
        return NCZ_PUSH(NCZ_E_UNSUPPORTED, "attribute get operation %d is not supported", (int)args->op_type);
    }
}

/* H5Aiterate2 / H5Aiterate_by_name2. The callback gets an id of the owning object, as
 * HDF5 does (for a file id: the root group). It iterates over a snapshot whose entries it
 * holds references to, so callbacks that delete or rename attributes cannot make it
 * touch freed memory; attributes deleted meanwhile are skipped. */
static herr_t attr_iterate(H5VL_nczarr_obj_t *o, ncztr_obj *owner, H5VL_attr_iterate_args_t *it)
{
    herr_t ret = SUCCEED;
    char buf[256];
    size_t n = ncztr_obj_nattrs(owner);
    hsize_t start = it->idx ? *it->idx : 0, done_n = start;
    hid_t loc_id = H5I_INVALID_HID;
    ncztr_attr **v = NULL;
    if (start > 0 && start >= n)
        NCZ_GOTO(FAIL, NCZ_E_ARGS,
                 "attribute iteration on \"%s\": start index %llu is out of range (%zu attributes)",
                 ncztr_obj_where(owner, buf, sizeof buf), (unsigned long long)start, n);
    if (!it->op)
        NCZ_GOTO(FAIL, NCZ_E_ARGS, "attribute iteration on \"%s\": no callback",
                 ncztr_obj_where(owner, buf, sizeof buf));
    if (n == 0)
        goto done;
    if (!(v = ncztr_attrs_sorted(owner, it->idx_type, it->order)))
        NCZ_GOTO_QUIET(FAIL);
    for (size_t i = 0; i < n; i++)
        ncztr_attr_ref(v[i]);
    if ((loc_id = H5VL_nczarr_wrap_register(o->file, owner)) < 0)
        NCZ_GOTO_QUIET(FAIL);
    for (size_t i = (size_t)start; i < n && ret == 0; i++) {
        H5A_info_t ai;
        done_n++;
        if (ncztr_attr_is_deleted(v[i]))
            continue;
        fill_ainfo(v[i], &ai);
        ret = it->op(loc_id, ncztr_attr_name(v[i]), &ai, it->op_data);
        if (ret < 0)
            NCZ_PUSH(NCZ_E_ARGS, "attribute iteration on \"%s\": the callback failed on \"%s\"",
                     ncztr_obj_where(owner, buf, sizeof buf), ncztr_attr_name(v[i]));
    }
done:
    if (it->idx)
        *it->idx = done_n;
    if (loc_id >= 0)
        H5VL_nczarr_drop_id(loc_id, ret < 0);
    if (v) {
        for (size_t i = 0; i < n; i++)
            ncztr_attr_unref(v[i]);
        free(v);
    }
    return ret;
}

herr_t H5VL_nczarr_attr_specific(void *obj, const H5VL_loc_params_t *loc_params,
                                 H5VL_attr_specific_args_t *args, hid_t dxpl_id, void **req)
{
    (void)dxpl_id;
    (void)req;
    H5VL_nczarr_obj_t *o = obj;
    ncztr_attr *a = NULL;
    if (loc_params->type != H5VL_OBJECT_BY_SELF && loc_params->type != H5VL_OBJECT_BY_NAME)
        return NCZ_PUSH(NCZ_E_ARGS, "attribute operation %d: unsupported location type %d",
                        (int)args->op_type, (int)loc_params->type);
    ncztr_obj *owner = attr_owner(o, loc_params);
    if (!owner)
        return FAIL;
    switch (args->op_type) {
    case H5VL_ATTR_DELETE:
        if (!(a = find_named(owner, args->args.del.name)))
            return FAIL;
        return ncztr_attr_delete(owner, a);
    case H5VL_ATTR_DELETE_BY_IDX: {
        H5VL_attr_delete_by_idx_args_t *d = &args->args.delete_by_idx;
        if (!(a = ncztr_attr_by_idx(owner, d->idx_type, d->order, d->n)))
            return FAIL;
        return ncztr_attr_delete(owner, a);
    }
    case H5VL_ATTR_EXISTS:
        if (!args->args.exists.name)
            return NCZ_PUSH(NCZ_E_ARGS, "attribute exists: no attribute name given");
        *args->args.exists.exists = ncztr_attr_find(owner, args->args.exists.name) != NULL;
        return SUCCEED;
    case H5VL_ATTR_ITER:
        return attr_iterate(o, owner, &args->args.iterate);
    case H5VL_ATTR_RENAME:
        if (!(a = find_named(owner, args->args.rename.old_name)))
            return FAIL;
        return ncztr_attr_rename(owner, a, args->args.rename.new_name);
    default:
        return NCZ_PUSH(NCZ_E_UNSUPPORTED, "attribute operation %d is not supported", (int)args->op_type);
    }
}

#ifndef H5_NO_DEPRECATED_SYMBOLS
/* H5Aiterate1's callback behind H5Aiterate2's: it gets the caller's location id, as HDF5
 * hands it to H5Aiterate1's callbacks of native objects. */
typedef struct iterate_old {
    H5A_operator1_t op;
    void *op_data;
    hid_t loc_id;
} iterate_old;

static herr_t iterate_old_cb(hid_t loc_id, const char *name, const H5A_info_t *ai, void *ud)
{
    (void)loc_id;
    (void)ai;
    const iterate_old *w = ud;
    return w->op(w->loc_id, name, w->op_data);
}
#endif

herr_t H5VL_nczarr_attr_optional(void *obj, H5VL_optional_args_t *args, hid_t dxpl_id, void **req)
{
    (void)dxpl_id;
    (void)req;
#ifndef H5_NO_DEPRECATED_SYMBOLS
    /* The only native optional attribute operation is the deprecated H5Aiterate1: the
     * attributes in creation order from *attr_num on, *attr_num written back, as HDF5 does it
     * for a native object (H5A__iterate_old). */
    if (args->op_type == H5VL_NATIVE_ATTR_ITERATE_OLD) {
        H5VL_native_attr_iterate_old_t *a = args->args;
        H5VL_loc_params_t self = {.type = H5VL_OBJECT_BY_SELF};
        ncztr_obj *owner = attr_owner(obj, &self);
        if (!owner)
            return FAIL;
        iterate_old w = {a->op, a->op_data, a->loc_id};
        hsize_t idx = a->attr_num ? *a->attr_num : 0;
        H5VL_attr_iterate_args_t it = {H5_INDEX_CRT_ORDER, H5_ITER_INC, &idx, iterate_old_cb, &w};
        herr_t r = attr_iterate(obj, owner, &it);
        if (a->attr_num)
            *a->attr_num = (unsigned)idx;
        return r;
    }
#endif
    return NCZ_NATIVE_ONLY("attribute", args->op_type);
}

herr_t H5VL_nczarr_attr_close(void *attr, hid_t dxpl_id, void **req)
{
    (void)dxpl_id;
    (void)req;
    return H5VL_nczarr_obj_release(attr);
}
