/* .zarray parse/validate and emit (Zarr v2 array metadata). */
#include "ncztr_checked.h"
#include "ncztr_zarray.h"

#include <ctype.h>
#include <stdio.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* Largest chunk we accept, in bytes: beyond this the sizes cannot be held safely in the
 * size_t/ssize_t arithmetic of the codecs and the store. */
#define MAX_CHUNK_BYTES (UINT64_C(1) << 62)

void ncztr_zarray_clear(ncztr_zarray *za)
{
    if (!za)
        return;
    free(za->fill);
    free(za->vlen_fill);
    json_decref(za->compressor);
    json_decref(za->filters);
    json_decref(za->codecs);
    json_decref(za->structured);
    free(za->shape); /* chunks share its block */
    memset(za, 0, sizeof *za);
}

herr_t ncztr_zarray_set_rank(ncztr_zarray *za, int rank)
{
    if (rank < 0 || rank > NCZTR_MAX_RANK)
        return NCZ_PUSH(NCZ_E_ARGS, "rank %d is not between 0 and %d", rank, NCZTR_MAX_RANK);
    size_t room = rank > 0 ? (size_t)rank : 1;
    uint64_t *b = calloc(2 * room, sizeof *b);
    if (!b)
        return NCZ_PUSH(NCZ_E_NOMEM, "out of memory");
    free(za->shape);
    za->shape = b;
    za->chunks = b + room;
    za->rank = rank;
    return SUCCEED;
}

/* Reads "shape" or "chunks" into dims; returns the rank or -1 after pushing an error. */
static int get_dims(const char *key, json_t *root, const char *name, int min, uint64_t *dims)
{
    int ret = 0;
    json_t *a = json_object_get(root, name);
    size_t i, n;

    if (!a)
        NCZ_GOTO(-1, NCZ_E_FORMAT, "%s: missing key \"%s\"", key, name);
    if (!json_is_array(a))
        NCZ_GOTO(-1, NCZ_E_FORMAT, "%s: \"%s\" must be an array of %s integers", key, name,
                 min ? "positive" : "non-negative");
    n = json_array_size(a);
    if (n > NCZTR_MAX_RANK)
        NCZ_GOTO(-1, NCZ_E_UNSUPPORTED, "%s: \"%s\" has %zu dimensions, more than the %d supported", key,
                 name, n, NCZTR_MAX_RANK);
    for (i = 0; i < n; i++) {
        json_t *e = json_array_get(a, i);
        if (!json_is_integer(e) || json_integer_value(e) < min)
            NCZ_GOTO(-1, NCZ_E_FORMAT, "%s: \"%s\" must be an array of %s integers (element %zu)", key, name,
                     min ? "positive" : "non-negative", i);
        dims[i] = (uint64_t)json_integer_value(e);
    }
    ret = (int)n;
done:
    return ret;
}

/* A codec: an object with a string "id". */
static int is_codec(const json_t *c)
{
    return json_is_object(c) && json_is_string(json_object_get(c, "id"));
}

/* An object array ("|O") whose first filter is one of numcodecs' object codecs: "vlen-utf8"
 * and "vlen-bytes" (how zarr-python 2 and 3 store text and bytes in v2) or "vlen-array"
 * (ragged arrays of numbers). The kind ('u', 'b', 'a'), or 0. */
static char vlen_kind_of(json_t *root, const char *dtype)
{
    json_t *f = json_object_get(root, "filters");
    const char *id = json_is_array(f) ? json_string_value(json_object_get(json_array_get(f, 0), "id")) : NULL;
    if (strcmp(dtype, "|O") != 0 || !id)
        return 0;
    return !strcmp(id, "vlen-utf8")    ? 'u'
           : !strcmp(id, "vlen-bytes") ? 'b'
           : !strcmp(id, "vlen-array") ? 'a'
                                       : 0;
}

