/* The old-style references (HDF5 1.14's src/H5Rdeprec.c): H5Rcreate, H5Rdereference1 and 2,
 * H5Rget_obj_type1 and 2, H5Rget_region, H5Rget_name. h5py makes and follows object
 * references with them (obj.ref, f[ref], h5r.get_obj_type, h5r.get_name), PyTables
 * dereferences with H5Rdereference2.
 *
 * An object reference (hobj_ref_t, 8 bytes) holds the first 8 bytes of the object's token,
 * as HDF5's H5R__encode_token_obj_compat copies a native token's bytes: so a store object's
 * reference is its id, an address in the sense of H5VL_nczarr_preload.h, and all zero is the
 * null reference, which names no object. Region references (H5R_DATASET_REGION) are kept in
 * native HDF5's global heap, which no other connector's file has: every call refuses them
 * with a message saying so (HDF5's own H5Rget_name would read the file as a native one). */
#include "H5VL_nczarr_preload.h"

#include <string.h>

#define REF_BYTES sizeof(hobj_ref_t)

/* The message for a region reference on a non-native object; FAIL. */
static herr_t region_refused(const char *call, hid_t id)
{
    char conn[64] = "";
    if (H5VLget_connector_name(id, conn, sizeof conn) < 0)
        strcpy(conn, "?");
    return NCP_PUSH_AS(call, H5E_REFERENCE, H5E_UNSUPPORTED,
                       "region references (H5R_DATASET_REGION) are kept in native HDF5's global heap, "
                       "which a file of the VOL connector \"%s\" does not have: only object references "
                       "(H5R_OBJECT) are supported",
                       conn);
}

/* The type check every call shares: FAIL (pushed) for a region reference or another type. */
static herr_t object_ref_only(const char *call, hid_t id, H5R_type_t ref_type)
{
    if (ref_type == H5R_DATASET_REGION1)
        return region_refused(call, id);
    if (ref_type != H5R_OBJECT1)
        return NCP_PUSH_AS(call, H5E_ARGS, H5E_BADVALUE, "invalid reference type");
    return SUCCEED;
}

/* The object a reference names, opened through loc; FAIL (pushed) for a null reference or
 * one that names no object. */
static hid_t open_ref(hid_t loc, const char *call, H5R_type_t ref_type, const void *ref)
{
    if (!ref) {
        NCP_PUSH_AS(call, H5E_ARGS, H5E_BADVALUE, "invalid reference pointer");
        return H5I_INVALID_HID;
    }
    if (object_ref_only(call, loc, ref_type) < 0)
        return H5I_INVALID_HID;
    static const unsigned char zero[REF_BYTES];
    if (memcmp(ref, zero, REF_BYTES) == 0) {
        NCP_PUSH_AS(call, H5E_REFERENCE, H5E_CANTOPENOBJ, "a null reference names no object");
        return H5I_INVALID_HID;
    }
    H5O_token_t token;
    memset(&token, 0, sizeof token);
    memcpy(token.__data, ref, REF_BYTES);
    hid_t id = H5Oopen_by_token(loc, token);
    if (id < 0) {
        haddr_t addr = HADDR_UNDEF;
        ncp_token_to_addr(&token, &addr);
        NCP_PUSH_AS(call, H5E_REFERENCE, H5E_CANTOPENOBJ,
                    "unable to open the object the reference names (address %llu): it was deleted, or the "
                    "reference belongs to another file",
                    (unsigned long long)addr);
    }
    return id;
}

NCP_API herr_t H5Rcreate(void *ref, hid_t loc_id, const char *name, H5R_type_t ref_type, hid_t space_id)
{
    if (!ncp_serve(loc_id))
        NCP_FORWARD(H5Rcreate, FAIL, ref, loc_id, name, ref_type, space_id);
    if (!ref)
        return NCP_PUSH(H5E_ARGS, H5E_BADVALUE, "invalid reference pointer");
    if (!name || !*name)
        return NCP_PUSH(H5E_ARGS, H5E_BADVALUE, "no name given");
    if (object_ref_only("H5Rcreate", loc_id, ref_type) < 0)
        return FAIL;
    H5O_info2_t info;
    if (H5Oget_info_by_name3(loc_id, name, &info, H5O_INFO_BASIC, H5P_DEFAULT) < 0)
        return NCP_PUSH(H5E_REFERENCE, H5E_CANTGET, "unable to retrieve object token of \"%s\"", name);
    haddr_t addr;
    if (ncp_token_to_addr(&info.token, &addr) < 0)
        return FAIL;
    memcpy(ref, info.token.__data, REF_BYTES);
    return SUCCEED;
}

