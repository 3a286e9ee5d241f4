/* Tree and attribute operations of the in-memory model, above its objects (ncztr_obj.c)
 * and lookups (ncztr_lookup.c): groups made, links resolved and removed, attributes made,
 * written, read, renamed and deleted, values converted (no store I/O except unlink, which
 * removes keys). */
#include "ncztr_format.h"
#include "ncztr_model_internal.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

herr_t ncztr_group_set_order(ncztr_obj *g, const json_t *names)
{
    size_t n = json_is_array(names) ? json_array_size(names) : 0, k = 0;
    if (!n || g->nchildren < 2)
        return SUCCEED;
    ncztr_obj **v = malloc(g->nchildren * sizeof *v);
    if (!v)
        return NCZ_PUSH(NCZ_E_NOMEM, "out of memory");
    for (size_t i = 0; i < n; i++) {
        ncztr_obj *c = json_is_string(json_array_get(names, i))
                           ? ncztr_child(g, json_string_value(json_array_get(names, i)))
                           : NULL;
        if (c && c->corder != UINT64_MAX) {
            v[k++] = c;
            c->corder = UINT64_MAX; /* placed */
        }
    }
    for (size_t i = 0; i < g->nchildren; i++) /* the others (a name listed twice or not at all) */
        if (g->children[i]->corder != UINT64_MAX)
            v[k++] = g->children[i];
    for (size_t i = 0; i < g->nchildren; i++) {
        g->children[i] = v[i];
        v[i]->corder = i;
    }
    free(v);
    g->next_child_corder = g->nchildren;
    free(g->child_by_name);
    g->child_by_name = NULL;
    return SUCCEED;
}

herr_t ncztr_resolve_new(ncztr_obj *base, const char *path, bool create_intermediate, ncztr_obj **parent,
                         char **leaf)
{
    herr_t ret = SUCCEED;
    char *copy = strdup(path ? path : "");
    NCZ_CHECK_ALLOC(copy, FAIL);
    ncztr_obj *cur = (copy[0] == '/') ? base->file->root : base;
    /* strip trailing slashes */
    size_t len = strlen(copy);
    while (len > 1 && copy[len - 1] == '/')
        copy[--len] = '\0';
    char *last = strrchr(copy, '/');
    char *name = last ? last + 1 : copy;
    if (last) {
        *last = '\0';
        char *p = copy;
        while (*p) {
            while (*p == '/')
                p++;
            if (!*p)
                break;
            char *e = strchr(p, '/');
            if (e)
                *e = '\0';
            if (strcmp(p, ".") != 0) {
                ncztr_obj *next = ncztr_child(cur, p);
                if (next && next->kind == NCZTR_ALIAS && !(next = ncztr_deref(next, true)))
                    NCZ_GOTO(FAIL, NCZ_E_NOTFOUND, "cannot create \"%s\": \"%s\" names no object", path, p);
                if (!next) {
                    if (!create_intermediate)
                        NCZ_GOTO(FAIL, NCZ_E_NOTFOUND,
                                 "cannot create \"%s\": intermediate group \"%s\" does not exist", path, p);
                    if (ncztr_group_create(cur, p, &next) < 0)
                        NCZ_GOTO_QUIET(FAIL);
                    ncztr_obj_unref(next); /* the tree keeps its own reference */
                } else if (next->kind != NCZTR_GROUP) {
                    NCZ_GOTO(FAIL, NCZ_E_ARGS, "cannot create \"%s\": \"%s\" is not a group", path, p);
                }
                cur = next;
            }
            if (!e)
                break;
            p = e + 1;
        }
    }
    if (cur->kind != NCZTR_GROUP)
        NCZ_GOTO(FAIL, NCZ_E_ARGS, "cannot create \"%s\": the location is not a group", path);
    if (ncztr_check_link_name(name, "link") < 0)
        NCZ_GOTO_QUIET(FAIL);
    if (ncztr_child(cur, name))
        NCZ_GOTO(FAIL, NCZ_E_EXISTS, "cannot create \"%s\": a link with that name already exists", path);
    if (cur->anonymous)
        NCZ_GOTO(FAIL, NCZ_E_NOTREPR,
                 "cannot create \"%s\" in an anonymous group: NCZarr stores objects by path, so link the "
                 "group first (H5Olink)",
                 path);
    *parent = cur;
    *leaf = strdup(name);
    NCZ_CHECK_ALLOC(*leaf, FAIL);
done:
    free(copy);
    return ret;
}

