/* bench_codecs: compressed and raw float32 through the nczarr connector, native HDF5,
 * netCDF-C's NCZarr, zarr-python 3, tensorstore and zarrs (and with --base-connector-dir
 * the connector of an earlier build, "base"), in one table.
 *
 * The array is a smooth float32 field with noise in its low bits (rows x 8192, chunks
 * 256 x 1024 = 1 MiB), written and read back 512 whole rows (16 chunks) per call (--call-rows
 * and --chunk change both). Cases: raw,
 * shuffle + deflate 4, blosc (lz4, clevel 5, byte shuffle), zstd (level 1 by default:
 * numcodecs' default). Each figure is the median of the runs; in every run the peers take
 * turns (the first one rotating), and every write and every read runs in a child process of
 * its own, whose peak RSS (wait4's ru_maxrss) is reported. The page cache cannot be dropped:
 * stores go to a directory under --dir (default /dev/shm, memory), which the header names.
 * A case a peer fails prints "failed" with the message below the table; "-" is a case that
 * did not run, with the reason below the table. --workers 1,2,4,... re-runs the connector's
 * compressed cases with that many workers and prints their scaling.
 * Usage: bench_codecs --help.  Not a test: no assertion on speed. */
#include "bench_codecs.h"
#include <errno.h>
#include <ftw.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <time.h>
#include <fcntl.h>
#include <unistd.h>

#include "bench_codecs_report.h"

static const char *case_names[NCASES] = {"raw", "deflate", "blosc", "zstd"};
static const char *peer_names[NPEERS] = {"nczarr",      "native", "netcdf", "zarr3",
                                         "tensorstore", "zarrs",  "base"};
/* bench_zarr3.py --impl of each Python peer */
static const char *python_impl[NPEERS] = {
    [PEER_ZARR3] = "zarr", [PEER_TS] = "tensorstore", [PEER_ZARRS] = "zarrs"};

/* The source slabs: a smooth field (two waves) plus uniform noise of 1e-3, about the
 * measurement noise of real data, so that the low mantissa bits do not compress. */
static int write_source(const bench_cfg *cfg)
{
    size_t n = cfg->slab_rows * cfg->cols;
    float *slab = malloc(n * sizeof(float));
    FILE *fp = fopen(cfg->src_path, "wb");
    int ok = slab && fp;
    unsigned long long x = 0x9E3779B97F4A7C15ull;
    const double two_pi = 6.283185307179586;
    for (size_t s = 0; s < cfg->nslabs && ok; s++) {
        for (size_t i = 0; i < cfg->slab_rows; i++) {
            double y = (double)(s * cfg->slab_rows + i);
            for (size_t j = 0; j < cfg->cols; j++) {
                x ^= x << 13, x ^= x >> 7, x ^= x << 17;
                double noise = ((double)(x >> 11) / 9007199254740992.0 - 0.5) * 2e-3;
                double v = 50.0 * sin(two_pi * y / 1400.0 + 0.3) * cos(two_pi * (double)j / 2600.0) +
                           12.0 * sin(two_pi * (y + (double)j) / 5100.0) + 280.0 + noise;
                slab[i * cfg->cols + j] = (float)v;
            }
        }
        ok = fwrite(slab, sizeof(float), n, fp) == n;
    }
    if (fp && fclose(fp) != 0)
        ok = 0;
    free(slab);
    return ok ? 0 : -1;
}

static unsigned long long tree_bytes;
static int size_cb(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)path, (void)ftw;
    if (flag == FTW_F)
        tree_bytes += (unsigned long long)st->st_size;
    return 0;
}

static double store_mib(const bench_cfg *cfg, const char *path)
{
    if (cfg->s3[0])
        return -1; /* in the bucket: not measured */
    tree_bytes = 0;
    nftw(path, size_cb, 16, FTW_PHYS);
    return (double)tree_bytes / 1048576.0;
}

/* CPU seconds (user + system, all threads) of the S3 server's processes so far; 0 when none
 * are counted. */
