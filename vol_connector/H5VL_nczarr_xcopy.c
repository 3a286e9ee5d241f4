/* H5Ocopy and H5Lcopy across connectors: from a native HDF5 file to a store, from a store
 * to a native file, and between two stores. Neither side's connector can copy into the
 * other, so the copy is made with the HDF5 API on the application's own ids: each object is
 * read through its side's connector and written through the other's (every call re-enters
 * this connector, which routes it), so nothing here knows how either side keeps anything.
 * What HDF5's H5Ocopy keeps is kept: creation plists (layout, chunks, filters, fill value,
 * creation order), attributes, the hierarchy with its hard links met twice (one copy, a
 * second name), soft and external links (kept, or the objects they name copied with the
 * expand flags), and references, which are made to name the copies. Data moves in blocks of
 * whole chunks (bounded memory; a store's chunk pipeline encodes a block's chunks at once),
 * and a block holding only the fill value is not written. */
#include "H5VL_nczarr.h"
#include "H5VL_nczarr_native.h"
#include "H5VL_nczarr_xcopy.h"
#include "H5VL_nczarr_xcopy_int.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- ids ---- */

typedef struct {
    const void *obj;
    hid_t found;
} find_t;

static herr_t find_cb(hid_t id, void *ud)
{
    find_t *f = ud;
    void *o = NULL;
    H5E_BEGIN_TRY
    {
        o = H5VLobject(id);
    }
    H5E_END_TRY
    if (o && o == f->obj) {
        f->found = id;
        return 1;
    }
    return 0;
}

/* The application's id for an object HDF5 hands a callback (H5Ocopy's locations are ids of
 * the caller, alive while the call runs). */
static hid_t id_of(const void *obj)
{
    /* H5VLobject answers what the connector's get_object does: a native object's own
     * pointer, not its proxy's */
    find_t f = {H5VL_nczarr_get_object(obj), H5I_INVALID_HID};
    (void)H5VL_nczarr_iterate_obj_ids(H5F_OBJ_FILE | H5F_OBJ_GROUP | H5F_OBJ_DATASET | H5F_OBJ_DATATYPE,
                                      find_cb, &f);
    return f.found;
}

static char *name_of(hid_t id)
{
    ssize_t n = H5Iget_name(id, NULL, 0);
    char *s = n > 0 ? malloc((size_t)n + 1) : NULL;
    if (s && H5Iget_name(id, s, (size_t)n + 1) < 0) {
        free(s);
        s = NULL;
    }
    return s;
}

static herr_t remember(xcopy *x, const H5O_token_t *tok, hid_t copy)
{
    if (x->nseen == x->capseen) {
        size_t nc = x->capseen ? 2 * x->capseen : 16;
        xseen *ns = realloc(x->seen, nc * sizeof *ns);
        if (!ns)
            return NCZ_PUSH(NCZ_E_NOMEM, "out of memory copying objects");
        x->seen = ns;
        x->capseen = nc;
    }
    char *p = name_of(copy);
    if (!p)
        return NCZ_PUSH(NCZ_E_HDF5, "copy: cannot get the name of a new object");
    x->seen[x->nseen++] = (xseen){*tok, p};
    return SUCCEED;
}

static const char *seen(const xcopy *x, const H5O_token_t *tok)
{
    for (size_t i = 0; i < x->nseen; i++)
        if (!memcmp(&x->seen[i].tok, tok, sizeof *tok))
            return x->seen[i].dst;
    return NULL;
}

static herr_t defer(xcopy *x, hid_t src, hid_t dst, const char *attr)
{
    if (x->nlater == x->caplater) {
        size_t nc = x->caplater ? 2 * x->caplater : 8;
        xlater *nl = realloc(x->later, nc * sizeof *nl);
        if (!nl)
            return NCZ_PUSH(NCZ_E_NOMEM, "out of memory copying objects");
        x->later = nl;
        x->caplater = nc;
    }
    xlater l = {name_of(src), name_of(dst), attr ? strdup(attr) : NULL};
    if (!l.src || !l.dst || (attr && !l.attr)) {
        free(l.src);
        free(l.dst);
        free(l.attr);
        return NCZ_PUSH(NCZ_E_NOMEM, "out of memory copying objects");
    }
    x->later[x->nlater++] = l;
    return SUCCEED;
}

