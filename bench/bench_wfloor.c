/* The write floor of a directory store: the least work any writer that uses write(2) must do
 * to store the array in the connector's Zarr v3 layout, timed on every core. Each chunk
 * object (a shard, with --shards) is made from the source slabs: a raw one written straight
 * from the slabs' rows with writev (a shard's chunks one after another, then its index and
 * the index's crc32c); a zstd one has each chunk's rows gathered into one buffer and
 * compressed at the benchmark's level, the results (and a shard's index) put one after
 * another and written with one write. The chunk key directories are made, and the file
 * system synced, before the clock starts; no metadata, no temporary file, no fsync: a
 * writer doing more takes longer. */
#include "bench_codecs.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
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
    const bench_cfg *cfg;
    bench_case c;
    const char *dir;
    const float *src; /* the source slabs */
    size_t s;         /* chunks per shard side (1: no shards) */
    size_t nr, nc;    /* objects per dimension */
    size_t next;      /* the next object to make */
    pthread_mutex_t lock;
    int failed;
    char msg[4600];
} wfloor_job;

typedef struct {
    wfloor_job *job;
    float *chunk;       /* one chunk's rows, gathered */
    unsigned char *out; /* one object */
    size_t out_cap;
    struct iovec *iov; /* a raw object's pieces */
    ZSTD_CCtx *cctx;
} wfloor_worker;

static void job_fail(wfloor_job *j, const char *path, const char *why)
{
    pthread_mutex_lock(&j->lock);
    if (!j->failed)
        snprintf(j->msg, sizeof j->msg, "%s: %s", path, why);
    j->failed = 1;
    pthread_mutex_unlock(&j->lock);
}

/* Castagnoli CRC-32 of a shard's index (a few hundred bytes per shard: bitwise is enough). */
static uint32_t crc32c(const unsigned char *p, size_t n)
{
    uint32_t c = 0xFFFFFFFFu;
    for (size_t i = 0; i < n; i++) {
        c ^= p[i];
        for (int k = 0; k < 8; k++)
            c = c >> 1 ^ (0x82F63B78u & (0u - (c & 1u)));
    }
    return ~c;
}

