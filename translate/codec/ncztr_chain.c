/* The codec chain of one array: its codecs parsed once (plugins resolved) into stages that
 * encode and decode chunk bytes. Stages run in the order of the HDF5 pipeline (Zarr's
 * "filters", then "compressor") when encoding, in reverse when decoding.
 *
 * encode/decode make no HDF5 calls and push nothing (they run on worker threads). Every
 * decoding step is bounded: no stage may produce more than the raw chunk size plus a
 * little slack, and the last must produce exactly the raw chunk size. */
#include "ncztr_codec_internal.h"
#include "ncztr_err.h"

#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef enum stage_kind { K_ZLIB, K_GZIP, K_SHUFFLE, K_FLETCHER32, K_LZ4, K_BZ2, K_PLUGIN } stage_kind;

typedef struct stage {
    stage_kind k;
    int level;  /* zlib/gzip level, lz4 acceleration */
    size_t esz; /* shuffle's element size */
    ncztr_filt f;
    const H5Z_class2_t *cls;
} stage;

struct ncztr_chain {
    size_t nst;
    stage *st;
    char *unusable;
};

/* netCDF-C's blosc plugin (built without BLOSCCTX) sets blosc's global compressor and then
 * compresses: two threads must not interleave those calls (blosc serialises its global
 * context internally anyway, so nothing is lost). */
static pthread_mutex_t blosc_lock = PTHREAD_MUTEX_INITIALIZER;

#define FAILMSG(e, ...) (snprintf((e)->msg, sizeof(e)->msg, __VA_ARGS__), -1)

static bool codec_absent(const json_t *j)
{
    return j == NULL || json_is_null(j) || (json_is_array(j) && json_array_size(j) == 0);
}

/* The most bytes any decoding step may produce for a raw chunk of raw bytes: the raw size
 * plus what an incompressible chunk costs in a compressed stream (an intermediate result
 * may be compressed bytes). */
static size_t decode_bound(size_t raw)
{
    return raw + raw / 64 + 1024;
}

static herr_t add_stage(ncztr_chain *c, const json_t *codec, size_t esz, size_t chunk_bytes, const char *path)
{
    herr_t ret = SUCCEED;
    char msg[400] = "";
    char *dirs = NULL;
    stage *s = &c->st[c->nst];
    memset(s, 0, sizeof *s);
    const char *id = json_is_object(codec) ? json_string_value(json_object_get(codec, "id")) : NULL;
    long long v;
    if (!id)
        NCZ_GOTO(FAIL, NCZ_E_FORMAT, "array \"%s\": a codec is not a JSON object with a string \"id\"", path);
    if (strcmp(id, "zlib") == 0 || strcmp(id, "gzip") == 0) {
        if (ncztr_codec_int(codec, "level", 1, 0, 9, &v, msg, sizeof msg) < 0)
            NCZ_GOTO(FAIL, NCZ_E_FORMAT, "array \"%s\": %s", path, msg);
        s->k = id[0] == 'z' ? K_ZLIB : K_GZIP;
        s->level = (int)v;
    } else if (strcmp(id, "shuffle") == 0) {
        if (ncztr_codec_int(codec, "elementsize", (long long)esz, 0, INT_MAX, &v, msg, sizeof msg) < 0)
            NCZ_GOTO(FAIL, NCZ_E_FORMAT, "array \"%s\": %s", path, msg);
        s->k = K_SHUFFLE;
        /* netCDF-C 4.9.3 writes "0" for "the element size of the type" */
        s->esz = v ? (size_t)v : esz;
    } else if (strcmp(id, "fletcher32") == 0) {
        s->k = K_FLETCHER32;
    } else if (strcmp(id, "bz2") == 0) {
        if (ncztr_codec_int(codec, "level", 1, 1, 9, &v, msg, sizeof msg) < 0)
            NCZ_GOTO(FAIL, NCZ_E_FORMAT, "array \"%s\": %s", path, msg);
        s->k = K_BZ2;
        s->level = (int)v;
    } else if (strcmp(id, "lz4") == 0) {
        if (ncztr_codec_int(codec, "acceleration", 1, INT_MIN, INT_MAX, &v, msg, sizeof msg) < 0)
            NCZ_GOTO(FAIL, NCZ_E_FORMAT, "array \"%s\": %s", path, msg);
        s->k = K_LZ4;
        s->level = (int)v;
    } else {
        int r = ncztr_codec_to_filt(codec, esz, chunk_bytes, &s->f, msg, sizeof msg);
        if (r < 0)
            NCZ_GOTO(FAIL, NCZ_E_FORMAT, "array \"%s\": %s", path, msg);
        if (r == 0) {
            c->unusable = strdup(msg);
            NCZ_CHECK_ALLOC(c->unusable, FAIL);
            goto done;
        }
        if (s->f.id == H5Z_FILTER_SZIP) {
            /* szip's HDF5 parameters (bits per pixel, pixels per scanline) depend on the
             * chunk shape and type precision, which the chain is not given */
            snprintf(msg, sizeof msg, "codec \"szip\" is not supported by the connector");
            c->unusable = strdup(msg);
            NCZ_CHECK_ALLOC(c->unusable, FAIL);
            goto done;
        }
        if (ncztr_plugin_find(s->f.id, &s->cls, &dirs) < 0)
            NCZ_GOTO_QUIET(FAIL);
        if (!s->cls) {
            size_t len = strlen(id) + strlen(dirs) + 96;
            c->unusable = malloc(len);
            NCZ_CHECK_ALLOC(c->unusable, FAIL);
            snprintf(c->unusable, len, "codec \"%s\" needs HDF5 filter %d: no plugin for it in %s", id,
                     (int)s->f.id, *dirs ? dirs : "(no plugin directory)");
            goto done;
        }
        s->k = K_PLUGIN;
    }
    c->nst++;
done:
    free(dirs);
    return ret;
}