herr_t ncztr_zarray_set_vlen(const char *key, char kind, const json_t *codec, ncztr_zarray *za)
{
    herr_t ret = SUCCEED;
    char what[600];
    if (kind == 'a') {
        json_t *bt = json_object_get(codec, "dtype");
        snprintf(what, sizeof what, "%s: the \"dtype\" of codec \"vlen-array\"", key);
        if (!json_is_string(bt))
            NCZ_GOTO(FAIL, NCZ_E_FORMAT, "%s must be a string", what);
        if (ncztr_dtype_parse(json_string_value(bt), what, &za->vlen_base) < 0)
            NCZ_GOTO_QUIET(FAIL);
        if (za->vlen_base.tclass != NCZTR_T_INT && za->vlen_base.tclass != NCZTR_T_UINT &&
            za->vlen_base.tclass != NCZTR_T_FLOAT)
            NCZ_GOTO(FAIL, NCZ_E_UNSUPPORTED, "%s is \"%s\": only sequences of numbers are supported", what,
                     za->vlen_base.zarr);
    } else if (ncztr_dtype_parse("|u1", key, &za->vlen_base) < 0) {
        NCZ_GOTO_QUIET(FAIL);
    }
    za->vlen_kind = kind;
    za->dtype.tclass = NCZTR_T_VLEN;
    za->dtype.size = sizeof(hvl_t);
    snprintf(za->dtype.zarr, sizeof za->dtype.zarr, "|O");
done:
    return ret;
}

herr_t ncztr_zarray_vlen_fill(const char *key, const json_t *j, ncztr_zarray *za)
{
    /* sequences: unwritten elements are empty; text: zarr-python writes "" (v2 may hold 0
     * or null, numpy's object default) */
    if (za->vlen_kind == 'a' || !j || json_is_null(j) || (json_is_integer(j) && json_integer_value(j) == 0))
        return SUCCEED;
    if (!json_is_string(j))
        return NCZ_PUSH(NCZ_E_FORMAT, "%s: the \"fill_value\" of a text array must be a string", key);
    if (json_string_length(j) && !(za->vlen_fill = strndup(json_string_value(j), json_string_length(j))))
        return NCZ_PUSH(NCZ_E_NOMEM, "out of memory reading %s", key);
    return SUCCEED;
}

herr_t ncztr_zarray_parse(const char *key, const char *text, size_t len, ncztr_zarray *out)
{
    if (!key)
        key = ".zarray";
    if (!out)
        return NCZ_PUSH(NCZ_E_ARGS, "%s: no output", key);
    memset(out, 0, sizeof *out);
    json_t *root = ncztr_json_parse_object(key, text, len);
    if (!root)
        return FAIL;
    herr_t ret = ncztr_zarray_from_json(key, root, out);
    json_decref(root);
    return ret;
}

