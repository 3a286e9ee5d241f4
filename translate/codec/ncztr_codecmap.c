/* One codec's JSON (numcodecs names and parameters) <-> one HDF5 filter (id, cd_values).
 * Parameters are written as JSON integers and read as integers or strings of integers
 * (netCDF-C 4.9.3 writes strings). No HDF5 calls. */
#include "ncztr_codec_internal.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MSG(...) (snprintf(msg, msglen, __VA_ARGS__))

/* blosc's compressor codes (blosc.h BLOSC_*_COMPNAME / BLOSC_* codes) */
static const char *const blosc_cnames[] = {"blosclz", "lz4", "lz4hc", "snappy", "zlib", "zstd"};
#define BLOSC_NCNAMES (sizeof blosc_cnames / sizeof blosc_cnames[0])
/* hdf5-blosc's filter revision and blosc's format version, cd_values[0] and [1] */
#define BLOSC_FILTER_REVISION 2
#define BLOSC_FORMAT_VERSION  2
/* blosc rejects type sizes above this; hdf5-blosc's set_local then uses 1 */
#define BLOSC_MAX_TYPESIZE 255

const char *ncztr_filter_name(H5Z_filter_t id)
{
    switch (id) {
    case H5Z_FILTER_DEFLATE:
        return "deflate";
    case H5Z_FILTER_SHUFFLE:
        return "shuffle";
    case H5Z_FILTER_FLETCHER32:
        return "fletcher32";
    case H5Z_FILTER_SZIP:
        return "szip";
    case H5Z_FILTER_NBIT:
        return "nbit";
    case H5Z_FILTER_SCALEOFFSET:
        return "scaleoffset";
    case NCZTR_FILTER_BZIP2:
        return "bzip2";
    case NCZTR_FILTER_BLOSC:
        return "blosc";
    case NCZTR_FILTER_LZ4:
        return "lz4";
    case NCZTR_FILTER_ZSTD:
        return "zstd";
    default:
        return "";
    }
}

int ncztr_codec_int(const json_t *codec, const char *key, long long dflt, long long lo, long long hi,
                    long long *out, char *msg, size_t msglen)
{
    const json_t *v = json_object_get(codec, key);
    const char *id = json_string_value(json_object_get(codec, "id"));
    long long x;
    if (!v || json_is_null(v)) {
        x = dflt;
    } else if (json_is_integer(v)) {
        x = json_integer_value(v);
    } else if (json_is_string(v)) {
        const char *s = json_string_value(v);
        char *end = NULL;
        errno = 0;
        x = strtoll(s, &end, 10);
        if (errno || end == s || *end) {
            MSG("codec \"%s\": parameter \"%s\" is \"%s\", not an integer", id ? id : "?", key, s);
            return -1;
        }
    } else if (json_is_boolean(v)) {
        x = json_is_true(v);
    } else {
        MSG("codec \"%s\": parameter \"%s\" is not an integer", id ? id : "?", key);
        return -1;
    }
    if (x < lo || x > hi) {
        MSG("codec \"%s\": parameter \"%s\" is %lld, outside [%lld, %lld]", id ? id : "?", key, x, lo, hi);
        return -1;
    }
    *out = x;
    return 0;
}

static void set(ncztr_filt *f, H5Z_filter_t id, unsigned flags, size_t ncd, const unsigned *cd)
{
    f->id = id;
    f->flags = flags;
    f->ncd = ncd;
    for (size_t k = 0; k < ncd; k++)
        f->cd[k] = cd[k];
}

