/* translate/store, the top of translate/: files (open, create, flush, close), loading and
 * saving the model, and the model changes that must reach the store first (move, copy).
 * The VOL connector includes this header: everything below comes with it. */
#ifndef NCZTR_STORE_H
#define NCZTR_STORE_H

#include "ncztr_chunkio.h"

/* ---- files ---- */
/* flags: NCZM_CREATE|NCZM_TRUNC|NCZM_EXCL or NCZM_READONLY. */
herr_t ncztr_file_create(const char *name, unsigned flags, const ncztr_opts *opts, ncztr_file **out);
/* H5Fcreate's semantics: H5F_ACC_TRUNC replaces a store of ours (and nothing else),
 * otherwise an existing store is an error (H5F_ACC_EXCL, HDF5's default). */
herr_t ncztr_file_create_hdf5(const char *name, unsigned h5f_acc_flags, const ncztr_opts *opts,
                              ncztr_file **out);
herr_t ncztr_file_open(const char *name, bool readonly, const ncztr_opts *opts, ncztr_file **out);
herr_t ncztr_file_flush(ncztr_file *f);
/* The bytes of every object of the store (H5Fget_filesize: what a store occupies), after
 * writing what is pending when the store is writable. */
herr_t ncztr_file_stored_bytes(ncztr_file *f, uint64_t *out);
/* Flushes (unless read-only) and frees everything; returns FAIL if the flush failed
 * (the file is still freed). */
herr_t ncztr_file_close(ncztr_file *f);
/* The same, writing nothing when !save (everything was written already). */
herr_t ncztr_file_close2(ncztr_file *f, bool save);
/* The store's path now belongs to another store (created over it): f never writes again,
 * its writes refused as those of a read-only store. */
void ncztr_file_detach(ncztr_file *f);
/* The store a name (a path or a URL) and the options give: the name parsed (an s3root
 * prefix and the option zip applied) and the store kinds' options (storeopts) set, with
 * what the formats mark a store with. FAIL (pushed) for a name or an option that will not
 * do; *url is then empty. */
herr_t ncztr_store_name(const char *name, const ncztr_opts *opts, nczm_url *url);
/* Quiet check: is `name` an existing store of ours? */
bool ncztr_is_store(const char *name, const ncztr_opts *opts);
/* Options of the store kinds an info string may carry as "name=value" (ncztr_opts.storeopts):
 * 1 for a known one (s3root, and those of the store kinds: README "S3"), 0 for an unknown
 * one, -1 for one that carries a secret (credentials never go in a text HDF5 prints).
 * ncztr_store_option_names: their names for messages. */
int ncztr_store_option(const char *name);
/* Checks the value of a known store option: SUCCEED, or FAIL with the store kind's message
 * on the error stack and in why. */
herr_t ncztr_store_option_check(const char *name, const char *value, char *why, size_t whylen);
void ncztr_store_option_names(char *buf, size_t len);
herr_t ncztr_delete_store(const char *name, const ncztr_opts *opts);

/* Moves/renames a node (identity kept). */
herr_t ncztr_move(ncztr_obj *o, ncztr_obj *new_parent, const char *new_name);

/* H5Ocopy within one store: copies src (a group with its subtree, or an array with its
 * chunks) as `name` in parent, with attributes unless NCZTR_COPY_NO_ATTRS; a shallow
 * copy of a group copies its members but not theirs. *out (may be NULL) gets a new
 * reference to the copy. */
#define NCZTR_COPY_SHALLOW  1u
#define NCZTR_COPY_NO_ATTRS 2u
herr_t ncztr_copy(ncztr_obj *src, ncztr_obj *parent, const char *name, unsigned flags, ncztr_obj **out);

/* Loading (ncztr_load.c) and saving (ncztr_save.c) the whole tree. */
herr_t ncztr_load_tree(ncztr_file *f);
herr_t ncztr_save_tree(ncztr_file *f);
/* Internal to store/ (ncztr_loadattrs.c): an object's attributes from its .zattrs, and a
 * group's dimensions from "_nczarr_group.dimensions"; key names the .zattrs / .zgroup for
 * messages. */
herr_t ncztr_load_attrs(ncztr_obj *o, json_t *zattrs, const char *key);
herr_t ncztr_load_dims(ncztr_obj *g, json_t *dims, const char *key);
/* Fetches several JSON objects at once (ncztr_loadjson.c): see there. */
struct ncztr_zmeta;
herr_t ncztr_load_json_many(ncztr_file *f, struct ncztr_zmeta *cons, size_t n, char **keys, json_t **out,
                            char **errs);
/* After a load, once every object has its id: the references of the attributes read so far
 * (stored as paths) at or below top become ids. Attributes of arrays put off do that at
 * once; those of a pending group and its members once the group is read. */
herr_t ncztr_load_resolve_refs(ncztr_obj *top);

#endif
