/* Committed (named) datatypes. Zarr has no object that is only a type: a committed
 * datatype is kept as an array of that type with no elements (a null dataspace), marked
 * "_nczarr_array.hdf5_datatype" and listed apart from the arrays netCDF-C reads (as
 * structured ones are), so that its name, its attributes and its exact HDF5 type are kept
 * by what every array already has. Other Zarr readers see an empty array. */
#include "ncztr_array_internal.h"

static herr_t make(ncztr_file *f, ncztr_obj *parent, const char *name, hid_t type, ncztr_obj **out)
{
    const char *what = name ? name : "(anonymous)";
    if (f->opts.pure_zarr)
        return NCZ_PUSH(
            NCZ_E_NOTREPR,
            "cannot commit datatype \"%s\": a committed datatype needs the NCZarr metadata, which "
            "pure Zarr (mode=zarr) has not",
            what);
    hid_t sp = H5Screate(H5S_NULL);
    if (sp < 0)
        return NCZ_PUSH(NCZ_E_HDF5, "cannot commit datatype \"%s\": cannot make a dataspace", what);
    herr_t r = parent ? ncztr_array_create(parent, name, type, sp, H5P_DATASET_CREATE_DEFAULT,
                                           H5P_DATASET_ACCESS_DEFAULT, out)
                      : ncztr_array_create_anon(f, type, sp, H5P_DATASET_CREATE_DEFAULT,
                                                H5P_DATASET_ACCESS_DEFAULT, out);
    H5Sclose(sp);
    if (r < 0)
        return NCZ_PUSH(NCZ_E_NOTREPR, "cannot commit datatype \"%s\": its type has no Zarr form", what);
    (*out)->arr->is_datatype = true;
    (*out)->arr->nc_hidden = true;
    return SUCCEED;
}

herr_t ncztr_datatype_create(ncztr_obj *parent, const char *name, hid_t type, ncztr_obj **out)
{
    return make(parent->file, parent, name, type, out);
}

herr_t ncztr_datatype_create_anon(ncztr_file *f, hid_t type, ncztr_obj **out)
{
    return make(f, NULL, NULL, type, out);
}

bool ncztr_obj_is_datatype(const ncztr_obj *o)
{
    if (!o || o->kind != NCZTR_ARRAY)
        return false;
    /* a committed datatype is listed with the arrays netCDF-C must not see: one listed with
     * the others is a dataset, told without reading its metadata (a walk over 100000
     * arrays asks this of each) */
    if (o->arr && o->arr->stub && !o->arr->nc_hidden)
        return false;
    if (ncztr_obj_load(o) < 0)
        return false;
    return o->arr && o->arr->is_datatype;
}
