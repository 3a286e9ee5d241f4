/* Metadata at scale: the nczarr connector against native HDF5, in the same run, for
 * n = 1000, 10000, 100000 objects of each kind:
 *   attrs       one group with n attributes; walk = H5Aiterate2 by name, each attribute
 *               opened by name and read;
 *   arrays      one group with n one-element datasets; walk = H5Literate2 by name with
 *               H5Oget_info_by_name3 (H5O_INFO_BASIC) per link;
 *   arrays+cons the same, the connector also writing .zmetadata (opened from it);
 *   groups      one group with n groups; walk as for arrays.
 * "write" times creating the file (where none is: the last run's is deleted first, untimed)
 * and its objects and closing it; "open+walk" times
 * opening the file, the walk, and closing it; "walk+open" (arrays, groups) the same with
 * each object also opened (H5Oopen), asked its attribute count and closed. Native HDF5 uses the latest file
 * format (dense attribute storage, indexed links), its fastest for these layouts. Each row is the median of
 * the runs shown, connector and native alternating. For the arrays and groups writes a
 * third column, "floor s", times the file-system work alone of their layout in the same
 * directory: per object a directory and two small files, each written to a temporary and
 * renamed into place (a crash-safe write of each object on its own), spread over one
 * process per core, no HDF5, no JSON, no sync. A fourth, "thr s", times
 * the same work from as many threads of one process: where a library, the connector with its
 * worker threads, stands (threads share one table of open files, and each open and close
 * takes its lock). A fifth, "new s", times the layout written the way the connector writes a
 * group that is new as a whole (its save finds the group's directory missing): every file
 * under its own name inside one directory made under a temporary name, renamed into place
 * once at the end, from one process per core: no rename per object, and as crash-safe; the
 * lowest of the three, and what no directory store can go below. Every write and every
 * open+walk runs in a child process of its own, as a program that opens a file once would: in one long
 * process the heap left by earlier runs of either side decides too much (up to twice the time for the same
 * open). On ext2/3/4 without a journal, where every file creation passes over the inodes freed in
 * the last minute (or six, bench_retire.c), a run's store and the floors' trees are emptied and
 * kept until the bench ends, and it starts inode_wait seconds after the last bench there
 * removed its stores: no writer pays for the 300000 files another removed before it. Usage:
 * bench_meta [workdir] [max_n] [runs] [case] [min_n] [inode_wait]   (HDF5_PLUGIN_PATH must find
 * the connector; default workdir ".", max_n 100000, runs 5, every case, min_n 1000, inode_wait
 * 361, 0 = remove at once; n = 100000 gets min(runs, 3) runs) Not a test: no assertion on
 * speed. */
#include "bench_retire.h"
#include <hdf5.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

typedef enum { C_ATTRS, C_ARRAYS, C_ARRAYS_CONS, C_GROUPS, C_COUNT } bench_case;
static const char *case_names[C_COUNT] = {"attrs", "arrays", "arrays+cons", "groups"};

static void obj_name(char *buf, size_t size, const char *what, size_t i)
{
    snprintf(buf, size, "%s%07zu", what, i);
}

