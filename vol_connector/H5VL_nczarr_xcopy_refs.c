/* References in values copied between files (H5VL_nczarr_xcopy.c): read as H5R_ref_t,
 * which carry the path of the object they name in its file, and recreated in the
 * destination for the copy of that object. */
#include "H5VL_nczarr.h"
#include "H5VL_nczarr_xcopy.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Whether type holds references other than H5R_ref_t (HDF5's deprecated ones). */
static bool has_old_refs(hid_t type)
{
    bool r = false;
    switch (H5Tget_class(type)) {
    case H5T_REFERENCE:
        return H5Tget_size(type) != sizeof(H5R_ref_t);
    case H5T_VLEN:
    case H5T_ARRAY: {
        hid_t b = H5Tget_super(type);
        r = b >= 0 && has_old_refs(b);
        if (b >= 0)
            H5Tclose(b);
        return r;
    }
    case H5T_COMPOUND:
        for (int i = 0, n = H5Tget_nmembers(type); i < n && !r; i++) {
            hid_t m = H5Tget_member_type(type, (unsigned)i);
            r = m >= 0 && has_old_refs(m);
            if (m >= 0)
                H5Tclose(m);
        }
        return r;
    default:
        return false;
    }
}

hid_t H5VL_nczarr_xcopy_ref_type(hid_t type)
{
    hid_t r = H5I_INVALID_HID, base = H5I_INVALID_HID, mb = H5I_INVALID_HID;
    /* a type of H5R_ref_t already is its own memory type (a store reads values holding
     * references only in their own type) */
    if (!has_old_refs(type))
        return H5Tcopy(type);
    switch (H5Tget_class(type)) {
    case H5T_REFERENCE:
        r = H5Tcopy(H5T_STD_REF);
        break;
    case H5T_VLEN:
    case H5T_ARRAY:
        if ((base = H5Tget_super(type)) < 0 || (mb = H5VL_nczarr_xcopy_ref_type(base)) < 0)
            break;
        if (H5Tget_class(type) == H5T_VLEN) {
            r = H5Tvlen_create(mb);
        } else {
            hsize_t dims[H5S_MAX_RANK];
            int nd = H5Tget_array_ndims(type);
            if (nd > 0 && H5Tget_array_dims2(type, dims) == nd)
                r = H5Tarray_create2(mb, (unsigned)nd, dims);
        }
        break;
    case H5T_COMPOUND: {
        int n = H5Tget_nmembers(type);
        size_t size = 0;
        hid_t *mt = n > 0 ? calloc((size_t)n, sizeof *mt) : NULL;
        bool ok = mt != NULL;
        for (int i = 0; ok && i < n; i++) {
            hid_t m = H5Tget_member_type(type, (unsigned)i);
            ok = m >= 0 && (mt[i] = H5VL_nczarr_xcopy_ref_type(m)) >= 0;
            if (m >= 0)
                H5Tclose(m);
            if (ok)
                size += H5Tget_size(mt[i]);
        }
        /* members packed in order: the walk of H5VL_nczarr_xcopy_remap reads the offsets back */
        if (ok && (r = H5Tcreate(H5T_COMPOUND, size)) >= 0) {
            size_t off = 0;
            for (int i = 0; i < n && r >= 0; i++) {
                char *nm = H5Tget_member_name(type, (unsigned)i);
                if (!nm || H5Tinsert(r, nm, off, mt[i]) < 0) {
                    H5Tclose(r);
                    r = H5I_INVALID_HID;
                }
                H5free_memory(nm);
                off += H5Tget_size(mt[i]);
            }
        }
        for (int i = 0; mt && i < n; i++)
            if (mt[i] > 0)
                H5Tclose(mt[i]);
        free(mt);
        break;
    }
    default:
        r = H5Tcopy(type);
    }
    if (mb >= 0)
        H5Tclose(mb);
    if (base >= 0)
        H5Tclose(base);
    if (r < 0)
        NCZ_PUSH(NCZ_E_HDF5, "copy: cannot make a memory type for values holding references");
    return r;
}

/* The path of the copy of the object at path (see the header). */
static char *copy_path(const char *src_root, const char *dst_root, const char *path)
{
    size_t l = strlen(src_root);
    bool under = strcmp(src_root, "/") == 0 ? path[0] == '/'
                                            : !strncmp(path, src_root, l) && (path[l] == '/' || !path[l]);
    if (!under)
        return strdup(path);
    const char *rest = strcmp(src_root, "/") == 0 ? path + 1 : path + l + (path[l] == '/');
    size_t n = strlen(dst_root) + strlen(rest) + 2;
    char *s = malloc(n);
    if (s)
        snprintf(s, n, "%s%s%s", dst_root, *rest && strcmp(dst_root, "/") ? "/" : "", rest);
    return s;
}

