/* Unit tests of zmap: keys, URLs, the directory store, the zip store, and the real sample
 * archives written by netCDF-C and zarr-python.
 * REQUIRE evaluates its condition twice, so calls with effects are made before it. */
#include "ncz_test.h"
#include "nczm.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zip.h>

#ifndef NCZ_SAMPLES_DIR
#error "NCZ_SAMPLES_DIR (the fixtures folder, test/data) is set by the build"
#endif

static char scratch[4096];

/* ---------------------------------------------------------------- helpers */

static int rm_cb(const char *path, const struct stat *sb, int type, struct FTW *ftw)
{
    (void)sb;
    (void)type;
    (void)ftw;
    chmod(path, 0700); /* undo the read-only test directories */
    return remove(path);
}

static void rm_rf(const char *path)
{
    nftw(path, rm_cb, 16, FTW_DEPTH | FTW_PHYS);
}

static char *spath(const char *name)
{
    static char buf[8][4200];
    static int next;
    char *b = buf[next++ % 8];
    snprintf(b, sizeof buf[0], "%s/%s", scratch, name);
    return b;
}

static void put_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

static int path_exists(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0;
}

static nczm_status open_path(const char *name, unsigned flags, nczm_map **map, char *err)
{
    nczm_url url;
    nczm_status st = nczm_url_parse(name, &url, err);
    if (st)
        return st;
    st = nczm_open(&url, flags, map, err);
    nczm_url_clear(&url);
    return st;
}

static nczm_status destroy_path(const char *name, char *err)
{
    nczm_url url;
    nczm_status st = nczm_url_parse(name, &url, err);
    if (st)
        return st;
    st = nczm_destroy(&url, err);
    nczm_url_clear(&url);
    return st;
}

static int probe_path(const char *name)
{
    nczm_url url;
    if (nczm_url_parse(name, &url, NULL))
        return -1;
    int r = nczm_probe(&url);
    nczm_url_clear(&url);
    return r;
}

/* Does the list equal the NULL-terminated names, in order? */
static int list_is(const nczm_list *l, const char *const *names)
{
    size_t n = 0;
    while (names[n])
        n++;
    if (l->count != n)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (strcmp(l->names[i], names[i]) != 0)
            return 0;
    return 1;
}

static int list_has(const nczm_list *l, const char *name)
{
    for (size_t i = 0; i < l->count; i++)
        if (strcmp(l->names[i], name) == 0)
            return 1;
    return 0;
}

static char *list_str(const nczm_list *l)
{
    static char buf[2048];
    size_t o = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < l->count && o < sizeof buf - 1; i++)
        o += (size_t)snprintf(buf + o, sizeof buf - o, "%s%s", i ? "," : "", l->names[i]);
    return buf;
}

static int search_is(nczm_map *m, const char *prefix, const char *const *names)
{
    nczm_list l = {0, NULL};
    nczm_status st = nczm_search(m, prefix, &l);
    int ok = st == NCZM_OK && list_is(&l, names);
    if (!ok)
        fprintf(stderr, "  search(\"%s\") = %d [%s]\n", prefix, st, list_str(&l));
    nczm_list_clear(&l);
    return ok;
}

/* ---------------------------------------------------------------- keys and URLs */

