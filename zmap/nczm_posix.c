/* POSIX helpers the file-backed stores share (directory and zip): parents of paths,
 * temporary files, whether a directory can be written. */
#include "nczm_impl.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <time.h>
#include <unistd.h>

/* The directory part of path ("." for a bare name, "/" for a top-level one). */
char *nczm_parent_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        return strdup(".");
    if (slash == path)
        return strdup("/");
    size_t n = (size_t)(slash - path);
    char *p = malloc(n + 1);
    if (p) {
        memcpy(p, path, n);
        p[n] = '\0';
    }
    return p;
}

/* Creates a new temporary file in dir. Not mkstemp: mkstemp creates mode 0600, and the
 * object must end up with the usual 0666 & ~umask, which O_CREAT applies for us without
 * touching the process-wide umask. O_EXCL gives the same no-clobber guarantee. */
int nczm_open_tmp_at(int dirfd, const char *dir, char **tmppath)
{
    static atomic_ulong counter;
    /* The process id, asked once: a system call per object is a tenth of writing a small
     * one. A child forked later names its files with its parent's id; O_EXCL and the
     * retries below keep every name unique all the same. */
    static atomic_long pid;
    long me = atomic_load_explicit(&pid, memory_order_relaxed);
    if (me == 0)
        atomic_store_explicit(&pid, me = (long)getpid(), memory_order_relaxed);
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    size_t n = (dir ? strlen(dir) + 1 : 0) + sizeof(NCZM_TMP_PREFIX) + 64;
    char *p = malloc(n);
    if (!p) {
        errno = ENOMEM;
        return -1;
    }
    for (int tries = 0; tries < 100; tries++) {
        unsigned long c = atomic_fetch_add(&counter, 1);
        unsigned long mix = (unsigned long)ts.tv_nsec * 2654435761u + c * 40503u + (unsigned long)tries;
        snprintf(p, n, "%s%s%s.%ld.%lu.%lx", dir ? dir : "", dir ? "/" : "", NCZM_TMP_PREFIX, me, c,
                 mix & 0xffffffu);
        int fd = openat(dirfd, p, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
        if (fd >= 0) {
            *tmppath = p;
            return fd;
        }
        if (errno != EEXIST)
            break;
    }
    int e = errno;
    free(p);
    errno = e;
    return -1;
}

int nczm_open_tmp(const char *dir, char **tmppath)
{
    return nczm_open_tmp_at(AT_FDCWD, dir, tmppath);
}

/* Can we create files in dir? access() alone is not enough: it says yes to root on a
 * read-only mount, so we also create and remove a scratch file. */
nczm_status nczm_check_dir_writable(const char *dir, const char *store, char errmsg[NCZM_ERRLEN])
{
    if (access(dir, W_OK | X_OK) != 0) {
        int e = errno;
        return nczm_fmterr(errmsg, nczm_errno_status(e) == NCZM_PERM ? NCZM_PERM : NCZM_IO,
                           "%s: open for writing: %s", store, strerror(e));
    }
    char *tmp = NULL;
    int fd = nczm_open_tmp(dir, &tmp);
    if (fd < 0) {
        int e = errno;
        return nczm_fmterr(errmsg, nczm_errno_status(e) == NCZM_PERM ? NCZM_PERM : NCZM_IO,
                           "%s: open for writing: cannot create a file in \"%s\": %s", store, dir,
                           strerror(e));
    }
    close(fd);
    unlink(tmp);
    free(tmp);
    return NCZM_OK;
}
