/* The S3 store's request rates at the zmap level: N small objects written and read one
 * request at a time, then as one batch (curl multi, cfg.conns in flight), listed and
 * deleted; and one big object up and down (in parts, and whole).
 *
 *   bench_zmap_s3 [s3.env] [N=1000] [object bytes=1024] [big MiB=64]
 *
 * The server comes from NCZ_S3_ENDPOINT, NCZ_S3_ACCESS_KEY, NCZ_S3_SECRET_KEY, NCZ_S3_REGION
 * (or the s3.env file scripts/s3-server.sh start writes). NCZM_S3_CONNECTIONS sets the
 * requests in flight (16). */
#include "nczm.h"
#include "s3_env_file.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void row(const char *what, size_t n, double dt, uint64_t reqs, size_t bytes)
{
    printf("%-34s %8.3f s %9.0f obj/s %8.1f MiB/s %7llu requests\n", what, dt, (double)n / dt,
           (double)bytes / dt / 1048576.0, (unsigned long long)reqs);
}

static void die(const char *what, nczm_map *m)
{
    fprintf(stderr, "bench_zmap_s3: %s: %s\n", what, m ? nczm_errmsg(m) : "");
    exit(1);
}

int main(int argc, char **argv)
{
    if (argc > 1 && !getenv("NCZ_S3_ENDPOINT"))
        load_env_file(argv[1]);
    size_t n = argc > 2 ? strtoul(argv[2], NULL, 10) : 1000,
           sz = argc > 3 ? strtoul(argv[3], NULL, 10) : 1024;
    size_t bigmib = argc > 4 ? strtoul(argv[4], NULL, 10) : 64;
    const char *ep = getenv("NCZ_S3_ENDPOINT");
    if (!ep || !getenv("NCZ_S3_ACCESS_KEY") || !getenv("NCZ_S3_SECRET_KEY")) {
        fprintf(stderr, "bench_zmap_s3: no server (NCZ_S3_ENDPOINT etc., or an s3.env file)\n");
        return 1;
    }
    char name[512], err[NCZM_ERRLEN];
    snprintf(name, sizeof name, "%s/bench-%d/store#mode=nczarr,s3", ep, (int)getpid());
    nczm_url u;
    if (nczm_url_parse(name, &u, err) != NCZM_OK)
        return fprintf(stderr, "%s\n", err), 1;
    nczm_url_set(&u, "access_key", getenv("NCZ_S3_ACCESS_KEY"), err);
    nczm_url_set(&u, "secret_key", getenv("NCZ_S3_SECRET_KEY"), err);
    nczm_url_set(&u, "region", getenv("NCZ_S3_REGION") ? getenv("NCZ_S3_REGION") : "us-east-1", err);
    nczm_map *m = NULL;
    if (nczm_open(&u, NCZM_CREATE | NCZM_TRUNC, &m, err) != NCZM_OK)
        return fprintf(stderr, "%s\n", err), 1;
    nczm_write(m, ".zgroup", "{}", 2);

    char(*keys)[32] = malloc(n * sizeof *keys);
    char *data = malloc(sz ? sz : 1);
    nczm_put *p = calloc(n, sizeof *p);
    nczm_get *g = calloc(n, sizeof *g);
    nczm_getinto *gi = calloc(n, sizeof *gi);
    char *into = malloc(n * (sz ? sz : 1));
    if (!keys || !data || !p || !g || !gi || !into)
        die("out of memory", NULL);
    memset(data, 'x', sz);
    printf("S3 store %s, %zu objects of %zu bytes\n", name, n, sz);

    uint64_t r0 = nczm_map_requests(m);
    double t0 = now_s();
    for (size_t i = 0; i < n; i++) {
        snprintf(keys[i], sizeof keys[i], "s/%zu", i);
        if (nczm_write(m, keys[i], data, sz) != NCZM_OK)
            die("serial write", m);
    }
    row("PUT, one at a time", n, now_s() - t0, nczm_map_requests(m) - r0, n * sz);

    for (size_t i = 0; i < n; i++) {
        snprintf(keys[i], sizeof keys[i], "b/%zu", i);
        p[i] = (nczm_put){.key = keys[i], .buf = data, .len = sz};
    }
    r0 = nczm_map_requests(m);
    t0 = now_s();
    if (nczm_put_many(m, n, p) != NCZM_OK)
        die("put_many", m);
    row("PUT, one batch (put_many)", n, now_s() - t0, nczm_map_requests(m) - r0, n * sz);

    r0 = nczm_map_requests(m);
    t0 = now_s();
    for (size_t i = 0; i < n; i++) {
        void *b;
        size_t l;
        if (nczm_read_all(m, keys[i], &b, &l) != NCZM_OK)
            die("serial read", m);
        free(b);
    }
    row("GET, one at a time", n, now_s() - t0, nczm_map_requests(m) - r0, n * sz);

    for (size_t i = 0; i < n; i++)
        g[i] = (nczm_get){.key = keys[i]};
    r0 = nczm_map_requests(m);
    t0 = now_s();
    if (nczm_get_many(m, n, g) != NCZM_OK)
        die("get_many", m);
    row("GET, one batch (get_many)", n, now_s() - t0, nczm_map_requests(m) - r0, n * sz);
    for (size_t i = 0; i < n; i++)
        free(g[i].buf);

    for (size_t i = 0; i < n; i++)
        gi[i] = (nczm_getinto){.key = keys[i], .buf = into + i * sz, .cap = sz};
    r0 = nczm_map_requests(m);
    t0 = now_s();
    if (nczm_get_into_many(m, n, gi) != NCZM_OK)
        die("get_into_many", m);
    row("GET, one batch (get_into_many)", n, now_s() - t0, nczm_map_requests(m) - r0, n * sz);

    r0 = nczm_map_requests(m);
    t0 = now_s();
    for (size_t i = 0; i < n; i++)
        if (nczm_exists(m, keys[i]) != NCZM_OK)
            die("exists", m);
    row("HEAD, one at a time", n, now_s() - t0, nczm_map_requests(m) - r0, 0);

    nczm_list l = {0, NULL};
    r0 = nczm_map_requests(m);
    t0 = now_s();
    if (nczm_search(m, "b", &l) != NCZM_OK || l.count != n)
        die("search", m);
    row("search (ListObjectsV2, 1000 a page)", n, now_s() - t0, nczm_map_requests(m) - r0, 0);
    nczm_list_clear(&l);

    r0 = nczm_map_requests(m);
    t0 = now_s();
    if (nczm_copy_tree(m, "b", "c") != NCZM_OK)
        die("copy_tree", m);
    row("copy_tree (CopyObject)", n, now_s() - t0, nczm_map_requests(m) - r0, 0);

    r0 = nczm_map_requests(m);
    t0 = now_s();
    if (nczm_delete_tree(m, "s") != NCZM_OK || nczm_delete_tree(m, "b") != NCZM_OK ||
        nczm_delete_tree(m, "c") != NCZM_OK)
        die("delete_tree", m);
    row("delete_tree x3 (DeleteObjects)", 3 * n, now_s() - t0, nczm_map_requests(m) - r0, 0);

    if (bigmib) {
        size_t big = bigmib << 20;
        char *bb = malloc(big);
        if (!bb)
            die("out of memory", NULL);
        memset(bb, 'y', big);
        r0 = nczm_map_requests(m);
        t0 = now_s();
        if (nczm_write(m, "big", bb, big) != NCZM_OK)
            die("big write", m);
        row("big PUT (parts of 16 MiB at once)", 1, now_s() - t0, nczm_map_requests(m) - r0, big);
        r0 = nczm_map_requests(m);
        t0 = now_s();
        nczm_getinto one = {.key = "big", .buf = bb, .cap = big};
        if (nczm_get_into_many(m, 1, &one) != NCZM_OK)
            die("big read", m);
        row("big GET (one request)", 1, now_s() - t0, nczm_map_requests(m) - r0, big);
        free(bb);
    }
    nczm_close(m);
    if (nczm_destroy(&u, err) != NCZM_OK)
        fprintf(stderr, "destroy: %s\n", err);
    nczm_url_clear(&u);
    free(keys);
    free(data);
    free(p);
    free(g);
    free(gi);
    free(into);
    return 0;
}
