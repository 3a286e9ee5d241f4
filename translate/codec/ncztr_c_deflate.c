/* zlib and gzip: deflate streams with a zlib wrapper (numcodecs "zlib", byte-compatible with
 * HDF5's deflate filter, which calls compress2) or with a gzip wrapper (numcodecs "gzip",
 * Zarr v3 "gzip"). Decoding takes either wrapper. Pure computation, thread-safe. */
#include "ncztr_codec_internal.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

typedef struct level_state {
    int level;
} level_state;

static int parse(const json_t *j, bool v3, const ncztr_cctx *cx, void **state, char *msg, size_t msglen)
{
    (void)v3;
    (void)cx;
    long long v;
    if (ncztr_codec_int(j, "level", 1, 0, 9, &v, msg, msglen) < 0)
        return -1;
    level_state *s = malloc(sizeof *s);
    if (!s) {
        NCZTR_CODEC_MSG("out of memory");
        return -1;
    }
    s->level = (int)v;
    *state = s;
    return 1;
}

static int encode(const level_state *st, bool gzip, const void *in, size_t inlen, void **out, size_t *outlen,
                  ncztr_cerr *e)
{
    if (inlen > UINT_MAX)
        return NCZTR_CODEC_FAIL(e, "zlib: a chunk of %zu bytes is too large", inlen);
    *out = NULL;
    if (!gzip) {
        /* compress2, as HDF5's deflate filter calls it: the same bytes for the same zlib */
        uLongf cap = compressBound((uLong)inlen);
        unsigned char *buf = malloc(cap ? cap : 1);
        if (!buf)
            return NCZTR_CODEC_FAIL(e, "zlib: out of memory");
        int r = compress2(buf, &cap, in, (uLong)inlen, st->level);
        if (r != Z_OK) {
            free(buf);
            return NCZTR_CODEC_FAIL(e, "zlib: compress2 failed (%d)", r);
        }
        *out = buf;
        *outlen = cap;
        return 0;
    }
    z_stream s;
    memset(&s, 0, sizeof s);
    /* windowBits 15 + 16: the gzip wrapper numcodecs' GZip writes */
    if (deflateInit2(&s, st->level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        return NCZTR_CODEC_FAIL(e, "gzip: cannot initialise zlib");
    uLong cap = deflateBound(&s, (uLong)inlen) + 32;
    unsigned char *buf = malloc(cap);
    if (!buf) {
        deflateEnd(&s);
        return NCZTR_CODEC_FAIL(e, "gzip: out of memory");
    }
    s.next_in = (Bytef *)(uintptr_t)in;
    s.avail_in = (uInt)inlen;
    s.next_out = buf;
    s.avail_out = (uInt)cap;
    int r = deflate(&s, Z_FINISH);
    size_t n = s.total_out;
    deflateEnd(&s);
    if (r != Z_STREAM_END) {
        free(buf);
        return NCZTR_CODEC_FAIL(e, "gzip: deflate failed (%d)", r);
    }
    *out = buf;
    *outlen = n;
    return 0;
}

static int zlib_encode(const void *state, const ncztr_cctx *cx, const void *in, size_t inlen, void **out,
                       size_t *outlen, ncztr_cerr *e)
{
    (void)cx;
    return encode(state, false, in, inlen, out, outlen, e);
}

static int gzip_encode(const void *state, const ncztr_cctx *cx, const void *in, size_t inlen, void **out,
                       size_t *outlen, ncztr_cerr *e)
{
    (void)cx;
    return encode(state, true, in, inlen, out, outlen, e);
}

static int decode(const void *state, const ncztr_cctx *cx, const void *in, size_t inlen, void *out,
                  size_t cap, ncztr_dres *res, ncztr_cerr *e)
{
    (void)state;
    (void)cx;
    if (inlen > UINT_MAX || cap > UINT_MAX)
        return NCZTR_CODEC_FAIL(e, "zlib: a chunk of %zu bytes is too large", inlen > cap ? inlen : cap);
    z_stream s;
    memset(&s, 0, sizeof s);
    /* windowBits 15 + 32: a zlib or a gzip stream, told apart by its header */
    if (inflateInit2(&s, 15 + 32) != Z_OK)
        return NCZTR_CODEC_FAIL(e, "zlib: cannot initialise zlib");
    s.next_in = (Bytef *)(uintptr_t)in;
    s.avail_in = (uInt)inlen;
    s.next_out = out;
    s.avail_out = (uInt)cap;
    int r = inflate(&s, Z_FINISH);
    size_t n = s.total_out;
    const char *why = s.msg;
    inflateEnd(&s);
    if (r == Z_STREAM_END) {
        res->where = NCZTR_D_OUT;
        res->outlen = n;
        return 0;
    }
    if (r == Z_BUF_ERROR && s.avail_out == 0 && s.avail_in > 0)
        return NCZTR_CODEC_FAIL(e, "zlib: the data inflates to more than the %zu bytes expected", cap);
    if (r == Z_BUF_ERROR || (r == Z_OK && s.avail_in == 0))
        return NCZTR_CODEC_FAIL(e, "zlib: the compressed stream is truncated (%zu bytes)", inlen);
    return NCZTR_CODEC_FAIL(e, "zlib: inflate error (%d%s%s)", r, why ? ": " : "", why ? why : "");
}

/* HDF5 has one deflate filter: gzip shows as it too (the same stream inside another
 * wrapper), but a deflate pipeline is stored as zlib. */
static int to_filt(const void *state, const ncztr_cctx *cx, ncztr_filt *f, char *msg, size_t msglen)
{
    (void)cx;
    (void)msg;
    (void)msglen;
    memset(f, 0, sizeof *f);
    f->id = H5Z_FILTER_DEFLATE;
    f->flags = H5Z_FLAG_OPTIONAL;
    f->ncd = 1;
    f->cd[0] = (unsigned)((const level_state *)state)->level;
    return 1;
}

static json_t *from_filt(const ncztr_filt *f, char *msg, size_t msglen)
{
    json_t *j = ncztr_codec_with_int(ncztr_codec_obj("zlib"), "level", f->ncd ? f->cd[0] : 1);
    if (!j)
        NCZTR_CODEC_MSG("out of memory building a codec");
    return j;
}

const ncztr_codec_class ncztr_codec_zlib = {
    .v2id = "zlib",
    .kind = NCZTR_CK_B2B,
    .filter = H5Z_FILTER_DEFLATE,
    .parse = parse,
    .encode = zlib_encode,
    .decode = decode,
    .free_state = free,
    .to_filt = to_filt,
    .from_filt = from_filt,
};

const ncztr_codec_class ncztr_codec_gzip = {
    .v2id = "gzip",
    .v3name = "gzip",
    .kind = NCZTR_CK_B2B,
    .filter = H5Z_FILTER_DEFLATE,
    .parse = parse,
    .encode = gzip_encode,
    .decode = decode,
    .free_state = free,
    .to_filt = to_filt,
};