static bool is_null(const H5R_ref_t *r)
{
    static const H5R_ref_t zero;
    return !memcmp(r, &zero, sizeof zero);
}

static herr_t remap_one(const char *src_root, const char *dst_root, hid_t dst_file, H5R_ref_t *r)
{
    H5R_ref_t nr;
    memset(&nr, 0, sizeof nr);
    if (is_null(r))
        return SUCCEED;
    char *path = NULL, *dpath = NULL, *aname = NULL;
    hid_t sp = H5I_INVALID_HID;
    H5R_type_t type = H5Rget_type(r);
    ssize_t len = H5Rget_obj_name(r, H5P_DEFAULT, NULL, 0);
    if (len > 0 && (path = malloc((size_t)len + 1)) &&
        H5Rget_obj_name(r, H5P_DEFAULT, path, (size_t)len + 1) > 0 &&
        (dpath = copy_path(src_root, dst_root, path))) {
        /* a reference whose object has no copy stays null (no message: HDF5's H5Ocopy does so) */
        H5E_BEGIN_TRY
        {
            if (type == H5R_OBJECT2) {
                (void)H5Rcreate_object(dst_file, dpath, H5P_DEFAULT, &nr);
            } else if (type == H5R_DATASET_REGION2) {
                if ((sp = H5Ropen_region(r, H5P_DEFAULT, H5P_DEFAULT)) >= 0)
                    (void)H5Rcreate_region(dst_file, dpath, sp, H5P_DEFAULT, &nr);
            } else if (type == H5R_ATTR) {
                ssize_t al = H5Rget_attr_name(r, NULL, 0);
                if (al > 0 && (aname = malloc((size_t)al + 1)) &&
                    H5Rget_attr_name(r, aname, (size_t)al + 1) > 0)
                    (void)H5Rcreate_attr(dst_file, dpath, aname, H5P_DEFAULT, &nr);
            }
        }
        H5E_END_TRY
    }
    if (sp >= 0)
        H5Sclose(sp);
    free(aname);
    free(dpath);
    free(path);
    H5Rdestroy(r);
    *r = nr;
    return SUCCEED;
}

static herr_t remap(const char *src_root, const char *dst_root, hid_t dst_file, hid_t t, unsigned char *p)
{
    herr_t ret = SUCCEED;
    switch (H5Tget_class(t)) {
    case H5T_REFERENCE: {
        H5R_ref_t r;
        memcpy(&r, p, sizeof r); /* values of a packed compound may be unaligned */
        ret = remap_one(src_root, dst_root, dst_file, &r);
        memcpy(p, &r, sizeof r);
        break;
    }
    case H5T_COMPOUND: {
        int n = H5Tget_nmembers(t);
        for (int i = 0; i < n && ret >= 0; i++) {
            hid_t m = H5Tget_member_type(t, (unsigned)i);
            if (m < 0)
                return NCZ_PUSH(NCZ_E_HDF5, "copy: cannot walk a compound value");
            if (H5Tdetect_class(m, H5T_REFERENCE) > 0)
                ret = remap(src_root, dst_root, dst_file, m, p + H5Tget_member_offset(t, (unsigned)i));
            H5Tclose(m);
        }
        break;
    }
    case H5T_VLEN:
    case H5T_ARRAY: {
        hid_t base = H5Tget_super(t);
        if (base < 0)
            return NCZ_PUSH(NCZ_E_HDF5, "copy: cannot walk a value");
        size_t bs = H5Tget_size(base), n = 0;
        unsigned char *q = p;
        if (H5Tget_class(t) == H5T_VLEN) {
            hvl_t v;
            memcpy(&v, p, sizeof v);
            n = v.len;
            q = v.p;
        } else {
            hsize_t dims[H5S_MAX_RANK];
            int nd = H5Tget_array_ndims(t);
            n = nd > 0 && H5Tget_array_dims2(t, dims) == nd ? 1 : 0;
            for (int i = 0; i < nd; i++)
                n *= (size_t)dims[i];
        }
        for (size_t i = 0; q && i < n && ret >= 0; i++)
            ret = remap(src_root, dst_root, dst_file, base, q + i * bs);
        H5Tclose(base);
        break;
    }
    default:
        break;
    }
    return ret;
}

herr_t H5VL_nczarr_xcopy_remap(const char *src_root, const char *dst_root, hid_t dst_file, hid_t mem_type,
                               void *buf, size_t n)
{
    size_t esz = H5Tget_size(mem_type);
    for (size_t i = 0; i < n; i++)
        if (remap(src_root, dst_root, dst_file, mem_type, (unsigned char *)buf + i * esz) < 0)
            return FAIL;
    return SUCCEED;
}
