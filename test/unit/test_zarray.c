/* translate/: fill values, .zarray parse/emit (every sample store's .zarray, every
 * rejection) and a randomized robustness pass over mutated .zarray texts. */
#include "json_test_util.h"

#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdint.h>

/* ======================================================================================= */

/* Decodes fill JSON text for dtype; returns has_fill (-1 on failure), value in buf. */
static int fill_decode(const char *dtype, const char *json, unsigned char *buf)
{
    ncztr_dtype dt;
    json_t *j = json ? parse_value(json) : NULL;
    int has = -1;
    if (ncztr_dtype_parse(dtype, "t", &dt) < 0 || (json && !j)) {
        json_decref(j);
        return -1;
    }
    if (ncztr_fill_from_json(&dt, j, "t/.zarray: \"fill_value\"", buf, &has) < 0)
        has = -1;
    json_decref(j);
    return has;
}

/* Encodes and dumps a fill value. */
static char *fill_encode(const char *dtype, const void *fill)
{
    ncztr_dtype dt;
    json_t *j;
    char *s;
    if (ncztr_dtype_parse(dtype, "t", &dt) < 0 || !(j = ncztr_fill_to_json(&dt, fill)))
        return NULL;
    s = ncztr_json_dump(j);
    json_decref(j);
    return s;
}

