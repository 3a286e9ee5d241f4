/* zmap's S3 store against a real S3 server (Ceph RGW, which checks signatures like AWS):
 * the conformance checks every store passes, then what only S3 has: names and options,
 * credentials from options, variables and profiles, https, paginated listings, multipart
 * uploads, batches, request counts, and the faults (wrong secret, unknown bucket, dead,
 * failing and stalled servers), each a clear error in bounded time.
 *
 * The server comes from the environment: NCZ_S3_ENDPOINT (http://127.0.0.1:PORT),
 * NCZ_S3_HTTPS_ENDPOINT, NCZ_S3_ACCESS_KEY, NCZ_S3_SECRET_KEY, NCZ_S3_REGION, NCZ_S3_CA;
 * or, when they are not set, from the sourceable s3.env file given as the first argument
 * (what scripts/s3-server.sh start writes). Neither is a failure: this test never skips. */
#include "ncz_test.h"
#include "nczm.h"
#include "zmap_conformance.h"
#include "nczm_s3.h" /* the addressing of names, checked without a server */
#include "s3_env_file.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static const char *endpoint, *https_endpoint, *access_key, *secret_key, *region, *ca;
static char bucket[64], scratch[256];

/* ---------------------------------------------------------------- helpers */

/* The store's name: "<endpoint>/<bucket>/<root>#mode=nczarr,s3". */
static char *name_of(const char *ep, const char *bkt, const char *root)
{
    static char buf[8][1024];
    static int next;
    char *b = buf[next++ % 8];
    snprintf(b, sizeof buf[0], "%s/%s/%s#mode=nczarr,s3", ep, bkt, root);
    return b;
}

typedef struct opts {
    const char *access, *secret, *profile, *s3_endpoint, *cainfo;
    int anonymous, no_creds;
    unsigned max_keys, retry_ms;
    uint64_t threshold;
} opts;

static nczm_status parse_with(const char *name, const opts *o, nczm_url *u, char *err)
{
    nczm_status st = nczm_url_parse(name, u, err);
    if (st != NCZM_OK)
        return st;
    test_url_marks(u);
    opts none = {0};
    if (!o)
        o = &none;
    if (!o->no_creds) {
        nczm_url_set(u, "access_key", o->access ? o->access : access_key, err);
        nczm_url_set(u, "secret_key", o->secret ? o->secret : secret_key, err);
    }
    nczm_url_set(u, "region", region, err);
    if (o->profile)
        nczm_url_set(u, "profile", o->profile, err);
    if (o->s3_endpoint)
        nczm_url_set(u, "endpoint", o->s3_endpoint, err);
    if (o->cainfo)
        nczm_url_set(u, "cainfo", o->cainfo, err);
    nczm_s3_opts *so = u->opts; /* set above: region always is */
    so->anonymous = o->anonymous;
    so->max_keys = o->max_keys;
    so->multipart_threshold = o->threshold;
    so->retry_ms = o->retry_ms;
    return NCZM_OK;
}

static nczm_status open_s3(const char *name, const opts *o, unsigned flags, nczm_map **m, char *err)
{
    nczm_url u;
    *m = NULL;
    nczm_status st = parse_with(name, o, &u, err);
    if (st == NCZM_OK)
        st = nczm_open(&u, flags, m, err);
    nczm_url_clear(&u);
    return st;
}

static nczm_status destroy_s3(const char *name, const opts *o, char *err)
{
    nczm_url u;
    nczm_status st = parse_with(name, o, &u, err);
    if (st == NCZM_OK)
        st = nczm_destroy(&u, err);
    nczm_url_clear(&u);
    return st;
}

static int probe_s3(const char *name, const opts *o)
{
    nczm_url u;
    char err[NCZM_ERRLEN];
    if (parse_with(name, o, &u, err) != NCZM_OK)
        return -1;
    int r = nczm_probe(&u);
    nczm_url_clear(&u);
    return r;
}

/* ---------------------------------------------------------------- conformance */

