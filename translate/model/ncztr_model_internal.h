/* The model's structs and the functions only translate/ uses. The VOL connector includes
 * ncztr_model.h (with translate/store/ncztr_store.h), where these structs are opaque: it
 * reaches the model through functions, never through fields. Every file of translate/
 * that reads fields includes this header. */
#ifndef NCZTR_MODEL_INTERNAL_H
#define NCZTR_MODEL_INTERNAL_H

#include "ncztr_codecs.h"
#include "ncztr_model.h"
#include "ncztr_refval.h"

struct ncztr_attr {
    char *name;
    ncztr_attrval val;
    uint64_t corder; /* creation order */
    int refcount;
    bool deleted;
    H5T_cset_t name_cset; /* its acpl's character encoding (H5Pset_char_encoding) */
    /* Read from a store in which its value does not fit its "_nczarr_attr.types" entry
     * (ncztr_attr_decode). load_error: it cannot be read; opening it reports this, val is
     * empty, and raw keeps what the store had for it ({"value", "type", "ashape", "atype"},
     * each optional) to be written back unchanged. */
    char *load_error;
    json_t *raw;
    /* Loaded with references (as paths, in raw) that become object ids once the tree and
     * its ids are complete (ncztr_loadattrs.c); val's type and dataspace are set. */
    bool refs_pending;
};

typedef struct ncztr_dim {
    char *name;
    uint64_t size;
    bool unlimited;
    bool used; /* named by an array (set while a save resolves dimensions) */
} ncztr_dim;

struct ncztr_array {
    ncztr_zarray za; /* shape (current extent), chunks, dtype, fill, order, codecs */
    bool scalar;     /* HDF5 scalar dataspace, stored as shape [1] + "scalar": 1 */
    bool null_space; /* HDF5 null dataspace, stored as shape [0] + "hdf5_null": 1 */
    /* The HDF5 layout the dataset was created with, NCZarr's "storage": a contiguous or
     * compact dataset is stored in chunks like any other, and comes back as it was made. */
    enum { NCZTR_STORAGE_CHUNKED = 0, NCZTR_STORAGE_CONTIGUOUS, NCZTR_STORAGE_COMPACT } storage;
    hsize_t *maxdims; /* H5S_UNLIMITED for unlimited dims; room for the rank (at
                       * least one), made with it (ncztr_array.c) */
    char **dimrefs;   /* rank FQNs ("/x", "/sub/y") or NULL: derived on save (ncztr_dimrefs_new) */
    hid_t type;       /* HDF5 type the application sees (owned) */
    bool vlen_string; /* type is a vlen string stored as |S<maxstrlen> */
    bool ref_obj;     /* type is H5T_STD_REF_OBJ, stored as the paths of the objects, text as a
                       * vlen string array's (ncztr_refarray.c) */
    size_t maxstrlen;
    hid_t dcpl;       /* creation plist reported by H5Dget_create_plist (owned) */
    bool fill_never;  /* H5D_FILL_TIME_NEVER: fill_value null */
    char *load_error; /* set when .zarray could not be used: opening reports it */
    /* what loading had to make of the metadata (it opened anyway): each open reports it as a
     * warning (a warning pushed while loading, deep in another call, would be cleared by
     * the HDF5 calls that follow before the application sees it) */
    char *load_warning;
    bool stub;        /* listed by its NCZarr group, .zarray/.zattrs not read yet: they are
                       * read on first use (ncztr_obj_load), as opening a store of 100000s of
                       * arrays must not parse them all */
    bool nc_hidden;   /* listed in "_nczarr_group.hdf5_arrays", not "arrays": netCDF-C 4.9.3
                       * cannot read structured dtypes and fails on the whole store */
    bool is_datatype; /* a committed datatype (ncztr_datatype.c), not a dataset */
    ncztr_chunkcache *cache;
    /* Frees cache: set by the data layer (translate/data), which makes the cache, since the
     * model below it cannot name its functions. */
    void (*cache_free)(ncztr_chunkcache *c);
    size_t cache_bytes; /* chunk cache budget (H5Pset_chunk_cache) */
    /* The codec chain, built on the first chunk I/O (translate/data) from za's codecs and
     * freed with the array; NULL until then. */
    ncztr_chain *chain;
    /* Dimension scales (ncztr_dimscale.c), as found on load: coord = this array is the
     * coordinate variable of the dimension of its name in its group; dimonly = a netCDF
     * dimension without a variable, shown as the dataset netCDF-4 makes for it and never
     * stored as an array. */
    bool coord;
    bool dimonly;
};

