/* A small open-addressing hash index (linear probing, backward-shift deletion) of items
 * the caller owns: it stores item pointers with their hashes and never looks inside an
 * item except through the caller's match function. One implementation for every name
 * index of the connector: children and attributes by name and objects by id in the model
 * (translate/), entries by path segment in the zip store (zmap/). Not thread-safe, like
 * the rest of a store.
 *
 * An empty index is all zeros ({0}); it allocates on the first insert and keeps its load
 * at most one half, so a lookup probes a few slots whatever the count. */
#ifndef NCZC_HASH_H
#define NCZC_HASH_H

#include <stddef.h>
#include <stdint.h>

typedef struct nczc_hslot {
    uint64_t hash;
    void *item; /* NULL: empty slot */
} nczc_hslot;

typedef struct nczc_hindex {
    nczc_hslot *slots;
    size_t cap; /* a power of two, or 0 */
    size_t count;
} nczc_hindex;

/* Hash of bytes (64-bit FNV-1a with a final mix, so that low bits are usable). seed is
 * NCZC_HASH_SEED, or the result of an earlier call to hash a longer key in pieces. */
#define NCZC_HASH_SEED 1469598103934665603u
uint64_t nczc_hash_bytes(uint64_t seed, const void *data, size_t n);
/* A finished hash of a string, or of a 64-bit integer. */
uint64_t nczc_hash_str(const char *s, size_t n);
uint64_t nczc_hash_u64(uint64_t v);

/* Does item match the key (key, keylen are the caller's, passed through)? */
typedef int (*nczc_hmatch)(const void *item, const void *key, size_t keylen);

/* Adds item (non-NULL) under hash; does not look for an equal item first. 0, or -1 when
 * out of memory (the index is unchanged). */
int nczc_hindex_add(nczc_hindex *ix, uint64_t hash, void *item);
/* The first item under hash that match accepts, or NULL. */
void *nczc_hindex_find(const nczc_hindex *ix, uint64_t hash, nczc_hmatch match, const void *key,
                       size_t keylen);
/* Removes this very item (pointer identity) stored under hash; 1 if it was there, else 0. */
int nczc_hindex_remove(nczc_hindex *ix, uint64_t hash, const void *item);
/* Frees the slots (not the items) and leaves an empty index. */
void nczc_hindex_clear(nczc_hindex *ix);

#endif