/* The whole life of a store, as test_zmap.c's exercise_store, on S3. */
static void test_conformance(const char *name, const opts *o)
{
    char err[NCZM_ERRLEN];
    nczm_map *m = NULL;
    nczm_status st = open_s3(name, o, NCZM_CREATE, &m, err);
    REQUIRE(st == NCZM_OK, "create %s: %d %s", name, st, err);
    CHECK(nczm_map_kind(m) == NCZM_KIND_S3, "kind");
    CHECK(!nczm_map_readonly(m), "writable");
    check_store_life(m);
    CHECK(nczm_map_requests(m) > 50, "requests are counted: %llu", (unsigned long long)nczm_map_requests(m));
    CHECK(nczm_close_err(m, err) == NCZM_OK, "close: %s", err);

    st = open_s3(name, o, 0, &m, err);
    REQUIRE(st == NCZM_OK, "reopen %s: %d %s", name, st, err);
    check_contents(m, "abcde");
    check_searches(m);
    CHECK(nczm_write(m, "a/b/c", "0123456789", 10) == NCZM_OK, "overwrite an old object");
    CHECK(nczm_write(m, "later", "L", 1) == NCZM_OK, "add to a reopened store");
    nczm_close(m);

    st = open_s3(name, o, NCZM_READONLY, &m, err);
    REQUIRE(st == NCZM_OK, "reopen read-only: %d %s", st, err);
    check_contents(m, "0123456789");
    CHECK(search_is(m, "", (const char *[]){".zgroup", "a", "later", "x", NULL}), "read-only search");
    CHECK(nczm_write(m, "new", "n", 1) == NCZM_PERM, "write on read-only");
    CHECK(nczm_delete_tree(m, "a") == NCZM_PERM, "delete_tree on read-only");
    nczm_close(m);

    CHECK(open_s3(name, o, NCZM_CREATE | NCZM_EXCL, &m, err) == NCZM_EXISTS && m == NULL, "EXCL: %s", err);
    CHECK(probe_s3(name, o) == 1, "probe an existing store");
    st = open_s3(name, o, NCZM_CREATE | NCZM_TRUNC, &m, err);
    REQUIRE(st == NCZM_OK, "TRUNC: %d %s", st, err);
    CHECK(search_is(m, "", (const char *[]){NULL}), "TRUNC emptied the store");
    CHECK(nczm_write(m, ".zarray", "{}", 2) == NCZM_OK, "write after TRUNC");
    nczm_close(m);
    CHECK(probe_s3(name, o) == 1, "a root .zarray is a store too");
    CHECK(destroy_s3(name, o, err) == NCZM_OK, "destroy: %s", err);
    CHECK(probe_s3(name, o) == 0, "probe after destroy");
    CHECK(open_s3(name, o, NCZM_READONLY, &m, err) == NCZM_NOTFOUND, "open after destroy: %s", err);
    CHECK(destroy_s3(name, o, err) == NCZM_NOTFOUND, "destroy twice");
}

/* Objects that are not a store are never opened, truncated or destroyed. */
static void test_not_a_store(void)
{
    char err[NCZM_ERRLEN];
    nczm_map *m = NULL;
    const char *store = name_of(endpoint, bucket, "plain/st");
    nczm_status st = open_s3(store, NULL, NCZM_CREATE, &m, err);
    REQUIRE(st == NCZM_OK, "create: %s", err);
    CHECK(nczm_write(m, "data.bin", "precious", 8) == NCZM_OK, "write a non-store object");
    nczm_close(m);
    CHECK(open_s3(store, NULL, NCZM_READONLY, &m, err) == NCZM_NOTSTORE, "open a non-store: %s", err);
    CHECK(open_s3(store, NULL, NCZM_CREATE | NCZM_TRUNC, &m, err) == NCZM_NOTSTORE && strstr(err, "refusing"),
          "TRUNC refuses: %s", err);
    CHECK(destroy_s3(store, NULL, err) == NCZM_NOTSTORE, "destroy refuses: %s", err);
    CHECK(open_s3(store, NULL, 0, &m, err) == NCZM_NOTSTORE, "still there");
    /* clean up through a store marker */
    st = open_s3(store, NULL, NCZM_CREATE, &m, err);
    CHECK(st == NCZM_NOTSTORE, "CREATE among other objects: %s", err);
}

/* ---------------------------------------------------------------- S3's own */

static void test_names(void)
{
    char err[NCZM_ERRLEN];
    nczm_map *m = NULL;
    /* s3://bucket/key with the endpoint as an option, a store at the bucket's root of a
     * fresh bucket (created as netCDF-C does), and https with the server's CA */
    char b2[80];
    snprintf(b2, sizeof b2, "%s-s3url", bucket);
    char s3name[200];
    snprintf(s3name, sizeof s3name, "s3://%s/via/s3url", b2);
    opts o = {.s3_endpoint = endpoint};
    nczm_status st = open_s3(s3name, &o, NCZM_CREATE, &m, err);
    CHECK(st == NCZM_OK, "create through s3:// in a new bucket: %d %s", st, err);
    if (m) {
        CHECK(nczm_write(m, ".zgroup", "{}", 2) == NCZM_OK, "write: %s", nczm_errmsg(m));
        nczm_close(m);
    }
    CHECK(open_s3(name_of(endpoint, b2, "via/s3url"), NULL, NCZM_READONLY, &m, err) == NCZM_OK,
          "the same store by path style: %s", err);
    CHECK(m && content_is(m, ".zgroup", "{}"), "content through the other name");
    nczm_close(m);

    opts ho = {.cainfo = ca};
    test_conformance(name_of(https_endpoint, bucket, "over/https"), &ho);
    opts bad_ca = {.cainfo = "/nonexistent/ca.pem"};
    st = open_s3(name_of(https_endpoint, bucket, "over/https"), &bad_ca, NCZM_CREATE, &m, err);
    CHECK(st == NCZM_IO && strstr(err, "CA"), "a missing CA file: %d %s", st, err);

    /* a root key with ".." is refused, as keys are */
    CHECK(open_s3(name_of(endpoint, bucket, "a/../b"), NULL, NCZM_CREATE, &m, err) == NCZM_BADKEY &&
              strstr(err, ".."),
          "root key with ..: %s", err);
    st = open_s3("http://127.0.0.1:1/b/k?x=1#mode=nczarr,s3", NULL, NCZM_CREATE, &m, err);
    CHECK(st == NCZM_INVAL && strstr(err, "query"), "a query in the URL: %s", err);
    st = open_s3("http://user:pw@127.0.0.1:1/b/k#mode=nczarr,s3", NULL, NCZM_CREATE, &m, err);
    CHECK(st == NCZM_INVAL && !strstr(err, "pw"), "credentials in the URL: %s", err);
}

