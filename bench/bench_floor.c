/* The read floor of a directory store: the least work any reader that uses read(2) must do
 * to hand the caller the array, timed on every core. Each zstd chunk object (a shard, with
 * --shards) is read whole with one pread, its chunks decoded and each chunk's rows copied
 * into a slab of the caller's shape, as a reader's H5Dread or numpy assignment must. No metadata is read, no
 * selection computed, no buffer allocated per chunk: a reader doing more takes longer. Only the Zarr v3
 * layouts the connector writes: chunk keys under "c/", shard indexes at the end with crc32c. A raw chunk is
 * read straight into its rows with one preadv, the least a raw reader can do. */
#include "bench_codecs.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>
#include <zstd.h>

typedef struct {
    char **paths;
    size_t n, cap;
} file_list;

static file_list found; /* nftw has no user pointer */

static int collect(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    if (flag != FTW_F || !strstr(path, "/c/") || !strcmp(path + ftw->base, "zarr.json"))
        return 0;
    if (found.n == found.cap) {
        size_t cap = found.cap ? 2 * found.cap : 1024;
        char **p = realloc(found.paths, cap * sizeof *p);
        if (!p)
            return -1;
        found.paths = p;
        found.cap = cap;
    }
    return (found.paths[found.n++] = strdup(path)) ? 0 : -1;
}

typedef struct {
    const bench_cfg *cfg;
    bench_case c;
    size_t next; /* the next file to take, under lock */
    pthread_mutex_t lock;
    int failed;
    char msg[512];
} floor_job;

typedef struct {
    floor_job *job;
    unsigned char *file; /* the object's bytes, in file_base */
    void *file_base;
    size_t file_cap;
    float *chunk;
    /* the caller's buffer of one call, as one H5Dread fills one: a thread's own, since
     * objects taken at once by two threads may hold chunks of the same place of it (the
     * chunks of consecutive calls), which no reader writes at the same time */
    float *slab;
    void *slab_base;
} floor_worker;

static void job_fail(floor_job *j, const char *fmt, const char *path, const char *why)
{
    pthread_mutex_lock(&j->lock);
    if (!j->failed)
        snprintf(j->msg, sizeof j->msg, fmt, path, why);
    j->failed = 1;
    pthread_mutex_unlock(&j->lock);
}

/* Where chunk number k of the slab's grid starts in the slab. */
static float *slot_of(const floor_worker *w, size_t k)
{
    const bench_cfg *cfg = w->job->cfg;
    size_t per_row = cfg->cols / cfg->ccols, in_slab = cfg->slab_rows / cfg->crows * per_row,
           slot = k % in_slab;
    return w->slab + slot / per_row * cfg->crows * cfg->cols + slot % per_row * cfg->ccols;
}

/* A zstd chunk of inlen bytes: decoded, and its rows copied into the slab at chunk k. */
static int place(floor_worker *w, const unsigned char *in, size_t inlen, size_t k, const char *path)
{
    const bench_cfg *cfg = w->job->cfg;
    size_t cbytes = cfg->crows * cfg->ccols * sizeof(float);
    size_t r = ZSTD_decompress(w->chunk, cbytes, in, inlen);
    if (ZSTD_isError(r) || r != cbytes) {
        job_fail(w->job, "%s: %s", path, ZSTD_isError(r) ? ZSTD_getErrorName(r) : "short chunk");
        return -1;
    }
    float *dst = slot_of(w, k);
    for (size_t i = 0; i < cfg->crows; i++)
        memcpy(dst + i * cfg->cols, w->chunk + i * cfg->ccols, cfg->ccols * sizeof(float));
    return 0;
}

/* A raw chunk of nb bytes at offset off in fd: read straight into its rows of the slab with
 * one preadv, as the connector does (no copy after the kernel's). */
static int place_raw(floor_worker *w, int fd, uint64_t off, uint64_t nb, size_t k, const char *path)
{
    const bench_cfg *cfg = w->job->cfg;
    size_t row = cfg->ccols * sizeof(float);
    if (nb != cfg->crows * row || cfg->crows > 1024) {
        job_fail(w->job, "%s: %s", path, "a raw chunk of another size");
        return -1;
    }
    float *dst = slot_of(w, k);
    struct iovec iov[1024];
    for (size_t i = 0; i < cfg->crows; i++)
        iov[i] = (struct iovec){dst + i * cfg->cols, row};
    if (preadv(fd, iov, (int)cfg->crows, (off_t)off) != (ssize_t)nb) {
        job_fail(w->job, "%s: %s", path, "short read");
        return -1;
    }
    return 0;
}

