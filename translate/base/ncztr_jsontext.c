/* The JSON text layer every translate/ folder uses: parsing (with uint64 literals jansson
 * cannot hold), dumping (netCDF-C spacing, shortest round-trip reals) and float <-> JSON.
 * Knows nothing of dtypes or HDF5 types. */
#include "ncztr_err.h"
#include "ncztr_jsontext.h"

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
 * safe private spelling for "the integer that follows" (see ncztr_jsontext.h). */
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
int ncztr_json_marked_u64(const json_t *j, uint64_t *v)
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
    return ncztr_json_marked_u64(j, v);
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
json_t *ncztr_json_parse_text(const char *text, size_t len, size_t flags, json_error_t *err)
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
    /* Without JSON_DECODE_ANY jansson accepts only an object or array at the top. A "\u0000"
     * in a string value is a NUL byte of a fixed-size string attribute (ncztr_attrjson.c). */
    if (!(j = ncztr_json_parse_text(text, len, JSON_ALLOW_NUL, &err))) {
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

typedef ncztr_jtext dbuf;

/* Room for n more bytes and the final '\0'; 0 when out of memory. */
static int db_room(dbuf *b, size_t n)
{
    if (b->oom)
        return 0;
    if (b->len + n + 1 <= b->cap)
        return 1;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->len + n + 1)
        cap *= 2;
    char *np = realloc(b->p, cap);
    if (!np) {
        b->oom = 1;
        return 0;
    }
    b->p = np;
    b->cap = cap;
    return 1;
}

/* The text is terminated once, at the end (ncztr_json_dump). */
static void db_put(dbuf *b, const char *s, size_t n)
{
    if (db_room(b, n)) {
        memcpy(b->p + b->len, s, n);
        b->len += n;
    }
}

static void db_puts(dbuf *b, const char *s)
{
    db_put(b, s, strlen(s));
}

/* Decimal digits of v, as snprintf's "%" PRIu64 would write them (by hand: a save writes
 * a few integers per object, and snprintf parses its format for each). */
static void db_u64(dbuf *b, uint64_t v, int negative)
{
    char d[24];
    size_t i = sizeof d;
    do {
        d[--i] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    if (negative)
        d[--i] = '-';
    db_put(b, d + i, sizeof d - i);
}

/* What each byte becomes in a JSON string: 0 itself, 1 "\u00XX", else the escape's
 * second character. */
/* clang-format off */
static const unsigned char str_escape[256] = {
    /* 0x00-0x1f: all \u00XX but the five with a short escape */
    1, 1, 1, 1, 1, 1, 1, 1, 'b', 't', 'n', 1, 'f', 'r', 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1,   1,   1,   1, 1,   1,   1, 1,
    ['"'] = '"', ['\\'] = '\\',
};
/* clang-format on */

static void dump_string(dbuf *b, const char *s, size_t n)
{
    size_t from = 0;
    static const char hex[] = "0123456789abcdef";

    db_put(b, "\"", 1);
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i], e = str_escape[c];
        if (!e)
            continue;
        db_put(b, s + from, i - from);
        if (e == 1) {
            char u[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15]};
            db_put(b, u, 6);
        } else {
            char x[2] = {'\\', (char)e};
            db_put(b, x, 2);
        }
        from = i + 1;
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
        if (ncztr_json_marked_u64(j, &u))
            db_u64(b, u, 0);
        else
            dump_string(b, json_string_value(j), json_string_length(j));
        break;
    case JSON_INTEGER: {
        json_int_t v = json_integer_value(j);
        /* the magnitude, INT64_MIN's too */
        db_u64(b, v < 0 ? (uint64_t)(-(v + 1)) + 1 : (uint64_t)v, v < 0);
        break;
    }
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

void ncztr_jtext_raw(ncztr_jtext *t, const char *s)
{
    db_puts(t, s);
}