/* How names become bucket, root prefix, region and request URLs (no request is made). */
static void check_address(const char *name, const char *endpoint_opt, const char *region_opt,
                          const char *base, const char *bkt, const char *root, const char *reg,
                          const char *key_url)
{
    nczm_url u;
    char err[NCZM_ERRLEN];
    nczm_status st = nczm_url_parse(name, &u, err);
    CHECK(st == NCZM_OK, "parse %s: %s", name, err);
    if (st != NCZM_OK)
        return;
    if (endpoint_opt)
        nczm_url_set(&u, "endpoint", endpoint_opt, err);
    if (region_opt)
        nczm_url_set(&u, "region", region_opt, err);
    s3_map m;
    memset(&m, 0, sizeof m);
    st = s3_cfg_init(&u, &m.cfg, err);
    CHECK(st == NCZM_OK, "address %s: %s", name, err);
    if (st == NCZM_OK) {
        CHECK(strcmp(m.cfg.base, base) == 0, "%s: base %s, want %s", name, m.cfg.base, base);
        CHECK(strcmp(m.cfg.bucket, bkt) == 0, "%s: bucket %s, want %s", name, m.cfg.bucket, bkt);
        CHECK(strcmp(m.cfg.root, root) == 0, "%s: root \"%s\", want \"%s\"", name, m.cfg.root, root);
        CHECK(strcmp(m.cfg.region, reg) == 0, "%s: region %s, want %s", name, m.cfg.region, reg);
        CHECK(!m.cfg.access && !m.cfg.sigv4, "%s: anonymous without credentials", name);
        char *ku = s3_key_url(&m, "v/0.0", NULL);
        CHECK(ku && strcmp(ku, key_url) == 0, "%s: key URL %s, want %s", name, ku ? ku : "(null)", key_url);
        free(ku);
        s3_cfg_clear(&m.cfg);
    }
    nczm_url_clear(&u);
}

static void test_addressing(void)
{
    check_address("https://mybkt.s3.eu-west-1.amazonaws.com/root/x#mode=nczarr,s3", NULL, NULL,
                  "https://mybkt.s3.eu-west-1.amazonaws.com", "mybkt", "root/x", "eu-west-1",
                  "https://mybkt.s3.eu-west-1.amazonaws.com/root/x/v/0.0");
    check_address("https://mybkt.s3.amazonaws.com/r#mode=s3", NULL, NULL, "https://mybkt.s3.amazonaws.com",
                  "mybkt", "r", "us-east-1", "https://mybkt.s3.amazonaws.com/r/v/0.0");
    check_address("https://s3.us-west-2.amazonaws.com/bkt/a/b/#mode=nczarr,s3", NULL, NULL,
                  "https://s3.us-west-2.amazonaws.com/bkt", "bkt", "a/b", "us-west-2",
                  "https://s3.us-west-2.amazonaws.com/bkt/a/b/v/0.0");
    check_address("s3://bkt/a", NULL, "ap-south-1", "https://bkt.s3.ap-south-1.amazonaws.com", "bkt", "a",
                  "ap-south-1", "https://bkt.s3.ap-south-1.amazonaws.com/a/v/0.0");
    check_address("s3://my.dotted.bucket/a#mode=nczarr,s3", NULL, NULL,
                  "https://s3.us-east-1.amazonaws.com/my.dotted.bucket", "my.dotted.bucket", "a", "us-east-1",
                  "https://s3.us-east-1.amazonaws.com/my.dotted.bucket/a/v/0.0");
    check_address("s3://bkt", "localhost:9000/", NULL, "https://localhost:9000/bkt", "bkt", "", "us-east-1",
                  "https://localhost:9000/bkt/v/0.0");
    check_address("s3://bkt/k#mode=nczarr,s3&aws.region=eu-north-1", "http://127.0.0.1:9000", NULL,
                  "http://127.0.0.1:9000/bkt", "bkt", "k", "eu-north-1", "http://127.0.0.1:9000/bkt/k/v/0.0");
    check_address("http://127.0.0.1:9000/bkt/a%20b/c+d#mode=nczarr,s3", NULL, NULL,
                  "http://127.0.0.1:9000/bkt", "bkt", "a b/c+d", "us-east-1",
                  "http://127.0.0.1:9000/bkt/a%20b/c%2Bd/v/0.0");
    /* the region an AWS host names wins over AWS_REGION; the option over both */
    setenv("AWS_REGION", "sa-east-1", 1);
    check_address("https://s3.us-west-2.amazonaws.com/bkt/a#mode=s3", NULL, NULL,
                  "https://s3.us-west-2.amazonaws.com/bkt", "bkt", "a", "us-west-2",
                  "https://s3.us-west-2.amazonaws.com/bkt/a/v/0.0");
    check_address("http://127.0.0.1:9000/bkt/a#mode=s3", NULL, NULL, "http://127.0.0.1:9000/bkt", "bkt", "a",
                  "sa-east-1", "http://127.0.0.1:9000/bkt/a/v/0.0");
    check_address("https://s3.us-west-2.amazonaws.com/bkt/a#mode=s3", NULL, "ca-central-1",
                  "https://s3.us-west-2.amazonaws.com/bkt", "bkt", "a", "ca-central-1",
                  "https://s3.us-west-2.amazonaws.com/bkt/a/v/0.0");
    unsetenv("AWS_REGION");
}