static void test_keys(void)
{
    const char *good[] = {"a",   ".zgroup", "a/b", "sub/temp/.zarray", "temp/0.1", "..a",
                          "a..", "a/.b/c",  "é/x"};
    for (size_t i = 0; i < sizeof good / sizeof *good; i++)
        CHECK(nczm_key_validate(good[i]) == NCZM_OK, "key \"%s\" should be valid", good[i]);
    const char *bad[] = {"",    "/a",   "a/",     "a//b",  "a/../b",    "..",   ".", "a/./b",
                         "a/.", "../a", "a\001b", "a\x7f", "tab\there", "a\\b", "/"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        CHECK(nczm_key_validate(bad[i]) == NCZM_BADKEY, "key #%zu \"%s\" should be rejected", i, bad[i]);
    CHECK(nczm_key_validate(NULL) == NCZM_BADKEY, "NULL key");
    /* the generic check allows what some store can hold; each store has its own limit */
    char *longkey = malloc(65537);
    REQUIRE(longkey != NULL, "malloc");
    memset(longkey, 'k', 65537);
    longkey[65535] = '\0';
    CHECK(nczm_key_validate(longkey) == NCZM_OK, "65535-byte key passes the generic check");
    longkey[65535] = 'k';
    longkey[65536] = '\0';
    CHECK(nczm_key_validate(longkey) == NCZM_BADKEY, "65536-byte key is rejected");
    free(longkey);
    CHECK(strcmp(nczm_status_str(NCZM_NOTSTORE), "not a Zarr store") == 0, "status text");
    CHECK(*nczm_status_str((nczm_status)42) != '\0', "unknown status still has text");
}

static void check_url(const char *name, nczm_kind kind, const char *loc, const char *mode)
{
    nczm_url u;
    char err[NCZM_ERRLEN];
    nczm_status st = nczm_url_parse(name, &u, err);
    CHECK(st == NCZM_OK, "parse \"%s\": %d %s", name, st, err);
    if (st)
        return;
    CHECK(u.kind == kind, "parse \"%s\": kind %d, want %d", name, u.kind, kind);
    CHECK(strcmp(u.location, loc) == 0, "parse \"%s\": location \"%s\", want \"%s\"", name, u.location, loc);
    CHECK(strcmp(u.mode, mode) == 0, "parse \"%s\": mode \"%s\", want \"%s\"", name, u.mode, mode);
    nczm_url_clear(&u);
}

static void check_bad_url(const char *name)
{
    nczm_url u;
    char err[NCZM_ERRLEN] = "";
    nczm_status st = nczm_url_parse(name, &u, err);
    CHECK(st == NCZM_INVAL, "parse \"%s\" should fail, got %d", name ? name : "(null)", st);
    CHECK(err[0] != '\0', "parse \"%s\" failure has a message", name ? name : "(null)");
    CHECK(u.location == NULL && u.mode == NULL, "failed parse leaves nothing to free");
}

static void test_urls(void)
{
    check_url("/tmp/x.zarr", NCZM_KIND_FILE, "/tmp/x.zarr", "");
    check_url("rel/x.zarr/", NCZM_KIND_FILE, "rel/x.zarr", "");
    check_url("file:///tmp/x.zarr#mode=nczarr,file", NCZM_KIND_FILE, "/tmp/x.zarr", "nczarr,file");
    check_url("file:///tmp/x.zip#mode=nczarr,zip", NCZM_KIND_ZIP, "/tmp/x.zip", "nczarr,zip");
    check_url("file:///tmp/my%20data.zarr#mode=zarr,file,noxarray", NCZM_KIND_FILE, "/tmp/my data.zarr",
              "zarr,file,noxarray");
    check_url("file://localhost/tmp/x.zarr", NCZM_KIND_FILE, "/tmp/x.zarr", "");
    check_url("FILE:///tmp/x.zarr#log&mode=nczarr,file&show=fetch", NCZM_KIND_FILE, "/tmp/x.zarr",
              "nczarr,file");
    check_url("/data/sample.nczarr.zip", NCZM_KIND_ZIP, "/data/sample.nczarr.zip", "");
    check_url("/data/UPPER.ZIP", NCZM_KIND_ZIP, "/data/UPPER.ZIP", "");
    check_url("file:///tmp/x.zip#mode=nczarr,file", NCZM_KIND_FILE, "/tmp/x.zip", "nczarr,file");
    check_url("/tmp/plain#mode=nczarr,zip", NCZM_KIND_ZIP, "/tmp/plain", "nczarr,zip");
    check_url("/tmp/odd#name", NCZM_KIND_FILE, "/tmp/odd#name", "");
    check_url("s3://bucket/root#mode=nczarr,s3", NCZM_KIND_S3, "s3://bucket/root", "nczarr,s3");
    check_url("s3://bucket/root", NCZM_KIND_S3, "s3://bucket/root", "");
    check_url("https://host:9000/bucket/root#mode=nczarr,s3", NCZM_KIND_S3, "https://host:9000/bucket/root",
              "nczarr,s3");
    check_bad_url(NULL);
    check_bad_url("");
    check_bad_url("https://host/bucket/root");
    check_bad_url("https://host/bucket/root#mode=nczarr,file");
    check_bad_url("ftp://host/x");
    check_bad_url("file:///tmp/x#mode=file,zip");
    check_bad_url("file:///tmp/bad%zzname");
    check_bad_url("file:///tmp/nul%00name");
    check_bad_url("/tmp/x#mode=nczarr,s3");
    check_bad_url("file://");

    CHECK(nczm_mode_has("nczarr,zip", "zip"), "mode has zip");
    CHECK(nczm_mode_has("zarr, File ,noxarray", "file"), "mode words are trimmed and case-insensitive");
    CHECK(nczm_mode_has("zarr,file,noxarray", "noxarray"), "last word");
    CHECK(!nczm_mode_has("zarr,file", "nczarr"), "no substring matches");
    CHECK(!nczm_mode_has("", "file"), "empty mode");
    CHECK(!nczm_mode_has(NULL, "file"), "NULL mode");

    /* S3 parses but is not built. */
    nczm_url u;
    nczm_map *m = (nczm_map *)1;
    char err[NCZM_ERRLEN];
    nczm_status st = nczm_url_parse("s3://bucket/root", &u, err);
    REQUIRE(st == NCZM_OK, "parse s3");
    CHECK(nczm_open(&u, 0, &m, err) == NCZM_UNSUPPORTED && m == NULL, "S3 open is unsupported");
    CHECK(strstr(err, "S3 store not built yet") != NULL, "S3 message: %s", err);
    CHECK(nczm_destroy(&u, err) == NCZM_UNSUPPORTED, "S3 destroy is unsupported");
    CHECK(nczm_probe(&u) == 0, "S3 probe is quiet");
    nczm_url_clear(&u);
}

/* ---------------------------------------------------------------- both stores */

static void check_bad_keys(nczm_map *m)
{
    /* one byte over this store's own limit */
    static char longkey[65600];
    size_t lim = nczm_key_max(m);
    memset(longkey, 'k', lim + 1);
    longkey[lim + 1] = '\0';
    const char *bad[] = {"",  "/a",    "a/",      "a//b",        "a/../b", "..",
                         ".", "a/./b", "ctl\x02", "back\\slash", longkey};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        uint64_t len;
        void *buf;
        size_t n;
        char b[4];
        nczm_list l = {0, NULL};
        CHECK(nczm_exists(m, bad[i]) == NCZM_BADKEY, "exists bad key #%zu", i);
        CHECK(nczm_len(m, bad[i], &len) == NCZM_BADKEY, "len bad key #%zu", i);
        CHECK(nczm_read(m, bad[i], 0, 1, b) == NCZM_BADKEY, "read bad key #%zu", i);
        CHECK(nczm_read_all(m, bad[i], &buf, &n) == NCZM_BADKEY, "read_all bad key #%zu", i);
        CHECK(nczm_write(m, bad[i], "x", 1) == NCZM_BADKEY, "write bad key #%zu", i);
        CHECK(nczm_delete(m, bad[i]) == NCZM_BADKEY, "delete bad key #%zu", i);
        CHECK(nczm_delete_tree(m, bad[i]) == NCZM_BADKEY, "delete_tree bad key #%zu", i);
        if (*bad[i])
            CHECK(nczm_search(m, bad[i], &l) == NCZM_BADKEY && l.count == 0, "search bad key #%zu", i);
    }
    nczm_write(m, "a//b", "x", 1);
    CHECK(strstr(nczm_errmsg(m), "\"a//b\"") && strstr(nczm_errmsg(m), nczm_map_location(m)),
          "bad key message quotes key and store: %s", nczm_errmsg(m));
    nczm_write(m, "ctl\x02", "x", 1);
    CHECK(strstr(nczm_errmsg(m), "\\x02") != NULL, "control byte is escaped in message: %s", nczm_errmsg(m));
}

static void fill_store(nczm_map *m)
{
    CHECK(nczm_write(m, ".zgroup", "{\"zarr_format\": 2}", 18) == NCZM_OK, "write .zgroup: %s",
          nczm_errmsg(m));
    CHECK(nczm_write(m, "a/b/c", "0123456789", 10) == NCZM_OK, "write a/b/c: %s", nczm_errmsg(m));
    CHECK(nczm_write(m, "a/d", "dd", 2) == NCZM_OK, "write a/d: %s", nczm_errmsg(m));
    CHECK(nczm_write(m, "x", NULL, 0) == NCZM_OK, "write empty x: %s", nczm_errmsg(m));
}

/* nczm_get_into_many: exact fit, room to spare (a short object), too long, empty, missing,
 * a prefix, bad keys, no buffer. */
