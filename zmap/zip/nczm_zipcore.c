/* What the zip store's reads (nczm_zip.c) and writes (nczm_zipwrite.c) share: entries found
 * and named, the pending writes, libzip's errors. */
#include "nczm_zip_internal.h"
#include "nczm_zipidx.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zip.h>

const char *nczm_zip_zerr(zip_t *za)
{
    return zip_error_strerror(zip_get_error(za));
}

/* folder + key + suffix, malloc'ed. */
char *nczm_zip_entry_name(const zip_map *zm, const char *key, const char *suffix)
{
    size_t k = strlen(key), s = strlen(suffix);
    char *n = malloc(zm->folderlen + k + s + 1);
    if (n) {
        memcpy(n, zm->folder, zm->folderlen);
        memcpy(n + zm->folderlen, key, k);
        memcpy(n + zm->folderlen + k, suffix, s + 1);
    }
    return n;
}

int nczm_zip_ensure_pend(zip_map *zm, zip_uint64_t idx)
{
    if (idx < zm->npend)
        return 0;
    size_t n = zm->npend ? zm->npend : 64;
    while (n <= idx)
        n *= 2;
    pending *p = realloc(zm->pend, n * sizeof *p);
    if (!p)
        return -1;
    memset(p + zm->npend, 0, (n - zm->npend) * sizeof *p);
    zm->pend = p;
    zm->npend = n;
    return 0;
}

void nczm_zip_drop_pend(zip_map *zm, zip_uint64_t idx)
{
    if (idx < zm->npend) {
        free(zm->pend[idx].data);
        zm->pend[idx].data = NULL;
        zm->pend[idx].len = 0;
    }
}

/* The index of key's entry, or NCZM_NOTFOUND with the message set. */
nczm_status nczm_zip_find(zip_map *zm, const char *op, const char *key, zip_uint64_t *idx)
{
    char *name = nczm_zip_entry_name(zm, key, "");
    if (!name)
        return nczm_seterr(&zm->base, NCZM_NOMEM, "%s: %s \"%s\": out of memory", zm->base.location, op, key);
    zip_int64_t i = zip_name_locate(zm->za, name, 0);
    free(name);
    if (i < 0)
        return nczm_seterr(&zm->base, NCZM_NOTFOUND, "%s: %s \"%s\": no such object in the archive",
                           zm->base.location, op, key);
    *idx = (zip_uint64_t)i;
    return NCZM_OK;
}
