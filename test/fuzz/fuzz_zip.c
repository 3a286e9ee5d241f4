/* Fuzz target (e): the zip store's reading of an archive. The input is a zip archive, written
 * to tmpfs as store.zip and opened read-only through the zip store (nczm_open with the
 * name's ".zip"): open reads its central directory, finds the layout (a folder "store/" or
 * a lone top folder of another name, or keys at the root) and indexes the entries by path
 * segment (nczm_zipidx.c). Then every key is listed (nczm_search from the root down, and
 * nczm_search_many of each level), and every object's length and bytes read through each
 * read call: nczm_read_all, nczm_read of the whole object, of its second half, of nothing
 * at its end and of one byte past it, nczm_read_ranges (heads and tails), nczm_get_many
 * and nczm_get_into_many. An input whose last bytes are "rw" (a zip archive whose comment
 * ends so) is opened for writing as well: a key is written, the first top-level name
 * renamed, the second deleted, the archive written at close, and read back the same way.
 * Besides the sanitizers, the target checks what the store says against itself: a read's
 * bytes are those of the whole object, a read past the end is NCZM_SHORT, and each change
 * it reports as done shows at once (a written object reads back, a renamed or deleted key
 * is gone, a renamed one is at its new place).
 *
 * The harness bounds what it asks for: keys visited, bytes of keys, and bytes read per
 * input (every read of an entry inflates all of it, to check its CRC-32), so that a run
 * past libFuzzer's limits is the store's own doing. */
#include "nczm.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_KEYS       4096
#define MAX_KEY_BYTES  ((size_t)4 << 20)
#define READ_MAX       ((uint64_t)4 << 20)  /* the largest object read whole */
#define READ_BUDGET    ((uint64_t)32 << 20) /* bytes of entries inflated per input */
#define RANGES_PER_DIR 16

static char zip_dir[3900], zip_path[4096];
/* the formats' marks (translate/format/ncztr_format.c): what makes an archive a store */
static const char *const marks[] = {".zgroup", ".zarray", "zarr.json", NULL};
static const char *const prefetch[] = {".zmetadata", "zarr.json", NULL};