herr_t ncztr_zarray_from_json(const char *key, json_t *root, ncztr_zarray *out)
{
    herr_t ret = SUCCEED;
    json_t *j;
    ncztr_zarray za;
    int rank, crank;

    memset(&za, 0, sizeof za);
    if (!key)
        key = ".zarray";
    if (!out)
        NCZ_GOTO(FAIL, NCZ_E_ARGS, "%s: no output", key);
    memset(out, 0, sizeof *out);
    if (!json_is_object(root))
        NCZ_GOTO(FAIL, NCZ_E_FORMAT, "%s: top-level JSON value must be an object", key);
    /* The parts kept as JSON below are copies: out must not share (and so pin, or see
     * changes of) a tree that belongs to the caller. */

    j = json_object_get(root, "zarr_format");
    if (!j)
        NCZ_GOTO(FAIL, NCZ_E_FORMAT, "%s: missing key \"zarr_format\"", key);
    if (!json_is_integer(j))
        NCZ_GOTO(FAIL, NCZ_E_FORMAT, "%s: \"zarr_format\" must be the integer 2", key);
    if (json_integer_value(j) != 2)
        NCZ_GOTO(FAIL, NCZ_E_UNSUPPORTED,
                 "%s: zarr_format %" JSON_INTEGER_FORMAT " is not supported (only 2)", key,
                 json_integer_value(j));

    uint64_t shp[NCZTR_MAX_RANK], chk[NCZTR_MAX_RANK];
    if ((rank = get_dims(key, root, "shape", 0, shp)) < 0)
        NCZ_GOTO_QUIET(FAIL);
    if ((crank = get_dims(key, root, "chunks", 1, chk)) < 0)
        NCZ_GOTO_QUIET(FAIL);
    if (rank != crank)
        NCZ_GOTO(FAIL, NCZ_E_FORMAT, "%s: \"shape\" has %d dimensions but \"chunks\" has %d", key, rank,
                 crank);
    if (ncztr_zarray_set_rank(&za, rank) < 0)
        NCZ_GOTO_QUIET(FAIL);
    memcpy(za.shape, shp, (size_t)rank * sizeof *shp);
    memcpy(za.chunks, chk, (size_t)rank * sizeof *chk);

    j = json_object_get(root, "dtype");
    if (!j)
        NCZ_GOTO(FAIL, NCZ_E_FORMAT, "%s: missing key \"dtype\"", key);
    const char *dts = json_string_value(j);
    char tunit[8] = "";
    if (dts && (dts[0] == '<' || dts[0] == '>') && dts[1] == 'c' &&
        (!strcmp(dts + 2, "8") || !strcmp(dts + 2, "16"))) {
        if (ncztr_zarray_set_complex(key, dts[0], dts[2] == '8' ? 8 : 16, &za) < 0)
            NCZ_GOTO_QUIET(FAIL);
    } else if (dts && (dts[0] == '<' || dts[0] == '>') && (dts[1] == 'M' || dts[1] == 'm') && dts[2] == '8' &&
               sscanf(dts + 3, "[%7[A-Za-z]]", tunit) == 1) {
        if (ncztr_zarray_set_time(key, dts[0], dts[1], tunit, &za) < 0)
            NCZ_GOTO_QUIET(FAIL);
    } else if (dts && strchr("<>|", dts[0]) && dts[1] == 'U' && isdigit((unsigned char)dts[2])) {
        char *end = NULL;
        unsigned long n = strtoul(dts + 2, &end, 10);
        if (*end || n == 0 || n > (1u << 24))
            NCZ_GOTO(FAIL, NCZ_E_FORMAT, "%s: dtype \"%s\": a text length of 1 to 2^24 characters", key, dts);
        if (ncztr_zarray_set_utf32(key, dts[0] == '>' ? '>' : '<', n, &za) < 0)
            NCZ_GOTO_QUIET(FAIL);
    } else if (json_is_array(j)) {
        /* structured dtype: validated by building its packed HDF5 type */
        hid_t st = ncztr_struct_to_hdf5(j, key);
        if (st < 0)
            NCZ_GOTO_QUIET(FAIL);
        za.dtype.tclass = NCZTR_T_STRUCT;
        za.dtype.size = H5Tget_size(st);
        H5Tclose(st);
        if (za.dtype.size == 0)
            NCZ_GOTO(FAIL, NCZ_E_FORMAT, "%s: structured dtype of size 0", key);
        snprintf(za.dtype.zarr, sizeof za.dtype.zarr, "|V%zu", za.dtype.size);
        if (!(za.structured = json_deep_copy(j)))
            NCZ_GOTO(FAIL, NCZ_E_NOMEM, "out of memory reading %s", key);
    } else if (!json_is_string(j)) {
        NCZ_GOTO(FAIL, NCZ_E_FORMAT, "%s: \"dtype\" must be a string or a list of fields", key);
    } else if (vlen_kind_of(root, json_string_value(j))) {
        if (ncztr_zarray_set_vlen(key, vlen_kind_of(root, json_string_value(j)),
                                  json_array_get(json_object_get(root, "filters"), 0), &za) < 0)
            NCZ_GOTO_QUIET(FAIL);
    } else if (ncztr_dtype_parse(json_string_value(j), key, &za.dtype) < 0) {
        NCZ_GOTO_QUIET(FAIL);
    }

    /* Sizes: one chunk in bytes must stay below 2^62, and the element count of the whole
     * array must fit in 64 bits (an HDF5 dataspace cannot describe more). */
    {
        uint64_t bytes = za.dtype.size, elems = 1;
        int zero = 0;
        for (int i = 0; i < rank; i++) {
            if (!ncztr_mul_u64(bytes, za.chunks[i], &bytes) || bytes > MAX_CHUNK_BYTES)
                NCZ_GOTO(FAIL, NCZ_E_UNSUPPORTED,
                         "%s: a chunk of \"chunks\" x dtype \"%s\" is larger than 2^62 bytes", key,
                         za.dtype.zarr);
            if (za.shape[i] == 0)
                zero = 1;
        }
        for (int i = 0; i < rank && !zero; i++)
            if (!ncztr_mul_u64(elems, za.shape[i], &elems))
                NCZ_GOTO(FAIL, NCZ_E_UNSUPPORTED, "%s: \"shape\" has more than 2^64 elements", key);
    }

    /* Zarr v2 requires fill_value; an absent one is read as null (no fill). */
    if (ncztr_zarray_parse_fill(key, json_object_get(root, "fill_value"), &za) < 0)
        NCZ_GOTO_QUIET(FAIL);

    /* "order": absent is read as "C" (lenient), anything else but "C"/"F" is an error. */
    za.order = 'C';
    j = json_object_get(root, "order");
    if (j) {
        const char *s = json_string_value(j);
        if (!s || (strcmp(s, "C") != 0 && strcmp(s, "F") != 0))
            NCZ_GOTO(FAIL, NCZ_E_FORMAT, "%s: \"order\" must be \"C\" or \"F\"", key);
        za.order = s[0];
    }

    za.dimsep = '.';
    j = json_object_get(root, "dimension_separator");
    if (j) {
        const char *s = json_string_value(j);
        if (!s || (strcmp(s, ".") != 0 && strcmp(s, "/") != 0))
            NCZ_GOTO(FAIL, NCZ_E_FORMAT, "%s: \"dimension_separator\" must be \".\" or \"/\"", key);
        za.dimsep = s[0];
    }

    /* Codecs are kept as given; checking the ids against known codecs is the reader's job
     * (an unknown codec only blocks reading that array's chunks). Absent = null. */
    j = json_object_get(root, "compressor");
    if (j && !json_is_null(j)) {
        if (!is_codec(j))
            NCZ_GOTO(FAIL, NCZ_E_FORMAT, "%s: \"compressor\" must be null or an object with a string \"id\"",
                     key);
        if (!(za.compressor = json_deep_copy(j)))
            NCZ_GOTO(FAIL, NCZ_E_NOMEM, "out of memory reading %s", key);
    }
    j = json_object_get(root, "filters");
    if (j && !json_is_null(j)) {
        if (!json_is_array(j))
            NCZ_GOTO(FAIL, NCZ_E_FORMAT, "%s: \"filters\" must be null or an array of codec objects", key);
        for (size_t i = 0; i < json_array_size(j); i++)
            if (!is_codec(json_array_get(j, i)))
                NCZ_GOTO(FAIL, NCZ_E_FORMAT,
                         "%s: \"filters\" element %zu must be an object with a string \"id\"", key, i);
        if (!(za.filters = json_deep_copy(j)))
            NCZ_GOTO(FAIL, NCZ_E_NOMEM, "out of memory reading %s", key);
    }

    if (!za.has_fill) {
        free(za.fill);
        za.fill = NULL;
    }
    *out = za;
    memset(&za, 0, sizeof za);
done:
    ncztr_zarray_clear(&za);
    return ret;
}

