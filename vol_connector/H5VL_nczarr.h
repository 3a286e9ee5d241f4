/* Internal declarations of the nczarr VOL connector: the objects behind HDF5 ids and the
 * helpers every callback file shares. Callbacks never touch keys or JSON: they translate
 * HDF5 arguments into calls on the model (translate/model/ncztr_model.h, included with
 * translate/store/ncztr_store.h). */
#ifndef H5VL_NCZARR_H
#define H5VL_NCZARR_H

#include <hdf5.h>
#include <H5VLconnector.h>
#include <H5VLnative.h>
#include <H5PLextern.h>

#include "ncztr_err.h"
#include "ncztr_store.h"

#define H5VL_NCZARR_NAME "nczarr"
/* In HDF5's range for connectors under test (256-511); to be registered with The HDF
 * Group before a release. */
#define H5VL_NCZARR_VALUE   391
#define H5VL_NCZARR_VERSION 1

/* The optional operations of native HDF5 that a Zarr store has no equivalent for. */
#define NCZ_NATIVE_ONLY(what, op)                                                                            \
    NCZ_PUSH(NCZ_E_UNSUPPORTED,                                                                              \
             what " operation %d is specific to native HDF5 files and is not supported on "                  \
                  "Zarr stores",                                                                             \
             (int)(op))

/* Connector info: from HDF5_VOL_CONNECTOR="nczarr <options>", --vol-info, or
 * H5Pset_fapl_nczarr-style code. All-zero means the defaults. */
typedef struct H5VL_nczarr_info_t {
    unsigned pure_zarr;        /* mode=zarr */
    unsigned noxarray;         /* no _ARRAY_DIMENSIONS */
    unsigned zip_root;         /* zip keys at the archive root */
    unsigned zip_names;        /* "zip": a plain name is a zip archive, whatever its suffix */
    unsigned consolidate;      /* write .zmetadata */
    size_t maxstrlen;          /* default NC_STRING width; 0 = 128 */
    unsigned workers;          /* threads for chunk work and store batches; 0 = one per core */
    unsigned ascii_json;       /* metadata JSON in ASCII, non-ASCII text as \\u escapes */
    unsigned ignore_zmetadata; /* open without reading .zmetadata (it may be stale) */
    unsigned v3;               /* create Zarr v3 stores */
    unsigned shards;           /* Zarr v3: HDF5 chunks per shard in each dimension (0: none) */
    unsigned native_create;    /* "native": H5Fcreate makes a native HDF5 file (served like
                                * any native file the connector opens) */
    /* The store kinds' options as "name=value" lines (S3: endpoint, region, profile,
     * anonymous, cainfo, connections, retry_seconds, ...; s3root), applied to the store's
     * name by translate/, which knows them. Never secrets: the info string is printed
     * (h5dump, H5Pget_vol_info). */
    char storeopts[1024];
} H5VL_nczarr_info_t;

/* One open store (HDF5's H5F_shared_t): shared by every open of the same store. */
typedef struct H5VL_nczarr_store_t H5VL_nczarr_store_t;
/* One H5Fcreate/H5Fopen/H5Freopen of a store (HDF5's H5F_t): the objects opened through
 * it count towards H5Fget_obj_count(H5F_OBJ_LOCAL). */
typedef struct H5VL_nczarr_file_t H5VL_nczarr_file_t;
/* The first member of every object the connector hands to HDF5: the objects of stores
 * (H5VL_nczarr_obj_t, kind 0) and those of native HDF5 files opened through the connector
 * (H5VL_nczarr_native_t in H5VL_nczarr_native.h), which the callbacks tell apart by it. */
#define H5VL_NCZARR_KIND_STORE  0u
#define H5VL_NCZARR_KIND_NATIVE 0x4e415456u
/* What stands behind a file, group, dataset, attribute or datatype id of a store. */
typedef struct H5VL_nczarr_obj_t {
    unsigned kind; /* H5VL_NCZARR_KIND_STORE */
    H5I_type_t type;
    int rc;                   /* references held by HDF5 ids and by iteration wrappers */
    H5VL_nczarr_file_t *file; /* counted in file->rc (except the file object itself) */
    ncztr_obj *node;          /* the group/dataset (root for files); attribute's owner */
    ncztr_attr *attr;         /* for H5I_ATTR */
    hid_t dapl;               /* datasets: the application's access plist (a copy), or -1 */
    /* committed datatypes: a transient copy of the type. HDF5 takes the connector's object
     * of a committed datatype for an H5T_t where it looks behind the id (H5T_get_actual_type,
     * at the latest when the library shuts down), so get_object hands it this copy's. */
    hid_t dtype;
    void *dtype_t; /* its H5T_t, taken when made (HDF5's API refuses calls while it shuts down) */
    struct H5VL_nczarr_obj_t *dtype_next; /* the list of live datatype objects */
} H5VL_nczarr_obj_t;

