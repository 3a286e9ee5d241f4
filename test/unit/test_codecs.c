/* translate/codec: each codec round-trips through a chain (the connector's own and the
 * plugins on HDF5_PLUGIN_PATH), HDF5's shuffle and Fletcher-32 give known bytes, codec
 * JSON <-> HDF5 filters (integers or strings of integers read, integers written), corrupt
 * and oversized input is an error, and an unknown codec builds an unusable chain. */
#include "ncz_test.h"
#include "ncztr_codec_internal.h"

#include <string.h>

#define N 4099 /* not a multiple of the element size: shuffle's trailing bytes */

static unsigned char raw[N];

static ncztr_chain *chain_of(const char *filters, const char *compressor)
{
    json_t *f = filters ? json_loads(filters, 0, NULL) : NULL,
           *c = compressor ? json_loads(compressor, 0, NULL) : NULL;
    ncztr_chain *ch = NULL;
    ncztr_cctx cx = {.esz = 4, .chunk_bytes = N, .path = "t"};
    if (ncztr_chain_build(f, c, NULL, &cx, &ch) < 0)
        ch = NULL;
    json_decref(f);
    json_decref(c);
    return ch;
}

/* Where the chain can encode into a buffer given (its bound not 0): the same bytes as
 * encode's, in that buffer; one a byte too small is left alone (the chain's own buffer). */
static void into(const ncztr_chain *c, const char *what, const void *want, size_t wantlen)
{
    size_t cap = ncztr_chain_encode_bound(c, N);
    if (!cap)
        return;
    CHECK(cap >= wantlen, "%s: bound %zu below the %zu bytes encoded", what, cap, wantlen);
    unsigned char *dst = malloc(cap);
    REQUIRE(dst, "out of memory");
    ncztr_cerr e = {{0}};
    void *out = NULL;
    size_t n = 0;
    CHECK(ncztr_chain_encode_into(c, raw, N, dst, cap, &out, &n, &e) == 0, "%s: encode into: %s", what,
          e.msg);
    CHECK(out == dst && n == wantlen && memcmp(dst, want, n) == 0,
          "%s: not the same bytes in the buffer given", what);
    out = NULL;
    CHECK(ncztr_chain_encode_into(c, raw, N, dst, cap - 1, &out, &n, &e) == 0, "%s: encode, small buffer: %s",
          what, e.msg);
    CHECK(out && out != dst && n == wantlen, "%s: a buffer too small was used", what);
    if (out != dst)
        free(out);
    free(dst);
}

static void roundtrip(const char *filters, const char *compressor)
{
    const char *what = compressor ? compressor : filters;
    ncztr_chain *c = chain_of(filters, compressor);
    REQUIRE(c, "%s: build", what);
    CHECK(ncztr_chain_unusable(c) == NULL, "%s: usable: %s", what, ncztr_chain_unusable(c));
    ncztr_cerr e = {{0}};
    void *enc = NULL;
    size_t n = 0;
    unsigned char back[N];
    int r = ncztr_chain_encode(c, raw, N, &enc, &n, &e);
    CHECK(r == 0, "%s: encode: %s", what, e.msg);
    if (r == 0) {
        CHECK(ncztr_chain_decode(c, enc, n, back, N, &e) == 0, "%s: decode: %s", what, e.msg);
        CHECK(memcmp(raw, back, N) == 0, "%s: round trip differs", what);
        /* a decode into a smaller raw size is an error, not an overflow */
        CHECK(ncztr_chain_decode(c, enc, n, back, N - 100, &e) < 0, "%s: wrong raw size accepted", what);
        /* truncated input */
        CHECK(ncztr_chain_decode(c, enc, n / 2, back, N, &e) < 0, "%s: truncated input accepted", what);
        into(c, what, enc, n);
        free(enc);
    }
    ncztr_chain_free(c);
}