herr_t ncztr_group_create(ncztr_obj *parent, const char *name, ncztr_obj **out)
{
    if (parent->file->readonly)
        return NCZ_PUSH(NCZ_E_ARGS, "cannot create group \"%s\": the store is open read-only", name);
    if (ncztr_check_link_name(name, "group") < 0 ||
        ncztr_check_key_room(parent, name, ncztr_meta_key_extra()) < 0)
        return FAIL;
    ncztr_obj *g = ncztr_obj_new(parent->file, NCZTR_GROUP, name);
    if (!g)
        return FAIL;
    if (ncztr_obj_attach(parent, g) < 0) {
        ncztr_obj_unref(g);
        return FAIL;
    }
    g->is_new = g->meta_dirty = g->attrs_dirty = true;
    parent->attrs_dirty = true; /* _nczarr_group.groups changes */
    ncztr_obj_ref(g);           /* one for the tree, one for the caller */
    *out = g;
    return SUCCEED;
}

static void mark_deleted(ncztr_obj *o)
{
    o->deleted = true;
    for (size_t i = 0; i < o->nchildren; i++)
        mark_deleted(o->children[i]);
}

herr_t ncztr_unlink(ncztr_obj *o)
{
    herr_t ret = SUCCEED;
    char *key = NULL;
    void *snap = NULL;
    ncztr_file *f = o->file;
    if (!o->parent)
        NCZ_GOTO(FAIL, NCZ_E_ARGS, "cannot delete the root group");
    if (o->file->readonly)
        NCZ_GOTO(FAIL, NCZ_E_ARGS, "cannot delete \"%s\": the store is open read-only", o->name);
    if (ncztr_alias_check_unlink(o) < 0 || ncztr_dimscales_materialize(o) < 0)
        NCZ_GOTO_QUIET(FAIL);
    /* the paths datasets of references store, as ids while objects go (file hooks) */
    if (f->hooks.refs_before && f->hooks.refs_before(f, &snap) < 0)
        NCZ_GOTO_QUIET(FAIL);
    if (o->kind == NCZTR_ALIAS) {
        /* an alias owns no keys: only its group's metadata changes */
        o->deleted = true;
        ncztr_obj_detach(o);
        ncztr_obj_unref(o);
        NCZ_GOTO_QUIET(SUCCEED);
    }
    key = ncztr_obj_key(o);
    NCZ_CHECK_ALLOC(key, FAIL);
    if (!o->file->shared_skip && nczm_delete_tree(o->file->map, key) != NCZM_OK)
        NCZ_GOTO(FAIL, NCZ_E_STORE, "cannot delete \"%s\": %s", key, nczm_errmsg(o->file->map));
    mark_deleted(o);
    ncztr_obj_detach(o);
    ncztr_refattrs_touch(o->file); /* references to it become null */
    ncztr_obj_unref(o);            /* the tree's reference */
done:
    if (ret >= 0 && snap) {
        ret = f->hooks.refs_after(f, snap); /* the delete is done: references to it are null */
    } else if (snap) {
        hid_t es = ncz_err_save();
        f->hooks.refs_drop(snap);
        ncz_err_restore(es);
    }
    free(key);
    return ret;
}

size_t ncztr_obj_nattrs(const ncztr_obj *o)
{
    /* out of memory reading them: none can be reached, and the failure is on the stack */
    return ncztr_obj_load_attrs(o) < 0 ? 0 : o->nattrs;
}

/* ---- HDF5 settings ---- */

const char *ncztr_obj_hdf5_get(const ncztr_obj *o, const char *key)
{
    if (ncztr_obj_load(o) < 0)
        return NULL;
    json_t *v = o->hdf5 ? json_object_get(o->hdf5, key) : NULL;
    return json_is_string(v) ? json_string_value(v) : NULL;
}

