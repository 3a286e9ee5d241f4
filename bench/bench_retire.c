/* Removing a run's store on a file system that makes the next writer pay for it.
 *
 * ext4 without a journal (and ext2/ext3 mounted through it), as this project's development
 * machine's disk is, passes over every inode freed in the last minute whenever it creates
 * a file: each file creation scans the group's free inodes from the first, and each freed
 * one it meets costs a look at its inode table block (fs/ext4/ialloc.c, find_inode_bit and
 * recently_deleted: 60 s, 360 s while that block is not yet written back). With seven
 * stores of 1089 files removed in the last minute, creating a file there took 440 us,
 * against 12 us with them kept (bench/fs_freed_inodes.py), and which writer met how many
 * freed inodes, an accident of who ran after whom, swung a disk's write figures. On such
 * a file system a run's store is therefore emptied (its blocks and page cache freed, its
 * inodes kept) and moved aside; the kept trees are removed when the case's runs are done,
 * then the file system is synced and the bench waits out the minute, so that every writer
 * creates its files where nothing was freed in the last minute, as on a journaled file
 * system. */
#include "bench_retire.h"
#include <errno.h>
#include <ftw.h>
#include <glob.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <fcntl.h>
#include <unistd.h>

static char hold_dir[4300]; /* where emptied stores wait ("": stores are removed at once) */
static int held;            /* stores moved there since the last flush */
static int sync_fd = -1;    /* the bench's directory, to sync its file system */
static double wait_secs;    /* how long a flush waits after the sync */

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

static int empty_cb(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)ftw;
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

/* Syncs the bench's file system and waits until what was freed before is a minute old. */
static void wait_out_freed_inodes(void)
{
    if (sync_fd >= 0)
        (void)syncfs(sync_fd);
    struct timespec t = {(time_t)wait_secs, (long)((wait_secs - (double)(time_t)wait_secs) * 1e9)};
    while (nanosleep(&t, &t) != 0 && errno == EINTR)
        ;
}

int bench_retire_init(const char *dir, double secs)
{
    if (secs <= 0)
        return 0;
    wait_secs = secs;
    snprintf(hold_dir, sizeof hold_dir, "%s/held", dir);
    if (mkdir(hold_dir, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "cannot make %s: %s\n", hold_dir, strerror(errno));
        return -1;
    }
    sync_fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    /* whatever was removed there before this bench started */
    wait_out_freed_inodes();
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

void bench_retire_flush(int wait)
{
    if (!hold_dir[0] || !held)
        return;
    char sub[4400];
    for (int i = 0; i < held; i++) {
        snprintf(sub, sizeof sub, "%s/%d", hold_dir, i);
        bench_remove_tree(sub);
    }
    held = 0;
    if (wait)
        wait_out_freed_inodes();
}

void bench_retire_end(void)
{
    bench_retire_flush(0);
    if (hold_dir[0])
        (void)rmdir(hold_dir);
    if (sync_fd >= 0)
        close(sync_fd);
    sync_fd = -1;
    hold_dir[0] = 0;
}