static void test_roundtrips(void)
{
    for (int i = 0; i < N; i++)
        raw[i] = (unsigned char)((i / 4) % 17 + (i % 4 == 3 ? 0x40 : 0));
    roundtrip(NULL, "{\"id\": \"zlib\", \"level\": 4}");
    roundtrip(NULL, "{\"id\": \"gzip\", \"level\": \"5\"}");
    roundtrip("[{\"id\": \"shuffle\", \"elementsize\": 4}]", "{\"id\": \"zlib\", \"level\": 1}");
    roundtrip("[{\"id\": \"shuffle\"}, {\"id\": \"zlib\"}]", "{\"id\": \"fletcher32\"}");
    roundtrip(NULL, "{\"id\": \"lz4\", \"acceleration\": 1}");
    roundtrip(NULL, "{\"id\": \"bz2\", \"level\": 9}");
    roundtrip(NULL, "{\"id\": \"zstd\", \"level\": 3, \"checksum\": false}");
    roundtrip(NULL,
              "{\"id\": \"blosc\", \"cname\": \"lz4\", \"clevel\": 5, \"shuffle\": 1, \"blocksize\": 0}");
    roundtrip(NULL, "{\"id\": \"blosc\", \"cname\": \"zstd\", \"clevel\": \"3\", \"shuffle\": -1}");
}

/* Every compressor encodes into a buffer given (whole chunks into the array's pooled
 * buffers); a chunk over its limit has no bound (0: encode, which says why, is used). */
static void test_bounds(void)
{
    static const struct {
        const char *codec;
        size_t over; /* a chunk size over the codec's limit, 0: none */
    } cases[] = {
        {"{\"id\": \"zlib\"}", 0},
        {"{\"id\": \"gzip\"}", 0},
        {"{\"id\": \"zstd\"}", 0},
        {"{\"id\": \"lz4\"}", (size_t)3 << 30},
        {"{\"id\": \"bz2\"}", (size_t)5 << 30},
        {"{\"id\": \"blosc\", \"cname\": \"lz4\"}", (size_t)3 << 30},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ncztr_chain *c = chain_of(NULL, cases[i].codec);
        REQUIRE(c, "%s: build", cases[i].codec);
        size_t b = ncztr_chain_encode_bound(c, 1 << 20);
        CHECK(b >= 1 << 20, "%s: bound %zu for 1 MiB", cases[i].codec, b);
        if (cases[i].over)
            CHECK(ncztr_chain_encode_bound(c, cases[i].over) == 0, "%s: a bound over its limit",
                  cases[i].codec);
        ncztr_chain_free(c);
    }
}

static void test_known_bytes(void)
{
    /* HDF5's shuffle of 3 two-byte elements plus one trailing byte */
    unsigned char in[7] = {1, 2, 3, 4, 5, 6, 7}, out[7], back[7];
    ncztr_shuffle(2, in, 7, out);
    CHECK(memcmp(out, (unsigned char[]){1, 3, 5, 2, 4, 6, 7}, 7) == 0, "shuffle bytes");
    ncztr_unshuffle(2, out, 7, back);
    CHECK(memcmp(back, in, 7) == 0, "unshuffle");
    /* Fletcher-32 of "abcde" as HDF5 computes it (big-endian words, odd last byte) */
    uint32_t a = 0x6162 + 0x6364 + 0x6500, b = 0x6162 + (0x6162 + 0x6364) + a;
    a = (a & 0xffff) + (a >> 16);
    b = (b & 0xffff) + (b >> 16);
    CHECK(ncztr_fletcher32("abcde", 5) == ((b << 16) | a), "fletcher32 %08x",
          (unsigned)ncztr_fletcher32("abcde", 5));
    /* numcodecs lz4: the header states the size */
    ncztr_chain *c = chain_of(NULL, "{\"id\": \"lz4\"}");
    REQUIRE(c, "lz4 chain");
    void *enc = NULL;
    size_t n = 0;
    ncztr_cerr e = {{0}};
    unsigned char dec[N];
    REQUIRE(ncztr_chain_encode(c, raw, N, &enc, &n, &e) == 0, "lz4 encode");
    const unsigned char *p = enc;
    CHECK(p[0] == (N & 0xff) && p[1] == (N >> 8) && p[2] == 0 && p[3] == 0, "lz4 size header");
    CHECK(ncztr_chain_decode(c, enc, n, dec, N - 1, &e) < 0, "lz4: a header size other than the chunk's");
    free(enc);
    ncztr_chain_free(c);
    /* CRC-32C of "123456789", the check value of the Castagnoli polynomial */
    CHECK(ncztr_crc32c("123456789", 9) == 0xE3069283u, "crc32c %08x", (unsigned)ncztr_crc32c("123456789", 9));
}

