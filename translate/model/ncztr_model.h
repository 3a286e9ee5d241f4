/* The in-memory model of an open store: a tree of groups and arrays with attributes and
 * shared dimensions. Built from the store on open (NCZarr lists, consolidated .zmetadata,
 * or listing for pure Zarr; the metadata of arrays NCZarr lists is read on first use,
 * ncztr_obj_load) and written back on flush/close, rewriting only dirty
 * metadata objects. The VOL connector works only through this API (with the data and
 * store layers above it, translate/store/ncztr_store.h); it never sees keys, JSON or the
 * model's structs, which are opaque here (ncztr_model_internal.h defines them).
 *
 * Ownership: the file owns every node reachable from the root. Nodes and attributes are
 * reference counted so that a handle opened by the application outlives an H5Ldelete or
 * an H5Adelete (it then reports the object as deleted). ncztr_obj_ref/unref.
 */
#ifndef NCZTR_MODEL_H
#define NCZTR_MODEL_H

#include "ncztr_refval.h"
#include "ncztr_err.h"
#include "ncztr_zarray.h"
#include "nczm.h"
#include "nczc_hash.h"

#include <stdbool.h>

typedef struct ncztr_file ncztr_file;
typedef struct ncztr_obj ncztr_obj;
typedef struct ncztr_attr ncztr_attr;
typedef struct ncztr_array ncztr_array;
typedef struct ncztr_chunkcache ncztr_chunkcache;

/* NCZTR_ALIAS: an extra hard link, a further name of a group or array (ncztr_alias.c). */
typedef enum ncztr_objkind { NCZTR_GROUP = 1, NCZTR_ARRAY = 2, NCZTR_ALIAS = 3 } ncztr_objkind;

/* Options from the connector info string / URL mode. */
typedef struct ncztr_opts {
    bool pure_zarr;        /* mode=zarr: write no _nczarr_* keys */
    bool noxarray;         /* do not write _ARRAY_DIMENSIONS */
    bool zip_root;         /* zip: keys at the archive root */
    bool zip_names;        /* a plain name is a zip archive, whatever its suffix */
    bool consolidate;      /* write .zmetadata on flush */
    bool ascii_json;       /* write metadata JSON as ASCII (\\u escapes) */
    bool ignore_zmetadata; /* open without reading .zmetadata: it may be stale */
    bool v3;               /* create Zarr v3 stores (an existing store keeps its format) */
    unsigned shards;       /* Zarr v3: N x N x ... HDF5 chunks per shard (0, 1: no sharding) */
    char storeopts[1024];  /* the store kinds' options (ncztr_store_option), "name=value" lines */
#ifdef H5_HAVE_PARALLEL
    /* The file access list's communicator (H5Pget_mpi_params: the caller's duplicate, freed
     * by whoever made the opts). With more than one rank the file is opened by all of them
     * together (translate/par). */
    bool has_comm;
    MPI_Comm comm;
#endif
} ncztr_opts;

/* ---- nodes ---- */
void ncztr_obj_ref(ncztr_obj *o);
void ncztr_obj_unref(ncztr_obj *o);
/* Path of the node from the root ("/" for the root, "/sub/v"): malloc'ed. */
char *ncztr_obj_path(const ncztr_obj *o);
/* The path of a node for messages, in a caller buffer (never NULL). A deleted node has no
 * path any more, so it is named by its last link name. */
const char *ncztr_obj_where(const ncztr_obj *n, char *buf, size_t size);
/* The store key prefix of a node ("" for the root, "sub/v"): malloc'ed. */
char *ncztr_obj_key(const ncztr_obj *o);
/* Resolves a path relative to base ("." = base, leading '/' = from the root). Returns
 * NULL quietly when any component is missing (*missing_is_error pushes otherwise). */
