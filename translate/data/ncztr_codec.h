/* The data layer's side of the codec chain (translate/codec): the array's chain, built on
 * first use, and single-chunk encode/decode that push failures on the calling thread. */
#ifndef NCZTR_CODEC_H
#define NCZTR_CODEC_H

#include "ncztr_codecs.h"
#include "ncztr_model.h"

#include <stdbool.h>
#include <stddef.h>

/* The array's codec chain, built on first use (NULL after pushing an error). */
ncztr_chain *ncztr_array_chain(const ncztr_obj *o);

/* Pushes a failure of the codec chain on chunk key (what: "decode" or "encode"). */
herr_t ncztr_codec_failed(const ncztr_obj *o, const char *what, const char *key, const ncztr_cerr *e);

/* True when the array stores raw chunk bytes (compressor null and no filters). */
bool ncztr_codec_is_null(const ncztr_array *a);

/* Decodes one stored chunk object. Takes ownership of `in` (malloc'ed) whatever the
 * outcome. On success *out is malloc'ed raw chunk bytes (outlen of them: the raw chunk
 * size; the null pipeline passes `in` through when its size is right). `key` is the chunk
 * key, for messages. */
herr_t ncztr_codec_decode(const ncztr_obj *o, const char *key, void *in, size_t inlen, void **out,
                          size_t outlen);

/* Encodes raw chunk bytes for storing. `in` stays the caller's. On success *out is either
 * `in` itself (pass-through: do not free it separately) or a malloc'ed buffer that the
 * caller frees. */
herr_t ncztr_codec_encode(const ncztr_obj *o, const char *key, const void *in, size_t inlen, void **out,
                          size_t *outlen);

#endif
