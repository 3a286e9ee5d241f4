/* Unit tests of the directory store's commits of many objects (nczm_commit_many and the
 * streamed nczm_commit_begin...end): on the worker pool, the first failure in key order,
 * taken back, and new subtrees (zmap/file/nczm_filesub.c): a missing directory written
 * under a temporary name and renamed into place once, merged into one that appears in
 * the meantime, and more new directories than a commit keeps as subtrees.
 * REQUIRE evaluates its condition twice, so calls with effects are made before it. */
#include "ncz_test.h"
#include "nczm.h"

#include <dirent.h>
#include <ftw.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static char scratch[4096];

/* what marks a store, for these tests (translate/format gives the real list) */
static const char *const marks[] = {".zgroup", ".zarray", "zarr.json", NULL};

static int path_exists(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0;
}

static char *spath(const char *name)
{
    return ncz_test_path(scratch, name);
}

static size_t ntemps;
static int count_temp(const char *path, const struct stat *sb, int type, struct FTW *ftw)
{
    (void)sb;
    (void)type;
    ntemps += strncmp(path + ftw->base, ".nczm-tmp", 9) == 0;
    return 0;
}

/* Temporaries (files or directories) anywhere below dir. */
static size_t temps_in(const char *dir)
{
    ntemps = 0;
    nftw(dir, count_temp, 16, FTW_PHYS);
    return ntemps;
}

static int remove_cb(const char *path, const struct stat *sb, int type, struct FTW *ftw)
{
    (void)sb;
    (void)type;
    (void)ftw;
    return remove(path);
}

/* A new directory store in the scratch directory; NULL (and a failure) when it cannot be. */
static nczm_map *create_store(const char *name)
{
    char err[NCZM_ERRLEN];
    nczm_map *m = NULL;
    nczm_url u;
    nczm_status st = nczm_url_parse(spath(name), &u, err);
    if (st == NCZM_OK) {
        u.marks = marks;
        st = nczm_open(&u, NCZM_CREATE | NCZM_TRUNC, &m, err);
        nczm_url_clear(&u);
    }
    CHECK(st == NCZM_OK, "create %s: %s", name, err);
    return st == NCZM_OK ? m : NULL;
}

/* Does each of keys[0, n) read back as its own name? */
static int read_back(nczm_map *m, char (*keys)[48], size_t n)
{
    for (size_t i = 0; i < n; i++) {
        void *buf = NULL;
        size_t len = 0;
        int ok = nczm_read_all(m, keys[i], &buf, &len) == NCZM_OK && len == strlen(keys[i]) &&
                 !memcmp(buf, keys[i], len);
        free(buf);
        if (!ok) {
            fprintf(stderr, "%s does not read back\n", keys[i]);
            return 0;
        }
    }
    return 1;
}

/* A commit of many objects (run on the worker pool in blocks): all land, and the first
 * failure in key order is the one reported, whichever thread met it. */