/* [v0,v1,...] as ncztr_json_dump writes a list of integers */
static void u64_list(ncztr_jtext *t, const uint64_t *v, int n)
{
    ncztr_jtext_raw(t, "[");
    for (int i = 0; i < n; i++) {
        if (i)
            ncztr_jtext_raw(t, ",");
        ncztr_jtext_u64(t, v[i]);
    }
    ncztr_jtext_raw(t, "]");
}

/* j as JSON text, or null when there is none; -1 when it nests too deep */
static int value_or_null(ncztr_jtext *t, const json_t *j)
{
    if (j)
        return ncztr_jtext_value(t, j);
    ncztr_jtext_raw(t, "null");
    return 0;
}

char *ncztr_zarray_dump(const ncztr_zarray *za)
{
    char *ret = NULL;
    json_t *fill = NULL;
    ncztr_jtext t = NCZTR_JTEXT_INIT;
    ncztr_dtype check;

    if (!za)
        NCZ_GOTO(NULL, NCZ_E_ARGS, ".zarray: nothing to dump");
    if (za->rank < 0 || za->rank > NCZTR_MAX_RANK)
        NCZ_GOTO(NULL, NCZ_E_ARGS, ".zarray: bad rank %d", za->rank);
    if (za->order != 'C' && za->order != 'F')
        NCZ_GOTO(NULL, NCZ_E_ARGS, ".zarray: bad order '%c'", za->order);
    if (za->dimsep != '.' && za->dimsep != '/')
        NCZ_GOTO(NULL, NCZ_E_ARGS, ".zarray: bad dimension separator '%c'", za->dimsep);
    /* The dtype text must be one we would read back the same way. */
    if (za->dtype.tclass == NCZTR_T_STRUCT) {
        if (!json_is_array(za->structured))
            NCZ_GOTO(NULL, NCZ_E_ARGS, ".zarray: structured dtype without its field list");
    } else if (za->utf32) {
        /* "<U<n>", kept as read */
    } else if (za->dtype.tclass == NCZTR_T_VLEN) {
        if (!json_is_array(za->filters) || json_array_size(za->filters) < 1)
            NCZ_GOTO(NULL, NCZ_E_ARGS, ".zarray: an object dtype without its object codec filter");
    } else if (ncztr_dtype_parse(za->dtype.zarr, ".zarray: dtype", &check) < 0) {
        NCZ_GOTO_QUIET(NULL);
    } else if (check.tclass != za->dtype.tclass || check.size != za->dtype.size ||
               check.big_endian != za->dtype.big_endian)
        NCZ_GOTO(NULL, NCZ_E_ARGS, ".zarray: dtype text \"%s\" does not match its description",
                 za->dtype.zarr);
    if (za->has_fill && !za->fill)
        NCZ_GOTO(NULL, NCZ_E_ARGS, ".zarray: has_fill set without a fill value");
    if (za->compressor && !is_codec(za->compressor))
        NCZ_GOTO(NULL, NCZ_E_ARGS, ".zarray: compressor is not a codec object");
    if (za->filters && !json_is_array(za->filters))
        NCZ_GOTO(NULL, NCZ_E_ARGS, ".zarray: filters is not an array");

    for (int i = 0; i < za->rank; i++)
        if (za->shape[i] > (uint64_t)INT64_MAX || za->chunks[i] > (uint64_t)INT64_MAX || za->chunks[i] == 0)
            NCZ_GOTO(NULL, NCZ_E_ARGS, ".zarray: bad shape/chunk size in dimension %d", i);
    /* The fill value first: the one part built as a JSON value */
    if (za->complex && za->has_fill) { /* [re, im], as numpy's complex fill values are written */
        ncztr_dtype part;
        char pt[4] = {za->dtype.big_endian ? '>' : '<', 'f', za->dtype.size == 8 ? '4' : '8', '\0'};
        if (ncztr_dtype_parse(pt, ".zarray", &part) == SUCCEED)
            fill = json_pack("[o,o]", ncztr_json_from_elem(&part, za->fill, "fill_value"),
                             ncztr_json_from_elem(&part, za->fill + part.size, "fill_value"));
    } else if (za->utf32) {
        fill = json_string("");
    } else if (za->dtype.tclass == NCZTR_T_VLEN) {
        fill = za->vlen_kind == 'a' ? json_null() : json_string(za->vlen_fill ? za->vlen_fill : "");
    } else {
        fill =
            ncztr_fill_to_json(&za->dtype, za->has_fill && !ncztr_zarray_fill_elided(za) ? za->fill : NULL);
    }
    if (!fill)
        NCZ_GOTO_QUIET(NULL);

    /* Written as text, key order as netCDF-C writes it (NCZARR-FORMAT.md): the object of
     * every array of a file, where building a tree of values cost more than writing it. */
    ncztr_jtext_raw(&t, "{\"zarr_format\": 2, \"shape\": ");
    u64_list(&t, za->shape, za->rank);
    ncztr_jtext_raw(&t, ", \"dtype\": ");
    if (za->time_kind) {
        char tdt[NCZTR_DTYPE_MAX + 16];
        snprintf(tdt, sizeof tdt, "%c%c8[%s]", za->dtype.big_endian ? '>' : '<', za->time_kind,
                 za->time_unit);
        ncztr_jtext_str(&t, tdt);
    } else if (!za->complex && za->dtype.tclass == NCZTR_T_STRUCT) {
        if (ncztr_jtext_value(&t, za->structured) < 0)
            NCZ_GOTO(NULL, NCZ_E_ARGS, ".zarray: structured dtype nested too deep");
    } else {
        ncztr_jtext_str(&t, za->dtype.zarr);
    }
    ncztr_jtext_raw(&t, ", \"chunks\": ");
    u64_list(&t, za->chunks, za->rank);
    ncztr_jtext_raw(&t, ", \"fill_value\": ");
    ncztr_jtext_value(&t, fill);
    ncztr_jtext_raw(&t, ", \"order\": ");
    ncztr_jtext_str(&t, za->order == 'F' ? "F" : "C");
    ncztr_jtext_raw(&t, ", \"compressor\": ");
    if (value_or_null(&t, za->compressor) < 0)
        NCZ_GOTO(NULL, NCZ_E_ARGS, ".zarray: compressor nested too deep");
    ncztr_jtext_raw(&t, ", \"filters\": ");
    if (value_or_null(&t, za->filters) < 0)
        NCZ_GOTO(NULL, NCZ_E_ARGS, ".zarray: filters nested too deep");
    if (za->dimsep != '.')
        ncztr_jtext_raw(&t, ", \"dimension_separator\": \"/\"");
    ncztr_jtext_raw(&t, "}");
    ret = ncztr_jtext_take(&t);
done:
    free(t.p);
    json_decref(fill);
    return ret;
}

