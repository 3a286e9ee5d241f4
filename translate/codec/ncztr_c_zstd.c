/* zstd (numcodecs "zstd", Zarr v3 "zstd"): standard zstd frames, through libzstd (it was
 * run by the HDF5 zstd filter plugin 32015 before: calling libzstd itself saves the two
 * chunk copies the plugin interface makes, and gives the frame checksum Zarr v3's
 * "checksum" asks for). HDF5 programs see it as filter 32015 with the level as its one
 * parameter, as netCDF-C's plugin has it. Decoding checks a frame's checksum when it has
 * one. Thread-safe: the compression and decompression contexts are kept in the codec's
 * state for reuse (a context is a few hundred KiB that a fresh allocation would fault in
 * page by page for every chunk), each used by one thread at a time. */
#include "ncztr_codec_internal.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

/* Contexts kept for reuse: about one per worker thread. */
#define KEEP 16

/* Contexts of one kind kept for reuse (under the state's lock). */
typedef struct ctx_list {
    void *v[KEEP];
    int n;
} ctx_list;

typedef struct zstd_state {
    int level;
    bool checksum;
    pthread_mutex_t lock;
    ctx_list cc, dc; /* ZSTD_CCtx, ZSTD_DCtx */
} zstd_state;

static void free_state(void *p)
{
    zstd_state *s = p;
    if (!s)
        return;
    for (int i = 0; i < s->cc.n; i++)
        ZSTD_freeCCtx(s->cc.v[i]);
    for (int i = 0; i < s->dc.n; i++)
        ZSTD_freeDCtx(s->dc.v[i]);
    pthread_mutex_destroy(&s->lock);
    free(s);
}

/* A kept context, or NULL (the caller makes one). */
static void *take_ctx(zstd_state *s, ctx_list *l)
{
    void *c = NULL;
    pthread_mutex_lock(&s->lock);
    if (l->n)
        c = l->v[--l->n];
    pthread_mutex_unlock(&s->lock);
    return c;
}

/* Keeps c; returns NULL, or c itself when the list is full (the caller frees it). */
static void *give_ctx(zstd_state *s, ctx_list *l, void *c)
{
    pthread_mutex_lock(&s->lock);
    if (l->n < KEEP) {
        l->v[l->n++] = c;
        c = NULL;
    }
    pthread_mutex_unlock(&s->lock);
    return c;
}

static int parse(const json_t *j, bool v3, const ncztr_cctx *cx, void **state, char *msg, size_t msglen)
{
    (void)v3;
    (void)cx;
    long long v, ck;
    if (ncztr_codec_int(j, "level", 0, ZSTD_minCLevel(), ZSTD_maxCLevel(), &v, msg, msglen) < 0 ||
        ncztr_codec_int(j, "checksum", 0, 0, 1, &ck, msg, msglen) < 0)
        return -1;
    zstd_state *s = calloc(1, sizeof *s);
    if (!s || pthread_mutex_init(&s->lock, NULL) != 0) {
        free(s);
        NCZTR_CODEC_MSG("out of memory");
        return -1;
    }
    s->level = (int)v;
    s->checksum = ck != 0;
    *state = s;
    return 1;
}

static int encode(const void *state, const ncztr_cctx *cx, const void *in, size_t inlen, void **out,
                  size_t *outlen, ncztr_cerr *e)
{
    (void)cx;
    /* the state is shared, but only its context lists change, under its lock */
    zstd_state *s = (zstd_state *)(uintptr_t)state;
    size_t cap = ZSTD_compressBound(inlen);
    void *buf = malloc(cap ? cap : 1);
    ZSTD_CCtx *c = take_ctx(s, &s->cc);
    if (!c)
        c = ZSTD_createCCtx();
    size_t r = !buf || !c ? 0
               : ZSTD_isError(ZSTD_CCtx_reset(c, ZSTD_reset_session_and_parameters)) ||
                       ZSTD_isError(ZSTD_CCtx_setParameter(c, ZSTD_c_compressionLevel, s->level)) ||
                       ZSTD_isError(ZSTD_CCtx_setParameter(c, ZSTD_c_checksumFlag, s->checksum))
                   ? (size_t)-1
                   : ZSTD_compress2(c, buf, cap, in, inlen);
    if (c)
        ZSTD_freeCCtx(give_ctx(s, &s->cc, c));
    if (!buf || !c || ZSTD_isError(r)) {
        free(buf);
        return NCZTR_CODEC_FAIL(e, "zstd: %s", !buf || !c ? "out of memory" : ZSTD_getErrorName(r));
    }
    *out = buf;
    *outlen = r;
    return 0;
}

static int decode(const void *state, const ncztr_cctx *cx, const void *in, size_t inlen, void *out,
                  size_t cap, ncztr_dres *res, ncztr_cerr *e)
{
    (void)cx;
    zstd_state *s = (zstd_state *)(uintptr_t)state;
    ZSTD_DCtx *d = take_ctx(s, &s->dc);
    if (!d)
        d = ZSTD_createDCtx();
    if (!d)
        return NCZTR_CODEC_FAIL(e, "zstd: out of memory");
    size_t r = ZSTD_decompressDCtx(d, out, cap, in, inlen);
    ZSTD_freeDCtx(give_ctx(s, &s->dc, d));
    if (ZSTD_isError(r))
        return NCZTR_CODEC_FAIL(e, "zstd: %s (a stored chunk of %zu bytes, at most %zu expected out)",
                                ZSTD_getErrorName(r), inlen, cap);
    res->where = NCZTR_D_OUT;
    res->outlen = r;
    return 0;
}

static int to_filt(const void *state, const ncztr_cctx *cx, ncztr_filt *f, char *msg, size_t msglen)
{
    (void)cx;
    (void)msg;
    (void)msglen;
    memset(f, 0, sizeof *f);
    f->id = NCZTR_FILTER_ZSTD;
    f->flags = H5Z_FLAG_MANDATORY;
    f->ncd = 1;
    f->cd[0] = (unsigned)((const zstd_state *)state)->level;
    return 1;
}

static json_t *from_filt(const ncztr_filt *f, char *msg, size_t msglen)
{
    /* no "checksum": numcodecs before 0.12 (Debian 12's 0.11) rejects the key, and false is
     * the default of those that know it */
    json_t *j = ncztr_codec_with_int(ncztr_codec_obj("zstd"), "level", f->ncd ? (int)f->cd[0] : 0);
    if (!j)
        NCZTR_CODEC_MSG("out of memory building a codec");
    return j;
}

const ncztr_codec_class ncztr_codec_zstd = {
    .v2id = "zstd",
    .v3name = "zstd",
    .kind = NCZTR_CK_B2B,
    .filter = NCZTR_FILTER_ZSTD,
    .parse = parse,
    .encode = encode,
    .decode = decode,
    .free_state = free_state,
    .to_filt = to_filt,
    .from_filt = from_filt,
};
