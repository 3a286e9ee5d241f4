/* NCZarr's JSON attribute convention, plus the JSON text layer every translate/ file uses:
 * parsing (with uint64 literals jansson cannot hold), dumping (netCDF-C spacing, shortest
 * round-trip reals) and float <-> JSON helpers. */
#include "ncztr_err.h"
#include "ncztr_json.h"

#include <errno.h>
#include <float.h>
#include <inttypes.h>
#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ====================================================================================== */
/* Large uint64 values                                                                    */
/* ====================================================================================== */

/* A JSON string value starting with U+0001 cannot come from any sane metadata, so it is a
 * safe private spelling for "the integer that follows" (see ncztr_json.h). */
#define U64_MARK     "\001u64:"
#define U64_MARK_LEN 5
/* The same marker as JSON text, used when rewriting input. */
#define U64_MARK_JSON "\"\\u0001u64:"

json_t *ncztr_json_uint64(uint64_t v)
{
    char buf[U64_MARK_LEN + 24];

    if (v <= (uint64_t)INT64_MAX)
        return json_integer((json_int_t)v);
    snprintf(buf, sizeof buf, U64_MARK "%" PRIu64, v);
    return json_string(buf);
}

/* 1 if j is the marker string, with *v its value. */
static int get_marked_u64(const json_t *j, uint64_t *v)
{
    const char *s, *d;
    uint64_t x = 0;

    if (!json_is_string(j))
        return 0;
    s = json_string_value(j);
    if (json_string_length(j) <= U64_MARK_LEN || memcmp(s, U64_MARK, U64_MARK_LEN) != 0)
        return 0;
    for (d = s + U64_MARK_LEN; *d; d++) {
        if (*d < '0' || *d > '9')
            return 0;
        if (x > (UINT64_MAX - (uint64_t)(*d - '0')) / 10)
            return 0;
        x = x * 10 + (uint64_t)(*d - '0');
    }
    if (v)
        *v = x;
    return 1;
}

int ncztr_json_get_uint64(const json_t *j, uint64_t *v)
{
    if (json_is_integer(j)) {
        json_int_t i = json_integer_value(j);
        if (i < 0)
            return 0;
        if (v)
            *v = (uint64_t)i;
        return 1;
    }
    return get_marked_u64(j, v);
}

/* ====================================================================================== */
/* Parsing                                                                                */
/* ====================================================================================== */

/* Scans JSON text for integer literals in (INT64_MAX, UINT64_MAX] outside strings. With
 * out != NULL, writes the text with each such literal replaced by the marker string.
 * Returns how many were found. Anything malformed is left for jansson to report. */
static size_t rewrite_big_ints(const char *text, size_t len, char *out, size_t *outlen)
{
    size_t i = 0, from = 0, o = 0, found = 0;
    int in_str = 0;

    while (i < len) {
        char c = text[i];
        if (in_str) {
            if (c == '\\')
                i += 2;
            else {
                if (c == '"')
                    in_str = 0;
                i++;
            }
            continue;
        }
        if (c == '"') {
            in_str = 1;
            i++;
            continue;
        }
        if (c == '-' || (c >= '0' && c <= '9')) {
            size_t start = i, d, nd;
            int plain = c != '-';
            if (c == '-')
                i++;
            d = i;
            while (i < len && text[i] >= '0' && text[i] <= '9')
                i++;
            nd = i - d;
            while (i < len && (text[i] == '.' || text[i] == 'e' || text[i] == 'E' || text[i] == '+' ||
                               text[i] == '-' || (text[i] >= '0' && text[i] <= '9'))) {
                plain = 0;
                i++;
            }
            /* INT64_MAX has 19 digits, UINT64_MAX 20. */
            if (plain && (nd == 19 || nd == 20) && text[d] != '0') {
                char digits[21];
                unsigned long long v;
                memcpy(digits, text + d, nd);
                digits[nd] = '\0';
                errno = 0;
                v = strtoull(digits, NULL, 10);
                if (errno == 0 && v > (unsigned long long)INT64_MAX) {
                    found++;
                    if (out) {
                        memcpy(out + o, text + from, start - from);
                        o += start - from;
                        memcpy(out + o, U64_MARK_JSON, sizeof U64_MARK_JSON - 1);
                        o += sizeof U64_MARK_JSON - 1;
                        memcpy(out + o, digits, nd);
                        o += nd;
                        out[o++] = '"';
                        from = i;
                    }
                }
            }
            continue;
        }
        i++;
    }
    if (out) {
        memcpy(out + o, text + from, len - from);
        o += len - from;
        *outlen = o;
    }
    return found;
}