static void test_commit_many(void)
{
    enum { N = 2000 };
    nczm_map *m = create_store("commit.zarr");
    REQUIRE(m, "a store");
    static char keys[N][48];
    static nczm_put p[N];
    for (int i = 0; i < N; i++) {
        snprintf(keys[i], sizeof keys[i], "g/v%04d/%s", i / 2, i % 2 ? ".zattrs" : ".zarray");
        p[i] = (nczm_put){.key = keys[i], .buf = keys[i], .len = strlen(keys[i])};
    }
    CHECK(nczm_commit_many(m, N, p) == NCZM_OK, "commit %d objects: %s", N, nczm_errmsg(m));
    int ok = 1;
    for (int i = 0; i < N && ok; i += 97) {
        void *buf = NULL;
        size_t len = 0;
        ok = nczm_read_all(m, keys[i], &buf, &len) == NCZM_OK && len == strlen(keys[i]) &&
             !memcmp(buf, keys[i], len);
        free(buf);
    }
    CHECK(ok, "the objects read back");
    /* two keys below an object: the earlier one is named */
    CHECK(nczm_write(m, "g/blocker", "x", 1) == NCZM_OK, "an object");
    for (int i = 0; i < N; i++)
        p[i].status = NCZM_OK;
    snprintf(keys[1300], sizeof keys[1300], "g/blocker/early");
    snprintf(keys[1900], sizeof keys[1900], "g/blocker/late");
    p[1300].len = p[1900].len = 1;
    CHECK(nczm_commit_many(m, N, p) != NCZM_OK && p[1300].status != NCZM_OK && p[1900].status != NCZM_OK &&
              p[1299].status == NCZM_OK && p[1901].status == NCZM_OK,
          "a commit with two bad keys fails for those two only");
    CHECK(strstr(nczm_errmsg(m), "g/blocker/early") != NULL, "the first failure is reported: %s",
          nczm_errmsg(m));
    nczm_list l = {0};
    CHECK(nczm_search(m, "g/v0100", &l) == NCZM_OK && l.count == 2, "no temporary is left: %zu entries",
          l.count);
    nczm_list_clear(&l);
    CHECK(nczm_close(m) == NCZM_OK, "close");
    CHECK(temps_in(spath("commit.zarr")) == 0, "no temporary file or directory is left on disk");
}

/* The same through nczm_commit_begin/ready/end, the objects handed over a few at a time
 * (the directory store writes their temporaries meanwhile): all land; a bad key fails
 * alone and is named; a commit taken back leaves neither objects nor temporaries. */
static void test_commit_stream(void)
{
    enum { N = 3000 };
    nczm_map *m = create_store("commitstream.zarr");
    REQUIRE(m, "a store");
    static char keys[N][48];
    static nczm_put p[N];
    size_t steps[] = {1, 100, 256, N};
    for (size_t t = 0; t < sizeof steps / sizeof *steps; t++) {
        nczm_commit *c = nczm_commit_begin(m, p, N);
        REQUIRE(c, "begin");
        for (int i = 0; i < N; i++) {
            snprintf(keys[i], sizeof keys[i], "s%zu/v%04d/%s", t, i / 2, i % 2 ? ".zattrs" : ".zarray");
            p[i] = (nczm_put){.key = keys[i], .buf = keys[i], .len = strlen(keys[i])};
            if ((size_t)(i + 1) % steps[t] == 0)
                nczm_commit_ready(c, (size_t)i + 1);
        }
        CHECK(nczm_commit_end(c, N, 1) == NCZM_OK, "commit %d objects in steps of %zu: %s", N, steps[t],
              nczm_errmsg(m));
        int ok = 1;
        for (int i = 0; i < N && ok; i += 89) {
            void *buf = NULL;
            size_t len = 0;
            ok = nczm_read_all(m, keys[i], &buf, &len) == NCZM_OK && len == strlen(keys[i]) &&
                 !memcmp(buf, keys[i], len);
            free(buf);
        }
        CHECK(ok, "steps of %zu: the objects read back", steps[t]);
    }
    nczm_list l = {0};
    CHECK(nczm_search(m, "s1/v0700", &l) == NCZM_OK && l.count == 2, "no temporary is left: %zu entries",
          l.count);
    nczm_list_clear(&l);
    /* a bad key and a key below an object, handed over in different blocks */
    CHECK(nczm_write(m, "s0/blocker", "x", 1) == NCZM_OK, "an object");
    nczm_commit *c = nczm_commit_begin(m, p, N);
    REQUIRE(c, "begin");
    for (int i = 0; i < N; i++) {
        snprintf(keys[i], sizeof keys[i], "b/v%04d/%s", i / 2, i % 2 ? ".zattrs" : ".zarray");
        if (i == 700)
            snprintf(keys[i], sizeof keys[i], "s0/blocker/early");
        if (i == 2900)
            snprintf(keys[i], sizeof keys[i], "b/../bad");
        p[i] = (nczm_put){.key = keys[i], .buf = keys[i], .len = strlen(keys[i])};
        if ((i + 1) % 256 == 0)
            nczm_commit_ready(c, (size_t)i + 1);
    }
    CHECK(nczm_commit_end(c, N, 1) != NCZM_OK && p[700].status != NCZM_OK && p[2900].status != NCZM_OK &&
              p[699].status == NCZM_OK && p[2899].status == NCZM_OK,
          "a streamed commit with two bad keys fails for those two only");
    CHECK(strstr(nczm_errmsg(m), "s0/blocker/early") != NULL, "the first failure is reported: %s",
          nczm_errmsg(m));
    /* taken back after many were written: nothing of it stays */
    c = nczm_commit_begin(m, p, N);
    REQUIRE(c, "begin");
    for (int i = 0; i < N; i++) {
        snprintf(keys[i], sizeof keys[i], "gone/v%04d/%s", i / 2, i % 2 ? ".zattrs" : ".zarray");
        p[i] = (nczm_put){.key = keys[i], .buf = keys[i], .len = strlen(keys[i])};
        if ((i + 1) % 256 == 0)
            nczm_commit_ready(c, (size_t)i + 1);
    }
    CHECK(nczm_commit_end(c, N / 2, 0) == NCZM_OK, "taking a commit back");
    size_t left = 0;
    for (int i = 0; i < N; i += 50) {
        char dir[48];
        snprintf(dir, sizeof dir, "gone/v%04d", i / 2);
        nczm_list d = {0};
        if (nczm_search(m, dir, &d) == NCZM_OK)
            left += d.count;
        nczm_list_clear(&d);
    }
    CHECK(left == 0, "a commit taken back leaves nothing: %zu entries", left);
    CHECK(!path_exists(spath("commitstream.zarr/gone")), "not even the new group's directory");
    CHECK(nczm_close(m) == NCZM_OK, "close");
    CHECK(temps_in(spath("commitstream.zarr")) == 0, "no temporary file or directory is left on disk");
}