ncztr_obj *ncztr_find(ncztr_obj *base, const char *path);
herr_t ncztr_lookup(ncztr_obj *base, const char *path, ncztr_obj **out);
ncztr_obj *ncztr_find_by_id(ncztr_file *f, uint64_t id);
ncztr_obj *ncztr_child(const ncztr_obj *g, const char *name);
/* The child named by the first len bytes of name. */
ncztr_obj *ncztr_child_len(const ncztr_obj *g, const char *name, size_t len);
/* The n-th child in the given index and order (name index sorts by strcmp). */
ncztr_obj *ncztr_child_by_idx(const ncztr_obj *g, H5_index_t idx, H5_iter_order_t order, hsize_t n);
/* Children sorted as asked: a malloc'ed array of g->nchildren pointers. */
ncztr_obj **ncztr_children_sorted(const ncztr_obj *g, H5_index_t idx, H5_iter_order_t order);
/* Checks a new link name: non-empty, no '/', not "." or "..", no control characters. */
herr_t ncztr_check_name(const char *name, const char *what);
/* Resolves "a/b/c" under base for creation: *parent = node of "a/b" (created when
 * create_intermediate), *leaf = "c" (malloc'ed). Fails if the leaf exists. */
herr_t ncztr_resolve_new(ncztr_obj *base, const char *path, bool create_intermediate, ncztr_obj **parent,
                         char **leaf);
/* Fails (NOTREPR) when a child `name` of parent would need keys longer than the store
 * allows; extra = the longest suffix the child adds ("/.zattrs", chunk indices). */
herr_t ncztr_check_key_room(const ncztr_obj *parent, const char *name, size_t extra);
herr_t ncztr_group_create(ncztr_obj *parent, const char *name, ncztr_obj **out);
/* Creates an array node (see ncztr_array.c for the type/space/dcpl rules). */
herr_t ncztr_array_create(ncztr_obj *parent, const char *name, hid_t type, hid_t space, hid_t dcpl,
                          hid_t dapl, ncztr_obj **out);
/* An anonymous dataset (H5Dcreate_anon): like an anonymous group, in memory until
 * ncztr_link_anon names it. Its data has no key before that: reading or writing it fails
 * (ncztr_array_check_stored). */
herr_t ncztr_array_create_anon(ncztr_file *f, hid_t type, hid_t space, hid_t dcpl, hid_t dapl,
                               ncztr_obj **out);
/* Committed datatypes (ncztr_datatype.c): arrays of the type with no elements, marked as
 * datatypes; H5Tcommit2 (named) and H5Tcommit_anon (linked later by ncztr_link_anon). */
herr_t ncztr_datatype_create(ncztr_obj *parent, const char *name, hid_t type, ncztr_obj **out);
herr_t ncztr_datatype_create_anon(ncztr_file *f, hid_t type, ncztr_obj **out);
bool ncztr_obj_is_datatype(const ncztr_obj *o);
/* Reads an array's .zarray/.zattrs if that was put off on open (see ncztr_array.stub); a
 * no-op otherwise. Every use of an array's metadata or attributes goes through it (the
 * model's functions call it): what cannot be read becomes the array's load_error, as on
 * open. FAIL only when out of memory. For a group of a read-only store whose .zattrs and
 * members were put off (ncztr_obj.pending), reads them: every use of its members,
 * attributes or dimensions goes through it, and a group that cannot be read fails here,
 * naming its key, at every use. ncztr_tree_load: every group and array at or below o.
 * ncztr_tree_load_readable: the same, passing over the groups that cannot be read (each
 * keeps its error for its own uses), for what counts over the whole tree; FAIL only when
 * out of memory. */
herr_t ncztr_obj_load(const ncztr_obj *o);
herr_t ncztr_tree_load(ncztr_obj *o);
herr_t ncztr_tree_load_readable(ncztr_obj *o);
/* Number of attributes of a node. */
size_t ncztr_obj_nattrs(const ncztr_obj *o);
/* Why an array cannot be used (its metadata did not load), or NULL. */
const char *ncztr_array_load_error(const ncztr_obj *o);
/* Pushes, as a warning, what loading the array had to make of its metadata (nothing when
 * it was as it should be): the dataset open callback calls it. */
void ncztr_array_warn_loaded(const ncztr_obj *o);
/* The chunk cache budget of an array (H5Pset_chunk_cache's bytes); the dapl's size replaces the
 * default only where the application set one. */
