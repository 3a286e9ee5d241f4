/* Unit tests for translate/'s JSON half: dtypes, attribute values, fill values, .zarray,
 * and the JSON parse/dump layer, against hand-made cases and every sample store. */
#include "json_test_util.h"

#include <float.h>
#include <ftw.h>
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>

/* ======================================================================================= */
/* dtypes                                                                                  */
/* ======================================================================================= */

typedef struct dt_case {
    const char *text, *canon;
    ncztr_tclass tclass;
    size_t size;
    int big, is_bool;
    hid_t h5; /* expected HDF5 type for numbers (0 for strings) */
} dt_case;

static void test_dtype_parse(void)
{
    const dt_case ok[] = {
        {"|i1", "|i1", NCZTR_T_INT, 1, 0, 0, H5T_STD_I8LE},
        {"<i1", "<i1", NCZTR_T_INT, 1, 0, 0, H5T_STD_I8LE},
        {">i1", ">i1", NCZTR_T_INT, 1, 1, 0, H5T_STD_I8BE}, /* HDF5 keeps 1-byte orders apart */
        {"=i1", "|i1", NCZTR_T_INT, 1, 0, 0, H5T_STD_I8LE},
        {"|u1", "|u1", NCZTR_T_UINT, 1, 0, 0, H5T_STD_U8LE},
        {"<u1", "<u1", NCZTR_T_UINT, 1, 0, 0, H5T_STD_U8LE},
        {"|b1", "|b1", NCZTR_T_UINT, 1, 0, 1, H5T_STD_U8LE},
        {"<i2", "<i2", NCZTR_T_INT, 2, 0, 0, H5T_STD_I16LE},
        {">i2", ">i2", NCZTR_T_INT, 2, 1, 0, H5T_STD_I16BE},
        {"<u2", "<u2", NCZTR_T_UINT, 2, 0, 0, H5T_STD_U16LE},
        {">u2", ">u2", NCZTR_T_UINT, 2, 1, 0, H5T_STD_U16BE},
        {"<i4", "<i4", NCZTR_T_INT, 4, 0, 0, H5T_STD_I32LE},
        {">i4", ">i4", NCZTR_T_INT, 4, 1, 0, H5T_STD_I32BE},
        {"=i4", "<i4", NCZTR_T_INT, 4, 0, 0, H5T_STD_I32LE},
        {"i4", "<i4", NCZTR_T_INT, 4, 0, 0, H5T_STD_I32LE},
        {"<u4", "<u4", NCZTR_T_UINT, 4, 0, 0, H5T_STD_U32LE},
        {">u4", ">u4", NCZTR_T_UINT, 4, 1, 0, H5T_STD_U32BE},
        {"<i8", "<i8", NCZTR_T_INT, 8, 0, 0, H5T_STD_I64LE},
        {">i8", ">i8", NCZTR_T_INT, 8, 1, 0, H5T_STD_I64BE},
        {"<u8", "<u8", NCZTR_T_UINT, 8, 0, 0, H5T_STD_U64LE},
        {">u8", ">u8", NCZTR_T_UINT, 8, 1, 0, H5T_STD_U64BE},
        {"<f4", "<f4", NCZTR_T_FLOAT, 4, 0, 0, H5T_IEEE_F32LE},
        {">f4", ">f4", NCZTR_T_FLOAT, 4, 1, 0, H5T_IEEE_F32BE},
        {"<f8", "<f8", NCZTR_T_FLOAT, 8, 0, 0, H5T_IEEE_F64LE},
        {">f8", ">f8", NCZTR_T_FLOAT, 8, 1, 0, H5T_IEEE_F64BE},
        {"=f8", "<f8", NCZTR_T_FLOAT, 8, 0, 0, H5T_IEEE_F64LE},
        {">S1", ">S1", NCZTR_T_CHAR, 1, 0, 0, 0},
        {"|S1", "|S1", NCZTR_T_CHAR, 1, 0, 0, 0},
        {"<S1", "<S1", NCZTR_T_CHAR, 1, 0, 0, 0},
        {"|S128", "|S128", NCZTR_T_STRING, 128, 0, 0, 0},
        {"|S6", "|S6", NCZTR_T_STRING, 6, 0, 0, 0},
        {">S5", ">S5", NCZTR_T_STRING, 5, 0, 0, 0},
    };
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        const dt_case *c = &ok[i];
        ncztr_dtype dt;
        hid_t t;
        err_reset();
        if (ncztr_dtype_parse(c->text, "test", &dt) < 0) {
            CHECK(0, "dtype \"%s\" rejected: %s", c->text, err_text());
            continue;
        }
        CHECK(!strcmp(dt.zarr, c->canon), "dtype \"%s\": canonical \"%s\", want \"%s\"", c->text, dt.zarr,
              c->canon);
        CHECK(dt.tclass == c->tclass && dt.size == c->size && dt.big_endian == c->big &&
                  dt.is_bool == c->is_bool,
              "dtype \"%s\": class %d size %zu big %d bool %d", c->text, (int)dt.tclass, dt.size,
              dt.big_endian, dt.is_bool);
        t = ncztr_dtype_to_hdf5(&dt);
        CHECK(t >= 0, "dtype \"%s\": to_hdf5 failed", c->text);
        if (t < 0)
            continue;
        if (c->h5) {
            CHECK(H5Tequal(t, c->h5) > 0, "dtype \"%s\": wrong HDF5 type", c->text);
        } else {
            CHECK(H5Tget_class(t) == H5T_STRING && H5Tget_size(t) == c->size && H5Tis_variable_str(t) == 0,
                  "dtype \"%s\": not a %zu-byte fixed string", c->text, c->size);
            CHECK(H5Tget_strpad(t) == (c->size == 1 ? H5T_STR_NULLTERM : H5T_STR_NULLPAD),
                  "dtype \"%s\": padding", c->text);
        }
        /* And back: same class/size/order; 1-byte ints as "|i1"/"|u1" (">i1" when big-endian),
         * chars as ">S1". */
        {
            ncztr_dtype back;
            CHECK(ncztr_dtype_from_hdf5(t, 0, "test", &back) >= 0, "dtype \"%s\": from_hdf5 failed", c->text);
            CHECK(back.tclass == dt.tclass && back.size == dt.size && back.big_endian == dt.big_endian,
                  "dtype \"%s\": from_hdf5 gives \"%s\"", c->text, back.zarr);
            if (dt.size == 1 && dt.tclass == NCZTR_T_INT)
                CHECK(!strcmp(back.zarr, dt.big_endian ? ">i1" : "|i1"), "1-byte int back as \"%s\"",
                      back.zarr);
            if (dt.size == 1 && dt.tclass == NCZTR_T_UINT)
                CHECK(!strcmp(back.zarr, "|u1"), "1-byte uint back as \"%s\"", back.zarr);
            if (dt.tclass == NCZTR_T_CHAR)
                CHECK(!strcmp(back.zarr, ">S1"), "char back as \"%s\"", back.zarr);
            if (dt.tclass == NCZTR_T_STRING)
                CHECK(back.zarr[0] == '|' && !strcmp(back.zarr + 1, dt.zarr + 1), "string back as \"%s\"",
                      back.zarr);
        }
        H5Tclose(t);
    }

    /* Rejections: the message names the dtype (and the kind where we know it). */
    const struct {
        const char *text, *sub;
    } bad[] = {
        {"<c8", "complex"},   {"<c16", "complex"},      {"<M8[ns]", "datetime"},   {"<m8[s]", "timedelta"},
        {"<U5", "unicode"},   {"|O", "object"},         {"|V8", "void"},           {"<f2", "16-bit float"},
        {"<i3", "3-byte"},    {"|i4", "'<' or '>'"},    {"S0", "zero-length"},     {"|S0", "zero-length"},
        {"", "invalid"},      {"<", "invalid"},         {"x4", "invalid"},         {"<i4x", "invalid"},
        {"<S-1", "bad size"}, {"<i04", "bad size"},     {"<f16", "16-byte float"}, {"|b2", "bool"},
        {"<i16", "16-byte"},  {"|S99999999999", "too"}, {"<J0", "invalid"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        ncztr_dtype dt;
        char want[64];
        snprintf(want, sizeof want, "\"%s\"", bad[i].text);
        err_reset();
        CHECK_FAILS(ncztr_dtype_parse(bad[i].text, "t/.zarray", &dt) < 0, want, bad[i].sub);
    }
    err_reset();
    {
        ncztr_dtype dt;
        CHECK_FAILS(ncztr_dtype_parse(NULL, "t/.zarray", &dt) < 0, "t/.zarray", "missing dtype");
    }
}

