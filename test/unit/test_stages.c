/* The chunk pipeline's parallel stages (translate/data/ncztr_stages.c) with a fake codec,
 * since the real chain may be null-only: encode-all then decode-all gives the chunks back
 * (with and without the Fortran-order transposition), on 1 thread and on many; a failing
 * item is carried back with its message and the lowest failed index is reported. */
#include "ncz_test.h"
#include "ncztr_stages.h"
#include "nczc_workers.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Fake codec: "FK" + the bytes xor 0x5a, into dst where it has room (as the chain's last
 * codec does), else into a buffer of its own. Encoding fails on a chunk whose first byte is
 * 0xff; decoding fails on input without the header. */
static int fake_encode(const ncztr_chain *c, const void *in, size_t inlen, void *dst, size_t cap, void **out,
                       size_t *outlen, ncztr_cerr *e)
{
    (void)c;
    const unsigned char *p = in;
    if (inlen && p[0] == 0xff) {
        snprintf(e->msg, sizeof e->msg, "fake encode refuses %02x", p[0]);
        return -1;
    }
    unsigned char *o = dst && cap >= inlen + 2 ? dst : malloc(inlen + 2);
    if (!o) {
        snprintf(e->msg, sizeof e->msg, "out of memory");
        return -1;
    }
    o[0] = 'F';
    o[1] = 'K';
    for (size_t i = 0; i < inlen; i++)
        o[i + 2] = p[i] ^ 0x5a;
    *out = o;
    *outlen = inlen + 2;
    return 0;
}

static int fake_decode(const ncztr_chain *c, const void *in, size_t inlen, void *out, size_t outlen,
                       ncztr_cerr *e)
{
    (void)c;
    const unsigned char *p = in;
    if (inlen < 2 || p[0] != 'F' || p[1] != 'K' || inlen - 2 != outlen) {
        snprintf(e->msg, sizeof e->msg, "fake decode: not a fake chunk (%zu bytes)", inlen);
        return -1;
    }
    unsigned char *o = out;
    for (size_t i = 0; i < outlen; i++)
        o[i] = p[i + 2] ^ 0x5a;
    return 0;
}

enum { N = 40 };

static void roundtrip(bool transpose, unsigned workers)
{
    ncztr_cgeom g = {.rank = 2, .chunks = {3, 5}, .esz = 4, .chunk_elems = 15, .chunk_bytes = 60};
    g.transpose = transpose;
    ncztr_stage s = {.g = &g, .workers = workers, .decode = fake_decode, .encode = fake_encode};
    unsigned char raw[N][60], back[N][60], trans[N][60], tmp[N][60], dst[N][62];
    ncztr_enc_item enc[N];
    ncztr_dec_item dec[N];
    memset(enc, 0, sizeof enc);
    memset(dec, 0, sizeof dec);
    for (int i = 0; i < N; i++) {
        for (int b = 0; b < 60; b++)
            raw[i][b] = (unsigned char)(i * 7 + b);
        enc[i].raw = raw[i];
        enc[i].trans = trans[i];
        if (i % 2) { /* every other item with a buffer to encode into; one too small */
            enc[i].dst = dst[i];
            enc[i].cap = i == 7 ? 61 : 62;
        }
    }
    size_t bad = ncztr_stage_encode(&s, N, enc);
    CHECK(bad == N, "encode: item %zu failed: %s", bad, bad < N ? enc[bad].err.msg : "");
    CHECK(enc[1].enc == dst[1] && enc[3].enc == dst[3], "the chunks were not encoded into the buffers given");
    CHECK(enc[7].enc != dst[7] && enc[0].enc != NULL, "a buffer too small, or none, was not left alone");
    for (int i = 0; i < N; i++) {
        dec[i].in = enc[i].enc;
        dec[i].inlen = enc[i].enclen;
        dec[i].out = back[i];
        dec[i].tmp = tmp[i];
    }
    bad = ncztr_stage_decode(&s, N, dec);
    CHECK(bad == N, "decode: item %zu failed: %s", bad, bad < N ? dec[bad].err.msg : "");
    CHECK(memcmp(raw, back, sizeof raw) == 0, "transpose=%d workers=%u: chunks differ after the round trip",
          transpose, workers);
    if (transpose && enc[1].enc) {
        /* element [1][0] of a 3x5 chunk is element 1 in Fortran order */
        const unsigned char *f = (const unsigned char *)enc[1].enc + 2;
        CHECK((f[4] ^ 0x5a) == raw[1][5 * 4], "the stored chunk is not in Fortran order");
    }
    /* failures: two encodes, and two decodes of damaged input; the lowest index comes back */
    for (int i = 0; i < N; i++)
        if (enc[i].enc != enc[i].dst)
            free(enc[i].enc);
    memset(enc, 0, sizeof enc);
    raw[31][0] = raw[17][0] = 0xff; /* the first byte stays first in Fortran order */
    for (int i = 0; i < N; i++) {
        enc[i].raw = raw[i];
        enc[i].trans = trans[i];
    }
    bad = ncztr_stage_encode(&s, N, enc);
    CHECK(bad == 17, "encode: first failure %zu, expected 17", bad);
    CHECK(strstr(enc[17].err.msg, "fake encode refuses ff") != NULL, "message: %s", enc[17].err.msg);
    CHECK(enc[17].enc == NULL && enc[31].enc == NULL && enc[30].enc != NULL, "failed items have no output");
    for (int i = 0; i < N; i++)
        free(enc[i].enc);
    static const unsigned char junk[3] = {'x', 'y', 'z'};
    dec[9].in = junk;
    dec[9].inlen = 3;
    dec[25].in = junk;
    dec[25].inlen = 0;
    for (int i = 0; i < N; i++)
        if (i != 9 && i != 25) {
            static unsigned char good[62] = {'F', 'K'};
            dec[i].in = good;
            dec[i].inlen = 62;
        }
    bad = ncztr_stage_decode(&s, N, dec);
    CHECK(bad == 9, "decode: first failure %zu, expected 9", bad);
    CHECK(strstr(dec[9].err.msg, "not a fake chunk (3 bytes)") != NULL, "message: %s", dec[9].err.msg);
    CHECK(strstr(dec[25].err.msg, "not a fake chunk (0 bytes)") != NULL, "message: %s", dec[25].err.msg);
}

int main(void)
{
    unsigned workers[] = {1, 2, 4, 0};
    for (size_t w = 0; w < sizeof workers / sizeof *workers; w++) {
        roundtrip(false, workers[w]);
        roundtrip(true, workers[w]);
    }
    nczc_workers_shutdown();
    TEST_MAIN_END();
}