static bool has_refs(hid_t type)
{
    return H5Tdetect_class(type, H5T_REFERENCE) > 0;
}

/* ---- objects ---- */

/* The type of a copy: the original's (a committed type as the type itself), references as
 * H5T_STD_REF in a store (HDF5's H5DS makes them so for any connector but the native one). */
static hid_t dst_type(const xcopy *x, hid_t t)
{
    return x->dst_store && has_refs(t) ? H5VL_nczarr_xcopy_ref_type(t) : H5Tcopy(t);
}

static bool dobj_is_below_root(hid_t o)
{
    char n[4] = "";
    return H5Iget_name(o, n, sizeof n) > 1;
}

static herr_t copy_attrs(xcopy *x, hid_t so, hid_t dobj)
{
    herr_t ret = SUCCEED;
    H5O_info2_t oi;
    char *name = NULL;
    hid_t sa = H5I_INVALID_HID, da = H5I_INVALID_HID, t = H5I_INVALID_HID, sp = H5I_INVALID_HID,
          acpl = H5I_INVALID_HID;
    char where[512] = "";
    (void)H5Iget_name(so, where, sizeof where);
    if (H5Oget_info3(so, &oi, H5O_INFO_NUM_ATTRS) < 0)
        XFAIL("copy of \"%s\": cannot count its attributes", where);
    H5_index_t idx = H5_INDEX_CRT_ORDER;
    ssize_t probe = -1;
    if (oi.num_attrs > 0) {
        H5E_BEGIN_TRY
        {
            probe = H5Aget_name_by_idx(so, ".", idx, H5_ITER_INC, 0, NULL, 0, H5P_DEFAULT);
        }
        H5E_END_TRY
        if (probe < 0)
            idx = H5_INDEX_NAME;
    }
    for (hsize_t i = 0; i < oi.num_attrs; i++) {
        ssize_t len = H5Aget_name_by_idx(so, ".", idx, H5_ITER_INC, i, NULL, 0, H5P_DEFAULT);
        if (len < 0 || !(name = malloc((size_t)len + 1)) ||
            H5Aget_name_by_idx(so, ".", idx, H5_ITER_INC, i, name, (size_t)len + 1, H5P_DEFAULT) < 0)
            XFAIL("copy of \"%s\": cannot name an attribute", where);
        /* netCDF-C's provenance of a file describes the file, and a store keeps it on its root
         * group only: a root group copied below the root of a store leaves it behind */
        if (x->dst_store && !strcmp(name, "_NCProperties") && !strcmp(where, "/") &&
            dobj_is_below_root(dobj)) {
            free(name), name = NULL;
            continue;
        }
        if ((sa = H5Aopen(so, name, H5P_DEFAULT)) < 0 || (t = H5Aget_type(sa)) < 0 ||
            (sp = H5Aget_space(sa)) < 0 || (acpl = H5Aget_create_plist(sa)) < 0)
            XFAIL("copy of \"%s\": cannot open attribute \"%s\"", where, name);
        hid_t ct = dst_type(x, t);
        if (ct < 0 || (da = H5Acreate2(dobj, name, ct, sp, acpl, H5P_DEFAULT)) < 0) {
            if (ct >= 0)
                H5Tclose(ct);
            XFAIL("copy of \"%s\": cannot create attribute \"%s\" on the copy", where, name);
        }
        H5Tclose(ct);
        if (has_refs(t) ? defer(x, so, dobj, name) : H5VL_nczarr_xcopy_attr_value(x, sa, da, false))
            NCZ_GOTO_QUIET(FAIL);
        H5Aclose(da), da = H5I_INVALID_HID;
        H5Aclose(sa), sa = H5I_INVALID_HID;
        H5Tclose(t), t = H5I_INVALID_HID;
        H5Sclose(sp), sp = H5I_INVALID_HID;
        H5Pclose(acpl), acpl = H5I_INVALID_HID;
        free(name), name = NULL;
    }
done:
    if (da >= 0)
        H5Aclose(da);
    if (sa >= 0)
        H5Aclose(sa);
    if (t >= 0)
        H5Tclose(t);
    if (sp >= 0)
        H5Sclose(sp);
    if (acpl >= 0)
        H5Pclose(acpl);
    free(name);
    return ret;
}

