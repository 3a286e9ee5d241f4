/* Consolidated metadata as the loader reads it (translate/meta/ncztr_zmeta.c scans .zmetadata and
 * parses each entry when it is needed): escaped and repeated keys read as jansson reads
 * them, an entry that does not parse is read from the store instead, an entry that is not
 * an object is that object's error only, a .zmetadata that cannot be used at all is
 * ignored, and a store opened for writing keeps what it could not use. */
#include "vol_test_util.h"

static char dir[4096];

/* A consolidated NCZarr store: g/v1 = 7 with attribute units = "m", g/v2 = 9. */
static void make_store(const char *path)
{
    char url[4300];
    snprintf(url, sizeof url, "file://%s#mode=nczarr,file,consolidated", path);
    rm_rf(path);
    hid_t f = H5Fcreate(url, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    if (f < 0 || !is_nczarr(f)) {
        fprintf(stderr, "FAIL: cannot create %s with the connector\n", url);
        exit(1);
    }
    hid_t g = H5Gcreate2(f, "g", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), sp = H5Screate(H5S_SCALAR);
    int v[2] = {7, 9};
    for (int i = 0; i < 2; i++) {
        hid_t d = H5Dcreate2(g, i ? "v2" : "v1", H5T_STD_I32LE, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        H5Dwrite(d, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, &v[i]);
        if (!i) {
            hid_t t = H5Tcopy(H5T_C_S1);
            H5Tset_size(t, 1);
            hid_t a = H5Acreate2(d, "units", t, sp, H5P_DEFAULT, H5P_DEFAULT);
            H5Awrite(a, t, "m");
            H5Aclose(a);
            H5Tclose(t);
        }
        H5Dclose(d);
    }
    H5Sclose(sp);
    H5Gclose(g);
    H5Fclose(f);
}

static char *read_text(const char *path)
{
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return NULL;
    fseek(fp, 0, SEEK_END);
    long n = ftell(fp);
    fseek(fp, 0, SEEK_SET);
    char *s = malloc((size_t)n + 1);
    if (s && fread(s, 1, (size_t)n, fp) != (size_t)n) {
        free(s);
        s = NULL;
    }
    if (s)
        s[n] = '\0';
    fclose(fp);
    return s;
}

static void write_text(const char *path, const char *s)
{
    FILE *fp = fopen(path, "wb");
    if (!fp || fputs(s, fp) < 0 || fclose(fp) != 0) {
        fprintf(stderr, "FAIL: cannot write %s\n", path);
        exit(1);
    }
}

/* .zmetadata with [at, at + len) replaced by rep; at = the first match of find (+ skip). */
static void edit(const char *store, const char *find, size_t skip, size_t len, const char *rep)
{
    char zm[4300];
    snprintf(zm, sizeof zm, "%s/.zmetadata", store);
    char *s = read_text(zm);
    char *at = s ? strstr(s, find) : NULL;
    if (!at) {
        fprintf(stderr, "FAIL: \"%s\" not in %s\n", find, zm);
        exit(1);
    }
    at += skip;
    size_t head = (size_t)(at - s), rl = strlen(rep), tail = strlen(at + len);
    char *out = malloc(head + rl + tail + 1);
    memcpy(out, s, head);
    memcpy(out + head, rep, rl);
    memcpy(out + head + rl, at + len, tail + 1);
    write_text(zm, out);
    free(out);
    free(s);
}

/* The length of the JSON object value that follows `key": ` in .zmetadata. */
static size_t value_len(const char *store, const char *key)
{
    char zm[4300];
    snprintf(zm, sizeof zm, "%s/.zmetadata", store);
    char *s = read_text(zm);
    const char *p = s ? strstr(s, key) : NULL;
    size_t n = 0;
    if (p && (p = strchr(p + strlen(key), '{'))) {
        int depth = 0;
        do {
            depth += (p[n] == '{') - (p[n] == '}');
            n++;
        } while (depth > 0 && p[n]);
    }
    free(s);
    return n;
}

static int read_int(hid_t f, const char *name)
{
    int v = -1;
    hid_t d;
    H5E_BEGIN_TRY
    {
        d = H5Dopen2(f, name, H5P_DEFAULT);
    }
    H5E_END_TRY
    if (d >= 0) {
        H5Dread(d, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, &v);
        H5Dclose(d);
    }
    return v;
}

static bool has_attr(hid_t f, const char *obj, const char *attr)
{
    htri_t r;
    H5E_BEGIN_TRY
    {
        r = H5Aexists_by_name(f, obj, attr, H5P_DEFAULT);
    }
    H5E_END_TRY
    return r > 0;
}

static hid_t open_ro(const char *path)
{
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (f < 0)
        fprintf(stderr, "cannot open %s\n", path);
    return f;
}

static void test_unusable_file(const char *store)
{
    static const char *const texts[] = {"not JSON",
                                        "{\"zarr_consolidated_format\": 1}",
                                        "{\"metadata\": [], \"zarr_consolidated_format\": 1}",
                                        "{\"metadata\": {\"g/.zgroup\": {}",
                                        "[1, 2]",
                                        ""};
    char zm[4300];
    snprintf(zm, sizeof zm, "%s/.zmetadata", store);
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
        make_store(store);
        write_text(zm, texts[i]);
        hid_t f = open_ro(store);
        CHECK(f >= 0 && read_int(f, "g/v1") == 7 && read_int(f, "g/v2") == 9 && has_attr(f, "g/v1", "units"),
              "a .zmetadata of \"%s\" is ignored", texts[i]);
        if (f >= 0)
            H5Fclose(f);
    }
}

static void test_broken_entry(const char *store)
{
    /* the entry's JSON is cut short inside (its brackets still match): read from the store */
    make_store(store);
    edit(store, "\"g/v1/.zarray\": {", strlen("\"g/v1/.zarray\": {"), 0, "\"bad\": tru, ");
    hid_t f = open_ro(store);
    CHECK(f >= 0 && read_int(f, "g/v1") == 7, "an entry that does not parse is read from the store");
    if (f >= 0)
        H5Fclose(f);
}

static void test_not_object(const char *store)
{
    char zm[4300];
    snprintf(zm, sizeof zm, "%s/.zmetadata", store);
    make_store(store);
    const char *key = "\"g/v2/.zarray\": ";
    edit(store, key, strlen(key), value_len(store, key), "5");
    hid_t f = open_ro(store);
    REQUIRE(f >= 0, "open with a non-object entry");
    CHECK(read_int(f, "g/v1") == 7, "the other arrays stay readable");
    errtext_t et;
    hid_t d;
    H5E_BEGIN_TRY
    {
        d = H5Dopen2(f, "g/v2", H5P_DEFAULT);
        take_errors(&et);
    }
    H5E_END_TRY
    CHECK(d < 0 && nczarr_error_has(&et, "is not a JSON object"), "its array reports it:\n%s", et.text);
    H5Fclose(f);
    /* opened for writing, the entry it could not use is written back as it was */
    f = H5Fopen(store, H5F_ACC_RDWR, H5P_DEFAULT);
    REQUIRE(f >= 0, "open for writing");
    hid_t g = H5Gcreate2(f, "new", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    H5Gclose(g);
    CHECK(H5Fclose(f) >= 0, "close");
    char *s = read_text(zm);
    CHECK(s && strstr(s, "\"g/v2/.zarray\": 5") && strstr(s, "\"new/.zgroup\""),
          "rewritten .zmetadata keeps the entry and has the new group");
    free(s);
}

static void test_escaped_and_repeated(const char *store)
{
    /* "g\/v1\/.zattrs" and "g/v\u0031/.zarray" are the keys "g/v1/.zattrs" and
     * "g/v1/.zarray" */
    make_store(store);
    edit(store, "\"g/v1/.zattrs\"", 0, strlen("\"g/v1/.zattrs\""), "\"g\\/v1\\/.zattrs\"");
    edit(store, "\"g/v1/.zarray\"", 0, strlen("\"g/v1/.zarray\""), "\"g/v\\u0031/.zarray\"");
    hid_t f = open_ro(store);
    CHECK(f >= 0 && read_int(f, "g/v1") == 7 && has_attr(f, "g/v1", "units"), "escaped keys");
    if (f >= 0)
        H5Fclose(f);
    /* a key given twice: the last value counts, as in jansson */
    make_store(store);
    edit(store, "}, \"zarr_consolidated_format\"", 0, 0, ", \"g/v1/.zattrs\": {\"other\": 1}");
    f = open_ro(store);
    CHECK(f >= 0 && read_int(f, "g/v1") == 7 && has_attr(f, "g/v1", "other") && !has_attr(f, "g/v1", "units"),
          "a repeated key");
    if (f >= 0)
        H5Fclose(f);
}

int main(void)
{
    char store[4200];
    scratch_dir(dir, sizeof dir, "zmeta");
    snprintf(store, sizeof store, "%s/s.zarr", dir);
    test_unusable_file(store);
    test_broken_entry(store);
    test_not_object(store);
    test_escaped_and_repeated(store);
    rm_rf(dir);
    TEST_MAIN_END();
}
