/* Native HDF5 files through the connector (H5VL_nczarr_native.h): routes, the proxies and
 * HDF5's object wrapping, and the forwarding file, introspection, token and blob callbacks.
 * The group, dataset, attribute, datatype, link and object callbacks are in
 * H5VL_nczarr_native_obj.c. */
#include "H5VL_nczarr_native.h"
#include "ncztr_h5compat.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- proxies ---- */

static bool is_native(const void *obj)
{
    return obj && ((const H5VL_nczarr_native_t *)obj)->kind == H5VL_NCZARR_KIND_NATIVE;
}

hid_t H5VL_nczarr_native_id(void)
{
    /* Registered by the library when it starts; this returns its id without a new reference
     * (what H5VL_NATIVE stands for differs between 1.14 and 2.x: ncztr_h5compat.h). */
    return H5VL_nczarr_compat_native_id();
}

static herr_t close_under(void *under, H5I_type_t type, hid_t dxpl, void **req)
{
    hid_t nat = H5VL_nczarr_native_id();
    switch (type) {
    case H5I_FILE:
        return H5VLfile_close(under, nat, dxpl, req);
    case H5I_GROUP:
        return H5VLgroup_close(under, nat, dxpl, req);
    case H5I_DATASET:
        return H5VLdataset_close(under, nat, dxpl, req);
    case H5I_ATTR:
        return H5VLattr_close(under, nat, dxpl, req);
    case H5I_DATATYPE:
        return H5VLdatatype_close(under, nat, dxpl, req);
    default:
        return SUCCEED;
    }
}

herr_t H5VL_nczarr_native_close(void *proxy, H5I_type_t type, hid_t dxpl_id, void **req)
{
    herr_t r = close_under(NCZ_UNDER(proxy), type, dxpl_id, req);
    /* On failure HDF5 keeps the id, and may close it again. */
    if (r >= 0)
        free(proxy);
    return r;
}

static H5VL_nczarr_native_t *proxy_new(void *under)
{
    H5VL_nczarr_native_t *p = malloc(sizeof *p);
    if (!p) {
        NCZ_PUSH(NCZ_E_NOMEM, "out of memory wrapping an object of a native HDF5 file");
        return NULL;
    }
    p->kind = H5VL_NCZARR_KIND_NATIVE;
    p->under = under;
    return p;
}

void *H5VL_nczarr_native_wrap(void *under, H5I_type_t type)
{
    if (!under)
        return NULL;
    H5VL_nczarr_native_t *p = proxy_new(under);
    if (!p)
        close_under(under, type, H5P_DATASET_XFER_DEFAULT, NULL);
    return p;
}

/* ---- routes ---- */

int H5VL_nczarr_route(const void *obj)
{
    return is_native(obj) ? 1 : 0;
}

