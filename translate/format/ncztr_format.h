/* translate/format: the on-disk formats, the one place that names their metadata keys. A
 * node (group or array) is stored as Zarr v2 (.zgroup or .zarray, and .zattrs; NCZarr adds
 * its _nczarr_* keys to them) or as Zarr v3 (one zarr.json holding its attributes). The
 * loader reads a node's metadata objects (ncztr_node_keys) and gets them back in three roles
 * whatever the format (ncztr_node_roles): a group's metadata, an array's, the attributes.
 * An array's metadata becomes the description every format shares (ncztr_zarray). */
#ifndef NCZTR_FORMAT_H
#define NCZTR_FORMAT_H

#include "ncztr_zarray.h"
#include "ncztr_zmeta.h"

typedef enum ncztr_zfmt { NCZTR_ZARR2 = 2, NCZTR_ZARR3 = 3 } ncztr_zfmt;

/* For nczm_url: the keys that mark a store at a location's root, and those worth reading
 * first when one opens (consolidated metadata), in order. */
extern const char *const ncztr_store_marks[];
extern const char *const ncztr_store_prefetch[];

/* The roles of a node's metadata objects. */
enum { NCZTR_SLOT_GROUP, NCZTR_SLOT_ARRAY, NCZTR_SLOT_ATTRS, NCZTR_NSLOTS };

/* The keys to read for the node at key ("" the root), malloc'ed into keys (NULL where a
 * slot has no key of its own: v3 reads one zarr.json, in the group slot). group / array:
 * what the node may be. Fails (pushing) only when out of memory. */
herr_t ncztr_node_keys(ncztr_zfmt f, const char *key, bool group, bool array, char *keys[NCZTR_NSLOTS]);
/* After those keys were read into js (new references, NULL when absent) and errs (messages
 * of objects that could not be used, malloc'ed): brings them to their roles. Zarr v3: the
 * zarr.json of a group leaves a group marker ({}) in the group slot and its attributes in
 * the attributes slot; that of an array leaves itself in the array slot and its attributes
 * (with xarray's _ARRAY_DIMENSIONS from "dimension_names"); one that cannot be used is an
 * error of the array slot (an unreadable array keeps the rest of the store readable).
 * Fails only when out of memory. */
herr_t ncztr_node_roles(ncztr_zfmt f, const char *key, json_t *js[NCZTR_NSLOTS], char *errs[NCZTR_NSLOTS]);

/* The key of a node's array metadata / attributes, for messages (malloc'ed or NULL). */
char *ncztr_array_meta_key(ncztr_zfmt f, const char *key);
char *ncztr_attrs_key(ncztr_zfmt f, const char *key);
/* An array's metadata (in the array slot) into out; mkey names it in messages. */
herr_t ncztr_array_meta_parse(ncztr_zfmt f, const char *mkey, json_t *meta, ncztr_zarray *out);
/* Zarr v3's reader of an array's zarr.json (ncztr_zarr3.c). */
herr_t ncztr_zarr3_array_from_json(const char *key, json_t *root, ncztr_zarray *out);

/* A v2 group's metadata (.zgroup, js): its "zarr_format" must be 2; key names it in the
 * message (pushed). */
herr_t ncztr_v2_group_check(const char *key, const json_t *js);
/* The longest key a node's metadata adds below the node's own key ("/zarr.json"). */
size_t ncztr_meta_key_extra(void);
/* A v2 group's metadata object, {"zarr_format": 2} (NULL when out of memory). */
json_t *ncztr_v2_group_json(void);
/* The zarr.json of a node (Zarr v3): a group (za NULL) or an array; attrs (stolen, may be
 * NULL) its attributes, from which xarray's _ARRAY_DIMENSIONS becomes "dimension_names".
 * NULL after pushing (a dtype v3 has no data type for: NCZ_E_NOTREPR). */
json_t *ncztr_zarr3_node_json(const char *key, const ncztr_zarray *za, json_t *attrs);
/* Whether za has a Zarr v3 data type (pushes NCZ_E_NOTREPR naming key when not): checked
 * when a dataset is created, not when the store is written. */
herr_t ncztr_zarr3_check_dtype(const char *key, const ncztr_zarray *za);
/* The key of a node's metadata objects, for writers: v2 ".zgroup"/".zarray" and ".zattrs",
 * v3 "zarr.json" (the attributes are in it: v3 has no attributes key). */
const char *ncztr_meta_name(ncztr_zfmt f, bool group);
const char *ncztr_attrs_name(ncztr_zfmt f);

/* ---- the root ---- */

/* The keys read to tell a store's format from its root: v2's consolidated metadata (NULL
 * when ignored), v2's group, array and attributes, and v3's zarr.json. */
enum { NCZTR_ROOT_CONS, NCZTR_ROOT_ZGROUP, NCZTR_ROOT_ZARRAY, NCZTR_ROOT_ZATTRS, NCZTR_ROOT_V3, NCZTR_NROOT };
extern const char *const ncztr_root_keys[NCZTR_NROOT];
/* v2's consolidated metadata key (read first, alone). */
extern const char *const ncztr_cons_key;
/* The consolidated metadata inline in a v3 root zarr.json (zarr-python's "inline" kind), as
 * an index of its nodes' zarr.json, or NULL when it has none or it cannot be used (*oom on
 * out of memory, pushed). */
ncztr_zmeta *ncztr_zmeta_from_v3(const json_t *root, bool *oom);
/* Consolidated metadata text: v2's .zmetadata of n entries (key "path/.zarray", the
 * object's JSON text), or v3's root zarr.json (root_text) with the nodes' zarr.json (keys
 * "path/zarr.json") inline. malloc'ed, NULL when out of memory. */
char *ncztr_cons_text(ncztr_zfmt f, const char *root_text, size_t n, char *const *keys, char *const *texts);

#endif