struct ncztr_obj {
    ncztr_objkind kind;
    char *name; /* link name in the parent ("" for the root) */
    /* the key name, when the link name cannot be one (ncztr_key_escape), and the name it
     * was made from: remade when the name changed */
    char *esc_key, *esc_from;
    ncztr_obj *parent; /* NULL for the root or once unlinked */
    ncztr_file *file;
    uint64_t id;     /* object token (ncztr_ids.c): unique among live objects, kept across
                      * renames; 0 until the object is first known in this open */
    uint64_t corder; /* creation order within the parent */
    int refcount;    /* the tree holds one; each open handle one */
    bool deleted;
    bool meta_dirty;    /* .zgroup/.zarray must be (re)written */
    bool attrs_dirty;   /* .zattrs must be rewritten */
    bool is_new;        /* never written */
    bool at_store_root; /* an array stored at the store's root key (pure Zarr array store) */
    bool anonymous;     /* created without a link (H5Gcreate_anon): in memory until linked */
    /* Loaded from a store: the H5DS/netCDF-4 attributes (CLASS, NAME, DIMENSION_LIST,
     * REFERENCE_LIST, _Netcdf4Dimid, _Netcdf4Coordinates) that stand for its shared
     * dimensions are made on the first use of its attributes (ncztr_dimscale.c). */
    bool synth_pending;
    /* A group its NCZarr parent lists, in a store opened read-only: its .zattrs and members
     * are read on first use (ncztr_obj_load), as walking a group of 100000s of groups must
     * not read them all. group_error: why that read failed (reported at every use). */
    bool pending;
    char *group_error;
    json_t *hdf5; /* "_nczarr_attr": {"hdf5": ...} in .zattrs: HDF5 settings NCZarr has
                   * no place for (encoded creation plists), or NULL */
    /* attributes, in creation order */
    ncztr_attr **attrs;
    size_t nattrs, attrs_cap;
    uint64_t next_attr_corder;
    /* group */
    ncztr_obj **children; /* in creation order */
    size_t nchildren, children_cap;
    uint64_t next_child_corder;
    ncztr_dim *dims; /* shared dimensions defined here */
    size_t ndims, dims_cap;
    /* lookup caches (ncztr_index.c): by name, and the members sorted by name */
    nczc_hindex child_ix, attr_ix, dim_ix;
    ncztr_obj **child_by_name;
    ncztr_attr **attr_by_name;
    /* array */
    ncztr_array *arr;
    /* alias: the object it names, by id once known (a renamed object keeps it); the path
     * stored for it, which a loaded alias is resolved by on first use */
    uint64_t target_id;
    bool target_known;
    bool resolving; /* guards against an alias whose stored path runs through itself */
    char *target_path;
    /* what kind of link an alias is: H5L_TYPE_HARD (the above), H5L_TYPE_SOFT (target_path
     * is the soft link's value, resolved on every use) or H5L_TYPE_EXTERNAL (target_path is
     * the object's path in the file ext_file) */
    H5L_type_t link_class;
    char *ext_file;
};

