/* numpy's fixed-width text ("<U<n>" in Zarr v2, "fixed_length_utf32" in v3: how xarray
 * stores string coordinates): n UTF-32 code points per element on disk. HDF5 has no UTF-32
 * strings, so the connector shows them as fixed-size UTF-8 strings of 4n bytes, padded
 * with NULs (4 bytes hold any code point in UTF-8). This array->array step of the chain
 * converts between the two; it has no name in either Zarr version: the chain puts it first
 * when the array's data type asks for it (ncztr_cctx.utf32). Elements keep their size, so
 * the chunk geometry is the same on both sides. */
#include "ncztr_codec_internal.h"

#include <stdlib.h>
#include <string.h>

static uint32_t get32(const unsigned char *p, bool big)
{
    return big ? (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]
               : (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0];
}

static void put32(unsigned char *p, uint32_t v, bool big)
{
    for (int i = 0; i < 4; i++)
        p[big ? 3 - i : i] = (unsigned char)(v >> (8 * i));
}

/* One UTF-8 sequence at s (at most n bytes): its code point and length, or 0 when invalid. */
static size_t utf8_next(const unsigned char *s, size_t n, uint32_t *cp)
{
    size_t len = s[0] < 0x80 ? 1 : (s[0] >> 5) == 6 ? 2 : (s[0] >> 4) == 14 ? 3 : (s[0] >> 3) == 30 ? 4 : 0;
    if (!len || len > n)
        return 0;
    uint32_t c = len == 1 ? s[0] : s[0] & (0x7f >> len);
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xc0) != 0x80)
            return 0;
        c = c << 6 | (s[i] & 0x3f);
    }
    static const uint32_t least[] = {0, 0, 0x80, 0x800, 0x10000};
    if (c < least[len] || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
        return 0;
    *cp = c;
    return len;
}

static size_t utf8_put(unsigned char *d, uint32_t c)
{
    if (c < 0x80) {
        d[0] = (unsigned char)c;
        return 1;
    }
    if (c < 0x800) {
        d[0] = (unsigned char)(0xc0 | c >> 6);
        d[1] = (unsigned char)(0x80 | (c & 0x3f));
        return 2;
    }
    if (c < 0x10000) {
        d[0] = (unsigned char)(0xe0 | c >> 12);
        d[1] = (unsigned char)(0x80 | ((c >> 6) & 0x3f));
        d[2] = (unsigned char)(0x80 | (c & 0x3f));
        return 3;
    }
    d[0] = (unsigned char)(0xf0 | c >> 18);
    d[1] = (unsigned char)(0x80 | ((c >> 12) & 0x3f));
    d[2] = (unsigned char)(0x80 | ((c >> 6) & 0x3f));
    d[3] = (unsigned char)(0x80 | (c & 0x3f));
    return 4;
}

/* UTF-8 (NUL-padded, 4n bytes) -> UTF-32 (n code points, zero-padded). */
static int encode(const void *state, const ncztr_cctx *cx, const void *in, size_t inlen, void **out,
                  size_t *outlen, ncztr_cerr *e)
{
    (void)state;
    size_t esz = cx->esz, n = esz / 4;
    bool big = cx->utf32 == '>';
    unsigned char *buf = calloc(inlen ? inlen : 1, 1);
    if (!buf)
        return NCZTR_CODEC_FAIL(e, "UTF-32 text: out of memory");
    for (size_t off = 0; off + esz <= inlen; off += esz) {
        const unsigned char *s = (const unsigned char *)in + off;
        size_t len = 0, k = 0;
        while (len < esz && s[len])
            len++;
        for (size_t i = 0; i < len; k++) {
            uint32_t c = 0;
            size_t l = utf8_next(s + i, len - i, &c);
            if (!l || k == n) {
                free(buf);
                return NCZTR_CODEC_FAIL(e, "UTF-32 text: element %zu %s", off / esz,
                                        l ? "has more characters than the data type's length"
                                          : "is not valid UTF-8");
            }
            put32(buf + off + 4 * k, c, big);
            i += l;
        }
    }
    *out = buf;
    *outlen = inlen;
    return 0;
}

/* UTF-32 -> UTF-8, NUL-padded. */
static int decode(const void *state, const ncztr_cctx *cx, const void *in, size_t inlen, void *out,
                  size_t cap, ncztr_dres *r, ncztr_cerr *e)
{
    (void)state;
    size_t esz = cx->esz;
    bool big = cx->utf32 == '>';
    if (cap < inlen)
        return NCZTR_CODEC_FAIL(e, "UTF-32 text: no room for %zu bytes", inlen);
    unsigned char *d = out;
    const unsigned char *s = in;
    memset(d, 0, inlen);
    for (size_t off = 0; off + esz <= inlen; off += esz) {
        size_t w = 0;
        for (size_t k = 0; k + 4 <= esz; k += 4) {
            uint32_t c = get32(s + off + k, big);
            if (c == 0)
                break;
            if (c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
                return NCZTR_CODEC_FAIL(e, "UTF-32 text: element %zu holds 0x%lx, not a character", off / esz,
                                        (unsigned long)c);
            w += utf8_put(d + off + w, c);
        }
    }
    r->where = NCZTR_D_OUT;
    r->outlen = inlen;
    return 0;
}

const ncztr_codec_class ncztr_codec_utf32 = {
    .kind = NCZTR_CK_A2A,
    .parse = ncztr_codec_parse_none,
    .encode = encode,
    .decode = decode,
};
