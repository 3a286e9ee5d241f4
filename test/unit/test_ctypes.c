/* translate/types/ncztr_ctype.c: HDF5 enum, compound and array types <-> Zarr structured dtypes,
 * packing, kept HDF5 types, and their attribute JSON. */
#include "json_test_util.h"
#include "ncztr_refval.h"

#include <math.h>
#include <stdint.h>

static void test_ctypes(void)
{
    /* a padded compound with a string, an array member and a nested compound */
    typedef struct {
        short a;
        double x;
        char s[3];
        float v[2];
    } rec;
    hid_t in = H5Tcreate(H5T_COMPOUND, 8);
    H5Tinsert(in, "p", 0, H5T_STD_U16BE);
    H5Tinsert(in, "q", 4, H5T_NATIVE_INT);
    hid_t s3 = H5Tcopy(H5T_C_S1);
    H5Tset_size(s3, 3);
    hsize_t two = 2;
    hid_t f2 = H5Tarray_create2(H5T_NATIVE_FLOAT, 1, &two);
    hid_t ct = H5Tcreate(H5T_COMPOUND, sizeof(rec) + 8);
    H5Tinsert(ct, "a", HOFFSET(rec, a), H5T_NATIVE_SHORT);
    H5Tinsert(ct, "x", HOFFSET(rec, x), H5T_NATIVE_DOUBLE);
    H5Tinsert(ct, "s", HOFFSET(rec, s), s3);
    H5Tinsert(ct, "v", HOFFSET(rec, v), f2);
    H5Tinsert(ct, "in", sizeof(rec), in);
    err_reset();
    json_t *sj = ncztr_struct_from_hdf5(ct, "ct");
    char *txt = sj ? ncztr_json_dump(sj) : NULL;
    const char *want =
        "[[\"a\",\"<i2\"],[\"x\",\"<f8\"],[\"s\",\"|S3\"],[\"v\",\"<f4\",[2]],[\"in\",[[\"p\",\">u2\"],"
        "[\"q\",\"<i4\"]]]]";
    CHECK(txt && !strcmp(txt, want), "structured dtype of a compound: %s", txt ? txt : g_err);
    free(txt);
    hid_t st = ncztr_ctype_storage(ct, "ct");
    CHECK(st >= 0 && H5Tget_size(st) == 2 + 8 + 3 + 8 + 2 + 4, "packed size");
    hid_t back = sj ? ncztr_struct_to_hdf5(sj, "ct") : -1;
    /* same layout (string padding is the application's in the packed type) */
    json_t *sj2 = back >= 0 ? ncztr_struct_from_hdf5(back, "back") : NULL;
    CHECK(back >= 0 && st >= 0 && H5Tget_size(back) == H5Tget_size(st) && sj2 && json_equal(sj, sj2),
          "parsed structured dtype = packed type");
    json_decref(sj2);
    if (back >= 0)
        H5Tclose(back);
    /* .zarray with a structured dtype: parse, fill (Base64), dump back the same */
    {
        const char *za_txt =
            "{\"zarr_format\": 2, \"shape\": [5], \"dtype\": [[\"a\",\"<i2\"],[\"b\",\"|S2\"]], "
            "\"chunks\": [2], \"fill_value\": \"AQBhYg==\", \"order\": \"C\", \"compressor\": null, "
            "\"filters\": null}";
        ncztr_zarray za;
        err_reset();
        CHECK(ncztr_zarray_parse(".zarray", za_txt, strlen(za_txt), &za) == 0, "structured .zarray: %s",
              g_err);
        CHECK(za.dtype.tclass == NCZTR_T_STRUCT && za.dtype.size == 4 && za.has_fill &&
                  !memcmp(za.fill, "\1\0ab", 4),
              "structured dtype parsed");
        char *d = ncztr_zarray_dump(&za);
        CHECK(d && !strcmp(d, za_txt), "structured .zarray dumps back: %s", d ? d : g_err);
        free(d);
        ncztr_zarray_clear(&za);
    }
    /* exact types: Base64 of H5Tencode */
    char *b64 = ncztr_type_encode(ct, "ct");
    hid_t dec = b64 ? ncztr_type_decode(b64, "ct") : -1;
    CHECK(dec >= 0 && H5Tequal(dec, ct) > 0, "kept type decodes");
    if (dec >= 0)
        H5Tclose(dec);
    if (b64) {
        b64[10] = b64[10] == 'A' ? 'B' : 'A';
        err_reset();
        H5E_BEGIN_TRY
        {
            dec = ncztr_type_decode(b64, "ct");
        }
        H5E_END_TRY
        if (dec >= 0)
            H5Tclose(dec);
        /* a flipped byte may still decode to some type; it must never crash */
    }
    free(b64);
    err_reset();
    CHECK_FAILS(ncztr_type_decode("not base64!", "k") < 0, "k", "Base64");
    err_reset();
    CHECK_FAILS(ncztr_type_decode("AAAAAAAAAAAA", "k") < 0, "k", "not an encoded HDF5 datatype");
    /* compound attribute: two records, a list of objects; back the same bytes */
    {
        unsigned char buf[2][sizeof(rec) + 8];
        memset(buf, 0, sizeof buf);
        for (int i = 0; i < 2; i++) {
            rec r = {(short)(i - 5), i + 0.25, "ab", {1.5f, (float)i}};
            memcpy(buf[i], &r, sizeof r);
            unsigned short p = 65535;
            int q = -i;
            H5Tconvert(H5T_NATIVE_USHORT, H5T_STD_U16BE, 1, &p, NULL, H5P_DEFAULT);
            memcpy(buf[i] + sizeof(rec), &p, 2);
            memcpy(buf[i] + sizeof(rec) + 4, &q, 4);
        }
        hsize_t n = 2;
        ncztr_attrval v = {ct, H5Screate_simple(1, &n, NULL), 2, buf, 0};
        json_t *j = NULL;
        char dtype[NCZTR_DTYPE_MAX];
        err_reset();
        CHECK(ncztr_attr_to_json("c", &v, &j, dtype) == 0 && !strcmp(dtype, ">S1"), "compound attr: %s",
              g_err);
        char *t = j ? ncztr_json_dump(j) : NULL;
        CHECK(t && strstr(t,
                          "{\"a\": -5, \"x\": 0.25, \"s\": \"ab\", \"v\": [1.5,0.0], \"in\": {\"p\": 65535, "
                          "\"q\": 0}}"),
              "compound attr JSON: %s", t ? t : "(null)");
        free(t);
        ncztr_attrval out;
        CHECK(j && ncztr_cattr_from_json("c", j, ct, false, &out) == 0 && out.nelem == 2 &&
                  H5Sget_simple_extent_type(out.space) == H5S_SIMPLE,
              "compound attr decodes");
        for (int i = 0; i < 2 && out.data; i++) {
            rec a, b;
            memcpy(&a, buf[i], sizeof a);
            memcpy(&b, (unsigned char *)out.data + i * sizeof buf[0], sizeof b);
            CHECK(a.a == b.a && a.x == b.x && !memcmp(a.s, b.s, 3) && a.v[0] == b.v[0] && a.v[1] == b.v[1] &&
                      !memcmp(buf[i] + sizeof(rec),
                              (unsigned char *)out.data + i * sizeof buf[0] + sizeof(rec), 8),
                  "compound attr record %d round-trips", i);
        }
        ncztr_attrval_clear(&out);
        /* a record missing a member is an error naming it */
        json_t *bad = json_loads("{\"a\": 1}", 0, NULL);
        err_reset();
        CHECK_FAILS(ncztr_cattr_from_json("c", bad, ct, false, &out) < 0, "attribute \"c\"", "member \"x\"");
        json_decref(bad);
        json_decref(j);
        H5Sclose(v.space);
    }
    /* enum attribute: integers with the base dtype */
    {
        hid_t et = H5Tenum_create(H5T_STD_I16BE);
        short vals[2] = {3, 9};
        H5Tenum_insert(et, "three", &vals[0]);
        H5Tenum_insert(et, "nine", &vals[1]);
        unsigned char data[4];
        H5Tconvert(H5T_NATIVE_SHORT, H5T_STD_I16BE, 2, vals, NULL, H5P_DEFAULT);
        memcpy(data, vals, 4);
        hsize_t n = 2;
        ncztr_attrval v = {et, H5Screate_simple(1, &n, NULL), 2, data, 0};
        json_t *j = NULL;
        char dtype[NCZTR_DTYPE_MAX];
        CHECK(ncztr_attr_to_json("e", &v, &j, dtype) == 0 && !strcmp(dtype, ">i2"), "enum attr dtype %s",
              dtype);
        char *t = j ? ncztr_json_dump(j) : NULL;
        CHECK(t && !strcmp(t, "[3,9]"), "enum attr JSON %s", t ? t : "(null)");
        free(t);
        ncztr_attrval out;
        CHECK(j && ncztr_cattr_from_json("e", j, et, false, &out) == 0 && out.nelem == 2 &&
                  !memcmp(out.data, data, 4) && H5Tget_class(out.type) == H5T_ENUM,
              "enum attr decodes");
        ncztr_attrval_clear(&out);
        json_decref(j);
        H5Sclose(v.space);
        H5Tclose(et);
    }
    /* array attribute: scalar = nested lists, 1-D = one more level */
    {
        hsize_t d[2] = {2, 2};
        hid_t at = H5Tarray_create2(H5T_NATIVE_INT, 2, d);
        json_t *sc = json_loads("[[1,2],[3,4]]", 0, NULL), *l = json_loads("[[[1,2],[3,4]]]", 0, NULL);
        ncztr_attrval o1, o2;
        CHECK(ncztr_cattr_from_json("a", sc, at, false, &o1) == 0 &&
                  H5Sget_simple_extent_type(o1.space) == H5S_SCALAR && ((int *)o1.data)[3] == 4,
              "scalar array attr");
        CHECK(ncztr_cattr_from_json("a", l, at, false, &o2) == 0 &&
                  H5Sget_simple_extent_type(o2.space) == H5S_SIMPLE && o2.nelem == 1 &&
                  ((int *)o2.data)[2] == 3,
              "1-D array attr");
        ncztr_attrval_clear(&o1);
        ncztr_attrval_clear(&o2);
        json_decref(sc);
        json_decref(l);
        H5Tclose(at);
    }
    json_decref(sj);
    if (st >= 0)
        H5Tclose(st);
    H5Tclose(ct);
    H5Tclose(f2);
    H5Tclose(s3);
    H5Tclose(in);
}

