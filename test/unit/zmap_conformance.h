/* The zmap conformance checks every store kind passes (test_zmap.c runs them on the
 * directory and zip stores, test_zmap_s3.c on S3): contents, ranged reads, listings,
 * batches, deletes, renames and copies, bad keys. Each leaves the store as it found it:
 * .zgroup, a/b/c, a/d and x (fill_store). Static functions: one copy per test program.
 * REQUIRE evaluates its condition twice, so calls with effects are made before it. */
#ifndef ZMAP_CONFORMANCE_H
#define ZMAP_CONFORMANCE_H

#include "ncz_test.h"
#include "nczm.h"

#include <stdint.h>
#include <string.h>
#include <sys/stat.h>

/* What marks a store and what S3 reads first when one opens, for these tests (the formats
 * above zmap give the real lists: translate/format). */
static const char *const test_marks[] = {".zgroup", ".zarray", "zarr.json", NULL};
static const char *const test_prefetch[] = {".zmetadata", NULL};
static inline void test_url_marks(nczm_url *u)
{
    u->marks = test_marks;
    u->prefetch = test_prefetch;
}

static int path_exists(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0;
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

static inline int list_has(const nczm_list *l, const char *name)
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

/* nczm_read_ranges: at a start, the object's tail, the whole object, an empty range, past
 * the end, missing, a bad key; objlen is the object's length. */
static void check_ranges(nczm_map *m, const char *abc)
{
    size_t alen = strlen(abc);
    char b[6][32];
    memset(b, '#', sizeof b);
    nczm_range r[6] = {
        {.key = "a/b/c", .start = 1, .count = 2, .buf = b[0]},
        {.key = "a/b/c", .count = 3, .tail = 1, .buf = b[1]},
        {.key = "a/b/c", .count = alen, .tail = 1, .buf = b[2]},
        {.key = "x", .count = 0, .buf = b[3]},
        {.key = "a/b/c", .start = alen - 1, .count = 2, .buf = b[4]},
        {.key = "missing", .count = 1, .buf = b[5]},
    };
    nczm_status st = nczm_read_ranges(m, 6, r);
    CHECK(st == NCZM_SHORT, "read_ranges reports the range past the end: %d", st);
    CHECK(strstr(nczm_errmsg(m), "\"a/b/c\"") != NULL, "short message names the key: %s", nczm_errmsg(m));
    CHECK(r[0].status == NCZM_OK && r[0].objlen == alen && !memcmp(b[0], abc + 1, 2) && b[0][2] == '#',
          "a range at a start: %d", r[0].status);
    CHECK(r[1].status == NCZM_OK && r[1].objlen == alen && !memcmp(b[1], abc + alen - 3, 3) && b[1][3] == '#',
          "the tail: %d", r[1].status);
    CHECK(r[2].status == NCZM_OK && !memcmp(b[2], abc, alen), "a tail of the whole object: %d", r[2].status);
    CHECK(r[3].status == NCZM_OK && r[3].objlen == 0 && b[3][0] == '#', "an empty range of an empty object");
    CHECK(r[4].status == NCZM_SHORT && r[4].objlen == alen, "past the end: %d", r[4].status);
    CHECK(r[5].status == NCZM_NOTFOUND, "a missing object: %d", r[5].status);
    nczm_range t = {.key = "a/d", .count = 3, .tail = 1, .buf = b[0]};
    CHECK(nczm_read_ranges(m, 1, &t) == NCZM_SHORT && t.objlen == 2, "a tail longer than the object");
    nczm_range k[2] = {{.key = "a//b", .count = 1, .buf = b[0]}, {.key = "a/d", .count = 1, .buf = b[1]}};
    CHECK(nczm_read_ranges(m, 2, k) == NCZM_BADKEY && k[1].status == NCZM_OK && b[1][0] == 'd',
          "a bad key does not stop the others");
    CHECK(nczm_read_ranges(m, 0, NULL) == NCZM_OK && nczm_read_ranges(m, 1, NULL) == NCZM_INVAL,
          "empty and missing batches");
    /* a range into a scatter list (the store's preadv, or the dispatcher's buffer): three
     * pieces, the middle one empty; the bytes around them untouched */
    {
        char s1[4], s2[64];
        memset(s1, '#', sizeof s1);
        memset(s2, '#', sizeof s2);
        struct iovec v[3] = {{s1, 2}, {s2, 0}, {s2, alen - 2}};
        nczm_range sv = {.key = "a/b/c", .count = alen, .iov = v, .iovcnt = 3};
        CHECK(alen >= 3 && alen < sizeof s2, "scatter test object: %zu bytes", alen);
        CHECK(nczm_read_ranges(m, 1, &sv) == NCZM_OK && sv.status == NCZM_OK && !memcmp(s1, abc, 2) &&
                  s1[2] == '#' && !memcmp(s2, abc + 2, alen - 2) && s2[alen - 2] == '#',
              "a range into a scatter list: %d", sv.status);
        nczm_range sp = {.key = "a/b/c", .start = alen - 1, .count = 2, .iov = v, .iovcnt = 3};
        CHECK(nczm_read_ranges(m, 1, &sp) == NCZM_SHORT && sp.status == NCZM_SHORT,
              "a scatter range past the end");
        nczm_range nb = {.key = "a/b/c", .count = 1};
        CHECK(nczm_read_ranges(m, 1, &nb) == NCZM_INVAL && nb.status == NCZM_INVAL,
              "a range without a buffer or a list");
    }
}

/* nczm_get_into_each: the hooks run once per request, before with a slot whose buffer it
 * sets, after with the status; or NCZM_UNSUPPORTED with nothing done. */
typedef struct each_probe {
    nczm_getinto *g;
    char bufs[64][32];
    int before[3], after[3], bad_slot[3]; /* per request: each is one thread's */
    size_t len[3];
} each_probe;

static void each_before(void *ud, size_t i, unsigned slot)
{
    each_probe *p = ud;
    p->bad_slot[i] = slot >= 64;
    p->g[i].buf = p->bufs[slot < 64 ? slot : 0];
    p->g[i].cap = sizeof p->bufs[0];
    p->before[i]++;
}

static void each_after(void *ud, size_t i, unsigned slot)
{
    each_probe *p = ud;
    (void)slot;
    p->after[i]++;
    p->len[i] = p->g[i].status == NCZM_OK ? p->g[i].len : 0;
}

static void check_each(nczm_map *m, const char *abc)
{
    nczm_getinto g[3] = {{.key = "a/b/c"}, {.key = "missing"}, {.key = "a/d"}};
    each_probe p = {.g = g};
    nczm_status st = nczm_get_into_each(m, 3, g, each_before, each_after, &p);
    if (st == NCZM_UNSUPPORTED) {
        CHECK(p.before[0] + p.after[0] == 0, "get_into_each unsupported: nothing done");
        return;
    }
    CHECK(st == NCZM_OK, "get_into_each: %d %s", st, nczm_errmsg(m));
    for (int i = 0; i < 3; i++)
        CHECK(p.before[i] == 1 && p.after[i] == 1, "get_into_each: request %d hooks %d/%d", i, p.before[i],
              p.after[i]);
    CHECK(!p.bad_slot[0] && !p.bad_slot[1] && !p.bad_slot[2], "get_into_each: slots below the pool's");
    CHECK(g[0].status == NCZM_OK && p.len[0] == strlen(abc) && g[1].status == NCZM_NOTFOUND &&
              g[2].status == NCZM_OK && p.len[2] == 2,
          "get_into_each statuses %d %d %d", g[0].status, g[1].status, g[2].status);
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
    check_ranges(m, abc);
    check_each(m, abc);
}

static void check_searches(nczm_map *m)
{
    CHECK(search_is(m, "", (const char *[]){".zgroup", "a", "x", NULL}), "search root");
    CHECK(search_is(m, "a", (const char *[]){"b", "d", NULL}), "search a");
    CHECK(search_is(m, "a/b", (const char *[]){"c", NULL}), "search a/b");
    CHECK(search_is(m, "nope", (const char *[]){NULL}), "search missing prefix");
    CHECK(search_is(m, "x", (const char *[]){NULL}), "search of an object");

    nczm_search_req q[6] = {{.prefix = ""},     {.prefix = "a"}, {.prefix = "a/b"},
                            {.prefix = "nope"}, {.prefix = "x"}, {.prefix = "a//b"}};
    CHECK(nczm_search_many(m, 6, q) == NCZM_BADKEY, "search_many with a bad prefix");
    CHECK(strstr(nczm_errmsg(m), "a//b") != NULL, "bad prefix message: %s", nczm_errmsg(m));
    CHECK(q[0].status == NCZM_OK && list_is(&q[0].list, (const char *[]){".zgroup", "a", "x", NULL}),
          "search_many root: %s", list_str(&q[0].list));
    CHECK(q[1].status == NCZM_OK && list_is(&q[1].list, (const char *[]){"b", "d", NULL}), "search_many a");
    CHECK(q[2].status == NCZM_OK && list_is(&q[2].list, (const char *[]){"c", NULL}), "search_many a/b");
    CHECK(q[3].status == NCZM_OK && q[3].list.count == 0 && q[4].status == NCZM_OK && q[4].list.count == 0,
          "search_many of nothing and of an object");
    CHECK(q[5].status == NCZM_BADKEY && q[5].list.count == 0, "search_many bad prefix status");
    for (int i = 0; i < 6; i++)
        nczm_list_clear(&q[i].list);
    CHECK(nczm_search_many(m, 0, NULL) == NCZM_OK, "empty search_many");
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
    /* A key cannot be both an object and a prefix in a directory or a zip archive. S3
     * allows both (checking would cost a request per parent on every write), so this is
     * not asked of it. */
    if (nczm_map_kind(m) != NCZM_KIND_S3) {
        CHECK(nczm_write(m, "x/y", "y", 1) != NCZM_OK, "write below an object");
        CHECK(nczm_write(m, "a", "a", 1) != NCZM_OK, "write over a prefix");
    }
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
/* A new store's first life, the same on every kind: filled, objects overwritten longer and
 * shorter, then searches, batches, deletes, renames and bad keys. */
static void check_store_life(nczm_map *m)
{
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
}

#endif
