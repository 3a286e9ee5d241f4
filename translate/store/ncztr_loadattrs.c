/* Loading attributes (.zattrs with NCZarr's "_nczarr_attr" conventions) and a group's
 * shared dimensions into the model; the rest of loading is ncztr_load.c. */
#include "ncztr_array_internal.h"
#include "ncztr_store.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Gives a one-element attribute the dataspace it was written with: kept beside it as [] (a
 * scalar) or [1], or, where nothing was kept (netCDF-C, zarr-python), the one netCDF-4 would
 * give it (ncztr_attr_default_scalar). */
static void single_shape(ncztr_attr *a, const json_t *sh, bool json_list)
{
    bool scalar = sh ? json_array_size(sh) == 0 : ncztr_attr_default_scalar(a->val.type, json_list);
    if (scalar == (H5Sget_simple_extent_type(a->val.space) == H5S_SCALAR))
        return;
    hsize_t one = 1;
    hid_t s = scalar ? H5Screate(H5S_SCALAR) : H5Screate_simple(1, &one, NULL);
    if (s < 0) {
        H5Eclear2(H5E_DEFAULT);
        return;
    }
    H5Sclose(a->val.space);
    a->val.space = s;
}

/* Applies what the connector kept beside an attribute (see ncztr_saveattrs.c): the shape of
 * a rank > 1 attribute, stored flattened, of a 1-D one without elements (which [] alone
 * reads as H5S_NULL) or of a single value, and the character encoding of its name. Anything
 * that does not fit the value (edited by another tool) is ignored: the value stays as [] or
 * a list reads. json_list: the stored value is a JSON list. */
static void attr_extras(ncztr_attr *a, bool json_list, json_t *ashapes, json_t *acsets)
{
    json_t *cs = json_is_object(acsets) ? json_object_get(acsets, a->name) : NULL;
    if (json_is_integer(cs) && json_integer_value(cs) == H5T_CSET_UTF8)
        a->name_cset = H5T_CSET_UTF8;
    if (a->load_error || a->val.space < 0)
        return;
    json_t *sh = json_is_object(ashapes) ? json_object_get(ashapes, a->name) : NULL;
    if (!json_is_array(sh))
        sh = NULL;
    size_t rank = sh ? json_array_size(sh) : 0;
    if (a->val.nelem == 1 && H5Sget_simple_extent_ndims(a->val.space) <= 1 &&
        (!sh || rank == 0 || (rank == 1 && json_integer_value(json_array_get(sh, 0)) == 1))) {
        single_shape(a, sh, json_list);
        return;
    }
    if (rank < 1 || rank > H5S_MAX_RANK || (rank == 1 && a->val.nelem != 0))
        return;
    hsize_t dims[H5S_MAX_RANK];
    uint64_t n = 1;
    for (size_t k = 0; k < rank; k++) {
        json_t *d = json_array_get(sh, k);
        if (!json_is_integer(d) || json_integer_value(d) < 0)
            return;
        dims[k] = (hsize_t)json_integer_value(d);
        if (dims[k] && n > UINT64_MAX / dims[k])
            return;
        n *= dims[k];
    }
    if (n != a->val.nelem)
        return;
    hid_t s = H5Screate_simple((int)rank, dims, NULL);
    if (s < 0) {
        H5Eclear2(H5E_DEFAULT);
        return;
    }
    if (a->val.space >= 0)
        H5Sclose(a->val.space);
    a->val.space = s;
}

/* Fixed-length strings come back as variable-length strings (NCZarr's convention for "|Sn"
 * lists) or as a string of the text's length: made the kept fixed-length type again, its
 * size, padding and character set. The bytes are copied, not converted: HDF5 converts no
 * string between character sets, and the text is what the writer's bytes were. */
