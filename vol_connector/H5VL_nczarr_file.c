/* File callbacks, the registry of open stores, and the object helpers shared by every
 * callback file (object lifetime, location resolution, names). */
#include "H5VL_nczarr.h"
#include "ncztr_h5compat.h"
#include "H5VL_nczarr_native.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static H5VL_nczarr_store_t *g_open_stores = NULL;
/* Set once the stores open at exit were written (H5VL_nczarr_flush_at_exit). */
static bool g_exit_flushed = false;
static unsigned long g_next_fileno = 1;

/* ---- objects ---- */

/* Live datatype objects, to find one by the H5T_t that H5VLobject answers for its id. */
static H5VL_nczarr_obj_t *g_dtype_objs;

H5VL_nczarr_obj_t *H5VL_nczarr_store_object(hid_t id)
{
    void *o = NULL;
    H5E_BEGIN_TRY
    {
        o = H5VLobject(id);
    }
    H5E_END_TRY
    if (o && H5Iget_type(id) == H5I_DATATYPE) {
        H5VL_nczarr_obj_t *d = g_dtype_objs;
        while (d && d->dtype_t != o)
            d = d->dtype_next;
        return d;
    }
    return o;
}

H5VL_nczarr_obj_t *H5VL_nczarr_obj_new(H5I_type_t type, H5VL_nczarr_file_t *file, ncztr_obj *node,
                                       ncztr_attr *attr)
{
    H5VL_nczarr_obj_t *o = calloc(1, sizeof *o);
    if (!o) {
        NCZ_PUSH(NCZ_E_NOMEM, "out of memory creating an object handle");
        return NULL;
    }
    o->kind = H5VL_NCZARR_KIND_STORE;
    o->type = type;
    o->rc = 1;
    o->file = file;
    o->node = node;
    o->attr = attr;
    o->dapl = H5I_INVALID_HID;
    o->dtype = H5I_INVALID_HID;
    if (type == H5I_DATATYPE && ((o->dtype = ncztr_array_type(node)) < 0 ||
                                 !(o->dtype_t = H5VL_nczarr_compat_type_object(o->dtype)))) {
        if (o->dtype >= 0)
            H5Tclose(o->dtype);
        free(o);
        NCZ_PUSH(NCZ_E_HDF5, "cannot copy the type of committed datatype \"%s\"", ncztr_obj_name(node));
        return NULL;
    }
    if (type == H5I_DATATYPE) {
        o->dtype_next = g_dtype_objs;
        g_dtype_objs = o;
    }
    file->rc++;
    if (node)
        ncztr_obj_ref(node);
    if (attr)
        ncztr_attr_ref(attr);
    return o;
}

/* Drops one open of st; the last closes it, writing it unless saved says its last open
 * has just done so (a second save of a store of 100000 arrays walks them all again). */
static void store_release(H5VL_nczarr_store_t *st, bool saved)
{
    if (--st->rc > 0)
        return;
    for (H5VL_nczarr_store_t **p = &g_open_stores; *p; p = &(*p)->next)
        if (*p == st) {
            *p = st->next;
            break;
        }
    if (ncztr_file_close2(st->tf, !g_exit_flushed && !saved) < 0) {
        /* Everything is freed: HDF5 must not call close again, so this is reported here. */
        fprintf(stderr, "nczarr: closing \"%s\" failed:\n", st->name);
        H5Eprint2(H5E_DEFAULT, stderr);
    }
    if (st->fcpl >= 0)
        H5Pclose(st->fcpl);
    H5VL_nczarr_blobs_free(st);
    free(st->name);
    free(st);
}

void H5VL_nczarr_exit_reset(void)
{
    g_exit_flushed = false;
}

/* Opens whose last object closed while their store could not be written (obj_release). */
static H5VL_nczarr_file_t *g_orphans;

