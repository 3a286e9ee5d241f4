/* bench_codecs: collecting the runs' figures and printing the tables. */
#ifndef BENCH_CODECS_REPORT_H
#define BENCH_CODECS_REPORT_H

#include "bench_codecs.h"

enum { MAX_RUNS = 15, MAX_WORKERS = 32, MAX_NOTES = 64 };

typedef struct {
    int ok;
    double secs, rss_mib;
    double server_s; /* CPU seconds of the S3 server's processes while the child ran */
    double cpu_s;    /* the child's own CPU seconds (user + system) */
    char msg[1024];
} child_result;

/* One peer's figures for one case: every successful run's seconds and peak RSS. */
typedef struct {
    int n;
    double w_s[MAX_RUNS], r_s[MAX_RUNS], w_rss[MAX_RUNS], r_rss[MAX_RUNS], stored[MAX_RUNS];
    double w_srv[MAX_RUNS], r_srv[MAX_RUNS]; /* the S3 server's CPU seconds (--server-pids) */
    double w_cpu[MAX_RUNS], r_cpu[MAX_RUNS]; /* the peer's own CPU seconds */
    int skip;                                /* not run: the peer is missing (the note says why) */
    int failed;                              /* a run failed: its figures are not reported */
    int failed_phase;
    char msg[1024];
} figure;

typedef struct {
    const bench_cfg *cfg;
    const char *const *cases, *const *peers;
    figure main[NCASES][NPEERS];
    figure floor[NCASES]; /* --floor: the write and read floors of the connector's store */
    figure scaling[NCASES][MAX_WORKERS];
    char skip_msg[NPEERS][256];
    int nnotes;
    struct {
        char who[512], msg[1024];
    } notes[MAX_NOTES];
} report;

void figure_fail(figure *f, int phase, const char *msg);
void figure_add(figure *f, const child_result *w, const child_result *r, double stored_mib);
void figure_add_floor(figure *f, double write_s, double read_s);

void report_init(report *rep, const bench_cfg *cfg, const char *const *cases, const char *const *peers);
void report_skip_peer(report *rep, bench_peer peer, const char *why);
void report_header(report *rep, int runs, int tmpfs, const int *workers, int nworkers);
void report_case(report *rep, bench_case c, const int *on_peer);
void report_notes(report *rep);
void report_scaling(report *rep, const int *on_case, const int *workers, int nworkers);

#endif
