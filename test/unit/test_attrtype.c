/* Unit tests for attribute fidelity in translate/: an "_nczarr_attr.types" entry checked
 * against its value (ncztr_attr_decode: error or plain decode per case), empty
 * JSON lists as attributes without elements (H5S_NULL), and text that looks like JSON
 * coming back byte for byte. */
#include "json_test_util.h"

#include <stdint.h>
#include <string.h>

typedef enum { OK, ERR } outcome;

typedef struct decode_case {
    const char *value; /* JSON text */
    const char *type;  /* JSON text of the types entry, or NULL for none */
    outcome want;
    const char *needle; /* in the error text */
    H5T_class_t cls;    /* class of the decoded type (OK) */
    H5S_class_t space;  /* class of the decoded dataspace (OK) */
} decode_case;

static void test_decode_rules(void)
{
    static const decode_case cases[] = {
        /* the type fits the value */
        {"7", "\"<i4\"", OK, NULL, H5T_INTEGER, H5S_SCALAR},
        {"[1, 2]", "\"<i2\"", OK, NULL, H5T_INTEGER, H5S_SIMPLE},
        {"1", "\"<f8\"", OK, NULL, H5T_FLOAT, H5S_SCALAR}, /* netCDF-C writes 1.0 as 1 */
        {"\"NaN\"", "\"<f4\"", OK, NULL, H5T_FLOAT, H5S_SCALAR},
        {"[true, false]", "\"|b1\"", OK, NULL, H5T_INTEGER, H5S_SIMPLE},
        {"\"abc\"", "\">S1\"", OK, NULL, H5T_STRING, H5S_SCALAR},
        {"{\"a\": 1}", "\">S1\"", OK, NULL, H5T_STRING, H5S_SCALAR}, /* netCDF-C's JSON convention */
        {"3", "\">S1\"", OK, NULL, H5T_STRING, H5S_SCALAR},
        {"[\"a\", \"b\"]", "\"|S128\"", OK, NULL, H5T_STRING, H5S_SIMPLE},
        {"\"x\"", "\"|S1\"", OK, NULL, H5T_STRING, H5S_SCALAR},
        {"{\"a\": 1}", "\"|J0\"", OK, NULL, H5T_STRING, H5S_SCALAR},
        {"[]", "\"<i4\"", OK, NULL, H5T_INTEGER, H5S_NULL},
        {"[]", "\"|S128\"", OK, NULL, H5T_STRING, H5S_NULL},
        {"[]", NULL, OK, NULL, H5T_FLOAT, H5S_NULL},
        {"\"abc\"", NULL, OK, NULL, H5T_STRING, H5S_SCALAR},
        /* the entry is no dtype at all: error */
        {"7", "\"<x9\"", ERR, "\"<x9\"", 0, 0},
        {"7", "\"banana\"", ERR, "\"banana\"", 0, 0},
        {"7", "\"<i16\"", ERR, "16-byte", 0, 0},
        {"7", "\"<i3\"", ERR, "3-byte", 0, 0},
        {"\"abc\"", "\"|S0\"", ERR, "zero-length", 0, 0},
        {"\"abc\"", "\"|S99999999999\"", ERR, "too", 0, 0},
        {"7", "\"<c8\"", ERR, "complex", 0, 0},
        {"7", "5", ERR, "not a dtype string", 0, 0},
        {"7", "null", ERR, "not a dtype string", 0, 0},
        {"7", "[\"<i4\"]", ERR, "not a dtype string", 0, 0},
        /* a number the dtype cannot hold: error */
        {"300", "\"|u1\"", ERR, "out of range", 0, 0},
        {"[1, 70000]", "\"<i2\"", ERR, "out of range", 0, 0},
        {"-1", "\"<u4\"", ERR, "out of range", 0, 0},
        {"1.5", "\"<i4\"", ERR, "not an integer", 0, 0},
        {"1e300", "\"<f4\"", ERR, "out of range", 0, 0},
        /* a value of another kind: error, naming the dtype and what the value is */
        {"\"abc\"", "\"<i4\"", ERR, "is text", 0, 0},
        {"[1, \"a\"]", "\"<i4\"", ERR, "holds text", 0, 0},
        {"\"Infinity\"", "\"<i8\"", ERR, "is text", 0, 0},
        {"{\"a\": 1}", "\"<f8\"", ERR, "is an object", 0, 0},
        {"null", "\"<i4\"", ERR, "is null", 0, 0},
        {"[[1], [2]]", "\"<i4\"", ERR, "holds a list", 0, 0},
        {"3", "\"|S128\"", ERR, "is a number", 0, 0},
        {"[1, 2]", "\"|S128\"", ERR, "holds a number", 0, 0},
        {"[1.5]", "\"|S4\"", ERR, "holds a number", 0, 0},
        {"true", "\"<S1\"", ERR, "is a boolean", 0, 0},
        {"[\"a\", 2]", "\"|S1\"", ERR, "holds a number", 0, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const decode_case *c = &cases[i];
        json_t *v = parse_value(c->value), *t = c->type ? parse_value(c->type) : NULL;
        /* not initialised: the decoder must leave it empty on failure */
        ncztr_attrval out = {0, 0, 1, NULL, 0};
        char label[160];
        snprintf(label, sizeof label, "value %s, type %s", c->value, c->type ? c->type : "(none)");
        if (!v || (c->type && !t)) {
            CHECK(0, "%s: test JSON does not parse", label);
            json_decref(v);
            json_decref(t);
            continue;
        }
        err_reset();
        herr_t r = ncztr_attr_decode("n", v, t, &out);
        const char *et = err_text();
        if (c->want == ERR) {
            CHECK(r < 0, "%s: must fail", label);
            CHECK(strstr(et, "attribute \"n\"") && strstr(et, c->needle), "%s: error \"%s\" lacks \"%s\"",
                  label, et, c->needle);
            CHECK(out.type < 0 && out.space < 0 && !out.data, "%s: output left on failure", label);
        } else {
            CHECK(r >= 0, "%s: failed: %s", label, et);
            CHECK(!*et, "%s: the stack must stay empty: %s", label, et);
            if (r >= 0) {
                CHECK(H5Tget_class(out.type) == c->cls, "%s: type class %d, want %d", label,
                      (int)H5Tget_class(out.type), (int)c->cls);
                CHECK(H5Sget_simple_extent_type(out.space) == c->space, "%s: dataspace class %d, want %d",
                      label, (int)H5Sget_simple_extent_type(out.space), (int)c->space);
            }
        }
        ncztr_attrval_clear(&out);
        json_decref(v);
        json_decref(t);
    }
}

/* An attribute without elements: encoded as [] and decoded as H5S_NULL of its type. */
static void test_null_space(void)
{
    const struct {
        hid_t type;
        const char *dtype;
    } types[] = {{H5T_STD_I32LE, "<i4"}, {H5T_IEEE_F64BE, ">f8"}, {H5T_STD_U8LE, "|u1"}};
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++) {
        ncztr_attrval v = {types[i].type, H5Screate(H5S_NULL), 0, NULL, 0};
        ncztr_attrval out = {H5I_INVALID_HID, H5I_INVALID_HID, 0, NULL, 0};
        json_t *j = NULL;
        char dtype[NCZTR_DTYPE_MAX], *txt = NULL;
        err_reset();
        CHECK(ncztr_attr_to_json("e", &v, &j, dtype) >= 0 && (txt = ncztr_json_dump(j)) &&
                  !strcmp(txt, "[]") && !strcmp(dtype, types[i].dtype),
              "%s: encoded as %s %s: %s", types[i].dtype, txt ? txt : "?", dtype, err_text());
        CHECK(j && ncztr_attr_from_json("e", j, dtype, &out) >= 0 && out.nelem == 0 &&
                  H5Sget_simple_extent_type(out.space) == H5S_NULL && H5Tequal(out.type, types[i].type) > 0,
              "%s: not back as H5S_NULL of the same type: %s", types[i].dtype, err_text());
        ncztr_attrval_clear(&out);
        free(txt);
        json_decref(j);
        H5Sclose(v.space);
    }
    /* vlen strings without elements */
    {
        hid_t st = H5Tcopy(H5T_C_S1);
        H5Tset_size(st, H5T_VARIABLE);
        ncztr_attrval v = {st, H5Screate(H5S_NULL), 0, NULL, 0};
        ncztr_attrval out = {H5I_INVALID_HID, H5I_INVALID_HID, 0, NULL, 0};
        json_t *j = NULL;
        char dtype[NCZTR_DTYPE_MAX];
        CHECK(ncztr_attr_to_json("e", &v, &j, dtype) >= 0 && json_is_array(j) && json_array_size(j) == 0 &&
                  ncztr_attr_from_json("e", j, dtype, &out) >= 0 && H5Tis_variable_str(out.type) > 0 &&
                  H5Sget_simple_extent_type(out.space) == H5S_NULL,
              "empty vlen strings: %s", err_text());
        ncztr_attrval_clear(&out);
        json_decref(j);
        H5Sclose(v.space);
        H5Tclose(st);
    }
    /* zarr-python's attrs["e"] = [] (no types): float64, H5S_NULL, and [] again */
    {
        json_t *j = parse_value("[]"), *again = NULL;
        ncztr_attrval out = {H5I_INVALID_HID, H5I_INVALID_HID, 0, NULL, 0};
        char dtype[NCZTR_DTYPE_MAX];
        err_reset();
        CHECK(ncztr_attr_from_json("e", j, NULL, &out) >= 0 && H5Tequal(out.type, H5T_IEEE_F64LE) > 0 &&
                  H5Sget_simple_extent_type(out.space) == H5S_NULL && out.nelem == 0,
              "untyped []: %s", err_text());
        CHECK(out.type >= 0 && ncztr_attr_to_json("e", &out, &again, dtype) >= 0 && json_equal(j, again) &&
                  !strcmp(dtype, "<f8"),
              "untyped [] written back: %s", err_text());
        ncztr_attrval_clear(&out);
        json_decref(again);
        json_decref(j);
    }
}

