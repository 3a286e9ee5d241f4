/* The chunk path of datasets (ncztr_chunkio.c): besides ncztr_array_read/write/flush,
 * declared in ncztr_model.h, the per-array chunk cache. */
#ifndef NCZTR_CHUNKIO_H
#define NCZTR_CHUNKIO_H

#include "ncztr_model.h"

/* Frees a chunk cache and every chunk in it. Dirty chunks are discarded: call
 * ncztr_array_flush first when they must reach the store. NULL is allowed. */
void ncztr_chunkcache_free(ncztr_chunkcache *c);

/* Writes the array's dirty chunks and then empties its cache. For use after chunk objects
 * were deleted or rewritten behind the cache's back (shrinking the extent, moving). */
herr_t ncztr_array_cache_evict(ncztr_obj *o);

#endif