void H5VL_nczarr_flush_at_exit(void *ctx)
{
    (void)ctx;
    for (H5VL_nczarr_store_t *st = g_open_stores; st; st = st->next) {
        if (!ncztr_file_is_readonly(st->tf) && ncztr_file_flush(st->tf) < 0) {
            fprintf(stderr, "nczarr: writing \"%s\" at exit failed:\n", st->name);
            H5Eprint2(H5E_DEFAULT, stderr);
        }
        ncztr_file_note_parts(st->tf);
    }
    g_exit_flushed = true;
    /* no id will ever close these: given up now that their stores had their last try */
    while (g_orphans) {
        H5VL_nczarr_file_t *f = g_orphans;
        g_orphans = f->next_orphan;
        f->rc = 1;
        (void)H5VL_nczarr_file_release(f);
    }
}

herr_t H5VL_nczarr_file_release(H5VL_nczarr_file_t *f)
{
    if (--f->rc > 0)
        return SUCCEED;
    /* A file still open when the library shuts down (an id or a reference never released:
     * HDF5's own H5DSattach_scale leaks references) was written at exit, while its types
     * were alive; what HDF5 closes after that is only freed. */
    bool saved = false;
    if (g_exit_flushed)
        goto release;
    /* Write everything first when this is the store's last open: when that fails HDF5
     * keeps the id and calls close again (at the latest when the library shuts down), so
     * nothing may be freed yet. */
    saved = f->store->rc == 1 && !ncztr_file_is_readonly(f->tf);
    if (saved && ncztr_file_flush(f->tf) < 0) {
        f->rc = 1;
        if (f->file_ids == 0)
            f->file_ids = 1;
        return NCZ_PUSH(NCZ_E_STORE, "closing \"%s\" failed: the store could not be written completely",
                        f->name);
    }
release:
    ncztr_obj_unref(f->fobj.node);
    if (f->fapl >= 0)
        H5Pclose(f->fapl);
    H5VL_nczarr_store_t *st = f->store;
    free(f);
    store_release(st, saved);
    return SUCCEED;
}

herr_t H5VL_nczarr_obj_release(H5VL_nczarr_obj_t *o)
{
    if (!o)
        return SUCCEED;
    if (o->type == H5I_FILE) {
        /* The file object lives inside its file struct. */
        return H5VL_nczarr_file_release(o->file);
    }
    if (--o->rc > 0)
        return SUCCEED;
    if (o->attr)
        ncztr_attr_unref(o->attr);
    if (o->node)
        ncztr_obj_unref(o->node);
    for (H5VL_nczarr_obj_t **p = &g_dtype_objs; *p; p = &(*p)->dtype_next)
        if (*p == o) {
            *p = o->dtype_next;
            break;
        }
    /* (while HDF5 shuts down it clears the datatype ids itself, this copy's among them,
     * walking the very table an H5Tclose would change under it) */
    if (o->dtype >= 0 && !g_exit_flushed) {
        H5E_BEGIN_TRY
        {
            H5Tclose(o->dtype);
        }
        H5E_END_TRY
    }
    if (o->dapl >= 0) {
        H5E_BEGIN_TRY
        {
            H5Pclose(o->dapl);
        }
        H5E_END_TRY
    }
    H5VL_nczarr_file_t *f = o->file;
    free(o);
    /* The object is gone whatever the store does: its id must go too (HDF5 keeps the id of
     * a failed close and closes it again, and this handle is freed). A store that cannot be
     * written now stays open (H5VL_nczarr_file_release) and is written again at its next
     * close or at exit; the close of the object says so in a warning. */
    size_t mark = ncz_err_mark();
    if (H5VL_nczarr_file_release(f) < 0) {
        if (f->file_ids == 1 && f->rc == 1) { /* only the count a failed close restores */
            f->next_orphan = g_orphans;
            g_orphans = f;
        }
        char *why = ncz_err_take_messages(mark);
        NCZ_WARN(NCZ_E_STORE, "%s (the store stays open, to be written at its next close or at exit)",
                 why ? why : "the store could not be written");
        free(why);
    }
    return SUCCEED;
}

ncztr_obj *H5VL_nczarr_node(H5VL_nczarr_obj_t *obj)
{
    return obj->node;
}