static void check_get_into(nczm_map *m, const char *abc)
{
    size_t alen = strlen(abc);
    char b[5][32];
    memset(b, '#', sizeof b);
    nczm_getinto g[6] = {
        {.key = "a/b/c", .buf = b[0], .cap = alen},     {.key = "a/b/c", .buf = b[1], .cap = sizeof b[1]},
        {.key = "a/b/c", .buf = b[2], .cap = alen - 1}, {.key = "x", .buf = b[3], .cap = 4},
        {.key = "missing", .buf = b[4], .cap = 4},      {.key = "a/d", .buf = NULL, .cap = 0},
    };
    nczm_status st = nczm_get_into_many(m, 6, g);
    CHECK(st == NCZM_LONG, "get_into_many reports the long object: %d", st);
    CHECK(strstr(nczm_errmsg(m), "\"a/b/c\"") != NULL, "long message names the key: %s", nczm_errmsg(m));
    CHECK(g[0].status == NCZM_OK && g[0].len == alen && memcmp(b[0], abc, alen) == 0 && b[0][alen] == '#',
          "get_into exact fit: %d", g[0].status);
    CHECK(g[1].status == NCZM_OK && g[1].len == alen && memcmp(b[1], abc, alen) == 0 && b[1][alen] == '#',
          "get_into a shorter object than the buffer (no NUL appended)");
    CHECK(g[2].status == NCZM_LONG && g[2].len == alen, "get_into a longer object: %d len %zu", g[2].status,
          g[2].len);
    CHECK(g[3].status == NCZM_OK && g[3].len == 0 && b[3][0] == '#', "get_into an empty object");
    CHECK(g[4].status == NCZM_NOTFOUND && g[4].len == 0, "get_into a missing key");
    CHECK(g[5].status == NCZM_LONG && g[5].len == 2, "get_into without room: %d", g[5].status);

    nczm_getinto h[3] = {{.key = "a/b", .buf = b[0], .cap = 32},
                         {.key = "a//b", .buf = b[1], .cap = 32},
                         {.key = "a/d", .buf = b[2], .cap = 32}};
    CHECK(nczm_get_into_many(m, 3, h) == NCZM_BADKEY, "get_into_many with a bad key");
    CHECK(strstr(nczm_errmsg(m), "a//b") != NULL, "bad key message: %s", nczm_errmsg(m));
    CHECK(h[0].status == NCZM_NOTFOUND, "get_into of a prefix is not found");
    CHECK(h[1].status == NCZM_BADKEY && h[2].status == NCZM_OK && h[2].len == 2 && memcmp(b[2], "dd", 2) == 0,
          "a bad key does not stop the others");

    nczm_getinto nb = {.key = "a/d", .buf = NULL, .cap = 8};
    CHECK(nczm_get_into_many(m, 1, &nb) == NCZM_INVAL && nb.status == NCZM_INVAL,
          "get_into without a buffer");
    CHECK(nczm_get_into_many(m, 0, NULL) == NCZM_OK, "empty get_into batch");
    CHECK(nczm_get_into_many(m, 1, NULL) == NCZM_INVAL, "get_into_many without requests");
    CHECK(nczm_get_into_many(NULL, 1, h) == NCZM_INVAL, "get_into_many without a map");
}

static void check_contents(nczm_map *m, const char *abc)
{
    uint64_t len = 99;
    size_t alen = strlen(abc);
    CHECK(nczm_exists(m, ".zgroup") == NCZM_OK, "exists .zgroup");
    CHECK(nczm_exists(m, "a") == NCZM_NOTFOUND, "a prefix is not an object");
    CHECK(nczm_exists(m, "nope") == NCZM_NOTFOUND, "exists nope");
    CHECK(nczm_len(m, "a/b/c", &len) == NCZM_OK && len == alen, "len a/b/c = %llu", (unsigned long long)len);
    CHECK(nczm_len(m, "x", &len) == NCZM_OK && len == 0, "len of empty object");
    CHECK(nczm_len(m, "a/b", &len) == NCZM_NOTFOUND, "len of a prefix");
    CHECK(nczm_len(m, "a/zz", &len) == NCZM_NOTFOUND, "len of missing");

    char buf[16] = {0};
    CHECK(nczm_read(m, "a/b/c", 2, 3, buf) == NCZM_OK && memcmp(buf, abc + 2, 3) == 0, "ranged read: %s",
          nczm_errmsg(m));
    CHECK(nczm_read(m, "a/b/c", alen, 0, buf) == NCZM_OK, "empty read at the end");
    CHECK(nczm_read(m, "a/b/c", alen - 2, 3, buf) == NCZM_SHORT, "read past the end");
    CHECK(strstr(nczm_errmsg(m), "a/b/c") != NULL, "short message names key: %s", nczm_errmsg(m));
    CHECK(nczm_read(m, "a/b/c", alen + 5, 0, buf) == NCZM_SHORT, "start past the end");
    CHECK(nczm_read(m, "a/b", 0, 1, buf) == NCZM_NOTFOUND, "read of a prefix");

    void *data = NULL;
    size_t n = 0;
    CHECK(nczm_read_all(m, "a/b/c", &data, &n) == NCZM_OK && n == alen && memcmp(data, abc, n) == 0 &&
              ((char *)data)[n] == '\0',
          "read_all a/b/c");
    free(data);
    data = NULL;
    CHECK(nczm_read_all(m, "x", &data, &n) == NCZM_OK && n == 0 && data && ((char *)data)[0] == '\0',
          "read_all empty object");
    free(data);
    data = NULL;
    CHECK(nczm_read_all(m, "missing/key", &data, &n) == NCZM_NOTFOUND && data == NULL, "read_all missing");
    CHECK(strstr(nczm_errmsg(m), nczm_map_location(m)) && strstr(nczm_errmsg(m), "\"missing/key\""),
          "missing message names store and key: %s", nczm_errmsg(m));
    CHECK(nczm_read_all(m, "a", &data, &n) == NCZM_NOTFOUND, "read_all of a prefix");
    check_get_into(m, abc);
}

static void check_searches(nczm_map *m)
{
    CHECK(search_is(m, "", (const char *[]){".zgroup", "a", "x", NULL}), "search root");
    CHECK(search_is(m, "a", (const char *[]){"b", "d", NULL}), "search a");
    CHECK(search_is(m, "a/b", (const char *[]){"c", NULL}), "search a/b");
    CHECK(search_is(m, "nope", (const char *[]){NULL}), "search missing prefix");
    CHECK(search_is(m, "x", (const char *[]){NULL}), "search of an object");
}

