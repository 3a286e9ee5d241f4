/* zmap errors: status codes, their words, and the message a map keeps for its last failure. */
#include "nczm_impl.h"

#include <errno.h>
#include <stdio.h>

nczm_status nczm_seterr(nczm_map *map, nczm_status st, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(map->errmsg, sizeof map->errmsg, fmt, ap);
    va_end(ap);
    return st;
}

nczm_status nczm_long_err(nczm_map *map, const char *key, uint64_t len, size_t cap)
{
    return nczm_seterr(map, NCZM_LONG,
                       "%s: read \"%s\": the object is %llu bytes, more than the %zu expected", map->location,
                       key, (unsigned long long)len, cap);
}

nczm_status nczm_fmterr(char errmsg[NCZM_ERRLEN], nczm_status st, const char *fmt, ...)
{
    if (errmsg) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(errmsg, NCZM_ERRLEN, fmt, ap);
        va_end(ap);
    }
    return st;
}

nczm_status nczm_errno_status(int err)
{
    switch (err) {
    case ENOENT:
    case ENOTDIR:
        return NCZM_NOTFOUND;
    case EACCES:
    case EPERM:
    case EROFS:
        return NCZM_PERM;
    case ENOMEM:
        return NCZM_NOMEM;
    default:
        return NCZM_IO;
    }
}

const char *nczm_status_str(nczm_status st)
{
    switch (st) {
    case NCZM_OK:
        return "success";
    case NCZM_NOTFOUND:
        return "not found";
    case NCZM_EXISTS:
        return "already exists";
    case NCZM_BADKEY:
        return "invalid key";
    case NCZM_IO:
        return "I/O error";
    case NCZM_NOMEM:
        return "out of memory";
    case NCZM_PERM:
        return "permission denied";
    case NCZM_INVAL:
        return "invalid argument";
    case NCZM_SHORT:
        return "read past the end of the object";
    case NCZM_NOTSTORE:
        return "not a Zarr store";
    case NCZM_UNSUPPORTED:
        return "not supported";
    case NCZM_LONG:
        return "object longer than the buffer";
    }
    return "unknown zmap status";
}
