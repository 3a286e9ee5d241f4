/* The array's codec chain on the calling thread: built once, failures pushed naming the
 * dataset and chunk. */
#include "ncztr_chunkio_internal.h"
#include "ncztr_codec.h"

#include <stdint.h>
#include <stdlib.h>

ncztr_chain *ncztr_array_chain(const ncztr_obj *o)
{
    ncztr_array *a = o->arr;
    if (a->chain)
        return a->chain;
    ncztr_cgeom g;
    if (ncztr_geom_init(o, &g) < 0)
        return NULL;
    ncztr_cctx cx = {.esz = g.esz,
                     .rank = a->za.rank,
                     .chunk_bytes = g.chunk_bytes,
                     .path = g.path,
                     .fill = a->za.has_fill ? a->za.fill : NULL,
                     .utf32 = a->za.utf32,
                     .vlen = a->za.dtype.tclass == NCZTR_T_VLEN};
    for (int k = 0; k < a->za.rank; k++)
        cx.shape[k] = a->za.chunks[k];
    if (ncztr_chain_build(a->za.filters, a->za.compressor, a->za.codecs, &cx, &a->chain) < 0)
        a->chain = NULL;
    ncztr_geom_clear(&g);
    return a->chain;
}

herr_t ncztr_codec_failed(const ncztr_obj *o, const char *what, const char *key, const ncztr_cerr *e)
{
    char *path = ncztr_obj_path(o);
    herr_t r = NCZ_PUSH(NCZ_E_FORMAT, "dataset \"%s\": cannot %s chunk \"%s\": %s", path ? path : "?", what,
                        key ? key : "?", e->msg);
    free(path);
    return r;
}
