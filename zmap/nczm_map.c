/* The base of every map (nczm_map_init), and the checks the drivers share. */
#include <string.h>
#include "nczm_impl.h"
#include <errno.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>

nczm_status nczm_map_init(nczm_map *map, const nczm_driver *drv, const char *location, unsigned flags,
                          char errmsg[NCZM_ERRLEN])
{
    map->drv = drv;
    map->kind = drv->kind;
    map->flags = flags;
    map->readonly = (flags & NCZM_READONLY) != 0;
    map->errmsg[0] = '\0';
    map->location = strdup(location);
    if (!map->location)
        return nczm_fmterr(errmsg, NCZM_NOMEM, "%s: out of memory", location);
    return NCZM_OK;
}

nczm_status nczm_check_parent(const char *path, char errmsg[NCZM_ERRLEN])
{
    char *parent = nczm_parent_of(path);
    if (!parent)
        return nczm_fmterr(errmsg, NCZM_NOMEM, "%s: create: out of memory", path);
    struct stat psb;
    int pok = stat(parent, &psb) == 0;
    int e = errno;
    nczm_status st = NCZM_OK;
    if (!pok || !S_ISDIR(psb.st_mode))
        st = nczm_fmterr(errmsg, !pok && nczm_errno_status(e) == NCZM_PERM ? NCZM_PERM : NCZM_NOTFOUND,
                         "%s: create: parent directory \"%s\" %s", path, parent,
                         pok           ? "is not a directory"
                         : e == ENOENT ? "does not exist"
                                       : strerror(e));
    free(parent);
    return st;
}