/* Char text, JSON-looking or not, comes back byte for byte; only text that is exactly
 * the canonical dump of a JSON object or array is stored as JSON. */
static void test_text_fidelity(void)
{
    static const struct {
        const char *text;
        int as_json;
    } cases[] = {
        {"{\"looks\":\"like json\",\"n\":3}", 0},
        {"[1, 2]", 0},
        {"true", 0},
        {"\"quoted\"", 0},
        {"3", 0},
        {"null", 0},
        {" [1,2] ", 0},
        {"{\"a\": 1}", 1},
        {"[1,2]", 1},
        {"[]", 1},
        {"{\"k\": [1.5,\"x\",null,true], \"o\": {}}", 1},
        {"{\"a\": \"q\\\"\\n\"}", 1},
        {"[\"\\u0007\"]", 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *t = cases[i].text;
        size_t n = strlen(t);
        hid_t ft = H5Tcopy(H5T_C_S1);
        H5Tset_size(ft, n);
        ncztr_attrval v = {ft, H5Screate(H5S_SCALAR), 1, (void *)t, 0};
        ncztr_attrval out = {H5I_INVALID_HID, H5I_INVALID_HID, 0, NULL, 0};
        json_t *j = NULL, *back = NULL;
        char dtype[NCZTR_DTYPE_MAX], *txt = NULL;
        err_reset();
        if (ncztr_attr_to_json("t", &v, &j, dtype) < 0) {
            CHECK(0, "%s: encode failed: %s", t, err_text());
        } else {
            CHECK(!strcmp(dtype, ">S1"), "%s: dtype %s", t, dtype);
            CHECK(cases[i].as_json ? !json_is_string(j)
                                   : json_is_string(j) && !strcmp(json_string_value(j), t),
                  "%s: stored as %s", t, json_is_string(j) ? "a string" : "JSON");
            /* through text, as the store holds it */
            txt = ncztr_json_dump(j);
            back = txt ? parse_value(txt) : NULL;
            CHECK(back && ncztr_attr_from_json("t", back, dtype, &out) >= 0 && out.nelem == 1 &&
                      H5Tget_size(out.type) == n && !memcmp(out.data, t, n),
                  "%s: not back byte for byte (%.*s): %s", t, out.data ? (int)H5Tget_size(out.type) : 0,
                  out.data ? (char *)out.data : "", err_text());
        }
        ncztr_attrval_clear(&out);
        json_decref(back);
        json_decref(j);
        free(txt);
        H5Sclose(v.space);
        H5Tclose(ft);
    }
}

int main(void)
{
    hsize_t types0 = 0, spaces0 = 0, types1 = 0, spaces1 = 0;
    H5open();
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    H5Inmembers(H5I_DATATYPE, &types0);
    H5Inmembers(H5I_DATASPACE, &spaces0);
    test_decode_rules();
    test_null_space();
    test_text_fidelity();
    H5Inmembers(H5I_DATATYPE, &types1);
    H5Inmembers(H5I_DATASPACE, &spaces1);
    CHECK(types1 == types0 && spaces1 == spaces0, "open ids: types %llu -> %llu, spaces %llu -> %llu",
          (unsigned long long)types0, (unsigned long long)types1, (unsigned long long)spaces0,
          (unsigned long long)spaces1);
    ncz_err_term();
    H5close();
    TEST_MAIN_END();
}
