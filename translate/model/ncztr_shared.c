/* HDF5 objects the arrays of one file share by reference count instead of a copy each:
 * with 100000 arrays, the copies cost more than the rest of setting the arrays up. */
#include "ncztr_array_internal.h"

#include <stdio.h>
#include <string.h>

/* The HDF5 type of a plain dtype, shared by the file's arrays of that dtype: a new
 * reference to it. */
hid_t ncztr_shared_type(ncztr_file *f, const ncztr_dtype *dt)
{
    for (size_t i = 0; i < f->ntypes; i++)
        if (strcmp(f->types[i].dtype, dt->zarr) == 0)
            return H5Iinc_ref(f->types[i].type) < 0 ? H5I_INVALID_HID : f->types[i].type;
    hid_t t = ncztr_dtype_to_hdf5(dt);
    if (t < 0 || f->ntypes == sizeof f->types / sizeof f->types[0] || H5Iinc_ref(t) < 0)
        return t;
    snprintf(f->types[f->ntypes].dtype, sizeof f->types[0].dtype, "%s", dt->zarr);
    f->types[f->ntypes++].type = t;
    return t;
}

/* HDF5's default dataset creation plist, one copy shared by the file's datasets created
 * with it (a new reference): it has no filters, so nothing writes into it, and copying it
 * for each of 100000 datasets cost a quarter of creating them. */
hid_t ncztr_shared_default_dcpl(ncztr_file *f)
{
    if (f->default_dcpl < 0)
        f->default_dcpl = H5Pcopy(H5P_DATASET_CREATE_DEFAULT);
    if (f->default_dcpl < 0 || H5Iinc_ref(f->default_dcpl) < 0)
        return H5I_INVALID_HID;
    return f->default_dcpl;
}