static void test_listing_and_parts(void)
{
    char err[NCZM_ERRLEN];
    nczm_map *m = NULL;
    opts o = {.max_keys = 7, .threshold = (uint64_t)6 << 20};
    nczm_status st = open_s3(name_of(endpoint, bucket, "pages"), &o, NCZM_CREATE, &m, err);
    REQUIRE(st == NCZM_OK, "create: %s", err);
    nczm_write(m, ".zgroup", "{}", 2);
    /* 50 objects listed 7 at a time */
    enum { N = 50 };
    nczm_put p[N];
    char keys[N][32];
    for (int i = 0; i < N; i++) {
        snprintf(keys[i], sizeof keys[i], "p/%02d.0", i);
        p[i] = (nczm_put){.key = keys[i], .buf = keys[i], .len = strlen(keys[i])};
    }
    uint64_t r0 = nczm_map_requests(m);
    CHECK(nczm_put_many(m, N, p) == NCZM_OK, "put_many 50: %s", nczm_errmsg(m));
    CHECK(nczm_map_requests(m) - r0 == N, "one request a PUT");
    nczm_list l = {0, NULL};
    r0 = nczm_map_requests(m);
    CHECK(nczm_search(m, "p", &l) == NCZM_OK && l.count == N, "paginated search: %zu", l.count);
    CHECK(l.count == N && strcmp(l.names[0], "00.0") == 0 && strcmp(l.names[N - 1], "49.0") == 0, "sorted");
    CHECK(nczm_map_requests(m) - r0 == (N + 6) / 7, "8 pages: %llu",
          (unsigned long long)(nczm_map_requests(m) - r0));
    nczm_list_clear(&l);
    CHECK(search_is(m, "", (const char *[]){".zgroup", "p", NULL}), "root");
    nczm_search_req q[2] = {{.prefix = "p"}, {.prefix = ""}};
    r0 = nczm_map_requests(m);
    CHECK(nczm_search_many(m, 2, q) == NCZM_OK && q[0].list.count == N && q[1].list.count == 2,
          "search_many, paginated: %zu %zu", q[0].list.count, q[1].list.count);
    CHECK(nczm_map_requests(m) - r0 == 9, "first pages together, then the rest: %llu",
          (unsigned long long)(nczm_map_requests(m) - r0));
    nczm_list_clear(&q[0].list);
    nczm_list_clear(&q[1].list);

    /* 13 MiB in parts of 6 MiB: initiate, 3 parts, complete */
    size_t big = (size_t)13 << 20;
    unsigned char *data = malloc(big), *back = malloc(big);
    REQUIRE(data && back, "malloc");
    for (size_t i = 0; i < big; i++)
        data[i] = (unsigned char)(i * 2654435761u >> 13);
    r0 = nczm_map_requests(m);
    CHECK(nczm_write(m, "big/0", data, big) == NCZM_OK, "multipart write: %s", nczm_errmsg(m));
    CHECK(nczm_map_requests(m) - r0 == 5, "initiate, 3 parts, complete: %llu",
          (unsigned long long)(nczm_map_requests(m) - r0));
    uint64_t len = 0;
    CHECK(nczm_len(m, "big/0", &len) == NCZM_OK && len == big, "length %llu", (unsigned long long)len);
    CHECK(nczm_read(m, "big/0", (6u << 20) - 10, 20, back) == NCZM_OK &&
              memcmp(back, data + (6u << 20) - 10, 20) == 0,
          "ranged read across parts");
    void *all = NULL;
    size_t n = 0;
    CHECK(nczm_read_all(m, "big/0", &all, &n) == NCZM_OK && n == big && memcmp(all, data, big) == 0,
          "read the whole object back");
    free(all);
    nczm_getinto gi = {.key = "big/0", .buf = back, .cap = big};
    CHECK(nczm_get_into_many(m, 1, &gi) == NCZM_OK && gi.len == big && memcmp(back, data, big) == 0,
          "get_into the whole object");
    /* a batch with a big object and small ones */
    nczm_put mix[3] = {{.key = "big/1", .buf = data, .len = big},
                       {.key = "small/a", .buf = "a", .len = 1},
                       {.key = "small/b", .buf = "b", .len = 1}};
    CHECK(nczm_put_many(m, 3, mix) == NCZM_OK && mix[0].status == NCZM_OK, "mixed batch: %s", nczm_errmsg(m));
    CHECK(nczm_read(m, "big/1", big - 5, 5, back) == NCZM_OK && memcmp(back, data + big - 5, 5) == 0,
          "tail of the batch's big object");
    CHECK(nczm_copy_tree(m, "big", "big2") == NCZM_OK && nczm_len(m, "big2/1", &len) == NCZM_OK && len == big,
          "server-side copy of big objects: %s", nczm_errmsg(m));
    r0 = nczm_map_requests(m);
    CHECK(nczm_delete_tree(m, "p") == NCZM_OK, "delete_tree of 50: %s", nczm_errmsg(m));
    CHECK(nczm_map_requests(m) - r0 <= 9, "paginated listing + one DeleteObjects: %llu",
          (unsigned long long)(nczm_map_requests(m) - r0));
    CHECK(search_is(m, "", (const char *[]){".zgroup", "big", "big2", "small", NULL}), "after delete_tree");
    free(data);
    free(back);
    nczm_close(m);
    CHECK(destroy_s3(name_of(endpoint, bucket, "pages"), NULL, err) == NCZM_OK, "destroy: %s", err);
}