static void check_batches(nczm_map *m)
{
    nczm_get g[3] = {{.key = ".zgroup"}, {.key = "missing"}, {.key = "a/d"}};
    CHECK(nczm_get_many(m, 3, g) == NCZM_OK, "get_many with a missing key is OK overall");
    CHECK(g[0].status == NCZM_OK && g[0].len == 18 && strcmp(g[0].buf, "{\"zarr_format\": 2}") == 0, "get 0");
    CHECK(g[1].status == NCZM_NOTFOUND && g[1].buf == NULL, "get 1 notfound");
    CHECK(g[2].status == NCZM_OK && g[2].len == 2 && memcmp(g[2].buf, "dd", 2) == 0, "get 2");
    for (int i = 0; i < 3; i++)
        free(g[i].buf);

    nczm_get gb[2] = {{.key = "a//b"}, {.key = "a/d"}};
    CHECK(nczm_get_many(m, 2, gb) == NCZM_BADKEY && gb[0].status == NCZM_BADKEY && gb[1].status == NCZM_OK,
          "get_many with a bad key");
    CHECK(strstr(nczm_errmsg(m), "a//b") != NULL, "batch message names the bad key: %s", nczm_errmsg(m));
    free(gb[1].buf);

    nczm_put p[2] = {{.key = "batch/one", .buf = "1", .len = 1}, {.key = "batch/two", .buf = "22", .len = 2}};
    CHECK(nczm_put_many(m, 2, p) == NCZM_OK && p[0].status == NCZM_OK && p[1].status == NCZM_OK, "put_many");
    nczm_put pb[2] = {{.key = "batch/three", .buf = "3", .len = 1}, {.key = "..", .buf = "x", .len = 1}};
    CHECK(nczm_put_many(m, 2, pb) == NCZM_BADKEY && pb[0].status == NCZM_OK && pb[1].status == NCZM_BADKEY,
          "put_many with a bad key still writes the good one");
    CHECK(search_is(m, "batch", (const char *[]){"one", "three", "two", NULL}), "batch writes landed");
    CHECK(nczm_delete_tree(m, "batch") == NCZM_OK, "delete_tree batch");
    CHECK(nczm_get_many(m, 0, NULL) == NCZM_OK && nczm_put_many(m, 0, NULL) == NCZM_OK, "empty batches");
}

static void check_deletes(nczm_map *m)
{
    CHECK(nczm_write(m, "t/u/v", "v", 1) == NCZM_OK && nczm_write(m, "t/w", "w", 1) == NCZM_OK, "write t");
    CHECK(nczm_delete(m, "t/u") == NCZM_NOTFOUND, "delete of a prefix");
    CHECK(nczm_delete(m, "t/u/v") == NCZM_OK, "delete t/u/v");
    CHECK(nczm_delete(m, "t/u/v") == NCZM_NOTFOUND, "delete twice");
    CHECK(search_is(m, "t", (const char *[]){"w", NULL}), "emptied folder is gone");
    CHECK(nczm_write(m, "t/u/deep/er", "d", 1) == NCZM_OK, "write under t/u again");
    CHECK(nczm_delete_tree(m, "t") == NCZM_OK, "delete_tree t");
    CHECK(nczm_exists(m, "t/w") == NCZM_NOTFOUND && nczm_exists(m, "t/u/deep/er") == NCZM_NOTFOUND,
          "tree is gone");
    CHECK(search_is(m, "", (const char *[]){".zgroup", "a", "x", NULL}), "root after delete_tree");
    CHECK(nczm_delete_tree(m, "never/there") == NCZM_OK, "delete_tree of nothing");
    CHECK(nczm_delete_tree(m, "") == NCZM_BADKEY, "delete_tree of the root is refused");
    CHECK(nczm_write(m, "solo", "s", 1) == NCZM_OK && nczm_delete_tree(m, "solo") == NCZM_OK &&
              nczm_exists(m, "solo") == NCZM_NOTFOUND,
          "delete_tree of an object");
    /* A key cannot be both an object and a prefix. */
    CHECK(nczm_write(m, "x/y", "y", 1) != NCZM_OK, "write below an object");
    CHECK(nczm_write(m, "a", "a", 1) != NCZM_OK, "write over a prefix");
    CHECK(nczm_exists(m, "a/d") == NCZM_OK, "prefix survived the refused write");
}

static int content_is(nczm_map *m, const char *key, const char *text)
{
    void *buf = NULL;
    size_t n = 0;
    int ok = nczm_read_all(m, key, &buf, &n) == NCZM_OK && n == strlen(text) && memcmp(buf, text, n) == 0;
    free(buf);
    return ok;
}

/* nczm_rename_tree and nczm_copy_tree; the store is left as it was found. */
static void check_renames(nczm_map *m)
{
    nczm_status st;
    CHECK(nczm_write(m, "r/s/t/1", "one", 3) == NCZM_OK && nczm_write(m, "r/s/t/2", "two", 3) == NCZM_OK &&
              nczm_write(m, "r/s/u", "u", 1) == NCZM_OK && nczm_write(m, "r/v", "v", 1) == NCZM_OK,
          "write r: %s", nczm_errmsg(m));
    st = nczm_rename_tree(m, "r/s", "n/m/s2");
    CHECK(st == NCZM_OK, "rename_tree to new nested parents: %d %s", st, nczm_errmsg(m));
    CHECK(search_is(m, "n/m/s2", (const char *[]){"t", "u", NULL}), "search at the new place");
    CHECK(search_is(m, "n/m/s2/t", (const char *[]){"1", "2", NULL}), "search below the new place");
    CHECK(content_is(m, "n/m/s2/t/1", "one") && content_is(m, "n/m/s2/u", "u"), "read at the new place");
    CHECK(nczm_exists(m, "r/s/t/1") == NCZM_NOTFOUND && nczm_exists(m, "r/s/u") == NCZM_NOTFOUND,
          "nothing at the old place");
    CHECK(search_is(m, "r", (const char *[]){"v", NULL}), "old parent keeps its other children");
    CHECK(search_is(m, "r/s", (const char *[]){NULL}), "old prefix is gone");
    if (nczm_map_kind(m) == NCZM_KIND_FILE) {
        char p[4400];
        snprintf(p, sizeof p, "%s/r/s", nczm_map_location(m));
        CHECK(!path_exists(p), "old directory is gone from disk");
    }

    st = nczm_rename_tree(m, "r/nope", "q");
    CHECK(st == NCZM_NOTFOUND, "rename_tree of a missing source: %d", st);
    CHECK(strstr(nczm_errmsg(m), "r/nope") != NULL, "missing source message: %s", nczm_errmsg(m));
    CHECK(nczm_rename_tree(m, "r/v", "n/m/s2/u") == NCZM_EXISTS, "rename_tree onto an object");
    CHECK(nczm_rename_tree(m, "r/v", "n") == NCZM_EXISTS, "rename_tree onto a prefix");
    CHECK(strstr(nczm_errmsg(m), "exists") != NULL, "exists message: %s", nczm_errmsg(m));
    CHECK(nczm_rename_tree(m, "n/m", "n/m/x") == NCZM_INVAL, "rename_tree into itself");
    CHECK(nczm_rename_tree(m, "n/m", "n/m") == NCZM_INVAL, "rename_tree onto itself");
    CHECK(nczm_rename_tree(m, "r/v", "x/y") == NCZM_INVAL, "rename_tree below an object");
    CHECK(content_is(m, "r/v", "v") && content_is(m, "n/m/s2/t/2", "two"), "refused renames changed nothing");
    const char *bad[] = {"", "/a", "a/", "a//b", "a/../b", ".", "ctl\x02", NULL};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        CHECK(nczm_rename_tree(m, bad[i], "q") == NCZM_BADKEY, "rename_tree from bad key #%zu", i);
        CHECK(nczm_rename_tree(m, "r/v", bad[i]) == NCZM_BADKEY, "rename_tree to bad key #%zu", i);
        CHECK(nczm_copy_tree(m, bad[i], "q") == NCZM_BADKEY, "copy_tree from bad key #%zu", i);
    }
    CHECK(nczm_rename_tree(NULL, "a", "b") == NCZM_INVAL, "rename_tree without a map");

    /* One object, and a prefix whose parent prefix disappears with it. */
    CHECK(nczm_rename_tree(m, "r/v", "r2") == NCZM_OK && content_is(m, "r2", "v"),
          "rename_tree of an object");
    CHECK(search_is(m, "r", (const char *[]){NULL}), "emptied parent is gone");
    /* Moved back, the tree is as usable as before: write into it, then copy it. */
    CHECK(nczm_rename_tree(m, "n/m/s2", "r/s") == NCZM_OK, "rename_tree back: %s", nczm_errmsg(m));
    CHECK(search_is(m, "n", (const char *[]){NULL}), "emptied parents of the source are gone");
    CHECK(nczm_write(m, "r/s/t/3", "three", 5) == NCZM_OK, "write into the moved tree");
    st = nczm_copy_tree(m, "r/s", "c/s");
    CHECK(st == NCZM_OK, "copy_tree: %d %s", st, nczm_errmsg(m));
    CHECK(content_is(m, "c/s/t/1", "one") && content_is(m, "c/s/t/3", "three") && content_is(m, "c/s/u", "u"),
          "read the copy");
    CHECK(content_is(m, "r/s/t/1", "one") && content_is(m, "r/s/u", "u"), "the source of a copy stays");
    CHECK(nczm_copy_tree(m, "r/s", "c/s") == NCZM_EXISTS, "copy_tree onto an existing copy");
    CHECK(nczm_copy_tree(m, "r/s", "r/s/t") == NCZM_INVAL, "copy_tree into itself");
    CHECK(nczm_copy_tree(m, "zz", "zy") == NCZM_NOTFOUND, "copy_tree of a missing source");

    CHECK(nczm_delete_tree(m, "r") == NCZM_OK && nczm_delete_tree(m, "r2") == NCZM_OK &&
              nczm_delete_tree(m, "c") == NCZM_OK,
          "clean up the renames");
    CHECK(search_is(m, "", (const char *[]){".zgroup", "a", "x", NULL}), "root after the renames");
}

