/* szip (numcodecs "szip"): known, so that its HDF5 filter shows on the creation plist of an
 * array that uses it, but not run: szip's HDF5 parameters (bits per pixel, pixels per
 * scanline) depend on the chunk's shape and type precision in ways its Zarr codec does not
 * record. */
#include "ncztr_codec_internal.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int parse(const json_t *j, bool v3, const ncztr_cctx *cx, void **state, char *msg, size_t msglen)
{
    (void)v3;
    (void)cx;
    long long mask, ppb;
    if (ncztr_codec_int(j, "mask", 0, 0, UINT_MAX, &mask, msg, msglen) < 0 ||
        ncztr_codec_int(j, "pixels-per-block", 32, 2, 32, &ppb, msg, msglen) < 0)
        return -1;
    ncztr_filt *f = calloc(1, sizeof *f);
    if (!f) {
        NCZTR_CODEC_MSG("out of memory");
        return -1;
    }
    f->id = H5Z_FILTER_SZIP;
    f->flags = H5Z_FLAG_MANDATORY;
    f->ncd = 2;
    f->cd[0] = (unsigned)mask;
    f->cd[1] = (unsigned)ppb;
    *state = f;
    NCZTR_CODEC_MSG("codec \"szip\" is not supported by the connector");
    return 0;
}

static int to_filt(const void *state, const ncztr_cctx *cx, ncztr_filt *f, char *msg, size_t msglen)
{
    (void)cx;
    (void)msg;
    (void)msglen;
    *f = *(const ncztr_filt *)state;
    return 1;
}

static json_t *from_filt(const ncztr_filt *f, char *msg, size_t msglen)
{
    json_t *j =
        ncztr_codec_with_int(ncztr_codec_with_int(ncztr_codec_obj("szip"), "mask", f->ncd > 0 ? f->cd[0] : 0),
                             "pixels-per-block", f->ncd > 1 ? f->cd[1] : 32);
    if (!j)
        NCZTR_CODEC_MSG("out of memory building a codec");
    return j;
}

const ncztr_codec_class ncztr_codec_szip = {
    .v2id = "szip",
    .kind = NCZTR_CK_B2B,
    .filter = H5Z_FILTER_SZIP,
    .parse = parse,
    .free_state = free,
    .to_filt = to_filt,
    .from_filt = from_filt,
};