static void test_dtype_from_hdf5(void)
{
    const struct {
        hid_t t;
        const char *zarr;
    } ok[] = {
        {H5T_NATIVE_SCHAR, "|i1"},  {H5T_NATIVE_UCHAR, "|u1"},  {H5T_NATIVE_SHORT, "<i2"},
        {H5T_NATIVE_USHORT, "<u2"}, {H5T_NATIVE_INT, "<i4"},    {H5T_NATIVE_UINT, "<u4"},
        {H5T_NATIVE_LLONG, "<i8"},  {H5T_NATIVE_ULLONG, "<u8"}, {H5T_NATIVE_FLOAT, "<f4"},
        {H5T_NATIVE_DOUBLE, "<f8"}, {H5T_STD_I16BE, ">i2"},     {H5T_STD_U64BE, ">u8"},
        {H5T_IEEE_F32BE, ">f4"},    {H5T_IEEE_F64BE, ">f8"},    {H5T_STD_I8BE, ">i1"},
        {H5T_C_S1, ">S1"},
    };
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        ncztr_dtype dt;
        err_reset();
        CHECK(ncztr_dtype_from_hdf5(ok[i].t, 0, "x", &dt) >= 0 && !strcmp(dt.zarr, ok[i].zarr),
              "from_hdf5 case %zu: got \"%s\", want \"%s\" (%s)", i, dt.zarr, ok[i].zarr, err_text());
        /* and back: the same HDF5 type, byte order of 1-byte numbers included */
        if (H5Tget_class(ok[i].t) != H5T_STRING) {
            hid_t back = ncztr_dtype_to_hdf5(&dt);
            CHECK(back >= 0 && H5Tequal(back, ok[i].t) > 0, "to_hdf5 case %zu (\"%s\") is another type", i,
                  dt.zarr);
            if (back >= 0)
                H5Tclose(back);
        }
    }
    /* Strings: fixed n -> "|Sn"; vlen -> "|S<maxstrlen>" (default 128). */
    {
        hid_t s = H5Tcopy(H5T_C_S1), v = H5Tcopy(H5T_C_S1);
        ncztr_dtype dt;
        H5Tset_size(s, 10);
        H5Tset_size(v, H5T_VARIABLE);
        CHECK(ncztr_dtype_from_hdf5(s, 0, "x", &dt) >= 0 && !strcmp(dt.zarr, "|S10") &&
                  dt.tclass == NCZTR_T_STRING && dt.size == 10,
              "fixed string -> \"%s\"", dt.zarr);
        CHECK(ncztr_dtype_from_hdf5(v, 0, "x", &dt) >= 0 && !strcmp(dt.zarr, "|S128") && dt.size == 128,
              "vlen string -> \"%s\"", dt.zarr);
        CHECK(ncztr_dtype_from_hdf5(v, 64, "x", &dt) >= 0 && !strcmp(dt.zarr, "|S64"),
              "vlen string(64) -> \"%s\"", dt.zarr);
        err_reset();
        CHECK_FAILS(ncztr_dtype_from_hdf5(v, 1, "var v", &dt) < 0, "var v", "too small");
        H5Tclose(s);
        H5Tclose(v);
    }
    /* Not representable: each message names the class. */
    {
        hid_t cmp = H5Tcreate(H5T_COMPOUND, 8);
        hid_t en = H5Tenum_create(H5T_NATIVE_INT);
        hsize_t adim = 3;
        hid_t arr = H5Tarray_create2(H5T_NATIVE_INT, 1, &adim);
        hid_t vl = H5Tvlen_create(H5T_NATIVE_INT);
        hid_t op = H5Tcreate(H5T_OPAQUE, 4);
        hid_t i3 = H5Tcopy(H5T_NATIVE_INT);
        int one = 1;
        H5Tinsert(cmp, "a", 0, H5T_NATIVE_INT);
        H5Tinsert(cmp, "b", 4, H5T_NATIVE_FLOAT);
        H5Tenum_insert(en, "one", &one);
        H5Tset_precision(i3, 24);
        H5Tset_size(i3, 3);
        const struct {
            hid_t t;
            const char *sub;
        } bad[] = {
            {cmp, "compound type is not representable in NCZarr"},
            {en, "enum type"},
            {arr, "array type"},
            {vl, "variable-length sequence type"},
            {op, "opaque type"},
            {H5T_STD_B8LE, "bitfield type"},
            {H5T_STD_REF, "reference type"},
            {H5T_NATIVE_LDOUBLE, "float type"},
            {i3, "3-byte integer"},
        };
        for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
            ncztr_dtype dt;
            err_reset();
            CHECK_FAILS(ncztr_dtype_from_hdf5(bad[i].t, 0, "dataset \"/d\"", &dt) < 0, bad[i].sub,
                        "dataset \"/d\"");
        }
        H5Tclose(cmp);
        H5Tclose(en);
        H5Tclose(arr);
        H5Tclose(vl);
        H5Tclose(op);
        H5Tclose(i3);
    }
}

/* ======================================================================================= */
/* JSON layer                                                                              */
/* ======================================================================================= */

static void check_dump(const char *in, const char *want)
{
    json_t *v = parse_value(in);
    char *s = v ? ncztr_json_dump(v) : NULL;
    CHECK(s && !strcmp(s, want), "dump of %s: got %s, want %s", in, s ? s : "(null)", want);
    free(s);
    json_decref(v);
}

