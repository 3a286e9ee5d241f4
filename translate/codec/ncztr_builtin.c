/* The connector's own codecs: zlib and gzip, shuffle, Fletcher-32 (byte-compatible with
 * HDF5's built-in deflate, shuffle and fletcher32 filters), numcodecs' lz4, and bzip2
 * (plain bzip2 streams, as the HDF5 bzip2 filter 307 and numcodecs' bz2 store them: run
 * here because the plugin's decoder loops forever on a truncated stream). Pure
 * computation: thread-safe, no HDF5 calls. */
#include "ncztr_codec_internal.h"

#include <bzlib.h>
#include <limits.h>
#include <lz4.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#define FAILMSG(e, ...) (snprintf((e)->msg, sizeof(e)->msg, __VA_ARGS__), -1)

int ncztr_zlib_encode(int level, bool gzip, const void *in, size_t inlen, void **out, size_t *outlen,
                      ncztr_cerr *e)
{
    if (inlen > UINT_MAX)
        return FAILMSG(e, "zlib: a chunk of %zu bytes is too large", inlen);
    *out = NULL;
    if (!gzip) {
        /* compress2, as HDF5's deflate filter calls it: the same bytes for the same zlib */
        uLongf cap = compressBound((uLong)inlen);
        unsigned char *buf = malloc(cap ? cap : 1);
        if (!buf)
            return FAILMSG(e, "zlib: out of memory");
        int r = compress2(buf, &cap, in, (uLong)inlen, level);
        if (r != Z_OK) {
            free(buf);
            return FAILMSG(e, "zlib: compress2 failed (%d)", r);
        }
        *out = buf;
        *outlen = cap;
        return 0;
    }
    z_stream s;
    memset(&s, 0, sizeof s);
    /* windowBits 15 + 16: the gzip wrapper numcodecs' GZip writes */
    if (deflateInit2(&s, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        return FAILMSG(e, "gzip: cannot initialise zlib");
    uLong cap = deflateBound(&s, (uLong)inlen) + 32;
    unsigned char *buf = malloc(cap);
    if (!buf) {
        deflateEnd(&s);
        return FAILMSG(e, "gzip: out of memory");
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
        return FAILMSG(e, "gzip: deflate failed (%d)", r);
    }
    *out = buf;
    *outlen = n;
    return 0;
}

int ncztr_zlib_decode(const void *in, size_t inlen, void *out, size_t cap, size_t *outlen, ncztr_cerr *e)
{
    if (inlen > UINT_MAX || cap > UINT_MAX)
        return FAILMSG(e, "zlib: a chunk of %zu bytes is too large", inlen > cap ? inlen : cap);
    z_stream s;
    memset(&s, 0, sizeof s);
    /* windowBits 15 + 32: a zlib or a gzip stream, told apart by its header */
    if (inflateInit2(&s, 15 + 32) != Z_OK)
        return FAILMSG(e, "zlib: cannot initialise zlib");
    s.next_in = (Bytef *)(uintptr_t)in;
    s.avail_in = (uInt)inlen;
    s.next_out = out;
    s.avail_out = (uInt)cap;
    int r = inflate(&s, Z_FINISH);
    size_t n = s.total_out;
    const char *why = s.msg;
    inflateEnd(&s);
    if (r == Z_STREAM_END) {
        *outlen = n;
        return 0;
    }
    if (r == Z_BUF_ERROR && s.avail_out == 0 && s.avail_in > 0)
        return FAILMSG(e, "zlib: the data inflates to more than the %zu bytes expected", cap);
    if (r == Z_BUF_ERROR || (r == Z_OK && s.avail_in == 0))
        return FAILMSG(e, "zlib: the compressed stream is truncated (%zu bytes)", inlen);
    return FAILMSG(e, "zlib: inflate error (%d%s%s)", r, why ? ": " : "", why ? why : "");
}

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

uint32_t ncztr_fletcher32(const void *data, size_t n)
{
    /* Sums of big-endian 16-bit words; an odd last byte is the high byte of a last word.
     * The sums are folded to 16 bits every 360 words, before they could overflow. */
    const unsigned char *p = data;
    uint32_t a = 0, b = 0;
    size_t words = n / 2;
    while (words) {
        size_t k = words > 360 ? 360 : words;
        words -= k;
        for (; k; k--, p += 2) {
            a += ((uint32_t)p[0] << 8) | p[1];
            b += a;
        }
        a = (a & 0xffff) + (a >> 16);
        b = (b & 0xffff) + (b >> 16);
    }
    if (n % 2) {
        a += (uint32_t)p[0] << 8;
        b += a;
        a = (a & 0xffff) + (a >> 16);
        b = (b & 0xffff) + (b >> 16);
    }
    a = (a & 0xffff) + (a >> 16);
    b = (b & 0xffff) + (b >> 16);
    return (b << 16) | a;
}

int ncztr_fletcher32_check(const void *data, size_t n, ncztr_cerr *e)
{
    if (n < 4)
        return FAILMSG(e, "fletcher32: %zu bytes cannot hold the 4-byte checksum", n);
    const unsigned char *f = (const unsigned char *)data + n - 4;
    uint32_t stored = (uint32_t)f[0] | (uint32_t)f[1] << 8 | (uint32_t)f[2] << 16 | (uint32_t)f[3] << 24;
    uint32_t sum = ncztr_fletcher32(data, n - 4);
    uint32_t old = ((sum & 0x00ff00ffu) << 8) | ((sum >> 8) & 0x00ff00ffu);
    if (stored != sum && stored != old)
        return FAILMSG(e, "fletcher32: checksum mismatch (stored %08x, computed %08x): the chunk is corrupt",
                       (unsigned)stored, (unsigned)sum);
    return 0;
}

int ncztr_lz4_encode(int acceleration, const void *in, size_t inlen, void **out, size_t *outlen,
                     ncztr_cerr *e)
{
    if (inlen > (size_t)LZ4_MAX_INPUT_SIZE)
        return FAILMSG(e, "lz4: a chunk of %zu bytes is over LZ4's limit", inlen);
    int bound = LZ4_compressBound((int)inlen);
    unsigned char *buf = malloc((size_t)bound + 4);
    if (!buf)
        return FAILMSG(e, "lz4: out of memory");
    uint32_t n = (uint32_t)inlen;
    buf[0] = (unsigned char)n;
    buf[1] = (unsigned char)(n >> 8);
    buf[2] = (unsigned char)(n >> 16);
    buf[3] = (unsigned char)(n >> 24);
    int r = inlen ? LZ4_compress_fast(in, (char *)buf + 4, (int)inlen, bound, acceleration) : 0;
    if (inlen && r <= 0) {
        free(buf);
        return FAILMSG(e, "lz4: compression failed");
    }
    *out = buf;
    *outlen = (size_t)r + 4;
    return 0;
}

int ncztr_lz4_decode(const void *in, size_t inlen, void *out, size_t cap, size_t want, size_t *outlen,
                     ncztr_cerr *e)
{
    const unsigned char *p = in;
    if (inlen < 4)
        return FAILMSG(e, "lz4: %zu bytes cannot hold the 4-byte size header", inlen);
    size_t n = (size_t)p[0] | (size_t)p[1] << 8 | (size_t)p[2] << 16 | (size_t)p[3] << 24;
    if (want ? n != want : n > cap)
        return FAILMSG(e, "lz4: the header states %zu uncompressed bytes, expected %s%zu", n,
                       want ? "" : "at most ", want ? want : cap);
    if (n == 0) {
        *outlen = 0;
        return 0;
    }
    if (inlen - 4 > (size_t)INT_MAX || n > (size_t)INT_MAX)
        return FAILMSG(e, "lz4: a chunk of %zu bytes is over LZ4's limit", n);
    int r = LZ4_decompress_safe((const char *)p + 4, out, (int)(inlen - 4), (int)n);
    if (r < 0 || (size_t)r != n)
        return FAILMSG(e, "lz4: the compressed block is corrupt");
    *outlen = n;
    return 0;
}

int ncztr_bz2_encode(int level, const void *in, size_t inlen, void **out, size_t *outlen, ncztr_cerr *e)
{
    /* bzip2's worst case: 1% more plus 600 bytes */
    size_t cap = inlen + inlen / 100 + 601;
    if (cap > UINT_MAX)
        return FAILMSG(e, "bz2: a chunk of %zu bytes is too large", inlen);
    char *buf = malloc(cap);
    if (!buf)
        return FAILMSG(e, "bz2: out of memory");
    unsigned n = (unsigned)cap;
    int r = BZ2_bzBuffToBuffCompress(buf, &n, (char *)(uintptr_t)in, (unsigned)inlen, level, 0, 0);
    if (r != BZ_OK) {
        free(buf);
        return FAILMSG(e, "bz2: compression failed (%d)", r);
    }
    *out = buf;
    *outlen = n;
    return 0;
}

int ncztr_bz2_decode(const void *in, size_t inlen, void *out, size_t cap, size_t *outlen, ncztr_cerr *e)
{
    if (inlen > UINT_MAX || cap > UINT_MAX)
        return FAILMSG(e, "bz2: a chunk of %zu bytes is too large", inlen > cap ? inlen : cap);
    unsigned n = (unsigned)cap;
    int r = BZ2_bzBuffToBuffDecompress(out, &n, (char *)(uintptr_t)in, (unsigned)inlen, 0, 0);
    if (r == BZ_OUTBUFF_FULL)
        return FAILMSG(e, "bz2: the data decompresses to more than the %zu bytes expected", cap);
    if (r == BZ_UNEXPECTED_EOF)
        return FAILMSG(e, "bz2: the compressed stream is truncated (%zu bytes)", inlen);
    if (r != BZ_OK)
        return FAILMSG(e, "bz2: the compressed stream is corrupt (%d)", r);
    *outlen = n;
    return 0;
}