char *ncztr_chunk_key_at(const char *prefix, int rank, char dimsep, bool chunk_c, const uint64_t *idx)
{
    size_t cap = strlen(prefix) + 4 + (size_t)(rank ? rank : 1) * 21;
    char *s = malloc(cap);
    if (!s)
        return NULL;
    size_t n = *prefix ? (size_t)snprintf(s, cap, "%s/", prefix) : 0;
    if (chunk_c) {
        n += (size_t)snprintf(s + n, cap - n, "c");
        if (rank)
            s[n++] = dimsep;
        s[n] = '\0';
    } else if (rank == 0) {
        snprintf(s + n, cap - n, "0");
    }
    for (int k = 0; k < rank; k++) {
        if (k)
            s[n++] = dimsep;
        n += (size_t)snprintf(s + n, cap - n, "%" PRIu64, idx[k]);
    }
    return s;
}

herr_t ncztr_zarray_set_utf32(const char *key, char endian, size_t nchars, ncztr_zarray *za)
{
    char dt[32];
    snprintf(dt, sizeof dt, "|S%zu", 4 * nchars);
    if (ncztr_dtype_parse(dt, key, &za->dtype) < 0)
        return FAIL;
    snprintf(za->dtype.zarr, sizeof za->dtype.zarr, "%cU%zu", endian, nchars);
    za->utf32 = endian;
    return SUCCEED;
}