/* A Zarr v3 chain over a 2-D int32 chunk of 6 x 10 elements. */
static ncztr_chain *v3_chain(const char *codecs, const unsigned char *fill)
{
    json_t *j = json_loads(codecs, 0, NULL);
    ncztr_chain *ch = NULL;
    ncztr_cctx cx = {.esz = 4, .rank = 2, .shape = {6, 10}, .chunk_bytes = 240, .fill = fill, .path = "v3"};
    if (!j || ncztr_chain_build(NULL, NULL, j, &cx, &ch) < 0)
        ch = NULL;
    json_decref(j);
    return ch;
}

static void v3_roundtrip(const char *codecs, const unsigned char *in)
{
    ncztr_chain *c = v3_chain(codecs, NULL);
    REQUIRE(c && !ncztr_chain_unusable(c), "%s: build: %s", codecs, c ? ncztr_chain_unusable(c) : "failed");
    ncztr_cerr e = {{0}};
    void *enc = NULL;
    size_t n = 0;
    unsigned char back[240];
    CHECK(ncztr_chain_encode(c, in, 240, &enc, &n, &e) == 0, "%s: encode: %s", codecs, e.msg);
    CHECK(enc && ncztr_chain_decode(c, enc, n, back, 240, &e) == 0, "%s: decode: %s", codecs, e.msg);
    CHECK(memcmp(in, back, 240) == 0, "%s: round trip differs", codecs);
    if (enc != in)
        free(enc);
    ncztr_chain_free(c);
}

/* ncztr_chain_decode_each of a 6 x 10 shard of 2 x 5 inner chunks: each inner chunk lands
 * where the assembled shard has it. */
typedef struct each_seen {
    int32_t shard[60];
    int calls[6];
} each_seen;

static void each_sink(void *ud, size_t inner, const unsigned char *raw)
{
    each_seen *s = ud;
    if (inner >= 6)
        return;
    s->calls[inner]++;
    for (int r = 0; r < 2; r++)
        memcpy(&s->shard[(inner / 2 * 2 + r) * 10 + inner % 2 * 5], raw + r * 5 * 4, 5 * 4);
}

static void test_each(const char *codecs, const unsigned char *in, const int32_t *fill)
{
    ncztr_chain *c = v3_chain(codecs, (const unsigned char *)fill);
    uint64_t ish[2] = {0, 0};
    REQUIRE(c && ncztr_chain_inner_shape(c, 2, ish), "%s: no inner chunks", codecs);
    CHECK(ish[0] == 2 && ish[1] == 5, "inner shape %llu x %llu", (unsigned long long)ish[0],
          (unsigned long long)ish[1]);
    ncztr_cerr e = {{0}};
    void *enc = NULL;
    size_t n = 0;
    int32_t whole[60];
    each_seen seen;
    memset(&seen, 0, sizeof seen);
    REQUIRE(ncztr_chain_encode(c, in, 240, &enc, &n, &e) == 0, "encode: %s", e.msg);
    CHECK(fill || n < 240, "zero inner chunks were written: %zu bytes", n);
    CHECK(ncztr_chain_decode(c, enc, n, whole, 240, &e) == 0, "decode: %s", e.msg);
    CHECK(ncztr_chain_decode_each(c, enc, n, each_sink, &seen, &e) == 0, "decode_each: %s", e.msg);
    for (int i = 0; i < 6; i++)
        CHECK(seen.calls[i] == 1, "inner chunk %d handed %d times", i, seen.calls[i]);
    CHECK(memcmp(seen.shard, whole, 240) == 0, "inner chunks differ from the assembled shard");
    /* a damaged index stops it with the codec's message */
    ((unsigned char *)enc)[n - 1] ^= 1;
    CHECK(ncztr_chain_decode_each(c, enc, n, each_sink, &seen, &e) < 0 && strstr(e.msg, "crc32c"),
          "damaged index: %s", e.msg);
    free(enc);
    ncztr_chain_free(c);
}