/* A batch names the keys that failed or were missing; open costs one request with a
 * .zmetadata. */
static void test_batches_and_open(void)
{
    char err[NCZM_ERRLEN];
    nczm_map *m = NULL;
    const char *name = name_of(endpoint, bucket, "batch");
    nczm_status st = open_s3(name, NULL, NCZM_CREATE, &m, err);
    REQUIRE(st == NCZM_OK, "create: %s", err);
    nczm_put p[3] = {{.key = ".zgroup", .buf = "{}", .len = 2},
                     {.key = ".zmetadata", .buf = "{\"metadata\":{}}", .len = 15},
                     {.key = "v/0", .buf = "0123", .len = 4}};
    CHECK(nczm_commit_many(m, 3, p) == NCZM_OK, "commit_many: %s", nczm_errmsg(m));
    nczm_get g[8] = {{.key = "v/0"},    {.key = "gone/1"}, {.key = "gone/2"}, {.key = "gone/3"},
                     {.key = "gone/4"}, {.key = "gone/5"}, {.key = "gone/6"}, {.key = ".zgroup"}};
    CHECK(nczm_get_many(m, 8, g) == NCZM_OK, "missing keys are not the batch's failure");
    const char *msg = nczm_errmsg(m);
    CHECK(strstr(msg, "6 of 8") && strstr(msg, "\"gone/1\"") && strstr(msg, "\"gone/5\"") &&
              strstr(msg, "1 more"),
          "the message names the missing keys: %s", msg);
    for (int i = 0; i < 8; i++) {
        CHECK(g[i].status == (i == 0 || i == 7 ? NCZM_OK : NCZM_NOTFOUND), "status %d", i);
        free(g[i].buf);
    }
    char small[2][2];
    nczm_getinto gi[3] = {{.key = "v/0", .buf = small[0], .cap = 2},
                          {.key = ".zgroup", .buf = small[1], .cap = 2},
                          {.key = ".zmetadata", .buf = small[1], .cap = 2}};
    CHECK(nczm_get_into_many(m, 3, gi) == NCZM_LONG, "long objects fail the batch");
    msg = nczm_errmsg(m);
    CHECK(strstr(msg, "\"v/0\"") && strstr(msg, "2 of 3") && strstr(msg, "\".zmetadata\""),
          "the message names the first and the others: %s", msg);
    nczm_close(m);

    /* with .zmetadata: one GET opens, and the loader's read of it costs nothing more */
    st = open_s3(name, NULL, NCZM_READONLY, &m, err);
    REQUIRE(st == NCZM_OK, "open: %s", err);
    CHECK(nczm_map_requests(m) == 1, "open with .zmetadata: %llu requests",
          (unsigned long long)nczm_map_requests(m));
    nczm_get zm = {.key = ".zmetadata"};
    CHECK(nczm_get_many(m, 1, &zm) == NCZM_OK && zm.status == NCZM_OK && zm.len == 15 &&
              strcmp(zm.buf, "{\"metadata\":{}}") == 0,
          "the kept .zmetadata");
    free(zm.buf);
    CHECK(nczm_map_requests(m) == 1, "no second GET");
    CHECK(content_is(m, ".zmetadata", "{\"metadata\":{}}") && nczm_map_requests(m) == 2,
          "a later read asks the server again");
    nczm_close(m);
    /* without: a GET of .zmetadata, then a HEAD of each mark and a listing together */
    st = open_s3(name, NULL, 0, &m, err);
    REQUIRE(st == NCZM_OK, "open: %s", err);
    CHECK(nczm_delete(m, ".zmetadata") == NCZM_OK, "delete .zmetadata");
    nczm_close(m);
    st = open_s3(name, NULL, NCZM_READONLY, &m, err);
    REQUIRE(st == NCZM_OK, "open: %s", err);
    size_t nmarks = 0;
    while (test_marks[nmarks])
        nmarks++;
    CHECK(nczm_map_requests(m) == 1 + nmarks + 1, "open without .zmetadata: %llu requests",
          (unsigned long long)nczm_map_requests(m));
    nczm_close(m);
    CHECK(destroy_s3(name, NULL, err) == NCZM_OK, "destroy: %s", err);
}

