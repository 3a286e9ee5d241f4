/* Zarr v3 metadata (zarr.json) of an array, read into the description every format shares
 * (ncztr_zarray): shape, data type (its byte order from the "bytes" codec, inside a shard
 * too), the regular chunk grid, the chunk key encoding, the fill value (numbers, "NaN",
 * "Infinity", "-Infinity", hex bit patterns), the codec list (kept as given: the codec
 * layer builds the chain) and the checks the specification asks for: storage transformers
 * and unknown extensions that must be understood are refused, naming them. */
#include "ncztr_checked.h"
#include "ncztr_format.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Zarr v3 data type names and the numpy kind and size they are ("E": the byte order). */
static const struct {
    const char *v3;
    const char *np; /* with E for the byte order */
} dtypes[] = {
    {"bool", "|b1"},   {"int8", "|i1"},    {"uint8", "|u1"},   {"int16", "Ei2"},
    {"uint16", "Eu2"}, {"int32", "Ei4"},   {"uint32", "Eu4"},  {"int64", "Ei8"},
    {"uint64", "Eu8"}, {"float16", "Ef2"}, {"float32", "Ef4"}, {"float64", "Ef8"},
};

/* A v3 "structured" data type's fields ([[name, type], ...], type a data type name or a
 * null_terminated_bytes object) as numpy's v2 field list ([[name, "<i4"], ...]), fields in
 * byte order endian. NULL after pushing. */
static json_t *fields_to_v2(const char *key, const json_t *fields, char endian)
{
    json_t *list = json_array();
    if (!json_is_array(fields) || json_array_size(fields) == 0) {
        json_decref(list);
        NCZ_PUSH(NCZ_E_FORMAT, "%s: data type \"structured\" needs a non-empty list of \"fields\"", key);
        return NULL;
    }
    for (size_t i = 0; list && i < json_array_size(fields); i++) {
        const json_t *f = json_array_get(fields, i);
        const char *name = json_string_value(json_array_get(f, 0));
        const json_t *t = json_array_get(f, 1);
        const char *tn =
            json_is_object(t) ? json_string_value(json_object_get(t, "name")) : json_string_value(t);
        char np[32] = "";
        for (size_t k = 0; tn && k < sizeof dtypes / sizeof *dtypes && !np[0]; k++)
            if (!strcmp(tn, dtypes[k].v3)) {
                snprintf(np, sizeof np, "%s", dtypes[k].np);
                if (np[0] == 'E')
                    np[0] = endian;
            }
        json_int_t lb =
            json_integer_value(json_object_get(json_object_get(t, "configuration"), "length_bytes"));
        if (tn && !strcmp(tn, "null_terminated_bytes") && lb > 0 && lb <= (1 << 26))
            snprintf(np, sizeof np, "|S%lld", (long long)lb);
        if (!json_is_array(f) || json_array_size(f) != 2 || !name || !np[0]) {
            NCZ_PUSH(
                NCZ_E_UNSUPPORTED,
                "%s: field %zu of data type \"structured\" is not supported (fields of numbers, bool and "
                "null_terminated_bytes are)",
                key, i);
            json_decref(list);
            return NULL;
        }
        if (json_array_append_new(list, json_pack("[s,s]", name, np)) < 0) {
            json_decref(list);
            list = NULL;
        }
    }
    if (!list)
        NCZ_PUSH(NCZ_E_NOMEM, "out of memory reading %s", key);
    return list;
}

/* The v3 fields of numpy's v2 field list: NULL (pushed) when a field has no v3 form
 * (nested structures, shaped fields, big-endian numbers: v3 has one byte order). */
static json_t *fields_to_v3(const char *key, const json_t *list)
{
    json_t *out = json_array();
    for (size_t i = 0; out && i < json_array_size(list); i++) {
        const json_t *f = json_array_get(list, i);
        const char *name = json_string_value(json_array_get(f, 0)),
                   *np = json_string_value(json_array_get(f, 1));
        json_t *t = NULL;
        if (name && np && json_array_size(f) == 2 && np[0] != '>') {
            if (np[1] == 'S' && np[2])
                t = json_pack("{s:s, s:{s:I}}", "name", "null_terminated_bytes", "configuration",
                              "length_bytes", (json_int_t)strtoll(np + 2, NULL, 10));
            for (size_t k = 0; !t && k < sizeof dtypes / sizeof *dtypes; k++)
                if (!strcmp(np + 1, dtypes[k].np + 1))
                    t = json_string(dtypes[k].v3);
        }
        if (!t) {
            NCZ_PUSH(NCZ_E_NOTREPR,
                     "%s: member %zu of the compound type has no Zarr v3 \"structured\" field (numbers in "
                     "little-endian order, bool and fixed strings have)",
                     key, i);
            json_decref(out);
            return NULL;
        }
        if (json_array_append_new(out, json_pack("[s,o]", name, t)) < 0) {
            json_decref(out);
            out = NULL;
        }
    }
    if (!out)
        NCZ_PUSH(NCZ_E_NOMEM, "out of memory");
    return out;
}