static void test_fill(void)
{
    unsigned char b[16];
    char *s;

    /* netCDF-C defaults. */
    {
        float f;
        double d;
        int32_t i;
        int64_t l;
        uint64_t u;
        CHECK(fill_decode("<f4", "9.96921e+36", b) == 1 && (memcpy(&f, b, 4), f == 9.96921e+36f),
              "f4 netCDF fill");
        CHECK(fill_decode("<f8", "9.96921e+36", b) == 1 && (memcpy(&d, b, 8), d == 9.96921e+36),
              "f8 netCDF fill");
        CHECK(fill_decode("<i4", "-2147483647", b) == 1 && (memcpy(&i, b, 4), i == -2147483647), "i4 fill");
        CHECK(fill_decode("<i8", "-9223372036854775806", b) == 1 &&
                  (memcpy(&l, b, 8), l == -9223372036854775806LL),
              "i8 fill");
        CHECK(fill_decode("<u8", "18446744073709551614", b) == 1 && (memcpy(&u, b, 8), u == UINT64_MAX - 1),
              "u8 fill");
        CHECK(fill_decode("<u1", "255", b) == 1 && b[0] == 255, "u1 fill");
        CHECK(fill_decode("<i2", "-32767", b) == 1 && b[0] == 0x01 && b[1] == 0x80, "i2 fill LE bytes");
        CHECK(fill_decode(">i2", "-32767", b) == 1 && b[0] == 0x80 && b[1] == 0x01, "i2 fill BE bytes");
        CHECK(fill_decode("<f4", "-999", b) == 1 && (memcpy(&f, b, 4), f == -999.0f), "f4 int fill");
        CHECK(fill_decode("<i4", "0.0", b) == 1 && (memcpy(&i, b, 4), i == 0), "integral real for int");
        CHECK(fill_decode("|b1", "true", b) == 1 && b[0] == 1, "bool fill");
        CHECK(fill_decode("|b1", "false", b) == 1 && b[0] == 0, "bool fill false");
        s = fill_encode("|b1", "\1");
        CHECK(s && !strcmp(s, "true"), "bool fill encode %s", s ? s : "");
        free(s);
        /* Exactly the default fill of netCDF: written exactly. */
        f = 9.96921e+36f;
        s = fill_encode("<f4", &f);
        CHECK(s && !strcmp(s, "9.96921e+36"), "f4 default fill writes %s", s ? s : "");
        free(s);
        d = 9.9692099683868690e+36;
        s = fill_encode("<f8", &d);
        CHECK(s && !strcmp(s, "9.969209968386869e+36"), "f8 default fill writes %s", s ? s : "");
        free(s);
        u = UINT64_MAX - 1;
        s = fill_encode("<u8", &u);
        CHECK(s && !strcmp(s, "18446744073709551614"), "u8 fill writes %s", s ? s : "");
        free(s);
    }
    /* Specials, both endians, both sizes. */
    {
        const char *dts[] = {"<f4", ">f4", "<f8", ">f8"};
        const char *sp[] = {"\"NaN\"", "\"Infinity\"", "\"-Infinity\""};
        for (int d = 0; d < 4; d++)
            for (int k = 0; k < 3; k++) {
                double v;
                CHECK(fill_decode(dts[d], sp[k], b) == 1, "%s %s", dts[d], sp[k]);
                s = fill_encode(dts[d], b);
                CHECK(s && !strcmp(s, sp[k]), "%s %s encodes as %s", dts[d], sp[k], s ? s : "");
                free(s);
                {
                    ncztr_dtype dt;
                    ncztr_dtype_parse(dts[d], "t", &dt);
                    hid_t t = ncztr_dtype_to_hdf5(&dt);
                    unsigned char c[8];
                    memcpy(c, b, 8);
                    H5Tconvert(t, H5T_NATIVE_DOUBLE, 1, c, NULL, H5P_DEFAULT);
                    memcpy(&v, c, 8);
                    H5Tclose(t);
                }
                CHECK(k == 0 ? isnan(v) : (k == 1 ? v == INFINITY : v == -INFINITY), "%s %s value", dts[d],
                      sp[k]);
            }
    }
    /* Exact round trip of awkward values through dump and parse. */
    {
        double dv[] = {0.1,    1.0 / 3.0,           DBL_MAX,           DBL_MIN, DBL_TRUE_MIN, -0.0,
                       1e-300, 123456789.123456789, 9007199254740993.0};
        float fv[] = {0.1f, 1.0f / 3.0f, FLT_MAX, FLT_MIN, FLT_TRUE_MIN, -0.0f, 16777217.0f, 3.4e-39f};
        for (size_t i = 0; i < sizeof dv / sizeof dv[0]; i++) {
            const char *dts[] = {"<f8", ">f8"};
            for (int e = 0; e < 2; e++) {
                unsigned char in[8], back[8];
                ncztr_dtype dt;
                ncztr_dtype_parse(dts[e], "t", &dt);
                memcpy(in, &dv[i], 8);
                if (e)
                    for (int k = 0; k < 4; k++) {
                        unsigned char t = in[k];
                        in[k] = in[7 - k];
                        in[7 - k] = t;
                    }
                s = fill_encode(dts[e], in);
                CHECK(s && fill_decode(dts[e], s, back) == 1 && !memcmp(in, back, 8), "f8 %.17g via %s",
                      dv[i], s ? s : "");
                free(s);
            }
        }
        for (size_t i = 0; i < sizeof fv / sizeof fv[0]; i++) {
            unsigned char back[4];
            s = fill_encode("<f4", &fv[i]);
            CHECK(s && fill_decode("<f4", s, back) == 1 && !memcmp(&fv[i], back, 4) && strlen(s) <= 16,
                  "f4 %.9g via %s", (double)fv[i], s ? s : "");
            free(s);
        }
    }
    /* null / absent. */
    CHECK(fill_decode("<i4", "null", b) == 0, "null fill");
    CHECK(fill_decode("<i4", NULL, b) == 0, "absent fill");
    s = fill_encode("<i4", NULL);
    CHECK(s && !strcmp(s, "null"), "no fill -> null");
    free(s);
    /* Strings: "" and Base64 (trailing NULs dropped, as zarr-python writes). */
    CHECK(fill_decode("|S6", "\"\"", b) == 1 && !memcmp(b, "\0\0\0\0\0\0", 6), "empty string fill");
    CHECK(fill_decode("|S6", "\"YWI=\"", b) == 1 && !memcmp(b, "ab\0\0\0\0", 6), "base64 fill");
    CHECK(fill_decode("|S6", "\"YWJjZGVm\"", b) == 1 && !memcmp(b, "abcdef", 6), "base64 full fill");
    CHECK(fill_decode(">S1", "\"\"", b) == 1 && b[0] == 0, "char fill empty");
    CHECK(fill_decode(">S1", "\"x\"", b) == 1 && b[0] == 'x', "char fill raw");
    CHECK(fill_decode(">S1", "\"eA==\"", b) == 1 && b[0] == 'x', "char fill base64");
    CHECK(fill_decode(">S1", "120", b) == 1 && b[0] == 'x', "char fill as number");
    s = fill_encode("|S6", "ab\0\0\0\0");
    CHECK(s && !strcmp(s, "\"YWI=\""), "string fill encode %s", s ? s : "");
    free(s);
    s = fill_encode("|S6", "\0\0\0\0\0\0");
    CHECK(s && !strcmp(s, "\"\""), "zero string fill encode %s", s ? s : "");
    free(s);
    s = fill_encode(">S1", "x");
    CHECK(s && !strcmp(s, "\"eA==\""), "char fill encode %s", s ? s : "");
    free(s);
    s = fill_encode("|S5", "abcde");
    CHECK(s && !strcmp(s, "\"YWJjZGU=\"") && fill_decode("|S5", s, b) == 1 && !memcmp(b, "abcde", 5),
          "5-byte fill %s", s ? s : "");
    free(s);
    /* Errors name `what`. */
    const struct {
        const char *dtype, *json, *sub;
    } bad[] = {
        {"|u1", "256", "out of range"},       {"|i1", "-129", "out of range"},
        {"<u4", "-1", "out of range"},        {"<i2", "40000", "out of range"},
        {"<f4", "1e39", "out of range"},      {"<i4", "1.5", "not an integer"},
        {"<i4", "\"NaN\"", "not an integer"}, {"<f8", "\"nan\"", "not a number"},
        {"<f8", "[1]", "not a number"},       {"|S2", "\"YWJjZA==\"", "longer"},
        {"|S2", "\"abc\"", "neither"},        {"|S4", "5", "must be a string"},
        {"<i8", "1e19", "out of range"},      {"<u8", "18446744073709551616.0", "out of range"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        err_reset();
        CHECK_FAILS(fill_decode(bad[i].dtype, bad[i].json, b) < 0, "t/.zarray: \"fill_value\"", bad[i].sub);
    }
}

/* ======================================================================================= */
/* .zarray                                                                                 */
/* ======================================================================================= */

static int g_zarrays, g_netcdf_exact, g_fill_int_as_real;

static void check_zarray_file(const char *path)
{
    size_t len = 0;
    char *text = read_file(path, &len);
    ncztr_zarray za, again;
    char *dumped = NULL;

    CHECK(text != NULL, "cannot read %s", path);
    if (!text)
        return;
    memset(&za, 0, sizeof za);
    memset(&again, 0, sizeof again);
    err_reset();
    if (ncztr_zarray_parse(path, text, len, &za) < 0) {
        const char *e = err_text();
        /* Only an unsupported dtype may fail, and it must be named. */
        CHECK(strstr(e, "unsupported dtype") != NULL, "%s: %s", path, e);
        free(text);
        return;
    }
    g_zarrays++;
    dumped = ncztr_zarray_dump(&za);
    CHECK(dumped && !strncmp(dumped, "{\"zarr_format\": 2, \"shape\": [", 29), "%s: dump starts %.40s", path,
          dumped ? dumped : "(null)");
    /* netCDF-C's own text comes back byte for byte, except that an integral fill value of a
     * float array is a real for us (netCDF-C writes -999, we write -999.0). */
    if (dumped && strstr(path, "netcdf-c")) {
        size_t dl = strlen(dumped);
        const char *fo = strstr(text, "\"fill_value\": "), *fd = strstr(dumped, "\"fill_value\": ");
        const char *eo = fo ? strstr(fo, ", \"order\"") : NULL, *ed = fd ? strstr(fd, ", \"order\"") : NULL;
        int same = len >= dl && !strncmp(text, dumped, dl) && (len == dl || text[dl] == '\n');
        if (!same && za.dtype.tclass == NCZTR_T_FLOAT && fo && fd && eo && ed && fo - text == fd - dumped &&
            !strncmp(text, dumped, (size_t)(fo - text)) && !strncmp(eo, ed, strlen(ed))) {
            char *a = strndup(fo + 14, (size_t)(eo - fo - 14)), *b = strndup(fd + 14, (size_t)(ed - fd - 14));
            same = strtod(a, NULL) == strtod(b, NULL) && !strchr(a, '.') && !strcmp(b + strlen(a), ".0");
            g_fill_int_as_real++;
            free(a);
            free(b);
        }
        g_netcdf_exact++;
        CHECK(same, "%s: dump differs:\n  %s\n  %s", path, text, dumped);
    }
    if (dumped && ncztr_zarray_parse("again", dumped, strlen(dumped), &again) >= 0) {
        size_t dims_bytes = (size_t)za.rank * sizeof *za.shape;
        CHECK(again.rank == za.rank && !memcmp(again.shape, za.shape, dims_bytes) &&
                  !memcmp(again.chunks, za.chunks, dims_bytes) && !strcmp(again.dtype.zarr, za.dtype.zarr) &&
                  again.has_fill == za.has_fill &&
                  (!za.has_fill || !memcmp(again.fill, za.fill, za.dtype.size)) && again.order == za.order &&
                  again.dimsep == za.dimsep &&
                  json_equal(again.compressor, za.compressor) == (za.compressor != NULL) &&
                  json_equal(again.filters, za.filters) == (za.filters != NULL),
              "%s: dump/parse round trip differs", path);
    } else {
        CHECK(0, "%s: dump does not parse: %s", path, err_text());
    }
    ncztr_zarray_clear(&again);
    ncztr_zarray_clear(&za);
    free(dumped);
    free(text);
}

static ncztr_zarray parse_sample(const char *rel)
{
    char path[512];
    size_t len = 0;
    char *text;
    ncztr_zarray za;
    memset(&za, 0, sizeof za);
    snprintf(path, sizeof path, "%s/%s", NCZ_SAMPLES_DIR, rel);
    text = read_file(path, &len);
    if (!text || ncztr_zarray_parse(rel, text, len, &za) < 0)
        CHECK(0, "%s does not parse", rel);
    free(text);
    return za;
}

static void test_zarray(void)
{
    collect_files(".zarray");
    CHECK(g_npaths >= 40, "found %d .zarray files", g_npaths);
    for (int i = 0; i < g_npaths; i++)
        check_zarray_file(g_paths[i]);
    free_paths();
    CHECK(g_zarrays >= 40, "parsed %d .zarray files", g_zarrays);
    CHECK(g_netcdf_exact >= 30 && g_fill_int_as_real == 3,
          "%d netCDF-C .zarray compared as text (%d with -999)", g_netcdf_exact, g_fill_int_as_real);

    /* Spot checks. */
    {
        ncztr_zarray za = parse_sample("netcdf-c-4.9.3/sample.nczarr.file/temp/.zarray");
        float f = 0;
        if (za.has_fill)
            memcpy(&f, za.fill, 4);
        CHECK(za.rank == 2 && za.shape[0] == 3 && za.shape[1] == 4 && za.chunks[0] == 1 &&
                  za.chunks[1] == 4 && !strcmp(za.dtype.zarr, "<f4") && za.has_fill && f == -999.0f &&
                  za.order == 'C' && za.dimsep == '.' &&
                  !strcmp(json_string_value(json_object_get(za.compressor, "id")), "zlib") &&
                  json_array_size(za.filters) == 1,
              "temp .zarray");
        ncztr_zarray_clear(&za);
        za = parse_sample("zarr-python/slash_sep.zarr/.zarray");
        CHECK(za.dimsep == '/', "slash_sep");
        char *s = ncztr_zarray_dump(&za);
        CHECK(s && strstr(s, "\"filters\": null, \"dimension_separator\": \"/\"}") && s[strlen(s) - 1] == '}',

              "dimension_separator last: %s", s ? s : "");
        free(s);
        ncztr_zarray_clear(&za);
        za = parse_sample("zarr-python/order_f.zarr/.zarray");
        CHECK(za.order == 'F', "order F");
        ncztr_zarray_clear(&za);
        za = parse_sample("zarr-python/xarray.zarr/time/.zarray");
        CHECK(!za.has_fill && za.fill == NULL, "null fill");
        ncztr_zarray_clear(&za);
        za = parse_sample("zarr-python/basic.zarr/sub/inner/floats/.zarray");
        CHECK(za.has_fill && isnan(*(float *)za.fill), "NaN fill");
        ncztr_zarray_clear(&za);
        za = parse_sample("zarr-python/basic.zarr/t_uint16_be/.zarray");
        CHECK(za.dtype.big_endian && za.dtype.size == 2, ">u2");
        ncztr_zarray_clear(&za);
        za = parse_sample("zarr-python/basic.zarr/fixed_strings/.zarray");
        CHECK(za.dtype.tclass == NCZTR_T_STRING && za.dtype.size == 6 && za.has_fill, "|S6");
        ncztr_zarray_clear(&za);
    }
    /* Dump: exact text for a typical array, and leniency on read. */
    {
        const char *t = "{\"zarr_format\": 2, \"shape\": [10,20], \"dtype\": \"<i4\", \"chunks\": [5,20], "
                        "\"fill_value\": -2147483647, \"order\": \"C\", \"compressor\": {\"id\": \"zlib\", "
                        "\"level\": 4}, \"filters\": [{\"id\": \"shuffle\", \"elementsize\": 4}]}";
        ncztr_zarray za;
        char *s;
        CHECK(ncztr_zarray_parse("x/.zarray", t, strlen(t), &za) >= 0, "typical");
        s = ncztr_zarray_dump(&za);
        CHECK(s && !strcmp(s, t), "typical dump: %s", s ? s : "");
        free(s);
        ncztr_zarray_clear(&za);
        const char *lenient[] = {
            "{\"zarr_format\": 2, \"shape\": [3], \"chunks\": [3], \"dtype\": \"<f8\"}",
            "{\"zarr_format\": 2, \"shape\": [], \"chunks\": [], \"dtype\": \"<f8\", \"fill_value\": 1}",
            /* (parenthesised: one element each, split over lines) */
            ("{\"zarr_format\": 2, \"shape\": [0], \"chunks\": [1], \"dtype\": \"|b1\", \"fill_value\": "
             "false, \"extra\": {\"x\": 1}, \"filters\": []}"),
            ("{\"zarr_format\": 2, \"shape\": [2], \"chunks\": [2], \"dtype\": \"<u8\", \"fill_value\": "
             "18446744073709551615, \"dimension_separator\": \".\"}"),
        };
        for (size_t i = 0; i < sizeof lenient / sizeof lenient[0]; i++) {
            err_reset();
            int ok = ncztr_zarray_parse("l/.zarray", lenient[i], strlen(lenient[i]), &za) >= 0;
            CHECK(ok, "lenient %zu: %s", i, err_text());
            if (ok && i == 0)
                CHECK(!za.has_fill && za.order == 'C' && za.dimsep == '.' && !za.compressor && !za.filters,
                      "defaults");
            if (ok && i == 1)
                CHECK(za.rank == 0 && za.has_fill, "rank 0");
            if (ok && i == 3)
                CHECK(za.has_fill && *(uint64_t *)za.fill == UINT64_MAX, "u8 max fill");
            if (ok) {
                s = ncztr_zarray_dump(&za);
                CHECK(s != NULL, "lenient dump %zu", i);
                if (i == 3)
                    CHECK(s && strstr(s, "\"fill_value\": 18446744073709551615,"), "u8 fill dump %s", s);
                if (i == 2)
                    CHECK(s && strstr(s, "\"fill_value\": false,") && strstr(s, "\"filters\": []}"),
                          "dump %s", s);
                free(s);
            }
            ncztr_zarray_clear(&za);
        }
    }
    /* Rejections. */
#define ZA(rest) "{\"zarr_format\": 2, " rest "}"
#define OKREST   "\"shape\": [4], \"chunks\": [2], \"dtype\": \"<i4\", \"fill_value\": 0"
    const struct {
        const char *text, *sub;
    } bad[] = {
        {"{\"zarr_format\": 2, \"shape\": [4]", "invalid JSON"},
        {"[1]", "must be an object"},
        {"", "empty"},
        {"{\"shape\": [4], \"chunks\": [2], \"dtype\": \"<i4\"}", "missing key \"zarr_format\""},
        {"{\"zarr_format\": 3, " OKREST "}", "zarr_format 3"},
        {"{\"zarr_format\": \"2\", " OKREST "}", "\"zarr_format\" must be"},
        {ZA("\"chunks\": [2], \"dtype\": \"<i4\""), "missing key \"shape\""},
        {ZA("\"shape\": [4], \"dtype\": \"<i4\""), "missing key \"chunks\""},
        {ZA("\"shape\": [4], \"chunks\": [2]"), "missing key \"dtype\""},
        {ZA("\"shape\": \"x\", \"chunks\": [2], \"dtype\": \"<i4\""),
         "\"shape\" must be an array of non-negative integers"},
        {ZA("\"shape\": [-1], \"chunks\": [2], \"dtype\": \"<i4\""),
         "\"shape\" must be an array of non-negative integers"},
        {ZA("\"shape\": [1.5], \"chunks\": [2], \"dtype\": \"<i4\""), "\"shape\" must be"},
        {ZA("\"shape\": [18446744073709551615], \"chunks\": [2], \"dtype\": \"<i4\""), "\"shape\" must be"},
        {ZA("\"shape\": [4], \"chunks\": [0], \"dtype\": \"<i4\""),
         "\"chunks\" must be an array of positive"},
        {ZA("\"shape\": [4], \"chunks\": [-2], \"dtype\": \"<i4\""), "\"chunks\" must be"},
        {ZA("\"shape\": [4], \"chunks\": {}, \"dtype\": \"<i4\""), "\"chunks\" must be"},
        {ZA("\"shape\": [4, 4], \"chunks\": [2], \"dtype\": \"<i4\""), "2 dimensions but \"chunks\" has 1"},
        {ZA("\"shape\": [1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1], \"chunks\": "
            "[1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1], \"dtype\": \"<i4\""),
         "33 dimensions"},
        {ZA("\"shape\": [4, 4], \"chunks\": [2147483648, 2147483648], \"dtype\": \"<f8\""), "2^62"},
        {ZA("\"shape\": [4], \"chunks\": [4611686018427387905], \"dtype\": \"|u1\""), "2^62"},
        {ZA("\"shape\": [4294967296, 4294967296, 2], \"chunks\": [1, 1, 1], \"dtype\": \"|u1\""),
         "more than 2^64 elements"},
        {ZA("\"shape\": [4], \"chunks\": [2], \"dtype\": \"<M8[xs]\""), "unknown time unit \"xs\""},
        {ZA("\"shape\": [4], \"chunks\": [2], \"dtype\": \"|O\""), "unsupported dtype \"|O\""},
        {ZA("\"shape\": [4], \"chunks\": [2], \"dtype\": \"<q4\""), "invalid dtype \"<q4\""},
        {ZA("\"shape\": [4], \"chunks\": [2], \"dtype\": 5"), "\"dtype\" must be a string"},
        {ZA("\"shape\": [4], \"chunks\": [2], \"dtype\": [[\"r\"]]"), "structured dtype"},
        {ZA("\"shape\": [4], \"chunks\": [2], \"dtype\": [[\"r\", \"<q4\"]]"), "invalid dtype \"<q4\""},
        {ZA("\"shape\": [4], \"chunks\": [2], \"dtype\": [[\"r\", \"|u1\"], [\"r\", \"|u1\"]]"), "twice"},
        {ZA("\"shape\": [4], \"chunks\": [2], \"dtype\": [[\"r\", \"|u1\", [-1]]]"), "shape of field"},
        {ZA("\"shape\": [4], \"chunks\": [2], \"dtype\": [[5, \"|u1\"]]"), "field name"},
        {ZA(OKREST ", \"order\": \"X\""), "\"order\" must be \"C\" or \"F\""},
        {ZA(OKREST ", \"order\": 1"), "\"order\" must be"},
        {ZA(OKREST ", \"dimension_separator\": \"-\""), "\"dimension_separator\" must be"},
        {ZA(OKREST ", \"dimension_separator\": null"), "\"dimension_separator\" must be"},
        {ZA(OKREST ", \"compressor\": \"zlib\""), "\"compressor\" must be null or an object"},
        {ZA(OKREST ", \"compressor\": {\"level\": 1}"), "\"compressor\" must be"},
        {ZA(OKREST ", \"compressor\": {\"id\": 7}"), "\"compressor\" must be"},
        {ZA(OKREST ", \"filters\": {\"id\": \"shuffle\"}"), "\"filters\" must be null or an array"},
        {ZA(OKREST ", \"filters\": [5]"), "\"filters\" element 0"},
        {ZA("\"shape\": [4], \"chunks\": [2], \"dtype\": \"<i4\", \"fill_value\": \"abc\""),
         "\"fill_value\""},
        {ZA("\"shape\": [4], \"chunks\": [2], \"dtype\": \"|u1\", \"fill_value\": 300"),
         "\"fill_value\": value 300 is out of range for dtype \"|u1\""},
        {ZA("\"shape\": [4], \"chunks\": [2], \"dtype\": \"<f4\", \"fill_value\": {}"), "\"fill_value\""},
    };
#undef ZA
#undef OKREST
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        ncztr_zarray za;
        memset(&za, 0x5a, sizeof za);
        err_reset();
        CHECK_FAILS(ncztr_zarray_parse("sub/v/.zarray", bad[i].text, strlen(bad[i].text), &za) < 0,
                    "sub/v/.zarray", bad[i].sub);
        CHECK(za.fill == NULL && za.compressor == NULL && za.filters == NULL, "rejected %zu leaves out empty",
              i);
        ncztr_zarray_clear(&za);
    }
    /* Dump refuses inconsistent input. */
    {
        ncztr_zarray za;
        memset(&za, 0, sizeof za);
        CHECK(ncztr_zarray_set_rank(&za, 1) == 0, "rank 1");
        za.shape[0] = 4;
        za.chunks[0] = 0;
        za.order = 'C';
        za.dimsep = '.';
        ncztr_dtype_parse("<i4", "t", &za.dtype);
        err_reset();
        char *s = ncztr_zarray_dump(&za);
        CHECK_FAILS(s == NULL, ".zarray", "chunk");
        za.chunks[0] = 2;
        za.order = 'X';
        err_reset();
        s = ncztr_zarray_dump(&za);
        CHECK_FAILS(s == NULL, ".zarray", "order");
        za.order = 'F';
        s = ncztr_zarray_dump(&za);
        CHECK(s && !strcmp(
                       s, "{\"zarr_format\": 2, \"shape\": [4], \"dtype\": \"<i4\", \"chunks\": [2], "
                          "\"fill_value\": null, \"order\": \"F\", \"compressor\": null, \"filters\": null}"),
              "minimal dump %s", s ? s : "");
        free(s);
        ncztr_zarray_clear(&za);
    }
}

