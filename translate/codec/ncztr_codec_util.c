/* What every codec class uses (ncztr_c_*.c): its integer parameters read from JSON, its
 * JSON built, no state, a little-endian checksum appended to its output and read back;
 * the names of HDF5's filters. */
#include "ncztr_codec_internal.h"
#include "ncztr_err.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int ncztr_codec_int(const json_t *codec, const char *key, long long dflt, long long lo, long long hi,
                    long long *out, char *msg, size_t msglen)
{
    const json_t *v = codec ? json_object_get(codec, key) : NULL;
    const char *id = codec ? json_string_value(json_object_get(codec, "id")) : NULL;
    long long x;
    if (!v || json_is_null(v)) {
        x = dflt;
    } else if (json_is_integer(v)) {
        x = json_integer_value(v);
    } else if (json_is_string(v)) {
        const char *s = json_string_value(v);
        char *end = NULL;
        errno = 0;
        x = strtoll(s, &end, 10);
        if (errno || end == s || *end) {
            NCZTR_CODEC_MSG("codec %s%s%s: parameter \"%s\" is \"%s\", not an integer", id ? "\"" : "",
                            id ? id : "configuration", id ? "\"" : "", key, s);
            return -1;
        }
    } else if (json_is_boolean(v)) {
        x = json_is_true(v);
    } else {
        NCZTR_CODEC_MSG("codec %s%s%s: parameter \"%s\" is not an integer", id ? "\"" : "",
                        id ? id : "configuration", id ? "\"" : "", key);
        return -1;
    }
    if (x < lo || x > hi) {
        NCZTR_CODEC_MSG("codec %s%s%s: parameter \"%s\" is %lld, outside [%lld, %lld]", id ? "\"" : "",
                        id ? id : "configuration", id ? "\"" : "", key, x, lo, hi);
        return -1;
    }
    *out = x;
    return 0;
}

json_t *ncztr_codec_obj(const char *id)
{
    json_t *j = json_object();
    if (j && json_object_set_new(j, "id", json_string(id)) < 0) {
        json_decref(j);
        return NULL;
    }
    return j;
}

json_t *ncztr_codec_with_int(json_t *j, const char *key, long long v)
{
    if (j && json_object_set_new(j, key, json_integer(v)) < 0) {
        json_decref(j);
        return NULL;
    }
    return j;
}

int ncztr_codec_parse_none(const json_t *j, bool v3, const ncztr_cctx *cx, void **state, char *msg,
                           size_t msglen)
{
    (void)j;
    (void)v3;
    (void)cx;
    (void)msg;
    (void)msglen;
    *state = NULL;
    return 1;
}

int ncztr_sum_append(const char *name, uint32_t sum, const void *in, size_t inlen, void **out, size_t *outlen,
                     ncztr_cerr *e)
{
    unsigned char *t = malloc(inlen + 4);
    if (!t)
        return NCZTR_CODEC_FAIL(e, "%s: out of memory", name);
    memcpy(t, in, inlen);
    for (int k = 0; k < 4; k++)
        t[inlen + k] = (unsigned char)(sum >> (8 * k));
    *out = t;
    *outlen = inlen + 4;
    return 0;
}

uint32_t ncztr_sum_stored(const void *in, size_t n)
{
    const unsigned char *f = (const unsigned char *)in + n - 4;
    return (uint32_t)f[0] | (uint32_t)f[1] << 8 | (uint32_t)f[2] << 16 | (uint32_t)f[3] << 24;
}

const char *ncztr_filter_name(H5Z_filter_t id)
{
    switch (id) {
    case H5Z_FILTER_DEFLATE:
        return "deflate";
    case H5Z_FILTER_SHUFFLE:
        return "shuffle";
    case H5Z_FILTER_FLETCHER32:
        return "fletcher32";
    case H5Z_FILTER_SZIP:
        return "szip";
    case H5Z_FILTER_NBIT:
        return "nbit";
    case H5Z_FILTER_SCALEOFFSET:
        return "scaleoffset";
    case NCZTR_FILTER_BZIP2:
        return "bzip2";
    case NCZTR_FILTER_BLOSC:
        return "blosc";
    case NCZTR_FILTER_LZ4:
        return "lz4";
    case NCZTR_FILTER_ZSTD:
        return "zstd";
    default:
        return "";
    }
}

int ncztr_codec_encode(const ncztr_codec_class *cls, const void *state, const ncztr_cctx *cx, const void *in,
                       size_t inlen, void **out, size_t *outlen, ncztr_cerr *e)
{
    if (cls->encode)
        return cls->encode(state, cx, in, inlen, out, outlen, e);
    const char *name = cls->v2id ? cls->v2id : cls->v3name;
    size_t cap = cls->encode_bound(state, inlen);
    if (!cap)
        return NCZTR_CODEC_FAIL(e, "%s: a chunk of %zu bytes is over its limit", name, inlen);
    void *buf = malloc(cap);
    if (!buf)
        return NCZTR_CODEC_FAIL(e, "%s: out of memory", name);
    if (cls->encode_into(state, cx, in, inlen, buf, cap, outlen, e) < 0) {
        free(buf);
        return -1;
    }
    *out = buf;
    return 0;
}
