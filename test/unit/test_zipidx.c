/* The zip store's entry index against the directory store: the same random sequence of
 * writes, deletes, tree deletes, renames and copies on both must give the same statuses and
 * leave the same keys, contents and listings after every step, and again after the zip
 * archive is written and read back (when the index is rebuilt from its entries). Both zip
 * layouts: netCDF-C's folder with directory entries, and keys at the archive root. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "ncz_test.h"
#include "nczm.h"

#include <ftw.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char dir[4096];

static int rm_cb(const char *p, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb;
    (void)flag;
    (void)ftw;
    return remove(p);
}

static nczm_map *open_map(const char *name, unsigned flags)
{
    nczm_url url;
    char err[NCZM_ERRLEN];
    nczm_map *m = NULL;
    if (nczm_url_parse(name, &url, err) != NCZM_OK)
        return NULL;
    static const char *const marks[] = {".zgroup", ".zarray", NULL};
    url.marks = marks;
    if (nczm_open(&url, flags, &m, err) != NCZM_OK)
        fprintf(stderr, "open %s: %s\n", name, err);
    nczm_url_clear(&url);
    return m;
}

typedef struct dump {
    char *s;
    size_t len, cap;
} dump;

static void put(dump *d, const char *s, size_t n)
{
    if (d->len + n + 1 > d->cap) {
        d->cap = (d->len + n + 1) * 2;
        d->s = realloc(d->s, d->cap);
        if (!d->s)
            exit(2);
    }
    memcpy(d->s + d->len, s, n);
    d->len += n;
    d->s[d->len] = '\0';
}

/* Every key below prefix, with its listing and each object's content, depth first. */
static void dump_tree(nczm_map *m, const char *prefix, dump *d)
{
    nczm_list l = {0, NULL};
    if (nczm_search(m, prefix, &l) != NCZM_OK) {
        put(d, "<search failed>", 15);
        return;
    }
    for (size_t i = 0; i < l.count; i++) {
        char key[512];
        snprintf(key, sizeof key, "%s%s%s", prefix, *prefix ? "/" : "", l.names[i]);
        void *buf = NULL;
        size_t len = 0;
        put(d, key, strlen(key));
        if (nczm_read_all(m, key, &buf, &len) == NCZM_OK) {
            put(d, "=", 1);
            put(d, buf, len);
            free(buf);
        }
        put(d, "\n", 1);
        dump_tree(m, key, d);
    }
    nczm_list_clear(&l);
}

static uint32_t rnd_state = 12345;
static uint32_t rnd(uint32_t n)
{
    rnd_state = rnd_state * 1103515245u + 12345u;
    return (rnd_state >> 8) % n;
}

/* A key of 1 to 3 segments from a small alphabet, so that operations collide often. */
static void rnd_key(char *buf)
{
    static const char *segs[] = {"a", "b", "c"};
    int depth = 1 + (int)rnd(3);
    buf[0] = '\0';
    for (int i = 0; i < depth; i++) {
        if (i)
            strcat(buf, "/");
        strcat(buf, segs[rnd(3)]);
    }
}

static int same(nczm_map *f, nczm_map *z, const char *when)
{
    dump a = {0}, b = {0};
    dump_tree(f, "", &a);
    dump_tree(z, "", &b);
    int ok = a.s && b.s ? strcmp(a.s, b.s) == 0 : a.s == b.s;
    if (!ok)
        fprintf(stderr, "after %s:\n-- directory store --\n%s-- zip store --\n%s", when, a.s ? a.s : "",
                b.s ? b.s : "");
    free(a.s);
    free(b.s);
    return ok;
}

/* Runs steps random operations on both stores; 0 when they ever disagreed. */
static int run_ops(nczm_map *f, nczm_map *z, int steps, int from)
{
    for (int s = from; s < from + steps; s++) {
        char k1[64], k2[64], what[160], content[32];
        nczm_status a, b;
        rnd_key(k1);
        rnd_key(k2);
        switch (rnd(6)) {
        case 0:
        case 1:
            snprintf(content, sizeof content, "v%d", s);
            a = nczm_write(f, k1, content, strlen(content));
            b = nczm_write(z, k1, content, strlen(content));
            snprintf(what, sizeof what, "step %d: write %s", s, k1);
            break;
        case 2:
            a = nczm_delete(f, k1);
            b = nczm_delete(z, k1);
            snprintf(what, sizeof what, "step %d: delete %s", s, k1);
            break;
        case 3:
            a = nczm_delete_tree(f, k1);
            b = nczm_delete_tree(z, k1);
            snprintf(what, sizeof what, "step %d: delete_tree %s", s, k1);
            break;
        case 4:
            a = nczm_rename_tree(f, k1, k2);
            b = nczm_rename_tree(z, k1, k2);
            snprintf(what, sizeof what, "step %d: rename_tree %s %s", s, k1, k2);
            break;
        default:
            a = nczm_copy_tree(f, k1, k2);
            b = nczm_copy_tree(z, k1, k2);
            snprintf(what, sizeof what, "step %d: copy_tree %s %s", s, k1, k2);
            break;
        }
        CHECK(a == b, "%s: directory store %d, zip store %d (%s)", what, a, b, nczm_errmsg(z));
        if (a != b || !same(f, z, what)) {
            CHECK(0, "%s: the stores differ", what);
            return 0;
        }
    }
    return 1;
}

static void test_layout(const char *tag, unsigned zflags)
{
    char fpath[4200], zpath[4200];
    snprintf(fpath, sizeof fpath, "%s/%s.zarr", dir, tag);
    snprintf(zpath, sizeof zpath, "%s/%s.zip", dir, tag);
    nczm_map *f = open_map(fpath, NCZM_CREATE);
    nczm_map *z = open_map(zpath, NCZM_CREATE | zflags);
    REQUIRE(f && z, "create the stores");
    /* both need a root marker to be stores that open again */
    REQUIRE(nczm_write(f, ".zgroup", "{}", 2) == NCZM_OK && nczm_write(z, ".zgroup", "{}", 2) == NCZM_OK,
            "root marker");
    int ok = run_ops(f, z, 600, 0);
    REQUIRE(nczm_close(z) == NCZM_OK, "write the archive");
    z = open_map(zpath, 0);
    REQUIRE(z, "reopen the archive");
    CHECK(ok && same(f, z, "reopening"), "%s: the index rebuilt from the archive", tag);
    ok = ok && run_ops(f, z, 600, 600);
    REQUIRE(nczm_close(z) == NCZM_OK, "write the archive again");
    z = open_map(zpath, NCZM_READONLY);
    REQUIRE(z, "reopen read-only");
    CHECK(ok && same(f, z, "reopening read-only"), "%s: the index rebuilt once more", tag);
    nczm_close(z);
    nczm_close(f);
}

int main(void)
{
    const char *t = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s/nczarr-zipidx-XXXXXX", t && *t ? t : "/tmp");
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 2;
    }
    test_layout("folder", 0);
    test_layout("root", NCZM_ZIP_ROOT);
    nftw(dir, rm_cb, 16, FTW_DEPTH | FTW_PHYS);
    TEST_MAIN_END();
}
