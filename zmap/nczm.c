/* zmap dispatch: opening and closing maps, and the calls into the store kinds with their
 * arguments checked once here, so that every store rejects the same bad input with the
 * same status and message. */
#include "nczm_impl.h"

#include <errno.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>

static const nczm_driver *driver_for(const nczm_url *url, char errmsg[NCZM_ERRLEN], nczm_status *st)
{
    if (url->drv)
        return url->drv;
    *st = nczm_fmterr(errmsg, NCZM_INVAL, "%s: no store kind (not a name from nczm_url_parse)",
                      url->location ? url->location : "(no location)");
    return NULL;
}

static void copy_err(char errmsg[NCZM_ERRLEN], const char *msg)
{
    if (errmsg)
        snprintf(errmsg, NCZM_ERRLEN, "%s", msg);
}

nczm_status nczm_open(const nczm_url *url, unsigned flags, nczm_map **out, char errmsg[NCZM_ERRLEN])
{
    char msg[NCZM_ERRLEN] = "";
    nczm_status st = NCZM_INVAL;
    if (out)
        *out = NULL;
    if (!url || !out || !url->location) {
        copy_err(errmsg, "nczm_open: missing URL or output argument");
        return NCZM_INVAL;
    }
    const unsigned known = NCZM_READONLY | NCZM_CREATE | NCZM_TRUNC | NCZM_EXCL | NCZM_ZIP_ROOT;
    const char *bad = NULL;
    if (flags & ~known)
        bad = "unknown flag bits";
    else if ((flags & NCZM_READONLY) && (flags & NCZM_CREATE))
        bad = "READONLY and CREATE together";
    else if ((flags & (NCZM_TRUNC | NCZM_EXCL)) && !(flags & NCZM_CREATE))
        bad = "TRUNC or EXCL without CREATE";
    else if ((flags & NCZM_TRUNC) && (flags & NCZM_EXCL))
        bad = "TRUNC and EXCL together";
    if (bad) {
        st = nczm_fmterr(msg, NCZM_INVAL, "%s: open: bad flags 0x%x (%s)", url->location, flags, bad);
        copy_err(errmsg, msg);
        return st;
    }
    const nczm_driver *drv = driver_for(url, msg, &st);
    if (drv)
        st = drv->open(url, flags, out, msg);
    if (st != NCZM_OK)
        *out = NULL;
    copy_err(errmsg, msg);
    return st;
}

nczm_status nczm_close_err(nczm_map *map, char errmsg[NCZM_ERRLEN])
{
    if (errmsg)
        errmsg[0] = '\0';
    if (!map)
        return NCZM_OK;
    nczm_status st = map->drv->close(map);
    if (st != NCZM_OK)
        copy_err(errmsg, map->errmsg);
    free(map->location);
    free(map);
    return st;
}

nczm_status nczm_close(nczm_map *map)
{
    return nczm_close_err(map, NULL);
}

nczm_status nczm_destroy(const nczm_url *url, char errmsg[NCZM_ERRLEN])
{
    char msg[NCZM_ERRLEN] = "";
    nczm_status st = NCZM_INVAL;
    if (!url || !url->location) {
        copy_err(errmsg, "nczm_destroy: missing URL");
        return NCZM_INVAL;
    }
    const nczm_driver *drv = driver_for(url, msg, &st);
    if (drv)
        st = drv->destroy(url, msg);
    copy_err(errmsg, msg);
    return st;
}

int nczm_probe(const nczm_url *url)
{
    if (!url || !url->location)
        return 0;
    nczm_status st;
    const nczm_driver *drv = driver_for(url, NULL, &st);
    return drv && drv->probe(url) ? 1 : 0;
}

nczm_status nczm_check_key(nczm_map *map, const char *op, const char *key)
{
    const char *why = nczm_key_problem(key);
    char q[200];
    if (!why && strlen(key) <= nczm_key_max(map))
        return NCZM_OK;
    nczm_key_quote(q, sizeof q, key);
    if (!why)
        return nczm_seterr(map, NCZM_BADKEY,
                           "%s: %s \"%s\": key is %zu bytes, longer than the %zu bytes a %s store allows",
                           map->location, op, q, strlen(key), nczm_key_max(map), map->drv->name);
    return nczm_seterr(map, NCZM_BADKEY, "%s: %s \"%s\": %s", map->location, op, q, why);
}