static void test_credentials(void)
{
    char err[NCZM_ERRLEN];
    nczm_map *m = NULL;
    const char *name = name_of(endpoint, bucket, "creds");
    nczm_status st = open_s3(name, NULL, NCZM_CREATE, &m, err);
    REQUIRE(st == NCZM_OK, "create: %s", err);
    nczm_write(m, ".zgroup", "{}", 2);
    nczm_close(m);

    /* wrong secret: the 403 and S3's code are named, the secret is not */
    const char *wrong = "WrongSecretKeyValue0123456789";
    opts ws = {.secret = wrong};
    st = open_s3(name, &ws, NCZM_READONLY, &m, err);
    CHECK(st == NCZM_PERM && m == NULL, "wrong secret: %d", st);
    CHECK(strstr(err, "403") && strstr(err, "SignatureDoesNotMatch") && !strstr(err, wrong) &&
              !strstr(err, secret_key),
          "message: %s", err);
    opts wa = {.access = "NOSUCHACCESSKEY00000"};
    st = open_s3(name, &wa, NCZM_READONLY, &m, err);
    CHECK(st == NCZM_PERM && strstr(err, "403") && strstr(err, "InvalidAccessKeyId"), "wrong access key: %s",
          err);
    /* anonymous: refused by a private bucket */
    opts an = {.anonymous = 1};
    st = open_s3(name, &an, NCZM_READONLY, &m, err);
    CHECK(st == NCZM_PERM && strstr(err, "403") && strstr(err, "AccessDenied"), "anonymous: %d %s", st, err);

    /* a profile in credential files named by the options */
    char cred[300], conf[300];
    snprintf(cred, sizeof cred, "%s/credentials", scratch);
    snprintf(conf, sizeof conf, "%s/config", scratch);
    FILE *f = fopen(cred, "w");
    REQUIRE(f, "write %s", cred);
    fprintf(f,
            "[default]\naws_access_key_id = NOSUCHKEY\naws_secret_access_key = x\n\n[lab]\n"
            "aws_access_key_id = %s\naws_secret_access_key = %s\n",
            access_key, secret_key);
    fclose(f);
    f = fopen(conf, "w");
    REQUIRE(f, "write %s", conf);
    fprintf(f, "[profile lab]\nregion = %s\n", region);
    fclose(f);
    setenv("AWS_SHARED_CREDENTIALS_FILE", cred, 1);
    setenv("AWS_CONFIG_FILE", conf, 1);
    opts prof = {.no_creds = 1, .profile = "lab"};
    st = open_s3(name, &prof, NCZM_READONLY, &m, err);
    CHECK(st == NCZM_OK, "profile lab: %s", err);
    nczm_close(m);
    char frag[1200];
    snprintf(frag, sizeof frag, "%s/%s/creds#mode=nczarr,s3&aws.profile=lab", endpoint, bucket);
    opts nocred = {.no_creds = 1};
    st = open_s3(frag, &nocred, NCZM_READONLY, &m, err);
    CHECK(st == NCZM_OK, "aws.profile= in the fragment: %s", err);
    nczm_close(m);
    opts noprof = {.no_creds = 1, .profile = "nosuchprofile"};
    st = open_s3(name, &noprof, NCZM_READONLY, &m, err);
    CHECK(st == NCZM_INVAL && strstr(err, "nosuchprofile") && strstr(err, cred), "missing profile: %s", err);
    /* the default profile (a wrong key here) */
    st = open_s3(name, &nocred, NCZM_READONLY, &m, err);
    CHECK(st == NCZM_PERM && strstr(err, "InvalidAccessKeyId"), "default profile is used: %s", err);
    setenv("AWS_PROFILE", "lab", 1);
    st = open_s3(name, &nocred, NCZM_READONLY, &m, err);
    CHECK(st == NCZM_OK, "AWS_PROFILE: %s", err);
    nczm_close(m);
    unsetenv("AWS_PROFILE");
    /* the variables win over the default profile */
    setenv("AWS_ACCESS_KEY_ID", access_key, 1);
    setenv("AWS_SECRET_ACCESS_KEY", secret_key, 1);
    st = open_s3(name, &nocred, NCZM_READONLY, &m, err);
    CHECK(st == NCZM_OK, "AWS_ACCESS_KEY_ID: %s", err);
    nczm_close(m);
    unsetenv("AWS_ACCESS_KEY_ID");
    unsetenv("AWS_SECRET_ACCESS_KEY");
    setenv("AWS_SHARED_CREDENTIALS_FILE", "/nonexistent/credentials", 1);
    setenv("AWS_CONFIG_FILE", "/nonexistent/config", 1);
    CHECK(destroy_s3(name, NULL, err) == NCZM_OK, "destroy: %s", err);
}

/* Maps used from different threads at once, one map per thread, the first of them racing
 * the process-wide initialisation. Threads only report; main checks. */
typedef struct thr {
    pthread_t th;
    int id;
    char why[NCZM_ERRLEN];
} thr;