/* New subtrees: a new directory three levels deep, objects in a directory already there
 * (each new array its own small subtree), and more new directories than a commit keeps
 * as subtrees (the rest made in place): every object lands, nothing else is left. */
static void test_commit_subtrees(void)
{
    enum { N = 1200 };
    nczm_map *m = create_store("subtrees.zarr");
    REQUIRE(m, "a store");
    static char keys[N][48];
    static nczm_put p[N];
    REQUIRE(nczm_write(m, "old/keep", "keep", 4) == NCZM_OK, "an object in a directory already there");
    for (int i = 0; i < N; i++) {
        const char *leaf = i % 2 ? ".zattrs" : ".zarray";
        if (i < 400) /* below a new directory three levels deep */
            snprintf(keys[i], sizeof keys[i], "n1/n2/n3/v%04d/%s", i / 2, leaf);
        else if (i < 800) /* new arrays in a directory already there */
            snprintf(keys[i], sizeof keys[i], "old/v%04d/%s", i / 2, leaf);
        else /* 50 new top-level groups, four objects each */
            snprintf(keys[i], sizeof keys[i], "t%02d/%s", (i - 800) / 8,
                     (const char *[]){".zgroup", ".zattrs", "a/.zarray", "a/.zattrs", "b/.zarray",
                                      "b/.zattrs", "b/c/.zgroup", "b/c/.zattrs"}[i % 8]);
        p[i] = (nczm_put){.key = keys[i], .buf = keys[i], .len = strlen(keys[i])};
    }
    CHECK(nczm_commit_many(m, N, p) == NCZM_OK, "commit: %s", nczm_errmsg(m));
    CHECK(read_back(m, keys, N), "every object reads back");
    void *buf = NULL;
    size_t len = 0;
    CHECK(nczm_read_all(m, "old/keep", &buf, &len) == NCZM_OK && len == 4, "what was there stays");
    free(buf);
    CHECK(nczm_close(m) == NCZM_OK, "close");
    CHECK(temps_in(spath("subtrees.zarr")) == 0, "no temporary is left on disk");
}