/* A dataset kept in external raw files (H5Pset_external), or a virtual dataset (its values
 * those of other datasets), becomes a contiguous array of the store holding its values: a
 * store has no place for raw files beside it nor for mappings into other files. Closes
 * dcpl; the new list keeps its fill value and fill time. */
static hid_t plain_dcpl(hid_t dcpl, hid_t type, hid_t space)
{
    hid_t n = H5Pcreate(H5P_DATASET_CREATE);
    hsize_t dims[H5S_MAX_RANK], maxd[H5S_MAX_RANK];
    int rank = H5Sget_simple_extent_dims(space, dims, maxd);
    bool unlim = false;
    for (int i = 0; i < rank; i++)
        unlim |= maxd[i] == H5S_UNLIMITED;
    if (unlim && n >= 0) {
        /* an extendible one needs chunks: its extent, the slowest dimension cut to about 4 MiB */
        size_t row = H5Tget_size(type) ? H5Tget_size(type) : 1;
        for (int i = 0; i < rank; i++) {
            dims[i] = dims[i] ? dims[i] : 1;
            if (i > 0)
                row *= (size_t)dims[i];
        }
        if (row * dims[0] > ((size_t)4 << 20))
            dims[0] = row >= ((size_t)4 << 20) ? 1 : ((size_t)4 << 20) / row;
        if (H5Pset_chunk(n, rank, dims) < 0) {
            H5Pclose(n);
            n = H5I_INVALID_HID;
        }
    }
    H5D_fill_value_t fv = H5D_FILL_VALUE_DEFAULT;
    H5D_fill_time_t ft = H5D_FILL_TIME_IFSET;
    size_t esz = H5Tget_size(type);
    void *fill = esz ? calloc(1, esz) : NULL;
    if (n >= 0 && (unlim || H5Pset_layout(n, H5D_CONTIGUOUS) >= 0) && H5Pfill_value_defined(dcpl, &fv) >= 0 &&
        H5Pget_fill_time(dcpl, &ft) >= 0 && H5Pset_fill_time(n, ft) >= 0) {
        if (fv == H5D_FILL_VALUE_USER_DEFINED &&
            (!fill || H5Pget_fill_value(dcpl, type, fill) < 0 || H5Pset_fill_value(n, type, fill) < 0)) {
            H5Pclose(n);
            n = H5I_INVALID_HID;
        }
    } else if (n >= 0) {
        H5Pclose(n);
        n = H5I_INVALID_HID;
    }
    free(fill);
    H5Pclose(dcpl);
    return n;
}

