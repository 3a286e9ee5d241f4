/* The input format of the fuzz targets that make a store (fuzz_store.c), and of the seeds
 * (make_seeds.sh packs a store into it): records, each a line "@@<key>\n" and then the
 * object's bytes up to the next "\n@@" or the end of the input. Text before the first
 * record is the input's options (words such as "rw"). Keys that would leave the store
 * directory (absolute, "..", empty parts) or that are not plain printable text are
 * skipped: the target fuzzes the connector, not the file system. Header-only, for the
 * targets alone. */
#ifndef NCZARR_FUZZ_RECORDS_H
#define NCZARR_FUZZ_RECORDS_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <ftw.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int fuzz_rm_cb(const char *p, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(p) == 0 || errno == ENOENT ? 0 : -1;
}

static void fuzz_remove_tree(const char *dir)
{
    nftw(dir, fuzz_rm_cb, 16, FTW_DEPTH | FTW_PHYS);
}

static int fuzz_key_ok(const char *k, size_t n)
{
    if (n == 0 || n > 200 || k[0] == '/' || k[n - 1] == '/')
        return 0;
    size_t part = 0;
    for (size_t i = 0; i <= n; i++) {
        if (i == n || k[i] == '/') {
            if (part == 0 || (part == 1 && k[i - 1] == '.') ||
                (part == 2 && k[i - 1] == '.' && k[i - 2] == '.'))
                return 0;
            part = 0;
            continue;
        }
        if (k[i] < 0x20 || k[i] == 0x7f)
            return 0;
        part++;
    }
    return 1;
}

/* Makes dir/key's parent folders. */
static int fuzz_mkdirs(char *path, size_t dirlen)
{
    for (char *p = path + dirlen + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        int rc = mkdir(path, 0755);
        *p = '/';
        if (rc != 0 && errno != EEXIST)
            return -1;
    }
    return 0;
}

/* Writes the records of data into a fresh directory dir; *rw: the options name "rw".
 * Returns 0, or -1 where dir cannot be made. */
static int fuzz_records_to_dir(const uint8_t *data, size_t size, const char *dir, int *rw)
{
    fuzz_remove_tree(dir);
    if (mkdir(dir, 0755) != 0)
        return -1;
    const char *s = (const char *)data, *end = s + size;
    const char *first = size >= 2 && s[0] == '@' && s[1] == '@' ? s : memmem(s, size, "\n@@", 3);
    if (rw)
        *rw = first ? memmem(s, (size_t)(first - s), "rw", 2) != NULL : 0;
    const char *r = first ? (first == s ? s : first + 1) : NULL;
    char path[4096];
    size_t dirlen = strlen(dir);
    while (r && r + 2 <= end) {
        const char *key = r + 2;
        const char *nl = memchr(key, '\n', (size_t)(end - key));
        if (!nl)
            break;
        const char *val = nl + 1;
        const char *next = memmem(val, (size_t)(end - val), "\n@@", 3);
        const char *vend = next ? next : end;
        size_t klen = (size_t)(nl - key);
        if (fuzz_key_ok(key, klen) && dirlen + 1 + klen < sizeof path) {
            memcpy(path, dir, dirlen);
            path[dirlen] = '/';
            memcpy(path + dirlen + 1, key, klen);
            path[dirlen + 1 + klen] = '\0';
            if (fuzz_mkdirs(path, dirlen) == 0) {
                FILE *f = fopen(path, "wb");
                if (f) {
                    fwrite(val, 1, (size_t)(vend - val), f);
                    fclose(f);
                }
            }
        }
        r = next ? next + 1 : NULL;
    }
    return 0;
}

#endif