herr_t ncztr_zarray_utf32_fill(const char *key, const json_t *j, ncztr_zarray *za)
{
    if (j && !json_is_null(j) && !(json_is_integer(j) && json_integer_value(j) == 0) &&
        !(json_is_string(j) && json_string_length(j) == 0))
        return NCZ_PUSH(NCZ_E_UNSUPPORTED,
                        "%s: a fill value other than \"\" for fixed-width text (%s) is not "
                        "supported",
                        key, za->dtype.zarr);
    if (!(za->fill = calloc(1, za->dtype.size)))
        return NCZ_PUSH(NCZ_E_NOMEM, "out of memory reading %s", key);
    za->has_fill = 1;
    return SUCCEED;
}

bool ncztr_zarray_fill_elided(const ncztr_zarray *za)
{
    return za->dtype.tclass == NCZTR_T_STRUCT && za->has_fill && za->fill &&
           za->dtype.size > ((size_t)1 << 20) && ncztr_bytes_zero(za->fill, za->dtype.size);
}

herr_t ncztr_zarray_parse_fill(const char *key, json_t *j, ncztr_zarray *za)
{
    char what[600];
    if (za->dtype.tclass == NCZTR_T_VLEN)
        return ncztr_zarray_vlen_fill(key, j, za);
    if (za->utf32)
        return ncztr_zarray_utf32_fill(key, j, za);
    if (!j || json_is_null(j))
        return SUCCEED;
    if (za->complex || za->time_kind)
        return ncztr_zarray_special_fill(key, j, za);
    snprintf(what, sizeof what, "%s: \"fill_value\"", key);
    if (!(za->fill = malloc(za->dtype.size)))
        return NCZ_PUSH(NCZ_E_NOMEM, "out of memory reading %s", key);
    return ncztr_fill_from_json(&za->dtype, j, what, za->fill, &za->has_fill);
}

