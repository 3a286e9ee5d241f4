/* One of the connector's codecs as a library that HDF5 and netCDF-C load from
 * HDF5_PLUGIN_PATH (libnczarr_filter_<codec>.so, one library per codec, built from this file
 * with NCZTR_FPLUGIN_CODEC, its numcodecs id, NCZTR_FPLUGIN_H5ID, the filter id the library
 * registers, and NCZTR_FPLUGIN_FILTER, the filter id the connector maps the codec to):
 *  - an HDF5 filter plugin (H5PLget_plugin_type, H5PLget_plugin_info), so that native HDF5
 *    programs read and write bzip2, zstd and blosc without other plugins;
 *  - a netCDF-C codec (NCZ_get_codec_info: the codec's JSON <-> the filter's parameters), so
 *    that netCDF-C's NCZarr reads what the connector writes without netCDF-C's own codec
 *    plugins, which distributions do not ship. netCDF-C pairs a codec with the filter of
 *    its hdf5id, and takes both halves from the first library of the path that has them
 *    (ncztr_ncplugin.h): both come from here.
 * The work is the connector's own codec classes (translate/codec); a library is a codec
 * class seen through two plugin interfaces. numcodecs' lz4 frames its bytes otherwise than
 * HDF5's lz4 filter 32004 does, so its library registers a private id (netCDF-C shows it
 * as the variable's filter) rather than give native programs a 32004 that reads no .h5
 * file's lz4. */
#include "ncztr_codec_internal.h"
#include "ncztr_ncplugin.h"

#include <H5PLextern.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if !defined(NCZTR_FPLUGIN_CODEC) || !defined(NCZTR_FPLUGIN_H5ID) || !defined(NCZTR_FPLUGIN_FILTER)
#error "NCZTR_FPLUGIN_CODEC, NCZTR_FPLUGIN_H5ID and NCZTR_FPLUGIN_FILTER name the codec of this library"
#endif

#define EXPORT __attribute__((visibility("default")))

/* The most one call may decode to: a chunk over 4 GiB is beyond any HDF5 1.14 chunk. */
#define DECODE_MAX ((size_t)1 << 32)

/* ---- messages on the HDF5 error stack, under this library's own class ---- */

static pthread_once_t class_once = PTHREAD_ONCE_INIT;
static hid_t err_class = H5I_INVALID_HID;

static void register_class(void)
{
    err_class = H5Eregister_class("vol-nczarr filters", "libnczarr_filter_" NCZTR_FPLUGIN_CODEC, "1");
}

