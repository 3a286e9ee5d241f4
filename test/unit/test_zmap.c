/* Unit tests of zmap: keys, URLs, the directory store, the zip store, and the real sample
 * archives written by netCDF-C and zarr-python.
 * REQUIRE evaluates its condition twice, so calls with effects are made before it. */
#include "ncz_test.h"
#include "nczm.h"
#include "nczm_s3opts.h" /* the S3 driver's options as parsed */
#include "zmap_conformance.h"

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
    return ncz_test_path(scratch, name);
}

static void put_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

static nczm_status open_path(const char *name, unsigned flags, nczm_map **map, char *err)
{
    nczm_url url;
    nczm_status st = nczm_url_parse(name, &url, err);
    test_url_marks(&url);
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
    test_url_marks(&url);
    if (st)
        return st;
    st = nczm_destroy(&url, err);
    nczm_url_clear(&url);
    return st;
}

static int probe_path(const char *name)
{
    nczm_url url;
    if (nczm_url_parse(name, &url, NULL) != NCZM_OK)
        return -1;
    test_url_marks(&url);
    int r = nczm_probe(&url);
    nczm_url_clear(&url);
    return r;
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
    test_url_marks(&u);
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
    test_url_marks(&u);
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

    /* S3 options: from the fragment (netCDF-C's keys), and set by name. */
    nczm_url u;
    char err[NCZM_ERRLEN];
    nczm_status st =
        nczm_url_parse("s3://bucket/root#mode=nczarr,s3&AWS.PROFILE=lab&aws.region=eu-west-1", &u, err);
    REQUIRE(st == NCZM_OK, "parse s3 with fragment keys: %s", err);
    CHECK(nczm_s3_opts_of(&u)->profile && strcmp(nczm_s3_opts_of(&u)->profile, "lab") == 0,
          "aws.profile from the fragment");
    CHECK(nczm_s3_opts_of(&u)->region && strcmp(nczm_s3_opts_of(&u)->region, "eu-west-1") == 0,
          "aws.region from the fragment");
    CHECK(!nczm_s3_opts_of(&u)->endpoint && !nczm_s3_opts_of(&u)->access_key &&
              !nczm_s3_opts_of(&u)->secret_key && !nczm_s3_opts_of(&u)->anonymous,
          "the rest unset");
    CHECK(nczm_url_set(&u, "secret_key", "s3cr3tvalue", err) == NCZM_OK &&
              strcmp(nczm_s3_opts_of(&u)->secret_key, "s3cr3tvalue") == 0,
          "set secret_key");
    CHECK(nczm_url_set(&u, "anonymous", "yes", err) == NCZM_OK && nczm_s3_opts_of(&u)->anonymous == 1,
          "set anonymous");
    CHECK(nczm_url_set(&u, "multipart_threshold", "6291456", err) == NCZM_OK &&
              nczm_s3_opts_of(&u)->multipart_threshold == 6291456,
          "set multipart_threshold");
    CHECK(nczm_url_set(&u, "retry_seconds", "2", err) == NCZM_OK && nczm_s3_opts_of(&u)->retry_ms == 2000,
          "set retry_seconds");
    CHECK(nczm_url_set(&u, "max_keys", "5000", err) == NCZM_INVAL && strstr(err, "max_keys"),
          "max_keys range: %s", err);
    CHECK(nczm_url_set(&u, "anonymous", "maybe", err) == NCZM_INVAL, "anonymous needs a boolean");
    CHECK(nczm_url_set(&u, "colour", "red", err) == NCZM_INVAL && strstr(err, "colour"), "unknown option");
    CHECK(nczm_url_set(&u, "profile", "", err) == NCZM_OK && nczm_s3_opts_of(&u)->profile == NULL,
          "\"\" unsets");
    nczm_url_clear(&u);
    CHECK(u.opts == NULL && u.location == NULL, "clear frees the options");
    st = nczm_url_parse("s3://bucket/root#awsprofile=p2", &u, err);
    CHECK(st == NCZM_OK && nczm_s3_opts_of(&u)->profile && strcmp(nczm_s3_opts_of(&u)->profile, "p2") == 0,
          "awsprofile= (netCDF-C's docs)");
    nczm_url_clear(&u);
    /* One set of options serves every kind: another kind's option is checked, then ignored. */
    st = nczm_url_parse("/tmp/plain.zarr", &u, err);
    CHECK(st == NCZM_OK && nczm_url_set(&u, "endpoint", "http://127.0.0.1:1", err) == NCZM_OK && !u.opts,
          "an S3 option on a path is ignored: %s", err);
    CHECK(nczm_url_set(&u, "max_keys", "5000", err) == NCZM_INVAL && strstr(err, "max_keys"),
          "an S3 option on a path is still checked: %s", err);
    CHECK(nczm_url_set(&u, "colour", "red", err) == NCZM_INVAL && strstr(err, "colour"),
          "unknown option on a path: %s", err);
    nczm_url_clear(&u);
    CHECK(nczm_option_known("endpoint") == 1 && nczm_option_known("awsprofile") == 1 &&
              !nczm_option_known("colour") && nczm_option_known("secret_key") == NCZM_OPTION_SECRET,
          "options known by some kind");
    char names[512];
    nczm_option_names(names, sizeof names);
    CHECK(strstr(names, "S3: endpoint=") && strstr(names, "retry_seconds=") && !strstr(names, "secret"),
          "option names: %s", names);
    st = nczm_url_parse("/tmp/plain.zip", &u, err);
    CHECK(st == NCZM_OK && nczm_url_single_writer(&u), "a zip archive has one writer");
    nczm_url_clear(&u);
    st = nczm_url_parse("/tmp/plain.zarr", &u, err);
    CHECK(st == NCZM_OK && !nczm_s3_opts_of(&u)->profile && !nczm_s3_opts_of(&u)->region &&
              !nczm_s3_opts_of(&u)->cainfo,
          "a path has no S3 options");
    nczm_url_clear(&u);
}