static void test_json_layer(void)
{
    check_dump("1.0", "1.0");
    check_dump("0.1", "0.1");
    check_dump("-0.0", "-0.0");
    check_dump("1e300", "1e+300");
    check_dump("9.96921e+36", "9.96921e+36");
    check_dump("9.969209968386869e+36", "9.969209968386869e+36");
    check_dump("0.30000000000000004", "0.30000000000000004");
    check_dump("2.5", "2.5");
    check_dump("-9223372036854775808", "-9223372036854775808");
    check_dump("18446744073709551615", "18446744073709551615");
    check_dump("[9223372036854775808, -1, 18446744073709551614]",
               "[9223372036854775808,-1,18446744073709551614]");
    check_dump("{\"b\": 1, \"a\": [true, false, null], \"c\": {}}",
               "{\"b\": 1, \"a\": [true,false,null], \"c\": {}}");
    check_dump("\"q\\\"b\\\\s\\n\\t\\u0001\\u001f/\\u00e9\"", "\"q\\\"b\\\\s\\n\\t\\u0001\\u001f/\xc3\xa9\"");
    check_dump("\"18446744073709551615\"", "\"18446744073709551615\"");
    check_dump("[0, 7, -7, 9223372036854775807, -10]", "[0,7,-7,9223372036854775807,-10]");
    check_dump("\"\\b\\f\\r\\u0000\\u0010\\u007f~\"", "\"\\b\\f\\r\\u0000\\u0010\x7f~\"");
    {
        /* a text that outgrows the dump's first buffer, escapes at both ends */
        char in[1200], want[1200];
        size_t n = 0;
        in[n++] = '"';
        in[n++] = '\\';
        in[n++] = 't';
        for (int i = 0; i < 600; i++)
            in[n++] = (char)('a' + i % 26);
        in[n++] = '\\';
        in[n++] = '"';
        in[n++] = '"';
        in[n] = '\0';
        memcpy(want, in, n + 1);
        check_dump(in, want);
    }
    check_dump("[]", "[]");

    /* Big literals inside strings and keys are left alone. */
    {
        const char *t = "{\"18446744073709551615\": \"x 18446744073709551615 \\\" 18446744073709551615\"}";
        json_t *o = ncztr_json_parse_object("k", t, strlen(t));
        char *s = o ? ncztr_json_dump(o) : NULL;
        CHECK(s && !strcmp(s, t), "strings untouched: %s", s ? s : "(null)");
        free(s);
        json_decref(o);
    }
    /* uint64 helpers. */
    {
        json_t *a = ncztr_json_uint64(UINT64_MAX), *b = ncztr_json_uint64(5);
        uint64_t u = 0;
        CHECK(ncztr_json_get_uint64(a, &u) && u == UINT64_MAX, "uint64 max");
        CHECK(ncztr_json_get_uint64(b, &u) && u == 5 && json_is_integer(b), "uint64 small");
        json_decref(a);
        json_decref(b);
    }
    /* Errors name the key. */
    const struct {
        const char *text, *sub;
    } bad[] = {
        {"{\"a\": 1,", "invalid JSON"},
        {"[1, 2]", "must be an object"},
        {"", "empty"},
        {"{\"a\": -9223372036854775809}", "invalid JSON"},
        {"{\"a\": 18446744073709551616}", "invalid JSON"},
        {"{\"a\": 00018446744073709551614}", "invalid JSON"},
        {"nonsense", "invalid JSON"},
        /* a NUL in a key (one in a value is a fixed-size string's byte: see below) */
        {"{\"a\\u0000b\": 1}", "invalid JSON"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        err_reset();
        json_t *o = ncztr_json_parse_object("g/.zattrs", bad[i].text, strlen(bad[i].text));
        CHECK_FAILS(o == NULL, "g/.zattrs", bad[i].sub);
        json_decref(o);
    }
    {
        const char t[] = "{\"a\": \"x\\u0000y\"}";
        err_reset();
        json_t *o = ncztr_json_parse_object("g/.zattrs", t, sizeof t - 1);
        CHECK(o && json_string_length(json_object_get(o, "a")) == 3, "a NUL inside a string value is kept");
        json_decref(o);
    }
    {
        const char t[] = "{\"a\": 1}\0{}";
        err_reset();
        json_t *o = ncztr_json_parse_object("nul", t, sizeof t - 1);
        CHECK_FAILS(o == NULL, "nul", "invalid JSON");
        json_decref(o);
    }
    /* Float helper: shortest float text. */
    {
        json_t *f = ncztr_json_real(0.1f, 1), *n = ncztr_json_real(NAN, 0), *p = ncztr_json_real(INFINITY, 1),
               *m = ncztr_json_real(-INFINITY, 0);
        char *s = ncztr_json_dump(f);
        CHECK(s && !strcmp(s, "0.1"), "0.1f dumps as %s", s ? s : "(null)");
        CHECK((float)json_real_value(f) == 0.1f, "0.1f value");
        CHECK(json_is_string(n) && !strcmp(json_string_value(n), "NaN"), "NaN");
        CHECK(json_is_string(p) && !strcmp(json_string_value(p), "Infinity"), "Infinity");
        CHECK(json_is_string(m) && !strcmp(json_string_value(m), "-Infinity"), "-Infinity");
        free(s);
        json_decref(f);
        json_decref(n);
        json_decref(p);
        json_decref(m);
    }
}

/* ======================================================================================= */
/* attributes                                                                              */
/* ======================================================================================= */

static hid_t native_for(const ncztr_dtype *dt)
{
    if (dt->tclass == NCZTR_T_FLOAT)
        return dt->size == 4 ? H5T_NATIVE_FLOAT : H5T_NATIVE_DOUBLE;
    if (dt->tclass == NCZTR_T_INT)
        return dt->size == 1   ? H5T_NATIVE_INT8
               : dt->size == 2 ? H5T_NATIVE_INT16
               : dt->size == 4 ? H5T_NATIVE_INT32
                               : H5T_NATIVE_INT64;
    return dt->size == 1   ? H5T_NATIVE_UINT8
           : dt->size == 2 ? H5T_NATIVE_UINT16
           : dt->size == 4 ? H5T_NATIVE_UINT32
                           : H5T_NATIVE_UINT64;
}

/* Fills 4 native values of the dtype: extremes, zero, and for floats the specials. */
static void sample_values(const ncztr_dtype *dt, int set, unsigned char *buf)
{
    if (dt->tclass == NCZTR_T_FLOAT && dt->size == 4) {
        float a[2][4] = {{0.1f, -3.5f, FLT_MAX, NAN}, {INFINITY, -INFINITY, FLT_TRUE_MIN, -0.0f}};
        memcpy(buf, a[set], sizeof a[set]);
    } else if (dt->tclass == NCZTR_T_FLOAT) {
        double a[2][4] = {{0.1, -3.5, DBL_MAX, NAN}, {INFINITY, -INFINITY, DBL_TRUE_MIN, 1.0 / 3.0}};
        memcpy(buf, a[set], sizeof a[set]);
    } else {
        int bits = (int)(8 * dt->size);
        for (int i = 0; i < 4; i++) {
            uint64_t u;
            if (dt->tclass == NCZTR_T_INT) {
                int64_t mn = bits == 64 ? INT64_MIN : -((int64_t)1 << (bits - 1));
                int64_t mx = bits == 64 ? INT64_MAX : ((int64_t)1 << (bits - 1)) - 1;
                int64_t v[2][4] = {{mn, -1, 0, mx}, {1, 2, -2, 100}};
                u = (uint64_t)v[set][i];
            } else {
                uint64_t mx = bits == 64 ? UINT64_MAX : ((uint64_t)1 << bits) - 1;
                uint64_t v[2][4] = {{0, 1, 200, mx}, {mx - 1, (uint64_t)1 << (bits - 1), 7, 3}};
                u = v[set][i];
            }
            switch (dt->size) {
            case 1: {
                uint8_t x = (uint8_t)u;
                memcpy(buf + i, &x, 1);
                break;
            }
            case 2: {
                uint16_t x = (uint16_t)u;
                memcpy(buf + 2 * i, &x, 2);
                break;
            }
            case 4: {
                uint32_t x = (uint32_t)u;
                memcpy(buf + 4 * i, &x, 4);
                break;
            }
            default:
                memcpy(buf + 8 * i, &u, 8);
            }
        }
    }
}

/* Encodes val, dumps, parses the text back, decodes with the dtype, compares. */
static void roundtrip(const char *label, const ncztr_attrval *val, const char *want_dtype, int vlen_back)
{
    json_t *j = NULL, *back = NULL;
    char dtype[NCZTR_DTYPE_MAX];
    char *text = NULL;
    ncztr_attrval out = {H5I_INVALID_HID, H5I_INVALID_HID, 0, NULL, 0};

    err_reset();
    if (ncztr_attr_to_json("a", val, &j, dtype) < 0) {
        CHECK(0, "%s: encode failed: %s", label, err_text());
        return;
    }
    CHECK(!want_dtype || !strcmp(dtype, want_dtype), "%s: dtype \"%s\", want \"%s\"", label, dtype,
          want_dtype ? want_dtype : "");
    text = ncztr_json_dump(j);
    back = text ? parse_value(text) : NULL;
    CHECK(back != NULL, "%s: dump/parse failed", label);
    if (!back)
        goto done;
    if (ncztr_attr_from_json("a", back, dtype, &out) < 0) {
        CHECK(0, "%s: decode of %s (%s) failed: %s", label, text, dtype, err_text());
        goto done;
    }
    CHECK(out.nelem == val->nelem, "%s: nelem %zu vs %zu", label, out.nelem, val->nelem);
    CHECK(H5Sget_simple_extent_type(out.space) == (val->nelem == 1 ? H5S_SCALAR : H5S_SIMPLE),
          "%s: dataspace class", label);
    if (vlen_back) {
        CHECK(H5Tis_variable_str(out.type) > 0, "%s: not vlen strings back", label);
    } else {
        CHECK(H5Tequal(out.type, val->type) > 0, "%s: type differs", label);
        if (out.nelem == val->nelem && val->nelem)
            CHECK(!memcmp(out.data, val->data, val->nelem * H5Tget_size(val->type)), "%s: data differs (%s)",
                  label, text);
    }
done:
    ncztr_attrval_clear(&out);
    json_decref(back);
    json_decref(j);
    free(text);
}

static void test_attr_numeric(void)
{
    const char *dts[] = {"|i1", "|u1", "<i2", ">i2", "<u2", ">u2", "<i4", ">i4", "<u4",
                         ">u4", "<i8", ">i8", "<u8", ">u8", "<f4", ">f4", "<f8", ">f8"};
    for (size_t d = 0; d < sizeof dts / sizeof dts[0]; d++) {
        ncztr_dtype dt;
        unsigned char buf[32];
        if (ncztr_dtype_parse(dts[d], "t", &dt) < 0)
            continue;
        for (int set = 0; set < 2; set++) {
            hid_t type = ncztr_dtype_to_hdf5(&dt);
            hsize_t four = 4;
            sample_values(&dt, set, buf);
            /* Native values to the attribute's byte order. */
            H5Tconvert(native_for(&dt), type, 4, buf, NULL, H5P_DEFAULT);
            /* Array of 4. */
            {
                ncztr_attrval v = {type, H5Screate_simple(1, &four, NULL), 4, buf, 0};
                char label[64];
                snprintf(label, sizeof label, "%s set %d array", dts[d], set);
                roundtrip(label, &v, dts[d], 0);
                H5Sclose(v.space);
            }
            /* Each value as a scalar. */
            for (int i = 0; i < 4; i++) {
                ncztr_attrval v = {type, H5Screate(H5S_SCALAR), 1, buf + i * dt.size, 0};
                char label[64];
                snprintf(label, sizeof label, "%s set %d scalar %d", dts[d], set, i);
                roundtrip(label, &v, dts[d], 0);
                H5Sclose(v.space);
            }
            H5Tclose(type);
        }
    }
    /* Specific JSON for floats: shortest text, specials as strings. */
    {
        float f[4] = {0.1f, 1.5f, NAN, -INFINITY};
        hsize_t four = 4;
        ncztr_attrval v = {H5Tcopy(H5T_IEEE_F32LE), H5Screate_simple(1, &four, NULL), 4, f, 0};
        json_t *j = NULL;
        char dtype[NCZTR_DTYPE_MAX];
        char *s;
        CHECK(ncztr_attr_to_json("f", &v, &j, dtype) >= 0, "float attr");
        s = j ? ncztr_json_dump(j) : NULL;
        CHECK(s && !strcmp(s, "[0.1,1.5,\"NaN\",\"-Infinity\"]") && !strcmp(dtype, "<f4"),
              "float attr JSON %s %s", s ? s : "", dtype);
        free(s);
        json_decref(j);
        H5Tclose(v.type);
        H5Sclose(v.space);
    }
    /* uint64 above INT64_MAX: written as a bare integer. */
    {
        uint64_t u[2] = {UINT64_MAX - 1, 1};
        hsize_t two = 2;
        ncztr_attrval v = {H5Tcopy(H5T_STD_U64LE), H5Screate_simple(1, &two, NULL), 2, u, 0};
        json_t *j = NULL;
        char dtype[NCZTR_DTYPE_MAX];
        char *s;
        CHECK(ncztr_attr_to_json("u", &v, &j, dtype) >= 0, "u64 attr");
        s = j ? ncztr_json_dump(j) : NULL;
        CHECK(s && !strcmp(s, "[18446744073709551614,1]"), "u64 attr JSON %s", s ? s : "");
        free(s);
        json_decref(j);
        H5Tclose(v.type);
        H5Sclose(v.space);
    }
    /* Empty attribute: [] with the dtype, and back to 0 elements. */
    {
        hsize_t zero = 0;
        ncztr_attrval v = {H5Tcopy(H5T_STD_I32BE), H5Screate_simple(1, &zero, NULL), 0, NULL, 0};
        json_t *j = NULL;
        char dtype[NCZTR_DTYPE_MAX];
        ncztr_attrval out = {H5I_INVALID_HID, H5I_INVALID_HID, 0, NULL, 0};
        CHECK(ncztr_attr_to_json("e", &v, &j, dtype) >= 0 && json_is_array(j) && json_array_size(j) == 0 &&
                  !strcmp(dtype, ">i4"),
              "empty attr");
        CHECK(j && ncztr_attr_from_json("e", j, dtype, &out) >= 0 && out.nelem == 0 &&
                  H5Sget_simple_extent_npoints(out.space) == 0 && H5Tequal(out.type, H5T_STD_I32BE) > 0,
              "empty attr back");
        ncztr_attrval_clear(&out);
        json_decref(j);
        H5Tclose(v.type);
        H5Sclose(v.space);
    }
    /* Compound attributes are JSON objects (">S1"); a vlen string member is refused. */
    {
        hid_t cmp = H5Tcreate(H5T_COMPOUND, 4);
        int x = 7;
        H5Tinsert(cmp, "a", 0, H5T_NATIVE_INT);
        ncztr_attrval v = {cmp, H5Screate(H5S_SCALAR), 1, &x, 0};
        json_t *j = NULL;
        char dtype[NCZTR_DTYPE_MAX];
        err_reset();
        CHECK(ncztr_attr_to_json("cmp", &v, &j, dtype) == 0, "compound attribute encodes");
        char *txt = j ? ncztr_json_dump(j) : NULL;
        CHECK(txt && !strcmp(txt, "{\"a\": 7}") && !strcmp(dtype, ">S1"), "compound attribute JSON: %s %s",
              txt ? txt : "(null)", dtype);
        ncztr_attrval out;
        CHECK(j && ncztr_cattr_from_json("cmp", j, cmp, false, &out) == 0 && out.nelem == 1 &&
                  *(int *)out.data == 7 && H5Sget_simple_extent_type(out.space) == H5S_SCALAR,
              "compound attribute decodes");
        ncztr_attrval_clear(&out);
        free(txt);
        json_decref(j);
        H5Tclose(cmp);
        H5Sclose(v.space);
        hid_t vs = H5Tcopy(H5T_C_S1);
        H5Tset_size(vs, H5T_VARIABLE);
        cmp = H5Tcreate(H5T_COMPOUND, sizeof(char *));
        H5Tinsert(cmp, "s", 0, vs);
        char *sp = NULL;
        ncztr_attrval w = {cmp, H5Screate(H5S_SCALAR), 1, &sp, 0};
        err_reset();
        /* a NULL string in a compound: JSON null */
        CHECK(ncztr_attr_to_json("cmpv", &w, &j, dtype) == 0 && json_is_null(json_object_get(j, "s")),
              "a variable-length string member is JSON");
        json_decref(j);
        H5Tclose(cmp);
        H5Tclose(vs);
        H5Sclose(w.space);
    }
}

static ncztr_attrval make_fixed(const char *bytes, size_t size, size_t nelem, H5T_str_t pad, int scalar)
{
    hsize_t n = nelem;
    ncztr_attrval v;
    v.type = H5Tcopy(H5T_C_S1);
    H5Tset_size(v.type, size);
    H5Tset_strpad(v.type, pad);
    v.space = scalar ? H5Screate(H5S_SCALAR) : H5Screate_simple(1, &n, NULL);
    v.nelem = nelem;
    v.data = malloc(size * nelem + 1);
    memcpy(v.data, bytes, size * nelem);
    return v;
}

static ncztr_attrval make_vlen(const char **s, size_t n, int scalar)
{
    hsize_t dim = n;
    ncztr_attrval v;
    char **d = calloc(n ? n : 1, sizeof *d);
    for (size_t i = 0; i < n; i++)
        d[i] = s[i] ? strdup(s[i]) : NULL;
    v.type = H5Tcopy(H5T_C_S1);
    H5Tset_size(v.type, H5T_VARIABLE);
    v.space = scalar ? H5Screate(H5S_SCALAR) : H5Screate_simple(1, &dim, NULL);
    v.nelem = n;
    v.data = d;
    return v;
}

/* Encodes and returns the compact dump and dtype (caller frees). */
static char *encode(const char *name, const ncztr_attrval *v, char dtype[NCZTR_DTYPE_MAX])
{
    json_t *j = NULL;
    char *s = NULL;
    if (ncztr_attr_to_json(name, v, &j, dtype) >= 0)
        s = ncztr_json_dump(j);
    json_decref(j);
    return s;
}

/* Decodes the JSON text with dtype and checks it is char text equal to want. */
static void check_text_back(const char *label, const char *json, const char *dtype, const char *want)
{
    json_t *j = parse_value(json);
    ncztr_attrval out = {H5I_INVALID_HID, H5I_INVALID_HID, 0, NULL, 0};
    err_reset();
    if (!j || ncztr_attr_from_json("t", j, dtype, &out) < 0) {
        CHECK(0, "%s: decode failed: %s", label, err_text());
    } else {
        size_t size = H5Tget_size(out.type);
        CHECK(H5Tget_class(out.type) == H5T_STRING && H5Tis_variable_str(out.type) == 0 &&
                  H5Sget_simple_extent_type(out.space) == H5S_SCALAR && out.nelem == 1,
              "%s: not scalar char text", label);
        CHECK(size == (strlen(want) ? strlen(want) : 1) && !memcmp(out.data, want, strlen(want)) &&
                  H5Tget_strpad(out.type) == H5T_STR_NULLTERM,
              "%s: text \"%.*s\" (size %zu), want \"%s\"", label, (int)size, (char *)out.data, size, want);
    }
    ncztr_attrval_clear(&out);
    json_decref(j);
}

/* Decodes and checks vlen strings. */
static void check_vlen_back(const char *label, const char *json, const char *dtype, const char **want,
                            size_t n, int scalar)
{
    json_t *j = parse_value(json);
    ncztr_attrval out = {H5I_INVALID_HID, H5I_INVALID_HID, 0, NULL, 0};
    err_reset();
    if (!j || ncztr_attr_from_json("t", j, dtype, &out) < 0) {
        CHECK(0, "%s: decode failed: %s", label, err_text());
    } else {
        CHECK(H5Tis_variable_str(out.type) > 0 && out.nelem == n &&
                  H5Sget_simple_extent_type(out.space) == (scalar ? H5S_SCALAR
                                                           : n    ? H5S_SIMPLE
                                                                  : H5S_NULL),
              "%s: not %zu vlen strings", label, n);
        for (size_t i = 0; i < n && i < out.nelem; i++)
            CHECK(!strcmp(((char **)out.data)[i], want[i]), "%s: string %zu \"%s\"", label, i,
                  ((char **)out.data)[i]);
    }
    ncztr_attrval_clear(&out);
    json_decref(j);
}

static void test_attr_strings(void)
{
    char dtype[NCZTR_DTYPE_MAX];
    char *s;

    /* Char text. */
    {
        ncztr_attrval v = make_fixed("hello", 5, 1, H5T_STR_NULLTERM, 1);
        s = encode("c", &v, dtype);
        CHECK(s && !strcmp(s, "\"hello\"") && !strcmp(dtype, ">S1"), "char text: %s %s", s ? s : "", dtype);
        free(s);
        roundtrip("char text", &v, ">S1", 0);
        ncztr_attrval_clear(&v);
    }
    {
        ncztr_attrval v = make_fixed("ab\0\0", 4, 1, H5T_STR_NULLPAD, 1);
        s = encode("c", &v, dtype);
        CHECK(s && !strcmp(s, "\"ab\""), "nullpad text: %s", s ? s : "");
        free(s);
        ncztr_attrval_clear(&v);
        v = make_fixed("ab  ", 4, 1, H5T_STR_SPACEPAD, 1);
        s = encode("c", &v, dtype);
        CHECK(s && !strcmp(s, "\"ab\""), "spacepad text: %s", s ? s : "");
        free(s);
        ncztr_attrval_clear(&v);
        v = make_fixed("\0", 1, 1, H5T_STR_NULLTERM, 1);
        s = encode("c", &v, dtype);
        CHECK(s && !strcmp(s, "\"\"") && !strcmp(dtype, ">S1"), "empty text: %s", s ? s : "");
        free(s);
        roundtrip("empty text", &v, ">S1", 0);
        ncztr_attrval_clear(&v);
        v = make_fixed("caf\xc3\xa9 \"q\"\n", 10, 1, H5T_STR_NULLTERM, 1);
        roundtrip("utf-8 text", &v, ">S1", 0);
        ncztr_attrval_clear(&v);
    }
    check_text_back("char back", "\"hello\"", ">S1", "hello");
    check_text_back("empty back", "\"\"", ">S1", "");
    check_text_back("untyped text", "\"hello\"", NULL, "hello");
    /* JSON text exactly as the canonical dump prints it -> that JSON, typed ">S1" as
     * netCDF-C writes it; back as the same bytes. */
    {
        const char *t = "{\"a\": [1,2], \"b\": {\"c\": \"d\"}}";
        ncztr_attrval v = make_fixed(t, strlen(t), 1, H5T_STR_NULLTERM, 1);
        s = encode("j", &v, dtype);
        CHECK(s && !strcmp(s, t) && !strcmp(dtype, ">S1"), "json text: %s %s", s ? s : "", dtype);
        if (s)
            check_text_back("json text back", s, dtype, t);
        free(s);
        roundtrip("json text canonical", &v, ">S1", 0);
        ncztr_attrval_clear(&v);
        t = "[1,2,3]";
        v = make_fixed(t, strlen(t), 1, H5T_STR_NULLTERM, 1);
        s = encode("j", &v, dtype);
        CHECK(s && !strcmp(s, "[1,2,3]") && !strcmp(dtype, ">S1"), "json array text: %s %s", s ? s : "",
              dtype);
        free(s);
        roundtrip("json array text", &v, ">S1", 0);
        ncztr_attrval_clear(&v);
        /* Not JSON, JSON that would lose data, or JSON in any other spelling than the
         * canonical one (it would come back re-spaced): stays a string, byte for byte. */
        const char *notjson[] = {"[1,2",
                                 "{\"a\":1,\"a\":2}",
                                 "123",
                                 "true",
                                 "\"q\"",
                                 "[1] x",
                                 "null",
                                 "{\"looks\":\"like json\",\"n\":3}",
                                 "{\"a\": [1, 2], \"b\": {\"c\": \"d\"}}",
                                 "[1, 2]",
                                 " [1,2] ",
                                 "[1,2] ",
                                 "[1e5]",
                                 "[1.50]",
                                 "[\"\\u00e9\"]",
                                 "[\"\\u0001\"]",
                                 "[\"a\\/b\"]",
                                 "[-0]",
                                 "{}x"};
        for (size_t i = 0; i < sizeof notjson / sizeof notjson[0]; i++) {
            v = make_fixed(notjson[i], strlen(notjson[i]), 1, H5T_STR_NULLTERM, 1);
            s = encode("j", &v, dtype);
            json_t *pv = s ? parse_value(s) : NULL;
            CHECK(json_is_string(pv) && !strcmp(dtype, ">S1"), "not JSON %s: %s %s", notjson[i], s ? s : "",
                  dtype);
            json_decref(pv);
            roundtrip("not json", &v, ">S1", 0);
            free(s);
            ncztr_attrval_clear(&v);
        }
    }
    /* netCDF-C 4.9.3 wrote JSON-valued char attributes typed ">S1"; "|J0" and untyped too. */
    check_text_back("netcdf >S1 json", "{\"key1\": [1,2,3], \"key2\": {\"key3\": \"abc\"}}", ">S1",
                    "{\"key1\": [1,2,3], \"key2\": {\"key3\": \"abc\"}}");
    check_text_back("nested arrays", "[[1.0,0.0],[0.0,1.0]]", ">S1", "[[1.0,0.0],[0.0,1.0]]");
    check_text_back("|J0 object", "{\"version\": \"2.0.0\"}", "|J0", "{\"version\": \"2.0.0\"}");
    check_text_back("|J0 string", "\"abc\"", "|J0", "abc");
    check_text_back("untyped object", "{\"a\": 1, \"b\": [true,false]}", NULL,
                    "{\"a\": 1, \"b\": [true,false]}");
    check_text_back("untyped null", "null", NULL, "null");
    check_text_back("|J0 empty list", "[]", "|J0", "[]");
    check_text_back(">S1 empty list", "[]", ">S1", "[]");
    check_text_back("untyped mixed", "[1, \"a\"]", NULL, "[1,\"a\"]");
    check_text_back("untyped nested", "[[1], [2]]", NULL, "[[1],[2]]");
    check_text_back("|S128 with numbers", "[1, 2]", "|S128", "[1,2]");
    /* Invalid UTF-8 cannot be JSON. */
    {
        ncztr_attrval v = make_fixed("\xff\xfe", 2, 1, H5T_STR_NULLTERM, 1);
        json_t *j = NULL;
        err_reset();
        CHECK_FAILS(ncztr_attr_to_json("latin", &v, &j, dtype) < 0, "attribute \"latin\"", "UTF-8");
        ncztr_attrval_clear(&v);
    }

    /* Fixed-string arrays: "|S<size>" arrays of strings, back as vlen strings. */
    {
        ncztr_attrval v = make_fixed("ab\0\0cdefg\0\0\0", 4, 3, H5T_STR_NULLPAD, 0);
        const char *want[] = {"ab", "cdef", "g"};
        s = encode("fs", &v, dtype);
        CHECK(s && !strcmp(s, "[\"ab\",\"cdef\",\"g\"]") && !strcmp(dtype, "|S4"), "fixed array: %s %s",
              s ? s : "", dtype);
        if (s)
            check_vlen_back("fixed array back", s, dtype, want, 3, 0);
        free(s);
        ncztr_attrval_clear(&v);
        v = make_fixed("xy", 1, 2, H5T_STR_NULLTERM, 0);
        s = encode("fs1", &v, dtype);
        CHECK(s && !strcmp(s, "[\"x\",\"y\"]") && !strcmp(dtype, "|S1"), "1-byte array: %s %s", s ? s : "",
              dtype);
        const char *want1[] = {"x", "y"};
        if (s)
            check_vlen_back("1-byte array back", s, dtype, want1, 2, 0);
        free(s);
        ncztr_attrval_clear(&v);
    }

    /* Variable-length strings. */
    {
        const char *one[] = {"only"};
        ncztr_attrval v = make_vlen(one, 1, 1);
        s = encode("vs", &v, dtype);
        CHECK(s && !strcmp(s, "\"only\"") && !strcmp(dtype, "|S128"), "vlen scalar: %s %s", s ? s : "",
              dtype);
        free(s);
        roundtrip("vlen scalar", &v, "|S128", 1);
        check_vlen_back("vlen scalar back", "\"only\"", "|S128", one, 1, 1);
        ncztr_attrval_clear(&v);

        const char *three[] = {"created by ncgen", NULL, "caf\xc3\xa9"};
        const char *three_back[] = {"created by ncgen", "", "caf\xc3\xa9"};
        v = make_vlen(three, 3, 0);
        s = encode("vs", &v, dtype);
        CHECK(s && !strcmp(s, "[\"created by ncgen\",\"\",\"caf\xc3\xa9\"]") && !strcmp(dtype, "|S128"),
              "vlen array: %s %s", s ? s : "", dtype);
        if (s)
            check_vlen_back("vlen array back", s, dtype, three_back, 3, 0);
        free(s);
        ncztr_attrval_clear(&v);

        char longs[201];
        memset(longs, 'x', 200);
        longs[200] = '\0';
        const char *lp[] = {"a", longs};
        v = make_vlen(lp, 2, 0);
        s = encode("vs", &v, dtype);
        CHECK(s && !strcmp(dtype, "|S200"), "long vlen dtype %s", dtype);
        free(s);
        ncztr_attrval_clear(&v);

        v = make_vlen(NULL, 0, 0);
        s = encode("vs", &v, dtype);
        CHECK(s && !strcmp(s, "[]") && !strcmp(dtype, "|S128"), "empty vlen: %s %s", s ? s : "", dtype);
        if (s)
            check_vlen_back("empty vlen back", s, dtype, NULL, 0, 0);
        free(s);
        ncztr_attrval_clear(&v);

        const char *bad[] = {"ok", "\xc3"};
        v = make_vlen(bad, 2, 0);
        json_t *j = NULL;
        err_reset();
        CHECK_FAILS(ncztr_attr_to_json("vbad", &v, &j, dtype) < 0, "attribute \"vbad\"", "UTF-8");
        ncztr_attrval_clear(&v);
    }
    {
        const char *w[] = {"time", "x"};
        check_vlen_back("untyped string array", "[\"time\", \"x\"]", NULL, w, 2, 0);
        check_vlen_back("|S1 string array", "[\"time\", \"x\"]", "|S1", w, 2, 0);
        /* ">S1" is always char text, even for an array. */
        check_text_back(">S1 array", "[\"time\", \"x\"]", ">S1", "[\"time\",\"x\"]");
    }
    /* Copy. */
    {
        const char *two[] = {"a", "bc"};
        ncztr_attrval v = make_vlen(two, 2, 0), c = {H5I_INVALID_HID, H5I_INVALID_HID, 0, NULL, 0};
        CHECK(ncztr_attrval_copy(&v, &c) >= 0 && c.nelem == 2 &&
                  ((char **)c.data)[0] != ((char **)v.data)[0] && !strcmp(((char **)c.data)[1], "bc") &&
                  H5Tis_variable_str(c.type) > 0,
              "vlen copy");
        ncztr_attrval_clear(&c);
        ncztr_attrval_clear(&v);
        int32_t x[3] = {1, 2, 3};
        hsize_t three = 3;
        ncztr_attrval n = {H5Tcopy(H5T_NATIVE_INT32), H5Screate_simple(1, &three, NULL), 3, x, 0};
        CHECK(ncztr_attrval_copy(&n, &c) >= 0 && c.nelem == 3 && c.data != (void *)x &&
                  !memcmp(c.data, x, 12) && H5Sget_simple_extent_npoints(c.space) == 3,
              "numeric copy");
        ncztr_attrval_clear(&c);
        H5Tclose(n.type);
        H5Sclose(n.space);
        ncztr_attrval_clear(&c); /* clearing twice is harmless */
    }
}

/* Decodes JSON text with dtype and checks the HDF5 type, element count and values as
 * doubles (via conversion to native double). */
static void check_num_back(const char *label, const char *json, const char *dtype, hid_t want_type, size_t n,
                           const double *want, int scalar)
{
    json_t *j = parse_value(json);
    ncztr_attrval out = {H5I_INVALID_HID, H5I_INVALID_HID, 0, NULL, 0};
    err_reset();
    if (!j || ncztr_attr_from_json("n", j, dtype, &out) < 0) {
        CHECK(0, "%s: decode failed: %s", label, err_text());
    } else {
        CHECK(H5Tequal(out.type, want_type) > 0, "%s: wrong type", label);
        CHECK(out.nelem == n && H5Sget_simple_extent_type(out.space) == (scalar ? H5S_SCALAR : H5S_SIMPLE),
              "%s: %zu elements", label, out.nelem);
        if (out.nelem == n && n) {
            double *d = malloc(n * 8 > H5Tget_size(out.type) * n ? n * 8 : H5Tget_size(out.type) * n);
            memcpy(d, out.data, n * H5Tget_size(out.type));
            H5Tconvert(out.type, H5T_NATIVE_DOUBLE, n, d, NULL, H5P_DEFAULT);
            for (size_t i = 0; i < n; i++)
                CHECK(d[i] == want[i] || (isnan(d[i]) && isnan(want[i])), "%s: value %zu = %.17g, want %.17g",
                      label, i, d[i], want[i]);
            free(d);
        }
    }
    ncztr_attrval_clear(&out);
    json_decref(j);
}

static void test_attr_infer_and_errors(void)
{
    double v7 = 7, big = 3000000000.0, v123[] = {1, 2, 3}, mixed[] = {1, 2.5}, pi = 3.25, one = 1,
           bools[] = {1, 0}, nan_mix[] = {1.5, NAN, INFINITY};
    check_num_back("infer int", "7", NULL, H5T_STD_I32LE, 1, &v7, 1);
    check_num_back("infer int64", "3000000000", NULL, H5T_STD_I64LE, 1, &big, 1);
    check_num_back("infer int array", "[1, 2, 3]", NULL, H5T_STD_I32LE, 3, v123, 0);
    check_num_back("infer mixed", "[1, 2.5]", NULL, H5T_IEEE_F64LE, 2, mixed, 0);
    check_num_back("infer real", "3.25", NULL, H5T_IEEE_F64LE, 1, &pi, 1);
    check_num_back("infer bool", "true", NULL, H5T_STD_U8LE, 1, &one, 1);
    check_num_back("infer bools", "[true, false]", NULL, H5T_STD_U8LE, 2, bools, 0);
    check_num_back("infer specials", "[1.5, \"NaN\", \"Infinity\"]", NULL, H5T_IEEE_F64LE, 3, nan_mix, 0);
    {
        double u = 18446744073709551615.0, m[] = {-1, 18446744073709551615.0};
        check_num_back("infer u64", "18446744073709551615", NULL, H5T_STD_U64LE, 1, &u, 1);
        check_num_back("infer u64 + negative", "[-1, 18446744073709551615]", NULL, H5T_IEEE_F64LE, 2, m, 0);
    }
    /* Typed values, including leniency (integers for floats, integral reals for ints). */
    {
        double a[] = {200}, b[] = {1.5, 2.5, 3.5}, c[] = {1, 2}, f[] = {-999}, s[] = {NAN, -INFINITY},
               u8[] = {18446744073709551614.0}, i8[] = {-9223372036854775806.0};
        check_num_back("f4 from int", "200", "<f4", H5T_IEEE_F32LE, 1, a, 1);
        check_num_back("f8 array", "[1.5,2.5,3.5]", ">f8", H5T_IEEE_F64BE, 3, b, 0);
        check_num_back("i1 array", "[1,2]", "<i1", H5T_STD_I8LE, 2, c, 0);
        check_num_back("i4 from 1.0", "[1.0, 2.0]", "<i4", H5T_STD_I32LE, 2, c, 0);
        check_num_back("f4 -999", "-999", "<f4", H5T_IEEE_F32LE, 1, f, 1);
        check_num_back("f4 specials", "[\"NaN\", \"-Infinity\"]", "<f4", H5T_IEEE_F32LE, 2, s, 0);
        check_num_back("u8 big", "18446744073709551614", "<u8", H5T_STD_U64LE, 1, u8, 1);
        check_num_back("i8 min", "-9223372036854775806", ">i8", H5T_STD_I64BE, 1, i8, 1);
        check_num_back("bool typed", "[true, false]", "|b1", H5T_STD_U8LE, 2, bools, 0);
        /* Exact uint64 and int64 values, compared bitwise. */
        json_t *j = parse_value("[18446744073709551615, 0, 9223372036854775808]");
        ncztr_attrval out = {H5I_INVALID_HID, H5I_INVALID_HID, 0, NULL, 0};
        CHECK(j && ncztr_attr_from_json("u", j, ">u8", &out) >= 0 && out.nelem == 3, "u8 exact");
        if (out.nelem == 3) {
            uint64_t w[3] = {UINT64_MAX, 0, (uint64_t)1 << 63};
            H5Tconvert(out.type, H5T_NATIVE_UINT64, 3, out.data, NULL, H5P_DEFAULT);
            CHECK(!memcmp(out.data, w, sizeof w), "u8 exact values");
        }
        ncztr_attrval_clear(&out);
        json_decref(j);
    }
    /* Errors name the attribute. */
    const struct {
        const char *json, *dtype, *sub;
    } bad[] = {
        {"200", "<i1", "out of range"},
        {"-129", "|i1", "out of range"},
        {"256", "|u1", "out of range"},
        {"-1", "<u1", "out of range"},
        {"-1", "<u8", "out of range"},
        {"[1, 70000]", "<i2", "out of range"},
        {"4294967296", ">u4", "out of range"},
        {"18446744073709551615", "<i8", "out of range"},
        {"[1, null]", "<i4", "null element 1"},
        {"null", "<f8", "not null"},
        {"1e39", "<f4", "out of range"},
        {"[1, -1e39]", ">f4", "out of range"},
        {"\"abc\"", "<i4", "not an integer"},
        {"\"abc\"", "<f4", "not a number"},
        {"1.5", "<i4", "not an integer"},
        {"1e20", "<i8", "out of range"},
        {"{\"a\": 1}", "<i4", "an object"},
        {"[[1]]", "<i4", "nested array"},
        {"1", "<c8", "\"<c8\""},
        {"1", "<U5", "unicode"},
        {"1", "bogus", "\"bogus\""},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        json_t *j = parse_value(bad[i].json);
        ncztr_attrval out = {H5I_INVALID_HID, H5I_INVALID_HID, 0, NULL, 0};
        err_reset();
        CHECK(j != NULL, "bad case %zu parses", i);
        CHECK_FAILS(j && ncztr_attr_from_json("bad_attr", j, bad[i].dtype, &out) < 0,
                    "attribute \"bad_attr\"", bad[i].sub);
        CHECK(out.type < 0 && out.data == NULL, "bad case %zu leaves out empty", i);
        json_decref(j);
    }
    /* The smallest value of each type is fine. */
    {
        double m1[] = {-128}, m2[] = {-32768}, m4[] = {-2147483648.0}, f4max[] = {(double)FLT_MAX};
        check_num_back("i1 min", "-128", "|i1", H5T_STD_I8LE, 1, m1, 1);
        check_num_back("i2 min", "-32768", "<i2", H5T_STD_I16LE, 1, m2, 1);
        check_num_back("i4 min", "-2147483648", ">i4", H5T_STD_I32BE, 1, m4, 1);
        check_num_back("f4 max as %.9g", "3.40282347e+38", "<f4", H5T_IEEE_F32LE, 1, f4max, 1);
    }
}

/* JSON equality up to what the convention cannot keep: numbers compare by value (an
 * integer -999 read as "<f4" comes back as -999.0), booleans read as uint8 come back as
 * 0/1, and a 1-element array comes back as its element. */
static int loose_equal(const json_t *a, const json_t *b)
{
    if (json_is_array(a) && json_array_size(a) == 1 && !json_is_array(b))
        return loose_equal(json_array_get(a, 0), b);
    if (json_is_boolean(a) && json_is_integer(b))
        return json_integer_value(b) == (json_is_true(a) ? 1 : 0);
    if (json_is_number(a) && json_is_number(b))
        return json_number_value(a) == json_number_value(b);
    if (json_is_array(a) && json_is_array(b)) {
        if (json_array_size(a) != json_array_size(b))
            return 0;
        for (size_t i = 0; i < json_array_size(a); i++)
            if (!loose_equal(json_array_get(a, i), json_array_get(b, i)))
                return 0;
        return 1;
    }
    return json_equal(a, b);
}

/* Decodes every attribute of every .zattrs under the samples (with the types listed in
 * _nczarr_attr when present), re-encodes it, and checks the dtype and value survive. */
static int g_zattrs_files, g_zattrs_attrs;

static void check_zattrs_file(const char *path)
{
    size_t len = 0;
    char *text = read_file(path, &len);
    json_t *root, *types = NULL, *v;
    const char *k;

    CHECK(text != NULL, "cannot read %s", path);
    if (!text)
        return;
    err_reset();
    root = ncztr_json_parse_object(path, text, len);
    CHECK(root != NULL, "%s: %s", path, err_text());
    free(text);
    if (!root)
        return;
    g_zattrs_files++;
    types = json_object_get(json_object_get(root, "_nczarr_attr"), "types");
    json_object_foreach(root, k, v)
    {
        const char *dtype = json_string_value(json_object_get(types, k));
        ncztr_attrval a = {H5I_INVALID_HID, H5I_INVALID_HID, 0, NULL, 0};
        json_t *again = NULL;
        char dt2[NCZTR_DTYPE_MAX];
        err_reset();
        if (ncztr_attr_from_json(k, v, dtype, &a) < 0) {
            CHECK(0, "%s: attribute %s: %s", path, k, err_text());
            continue;
        }
        g_zattrs_attrs++;
        if (ncztr_attr_to_json(k, &a, &again, dt2) < 0) {
            CHECK(0, "%s: re-encoding %s: %s", path, k, err_text());
        } else {
            /* The same JSON value; the dtype the same up to "<i1" vs "|i1" spelling and,
             * for untyped values, the inferred type. */
            CHECK(dtype ? (json_equal(again, v) || (json_is_array(v) && json_array_size(v) == 1) ||
                           (json_is_integer(v) && json_is_real(again) && loose_equal(v, again)))
                        : loose_equal(v, again),
                  "%s: %s changed value", path, k);
            if (dtype) {
                ncztr_dtype d1, d2;
                /* JSON (NCZarr's own keys, JSON-valued char text) comes back typed ">S1" */
                if (!strcmp(dtype, "|J0") || !strcmp(dt2, "|J0"))
                    CHECK(!strcmp(dtype, dt2) || (!strcmp(dtype, "|J0") && !strcmp(dt2, ">S1")),
                          "%s: %s dtype %s -> %s", path, k, dtype, dt2);
                else
                    CHECK(ncztr_dtype_parse(dtype, "t", &d1) >= 0 && ncztr_dtype_parse(dt2, "t", &d2) >= 0 &&
                              d1.tclass == d2.tclass && d1.size == d2.size && d1.big_endian == d2.big_endian,
                          "%s: %s dtype %s -> %s", path, k, dtype, dt2);
            }
        }
        json_decref(again);
        ncztr_attrval_clear(&a);
    }
    json_decref(root);
}

/* nftw callbacks cannot take a context pointer: collect paths first. */
static void test_samples_zattrs(void)
{
    collect_files(".zattrs");
    CHECK(g_npaths >= 40, "found %d .zattrs files under %s", g_npaths, NCZ_SAMPLES_DIR);
    for (int i = 0; i < g_npaths; i++)
        check_zattrs_file(g_paths[i]);
    free_paths();
    CHECK(g_zattrs_files >= 40 && g_zattrs_attrs >= 100, "decoded %d attributes in %d files", g_zattrs_attrs,
          g_zattrs_files);

    /* Spot checks on the root of the NCZarr sample. */
    {
        size_t len;
        char *text = read_file(NCZ_SAMPLES_DIR "/netcdf-c-4.9.3/sample.nczarr.file/.zattrs", &len);
        json_t *root = text ? ncztr_json_parse_object("root", text, len) : NULL;
        json_t *types = json_object_get(json_object_get(root, "_nczarr_attr"), "types");
        free(text);
        CHECK(root != NULL, "sample root .zattrs");
        if (!root)
            return;
#define TYPED(k) json_object_get(root, k), json_string_value(json_object_get(types, k))
        {
            const char *want[] = {"created by ncgen", "second line"};
            double version = 3, coeffs[] = {1.5, 2.5, 3.5}, flags[] = {1, 2};
            char *h = ncztr_json_dump(json_object_get(root, "history"));
            check_vlen_back("history", h, "|S128", want, 2, 0);
            free(h);
            json_t *j;
            ncztr_attrval a = {H5I_INVALID_HID, H5I_INVALID_HID, 0, NULL, 0};
            CHECK(ncztr_attr_from_json("title", TYPED("title"), &a) >= 0 && a.nelem == 1 &&
                      H5Tget_size(a.type) == 13 && !memcmp(a.data, "NCZarr sample", 13),
                  "title");
            ncztr_attrval_clear(&a);
            CHECK(ncztr_attr_from_json("version", TYPED("version"), &a) >= 0 &&
                      H5Tequal(a.type, H5T_STD_I32LE) > 0 && *(int32_t *)a.data == (int32_t)version,
                  "version");
            ncztr_attrval_clear(&a);
            j = json_object_get(root, "coeffs");
            CHECK(ncztr_attr_from_json("coeffs", j, "<f8", &a) >= 0 && a.nelem == 3 &&
                      !memcmp(a.data, coeffs, sizeof coeffs),
                  "coeffs");
            ncztr_attrval_clear(&a);
            CHECK(ncztr_attr_from_json("flags", TYPED("flags"), &a) >= 0 && a.nelem == 2 &&
                      H5Tequal(a.type, H5T_STD_I8LE) > 0 && ((int8_t *)a.data)[1] == (int8_t)flags[1],
                  "flags");
            ncztr_attrval_clear(&a);
            CHECK(ncztr_attr_from_json("_nczarr_group", TYPED("_nczarr_group"), &a) >= 0 &&
                      H5Tget_class(a.type) == H5T_STRING && strstr(a.data, "\"dimensions\": {\"time\""),
                  "_nczarr_group as text: %s", a.data ? (char *)a.data : "");
            ncztr_attrval_clear(&a);
        }
#undef TYPED
        json_decref(root);
    }
}

/* ======================================================================================= */
/* fill values                                                                             */
int main(void)
{
    hsize_t types0 = 0, spaces0 = 0, stacks0 = 0, types1 = 0, spaces1 = 0, stacks1 = 0;

    H5open();
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    /* Every hid_t the code under test creates must be closed again. */
    H5Inmembers(H5I_DATATYPE, &types0);
    H5Inmembers(H5I_DATASPACE, &spaces0);
    H5Inmembers(H5I_ERROR_STACK, &stacks0);
    test_dtype_parse();
    test_dtype_from_hdf5();
    test_json_layer();
    test_attr_numeric();
    test_attr_strings();
    test_attr_infer_and_errors();
    test_samples_zattrs();
    H5Inmembers(H5I_DATATYPE, &types1);
    H5Inmembers(H5I_DATASPACE, &spaces1);
    H5Inmembers(H5I_ERROR_STACK, &stacks1);
    CHECK(types1 == types0 && spaces1 == spaces0 && stacks1 == stacks0,
          "open ids: types %llu -> %llu, spaces %llu -> %llu, error stacks %llu -> %llu",
          (unsigned long long)types0, (unsigned long long)types1, (unsigned long long)spaces0,
          (unsigned long long)spaces1, (unsigned long long)stacks0, (unsigned long long)stacks1);
    ncz_err_term();
    H5close();
    TEST_MAIN_END();
}
