/* Batches of gets and puts: the store's own batch where it has one (S3), else a loop over
 * single requests with the same per-request statuses. */
#include "nczm_impl.h"
#include "nczc_workers.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* A batch's requests seen alike, whatever their type: n of size bytes at base, with their
 * key and status at koff and soff. */
typedef struct reqv {
    unsigned char *base;
    size_t size, koff, soff;
} reqv;
#define REQV(reqs, type)                                                                                     \
    ((reqv){(unsigned char *)(reqs), sizeof(type), offsetof(type, key), offsetof(type, status)})

/* The result of a read batch once every request has its status: the first failure
 * (NOTFOUND is reported per request only), with the message of the first request refused
 * before the store was asked (first_bad: a bad key, or no buffer); bst when none failed. */
static nczm_status read_result(nczm_map *map, const reqv *v, size_t n, size_t first_bad, nczm_status bst)
{
    for (size_t i = 0; i < n; i++) {
        const unsigned char *r = v->base + i * v->size;
        nczm_status s = *(const nczm_status *)(r + v->soff);
        const char *key = *(const char *const *)(r + v->koff);
        if (s == NCZM_OK || s == NCZM_NOTFOUND)
            continue;
        if (i == first_bad) {
            if (s == NCZM_BADKEY)
                nczm_check_key(map, "read", key);
            else
                nczm_seterr(map, s, "%s: read \"%s\": no buffer", map->location, key);
        }
        return s;
    }
    return bst;
}

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

/* One put through the driver: a gather list goes to writev (only vectored drivers get one
 * not gathered). */
static nczm_status put_one(nczm_map *map, const nczm_put *r)
{
    if (r->iovcnt > 0 && !r->buf) /* not gathered into a buffer by put_batch */
        return map->drv->writev(map, r->key, r->iov, r->iovcnt, r->len);
    return map->drv->write(map, r->key, r->buf ? r->buf : "", r->len);
}

static nczm_status loop_put(nczm_map *map, size_t n, nczm_put *reqs)
{
    nczm_first_err fe = {.have = 0};
    for (size_t i = 0; i < n; i++) {
        if (reqs[i].status != NCZM_OK)
            continue;
        reqs[i].status = put_one(map, &reqs[i]);
        nczm_first_err_note(&fe, map, reqs[i].status != NCZM_OK);
    }
    nczm_first_err_restore(&fe, map);
    return NCZM_OK;
}

/* ---- the same loops on the worker pool, for stores whose calls may run concurrently ---- */

typedef enum { P_GET, P_PUT, P_GET_INTO, P_RANGE, P_EACH } pkind;

/* Each thread works on a byte copy of the map (its own errmsg) and remembers its lowest
 * failed request with that request's message: the lowest over all threads is the batch's
 * first failure, whose message the map keeps, as the serial loops do. */
typedef struct pslot {
    size_t first;
    char msg[NCZM_ERRLEN];
} pslot;

typedef struct pbatch {
    nczm_map *map;
    pkind kind;
    void *reqs;
    unsigned char *copies; /* nslots maps of drv->map_size bytes */
    pslot *slot;
    nczm_each_fn before, after; /* P_EACH */
    void *ud;
} pbatch;

static int par_item(void *arg, size_t i, unsigned s)
{
    pbatch *b = arg;
    nczm_map *m = (nczm_map *)(void *)(b->copies + (size_t)s * b->map->drv->map_size);
    nczm_status st;
    int failed;
    if (b->kind == P_GET) {
        nczm_get *r = &((nczm_get *)b->reqs)[i];
        if (r->status != NCZM_OK)
            return 0;
        st = r->status = m->drv->read_all(m, r->key, &r->buf, &r->len);
        failed = st != NCZM_OK && st != NCZM_NOTFOUND;
    } else if (b->kind == P_PUT) {
        nczm_put *r = &((nczm_put *)b->reqs)[i];
        if (r->status != NCZM_OK)
            return 0;
        st = r->status = put_one(m, r);
        failed = st != NCZM_OK;
    } else if (b->kind == P_GET_INTO || b->kind == P_EACH) {
        nczm_getinto *r = &((nczm_getinto *)b->reqs)[i];
        if (r->status != NCZM_OK)
            return 0;
        if (b->kind == P_EACH)
            b->before(b->ud, i, s);
        st = r->status = m->drv->get_into(m, r);
        failed = st != NCZM_OK && st != NCZM_NOTFOUND;
        if (b->kind == P_EACH)
            b->after(b->ud, i, s);
    } else {
        nczm_range *r = &((nczm_range *)b->reqs)[i];
        if (r->status != NCZM_OK)
            return 0;
        st = r->status = m->drv->read_range(m, r);
        failed = st != NCZM_OK && st != NCZM_NOTFOUND;
    }
    if (failed && i < b->slot[s].first) {
        b->slot[s].first = i;
        memcpy(b->slot[s].msg, m->errmsg, sizeof m->errmsg);
    }
    return 0;
}