herr_t ncztr_obj_hdf5_set(ncztr_obj *o, const char *key, const char *value)
{
    if (ncztr_obj_load(o) < 0)
        return FAIL;
    if (!value) {
        if (o->hdf5 && json_object_del(o->hdf5, key) == 0)
            o->attrs_dirty = true;
        return SUCCEED;
    }
    if (!o->hdf5 && !(o->hdf5 = json_object()))
        return NCZ_PUSH(NCZ_E_NOMEM, "out of memory");
    if (json_object_set_new(o->hdf5, key, json_string(value)) < 0)
        return NCZ_PUSH(NCZ_E_NOMEM, "out of memory keeping the HDF5 setting \"%s\" of \"%s\"", key, o->name);
    o->attrs_dirty = true;
    return SUCCEED;
}

/* ---- attributes ---- */

bool ncztr_attr_is_reserved(const char *name)
{
    return strncmp(name, "_nczarr_", 8) == 0 || strcmp(name, "_ARRAY_DIMENSIONS") == 0 ||
           strcmp(name, "_NCProperties") == 0;
}

herr_t ncztr_attr_create(ncztr_obj *o, const char *name, hid_t type, hid_t space, ncztr_attr **out)
{
    herr_t ret = SUCCEED;
    ncztr_attr *a = NULL;
    ncztr_dtype dt;
    if (o->file->readonly)
        NCZ_GOTO(FAIL, NCZ_E_ARGS, "cannot create attribute \"%s\": the store is open read-only", name);
    if (!name || !*name)
        NCZ_GOTO(FAIL, NCZ_E_ARGS, "attribute name is empty");
    /* _NCProperties: netCDF-C writes it on the root group; NCZarr keeps it there too */
    if (ncztr_attr_is_reserved(name) && (o->parent || strcmp(name, "_NCProperties") != 0))
        NCZ_GOTO(FAIL, NCZ_E_ARGS, "attribute name \"%s\" is reserved by NCZarr", name);
    if (ncztr_attr_find(o, name))
        NCZ_GOTO(FAIL, NCZ_E_EXISTS, "attribute \"%s\" already exists", name);
    /* a region reference names a selection HDF5 keeps in its global heap: no path says it */
    if (ncztr_type_has_region_ref(type))
        NCZ_GOTO(FAIL, NCZ_E_NOTREPR,
                 "attribute \"%s\": region references (H5T_STD_REF_DSETREG) cannot be stored in a Zarr store",
                 name);
    if (ncztr_type_has_path_ref(type)) {
        /* kept as the objects' paths with the exact type in "_nczarr_attr", which pure
         * Zarr lacks; H5DS's DIMENSION_LIST and REFERENCE_LIST on datasets stand for
         * dimensions and are never written as attributes */
        bool h5ds = o->kind == NCZTR_ARRAY &&
                    (strcmp(name, "DIMENSION_LIST") == 0 || strcmp(name, "REFERENCE_LIST") == 0);
        if (!h5ds && o->file->opts.pure_zarr)
            NCZ_GOTO(FAIL, NCZ_E_NOTREPR,
                     "attribute \"%s\" holds object references, which pure Zarr (mode=zarr) has no place to "
                     "keep the type of",
                     name);
        if (ncztr_reftype_check(type, name) < 0)
            NCZ_GOTO_QUIET(FAIL);
        if (ncztr_type_has_obj_ref(type) && ncztr_orefs_check_new("attribute", name) < 0)
            NCZ_GOTO_QUIET(FAIL);
        o->file->has_ref_attrs = true;
    } else if (ncztr_cattr_is_special(type)) {
        /* enum/compound/array/sequence/half/raw: every member must have a JSON form */
        if (ncztr_cvalue_check(type, name) < 0)
            NCZ_GOTO_QUIET(FAIL);
    } else if (ncztr_dtype_from_hdf5(type, NCZTR_DEFAULT_MAXSTRLEN, name, &dt) < 0) {
        NCZ_GOTO_QUIET(FAIL);
    }
    int rank = H5Sget_simple_extent_ndims(space);
    if (rank < 0)
        NCZ_GOTO(FAIL, NCZ_E_HDF5, "attribute \"%s\": invalid dataspace", name);
    /* rank > 1: stored flattened, the shape kept in "_nczarr_attr.hdf5.ashapes" */
    if (rank > 1 && o->file->opts.pure_zarr)
        NCZ_GOTO(FAIL, NCZ_E_NOTREPR,
                 "attribute \"%s\" has %d dimensions; pure Zarr attributes (mode=zarr) are one-dimensional "
                 "JSON lists with no place to keep a shape",
                 name, rank);
    hssize_t np = H5Sget_simple_extent_npoints(space);
    if (np < 0)
        NCZ_GOTO(FAIL, NCZ_E_HDF5, "attribute \"%s\": invalid dataspace", name);
    a = calloc(1, sizeof *a);
    NCZ_CHECK_ALLOC(a, FAIL);
    a->refcount = 1;
    a->val.type = a->val.space = H5I_INVALID_HID;
    a->name = strdup(name);
    NCZ_CHECK_ALLOC(a->name, FAIL);
    if ((a->val.type = H5Tcopy(type)) < 0)
        NCZ_GOTO(FAIL, NCZ_E_HDF5, "attribute \"%s\": cannot copy its type", name);
    /* H5S_NULL is kept: it is stored as [] and read back as H5S_NULL */
    if ((a->val.space = H5Scopy(space)) < 0)
        NCZ_GOTO(FAIL, NCZ_E_HDF5, "attribute \"%s\": cannot copy its dataspace", name);
    a->val.nelem = (size_t)np;
    size_t esz = H5Tget_size(type);
    a->val.data = calloc(a->val.nelem ? a->val.nelem : 1, esz);
    NCZ_CHECK_ALLOC(a->val.data, FAIL);
    if (ncztr_attr_append(o, a) < 0)
        NCZ_GOTO_QUIET(FAIL);
    o->attrs_dirty = true;
    ncztr_attr_ref(a);
    *out = a;
    a = NULL;
done:
    if (a)
        ncztr_attr_unref(a); /* its only reference */
    return ret;
}

