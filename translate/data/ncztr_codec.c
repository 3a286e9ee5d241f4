/* The array's codec chain on the calling thread: built once, failures pushed naming the
 * dataset and chunk. */
#include "ncztr_chunkio_internal.h"
#include "ncztr_codec.h"

#include <stdint.h>
#include <stdlib.h>

static bool codec_absent(const json_t *j)
{
    return j == NULL || json_is_null(j) || (json_is_array(j) && json_array_size(j) == 0);
}

bool ncztr_codec_is_null(const ncztr_array *a)
{
    return codec_absent(a->za.compressor) && codec_absent(a->za.filters);
}

ncztr_chain *ncztr_array_chain(const ncztr_obj *o)
{
    ncztr_array *a = o->arr;
    if (a->chain)
        return a->chain;
    ncztr_cgeom g;
    if (ncztr_geom_init(o, &g) < 0)
        return NULL;
    if (ncztr_chain_build(a->za.filters, a->za.compressor, g.esz, g.chunk_bytes, g.path, &a->chain) < 0)
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

herr_t ncztr_codec_decode(const ncztr_obj *o, const char *key, void *in, size_t inlen, void **out,
                          size_t outlen)
{
    ncztr_cerr e = {{0}};
    ncztr_chain *c = ncztr_array_chain(o);
    if (!c) {
        free(in);
        return FAIL;
    }
    if (ncztr_chain_is_null(c) && inlen == outlen) {
        *out = in;
        return SUCCEED;
    }
    void *raw = malloc(outlen ? outlen : 1);
    if (!raw) {
        free(in);
        return NCZ_PUSH(NCZ_E_NOMEM, "out of memory decoding chunk \"%s\"", key);
    }
    int r = ncztr_chain_decode(c, in, inlen, raw, outlen, &e);
    free(in);
    if (r < 0) {
        free(raw);
        return ncztr_codec_failed(o, "decode", key, &e);
    }
    *out = raw;
    return SUCCEED;
}

herr_t ncztr_codec_encode(const ncztr_obj *o, const char *key, const void *in, size_t inlen, void **out,
                          size_t *outlen)
{
    ncztr_cerr e = {{0}};
    ncztr_chain *c = ncztr_array_chain(o);
    if (!c)
        return FAIL;
    if (ncztr_chain_encode(c, in, inlen, out, outlen, &e) < 0)
        return ncztr_codec_failed(o, "encode", key, &e);
    return SUCCEED;
}