/* The "endian" of the array->bytes codec of a codec list: the "bytes" codec's, or that of
 * the codecs inside a shard. 0 little, 1 big (a 1-byte type may leave it out: little). */
static int endian_of(const json_t *codecs)
{
    for (size_t k = 0; k < json_array_size(codecs); k++) {
        const json_t *c = json_array_get(codecs, k);
        const char *name = json_string_value(json_object_get(c, "name"));
        const json_t *conf = json_object_get(c, "configuration");
        if (name && !strcmp(name, "bytes")) {
            const char *en = json_string_value(json_object_get(conf, "endian"));
            return en && !strcmp(en, "big");
        }
        if (name && !strcmp(name, "sharding_indexed"))
            return endian_of(json_object_get(conf, "codecs"));
    }
    return 0;
}

/* A name-and-configuration object ("chunk_grid", "chunk_key_encoding"): its name, or NULL
 * after pushing. */
static const char *named(const char *key, const json_t *root, const char *field, const json_t **conf)
{
    const json_t *j = json_object_get(root, field);
    const char *name = json_is_object(j) ? json_string_value(json_object_get(j, "name")) : NULL;
    if (!name) {
        NCZ_PUSH(NCZ_E_FORMAT, "%s: \"%s\" must be an object with a string \"name\"", key, field);
        return NULL;
    }
    *conf = json_object_get(j, "configuration");
    return name;
}

/* A hex bit pattern ("0x7fc00000") of a float fill value, into fill (dt's byte order). */
static herr_t hex_fill(const char *key, const char *hex, const ncztr_dtype *dt, unsigned char *fill)
{
    size_t n = strlen(hex + 2);
    if (n == 0 || n > 2 * dt->size || n % 2 != 0)
        return NCZ_PUSH(NCZ_E_FORMAT, "%s: \"fill_value\" \"%s\" is not a %zu-byte hex pattern", key, hex,
                        dt->size);
    uint64_t v = 0;
    for (size_t i = 2; hex[i]; i++) {
        char c = hex[i];
        int d = c >= '0' && c <= '9'   ? c - '0'
                : c >= 'a' && c <= 'f' ? c - 'a' + 10
                : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                       : -1;
        if (d < 0)
            return NCZ_PUSH(NCZ_E_FORMAT, "%s: \"fill_value\" \"%s\" is not a hex pattern", key, hex);
        v = v << 4 | (uint64_t)d;
    }
    for (size_t k = 0; k < dt->size; k++)
        fill[dt->big_endian ? dt->size - 1 - k : k] = (unsigned char)(v >> (8 * k));
    return SUCCEED;
}

/* Top-level fields of an array's zarr.json this reader knows. */
static const char *const known[] = {
    "zarr_format", "node_type", "shape",      "data_type",       "chunk_grid",           "chunk_key_encoding",
    "fill_value",  "codecs",    "attributes", "dimension_names", "storage_transformers", NULL};

/* An unknown field is an extension: refused unless it says it need not be understood. */
static herr_t check_extensions(const char *key, json_t *root)
{
    const char *field;
    json_t *v;
    json_object_foreach(root, field, v)
    {
        bool ok = false;
        for (size_t i = 0; known[i] && !ok; i++)
            ok = !strcmp(field, known[i]);
        if (!ok && !(json_is_object(v) && json_is_false(json_object_get(v, "must_understand"))))
            return NCZ_PUSH(NCZ_E_UNSUPPORTED,
                            "%s: the extension \"%s\" must be understood, and this reader does not know it",
                            key, field);
    }
    return SUCCEED;
}