/* ======================================================================================= */
/* robustness: mutated metadata and every dtype x value pairing                             */
/* ======================================================================================= */

static uint32_t g_rng = 12345;
static uint32_t rnd(void)
{
    g_rng = g_rng * 1103515245u + 12345u;
    return g_rng >> 8;
}

static void test_robustness(void)
{
    /* Mutated .zarray texts never crash; what parses dumps and parses again. */
    static const char alphabet[] = "{}[],:0123456789-.eE\"\\ nulltrue<>|SfiuUc/CFNaI\x01\xff";
    int parsed = 0, tries = 0;
    collect_files(".zarray");
    for (int f = 0; f < g_npaths; f++) {
        size_t len = 0;
        char *orig = read_file(g_paths[f], &len);
        if (!orig)
            continue;
        for (int it = 0; it < 150; it++) {
            char *t = malloc(len + 64);
            size_t n = len;
            memcpy(t, orig, len);
            for (int m = 1 + (int)(rnd() % 3); m > 0 && n > 0; m--) {
                size_t at = rnd() % n;
                switch (rnd() % 3) {
                case 0:
                    t[at] = alphabet[rnd() % (sizeof alphabet - 1)];
                    break;
                case 1:
                    memmove(t + at, t + at + 1, n - at - 1);
                    n--;
                    break;
                default:
                    if (n < len + 60) {
                        memmove(t + at + 1, t + at, n - at);
                        t[at] = alphabet[rnd() % (sizeof alphabet - 1)];
                        n++;
                    }
                }
            }
            ncztr_zarray za, again;
            /* HDF5 leaks the strings of messages pushed onto a full (32-deep) stack, so the
             * stack is emptied per attempt, as every HDF5 API entry would do. */
            H5Eclear2(H5E_DEFAULT);
            tries++;
            if (ncztr_zarray_parse("fuzz", t, n, &za) >= 0) {
                char *d = ncztr_zarray_dump(&za);
                parsed++;
                CHECK(d && ncztr_zarray_parse("fuzz2", d, strlen(d), &again) >= 0,
                      "mutant dumps/parses: %.*s", (int)n, t);
                if (d)
                    ncztr_zarray_clear(&again);
                free(d);
                ncztr_zarray_clear(&za);
            }
            free(t);
        }
        free(orig);
    }
    free_paths();
    H5Eclear2(H5E_DEFAULT);
    CHECK(tries > 1000 && parsed > 0, "%d of %d mutants parsed", parsed, tries);
    printf("robustness: %d of %d mutated .zarray texts parsed\n", parsed, tries);

    /* Every dtype with every value: whatever decodes encodes, and that decodes again. */
    const char *dtypes[] = {NULL,  "|J0", ">S1", "|S1", "|S128", "|i1", "|u1", "|b1", "<i2", ">u2", "<i4",
                            ">i4", "<u4", "<i8", ">u8", "<f4",   ">f4", "<f8", ">f8", "<c8", "bad"};
    const char *values[] = {"0",
                            "-1",
                            "255",
                            "1.5",
                            "1e300",
                            "-0.0",
                            "true",
                            "null",
                            "\"\"",
                            "\"text\"",
                            "\"NaN\"",
                            "\"-Infinity\"",
                            "[]",
                            "[1,2,3]",
                            "[1,2.5]",
                            "[true,false]",
                            "[\"a\",\"b\"]",
                            "[\"a\",1]",
                            "[null]",
                            "[[1],[2]]",
                            "{}",
                            "{\"a\": {\"b\": [1, \"x\"]}}",
                            "18446744073709551615",
                            "[18446744073709551615, 1]",
                            "-9223372036854775808",
                            "[\"NaN\", 1.0]",
                            "\"\\u0001u64:5\""};
    int decoded = 0;
    for (size_t d = 0; d < sizeof dtypes / sizeof dtypes[0]; d++)
        for (size_t v = 0; v < sizeof values / sizeof values[0]; v++) {
            json_t *j = parse_value(values[v]), *e = NULL;
            ncztr_attrval a = {H5I_INVALID_HID, H5I_INVALID_HID, 0, NULL, 0}, b = a;
            char dt[NCZTR_DTYPE_MAX];
            CHECK(j != NULL, "value %s parses", values[v]);
            if (j && ncztr_attr_from_json("p", j, dtypes[d], &a) >= 0) {
                decoded++;
                int ok = ncztr_attr_to_json("p", &a, &e, dt) >= 0;
                CHECK(ok, "%s as %s decodes but does not encode: %s", values[v],
                      dtypes[d] ? dtypes[d] : "(none)", err_text());
                CHECK(!ok || ncztr_attr_from_json("p", e, dt, &b) >= 0, "%s as %s: re-decode failed: %s",
                      values[v], dtypes[d] ? dtypes[d] : "(none)", err_text());
            } else {
                CHECK(a.type < 0 && a.data == NULL, "failed decode leaves nothing");
            }
            H5Eclear2(H5E_DEFAULT);
            ncztr_attrval_clear(&a);
            ncztr_attrval_clear(&b);
            json_decref(e);
            json_decref(j);
        }
    CHECK(decoded > 200, "%d dtype/value pairs decoded", decoded);
}