size_t ncztr_array_cache_bytes(const ncztr_obj *o);
void ncztr_array_set_cache_from_dapl(ncztr_obj *o, hid_t dapl);
/* Removes a link and, on the next flush, the object's keys. */
herr_t ncztr_unlink(ncztr_obj *o);
bool ncztr_is_ancestor(const ncztr_obj *a, const ncztr_obj *b);
/* An anonymous group: no link, nothing in the store; freed with its last handle unless
 * ncztr_link_anon gives it its (one) name. Objects cannot be created inside it. */
herr_t ncztr_group_create_anon(ncztr_file *f, ncztr_obj **out);
herr_t ncztr_link_anon(ncztr_obj *o, ncztr_obj *parent, const char *name);
/* True for nodes that are not reachable from the root (deleted or anonymous). */
bool ncztr_obj_unlinked(const ncztr_obj *o);
/* HDF5 settings kept in .zattrs as "_nczarr_attr": {"hdf5": {key: value}} (netCDF-C hides
 * "_nczarr_attr" and reads only its "types"). get: NULL when absent. set:
 * value NULL removes the key. */
const char *ncztr_obj_hdf5_get(const ncztr_obj *o, const char *key);
herr_t ncztr_obj_hdf5_set(ncztr_obj *o, const char *key, const char *value);
/* Keeps a creation plist that differs from HDF5's default for its class with the node
 * (under `key`, encoded; removed when it is the default): ncztr_plist.c. */
herr_t ncztr_obj_plist_keep(ncztr_obj *n, const char *key, hid_t plist, hid_t default_plist);
/* The creation plist kept under `key`, or H5I_INVALID_HID quietly when there is none. */
hid_t ncztr_obj_plist_kept(const ncztr_obj *n, const char *key);

/* ---- extra hard links (ncztr_alias.c) ----
 * An alias is a member of a group that names another group or array; it owns no keys. It
 * is stored in its group's "_nczarr_group.hdf5_links" ({name: absolute path}), so pure
 * Zarr (mode=zarr) cannot hold one. */
herr_t ncztr_alias_create(ncztr_obj *target, ncztr_obj *parent, const char *name);
/* ncztr_check_link_name for an alias's name (messages say "hard link"). */
herr_t ncztr_check_alias_name(const char *name);
/* Soft links (cls H5L_TYPE_SOFT, value: a path resolved from parent on every use, which may
 * name nothing) and external links (H5L_TYPE_EXTERNAL, value: the object's path in `file`,
 * never followed by the connector) are aliases too, kept in the same "hdf5_links" as
 * {"soft": value} and {"external": {"file": file, "path": value}}. */
herr_t ncztr_symlink_create(ncztr_obj *parent, const char *name, H5L_type_t cls, const char *value,
                            const char *file);
/* H5L_TYPE_HARD for any member that is not a soft or external link. */
H5L_type_t ncztr_link_class(const ncztr_obj *link);
/* A soft or external link's value (NULL for a hard link); *file: an external link's file. */
const char *ncztr_link_value(const ncztr_obj *link, const char **file);
/* The object an alias names; NULL when it no longer exists (pushes why when push). */
ncztr_obj *ncztr_alias_target(ncztr_obj *a, bool push);
/* o itself, or for an alias the object it names (NULL as above). */
ncztr_obj *ncztr_deref(ncztr_obj *o, bool push);
/* Like ncztr_find, but an alias as the last component is returned itself: the link. */
ncztr_obj *ncztr_find_link(ncztr_obj *base, const char *path);
/* How many names o has: its own and the aliases naming it. */
unsigned ncztr_name_count(ncztr_obj *o);
/* Fails when deleting o would leave an alias outside o's subtree naming o or a member of
 * it: the object's keys live under its first name, so that name must stay. */
herr_t ncztr_alias_check_unlink(ncztr_obj *o);
/* Aliases in a copy made of src (ncztr_copy) that name src or a member of it name the
 * corresponding member of the copy, as HDF5's H5Ocopy does. */
