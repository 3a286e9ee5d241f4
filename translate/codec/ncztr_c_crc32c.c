/* crc32c (Zarr v3): the CRC-32C (Castagnoli) of the bytes, appended as 4 bytes little-endian.
 * Written here: a 1 KiB table, no library offers it among the project's dependencies. */
#include "ncztr_codec_internal.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint32_t table[256];
static pthread_once_t table_once = PTHREAD_ONCE_INIT;

static void make_table(void)
{
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = i;
        for (int k = 0; k < 8; k++)
            c = c & 1 ? (c >> 1) ^ 0x82F63B78u : c >> 1;
        table[i] = c;
    }
}

uint32_t ncztr_crc32c(const void *data, size_t n)
{
    pthread_once(&table_once, make_table);
    const unsigned char *p = data;
    uint32_t c = 0xFFFFFFFFu;
    for (size_t i = 0; i < n; i++)
        c = table[(c ^ p[i]) & 0xFF] ^ (c >> 8);
    return c ^ 0xFFFFFFFFu;
}

static int encode(const void *state, const ncztr_cctx *cx, const void *in, size_t inlen, void **out,
                  size_t *outlen, ncztr_cerr *e)
{
    (void)state;
    (void)cx;
    /* a little-endian footer */
    return ncztr_sum_append("crc32c", ncztr_crc32c(in, inlen), in, inlen, out, outlen, e);
}

static int decode(const void *state, const ncztr_cctx *cx, const void *in, size_t n, void *out, size_t cap,
                  ncztr_dres *r, ncztr_cerr *e)
{
    (void)state;
    (void)cx;
    (void)out;
    (void)cap;
    if (n < 4)
        return NCZTR_CODEC_FAIL(e, "crc32c: %zu bytes cannot hold the 4-byte checksum", n);
    uint32_t stored = ncztr_sum_stored(in, n);
    uint32_t c = ncztr_crc32c(in, n - 4);
    if (stored != c)
        return NCZTR_CODEC_FAIL(e,
                                "crc32c: checksum mismatch (stored %08x, computed %08x): the data is corrupt",
                                (unsigned)stored, (unsigned)c);
    r->where = NCZTR_D_INPUT;
    r->outlen = n - 4;
    return 0;
}

const ncztr_codec_class ncztr_codec_crc32c = {
    .v3name = "crc32c",
    .kind = NCZTR_CK_B2B,
    .parse = ncztr_codec_parse_none,
    .encode = encode,
    .decode = decode,
};