static herr_t to_fixed_strings(ncztr_attrval *v, hid_t t, const char *name)
{
    if (H5Tequal(v->type, t) > 0)
        return SUCCEED;
    size_t sz = H5Tget_size(t), srcsz = H5Tget_size(v->type);
    htri_t vl = H5Tis_variable_str(v->type);
    H5T_str_t pad = H5Tget_strpad(t);
    if (H5Tget_class(v->type) != H5T_STRING || vl < 0 || sz == 0 || pad == H5T_STR_ERROR)
        return NCZ_PUSH(NCZ_E_FORMAT, "attribute \"%s\": its value is not text of its kept string type",
                        name);
    char *d = malloc((v->nelem ? v->nelem : 1) * sz);
    hid_t nt = H5Tcopy(t);
    if (!d || nt < 0) {
        free(d);
        if (nt >= 0)
            H5Tclose(nt);
        return NCZ_PUSH(NCZ_E_NOMEM, "out of memory");
    }
    for (size_t i = 0; i < v->nelem; i++) {
        const char *src = vl ? ((char *const *)v->data)[i] : (const char *)v->data + i * srcsz;
        /* a fixed-size source (text decoded from JSON) keeps a NUL inside it (fixed_len in
         * ncztr_attrjson.c): only its trailing NULs are padding */
        size_t n = !src ? 0 : vl ? strlen(src) : srcsz;
        while (src && !vl && n > 0 && src[n - 1] == '\0')
            n--;
        n = n < sz ? n : sz;
        memcpy(d + i * sz, src ? src : "", n);
        memset(d + i * sz + n, pad == H5T_STR_SPACEPAD ? ' ' : 0, sz - n);
    }
    hid_t sp = v->space;
    size_t n = v->nelem;
    v->space = H5I_INVALID_HID;
    ncztr_attrval_clear(v);
    v->type = nt;
    v->space = sp;
    v->nelem = n;
    v->data = d;
    return SUCCEED;
}

/* Variable-length strings read as UTF-8: given the kept type's character set. */
static herr_t same_cset(ncztr_attrval *v, hid_t t, const char *name)
{
    if (H5Tget_class(v->type) != H5T_STRING || H5Tis_variable_str(v->type) <= 0)
        return NCZ_PUSH(NCZ_E_FORMAT, "attribute \"%s\": its value is not text of its kept string type",
                        name);
    H5T_cset_t cs = H5Tget_cset(t);
    if (cs < 0 || H5Tset_cset(v->type, cs) < 0)
        return NCZ_PUSH(NCZ_E_HDF5, "attribute \"%s\": cannot set its character set", name);
    return SUCCEED;
}

/* What the store has for an attribute that cannot be read, to write it back unchanged
 * (see ncztr_attr.raw). */
static herr_t unreadable_raw(ncztr_attr *a, json_t *val, json_t *type, json_t *ashapes, json_t *atype)
{
    json_t *shape = json_is_object(ashapes) ? json_object_get(ashapes, a->name) : NULL;
    /* copies: the .zattrs tree they come from is not ours to share */
    if (!(a->raw = json_object()) || json_object_set_new(a->raw, "value", json_deep_copy(val)) < 0 ||
        (type && json_object_set_new(a->raw, "type", json_deep_copy(type)) < 0) ||
        (shape && json_object_set_new(a->raw, "ashape", json_deep_copy(shape)) < 0) ||
        (atype && json_object_set_new(a->raw, "atype", json_deep_copy(atype)) < 0))
        return FAIL;
    return SUCCEED;
}

/* ---- attributes holding references ---- */

/* A path in a stored reference -> the id of its object (ids are given by then). */
static herr_t ref_id(void *ctx, const char *path, uint64_t *id)
{
    ncztr_file *f = ctx;
    ncztr_obj *t = path[0] == '/' ? ncztr_find(f->root, path) : NULL;
    if (!t)
        return NCZ_PUSH(NCZ_E_NOTFOUND, "a reference names \"%s\", which is no object of the store", path);
    *id = t->id;
    return SUCCEED;
}

/* The stored paths of a pending attribute become object ids; an attribute they do not fit
 * becomes unreadable, kept as the store has it (a->raw). FAIL only when out of memory. */
static herr_t resolve_refs(ncztr_file *f, ncztr_attr *a)
{
    void *data = NULL;
    size_t mark = ncz_err_mark();
    bool scalar = H5Sget_simple_extent_type(a->val.space) == H5S_SCALAR;
    a->refs_pending = false;
    if (ncztr_refattr_from_json(a->name, json_object_get(a->raw, "value"), scalar, a->val.type, a->val.nelem,
                                ref_id, f, &data) < 0) {
        a->load_error = ncz_err_take_messages(mark);
        if (!a->load_error && !(a->load_error = strdup("its references cannot be read")))
            return NCZ_PUSH(NCZ_E_NOMEM, "out of memory");
        ncztr_attrval_clear(&a->val);
        return SUCCEED;
    }
    free(a->val.data); /* zeros, nothing of its own */
    a->val.data = data;
    json_decref(a->raw);
    a->raw = NULL;
    return SUCCEED;
}

static herr_t resolve_one(ncztr_obj *o, void *ud)
{
    for (size_t i = 0; i < o->nattrs; i++)
        if (o->attrs[i]->refs_pending && resolve_refs(ud, o->attrs[i]) < 0)
            return FAIL;
    return SUCCEED;
}