/* json_loadb, after rewriting large uint64 literals. On failure returns NULL with err set
 * (err->text is "out of memory" for an allocation failure). */
static json_t *parse_text(const char *text, size_t len, size_t flags, json_error_t *err)
{
    size_t n = rewrite_big_ints(text, len, NULL, NULL);
    char *buf;
    size_t blen = 0;
    json_t *j;

    if (n == 0)
        return json_loadb(text, len, flags, err);
    /* Each literal (at most 20 chars) grows by the marker's quotes and prefix. */
    buf = malloc(len + n * (sizeof U64_MARK_JSON + 1) + 1);
    if (!buf) {
        memset(err, 0, sizeof *err);
        snprintf(err->text, sizeof err->text, "out of memory");
        return NULL;
    }
    rewrite_big_ints(text, len, buf, &blen);
    j = json_loadb(buf, blen, flags, err);
    free(buf);
    return j;
}

json_t *ncztr_json_parse_object(const char *key, const char *text, size_t len)
{
    json_t *ret = NULL;
    json_t *j = NULL;
    json_error_t err;

    if (!key)
        key = "(JSON)";
    if (!text)
        NCZ_GOTO(NULL, NCZ_E_ARGS, "%s: no JSON text", key);
    /* Without JSON_DECODE_ANY jansson accepts only an object or array at the top. */
    if (!(j = parse_text(text, len, 0, &err))) {
        if (len == 0)
            NCZ_GOTO(NULL, NCZ_E_FORMAT, "%s: empty file, expected a JSON object", key);
        NCZ_GOTO(NULL, NCZ_E_FORMAT, "%s: invalid JSON at line %d column %d: %s", key, err.line, err.column,
                 err.text);
    }
    if (!json_is_object(j))
        NCZ_GOTO(NULL, NCZ_E_FORMAT, "%s: top-level JSON value must be an object", key);
    ret = j;
    j = NULL;
done:
    json_decref(j);
    return ret;
}

/* ====================================================================================== */
/* Dumping                                                                                */
/* ====================================================================================== */

typedef struct dbuf {
    char *p;
    size_t len, cap;
    int oom;
} dbuf;

static void db_put(dbuf *b, const char *s, size_t n)
{
    if (b->oom)
        return;
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        char *np;
        while (cap < b->len + n + 1)
            cap *= 2;
        if (!(np = realloc(b->p, cap))) {
            b->oom = 1;
            return;
        }
        b->p = np;
        b->cap = cap;
    }
    memcpy(b->p + b->len, s, n);
    b->len += n;
    b->p[b->len] = '\0';
}

static void db_puts(dbuf *b, const char *s)
{
    db_put(b, s, strlen(s));
}

static void dump_string(dbuf *b, const char *s, size_t n)
{
    size_t i, from = 0;
    char esc[8];

    db_put(b, "\"", 1);
    for (i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        const char *e = NULL;
        if (c == '"')
            e = "\\\"";
        else if (c == '\\')
            e = "\\\\";
        else if (c == '\n')
            e = "\\n";
        else if (c == '\r')
            e = "\\r";
        else if (c == '\t')
            e = "\\t";
        else if (c == '\b')
            e = "\\b";
        else if (c == '\f')
            e = "\\f";
        else if (c < 0x20) {
            snprintf(esc, sizeof esc, "\\u%04x", c);
            e = esc;
        }
        if (e) {
            db_put(b, s + from, i - from);
            db_puts(b, e);
            from = i + 1;
        }
    }
    db_put(b, s + from, n - from);
    db_put(b, "\"", 1);
}

/* Formats a finite double in the shortest %.*g form that reads back exactly, with '.' as
 * the decimal point whatever the locale, and ".0" added when it would read as an integer. */