/* The whole life of a store of one kind at path (a plain path). */
static void exercise_store(const char *path, nczm_kind kind, unsigned extra)
{
    char err[NCZM_ERRLEN];
    nczm_map *m = NULL;
    nczm_status st = open_path(path, NCZM_CREATE | extra, &m, err);
    REQUIRE(st == NCZM_OK, "create %s: %d %s", path, st, err);
    CHECK(nczm_map_kind(m) == kind, "kind");
    CHECK(strcmp(nczm_map_location(m), path) == 0, "location %s", nczm_map_location(m));
    CHECK(!nczm_map_readonly(m), "writable");
    fill_store(m);
    check_contents(m, "0123456789");
    CHECK(nczm_write(m, "a/b/c", "ABCDEFGHIJKLMNOP", 16) == NCZM_OK, "overwrite longer");
    check_contents(m, "ABCDEFGHIJKLMNOP");
    CHECK(nczm_write(m, "a/b/c", "abcde", 5) == NCZM_OK, "overwrite shorter");
    check_contents(m, "abcde");
    check_searches(m);
    check_batches(m);
    check_deletes(m);
    check_renames(m);
    check_bad_keys(m);
    CHECK(nczm_close_err(m, err) == NCZM_OK, "close: %s", err);

    /* Reopen for writing: everything is back, and can be changed in place. */
    m = NULL;
    st = open_path(path, 0, &m, err);
    REQUIRE(st == NCZM_OK, "reopen %s: %d %s", path, st, err);
    check_contents(m, "abcde");
    check_searches(m);
    CHECK(nczm_write(m, "a/b/c", "0123456789", 10) == NCZM_OK, "overwrite an old object");
    check_contents(m, "0123456789");
    CHECK(nczm_write(m, "later", "L", 1) == NCZM_OK, "add to a reopened store");
    CHECK(nczm_close(m) == NCZM_OK, "close 2");

    /* Read-only: reads work, every write is refused. */
    m = NULL;
    st = open_path(path, NCZM_READONLY, &m, err);
    REQUIRE(st == NCZM_OK, "reopen read-only %s: %d %s", path, st, err);
    CHECK(nczm_map_readonly(m), "readonly flag");
    check_contents(m, "0123456789");
    CHECK(search_is(m, "", (const char *[]){".zgroup", "a", "later", "x", NULL}), "read-only search");
    CHECK(nczm_write(m, "new", "n", 1) == NCZM_PERM, "write on read-only");
    CHECK(strstr(nczm_errmsg(m), "read-only") != NULL, "read-only message: %s", nczm_errmsg(m));
    CHECK(nczm_delete(m, ".zgroup") == NCZM_PERM, "delete on read-only");
    CHECK(nczm_delete_tree(m, "a") == NCZM_PERM, "delete_tree on read-only");
    CHECK(nczm_rename_tree(m, "a", "moved") == NCZM_PERM, "rename_tree on read-only");
    CHECK(nczm_copy_tree(m, "a", "copied") == NCZM_PERM, "copy_tree on read-only");
    nczm_put p = {.key = "new", .buf = "n", .len = 1};
    CHECK(nczm_put_many(m, 1, &p) == NCZM_PERM && p.status == NCZM_PERM, "put_many on read-only");
    CHECK(nczm_exists(m, "a/d") == NCZM_OK, "nothing was deleted");
    CHECK(nczm_close(m) == NCZM_OK, "close 3");

    /* EXCL, then TRUNC. */
    m = NULL;
    CHECK(open_path(path, NCZM_CREATE | NCZM_EXCL | extra, &m, err) == NCZM_EXISTS && m == NULL, "EXCL");
    CHECK(strstr(err, path) != NULL, "EXCL message names the path: %s", err);
    CHECK(probe_path(path) == 1, "probe an existing store");
    st = open_path(path, NCZM_CREATE | NCZM_TRUNC | extra, &m, err);
    REQUIRE(st == NCZM_OK, "TRUNC %s: %d %s", path, st, err);
    CHECK(search_is(m, "", (const char *[]){NULL}), "TRUNC emptied the store");
    CHECK(nczm_write(m, ".zarray", "{}", 2) == NCZM_OK, "write after TRUNC");
    CHECK(nczm_close(m) == NCZM_OK, "close 4");
    CHECK(probe_path(path) == 1, "a root .zarray is a store too");

    CHECK(destroy_path(path, err) == NCZM_OK, "destroy: %s", err);
    CHECK(!path_exists(path), "destroyed");
    CHECK(probe_path(path) == 0, "probe after destroy");
    CHECK(open_path(path, NCZM_READONLY, &m, err) == NCZM_NOTFOUND, "open after destroy");
    CHECK(destroy_path(path, err) == NCZM_NOTFOUND, "destroy twice");
}