/* The copy of dataset sd as dname at dloc, with its values (or with them later). */
static hid_t copy_dataset(xcopy *x, hid_t sd, hid_t dloc, const char *dname, hid_t lcpl)
{
    hid_t t = H5I_INVALID_HID, ct = H5I_INVALID_HID, sp = H5I_INVALID_HID, dcpl = H5I_INVALID_HID,
          dd = H5I_INVALID_HID;
    herr_t ret = SUCCEED;
    if ((t = H5Dget_type(sd)) < 0 || (ct = dst_type(x, t)) < 0 || (sp = H5Dget_space(sd)) < 0 ||
        (dcpl = H5Dget_create_plist(sd)) < 0)
        XFAIL("copy of dataset \"%s\": cannot describe it", dname);
    bool plain = x->dst_store && (H5Pget_external_count(dcpl) > 0 || H5Pget_layout(dcpl) == H5D_VIRTUAL);
    if (plain && (dcpl = plain_dcpl(dcpl, t, sp)) < 0)
        XFAIL("copy of dataset \"%s\": cannot make its creation property list", dname);
    if ((dd = H5Dcreate2(dloc, dname, ct, sp, lcpl, dcpl, H5P_DEFAULT)) < 0)
        XFAIL("copy of dataset \"%s\"", dname);
    /* a virtual dataset copied as one keeps its sources' values where they are */
    if (H5Pget_layout(dcpl) != H5D_VIRTUAL &&
        (has_refs(t) ? defer(x, sd, dd, NULL) : H5VL_nczarr_xcopy_dataset_values(x, sd, dd, false)) < 0)
        NCZ_GOTO_QUIET(FAIL);
done:
    if (ret < 0 && dd >= 0) {
        H5Dclose(dd);
        dd = H5I_INVALID_HID;
    }
    if (dcpl >= 0)
        H5Pclose(dcpl);
    if (sp >= 0)
        H5Sclose(sp);
    if (ct >= 0)
        H5Tclose(ct);
    if (t >= 0)
        H5Tclose(t);
    return dd;
}

static herr_t copy_object(xcopy *x, hid_t sloc, const char *sname, hid_t dloc, const char *dname, hid_t lcpl,
                          unsigned depth);

typedef struct xlink {
    char *name;
    H5L_info2_t info;
} xlink;

typedef struct {
    xlink *v;
    size_t n, cap;
} xlinks;

static herr_t collect_link(hid_t g, const char *name, const H5L_info2_t *info, void *ud)
{
    (void)g;
    xlinks *l = ud;
    if (l->n == l->cap) {
        size_t nc = l->cap ? 2 * l->cap : 16;
        xlink *nv = realloc(l->v, nc * sizeof *nv);
        if (!nv)
            return -1;
        l->v = nv;
        l->cap = nc;
    }
    if (!(l->v[l->n].name = strdup(name)))
        return -1;
    l->v[l->n++].info = *info;
    return 0;
}

static bool resolves(hid_t g, const char *name)
{
    htri_t r = -1;
    H5E_BEGIN_TRY
    {
        r = H5Oexists_by_name(g, name, H5P_DEFAULT);
    }
    H5E_END_TRY
    return r > 0;
}

/* Recreates a soft or external link of sg as the same link of dg (H5Lcopy's part too). */
static herr_t copy_link_value(hid_t sg, const char *sname, const H5L_info2_t *li, hid_t dg, const char *dname,
                              hid_t lcpl, hid_t lapl)
{
    herr_t ret = SUCCEED;
    char *val = NULL;
    if (li->type != H5L_TYPE_SOFT && li->type != H5L_TYPE_EXTERNAL)
        NCZ_GOTO(FAIL, NCZ_E_UNSUPPORTED, "link \"%s\": user-defined links (class %d) cannot be copied",
                 sname, (int)li->type);
    if (!(val = malloc(li->u.val_size + 1)) ||
        H5Lget_val(sg, sname, val, li->u.val_size + 1, H5P_DEFAULT) < 0)
        XFAIL("copy of link \"%s\": cannot read it", sname);
    if (li->type == H5L_TYPE_SOFT) {
        val[li->u.val_size] = '\0';
        if (H5Lcreate_soft(val, dg, dname, lcpl, lapl) < 0)
            XFAIL("copy of soft link \"%s\" -> \"%s\"", sname, val);
    } else {
        const char *file = NULL, *path = NULL;
        if (H5Lunpack_elink_val(val, li->u.val_size, NULL, &file, &path) < 0 ||
            H5Lcreate_external(file, path, dg, dname, lcpl, lapl) < 0)
            XFAIL("copy of external link \"%s\"", sname);
    }
done:
    free(val);
    return ret;
}

