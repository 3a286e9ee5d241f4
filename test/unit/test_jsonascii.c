/* Unit test of ncztr_json_ascii (the ascii-json option): every non-ASCII character of the
 * metadata text becomes a \u escape (a surrogate pair above U+FFFF) that a JSON parser
 * reads back as the same text; invalid UTF-8 is an error, not a silent change. And of
 * ncztr_utf8_valid, which must take the strings jansson takes (the .zattrs written as text
 * leave the others to the tree of values, which reports them). */
#include "json_test_util.h"

#include <string.h>

static void one(const char *in, const char *want)
{
    json_t *j = json_string(in); /* in as one string value */
    CHECK(ncztr_utf8_valid(in) == (j != NULL), "\"%s\": ncztr_utf8_valid says %d, jansson %d", in,
          (int)ncztr_utf8_valid(in), j != NULL);
    json_decref(j);
    char *out = ncztr_json_ascii(in);
    if (!want) {
        CHECK(out == NULL, "\"%s\": invalid UTF-8 accepted as \"%s\"", in, out ? out : "");
        free(out);
        H5Eclear2(H5E_DEFAULT);
        return;
    }
    CHECK(out && !strcmp(out, want), "\"%s\": got \"%s\", want \"%s\"", in, out ? out : "(null)", want);
    if (out) {
        /* jansson decodes the escapes back to the UTF-8 text */
        json_error_t err;
        json_t *a = json_loads(out, 0, &err), *b = json_loads(in, 0, &err);
        CHECK(a && b && json_equal(a, b), "\"%s\": escaped text parses to other JSON", in);
        json_decref(a);
        json_decref(b);
    }
    free(out);
}

int main(void)
{
    H5open();
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    one("{\"a\": \"plain\"}", "{\"a\": \"plain\"}");
    one("{\"t\": \"caf\xc3\xa9 \xce\xbb\"}", "{\"t\": \"caf\\u00e9 \\u03bb\"}");
    one("{\"\xe2\x84\x83\": \"\xe2\x82\xac\"}", "{\"\\u2103\": \"\\u20ac\"}");
    one("{\"e\": \"\xf0\x9f\x98\x80\"}", "{\"e\": \"\\ud83d\\ude00\"}");
    one("{\"x\": \"\xc3\"}", NULL);                                      /* cut sequence */
    one("{\"x\": \"\xc0\xaf\"}", NULL);                                  /* overlong */
    one("{\"x\": \"\xed\xa0\x80\"}", NULL);                              /* a surrogate */
    one("\xf4\x90\x80\x80", NULL);                                       /* above U+10FFFF */
    one("\xf8\x88\x80\x80\x80", NULL);                                   /* a five-byte form */
    one("\xe2\x82", NULL);                                               /* cut at the end */
    one("\x80", NULL);                                                   /* a lone continuation byte */
    one("{\"m\": \"\xf4\x8f\xbf\xbf\"}", "{\"m\": \"\\udbff\\udfff\"}"); /* U+10FFFF */
    ncz_err_term();
    H5close();
    TEST_MAIN_END();
}