hid_t H5VL_nczarr_wrap_register(H5VL_nczarr_file_t *file, ncztr_obj *node)
{
    /* (an id of type H5I_DATATYPE must stand for an H5T_t: a committed datatype's node is
     * registered as the array it is kept as, which references need only by its token) */
    H5I_type_t t = ncztr_obj_kind(node) == NCZTR_GROUP ? H5I_GROUP : H5I_DATASET;
    H5VL_nczarr_obj_t *o = H5VL_nczarr_obj_new(t, file, node, NULL);
    if (!o)
        return H5I_INVALID_HID;
    hid_t id = H5VLwrap_register(o, t);
    if (id < 0) {
        H5VL_nczarr_obj_release(o);
        NCZ_PUSH(NCZ_E_HDF5, "cannot register an id for \"%s\"", ncztr_obj_name(node));
    }
    return id;
}

bool H5VL_nczarr_lcpl_intermediate(hid_t lcpl_id)
{
    unsigned crt = 0;
    if (lcpl_id < 0 || lcpl_id == H5P_DEFAULT)
        return false;
    return H5Pget_create_intermediate_group(lcpl_id, &crt) >= 0 && crt;
}

size_t H5VL_nczarr_copy_name(const char *name, char *buf, size_t size)
{
    size_t len = strlen(name);
    if (buf && size > 0) {
        size_t n = len < size - 1 ? len : size - 1;
        memcpy(buf, name, n);
        buf[n] = '\0';
    }
    return len;
}

void H5VL_nczarr_token_encode(uint64_t id, H5O_token_t *tok)
{
    memset(tok, 0, sizeof *tok);
    for (int i = 0; i < 8; i++)
        tok->__data[i] = (uint8_t)(id >> (8 * i));
}

uint64_t H5VL_nczarr_token_decode(const H5O_token_t *tok)
{
    uint64_t id = 0;
    for (int i = 0; i < 8; i++)
        id |= (uint64_t)tok->__data[i] << (8 * i);
    return id;
}

H5O_type_t H5VL_nczarr_otype(const ncztr_obj *n)
{
    return ncztr_obj_kind(n) == NCZTR_GROUP ? H5O_TYPE_GROUP
           : ncztr_obj_is_datatype(n)       ? H5O_TYPE_NAMED_DATATYPE
                                            : H5O_TYPE_DATASET;
}

H5I_type_t H5VL_nczarr_itype(const ncztr_obj *n)
{
    return ncztr_obj_kind(n) == NCZTR_GROUP ? H5I_GROUP
           : ncztr_obj_is_datatype(n)       ? H5I_DATATYPE
                                            : H5I_DATASET;
}

herr_t H5VL_nczarr_fill_oinfo(H5VL_nczarr_file_t *f, ncztr_obj *n, unsigned fields, H5O_info2_t *oinfo)
{
    memset(oinfo, 0, sizeof *oinfo);
    oinfo->fileno = f->fileno;
    ncztr_objinfo info;
    /* the attribute count of a group not read yet reads it, or fails saying why */
    if ((fields & H5O_INFO_NUM_ATTRS) && ncztr_obj_load(n) < 0)
        return FAIL;
    ncztr_obj_info(n, (fields & H5O_INFO_NUM_ATTRS) != 0, &info);
    H5VL_nczarr_token_encode(info.id, &oinfo->token);
    oinfo->type = H5VL_nczarr_otype(n);
    oinfo->rc = info.name_count; /* its name and its extra hard links */
    oinfo->num_attrs = (hsize_t)info.nattrs;
    return SUCCEED;
}