/* ---------------------------------------------------------------- the directory store */

static void test_file_store(void)
{
    exercise_store(spath("t1.zarr"), NCZM_KIND_FILE, 0);

    char err[NCZM_ERRLEN];
    nczm_map *m = NULL;
    nczm_status st;

    /* A file:// URL with a percent escape reaches the same directory. */
    char url[4400];
    mkdir(spath("with space.zarr"), 0777);
    snprintf(url, sizeof url, "file://%s/with%%20space.zarr#mode=nczarr,file", scratch);
    st = open_path(url, NCZM_CREATE, &m, err);
    CHECK(st == NCZM_OK, "create through a file:// URL into an empty directory: %s", err);
    if (m) {
        CHECK(nczm_write(m, ".zgroup", "{}", 2) == NCZM_OK, "write via URL");
        nczm_close(m);
    }
    CHECK(path_exists(spath("with space.zarr/.zgroup")), "URL path was decoded");

    /* Temporary files never show, and objects get ordinary permissions. */
    m = NULL;
    st = open_path(spath("with space.zarr"), 0, &m, err);
    REQUIRE(st == NCZM_OK, "reopen: %s", err);
    put_file(spath("with space.zarr/.nczm-tmp.crashed"), "junk");
    CHECK(nczm_write(m, "v/0", "data", 4) == NCZM_OK, "write v/0");
    CHECK(search_is(m, "", (const char *[]){".zgroup", "v", NULL}), "temp files are hidden");
    struct stat sb;
    CHECK(stat(spath("with space.zarr/v/0"), &sb) == 0 && (sb.st_mode & 0777) == 0644,
          "object mode 0644 under umask 022, got %o", (unsigned)(sb.st_mode & 0777));
    CHECK(stat(spath("with space.zarr/v"), &sb) == 0 && (sb.st_mode & 0777) == 0755, "directory mode 0755");
    CHECK(nczm_delete(m, "v/0") == NCZM_OK && !path_exists(spath("with space.zarr/v")),
          "deleting the last object removes its directory");
    nczm_close(m);

    /* Missing parent: no mkdir -p of the store's parent. */
    m = NULL;
    st = open_path(spath("no/such/parent/x.zarr"), NCZM_CREATE, &m, err);
    CHECK(st == NCZM_NOTFOUND && m == NULL, "create under a missing parent: %d", st);
    CHECK(strstr(err, "parent") && strstr(err, "no/such/parent"), "message names the parent: %s", err);
    CHECK(!path_exists(spath("no")), "nothing was created");
    CHECK(open_path(spath("nothing.zarr"), 0, &m, err) == NCZM_NOTFOUND, "open a missing store");
    CHECK(strstr(err, "nothing.zarr") != NULL, "message names the path: %s", err);

    /* A directory that is not a store is never opened, truncated or destroyed. */
    mkdir(spath("notstore"), 0777);
    put_file(spath("notstore/precious.txt"), "keep me");
    CHECK(open_path(spath("notstore"), NCZM_READONLY, &m, err) == NCZM_NOTSTORE,
          "open a non-store directory");
    CHECK(strstr(err, "notstore") != NULL, "message: %s", err);
    CHECK(open_path(spath("notstore"), NCZM_CREATE | NCZM_TRUNC, &m, err) == NCZM_NOTSTORE,
          "TRUNC refuses a non-store directory");
    CHECK(strstr(err, "refusing") != NULL, "message says so: %s", err);
    CHECK(open_path(spath("notstore"), NCZM_CREATE, &m, err) == NCZM_NOTSTORE, "CREATE into a non-store");
    CHECK(destroy_path(spath("notstore"), err) == NCZM_NOTSTORE, "destroy refuses a non-store directory");
    CHECK(strstr(err, "refusing") != NULL, "destroy message: %s", err);
    CHECK(path_exists(spath("notstore/precious.txt")), "the directory's content is untouched");
    CHECK(probe_path(spath("notstore")) == 0, "probe a non-store directory");

    /* A regular file is not a directory store. */
    put_file(spath("plain.txt"), "text");
    CHECK(open_path(spath("plain.txt"), NCZM_READONLY, &m, err) == NCZM_NOTSTORE, "open a regular file");
    CHECK(open_path(spath("plain.txt"), NCZM_CREATE | NCZM_TRUNC, &m, err) == NCZM_NOTSTORE,
          "TRUNC refuses a regular file");
    CHECK(strstr(err, "regular file") && strstr(err, "refusing"), "TRUNC message: %s", err);
    CHECK(destroy_path(spath("plain.txt"), err) == NCZM_NOTSTORE && path_exists(spath("plain.txt")),
          "destroy refuses a regular file");

    /* Read-only directory: writable open refused, read-only open works. Root can write
     * anyway, so the refusal is only checked for other users. */
    mkdir(spath("ro.zarr"), 0777);
    put_file(spath("ro.zarr/.zgroup"), "{\"zarr_format\": 2}");
    chmod(spath("ro.zarr"), 0555);
    if (geteuid() != 0) {
        st = open_path(spath("ro.zarr"), 0, &m, err);
        CHECK(st == NCZM_PERM && m == NULL, "writable open of a read-only directory: %d %s", st, err);
    }
    m = NULL;
    st = open_path(spath("ro.zarr"), NCZM_READONLY, &m, err);
    CHECK(st == NCZM_OK, "read-only open of a read-only directory: %s", err);
    if (m) {
        CHECK(search_is(m, "", (const char *[]){".zgroup", NULL}), "no temp file left behind");
        nczm_close(m);
    }
    chmod(spath("ro.zarr"), 0755);

    /* Bad flag combinations. */
    CHECK(open_path(spath("t2.zarr"), NCZM_TRUNC, &m, err) == NCZM_INVAL, "TRUNC without CREATE");
    CHECK(open_path(spath("t2.zarr"), NCZM_CREATE | NCZM_READONLY, &m, err) == NCZM_INVAL, "CREATE|READONLY");
    CHECK(open_path(spath("t2.zarr"), 0x1000, &m, err) == NCZM_INVAL, "unknown flags");
    CHECK(nczm_open(NULL, 0, &m, err) == NCZM_INVAL, "NULL url");
    CHECK(nczm_close(NULL) == NCZM_OK, "close NULL");
}

/* ---------------------------------------------------------------- the zip store */