static void test_v3(void)
{
    int32_t v[60], part[60] = {0};
    for (int i = 0; i < 60; i++)
        v[i] = i * 7 - 100;
    for (int i = 0; i < 10; i++)
        part[i] = i + 1; /* the first inner chunk row only: the others are fill */
    const unsigned char *in = (const unsigned char *)v;
    v3_roundtrip("[{\"name\": \"bytes\", \"configuration\": {\"endian\": \"little\"}}, "
                 "{\"name\": \"zstd\", \"configuration\": {\"level\": 0, \"checksum\": false}}]",
                 in);
    v3_roundtrip("[{\"name\": \"transpose\", \"configuration\": {\"order\": [1, 0]}}, {\"name\": \"bytes\"}, "
                 "{\"name\": \"gzip\", \"configuration\": {\"level\": 1}}, {\"name\": \"crc32c\"}]",
                 in);
    const char *shard =
        "[{\"name\": \"sharding_indexed\", \"configuration\": {\"chunk_shape\": [2, 5], "
        "\"codecs\": [{\"name\": \"bytes\", \"configuration\": {\"endian\": \"little\"}}, "
        "{\"name\": \"gzip\", \"configuration\": {\"level\": 1}}], "
        "\"index_codecs\": [{\"name\": \"bytes\", \"configuration\": {\"endian\": \"little\"}}, "
        "{\"name\": \"crc32c\"}], \"index_location\": \"end\"}}]";
    v3_roundtrip(shard, in);
    v3_roundtrip(shard, (const unsigned char *)part);
    /* transpose: element (i, j) of the chunk is stored at (j, i) */
    ncztr_chain *c = v3_chain("[{\"name\": \"transpose\", \"configuration\": {\"order\": [1, 0]}}, "
                              "{\"name\": \"bytes\"}]",
                              NULL);
    REQUIRE(c, "transpose chain");
    void *enc = NULL;
    size_t n = 0;
    ncztr_cerr e = {{0}};
    REQUIRE(ncztr_chain_encode(c, in, 240, &enc, &n, &e) == 0, "transpose encode: %s", e.msg);
    const int32_t *t = enc;
    CHECK(t[1] == v[10] && t[6] == v[1] && t[7] == v[11], "transposed: %d %d %d", t[1], t[6], t[7]);
    free(enc);
    ncztr_chain_free(c);
    /* inner chunk by inner chunk: the same elements as the assembled shard, and an unwritten
     * inner chunk as fill */
    const int32_t fill = -7;
    test_each(shard, in, &fill);
    test_each(shard, (const unsigned char *)part, NULL); /* five inner chunks of zeros: unwritten */
    c = v3_chain("[{\"name\": \"bytes\"}, {\"name\": \"gzip\"}]", NULL);
    uint64_t ish[2];
    CHECK(c && !ncztr_chain_inner_shape(c, 2, ish), "a chain without shards decodes inner chunks");
    ncztr_chain_free(c);
    /* a shard of fill only: every inner chunk unwritten, the index alone */
    int32_t zero[60] = {0};
    c = v3_chain(shard, NULL);
    REQUIRE(c, "shard chain");
    REQUIRE(ncztr_chain_encode(c, zero, 240, &enc, &n, &e) == 0, "empty shard: %s", e.msg);
    CHECK(n == 6 * 16 + 4, "an empty shard is its index: %zu bytes", n);
    /* a corrupt index: an offset past the object */
    ((unsigned char *)enc)[0] = 0x7f;
    unsigned char back[240];
    CHECK(ncztr_chain_decode(c, enc, n, back, 240, &e) < 0 && strstr(e.msg, "crc32c"), "corrupt index: %s",
          e.msg);
    free(enc);
    ncztr_chain_free(c);
    /* order: an array->array codec after the array->bytes one, no array->bytes at all */
    H5E_BEGIN_TRY
    {
        CHECK(v3_chain("[{\"name\": \"bytes\"}, {\"name\": \"transpose\", \"configuration\": "
                       "{\"order\": [1, 0]}}]",
                       NULL) == NULL,
              "transpose after bytes accepted");
        CHECK(v3_chain("[{\"name\": \"gzip\"}]", NULL) == NULL, "no array->bytes codec accepted");
    }
    H5E_END_TRY
}