/* ---------------------------------------------------------------- both stores */

/* The whole life of a store of one kind at path (a plain path). */
/* Gather lists on put and scatter lists on get_into: the directory store hands them to
 * the kernel (writev, preadv), other stores go through a buffer; the bytes are the same. */
static void check_iov(nczm_map *m)
{
    char a[] = "0123", b[] = "456789abc";
    struct iovec w[3] = {{a, 4}, {b, 0}, {b, 9}};
    nczm_put p[2] = {{.key = "iov/one", .iov = w, .iovcnt = 3, .len = 13},
                     {.key = "iov/two", .buf = "plain", .len = 5}};
    CHECK(nczm_put_many(m, 2, p) == NCZM_OK, "put_many with a gather list: %s", nczm_errmsg(m));
    char r1[2], r2[5], r3[6], r4[8];
    memset(r4, '-', sizeof r4);
    struct iovec v[4] = {{r1, 2}, {r2, 5}, {r3, 6}, {r4, 8}};
    nczm_getinto g[3] = {{.key = "iov/one", .iov = v, .iovcnt = 4, .cap = 21},
                         {.key = "iov/two", .iov = v, .iovcnt = 1, .cap = 2},
                         {.key = "iov/none", .iov = v, .iovcnt = 1, .cap = 2}};
    nczm_get_into_many(m, 3, g);
    CHECK(g[0].status == NCZM_OK && g[0].len == 13, "scatter: status %d, len %zu", g[0].status, g[0].len);
    CHECK(!memcmp(r1, "01", 2) && !memcmp(r2, "23456", 5) && !memcmp(r3, "789abc", 6) && r4[0] == '-',
          "scattered pieces");
    CHECK(g[1].status == NCZM_LONG && g[1].len == 5, "a longer object: status %d, len %zu", g[1].status,
          g[1].len);
    CHECK(g[2].status == NCZM_NOTFOUND, "a missing object: status %d", g[2].status);
    CHECK(nczm_delete_tree(m, "iov") == NCZM_OK, "delete the iov objects");
}