/* Runs a batch on the pool; 0 when it cannot (one thread's worth of work, or no memory
 * for the copies), and the caller then loops itself. */
/* Below this many requests, and this many bytes where the batch knows them, waking the
 * pool costs more than the requests (opening an object reads two small keys). */
#define PAR_MIN_REQS  8
#define PAR_MIN_BYTES ((size_t)1 << 20)

static int worth_sharing(pkind kind, size_t n, const void *reqs)
{
    if (n >= PAR_MIN_REQS)
        return 1;
    size_t bytes = 0;
    for (size_t i = 0; i < n && kind != P_GET; i++)
        bytes += kind == P_PUT        ? ((const nczm_put *)reqs)[i].len
                 : kind == P_GET_INTO ? ((const nczm_getinto *)reqs)[i].cap
                                      : ((const nczm_range *)reqs)[i].count;
    return bytes >= PAR_MIN_BYTES;
}

static int par_run_each(nczm_map *map, pkind kind, size_t n, void *reqs, nczm_each_fn before,
                        nczm_each_fn after, void *ud)
{
    /* P_EACH runs work of the caller's after each fetch: always worth the threads */
    if (!map->drv->concurrent || n < 2 || ((kind == P_GET_INTO || kind == P_EACH) && !map->drv->get_into) ||
        (kind == P_RANGE && !map->drv->read_range) || (kind != P_EACH && !worth_sharing(kind, n, reqs)))
        return 0;
    unsigned ns = nczc_workers_slots(map->workers);
    if (ns < 2)
        return 0;
    if ((size_t)ns > n)
        ns = (unsigned)n;
    pbatch b = {.map = map, .kind = kind, .reqs = reqs, .before = before, .after = after, .ud = ud};
    b.copies = malloc((size_t)ns * map->drv->map_size);
    b.slot = malloc((size_t)ns * sizeof *b.slot);
    if (!b.copies || !b.slot) {
        free(b.copies);
        free(b.slot);
        return 0;
    }
    for (unsigned s = 0; s < ns; s++) {
        memcpy(b.copies + (size_t)s * map->drv->map_size, map, map->drv->map_size);
        b.slot[s].first = n;
    }
    nczc_parallel_for(n, ns, par_item, &b);
    size_t best = n;
    for (unsigned s = 0; s < ns; s++)
        if (b.slot[s].first < n && (best == n || b.slot[s].first < b.slot[best].first))
            best = s;
    if (best < n)
        memcpy(map->errmsg, b.slot[best].msg, sizeof map->errmsg);
    free(b.copies);
    free(b.slot);
    return 1;
}