void ncztr_jtext_str(ncztr_jtext *t, const char *s)
{
    dump_string(t, s, strlen(s));
}

void ncztr_jtext_u64(ncztr_jtext *t, uint64_t v)
{
    db_u64(t, v, 0);
}

int ncztr_jtext_value(ncztr_jtext *t, const json_t *j)
{
    return dump_value(t, j, 0);
}

char *ncztr_jtext_take(ncztr_jtext *t)
{
    char *ret = NULL;
    if (db_room(t, 0))
        t->p[t->len] = '\0';
    if (t->oom)
        NCZ_GOTO(NULL, NCZ_E_NOMEM, "out of memory writing JSON");
    ret = t->p;
    t->p = NULL;
done:
    free(t->p);
    *t = (ncztr_jtext)NCZTR_JTEXT_INIT;
    return ret;
}

char *ncztr_json_dump(const json_t *j)
{
    char *ret = NULL;
    ncztr_jtext t = NCZTR_JTEXT_INIT;

    if (!j)
        NCZ_GOTO(NULL, NCZ_E_ARGS, "no JSON value to dump");
    if (dump_value(&t, j, 0) < 0)
        NCZ_GOTO(NULL, NCZ_E_INTERNAL, "JSON value nested deeper than %d levels", DUMP_MAX_DEPTH);
    ret = ncztr_jtext_take(&t);
done:
    free(t.p);
    return ret;
}

/* Length of the UTF-8 sequence at s (and its code point), 0 when invalid. */
static size_t utf8_decode(const unsigned char *s, uint32_t *cp)
{
    size_t n;
    uint32_t v;
    if (s[0] < 0x80) {
        *cp = s[0];
        return 1;
    }
    if ((s[0] & 0xe0) == 0xc0)
        n = 2, v = s[0] & 0x1fu;
    else if ((s[0] & 0xf0) == 0xe0)
        n = 3, v = s[0] & 0x0fu;
    else if ((s[0] & 0xf8) == 0xf0)
        n = 4, v = s[0] & 0x07u;
    else
        return 0;
    for (size_t i = 1; i < n; i++) {
        if ((s[i] & 0xc0) != 0x80)
            return 0;
        v = (v << 6) | (s[i] & 0x3fu);
    }
    static const uint32_t min[] = {0, 0, 0x80, 0x800, 0x10000};
    if (v < min[n] || v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff))
        return 0;
    *cp = v;
    return n;
}

bool ncztr_utf8_valid(const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    while (*p) {
        uint32_t cp;
        size_t n = utf8_decode(p, &cp);
        if (n == 0)
            return false;
        p += n;
    }
    return true;
}

char *ncztr_json_ascii(const char *text)
{
    const unsigned char *s = (const unsigned char *)text;
    size_t len = strlen(text), extra = 0;
    /* Each character takes at most 12 bytes escaped (a surrogate pair) for at least one. */
    for (size_t i = 0; i < len; i++)
        if (s[i] >= 0x80)
            extra += 12;
    char *out = malloc(len + extra + 1);
    if (!out) {
        NCZ_PUSH(NCZ_E_NOMEM, "out of memory writing metadata as ASCII");
        return NULL;
    }
    char *w = out;
    for (size_t i = 0; i < len;) {
        uint32_t cp;
        size_t n = utf8_decode(s + i, &cp);
        if (n == 0) {
            free(out);
            NCZ_PUSH(NCZ_E_ARGS, "metadata text is not valid UTF-8 at byte %zu", i);
            return NULL;
        }
        if (cp < 0x80)
            *w++ = (char)cp;
        else if (cp < 0x10000)
            w += sprintf(w, "\\u%04x", (unsigned)cp);
        else {
            cp -= 0x10000;
            w += sprintf(w, "\\u%04x\\u%04x", 0xd800u + (cp >> 10), 0xdc00u + (cp & 0x3ffu));
        }
        i += n;
    }
    *w = '\0';
    return out;
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