herr_t ncztr_load_resolve_refs(ncztr_obj *top)
{
    /* only attributes loaded as holding references wait for ids (load_ref_attr) */
    if (!top->file->has_ref_attrs)
        return SUCCEED;
    return ncztr_subtree_walk(top, resolve_one, top->file);
}

/* An attribute whose kept type t holds references: its type and shape now, its value once
 * every object has its id (at once when they have). The JSON stays in a->raw until then.
 * FAIL (with the reason pushed) when the value does not fit: then it is unreadable. */
static herr_t load_ref_attr(ncztr_attr *a, json_t *val, hid_t t, json_t *ashapes)
{
    json_t *sh = json_is_object(ashapes) ? json_object_get(ashapes, a->name) : NULL;
    if ((a->val.type = ncztr_reftype_rebuild(t)) < 0)
        return FAIL;
    bool scalar = ncztr_reftype_elem_is_list(a->val.type) ? json_is_array(sh) && json_array_size(sh) == 0
                                                          : !json_is_array(val);
    if (!scalar && !json_is_array(val))
        return NCZ_PUSH(NCZ_E_FORMAT, "attribute \"%s\": expected a list of values", a->name);
    size_t n = scalar ? 1 : json_array_size(val);
    hsize_t dim = n;
    a->val.space = scalar ? H5Screate(H5S_SCALAR) : n ? H5Screate_simple(1, &dim, NULL) : H5Screate(H5S_NULL);
    if (a->val.space < 0)
        return NCZ_PUSH(NCZ_E_HDF5, "attribute \"%s\": cannot make a dataspace", a->name);
    a->val.nelem = n;
    if (!(a->val.data = calloc(n ? n : 1, H5Tget_size(a->val.type))))
        return NCZ_PUSH(NCZ_E_NOMEM, "out of memory reading attribute \"%s\"", a->name);
    a->refs_pending = true;
    return SUCCEED;
}

/* xarray writes a floating-point variable's "_FillValue" attribute into Zarr v3 metadata
 * as the Base64 of the value as a little-endian float64 ("AAAAAAAA+H8=" is NaN), whatever
 * the variable's float type, and reads it back so (xarray/backends/zarr.py FillValueCoder):
 * so does the connector, giving netCDF and HDF5 programs a number of the variable's type.
 * Returns SUCCEED, or FAIL (nothing pushed) for a value that is not that: then it is read
 * like any other attribute. */
static herr_t xarray_fill(const ncztr_obj *o, json_t *val, ncztr_attrval *out)
{
    const ncztr_zarray *za = o->kind == NCZTR_ARRAY && o->arr ? &o->arr->za : NULL;
    unsigned char buf[16];
    if (!za || !json_is_string(val) || za->complex || za->dtype.tclass != NCZTR_T_FLOAT ||
        ncztr_b64_decode(json_string_value(val), json_string_length(val), buf, sizeof buf) != 8)
        return FAIL;
    out->type = ncztr_dtype_to_hdf5(&za->dtype);
    out->space = H5Screate(H5S_SCALAR);
    out->data = malloc(sizeof buf);
    out->nelem = 1;
    if (out->type < 0 || out->space < 0 || !out->data ||
        H5Tconvert(H5T_IEEE_F64LE, out->type, 1, buf, NULL, H5P_DEFAULT) < 0) {
        ncztr_attrval_clear(out);
        H5Eclear2(H5E_DEFAULT);
        return FAIL;
    }
    memcpy(out->data, buf, za->dtype.size);
    ncztr_attrval_note_parts(out);
    return SUCCEED;
}

/* netCDF-4's classic-model flag, kept as "_nczarr_attr.hdf5.nc3_strict" (netCDF-C's own
 * NCZarr would list an attribute of that name): the scalar int attribute netCDF-C writes
 * into the root group of a classic-model file and looks for when it opens one. */
static herr_t add_nc3_strict(ncztr_obj *o)
{
    int one = 1;
    ncztr_attr *a = calloc(1, sizeof *a);
    if (!a)
        return NCZ_PUSH(NCZ_E_NOMEM, "out of memory");
    a->refcount = 1;
    a->val.nelem = 1;
    a->name = strdup("_nc3_strict");
    a->val.type = H5Tcopy(H5T_NATIVE_INT);
    a->val.space = H5Screate(H5S_SCALAR);
    a->val.data = malloc(sizeof one);
    if (!a->name || a->val.type < 0 || a->val.space < 0 || !a->val.data) {
        ncztr_attr_unref(a); /* never appended: its only reference */
        return NCZ_PUSH(NCZ_E_NOMEM, "out of memory");
    }
    memcpy(a->val.data, &one, sizeof one);
    if (ncztr_attr_append(o, a) < 0) {
        ncztr_attr_unref(a); /* never appended: its only reference */
        return FAIL;
    }
    return SUCCEED;
}