/* The blobs of a store (H5VL_nczarr_blob.c). */
typedef struct H5VL_nczarr_blobs_t H5VL_nczarr_blobs_t;
#define H5VL_NCZARR_BLOB_ID_SIZE 8

struct H5VL_nczarr_store_t {
    int rc; /* H5VL_nczarr_file_t opens of this store */
    ncztr_file *tf;
    char *name; /* the name given to the first create/open */
    unsigned intent;
    hid_t fcpl; /* as created, or as kept in the store */
    unsigned long fileno;
    H5VL_nczarr_blobs_t *blobs; /* variable-length values converted to our file types */
    H5VL_nczarr_store_t *next;  /* registry of open stores (same store opened twice) */
};

struct H5VL_nczarr_file_t {
    int rc;                 /* file ids + every other object opened through this open */
    int file_ids;           /* HDF5 file ids currently backed by fobj */
    H5VL_nczarr_obj_t fobj; /* the object behind file ids (object.get(FILE) returns it) */
    H5VL_nczarr_store_t *store;
    ncztr_file *tf;  /* store->tf */
    char *name;      /* store->name */
    unsigned intent; /* H5F_ACC_RDWR or H5F_ACC_RDONLY */
    hid_t fapl;
    unsigned long fileno; /* store->fileno: the same for every open, as in HDF5 */
    /* an open no id stands for any more, whose store could not be written when its last
     * object closed: kept (on a list) for another try at exit, then freed */
    struct H5VL_nczarr_file_t *next_orphan;
};

extern const H5VL_class_t H5VL_nczarr_g;
/* The class HDF5 initialised (H5VL_nczarr_g; set by its initialize callback): for the
 * callbacks that return it, which must not name the class that names them. */
extern const H5VL_class_t *H5VL_nczarr_class;
/* A new reference to the connector's id (close it with H5VLclose). */
hid_t H5VL_nczarr_connector_id(void);

/* ---- objects (H5VL_nczarr_file.c) ---- */
H5VL_nczarr_obj_t *H5VL_nczarr_obj_new(H5I_type_t type, H5VL_nczarr_file_t *file, ncztr_obj *node,
                                       ncztr_attr *attr);
/* Drops one reference; frees at zero (closing the store when it was the last user). */
herr_t H5VL_nczarr_obj_release(H5VL_nczarr_obj_t *o);
/* The store object behind an id of this connector (H5VLobject, except that a committed
 * datatype's id gives its H5T_t: see H5VL_nczarr_obj_t.dtype), or NULL. */
H5VL_nczarr_obj_t *H5VL_nczarr_store_object(hid_t id);
/* Registers a new id for node (for iteration callbacks); the id owns one reference. */
hid_t H5VL_nczarr_wrap_register(H5VL_nczarr_file_t *file, ncztr_obj *node);
herr_t H5VL_nczarr_file_release(H5VL_nczarr_file_t *f);
/* Writes every store still open (an H5atclose callback: see nczarr_initialize). */
void H5VL_nczarr_flush_at_exit(void *ctx);
/* The library starts (again): stores are written on close as usual. */
void H5VL_nczarr_exit_reset(void);

/* Closes an iteration's location id. H5Idec_ref, like every public HDF5 call, clears the
 * error stack on entry: after a failed callback keep what it and the connector pushed. */
void H5VL_nczarr_drop_id(hid_t id, bool keep_errors);
/* Property lists HDF5 leaves for the connector to check: fails for ids that are not
 * property lists of class cls (any class when cls < 0); H5P_DEFAULT is fine. */
herr_t H5VL_nczarr_check_plist(hid_t id, hid_t cls, const char *what);
/* The link access plist of a BY_NAME/BY_IDX location. */
herr_t H5VL_nczarr_check_lapl(const H5VL_loc_params_t *lp);

/* Resolves loc_params against obj to a node: BY_SELF, BY_NAME (relative or absolute, "."
 * ok), BY_IDX (the n-th link of the named group), BY_TOKEN. Pushes an error and returns
 * NULL when it does not exist. */