static int blosc_to_filt(const json_t *codec, size_t esz, size_t chunk_bytes, ncztr_filt *f, char *msg,
                         size_t msglen)
{
    long long clevel, shuffle;
    if (ncztr_codec_int(codec, "clevel", 5, 0, 9, &clevel, msg, msglen) < 0 ||
        ncztr_codec_int(codec, "shuffle", 1, -1, 2, &shuffle, msg, msglen) < 0)
        return -1;
    /* "blocksize" is blosc's internal block size (0: automatic), and netCDF-C may record the
     * chunk size there: neither is a filter parameter (the chunk size is chunk_bytes). */
    const json_t *jc = json_object_get(codec, "cname");
    const char *cname = jc ? json_string_value(jc) : "lz4";
    unsigned code = BLOSC_NCNAMES;
    for (unsigned k = 0; cname && k < BLOSC_NCNAMES; k++)
        if (strcmp(cname, blosc_cnames[k]) == 0)
            code = k;
    if (code == BLOSC_NCNAMES) {
        MSG("codec \"blosc\": unknown compressor \"cname\" %s%s%s", cname ? "\"" : "",
            cname ? cname : "(not a string)", cname ? "\"" : "");
        return -1;
    }
    if (shuffle == -1) /* numcodecs' AUTOSHUFFLE */
        shuffle = esz == 1 ? 2 : 1;
    if (chunk_bytes > UINT_MAX) {
        MSG("codec \"blosc\": a chunk of %zu bytes is over blosc's limit", chunk_bytes);
        return -1;
    }
    unsigned cd[7] = {BLOSC_FILTER_REVISION,
                      BLOSC_FORMAT_VERSION,
                      (unsigned)(esz > BLOSC_MAX_TYPESIZE || esz == 0 ? 1 : esz),
                      (unsigned)chunk_bytes,
                      (unsigned)clevel,
                      (unsigned)shuffle,
                      code};
    set(f, NCZTR_FILTER_BLOSC, H5Z_FLAG_MANDATORY, 7, cd);
    return 1;
}

int ncztr_codec_to_filt(const json_t *codec, size_t esz, size_t chunk_bytes, ncztr_filt *f, char *msg,
                        size_t msglen)
{
    const char *id = json_is_object(codec) ? json_string_value(json_object_get(codec, "id")) : NULL;
    long long v;
    unsigned cd[2];
    if (!id) {
        MSG("a codec is not a JSON object with a string \"id\"");
        return -1;
    }
    memset(f, 0, sizeof *f);
    if (strcmp(id, "zlib") == 0 || strcmp(id, "gzip") == 0) {
        if (ncztr_codec_int(codec, "level", 1, 0, 9, &v, msg, msglen) < 0)
            return -1;
        cd[0] = (unsigned)v;
        set(f, H5Z_FILTER_DEFLATE, H5Z_FLAG_OPTIONAL, 1, cd);
    } else if (strcmp(id, "shuffle") == 0) {
        if (ncztr_codec_int(codec, "elementsize", (long long)esz, 0, INT_MAX, &v, msg, msglen) < 0)
            return -1;
        cd[0] = (unsigned)(v ? (size_t)v : esz); /* netCDF-C 4.9.3 writes "0": the type's size */
        set(f, H5Z_FILTER_SHUFFLE, H5Z_FLAG_OPTIONAL, 1, cd);
    } else if (strcmp(id, "fletcher32") == 0) {
        set(f, H5Z_FILTER_FLETCHER32, H5Z_FLAG_MANDATORY, 0, cd);
    } else if (strcmp(id, "bz2") == 0) {
        if (ncztr_codec_int(codec, "level", 1, 1, 9, &v, msg, msglen) < 0)
            return -1;
        cd[0] = (unsigned)v;
        set(f, NCZTR_FILTER_BZIP2, H5Z_FLAG_MANDATORY, 1, cd);
    } else if (strcmp(id, "zstd") == 0) {
        /* "checksum" has no place in the HDF5 filter: zstd checks a frame's checksum when
         * decoding anyway */
        if (ncztr_codec_int(codec, "level", 0, -131072, 22, &v, msg, msglen) < 0)
            return -1;
        cd[0] = (unsigned)(int)v;
        set(f, NCZTR_FILTER_ZSTD, H5Z_FLAG_MANDATORY, 1, cd);
    } else if (strcmp(id, "blosc") == 0) {
        return blosc_to_filt(codec, esz, chunk_bytes, f, msg, msglen);
    } else if (strcmp(id, "lz4") == 0) {
        if (ncztr_codec_int(codec, "acceleration", 1, INT_MIN, INT_MAX, &v, msg, msglen) < 0)
            return -1;
        set(f, NCZTR_FILTER_LZ4, H5Z_FLAG_MANDATORY, 0, cd);
    } else if (strcmp(id, "szip") == 0) {
        long long ppb;
        if (ncztr_codec_int(codec, "mask", 0, 0, UINT_MAX, &v, msg, msglen) < 0 ||
            ncztr_codec_int(codec, "pixels-per-block", 32, 2, 32, &ppb, msg, msglen) < 0)
            return -1;
        cd[0] = (unsigned)v;
        cd[1] = (unsigned)ppb;
        set(f, H5Z_FILTER_SZIP, H5Z_FLAG_MANDATORY, 2, cd);
    } else {
        MSG("codec \"%s\" (no HDF5 filter id known)", id);
        return 0;
    }
    return 1;
}