/* Enum, compound and array types: structured dtypes, kept types, attribute values. */

/* numpy's complex and datetime64 in v2, and Zarr v3 metadata. */
static void test_numpy_and_v3(void)
{
    ncztr_zarray za;
    const char *c8 =
        "{\"zarr_format\": 2, \"shape\": [4], \"chunks\": [2], \"dtype\": \"<c8\", "
        "\"fill_value\": [1.5, \"NaN\"], \"order\": \"C\", \"compressor\": null, \"filters\": null}";
    REQUIRE(ncztr_zarray_parse("c8", c8, strlen(c8), &za) == SUCCEED, "<c8 parses");
    float fill[2];
    memcpy(fill, za.fill, 8);
    CHECK(za.complex && za.dtype.tclass == NCZTR_T_STRUCT && za.dtype.size == 8 && za.has_fill &&
              fill[0] == 1.5f && fill[1] != fill[1],
          "<c8: the structure {r, i} of float32, fill [1.5, NaN]");
    char *t = ncztr_zarray_dump(&za);
    CHECK(t && strstr(t, "\"dtype\": \"<c8\"") && strstr(t, "\"fill_value\": [1.5,\"NaN\"]"),
          "<c8 dumps as itself: %s", t ? t : "(null)");
    free(t);
    ncztr_zarray_clear(&za);
    const char *m8 = "{\"zarr_format\": 2, \"shape\": [4], \"chunks\": [2], \"dtype\": \">M8[ns]\", "
                     "\"fill_value\": \"NaT\", \"order\": \"C\", \"compressor\": null, \"filters\": null}";
    REQUIRE(ncztr_zarray_parse("m8", m8, strlen(m8), &za) == SUCCEED, ">M8[ns] parses");
    CHECK(za.time_kind == 'M' && !strcmp(za.time_unit, "ns") && za.dtype.tclass == NCZTR_T_INT &&
              za.dtype.size == 8 && za.dtype.big_endian && za.fill[0] == 0x80 && za.fill[7] == 0,
          ">M8[ns]: a big-endian int64, NaT the smallest");
    t = ncztr_zarray_dump(&za);
    CHECK(t && strstr(t, "\"dtype\": \">M8[ns]\""), ">M8[ns] dumps as itself: %s", t ? t : "(null)");
    free(t);
    ncztr_zarray_clear(&za);

    /* Zarr v3: data type and byte order (inside a shard), hex fill, chunk keys */
    const char *v3 =
        "{\"zarr_format\": 3, \"node_type\": \"array\", \"shape\": [6, 8], \"data_type\": \"float32\", "
        "\"chunk_grid\": {\"name\": \"regular\", \"configuration\": {\"chunk_shape\": [6, 8]}}, "
        "\"chunk_key_encoding\": {\"name\": \"default\", \"configuration\": {\"separator\": \"/\"}}, "
        "\"fill_value\": \"0x7fc00001\", \"codecs\": [{\"name\": \"sharding_indexed\", \"configuration\": "
        "{\"chunk_shape\": [3, 4], \"codecs\": [{\"name\": \"bytes\", \"configuration\": {\"endian\": "
        "\"big\"}}]}}], \"attributes\": {}, \"dimension_names\": [\"y\", null]}";
    json_t *j = json_loads(v3, 0, NULL);
    REQUIRE(j && ncztr_zarr3_array_from_json("a/zarr.json", j, &za) == SUCCEED, "v3 parses");
    CHECK(za.dtype.big_endian && za.dtype.tclass == NCZTR_T_FLOAT && za.chunk_c && za.dimsep == '/' &&
              za.chunks[0] == 6 && za.has_fill && za.fill[0] == 0x7f && za.fill[3] == 0x01 && za.codecs,
          "v3: big-endian float32 (the shard's bytes codec), hex fill, default keys");
    ncztr_zarray_clear(&za);
    json_decref(j);
    uint64_t idx[2] = {1, 2};
    char *k1 = ncztr_chunk_key_at("a", 2, '/', true, idx), *k2 = ncztr_chunk_key_at("", 0, '/', true, idx),
         *k3 = ncztr_chunk_key_at("a", 2, '.', false, idx);
    CHECK(k1 && k2 && k3 && !strcmp(k1, "a/c/1/2") && !strcmp(k2, "c") && !strcmp(k3, "a/1.2"),
          "chunk keys %s %s %s", k1, k2, k3);
    free(k1);
    free(k2);
    free(k3);
    const char *bad[][2] = {
        {"{\"zarr_format\": 3, \"node_type\": \"array\", \"shape\": [2], \"data_type\": \"int32\", "
         "\"chunk_grid\": "
         "{\"name\": \"regular\", \"configuration\": {\"chunk_shape\": [2]}}, \"chunk_key_encoding\": "
         "{\"name\": "
         "\"default\"}, \"fill_value\": 0, \"codecs\": [{\"name\": \"bytes\"}], \"x\": {\"must_understand\": "
         "true}}",
         "extension \"x\""},
        {"{\"zarr_format\": 3, \"node_type\": \"array\", \"shape\": [2], \"data_type\": \"int128\", "
         "\"chunk_grid\": "
         "{\"name\": \"regular\", \"configuration\": {\"chunk_shape\": [2]}}, \"chunk_key_encoding\": "
         "{\"name\": "
         "\"default\"}, \"fill_value\": 0, \"codecs\": [{\"name\": \"bytes\"}]}",
         "data type \"int128\""},
        {"{\"zarr_format\": 3, \"node_type\": \"array\", \"shape\": [2], \"data_type\": {\"name\": "
         "\"fixed_length_utf32\", \"configuration\": {\"length_bytes\": 6}}, \"chunk_grid\": "
         "{\"name\": \"regular\", \"configuration\": {\"chunk_shape\": [2]}}, \"chunk_key_encoding\": "
         "{\"name\": \"default\"}, \"fill_value\": \"\", \"codecs\": [{\"name\": \"bytes\"}]}",
         "a multiple of 4"},
        {"{\"zarr_format\": 3, \"node_type\": \"array\", \"shape\": [2], \"data_type\": {\"name\": "
         "\"fixed_length_utf32\", \"configuration\": {\"length_bytes\": 8}}, \"chunk_grid\": "
         "{\"name\": \"regular\", \"configuration\": {\"chunk_shape\": [2]}}, \"chunk_key_encoding\": "
         "{\"name\": \"default\"}, \"fill_value\": \"ab\", \"codecs\": [{\"name\": \"bytes\"}]}",
         "fill value other than"},
        {"{\"zarr_format\": 3, \"node_type\": \"array\", \"shape\": [2], \"data_type\": \"int32\", "
         "\"chunk_grid\": "
         "{\"name\": \"regular\", \"configuration\": {\"chunk_shape\": [2]}}, \"chunk_key_encoding\": "
         "{\"name\": "
         "\"default\"}, \"fill_value\": 0, \"codecs\": [{\"name\": \"bytes\"}], \"storage_transformers\": "
         "[{}]}",
         "storage transformers"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        j = json_loads(bad[i][0], 0, NULL);
        err_reset();
        CHECK_FAILS(j && ncztr_zarr3_array_from_json("b/zarr.json", j, &za) < 0, "b/zarr.json", bad[i][1]);
        json_decref(j);
    }
    /* text as zarr-python 3 writes it: "string" (vlen-utf8), numpy "U" (UTF-32), "S" */
    const char *text[][3] = {
        {"\"string\"", "vlen-utf8", "|O"},
        {"\"variable_length_bytes\"", "vlen-bytes", "|O"},
        {"{\"name\": \"fixed_length_utf32\", \"configuration\": {\"length_bytes\": 12}}", "bytes", "<U3"},
        {"{\"name\": \"null_terminated_bytes\", \"configuration\": {\"length_bytes\": 5}}", "bytes", "|S5"},
    };
    for (size_t i = 0; i < sizeof text / sizeof *text; i++) {
        char doc[1024];
        snprintf(doc, sizeof doc,
                 "{\"zarr_format\": 3, \"node_type\": \"array\", \"shape\": [2], \"data_type\": %s, "
                 "\"chunk_grid\": {\"name\": \"regular\", \"configuration\": {\"chunk_shape\": [2]}}, "
                 "\"chunk_key_encoding\": {\"name\": \"default\"}, \"fill_value\": \"\", \"codecs\": "
                 "[{\"name\": \"%s\"}]}",
                 text[i][0], text[i][1]);
        j = json_loads(doc, 0, NULL);
        err_reset();
        CHECK(j && ncztr_zarr3_array_from_json("t/zarr.json", j, &za) == SUCCEED, "parses %s", text[i][0]);
        CHECK(!strcmp(za.dtype.zarr, text[i][2]), "%s reads as %s, not %s", text[i][0], za.dtype.zarr,
              text[i][2]);
        CHECK(i != 2 || (za.utf32 == '<' && za.dtype.size == 12), "fixed_length_utf32: 3 characters");
        CHECK(i >= 2 || (za.dtype.tclass == NCZTR_T_VLEN && za.vlen_kind == (i ? 'b' : 'u')),
              "variable-length text and bytes");
        ncztr_zarray_clear(&za);
        json_decref(j);
    }
}

int main(void)
{
    hsize_t types0 = 0, types1 = 0;
    H5open();
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    H5Inmembers(H5I_DATATYPE, &types0);
    test_fill();
    test_zarray();
    test_robustness();
    test_numpy_and_v3();
    H5Inmembers(H5I_DATATYPE, &types1);
    CHECK(types1 == types0, "open datatype ids: %llu -> %llu", (unsigned long long)types0,
          (unsigned long long)types1);
    free_paths();
    ncz_err_term();
    H5close();
    TEST_MAIN_END();
}
