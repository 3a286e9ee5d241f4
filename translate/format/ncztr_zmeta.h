/* Consolidated metadata (.zmetadata) without building it as one JSON tree. A store of
 * 100000 arrays has a .zmetadata of some 40 MB: parsed whole, its tree takes over half a
 * GB and longer to allocate and free than the rest of opening the store. Instead the text
 * is scanned once for the entries of its "metadata" object, which are then parsed one at a
 * time, when the loader asks for them, and indexed by key; the children of every group are
 * found in one pass over the keys, so that listing a pure Zarr group does not scan every
 * key of the store. Internal to translate/. */
#ifndef NCZTR_ZMETA_H
#define NCZTR_ZMETA_H

#include "ncztr_err.h"
#include "nczm.h"

#include <jansson.h>

typedef struct ncztr_zmeta ncztr_zmeta;

/* Takes text (malloc'ed, len bytes plus a NUL, as nczm_read_all returns it) in every case.
 * NULL when the text is not a .zmetadata that can be used (not a JSON object holding a
 * "metadata" object), which the caller ignores as zarr.open does, or when out of memory
 * (*oom set, message pushed). */
ncztr_zmeta *ncztr_zmeta_scan(char *text, size_t len, bool *oom);

typedef enum ncztr_zmeta_st {
    NCZTR_ZMETA_ABSENT = 0, /* no entry for that key */
    NCZTR_ZMETA_FOUND,      /* *out: a new reference to the parsed entry, a JSON object */
    NCZTR_ZMETA_NOTOBJ,     /* the entry is not a JSON object (*out: it, if it parses) */
    NCZTR_ZMETA_BROKEN      /* the entry does not parse (or no memory to parse it): unusable */
} ncztr_zmeta_st;
ncztr_zmeta_st ncztr_zmeta_get(const ncztr_zmeta *z, const char *key, json_t **out);

/* The children of the group at key ("" for the root): every name c with an entry "key/c/m"
 * for a store mark m (ncztr_store_marks), once each, in the order the entries first appear.
 * names arrives empty and gets malloc'ed names. */
herr_t ncztr_zmeta_children(ncztr_zmeta *z, const char *key, nczm_list *names);
void ncztr_zmeta_free(ncztr_zmeta *z);

#endif
