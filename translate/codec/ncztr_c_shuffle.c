/* shuffle: byte k of every element together (numcodecs "shuffle", byte-compatible with
 * HDF5's shuffle filter). Pure computation, thread-safe. */
#include "ncztr_codec_internal.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct shuffle_state {
    size_t esz;
} shuffle_state;

void ncztr_shuffle(size_t esz, const void *in, size_t n, void *out)
{
    const unsigned char *src = in;
    unsigned char *dst = out;
    size_t nel = esz ? n / esz : 0;
    if (esz <= 1 || nel <= 1) {
        memcpy(dst, src, n);
        return;
    }
    for (size_t b = 0; b < esz; b++) {
        unsigned char *d = dst + b * nel;
        const unsigned char *s = src + b;
        for (size_t i = 0; i < nel; i++)
            d[i] = s[i * esz];
    }
    /* as HDF5: bytes after the last whole element are copied as they are */
    memcpy(dst + nel * esz, src + nel * esz, n - nel * esz);
}

void ncztr_unshuffle(size_t esz, const void *in, size_t n, void *out)
{
    const unsigned char *src = in;
    unsigned char *dst = out;
    size_t nel = esz ? n / esz : 0;
    if (esz <= 1 || nel <= 1) {
        memcpy(dst, src, n);
        return;
    }
    for (size_t b = 0; b < esz; b++) {
        const unsigned char *s = src + b * nel;
        unsigned char *d = dst + b;
        for (size_t i = 0; i < nel; i++)
            d[i * esz] = s[i];
    }
    memcpy(dst + nel * esz, src + nel * esz, n - nel * esz);
}

static int parse(const json_t *j, bool v3, const ncztr_cctx *cx, void **state, char *msg, size_t msglen)
{
    (void)v3;
    long long v;
    if (ncztr_codec_int(j, "elementsize", (long long)cx->esz, 0, INT_MAX, &v, msg, msglen) < 0)
        return -1;
    shuffle_state *s = malloc(sizeof *s);
    if (!s) {
        NCZTR_CODEC_MSG("out of memory");
        return -1;
    }
    /* netCDF-C 4.9.3 writes "0" for "the element size of the type" */
    s->esz = v ? (size_t)v : cx->esz;
    *state = s;
    return 1;
}

static int encode(const void *state, const ncztr_cctx *cx, const void *in, size_t inlen, void **out,
                  size_t *outlen, ncztr_cerr *e)
{
    (void)cx;
    unsigned char *dst = malloc(inlen ? inlen : 1);
    if (!dst)
        return NCZTR_CODEC_FAIL(e, "shuffle: out of memory");
    ncztr_shuffle(((const shuffle_state *)state)->esz, in, inlen, dst);
    *out = dst;
    *outlen = inlen;
    return 0;
}

static int decode(const void *state, const ncztr_cctx *cx, const void *in, size_t inlen, void *out,
                  size_t cap, ncztr_dres *r, ncztr_cerr *e)
{
    (void)cx;
    if (inlen > cap)
        return NCZTR_CODEC_ROOM(e, "shuffle: %zu bytes, more than the %zu expected", inlen, cap);
    ncztr_unshuffle(((const shuffle_state *)state)->esz, in, inlen, out);
    r->where = NCZTR_D_OUT;
    r->outlen = inlen;
    return 0;
}

static int to_filt(const void *state, const ncztr_cctx *cx, ncztr_filt *f, char *msg, size_t msglen)
{
    (void)cx;
    (void)msg;
    (void)msglen;
    memset(f, 0, sizeof *f);
    f->id = H5Z_FILTER_SHUFFLE;
    f->flags = H5Z_FLAG_OPTIONAL;
    f->ncd = 1;
    f->cd[0] = (unsigned)((const shuffle_state *)state)->esz;
    return 1;
}

static json_t *from_filt(const ncztr_filt *f, char *msg, size_t msglen)
{
    if (f->ncd < 1 || f->cd[0] == 0) {
        NCZTR_CODEC_MSG("filter shuffle: no element size");
        return NULL;
    }
    json_t *j = ncztr_codec_with_int(ncztr_codec_obj("shuffle"), "elementsize", f->cd[0]);
    if (!j)
        NCZTR_CODEC_MSG("out of memory building a codec");
    return j;
}

const ncztr_codec_class ncztr_codec_shuffle = {
    .v2id = "shuffle",
    .kind = NCZTR_CK_B2B,
    .filter = H5Z_FILTER_SHUFFLE,
    .parse = parse,
    .encode = encode,
    .decode = decode,
    .free_state = free,
    .to_filt = to_filt,
    .from_filt = from_filt,
};
