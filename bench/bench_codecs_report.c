/* bench_codecs' tables: medians, ratios between peers, and the notes that say why a cell is
 * "failed" or "-". */
#include "bench_codecs_report.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void figure_fail(figure *f, int phase, const char *msg)
{
    f->failed = 1;
    f->failed_phase = phase;
    snprintf(f->msg, sizeof f->msg, "%s", msg);
}

void figure_add(figure *f, const child_result *w, const child_result *r, double stored_mib)
{
    if (f->n == MAX_RUNS)
        return;
    f->w_s[f->n] = w->secs;
    f->r_s[f->n] = r->secs;
    f->w_rss[f->n] = w->rss_mib;
    f->r_rss[f->n] = r->rss_mib;
    f->stored[f->n] = stored_mib;
    f->w_srv[f->n] = w->server_s;
    f->r_srv[f->n] = r->server_s;
    f->w_cpu[f->n] = w->cpu_s;
    f->r_cpu[f->n] = r->cpu_s;
    f->n++;
}

void figure_add_floor(figure *f, double write_s, double read_s)
{
    if (f->n == MAX_RUNS)
        return;
    f->w_s[f->n] = write_s;
    f->r_s[f->n] = read_s;
    f->n++;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(const double *v, int n)
{
    double s[MAX_RUNS];
    memcpy(s, v, (size_t)n * sizeof *s);
    qsort(s, (size_t)n, sizeof *s, cmp_double);
    return n % 2 ? s[n / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2]);
}

static double data_mib(const report *rep)
{
    return (double)(rep->cfg->rows * rep->cfg->cols * sizeof(float)) / 1048576.0;
}

/* MiB/s of the median write (phase 0) or read (1), or 0 when the figure has none. */
static double rate(const report *rep, const figure *f, int phase)
{
    double s = f->skip || f->failed || f->n == 0 ? 0 : median(phase ? f->r_s : f->w_s, f->n);
    return s > 0 ? data_mib(rep) / s : 0; /* 0: not measured (a disk's write floor) */
}

/* The note number for a message: one note per distinct message, naming every figure that
 * failed with it ("who"; empty for notes that explain themselves). */
static int note(report *rep, const char *who, const char *msg)
{
    int i = 0;
    while (i < rep->nnotes && strcmp(rep->notes[i].msg, msg) != 0)
        i++;
    if (i == MAX_NOTES)
        return MAX_NOTES;
    if (i == rep->nnotes) {
        rep->nnotes++;
        snprintf(rep->notes[i].msg, sizeof rep->notes[i].msg, "%s", msg);
        rep->notes[i].who[0] = 0;
    }
    char *w = rep->notes[i].who;
    size_t len = strlen(w);
    if (who[0] && len + strlen(who) + 3 < sizeof rep->notes[i].who)
        snprintf(w + len, sizeof rep->notes[i].who - len, "%s%s", len ? ", " : "", who);
    return i + 1;
}

void report_init(report *rep, const bench_cfg *cfg, const char *const *cases, const char *const *peers)
{
    memset(rep, 0, sizeof *rep);
    rep->cfg = cfg;
    rep->cases = cases;
    rep->peers = peers;
}

void report_skip_peer(report *rep, bench_peer peer, const char *why)
{
    snprintf(rep->skip_msg[peer], sizeof rep->skip_msg[peer], "%s", why);
    for (int c = 0; c < NCASES; c++)
        rep->main[c][peer].skip = 1;
}

