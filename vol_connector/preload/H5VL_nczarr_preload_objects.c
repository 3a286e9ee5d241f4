/* The deprecated object calls (HDF5 1.14's src/H5Odeprec.c): H5Oopen_by_addr, H5Oget_info1
 * and 2 (by itself, by name, by index), H5Ovisit1 and 2 (by itself, by name). For a
 * non-native object the information is H5Oget_info3's (basic, times, number of attributes:
 * the data model) and H5Oget_native_info's (object header, metadata sizes), put together as
 * HDF5's H5O__get_info_old does: everything zero, type H5O_TYPE_UNKNOWN and address
 * HADDR_UNDEF, then only the fields asked for. The address is the token's
 * (H5VL_nczarr_preload.h); a store object has no object header, and the connector says so
 * with zeros. h5py calls H5Oget_info_by_name1 for "a/b" in a group and get(getclass=True),
 * and H5Ovisit_by_name1 for visit() and visititems(). */
#include "H5VL_nczarr_preload.h"

#include <string.h>

#ifndef H5_NO_DEPRECATED_SYMBOLS

#define DM_FIELDS  (H5O_INFO_BASIC | H5O_INFO_TIME | H5O_INFO_NUM_ATTRS)
#define NAT_FIELDS (H5O_INFO_HDR | H5O_INFO_META_SIZE)

static void info1_reset(H5O_info1_t *oinfo)
{
    memset(oinfo, 0, sizeof *oinfo);
    oinfo->type = H5O_TYPE_UNKNOWN;
    oinfo->addr = HADDR_UNDEF;
}

/* The data model's fields of info2 into oinfo, those of fields only. */
static herr_t info1_from_dm(H5O_info1_t *oinfo, const H5O_info2_t *info2, unsigned fields)
{
    if (fields & H5O_INFO_BASIC) {
        oinfo->fileno = info2->fileno;
        oinfo->type = info2->type;
        oinfo->rc = info2->rc;
        if (ncp_token_to_addr(&info2->token, &oinfo->addr) < 0)
            return FAIL;
    }
    if (fields & H5O_INFO_TIME) {
        oinfo->atime = info2->atime;
        oinfo->mtime = info2->mtime;
        oinfo->ctime = info2->ctime;
        oinfo->btime = info2->btime;
    }
    if (fields & H5O_INFO_NUM_ATTRS)
        oinfo->num_attrs = info2->num_attrs;
    return SUCCEED;
}

/* The deprecated API's H5O_INFO_HDR and H5O_INFO_META_SIZE as H5Oget_native_info's fields
 * (the same bits in 1.14, named apart). */
static unsigned native_fields(unsigned fields)
{
    return ((fields & H5O_INFO_HDR) ? H5O_NATIVE_INFO_HDR : 0u) |
           ((fields & H5O_INFO_META_SIZE) ? H5O_NATIVE_INFO_META_SIZE : 0u);
}

static void info1_from_native(H5O_info1_t *oinfo, const H5O_native_info_t *nat, unsigned fields)
{
    if (fields & H5O_INFO_HDR)
        oinfo->hdr = nat->hdr;
    if (fields & H5O_INFO_META_SIZE) {
        oinfo->meta_size.obj = nat->meta_size.obj;
        oinfo->meta_size.attr = nat->meta_size.attr;
    }
}

/* Where the object is: loc itself (name NULL), by name, or the n-th link of group name. */
typedef struct where {
    const char *name;
    bool by_idx;
    H5_index_t idx_type;
    H5_iter_order_t order;
    hsize_t n;
    hid_t lapl;
} where;

static herr_t get_info_old(const char *call, hid_t loc, const where *w, H5O_info1_t *oinfo, unsigned fields)
{
    if (!oinfo)
        return NCP_PUSH_AS(call, H5E_ARGS, H5E_BADVALUE, "oinfo parameter cannot be NULL");
    if (fields & ~(unsigned)H5O_INFO_ALL)
        return NCP_PUSH_AS(call, H5E_ARGS, H5E_BADVALUE, "invalid fields");
    info1_reset(oinfo);
    const char *what = w->name ? w->name : ".";
    unsigned dm = fields & DM_FIELDS;
    if (dm) {
        H5O_info2_t info2;
        herr_t r = !w->name ? H5Oget_info3(loc, &info2, dm)
                   : w->by_idx
                       ? H5Oget_info_by_idx3(loc, w->name, w->idx_type, w->order, w->n, &info2, dm, w->lapl)
                       : H5Oget_info_by_name3(loc, w->name, &info2, dm, w->lapl);
        if (r < 0)
            return NCP_PUSH_AS(call, H5E_OHDR, H5E_CANTGET, "can't get data model info for object \"%s\"",
                               what);
        if (info1_from_dm(oinfo, &info2, fields) < 0)
            return FAIL;
    }
    unsigned nat = native_fields(fields);
    if (nat) {
        H5O_native_info_t ninfo;
        herr_t r = !w->name    ? H5Oget_native_info(loc, &ninfo, nat)
                   : w->by_idx ? H5Oget_native_info_by_idx(loc, w->name, w->idx_type, w->order, w->n, &ninfo,
                                                           nat, w->lapl)
                               : H5Oget_native_info_by_name(loc, w->name, &ninfo, nat, w->lapl);
        if (r < 0)
            return NCP_PUSH_AS(call, H5E_OHDR, H5E_CANTGET, "can't get native info for object \"%s\"", what);
        info1_from_native(oinfo, &ninfo, fields);
    }
    return SUCCEED;
}