/* Adds the user attributes of a .zattrs object to a node (skipping NCZarr's own keys).
 * types = the _nczarr_attr.types object or NULL. */
herr_t ncztr_load_attrs(ncztr_obj *o, json_t *zattrs, const char *key)
{
    herr_t ret = SUCCEED;
    if (!zattrs)
        return SUCCEED;
    json_t *types = NULL, *atypes = NULL, *ashapes = NULL, *acsets = NULL;
    json_t *na = json_object_get(zattrs, "_nczarr_attr");
    if (na) {
        if (!json_is_object(na))
            NCZ_GOTO(FAIL, NCZ_E_FORMAT, "%s: \"_nczarr_attr\" must be a JSON object", key);
        types = json_object_get(na, "types");
        if (types && !json_is_object(types))
            NCZ_GOTO(FAIL, NCZ_E_FORMAT, "%s: \"_nczarr_attr.types\" must be a JSON object", key);
        /* HDF5 settings NCZarr has no place for (kept by the connector, opaque here) */
        json_t *h5 = json_object_get(na, "hdf5");
        atypes = json_is_object(h5) ? json_object_get(h5, "atypes") : NULL;
        if (!json_is_object(atypes))
            atypes = NULL;
        ashapes = json_is_object(h5) ? json_object_get(h5, "ashapes") : NULL;
        acsets = json_is_object(h5) ? json_object_get(h5, "acsets") : NULL;
        if (json_is_object(h5)) {
            json_decref(o->hdf5);
            o->hdf5 = json_deep_copy(h5);
        }
    }
    const char *name;
    json_t *val;
    json_object_foreach(zattrs, name, val)
    {
        if (strcmp(name, "_NCProperties") == 0 && !o->parent) {
            if (json_is_string(val)) {
                free(o->file->ncproperties);
                o->file->ncproperties = strdup(json_string_value(val));
            }
            continue;
        }
        if (strcmp(name, "_nczarr_maxstrlen") == 0 && o->arr) {
            if (json_is_integer(val) && json_integer_value(val) > 0)
                o->arr->maxstrlen = (size_t)json_integer_value(val);
            continue;
        }
        if (strcmp(name, "_nczarr_default_maxstrlen") == 0 && !o->parent) {
            if (json_is_integer(val) && json_integer_value(val) > 0)
                o->file->default_maxstrlen = (size_t)json_integer_value(val);
            continue;
        }
        if (ncztr_attr_is_reserved(name))
            continue;
        json_t *type = types ? json_object_get(types, name) : NULL;
        ncztr_attr *a = calloc(1, sizeof *a);
        NCZ_CHECK_ALLOC(a, FAIL);
        a->refcount = 1;
        a->val.type = a->val.space = H5I_INVALID_HID;
        a->name = strdup(name);
        if (!a->name) {
            free(a);
            NCZ_GOTO(FAIL, NCZ_E_NOMEM, "out of memory");
        }
        herr_t got = FAIL;
        bool refs = false;
        json_t *kt = atypes ? json_object_get(atypes, name) : NULL;
        size_t mark = ncz_err_mark();
        if (json_is_string(kt)) {
            /* an enum/compound/array attribute, or one holding references: its exact HDF5
             * type was kept */
            hid_t t = ncztr_type_decode(json_string_value(kt), name);
            refs = t >= 0 && ncztr_type_has_path_ref(t);
            if (refs) {
                got = load_ref_attr(a, val, t, ashapes);
                o->file->has_ref_attrs = true;
            } else if (t >= 0 && ncztr_cattr_is_special(t)) {
                json_t *sh = json_is_object(ashapes) ? json_object_get(ashapes, name) : NULL;
                got = ncztr_cattr_from_json(name, val, t, json_is_array(sh) && json_array_size(sh) == 0,
                                            &a->val);
            } else if (t >= 0 && H5Tget_class(t) == H5T_STRING) {
                got = ncztr_attr_decode(name, val, type, &a->val);
                if (got >= 0 && (got = H5Tis_variable_str(t) == 0 ? to_fixed_strings(&a->val, t, name)
                                                                  : same_cset(&a->val, t, name)) < 0)
                    ncztr_attrval_clear(&a->val);
            }
            if (t >= 0)
                H5Tclose(t);
            if (got < 0 && !refs)
                H5Eclear2(H5E_DEFAULT); /* read as if the type had not been kept */
        }
        if (refs && got < 0)
            ncztr_attrval_clear(&a->val); /* the reason is on the stack, from mark on */
        if (got < 0 && !refs && o->file->zarr_format == 3 && !strcmp(name, "_FillValue"))
            got = xarray_fill(o, val, &a->val);
        /* the paths wait in raw for the objects' ids (at once when there are ids) */
        if (refs && got >= 0 &&
            (unreadable_raw(a, val, type, ashapes, kt) < 0 ||
             (o->file->ids_live && !o->file->reading_pending && resolve_refs(o->file, a) < 0))) {
            ncztr_attr_unref(a); /* never appended: its only reference */
            NCZ_GOTO(FAIL, NCZ_E_NOMEM, "out of memory");
        }
        if (got < 0 && (refs || ncztr_attr_decode(name, val, type, &a->val) < 0)) {
            /* One unreadable attribute must not make the object unreadable: it is kept with
             * its message (opening it fails with it) and written back as it was. */
            a->load_error = ncz_err_take_messages(mark);
            if (!a->load_error)
                a->load_error = strdup("its value does not fit its type");
            if (!a->load_error || unreadable_raw(a, val, type, ashapes, kt) < 0) {
                ncztr_attr_unref(a); /* never appended: its only reference */
                NCZ_GOTO(FAIL, NCZ_E_NOMEM, "out of memory");
            }
        }
        attr_extras(a, json_is_array(val), ashapes, acsets);
        if (ncztr_attr_append(o, a) < 0) {
            ncztr_attr_unref(a); /* never appended: its only reference */
            NCZ_GOTO_QUIET(FAIL);
        }
    }
    if (!o->parent && o->hdf5 && json_is_integer(json_object_get(o->hdf5, "nc3_strict")) &&
        !ncztr_attr_find(o, "_nc3_strict") && add_nc3_strict(o) < 0)
        NCZ_GOTO_QUIET(FAIL);
done:
    return ret;
}