struct ncztr_file {
    nczm_map *map;
    nczm_url url;
    ncztr_opts opts;
    bool readonly;
    bool root_is_array; /* the store root is an array: shown as "/<basename>" */
    ncztr_obj *root;
    /* every live object by id (ncztr_ids.c); ids_live: objects get their ids as they are
     * made (off while a store loads, when ids are given once the tree is complete) */
    nczc_hindex ids;
    bool ids_live;
    size_t npending;              /* groups still pending (ncztr_obj.pending) */
    unsigned reading_pending;     /* pending groups being read: references in their attributes
                                     wait until the group is complete (ncztr_load.c) */
    uint64_t anon_seq;            /* anonymous objects made, for their ids */
    int zarr_format;              /* the store's format: 2 or 3 (ncztr_zfmt) */
    bool superblock;              /* an NCZarr superblock was found (or we write one) */
    char *ncproperties;           /* _NCProperties text to keep, may be NULL */
    struct ncztr_zmeta *old_cons; /* the .zmetadata found on open (owned), or NULL: entries
                                     of arrays the connector could not load are kept from it */
    size_t default_maxstrlen;
    bool has_aliases;   /* an alias was created or loaded: walks must look for aliases */
    bool has_ref_attrs; /* an attribute holding references was created or loaded */
    /* A dataset of object references was created or loaded, or the store says it holds one
     * ("hdf5_ref_arrays"): their stored paths must follow moves and deletes
     * (translate/store/ncztr_refsync.c). ref_tree_loaded: every array of the tree was
     * loaded once for that, so that none of them is a stub any more. */
    bool has_ref_arrays;
    bool ref_tree_loaded;
    /* The HDF5 types of loaded arrays of plain dtypes, one per dtype ("<i4"): the arrays
     * share it (by reference count; a type is never changed once made), since making
     * 100000 copies of one type costs more than the rest of setting the arrays up. */
    struct {
        char dtype[NCZTR_DTYPE_MAX];
        hid_t type;
    } types[16];
    size_t ntypes;
    /* HDF5's default dataset creation plist, shared in the same way by the datasets created
     * with it (H5I_INVALID_HID until the first) */
    hid_t default_dcpl;
    /* Hooks the layers above the model fill in (translate/CMakeLists.txt: calls go down
     * only). load_stub: reads the .zarray/.zattrs of an array the loader (translate/store)
     * put off; set by the loader when it makes such stubs, so ncztr_obj_load can complete
     * them from below. */
    struct {
        herr_t (*load_stub)(ncztr_obj *o);
        /* load_attrs: completes an object's attributes (ncztr_obj_load_attrs: a stub array
         * read, dimension-scale attributes made), for the attribute indexes below it; set by
         * whoever leaves objects to complete (the loader, ncztr_dimscale_sync.c). */
        herr_t (*load_attrs)(const ncztr_obj *o);
        /* load_group: reads a pending group (and pending siblings after it, in one batch);
         * set by the loader when it leaves groups pending. */
        herr_t (*load_group)(ncztr_obj *g);
        /* refs_before / refs_after: around a delete, the paths the datasets of object
         * references store are read as ids first (*snap) and written again after, as the
         * objects' paths are then (or null); refs_after frees snap, refs_drop frees it
         * writing nothing. Set by the store layer, which reaches the data layer. */
        herr_t (*refs_before)(ncztr_file *f, void **snap);
        herr_t (*refs_after)(ncztr_file *f, void *snap);
        void (*refs_drop)(void *snap);
    } hooks;
    /* Scratch buffers of the chunk path, kept between I/O calls so that their pages are
     * touched once (translate/data/ncztr_scratch.c; freed with the file through
     * scratch_free, which the data layer sets: calls go down only). */
    struct ncztr_scratch *scratch;
    void (*scratch_free)(struct ncztr_scratch *s);
    /* Many ranks, one store (translate/par, which sets both): par is its state, NULL for a
     * file of one process; shared_skip: this rank leaves the objects every rank shares
     * (metadata, deletions, renames) to rank 0, so the model below never writes them. */
    struct ncztr_par *par;
    bool shared_skip;
    /* References in attribute values: set by the connector around each attribute read
     * and write (ncztr_file_set_refops). */
    struct {
        ncztr_ref_in_fn in;
        ncztr_ref_out_fn out;
        void *ctx;
    } refs;
};

ncztr_obj *ncztr_obj_new(ncztr_file *f, ncztr_objkind kind, const char *name);
herr_t ncztr_obj_attach(ncztr_obj *parent, ncztr_obj *child);
/* Appends an attribute (its name not yet used on o) in creation order. */
herr_t ncztr_attr_append(ncztr_obj *o, ncztr_attr *a);
/* A group's shared dimension by name, or NULL; adding one (NULL when out of memory). */
ncztr_dim *ncztr_group_dim(const ncztr_obj *g, const char *name);
ncztr_dim *ncztr_group_add_dim(ncztr_obj *g, const char *name, uint64_t size, bool unlimited);
/* Where a child / an attribute is in its list (the list's length when it is not there). */
size_t ncztr_child_pos(const ncztr_obj *g, const ncztr_obj *c);
size_t ncztr_attr_pos(const ncztr_obj *o, const ncztr_attr *a);
/* Keeping the lookup caches of ncztr_index.c right: every change of a member list goes
 * through these, a renamed member being removed under its old name and added again. */
