/* References in attribute values (H5DS's DIMENSION_LIST and REFERENCE_LIST): the model
 * keeps object ids (translate/types/ncztr_refval.h); these turn the application's
 * H5R_ref_t into ids and back. HDF5 1.14 has no public call that reads the token out of
 * an H5R_ref_t, so a reference is opened (H5Ropen_object reaches object.open BY_TOKEN)
 * and made with H5Rcreate_object on an id registered for the node, which is what H5DS
 * itself does. */
#include "H5VL_nczarr.h"
#include "H5VL_nczarr_native.h"

#include <string.h>

static herr_t ref_in(void *ctx, const H5R_ref_t *ref, uint64_t *id)
{
    H5VL_nczarr_file_t *f = ctx;
    H5R_ref_t r = *ref; /* H5R calls take a non-const pointer */
    H5R_type_t t = H5Rget_type(&r);
    if (t != H5R_OBJECT2)
        return NCZ_PUSH(NCZ_E_NOTREPR, "only object references (H5R_OBJECT2) can be stored, not type %d",
                        (int)t);
    hid_t oid = H5Ropen_object(&r, H5P_DEFAULT, H5P_DEFAULT);
    if (oid < 0)
        return NCZ_PUSH(NCZ_E_ARGS, "a reference names an object that cannot be opened");
    herr_t ret = SUCCEED;
    hid_t cid = H5VL_nczarr_connector_id();
    hid_t ocid = H5VLget_connector_id(oid);
    H5VL_nczarr_obj_t *o = NULL;
    int cmp = 1;
    /* Objects of native HDF5 files opened through this connector have its class too. */
    if (cid >= 0 && ocid >= 0 && H5VLcmp_connector_cls(&cmp, cid, ocid) >= 0 && cmp == 0 &&
        !H5VL_nczarr_id_is_native(oid))
        o = H5VL_nczarr_store_object(oid);
    if (!o || !o->file || o->file->store != f->store || !H5VL_nczarr_node(o))
        ret = NCZ_PUSH(NCZ_E_NOTREPR, "a reference to an object of another file cannot be stored in \"%s\"",
                       f->name);
    else
        *id = ncztr_obj_id(H5VL_nczarr_node(o));
    if (cid >= 0)
        H5VLclose(cid);
    if (ocid >= 0)
        H5VLclose(ocid);
    H5VL_nczarr_drop_id(oid, true);
    return ret;
}

static herr_t ref_out(void *ctx, uint64_t id, H5R_ref_t *ref)
{
    H5VL_nczarr_file_t *f = ctx;
    ncztr_obj *n = ncztr_find_by_id(f->tf, id);
    if (!n) {
        /* The object was deleted: a null reference, as the store will have after a save
         * (H5Ropen_object on it fails, as on a reference to a deleted object in HDF5). */
        memset(ref, 0, sizeof *ref);
        return SUCCEED;
    }
    hid_t loc = H5VL_nczarr_wrap_register(f, n);
    if (loc < 0)
        return FAIL;
    herr_t r = H5Rcreate_object(loc, ".", H5P_DEFAULT, ref);
    H5VL_nczarr_drop_id(loc, true);
    if (r < 0)
        return NCZ_PUSH(NCZ_E_HDF5, "cannot make a reference to \"%s\"", ncztr_obj_name(n));
    return SUCCEED;
}

void H5VL_nczarr_set_refops(H5VL_nczarr_file_t *f)
{
    ncztr_file_set_refops(f->tf, ref_in, ref_out, f);
}