ncztr_obj *H5VL_nczarr_resolve(H5VL_nczarr_obj_t *obj, const H5VL_loc_params_t *lp);
/* The group/dataset node an object id stands for (the root for a file id; the owner for
 * an attribute id). */
ncztr_obj *H5VL_nczarr_node(H5VL_nczarr_obj_t *obj);

/* Tokens: the node id in the first 8 bytes (little-endian), zero padded. */
void H5VL_nczarr_token_encode(uint64_t id, H5O_token_t *tok);
uint64_t H5VL_nczarr_token_decode(const H5O_token_t *tok);
/* Lets the model turn references in attribute values into object ids and back, through
 * this open of the store (H5VL_nczarr_ref.c). */
void H5VL_nczarr_set_refops(H5VL_nczarr_file_t *f);
/* Fills an H5O_info2_t for a node. */
herr_t H5VL_nczarr_fill_oinfo(H5VL_nczarr_file_t *f, ncztr_obj *n, unsigned fields, H5O_info2_t *oinfo);
H5O_type_t H5VL_nczarr_otype(const ncztr_obj *n);
/* The id type of a node: group, dataset or (committed) datatype. */
H5I_type_t H5VL_nczarr_itype(const ncztr_obj *n);
/* Does the link creation plist ask for missing intermediate groups to be created? */
bool H5VL_nczarr_lcpl_intermediate(hid_t lcpl_id);
/* Copies a name into an HDF5-style (buf, size) pair; returns the full length. */
size_t H5VL_nczarr_copy_name(const char *name, char *buf, size_t size);

/* ---- callbacks, one file per HDF5 object class ---- */
/* info (H5VL_nczarr_info.c) */
void *H5VL_nczarr_info_copy(const void *info);
herr_t H5VL_nczarr_info_cmp(int *cmp_value, const void *info1, const void *info2);
herr_t H5VL_nczarr_info_free(void *info);
herr_t H5VL_nczarr_info_to_str(const void *info, char **str);
herr_t H5VL_nczarr_str_to_info(const char *str, void **info);
/* Reads the info of a fapl (defaults when none) into out, and the model options. */
void H5VL_nczarr_info_from_fapl(hid_t fapl_id, H5VL_nczarr_info_t *out);
/* H5Iiterate over the id types that H5F_OBJ_* flags in types select (H5Fget_obj_ids of a
 * store and of a native file); FAIL when an iteration failed. */
herr_t H5VL_nczarr_iterate_obj_ids(unsigned types, H5I_iterate_func_t cb, void *ud);

/* file (H5VL_nczarr_file.c) */
void *H5VL_nczarr_file_create(const char *name, unsigned flags, hid_t fcpl_id, hid_t fapl_id, hid_t dxpl_id,
                              void **req);
void *H5VL_nczarr_file_open(const char *name, unsigned flags, hid_t fapl_id, hid_t dxpl_id, void **req);
herr_t H5VL_nczarr_file_get(void *file, H5VL_file_get_args_t *args, hid_t dxpl_id, void **req);
herr_t H5VL_nczarr_file_specific(void *file, H5VL_file_specific_args_t *args, hid_t dxpl_id, void **req);
herr_t H5VL_nczarr_file_optional(void *file, H5VL_optional_args_t *args, hid_t dxpl_id, void **req);
herr_t H5VL_nczarr_file_close(void *file, hid_t dxpl_id, void **req);

/* group (H5VL_nczarr_group.c) */
void *H5VL_nczarr_group_create(void *obj, const H5VL_loc_params_t *loc_params, const char *name,
                               hid_t lcpl_id, hid_t gcpl_id, hid_t gapl_id, hid_t dxpl_id, void **req);
void *H5VL_nczarr_group_open(void *obj, const H5VL_loc_params_t *loc_params, const char *name, hid_t gapl_id,
                             hid_t dxpl_id, void **req);
herr_t H5VL_nczarr_group_get(void *obj, H5VL_group_get_args_t *args, hid_t dxpl_id, void **req);
herr_t H5VL_nczarr_group_specific(void *obj, H5VL_group_specific_args_t *args, hid_t dxpl_id, void **req);
herr_t H5VL_nczarr_group_optional(void *obj, H5VL_optional_args_t *args, hid_t dxpl_id, void **req);
herr_t H5VL_nczarr_group_close(void *grp, hid_t dxpl_id, void **req);
/* A gcpl that says link and attribute creation order are tracked and indexed. */
hid_t H5VL_nczarr_default_gcpl(void);

