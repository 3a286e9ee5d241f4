/* The zip store's index of its archive: the entries under the store's folder as a tree of
 * path segments, each node knowing the entry of its object ("a/b") and of its directory
 * ("a/b/"). A zip archive is a flat list of names; without this, listing a prefix, telling
 * whether a key is a prefix, or finding what a delete leaves empty takes a scan of every
 * entry, and checking the parents of a key looks up every prefix of its name, so that a
 * store of nested groups or of deep keys costs the cube of its depth. Here each of those
 * walks the key's segments once. A node exists while it has an entry or a child.
 *
 * Nodes are found by (parent node, segment) through one hash index (nczc_hash.h), so that
 * moving a subtree is one node changing parent. Internal to the zip store. */
#ifndef NCZM_ZIPIDX_H
#define NCZM_ZIPIDX_H

#include "nczc_hash.h"

#include <stddef.h>
#include <stdint.h>

typedef struct nczm_zxnode nczm_zxnode;
struct nczm_zxnode {
    nczm_zxnode *parent;              /* NULL for the root (the store's folder) */
    nczm_zxnode *first, *next, *prev; /* children, unordered */
    int64_t obj, dir;                 /* archive entry indices, -1 when none */
    uint64_t hash;
    char *seg; /* this node's segment (not NUL-terminated inside a name: seglen) */
    size_t seglen;
};

typedef struct nczm_zxindex {
    nczm_zxnode *root;
    nczc_hindex ix;
} nczm_zxindex;

/* 0, or -1 when out of memory. */
int nczm_zx_init(nczm_zxindex *x);
void nczm_zx_free(nczm_zxindex *x);
/* The child of p named seg[0..len), or NULL. */
nczm_zxnode *nczm_zx_child(const nczm_zxindex *x, const nczm_zxnode *p, const char *seg, size_t len);
/* The child of p named seg[0..len), created when missing; NULL when out of memory. */
nczm_zxnode *nczm_zx_make_child(nczm_zxindex *x, nczm_zxnode *p, const char *seg, size_t len);
/* The node of a path (segments separated by '/', "" = the root), or NULL. With make,
 * missing nodes are created (NULL only when out of memory, nothing left half-made). */
nczm_zxnode *nczm_zx_find(nczm_zxindex *x, const char *path, size_t len, int make);
/* The deepest existing node among path's proper prefixes (the root at least). */
nczm_zxnode *nczm_zx_deepest_parent(nczm_zxindex *x, const char *path);
/* Records archive entry idx, named rel below the folder ("a/b", or "a/b/" for a
 * directory, "" for the folder's own directory entry). 0, or -1 when out of memory. */
int nczm_zx_add_entry(nczm_zxindex *x, const char *rel, int64_t idx);
/* Frees n (never the root) if it has no entry and no child. Returns n's parent. */
nczm_zxnode *nczm_zx_drop_if_empty(nczm_zxindex *x, nczm_zxnode *n);
/* Frees the nodes of n's subtree, n included, that have no entry and no child left. */
void nczm_zx_sweep(nczm_zxindex *x, nczm_zxnode *n);
/* Detaches n (not the root) and frees it with its whole subtree. */
void nczm_zx_drop_tree(nczm_zxindex *x, nczm_zxnode *n);
/* Makes n (not the root) the child of parent named seg (taken over: malloc'ed, len
 * bytes). parent must not be in n's subtree, and have no child of that name. Cannot fail. */
void nczm_zx_move(nczm_zxindex *x, nczm_zxnode *n, nczm_zxnode *parent, char *seg, size_t len);
/* Pre-order walk of top's subtree: the node after n (start with n = top), NULL at the end. */
nczm_zxnode *nczm_zx_next(const nczm_zxnode *top, const nczm_zxnode *n);

#endif