herr_t ncztr_alias_fix_copy(ncztr_obj *src, ncztr_obj *copy);
/* Load/save: g's "hdf5_links" (NULL: none); what = the key for messages. Before a save,
 * aliases whose object moved get its new path (their group is rewritten). */
herr_t ncztr_alias_load(ncztr_obj *g, json_t *links, const char *what);
herr_t ncztr_alias_save(const ncztr_obj *g, json_t *nczarr_group);
void ncztr_alias_refresh(ncztr_file *f);

/* ---- walks ---- */
/* The objects a walk (H5Ovisit, H5Lvisit) has entered, so that extra hard links cannot make
 * it loop: ncztr_objset_first_visit is 1 the first time it meets o (always, in a store
 * without extra hard links, where no set is kept), 0 after, -1 out of memory.
 * *set starts NULL; ncztr_objset_free frees it. */
typedef struct ncztr_objset ncztr_objset;
int ncztr_objset_first_visit(ncztr_objset **set, const ncztr_obj *o);
void ncztr_objset_free(ncztr_objset *set);

/* ---- attributes ---- */
ncztr_attr *ncztr_attr_find(const ncztr_obj *o, const char *name);
ncztr_attr *ncztr_attr_by_idx(const ncztr_obj *o, H5_index_t idx, H5_iter_order_t order, hsize_t n);
ncztr_attr **ncztr_attrs_sorted(const ncztr_obj *o, H5_index_t idx, H5_iter_order_t order);
/* Creates an attribute with zeroed value (vlen strings NULL). */
herr_t ncztr_attr_create(ncztr_obj *o, const char *name, hid_t type, hid_t space, ncztr_attr **out);
herr_t ncztr_attr_write(ncztr_obj *o, ncztr_attr *a, hid_t mem_type, const void *buf);
herr_t ncztr_attr_read(const ncztr_obj *o, const ncztr_attr *a, hid_t mem_type, void *buf);
herr_t ncztr_attr_delete(ncztr_obj *o, ncztr_attr *a);
herr_t ncztr_attr_rename(ncztr_obj *o, ncztr_attr *a, const char *new_name);
void ncztr_attr_ref(ncztr_attr *a);
void ncztr_attr_unref(ncztr_attr *a);
/* Names the model keeps for itself and never shows as attributes. */
bool ncztr_attr_is_reserved(const char *name);

/* ---- arrays ---- */
/* Pushes why an array cannot be used (deleted, or metadata that did not load). */
herr_t ncztr_array_check_usable(const ncztr_obj *o);
/* The same, and also fails for an anonymous array, whose data has no place yet. */
herr_t ncztr_array_check_stored(const ncztr_obj *o);
/* The longest key suffix an array of this rank adds below its own key. */
size_t ncztr_array_key_extra(int rank);
/* A new dataspace for the array's current extent (scalar when scalar). */
hid_t ncztr_array_space(const ncztr_obj *o);
hid_t ncztr_array_type(const ncztr_obj *o);
hid_t ncztr_array_dcpl(const ncztr_obj *o);
void ncztr_array_free(ncztr_array *a);

/* Converts n values between HDF5 types, including variable-length <-> fixed-length
 * strings (which H5Tconvert cannot do); vlen results are malloc'ed. `what` names the
 * object in messages. */
herr_t ncztr_convert(hid_t src_t, const void *src, hid_t dst_t, void *dst, size_t n, const char *what);
/* The same, for compound destinations with members the source lacks: those keep the
 * values in bkg (the destination's current n values; may be dst itself), as in HDF5. */
herr_t ncztr_convert_bkg(hid_t src_t, const void *src, hid_t dst_t, void *dst, size_t n, const char *what,
                         const void *bkg);
/* Whether converting src_t to dst_t leaves destination compound bytes untouched (members
 * the source lacks, padding): then the current contents are needed (ncztr_convert_bkg). */
bool ncztr_convert_needs_bkg(hid_t src_t, hid_t dst_t);

/* ---- what the connector reads of objects, attributes and files (ncztr_access.c) ----
 * Their structs are opaque outside translate/ (ncztr_model_internal.h). */
