/* bytes (Zarr v3): the array->bytes codec of fixed-size elements, in the byte order its
 * "endian" names. The store's byte order is the array's dtype's (the v3 metadata reader puts
 * "endian" there), so the chunk's bytes are the array's: nothing to do either way. */
#include "ncztr_codec_internal.h"

#include <stdio.h>
#include <string.h>

static int parse(const json_t *j, bool v3, const ncztr_cctx *cx, void **state, char *msg, size_t msglen)
{
    (void)v3;
    (void)cx;
    *state = NULL;
    const json_t *en = j ? json_object_get(j, "endian") : NULL;
    if (en && !(json_is_string(en) &&
                (!strcmp(json_string_value(en), "little") || !strcmp(json_string_value(en), "big")))) {
        NCZTR_CODEC_MSG("codec \"bytes\": \"endian\" must be \"little\" or \"big\"");
        return -1;
    }
    return 1;
}

static int encode(const void *state, const ncztr_cctx *cx, const void *in, size_t inlen, void **out,
                  size_t *outlen, ncztr_cerr *e)
{
    (void)state;
    (void)cx;
    (void)in;
    (void)e;
    *out = NULL;
    *outlen = inlen;
    return 0;
}

static int decode(const void *state, const ncztr_cctx *cx, const void *in, size_t inlen, void *out,
                  size_t cap, ncztr_dres *r, ncztr_cerr *e)
{
    (void)state;
    (void)in;
    (void)out;
    (void)cap;
    if (inlen != cx->chunk_bytes)
        return NCZTR_CODEC_FAIL(e, "bytes: %zu bytes, expected %zu (a chunk of %zu-byte elements)", inlen,
                                cx->chunk_bytes, cx->esz);
    r->where = NCZTR_D_INPUT;
    r->outlen = inlen;
    return 0;
}

const ncztr_codec_class ncztr_codec_bytes = {
    .v3name = "bytes",
    .kind = NCZTR_CK_A2B,
    .parse = parse,
    .encode = encode,
    .decode = decode,
};