static void format_real(double v, char *buf, size_t size)
{
    const char *dp = localeconv()->decimal_point;
    char *q;
    int prec;

    for (prec = 15; prec <= 17; prec++) {
        snprintf(buf, size, "%.*g", prec, v);
        if (strtod(buf, NULL) == v)
            break;
    }
    if (dp && strcmp(dp, ".") != 0 && dp[0] && (q = strstr(buf, dp)) != NULL) {
        size_t dl = strlen(dp);
        *q = '.';
        memmove(q + 1, q + dl, strlen(q + dl) + 1);
    }
    if (!strpbrk(buf, ".eEnN")) /* nN: "nan"/"inf" cannot occur, jansson refuses them */
        strncat(buf, ".0", size - strlen(buf) - 1);
}

/* Depth limit: jansson's parser stops at 2048 too; this only guards hand-made trees. */
#define DUMP_MAX_DEPTH 2048

static int dump_value(dbuf *b, const json_t *j, int depth)
{
    char num[64];
    uint64_t u;

    if (depth > DUMP_MAX_DEPTH)
        return -1;
    switch (json_typeof(j)) {
    case JSON_OBJECT: {
        const char *k;
        json_t *v;
        int first = 1;
        db_put(b, "{", 1);
        /* jansson >= 2.8 iterates objects in insertion order (JSON_PRESERVE_ORDER is
         * implied), which is what keeps .zarray keys in the order we set them. */
        json_object_foreach((json_t *)j, k, v)
        {
            if (!first)
                db_put(b, ", ", 2);
            first = 0;
            dump_string(b, k, strlen(k));
            db_put(b, ": ", 2);
            if (dump_value(b, v, depth + 1) < 0)
                return -1;
        }
        db_put(b, "}", 1);
        break;
    }
    case JSON_ARRAY: {
        size_t i;
        db_put(b, "[", 1);
        for (i = 0; i < json_array_size(j); i++) {
            if (i)
                db_put(b, ",", 1);
            if (dump_value(b, json_array_get(j, i), depth + 1) < 0)
                return -1;
        }
        db_put(b, "]", 1);
        break;
    }
    case JSON_STRING:
        if (get_marked_u64(j, &u)) {
            snprintf(num, sizeof num, "%" PRIu64, u);
            db_puts(b, num);
        } else {
            dump_string(b, json_string_value(j), json_string_length(j));
        }
        break;
    case JSON_INTEGER:
        snprintf(num, sizeof num, "%" JSON_INTEGER_FORMAT, json_integer_value(j));
        db_puts(b, num);
        break;
    case JSON_REAL:
        format_real(json_real_value(j), num, sizeof num);
        db_puts(b, num);
        break;
    case JSON_TRUE:
        db_puts(b, "true");
        break;
    case JSON_FALSE:
        db_puts(b, "false");
        break;
    case JSON_NULL:
        db_puts(b, "null");
        break;
    default:
        return -1;
    }
    return 0;
}

char *ncztr_json_dump(const json_t *j)
{
    char *ret = NULL;
    dbuf b = {NULL, 0, 0, 0};

    if (!j)
        NCZ_GOTO(NULL, NCZ_E_ARGS, "no JSON value to dump");
    if (dump_value(&b, j, 0) < 0)
        NCZ_GOTO(NULL, NCZ_E_INTERNAL, "JSON value nested deeper than %d levels", DUMP_MAX_DEPTH);
    if (b.oom)
        NCZ_GOTO(NULL, NCZ_E_NOMEM, "out of memory dumping JSON");
    ret = b.p;
    b.p = NULL;
done:
    free(b.p);
    return ret;
}

/* ====================================================================================== */
/* Reals                                                                                  */
/* ====================================================================================== */

json_t *ncztr_json_real(double v, int single)
{
    if (isnan(v))
        return json_string("NaN");
    if (isinf(v))
        return json_string(v > 0 ? "Infinity" : "-Infinity");
    if (single && fabs(v) <= FLT_MAX) {
        /* The shortest decimal that reads back as this float, held as the double nearest
         * to it, so that the dump prints those few digits. Converting that double back to
         * float is checked too (double rounding), falling back to the exact widening. */
        float f = (float)v;
        char buf[48];
        int prec;
        for (prec = 6; prec <= 9; prec++) {
            double d;
            snprintf(buf, sizeof buf, "%.*g", prec, (double)f);
            d = strtod(buf, NULL);
            if (strtof(buf, NULL) == f && (float)d == f)
                return json_real(d);
        }
        return json_real((double)f);
    }
    return json_real(v);
}