int H5VL_nczarr_route_name(const char *name)
{
    static const unsigned char sig[8] = {0x89, 'H', 'D', 'F', '\r', '\n', 0x1a, '\n'};
    struct stat st;
    /* Stores are directories and zip files; a name that is neither a regular file nor
     * readable is left to the store code, which reports what is wrong with it. */
    if (!name || stat(name, &st) != 0 || !S_ISREG(st.st_mode))
        return 0;
    int fd = open(name, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    int found = 0;
    for (off_t off = 0; !found && off <= st.st_size - 8; off = off ? 2 * off : 512) {
        unsigned char buf[8];
        if (pread(fd, buf, sizeof buf, off) != (ssize_t)sizeof buf)
            break;
        found = memcmp(buf, sig, sizeof sig) == 0;
    }
    close(fd);
    return found;
}

int H5VL_nczarr_route_pair(const void *a, const void *b, const char *what)
{
    bool na = is_native(a), nb = is_native(b);
    if (a && b && na != nb) {
        NCZ_PUSH(NCZ_E_UNSUPPORTED, "%s between a native HDF5 file and an NCZarr store is not supported",
                 what);
        return -1;
    }
    return na || nb ? 1 : 0;
}

int H5VL_nczarr_route_copy(const void *a, const void *b)
{
    return (!a || is_native(a)) && (!b || is_native(b)) ? 1 : 0;
}

bool H5VL_nczarr_copy_across(const void *a, const void *b)
{
    if (is_native(a) || is_native(b))
        return true;
    const H5VL_nczarr_obj_t *x = a, *y = b;
    return x && y && x->file && y->file && x->file->tf != y->file->tf;
}

int H5VL_nczarr_route_dsets(size_t count, void *dset[])
{
    size_t n = 0;
    for (size_t i = 0; i < count; i++)
        n += is_native(dset[i]);
    if (n != 0 && n != count) {
        NCZ_PUSH(NCZ_E_UNSUPPORTED, "one multi-dataset transfer cannot mix datasets of a native HDF5 file "
                                    "and of an NCZarr store");
        return -1;
    }
    return n ? 1 : 0;
}

int H5VL_nczarr_route_file_specific(const void *file, const H5VL_file_specific_args_t *args)
{
    switch (args->op_type) {
    case H5VL_FILE_IS_ACCESSIBLE:
        return H5VL_nczarr_route_name(args->args.is_accessible.filename);
    case H5VL_FILE_DELETE:
        return H5VL_nczarr_route_name(args->args.del.filename);
    default:
        /* IS_EQUAL's second file is already HDF5's terminal object (the native H5F_t, or
         * a store's file object): HDF5 compares files only when both have the same
         * terminal connector. */
        return H5VL_nczarr_route(file);
    }
}

int H5VL_nczarr_route_group_specific(const void *obj, const H5VL_group_specific_args_t *args)
{
    if (args->op_type == H5VL_GROUP_MOUNT)
        return H5VL_nczarr_route_pair(obj, args->args.mount.child_file, "H5Fmount");
    return H5VL_nczarr_route(obj);
}

int H5VL_nczarr_route_link_create(const H5VL_link_create_args_t *args, const void *obj)
{
    if (args->op_type == H5VL_LINK_CREATE_HARD)
        return H5VL_nczarr_route_pair(args->args.hard.curr_obj, obj, "H5Lcreate_hard");
    return H5VL_nczarr_route(obj);
}

bool H5VL_nczarr_id_is_native(hid_t id)
{
    hbool_t native = false;
    herr_t r;
    /* Transient datatypes have no VOL object (the query would fail loudly). */
    if (H5Iget_type(id) == H5I_DATATYPE && H5Tcommitted(id) <= 0)
        return false;
    H5E_BEGIN_TRY
    {
        r = H5VLobject_is_native(id, &native);
    }
    H5E_END_TRY
    return r >= 0 && native;
}

/* ---- object wrapping ---- */

/* The wrap context of native objects: nothing to carry (the native connector has no wrap
 * context of its own), only a non-NULL marker. Stores have none, so HDF5 wraps nothing
 * while a call on a store runs. */
static int g_native_wrap_ctx;

void *H5VL_nczarr_get_object(const void *obj)
{
    /* HDF5 matches ids to objects (H5Iget_file_id, H5Fget_obj_ids) and casts the objects
     * of native files by this: the native object itself. */
    if (is_native(obj))
        return NCZ_UNDER(obj);
    const H5VL_nczarr_obj_t *o = obj;
    if (o && o->type == H5I_DATATYPE && o->dtype_t)
        return o->dtype_t; /* a committed datatype of a store: an H5T_t, as HDF5 expects */
    return (void *)obj;
}

herr_t H5VL_nczarr_get_wrap_ctx(const void *obj, void **wrap_ctx)
{
    *wrap_ctx = is_native(obj) ? &g_native_wrap_ctx : NULL;
    return SUCCEED;
}

void *H5VL_nczarr_wrap_object(void *obj, H5I_type_t obj_type, void *wrap_ctx)
{
    (void)obj_type;
    if (wrap_ctx != &g_native_wrap_ctx) {
        NCZ_PUSH(NCZ_E_INTERNAL, "wrap_object: not a wrap context of this connector");
        return NULL;
    }
    return proxy_new(obj);
}

void *H5VL_nczarr_unwrap_object(void *obj)
{
    if (!is_native(obj))
        return obj;
    void *under = NCZ_UNDER(obj);
    free(obj);
    return under;
}

herr_t H5VL_nczarr_free_wrap_ctx(void *wrap_ctx)
{
    (void)wrap_ctx;
    return SUCCEED;
}

/* ---- file ---- */

/* A copy of an access plist that opens with the native connector. */
static hid_t native_fapl(hid_t fapl_id)
{
    hid_t fapl = H5Pcopy(fapl_id == H5P_DEFAULT ? H5P_FILE_ACCESS_DEFAULT : fapl_id);
    if (fapl < 0 || H5Pset_vol(fapl, H5VL_nczarr_native_id(), NULL) < 0) {
        if (fapl >= 0)
            H5Pclose(fapl);
        NCZ_PUSH(NCZ_E_HDF5, "cannot make a file access property list for the native connector");
        return H5I_INVALID_HID;
    }
    return fapl;
}

void *H5VL_nczarr_native_file_open(const char *name, unsigned flags, hid_t fapl_id, hid_t dxpl_id, void **req)
{
    hid_t fapl = native_fapl(fapl_id);
    if (fapl < 0)
        return NULL;
    void *under = H5VLfile_open(name, flags, fapl, dxpl_id, req);
    /* keeps the native connector's messages (an HDF5 call clears the stack on entry) */
    H5VL_nczarr_drop_id(fapl, true);
    if (!under)
        NCZ_PUSH(NCZ_E_HDF5, "cannot open the native HDF5 file \"%s\"", name);
    return H5VL_nczarr_native_wrap(under, H5I_FILE);
}

void *H5VL_nczarr_native_file_create(const char *name, unsigned flags, hid_t fcpl_id, hid_t fapl_id,
                                     hid_t dxpl_id, void **req)
{
    hid_t fapl = native_fapl(fapl_id);
    if (fapl < 0)
        return NULL;
    void *under = H5VLfile_create(name, flags, fcpl_id, fapl, dxpl_id, req);
    H5VL_nczarr_drop_id(fapl, true);
    if (!under)
        NCZ_PUSH(NCZ_E_HDF5, "cannot create the native HDF5 file \"%s\"", name);
    return H5VL_nczarr_native_wrap(under, H5I_FILE);
}

/* The native file of a native object (its terminal object, H5VLobject). */
static void *file_of(void *obj, H5I_type_t type)
{
    if (type == H5I_FILE)
        return obj;
    void *f = NULL;
    H5VL_loc_params_t lp = {.type = H5VL_OBJECT_BY_SELF, .obj_type = type};
    H5VL_object_get_args_t a = {.op_type = H5VL_OBJECT_GET_FILE};
    a.args.get_file.file = &f;
    herr_t r;
    H5E_BEGIN_TRY
    {
        r = H5VLobject_get(obj, &lp, H5VL_nczarr_native_id(), &a, H5P_DATASET_XFER_DEFAULT, NULL);
    }
    H5E_END_TRY
    return r < 0 ? NULL : f;
}

typedef struct {
    void *file; /* the native H5F_t asked about */
    bool local;
    hid_t *list;
    size_t max, n;
} objscan_t;

static herr_t objscan_cb(hid_t id, void *ud)
{
    objscan_t *s = ud;
    /* Stop once the list is full, as HDF5 does (the next type's scan too). */
    if (s->list && s->n >= s->max)
        return 1;
    if (!H5VL_nczarr_id_is_native(id))
        return 0;
    void *obj = H5VLobject(id);
    void *f = obj ? file_of(obj, H5Iget_type(id)) : NULL;
    if (!f)
        return 0;
    hbool_t same = f == s->file;
    if (!same && !s->local) {
        /* Another open of the same file (H5Freopen, or opened twice): one shared file. */
        H5VL_file_specific_args_t a = {.op_type = H5VL_FILE_IS_EQUAL};
        a.args.is_equal.obj2 = f;
        a.args.is_equal.same_file = &same;
        if (H5VLfile_specific(s->file, H5VL_nczarr_native_id(), &a, H5P_DATASET_XFER_DEFAULT, NULL) < 0)
            same = false;
    }
    if (!same)
        return 0;
    if (s->list && s->n < s->max)
        s->list[s->n] = id;
    s->n++;
    return s->list && s->n >= s->max ? 1 : 0;
}

/* H5Fget_obj_count/H5Fget_obj_ids of a native file. Not forwarded: the native connector
 * looks at every id of a type as one of its own objects, and ids of stores are among them. */
static herr_t native_obj_ids(void *file, unsigned types, size_t max, hid_t *list, size_t *count)
{
    objscan_t s = {file, (types & H5F_OBJ_LOCAL) != 0, list, max, 0};
    if (H5VL_nczarr_iterate_obj_ids(types, objscan_cb, &s) < 0)
        return NCZ_PUSH(NCZ_E_HDF5, "cannot list the open objects of a native HDF5 file");
    *count = s.n;
    return SUCCEED;
}

herr_t H5VL_nczarr_native_file_get(void *file, H5VL_file_get_args_t *args, hid_t dxpl_id, void **req)
{
    if (args->op_type == H5VL_FILE_GET_OBJ_COUNT)
        return native_obj_ids(NCZ_UNDER(file), args->args.get_obj_count.types, 0, NULL,
                              args->args.get_obj_count.count);
    if (args->op_type == H5VL_FILE_GET_OBJ_IDS)
        return native_obj_ids(NCZ_UNDER(file), args->args.get_obj_ids.types, args->args.get_obj_ids.max_objs,
                              args->args.get_obj_ids.oid_list, args->args.get_obj_ids.count);
    return H5VLfile_get(NCZ_UNDER(file), H5VL_nczarr_native_id(), args, dxpl_id, req);
}

herr_t H5VL_nczarr_native_file_specific(void *file, H5VL_file_specific_args_t *args, hid_t dxpl_id,
                                        void **req)
{
    hid_t nat = H5VL_nczarr_native_id();
    if (args->op_type == H5VL_FILE_IS_ACCESSIBLE || args->op_type == H5VL_FILE_DELETE) {
        /* No file object here: a name, and the application's fapl, which names this
         * connector: the native connector gets a copy that names itself. */
        H5VL_file_specific_args_t a = *args;
        hid_t *fapl = a.op_type == H5VL_FILE_DELETE ? &a.args.del.fapl_id : &a.args.is_accessible.fapl_id;
        if ((*fapl = native_fapl(*fapl)) < 0)
            return FAIL;
        herr_t r = H5VLfile_specific(NULL, nat, &a, dxpl_id, req);
        H5VL_nczarr_drop_id(*fapl, true);
        return r;
    }
    herr_t r = H5VLfile_specific(NCZ_UNDER(file), nat, args, dxpl_id, req);
    if (r >= 0 && args->op_type == H5VL_FILE_REOPEN &&
        !(*args->args.reopen.file = H5VL_nczarr_native_wrap(*args->args.reopen.file, H5I_FILE)))
        return FAIL;
    return r;
}

herr_t H5VL_nczarr_native_file_optional(void *file, H5VL_optional_args_t *args, hid_t dxpl_id, void **req)
{
    return H5VLfile_optional(NCZ_UNDER(file), H5VL_nczarr_native_id(), args, dxpl_id, req);
}

herr_t H5VL_nczarr_native_file_close(void *file, hid_t dxpl_id, void **req)
{
    return H5VL_nczarr_native_close(file, H5I_FILE, dxpl_id, req);
}

/* ---- introspection ---- */

herr_t H5VL_nczarr_native_introspect_get_conn_cls(void *obj, H5VL_get_conn_lvl_t lvl,
                                                  const H5VL_class_t **conn_cls)
{
    /* This connector at its own level; the native one at the end of the stack, where
     * H5VLobject_is_native (H5DS, the tools, native-only calls) looks. */
    if (lvl == H5VL_GET_CONN_LVL_CURR) {
        *conn_cls = H5VL_nczarr_class;
        return SUCCEED;
    }
    return H5VLintrospect_get_conn_cls(NCZ_UNDER(obj), H5VL_nczarr_native_id(), lvl, conn_cls);
}

herr_t H5VL_nczarr_native_introspect_opt_query(void *obj, H5VL_subclass_t cls, int opt_type, uint64_t *flags)
{
    return H5VLintrospect_opt_query(NCZ_UNDER(obj), H5VL_nczarr_native_id(), cls, opt_type, flags);
}

/* ---- tokens ---- */

herr_t H5VL_nczarr_native_token_cmp(void *obj, const H5O_token_t *token1, const H5O_token_t *token2,
                                    int *cmp_value)
{
    return H5VLtoken_cmp(NCZ_UNDER(obj), H5VL_nczarr_native_id(), token1, token2, cmp_value);
}

herr_t H5VL_nczarr_native_token_to_str(void *obj, H5I_type_t obj_type, const H5O_token_t *token,
                                       char **token_str)
{
    return H5VLtoken_to_str(NCZ_UNDER(obj), obj_type, H5VL_nczarr_native_id(), token, token_str);
}

herr_t H5VL_nczarr_native_token_from_str(void *obj, H5I_type_t obj_type, const char *token_str,
                                         H5O_token_t *token)
{
    return H5VLtoken_from_str(NCZ_UNDER(obj), obj_type, H5VL_nczarr_native_id(), token_str, token);
}

/* ---- blobs (variable-length data and references in native files) ---- */

herr_t H5VL_nczarr_native_blob_put(void *obj, const void *buf, size_t size, void *blob_id, void *ctx)
{
    return H5VLblob_put(NCZ_UNDER(obj), H5VL_nczarr_native_id(), buf, size, blob_id, ctx);
}

herr_t H5VL_nczarr_native_blob_get(void *obj, const void *blob_id, void *buf, size_t size, void *ctx)
{
    return H5VLblob_get(NCZ_UNDER(obj), H5VL_nczarr_native_id(), blob_id, buf, size, ctx);
}

herr_t H5VL_nczarr_native_blob_specific(void *obj, void *blob_id, H5VL_blob_specific_args_t *args)
{
    return H5VLblob_specific(NCZ_UNDER(obj), H5VL_nczarr_native_id(), blob_id, args);
}