static void put_le(unsigned char *p, uint64_t v, int n)
{
    for (int i = 0; i < n; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

/* Row r of the array, from column c0: where the source slabs hold it. */
static const float *row_of(const wfloor_job *j, size_t r, size_t c0)
{
    const bench_cfg *cfg = j->cfg;
    size_t slab = r / cfg->slab_rows % cfg->nslabs;
    return j->src + (slab * cfg->slab_rows + r % cfg->slab_rows) * cfg->cols + c0;
}

/* Writes the pieces iov[0..n) to fd, IOV_MAX at a time. */
static int writev_all(int fd, const struct iovec *iov, size_t n)
{
    for (size_t i = 0; i < n;) {
        size_t k = n - i < IOV_MAX ? n - i : IOV_MAX, want = 0;
        for (size_t t = 0; t < k; t++)
            want += iov[i + t].iov_len;
        if (writev(fd, iov + i, (int)k) != (ssize_t)want)
            return -1;
        i += k;
    }
    return 0;
}

/* Object number k: its chunks, index, and one file. */
static int one_object(wfloor_worker *w, size_t k)
{
    wfloor_job *j = w->job;
    const bench_cfg *cfg = j->cfg;
    size_t s = j->s, n = s * s, oi = k / j->nc, oj = k % j->nc, row = cfg->ccols * sizeof(float);
    size_t cbytes = cfg->crows * row, ilen = s > 1 ? 16 * n + 4 : 0, pos = 0, niov = 0;
    unsigned char index[16 * 64 + 4];
    char path[4400];
    snprintf(path, sizeof path, "%s/c/%zu/%zu", j->dir, oi, oj);
    for (size_t i = 0; i < n; i++) {
        size_t r0 = (oi * s + i / s) * cfg->crows, c0 = (oj * s + i % s) * cfg->ccols, len = cbytes;
        if (j->c == CASE_RAW) {
            for (size_t r = 0; r < cfg->crows; r++)
                w->iov[niov++] = (struct iovec){(void *)(uintptr_t)row_of(j, r0 + r, c0), row};
        } else {
            for (size_t r = 0; r < cfg->crows; r++)
                memcpy(w->chunk + r * cfg->ccols, row_of(j, r0 + r, c0), row);
            len =
                ZSTD_compressCCtx(w->cctx, w->out + pos, w->out_cap - pos, w->chunk, cbytes, cfg->zstd_level);
            if (ZSTD_isError(len)) {
                job_fail(j, path, ZSTD_getErrorName(len));
                return -1;
            }
        }
        put_le(index + 16 * i, pos, 8);
        put_le(index + 16 * i + 8, len, 8);
        pos += len;
    }
    if (ilen)
        put_le(index + 16 * n, crc32c(index, 16 * n), 4);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644), rc = fd < 0 ? -1 : 0;
    if (rc == 0 && j->c == CASE_RAW) {
        if (ilen)
            w->iov[niov++] = (struct iovec){index, ilen};
        rc = writev_all(fd, w->iov, niov);
    } else if (rc == 0) {
        memcpy(w->out + pos, index, ilen);
        rc = write(fd, w->out, pos + ilen) == (ssize_t)(pos + ilen) ? 0 : -1;
    }
    if (rc != 0)
        job_fail(j, path, strerror(errno));
    if (fd >= 0 && close(fd) != 0 && rc == 0) {
        job_fail(j, path, strerror(errno));
        rc = -1;
    }
    return rc;
}

static void *work(void *arg)
{
    wfloor_worker *w = arg;
    wfloor_job *j = w->job;
    for (;;) {
        pthread_mutex_lock(&j->lock);
        size_t k = j->next++;
        int stop = j->failed || k >= j->nr * j->nc;
        pthread_mutex_unlock(&j->lock);
        if (stop || one_object(w, k) < 0)
            return NULL;
    }
}

/* The source slabs, read whole (touched before the clock starts, as the writers' are). */
static float *load_slabs(const bench_cfg *cfg, void **base, char *msg, size_t msg_size)
{
    size_t bytes = cfg->nslabs * cfg->slab_rows * cfg->cols * sizeof(float), got = 0;
    float *src = bench_buffer(cfg, bytes, base);
    int fd = open(cfg->src_path, O_RDONLY | O_CLOEXEC);
    while (src && fd >= 0 && got < bytes) {
        ssize_t r = read(fd, (char *)src + got, bytes - got);
        if (r <= 0)
            break;
        got += (size_t)r;
    }
    if (fd >= 0)
        close(fd);
    if (!src || got != bytes) {
        snprintf(msg, msg_size, "%s: cannot read the source slabs", cfg->src_path);
        free(*base);
        return NULL;
    }
    return src;
}

int bench_write_floor(const bench_cfg *cfg, bench_case c, const char *dir, double *secs, char *msg,
                      size_t msg_size)
{
    size_t s = cfg->shards > 0 ? (size_t)cfg->shards : 1;
    if ((c != CASE_RAW && c != CASE_ZSTD) || s * s > 64 || cfg->crows > 4096 ||
        cfg->rows % (s * cfg->crows) || cfg->cols % (s * cfg->ccols)) {
        snprintf(msg, msg_size,
                 "the write floor knows raw and zstd, in whole shards of at most 8 x 8 chunks");
        return -1;
    }
    wfloor_job job = {.cfg = cfg, .c = c, .dir = dir, .s = s};
    job.nr = cfg->rows / (s * cfg->crows);
    job.nc = cfg->cols / (s * cfg->ccols);
    char path[4400];
    snprintf(path, sizeof path, "%s/c", dir);
    if (mkdir(dir, 0755) != 0 || mkdir(path, 0755) != 0) {
        snprintf(msg, msg_size, "%s: %s", path, strerror(errno));
        return -1;
    }
    for (size_t i = 0; i < job.nr; i++) {
        snprintf(path, sizeof path, "%s/c/%zu", dir, i);
        if (mkdir(path, 0755) != 0) {
            snprintf(msg, msg_size, "%s: %s", path, strerror(errno));
            return -1;
        }
    }
    void *src_base = NULL;
    if (!(job.src = load_slabs(cfg, &src_base, msg, msg_size)))
        return -1;
    pthread_mutex_init(&job.lock, NULL);
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    int nt = cores < 1 ? 1 : cores > 64 ? 64 : (int)cores, made = 0, ok = 1;
    size_t cbytes = cfg->crows * cfg->ccols * sizeof(float);
    wfloor_worker ws[64];
    for (int i = 0; i < nt && ok; i++) {
        ws[i] = (wfloor_worker){.job = &job, .out_cap = s * s * ZSTD_compressBound(cbytes) + 16 * 64 + 4};
        ws[i].chunk = malloc(cbytes);
        ws[i].out = malloc(ws[i].out_cap);
        ws[i].iov = malloc((s * s * cfg->crows + 1) * sizeof *ws[i].iov);
        ws[i].cctx = ZSTD_createCCtx();
        made = i + 1;
        if ((ok = ws[i].chunk && ws[i].out && ws[i].iov && ws[i].cctx)) { /* touched, as a reused buffer is */
            memset(ws[i].chunk, 0, cbytes);
            memset(ws[i].out, 0, ws[i].out_cap);
        }
    }
    /* from a clean page cache: what earlier writers left dirty is not the floor's to write */
    int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd >= 0) {
        syncfs(dfd);
        close(dfd);
    }
    double secs_run = 0;
    int started = ok ? bench_threads(nt, work, ws, sizeof ws[0], &secs_run) : 0;
    for (int i = 0; i < made; i++) {
        free(ws[i].chunk);
        free(ws[i].out);
        free(ws[i].iov);
        ZSTD_freeCCtx(ws[i].cctx);
    }
    free(src_base);
    pthread_mutex_destroy(&job.lock);
    return bench_floor_result(ok && started > 0, job.failed ? job.msg : NULL, secs_run, secs, msg, msg_size);
}