static json_t *codec(const char *id)
{
    json_t *j = json_object();
    if (j && json_object_set_new(j, "id", json_string(id)) < 0) {
        json_decref(j);
        return NULL;
    }
    return j;
}

static json_t *with_int(json_t *j, const char *key, long long v)
{
    if (j && json_object_set_new(j, key, json_integer(v)) < 0) {
        json_decref(j);
        return NULL;
    }
    return j;
}

json_t *ncztr_filt_to_codec(const ncztr_filt *f, char *msg, size_t msglen)
{
    const unsigned *cd = f->cd;
    size_t n = f->ncd;
    json_t *j = NULL;
    switch (f->id) {
    case H5Z_FILTER_DEFLATE:
        j = with_int(codec("zlib"), "level", n ? cd[0] : 1);
        break;
    case H5Z_FILTER_SHUFFLE:
        if (n < 1 || cd[0] == 0) {
            MSG("filter shuffle: no element size");
            return NULL;
        }
        j = with_int(codec("shuffle"), "elementsize", cd[0]);
        break;
    case H5Z_FILTER_FLETCHER32:
        j = codec("fletcher32");
        break;
    case H5Z_FILTER_SZIP:
        j = with_int(with_int(codec("szip"), "mask", n > 0 ? cd[0] : 0), "pixels-per-block",
                     n > 1 ? cd[1] : 32);
        break;
    case NCZTR_FILTER_BZIP2:
        j = with_int(codec("bz2"), "level", n ? cd[0] : 9);
        break;
    case NCZTR_FILTER_ZSTD:
        /* no "checksum": numcodecs before 0.12 (Debian 12's 0.11) rejects the key, and
         * false is the default of those that know it */
        j = with_int(codec("zstd"), "level", n ? (int)cd[0] : 0);
        break;
    case NCZTR_FILTER_BLOSC: {
        unsigned code = n > 6 ? cd[6] : 0;
        if (code >= BLOSC_NCNAMES) {
            MSG("filter blosc: unknown compressor code %u", code);
            return NULL;
        }
        j = with_int(
            with_int(with_int(codec("blosc"), "clevel", n > 4 ? cd[4] : 5), "shuffle", n > 5 ? cd[5] : 1),
            "blocksize", 0);
        if (j && json_object_set_new(j, "cname", json_string(blosc_cnames[code])) < 0) {
            json_decref(j);
            j = NULL;
        }
        break;
    }
    case NCZTR_FILTER_LZ4:
        /* numcodecs' lz4 bytes (see ncztr_builtin.c), not those of HDF5's lz4 filter */
        j = with_int(codec("lz4"), "acceleration", 1);
        break;
    default:
        MSG("HDF5 filter %d%s%s%s has no Zarr codec", (int)f->id, *ncztr_filter_name(f->id) ? " (" : "",
            ncztr_filter_name(f->id), *ncztr_filter_name(f->id) ? ")" : "");
        return NULL;
    }
    if (!j)
        MSG("out of memory building a codec");
    return j;
}
