/* Attribute values (ncztr_attrval): made empty, copied with their variable-length parts and
 * object ids, freed. */
#include "ncztr_refval.h"
#include "ncztr_types.h"

#include <stdlib.h>
#include <string.h>

void ncztr_attrval_init(ncztr_attrval *v)
{
    v->type = H5I_INVALID_HID;
    v->space = H5I_INVALID_HID;
    v->nelem = 0;
    v->data = NULL;
    v->parts = 0;
}

void ncztr_attrval_note_parts(ncztr_attrval *val)
{
    if (val->type < 0 || H5Iis_valid(val->type) <= 0)
        return;
    H5T_class_t c = H5Tget_class(val->type);
    val->parts = 1;
    if (c == H5T_STRING && H5Tis_variable_str(val->type) > 0)
        val->parts = 2;
    else if (c == H5T_VLEN && ncztr_type_has_path_ref(val->type))
        val->parts = 3; /* DIMENSION_LIST: vlen of references, kept as ids */
}

void ncztr_attrval_clear(ncztr_attrval *val)
{
    hid_t errs;

    if (!val)
        return;
    /* Every HDF5 API call clears the default error stack on entry, and this runs in error
     * paths right after a message was pushed: keep the stack aside meanwhile. */
    errs = ncz_err_save();
    /* A store still open when the library shuts down (an application that never released
     * a reference holding the file) is closed after HDF5 closed every type and dataspace:
     * only the memory is freed then. */
    if (val->type >= 0 && H5Iis_valid(val->type) <= 0) {
        val->type = H5I_INVALID_HID;
        for (size_t i = 0; val->data && i < val->nelem; i++)
            if (val->parts == 2)
                free(((char **)val->data)[i]);
            else if (val->parts == 3)
                free(((hvl_t *)val->data)[i].p);
    }
    if (val->space >= 0 && H5Iis_valid(val->space) <= 0)
        val->space = H5I_INVALID_HID;
    if (val->data && val->type >= 0 && ncztr_type_has_parts(val->type))
        ncztr_refval_free(val->type, val->data, val->nelem);
    free(val->data);
    if (val->type >= 0)
        H5Tclose(val->type);
    if (val->space >= 0)
        H5Sclose(val->space);
    ncztr_attrval_init(val);
    ncz_err_restore(errs);
}

herr_t ncztr_attrval_copy(const ncztr_attrval *src, ncztr_attrval *dst)
{
    herr_t ret = SUCCEED;
    ncztr_attrval v;
    size_t size;
    htri_t vl;

    ncztr_attrval_init(&v);
    if (!src || !dst || src->type < 0 || src->space < 0)
        NCZ_GOTO(FAIL, NCZ_E_ARGS, "attribute value copy: invalid arguments");
    if ((v.type = H5Tcopy(src->type)) < 0 || (v.space = H5Scopy(src->space)) < 0)
        NCZ_GOTO(FAIL, NCZ_E_HDF5, "attribute value copy: cannot copy type or dataspace");
    vl = H5Tget_class(src->type) == H5T_STRING ? H5Tis_variable_str(src->type) : 0;
    if (vl < 0)
        NCZ_GOTO(FAIL, NCZ_E_HDF5, "attribute value copy: H5Tis_variable_str failed");
    size = vl ? sizeof(char *) : H5Tget_size(src->type);
    if (size == 0)
        NCZ_GOTO(FAIL, NCZ_E_HDF5, "attribute value copy: H5Tget_size failed");
    v.nelem = src->nelem;
    if (src->nelem && !src->data)
        NCZ_GOTO(FAIL, NCZ_E_ARGS, "attribute value copy: no data");
    if (!(v.data = calloc(src->nelem ? src->nelem : 1, size)))
        NCZ_GOTO(FAIL, NCZ_E_NOMEM, "out of memory copying an attribute value");
    if (vl) {
        char *const *s = src->data;
        char **d = v.data;
        for (size_t i = 0; i < src->nelem; i++)
            if (s[i] && !(d[i] = strdup(s[i])))
                NCZ_GOTO(FAIL, NCZ_E_NOMEM, "out of memory copying an attribute value");
    } else if (ncztr_type_has_parts(src->type)) {
        /* object ids, variable-length parts */
        if (ncztr_refval_copy(src->type, src->data, v.data, src->nelem, "attribute value copy") < 0)
            NCZ_GOTO_QUIET(FAIL);
    } else if (src->nelem) {
        memcpy(v.data, src->data, src->nelem * size);
    }
    *dst = v;
    ncztr_attrval_init(&v);
done:
    ncztr_attrval_clear(&v);
    return ret;
}