static void remove_dir(void)
{
    unlink(zip_path);
    rmdir(zip_dir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    const char *tmp = getenv("TMPDIR");
    snprintf(zip_dir, sizeof zip_dir, "%s/nczarr-fuzz-zip-%ld", tmp && *tmp ? tmp : "/tmp", (long)getpid());
    mkdir(zip_dir, 0700);
    atexit(remove_dir);
    /* the archive's name gives the folder netCDF-C's layout puts keys in: "store/" */
    snprintf(zip_path, sizeof zip_path, "%s/store.zip", zip_dir);
    return 0;
}

typedef struct walk {
    nczm_map *map;
    char **queue; /* keys to list, each malloc'ed */
    size_t nq, head, capq;
    size_t key_bytes;
    uint64_t budget;
} walk;

static int enqueue(walk *w, char *key)
{
    size_t kl = strlen(key);
    if (w->nq >= MAX_KEYS || w->key_bytes + kl > MAX_KEY_BYTES) {
        free(key);
        return -1;
    }
    if (w->nq == w->capq) {
        size_t nc = w->capq ? 2 * w->capq : 64;
        char **nqueue = realloc(w->queue, nc * sizeof *nqueue);
        if (!nqueue) {
            free(key);
            return -1;
        }
        w->queue = nqueue;
        w->capq = nc;
    }
    w->queue[w->nq++] = key;
    w->key_bytes += kl;
    return 0;
}

/* Spends n bytes of the input's read budget: 0 when there is not that much left. */
static int spend(walk *w, uint64_t n)
{
    if (n > w->budget)
        return 0;
    w->budget -= n;
    return 1;
}

static void read_object(walk *w, const char *key, uint64_t len)
{
    nczm_map *m = w->map;
    void *all = NULL;
    size_t alen = 0;
    nczm_status ast = NCZM_NOTFOUND;
    if (len <= READ_MAX && spend(w, len)) {
        ast = nczm_read_all(m, key, &all, &alen);
        if (ast == NCZM_OK && (alen != len || ((char *)all)[alen] != '\0'))
            abort(); /* read_all gives the length nczm_len says, and a NUL after it */
    }
    if (len <= READ_MAX && spend(w, 2 * len)) {
        char *buf = malloc(len ? (size_t)len : 1);
        if (buf) {
            /* the bytes of a read are those of the whole object, where both succeed */
            if (nczm_read(m, key, 0, len, buf) == NCZM_OK && ast == NCZM_OK && memcmp(buf, all, (size_t)len))
                abort();
            if (nczm_read(m, key, len / 2, len - len / 2, buf) == NCZM_OK && ast == NCZM_OK &&
                memcmp(buf, (char *)all + len / 2, (size_t)(len - len / 2)))
                abort();
            free(buf);
        }
    }
    free(all);
    /* nothing at the end, and a byte past it: no entry data is touched */
    char one;
    nczm_read(m, key, len, 0, &one);
    if (nczm_read(m, key, len, 1, &one) != NCZM_SHORT)
        abort();
}

/* The heads and tails of a level's objects in one batch, then each whole by get_many and
 * get_into_many. */
static void read_batches(walk *w, char **keys, const uint64_t *lens, size_t n)
{
    nczm_range rr[2 * RANGES_PER_DIR];
    char bufs[2 * RANGES_PER_DIR][64];
    size_t nr = 0;
    uint64_t total = 0;
    for (size_t i = 0; i < n; i++)
        total += lens[i];
    if (!spend(w, 2 * total))
        return;
    for (size_t i = 0; i < n; i++) {
        size_t c = lens[i] < sizeof bufs[0] ? (size_t)lens[i] : sizeof bufs[0];
        rr[nr] = (nczm_range){.key = keys[i], .start = 0, .count = c, .buf = bufs[nr]};
        rr[nr + 1] = (nczm_range){.key = keys[i], .count = c, .tail = 1, .buf = bufs[nr + 1]};
        nr += 2;
    }
    nczm_read_ranges(w->map, nr, rr);
    if (!spend(w, 2 * total))
        return;
    nczm_get gets[RANGES_PER_DIR];
    nczm_getinto into[RANGES_PER_DIR];
    void *ibufs[RANGES_PER_DIR];
    for (size_t i = 0; i < n; i++) {
        gets[i] = (nczm_get){.key = keys[i]};
        ibufs[i] = malloc(lens[i] ? (size_t)lens[i] : 1);
        into[i] = (nczm_getinto){.key = keys[i], .buf = ibufs[i], .cap = ibufs[i] ? (size_t)lens[i] : 0};
    }
    nczm_get_many(w->map, n, gets);
    nczm_get_into_many(w->map, n, into);
    for (size_t i = 0; i < n; i++) {
        free(gets[i].buf);
        free(ibufs[i]);
    }
}

/* Lists the level of one key, reading its objects and queueing every child. */
static void walk_level(walk *w, const char *prefix)
{
    nczm_list l = {0};
    if (nczm_search(w->map, prefix, &l) != NCZM_OK)
        return;
    char *keys[RANGES_PER_DIR];
    uint64_t lens[RANGES_PER_DIR];
    size_t nk = 0;
    for (size_t i = 0; i < l.count; i++) {
        char *key = nczm_key_join(prefix, l.names[i]);
        if (!key)
            break;
        uint64_t len = 0;
        nczm_exists(w->map, key);
        if (nczm_len(w->map, key, &len) == NCZM_OK) {
            read_object(w, key, len);
            if (nk < RANGES_PER_DIR && len <= READ_MAX) {
                keys[nk] = strdup(key);
                lens[nk] = len;
                nk += keys[nk] != NULL;
            }
        }
        enqueue(w, key); /* an object may have children too ("a" and "a/b") */
    }
    read_batches(w, keys, lens, nk);
    for (size_t i = 0; i < nk; i++)
        free(keys[i]);
    nczm_list_clear(&l);
}

static void walk_store(nczm_map *m)
{
    walk w = {.map = m, .budget = READ_BUDGET};
    char *root = strdup("");
    if (!root || enqueue(&w, root) != 0)
        return;
    while (w.head < w.nq) {
        /* the keys of this level at once, as opening a store without .zmetadata does */
        size_t first = w.head, last = w.nq;
        nczm_search_req *reqs = calloc(last - first, sizeof *reqs);
        for (size_t i = first; reqs && i < last; i++)
            reqs[i - first].prefix = w.queue[i];
        if (reqs) {
            nczm_search_many(m, last - first, reqs);
            for (size_t i = 0; i < last - first; i++)
                nczm_list_clear(&reqs[i].list);
            free(reqs);
        }
        for (; w.head < last; w.head++)
            walk_level(&w, w.queue[w.head]);
    }
    uint64_t sum;
    nczm_tree_bytes(m, "", &sum);
    for (size_t i = 0; i < w.nq; i++)
        free(w.queue[i]);
    free(w.queue);
}

static nczm_status open_store(unsigned flags, nczm_map **m)
{
    char err[NCZM_ERRLEN];
    nczm_url url;
    nczm_status st = nczm_url_parse(zip_path, &url, err);
    if (st != NCZM_OK)
        abort(); /* a plain "*.zip" path is always a zip store's name */
    url.marks = marks;
    url.prefetch = prefetch;
    st = nczm_open(&url, flags, m, err);
    nczm_url_clear(&url);
    if (st == NCZM_OK)
        nczm_map_set_workers(*m, 1); /* one thread: the same path through the store for each run */
    return st;
}

/* Is there nothing at or below key (no object, no child)? */
static int gone(nczm_map *m, const char *key)
{
    nczm_list l = {0};
    int empty = nczm_search(m, key, &l) == NCZM_OK && l.count == 0;
    nczm_list_clear(&l);
    return empty && nczm_exists(m, key) == NCZM_NOTFOUND;
}

/* Changes the store where an archive's entries were read: a write, a rename and a delete,
 * all in the index and then in the archive written at close. What each change reports as
 * done must show at once: a written object reads back, a renamed or deleted key is gone
 * and a renamed one is at its new place. */
static void change_store(nczm_map *m)
{
    if (nczm_write(m, "fuzz_new/.zgroup", "{}", 2) == NCZM_OK) {
        void *buf = NULL;
        size_t len = 0;
        if (nczm_read_all(m, "fuzz_new/.zgroup", &buf, &len) != NCZM_OK || len != 2 || memcmp(buf, "{}", 2))
            abort();
        free(buf);
    }
    nczm_list l = {0};
    if (nczm_search(m, "", &l) == NCZM_OK) {
        if (l.count > 0 && strcmp(l.names[0], "fuzz_new") != 0 &&
            nczm_rename_tree(m, l.names[0], "fuzz_moved/x") == NCZM_OK &&
            (!gone(m, l.names[0]) || (nczm_exists(m, "fuzz_moved/x") != NCZM_OK && gone(m, "fuzz_moved/x"))))
            abort();
        if (l.count > 1 && strcmp(l.names[1], "fuzz_new") != 0 &&
            nczm_delete_tree(m, l.names[1]) == NCZM_OK && !gone(m, l.names[1]))
            abort();
    }
    nczm_list_clear(&l);
    if (nczm_delete(m, "fuzz_new/.zgroup") == NCZM_OK && nczm_exists(m, "fuzz_new/.zgroup") != NCZM_NOTFOUND)
        abort();
    nczm_write(m, "fuzz_new/.zattrs", "{}", 2);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    FILE *f = fopen(zip_path, "wb");
    if (!f)
        return 0;
    size_t put = fwrite(data, 1, size, f);
    if (fclose(f) != 0 || put != size) {
        unlink(zip_path);
        return 0;
    }
    int rw = size >= 2 && data[size - 2] == 'r' && data[size - 1] == 'w';
    nczm_map *m = NULL;
    if (open_store(NCZM_READONLY, &m) == NCZM_OK) {
        walk_store(m);
        nczm_close(m);
    }
    if (rw && open_store(0, &m) == NCZM_OK) {
        change_store(m);
        nczm_close(m);
        if (open_store(NCZM_READONLY, &m) == NCZM_OK) { /* what was written reads back */
            walk_store(m);
            nczm_close(m);
        }
    }
    unlink(zip_path);
    return 0;
}