/* Parses `_nczarr_group.dimensions`: {"x": 4, "t": {"size": 3, "unlimited": 1}}. Older
 * writers used a list of {"name":..,"size":..} objects; accept both. */
herr_t ncztr_load_dims(ncztr_obj *g, json_t *dims, const char *key)
{
    herr_t ret = SUCCEED;
    if (!dims)
        return SUCCEED;
    size_t n = json_is_object(dims)  ? json_object_size(dims)
               : json_is_array(dims) ? json_array_size(dims)
                                     : 0;
    if (!json_is_object(dims) && !json_is_array(dims))
        NCZ_GOTO(FAIL, NCZ_E_FORMAT, "%s: \"_nczarr_group.dimensions\" must be an object", key);
    g->dims = calloc(n ? n : 1, sizeof *g->dims);
    NCZ_CHECK_ALLOC(g->dims, FAIL);
    g->dims_cap = n ? n : 1;
    const char *name;
    json_t *v;
    size_t i = 0;
    if (json_is_object(dims)) {
        json_object_foreach(dims, name, v)
        {
            json_t *sz = v, *un = NULL;
            if (json_is_object(v)) {
                sz = json_object_get(v, "size");
                un = json_object_get(v, "unlimited");
            }
            if (!json_is_integer(sz) || json_integer_value(sz) < 0)
                NCZ_GOTO(FAIL, NCZ_E_FORMAT, "%s: dimension \"%s\" has no valid size", key, name);
            g->dims[i].name = strdup(name);
            NCZ_CHECK_ALLOC(g->dims[i].name, FAIL);
            g->dims[i].size = (uint64_t)json_integer_value(sz);
            g->dims[i].unlimited =
                un && ((json_is_integer(un) && json_integer_value(un)) || json_is_true(un));
            g->ndims = ++i;
        }
    } else {
        json_array_foreach(dims, i, v)
        {
            json_t *nm = json_object_get(v, "name"), *sz = json_object_get(v, "size");
            if (!json_is_string(nm) || !json_is_integer(sz) || json_integer_value(sz) < 0)
                NCZ_GOTO(FAIL, NCZ_E_FORMAT, "%s: dimension entry %zu is malformed", key, i);
            g->dims[i].name = strdup(json_string_value(nm));
            NCZ_CHECK_ALLOC(g->dims[i].name, FAIL);
            g->dims[i].size = (uint64_t)json_integer_value(sz);
            g->ndims = i + 1;
        }
    }
done:
    return ret;
}