/* ====================================================================================== */
/* Attributes                                                                             */
/* ====================================================================================== */

#define TEXT_DTYPE ">S1"

static void init_val(ncztr_attrval *v)
{
    v->type = H5I_INVALID_HID;
    v->space = H5I_INVALID_HID;
    v->nelem = 0;
    v->data = NULL;
}

void ncztr_attrval_clear(ncztr_attrval *val)
{
    hid_t errs;

    if (!val)
        return;
    /* Every HDF5 API call clears the default error stack on entry, and this runs in error
     * paths right after a message was pushed: keep the stack aside meanwhile. */
    errs = H5Eget_current_stack();
    if (val->data && val->type >= 0 && H5Tget_class(val->type) == H5T_STRING &&
        H5Tis_variable_str(val->type) > 0) {
        char **s = val->data;
        for (size_t i = 0; i < val->nelem; i++)
            free(s[i]);
    }
    free(val->data);
    if (val->type >= 0)
        H5Tclose(val->type);
    if (val->space >= 0)
        H5Sclose(val->space);
    init_val(val);
    if (errs >= 0)
        H5Eset_current_stack(errs);
}

herr_t ncztr_attrval_copy(const ncztr_attrval *src, ncztr_attrval *dst)
{
    herr_t ret = SUCCEED;
    ncztr_attrval v;
    size_t size;
    htri_t vl;

    init_val(&v);
    if (!src || !dst || src->type < 0 || src->space < 0)
        NCZ_GOTO(FAIL, NCZ_E_ARGS, "attribute value copy: invalid arguments");
    if ((v.type = H5Tcopy(src->type)) < 0 || (v.space = H5Scopy(src->space)) < 0)
        NCZ_GOTO(FAIL, NCZ_E_HDF5, "attribute value copy: cannot copy type or dataspace");
    vl = H5Tget_class(src->type) == H5T_STRING ? H5Tis_variable_str(src->type) : 0;
    if (vl < 0)
        NCZ_GOTO(FAIL, NCZ_E_HDF5, "attribute value copy: H5Tis_variable_str failed");
    size = vl ? sizeof(char *) : H5Tget_size(src->type);
    if (size == 0)
        NCZ_GOTO(FAIL, NCZ_E_HDF5, "attribute value copy: H5Tget_size failed");
    v.nelem = src->nelem;
    if (src->nelem && !src->data)
        NCZ_GOTO(FAIL, NCZ_E_ARGS, "attribute value copy: no data");
    if (!(v.data = calloc(src->nelem ? src->nelem : 1, size)))
        NCZ_GOTO(FAIL, NCZ_E_NOMEM, "out of memory copying an attribute value");
    if (vl) {
        char *const *s = src->data;
        char **d = v.data;
        for (size_t i = 0; i < src->nelem; i++)
            if (s[i] && !(d[i] = strdup(s[i])))
                NCZ_GOTO(FAIL, NCZ_E_NOMEM, "out of memory copying an attribute value");
    } else if (src->nelem) {
        memcpy(v.data, src->data, src->nelem * size);
    }
    *dst = v;
    init_val(&v);
done:
    ncztr_attrval_clear(&v);
    return ret;
}

/* Length of a fixed-size string element as text: up to the first NUL for NULLTERM/NULLPAD,
 * trailing blanks dropped for SPACEPAD (how HDF5 pads those). */
static size_t fixed_len(const char *s, size_t size, H5T_str_t pad)
{
    size_t n = strnlen(s, size);
    if (pad == H5T_STR_SPACEPAD)
        while (n > 0 && s[n - 1] == ' ')
            n--;
    return n;
}

/* Char text that is a JSON object or array is stored as that JSON (NCZarr's convention:
 * Zarr tools then see the structure), but only when every reader gets the same bytes back:
 * the connector and netCDF-C both print the value in one canonical spacing (see
 * ncztr_json_dump), so the text must be exactly that dump. Other spacing, escapes that
 * decode to something else, duplicate keys or reals in another notation would come back
 * changed, so such text stays a JSON string. So does text with a \u escape: netCDF-C's
 * JSON parser does not decode those. */