/* The names in a zip archive, in order, joined with ',' (and whether all are stored). */
static char *zip_names(const char *path, int *all_stored)
{
    static char buf[4096];
    buf[0] = '\0';
    *all_stored = 1;
    int e;
    zip_t *za = zip_open(path, ZIP_RDONLY, &e);
    if (!za)
        return buf;
    size_t o = 0;
    for (zip_int64_t i = 0; i < zip_get_num_entries(za, 0); i++) {
        zip_stat_t zs;
        if (zip_stat_index(za, (zip_uint64_t)i, 0, &zs) != 0)
            continue;
        if (zs.comp_method != ZIP_CM_STORE)
            *all_stored = 0;
        o += (size_t)snprintf(buf + o, sizeof buf - o, "%s%s", o ? "," : "", zs.name);
    }
    zip_discard(za);
    return buf;
}

static void test_zip_store(void)
{
    exercise_store(spath("t1.zip"), NCZM_KIND_ZIP, 0);
    exercise_store(spath("t2root.zip"), NCZM_KIND_ZIP, NCZM_ZIP_ROOT);

    char err[NCZM_ERRLEN];
    nczm_map *m = NULL;
    int stored;

    /* Default layout: netCDF-C's folder, with directory entries, entries stored. */
    nczm_status st = open_path(spath("lay.nczarr.zip"), NCZM_CREATE, &m, err);
    REQUIRE(st == NCZM_OK, "create: %s", err);
    nczm_write(m, ".zgroup", "{\"zarr_format\": 2}", 18);
    nczm_write(m, "v/0.0", "abcd", 4);
    CHECK(nczm_close_err(m, err) == NCZM_OK, "close: %s", err);
    char *names = zip_names(spath("lay.nczarr.zip"), &stored);
    CHECK(strcmp(names, "lay.nczarr/,lay.nczarr/.zgroup,lay.nczarr/v/,lay.nczarr/v/0.0") == 0,
          "folder layout: %s", names);
    CHECK(stored, "entries are stored uncompressed");

    /* A renamed folder moves its directory entries; its new parent gets one. Entries are
     * renamed in place, so the archive holds no copy of the data. */
    m = NULL;
    st = open_path(spath("mv.zip"), NCZM_CREATE, &m, err);
    REQUIRE(st == NCZM_OK, "create: %s", err);
    nczm_write(m, ".zgroup", "{}", 2);
    nczm_write(m, "v/0.0", "abcd", 4);
    CHECK(nczm_rename_tree(m, "v", "g/w") == NCZM_OK, "zip rename_tree: %s", nczm_errmsg(m));
    CHECK(content_is(m, "g/w/0.0", "abcd"), "read a renamed entry written in this session");
    CHECK(nczm_close_err(m, err) == NCZM_OK, "close: %s", err);
    names = zip_names(spath("mv.zip"), &stored);
    CHECK(strcmp(names, "mv/,mv/.zgroup,mv/g/w/,mv/g/w/0.0,mv/g/") == 0, "renamed entries: %s", names);
    m = NULL;
    st = open_path(spath("mv.zip"), 0, &m, err);
    REQUIRE(st == NCZM_OK, "reopen: %s", err);
    CHECK(nczm_rename_tree(m, "g/w", "v2") == NCZM_OK, "rename an old entry: %s", nczm_errmsg(m));
    CHECK(content_is(m, "v2/0.0", "abcd") && search_is(m, "", (const char *[]){".zgroup", "v2", NULL}),
          "renamed old entry reads back, emptied folders are gone");
    CHECK(nczm_close_err(m, err) == NCZM_OK, "close: %s", err);
    names = zip_names(spath("mv.zip"), &stored);
    CHECK(strcmp(names, "mv/,mv/.zgroup,mv/v2/,mv/v2/0.0") == 0, "renamed old entries: %s", names);

    /* Root layout on request. */
    m = NULL;
    st = open_path(spath("root.zip"), NCZM_CREATE | NCZM_ZIP_ROOT, &m, err);
    REQUIRE(st == NCZM_OK, "create: %s", err);
    nczm_write(m, ".zgroup", "{}", 2);
    nczm_write(m, "v/0.0", "abcd", 4);
    nczm_close(m);
    names = zip_names(spath("root.zip"), &stored);
    CHECK(strcmp(names, ".zgroup,v/0.0") == 0, "root layout: %s", names);

    /* Reopened, the layout is detected, whatever the flags say. */
    m = NULL;
    st = open_path(spath("root.zip"), 0, &m, err);
    REQUIRE(st == NCZM_OK, "reopen root: %s", err);
    CHECK(search_is(m, "", (const char *[]){".zgroup", "v", NULL}), "root layout search");
    nczm_write(m, "w/1", "w", 1);
    nczm_close(m);
    names = zip_names(spath("root.zip"), &stored);
    CHECK(strcmp(names, ".zgroup,v/0.0,w/1") == 0, "root layout kept on modify: %s", names);

    /* A renamed netCDF-C archive: the lone top folder is used. */
    link(spath("lay.nczarr.zip"), spath("renamed.zip"));
    m = NULL;
    CHECK(open_path(spath("renamed.zip"), NCZM_READONLY, &m, err) == NCZM_OK, "open renamed: %s", err);
    if (m) {
        CHECK(search_is(m, "v", (const char *[]){"0.0", NULL}), "renamed archive search");
        nczm_close(m);
    }

    /* Compressed entries (other tools' archives) read in ranges too. */
    int ze;
    zip_t *za = zip_open(spath("deflated.zip"), ZIP_CREATE | ZIP_TRUNCATE, &ze);
    REQUIRE(za != NULL, "libzip create");
    static char big[100000];
    for (size_t i = 0; i < sizeof big; i++)
        big[i] = (char)('a' + (i * 7) % 26);
    zip_file_add(za, ".zgroup", zip_source_buffer(za, "{}", 2, 0), 0);
    zip_file_add(za, "big", zip_source_buffer(za, big, sizeof big, 0), 0);
    int zr = zip_close(za);
    REQUIRE(zr == 0, "libzip close");
    m = NULL;
    st = open_path(spath("deflated.zip"), NCZM_READONLY, &m, err);
    REQUIRE(st == NCZM_OK, "open deflated: %s", err);
    char part[100];
    CHECK(nczm_read(m, "big", 54321, sizeof part, part) == NCZM_OK &&
              memcmp(part, big + 54321, sizeof part) == 0,
          "ranged read of a deflated entry: %s", nczm_errmsg(m));
    void *all;
    size_t n;
    CHECK(nczm_read_all(m, "big", &all, &n) == NCZM_OK && n == sizeof big && memcmp(all, big, n) == 0,
          "read_all of a deflated entry");
    free(all);
    nczm_close(m);

    /* Missing parent, non-zip files, non-store archives. */
    m = NULL;
    CHECK(open_path(spath("no/parent/x.zip"), NCZM_CREATE, &m, err) == NCZM_NOTFOUND && m == NULL,
          "zip under a missing parent");
    CHECK(strstr(err, "no/parent") != NULL, "message names the parent: %s", err);
    put_file(spath("fake.zip"), "this is not a zip file");
    CHECK(open_path(spath("fake.zip"), NCZM_READONLY, &m, err) == NCZM_NOTSTORE, "open a non-zip: %s", err);
    CHECK(open_path(spath("fake.zip"), NCZM_CREATE | NCZM_TRUNC, &m, err) == NCZM_NOTSTORE,
          "TRUNC refuses a non-zip file");
    CHECK(destroy_path(spath("fake.zip"), err) == NCZM_NOTSTORE && path_exists(spath("fake.zip")),
          "destroy refuses a non-zip file");
    za = zip_open(spath("other.zip"), ZIP_CREATE | ZIP_TRUNCATE, &ze);
    REQUIRE(za != NULL, "libzip create");
    zip_file_add(za, "readme.txt", zip_source_buffer(za, "hi", 2, 0), 0);
    zip_close(za);
    CHECK(open_path(spath("other.zip"), NCZM_READONLY, &m, err) == NCZM_NOTSTORE, "zip without a store: %s",
          err);
    CHECK(destroy_path(spath("other.zip"), err) == NCZM_NOTSTORE && path_exists(spath("other.zip")),
          "destroy refuses a zip without a store");
    mkdir(spath("dir.zip"), 0777);
    CHECK(open_path(spath("dir.zip"), NCZM_READONLY, &m, err) == NCZM_NOTSTORE, "a directory named .zip");

    /* The archive is written at close, so that is where a failure to write shows. */
    mkdir(spath("doomed"), 0777);
    m = NULL;
    st = open_path(spath("doomed/x.zip"), NCZM_CREATE, &m, err);
    REQUIRE(st == NCZM_OK, "create doomed: %s", err);
    nczm_write(m, ".zgroup", "{}", 2);
    rm_rf(spath("doomed"));
    CHECK(nczm_close_err(m, err) == NCZM_IO, "close into a vanished directory fails");
    CHECK(strstr(err, "doomed/x.zip") != NULL, "close message names the archive: %s", err);

    /* A read-only archive cannot be opened for writing (root can write anyway). */
    if (geteuid() != 0) {
        chmod(spath("root.zip"), 0444);
        m = NULL;
        CHECK(open_path(spath("root.zip"), 0, &m, err) == NCZM_PERM && m == NULL,
              "writable open of a 0444 zip");
        CHECK(open_path(spath("root.zip"), NCZM_READONLY, &m, err) == NCZM_OK,
              "read-only open of a 0444 zip");
        nczm_close(m);
    }
}