herr_t ncztr_chain_build(const json_t *filters, const json_t *compressor, size_t esz, size_t chunk_bytes,
                         const char *path, ncztr_chain **out)
{
    herr_t ret = SUCCEED;
    *out = NULL;
    ncztr_chain *c = calloc(1, sizeof *c);
    NCZ_CHECK_ALLOC(c, FAIL);
    if (!codec_absent(filters) && !json_is_array(filters))
        NCZ_GOTO(FAIL, NCZ_E_FORMAT, "array \"%s\": \"filters\" is neither null nor a list", path);
    if (!codec_absent(compressor) && !json_is_object(compressor))
        NCZ_GOTO(FAIL, NCZ_E_FORMAT, "array \"%s\": \"compressor\" is neither null nor an object", path);
    size_t nf = json_is_array(filters) ? json_array_size(filters) : 0;
    size_t n = nf + (codec_absent(compressor) ? 0 : 1);
    if (n) {
        c->st = calloc(n, sizeof *c->st);
        NCZ_CHECK_ALLOC(c->st, FAIL);
    }
    for (size_t k = 0; k < n && !c->unusable; k++)
        if (add_stage(c, k < nf ? json_array_get(filters, k) : compressor, esz, chunk_bytes, path) < 0)
            NCZ_GOTO_QUIET(FAIL);
    *out = c;
    c = NULL;
done:
    ncztr_chain_free(c);
    return ret;
}

void ncztr_chain_free(ncztr_chain *c)
{
    if (!c)
        return;
    free(c->st);
    free(c->unusable);
    free(c);
}

bool ncztr_chain_is_null(const ncztr_chain *c)
{
    return c->nst == 0 && !c->unusable;
}

const char *ncztr_chain_unusable(const ncztr_chain *c)
{
    return c->unusable;
}

static uint32_t le32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* What a plugin would allocate for a corrupt header is checked before it runs: blosc's and
 * zstd's headers state the decompressed size. */
static int precheck(const stage *s, const unsigned char *p, size_t n, size_t cap, ncztr_cerr *e)
{
    if (s->f.id == NCZTR_FILTER_BLOSC) {
        if (n < 16 || le32(p + 12) > n || le32(p + 4) > cap)
            return FAILMSG(e, "blosc: the chunk's header is corrupt (%zu bytes)", n);
    } else if (s->f.id == NCZTR_FILTER_ZSTD && n >= 6 && le32(p) == 0xFD2FB528u) {
        unsigned fhd = p[4], fcs = fhd >> 6, single = (fhd >> 5) & 1;
        static const unsigned dsz[4] = {0, 1, 2, 4}, fsz[4] = {0, 2, 4, 8};
        size_t off = 5 + (single ? 0 : 1) + dsz[fhd & 3], len = fcs ? fsz[fcs] : single;
        if (len && off + len <= n) {
            unsigned long long sz = 0;
            for (size_t k = len; k > 0; k--)
                sz = sz << 8 | p[off + k - 1];
            if (len == 2)
                sz += 256;
            if (sz > cap)
                return FAILMSG(
                    e, "zstd: the frame states %llu decompressed bytes, more than the %zu expected", sz, cap);
        }
    }
    return 0;
}

/* Runs a plugin's filter function on *own (malloc'ed, n bytes), which it may replace. */
static int run_plugin(const stage *s, unsigned flags, unsigned char **own, size_t *n, ncztr_cerr *e)
{
    void *buf = *own;
    size_t bufsize = *n;
    bool lock = s->f.id == NCZTR_FILTER_BLOSC;
    if (lock)
        pthread_mutex_lock(&blosc_lock);
    size_t r = s->cls->filter(s->f.flags | flags, s->f.ncd, s->f.cd, *n, &bufsize, &buf);
    if (lock)
        pthread_mutex_unlock(&blosc_lock);
    *own = buf;
    if (r == 0) {
        const char *name = s->cls->name ? s->cls->name : ncztr_filter_name(s->f.id);
        return FAILMSG(e, "HDF5 filter %d (%s) failed to %s the chunk", (int)s->f.id, name,
                       (flags & H5Z_FLAG_REVERSE) ? "decode" : "encode");
    }
    *n = r;
    return 0;
}