ncztr_obj *H5VL_nczarr_resolve(H5VL_nczarr_obj_t *obj, const H5VL_loc_params_t *lp)
{
    ncztr_obj *base = obj->node;
    ncztr_obj *n = NULL;
    if (!base) {
        NCZ_PUSH(NCZ_E_ARGS, "invalid location");
        return NULL;
    }
    if (ncztr_obj_is_deleted(base)) {
        NCZ_PUSH(NCZ_E_NOTFOUND, "object \"%s\" has been deleted", ncztr_obj_name(base));
        return NULL;
    }
    switch (lp->type) {
    case H5VL_OBJECT_BY_SELF:
        return base;
    case H5VL_OBJECT_BY_NAME:
        if (ncztr_lookup(base, lp->loc_data.loc_by_name.name, &n) < 0)
            return NULL;
        return n;
    case H5VL_OBJECT_BY_IDX: {
        ncztr_obj *g = NULL;
        if (ncztr_lookup(base, lp->loc_data.loc_by_idx.name, &g) < 0)
            return NULL;
        if (ncztr_obj_kind(g) != NCZTR_GROUP) {
            NCZ_PUSH(NCZ_E_ARGS, "\"%s\" is not a group", lp->loc_data.loc_by_idx.name);
            return NULL;
        }
        return ncztr_deref(ncztr_child_by_idx(g, lp->loc_data.loc_by_idx.idx_type,
                                              lp->loc_data.loc_by_idx.order, lp->loc_data.loc_by_idx.n),
                           true);
    }
    case H5VL_OBJECT_BY_TOKEN: {
        uint64_t id = H5VL_nczarr_token_decode(lp->loc_data.loc_by_token.token);
        n = ncztr_find_by_id(ncztr_obj_file(base), id);
        if (!n)
            NCZ_PUSH(NCZ_E_NOTFOUND, "no object with token %llu in this store", (unsigned long long)id);
        return n;
    }
    default:
        NCZ_PUSH(NCZ_E_ARGS, "unknown location type %d", (int)lp->type);
        return NULL;
    }
}

/* ---- property lists and ids ---- */

/* ---- files ---- */

static void opts_from_info(const H5VL_nczarr_info_t *info, ncztr_opts *o)
{
    memset(o, 0, sizeof *o);
    o->pure_zarr = info->pure_zarr;
    o->noxarray = info->noxarray;
    o->zip_root = info->zip_root;
    o->zip_names = info->zip_names;
    o->consolidate = info->consolidate;
    o->ascii_json = info->ascii_json;
    o->ignore_zmetadata = info->ignore_zmetadata;
    o->v3 = info->v3;
    o->shards = info->shards;
    memcpy(o->storeopts, info->storeopts, sizeof o->storeopts);
}

/* The settings of the connector info that apply to an open store. */
static void apply_info(ncztr_file *tf, const H5VL_nczarr_info_t *info)
{
    if (info->maxstrlen)
        ncztr_file_set_default_maxstrlen(tf, info->maxstrlen);
    ncztr_file_set_workers(tf, info->workers);
}

/* The options of the connector info in a fapl. */
/* The communicator of an MPI program's file access list (H5Pset_fapl_mpio, or
 * H5Pset_mpi_params): HDF5 hands out a duplicate, freed by opts_drop_comm once the file is
 * open (translate/par keeps its own). */
static void opts_take_comm(hid_t fapl_id, ncztr_opts *o)
{
#ifdef H5_HAVE_PARALLEL
    MPI_Comm comm = MPI_COMM_NULL;
    MPI_Info info = MPI_INFO_NULL;
    o->has_comm = false;
    if (H5Pget_mpi_params(fapl_id == H5P_DEFAULT ? H5P_FILE_ACCESS_DEFAULT : fapl_id, &comm, &info) < 0) {
        H5Eclear2(H5E_DEFAULT);
        return;
    }
    if (info != MPI_INFO_NULL)
        MPI_Info_free(&info);
    if (comm != MPI_COMM_NULL) {
        o->has_comm = true;
        o->comm = comm;
    }
#else
    (void)fapl_id, (void)o;
#endif
}

static void opts_drop_comm(ncztr_opts *o)
{
#ifdef H5_HAVE_PARALLEL
    if (o->has_comm)
        MPI_Comm_free(&o->comm);
    o->has_comm = false;
#else
    (void)o;
#endif
}

static const ncztr_opts *fapl_opts(hid_t fapl_id, ncztr_opts *o)
{
    H5VL_nczarr_info_t info;
    H5VL_nczarr_info_from_fapl(fapl_id, &info);
    opts_from_info(&info, o);
    return o;
}