static json_t *text_as_json(const char *s, size_t n)
{
    json_error_t err;
    json_t *j;
    char *back;
    int same;

    if (n < 2 || (s[0] != '{' && s[0] != '[') || memmem(s, n, "\\u", 2))
        return NULL;
    if (!(j = parse_text(s, n, JSON_REJECT_DUPLICATES, &err)))
        return NULL;
    back = ncztr_json_dump(j);
    same = back && strlen(back) == n && !memcmp(back, s, n);
    free(back);
    if (!same) {
        json_decref(j);
        return NULL;
    }
    return j;
}

herr_t ncztr_attr_to_json(const char *name, const ncztr_attrval *val, json_t **value,
                          char dtype[NCZTR_DTYPE_MAX])
{
    herr_t ret = SUCCEED;
    json_t *out = NULL;
    json_t *item = NULL;
    H5T_class_t cls;
    char what[300];

    if (!name)
        name = "";
    snprintf(what, sizeof what, "attribute \"%s\"", name);
    if (!val || !value || !dtype || val->type < 0)
        NCZ_GOTO(FAIL, NCZ_E_ARGS, "%s: invalid arguments", what);
    *value = NULL;
    dtype[0] = '\0';
    if (ncztr_cattr_is_special(val->type))
        return ncztr_cattr_to_json(name, val, value, dtype);
    if (val->nelem && !val->data)
        NCZ_GOTO(FAIL, NCZ_E_ARGS, "%s: no data", what);
    if ((cls = H5Tget_class(val->type)) == H5T_NO_CLASS)
        NCZ_GOTO(FAIL, NCZ_E_ARGS, "%s: invalid datatype", what);

    if (cls == H5T_STRING) {
        htri_t vl = H5Tis_variable_str(val->type);
        if (vl < 0)
            NCZ_GOTO(FAIL, NCZ_E_HDF5, "%s: H5Tis_variable_str failed", what);
        if (vl) {
            char *const *s = val->data;
            size_t longest = 0;
            if (val->nelem != 1 && !(out = json_array()))
                NCZ_GOTO(FAIL, NCZ_E_NOMEM, "out of memory encoding %s", what);
            for (size_t i = 0; i < val->nelem; i++) {
                /* A NULL string pointer (never written) is stored as "". */
                const char *t = s[i] ? s[i] : "";
                size_t n = strlen(t);
                if (n > longest)
                    longest = n;
                if (!(item = json_stringn(t, n)))
                    NCZ_GOTO(FAIL, NCZ_E_NOTREPR, "%s: string value %zu is not valid UTF-8", what, i);
                if (val->nelem == 1) {
                    out = item;
                } else if (json_array_append_new(out, item) < 0) {
                    item = NULL;
                    NCZ_GOTO(FAIL, NCZ_E_NOMEM, "out of memory encoding %s", what);
                }
                item = NULL;
            }
            snprintf(dtype, NCZTR_DTYPE_MAX, "|S%zu",
                     longest > NCZTR_DEFAULT_MAXSTRLEN ? longest : (size_t)NCZTR_DEFAULT_MAXSTRLEN);
        } else {
            size_t size = H5Tget_size(val->type);
            H5T_str_t pad = H5Tget_strpad(val->type);
            const char *base = val->data;
            if (size == 0 || pad == H5T_STR_ERROR)
                NCZ_GOTO(FAIL, NCZ_E_HDF5, "%s: cannot query the string type", what);
            if (val->nelem == 1) {
                size_t n = fixed_len(base, size, pad);
                /* JSON or a string, both typed ">S1" as netCDF-C does ("|J0" on a user
                 * attribute makes netCDF-C refuse the whole store). */
                if (!(out = text_as_json(base, n)) && !(out = json_stringn(base, n)))
                    NCZ_GOTO(FAIL, NCZ_E_NOTREPR, "%s: text is not valid UTF-8", what);
                snprintf(dtype, NCZTR_DTYPE_MAX, TEXT_DTYPE);
            } else {
                if (!(out = json_array()))
                    NCZ_GOTO(FAIL, NCZ_E_NOMEM, "out of memory encoding %s", what);
                for (size_t i = 0; i < val->nelem; i++) {
                    const char *t = base + i * size;
                    if (!(item = json_stringn(t, fixed_len(t, size, pad))))
                        NCZ_GOTO(FAIL, NCZ_E_NOTREPR, "%s: string value %zu is not valid UTF-8", what, i);
                    if (json_array_append_new(out, item) < 0) {
                        item = NULL;
                        NCZ_GOTO(FAIL, NCZ_E_NOMEM, "out of memory encoding %s", what);
                    }
                    item = NULL;
                }
                /* "|S1" (not ">S1") marks an array of 1-byte strings rather than char text. */
                snprintf(dtype, NCZTR_DTYPE_MAX, "|S%zu", size);
            }
        }
    } else {
        ncztr_dtype dt;
        const unsigned char *base = val->data;
        if (ncztr_dtype_from_hdf5(val->type, 0, what, &dt) < 0)
            NCZ_GOTO_QUIET(FAIL);
        if (val->nelem != 1 && !(out = json_array()))
            NCZ_GOTO(FAIL, NCZ_E_NOMEM, "out of memory encoding %s", what);
        for (size_t i = 0; i < val->nelem; i++) {
            if (!(item = ncztr_json_from_elem(&dt, base + i * dt.size, what)))
                NCZ_GOTO_QUIET(FAIL);
            if (val->nelem == 1) {
                out = item;
            } else if (json_array_append_new(out, item) < 0) {
                item = NULL;
                NCZ_GOTO(FAIL, NCZ_E_NOMEM, "out of memory encoding %s", what);
            }
            item = NULL;
        }
        snprintf(dtype, NCZTR_DTYPE_MAX, "%s", dt.zarr);
    }
    *value = out;
    out = NULL;
done:
    json_decref(item);
    json_decref(out);
    if (ret < 0 && dtype)
        dtype[0] = '\0';
    return ret;
}