/* Converts n elements between two HDF5 types, handling variable-length strings (which
 * HDF5 cannot convert to or from fixed-length strings). dst gets n * H5Tget_size(dst_t)
 * bytes. vlen results are malloc'ed. */
static herr_t convert_values(hid_t src_t, const void *src, hid_t dst_t, void *dst, size_t n, const char *what,
                             const void *bkg_init)
{
    herr_t ret = SUCCEED;
    void *tmp = NULL, *bkg = NULL;
    htri_t sv = H5Tis_variable_str(src_t), dv = H5Tis_variable_str(dst_t);
    H5T_class_t sc = H5Tget_class(src_t), dc = H5Tget_class(dst_t);
    size_t ss = H5Tget_size(src_t), ds = H5Tget_size(dst_t);
    if ((sc == H5T_STRING) != (dc == H5T_STRING))
        NCZ_GOTO(FAIL, NCZ_E_ARGS, "%s: cannot convert between string and non-string types", what);
    if (sc == H5T_STRING && (sv > 0 || dv > 0)) {
        for (size_t i = 0; i < n; i++) {
            const char *s;
            size_t sl;
            if (sv > 0) {
                s = ((char *const *)src)[i];
                sl = s ? strlen(s) : 0;
            } else {
                s = (const char *)src + i * ss;
                sl = strnlen(s, ss);
            }
            if (dv > 0) {
                char *c = malloc(sl + 1);
                NCZ_CHECK_ALLOC(c, FAIL);
                if (sl)
                    memcpy(c, s, sl);
                c[sl] = '\0';
                ((char **)dst)[i] = c;
            } else {
                char *d = (char *)dst + i * ds;
                memset(d, 0, ds);
                H5T_str_t pad = H5Tget_strpad(dst_t);
                size_t cp = sl;
                if (pad == H5T_STR_NULLTERM && cp >= ds)
                    cp = ds ? ds - 1 : 0;
                else if (cp > ds)
                    cp = ds;
                if (cp)
                    memcpy(d, s, cp);
                if (pad == H5T_STR_SPACEPAD)
                    memset(d + cp, ' ', ds - cp);
            }
        }
        NCZ_GOTO_QUIET(SUCCEED);
    }
    size_t big = ss > ds ? ss : ds;
    tmp = malloc((n ? n : 1) * big);
    NCZ_CHECK_ALLOC(tmp, FAIL);
    if (n)
        memcpy(tmp, src, n * ss);
    if (H5Tequal(src_t, dst_t) <= 0) {
        bkg = calloc(n ? n : 1, big);
        NCZ_CHECK_ALLOC(bkg, FAIL);
        /* Compound members the source lacks keep the destination's values (as in HDF5). */
        if (bkg_init && n && dc == H5T_COMPOUND)
            memcpy(bkg, bkg_init, n * ds);
        if (H5Tconvert(src_t, dst_t, n, tmp, bkg, H5P_DEFAULT) < 0)
            NCZ_GOTO(FAIL, NCZ_E_HDF5, "%s: HDF5 cannot convert between the stored and the memory type",
                     what);
    }
    if (n)
        memcpy(dst, tmp, n * ds);
done:
    free(tmp);
    free(bkg);
    return ret;
}