static herr_t copy_members(xcopy *x, hid_t sg, hid_t dg, unsigned depth)
{
    herr_t ret = SUCCEED;
    xlinks l = {NULL, 0, 0};
    hid_t gcpl = H5Gget_create_plist(sg);
    unsigned order = 0;
    if (gcpl >= 0) {
        (void)H5Pget_link_creation_order(gcpl, &order);
        H5Pclose(gcpl);
    }
    H5_index_t idx = (order & H5P_CRT_ORDER_TRACKED) ? H5_INDEX_CRT_ORDER : H5_INDEX_NAME;
    if (H5Literate2(sg, idx, H5_ITER_INC, NULL, collect_link, &l) < 0) {
        char where[512] = "";
        (void)H5Iget_name(sg, where, sizeof where);
        XFAIL("copy of \"%s\": cannot list its members", where);
    }
    for (size_t i = 0; i < l.n; i++) {
        const char *nm = l.v[i].name;
        const H5L_info2_t *li = &l.v[i].info;
        bool expand = li->type == H5L_TYPE_HARD ||
                      (li->type == H5L_TYPE_SOFT && (x->flags & H5O_COPY_EXPAND_SOFT_LINK_FLAG)) ||
                      (li->type == H5L_TYPE_EXTERNAL && (x->flags & H5O_COPY_EXPAND_EXT_LINK_FLAG));
        if (expand && li->type != H5L_TYPE_HARD && !resolves(sg, nm))
            expand = false; /* a dangling link is copied as the link */
        /* an object met again (by another hard link, or by an expanded link) gets a second
         * name, as HDF5's H5Ocopy does */
        H5O_info2_t oi;
        const char *again = NULL;
        if (li->type == H5L_TYPE_HARD)
            again = seen(x, &li->u.token);
        else if (expand && H5Oget_info_by_name3(sg, nm, &oi, H5O_INFO_BASIC, H5P_DEFAULT) >= 0)
            again = seen(x, &oi.token);
        if (again) {
            if (H5Lcreate_hard(x->dst_file, again, dg, nm, H5P_DEFAULT, H5P_DEFAULT) < 0)
                XFAIL("copy: cannot make \"%s\" a second name of \"%s\"", nm, again);
            continue;
        }
        if (expand) {
            if (copy_object(x, sg, nm, dg, nm, H5P_DEFAULT, depth + 1) < 0)
                NCZ_GOTO_QUIET(FAIL);
        } else if (copy_link_value(sg, nm, li, dg, nm, H5P_DEFAULT, H5P_DEFAULT) < 0)
            NCZ_GOTO_QUIET(FAIL);
    }
done:
    for (size_t i = 0; i < l.n; i++)
        free(l.v[i].name);
    free(l.v);
    return ret;
}