static void report(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void report(const char *fmt, ...)
{
    char msg[600];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    pthread_once(&class_once, register_class);
    if (err_class >= 0)
        H5Epush2(H5E_DEFAULT, __FILE__, "nczarr_filter", __LINE__, err_class, H5E_PLINE, H5E_CANTFILTER, "%s",
                 msg);
}

/* ---- the HDF5 filter ---- */

/* The codec stage of a filter's parameters (their codec JSON, parsed as the connector parses a
 * stored codec). Returns 1, or 0 after reporting why not. */
static int stage_of(size_t ncd, const unsigned cd[], ncztr_stage *st)
{
    ncztr_filt f = {.id = NCZTR_FPLUGIN_FILTER, .flags = H5Z_FLAG_MANDATORY};
    f.ncd = ncd < NCZTR_MAX_CD ? ncd : NCZTR_MAX_CD;
    memcpy(f.cd, cd, f.ncd * sizeof *cd);
    char msg[400] = "";
    json_t *codec = ncztr_filt_to_codec(&f, msg, sizeof msg);
    /* blosc's type size is a filter parameter that its codec JSON has not (numcodecs finds
     * it in the array's dtype) */
    ncztr_cctx cx = {.esz = NCZTR_FPLUGIN_FILTER == NCZTR_FILTER_BLOSC && ncd > 2 && cd[2] ? cd[2] : 1,
                     .path = "(filter)"};
    int r = codec ? ncztr_stage_parse(codec, false, &cx, st, msg, sizeof msg) : -1;
    json_decref(codec);
    if (r != 1) {
        ncztr_stage_clear(st);
        report(NCZTR_FPLUGIN_CODEC ": %s", msg);
        return 0;
    }
    return 1;
}

/* A result of n bytes at src into a buffer of HDF5's allocator (the caller frees *buf with
 * it, as HDF5 and netCDF-C do with every filter's output) in place of *buf. */
static size_t hand_over(const void *src, size_t n, size_t *buf_size, void **buf)
{
    void *b = H5allocate_memory(n ? n : 1, false);
    if (!b) {
        report(NCZTR_FPLUGIN_CODEC ": out of memory");
        return 0;
    }
    memcpy(b, src, n);
    H5free_memory(*buf);
    *buf = b;
    *buf_size = n ? n : 1;
    return n;
}

static size_t filter(unsigned int flags, size_t cd_nelmts, const unsigned int cd_values[], size_t nbytes,
                     size_t *buf_size, void **buf)
{
    ncztr_stage st;
    if (!stage_of(cd_nelmts, cd_values, &st))
        return 0;
    ncztr_cerr e = {""};
    size_t ret = 0;
    if (flags & H5Z_FLAG_REVERSE) {
        unsigned char *dst = NULL;
        ncztr_dres res = {NCZTR_D_OUT, 0, NULL};
        if (ncztr_stage_decode_grow(&st, *buf, nbytes, DECODE_MAX, &dst, &res, &e) < 0)
            report(NCZTR_FPLUGIN_CODEC ": %s", e.msg);
        else if (res.where == NCZTR_D_INPUT) /* a checksum stripped: the input's first bytes */
            ret = res.outlen ? res.outlen : 1;
        else
            ret = hand_over(res.where == NCZTR_D_OWN ? res.own : dst, res.outlen, buf_size, buf);
        free(dst);
        free(res.own);
    } else {
        void *out = NULL;
        size_t outlen = 0;
        if (ncztr_codec_encode(st.cls, st.state, &st.cx, *buf, nbytes, &out, &outlen, &e) < 0)
            report(NCZTR_FPLUGIN_CODEC ": %s", e.msg);
        else
            ret = out ? hand_over(out, outlen, buf_size, buf) : nbytes;
        free(out);
    }
    ncztr_stage_clear(&st);
    return ret;
}

static const H5Z_class2_t filter_class = {
    .version = H5Z_CLASS_T_VERS,
    .id = NCZTR_FPLUGIN_H5ID,
    .encoder_present = 1,
    .decoder_present = 1,
    .name = "vol-nczarr " NCZTR_FPLUGIN_CODEC,
    .filter = filter,
};

EXPORT H5PL_type_t H5PLget_plugin_type(void)
{
    return H5PL_TYPE_FILTER;
}

EXPORT const void *H5PLget_plugin_info(void)
{
    return &filter_class;
}

/* ---- the netCDF-C codec ---- */

static int to_hdf5(const char *text, size_t *nparamsp, unsigned **paramsp)
{
    json_error_t jerr;
    json_t *codec = text ? json_loads(text, 0, &jerr) : NULL;
    ncztr_cctx cx = {.esz = 1, .path = "(netCDF-C)"};
    ncztr_filt f;
    char msg[400] = "";
    int r = codec ? ncztr_codec_to_filt(codec, false, &cx, &f, msg, sizeof msg) : -1;
    json_decref(codec);
    unsigned *p = r == 1 ? malloc((f.ncd ? f.ncd : 1) * sizeof *p) : NULL;
    if (!p) {
        fprintf(stderr, "nczarr filter " NCZTR_FPLUGIN_CODEC ": codec %s: %s\n", text ? text : "(none)",
                r == 1 ? "out of memory" : msg);
        return NCZTR_NC_EFILTER;
    }
    memcpy(p, f.cd, f.ncd * sizeof *p);
    *nparamsp = f.ncd;
    *paramsp = p;
    return 0;
}

static int from_hdf5(size_t nparams, const unsigned *params, char **codecp)
{
    ncztr_filt f = {.id = NCZTR_FPLUGIN_FILTER, .flags = H5Z_FLAG_MANDATORY};
    f.ncd = nparams < NCZTR_MAX_CD ? nparams : NCZTR_MAX_CD;
    memcpy(f.cd, params, f.ncd * sizeof *params);
    char msg[400] = "";
    json_t *codec = ncztr_filt_to_codec(&f, msg, sizeof msg);
    char *text = codec ? json_dumps(codec, JSON_COMPACT) : NULL;
    json_decref(codec);
    if (!text) {
        fprintf(stderr, "nczarr filter " NCZTR_FPLUGIN_CODEC ": %s\n", codec ? "out of memory" : msg);
        return NCZTR_NC_EFILTER;
    }
    *codecp = text;
    return 0;
}

static const ncztr_nc_codec nc_codec = {
    .version = NCZTR_NC_CODEC_VERSION,
    .sort = NCZTR_NC_CODEC_HDF5,
    .codecid = NCZTR_FPLUGIN_CODEC,
    .hdf5id = NCZTR_FPLUGIN_H5ID,
    .to_hdf5 = to_hdf5,
    .from_hdf5 = from_hdf5,
};

EXPORT const void *NCZ_get_codec_info(void);
const void *NCZ_get_codec_info(void)
{
    return &nc_codec;
}