static void *thread_body(void *arg)
{
    thr *t = arg;
    char name[1024], err[NCZM_ERRLEN];
    snprintf(name, sizeof name, "%s/%s/thr/%d#mode=nczarr,s3", endpoint, bucket, t->id);
    nczm_map *m = NULL;
    enum { N = 40 };
    char keys[N][16], vals[N][16];
    nczm_put p[N];
    nczm_get g[N];
    if (open_s3(name, NULL, NCZM_CREATE, &m, err) != NCZM_OK) {
        snprintf(t->why, sizeof t->why, "create: %.400s", err);
        return NULL;
    }
    for (int i = 0; i < N; i++) {
        snprintf(keys[i], sizeof keys[i], "v/%d", i);
        snprintf(vals[i], sizeof vals[i], "%d-%d", t->id, i);
        p[i] = (nczm_put){.key = keys[i], .buf = vals[i], .len = strlen(vals[i])};
        g[i] = (nczm_get){.key = keys[i]};
    }
    nczm_list l = {0, NULL};
    if (nczm_write(m, ".zgroup", "{}", 2) != NCZM_OK || nczm_put_many(m, N, p) != NCZM_OK ||
        nczm_get_many(m, N, g) != NCZM_OK || nczm_search(m, "v", &l) != NCZM_OK || l.count != N)
        snprintf(t->why, sizeof t->why, "batches: %.400s", nczm_errmsg(m));
    for (int i = 0; i < N; i++) {
        if (!t->why[0] &&
            (g[i].status != NCZM_OK || g[i].len != strlen(vals[i]) || strcmp(g[i].buf, vals[i])))
            snprintf(t->why, sizeof t->why, "read back %.15s", keys[i]);
        free(g[i].buf);
    }
    nczm_list_clear(&l);
    nczm_close(m);
    if (destroy_s3(name, NULL, err) != NCZM_OK && !t->why[0])
        snprintf(t->why, sizeof t->why, "destroy: %.400s", err);
    return NULL;
}

static void test_threads(void)
{
    enum { T = 4 };
    thr t[T];
    for (int i = 0; i < T; i++) {
        memset(&t[i], 0, sizeof t[i]);
        t[i].id = i;
        REQUIRE(pthread_create(&t[i].th, NULL, thread_body, &t[i]) == 0, "pthread_create");
    }
    for (int i = 0; i < T; i++) {
        pthread_join(t[i].th, NULL);
        CHECK(!t[i].why[0], "thread %d: %s", i, t[i].why);
    }
}

/* ---------------------------------------------------------------- faults */

/* A server on a loopback port that answers every request with `answer` (NULL: accepts
 * connections and never answers), until stopped. */
typedef struct fake {
    int fd, port, stop;
    const char *answer;
    pthread_t th;
    int conns;
} fake;

static void *fake_run(void *arg)
{
    fake *f = arg;
    int held[64], nheld = 0;
    while (!__atomic_load_n(&f->stop, __ATOMIC_ACQUIRE)) {
        struct timeval tv = {0, 100000};
        fd_set rs;
        FD_ZERO(&rs);
        FD_SET(f->fd, &rs);
        if (select(f->fd + 1, &rs, NULL, NULL, &tv) <= 0)
            continue;
        int c = accept(f->fd, NULL, NULL);
        if (c < 0)
            continue;
        __atomic_add_fetch(&f->conns, 1, __ATOMIC_RELAXED);
        if (!f->answer) {
            if (nheld < 64)
                held[nheld++] = c;
            else
                close(c);
            continue;
        }
        char buf[8192];
        ssize_t r = recv(c, buf, sizeof buf, 0);
        (void)r;
        ssize_t w = send(c, f->answer, strlen(f->answer), MSG_NOSIGNAL);
        (void)w;
        close(c);
    }
    for (int i = 0; i < nheld; i++)
        close(held[i]);
    return NULL;
}

static int fake_start(fake *f, const char *answer)
{
    memset(f, 0, sizeof *f);
    f->answer = answer;
    f->fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t al = sizeof a;
    if (f->fd < 0 || bind(f->fd, (struct sockaddr *)&a, sizeof a) || listen(f->fd, 64) ||
        getsockname(f->fd, (struct sockaddr *)&a, &al))
        return -1;
    f->port = ntohs(a.sin_port);
    return pthread_create(&f->th, NULL, fake_run, f);
}

static void fake_stop(fake *f)
{
    __atomic_store_n(&f->stop, 1, __ATOMIC_RELEASE);
    pthread_join(f->th, NULL);
    close(f->fd);
}

/* N of "gave up after N attempts" in a message; 1 when it names none (one attempt). */
static unsigned attempts_in(const char *err)
{
    const char *p = strstr(err, "gave up after ");
    unsigned n = 1;
    if (p && sscanf(p, "gave up after %u attempts", &n) != 1)
        n = 0;
    return n;
}