/* dataset (H5VL_nczarr_dataset.c) */
void *H5VL_nczarr_dataset_create(void *obj, const H5VL_loc_params_t *loc_params, const char *name,
                                 hid_t lcpl_id, hid_t type_id, hid_t space_id, hid_t dcpl_id, hid_t dapl_id,
                                 hid_t dxpl_id, void **req);
void *H5VL_nczarr_dataset_open(void *obj, const H5VL_loc_params_t *loc_params, const char *name,
                               hid_t dapl_id, hid_t dxpl_id, void **req);
herr_t H5VL_nczarr_dataset_read(size_t count, void *dset[], hid_t mem_type_id[], hid_t mem_space_id[],
                                hid_t file_space_id[], hid_t dxpl_id, void *buf[], void **req);
herr_t H5VL_nczarr_dataset_write(size_t count, void *dset[], hid_t mem_type_id[], hid_t mem_space_id[],
                                 hid_t file_space_id[], hid_t dxpl_id, const void *buf[], void **req);
herr_t H5VL_nczarr_dataset_get(void *dset, H5VL_dataset_get_args_t *args, hid_t dxpl_id, void **req);
herr_t H5VL_nczarr_dataset_specific(void *obj, H5VL_dataset_specific_args_t *args, hid_t dxpl_id, void **req);
herr_t H5VL_nczarr_dataset_optional(void *obj, H5VL_optional_args_t *args, hid_t dxpl_id, void **req);
herr_t H5VL_nczarr_dataset_close(void *dset, hid_t dxpl_id, void **req);

/* attribute (H5VL_nczarr_attr.c) */
void *H5VL_nczarr_attr_create(void *obj, const H5VL_loc_params_t *loc_params, const char *attr_name,
                              hid_t type_id, hid_t space_id, hid_t acpl_id, hid_t aapl_id, hid_t dxpl_id,
                              void **req);
void *H5VL_nczarr_attr_open(void *obj, const H5VL_loc_params_t *loc_params, const char *attr_name,
                            hid_t aapl_id, hid_t dxpl_id, void **req);
herr_t H5VL_nczarr_attr_read(void *attr, hid_t mem_type_id, void *buf, hid_t dxpl_id, void **req);
herr_t H5VL_nczarr_attr_write(void *attr, hid_t mem_type_id, const void *buf, hid_t dxpl_id, void **req);
herr_t H5VL_nczarr_attr_get(void *obj, H5VL_attr_get_args_t *args, hid_t dxpl_id, void **req);
herr_t H5VL_nczarr_attr_specific(void *obj, const H5VL_loc_params_t *loc_params,
                                 H5VL_attr_specific_args_t *args, hid_t dxpl_id, void **req);
herr_t H5VL_nczarr_attr_optional(void *obj, H5VL_optional_args_t *args, hid_t dxpl_id, void **req);
herr_t H5VL_nczarr_attr_close(void *attr, hid_t dxpl_id, void **req);

/* datatype (H5VL_nczarr_datatype.c): committed datatypes are not representable */
void *H5VL_nczarr_datatype_commit(void *obj, const H5VL_loc_params_t *loc_params, const char *name,
                                  hid_t type_id, hid_t lcpl_id, hid_t tcpl_id, hid_t tapl_id, hid_t dxpl_id,
                                  void **req);
void *H5VL_nczarr_datatype_open(void *obj, const H5VL_loc_params_t *loc_params, const char *name,
                                hid_t tapl_id, hid_t dxpl_id, void **req);
herr_t H5VL_nczarr_datatype_get(void *dt, H5VL_datatype_get_args_t *args, hid_t dxpl_id, void **req);
herr_t H5VL_nczarr_datatype_specific(void *obj, H5VL_datatype_specific_args_t *args, hid_t dxpl_id,
                                     void **req);
herr_t H5VL_nczarr_datatype_optional(void *obj, H5VL_optional_args_t *args, hid_t dxpl_id, void **req);
herr_t H5VL_nczarr_datatype_close(void *dt, hid_t dxpl_id, void **req);

/* link (H5VL_nczarr_link.c) */
#ifndef H5_NO_DEPRECATED_SYMBOLS
/* H5Giterate (the native group operation ITERATE_OLD): the links of the group lp names, in
 * name order from idx on, each handed to op(group id, name, op_data); *last is the index
 * after the last one, as HDF5 sets it. */
herr_t H5VL_nczarr_link_iterate_old(H5VL_nczarr_obj_t *o, const H5VL_loc_params_t *lp, hsize_t idx,
                                    hsize_t *last, H5G_iterate_t op, void *op_data);