nczm_status nczm_check_writable(nczm_map *map, const char *op, const char *key)
{
    if (!map->readonly)
        return NCZM_OK;
    char q[200];
    nczm_key_quote(q, sizeof q, key);
    return nczm_seterr(map, NCZM_PERM, "%s: %s \"%s\": the store is open read-only", map->location, op, q);
}

nczm_status nczm_exists(nczm_map *map, const char *key)
{
    NCZM_CHECK_MAP(map);
    nczm_status st = nczm_check_key(map, "exists", key);
    return st ? st : map->drv->exists(map, key);
}

nczm_status nczm_len(nczm_map *map, const char *key, uint64_t *len)
{
    NCZM_CHECK_MAP(map);
    nczm_status st = nczm_check_key(map, "len", key);
    if (st)
        return st;
    if (!len)
        return nczm_seterr(map, NCZM_INVAL, "%s: len \"%s\": no output argument", map->location, key);
    *len = 0;
    return map->drv->len(map, key, len);
}

nczm_status nczm_read(nczm_map *map, const char *key, uint64_t start, uint64_t count, void *buf)
{
    NCZM_CHECK_MAP(map);
    nczm_status st = nczm_check_key(map, "read", key);
    if (st)
        return st;
    if (!buf && count)
        return nczm_seterr(map, NCZM_INVAL, "%s: read \"%s\": no buffer", map->location, key);
#if SIZE_MAX < UINT64_MAX
    if (count > SIZE_MAX)
        return nczm_seterr(map, NCZM_INVAL, "%s: read \"%s\": range too large", map->location, key);
#endif
    if (start > UINT64_MAX - count)
        return nczm_seterr(map, NCZM_INVAL, "%s: read \"%s\": range too large", map->location, key);
    return map->drv->read(map, key, start, count, buf);
}

nczm_status nczm_read_all(nczm_map *map, const char *key, void **buf, size_t *len)
{
    NCZM_CHECK_MAP(map);
    nczm_status st = nczm_check_key(map, "read", key);
    if (st)
        return st;
    if (!buf || !len)
        return nczm_seterr(map, NCZM_INVAL, "%s: read \"%s\": no output argument", map->location, key);
    *buf = NULL;
    *len = 0;
    return map->drv->read_all(map, key, buf, len);
}

/* A write of key may go ahead: its key is sound and the map writable. */
static nczm_status check_write(nczm_map *map, const char *key)
{
    nczm_status st = nczm_check_key(map, "write", key);
    return st ? st : nczm_check_writable(map, "write", key);
}

nczm_status nczm_write(nczm_map *map, const char *key, const void *buf, size_t len)
{
    NCZM_CHECK_MAP(map);
    nczm_status st = check_write(map, key);
    if (st)
        return st;
    if (!buf && len)
        return nczm_seterr(map, NCZM_INVAL, "%s: write \"%s\": no buffer", map->location, key);
    return map->drv->write(map, key, buf ? buf : "", len);
}

struct nczm_obj {
    nczm_map *map;
    void *st; /* the driver's */
};

int nczm_map_builds(const nczm_map *map)
{
    return map && map->drv->obj_begin && !map->readonly;
}

nczm_status nczm_obj_begin(nczm_map *map, const char *key, nczm_obj **out)
{
    NCZM_CHECK_MAP(map);
    *out = NULL;
    nczm_status st = check_write(map, key);
    if (st)
        return st;
    if (!map->drv->obj_begin)
        return nczm_seterr(map, NCZM_UNSUPPORTED,
                           "%s: write \"%s\": this store does not build objects in pieces", map->location,
                           key);
    nczm_obj *o = calloc(1, sizeof *o);
    if (!o)
        return nczm_seterr(map, NCZM_NOMEM, "%s: write \"%s\": out of memory", map->location, key);
    o->map = map;
    if ((st = map->drv->obj_begin(map, key, &o->st)) != NCZM_OK) {
        free(o);
        return st;
    }
    *out = o;
    return NCZM_OK;
}