void report_header(report *rep, int runs, int tmpfs, const int *workers, int nworkers)
{
    const bench_cfg *cfg = rep->cfg;
    printf(
        "bench_codecs: float32 %zu x %zu (%.0f MiB), chunks %zu x %zu (%.0f MiB), %zu rows (%zu chunks) per "
        "write/read call\n",
        cfg->rows, cfg->cols, data_mib(rep), cfg->crows, cfg->ccols,
        (double)(cfg->crows * cfg->ccols * sizeof(float)) / 1048576.0, cfg->slab_rows,
        cfg->slab_rows / cfg->crows * (cfg->cols / cfg->ccols));
    printf("cases: raw; deflate = shuffle + deflate level 4; blosc = blosc lz4 clevel 5 byte shuffle; zstd = "
           "zstd "
           "level %d\n",
           cfg->zstd_level);
    printf("each figure: the median of %d runs; in each run the peers take turns; every write and every read "
           "is a "
           "process of its own\n",
           runs);
    if (cfg->s3[0])
        printf("stores: in the bucket %s (the source slabs in %s)\n", cfg->s3, cfg->dir);
    else
        printf("stores: %s (%s)\n", cfg->dir,
               tmpfs ? "tmpfs: memory, no disk I/O"
                     : "a disk file system: the page cache is not dropped, so writes end in the page cache "
                       "and reads "
                       "come from it");
    printf("cores online: %ld; connector from %s; filter plugins from %s; zarr-python 3: %s\n",
           sysconf(_SC_NPROCESSORS_ONLN), cfg->conn_dir, cfg->filter_dir, cfg->python);
    if (cfg->base_dir)
        printf("base: the same HDF5 program as nczarr, the connector from %s (--base-connector-dir); "
               "x base: this row's MiB/s over base's; xbest leaves the other build of the connector out\n",
               cfg->base_dir);
    if (cfg->settle > 0)
        printf(
            "every write starts %g s after the last store was removed (--settle): on a VM that hands freed "
            "memory back to its host, every writer then pays the host's page faults alike\n",
            cfg->settle);
    if (cfg->hold)
        printf("%s is ext2/3/4 without a journal, which passes over the inodes freed in the last minute (six "
               "once their inode table block is written to) at every file creation: each run's store is "
               "emptied and kept until the bench ends, and the bench started up to %g s after the last bench "
               "here removed its stores (--inode-wait)\n",
               cfg->dir, cfg->inode_wait);
    if (cfg->buf_offset >= 0)
        printf("the C peers' and the floors' buffers start %ld bytes into a page (--buffer-offset)\n",
               cfg->buf_offset);
    if (nworkers) {
        printf("workers scaling after the table:");
        for (int i = 0; i < nworkers; i++)
            printf(" %d", workers[i]);
        printf("\n");
    }
    printf("MiB/s: of the array's raw size; stored: MiB in the store; x<peer>: this row's MiB/s over that "
           "peer's "
           "(w write, r read); xbest: over the fastest other peer of the case (the floor's: other than "
           "the connector), best: who that is in writes/reads (ts: tensorstore); RSS: the process's peak, "
           "MiB\n");
    if (cfg->floor)
        printf("floor: on every core, the least a writer using write(2) must do to store the array in the "
               "connector's layout (each chunk's rows gathered and compressed, each chunk object written "
               "whole with one write; raw ones with writev from the source rows; timed after the connector's "
               "store was removed, as every writer starts) and the least a reader "
               "using read(2) must do with the connector's store (each chunk object read whole with pread, "
               "its chunks decoded and their rows copied into a slab); its xz3 are the most any such "
               "writer and reader get over zarr-python 3\n");
    printf("CPU: the peer's own CPU seconds in one write / read (the whole process, user and system; "
           "over the seconds of the row's MiB/s, how many cores it kept busy)\n");
    if (cfg->nserver)
        printf("srv CPU: the S3 "
               "server's CPU seconds meanwhile (its %d processes); max xz3: "
               "zarr-python 3's seconds over this peer's server CPU seconds per core (%ld cores), the most "
               "a client costing no CPU would get over zarr-python 3 with this peer's requests\n",
               cfg->nserver, sysconf(_SC_NPROCESSORS_ONLN));
    printf("\n%-8s %-11s %11s %11s %8s %6s %6s %6s %6s %6s %6s %7s %7s %-11s %11s %11s", "case", "peer",
           "write MiB/s", "read MiB/s", "stored", "w xnat", "r xnat", "w xnc", "r xnc", "w xz3", "r xz3",
           "w xbest", "r xbest", "best w/r", "RSS w/r", "CPU w/r");
    if (cfg->nserver)
        printf(" %11s %11s", "srv CPU w/r", "max xz3 w/r");
    if (cfg->base_dir)
        printf(" %7s %7s", "w xbase", "r xbase");
    printf("\n");
    fflush(stdout);
}

static void print_ratio(double mine, double theirs)
{
    if (mine > 0 && theirs > 0)
        printf(" %6.2f", mine / theirs);
    else
        printf(" %6s", "-");
}