static void exercise_store(const char *path, nczm_kind kind, unsigned extra)
{
    char err[NCZM_ERRLEN];
    nczm_map *m = NULL;
    nczm_status st = open_path(path, NCZM_CREATE | extra, &m, err);
    REQUIRE(st == NCZM_OK, "create %s: %d %s", path, st, err);
    CHECK(nczm_map_kind(m) == kind, "kind");
    CHECK(strcmp(nczm_map_location(m), path) == 0, "location %s", nczm_map_location(m));
    CHECK(!nczm_map_readonly(m), "writable");
    check_store_life(m);
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
    check_iov(m);
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

/* A store that only its owner's privileges could write is refused for writing with
 * NCZM_PERM (run by ncz_run_unprivileged). */
static void refuse_writable_open(void *path)
{
    char err[NCZM_ERRLEN];
    nczm_map *m = NULL;
    nczm_status st = open_path(path, 0, &m, err);
    CHECK(st == NCZM_PERM && m == NULL, "writable open of %s: %d %s", (const char *)path, st, err);
    if (m)
        nczm_close(m);
}

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

    /* A regular file is not a directory store: opening and destroying refuse it, a create
     * without TRUNC too; a truncating create replaces it, as native HDF5 does. */
    put_file(spath("plain.txt"), "text");
    CHECK(open_path(spath("plain.txt"), NCZM_READONLY, &m, err) == NCZM_NOTSTORE, "open a regular file");
    CHECK(open_path(spath("plain.txt"), NCZM_CREATE, &m, err) == NCZM_NOTSTORE,
          "CREATE without TRUNC refuses a regular file");
    CHECK(strstr(err, "regular file") && strstr(err, "refusing"), "CREATE message: %s", err);
    CHECK(open_path(spath("plain.txt"), NCZM_CREATE | NCZM_EXCL, &m, err) == NCZM_EXISTS,
          "EXCL refuses a regular file");
    CHECK(destroy_path(spath("plain.txt"), err) == NCZM_NOTSTORE && path_exists(spath("plain.txt")),
          "destroy refuses a regular file");
    m = NULL;
    CHECK(open_path(spath("plain.txt"), NCZM_CREATE | NCZM_TRUNC, &m, err) == NCZM_OK && m,
          "TRUNC replaces a regular file: %s", err);
    if (m)
        nczm_close(m);
    struct stat psb;
    CHECK(stat(spath("plain.txt"), &psb) == 0 && S_ISDIR(psb.st_mode), "the file became a directory store");

    /* Read-only directory: writable open refused (as a user without privileges: root can
     * write anyway), read-only open works. */
    mkdir(spath("ro.zarr"), 0777);
    put_file(spath("ro.zarr/.zgroup"), "{\"zarr_format\": 2}");
    chmod(spath("ro.zarr"), 0555);
    ncz_run_unprivileged("writable open of a read-only directory", refuse_writable_open, spath("ro.zarr"));
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

/* An object built in pieces (nczm_obj_begin): pieces at offsets in any order land where
 * they were put, the object appears only at the commit, replaces one that was there, and
 * leaves nothing when abandoned; bad keys, a key below an object and a read-only store are
 * refused; a zip store does not build. */
static void test_obj_build(void)
{
    char err[NCZM_ERRLEN];
    nczm_map *m = NULL;
    REQUIRE(open_path(spath("build.zarr"), NCZM_CREATE | NCZM_TRUNC, &m, err) == NCZM_OK, "create: %s", err);
    CHECK(nczm_map_builds(m), "the directory store builds objects in pieces");
    static unsigned char want[3 * 4096 + 100];
    for (size_t i = 0; i < sizeof want; i++)
        want[i] = (unsigned char)(i * 7 + 1);
    nczm_obj *o = NULL;
    REQUIRE(nczm_obj_begin(m, "a/c/0/0", &o) == NCZM_OK && o, "begin: %s", nczm_errmsg(m));
    /* the tail first, then the middle from two pieces, then the head */
    struct iovec tail = {want + 3 * 4096, 100},
                 mid[2] = {{want + 4096, 1000}, {want + 5096, 3 * 4096 - 5096}};
    struct iovec head = {want, 4096};
    CHECK(nczm_obj_pwritev(o, &tail, 1, 100, 3 * 4096) == 0 &&
              nczm_obj_pwritev(o, mid, 2, 2 * 4096, 4096) == 0 && nczm_obj_pwritev(o, &head, 1, 4096, 0) == 0,
          "pieces written");
    CHECK(nczm_exists(m, "a/c/0/0") == NCZM_NOTFOUND, "nothing to see before the commit");
    CHECK(nczm_obj_commit(o) == NCZM_OK, "commit: %s", nczm_errmsg(m));
    void *buf = NULL;
    size_t len = 0;
    CHECK(nczm_read_all(m, "a/c/0/0", &buf, &len) == NCZM_OK && len == sizeof want && !memcmp(buf, want, len),
          "the object reads back whole (%zu bytes)", len);
    free(buf);
    /* a second one replaces it; an abandoned third leaves it as it is */
    REQUIRE(nczm_obj_begin(m, "a/c/0/0", &o) == NCZM_OK, "begin again");
    CHECK(nczm_obj_pwritev(o, &head, 1, 10, 0) == 0 && nczm_obj_commit(o) == NCZM_OK, "replace");
    CHECK(nczm_len(m, "a/c/0/0", &(uint64_t){0}) == NCZM_OK, "still there");
    REQUIRE(nczm_obj_begin(m, "a/c/0/0", &o) == NCZM_OK, "begin a third");
    CHECK(nczm_obj_pwritev(o, &tail, 1, 100, 0) == 0, "a piece");
    nczm_obj_abort(o);
    buf = NULL;
    CHECK(nczm_read_all(m, "a/c/0/0", &buf, &len) == NCZM_OK && len == 10 && !memcmp(buf, want, 10),
          "an abandoned object changes nothing (%zu bytes)", len);
    free(buf);
    REQUIRE(nczm_obj_begin(m, "a/c/1/0", &o) == NCZM_OK, "begin a new one");
    nczm_obj_abort(o);
    CHECK(nczm_exists(m, "a/c/1/0") == NCZM_NOTFOUND, "an abandoned new object is not there");
    nczm_list l = {0};
    CHECK(nczm_search(m, "a/c/0", &l) == NCZM_OK && l.count == 1, "no temporary is left: %zu entries",
          l.count);
    nczm_list_clear(&l);
    CHECK(nczm_obj_begin(m, "a/../b", &o) == NCZM_BADKEY && !o, "a bad key is refused");
    CHECK(nczm_obj_begin(m, "a/c/0/0/x", &o) != NCZM_OK && !o, "a key below an object is refused: %s",
          nczm_errmsg(m));
    CHECK(nczm_write(m, ".zgroup", "{\"zarr_format\": 2}", 18) == NCZM_OK, "a root group");
    CHECK(nczm_close(m) == NCZM_OK, "close");
    REQUIRE(open_path(spath("build.zarr"), NCZM_READONLY, &m, err) == NCZM_OK, "open read-only: %s", err);
    CHECK(!nczm_map_builds(m) && nczm_obj_begin(m, "a/c/2/0", &o) == NCZM_PERM && !o,
          "a read-only store builds nothing");
    CHECK(nczm_close(m) == NCZM_OK, "close");
    REQUIRE(open_path(spath("build.zip"), NCZM_CREATE | NCZM_TRUNC, &m, err) == NCZM_OK, "create zip: %s",
            err);
    CHECK(!nczm_map_builds(m) && nczm_obj_begin(m, "a/c/0/0", &o) == NCZM_UNSUPPORTED && !o,
          "a zip store does not build objects in pieces");
    CHECK(nczm_close(m) == NCZM_OK, "close");
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

    /* A read-only archive cannot be opened for writing (as a user without privileges:
     * root can write anyway), and still opens read-only. */
    chmod(spath("root.zip"), 0444);
    ncz_run_unprivileged("writable open of a 0444 zip", refuse_writable_open, spath("root.zip"));
    m = NULL;
    CHECK(open_path(spath("root.zip"), NCZM_READONLY, &m, err) == NCZM_OK, "read-only open of a 0444 zip: %s",
          err);
    nczm_close(m);
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
    if (ncz_test_scratch(scratch, sizeof scratch, "test_zmap") != 0)
        return EXIT_FAILURE;
    chmod(scratch, 0755); /* reachable by the unprivileged checks (ncz_run_unprivileged) */
    test_keys();
    test_urls();
    test_file_store();
    test_obj_build();
    test_zip_store();
    test_samples();
    rm_rf(scratch);
    TEST_MAIN_END();
}