static herr_t copy_object(xcopy *x, hid_t sloc, const char *sname, hid_t dloc, const char *dname, hid_t lcpl,
                          unsigned depth)
{
    herr_t ret = SUCCEED;
    H5O_info2_t oi;
    hid_t so = H5I_INVALID_HID, dobj = H5I_INVALID_HID, pl = H5I_INVALID_HID;
    if ((so = H5Oopen(sloc, sname, H5P_DEFAULT)) < 0 || H5Oget_info3(so, &oi, H5O_INFO_BASIC) < 0)
        XFAIL("copy: cannot open \"%s\"", sname);
    switch (oi.type) {
    case H5O_TYPE_GROUP:
        if ((pl = H5Gget_create_plist(so)) < 0 || (dobj = H5Gcreate2(dloc, dname, lcpl, pl, H5P_DEFAULT)) < 0)
            XFAIL("copy of group \"%s\"", sname);
        break;
    case H5O_TYPE_DATASET:
        if ((dobj = copy_dataset(x, so, dloc, dname, lcpl)) < 0)
            NCZ_GOTO_QUIET(FAIL);
        break;
    case H5O_TYPE_NAMED_DATATYPE: {
        hid_t t = H5Tcopy(so); /* transient, until committed on the other side */
        if (t < 0 || (pl = H5Tget_create_plist(so)) < 0 ||
            H5Tcommit2(dloc, dname, t, lcpl, pl, H5P_DEFAULT) < 0) {
            if (t >= 0)
                H5Tclose(t);
            XFAIL("copy of named datatype \"%s\"", sname);
        }
        dobj = t;
        break;
    }
    default:
        NCZ_GOTO(FAIL, NCZ_E_UNSUPPORTED, "copy of \"%s\": objects of type %d cannot be copied", sname,
                 (int)oi.type);
    }
    if (remember(x, &oi.token, dobj) < 0)
        NCZ_GOTO_QUIET(FAIL);
    if (!(x->flags & H5O_COPY_WITHOUT_ATTR_FLAG) && copy_attrs(x, so, dobj) < 0)
        NCZ_GOTO_QUIET(FAIL);
    if (oi.type == H5O_TYPE_GROUP && (depth == 0 || !(x->flags & H5O_COPY_SHALLOW_HIERARCHY_FLAG)) &&
        copy_members(x, so, dobj, depth) < 0)
        NCZ_GOTO_QUIET(FAIL);
done:
    if (pl >= 0)
        H5Pclose(pl);
    if (dobj >= 0)
        H5Oclose(dobj);
    if (so >= 0)
        H5Oclose(so);
    return ret;
}

/* The values holding references, now that every object they may name has its copy. */
static herr_t write_later(xcopy *x)
{
    herr_t ret = SUCCEED;
    for (size_t i = 0; i < x->nlater && ret >= 0; i++) {
        const xlater *l = &x->later[i];
        hid_t so = H5Oopen(x->src_file, l->src, H5P_DEFAULT);
        hid_t dobj = so >= 0 ? H5Oopen(x->dst_file, l->dst, H5P_DEFAULT) : H5I_INVALID_HID;
        hid_t sa = H5I_INVALID_HID, da = H5I_INVALID_HID;
        if (dobj < 0)
            ret = H5VL_nczarr_xcopy_fail("copy: cannot reopen \"%s\" to write its references", l->src);
        else if (l->attr) {
            if ((sa = H5Aopen(so, l->attr, H5P_DEFAULT)) < 0 ||
                (da = H5Aopen(dobj, l->attr, H5P_DEFAULT)) < 0)
                ret =
                    H5VL_nczarr_xcopy_fail("copy of \"%s\": cannot reopen attribute \"%s\"", l->src, l->attr);
            else
                ret = H5VL_nczarr_xcopy_attr_value(x, sa, da, true);
        } else
            ret = H5VL_nczarr_xcopy_dataset_values(x, so, dobj, true);
        if (da >= 0)
            H5Aclose(da);
        if (sa >= 0)
            H5Aclose(sa);
        if (dobj >= 0)
            H5Oclose(dobj);
        if (so >= 0)
            H5Oclose(so);
    }
    return ret;
}

static void xcopy_free(xcopy *x)
{
    for (size_t i = 0; i < x->nseen; i++)
        free(x->seen[i].dst);
    free(x->seen);
    for (size_t i = 0; i < x->nlater; i++) {
        free(x->later[i].src);
        free(x->later[i].dst);
        free(x->later[i].attr);
    }
    free(x->later);
    free(x->src_root);
    free(x->dst_root);
    if (x->src_file >= 0)
        H5Fclose(x->src_file);
    if (x->dst_file >= 0)
        H5Fclose(x->dst_file);
    if (x->auto_saved)
        H5Eset_auto2(H5E_DEFAULT, x->auto_func, x->auto_data);
}

/* Both ends' ids, and their files', for H5Ocopy/H5Lcopy's objects. HDF5 would print the
 * stack of every failed call the copy makes: printing stays off until xcopy_end. */