/* A new open of a store (the store's first when st has no opens yet). */
static H5VL_nczarr_file_t *file_new(H5VL_nczarr_store_t *st, hid_t fapl)
{
    H5VL_nczarr_file_t *f = calloc(1, sizeof *f);
    if (!f) {
        NCZ_PUSH(NCZ_E_NOMEM, "out of memory opening \"%s\"", st->name);
        return NULL;
    }
    f->fapl = H5Pcopy(fapl == H5P_DEFAULT ? H5P_FILE_ACCESS_DEFAULT : fapl);
    if (f->fapl < 0) {
        NCZ_PUSH(NCZ_E_HDF5, "cannot copy the file access property list of \"%s\"", st->name);
        free(f);
        return NULL;
    }
    f->store = st;
    f->tf = st->tf;
    f->name = st->name;
    f->intent = st->intent;
    f->fileno = st->fileno;
    f->rc = 1;
    f->file_ids = 1;
    f->fobj.kind = H5VL_NCZARR_KIND_STORE;
    f->fobj.type = H5I_FILE;
    f->fobj.rc = 1;
    f->fobj.file = f;
    f->fobj.dapl = H5I_INVALID_HID;
    f->fobj.node = ncztr_file_root(st->tf);
    ncztr_obj_ref(ncztr_file_root(st->tf));
    st->rc++;
    return f;
}

/* Registers a store just created or opened, with its first open. Closes tf on failure. */
static H5VL_nczarr_file_t *store_wrap(ncztr_file *tf, const char *name, unsigned intent, hid_t fcpl,
                                      hid_t fapl)
{
    H5VL_nczarr_store_t *st = calloc(1, sizeof *st);
    if (!st || !(st->name = strdup(name))) {
        NCZ_PUSH(NCZ_E_NOMEM, "out of memory opening \"%s\"", name);
        free(st);
        ncztr_file_close(tf);
        return NULL;
    }
    st->tf = tf;
    st->intent = intent;
    st->fcpl = fcpl;
    st->fileno = g_next_fileno++;
    st->next = g_open_stores;
    g_open_stores = st;
    H5VL_nczarr_file_t *f = file_new(st, fapl);
    if (!f) {
        st->rc = 1;
        store_release(st, false);
    }
    return f;
}

/* H5Fcreate(H5F_ACC_TRUNC) of a store that is still open: what the open store holds is
 * written first, then the new store takes the path over, and the old one never writes
 * again (its objects read what they read, and refuse writes as a read-only store does).
 * HDF5 refuses to truncate an open file, but HDF5 1.14.6's H5DSattach_scale leaves the
 * references and datasets it opens open for good when the file is not native
 * (hl/src/H5DS.c), and those hold file ids no program can close: every netCDF-4 program
 * that creates a file name twice would stop here. */
static bool supersede(H5VL_nczarr_store_t *st, unsigned flags)
{
    if (!(flags & H5F_ACC_TRUNC) || (!ncztr_file_is_readonly(st->tf) && ncztr_file_flush(st->tf) < 0))
        return false;
    for (H5VL_nczarr_store_t **p = &g_open_stores; *p; p = &(*p)->next)
        if (*p == st) {
            *p = st->next;
            break;
        }
    st->next = NULL;
    ncztr_file_detach(st->tf);
    return true;
}

static H5VL_nczarr_store_t *find_open(const char *name)
{
    for (H5VL_nczarr_store_t *st = g_open_stores; st; st = st->next)
        if (strcmp(st->name, name) == 0 || strcmp(ncztr_file_location(st->tf), name) == 0)
            return st;
    return NULL;
}