static double server_cpu(const bench_cfg *cfg)
{
    double t = 0;
    long tck = sysconf(_SC_CLK_TCK);
    for (int i = 0; i < cfg->nserver; i++) {
        char path[64], buf[1024];
        snprintf(path, sizeof path, "/proc/%d/stat", cfg->server_pid[i]);
        FILE *fp = fopen(path, "r");
        size_t n = fp ? fread(buf, 1, sizeof buf - 1, fp) : 0;
        if (fp)
            fclose(fp);
        buf[n] = 0;
        /* fields after the command name, which may hold spaces: state is field 3, utime 14 */
        char *p = strrchr(buf, ')');
        unsigned long long ut = 0, st = 0;
        if (p && sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &ut, &st) == 2)
            t += (double)(ut + st) / (double)(tck > 0 ? tck : 100);
    }
    return t;
}

/* One write or read of one peer in a fresh child; its stdout line "ok <s>" / "failed <msg>"
 * comes back on a pipe, its peak RSS from wait4. The children's stderr goes to a log. */
static void spawn(const bench_cfg *cfg, const char *log, bench_peer peer, bench_case c, int phase,
                  int workers, int timeout_s, child_result *r)
{
    int fd[2];
    memset(r, 0, sizeof *r);
    double srv0 = server_cpu(cfg);
    fflush(stdout);
    fflush(stderr);
    if (pipe(fd) != 0) {
        snprintf(r->msg, sizeof r->msg, "pipe: %s", strerror(errno));
        return;
    }
    pid_t pid = fork();
    if (pid == 0) {
        close(fd[0]);
        int lf = open(log, O_WRONLY | O_APPEND | O_CREAT, 0644);
        if (lf >= 0) {
            dup2(lf, 2);
            close(lf);
        }
        alarm((unsigned)timeout_s);
        if (bench_peer_env(cfg, peer) != 0) {
            dprintf(fd[1], "failed cannot set the environment\n");
            _exit(1);
        }
        if (BENCH_PYTHON_PEER(peer)) {
            char store[4300], rows[32], cols[32], cr[32], cc[32], sr[32], ns[32], zl[32], zf[8], sh[16];
            bench_store_path(cfg, peer, store, sizeof store);
            snprintf(rows, sizeof rows, "%zu", cfg->rows);
            snprintf(cols, sizeof cols, "%zu", cfg->cols);
            snprintf(cr, sizeof cr, "%zu", cfg->crows);
            snprintf(cc, sizeof cc, "%zu", cfg->ccols);
            snprintf(sr, sizeof sr, "%zu", cfg->slab_rows);
            snprintf(ns, sizeof ns, "%zu", cfg->nslabs);
            snprintf(zl, sizeof zl, "%d", cfg->zstd_level);
            snprintf(zf, sizeof zf, "%d", cfg->zarr_format);
            snprintf(sh, sizeof sh, "%d", cfg->shards);
            char *argv[] = {(char *)cfg->python,
                            (char *)cfg->script,
                            "--store",
                            store,
                            "--phase",
                            phase ? "read" : "write",
                            "--case",
                            (char *)case_names[c],
                            "--rows",
                            rows,
                            "--cols",
                            cols,
                            "--chunk-rows",
                            cr,
                            "--chunk-cols",
                            cc,
                            "--slab-rows",
                            sr,
                            "--nslabs",
                            ns,
                            "--src",
                            (char *)cfg->src_path,
                            "--zstd-level",
                            zl,
                            "--zarr-format",
                            zf,
                            "--shards",
                            sh,
                            "--impl",
                            (char *)python_impl[peer],
                            cfg->s3_options ? "--storage-options" : NULL,
                            (char *)cfg->s3_options,
                            NULL};
            if (dup2(fd[1], 1) >= 0) {
                close(fd[1]);
                execv(cfg->python, argv);
            }
            printf("failed cannot run %s: %s\n", cfg->python, strerror(errno));
            fflush(stdout);
            _exit(127);
        }
        double secs = 0;
        char msg[1024];
        if (bench_run_c_peer(cfg, peer, c, phase, workers, &secs, msg, sizeof msg) == 0)
            dprintf(fd[1], "ok %.9f\n", secs);
        else
            dprintf(fd[1], "failed %s\n", msg);
        _exit(0);
    }
    close(fd[1]);
    if (pid < 0) {
        close(fd[0]);
        snprintf(r->msg, sizeof r->msg, "fork: %s", strerror(errno));
        return;
    }
    char out[2048];
    size_t len = 0;
    ssize_t got;
    while ((got = read(fd[0], out + len, sizeof out - 1 - len)) > 0 || (got < 0 && errno == EINTR))
        if (got > 0 && (len += (size_t)got) == sizeof out - 1) {
            char drain[512];
            while (read(fd[0], drain, sizeof drain) > 0)
                ;
            break;
        }
    out[len] = 0;
    close(fd[0]);
    int status = 0;
    struct rusage ru;
    memset(&ru, 0, sizeof ru);
    while (wait4(pid, &status, 0, &ru) < 0 && errno == EINTR)
        ;
    r->rss_mib = (double)ru.ru_maxrss / 1024.0;
    r->server_s = server_cpu(cfg) - srv0;
    r->cpu_s = (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
               1e-6 * (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
    char *line = strstr(out, "ok ") == out ? out : strstr(out, "\nok ");
    if (line && WIFEXITED(status) && WEXITSTATUS(status) == 0) {
        r->ok = 1;
        r->secs = atof(line + (line[0] == '\n' ? 4 : 3));
        return;
    }
    char *f = strncmp(out, "failed ", 7) == 0 ? out : strstr(out, "\nfailed ");
    if (f) {
        f += f[0] == '\n' ? 8 : 7;
        f[strcspn(f, "\n")] = 0;
        snprintf(r->msg, sizeof r->msg, "%s", f);
    } else if (WIFSIGNALED(status))
        snprintf(r->msg, sizeof r->msg, "killed by signal %d (%s)%s", WTERMSIG(status),
                 strsignal(WTERMSIG(status)), WTERMSIG(status) == SIGALRM ? ": ran past --timeout" : "");
    else
        snprintf(r->msg, sizeof r->msg, "exit status %d, no result", WEXITSTATUS(status));
}

/* Removes a peer's store from the bucket (s3fs, through bench_zarr3.py): the test server
 * keeps its objects in memory, and two 1 GiB stores left there would fill it. */
static void remove_s3_store(const bench_cfg *cfg, const char *log, bench_peer peer)
{
    char store[4300];
    bench_s3_path(cfg, peer, store, sizeof store);
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        int lf = open(log, O_WRONLY | O_APPEND | O_CREAT, 0644);
        if (lf >= 0) {
            dup2(lf, 1);
            dup2(lf, 2);
            close(lf);
        }
        char *argv[] = {(char *)cfg->python, (char *)cfg->script,     "--store", store, "--phase", "remove",
                        "--storage-options", (char *)cfg->s3_options, NULL};
        execv(cfg->python, argv);
        _exit(127);
    }
    int status = 0;
    while (pid > 0 && waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
}

/* Before every write. A virtual machine may hand memory its kernel freed back to the host
 * (virtio-balloon's free page reporting, here within a second): the first write into such
 * memory pays the host's page fault as well. On this project's 2-core VM dd wrote 1 GiB to
 * a file at 5.3 GB/s right after a 1 GiB file was removed, at 0.5 to 0.9 GB/s a second or
 * more after. A peer whose process starts at once (a C peer) would write into the memory
 * the last store left, a Python peer, importing for a second first, into memory handed
 * back: waiting puts every writer where the Python peers are. */
static void settle(const bench_cfg *cfg)
{
    struct timespec t = {(time_t)cfg->settle, (long)((cfg->settle - (double)(time_t)cfg->settle) * 1e9)};
    while (cfg->settle > 0 && nanosleep(&t, &t) != 0 && errno == EINTR)
        ;
}

/* A write then a read of one peer, each in its own child; the store is removed after. */
static void run_pair(const bench_cfg *cfg, const char *log, bench_peer peer, bench_case c, int workers,
                     int timeout_s, figure *fig, figure *floor)
{
    char store[4300];
    child_result w, r;
    bench_store_path(cfg, peer, store, sizeof store);
    /* in a bucket, the next write replaces the store (H5F_ACC_TRUNC, zarr's overwrite) */
    if (!cfg->s3[0])
        bench_retire_tree(store);
    settle(cfg);
    spawn(cfg, log, peer, c, 0, workers, timeout_s, &w);
    if (!w.ok) {
        figure_fail(fig, 0, w.msg);
        if (!cfg->s3[0])
            bench_retire_tree(store);
        else
            remove_s3_store(cfg, log, peer);
        return;
    }
    double stored = store_mib(cfg, store);
    spawn(cfg, log, peer, c, 1, workers, timeout_s, &r);
    /* The read floor after the connector's read: the first reader of objects just written
     * pays the page cache's first touch of them, which the floor then does not. The write
     * floor after the store is removed, as every writer starts: on a disk, with no earlier
     * store's pages left dirty for the write-back to take. */
    double ws = 0, rs = 0;
    char msg[1024] = "";
    int floor_read = floor && !floor->failed && r.ok;
    if (floor_read && bench_read_floor(cfg, c, store, &rs, msg, sizeof msg) != 0) {
        figure_fail(floor, 1, msg);
        floor_read = 0;
    }
    if (!cfg->s3[0])
        bench_retire_tree(store);
    else
        remove_s3_store(cfg, log, peer);
    if (floor_read) {
        char wdir[4400];
        snprintf(wdir, sizeof wdir, "%s.wfloor", store);
        settle(cfg);
        if (bench_write_floor(cfg, c, wdir, &ws, msg, sizeof msg) != 0)
            figure_fail(floor, 0, msg);
        else
            figure_add_floor(floor, ws, rs);
        bench_retire_tree(wdir);
    }
    if (!r.ok) {
        figure_fail(fig, 1, r.msg);
        return;
    }
    figure_add(fig, &w, &r, stored);
}

static int parse_list(const char *arg, const char *const *names, int n, int *on)
{
    char *copy = strdup(arg), *save = NULL;
    int ok = copy != NULL;
    for (int i = 0; i < n; i++)
        on[i] = 0;
    for (char *w = ok ? strtok_r(copy, ",", &save) : NULL; w && ok; w = strtok_r(NULL, ",", &save)) {
        int found = 0;
        for (int i = 0; i < n; i++)
            if (!strcmp(w, names[i]))
                on[i] = found = 1;
        ok = found;
    }
    free(copy);
    return ok ? 0 : -1;
}

/* "P1 P2 ...": process ids, at most max */
static int parse_pids(const char *arg, int *pids, int max, int *n)
{
    *n = 0;
    for (const char *p = arg; *p;) {
        char *end;
        long v = strtol(p, &end, 10);
        if (end == p || v < 1 || v > 1 << 22 || *n == max)
            return -1;
        pids[(*n)++] = (int)v;
        p = end + strspn(end, " ,");
    }
    return *n ? 0 : -1;
}

static int parse_workers(const char *arg, int *workers, int max)
{
    int n = 0;
    const char *p = arg;
    while (*p) {
        char *end;
        long v = strtol(p, &end, 10);
        if (end == p || v < 1 || v > 1024 || n == max || (*end && *end != ','))
            return -1;
        workers[n++] = (int)v;
        p = *end ? end + 1 : end;
    }
    return n;
}

static void usage(void)
{
    fprintf(stderr,
            "usage: bench_codecs [--dir DIR] [--mib N] [--runs K] [--cases raw,deflate,blosc,zstd]\n"
            "         [--peers nczarr,native,netcdf,zarr3,tensorstore,zarrs] [--workers 1,2,4,8,16]\n"
            "         [--zstd-level L]\n"
            "         [--python PATH] [--connector-dir DIR] [--filter-dir DIR] [--timeout S]\n"
            "         [--zarr-format 2|3] [--shards N] [--s3 URL --s3-storage-options JSON]\n"
            "         [--cols N] [--chunk RxC] [--call-rows N] [--floor yes|no] [--server-pids \"P ...\"]\n"
            "         [--buffer-offset N] [--settle S] [--inode-wait S] [--base-connector-dir DIR]\n"
            "  --dir          where the stores go (default /dev/shm: memory; a disk directory\n"
            "                 measures the page cache, which cannot be dropped)\n"
            "  --mib          array size in MiB, rounded down to whole calls (default 1024)\n"
            "  --cols         columns of the float32 array (default 8192; rows follow from --mib)\n"
            "  --chunk        chunk shape rows x columns (default 256x1024): rows must divide\n"
            "                 --call-rows and columns --cols\n"
            "  --call-rows    full rows each call writes or reads (default 512)\n"
            "  --runs         runs per figure, median reported (default 5)\n"
            "  --buffer-offset  the C peers' and the floors' source and read buffers start N bytes\n"
            "                 into a page (0..4095; default: where malloc puts them, in a child of\n"
            "                 this process). The kernel's copy into a buffer 1 to 31 bytes past its\n"
            "                 source's offset in a page runs slowly on some CPUs (AMD Zen)\n"
            "  --settle       seconds every write waits after the last store was removed (default\n"
            "                 2): a VM that hands freed memory back to its host makes the first\n"
            "                 write into it pay the host's page faults; waiting puts every writer\n"
            "                 there alike (0: no wait)\n"
            "  --inode-wait   on ext2/3/4 without a journal, which passes over every inode freed in\n"
            "                 the last minute (six, once its inode table block is written to) at\n"
            "                 each file creation: removed stores are emptied and kept until the\n"
            "                 bench ends (earlier only where inodes run short: then S seconds are\n"
            "                 waited after), and a bench starts S seconds after the last bench on\n"
            "                 that file system removed its stores, at least a minute (default 361;\n"
            "                 0: stores are removed at once, as on any other file system)\n"
            "  --workers      also run the connector's compressed cases with workers=N for each N\n"
            "  --peers        who runs (default all): the connector, native HDF5, netCDF-C, and\n"
            "                 through bench_zarr3.py zarr-python 3, tensorstore and zarr-python 3\n"
            "                 with zarrs' codec pipeline; base with --base-connector-dir\n"
            "  --python       the Python peers' interpreter (default $BENCH_PYTHON or\n"
            "                 ~/.cache/vol-nczarr/venv/bin/python)\n"
            "  --connector-dir  HDF5_PLUGIN_PATH for the connector (default $HDF5_PLUGIN_PATH, else\n"
            "                 the build's connector directory)\n"
            "  --base-connector-dir  adds the peer \"base\": the same HDF5 program as nczarr with the\n"
            "                 connector found there (another build, an earlier commit's:\n"
            "                 bench/build_base.sh), taking turns with the others; x base columns\n"
            "  --filter-dir   HDF5 filter plugins for blosc and zstd (default netCDF-C's lib/plugin)\n"
            "  --timeout      seconds per child process (default 600)\n"
            "  --zarr-format  3: the connector (\"nczarr v3\") and zarr-python 3 write Zarr v3;\n"
            "                 native HDF5 and netCDF-C, which do not, are left out (default 2)\n"
            "  --shards       Zarr v3: shards of N x N chunks, for both (\"shards=N\"; zarr-python's\n"
            "                 shards=(N*chunk rows, N*chunk cols))\n"
            "  --s3           stores go to a bucket: https://host:port/bucket/prefix (the connector\n"
            "                 takes the credentials from AWS_*); only the connector and zarr-python 3\n"
            "                 run; --dir then holds the source slabs only\n"
            "  --s3-storage-options  zarr-python's storage options for s3fs (JSON), with --s3\n"
            "  --floor        yes: also time the write and read floors of each connector store (a\n"
            "                 directory, Zarr v3, raw or zstd), on every core, nothing else: its\n"
            "                 layout written from the source slabs with write(2), chunks compressed;\n"
            "                 its chunk objects read with pread, decoded and copied into a slab\n"
            "                 (default no)\n"
            "  --server-pids  with --s3: the S3 server's processes; their CPU seconds during each\n"
            "                 write and read are reported, and the ratio to zarr-python 3 that a\n"
            "                 client costing nothing would reach with the same requests\n");
}

int main(int argc, char **argv)
{
    static bench_cfg cfg;
    const char *dir_arg = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : ".";
    double mib = 1024;
    int runs = 5, timeout_s = 600, on_case[NCASES] = {1, 1, 1, 1}, on_peer[NPEERS] = {1, 1, 1, 1, 1, 1, 1};
    int workers[32], nworkers = 0, peers_given = 0;
    size_t cols = 8192, crows = 256, ccols = 1024, call_rows = 512;
    static char python[4096], script[4096];
    const char *home = getenv("HOME");
    snprintf(python, sizeof python, "%s/.cache/vol-nczarr/venv/bin/python", home ? home : "");
    if (getenv("BENCH_PYTHON"))
        snprintf(python, sizeof python, "%s", getenv("BENCH_PYTHON"));
    snprintf(script, sizeof script, "%s/bench_zarr3.py", BENCH_SOURCE_DIR);
    cfg.conn_dir = getenv("HDF5_PLUGIN_PATH") && *getenv("HDF5_PLUGIN_PATH") ? getenv("HDF5_PLUGIN_PATH")
                                                                             : BENCH_CONNECTOR_DIR;
    cfg.filter_dir = BENCH_FILTER_DIR;
    cfg.zstd_level = 1;
    cfg.zarr_format = 2;
    cfg.buf_offset = -1;
    cfg.settle = 2;
    cfg.inode_wait = 361;               /* RECENTCY_MIN + RECENTCY_DIRTY of fs/ext4/ialloc.c, and a second */
    for (int i = 1; i < argc; i += 2) { /* options and their values */
        const char *o = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        int bad = 0;
        if (!strcmp(o, "--help") || !strcmp(o, "-h")) {
            usage();
            return 0;
        } else if (!v)
            bad = 1;
        else if (!strcmp(o, "--dir"))
            dir_arg = v;
        else if (!strcmp(o, "--mib"))
            bad = (mib = atof(v)) < 16;
        else if (!strcmp(o, "--runs"))
            bad = (runs = atoi(v)) < 1 || runs > MAX_RUNS;
        else if (!strcmp(o, "--cases"))
            bad = parse_list(v, case_names, NCASES, on_case);
        else if (!strcmp(o, "--peers")) {
            bad = parse_list(v, peer_names, NPEERS, on_peer);
            peers_given = 1;
        } else if (!strcmp(o, "--workers"))
            bad = (nworkers = parse_workers(v, workers, 32)) < 1;
        else if (!strcmp(o, "--zstd-level"))
            bad = (cfg.zstd_level = atoi(v)) < -131072 || cfg.zstd_level > 22;
        else if (!strcmp(o, "--python"))
            snprintf(python, sizeof python, "%s", v);
        else if (!strcmp(o, "--connector-dir"))
            cfg.conn_dir = v;
        else if (!strcmp(o, "--base-connector-dir"))
            cfg.base_dir = v;
        else if (!strcmp(o, "--filter-dir"))
            cfg.filter_dir = v;
        else if (!strcmp(o, "--timeout"))
            bad = (timeout_s = atoi(v)) < 1;
        else if (!strcmp(o, "--zarr-format"))
            bad = (cfg.zarr_format = atoi(v)) != 2 && cfg.zarr_format != 3;
        else if (!strcmp(o, "--s3"))
            bad = (strncmp(v, "https://", 8) && strncmp(v, "http://", 7)) ||
                  snprintf(cfg.s3, sizeof cfg.s3, "%s", v) >= (int)sizeof cfg.s3;
        else if (!strcmp(o, "--s3-storage-options"))
            cfg.s3_options = v;
        else if (!strcmp(o, "--server-pids"))
            bad = parse_pids(v, cfg.server_pid, 8, &cfg.nserver) < 0;
        else if (!strcmp(o, "--floor")) {
            cfg.floor = !strcmp(v, "yes");
            bad = !cfg.floor && strcmp(v, "no");
        } else if (!strcmp(o, "--shards"))
            bad = (cfg.shards = atoi(v)) < 1 || cfg.shards > 64;
        else if (!strcmp(o, "--cols"))
            bad = (cols = strtoul(v, NULL, 10)) < 1 || cols > ((size_t)1 << 24);
        else if (!strcmp(o, "--chunk"))
            bad = sscanf(v, "%zux%zu", &crows, &ccols) != 2 || crows < 1 || ccols < 1;
        else if (!strcmp(o, "--call-rows"))
            bad = (call_rows = strtoul(v, NULL, 10)) < 1 || call_rows > 65536;
        else if (!strcmp(o, "--settle"))
            bad = !v || (cfg.settle = atof(v)) < 0 || cfg.settle > 60;
        else if (!strcmp(o, "--inode-wait"))
            bad = !v || (cfg.inode_wait = atof(v)) < 0 || cfg.inode_wait > 600;
        else if (!strcmp(o, "--buffer-offset"))
            bad = (cfg.buf_offset = strtol(v, NULL, 10)) < 0 || cfg.buf_offset > 4095;
        else
            bad = 1;
        if (bad) {
            fprintf(stderr, "bench_codecs: bad option %s %s\n", o, v ? v : "");
            usage();
            return 2;
        }
    }
    if (!cfg.base_dir && peers_given && on_peer[PEER_BASE]) {
        fprintf(stderr, "bench_codecs: the peer base needs --base-connector-dir\n");
        return 2;
    }
    if (!cfg.base_dir)
        on_peer[PEER_BASE] = 0; /* the others run by default; base only with its connector */
    else if (!on_peer[PEER_BASE])
        cfg.base_dir = NULL;
    if (cfg.floor && (cfg.s3[0] || cfg.zarr_format != 3)) {
        fprintf(stderr, "bench_codecs: --floor is for Zarr v3 stores in a directory\n");
        return 2;
    }
    cfg.python = python;
    cfg.script = script;
    if (cols % ccols != 0) {
        fprintf(stderr, "bench_codecs: --chunk columns %zu do not divide --cols %zu\n", ccols, cols);
        return 2;
    }
    cfg.cols = cols;
    cfg.crows = crows;
    cfg.ccols = ccols;
    if (call_rows % crows != 0) {
        fprintf(stderr, "bench_codecs: --chunk rows %zu do not divide --call-rows %zu\n", crows, call_rows);
        return 2;
    }
    cfg.slab_rows = call_rows;
    cfg.nslabs = 2;
    size_t slab_bytes = cfg.slab_rows * cfg.cols * sizeof(float);
    cfg.rows = (size_t)(mib * 1048576.0 / (double)slab_bytes) * cfg.slab_rows;
    if (cfg.rows == 0) {
        fprintf(stderr, "bench_codecs: --mib %g is less than one call of %zu rows\n", mib, call_rows);
        return 2;
    }

    char base[4096], tmpl[4200];
    if (!realpath(dir_arg, base)) {
        fprintf(stderr, "bench_codecs: --dir %s: %s\n", dir_arg, strerror(errno));
        return 2;
    }
    snprintf(tmpl, sizeof tmpl, "%s/bench_codecs.XXXXXX", base);
    if (!mkdtemp(tmpl)) {
        fprintf(stderr, "bench_codecs: cannot make a directory under %s: %s\n", base, strerror(errno));
        return 1;
    }
    snprintf(cfg.dir, sizeof cfg.dir, "%s", tmpl);
    snprintf(cfg.src_path, sizeof cfg.src_path, "%s/source.f32", cfg.dir);
    char log[4300];
    snprintf(log, sizeof log, "%s/bench_codecs-stderr.log", base);
    unlink(log);
    if (write_source(&cfg) != 0) {
        fprintf(stderr, "bench_codecs: cannot write the source slabs %s\n", cfg.src_path);
        bench_remove_tree(cfg.dir);
        return 1;
    }

    static report rep;
    report_init(&rep, &cfg, case_names, peer_names);
    if (!bench_have_netcdf())
        report_skip_peer(&rep, PEER_NETCDF, "bench_codecs was built without netCDF-C");
    for (int p = 0; p < NPEERS; p++)
        if (BENCH_PYTHON_PEER(p) && access(cfg.python, X_OK) != 0)
            report_skip_peer(&rep, (bench_peer)p, "no Python at --python / BENCH_PYTHON");
    if (cfg.zarr_format == 3) {
        report_skip_peer(&rep, PEER_NATIVE, "--zarr-format 3: native HDF5 writes no Zarr");
        report_skip_peer(&rep, PEER_NETCDF, "--zarr-format 3: netCDF-C 4.10.1 writes no Zarr v3");
    }
    if (cfg.s3[0]) {
        report_skip_peer(&rep, PEER_NATIVE, "--s3: native HDF5 writes no S3");
        report_skip_peer(&rep, PEER_NETCDF, "--s3: only the connector and zarr-python 3 run");
        report_skip_peer(&rep, PEER_TS, "--s3: only the connector and zarr-python 3 run");
        report_skip_peer(&rep, PEER_ZARRS, "--s3: only the connector and zarr-python 3 run");
    }
    struct statfs sfs;
    int tmpfs = statfs(cfg.dir, &sfs) == 0 && sfs.f_type == 0x01021994;
    cfg.tmpfs = tmpfs;
    cfg.hold = cfg.inode_wait > 0 && !cfg.s3[0] && !tmpfs && bench_fs_skips_freed_inodes(cfg.dir);
    report_header(&rep, runs, tmpfs, nworkers ? workers : NULL, nworkers);
    fflush(stdout);
    if (bench_retire_init(cfg.dir, cfg.hold ? cfg.inode_wait : 0) != 0) {
        bench_remove_tree(cfg.dir);
        return 1;
    }

    for (int c = 0; c < NCASES; c++) {
        if (!on_case[c])
            continue;
        bench_retire_flush(1); /* only where inodes run short: the stores held so far */
        for (int run = 0; run < runs; run++)
            for (int k = 0; k < NPEERS; k++) {
                int p = (k + run) % NPEERS; /* rotate who goes first */
                figure *fig = &rep.main[c][p];
                if (on_peer[p] && !fig->skip && !fig->failed)
                    run_pair(&cfg, log, (bench_peer)p, (bench_case)c, 0, timeout_s, fig,
                             cfg.floor && p == PEER_NCZARR ? &rep.floor[c] : NULL);
            }
        report_case(&rep, (bench_case)c, on_peer);
    }
    report_notes(&rep);

    if (nworkers) {
        for (int c = CASE_DEFLATE; c < NCASES; c++) {
            if (!on_case[c])
                continue;
            bench_retire_flush(1);
            for (int run = 0; run < runs; run++)
                for (int k = 0; k < nworkers; k++) {
                    int w = (k + run) % nworkers;
                    figure *fig = &rep.scaling[c][w];
                    if (!fig->failed)
                        run_pair(&cfg, log, PEER_NCZARR, (bench_case)c, workers[w], timeout_s, fig, NULL);
                }
        }
        report_scaling(&rep, on_case, workers, nworkers);
    }
    struct stat lst;
    if (stat(log, &lst) == 0 && lst.st_size > 0)
        printf("The child processes wrote to stderr: %s\n", log);
    else
        unlink(log);
    bench_retire_end();
    bench_remove_tree(cfg.dir);
    return 0;
}