NCP_API hid_t H5Rdereference2(hid_t obj_id, hid_t oapl_id, H5R_type_t ref_type, const void *ref)
{
    if (!ncp_serve(obj_id))
        NCP_FORWARD(H5Rdereference2, H5I_INVALID_HID, obj_id, oapl_id, ref_type, ref);
    if (oapl_id < 0) {
        NCP_PUSH(H5E_ARGS, H5E_BADTYPE, "not a property list");
        return H5I_INVALID_HID;
    }
    /* H5Oopen_by_token takes no access list: the object opens with the defaults */
    return open_ref(obj_id, "H5Rdereference2", ref_type, ref);
}

/* The object type of what a reference names; H5O_TYPE_UNKNOWN and FAIL (pushed) when it
 * cannot be opened. */
static herr_t ref_obj_type(hid_t id, const char *call, H5R_type_t ref_type, const void *ref, H5O_type_t *type)
{
    hid_t obj = open_ref(id, call, ref_type, ref);
    if (obj < 0)
        return FAIL;
    H5O_info2_t info;
    herr_t ret = SUCCEED;
    if (H5Oget_info3(obj, &info, H5O_INFO_BASIC) < 0)
        ret = NCP_PUSH_AS(call, H5E_REFERENCE, H5E_CANTGET, "can't retrieve object type");
    else if (type)
        *type = info.type;
    ncp_close_keep(obj);
    return ret;
}

NCP_API herr_t H5Rget_obj_type2(hid_t id, H5R_type_t ref_type, const void *ref, H5O_type_t *obj_type)
{
    if (!ncp_serve(id))
        NCP_FORWARD(H5Rget_obj_type2, FAIL, id, ref_type, ref, obj_type);
    return ref_obj_type(id, "H5Rget_obj_type2", ref_type, ref, obj_type);
}

NCP_API hid_t H5Rget_region(hid_t id, H5R_type_t ref_type, const void *ref)
{
    if (!ncp_serve(id))
        NCP_FORWARD(H5Rget_region, H5I_INVALID_HID, id, ref_type, ref);
    if (!ref)
        NCP_PUSH(H5E_ARGS, H5E_BADVALUE, "invalid reference pointer");
    else if (ref_type != H5R_DATASET_REGION1)
        NCP_PUSH(H5E_ARGS, H5E_BADVALUE, "invalid reference type");
    else
        region_refused("H5Rget_region", id);
    return H5I_INVALID_HID;
}

NCP_API ssize_t H5Rget_name(hid_t id, H5R_type_t ref_type, const void *ref, char *name, size_t size)
{
    if (!ncp_serve(id))
        NCP_FORWARD(H5Rget_name, -1, id, ref_type, ref, name, size);
    /* HDF5's own asks the connector for the name of the token (fine for object references)
     * but reads a region reference as a native file's: the object's own name, from the
     * object opened, answers both ways alike */
    hid_t obj = open_ref(id, "H5Rget_name", ref_type, ref);
    if (obj < 0)
        return -1;
    ssize_t len = H5Iget_name(obj, name, size);
    if (len < 0)
        NCP_PUSH(H5E_REFERENCE, H5E_CANTGET, "can't retrieve object name");
    ncp_close_keep(obj);
    return len;
}

#ifndef H5_NO_DEPRECATED_SYMBOLS

NCP_API hid_t H5Rdereference1(hid_t obj_id, H5R_type_t ref_type, const void *ref)
{
    if (!ncp_serve(obj_id))
        NCP_FORWARD(H5Rdereference1, H5I_INVALID_HID, obj_id, ref_type, ref);
    return open_ref(obj_id, "H5Rdereference1", ref_type, ref);
}

NCP_API H5G_obj_t H5Rget_obj_type1(hid_t id, H5R_type_t ref_type, const void *ref)
{
    if (!ncp_serve(id))
        NCP_FORWARD(H5Rget_obj_type1, H5G_UNKNOWN, id, ref_type, ref);
    H5O_type_t type = H5O_TYPE_UNKNOWN;
    if (ref_obj_type(id, "H5Rget_obj_type1", ref_type, ref, &type) < 0)
        return H5G_UNKNOWN;
    /* as HDF5's H5G_map_obj_type */
    switch (type) {
    case H5O_TYPE_GROUP:
        return H5G_GROUP;
    case H5O_TYPE_DATASET:
        return H5G_DATASET;
    case H5O_TYPE_NAMED_DATATYPE:
        return H5G_TYPE;
    default:
        return H5G_UNKNOWN;
    }
}

#endif /* H5_NO_DEPRECATED_SYMBOLS */