const char *ncztr_obj_name(const ncztr_obj *o); /* link name in the parent, "" for the root */
ncztr_objkind ncztr_obj_kind(const ncztr_obj *o);
bool ncztr_obj_is_deleted(const ncztr_obj *o);
bool ncztr_obj_is_anonymous(const ncztr_obj *o); /* created without a link, not linked yet */
ncztr_obj *ncztr_obj_parent(const ncztr_obj *o); /* NULL for the root or once unlinked */
ncztr_file *ncztr_obj_file(const ncztr_obj *o);
uint64_t ncztr_obj_id(const ncztr_obj *o); /* unique in the open file, stable across renames */
/* What H5Oget_info reports of an object: nattrs only when with_nattrs (it may load it). */
typedef struct ncztr_objinfo {
    uint64_t id;
    ncztr_objkind kind;
    unsigned name_count; /* its own name and the aliases naming it */
    size_t nattrs;
} ncztr_objinfo;
void ncztr_obj_info(ncztr_obj *o, bool with_nattrs, ncztr_objinfo *info);
/* What H5Lget_info reports of a link: its creation order in its group, and the id of the
 * object it names (an alias whose object is gone: its own id, which names nothing). */
void ncztr_link_info(ncztr_obj *link, uint64_t *corder, uint64_t *target_id);
/* A group's number of links, and the creation order its next link gets. */
size_t ncztr_group_nlinks(const ncztr_obj *g);
uint64_t ncztr_group_next_corder(const ncztr_obj *g);
/* Arrays of variable-length sequences ("vlen-array" object arrays): chunks of no fixed size
 * (see ncztr_vlen_io). */
bool ncztr_array_is_vlen(const ncztr_obj *o);
/* Arrays of old-style object references (H5T_STD_REF_OBJ), stored as the objects' paths:
 * their I/O is ncztr_refdata_io's (translate/data/ncztr_refdata.c). */
bool ncztr_array_is_ref(const ncztr_obj *o);
const char *ncztr_attr_name(const ncztr_attr *a);
bool ncztr_attr_is_deleted(const ncztr_attr *a);
/* The character encoding of its name (its acpl's, H5Pset_char_encoding). */
H5T_cset_t ncztr_attr_name_cset(const ncztr_attr *a);
void ncztr_attr_set_name_cset(ncztr_attr *a, H5T_cset_t cset);
/* Why it cannot be read (its value does not fit its stored type: ncztr_attr_decode), or
 * NULL. */
const char *ncztr_attr_load_error(const ncztr_attr *a);
/* Its value's type and dataspace (the attribute's own, not copies) and element count. */
hid_t ncztr_attr_type(const ncztr_attr *a);
hid_t ncztr_attr_space(const ncztr_attr *a);
size_t ncztr_attr_nelem(const ncztr_attr *a);
/* What H5Aget_info reports: creation order, name encoding, bytes of the value (elements x
 * type size; 0 for one that cannot be read). */
void ncztr_attr_info(const ncztr_attr *a, uint64_t *corder, H5T_cset_t *cset, hsize_t *data_size);
ncztr_obj *ncztr_file_root(const ncztr_file *f);
bool ncztr_file_is_readonly(const ncztr_file *f);
/* The store's filesystem path (directory or zip file). */
const char *ncztr_file_location(const ncztr_file *f);
/* The width of NC_STRING values stored as |S<n> when nothing else says. */
void ncztr_file_set_default_maxstrlen(ncztr_file *f, size_t maxstrlen);
/* Threads (the caller included) the file's chunk I/O may use; 0 = one per core. */
void ncztr_file_set_workers(ncztr_file *f, unsigned workers);
/* How references in attribute values become object ids and back (ncztr_refval.h): the
 * connector sets them before each attribute read or write, ctx naming the open file. */
/* Notes what every attribute value owns while HDF5's types are alive (before the library
 * shuts down with the store still open), so that it can be freed after. */
void ncztr_file_note_parts(ncztr_file *f);
void ncztr_file_set_refops(ncztr_file *f, ncztr_ref_in_fn in, ncztr_ref_out_fn out, void *ctx);

#endif
