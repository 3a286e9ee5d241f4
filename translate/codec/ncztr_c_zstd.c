/* zstd (numcodecs "zstd", Zarr v3 "zstd"): standard zstd frames, run by the HDF5 zstd
 * filter plugin 32015 (netCDF-C installs one). "checksum" has no place in the HDF5 filter:
 * zstd checks a frame's checksum when decoding anyway. */
#include "ncztr_codec_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int parse(const json_t *j, bool v3, const ncztr_cctx *cx, void **state, char *msg, size_t msglen)
{
    (void)v3;
    (void)cx;
    long long v;
    if (ncztr_codec_int(j, "level", 0, -131072, 22, &v, msg, msglen) < 0)
        return -1;
    ncztr_plugged *p = calloc(1, sizeof *p);
    if (!p) {
        NCZTR_CODEC_MSG("out of memory");
        return -1;
    }
    p->f.id = NCZTR_FILTER_ZSTD;
    p->f.flags = H5Z_FLAG_MANDATORY;
    p->f.ncd = 1;
    p->f.cd[0] = (unsigned)(int)v;
    *state = p;
    return ncztr_plugged_find(p, "zstd", msg, msglen);
}

static int encode(const void *state, const ncztr_cctx *cx, const void *in, size_t inlen, void **out,
                  size_t *outlen, ncztr_cerr *e)
{
    (void)cx;
    return ncztr_plugged_encode(state, in, inlen, out, outlen, e);
}

static int decode(const void *state, const ncztr_cctx *cx, const void *in, size_t inlen, void *out,
                  size_t cap, ncztr_dres *r, ncztr_cerr *e)
{
    (void)cx;
    (void)out;
    return ncztr_plugged_decode(state, in, inlen, cap, r, e);
}

static int to_filt(const void *state, const ncztr_cctx *cx, ncztr_filt *f, char *msg, size_t msglen)
{
    (void)cx;
    (void)msg;
    (void)msglen;
    *f = ((const ncztr_plugged *)state)->f;
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
    .free_state = free,
    .to_filt = to_filt,
    .from_filt = from_filt,
};
