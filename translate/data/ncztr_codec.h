/* The chunk codec pipeline: Zarr v2 "filters" then "compressor" on the way to the store,
 * the reverse on the way back. Only the null pipeline (no compressor, no filters) exists
 * so far; real codecs will be added behind these same three calls. Each call handles one
 * chunk and keeps no state between calls, so that chunks can later be coded on a worker
 * pool without locks.
 */
#ifndef NCZTR_CODEC_H
#define NCZTR_CODEC_H

#include "ncztr_model.h"

#include <stdbool.h>
#include <stddef.h>

/* True when the array stores raw chunk bytes (compressor null and no filters). */
bool ncztr_codec_is_null(const ncztr_array *a);

/* Decodes one stored chunk object. Takes ownership of `in` (malloc'ed) whatever the
 * outcome. On success *out is malloc'ed raw chunk bytes (it may be `in` itself: the null
 * pipeline passes the buffer through without copying). `key` is the chunk key, for
 * messages. */
herr_t ncztr_codec_decode(const ncztr_obj *o, const char *key, void *in, size_t inlen, void **out,
                          size_t *outlen);

/* Encodes raw chunk bytes for storing. `in` stays the caller's. On success *out is either
 * `in` itself (pass-through: do not free it separately) or a malloc'ed buffer that the
 * caller frees. */
herr_t ncztr_codec_encode(const ncztr_obj *o, const char *key, const void *in, size_t inlen, void **out,
                          size_t *outlen);

#endif