static void test_corrupt(void)
{
    ncztr_chain *c = chain_of("[{\"id\": \"zlib\"}]", "{\"id\": \"fletcher32\"}");
    REQUIRE(c, "build");
    ncztr_cerr e = {{0}};
    void *enc = NULL;
    size_t n = 0;
    unsigned char back[N];
    REQUIRE(ncztr_chain_encode(c, raw, N, &enc, &n, &e) == 0, "encode");
    ((unsigned char *)enc)[n / 2] ^= 1;
    CHECK(ncztr_chain_decode(c, enc, n, back, N, &e) < 0 && strstr(e.msg, "fletcher32"), "checksum: %s",
          e.msg);
    free(enc);
    ncztr_chain_free(c);
    /* garbage for zlib, lz4, blosc and zstd */
    static const char *codecs[] = {"{\"id\": \"zlib\"}", "{\"id\": \"lz4\"}", "{\"id\": \"blosc\"}",
                                   "{\"id\": \"zstd\"}", "{\"id\": \"bz2\"}"};
    unsigned char junk[64];
    for (int i = 0; i < 64; i++)
        junk[i] = (unsigned char)(i * 37 + 11);
    /* a blosc header stating 4 GB, an lz4 header stating 1 GB */
    unsigned char big[32] = {2, 1, 1, 4, 0xff, 0xff, 0xff, 0xff, 0, 0, 1, 0, 32, 0, 0, 0};
    for (int k = 0; k < 5; k++) {
        c = chain_of(NULL, codecs[k]);
        REQUIRE(c && !ncztr_chain_unusable(c), "build %s", codecs[k]);
        CHECK(ncztr_chain_decode(c, junk, sizeof junk, back, N, &e) < 0, "%s: garbage decoded", codecs[k]);
        CHECK(ncztr_chain_decode(c, big, sizeof big, back, N, &e) < 0, "%s: huge header decoded", codecs[k]);
        ncztr_chain_free(c);
    }
}

static void test_unknown(void)
{
    ncztr_chain *c = chain_of(NULL, "{\"id\": \"foo\"}");
    REQUIRE(c, "an unknown codec builds");
    ncztr_cerr e = {{0}};
    unsigned char back[16];
    CHECK(ncztr_chain_decode(c, raw, 16, back, 16, &e) < 0 && strstr(e.msg, "codec \"foo\"") &&
              strstr(e.msg, "not known"),
          "unknown codec: %s", e.msg);
    void *out;
    size_t n;
    CHECK(ncztr_chain_encode(c, raw, 16, &out, &n, &e) < 0, "unknown codec encodes");
    ncztr_chain_free(c);
    /* malformed codec JSON fails the build */
    H5E_BEGIN_TRY
    {
        CHECK(chain_of(NULL, "{\"id\": \"zlib\", \"level\": \"x\"}") == NULL, "level \"x\" accepted");
        CHECK(chain_of(NULL, "{\"id\": \"zlib\", \"level\": 12}") == NULL, "level 12 accepted");
        CHECK(chain_of("{\"id\": \"zlib\"}", NULL) == NULL, "filters not a list accepted");
    }
    H5E_END_TRY
    c = chain_of(NULL, NULL);
    CHECK(c && ncztr_chain_is_null(c), "no codecs: the null chain");
    ncztr_chain_free(c);
}