/* ---- decoding ------------------------------------------------------------------------ */

static int is_special_float(const json_t *j)
{
    const char *s;
    if (!json_is_string(j))
        return 0;
    s = json_string_value(j);
    return !strcmp(s, "NaN") || !strcmp(s, "Infinity") || !strcmp(s, "-Infinity");
}

/* A string that is text (not our uint64 marker). */
static int is_text(const json_t *j)
{
    return json_is_string(j) && !get_marked_u64(j, NULL);
}

static int is_number(const json_t *j)
{
    return json_is_integer(j) || json_is_real(j) || get_marked_u64(j, NULL);
}

/* Char text: a fixed string of its length (1 if empty), NULLTERM, scalar. */
static herr_t make_text(const char *what, const char *s, size_t n, ncztr_attrval *out)
{
    herr_t ret = SUCCEED;

    if ((out->type = H5Tcopy(H5T_C_S1)) < 0 || H5Tset_size(out->type, n ? n : 1) < 0)
        NCZ_GOTO(FAIL, NCZ_E_HDF5, "%s: cannot make a %zu-byte string type", what, n);
    if ((out->space = H5Screate(H5S_SCALAR)) < 0)
        NCZ_GOTO(FAIL, NCZ_E_HDF5, "%s: H5Screate failed", what);
    /* One spare byte keeps the buffer a C string for callers that want one. */
    if (!(out->data = calloc(n + 1, 1)))
        NCZ_GOTO(FAIL, NCZ_E_NOMEM, "out of memory decoding %s", what);
    memcpy(out->data, s, n);
    out->nelem = 1;
done:
    return ret;
}

/* Any JSON value as char text holding its dump. */
static herr_t make_json_text(const char *what, const json_t *value, ncztr_attrval *out)
{
    herr_t ret = SUCCEED;
    char *s = ncztr_json_dump(value);

    if (!s)
        NCZ_GOTO_QUIET(FAIL);
    ret = make_text(what, s, strlen(s), out);
done:
    free(s);
    return ret;
}

/* A JSON list is 1-D, anything else scalar; the empty list is an attribute without
 * elements, H5S_NULL (a zero-size 1-D shape comes back through "ashapes", see
 * ncztr_load.c). */
static hid_t make_space(const json_t *value, size_t n)
{
    hsize_t dim = n;
    if (!json_is_array(value))
        return H5Screate(H5S_SCALAR);
    return n ? H5Screate_simple(1, &dim, NULL) : H5Screate(H5S_NULL);
}