void *H5VL_nczarr_file_create(const char *name, unsigned flags, hid_t fcpl_id, hid_t fapl_id, hid_t dxpl_id,
                              void **req)
{
    (void)dxpl_id;
    (void)req;
    H5VL_nczarr_info_t info;
    ncztr_opts opts;
    ncztr_file *tf = NULL;
    if (!name || !*name) {
        NCZ_PUSH(NCZ_E_ARGS, "file name is empty");
        return NULL;
    }
    H5VL_nczarr_store_t *open_st = find_open(name);
    if (open_st && !supersede(open_st, flags)) {
        NCZ_PUSH(NCZ_E_EXISTS, "cannot create \"%s\": it is open", name);
        return NULL;
    }
    H5VL_nczarr_info_from_fapl(fapl_id, &info);
    if (info.native_create)
        return H5VL_nczarr_native_file_create(name, flags, fcpl_id, fapl_id, dxpl_id, req);
    if (fcpl_id == H5P_DEFAULT)
        fcpl_id = H5P_FILE_CREATE_DEFAULT;
    hid_t fcpl = H5Pcopy(fcpl_id);
    if (fcpl < 0) {
        NCZ_PUSH(NCZ_E_HDF5, "cannot copy the file creation property list of \"%s\"", name);
        return NULL;
    }
    opts_from_info(&info, &opts);
    opts_take_comm(fapl_id, &opts);
    herr_t made = ncztr_file_create_hdf5(name, flags, &opts, &tf);
    opts_drop_comm(&opts);
    if (made < 0) {
        H5Pclose(fcpl);
        return NULL;
    }
    apply_info(tf, &info);
    /* NCZarr has no place for HDF5's file creation settings (user block, sizes, ...):
     * keep a non-default fcpl so that H5Fget_create_plist returns it after a reopen. */
    if (ncztr_obj_plist_keep(ncztr_file_root(tf), "fcpl", fcpl, H5P_FILE_CREATE_DEFAULT) < 0) {
        H5Pclose(fcpl);
        ncztr_file_close(tf);
        return NULL;
    }
    H5VL_nczarr_file_t *f = store_wrap(tf, name, H5F_ACC_RDWR, fcpl, fapl_id);
    return f ? &f->fobj : NULL;
}

void *H5VL_nczarr_file_open(const char *name, unsigned flags, hid_t fapl_id, hid_t dxpl_id, void **req)
{
    (void)dxpl_id;
    (void)req;
    H5VL_nczarr_info_t info;
    ncztr_opts opts;
    ncztr_file *tf = NULL;
    bool rw = (flags & H5F_ACC_RDWR) != 0;
    if (!name || !*name) {
        NCZ_PUSH(NCZ_E_ARGS, "file name is empty");
        return NULL;
    }
    H5VL_nczarr_store_t *st = find_open(name);
    if (st) {
        if (rw && st->intent != H5F_ACC_RDWR) {
            NCZ_PUSH(NCZ_E_ARGS, "\"%s\" is already open read-only", name);
            return NULL;
        }
        /* The same store opened again shares one model, as HDF5 shares one file. */
        H5VL_nczarr_file_t *f = file_new(st, fapl_id);
        return f ? &f->fobj : NULL;
    }
    H5VL_nczarr_info_from_fapl(fapl_id, &info);
    opts_from_info(&info, &opts);
    opts_take_comm(fapl_id, &opts);
    herr_t opened = ncztr_file_open(name, !rw, &opts, &tf);
    opts_drop_comm(&opts);
    if (opened < 0)
        return NULL;
    apply_info(tf, &info);
    hid_t fcpl = ncztr_obj_plist_kept(ncztr_file_root(tf), "fcpl");
    if (fcpl < 0)
        fcpl = H5Pcopy(H5P_FILE_CREATE_DEFAULT);
    if (fcpl < 0) {
        NCZ_PUSH(NCZ_E_HDF5, "cannot create a file creation property list for \"%s\"", name);
        ncztr_file_close(tf);
        return NULL;
    }
    H5VL_nczarr_file_t *f = store_wrap(tf, name, rw ? H5F_ACC_RDWR : H5F_ACC_RDONLY, fcpl, fapl_id);
    return f ? &f->fobj : NULL;
}

typedef struct {
    H5VL_nczarr_file_t *f;
    hid_t *list;
    size_t max, n;
    bool count_only;
    bool local; /* H5F_OBJ_LOCAL: only what was opened through this open */
    hid_t mine; /* this connector's id, looked up once per scan */
} idscan_t;

