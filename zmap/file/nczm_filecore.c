/* What the directory store's reads (nczm_file.c) and writes (nczm_filewrite.c) share: keys
 * opened and stat'ed below the root, directories emptied and pruned, gather cursors. */
#include "nczm_file_internal.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

static int open_beneath(const file_map *fm, const char *path, int flags);

/* Opens the directory that holds key's last segment, walking down from the root one
 * segment at a time with O_NOFOLLOW (mkdirs: creating missing directories). *leaf points
 * at the last segment inside key. Returns a descriptor to give back with nczm_file_put_dir (the
 * root's own for a one-segment key) or -1 with errno set: ELOOP when a segment is a
 * symbolic link, ENOTDIR when it is an object. */
int nczm_file_open_parent(const file_map *fm, const char *key, int mkdirs, const char **leaf)
{
    int dfd = fm->rootfd;
    const char *seg = key, *slash;
    char name[4096];
    /* One openat2 call for the whole parent path where the kernel has it; the walk below
     * then only runs to make missing directories or to say precisely what failed. */
    const char *last = strrchr(key, '/');
    size_t plen = last ? (size_t)(last - key) : 0;
    if (last && plen < sizeof name) {
        memcpy(name, key, plen);
        name[plen] = '\0';
        int fd = open_beneath(fm, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd >= 0) {
            *leaf = last + 1;
            return fd;
        }
    }
    while ((slash = strchr(seg, '/')) != NULL) {
        size_t n = (size_t)(slash - seg);
        if (n >= sizeof name) {
            errno = ENAMETOOLONG;
            goto fail;
        }
        memcpy(name, seg, n);
        name[n] = '\0';
        int fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0 && errno == ENOENT && mkdirs) {
            if (mkdirat(dfd, name, 0777) != 0 && errno != EEXIST)
                goto fail;
            fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        }
        if (fd < 0) {
            /* O_DIRECTORY|O_NOFOLLOW on a link says ENOTDIR: tell links from objects */
            struct stat sb;
            if (errno == ENOTDIR && fstatat(dfd, name, &sb, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(sb.st_mode))
                errno = ELOOP;
            goto fail;
        }
        if (dfd != fm->rootfd)
            close(dfd);
        dfd = fd;
        seg = slash + 1;
    }
    *leaf = seg;
    return dfd;
fail:
    if (dfd != fm->rootfd) {
        int e = errno;
        close(dfd);
        errno = e;
    }
    return -1;
}

void nczm_file_put_dir(const file_map *fm, int dfd)
{
    if (dfd >= 0 && dfd != fm->rootfd)
        close(dfd);
}

/* One openat2 call below the root following no link (O_NOFOLLOW added to flags): the
 * descriptor, or -1 with errno set; -2 where the kernel (or a sandbox, or valgrind) has no
 * openat2, for the caller to walk the segments instead. */
static int open_beneath(const file_map *fm, const char *path, int flags)
{
#ifdef HAVE_OPENAT2
    /* once the kernel has said no, stop asking */
    static atomic_int no_openat2;
    if (!atomic_load_explicit(&no_openat2, memory_order_relaxed)) {
        struct open_how how;
        memset(&how, 0, sizeof how);
        how.flags = (unsigned long long)(flags | O_NOFOLLOW);
        how.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;
        long r = syscall(SYS_openat2, fm->rootfd, path, &how, sizeof how);
        if (r >= 0 || (errno != ENOSYS && errno != EPERM && errno != EINVAL))
            return (int)r;
        if (errno == ENOSYS)
            atomic_store_explicit(&no_openat2, 1, memory_order_relaxed);
    }
#else
    (void)fm;
    (void)path;
    (void)flags;
#endif
    return -2;
}

/* Opens the key itself (O_NOFOLLOW added to flags), following no link on the way. One
 * openat2 call where the kernel has it, else the segment walk. */
int nczm_file_open_key(const file_map *fm, const char *key, int flags)
{
    int fd = open_beneath(fm, key, flags);
    if (fd != -2)
        return fd;
    const char *leaf;
    int dfd = nczm_file_open_parent(fm, key, 0, &leaf);
    if (dfd < 0)
        return -1;
    fd = openat(dfd, leaf, flags | O_NOFOLLOW);
    int e = errno;
    nczm_file_put_dir(fm, dfd);
    errno = e;
    return fd;
}

/* lstat of a key below the root: 0, or -1 with errno (ELOOP when it passes through a
 * link; a link at the key itself is reported as S_ISLNK). */