/* A JSON string or array of strings as variable-length strings. */
static herr_t make_vlen(const char *what, const json_t *value, ncztr_attrval *out)
{
    herr_t ret = SUCCEED;
    size_t n = json_is_array(value) ? json_array_size(value) : 1;
    char **s;

    if ((out->type = H5Tcopy(H5T_C_S1)) < 0 || H5Tset_size(out->type, H5T_VARIABLE) < 0)
        NCZ_GOTO(FAIL, NCZ_E_HDF5, "%s: cannot make a variable-length string type", what);
    if ((out->space = make_space(value, n)) < 0)
        NCZ_GOTO(FAIL, NCZ_E_HDF5, "%s: cannot make a dataspace", what);
    if (!(out->data = calloc(n ? n : 1, sizeof(char *))))
        NCZ_GOTO(FAIL, NCZ_E_NOMEM, "out of memory decoding %s", what);
    out->nelem = n;
    s = out->data;
    for (size_t i = 0; i < n; i++) {
        const json_t *e = json_is_array(value) ? json_array_get(value, i) : value;
        if (!(s[i] = strndup(json_string_value(e), json_string_length(e))))
            NCZ_GOTO(FAIL, NCZ_E_NOMEM, "out of memory decoding %s", what);
    }
done:
    return ret;
}

/* A number or array of numbers in dtype dt. */
static herr_t make_numeric(const char *what, const ncztr_dtype *dt, const json_t *value, ncztr_attrval *out)
{
    herr_t ret = SUCCEED;
    size_t n = json_is_array(value) ? json_array_size(value) : 1;
    unsigned char *p;

    if (json_is_object(value) || json_is_null(value))
        NCZ_GOTO(FAIL, NCZ_E_FORMAT, "%s: dtype \"%s\" needs a number or an array of numbers, not %s", what,
                 dt->zarr, json_is_null(value) ? "null" : "an object");
    if ((out->type = ncztr_dtype_to_hdf5(dt)) < 0)
        NCZ_GOTO_QUIET(FAIL);
    if ((out->space = make_space(value, n)) < 0)
        NCZ_GOTO(FAIL, NCZ_E_HDF5, "%s: cannot make a dataspace", what);
    if (!(out->data = calloc(n ? n : 1, dt->size)))
        NCZ_GOTO(FAIL, NCZ_E_NOMEM, "out of memory decoding %s", what);
    out->nelem = n;
    p = out->data;
    for (size_t i = 0; i < n; i++) {
        const json_t *e = json_is_array(value) ? json_array_get(value, i) : value;
        if (json_is_null(e))
            NCZ_GOTO(FAIL, NCZ_E_FORMAT, "%s: null element %zu in a numeric value (dtype \"%s\")", what, i,
                     dt->zarr);
        if (json_is_array(e) || json_is_object(e))
            NCZ_GOTO(FAIL, NCZ_E_FORMAT, "%s: nested %s at element %zu in a numeric value (dtype \"%s\")",
                     what, json_is_array(e) ? "array" : "object", i, dt->zarr);
        if (ncztr_json_to_elem(dt, e, what, p + i * dt->size) < 0)
            NCZ_GOTO_QUIET(FAIL);
    }
done:
    return ret;
}

/* The dtype for a value without one (pure Zarr): from the kinds of its elements, or NULL
 * when it must be char text holding its JSON. *vlen is set for strings. */