void ncztr_index_child_added(ncztr_obj *g, ncztr_obj *c);
void ncztr_index_child_removed(ncztr_obj *g, ncztr_obj *c);
void ncztr_index_attr_added(ncztr_obj *o, ncztr_attr *a);
void ncztr_index_attr_removed(ncztr_obj *o, ncztr_attr *a);
void ncztr_index_obj_free(ncztr_obj *o);
/* Model changes that must reach the store first (o's keys are moved or copied there). */
void ncztr_obj_detach(ncztr_obj *o);
/* The link name an HDF5 program gives (see ncztr_names.c); ncztr_check_name is for key
 * names read from a store. */
herr_t ncztr_check_link_name(const char *name, const char *what);

/* ---- attribute values kept apart (ncztr_attrrefs.c) ---- */
/* Whether an attribute or dataset (what, name: for the message) of old-style object
 * references may be made in this process: only where the preload library serves H5Rcreate
 * (ncztr_attrrefs.c says why). FAIL, pushed, otherwise. */
herr_t ncztr_orefs_check_new(const char *what, const char *name);
herr_t ncztr_attr_write_refs(ncztr_obj *o, ncztr_attr *a, hid_t mem_type, const void *buf);
herr_t ncztr_attr_read_refs(const ncztr_obj *o, const ncztr_attr *a, hid_t mem_type, void *buf);
herr_t ncztr_attr_set_ncproperties(ncztr_file *f, const ncztr_attr *a);
/* The attributes holding references are written as paths: when paths change (a move, a
 * delete, an anonymous object linked) the objects holding such attributes are marked to
 * be written again. */
void ncztr_refattrs_touch(ncztr_file *f);

/* ncztr_attr_find without loading anything: o's attributes as they are in memory
 * (ncztr_index.c). */
ncztr_attr *ncztr_attr_find_loaded(const ncztr_obj *o, const char *name);

/* ---- ids (ncztr_ids.c) ---- */
/* Gives o (when it has none and ids are live) the id of its path as a child of parent
 * (parent NULL: the root; o anonymous: an id of no path) and enters it in the index. */
herr_t ncztr_ids_take(ncztr_obj *o, const ncztr_obj *parent);
/* Turns ids on and gives one to every object of the tree that has none (after a load). */
herr_t ncztr_ids_assign_tree(ncztr_file *f);
/* Calls fn on every node, the root first, each group before its children (in creation
 * order), stopping at a failure. Iterative: groups may nest thousands deep. */
herr_t ncztr_tree_walk(ncztr_file *f, herr_t (*fn)(ncztr_obj *o, void *ud), void *ud);
/* The same from top down (top first), not entering groups still pending. */
herr_t ncztr_subtree_walk(ncztr_obj *top, herr_t (*fn)(ncztr_obj *o, void *ud), void *ud);
/* An object's attributes complete (file hook load_attrs), for the attribute indexes. */
static inline herr_t ncztr_obj_attrs_ready(const ncztr_obj *o)
{
    return o->file->hooks.load_attrs ? o->file->hooks.load_attrs(o) : SUCCEED;
}
/* A group's members, attributes and dimensions in memory (file hook load_group, for a
 * pending group): the group part of ncztr_obj_load, for the indexes below it. */
static inline herr_t ncztr_group_ready(const ncztr_obj *g)
{
    if (g->kind != NCZTR_GROUP)
        return SUCCEED;
    if (g->pending && !g->file)
        return NCZ_PUSH(NCZ_E_ARGS, "group \"%s\": its store is closed", g->name);
    /* Only the loader leaves groups pending, and it sets the hook when it does. Reading
     * what was put off changes nothing the caller can see: a const node may be completed. */
    if (g->pending && g->file->hooks.load_group((ncztr_obj *)g) < 0)
        return FAIL;
    return g->group_error ? NCZ_PUSH(NCZ_E_FORMAT, "%s", g->group_error) : SUCCEED;
}
/* Room for an array's dimension references, one per dimension (at least one), NULL when out
 * of memory; and their free (the rank never changes once an array has them). */
