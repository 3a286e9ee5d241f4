/* The zip store's map, shared by nczm_zip.c (open, read) and nczm_zipwrite.c (write,
 * delete, list, rename). Internal to zmap/. */
#ifndef NCZM_ZIP_INTERNAL_H
#define NCZM_ZIP_INTERNAL_H

#include "nczm_impl.h"
#include "nczm_zipidx.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zip.h>

typedef struct pending {
    char *data; /* non-NULL when this entry's content was written in this session */
    size_t len;
} pending;

typedef struct zip_map {
    nczm_map base; /* must stay first: the dispatcher frees the block through it */
    zip_t *za;
    char *folder; /* "name/" for the folder layout, "" for the root layout */
    size_t folderlen;
    pending *pend;
    size_t npend;
    nczm_zxindex ix; /* the entries under folder, by path segment */
} zip_map;

#define ZM(map) ((zip_map *)(map))

nczm_status nczm_zip_write(nczm_map *map, const char *key, const void *data, size_t len);

nczm_status nczm_zip_delete(nczm_map *map, const char *key);

nczm_status nczm_zip_delete_tree(nczm_map *map, const char *prefix);

nczm_status nczm_zip_search(nczm_map *map, const char *prefix, nczm_list *out);

/* zip_file_rename changes an entry's name in place: its data, and the pending buffer kept
 * under its index, stay where they are, so no object is read or copied. In the index the
 * subtree changes parent. */
nczm_status nczm_zip_rename_tree(nczm_map *map, const char *old_prefix, const char *new_prefix);

const char *nczm_zip_zerr(zip_t *za);

/* folder + key + suffix, malloc'ed. */
char *nczm_zip_entry_name(const zip_map *zm, const char *key, const char *suffix);

int nczm_zip_ensure_pend(zip_map *zm, zip_uint64_t idx);

void nczm_zip_drop_pend(zip_map *zm, zip_uint64_t idx);

/* The index of key's entry, or NCZM_NOTFOUND with the message set. */
nczm_status nczm_zip_find(zip_map *zm, const char *op, const char *key, zip_uint64_t *idx);

#endif