static uint64_t le64(const unsigned char *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

/* The whole object into the worker's buffer (zstd chunks are decoded from memory). */
static int read_whole(floor_worker *w, int fd, size_t len, const char *path)
{
    if (len > w->file_cap) {
        /* half a page into a page, as the connector's buffers for stored bytes: the
         * kernel's copy runs several times slower on AMD Zen into a buffer at the same
         * offset in its page as the source, or up to 31 bytes past it (ncztr_scratch.c) */
        free(w->file_base);
        w->file_cap = len;
        if (!(w->file = bench_placed(len, 2048, &w->file_base))) {
            w->file_cap = 0;
            job_fail(w->job, "%s: %s", path, "out of memory");
            return -1;
        }
    }
    if (pread(fd, w->file, len, 0) != (ssize_t)len) {
        job_fail(w->job, "%s: %s", path, "short read");
        return -1;
    }
    return 0;
}

/* One chunk object: a chunk, or a shard whose (offset, nbytes) index and its crc32c end it. */
static int one_object(floor_worker *w, const char *path, size_t k)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        job_fail(w->job, "%s: %s", path, strerror(errno));
        if (fd >= 0)
            close(fd);
        return -1;
    }
    size_t len = (size_t)st.st_size, s = (size_t)w->job->cfg->shards;
    size_t n = s ? s * s : 1, ilen = s ? 16 * n + 4 : 0;
    bool raw = w->job->c == CASE_RAW;
    unsigned char tail[16 * 4096 + 4]; /* a raw shard's index, read alone */
    const unsigned char *idx = raw ? tail : NULL;
    int rc = -1;
    if (len < ilen || ilen > sizeof tail)
        job_fail(w->job, "%s: %s", path, "no room for a shard index");
    else if (raw && s && pread(fd, tail, ilen, (off_t)(len - ilen)) != (ssize_t)ilen)
        job_fail(w->job, "%s: %s", path, "short read");
    else if (raw || read_whole(w, fd, len, path) == 0)
        rc = 0;
    if (!raw && rc == 0)
        idx = w->file + len - ilen;
    for (size_t i = 0; i < n && rc == 0; i++) {
        uint64_t off = s ? le64(idx + 16 * i) : 0, nb = s ? le64(idx + 16 * i + 8) : len;
        if (off == UINT64_MAX && nb == UINT64_MAX)
            continue; /* never written */
        if (off > len - ilen || nb > len - ilen - off) {
            job_fail(w->job, "%s: %s", path, "not a shard with its index at the end");
            rc = -1;
        } else {
            rc = raw ? place_raw(w, fd, off, nb, k * n + i, path)
                     : place(w, w->file + off, nb, k * n + i, path);
        }
    }
    close(fd);
    return rc;
}

static void *work(void *arg)
{
    floor_worker *w = arg;
    floor_job *j = w->job;
    for (;;) {
        pthread_mutex_lock(&j->lock);
        size_t k = j->next++;
        int stop = j->failed || k >= found.n;
        pthread_mutex_unlock(&j->lock);
        if (stop || one_object(w, found.paths[k], k) < 0)
            return NULL;
    }
}

int bench_read_floor(const bench_cfg *cfg, bench_case c, const char *store, double *secs, char *msg,
                     size_t msg_size)
{
    if (c != CASE_RAW && c != CASE_ZSTD) {
        snprintf(msg, msg_size, "the floor knows raw and zstd chunks only");
        return -1;
    }
    found.n = 0;
    if (nftw(store, collect, 16, FTW_PHYS) != 0 || found.n == 0) {
        snprintf(msg, msg_size, "%s: no chunk objects under c/", store);
        return -1;
    }
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    int nt = cores < 1 ? 1 : cores > 64 ? 64 : (int)cores;
    size_t cbytes = cfg->crows * cfg->ccols * sizeof(float),
           sbytes = cfg->slab_rows * cfg->cols * sizeof(float);
    floor_job job = {.cfg = cfg, .c = c};
    pthread_mutex_init(&job.lock, NULL);
    floor_worker ws[64];
    int made = 0, ok = 1;
    for (int i = 0; i < nt && ok; i++) {
        ws[i] = (floor_worker){.job = &job, .chunk = malloc(cbytes)};
        ws[i].slab = bench_buffer(cfg, sbytes, &ws[i].slab_base);
        if ((ok = ws[i].chunk &&
                  ws[i].slab)) { /* touched before the clock starts, as the readers' buffers are */
            memset(ws[i].chunk, 0, cbytes);
            memset(ws[i].slab, 0, sbytes);
        }
        made = i + 1;
    }
    double secs_run = 0;
    int started = ok ? bench_threads(nt, work, ws, sizeof ws[0], &secs_run) : 0;
    for (int i = 0; i < made; i++)
        free(ws[i].file_base), free(ws[i].chunk), free(ws[i].slab_base);
    for (size_t i = 0; i < found.n; i++)
        free(found.paths[i]);
    pthread_mutex_destroy(&job.lock);
    return bench_floor_result(ok && started > 0, job.failed ? job.msg : NULL, secs_run, secs, msg, msg_size);
}

int bench_threads(int n, void *(*fn)(void *), void *args, size_t arg_size, double *secs)
{
    pthread_t th[64];
    struct timespec t0, t1;
    int started = 0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (int i = 0; i < n && i < 64; i++)
        if (pthread_create(&th[started], NULL, fn, (char *)args + (size_t)i * arg_size) == 0)
            started++;
    for (int i = 0; i < started; i++)
        pthread_join(th[i], NULL);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    *secs = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    return started;
}

int bench_floor_result(int ran, const char *failed, double run_secs, double *secs, char *msg, size_t msg_size)
{
    if (!ran || failed) {
        snprintf(msg, msg_size, "%s", failed ? failed : "out of memory or no threads");
        return -1;
    }
    *secs = run_secs;
    return 0;
}