NCP_API hid_t H5Oopen_by_addr(hid_t loc_id, haddr_t addr)
{
    if (!ncp_serve(loc_id))
        NCP_FORWARD(H5Oopen_by_addr, H5I_INVALID_HID, loc_id, addr);
    H5O_token_t token;
    ncp_addr_to_token(addr, &token);
    hid_t id = H5Oopen_by_token(loc_id, token);
    if (id < 0)
        NCP_PUSH(H5E_OHDR, H5E_CANTOPENOBJ, "unable to open object: no object has address %llu in this file",
                 (unsigned long long)addr);
    return id;
}

NCP_API herr_t H5Oget_info1(hid_t loc_id, H5O_info1_t *oinfo)
{
    if (!ncp_serve(loc_id))
        NCP_FORWARD(H5Oget_info1, FAIL, loc_id, oinfo);
    where w = {.name = NULL};
    return get_info_old("H5Oget_info1", loc_id, &w, oinfo, H5O_INFO_ALL);
}

NCP_API herr_t H5Oget_info2(hid_t loc_id, H5O_info1_t *oinfo, unsigned fields)
{
    if (!ncp_serve(loc_id))
        NCP_FORWARD(H5Oget_info2, FAIL, loc_id, oinfo, fields);
    where w = {.name = NULL};
    return get_info_old("H5Oget_info2", loc_id, &w, oinfo, fields);
}

/* by name: a name is required (HDF5 refuses NULL and "") */
static herr_t get_info_by_name(const char *call, hid_t loc_id, const char *name, H5O_info1_t *oinfo,
                               unsigned fields, hid_t lapl)
{
    if (!name || !*name)
        return NCP_PUSH_AS(call, H5E_ARGS, H5E_BADVALUE, "no name");
    where w = {.name = name, .lapl = lapl};
    return get_info_old(call, loc_id, &w, oinfo, fields);
}

NCP_API herr_t H5Oget_info_by_name1(hid_t loc_id, const char *name, H5O_info1_t *oinfo, hid_t lapl_id)
{
    if (!ncp_serve(loc_id))
        NCP_FORWARD(H5Oget_info_by_name1, FAIL, loc_id, name, oinfo, lapl_id);
    return get_info_by_name("H5Oget_info_by_name1", loc_id, name, oinfo, H5O_INFO_ALL, lapl_id);
}

NCP_API herr_t H5Oget_info_by_name2(hid_t loc_id, const char *name, H5O_info1_t *oinfo, unsigned fields,
                                    hid_t lapl_id)
{
    if (!ncp_serve(loc_id))
        NCP_FORWARD(H5Oget_info_by_name2, FAIL, loc_id, name, oinfo, fields, lapl_id);
    return get_info_by_name("H5Oget_info_by_name2", loc_id, name, oinfo, fields, lapl_id);
}

static herr_t get_info_by_idx(const char *call, hid_t loc_id, const char *group_name, H5_index_t idx_type,
                              H5_iter_order_t order, hsize_t n, H5O_info1_t *oinfo, unsigned fields,
                              hid_t lapl)
{
    if (!group_name || !*group_name)
        return NCP_PUSH_AS(call, H5E_ARGS, H5E_BADVALUE, "no name specified");
    where w = {
        .name = group_name, .by_idx = true, .idx_type = idx_type, .order = order, .n = n, .lapl = lapl};
    return get_info_old(call, loc_id, &w, oinfo, fields);
}

NCP_API herr_t H5Oget_info_by_idx1(hid_t loc_id, const char *group_name, H5_index_t idx_type,
                                   H5_iter_order_t order, hsize_t n, H5O_info1_t *oinfo, hid_t lapl_id)
{
    if (!ncp_serve(loc_id))
        NCP_FORWARD(H5Oget_info_by_idx1, FAIL, loc_id, group_name, idx_type, order, n, oinfo, lapl_id);
    return get_info_by_idx("H5Oget_info_by_idx1", loc_id, group_name, idx_type, order, n, oinfo, H5O_INFO_ALL,
                           lapl_id);
}

NCP_API herr_t H5Oget_info_by_idx2(hid_t loc_id, const char *group_name, H5_index_t idx_type,
                                   H5_iter_order_t order, hsize_t n, H5O_info1_t *oinfo, unsigned fields,
                                   hid_t lapl_id)
{
    if (!ncp_serve(loc_id))
        NCP_FORWARD(H5Oget_info_by_idx2, FAIL, loc_id, group_name, idx_type, order, n, oinfo, fields,
                    lapl_id);
    return get_info_by_idx("H5Oget_info_by_idx2", loc_id, group_name, idx_type, order, n, oinfo, fields,
                           lapl_id);
}