/* ---------------------------------------------------------------- the samples */

static void test_samples(void)
{
    char err[NCZM_ERRLEN];
    nczm_map *m = NULL;
    uint64_t len;

    /* netCDF-C 4.9.3: everything under "sample.nczarr/", with directory entries. */
    const char *nc = NCZ_SAMPLES_DIR "/netcdf-c-4.9.3/sample.nczarr.zip";
    nczm_status st = open_path(nc, NCZM_READONLY, &m, err);
    REQUIRE(st == NCZM_OK, "open %s: %d %s", nc, st, err);
    nczm_list l = {0, NULL};
    CHECK(nczm_search(m, "", &l) == NCZM_OK && list_has(&l, ".zgroup") && list_has(&l, "sub") &&
              list_has(&l, "temp") && !list_has(&l, "sample.nczarr"),
          "netCDF-C root: [%s]", list_str(&l));
    nczm_list_clear(&l);
    CHECK(search_is(m, "sub", (const char *[]){".zattrs", ".zgroup", "big", "deeper", "flags", "v", NULL}),
          "netCDF-C sub");
    CHECK(search_is(m, "temp", (const char *[]){".zarray", ".zattrs", "0.0", "1.0", "2.0", NULL}), "temp");
    void *buf;
    size_t n;
    CHECK(nczm_read_all(m, ".zgroup", &buf, &n) == NCZM_OK && strstr(buf, "\"zarr_format\": 2"), ".zgroup");
    free(buf);
    CHECK(nczm_len(m, "time/0", &len) == NCZM_OK && len == 4096, "len time/0");
    unsigned char b[8];
    CHECK(nczm_read(m, "time/0", 4, 8, b) == NCZM_OK && b[0] == 1 && b[4] == 2, "ranged read of time/0");
    CHECK(nczm_exists(m, "sub") == NCZM_NOTFOUND, "a folder is not an object");
    CHECK(nczm_exists(m, "sub/deeper/d/0") == NCZM_OK, "deep object");
    nczm_close(m);
    char url[4400];
    snprintf(url, sizeof url, "file://%s#mode=nczarr,zip", nc);
    CHECK(probe_path(url) == 1, "probe via URL");

    /* zarr-python ZipStore: keys at the root, no directory entries. */
    const char *zp = NCZ_SAMPLES_DIR "/zarr-python/zipped.zip";
    m = NULL;
    st = open_path(zp, NCZM_READONLY, &m, err);
    REQUIRE(st == NCZM_OK, "open %s: %d %s", zp, st, err);
    CHECK(search_is(m, "", (const char *[]){".zattrs", ".zgroup", "v", NULL}), "zarr-python root");
    CHECK(search_is(m, "v", (const char *[]){".zarray", "0.0", "0.1", "1.0", "1.1", NULL}),
          "implied folder v");
    CHECK(nczm_len(m, "v/0.1", &len) == NCZM_OK && len == 48, "len v/0.1");
    CHECK(nczm_read_all(m, "v/.zarray", &buf, &n) == NCZM_OK && strstr(buf, "\"dtype\": \"<f8\""), ".zarray");
    free(buf);
    nczm_close(m);

    /* The netCDF-C directory store. */
    const char *dir = NCZ_SAMPLES_DIR "/netcdf-c-4.9.3/sample.nczarr.file";
    m = NULL;
    st = open_path(dir, NCZM_READONLY, &m, err);
    REQUIRE(st == NCZM_OK, "open %s: %d %s", dir, st, err);
    CHECK(nczm_search(m, "", &l) == NCZM_OK && list_has(&l, ".zgroup") && list_has(&l, "sub"),
          "dir root: [%s]", list_str(&l));
    nczm_list_clear(&l);
    CHECK(nczm_len(m, "time/0", &len) == NCZM_OK && len == 4096, "dir len time/0");
    nczm_close(m);
}

int main(void)
{
    umask(022);
    const char *tmp = getenv("TMPDIR");
    snprintf(scratch, sizeof scratch, "%s/test_zmap.XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(scratch)) {
        perror("mkdtemp");
        return EXIT_FAILURE;
    }
    test_keys();
    test_urls();
    test_file_store();
    test_zip_store();
    test_samples();
    rm_rf(scratch);
    TEST_MAIN_END();
}