/* Raw numbers (one "|V<n>" field, Base64 in JSON) and values with variable-length parts
 * (JSON lists and strings, converted through JSON without sharing memory). */
static void test_raw_and_parts(void)
{
    hid_t vax = H5Tcopy(H5T_IEEE_F64LE), ld = H5Tcopy(H5T_NATIVE_LDOUBLE), op = H5Tcreate(H5T_OPAQUE, 3);
    H5Tset_order(vax, H5T_ORDER_VAX);
    CHECK(ncztr_type_is_raw(vax) && ncztr_type_is_raw(op) && !ncztr_type_is_raw(H5T_IEEE_F32BE) &&
              !ncztr_type_is_raw(H5T_STD_B8LE) && ncztr_type_is_raw(ld) == (H5Tget_size(ld) != 8),
          "which types are raw");
    json_t *sj = ncztr_struct_from_hdf5(op, "op");
    char *txt = sj ? ncztr_json_dump(sj) : NULL;
    CHECK(txt && !strcmp(txt, "[[\"value\",\"|V3\"]]"), "raw structured dtype: %s", txt ? txt : g_err);
    hid_t back = sj ? ncztr_struct_to_hdf5(sj, "op") : -1;
    hid_t m = back >= 0 ? H5Tget_member_type(back, 0) : -1;
    CHECK(m >= 0 && H5Tget_class(m) == H5T_OPAQUE && H5Tget_size(m) == 3, "|V3 parses as opaque");
    unsigned char b[3] = {1, 2, 250}, b2[3] = {0};
    json_t *j = ncztr_celem_to_json(op, b, "op");
    CHECK(j && json_is_string(j) && !strcmp(json_string_value(j), "AQL6"), "raw as Base64");
    CHECK(j && ncztr_celem_from_json(op, j, b2, "op") == 0 && !memcmp(b, b2, 3), "raw back");
    json_decref(j);
    free(txt);
    json_decref(sj);
    if (m >= 0)
        H5Tclose(m);
    if (back >= 0)
        H5Tclose(back);

    /* {int i; char *s; hvl_t v} */
    typedef struct {
        int i;
        char *s;
        hvl_t v;
    } rec;
    hid_t vs = H5Tcopy(H5T_C_S1), vi = H5Tvlen_create(H5T_NATIVE_INT),
          rt = H5Tcreate(H5T_COMPOUND, sizeof(rec));
    H5Tset_size(vs, H5T_VARIABLE);
    H5Tinsert(rt, "i", HOFFSET(rec, i), H5T_NATIVE_INT);
    H5Tinsert(rt, "s", HOFFSET(rec, s), vs);
    H5Tinsert(rt, "v", HOFFSET(rec, v), vi);
    int seq[2] = {4, -5};
    rec in[2] = {{7, "x\xc3\xa9", {2, seq}}, {8, NULL, {0, NULL}}}, out[2];
    CHECK(ncztr_type_has_parts(rt) && ncztr_cattr_is_special(rt) && ncztr_cvalue_check(rt, "rt") == 0,
          "a compound with variable-length parts is kept as JSON");
    j = ncztr_celem_to_json(rt, &in[0], "rt");
    txt = j ? ncztr_json_dump(j) : NULL;
    CHECK(txt && !strcmp(txt, "{\"i\": 7, \"s\": \"x\xc3\xa9\", \"v\": [4,-5]}"), "record JSON: %s",
          txt ? txt : g_err);
    free(txt);
    json_decref(j);
    CHECK(ncztr_cvalue_convert(rt, in, rt, out, 2, "rt") == 0 && out[0].i == 7 && out[0].s != in[0].s &&
              !strcmp(out[0].s, in[0].s) && out[0].v.len == 2 && out[0].v.p != seq &&
              ((int *)out[0].v.p)[1] == -5 && out[1].s == NULL && out[1].v.len == 0,
          "converted through JSON into memory of its own");
    ncztr_refval_free(rt, out, 2);
    /* a value that does not fit: freed, zeroed, the reason named */
    hid_t small = H5Tcreate(H5T_COMPOUND, sizeof(rec));
    hid_t vc = H5Tvlen_create(H5T_NATIVE_SCHAR);
    H5Tinsert(small, "s", HOFFSET(rec, s), vs);
    H5Tinsert(small, "v", HOFFSET(rec, v), vc);
    int big[1] = {1000};
    rec bad = {0, "keep", {1, big}};
    err_reset();
    CHECK_FAILS(ncztr_cvalue_convert(rt, &bad, small, out, 1, "rt") < 0 && out[0].s == NULL, "rt", "1000");
    /* a scalar sequence attribute: one element that is a list, told from a list of elements
     * by its nesting, or (an empty sequence) by the kept shape [] */
    json_t *l = json_loads("[1,2,3]", 0, NULL), *e = json_loads("[]", 0, NULL);
    ncztr_attrval v1, v2, v3;
    CHECK(ncztr_cattr_from_json("q", l, vi, false, &v1) == 0 &&
              H5Sget_simple_extent_type(v1.space) == H5S_SCALAR && ((hvl_t *)v1.data)[0].len == 3,
          "scalar sequence attribute");
    CHECK(ncztr_cattr_from_json("q", e, vi, true, &v2) == 0 &&
              H5Sget_simple_extent_type(v2.space) == H5S_SCALAR && v2.nelem == 1 &&
              ((hvl_t *)v2.data)[0].len == 0,
          "scalar empty sequence");
    CHECK(ncztr_cattr_from_json("q", e, vi, false, &v3) == 0 && v3.nelem == 0,
          "without the hint: no elements");
    ncztr_attrval_clear(&v1);
    ncztr_attrval_clear(&v2);
    ncztr_attrval_clear(&v3);
    json_decref(l);
    json_decref(e);
    H5Tclose(vc);
    H5Tclose(small);
    H5Tclose(rt);
    H5Tclose(vi);
    H5Tclose(vs);
    H5Tclose(op);
    H5Tclose(ld);
    H5Tclose(vax);
}

int main(void)
{
    hsize_t types0 = 0, types1 = 0;
    H5open();
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    H5Inmembers(H5I_DATATYPE, &types0);
    test_ctypes();
    test_raw_and_parts();
    H5Inmembers(H5I_DATATYPE, &types1);
    CHECK(types1 == types0, "open datatype ids: %llu -> %llu", (unsigned long long)types0,
          (unsigned long long)types1);
    ncz_err_term();
    H5close();
    TEST_MAIN_END();
}
