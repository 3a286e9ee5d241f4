/* fletcher32: a 4-byte little-endian Fletcher-32 checksum after the data (numcodecs
 * "fletcher32", byte-compatible with HDF5's fletcher32 filter). Pure computation. */
#include "ncztr_codec_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

static int encode(const void *state, const ncztr_cctx *cx, const void *in, size_t inlen, void **out,
                  size_t *outlen, ncztr_cerr *e)
{
    (void)state;
    (void)cx;
    /* a little-endian footer, as HDF5 writes it */
    return ncztr_sum_append("fletcher32", ncztr_fletcher32(in, inlen), in, inlen, out, outlen, e);
}

static int decode(const void *state, const ncztr_cctx *cx, const void *in, size_t n, void *out, size_t cap,
                  ncztr_dres *r, ncztr_cerr *e)
{
    (void)state;
    (void)cx;
    (void)out;
    (void)cap;
    if (n < 4)
        return NCZTR_CODEC_FAIL(e, "fletcher32: %zu bytes cannot hold the 4-byte checksum", n);
    uint32_t stored = ncztr_sum_stored(in, n);
    uint32_t sum = ncztr_fletcher32(in, n - 4);
    /* HDF5 also accepts the checksum of releases before 1.6.3, bytes swapped in each half */
    uint32_t old = ((sum & 0x00ff00ffu) << 8) | ((sum >> 8) & 0x00ff00ffu);
    if (stored != sum && stored != old)
        return NCZTR_CODEC_FAIL(
            e, "fletcher32: checksum mismatch (stored %08x, computed %08x): the chunk is corrupt",
            (unsigned)stored, (unsigned)sum);
    r->where = NCZTR_D_INPUT;
    r->outlen = n - 4;
    return 0;
}

static int to_filt(const void *state, const ncztr_cctx *cx, ncztr_filt *f, char *msg, size_t msglen)
{
    (void)state;
    (void)cx;
    (void)msg;
    (void)msglen;
    memset(f, 0, sizeof *f);
    f->id = H5Z_FILTER_FLETCHER32;
    f->flags = H5Z_FLAG_MANDATORY;
    return 1;
}

static json_t *from_filt(const ncztr_filt *f, char *msg, size_t msglen)
{
    (void)f;
    json_t *j = ncztr_codec_obj("fletcher32");
    if (!j)
        NCZTR_CODEC_MSG("out of memory building a codec");
    return j;
}

const ncztr_codec_class ncztr_codec_fletcher32 = {
    .v2id = "fletcher32",
    .kind = NCZTR_CK_B2B,
    .filter = H5Z_FILTER_FLETCHER32,
    .parse = ncztr_codec_parse_none,
    .encode = encode,
    .decode = decode,
    .to_filt = to_filt,
    .from_filt = from_filt,
};