int nczm_obj_pwritev(nczm_obj *o, const struct iovec *iov, int iovcnt, size_t len, uint64_t off)
{
    return o->map->drv->obj_pwritev(o->st, iov, iovcnt, len, off);
}

nczm_status nczm_obj_commit(nczm_obj *o)
{
    nczm_status st = o->map->drv->obj_commit(o->st);
    free(o);
    return st;
}

void nczm_obj_abort(nczm_obj *o)
{
    if (!o)
        return;
    o->map->drv->obj_abort(o->st);
    free(o);
}

nczm_status nczm_delete(nczm_map *map, const char *key)
{
    NCZM_CHECK_MAP(map);
    nczm_status st = nczm_check_key(map, "delete", key);
    if (!st)
        st = nczm_check_writable(map, "delete", key);
    return st ? st : map->drv->delete_obj(map, key);
}

nczm_status nczm_delete_tree(nczm_map *map, const char *prefix)
{
    NCZM_CHECK_MAP(map);
    if (prefix && !*prefix)
        return nczm_seterr(
            map, NCZM_BADKEY,
            "%s: delete_tree \"\": the whole store cannot be deleted this way (use nczm_destroy)",
            map->location);
    nczm_status st = nczm_check_key(map, "delete_tree", prefix);
    if (!st)
        st = nczm_check_writable(map, "delete_tree", prefix);
    return st ? st : map->drv->delete_tree(map, prefix);
}

nczm_status nczm_search(nczm_map *map, const char *prefix, nczm_list *out)
{
    NCZM_CHECK_MAP(map);
    if (!out)
        return nczm_seterr(map, NCZM_INVAL, "%s: search: no output argument", map->location);
    out->count = 0;
    out->names = NULL;
    if (!prefix)
        prefix = "";
    if (*prefix) {
        nczm_status st = nczm_check_key(map, "search", prefix);
        if (st)
            return st;
    }
    nczm_status st = map->drv->search(map, prefix, out);
    if (st != NCZM_OK)
        nczm_list_clear(out);
    return st;
}
nczm_kind nczm_map_kind(const nczm_map *map)
{
    return map ? map->kind : NCZM_KIND_NONE;
}

const char *nczm_map_location(const nczm_map *map)
{
    return map && map->location ? map->location : "";
}

int nczm_map_readonly(const nczm_map *map)
{
    return map ? map->readonly : 1;
}

void nczm_map_set_readonly(nczm_map *map)
{
    if (map)
        map->readonly = 1;
}

uint64_t nczm_map_requests(const nczm_map *map)
{
    return map ? map->requests : 0;
}

const char *nczm_errmsg(const nczm_map *map)
{
    return map ? map->errmsg : "no map";
}

void nczm_map_set_workers(nczm_map *map, unsigned workers)
{
    if (map)
        map->workers = workers;
}

unsigned nczm_map_workers(const nczm_map *map)
{
    return map ? map->workers : 1;
}

int nczm_map_vectored(const nczm_map *map)
{
    return map && map->drv->vectored;
}

int nczm_map_fetches_each(const nczm_map *map)
{
    return map && map->drv->concurrent && map->drv->get_into;
}

int nczm_map_ranges_cheap(const nczm_map *map)
{
    return map && map->drv->ranges_cheap;
}

static nczm_status tree_bytes(nczm_map *map, const char *key, int depth, uint64_t *sum)
{
    nczm_list list = {0};
    uint64_t len = 0;
    if (*key && nczm_len(map, key, &len) == NCZM_OK) {
        *sum += len;
        return NCZM_OK;
    }
    if (depth > 64)
        return nczm_seterr(map, NCZM_BADKEY, "%s: \"%s\": keys nested more than 64 deep", map->location, key);
    nczm_status st = nczm_search(map, key, &list);
    for (size_t i = 0; st == NCZM_OK && i < list.count; i++) {
        char *child = nczm_key_join(key, list.names[i]);
        st = child ? tree_bytes(map, child, depth + 1, sum) : NCZM_NOMEM;
        free(child);
    }
    nczm_list_clear(&list);
    return st;
}

nczm_status nczm_tree_bytes(nczm_map *map, const char *prefix, uint64_t *sum)
{
    NCZM_CHECK_MAP(map);
    *sum = 0;
    return tree_bytes(map, prefix ? prefix : "", 0, sum);
}