static void check_map(const char *json, H5Z_filter_t id, size_t ncd, const unsigned *cd, const char *back)
{
    json_t *j = json_loads(json, 0, NULL);
    ncztr_filt f;
    char msg[400];
    REQUIRE(j, "parse %s", json);
    ncztr_cctx cx = {.esz = 1, .chunk_bytes = 1000, .path = "t"};
    CHECK(ncztr_codec_to_filt(j, false, &cx, &f, msg, sizeof msg) == 1, "%s: mapped: %s", json, msg);
    CHECK(f.id == id && f.ncd == ncd && (ncd == 0 || memcmp(f.cd, cd, ncd * sizeof *cd) == 0),
          "%s: filter %d, %zu values", json, (int)f.id, f.ncd);
    json_t *b = ncztr_filt_to_codec(&f, msg, sizeof msg);
    char *t = b ? json_dumps(b, JSON_SORT_KEYS | JSON_COMPACT) : NULL;
    CHECK(t && strcmp(t, back) == 0, "%s: back as %s, expected %s", json, t ? t : msg, back);
    free(t);
    json_decref(b);
    json_decref(j);
}

static void test_mapping(void)
{
    check_map("{\"id\": \"zlib\", \"level\": \"7\"}", 1, 1, (unsigned[]){7}, "{\"id\":\"zlib\",\"level\":7}");
    check_map("{\"id\": \"gzip\", \"level\": 2}", 1, 1, (unsigned[]){2}, "{\"id\":\"zlib\",\"level\":2}");
    check_map("{\"id\": \"shuffle\", \"elementsize\": \"8\"}", 2, 1, (unsigned[]){8},
              "{\"elementsize\":8,\"id\":\"shuffle\"}");
    check_map("{\"id\": \"fletcher32\"}", 3, 0, NULL, "{\"id\":\"fletcher32\"}");
    check_map("{\"id\": \"bz2\", \"level\": 5}", 307, 1, (unsigned[]){5}, "{\"id\":\"bz2\",\"level\":5}");
    check_map("{\"id\": \"zstd\", \"level\": 4, \"checksum\": true}", 32015, 1, (unsigned[]){4},
              "{\"id\":\"zstd\",\"level\":4}");
    /* auto shuffle on a 1-byte type: bit shuffle; netCDF-C's chunk size in "blocksize" ignored */
    check_map("{\"id\": \"blosc\", \"cname\": \"zstd\", \"clevel\": 3, \"shuffle\": -1, \"blocksize\": 1000}",
              32001, 7, (unsigned[]){2, 2, 1, 1000, 3, 2, 5},
              "{\"blocksize\":0,\"clevel\":3,\"cname\":\"zstd\",\"id\":\"blosc\",\"shuffle\":2}");
    check_map("{\"id\": \"lz4\", \"acceleration\": 1}", 32004, 0, NULL,
              "{\"acceleration\":1,\"id\":\"lz4\"}");
    json_t *j = json_loads("{\"id\": \"blosc2\"}", 0, NULL);
    ncztr_filt f;
    char msg[400];
    ncztr_cctx cx = {.esz = 1, .chunk_bytes = 1, .path = "t"};
    CHECK(ncztr_codec_to_filt(j, false, &cx, &f, msg, sizeof msg) == 0 && strstr(msg, "blosc2"), "blosc2: %s",
          msg);
    json_decref(j);
    f.id = 32008;
    f.ncd = 0;
    CHECK(ncztr_filt_to_codec(&f, msg, sizeof msg) == NULL && strstr(msg, "32008"), "bitshuffle: %s", msg);
}

int main(void)
{
    test_roundtrips();
    test_bounds();
    test_known_bytes();
    test_corrupt();
    test_unknown();
    test_mapping();
    test_v3();
    ncztr_codec_term();
    TEST_MAIN_END();
}