/* ---- visits: the application's H5O_iterate1_t behind an H5O_iterate2_t, as HDF5's
 * H5O__iterate1_adapter: the data model's fields from the visit, the native ones asked for
 * each object by its name relative to the object visited from ---- */

typedef struct obj_shim {
    const char *call;
    H5O_iterate1_t op;
    void *op_data;
    unsigned fields;
} obj_shim;

static herr_t obj_shim_cb(hid_t obj, const char *name, const H5O_info2_t *info2, void *data)
{
    const obj_shim *s = data;
    H5O_info1_t info1;
    info1_reset(&info1);
    if ((s->fields & DM_FIELDS) && info1_from_dm(&info1, info2, s->fields) < 0)
        return H5_ITER_ERROR;
    unsigned nat = native_fields(s->fields);
    if (nat) {
        H5O_native_info_t ninfo;
        if (H5Oget_native_info_by_name(obj, name, &ninfo, nat, H5P_DEFAULT) < 0) {
            NCP_PUSH_AS(s->call, H5E_OHDR, H5E_CANTGET, "can't get native info for object \"%s\"", name);
            return H5_ITER_ERROR;
        }
        info1_from_native(&info1, &ninfo, s->fields);
    }
    return s->op(obj, name, &info1, s->op_data);
}

static herr_t visit_old(const char *call, hid_t loc_id, const char *obj_name, H5_index_t idx_type,
                        H5_iter_order_t order, H5O_iterate1_t op, void *op_data, unsigned fields,
                        hid_t lapl_id)
{
    if (!op)
        return NCP_PUSH_AS(call, H5E_ARGS, H5E_BADVALUE, "no callback operator specified");
    if (fields & ~(unsigned)H5O_INFO_ALL)
        return NCP_PUSH_AS(call, H5E_ARGS, H5E_BADVALUE, "invalid fields");
    obj_shim s = {call, op, op_data, fields};
    /* H5Ovisit3 reports its own failures and the operator's return value, as HDF5's does */
    if (!obj_name)
        return H5Ovisit3(loc_id, idx_type, order, obj_shim_cb, &s, fields & DM_FIELDS);
    return H5Ovisit_by_name3(loc_id, obj_name, idx_type, order, obj_shim_cb, &s, fields & DM_FIELDS, lapl_id);
}

NCP_API herr_t H5Ovisit1(hid_t obj_id, H5_index_t idx_type, H5_iter_order_t order, H5O_iterate1_t op,
                         void *op_data)
{
    if (!ncp_serve(obj_id))
        NCP_FORWARD(H5Ovisit1, FAIL, obj_id, idx_type, order, op, op_data);
    return visit_old("H5Ovisit1", obj_id, NULL, idx_type, order, op, op_data, H5O_INFO_ALL, H5P_DEFAULT);
}

NCP_API herr_t H5Ovisit2(hid_t obj_id, H5_index_t idx_type, H5_iter_order_t order, H5O_iterate1_t op,
                         void *op_data, unsigned fields)
{
    if (!ncp_serve(obj_id))
        NCP_FORWARD(H5Ovisit2, FAIL, obj_id, idx_type, order, op, op_data, fields);
    return visit_old("H5Ovisit2", obj_id, NULL, idx_type, order, op, op_data, fields, H5P_DEFAULT);
}

NCP_API herr_t H5Ovisit_by_name1(hid_t loc_id, const char *obj_name, H5_index_t idx_type,
                                 H5_iter_order_t order, H5O_iterate1_t op, void *op_data, hid_t lapl_id)
{
    if (!ncp_serve(loc_id))
        NCP_FORWARD(H5Ovisit_by_name1, FAIL, loc_id, obj_name, idx_type, order, op, op_data, lapl_id);
    if (!obj_name || !*obj_name)
        return NCP_PUSH(H5E_ARGS, H5E_BADVALUE, "no object name specified");
    return visit_old("H5Ovisit_by_name1", loc_id, obj_name, idx_type, order, op, op_data, H5O_INFO_ALL,
                     lapl_id);
}

NCP_API herr_t H5Ovisit_by_name2(hid_t loc_id, const char *obj_name, H5_index_t idx_type,
                                 H5_iter_order_t order, H5O_iterate1_t op, void *op_data, unsigned fields,
                                 hid_t lapl_id)
{
    if (!ncp_serve(loc_id))
        NCP_FORWARD(H5Ovisit_by_name2, FAIL, loc_id, obj_name, idx_type, order, op, op_data, fields, lapl_id);
    if (!obj_name || !*obj_name)
        return NCP_PUSH(H5E_ARGS, H5E_BADVALUE, "no object name specified");
    return visit_old("H5Ovisit_by_name2", loc_id, obj_name, idx_type, order, op, op_data, fields, lapl_id);
}

#endif /* H5_NO_DEPRECATED_SYMBOLS */
