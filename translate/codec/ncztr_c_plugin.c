/* Codecs run by an HDF5 filter plugin found on the plugin path (blosc, zstd): the plugin's
 * filter function on a malloc'ed copy of the data, as HDF5's pipeline would call it. What a
 * plugin would allocate for a corrupt header is checked before it runs (blosc's and zstd's
 * headers state the decompressed size). */
#include "ncztr_codec_internal.h"
#include "ncztr_err.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* netCDF-C's blosc plugin (built without BLOSCCTX) sets blosc's global compressor and then
 * compresses: two threads must not interleave those calls (blosc serialises its global
 * context internally anyway, so nothing is lost). */
static pthread_mutex_t blosc_lock = PTHREAD_MUTEX_INITIALIZER;

int ncztr_plugged_find(ncztr_plugged *p, const char *name, char *msg, size_t msglen)
{
    char *dirs = NULL;
    if (ncztr_plugin_find(p->f.id, &p->cls, &dirs) < 0)
        return -1;
    int r = 1;
    if (!p->cls) {
        NCZTR_CODEC_MSG("codec \"%s\" needs HDF5 filter %d: no plugin for it in %s", name, (int)p->f.id,
                        *dirs ? dirs : "(no plugin directory)");
        r = 0;
    }
    free(dirs);
    return r;
}

static uint32_t le32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static int precheck(const ncztr_plugged *p, const unsigned char *b, size_t n, size_t cap, ncztr_cerr *e)
{
    if (p->f.id == NCZTR_FILTER_BLOSC) {
        if (n < 16 || le32(b + 12) > n || le32(b + 4) > cap)
            return NCZTR_CODEC_FAIL(e, "blosc: the chunk's header is corrupt (%zu bytes)", n);
    } else if (p->f.id == NCZTR_FILTER_ZSTD && n >= 6 && le32(b) == 0xFD2FB528u) {
        unsigned fhd = b[4], fcs = fhd >> 6, single = (fhd >> 5) & 1;
        static const unsigned dsz[4] = {0, 1, 2, 4}, fsz[4] = {0, 2, 4, 8};
        size_t off = 5 + (single ? 0 : 1) + dsz[fhd & 3], len = fcs ? fsz[fcs] : single;
        if (len && off + len <= n) {
            unsigned long long sz = 0;
            for (size_t k = len; k > 0; k--)
                sz = sz << 8 | b[off + k - 1];
            if (len == 2)
                sz += 256;
            if (sz > cap)
                return NCZTR_CODEC_FAIL(
                    e, "zstd: the frame states %llu decompressed bytes, more than the %zu expected", sz, cap);
        }
    }
    return 0;
}

/* Runs the filter on a copy of in; *own receives the result. */
static int run(const ncztr_plugged *p, unsigned flags, const void *in, size_t n, void **own, size_t *outlen,
               ncztr_cerr *e)
{
    void *buf = malloc(n ? n : 1);
    if (!buf)
        return NCZTR_CODEC_FAIL(e, "out of memory");
    memcpy(buf, in, n);
    size_t bufsize = n;
    bool lock = p->f.id == NCZTR_FILTER_BLOSC;
    if (lock)
        pthread_mutex_lock(&blosc_lock);
    size_t r = p->cls->filter(p->f.flags | flags, p->f.ncd, p->f.cd, n, &bufsize, &buf);
    if (lock)
        pthread_mutex_unlock(&blosc_lock);
    if (r == 0) {
        free(buf);
        const char *name = p->cls->name ? p->cls->name : ncztr_filter_name(p->f.id);
        return NCZTR_CODEC_FAIL(e, "HDF5 filter %d (%s) failed to %s the chunk", (int)p->f.id, name,
                                (flags & H5Z_FLAG_REVERSE) ? "decode" : "encode");
    }
    *own = buf;
    *outlen = r;
    return 0;
}

int ncztr_plugged_encode(const ncztr_plugged *p, const void *in, size_t inlen, void **out, size_t *outlen,
                         ncztr_cerr *e)
{
    return run(p, 0, in, inlen, out, outlen, e);
}

int ncztr_plugged_decode(const ncztr_plugged *p, const void *in, size_t inlen, size_t cap, ncztr_dres *r,
                         ncztr_cerr *e)
{
    if (precheck(p, in, inlen, cap, e) < 0)
        return -1;
    if (run(p, H5Z_FLAG_REVERSE, in, inlen, &r->own, &r->outlen, e) < 0)
        return -1;
    r->where = NCZTR_D_OWN;
    if (r->outlen > cap) {
        free(r->own);
        r->own = NULL;
        return NCZTR_CODEC_FAIL(e, "HDF5 filter %d decodes to %zu bytes, more than the %zu expected",
                                (int)p->f.id, r->outlen, cap);
    }
    return 0;
}