static void test_faults(void)
{
    char err[NCZM_ERRLEN], ep[64];
    nczm_map *m = NULL;

    /* an unknown bucket: named, and NOTFOUND */
    char nob[96];
    snprintf(nob, sizeof nob, "%s-nosuch", bucket);
    nczm_status st = open_s3(name_of(endpoint, nob, "k"), NULL, NCZM_READONLY, &m, err);
    CHECK(st == NCZM_NOTFOUND && strstr(err, "NoSuchBucket") && strstr(err, nob), "unknown bucket: %s", err);

    /* A closed port: refused at once, a few quick retries, then a clear error that names
     * the endpoint and says how many attempts were made. (How long the retries go on is the
     * retry budget's business; nothing here times them: a hang ends at ctest's timeout.) */
    int s = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t al = sizeof a;
    bind(s, (struct sockaddr *)&a, sizeof a);
    getsockname(s, (struct sockaddr *)&a, &al);
    close(s); /* nothing listens there now */
    snprintf(ep, sizeof ep, "http://127.0.0.1:%d", ntohs(a.sin_port));
    st = open_s3(name_of(ep, "b", "k"), NULL, NCZM_READONLY, &m, err);
    unsigned n = attempts_in(err);
    CHECK(st == NCZM_IO && strstr(err, "onnect") && strstr(err, ep), "dead endpoint: %d %s", st, err);
    CHECK(n >= 2, "dead endpoint: retried before giving up (%u attempts): %s", n, err);

    /* a server answering 503 SlowDown: retried, then named with the number of attempts,
     * each of which the server saw (one connection each: it closes them) */
    fake f;
    const char *body = "<?xml version=\"1.0\"?><Error><Code>SlowDown</Code><Message>busy</Message></Error>";
    char busy[512];
    snprintf(busy, sizeof busy,
             "HTTP/1.1 503 Slow Down\r\nContent-Type: application/xml\r\nContent-Length: %zu\r\n"
             "Connection: close\r\n\r\n%s",
             strlen(body), body);
    REQUIRE(fake_start(&f, busy) == 0, "fake server");
    snprintf(ep, sizeof ep, "http://127.0.0.1:%d", f.port);
    opts quick = {.retry_ms = 1500};
    st = open_s3(name_of(ep, "b", "k"), &quick, NCZM_READONLY, &m, err);
    n = attempts_in(err);
    int tries = __atomic_load_n(&f.conns, __ATOMIC_RELAXED);
    CHECK(st == NCZM_IO && strstr(err, "503") && strstr(err, "SlowDown"), "503: %d %s", st, err);
    CHECK(n >= 2 && (int)n == tries, "503: %u attempts named, the server saw %d: %s", n, tries, err);
    fake_stop(&f);

    /* a server that accepts and never answers (stopped): the stall limit ends each try,
     * and the error says it timed out */
    REQUIRE(fake_start(&f, NULL) == 0, "fake server");
    snprintf(ep, sizeof ep, "http://127.0.0.1:%d", f.port);
    setenv("NCZM_S3_STALL_SECONDS", "1", 1);
    opts brief = {.retry_ms = 1000};
    st = open_s3(name_of(ep, "b", "k"), &brief, NCZM_READONLY, &m, err);
    unsetenv("NCZM_S3_STALL_SECONDS");
    tries = __atomic_load_n(&f.conns, __ATOMIC_RELAXED);
    CHECK(st == NCZM_IO && (strstr(err, "imeout") || strstr(err, "timed out")), "stalled server: %d %s", st,
          err);
    CHECK(tries >= 1 && (unsigned)tries >= attempts_in(err), "stalled server: %d connections, %s", tries,
          err);
    fake_stop(&f);
}

int main(int argc, char **argv)
{
    if (argc > 1 && !getenv("NCZ_S3_ENDPOINT"))
        load_env_file(argv[1]);
    endpoint = getenv("NCZ_S3_ENDPOINT");
    https_endpoint = getenv("NCZ_S3_HTTPS_ENDPOINT");
    access_key = getenv("NCZ_S3_ACCESS_KEY");
    secret_key = getenv("NCZ_S3_SECRET_KEY");
    region = getenv("NCZ_S3_REGION");
    ca = getenv("NCZ_S3_CA");
    if (!endpoint || !https_endpoint || !access_key || !secret_key || !region || !ca) {
        fprintf(stderr,
                "FAIL: no S3 server: set NCZ_S3_ENDPOINT, NCZ_S3_HTTPS_ENDPOINT, NCZ_S3_ACCESS_KEY, "
                "NCZ_S3_SECRET_KEY, NCZ_S3_REGION and NCZ_S3_CA, or give the s3.env file of "
                "scripts/s3-server.sh start (%s)\n",
                argc > 1 ? argv[1] : "none given");
        return EXIT_FAILURE;
    }
    /* the AWS settings of whoever runs the test must not change what it sees */
    const char *aws[] = {
        "AWS_PROFILE",         "AWS_ACCESS_KEY_ID",           "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN",
        "AWS_REGION",          "AWS_DEFAULT_REGION",          "AWS_ENDPOINT_URL",      "AWS_ENDPOINT_URL_S3",
        "AWS_CA_BUNDLE",       "NCZM_S3_MULTIPART_THRESHOLD", "NCZM_S3_RETRY_SECONDS", "NCZM_S3_MAX_KEYS",
        "NCZM_S3_CONNECTIONS", "NCZM_S3_STALL_SECONDS"};
    for (size_t i = 0; i < sizeof aws / sizeof *aws; i++)
        unsetenv(aws[i]);
    const char *tmp = getenv("TMPDIR");
    snprintf(scratch, sizeof scratch, "%s/test_zmap_s3.XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(scratch)) {
        perror("mkdtemp");
        return EXIT_FAILURE;
    }
    setenv("AWS_SHARED_CREDENTIALS_FILE", "/nonexistent/credentials", 1);
    setenv("AWS_CONFIG_FILE", "/nonexistent/config", 1);
    snprintf(bucket, sizeof bucket, "zmap-%ld-%d", (long)time(NULL) % 100000000, (int)getpid());

    test_addressing();
    test_threads();
    test_conformance(name_of(endpoint, bucket, "conf/store"), NULL);
    test_not_a_store();
    test_names();
    test_listing_and_parts();
    test_batches_and_open();
    test_credentials();
    test_faults();

    char p[300];
    snprintf(p, sizeof p, "%s/credentials", scratch);
    remove(p);
    snprintf(p, sizeof p, "%s/config", scratch);
    remove(p);
    rmdir(scratch);
    TEST_MAIN_END();
}