static void print_cell(report *rep, const figure *f, int phase, int peer, const char *what, int width)
{
    char cell[32];
    if (f->skip)
        snprintf(cell, sizeof cell, "-[%d]", note(rep, "", rep->skip_msg[peer]));
    else if (f->failed && f->failed_phase == phase) {
        char head[160];
        snprintf(head, sizeof head, "%s %s %s", rep->peers[peer], what, phase ? "read" : "write");
        snprintf(cell, sizeof cell, "failed[%d]", note(rep, head, f->msg));
    } else if (f->failed)
        snprintf(cell, sizeof cell, "-[%d]", note(rep, "", "not read: the write failed"));
    else if (f->n == 0)
        snprintf(cell, sizeof cell, "-");
    else
        snprintf(cell, sizeof cell, "%.1f", rate(rep, f, phase));
    printf(" %*s", width, cell);
}

static void print_rss(const figure *f)
{
    char cell[32];
    if (f->n && !f->failed && !f->skip)
        snprintf(cell, sizeof cell, "%.0f/%.0f", median(f->w_rss, f->n), median(f->r_rss, f->n));
    else
        snprintf(cell, sizeof cell, "-");
    printf(" %11s", cell);
}

/* The peer's own median CPU seconds in this figure's write and read. */
static void print_cpu(const figure *f)
{
    char cli[32];
    snprintf(cli, sizeof cli, "-");
    if (f->n && !f->failed && !f->skip)
        snprintf(cli, sizeof cli, "%.2f/%.2f", median(f->w_cpu, f->n), median(f->r_cpu, f->n));
    printf(" %11s", cli);
}

/* The S3 server's median CPU seconds in this figure's write and read, and the ratio to
 * zarr-python 3 that the server's seconds spread over every core allow. */
static void print_server(const figure *f, const figure *z3)
{
    char srv[32], best[32];
    snprintf(srv, sizeof srv, "-");
    snprintf(best, sizeof best, "-");
    if (f->n && !f->failed && !f->skip) {
        double ws = median(f->w_srv, f->n), rs = median(f->r_srv, f->n);
        double cores = (double)sysconf(_SC_NPROCESSORS_ONLN);
        snprintf(srv, sizeof srv, "%.2f/%.2f", ws, rs);
        if (z3->n && !z3->failed && !z3->skip && ws > 0 && rs > 0 && cores > 0)
            snprintf(best, sizeof best, "%.2f/%.2f", median(z3->w_s, z3->n) / (ws / cores),
                     median(z3->r_s, z3->n) / (rs / cores));
    }
    printf(" %11s %11s", srv, best);
}

/* The fastest peer of a row in writes (phase 0) or reads, other than skip (and for a build of
 * the connector, the other build); -1 if none ran. */
static int best_peer(const report *rep, const figure *row, int phase, int skip)
{
    int best = -1;
    for (int q = 0; q < NPEERS; q++)
        if (q != skip && !(BENCH_CONNECTOR_PEER(q) && BENCH_CONNECTOR_PEER(skip)) &&
            rate(rep, &row[q], phase) > 0 &&
            (best < 0 || rate(rep, &row[q], phase) > rate(rep, &row[best], phase)))
            best = q;
    return best;
}

static const char *short_name(const report *rep, int peer)
{
    return peer < 0 ? "-" : peer == PEER_TS ? "ts" : rep->peers[peer];
}

/* f's ratios over the fastest peer of its row other than skip, and who that is */
static void print_best(const report *rep, const figure *f, const figure *row, int skip)
{
    int bw = best_peer(rep, row, 0, skip), br = best_peer(rep, row, 1, skip);
    char r[2][16], who[32];
    for (int ph = 0; ph < 2; ph++) {
        int b = ph ? br : bw;
        double mine = rate(rep, f, ph), theirs = b < 0 ? 0 : rate(rep, &row[b], ph);
        if (mine > 0 && theirs > 0)
            snprintf(r[ph], sizeof r[ph], "%.2f", mine / theirs);
        else
            snprintf(r[ph], sizeof r[ph], "-");
    }
    snprintf(who, sizeof who, "%s/%s", short_name(rep, bw), short_name(rep, br));
    printf(" %7s %7s %-11s", r[0], r[1], who);
}

