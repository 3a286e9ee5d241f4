/* The directory store's map, shared by nczm_file.c (open, read) and nczm_filewrite.c
 * (write, delete, list, rename). Internal to zmap/. */
#ifndef NCZM_FILE_INTERNAL_H
#define NCZM_FILE_INTERNAL_H

#include "nczm_impl.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
/* openat2 (Linux 5.6): a key resolved below the root in one call, following no link */
#if defined(__linux__)
#include <sys/syscall.h>
#if defined(SYS_openat2) && __has_include(<linux/openat2.h>)
#include <linux/openat2.h>
#define HAVE_OPENAT2 1
#endif
#endif

typedef struct file_map {
    nczm_map base; /* must stay first: the dispatcher frees the block through it */
    int rootfd;    /* the root directory, open for the map's life: keys resolve below it */
} file_map;

#define FM(map) ((file_map *)(map))

nczm_status nczm_file_write(nczm_map *map, const char *key, const void *data, size_t len);
nczm_status nczm_file_writev(nczm_map *map, const char *key, const struct iovec *iov, int iovcnt, size_t len);
/* A position in a list of pieces, for readv/writev calls that move part of what they are
 * asked to (and take at most IOV_MAX pieces at once). */
typedef struct nczm_iovcur {
    const struct iovec *iov;
    int n, k;   /* pieces; the current one */
    size_t off; /* bytes of the current one already moved */
} nczm_iovcur;
/* Pieces per readv/writev call: the kernel's limit (IOV_MAX, 1024), so that a chunk
 * gathered from 512 rows of the caller's buffer is one system call, not eight (on ext4
 * each write call also dirties the inode's times through a journal handle). */
#define NCZM_IOV_BATCH 1024
/* Up to max pieces from the cursor on, limit bytes at most, into v; returns how many. */
int nczm_iovcur_take(const nczm_iovcur *c, struct iovec *v, int max, size_t limit);
/* Moves the cursor done bytes on. */
void nczm_iovcur_skip(nczm_iovcur *c, size_t done);

/* Metadata objects, durably (nczm_filewrite.c says how): after a crash each object is the
 * old one or the new one, whole. */
/* Crash-safe single writes (nczm_filewrite.c), shared with the commits
 * (nczm_filecommit.c): the pieces iov (len bytes) to a new temporary in the open directory
 * dfd (synced when sync; *tmpp its name; errno-style result); the same in the key's
 * directory, made as needed (*dfdp open, *leafp the key's last segment); and a temporary
 * renamed over the key (removed on failure). */
int nczm_file_write_tmp_at(int dfd, const struct iovec *iov, int iovcnt, size_t len, int sync, char **tmpp);
nczm_status nczm_file_write_tmp(nczm_map *map, const char *key, const struct iovec *iov, int iovcnt,
                                size_t len, int sync, int *dfdp, char **tmpp, const char **leafp);
nczm_status nczm_file_rename_tmp(nczm_map *map, const char *key, int dfd, const char *tmp, const char *leaf);
/* Writes the pieces straight to leaf in dfd (created or truncated, no temporary): 0 or
 * errno. Only for a directory no reader sees yet. */
int nczm_file_write_new_at(int dfd, const char *leaf, const struct iovec *iov, int iovcnt, size_t len);
nczm_status nczm_file_commit_many(nczm_map *map, size_t n, nczm_put *reqs);
nczm_status nczm_file_obj_begin(nczm_map *map, const char *key, void **st);
int nczm_file_obj_pwritev(void *st, const struct iovec *iov, int iovcnt, size_t len, uint64_t off);
nczm_status nczm_file_obj_commit(void *st);
void nczm_file_obj_abort(void *st);
void *nczm_file_commit_begin(nczm_map *map, nczm_put *reqs, size_t cap);
void nczm_file_commit_ready(void *st, size_t n);
nczm_status nczm_file_commit_end(void *st, size_t n, int commit);

/* A commit's new subtrees (nczm_filesub.c), shared by the threads of its pass one. */
typedef struct nczm_subtrees nczm_subtrees;
nczm_subtrees *nczm_sub_new(void); /* NULL when out of memory: the commit goes without */
void nczm_sub_free(nczm_subtrees *s);
/* With out (cap bytes) the key as written inside its new subtree when the directory of its
 * first plen bytes is in one: 2 when that directory is the subtree's top, else 1; 0 when
 * the key is in no new subtree. */
int nczm_sub_redirect(nczm_subtrees *s, const char *key, size_t plen, char *out, size_t cap);
/* The directory of key's first plen bytes is missing: its topmost missing directory
 * becomes a new subtree (or already is one); 1, or 0 when the caller must make the
 * directories in place (too many subtrees, a race, an error). */
int nczm_sub_add(const file_map *fm, nczm_subtrees *s, const char *key, size_t plen);
/* Pass two's first step: each subtree renamed into place (commit, after a good sync) or
 * removed; a subtree that is not put in place fails each of reqs[0, n) below it (noted in
 * fe). */
void nczm_sub_finish(nczm_map *map, nczm_subtrees *s, int commit, nczm_status sync_st, nczm_put *reqs,
                     size_t n, nczm_first_err *fe);

nczm_status nczm_file_delete(nczm_map *map, const char *key);

nczm_status nczm_file_delete_tree(nczm_map *map, const char *prefix);

nczm_status nczm_file_search(nczm_map *map, const char *prefix, nczm_list *out);

/* One rename(2) moves the whole subtree, however many chunks it holds: no data is copied. */
nczm_status nczm_file_rename_tree(nczm_map *map, const char *old_prefix, const char *new_prefix);

/* Opens the directory that holds key's last segment, walking down from the root one
 * segment at a time with O_NOFOLLOW (mkdirs: creating missing directories). *leaf points
 * at the last segment inside key. Returns a descriptor to give back with put_dir (the
 * root's own for a one-segment key) or -1 with errno set: ELOOP when a segment is a
 * symbolic link, ENOTDIR when it is an object. */
int nczm_file_open_parent(const file_map *fm, const char *key, int mkdirs, const char **leaf);

void nczm_file_put_dir(const file_map *fm, int dfd);

/* Opens the key itself (O_NOFOLLOW added to flags), following no link on the way. One
 * openat2 call where the kernel has it, else the segment walk. */
int nczm_file_open_key(const file_map *fm, const char *key, int flags);

/* lstat of a key below the root: 0, or -1 with errno (ELOOP when it passes through a
 * link; a link at the key itself is reported as S_ISLNK). */
int nczm_file_stat_key(const file_map *fm, const char *key, struct stat *sb);

/* 1 empty, 0 not, -1 error (errno set), for the directory leaf in dfd. Inside a store a
 * link is not followed; the store's own path (dfd AT_FDCWD) may be one. */
int nczm_file_dir_is_empty_at(int dfd, const char *leaf);

/* Removes everything inside the directory open as dfd (closing dfd). Returns 0 or errno.
 * Works on descriptors so a symlink inside the tree is removed, never followed. */
int nczm_file_empty_dir_fd(int dfd);

/* After a delete, drop the directories that held only the deleted key, so that a prefix
 * exists exactly while something is below it (as on S3). Stops at the first non-empty
 * directory; the store root itself is never removed. */
void nczm_file_prune_parents(const file_map *fm, const char *key);

nczm_status nczm_file_key_err(nczm_map *map, const char *op, const char *key, int e);

#endif
