/* Chunk codecs. Only the null pipeline for now: anything else is reported, naming the
 * codec, rather than handing compressed bytes to the application as data. */
#include "ncztr_codec.h"
#include "ncztr_model_internal.h"

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

/* The id of the first codec applied when encoding (filters come before the compressor in
 * Zarr v2), for the "not supported" message. */
static const char *first_codec_id(const ncztr_array *a)
{
    const json_t *c = NULL;
    if (!codec_absent(a->za.filters))
        c = json_is_array(a->za.filters) ? json_array_get(a->za.filters, 0) : a->za.filters;
    else
        c = a->za.compressor;
    const json_t *id = json_is_object(c) ? json_object_get(c, "id") : NULL;
    return json_is_string(id) ? json_string_value(id) : "?";
}

static herr_t unsupported(const ncztr_obj *o, const char *key)
{
    char *path = ncztr_obj_path(o);
    herr_t r = NCZ_PUSH(NCZ_E_UNSUPPORTED, "array \"%s\": codec \"%s\" is not supported yet (chunk \"%s\")",
                        path ? path : "?", first_codec_id(o->arr), key ? key : "?");
    free(path);
    return r;
}

herr_t ncztr_codec_decode(const ncztr_obj *o, const char *key, void *in, size_t inlen, void **out,
                          size_t *outlen)
{
    if (!ncztr_codec_is_null(o->arr)) {
        free(in);
        return unsupported(o, key);
    }
    *out = in;
    *outlen = inlen;
    return SUCCEED;
}

herr_t ncztr_codec_encode(const ncztr_obj *o, const char *key, const void *in, size_t inlen, void **out,
                          size_t *outlen)
{
    if (!ncztr_codec_is_null(o->arr))
        return unsupported(o, key);
    *out = (void *)(uintptr_t)in; /* pass-through: documented as not to be freed */
    *outlen = inlen;
    return SUCCEED;
}