static const char *infer_dtype(const json_t *value, int *vlen)
{
    size_t n, i;
    int any_real = 0, any_big = 0, any_neg = 0, all_i32 = 1;
    const json_t *first;

    *vlen = 0;
    if (json_is_array(value)) {
        n = json_array_size(value);
        if (n == 0)
            return "<f8"; /* an empty list: no elements, typed as numpy types [] */
        first = json_array_get(value, 0);
    } else {
        n = 1;
        first = value;
    }
    if (is_text(first)) {
        /* A single string is char text (the caller handles it); arrays of strings only. */
        if (!json_is_array(value))
            return NULL;
        for (i = 0; i < n; i++)
            if (!is_text(json_array_get(value, i)))
                return NULL;
        *vlen = 1;
        return "|S128";
    }
    if (json_is_boolean(first)) {
        for (i = 0; i < n; i++)
            if (!json_is_boolean(json_is_array(value) ? json_array_get(value, i) : value))
                return NULL;
        return "|b1";
    }
    if (!is_number(first))
        return NULL;
    for (i = 0; i < n; i++) {
        const json_t *e = json_is_array(value) ? json_array_get(value, i) : value;
        if (json_is_integer(e)) {
            json_int_t v = json_integer_value(e);
            if (v < 0)
                any_neg = 1;
            if (v < INT32_MIN || v > INT32_MAX)
                all_i32 = 0;
        } else if (get_marked_u64(e, NULL)) {
            any_big = 1;
        } else if (json_is_real(e) || is_special_float(e)) {
            any_real = 1;
        } else {
            return NULL;
        }
    }
    /* uint64 above INT64_MAX next to negative values fits no integer type. */
    if (any_real || (any_big && any_neg))
        return "<f8";
    if (any_big)
        return "<u8";
    return all_i32 ? "<i4" : "<i8";
}

herr_t ncztr_attr_from_json(const char *name, json_t *value, const char *dtype, ncztr_attrval *out)
{
    herr_t ret = SUCCEED;
    char what[300];
    ncztr_attrval v;
    ncztr_dtype dt;

    init_val(&v);
    if (!name)
        name = "";
    snprintf(what, sizeof what, "attribute \"%s\"", name);
    if (!value || !out)
        NCZ_GOTO(FAIL, NCZ_E_ARGS, "%s: invalid arguments", what);
    init_val(out);

    if (!dtype) {
        int vlen;
        const char *inferred = infer_dtype(value, &vlen);
        if (is_text(value)) {
            ret = make_text(what, json_string_value(value), json_string_length(value), &v);
        } else if (!inferred) {
            ret = make_json_text(what, value, &v);
        } else if (vlen) {
            ret = make_vlen(what, value, &v);
        } else {
            if (ncztr_dtype_parse(inferred, what, &dt) < 0)
                NCZ_GOTO_QUIET(FAIL);
            ret = make_numeric(what, &dt, value, &v);
        }
    } else {
        /* "|J0" (JSON, any byte-order prefix): not a storage dtype, so handled first. */
        const char *k = dtype + (dtype[0] == '<' || dtype[0] == '>' || dtype[0] == '|' || dtype[0] == '=');
        if (!strcmp(k, "J0")) {
            if (is_text(value))
                ret = make_text(what, json_string_value(value), json_string_length(value), &v);
            else
                ret = make_json_text(what, value, &v);
        } else {
            if (ncztr_dtype_parse(dtype, what, &dt) < 0)
                NCZ_GOTO_QUIET(FAIL);
            if (dt.tclass == NCZTR_T_CHAR || dt.tclass == NCZTR_T_STRING) {
                int all_text = is_text(value);
                if (json_is_array(value)) {
                    all_text = 1;
                    for (size_t i = 0; i < json_array_size(value); i++)
                        if (!is_text(json_array_get(value, i)))
                            all_text = 0;
                }
                /* netCDF's ">S1" is always char text; "|Sn" values are strings, and "|S1"
                 * with an array is our own 1-byte string array. Other JSON shapes under a
                 * string dtype (netCDF-C 4.9.3 writes JSON-valued char attributes as ">S1")
                 * become char text holding the JSON. */
                if (dt.tclass == NCZTR_T_CHAR && dtype[0] == '>') {
                    if (is_text(value))
                        ret = make_text(what, json_string_value(value), json_string_length(value), &v);
                    else
                        ret = make_json_text(what, value, &v);
                } else if (dt.tclass == NCZTR_T_CHAR && is_text(value)) {
                    ret = make_text(what, json_string_value(value), json_string_length(value), &v);
                } else if (all_text) {
                    ret = make_vlen(what, value, &v);
                } else {
                    ret = make_json_text(what, value, &v);
                }
            } else {
                ret = make_numeric(what, &dt, value, &v);
            }
        }
    }
    if (ret < 0)
        NCZ_GOTO_QUIET(FAIL);
    *out = v;
    init_val(&v);
done:
    ncztr_attrval_clear(&v);
    return ret;
}