static inline char **ncztr_dimrefs_new(const ncztr_array *a)
{
    return calloc(a->za.rank > 0 ? (size_t)a->za.rank : 1, sizeof(char *));
}
static inline void ncztr_dimrefs_free(ncztr_array *a)
{
    for (int k = 0; a->dimrefs && k < (a->za.rank > 0 ? a->za.rank : 1); k++)
        free(a->dimrefs[k]);
    free(a->dimrefs);
    a->dimrefs = NULL;
}
/* The live object with that id, or NULL (the id index only: ncztr_ids.c). */
ncztr_obj *ncztr_ids_get(const ncztr_file *f, uint64_t id);
/* The object's path, or a copy of dflt when it has none (out of memory). */
char *ncztr_obj_path_or(const ncztr_obj *o, const char *dflt);
/* o is being freed. */
void ncztr_ids_forget(ncztr_obj *o);
/* The file is being freed: the objects handles still hold no longer point to it. */
void ncztr_ids_file_closing(ncztr_file *f);

/* ---- dimension scales (ncztr_dimscale.c) ---- */
#define NCZTR_DIM_ONLY_TEXT "This is a netCDF dimension but not a netCDF variable."
#define NCZTR_NON_COORD     "_nc4_non_coord_"
/* An attribute that stands for shared-dimension structure and is never written to
 * .zattrs (it is made again on load). */
bool ncztr_attr_is_plumbing(const ncztr_obj *o, const ncztr_attr *a);
/* ncztr_obj_load, then the pending H5DS/netCDF-4 attributes of o. */
herr_t ncztr_obj_load_attrs(const ncztr_obj *o);
/* After a store was loaded: coordinate variables found, the netCDF dimensions without one
 * given their dimension-only datasets, arrays named like a dimension they are not the
 * coordinate of renamed with NCZTR_NON_COORD. */
herr_t ncztr_dimscales_loaded(ncztr_file *f);
/* The same for one group read after the store was opened (a pending group): its own
 * dimensions and arrays. */
herr_t ncztr_dimscales_group_loaded(ncztr_obj *g);
/* Before a save: the groups' dimensions and the arrays' dimension references from the
 * scales and their attachments. */
herr_t ncztr_dimscales_derive(ncztr_file *f);
/* Makes every pending attribute of the file, before a scale is renamed or deleted (the
 * arrays that name its dimension must then follow it by id, not by name). */
herr_t ncztr_dimscales_materialize(ncztr_obj *moved);
/* Helpers of the two files: a dimension named as netCDF-C names inferred ones; "/g/x" for
 * dimension name of group g; whether o's attributes in memory make it a scale and a
 * dimension-only one. */
bool ncztr_ds_is_anonymous(const char *dimname);
char *ncztr_ds_dim_fqn(const ncztr_obj *g, const char *name);
void ncztr_ds_scale_attrs(const ncztr_obj *o, bool *scale, bool *dimonly);
/* Appends a scalar NUL-terminated string attribute made by the model (not written on
 * save unless it is the application's); nothing when o has one of that name. */
herr_t ncztr_ds_add_text(ncztr_obj *o, const char *name, const char *text);
/* The name of o's key in its group: NCZTR_NON_COORD dropped. */
const char *ncztr_obj_keyname(const ncztr_obj *o);
/* The key name standing for a link name a Zarr key cannot hold: one starting with '.'
 * (Zarr's metadata keys), holding a control character or '\\' (a separator for some Zarr
 * readers), or longer than 255 bytes (a file name's limit). Those bytes become %XX, with a
 * '_' before a leading one (netCDF-C's rule for a name's first character); past 200 bytes
 * the rest becomes "~" and 16 hex digits of a hash of the whole name. The group keeps
 * {key name: link name} in "_nczarr_group.hdf5_names". NULL when the name is a key name as
 * it is; malloc'ed otherwise (NULL, pushed, when out of memory: *failed set). */
char *ncztr_key_escape(const char *name, bool *failed);
/* Whether ncztr_key_escape would escape name (no allocation). */
bool ncztr_key_needs_escape(const char *name);
/* Puts g's children in the creation order names (a JSON list of link names, or NULL)
 * gives, numbering them again from 0; children it does not name follow in their order. */
herr_t ncztr_group_set_order(ncztr_obj *g, const json_t *names);

/* The key under which an anonymous dataset keeps its chunks until it is linked
 * (ncztr_anon.c). */
char *ncztr_anon_key(const ncztr_obj *o);

#endif
