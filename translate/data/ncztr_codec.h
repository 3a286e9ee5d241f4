/* The data layer's side of the codec chain (translate/codec): the array's chain, built on
 * first use, and the message of a chunk that failed to encode or decode, pushed on the
 * calling thread (the chunks of a batch are coded by ncztr_stages.c). */
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

#endif
