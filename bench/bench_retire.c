/* Removing a run's store on a file system that makes the next writer pay for it.
 *
 * ext4 without a journal (and ext2/ext3 mounted through it), as this project's development
 * machine's disk is, passes over every inode freed in the last minute whenever it creates
 * a file: each file creation scans the group's free inodes from the first, and each freed
 * one it meets costs a look at its inode table block (fs/ext4/ialloc.c, find_inode_bit and
 * recently_deleted: 60 s, 360 s while that block is dirty, and a writer creating files
 * there dirties it). With seven stores of 1089 files removed in the last minute, creating a
 * file took 440 us, against 12 us with them kept (bench/fs_freed_inodes.py); 100000 arrays
 * written five minutes after 3.6 million inodes were freed, and a minute after a sync, took
 * 47 s against 7.9 (`perf record`: recently_deleted and the buffer lookups under it, 63 %).
 * Which writer met how many freed inodes, an accident of who ran after whom, swung a disk's
 * write figures. On such a file system a run's store is therefore emptied (its blocks and
 * page cache freed, its inodes kept) and moved aside until the bench ends (earlier only
 * where the file system runs short of inodes), and a bench starts secs after the last one
 * on that file system removed its stores (a mark in /tmp says when), at least a minute
 * after anything else: every writer creates its files where nothing was freed before it,
 * as on a journaled file system. */
#include "bench_retire.h"
#include <errno.h>
#include <ftw.h>
#include <glob.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <fcntl.h>
#include <unistd.h>

static char hold_dir[4300]; /* where emptied stores wait ("": stores are removed at once) */
static int held;            /* stores moved there and not yet removed */
static int sync_fd = -1;    /* the bench's directory, to sync its file system */
static double wait_secs;    /* how long a flush waits after the sync */
static char mark_path[128]; /* when the last bench on this file system removed its stores */

static int rm_cb(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st, (void)flag, (void)ftw;
    return remove(path) != 0 && errno != ENOENT ? -1 : 0;
}

void bench_remove_tree(const char *path)
{
    struct stat st;
    if (lstat(path, &st) == 0)
        nftw(path, rm_cb, 16, FTW_DEPTH | FTW_PHYS);
}

static long long held_entries; /* files and directories in the held trees */

static int empty_cb(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)ftw;
    held_entries++;
    if (flag == FTW_F && S_ISREG(st->st_mode))
        (void)truncate(path, 0); /* a file it cannot empty is removed with the tree later */
    return 0;
}

/* Whether the file system holding dir is ext2/3/4 with no journal: its mount's device in
 * /proc/self/mountinfo has no /proc/fs/jbd2/<device>-<inode> entry. */
int bench_fs_skips_freed_inodes(const char *dir)
{
    struct stat st;
    FILE *fp = stat(dir, &st) == 0 ? fopen("/proc/self/mountinfo", "r") : NULL;
    char line[8192], devno[64], found[4096] = "";
    if (!fp)
        return 0;
    snprintf(devno, sizeof devno, "%u:%u", major(st.st_dev), minor(st.st_dev));
    while (fgets(line, sizeof line, fp)) {
        char id[64], fstype[64], source[4096];
        const char *sep = strstr(line, " - ");
        /* 36 35 98:0 /mnt1 /mnt2 rw,noatime master:1 - ext3 /dev/root rw,errors=continue */
        if (!sep || sscanf(line, "%*s %*s %63s", id) != 1 || strcmp(id, devno) != 0 ||
            sscanf(sep + 3, "%63s %4095s", fstype, source) != 2)
            continue;
        if (!strcmp(fstype, "ext4") || !strcmp(fstype, "ext3") || !strcmp(fstype, "ext2")) {
            const char *base = strrchr(source, '/');
            snprintf(found, sizeof found, "%s", base ? base + 1 : source);
        }
        break;
    }
    fclose(fp);
    if (!found[0])
        return 0;
    char pattern[4200];
    glob_t g;
    snprintf(pattern, sizeof pattern, "/proc/fs/jbd2/%s-*", found);
    int journaled = glob(pattern, 0, NULL, &g) == 0 && g.gl_pathc > 0;
    globfree(&g);
    return !journaled;
}

/* Syncs the bench's file system and sleeps secs. */
static void sync_and_wait(double secs)
{
    if (sync_fd >= 0)
        (void)syncfs(sync_fd);
    struct timespec t = {(time_t)secs, (long)((secs - (double)(time_t)secs) * 1e9)};
    while (secs > 0 && nanosleep(&t, &t) != 0 && errno == EINTR)
        ;
}

int bench_retire_init(const char *dir, double secs)
{
    if (secs <= 0)
        return 0;
    wait_secs = secs;
    snprintf(hold_dir, sizeof hold_dir, "%s/held", dir);
    struct stat st;
    if (stat(dir, &st) == 0) /* per file system, outside the bench's directory */
        snprintf(mark_path, sizeof mark_path, "/tmp/.vol-nczarr-bench-removed-%u-%u", major(st.st_dev),
                 minor(st.st_dev));
    if (mkdir(hold_dir, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "cannot make %s: %s\n", hold_dir, strerror(errno));
        return -1;
    }
    sync_fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    /* Whatever was removed there before this bench started: an earlier bench's stores, their
     * time in its mark, the whole wait after it; anything else, at least the minute. */
    double wait = secs < 61 ? secs : 61;
    FILE *fp = mark_path[0] ? fopen(mark_path, "r") : NULL;
    long long then = 0;
    if (fp) {
        if (fscanf(fp, "%lld", &then) == 1 && then > 0) {
            double left = secs - (double)((long long)time(NULL) - then);
            wait = left > wait ? left : wait;
        }
        fclose(fp);
    }
    sync_and_wait(wait);
    return 0;
}

void bench_retire_tree(const char *path)
{
    struct stat st;
    if (!hold_dir[0] || lstat(path, &st) != 0) {
        bench_remove_tree(path);
        return;
    }
    char to[4400];
    snprintf(to, sizeof to, "%s/%d", hold_dir, held);
    nftw(path, empty_cb, 16, FTW_PHYS);
    if (rename(path, to) == 0)
        held++;
    else
        bench_remove_tree(path);
}

static void remove_held(void)
{
    char sub[4400];
    for (int i = 0; i < held; i++) {
        snprintf(sub, sizeof sub, "%s/%d", hold_dir, i);
        bench_remove_tree(sub);
    }
    held = 0;
    held_entries = 0;
}

void bench_retire_flush(int wait)
{
    if (!hold_dir[0] || !held)
        return;
    /* kept while the file system has room for four times as many inodes again, and a million */
    struct statvfs sv;
    if (statvfs(hold_dir, &sv) == 0 && (long long)sv.f_favail > 4 * held_entries + 1000000)
        return;
    remove_held();
    if (wait)
        sync_and_wait(wait_secs);
}

void bench_retire_end(void)
{
    if (hold_dir[0] && held) {
        remove_held();
        /* for the next bench here: when these inodes were freed */
        FILE *fp = mark_path[0] ? fopen(mark_path, "w") : NULL;
        if (fp) {
            fprintf(fp, "%lld\n", (long long)time(NULL));
            fclose(fp);
        }
    }
    if (hold_dir[0])
        (void)rmdir(hold_dir);
    if (sync_fd >= 0)
        close(sync_fd);
    sync_fd = -1;
    hold_dir[0] = 0;
}