static herr_t ends(const void *src_obj, const void *dst_obj, const char *what, hid_t *sloc, hid_t *dloc,
                   xcopy *x)
{
    if (H5Eget_auto2(H5E_DEFAULT, &x->auto_func, &x->auto_data) >= 0 &&
        H5Eset_auto2(H5E_DEFAULT, NULL, NULL) >= 0)
        x->auto_saved = true;
    if ((*sloc = id_of(src_obj)) < 0 || (*dloc = id_of(dst_obj)) < 0)
        return NCZ_PUSH(NCZ_E_ARGS, "%s: the caller's location has no identifier the connector can find",
                        what);
    if ((x->src_file = H5Iget_file_id(*sloc)) < 0 || (x->dst_file = H5Iget_file_id(*dloc)) < 0)
        return H5VL_nczarr_xcopy_fail("%s: cannot find the files of the source and destination", what);
    x->dst_store = !H5VL_nczarr_id_is_native(*dloc);
    return SUCCEED;
}

herr_t H5VL_nczarr_xcopy_object(void *src_obj, const char *src_name, void *dst_obj, const char *dst_name,
                                unsigned flags, hid_t lcpl_id)
{
    herr_t ret = SUCCEED;
    xcopy x = {.src_file = H5I_INVALID_HID, .dst_file = H5I_INVALID_HID};
    hid_t sloc, dloc;
    if (ends(src_obj, dst_obj, "H5Ocopy", &sloc, &dloc, &x) < 0)
        NCZ_GOTO_QUIET(FAIL);
    x.flags = flags;
    if (x.flags & H5O_COPY_EXPAND_REFERENCE_FLAG)
        NCZ_GOTO(FAIL, NCZ_E_UNSUPPORTED,
                 "H5Ocopy of \"%s\": copying the objects references name (H5O_COPY_EXPAND_REFERENCE_FLAG) "
                 "between a store and another file is not supported",
                 src_name);
    hid_t so = H5Oopen(sloc, src_name, H5P_DEFAULT);
    if (so < 0)
        XFAIL("H5Ocopy: cannot open \"%s\"", src_name);
    x.src_root = name_of(so);
    H5Oclose(so);
    if (!x.src_root)
        NCZ_GOTO(FAIL, NCZ_E_HDF5, "H5Ocopy: cannot name \"%s\"", src_name);
    if (copy_object(&x, sloc, src_name, dloc, dst_name, lcpl_id, 0) < 0)
        NCZ_GOTO_QUIET(FAIL);
    if (!(x.dst_root = strdup(x.seen[0].dst)))
        NCZ_GOTO(FAIL, NCZ_E_NOMEM, "out of memory copying \"%s\"", src_name);
    if (write_later(&x) < 0)
        NCZ_GOTO_QUIET(FAIL);
done:
    xcopy_free(&x);
    return ret;
}

herr_t H5VL_nczarr_xcopy_link(void *src_obj, const char *src_name, void *dst_obj, const char *dst_name,
                              hid_t lcpl_id, hid_t lapl_id)
{
    herr_t ret = SUCCEED;
    xcopy x = {.src_file = H5I_INVALID_HID, .dst_file = H5I_INVALID_HID};
    hid_t sloc, dloc;
    H5L_info2_t li;
    if (ends(src_obj, dst_obj, "H5Lcopy", &sloc, &dloc, &x) < 0)
        NCZ_GOTO_QUIET(FAIL);
    if (H5Lget_info2(sloc, src_name, &li, H5P_DEFAULT) < 0)
        XFAIL("H5Lcopy: no link \"%s\"", src_name);
    if (li.type == H5L_TYPE_HARD)
        NCZ_GOTO(FAIL, NCZ_E_ARGS,
                 "H5Lcopy of \"%s\": a hard link cannot name an object of another file (H5Ocopy copies the "
                 "object)",
                 src_name);
    ret = copy_link_value(sloc, src_name, &li, dloc, dst_name, lcpl_id, lapl_id);
done:
    xcopy_free(&x);
    return ret;
}