void report_case(report *rep, bench_case c, const int *on_peer)
{
    const figure *row = rep->main[c];
    int first = 1;
    for (int p = 0; p < NPEERS; p++) {
        if (!on_peer[p])
            continue;
        const figure *f = &row[p];
        printf("%-8s %-11s", first ? rep->cases[c] : "", rep->peers[p]);
        first = 0;
        print_cell(rep, f, 0, p, rep->cases[c], 11);
        print_cell(rep, f, 1, p, rep->cases[c], 11);
        if (f->n && !f->failed && !f->skip && median(f->stored, f->n) >= 0)
            printf(" %8.1f", median(f->stored, f->n));
        else
            printf(" %8s", "-");
        for (int q = PEER_NATIVE; q <= PEER_ZARR3; q++) {
            print_ratio(rate(rep, f, 0), rate(rep, &row[q], 0));
            print_ratio(rate(rep, f, 1), rate(rep, &row[q], 1));
        }
        print_best(rep, f, row, p);
        print_rss(f);
        print_cpu(f);
        if (rep->cfg->nserver)
            print_server(f, &row[PEER_ZARR3]);
        if (rep->cfg->base_dir) {
            printf(" ");
            print_ratio(rate(rep, f, 0), rate(rep, &row[PEER_BASE], 0));
            printf(" ");
            print_ratio(rate(rep, f, 1), rate(rep, &row[PEER_BASE], 1));
        }
        printf("\n");
    }
    const figure *fl = &rep->floor[c];
    if (rep->cfg->floor && (fl->n || fl->failed)) {
        printf("%-8s %-11s", "", "floor");
        if (rate(rep, fl, 0) > 0 || fl->failed)
            print_cell(rep, fl, 0, PEER_NCZARR, "floor", 11);
        else
            printf(" %11s", "-");
        print_cell(rep, fl, 1, PEER_NCZARR, "floor", 11);
        printf(" %8s", "-");
        for (int q = PEER_NATIVE; q <= PEER_ZARR3; q++) {
            print_ratio(rate(rep, fl, 0), rate(rep, &row[q], 0));
            print_ratio(rate(rep, fl, 1), rate(rep, &row[q], 1));
        }
        print_best(rep, fl, row, PEER_NCZARR);
        printf(" %11s %11s\n", "-", "-");
    }
    fflush(stdout);
}

void report_notes(report *rep)
{
    for (int i = 0; i < rep->nnotes; i++)
        printf("[%d] %s%s%s\n", i + 1, rep->notes[i].who, rep->notes[i].who[0] ? " failed: " : "",
               rep->notes[i].msg);
    rep->nnotes = 0;
    fflush(stdout);
}

void report_scaling(report *rep, const int *on_case, const int *workers, int nworkers)
{
    printf("\nnczarr, compressed cases, workers=N (the connector's info string; NCZARR_WORKERS also set): "
           "x%d = over workers=%d, xnat = over native HDF5 above\n",
           workers[0], workers[0]);
    printf("%-8s %7s %11s %11s %6s %6s %6s %6s %11s\n", "case", "workers", "write MiB/s", "read MiB/s",
           "w x1", "r x1", "w xnat", "r xnat", "RSS w/r");
    for (int c = CASE_DEFLATE; c < NCASES; c++) {
        if (!on_case[c])
            continue;
        const figure *nat = &rep->main[c][PEER_NATIVE];
        for (int w = 0; w < nworkers; w++) {
            const figure *f = &rep->scaling[c][w];
            char what[64];
            snprintf(what, sizeof what, "%s workers=%d", rep->cases[c], workers[w]);
            printf("%-8s %7d", w == 0 ? rep->cases[c] : "", workers[w]);
            print_cell(rep, f, 0, PEER_NCZARR, what, 11);
            print_cell(rep, f, 1, PEER_NCZARR, what, 11);
            print_ratio(rate(rep, f, 0), rate(rep, &rep->scaling[c][0], 0));
            print_ratio(rate(rep, f, 1), rate(rep, &rep->scaling[c][0], 1));
            print_ratio(rate(rep, f, 0), rate(rep, nat, 0));
            print_ratio(rate(rep, f, 1), rate(rep, nat, 1));
            print_rss(f);
            printf("\n");
        }
    }
    report_notes(rep);
}