herr_t ncztr_convert(hid_t src_t, const void *src, hid_t dst_t, void *dst, size_t n, const char *what)
{
    return convert_values(src_t, src, dst_t, dst, n, what, NULL);
}

herr_t ncztr_convert_bkg(hid_t src_t, const void *src, hid_t dst_t, void *dst, size_t n, const char *what,
                         const void *bkg)
{
    return convert_values(src_t, src, dst_t, dst, n, what, bkg);
}

bool ncztr_convert_needs_bkg(hid_t src_t, hid_t dst_t)
{
    /* HDF5 builds each destination compound element in the background buffer and copies it
     * whole: bytes no source member lands on (members the source lacks, padding) come from
     * the background. */
    if (H5Tget_class(dst_t) != H5T_COMPOUND)
        return false;
    if (H5Tget_class(src_t) != H5T_COMPOUND)
        return true;
    int nd = H5Tget_nmembers(dst_t);
    bool need = nd < 0;
    size_t covered = 0;
    for (int i = 0; i < nd && !need; i++) {
        char *name = H5Tget_member_name(dst_t, (unsigned)i);
        int si = -1;
        if (name) {
            H5E_BEGIN_TRY
            {
                si = H5Tget_member_index(src_t, name);
            }
            H5E_END_TRY
        }
        H5free_memory(name);
        if (si < 0)
            return true;
        hid_t dm = H5Tget_member_type(dst_t, (unsigned)i), sm = H5Tget_member_type(src_t, (unsigned)si);
        need = dm < 0 || sm < 0 || ncztr_convert_needs_bkg(sm, dm);
        covered += dm >= 0 ? H5Tget_size(dm) : 0;
        if (dm >= 0)
            H5Tclose(dm);
        if (sm >= 0)
            H5Tclose(sm);
    }
    return need || covered < H5Tget_size(dst_t);
}

static void free_vlen_strings(hid_t t, void *data, size_t n)
{
    if (data && H5Tis_variable_str(t) > 0)
        for (size_t i = 0; i < n; i++) {
            free(((char **)data)[i]);
            ((char **)data)[i] = NULL;
        }
}

/* Values with variable-length parts other than plain strings (sequences, strings inside
 * compounds or arrays): converted through JSON (ncztr_cvalue_convert). */
static bool has_nested_parts(hid_t type)
{
    return ncztr_cattr_is_special(type) && ncztr_type_has_parts(type);
}

