/* Batches of gets and puts: the store's own batch where it has one (S3), else a loop over
 * single requests with the same per-request statuses. */
#include "nczm_impl.h"

/* The loops used when a store has no native batch: run the requests in order, keeping the
 * message of the first real failure (a later one would otherwise overwrite it). */
static nczm_status loop_get(nczm_map *map, size_t n, nczm_get *reqs)
{
    nczm_first_err fe = {.have = 0};
    for (size_t i = 0; i < n; i++) {
        if (reqs[i].status != NCZM_OK)
            continue;
        reqs[i].status = map->drv->read_all(map, reqs[i].key, &reqs[i].buf, &reqs[i].len);
        nczm_first_err_note(&fe, map, reqs[i].status != NCZM_OK && reqs[i].status != NCZM_NOTFOUND);
    }
    nczm_first_err_restore(&fe, map);
    return NCZM_OK;
}

static nczm_status loop_put(nczm_map *map, size_t n, nczm_put *reqs)
{
    nczm_first_err fe = {.have = 0};
    for (size_t i = 0; i < n; i++) {
        if (reqs[i].status != NCZM_OK)
            continue;
        reqs[i].status = map->drv->write(map, reqs[i].key, reqs[i].buf ? reqs[i].buf : "", reqs[i].len);
        nczm_first_err_note(&fe, map, reqs[i].status != NCZM_OK);
    }
    nczm_first_err_restore(&fe, map);
    return NCZM_OK;
}

nczm_status nczm_get_many(nczm_map *map, size_t n, nczm_get *reqs)
{
    NCZM_CHECK_MAP(map);
    if (n == 0)
        return NCZM_OK;
    if (!reqs)
        return nczm_seterr(map, NCZM_INVAL, "%s: get_many: no requests", map->location);
    size_t first_bad = n;
    for (size_t i = 0; i < n; i++) {
        reqs[i].buf = NULL;
        reqs[i].len = 0;
        reqs[i].status = nczm_key_problem(reqs[i].key) ? NCZM_BADKEY : NCZM_OK;
        if (reqs[i].status != NCZM_OK && first_bad == n)
            first_bad = i;
    }
    nczm_status bst = map->drv->get_many ? map->drv->get_many(map, n, reqs) : loop_get(map, n, reqs);
    for (size_t i = 0; i < n; i++) {
        nczm_status s = reqs[i].status;
        if (s == NCZM_OK || s == NCZM_NOTFOUND)
            continue;
        if (i == first_bad)
            nczm_check_key(map, "read", reqs[i].key);
        return s;
    }
    return bst;
}

static nczm_status put_batch(nczm_map *map, size_t n, nczm_put *reqs, int commit)
{
    NCZM_CHECK_MAP(map);
    if (n == 0)
        return NCZM_OK;
    if (!reqs)
        return nczm_seterr(map, NCZM_INVAL, "%s: put_many: no requests", map->location);
    size_t first_bad = n;
    for (size_t i = 0; i < n; i++) {
        if (nczm_key_problem(reqs[i].key))
            reqs[i].status = NCZM_BADKEY;
        else if (map->readonly)
            reqs[i].status = NCZM_PERM;
        else if (!reqs[i].buf && reqs[i].len)
            reqs[i].status = NCZM_INVAL;
        else
            reqs[i].status = NCZM_OK;
        if (reqs[i].status != NCZM_OK && first_bad == n)
            first_bad = i;
    }
    nczm_status bst = commit && map->drv->commit_many ? map->drv->commit_many(map, n, reqs)
                      : map->drv->put_many            ? map->drv->put_many(map, n, reqs)
                                                      : loop_put(map, n, reqs);
    for (size_t i = 0; i < n; i++) {
        nczm_status s = reqs[i].status;
        if (s == NCZM_OK)
            continue;
        if (i == first_bad) {
            if (s == NCZM_BADKEY)
                nczm_check_key(map, "write", reqs[i].key);
            else if (s == NCZM_PERM)
                nczm_check_writable(map, "write", reqs[i].key);
            else
                nczm_seterr(map, s, "%s: write \"%s\": no buffer", map->location, reqs[i].key);
        }
        return s;
    }
    return bst;
}

nczm_status nczm_put_many(nczm_map *map, size_t n, nczm_put *reqs)
{
    return put_batch(map, n, reqs, 0);
}

nczm_status nczm_commit_many(nczm_map *map, size_t n, nczm_put *reqs)
{
    return put_batch(map, n, reqs, 1);
}

/* Without a native batch: size, then read, each object (the stores here are local, so the
 * second lookup is cheap). */
static nczm_status loop_get_into(nczm_map *map, size_t n, nczm_getinto *reqs)
{
    nczm_first_err fe = {.have = 0};
    for (size_t i = 0; i < n; i++) {
        if (reqs[i].status != NCZM_OK)
            continue;
        uint64_t len = 0;
        nczm_status st = map->drv->len(map, reqs[i].key, &len);
        if (st == NCZM_OK && len > reqs[i].cap)
            st = nczm_long_err(map, reqs[i].key, len, reqs[i].cap);
        if (st == NCZM_OK || st == NCZM_LONG)
            reqs[i].len = len > SIZE_MAX ? SIZE_MAX : (size_t)len;
        if (st == NCZM_OK && len)
            st = map->drv->read(map, reqs[i].key, 0, len, reqs[i].buf);
        reqs[i].status = st;
        nczm_first_err_note(&fe, map, st != NCZM_OK && st != NCZM_NOTFOUND);
    }
    nczm_first_err_restore(&fe, map);
    return NCZM_OK;
}

nczm_status nczm_get_into_many(nczm_map *map, size_t n, nczm_getinto *reqs)
{
    NCZM_CHECK_MAP(map);
    if (n == 0)
        return NCZM_OK;
    if (!reqs)
        return nczm_seterr(map, NCZM_INVAL, "%s: get_into_many: no requests", map->location);
    size_t first_bad = n;
    for (size_t i = 0; i < n; i++) {
        reqs[i].len = 0;
        if (nczm_key_problem(reqs[i].key))
            reqs[i].status = NCZM_BADKEY;
        else if (!reqs[i].buf && reqs[i].cap)
            reqs[i].status = NCZM_INVAL;
        else
            reqs[i].status = NCZM_OK;
        if (reqs[i].status != NCZM_OK && first_bad == n)
            first_bad = i;
    }
    nczm_status bst =
        map->drv->get_into_many ? map->drv->get_into_many(map, n, reqs) : loop_get_into(map, n, reqs);
    for (size_t i = 0; i < n; i++) {
        nczm_status s = reqs[i].status;
        if (s == NCZM_OK || s == NCZM_NOTFOUND)
            continue;
        if (i == first_bad) {
            if (s == NCZM_BADKEY)
                nczm_check_key(map, "read", reqs[i].key);
            else
                nczm_seterr(map, s, "%s: read \"%s\": no buffer", map->location, reqs[i].key);
        }
        return s;
    }
    return bst;
}