static herr_t scan_id(hid_t id, void *ud)
{
    idscan_t *s = ud;
    /* transient datatypes have no VOL object: H5VLobject would print an error */
    if (H5Iget_type(id) == H5I_DATATYPE && H5Tcommitted(id) <= 0)
        return 0;
    /* Behind the ids of native HDF5 files (through this connector or not) is no store object. */
    if (H5VL_nczarr_id_is_native(id))
        return 0;
    H5VL_nczarr_obj_t *o = H5VL_nczarr_store_object(id);
    if (!o)
        return 0;
    /* Only ids that belong to this connector and this store. */
    hid_t cid = H5VLget_connector_id(id);
    if (cid < 0)
        return 0;
    htri_t same = 0;
    if (s->mine >= 0) {
        int cmp = 1;
        same = H5VLcmp_connector_cls(&cmp, cid, s->mine) >= 0 && cmp == 0;
    }
    H5VLclose(cid);
    if (!same || (s->local ? o->file != s->f : o->file->store != s->f->store))
        return 0;
    if (!s->count_only && s->n < s->max)
        s->list[s->n] = id;
    s->n++;
    return 0;
}

static herr_t obj_ids(H5VL_nczarr_file_t *f, unsigned types, size_t max, hid_t *list, size_t *count)
{
    idscan_t s = {f, list, max, 0, list == NULL, (types & H5F_OBJ_LOCAL) != 0, H5VL_nczarr_connector_id()};
    (void)H5VL_nczarr_iterate_obj_ids(types, scan_id, &s);
    if (s.mine >= 0)
        H5VLclose(s.mine);
    *count = s.count_only ? s.n : (s.n < max ? s.n : max);
    return SUCCEED;
}

herr_t H5VL_nczarr_file_get(void *obj, H5VL_file_get_args_t *args, hid_t dxpl_id, void **req)
{
    (void)dxpl_id;
    (void)req;
    H5VL_nczarr_obj_t *o = obj;
    H5VL_nczarr_file_t *f = o->file;
    switch (args->op_type) {
    case H5VL_FILE_GET_CONT_INFO:
        args->args.get_cont_info.info->feature_flags = 0;
        args->args.get_cont_info.info->token_size = 8;
        args->args.get_cont_info.info->blob_id_size = H5VL_NCZARR_BLOB_ID_SIZE;
        return SUCCEED;
    case H5VL_FILE_GET_FAPL:
        if ((args->args.get_fapl.fapl_id = H5Pcopy(f->fapl)) < 0)
            return NCZ_PUSH(NCZ_E_HDF5, "cannot copy the file access plist");
        return SUCCEED;
    case H5VL_FILE_GET_FCPL:
        if ((args->args.get_fcpl.fcpl_id = H5Pcopy(f->store->fcpl)) < 0)
            return NCZ_PUSH(NCZ_E_HDF5, "cannot copy the file creation plist");
        return SUCCEED;
    case H5VL_FILE_GET_FILENO:
        *args->args.get_fileno.fileno = f->fileno;
        return SUCCEED;
    case H5VL_FILE_GET_INTENT:
        *args->args.get_intent.flags = f->intent;
        return SUCCEED;
    case H5VL_FILE_GET_NAME: {
        size_t len = H5VL_nczarr_copy_name(f->name, args->args.get_name.buf, args->args.get_name.buf_size);
        *args->args.get_name.file_name_len = len;
        return SUCCEED;
    }
    case H5VL_FILE_GET_OBJ_COUNT:
        return obj_ids(f, args->args.get_obj_count.types, 0, NULL, args->args.get_obj_count.count);
    case H5VL_FILE_GET_OBJ_IDS:
        return obj_ids(f, args->args.get_obj_ids.types, args->args.get_obj_ids.max_objs,
                       args->args.get_obj_ids.oid_list, args->args.get_obj_ids.count);
    default:
        return NCZ_PUSH(NCZ_E_UNSUPPORTED, "file get operation %d is not supported", (int)args->op_type);
    }
}