/* Makes *own a malloc'ed copy of src unless it already holds it. */
static int own_copy(const unsigned char *src, size_t n, unsigned char **own, ncztr_cerr *e)
{
    if (*own)
        return 0;
    if (!(*own = malloc(n ? n : 1)))
        return FAILMSG(e, "out of memory");
    memcpy(*own, src, n);
    return 0;
}

int ncztr_chain_decode(const ncztr_chain *c, const void *in, size_t inlen, void *out, size_t outlen,
                       ncztr_cerr *e)
{
    if (c->unusable)
        return FAILMSG(e, "%s", c->unusable);
    const unsigned char *src = in;
    unsigned char *own = NULL; /* when set, src == own */
    size_t n = inlen, cap = decode_bound(outlen);
    bool in_out = false; /* the last step wrote straight into out */
    int r = 0;
    for (size_t i = c->nst; i-- > 0 && r == 0;) {
        const stage *s = &c->st[i];
        bool last = i == 0;
        unsigned char *dst = NULL;
        size_t m = 0;
        if (n > cap) {
            r = FAILMSG(e, "a stored chunk of %zu bytes is larger than any encoding of %zu bytes", n, outlen);
            break;
        }
        switch (s->k) {
        case K_FLETCHER32:
            if ((r = ncztr_fletcher32_check(src, n, e)) == 0)
                n -= 4;
            continue;
        case K_ZLIB:
        case K_GZIP:
        case K_LZ4:
        case K_BZ2:
            dst = last ? out : malloc(cap);
            if (!dst) {
                r = FAILMSG(e, "out of memory");
                break;
            }
            if (s->k == K_LZ4)
                r = ncztr_lz4_decode(src, n, dst, last ? outlen : cap, last ? outlen : 0, &m, e);
            else if (s->k == K_BZ2)
                r = ncztr_bz2_decode(src, n, dst, last ? outlen : cap, &m, e);
            else
                r = ncztr_zlib_decode(src, n, dst, last ? outlen : cap, &m, e);
            break;
        case K_SHUFFLE:
            dst = last && n == outlen ? out : malloc(n ? n : 1);
            if (!dst) {
                r = FAILMSG(e, "out of memory");
                break;
            }
            ncztr_unshuffle(s->esz, src, n, dst);
            m = n;
            break;
        case K_PLUGIN:
            if ((r = precheck(s, src, n, cap, e)) == 0 && (r = own_copy(src, n, &own, e)) == 0)
                r = run_plugin(s, H5Z_FLAG_REVERSE, &own, &n, e);
            src = own;
            continue;
        }
        if (r < 0) {
            if (dst != out)
                free(dst);
            break;
        }
        free(own);
        own = dst == out ? NULL : dst;
        src = dst;
        n = m;
        in_out = dst == out;
    }
    if (r == 0 && n != outlen)
        r = FAILMSG(e, "the chunk decodes to %zu bytes, expected %zu", n, outlen);
    if (r == 0 && !in_out)
        memcpy(out, src, n);
    free(own);
    return r;
}

int ncztr_chain_encode(const ncztr_chain *c, const void *in, size_t inlen, void **out, size_t *outlen,
                       ncztr_cerr *e)
{
    if (c->unusable)
        return FAILMSG(e, "%s", c->unusable);
    if (c->nst == 0) {
        *out = (void *)(uintptr_t)in;
        *outlen = inlen;
        return 0;
    }
    const unsigned char *src = in;
    unsigned char *own = NULL;
    size_t n = inlen;
    int r = 0;
    for (size_t i = 0; i < c->nst && r == 0; i++) {
        const stage *s = &c->st[i];
        void *dst = NULL;
        size_t m = 0;
        switch (s->k) {
        case K_ZLIB:
        case K_GZIP:
            r = ncztr_zlib_encode(s->level, s->k == K_GZIP, src, n, &dst, &m, e);
            break;
        case K_LZ4:
            r = ncztr_lz4_encode(s->level, src, n, &dst, &m, e);
            break;
        case K_BZ2:
            r = ncztr_bz2_encode(s->level, src, n, &dst, &m, e);
            break;
        case K_SHUFFLE:
            if (!(dst = malloc(n ? n : 1))) {
                r = FAILMSG(e, "out of memory");
                break;
            }
            ncztr_shuffle(s->esz, src, n, dst);
            m = n;
            break;
        case K_FLETCHER32: {
            uint32_t sum = ncztr_fletcher32(src, n);
            unsigned char *t = own ? realloc(own, n + 4) : malloc(n + 4);
            if (!t) {
                r = FAILMSG(e, "out of memory");
                break;
            }
            if (!own)
                memcpy(t, src, n);
            /* a little-endian footer, as HDF5 writes it */
            for (int k = 0; k < 4; k++)
                t[n + k] = (unsigned char)(sum >> (8 * k));
            own = t;
            src = own;
            n += 4;
            continue;
        }
        case K_PLUGIN:
            if ((r = own_copy(src, n, &own, e)) == 0)
                r = run_plugin(s, 0, &own, &n, e);
            src = own;
            continue;
        }
        if (r < 0)
            break;
        free(own);
        own = dst;
        src = own;
        n = m;
    }
    if (r < 0) {
        free(own);
        return -1;
    }
    *out = own;
    *outlen = n;
    return 0;
}