/* H5Gget_objinfo (GET_OBJINFO): what lp names, or with follow false a soft or external link
 * itself; objno is the object's id (its token), mtime and the header figures 0. */
herr_t H5VL_nczarr_link_stat(H5VL_nczarr_obj_t *o, const H5VL_loc_params_t *lp, bool follow, H5G_stat_t *st);
#endif
herr_t H5VL_nczarr_link_create(H5VL_link_create_args_t *args, void *obj, const H5VL_loc_params_t *loc_params,
                               hid_t lcpl_id, hid_t lapl_id, hid_t dxpl_id, void **req);
herr_t H5VL_nczarr_link_copy(void *src_obj, const H5VL_loc_params_t *loc_params1, void *dst_obj,
                             const H5VL_loc_params_t *loc_params2, hid_t lcpl_id, hid_t lapl_id,
                             hid_t dxpl_id, void **req);
herr_t H5VL_nczarr_link_move(void *src_obj, const H5VL_loc_params_t *loc_params1, void *dst_obj,
                             const H5VL_loc_params_t *loc_params2, hid_t lcpl_id, hid_t lapl_id,
                             hid_t dxpl_id, void **req);
herr_t H5VL_nczarr_link_get(void *obj, const H5VL_loc_params_t *loc_params, H5VL_link_get_args_t *args,
                            hid_t dxpl_id, void **req);
herr_t H5VL_nczarr_link_specific(void *obj, const H5VL_loc_params_t *loc_params,
                                 H5VL_link_specific_args_t *args, hid_t dxpl_id, void **req);
herr_t H5VL_nczarr_link_optional(void *obj, const H5VL_loc_params_t *loc_params, H5VL_optional_args_t *args,
                                 hid_t dxpl_id, void **req);

/* object (H5VL_nczarr_object.c) */
void *H5VL_nczarr_object_open(void *obj, const H5VL_loc_params_t *loc_params, H5I_type_t *opened_type,
                              hid_t dxpl_id, void **req);
herr_t H5VL_nczarr_object_copy(void *src_obj, const H5VL_loc_params_t *loc_params1, const char *src_name,
                               void *dst_obj, const H5VL_loc_params_t *loc_params2, const char *dst_name,
                               hid_t ocpypl_id, hid_t lcpl_id, hid_t dxpl_id, void **req);
herr_t H5VL_nczarr_object_get(void *obj, const H5VL_loc_params_t *loc_params, H5VL_object_get_args_t *args,
                              hid_t dxpl_id, void **req);
herr_t H5VL_nczarr_object_specific(void *obj, const H5VL_loc_params_t *loc_params,
                                   H5VL_object_specific_args_t *args, hid_t dxpl_id, void **req);
herr_t H5VL_nczarr_object_optional(void *obj, const H5VL_loc_params_t *loc_params, H5VL_optional_args_t *args,
                                   hid_t dxpl_id, void **req);

/* introspection, tokens, blobs (H5VL_nczarr.c, H5VL_nczarr_token.c, H5VL_nczarr_blob.c) */
herr_t H5VL_nczarr_introspect_get_conn_cls(void *obj, H5VL_get_conn_lvl_t lvl, const H5VL_class_t **conn_cls);
herr_t H5VL_nczarr_introspect_get_cap_flags(const void *info, uint64_t *cap_flags);
herr_t H5VL_nczarr_introspect_opt_query(void *obj, H5VL_subclass_t cls, int opt_type, uint64_t *flags);
herr_t H5VL_nczarr_token_cmp(void *obj, const H5O_token_t *token1, const H5O_token_t *token2, int *cmp_value);
herr_t H5VL_nczarr_token_to_str(void *obj, H5I_type_t obj_type, const H5O_token_t *token, char **token_str);
herr_t H5VL_nczarr_token_from_str(void *obj, H5I_type_t obj_type, const char *token_str, H5O_token_t *token);
herr_t H5VL_nczarr_blob_put(void *obj, const void *buf, size_t size, void *blob_id, void *ctx);
herr_t H5VL_nczarr_blob_get(void *obj, const void *blob_id, void *buf, size_t size, void *ctx);
herr_t H5VL_nczarr_blob_specific(void *obj, void *blob_id, H5VL_blob_specific_args_t *args);
/* Frees the blobs left when the store closes. */
void H5VL_nczarr_blobs_free(H5VL_nczarr_store_t *st);

#endif