herr_t ncztr_attr_write(ncztr_obj *o, ncztr_attr *a, hid_t mem_type, const void *buf)
{
    if (a->deleted)
        return NCZ_PUSH(NCZ_E_NOTFOUND, "attribute \"%s\" has been deleted", a->name);
    if (o->file->readonly)
        return NCZ_PUSH(NCZ_E_ARGS, "cannot write attribute \"%s\": the store is open read-only", a->name);
    if (a->val.nelem == 0) /* no elements (H5S_NULL): nothing to convert, as in HDF5 */
        return SUCCEED;
    size_t esz = H5Tget_size(a->val.type);
    if (ncztr_type_has_path_ref(a->val.type))
        return ncztr_attr_write_refs(o, a, mem_type, buf);
    void *nd = calloc(a->val.nelem ? a->val.nelem : 1, esz);
    if (!nd)
        return NCZ_PUSH(NCZ_E_NOMEM, "out of memory writing attribute \"%s\"", a->name);
    bool parts = has_nested_parts(a->val.type);
    if ((parts ? ncztr_cvalue_convert(mem_type, buf, a->val.type, nd, a->val.nelem, a->name)
               : convert_values(mem_type, buf, a->val.type, nd, a->val.nelem, a->name, a->val.data)) < 0) {
        free(nd);
        return FAIL;
    }
    if (parts)
        ncztr_refval_free(a->val.type, a->val.data, a->val.nelem);
    else
        free_vlen_strings(a->val.type, a->val.data, a->val.nelem);
    free(a->val.data);
    a->val.data = nd;
    o->attrs_dirty = true;
    if (!o->parent && strcmp(a->name, "_NCProperties") == 0)
        return ncztr_attr_set_ncproperties(o->file, a);
    return SUCCEED;
}

herr_t ncztr_attr_read(const ncztr_obj *o, const ncztr_attr *a, hid_t mem_type, void *buf)
{
    if (a->deleted)
        return NCZ_PUSH(NCZ_E_NOTFOUND, "attribute \"%s\" has been deleted", a->name);
    if (a->val.nelem == 0)
        return SUCCEED;
    if (ncztr_type_has_path_ref(a->val.type))
        return ncztr_attr_read_refs(o, a, mem_type, buf);
    if (has_nested_parts(a->val.type))
        return ncztr_cvalue_convert(a->val.type, a->val.data, mem_type, buf, a->val.nelem, a->name);
    return convert_values(a->val.type, a->val.data, mem_type, buf, a->val.nelem, a->name, buf);
}

herr_t ncztr_attr_delete(ncztr_obj *o, ncztr_attr *a)
{
    if (o->file->readonly)
        return NCZ_PUSH(NCZ_E_ARGS, "cannot delete attribute \"%s\": the store is open read-only", a->name);
    size_t i = ncztr_attr_pos(o, a);
    if (i < o->nattrs) {
        memmove(o->attrs + i, o->attrs + i + 1, (o->nattrs - i - 1) * sizeof *o->attrs);
        o->nattrs--;
        ncztr_index_attr_removed(o, a);
        a->deleted = true;
        if (!o->parent && strcmp(a->name, "_NCProperties") == 0) {
            free(o->file->ncproperties);
            o->file->ncproperties = NULL;
        }
        o->attrs_dirty = true;
        ncztr_attr_unref(a);
        return SUCCEED;
    }
    return NCZ_PUSH(NCZ_E_NOTFOUND, "attribute \"%s\" does not exist", a->name);
}

herr_t ncztr_attr_rename(ncztr_obj *o, ncztr_attr *a, const char *new_name)
{
    if (o->file->readonly)
        return NCZ_PUSH(NCZ_E_ARGS, "cannot rename attribute \"%s\": the store is open read-only", a->name);
    if (!new_name || !*new_name)
        return NCZ_PUSH(NCZ_E_ARGS, "new attribute name is empty");
    if (ncztr_attr_is_reserved(new_name))
        return NCZ_PUSH(NCZ_E_ARGS, "attribute name \"%s\" is reserved by NCZarr", new_name);
    if (ncztr_attr_find(o, new_name))
        return NCZ_PUSH(NCZ_E_EXISTS, "attribute \"%s\" already exists", new_name);
    char *n = strdup(new_name);
    if (!n)
        return NCZ_PUSH(NCZ_E_NOMEM, "out of memory renaming attribute");
    ncztr_index_attr_removed(o, a);
    free(a->name);
    a->name = n;
    ncztr_index_attr_added(o, a);
    o->attrs_dirty = true;
    return SUCCEED;
}