/* The path of the temporary directory in dir (a new subtree under way), or NULL. */
static const char *temp_dir_in(const char *dir)
{
    static char path[4400];
    DIR *d = opendir(dir);
    struct dirent *de;
    const char *found = NULL;
    while (d && !found && (de = readdir(d)) != NULL)
        if (strncmp(de->d_name, ".nczm-tmp", 9) == 0 && de->d_type == DT_DIR) {
            snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
            found = path;
        }
    if (d)
        closedir(d);
    return found;
}

/* Entries of dir named name, and entries whose name starts with ".nczm-tmp". */
static void count_entries(const char *dir, const char *name, int *named, int *temps)
{
    DIR *d = opendir(dir);
    struct dirent *de;
    *named = *temps = 0;
    while (d && (de = readdir(d)) != NULL) {
        *named += strcmp(de->d_name, name) == 0;
        *temps += strncmp(de->d_name, ".nczm-tmp", 9) == 0;
    }
    if (d)
        closedir(d);
}

/* A new group's subtree under way: its own .zgroup is a temporary at the top of the
 * temporary directory (no reader takes that directory for a group should a crash leave it),
 * renamed once the group is in place. A new directory that appears while its subtree is
 * being written (another writer, say): the subtree is moved into it entry by entry, and
 * what the other writer put there stays. */
static void test_commit_merge(void)
{
    enum { N = 2001 };
    nczm_map *m = create_store("merge.zarr");
    REQUIRE(m, "a store");
    nczm_map_set_workers(m, 2); /* pass one then runs on the pool while the caller waits */
    static char keys[N][48];
    static nczm_put p[N];
    nczm_commit *c = nczm_commit_begin(m, p, N);
    REQUIRE(c, "begin");
    for (int i = 0; i < N; i++) {
        if (i == 0)
            snprintf(keys[i], sizeof keys[i], "m/.zgroup");
        else
            snprintf(keys[i], sizeof keys[i], "m/v%04d/%s", (i - 1) / 2, i % 2 ? ".zarray" : ".zattrs");
        p[i] = (nczm_put){.key = keys[i], .buf = keys[i], .len = strlen(keys[i])};
    }
    nczm_commit_ready(c, N);
    /* the subtree's temporary directory is made before its first object is written */
    struct timespec pause = {0, 1000000};
    const char *tdir = NULL;
    int named = 0, temps = 0;
    for (int t = 0; t < 10000 && !temps; t++) {
        if ((tdir = temp_dir_in(spath("merge.zarr"))) != NULL)
            count_entries(tdir, ".zgroup", &named, &temps);
        if (!temps)
            nanosleep(&pause, NULL);
    }
    CHECK(tdir != NULL, "pass one made a new subtree");
    CHECK(temps == 1 && named == 0,
          "its top holds the group's .zgroup as a temporary: %d temporaries, %d named", temps, named);
    CHECK(mkdir(spath("merge.zarr/m"), 0777) == 0 && mkdir(spath("merge.zarr/m/v0003"), 0777) == 0,
          "the directory appears meanwhile");
    FILE *f = fopen(spath("merge.zarr/m/v0003/other"), "w");
    CHECK(f && fputs("other", f) >= 0 && fclose(f) == 0, "with an object of another writer");
    CHECK(nczm_commit_end(c, N, 1) == NCZM_OK, "commit: %s", nczm_errmsg(m));
    CHECK(read_back(m, keys, N), "every object reads back");
    nczm_list l = {0};
    CHECK(nczm_search(m, "m/v0003", &l) == NCZM_OK && l.count == 3, "the other writer's object stays: %zu",
          l.count);
    nczm_list_clear(&l);
    CHECK(nczm_close(m) == NCZM_OK, "close");
    CHECK(temps_in(spath("merge.zarr")) == 0, "no temporary is left on disk");
}

int main(void)
{
    umask(022);
    if (ncz_test_scratch(scratch, sizeof scratch, "test_zmap_commit") != 0)
        return EXIT_FAILURE;
    test_commit_many();
    test_commit_stream();
    test_commit_subtrees();
    test_commit_merge();
    nftw(scratch, remove_cb, 16, FTW_DEPTH | FTW_PHYS);
    TEST_MAIN_END();
}
