/* The hash index of nczc_hash.h. */
#include "nczc_hash.h"

#include <stdlib.h>

uint64_t nczc_hash_bytes(uint64_t seed, const void *data, size_t n)
{
    const unsigned char *p = data;
    uint64_t h = seed;
    for (size_t i = 0; i < n; i++)
        h = (h ^ p[i]) * 1099511628211u;
    return h;
}

/* The finaliser of MurmurHash3: FNV-1a leaves the low bits of short keys poorly mixed,
 * and the index takes its slot from the low bits. */
static uint64_t mix(uint64_t h)
{
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdu;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53u;
    h ^= h >> 33;
    return h;
}

uint64_t nczc_hash_str(const char *s, size_t n)
{
    return mix(nczc_hash_bytes(NCZC_HASH_SEED, s, n));
}

uint64_t nczc_hash_u64(uint64_t v)
{
    return mix(v ^ NCZC_HASH_SEED);
}

static void place(nczc_hslot *slots, size_t cap, uint64_t hash, void *item)
{
    size_t i = (size_t)hash & (cap - 1);
    while (slots[i].item)
        i = (i + 1) & (cap - 1);
    slots[i].hash = hash;
    slots[i].item = item;
}

int nczc_hindex_add(nczc_hindex *ix, uint64_t hash, void *item)
{
    if ((ix->count + 1) * 2 > ix->cap) {
        size_t ncap = ix->cap ? ix->cap * 2 : 16;
        nczc_hslot *ns = calloc(ncap, sizeof *ns);
        if (!ns)
            return -1;
        for (size_t i = 0; i < ix->cap; i++)
            if (ix->slots[i].item)
                place(ns, ncap, ix->slots[i].hash, ix->slots[i].item);
        free(ix->slots);
        ix->slots = ns;
        ix->cap = ncap;
    }
    place(ix->slots, ix->cap, hash, item);
    ix->count++;
    return 0;
}

void *nczc_hindex_find(const nczc_hindex *ix, uint64_t hash, nczc_hmatch match, const void *key,
                       size_t keylen)
{
    if (!ix->count)
        return NULL;
    for (size_t i = (size_t)hash & (ix->cap - 1);; i = (i + 1) & (ix->cap - 1)) {
        const nczc_hslot *s = &ix->slots[i];
        if (!s->item)
            return NULL;
        if (s->hash == hash && match(s->item, key, keylen))
            return s->item;
    }
}

int nczc_hindex_remove(nczc_hindex *ix, uint64_t hash, const void *item)
{
    if (!ix->count)
        return 0;
    size_t mask = ix->cap - 1, i = (size_t)hash & mask;
    for (;; i = (i + 1) & mask) {
        if (!ix->slots[i].item)
            return 0;
        if (ix->slots[i].item == item)
            break;
    }
    /* Backward shift: move later members of the probe run into the hole, so that no
     * lookup stops early at it and no tombstones accumulate. */
    for (size_t j = (i + 1) & mask;; j = (j + 1) & mask) {
        nczc_hslot *s = &ix->slots[j];
        if (!s->item)
            break;
        size_t home = (size_t)s->hash & mask;
        /* s may move to i only if its home is not in the cyclic range (i, j]. */
        if (((j - home) & mask) >= ((j - i) & mask)) {
            ix->slots[i] = *s;
            i = j;
        }
    }
    ix->slots[i].item = NULL;
    ix->slots[i].hash = 0;
    ix->count--;
    return 1;
}

void nczc_hindex_clear(nczc_hindex *ix)
{
    free(ix->slots);
    ix->slots = NULL;
    ix->cap = ix->count = 0;
}