int nczm_file_stat_key(const file_map *fm, const char *key, struct stat *sb)
{
    const char *leaf;
    int dfd = nczm_file_open_parent(fm, key, 0, &leaf);
    if (dfd < 0)
        return -1;
    int r = fstatat(dfd, leaf, sb, AT_SYMLINK_NOFOLLOW);
    int e = errno;
    nczm_file_put_dir(fm, dfd);
    errno = e;
    return r;
}

/* 1 empty, 0 not, -1 error (errno set), for the directory leaf in dfd. Inside a store a
 * link is not followed; the store's own path (dfd AT_FDCWD) may be one. */
int nczm_file_dir_is_empty_at(int dfd, const char *leaf)
{
    int fd = openat(dfd, leaf, O_RDONLY | O_DIRECTORY | O_CLOEXEC | (dfd == AT_FDCWD ? 0 : O_NOFOLLOW));
    DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
    if (!d) {
        if (fd >= 0) {
            int e = errno;
            close(fd);
            errno = e;
        }
        return -1;
    }
    int empty = 1;
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0) {
            empty = 0;
            break;
        }
    }
    closedir(d);
    return empty;
}

/* Removes everything inside the directory open as dfd (closing dfd). Returns 0 or errno.
 * Works on descriptors so a symlink inside the tree is removed, never followed. */
int nczm_file_empty_dir_fd(int dfd)
{
    DIR *d = fdopendir(dfd);
    if (!d) {
        int e = errno;
        close(dfd);
        return e;
    }
    int err = 0;
    struct dirent *de;
    while ((errno = 0, de = readdir(d)) != NULL) {
        const char *name = de->d_name;
        if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
            continue;
        int isdir = de->d_type == DT_DIR;
        if (de->d_type == DT_UNKNOWN) {
            struct stat sb;
            if (fstatat(dirfd(d), name, &sb, AT_SYMLINK_NOFOLLOW) == 0)
                isdir = S_ISDIR(sb.st_mode);
        }
        if (isdir) {
            int cfd = openat(dirfd(d), name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
            if (cfd < 0)
                err = errno;
            else
                err = nczm_file_empty_dir_fd(cfd);
            if (!err && unlinkat(dirfd(d), name, AT_REMOVEDIR) != 0)
                err = errno;
        } else if (unlinkat(dirfd(d), name, 0) != 0) {
            err = errno;
        }
        if (err)
            break;
    }
    if (!err && errno)
        err = errno;
    closedir(d);
    return err;
}

/* After a delete, drop the directories that held only the deleted key, so that a prefix
 * exists exactly while something is below it (as on S3). Stops at the first non-empty
 * directory; the store root itself is never removed. */
void nczm_file_prune_parents(const file_map *fm, const char *key)
{
    char *k = strdup(key);
    if (!k)
        return;
    for (;;) {
        char *slash = strrchr(k, '/');
        if (!slash)
            break;
        *slash = '\0';
        const char *leaf;
        int dfd = nczm_file_open_parent(fm, k, 0, &leaf);
        if (dfd < 0)
            break;
        int r = unlinkat(dfd, leaf, AT_REMOVEDIR);
        nczm_file_put_dir(fm, dfd);
        if (r != 0)
            break;
    }
    free(k);
}

nczm_status nczm_file_key_err(nczm_map *map, const char *op, const char *key, int e)
{
    if (e == ELOOP)
        return nczm_seterr(
            map, NCZM_PERM,
            "%s: %s \"%s\": the key is, or passes through, a symbolic link; links inside a "
            "store are not followed, so that a store cannot make its reader open files outside "
            "its root",
            map->location, op, key);
    return nczm_seterr(map, nczm_errno_status(e), "%s: %s \"%s\": %s", map->location, op, key, strerror(e));
}

int nczm_iovcur_take(const nczm_iovcur *c, struct iovec *v, int max, size_t limit)
{
    int nv = 0;
    size_t want = 0;
    for (int j = c->k; j < c->n && nv < max && want < limit; j++, nv++) {
        size_t skip = j == c->k ? c->off : 0, l = c->iov[j].iov_len - skip;
        if (l > limit - want)
            l = limit - want;
        v[nv].iov_base = (char *)c->iov[j].iov_base + skip;
        v[nv].iov_len = l;
        want += l;
    }
    return nv;
}

void nczm_iovcur_skip(nczm_iovcur *c, size_t done)
{
    while (done && c->k < c->n) {
        size_t rest = c->iov[c->k].iov_len - c->off;
        if (done < rest) {
            c->off += done;
            return;
        }
        done -= rest;
        c->k++;
        c->off = 0;
    }
}