static int par_run(nczm_map *map, pkind kind, size_t n, void *reqs)
{
    return par_run_each(map, kind, n, reqs, NULL, NULL, NULL);
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
    nczm_status bst = map->drv->get_many             ? map->drv->get_many(map, n, reqs)
                      : par_run(map, P_GET, n, reqs) ? NCZM_OK
                                                     : loop_get(map, n, reqs);
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

/* Sets the status of each of reqs[lo, hi) that cannot be written; the first such, or hi. */
static size_t check_puts(const nczm_map *map, nczm_put *reqs, size_t lo, size_t hi)
{
    size_t first_bad = hi;
    for (size_t i = lo; i < hi; i++) {
        if (nczm_key_problem(reqs[i].key))
            reqs[i].status = NCZM_BADKEY;
        else if (map->readonly)
            reqs[i].status = NCZM_PERM;
        else if (!reqs[i].buf && !reqs[i].iovcnt && reqs[i].len)
            reqs[i].status = NCZM_INVAL;
        else
            reqs[i].status = NCZM_OK;
        if (reqs[i].status != NCZM_OK && first_bad == hi)
            first_bad = i;
    }
    return first_bad;
}

/* The result of a batch of puts: the first failed request's status (the first bad one of
 * the checks gets its message here), else the driver's bst. */
static nczm_status put_result(nczm_map *map, size_t n, const nczm_put *reqs, size_t first_bad,
                              nczm_status bst)
{
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

static nczm_status put_batch(nczm_map *map, size_t n, nczm_put *reqs, int commit)
{
    NCZM_CHECK_MAP(map);
    if (n == 0)
        return NCZM_OK;
    if (!reqs)
        return nczm_seterr(map, NCZM_INVAL, "%s: put_many: no requests", map->location);
    size_t first_bad = check_puts(map, reqs, 0, n);
    /* Gather lists for a driver that takes buffers only: gathered here. */
    int gather = !map->drv->vectored || commit;
    for (size_t i = 0; gather && i < n; i++) {
        if (reqs[i].iovcnt <= 0 || reqs[i].status != NCZM_OK)
            continue;
        unsigned char *b = malloc(reqs[i].len ? reqs[i].len : 1);
        if (!b) {
            reqs[i].status = NCZM_NOMEM;
            continue;
        }
        size_t o = 0;
        for (int k = 0; k < reqs[i].iovcnt; k++) {
            memcpy(b + o, reqs[i].iov[k].iov_base, reqs[i].iov[k].iov_len);
            o += reqs[i].iov[k].iov_len;
        }
        reqs[i].buf = b;
    }
    nczm_status bst = commit && map->drv->commit_many ? map->drv->commit_many(map, n, reqs)
                      : map->drv->put_many            ? map->drv->put_many(map, n, reqs)
                      : par_run(map, P_PUT, n, reqs)  ? NCZM_OK
                                                      : loop_put(map, n, reqs);
    for (size_t i = 0; gather && i < n; i++) {
        if (reqs[i].iovcnt > 0) {
            free((void *)(uintptr_t)reqs[i].buf);
            reqs[i].buf = NULL;
        }
    }
    return put_result(map, n, reqs, first_bad, bst);
}

struct nczm_commit {
    nczm_map *map;
    nczm_put *reqs;
    size_t cap;
    size_t checked;   /* reqs[0, checked) are checked and handed to the driver */
    size_t first_bad; /* the first that failed its check, or SIZE_MAX */
    void *drv;        /* the driver's state, or NULL */
};

nczm_commit *nczm_commit_begin(nczm_map *map, nczm_put *reqs, size_t cap)
{
    if (!map || !reqs)
        return NULL;
    nczm_commit *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    *c = (nczm_commit){.map = map, .reqs = reqs, .cap = cap, .first_bad = SIZE_MAX};
    if (map->drv->commit_begin && !map->readonly)
        c->drv = map->drv->commit_begin(map, reqs, cap);
    return c;
}

/* Checks reqs[checked, n) (a scatter list is refused: the driver takes whole buffers). */
static void commit_check(nczm_commit *c, size_t n)
{
    size_t fb = check_puts(c->map, c->reqs, c->checked, n);
    for (size_t i = c->checked; i < n; i++)
        if (c->reqs[i].iovcnt > 0 && c->reqs[i].status == NCZM_OK) {
            c->reqs[i].status = NCZM_INVAL;
            fb = i < fb ? i : fb;
        }
    if (fb < n && c->first_bad == SIZE_MAX)
        c->first_bad = fb;
    c->checked = n;
}

void nczm_commit_ready(nczm_commit *c, size_t n)
{
    if (n > c->cap)
        n = c->cap;
    if (!c->drv || n <= c->checked)
        return;
    commit_check(c, n);
    c->map->drv->commit_ready(c->drv, n);
}

nczm_status nczm_commit_end(nczm_commit *c, size_t n, int commit)
{
    nczm_map *map = c->map;
    nczm_status st = NCZM_OK;
    if (n > c->cap)
        n = c->cap;
    if (!c->drv) {
        st = commit ? nczm_commit_many(map, n, c->reqs) : NCZM_OK;
        free(c);
        return st;
    }
    if (n > c->checked)
        commit_check(c, n);
    st = map->drv->commit_end(c->drv, n, commit);
    if (commit)
        st = put_result(map, n, c->reqs, c->first_bad, st);
    free(c);
    return commit ? st : NCZM_OK;
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
        if (map->drv->get_into) {
            reqs[i].status = map->drv->get_into(map, &reqs[i]);
            nczm_first_err_note(&fe, map, reqs[i].status != NCZM_OK && reqs[i].status != NCZM_NOTFOUND);
            continue;
        }
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

/* Spreads the first len bytes of b over the pieces of iov, in order. */
static void scatter_into(const struct iovec *iov, int iovcnt, const void *b, size_t len)
{
    const unsigned char *p = b;
    for (int k = 0; k < iovcnt && len; k++) {
        size_t l = iov[k].iov_len < len ? iov[k].iov_len : len;
        memcpy(iov[k].iov_base, p, l);
        p += l;
        len -= l;
    }
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
        else if (!reqs[i].buf && !reqs[i].iovcnt && reqs[i].cap)
            reqs[i].status = NCZM_INVAL;
        else
            reqs[i].status = NCZM_OK;
        if (reqs[i].status != NCZM_OK && first_bad == n)
            first_bad = i;
    }
    /* Scatter lists for a driver that takes buffers only: read into one here, then spread. */
    int scatter = !map->drv->vectored;
    for (size_t i = 0; scatter && i < n; i++) {
        if (reqs[i].iovcnt <= 0 || reqs[i].status != NCZM_OK)
            continue;
        if (!(reqs[i].buf = malloc(reqs[i].cap ? reqs[i].cap : 1)))
            reqs[i].status = NCZM_NOMEM;
    }
    nczm_status bst = map->drv->get_into_many             ? map->drv->get_into_many(map, n, reqs)
                      : par_run(map, P_GET_INTO, n, reqs) ? NCZM_OK
                                                          : loop_get_into(map, n, reqs);
    for (size_t i = 0; scatter && i < n; i++) {
        if (reqs[i].iovcnt <= 0 || !reqs[i].buf)
            continue;
        if (reqs[i].status == NCZM_OK)
            scatter_into(reqs[i].iov, reqs[i].iovcnt, reqs[i].buf, reqs[i].len);
        free(reqs[i].buf);
        reqs[i].buf = NULL;
    }
    reqv v = REQV(reqs, nczm_getinto);
    return read_result(map, &v, n, first_bad, bst);
}

nczm_status nczm_search_many(nczm_map *map, size_t n, nczm_search_req *reqs)
{
    NCZM_CHECK_MAP(map);
    if (n == 0)
        return NCZM_OK;
    if (!reqs)
        return nczm_seterr(map, NCZM_INVAL, "%s: search_many: no requests", map->location);
    size_t first_bad = n;
    for (size_t i = 0; i < n; i++) {
        reqs[i].list.count = 0;
        reqs[i].list.names = NULL;
        const char *p = reqs[i].prefix;
        reqs[i].status = p && *p && nczm_key_problem(p) ? NCZM_BADKEY : NCZM_OK;
        if (!p)
            reqs[i].prefix = "";
        if (reqs[i].status != NCZM_OK && first_bad == n)
            first_bad = i;
    }
    nczm_status bst = NCZM_OK;
    if (map->drv->search_many) {
        bst = map->drv->search_many(map, n, reqs);
    } else {
        nczm_first_err fe = {.have = 0};
        for (size_t i = 0; i < n; i++) {
            if (reqs[i].status != NCZM_OK)
                continue;
            reqs[i].status = map->drv->search(map, reqs[i].prefix, &reqs[i].list);
            nczm_first_err_note(&fe, map, reqs[i].status != NCZM_OK);
        }
        nczm_first_err_restore(&fe, map);
    }
    for (size_t i = 0; i < n; i++) {
        nczm_status s = reqs[i].status;
        if (s != NCZM_OK)
            nczm_list_clear(&reqs[i].list);
    }
    for (size_t i = 0; i < n; i++) {
        nczm_status s = reqs[i].status;
        if (s == NCZM_OK)
            continue;
        if (i == first_bad)
            nczm_check_key(map, "search", reqs[i].prefix);
        return s;
    }
    return bst;
}

nczm_status nczm_range_place(nczm_map *map, const nczm_range *r, uint64_t *start)
{
    *start = r->tail ? (r->count <= r->objlen ? r->objlen - r->count : UINT64_MAX) : r->start;
    if (*start <= r->objlen && r->count <= r->objlen - *start)
        return NCZM_OK;
    return nczm_seterr(map, NCZM_SHORT,
                       "%s: read \"%s\": %zu bytes at %s%llu are past the end of the %llu-byte object",
                       map->location, r->key, r->count, r->tail ? "the end, less " : "",
                       (unsigned long long)(r->tail ? r->count : r->start), (unsigned long long)r->objlen);
}

/* One range without the driver's read_range: the object's length, then the read. */
static nczm_status range_one(nczm_map *map, nczm_range *r)
{
    if (map->drv->read_range)
        return map->drv->read_range(map, r);
    uint64_t start;
    nczm_status st = map->drv->len(map, r->key, &r->objlen);
    if (st == NCZM_OK)
        st = nczm_range_place(map, r, &start);
    return st == NCZM_OK && r->count ? map->drv->read(map, r->key, start, r->count, r->buf) : st;
}

static nczm_status loop_ranges(nczm_map *map, size_t n, nczm_range *reqs)
{
    nczm_first_err fe = {.have = 0};
    for (size_t i = 0; i < n; i++) {
        if (reqs[i].status != NCZM_OK)
            continue;
        reqs[i].status = range_one(map, &reqs[i]);
        nczm_first_err_note(&fe, map, reqs[i].status != NCZM_OK && reqs[i].status != NCZM_NOTFOUND);
    }
    nczm_first_err_restore(&fe, map);
    return NCZM_OK;
}

nczm_status nczm_read_ranges(nczm_map *map, size_t n, nczm_range *reqs)
{
    NCZM_CHECK_MAP(map);
    if (n == 0)
        return NCZM_OK;
    if (!reqs)
        return nczm_seterr(map, NCZM_INVAL, "%s: read_ranges: no requests", map->location);
    size_t first_bad = n;
    for (size_t i = 0; i < n; i++) {
        reqs[i].objlen = 0;
        if (nczm_key_problem(reqs[i].key))
            reqs[i].status = NCZM_BADKEY;
        else if (!reqs[i].buf && reqs[i].count && (reqs[i].iovcnt <= 0 || !reqs[i].iov))
            reqs[i].status = NCZM_INVAL;
        else
            reqs[i].status = NCZM_OK;
        if (reqs[i].status != NCZM_OK && first_bad == n)
            first_bad = i;
    }
    /* Scatter lists for a driver that takes buffers only, as for nczm_get_into_many */
    int scatter = !map->drv->vectored;
    for (size_t i = 0; scatter && i < n; i++) {
        if (reqs[i].iovcnt <= 0 || reqs[i].status != NCZM_OK)
            continue;
        if (!(reqs[i].buf = malloc(reqs[i].count ? reqs[i].count : 1)))
            reqs[i].status = NCZM_NOMEM;
    }
    nczm_status bst = par_run(map, P_RANGE, n, reqs) ? NCZM_OK : loop_ranges(map, n, reqs);
    for (size_t i = 0; scatter && i < n; i++) {
        if (reqs[i].iovcnt <= 0 || !reqs[i].buf)
            continue;
        if (reqs[i].status == NCZM_OK)
            scatter_into(reqs[i].iov, reqs[i].iovcnt, reqs[i].buf, reqs[i].count);
        free(reqs[i].buf);
        reqs[i].buf = NULL;
    }
    reqv v = REQV(reqs, nczm_range);
    return read_result(map, &v, n, first_bad, bst);
}

nczm_status nczm_get_into_each(nczm_map *map, size_t n, nczm_getinto *reqs, nczm_each_fn before,
                               nczm_each_fn after, void *ud)
{
    NCZM_CHECK_MAP(map);
    if (!nczm_map_fetches_each(map))
        return NCZM_UNSUPPORTED; /* nothing done: the caller fetches, then works */
    if (n == 0)
        return NCZM_OK;
    if (!reqs || !before || !after)
        return nczm_seterr(map, NCZM_INVAL, "%s: get_into_each: no requests", map->location);
    size_t first_bad = n;
    for (size_t i = 0; i < n; i++) {
        reqs[i].len = 0;
        reqs[i].iov = NULL;
        reqs[i].iovcnt = 0;
        reqs[i].status = nczm_key_problem(reqs[i].key) ? NCZM_BADKEY : NCZM_OK;
        if (reqs[i].status != NCZM_OK && first_bad == n)
            first_bad = i;
    }
    if (!par_run_each(map, P_EACH, n, reqs, before, after, ud)) {
        nczm_first_err fe = {.have = 0};
        for (size_t i = 0; i < n; i++) {
            if (reqs[i].status != NCZM_OK)
                continue;
            before(ud, i, 0);
            reqs[i].status = map->drv->get_into(map, &reqs[i]);
            nczm_first_err_note(&fe, map, reqs[i].status != NCZM_OK && reqs[i].status != NCZM_NOTFOUND);
            after(ud, i, 0);
        }
        nczm_first_err_restore(&fe, map);
    }
    reqv v = REQV(reqs, nczm_getinto);
    return read_result(map, &v, n, first_bad, NCZM_OK);
}
