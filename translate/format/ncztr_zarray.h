/* .zarray parse/emit (ncztr_zarray.c): the metadata object of one array. */
#ifndef NCZTR_ZARRAY_H
#define NCZTR_ZARRAY_H

#include "ncztr_types.h"

/* ---- .zarray ------------------------------------------------------------------------ */
typedef struct ncztr_zarray {
    int rank; /* >= 1 (Zarr v2 scalars are shape [] -> rank 0 is
                 accepted on read: then shape/chunks are empty) */
    /* rank entries each (room for at least one), in one block made by ncztr_zarray_set_rank
     * and freed by ncztr_zarray_clear: an array's model is kept for every array of a file,
     * and room for NCZTR_MAX_RANK here was half of it */
    uint64_t *shape;
    uint64_t *chunks;
    ncztr_dtype dtype;
    int has_fill;
    unsigned char *fill;   /* malloc'ed dtype.size bytes when has_fill */
    char order;            /* 'C' or 'F' */
    char dimsep;           /* '.' or '/' */
    bool chunk_c;          /* Zarr v3's default chunk key encoding: keys "c/i/j" (or "c.i.j") */
    json_t *compressor;    /* NULL (json null) or the codec object (owned ref) */
    json_t *filters;       /* NULL or the array of codec objects (owned ref) */
    json_t *codecs;        /* Zarr v3: the codec list (owned ref; filters and compressor NULL) */
    json_t *structured;    /* dtype.tclass == NCZTR_T_STRUCT: the dtype list (owned) */
    bool complex;          /* numpy complex (<c8, <c16; v3 complex64/128): the structure {r, i} */
    char time_kind;        /* numpy datetime64 'M' or timedelta64 'm' (an int64 dtype), else 0 */
    char time_unit[8];     /* its unit ("s", "ns", "D", ...) */
    char utf32;            /* numpy fixed-width text ("<U<n>", v3 "fixed_length_utf32"): '<' or '>'
                              its byte order; dtype is then "|S<4n>" (zarr text "<U<n>"): the chain
                              shows its n UTF-32 code points as 4n bytes of NUL-padded UTF-8 */
    ncztr_dtype vlen_base; /* dtype.tclass == NCZTR_T_VLEN: the numbers of each sequence (|u1 for
                              text and bytes) */
    char vlen_kind;        /* NCZTR_T_VLEN: 'a' vlen-array, 'u' vlen-utf8 (text), 'b' vlen-bytes */
    char *vlen_fill;       /* 'u'/'b': the text of a non-empty fill value, else NULL (malloc'ed) */
} ncztr_zarray;

/* Parses and validates .zarray text. `key` is used in messages. Checks: valid JSON object;
 * zarr_format == 2; shape/chunks present, arrays of non-negative integers of equal
 * length (chunks >= 1; shape 0 allowed), rank <= NCZTR_MAX_RANK; product of chunks times
 * dtype size fits in 2^62 bytes and each dimension's chunk count fits in uint64; dtype
 * parses; fill_value decodes; order is "C" or "F"; dimension_separator absent, "." or
 * "/"; compressor null or object with a string "id"; filters null or array of such.
 * dtype "|O" (an object array) is read when its first filter is one of numcodecs' object
 * codecs (NCZTR_T_VLEN): "vlen-utf8" (text), "vlen-bytes" or "vlen-array" with a number
 * dtype; the filters after it and the compressor are its bytes->bytes codecs. A text fill
 * value is kept (vlen_fill); sequences have none (unwritten elements are empty). */
herr_t ncztr_zarray_parse(const char *key, const char *text, size_t len, ncztr_zarray *out);
/* The same checks on .zarray already parsed (with ncztr_json_parse_object, so that large
 * uint64 literals are marked); root stays the caller's. */
herr_t ncztr_zarray_from_json(const char *key, json_t *root, ncztr_zarray *out);
/* Emits .zarray: keys in the order zarr_format, shape, dtype, chunks, fill_value, order,
 * compressor, filters, then dimension_separator only when it is not '.'. Returns
 * malloc'ed text (free with free()) or NULL after pushing an error. */
char *ncztr_zarray_dump(const ncztr_zarray *za);
/* The key of chunk idx of an array whose key is prefix ("" at the store root):
 * "prefix/i.j.k" with the array's dimension separator, "prefix/c/i/j/k" with Zarr v3's
 * default encoding (chunk_c); a rank-0 array's one chunk is "0" (v3: "c"). malloc'ed, NULL
 * when out of memory. The one place chunk keys are made. */
char *ncztr_chunk_key_at(const char *prefix, int rank, char dimsep, bool chunk_c, const uint64_t *idx);
void ncztr_zarray_clear(ncztr_zarray *za);
/* Sets za's rank (0..NCZTR_MAX_RANK) with new zeroed shape and chunks (at least one entry
 * each, so a rank-0 array may become a rank-1 scalar in place). FAIL (pushed) when out of
 * memory or rank is out of range. */
herr_t ncztr_zarray_set_rank(ncztr_zarray *za, int rank);

/* The data types numpy has and HDF5 spells otherwise, shared by the v2 and v3 readers:
 * complex (esz 8 or 16 in all, endian '<' or '>') as the structure {r, i} of two floats
 * (h5py's spelling); datetime64 / timedelta64 of a unit as int64 (kind 'M' or 'm'). */
herr_t ncztr_zarray_set_complex(const char *key, char endian, size_t esz, ncztr_zarray *za);
herr_t ncztr_zarray_set_time(const char *key, char endian, char kind, const char *unit, ncztr_zarray *za);
/* numpy's fixed-width text of nchars UTF-32 code points in byte order endian; its fill
 * value must be empty (null, 0 or ""). */
herr_t ncztr_zarray_set_utf32(const char *key, char endian, size_t nchars, ncztr_zarray *za);
herr_t ncztr_zarray_utf32_fill(const char *key, const json_t *fill, ncztr_zarray *za);
/* A "fill_value" (j, NULL when absent) of the data type za holds, by its kind: numbers,
 * strings, complex, time, text of variable or fixed width (hex bit patterns are v3's, read
 * by the v3 reader itself). */
/* A structured array whose records are larger than 1 MiB and whose fill value is all zero
 * bytes: "fill_value" is written as null, since its Base64 (zarr-python's form) would make
 * the metadata as large as a record; NCZarr keeps "_nczarr_array.fill_zero" to say the
 * fill value is zero (zarr-python 3 fills missing chunks with zeros for null). */
bool ncztr_zarray_fill_elided(const ncztr_zarray *za);
herr_t ncztr_zarray_parse_fill(const char *key, json_t *j, ncztr_zarray *za);
/* Object arrays: kind 'u' (vlen-utf8), 'b' (vlen-bytes) or 'a' (vlen-array, whose codec
 * (v2's object, v3's configuration) names the numbers' "dtype"); and their fill value. */
herr_t ncztr_zarray_set_vlen(const char *key, char kind, const json_t *codec, ncztr_zarray *za);
herr_t ncztr_zarray_vlen_fill(const char *key, const json_t *fill, ncztr_zarray *za);
/* Their fill values: complex [re, im] (numbers or "NaN"/"Infinity"/"-Infinity"), or the
 * record's Base64; time an integer or "NaT". */
herr_t ncztr_zarray_special_fill(const char *key, json_t *value, ncztr_zarray *za);

#endif