herr_t ncztr_zarray_set_complex(const char *key, char endian, size_t esz, ncztr_zarray *za)
{
    char part[4] = {endian, 'f', esz == 8 ? '4' : '8', '\0'};
    json_t *list = json_pack("[[s,s],[s,s]]", "r", part, "i", part);
    if (!list)
        return NCZ_PUSH(NCZ_E_NOMEM, "out of memory reading %s", key);
    hid_t st = ncztr_struct_to_hdf5(list, key);
    if (st < 0) {
        json_decref(list);
        return FAIL;
    }
    H5Tclose(st);
    za->dtype.tclass = NCZTR_T_STRUCT;
    za->dtype.size = esz;
    snprintf(za->dtype.zarr, sizeof za->dtype.zarr, "%cc%zu", endian, esz);
    za->structured = list;
    za->complex = true;
    return SUCCEED;
}

herr_t ncztr_zarray_set_time(const char *key, char endian, char kind, const char *unit, ncztr_zarray *za)
{
    static const char *const units[] = {"Y",  "M",  "W",  "D",  "h",  "m",  "s",
                                        "ms", "us", "ns", "ps", "fs", "as", NULL};
    bool known = false;
    for (size_t i = 0; units[i] && !known; i++)
        known = !strcmp(unit, units[i]);
    if (!known || strlen(unit) >= sizeof za->time_unit)
        return NCZ_PUSH(NCZ_E_UNSUPPORTED, "%s: unknown time unit \"%s\"", key, unit);
    char i8[4] = {endian, 'i', '8', '\0'};
    if (ncztr_dtype_parse(i8, key, &za->dtype) < 0)
        return FAIL;
    za->time_kind = kind;
    snprintf(za->time_unit, sizeof za->time_unit, "%s", unit);
    return SUCCEED;
}

herr_t ncztr_zarray_special_fill(const char *key, json_t *value, ncztr_zarray *za)
{
    char what[600];
    snprintf(what, sizeof what, "%s: \"fill_value\"", key);
    if (!(za->fill = calloc(1, za->dtype.size)))
        return NCZ_PUSH(NCZ_E_NOMEM, "out of memory reading %s", key);
    if (za->time_kind) {
        const char *s = json_string_value(value);
        if (s && !strcmp(s, "NaT")) { /* numpy's "not a time": the smallest int64 */
            int64_t nat = INT64_MIN;
            for (size_t k = 0; k < 8; k++)
                za->fill[za->dtype.big_endian ? 7 - k : k] = (unsigned char)((uint64_t)nat >> (8 * k));
        } else if (ncztr_json_to_elem(&za->dtype, value, what, za->fill) < 0) {
            return FAIL;
        }
        za->has_fill = 1;
        return SUCCEED;
    }
    if (json_is_array(value) && json_array_size(value) == 2) {
        ncztr_dtype part;
        char f[4] = {za->dtype.zarr[0], 'f', za->dtype.size == 8 ? '4' : '8', '\0'};
        if (ncztr_dtype_parse(f, key, &part) < 0)
            return FAIL;
        for (size_t k = 0; k < 2; k++)
            if (ncztr_json_to_elem(&part, json_array_get(value, k), what, za->fill + k * part.size) < 0)
                return FAIL;
        za->has_fill = 1;
        return SUCCEED;
    }
    return ncztr_fill_from_json(&za->dtype, value, what, za->fill, &za->has_fill);
}