static int write_store(bench_case c, hid_t fapl, const char *path, size_t n)
{
    hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    if (f < 0)
        return -1;
    hid_t g = H5Gcreate2(f, "g", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    hid_t scalar = H5Screate(H5S_SCALAR);
    hsize_t one = 1;
    hid_t sp1 = H5Screate_simple(1, &one, NULL);
    int ok = g >= 0 && scalar >= 0 && sp1 >= 0;
    char name[64];
    for (size_t i = 0; i < n && ok; i++) {
        hid_t id;
        switch (c) {
        case C_ATTRS: {
            int v = (int)i;
            obj_name(name, sizeof name, "attr", i);
            id = H5Acreate2(g, name, H5T_STD_I32LE, scalar, H5P_DEFAULT, H5P_DEFAULT);
            ok = id >= 0 && H5Awrite(id, H5T_NATIVE_INT, &v) >= 0;
            if (id >= 0)
                H5Aclose(id);
            break;
        }
        case C_ARRAYS:
        case C_ARRAYS_CONS:
            obj_name(name, sizeof name, "var", i);
            id = H5Dcreate2(g, name, H5T_STD_I32LE, sp1, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
            ok = id >= 0;
            if (id >= 0)
                H5Dclose(id);
            break;
        default:
            obj_name(name, sizeof name, "grp", i);
            id = H5Gcreate2(g, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
            ok = id >= 0;
            if (id >= 0)
                H5Gclose(id);
            break;
        }
    }
    if (sp1 >= 0)
        H5Sclose(sp1);
    if (scalar >= 0)
        H5Sclose(scalar);
    if (g >= 0)
        H5Gclose(g);
    return H5Fclose(f) < 0 || !ok ? -1 : 0;
}

typedef struct walk_state {
    size_t count;
    long long sum;
    int failed;
    int open; /* also open each object (H5Oopen) and ask for its attribute count */
} walk_state;

static herr_t attr_cb(hid_t loc, const char *name, const H5A_info_t *info, void *data)
{
    (void)info;
    walk_state *w = data;
    int v = -1;
    hid_t a = H5Aopen(loc, name, H5P_DEFAULT);
    if (a < 0 || H5Aread(a, H5T_NATIVE_INT, &v) < 0)
        w->failed = 1;
    if (a >= 0)
        H5Aclose(a);
    w->count++;
    w->sum += v;
    return w->failed ? -1 : 0;
}

static herr_t link_cb(hid_t g, const char *name, const H5L_info2_t *info, void *data)
{
    (void)info;
    walk_state *w = data;
    H5O_info2_t oi;
    oi.type = H5O_TYPE_UNKNOWN;
    if (H5Oget_info_by_name3(g, name, &oi, H5O_INFO_BASIC, H5P_DEFAULT) < 0)
        w->failed = 1;
    if (w->open && !w->failed) {
        hid_t o = H5Oopen(g, name, H5P_DEFAULT);
        H5O_info2_t oi2;
        if (o < 0 || H5Oget_info3(o, &oi2, H5O_INFO_NUM_ATTRS) < 0)
            w->failed = 1;
        else
            w->sum += (long long)oi2.num_attrs;
        if (o >= 0 && H5Oclose(o) < 0)
            w->failed = 1;
    }
    w->count++;
    w->sum += oi.type;
    return w->failed ? -1 : 0;
}

static int walk_store(bench_case c, hid_t fapl, const char *path, size_t n, int open)
{
    walk_state w = {0, 0, 0, open};
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, fapl);
    if (f < 0)
        return -1;
    hid_t g = H5Gopen2(f, "g", H5P_DEFAULT);
    herr_t r = -1;
    if (g >= 0) {
        if (c == C_ATTRS)
            r = H5Aiterate2(g, H5_INDEX_NAME, H5_ITER_INC, NULL, attr_cb, &w);
        else
            r = H5Literate2(g, H5_INDEX_NAME, H5_ITER_INC, NULL, link_cb, &w);
        H5Gclose(g);
    }
    if (H5Fclose(f) < 0 || r < 0 || w.failed || w.count != n)
        return -1;
    if (c == C_ATTRS && w.sum != (long long)n * (long long)(n - 1) / 2)
        return -1; /* every attribute read back its own value */
    return 0;
}

/* Runs one write (walk = 0), open+walk (1) or open+walk+open (2) in a child process; its
 * seconds, or < 0. */
static double timed(bench_case c, hid_t fapl, const char *path, size_t n, int walk)
{
    int fd[2];
    double t = -1;
    fflush(stdout);
    if (pipe(fd) != 0)
        return -1;
    pid_t pid = fork();
    if (pid == 0) {
        close(fd[0]);
        double t0 = now();
        int r = walk ? walk_store(c, fapl, path, n, walk == 2) : write_store(c, fapl, path, n);
        double dt = r < 0 ? -1 : now() - t0;
        if (r < 0)
            H5Eprint2(H5E_DEFAULT, stderr);
        _exit(write(fd[1], &dt, sizeof dt) == sizeof dt ? 0 : 1);
    }
    close(fd[1]);
    if (pid > 0 && read(fd[0], &t, sizeof t) != sizeof t)
        t = -1;
    close(fd[0]);
    int status = 0;
    if (pid > 0)
        waitpid(pid, &status, 0);
    return pid > 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0 ? t : -1;
}

/* Deletes the file or store at path if there is one, in a child process: this one forks
 * the timed runs, and must not start the connector's worker threads, which a fork leaves
 * behind. */
static void remove_file(hid_t fapl, const char *path)
{
    pid_t pid = fork();
    if (pid == 0) {
        H5E_BEGIN_TRY
        {
            H5Fdelete(path, fapl);
        }
        H5E_END_TRY
        _exit(0);
    }
    int status;
    if (pid > 0)
        waitpid(pid, &status, 0);
}

/* One worker of the floor: objects p, p + np, ... of n under the directory g; 0 or -1.
 * direct: each file written under its own name (g is a new directory no reader sees). */
static int floor_part(int g, size_t n, size_t p, size_t np, int direct)
{
    static const char body[128] = "{\"zarr_format\": 2}";
    const char *leaf[2] = {".zarray", ".zattrs"};
    char name[64], tmp[64];
    for (size_t i = p; i < n; i += np) {
        snprintf(name, sizeof name, "obj%07zu", i);
        int d = mkdirat(g, name, 0777) == 0 ? openat(g, name, O_RDONLY | O_DIRECTORY) : -1;
        for (int f = 0; f < 2 && d >= 0; f++) {
            snprintf(tmp, sizeof tmp, ".tmp.%d", f);
            int fd = openat(d, direct ? leaf[f] : tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
            if (fd < 0 || write(fd, body, sizeof body) != (ssize_t)sizeof body || close(fd) != 0 ||
                (!direct && renameat(d, tmp, d, leaf[f]) != 0))
                return -1;
        }
        if (d < 0 || close(d) != 0)
            return -1;
    }
    return 0;
}

typedef struct floor_thread {
    int g;
    size_t n, p, np;
    int result;
} floor_thread;

static void *floor_thread_main(void *arg)
{
    floor_thread *t = arg;
    t->result = floor_part(t->g, t->n, t->p, t->np, 0);
    return NULL;
}

/* The floor's work from np threads of this process (a child of the caller); 0 or -1. */
static int floor_threads(int g, size_t n, size_t np)
{
    floor_thread t[64];
    pthread_t id[64];
    size_t started = 1;
    for (size_t p = 0; p < np; p++)
        t[p] = (floor_thread){g, n, p, np, -1};
    for (; started < np; started++)
        if (pthread_create(&id[started], NULL, floor_thread_main, &t[started]) != 0)
            break;
    floor_thread_main(&t[0]);
    int ok = started == np;
    for (size_t p = 1; p < started; p++)
        ok &= pthread_join(id[p], NULL) == 0 && t[p].result == 0;
    return ok && t[0].result == 0 ? 0 : -1;
}

enum { FLOOR_PROCS, FLOOR_THREADS, FLOOR_NEW };

/* The file-system floor of n objects (see the top of the file), in dir/floor, from one
 * process per core, or one thread per core of one process, or (FLOOR_NEW) one process per
 * core writing into a new directory renamed into place once at the end; seconds or < 0. */
static double fs_floor(const char *dir, size_t n, int mode)
{
    char root[PATH_MAX + 16], work[PATH_MAX + 32], final[PATH_MAX + 32];
    snprintf(root, sizeof root, "%s/floor", dir);
    snprintf(work, sizeof work, "%s/%s", root, mode == FLOOR_NEW ? ".new" : "g");
    snprintf(final, sizeof final, "%s/g", root);
    int threads = mode == FLOOR_THREADS;
    if (mkdir(root, 0777) != 0)
        return -1;
    long np = sysconf(_SC_NPROCESSORS_ONLN);
    if (np < 1)
        np = 1;
    if (np > 64)
        np = 64;
    pid_t kids[64];
    long nkids = threads ? 1 : np;
    double t0 = now();
    if (mkdir(work, 0777) != 0)
        return -1;
    for (long p = 0; p < nkids; p++) {
        kids[p] = fork();
        if (kids[p] != 0)
            continue;
        int g = open(work, O_RDONLY | O_DIRECTORY);
        _exit(g >= 0 && (threads ? floor_threads(g, n, (size_t)np)
                                 : floor_part(g, n, (size_t)p, (size_t)np, mode == FLOOR_NEW)) == 0
                  ? 0
                  : 1);
    }
    int ok = 1;
    for (long p = 0; p < nkids; p++) {
        int status = 0;
        ok &= kids[p] > 0 && waitpid(kids[p], &status, 0) == kids[p] && WIFEXITED(status) &&
              WEXITSTATUS(status) == 0;
    }
    ok &= mode != FLOOR_NEW || rename(work, final) == 0;
    double t = now() - t0;
    bench_retire_tree(root);
    return ok ? t : -1;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int k)
{
    qsort(v, (size_t)k, sizeof *v, cmp_double);
    return k % 2 ? v[k / 2] : 0.5 * (v[k / 2 - 1] + v[k / 2]);
}

enum { MAX_RUNS = 15 };

int main(int argc, char **argv)
{
    const char *dir_arg = argc > 1 ? argv[1] : ".";
    long max_n = argc > 2 ? atol(argv[2]) : 100000;
    int runs = argc > 3 ? atoi(argv[3]) : 5;
    const char *only = argc > 4 && strcmp(argv[4], "all") != 0 ? argv[4] : NULL;
    long min_n = argc > 5 ? atol(argv[5]) : 1000;
    /* RECENTCY_MIN + RECENTCY_DIRTY of fs/ext4/ialloc.c, and a second */
    double inode_wait = argc > 6 ? atof(argv[6]) : 361;
    char dir[PATH_MAX];
    if (runs < 1 || runs > MAX_RUNS || max_n < 1 || min_n < 1 || inode_wait < 0 || inode_wait > 600 ||
        !realpath(dir_arg, dir)) {
        fprintf(stderr,
                "usage: bench_meta [existing workdir] [max_n >= 1] [runs 1..%d] [case|all] [min_n] "
                "[inode_wait 0..600]\n",
                MAX_RUNS);
        return 2;
    }
    hid_t vol = H5VLregister_connector_by_name("nczarr", H5P_DEFAULT);
    if (vol < 0) {
        fprintf(stderr, "the nczarr connector was not found: set HDF5_PLUGIN_PATH\n");
        return 1;
    }
    hid_t zfapl = H5Pcreate(H5P_FILE_ACCESS);
    H5Pset_vol(zfapl, vol, NULL);
    hid_t nfapl = H5Pcreate(H5P_FILE_ACCESS);
    H5Pset_vol(nfapl, H5VL_NATIVE, NULL);
    H5Pset_libver_bounds(nfapl, H5F_LIBVER_LATEST, H5F_LIBVER_LATEST);

    char zpath[PATH_MAX + 64], zcons[PATH_MAX + 96], npath[PATH_MAX + 64];
    snprintf(zpath, sizeof zpath, "%s/bench_meta.zarr", dir);
    /* The URL form carries the connector option: .zmetadata is written on close. */
    snprintf(zcons, sizeof zcons, "file://%s/bench_meta_cons.zarr#mode=nczarr,file,consolidated", dir);
    snprintf(npath, sizeof npath, "%s/bench_meta.h5", dir);
    char zdir[PATH_MAX + 64], zconsdir[PATH_MAX + 64]; /* the stores' directories */
    snprintf(zdir, sizeof zdir, "%s/bench_meta.zarr", dir);
    snprintf(zconsdir, sizeof zconsdir, "%s/bench_meta_cons.zarr", dir);
    int hold = inode_wait > 0 && bench_fs_skips_freed_inodes(dir);
    /* stores an earlier bench_meta left, before the wait below */
    bench_remove_tree(zdir);
    bench_remove_tree(zconsdir);
    if (bench_retire_init(dir, hold ? inode_wait : 0) != 0)
        return 1;

    printf("nczarr connector vs native HDF5 (latest format), median of the runs shown\n");
    if (hold)
        printf("%s is ext2/3/4 without a journal: each run's store and floor tree is emptied and kept until "
               "the bench ends, and the bench started up to %.0f s after the last bench here removed its "
               "stores\n",
               dir, inode_wait);
    printf("%-12s %-10s %7s %5s %12s %12s %8s %10s %8s %10s %10s\n", "case", "phase", "n", "runs", "nczarr s",
           "native s", "ratio", "floor s", "floor/n", "thr s", "new s");
    fflush(stdout);
    int cases_run = 0;
    for (long n = min_n; n <= max_n; n *= 10) {
        int k = n >= 100000 && runs > 3 ? 3 : runs;
        for (int c = 0; c < C_COUNT; c++) {
            if (only && strcmp(only, case_names[c]) != 0)
                continue;
            if (cases_run++)
                bench_retire_flush(1); /* only where inodes run short: the stores held so far */
            double zw[MAX_RUNS], zr[MAX_RUNS], nw[MAX_RUNS], nr[MAX_RUNS], zo[MAX_RUNS], no[MAX_RUNS],
                fw[MAX_RUNS], tw[MAX_RUNS], ew[MAX_RUNS];
            int with_floor = c == C_ARRAYS || c == C_GROUPS;
            int with_open = c != C_ATTRS;
            const char *zp = c == C_ARRAYS_CONS ? zcons : zpath;
            for (int rep = 0; rep < k; rep++) {
                /* Alternate which goes first, so neither always finds the other's
                 * page-cache writeback in progress. */
                for (int side = 0; side < 2; side++) {
                    int native = (side + rep) % 2;
                    hid_t fapl = native ? nfapl : zfapl;
                    const char *p = native ? npath : zp;
                    /* each write makes a new file: truncating the store of the run before
                     * would add deleting n objects to the connector's time (native HDF5
                     * truncates one file), a cost the floor does not count either */
                    if (native)
                        remove_file(fapl, p);
                    else
                        bench_retire_tree(c == C_ARRAYS_CONS ? zconsdir : zdir);
                    double tw = timed((bench_case)c, fapl, p, (size_t)n, 0);
                    if (tw < 0) {
                        fprintf(stderr, "%s n=%ld: writing %s failed\n", case_names[c], n, p);
                        return 1;
                    }
                    double tr = timed((bench_case)c, fapl, p, (size_t)n, 1);
                    if (tr < 0) {
                        fprintf(stderr, "%s n=%ld: walking %s failed\n", case_names[c], n, p);
                        return 1;
                    }
                    double to = with_open ? timed((bench_case)c, fapl, p, (size_t)n, 2) : 0;
                    if (to < 0) {
                        fprintf(stderr, "%s n=%ld: walking and opening %s failed\n", case_names[c], n, p);
                        return 1;
                    }
                    (native ? nw : zw)[rep] = tw;
                    (native ? nr : zr)[rep] = tr;
                    (native ? no : zo)[rep] = to;
                }
                fw[rep] = with_floor ? fs_floor(dir, (size_t)n, FLOOR_PROCS) : 0;
                tw[rep] = with_floor && fw[rep] >= 0 ? fs_floor(dir, (size_t)n, FLOOR_THREADS) : 0;
                ew[rep] = with_floor && tw[rep] >= 0 ? fs_floor(dir, (size_t)n, FLOOR_NEW) : 0;
                if (fw[rep] < 0 || tw[rep] < 0 || ew[rep] < 0) {
                    fprintf(stderr, "%s n=%ld: the file-system floor failed in %s\n", case_names[c], n, dir);
                    return 1;
                }
            }
            double mzw = median(zw, k), mnw = median(nw, k), mzr = median(zr, k), mnr = median(nr, k);
            if (with_floor) {
                double mfw = median(fw, k), mtw = median(tw, k), mew = median(ew, k);
                printf("%-12s %-10s %7ld %5d %12.4f %12.4f %8.2f %10.4f %8.2f %10.4f %10.4f\n", case_names[c],
                       "write", n, k, mzw, mnw, mzw / mnw, mfw, mfw / mnw, mtw, mew);
            } else
                printf("%-12s %-10s %7ld %5d %12.4f %12.4f %8.2f\n", case_names[c], "write", n, k, mzw, mnw,
                       mzw / mnw);
            printf("%-12s %-10s %7ld %5d %12.4f %12.4f %8.2f\n", case_names[c], "open+walk", n, k, mzr, mnr,
                   mzr / mnr);
            if (with_open) {
                double mzo = median(zo, k), mno = median(no, k);
                printf("%-12s %-10s %7ld %5d %12.4f %12.4f %8.2f\n", case_names[c], "walk+open", n, k, mzo,
                       mno, mzo / mno);
            }
            fflush(stdout);
        }
    }
    bench_retire_tree(zdir); /* the last runs' stores too, before the removal is marked */
    bench_retire_tree(zconsdir);
    bench_retire_end();
    H5E_BEGIN_TRY
    {
        H5Fdelete(npath, nfapl);
    }
    H5E_END_TRY
    H5Pclose(zfapl);
    H5Pclose(nfapl);
    H5VLclose(vol);
    return 0;
}