herr_t H5VL_nczarr_file_specific(void *obj, H5VL_file_specific_args_t *args, hid_t dxpl_id, void **req)
{
    (void)dxpl_id;
    (void)req;
    H5VL_nczarr_obj_t *o = obj;
    ncztr_opts opts;
    switch (args->op_type) {
    case H5VL_FILE_FLUSH:
        if (!o)
            return NCZ_PUSH(NCZ_E_ARGS, "flush: no file");
        if (ncztr_file_flush(o->file->tf) < 0)
            return NCZ_PUSH(NCZ_E_STORE, "flushing \"%s\" failed", o->file->name);
        return SUCCEED;
    case H5VL_FILE_REOPEN: {
        /* A new open of the same store, as HDF5 makes a new H5F_t sharing the file. */
        H5VL_nczarr_file_t *f = file_new(o->file->store, o->file->fapl);
        if (!f)
            return FAIL;
        *args->args.reopen.file = &f->fobj;
        return SUCCEED;
    }
    case H5VL_FILE_IS_ACCESSIBLE:
        /* obj is NULL here; netCDF-C asks about every path and URL it opens: say "no"
         * quietly for anything that is not a store of ours. */
        *args->args.is_accessible.accessible = ncztr_is_store(
            args->args.is_accessible.filename, fapl_opts(args->args.is_accessible.fapl_id, &opts));
        return SUCCEED;
    case H5VL_FILE_DELETE:
        if (!ncztr_is_store(args->args.del.filename, fapl_opts(args->args.del.fapl_id, &opts)))
            return NCZ_PUSH(NCZ_E_NOTFOUND, "cannot delete \"%s\": it is not a Zarr store",
                            args->args.del.filename);
        if (find_open(args->args.del.filename))
            return NCZ_PUSH(NCZ_E_ARGS, "cannot delete \"%s\": it is open", args->args.del.filename);
        return ncztr_delete_store(args->args.del.filename, &opts);
    case H5VL_FILE_IS_EQUAL: {
        H5VL_nczarr_obj_t *o2 = args->args.is_equal.obj2;
        *args->args.is_equal.same_file = o && o2 && o->file->store == o2->file->store;
        return SUCCEED;
    }
    default:
        return NCZ_PUSH(NCZ_E_UNSUPPORTED, "file operation %d is not supported", (int)args->op_type);
    }
}

/* h5stat's questions about a file. A store has no superblock, object headers or free space
 * of HDF5's: its size is the sum of its objects, the rest is zero. */
herr_t H5VL_nczarr_file_optional(void *obj, H5VL_optional_args_t *args, hid_t dxpl_id, void **req)
{
    (void)dxpl_id;
    (void)req;
    H5VL_nczarr_obj_t *o = obj;
    H5VL_native_file_optional_args_t *na = args->args;
    switch (args->op_type) {
    case H5VL_NATIVE_FILE_GET_SIZE: {
        uint64_t n = 0;
        if (!o || !o->file || ncztr_file_stored_bytes(o->file->tf, &n) < 0)
            return FAIL;
        *na->get_size.size = (hsize_t)n;
        return SUCCEED;
    }
    case H5VL_NATIVE_FILE_GET_INFO:
        memset(na->get_info.finfo, 0, sizeof *na->get_info.finfo);
        return SUCCEED;
    case H5VL_NATIVE_FILE_GET_FREE_SPACE:
        *na->get_freespace.size = 0;
        return SUCCEED;
    case H5VL_NATIVE_FILE_GET_FREE_SECTIONS:
        *na->get_free_sections.sect_count = 0;
        return SUCCEED;
    default:
        return NCZ_NATIVE_ONLY("file", args->op_type);
    }
}

herr_t H5VL_nczarr_file_close(void *obj, hid_t dxpl_id, void **req)
{
    (void)dxpl_id;
    (void)req;
    H5VL_nczarr_obj_t *o = obj;
    H5VL_nczarr_file_t *f = o->file;
    if (f->file_ids > 0)
        f->file_ids--;
    return H5VL_nczarr_file_release(f);
}