herr_t ncztr_zarr3_array_from_json(const char *key, json_t *root, ncztr_zarray *out)
{
    herr_t ret = SUCCEED;
    ncztr_zarray za;
    const json_t *conf = NULL;
    memset(&za, 0, sizeof za);
    memset(out, 0, sizeof *out);
    if (!json_is_object(root))
        NCZ_GOTO(FAIL, NCZ_E_FORMAT, "%s: top-level JSON value must be an object", key);
    json_t *j = json_object_get(root, "zarr_format");
    if (!json_is_integer(j) || json_integer_value(j) != 3)
        NCZ_GOTO(FAIL, NCZ_E_FORMAT, "%s: \"zarr_format\" must be the integer 3", key);
    if (check_extensions(key, root) < 0)
        NCZ_GOTO_QUIET(FAIL);
    j = json_object_get(root, "storage_transformers");
    if (j && !(json_is_array(j) && json_array_size(j) == 0))
        NCZ_GOTO(FAIL, NCZ_E_UNSUPPORTED, "%s: storage transformers are not supported", key);

    /* shape */
    j = json_object_get(root, "shape");
    if (!json_is_array(j))
        NCZ_GOTO(FAIL, NCZ_E_FORMAT, "%s: \"shape\" must be a list of non-negative integers", key);
    if (json_array_size(j) > NCZTR_MAX_RANK)
        NCZ_GOTO(FAIL, NCZ_E_UNSUPPORTED, "%s: \"shape\" has %zu dimensions, more than the %d supported", key,
                 json_array_size(j), NCZTR_MAX_RANK);
    if (ncztr_zarray_set_rank(&za, (int)json_array_size(j)) < 0)
        NCZ_GOTO_QUIET(FAIL);
    for (int k = 0; k < za.rank; k++) {
        json_t *e = json_array_get(j, (size_t)k);
        if (!json_is_integer(e) || json_integer_value(e) < 0)
            NCZ_GOTO(FAIL, NCZ_E_FORMAT, "%s: \"shape\" must be a list of non-negative integers (element %d)",
                     key, k);
        za.shape[k] = (uint64_t)json_integer_value(e);
    }

    /* data type, in the byte order of the array->bytes codec */
    j = json_object_get(root, "codecs");
    if (!json_is_array(j) || json_array_size(j) == 0)
        NCZ_GOTO(FAIL, NCZ_E_FORMAT, "%s: \"codecs\" must be a non-empty list", key);
    if (!(za.codecs = json_deep_copy(j)))
        NCZ_GOTO(FAIL, NCZ_E_NOMEM, "out of memory reading %s", key);
    j = json_object_get(root, "data_type");
    const char *dt = json_string_value(j);
    if (!dt && json_is_object(j))
        dt = json_string_value(json_object_get(j, "name"));
    if (!dt)
        NCZ_GOTO(FAIL, NCZ_E_FORMAT, "%s: \"data_type\" must be a string", key);
    char np[8] = "", endian = endian_of(za.codecs) ? '>' : '<';
    for (size_t i = 0; i < sizeof dtypes / sizeof *dtypes && !np[0]; i++)
        if (!strcmp(dt, dtypes[i].v3)) {
            snprintf(np, sizeof np, "%s", dtypes[i].np);
            if (np[0] == 'E')
                np[0] = endian;
        }
    if (np[0]) {
        if (ncztr_dtype_parse(np, key, &za.dtype) < 0)
            NCZ_GOTO_QUIET(FAIL);
    } else if (!strcmp(dt, "complex64") || !strcmp(dt, "complex128")) {
        if (ncztr_zarray_set_complex(key, endian, dt[7] == '6' ? 8 : 16, &za) < 0)
            NCZ_GOTO_QUIET(FAIL);
    } else if (!strcmp(dt, "numpy.datetime64") || !strcmp(dt, "numpy.timedelta64")) {
        const json_t *c = json_object_get(j, "configuration");
        const char *unit = json_string_value(json_object_get(c, "unit"));
        const json_t *sf = json_object_get(c, "scale_factor");
        if (!unit)
            NCZ_GOTO(FAIL, NCZ_E_FORMAT, "%s: data type \"%s\" without a \"unit\"", key, dt);
        if (sf && !(json_is_integer(sf) && json_integer_value(sf) == 1))
            NCZ_GOTO(FAIL, NCZ_E_UNSUPPORTED, "%s: data type \"%s\" with a scale factor other than 1", key,
                     dt);
        if (ncztr_zarray_set_time(key, endian, dt[6] == 'd' ? 'M' : 'm', unit, &za) < 0)
            NCZ_GOTO_QUIET(FAIL);
    } else if (!strcmp(dt, "fixed_length_utf32") || !strcmp(dt, "null_terminated_bytes")) {
        /* numpy "U" and "S": {"configuration": {"length_bytes": n}} */
        json_t *lb = json_object_get(json_object_get(j, "configuration"), "length_bytes");
        json_int_t n = json_is_integer(lb) ? json_integer_value(lb) : 0;
        bool u = dt[0] == 'f';
        if (n < 1 || n > (1 << 26) || (u && n % 4))
            NCZ_GOTO(FAIL, NCZ_E_FORMAT, "%s: data type \"%s\" needs a \"length_bytes\" of 1 to 2^26%s", key,
                     dt, u ? ", a multiple of 4" : "");
        char sdt[32];
        snprintf(sdt, sizeof sdt, "|S%lld", (long long)n);
        if (u ? ncztr_zarray_set_utf32(key, endian, (size_t)n / 4, &za) < 0
              : ncztr_dtype_parse(sdt, key, &za.dtype) < 0)
            NCZ_GOTO_QUIET(FAIL);
    } else if (!strcmp(dt, "structured")) {
        json_t *list =
            fields_to_v2(key, json_object_get(json_object_get(j, "configuration"), "fields"), endian);
        hid_t st = list ? ncztr_struct_to_hdf5(list, key) : H5I_INVALID_HID;
        if (st < 0) {
            json_decref(list);
            NCZ_GOTO_QUIET(FAIL);
        }
        za.dtype.tclass = NCZTR_T_STRUCT;
        za.dtype.size = H5Tget_size(st);
        H5Tclose(st);
        snprintf(za.dtype.zarr, sizeof za.dtype.zarr, "|V%zu", za.dtype.size);
        za.structured = list;
    } else if (!strcmp(dt, "string") || !strcmp(dt, "variable_length_bytes")) {
        /* elements of variable length: their array->bytes codec ("vlen-utf8", "vlen-bytes")
         * is checked when the chain is built */
        if (ncztr_zarray_set_vlen(key, dt[0] == 's' ? 'u' : 'b', NULL, &za) < 0)
            NCZ_GOTO_QUIET(FAIL);
    } else {
        NCZ_GOTO(FAIL, NCZ_E_UNSUPPORTED, "%s: data type \"%s\" is not supported by the connector", key, dt);
    }

    /* the chunk grid */
    const char *grid = named(key, root, "chunk_grid", &conf);
    if (!grid)
        NCZ_GOTO_QUIET(FAIL);
    if (strcmp(grid, "regular") != 0)
        NCZ_GOTO(FAIL, NCZ_E_UNSUPPORTED, "%s: chunk grid \"%s\" is not supported (only \"regular\")", key,
                 grid);
    j = json_object_get(conf, "chunk_shape");
    if (!json_is_array(j) || (int)json_array_size(j) != za.rank)
        NCZ_GOTO(FAIL, NCZ_E_FORMAT, "%s: \"chunk_shape\" must list %d positive integers", key, za.rank);
    uint64_t bytes = za.dtype.size;
    for (int k = 0; k < za.rank; k++) {
        json_t *e = json_array_get(j, (size_t)k);
        if (!json_is_integer(e) || json_integer_value(e) < 1)
            NCZ_GOTO(FAIL, NCZ_E_FORMAT, "%s: \"chunk_shape\" must list %d positive integers", key, za.rank);
        za.chunks[k] = (uint64_t)json_integer_value(e);
        if (!ncztr_mul_u64(bytes, za.chunks[k], &bytes) || bytes > (UINT64_C(1) << 62))
            NCZ_GOTO(FAIL, NCZ_E_UNSUPPORTED, "%s: a chunk is larger than 2^62 bytes", key);
    }

    /* the chunk key encoding */
    const char *enc = named(key, root, "chunk_key_encoding", &conf);
    if (!enc)
        NCZ_GOTO_QUIET(FAIL);
    if (strcmp(enc, "default") != 0 && strcmp(enc, "v2") != 0)
        NCZ_GOTO(FAIL, NCZ_E_UNSUPPORTED, "%s: chunk key encoding \"%s\" is not supported", key, enc);
    za.chunk_c = !strcmp(enc, "default");
    za.dimsep = za.chunk_c ? '/' : '.';
    j = json_object_get(conf, "separator");
    if (j) {
        const char *sep = json_string_value(j);
        if (!sep || (strcmp(sep, "/") != 0 && strcmp(sep, ".") != 0))
            NCZ_GOTO(FAIL, NCZ_E_FORMAT, "%s: the chunk key \"separator\" must be \"/\" or \".\"", key);
        za.dimsep = sep[0];
    }
    za.order = 'C';

    /* the fill value: required in v3 */
    j = json_object_get(root, "fill_value");
    if (!j)
        NCZ_GOTO(FAIL, NCZ_E_FORMAT, "%s: missing \"fill_value\"", key);
    const char *hex = json_string_value(j);
    if (hex && za.dtype.tclass == NCZTR_T_FLOAT && !za.complex && !strncmp(hex, "0x", 2)) {
        if (!(za.fill = malloc(za.dtype.size)))
            NCZ_GOTO(FAIL, NCZ_E_NOMEM, "out of memory reading %s", key);
        if (hex_fill(key, hex, &za.dtype, za.fill) < 0)
            NCZ_GOTO_QUIET(FAIL);
        za.has_fill = 1;
    } else if (ncztr_zarray_parse_fill(key, j, &za) < 0) {
        NCZ_GOTO_QUIET(FAIL);
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

/* ---- writing ---- */

/* The v3 data type of a dtype: a name (or the numpy.datetime64 object); NULL when v3 has
 * none (pushed). */
static json_t *v3_data_type(const char *key, const ncztr_zarray *za)
{
    const ncztr_dtype *dt = &za->dtype;
    char name[32] = "";
    if (dt->tclass == NCZTR_T_STRUCT && !za->complex) {
        json_t *fields = fields_to_v3(key, za->structured);
        return fields ? json_pack("{s:s, s:{s:o}}", "name", "structured", "configuration", "fields", fields)
                      : NULL;
    }
    if (za->utf32 || dt->tclass == NCZTR_T_STRING || dt->tclass == NCZTR_T_CHAR)
        return json_pack("{s:s, s:{s:I}}", "name", za->utf32 ? "fixed_length_utf32" : "null_terminated_bytes",
                         "configuration", "length_bytes", (json_int_t)dt->size);
    if (za->time_kind)
        return json_pack("{s:s, s:{s:s, s:i}}", "name",
                         za->time_kind == 'M' ? "numpy.datetime64" : "numpy.timedelta64", "configuration",
                         "unit", za->time_unit, "scale_factor", 1);
    if (dt->tclass == NCZTR_T_VLEN && za->vlen_kind != 'a')
        snprintf(name, sizeof name, "%s", za->vlen_kind == 'b' ? "variable_length_bytes" : "string");
    else if (za->complex)
        snprintf(name, sizeof name, "complex%zu", dt->size * 8);
    else if (dt->is_bool)
        snprintf(name, sizeof name, "bool");
    else if (dt->tclass == NCZTR_T_INT || dt->tclass == NCZTR_T_UINT)
        snprintf(name, sizeof name, "%sint%zu", dt->tclass == NCZTR_T_UINT ? "u" : "", dt->size * 8);
    else if (dt->tclass == NCZTR_T_FLOAT)
        snprintf(name, sizeof name, "float%zu", dt->size * 8);
    if (!name[0]) {
        NCZ_PUSH(NCZ_E_NOTREPR, "%s: dtype \"%s\" has no Zarr v3 data type the connector writes", key,
                 dt->zarr);
        return NULL;
    }
    return json_string(name);
}

herr_t ncztr_zarr3_check_dtype(const char *key, const ncztr_zarray *za)
{
    json_t *j = v3_data_type(key, za);
    if (!j)
        return FAIL;
    json_decref(j);
    return SUCCEED;
}

/* The fill value as v3 writes it. */
static json_t *v3_fill(const ncztr_zarray *za)
{
    if (za->dtype.tclass == NCZTR_T_VLEN)
        return json_string(za->vlen_fill ? za->vlen_fill : "");
    if (za->utf32)
        return json_string("");
    if (!za->has_fill && za->dtype.tclass == NCZTR_T_STRUCT && !za->complex) {
        /* v3 requires one: zero bytes, in the Base64 structured types are written in */
        unsigned char *z = calloc(1, za->dtype.size);
        json_t *f = z ? ncztr_fill_to_json(&za->dtype, z) : NULL;
        free(z);
        return f;
    }
    if (!za->has_fill && (za->dtype.tclass == NCZTR_T_STRING || za->dtype.tclass == NCZTR_T_CHAR))
        return json_string("");
    if (!za->has_fill)
        return json_integer(0); /* v3 requires one: the zero of the type */
    if (za->complex) {
        ncztr_dtype part;
        char pt[4] = {za->dtype.big_endian ? '>' : '<', 'f', za->dtype.size == 8 ? '4' : '8', '\0'};
        if (ncztr_dtype_parse(pt, "fill_value", &part) < 0)
            return NULL;
        return json_pack("[o,o]", ncztr_json_from_elem(&part, za->fill, "fill_value"),
                         ncztr_json_from_elem(&part, za->fill + part.size, "fill_value"));
    }
    return ncztr_fill_to_json(&za->dtype, za->fill);
}

json_t *ncztr_zarr3_node_json(const char *key, const ncztr_zarray *za, json_t *attrs)
{
    json_t *j = json_object(), *dn = NULL;
    bool ok = j != NULL;
    if (!attrs)
        attrs = json_object();
    if (za && attrs) {
        /* xarray's dimension names are v3 metadata */
        json_t *ad = json_object_get(attrs, "_ARRAY_DIMENSIONS");
        if (json_is_array(ad) && (int)json_array_size(ad) == za->rank) {
            dn = json_incref(ad);
            json_object_del(attrs, "_ARRAY_DIMENSIONS");
            /* and its type among NCZarr's attribute types */
            json_object_del(json_object_get(json_object_get(attrs, "_nczarr_attr"), "types"),
                            "_ARRAY_DIMENSIONS");
        }
    }
    ok = ok && attrs && json_object_set_new(j, "zarr_format", json_integer(3)) == 0 &&
         json_object_set_new(j, "node_type", json_string(za ? "array" : "group")) == 0;
    if (ok && za) {
        json_t *shape = json_array(), *chunks = json_array(), *dt = v3_data_type(key, za), *fill = NULL;
        if (!dt) {
            json_decref(shape);
            json_decref(chunks);
            json_decref(j);
            json_decref(attrs);
            json_decref(dn);
            return NULL;
        }
        for (int k = 0; k < za->rank && shape && chunks; k++) {
            ok = ok && json_array_append_new(shape, json_integer((json_int_t)za->shape[k])) == 0 &&
                 json_array_append_new(chunks, json_integer((json_int_t)za->chunks[k])) == 0;
        }
        char sep[2] = {za->dimsep == '.' ? '.' : '/', '\0'};
        fill = v3_fill(za);
        /* a part that could not be made: the others are released, not left behind */
        if (!ok || !shape || !chunks || !fill) {
            json_decref(shape);
            json_decref(chunks);
            json_decref(dt);
            json_decref(fill);
            ok = false;
        }
        ok = ok && json_object_set_new(j, "shape", shape) == 0 &&
             json_object_set_new(j, "data_type", dt) == 0 &&
             json_object_set_new(j, "chunk_grid",
                                 json_pack("{s:s, s:{s:o}}", "name", "regular", "configuration",
                                           "chunk_shape", chunks)) == 0 &&
             json_object_set_new(j, "chunk_key_encoding",
                                 json_pack("{s:s, s:{s:s}}", "name", za->chunk_c ? "default" : "v2",
                                           "configuration", "separator", sep)) == 0 &&
             json_object_set_new(j, "fill_value", fill) == 0 &&
             json_object_set_new(j, "codecs", json_deep_copy(za->codecs)) == 0 &&
             json_object_set_new(j, "storage_transformers", json_array()) == 0;
        if (dn && ok) {
            /* "_unknown_" and "_scalar_" (the connector's placeholders) are no names */
            for (size_t k = 0; k < json_array_size(dn); k++) {
                const char *n = json_string_value(json_array_get(dn, k));
                if (!n || !strcmp(n, "_unknown_"))
                    json_array_set_new(dn, k, json_null());
            }
            ok = json_object_set(j, "dimension_names", dn) == 0;
        }
    }
    if (ok)
        ok = json_object_set_new(j, "attributes", attrs) == 0;
    else
        json_decref(attrs); /* stolen, also when this fails */
    json_decref(dn);
    if (!ok) {
        json_decref(j);
        NCZ_PUSH(NCZ_E_NOMEM, "out of memory writing %s", key);
        return NULL;
    }
    return j;
}
