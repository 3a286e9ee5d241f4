/* HDF5 filter plugins found on the plugin path, as HDF5 itself finds them: every shared
 * library in each directory that exports H5PLget_plugin_type() == H5PL_TYPE_FILTER gives
 * its H5Z_class2_t through H5PLget_plugin_info(). netCDF-C's NCZarr does the same.
 *
 * The registry is per process, guarded by a mutex: a directory is scanned once, a filter
 * library stays loaded for the life of the process (chains keep pointers into it), and
 * a filter is taken from the first directory of the current path that has it, as HDF5
 * searches.
 *
 * Threads: the filter functions are later called from worker threads. netCDF-C's plugins
 * (lib__nch5blosc, zstd, bzip2, szip) are pure computation whose buffers come from
 * H5allocate_memory/H5free_memory, which a release build of HDF5 maps to malloc/free, so
 * they make no HDF5 calls that need the library lock. */
#include "ncztr_codec_internal.h"
#include "ncztr_err.h"

#include <dirent.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

typedef H5PL_type_t (*plugin_type_fn)(void);
typedef const void *(*plugin_info_fn)(void);

typedef struct known {
    size_t dir; /* index in scanned */
    H5Z_filter_t id;
    const H5Z_class2_t *cls;
} known;

static pthread_mutex_t reg_lock = PTHREAD_MUTEX_INITIALIZER;
static char **scanned; /* directories already scanned */
static size_t nscanned;
static known *filters;
static size_t nfilters, capfilters;

static bool is_library(const char *name)
{
    size_t n = strlen(name);
    return (n > 3 && strcmp(name + n - 3, ".so") == 0) || strstr(name, ".so.") != NULL ||
           (n > 6 && strcmp(name + n - 6, ".dylib") == 0);
}

/* Opens one library; keeps it when it is a filter plugin with an id not yet known. */
static int load_one(const char *file, size_t dir)
{
    void *h = dlopen(file, RTLD_LAZY | RTLD_LOCAL);
    if (!h)
        return 0; /* not loadable here (HDF5 skips it too) */
    plugin_type_fn type = (plugin_type_fn)(uintptr_t)dlsym(h, "H5PLget_plugin_type");
    plugin_info_fn info = (plugin_info_fn)(uintptr_t)dlsym(h, "H5PLget_plugin_info");
    const H5Z_class2_t *cls = NULL;
    if (type && info && type() == H5PL_TYPE_FILTER)
        cls = info();
    if (!cls || cls->version != H5Z_CLASS_T_VERS || !cls->filter) {
        dlclose(h);
        return 0;
    }
    for (size_t k = 0; k < nfilters; k++)
        if (filters[k].id == cls->id && filters[k].dir == dir) {
            dlclose(h);
            return 0;
        }
    if (nfilters == capfilters) {
        size_t cap = capfilters ? 2 * capfilters : 16;
        known *t = realloc(filters, cap * sizeof *t);
        if (!t) {
            dlclose(h);
            return -1;
        }
        filters = t;
        capfilters = cap;
    }
    filters[nfilters].dir = dir;
    filters[nfilters].id = cls->id;
    filters[nfilters].cls = cls;
    nfilters++;
    return 0; /* h stays open: the class lives in it (and stays loaded) */
}

/* Scans dir unless done before; *idx: its index in scanned. */
static int scan_dir(const char *dir, size_t *idx)
{
    for (size_t k = 0; k < nscanned; k++)
        if (strcmp(scanned[k], dir) == 0) {
            *idx = k;
            return 0;
        }
    char **t = realloc(scanned, (nscanned + 1) * sizeof *t);
    if (!t)
        return -1;
    scanned = t;
    if (!(scanned[nscanned] = strdup(dir)))
        return -1;
    *idx = nscanned++;
    /* sorted, so that which library wins for an id does not depend on directory order */
    struct dirent **names = NULL;
    int n = scandir(dir, &names, NULL, alphasort);
    int r = 0;
    for (int k = 0; k < n; k++) {
        if (r == 0 && is_library(names[k]->d_name)) {
            size_t len = strlen(dir) + strlen(names[k]->d_name) + 2;
            char *file = malloc(len);
            if (!file) {
                r = -1;
            } else {
                snprintf(file, len, "%s/%s", dir, names[k]->d_name);
                r = load_one(file, *idx);
                free(file);
            }
        }
        free(names[k]);
    }
    free(names);
    return r;
}

herr_t ncztr_plugin_find(H5Z_filter_t id, const H5Z_class2_t **cls, char **dirs)
{
    herr_t ret = SUCCEED;
    unsigned n = 0;
    char *path = NULL, *one = NULL;
    size_t plen = 0;
    *cls = NULL;
    *dirs = NULL;
    if (H5PLsize(&n) < 0)
        NCZ_GOTO(FAIL, NCZ_E_HDF5, "cannot read HDF5's plugin search path");
    path = strdup("");
    NCZ_CHECK_ALLOC(path, FAIL);
    pthread_mutex_lock(&reg_lock);
    for (unsigned k = 0; k < n; k++) {
        ssize_t len = H5PLget(k, NULL, 0);
        if (len < 0)
            continue;
        char *t = realloc(one, (size_t)len + 1);
        if (!t)
            break;
        one = t;
        if (H5PLget(k, one, (size_t)len + 1) < 0)
            continue;
        t = realloc(path, plen + (size_t)len + 2);
        if (!t)
            break;
        path = t;
        plen += (size_t)snprintf(path + plen, (size_t)len + 2, "%s%s", plen ? ":" : "", one);
        size_t idx;
        if (scan_dir(one, &idx) < 0)
            break;
        /* the first directory of the current path that has the id wins */
        for (size_t j = 0; j < nfilters && !*cls; j++)
            if (filters[j].id == id && filters[j].dir == idx)
                *cls = filters[j].cls;
    }
    pthread_mutex_unlock(&reg_lock);
    *dirs = path;
    path = NULL;
done:
    free(one);
    free(path);
    return ret;
}

void ncztr_codec_term(void)
{
    /* The libraries stay loaded: a plugin's library may keep process-wide state of its
     * own (blosc's global context) that unloading would turn into leaks. */
    pthread_mutex_lock(&reg_lock);
    for (size_t k = 0; k < nscanned; k++)
        free(scanned[k]);
    free(filters);
    free(scanned);
    filters = NULL;
    scanned = NULL;
    nfilters = capfilters = nscanned = 0;
    pthread_mutex_unlock(&reg_lock);
}
