/* The S3 store: objects below a root prefix in a bucket, through libcurl (nczm_s3.h lists
 * the files). What S3 gives and what it does not:
 *   - a PUT replaces an object whole and atomically, so every write is atomic; S3 has no
 *     directories, so a prefix exists while an object is below it, as the zmap model says;
 *   - S3 does not stop an object and a prefix from sharing a name ("x" and "x/y"): this
 *     store does not check either (a check per write would cost a request per parent);
 *   - a DELETE of a missing key succeeds on S3, so delete() asks first (NOTFOUND).
 * Opening an existing store costs one request when the first of the caller's prefetch keys
 * (nczm_url.prefetch: consolidated metadata) exists: open GETs them in turn until one
 * exists (it marks a store) and keeps it for the first whole read of that key, which is
 * what the loader asks for next. Without one, a HEAD of each of the caller's marks and a
 * one-key listing run together, to tell a store from other data (NCZM_NOTSTORE) and from
 * nothing (NCZM_NOTFOUND). */
#include "nczm_s3.h"

#include <stdio.h>
#include <stdlib.h>

extern const nczm_driver nczm_s3_driver; /* defined at the end */

enum { ROOT_EMPTY, ROOT_OTHER, ROOT_STORE, ROOT_NOBUCKET };

static nczm_status s3_close(nczm_map *map)
{
    s3_map *m = S3M(map);
    s3_drop_prefetch(m);
    s3_pool_free(m);
    s3_cfg_clear(&m->cfg);
    return NCZM_OK;
}

/* A map for open, destroy and probe. */
static nczm_status map_new(const nczm_url *url, unsigned flags, s3_map **out, char errmsg[NCZM_ERRLEN])
{
    *out = NULL;
    nczm_status st = s3_global_init(errmsg);
    if (st != NCZM_OK)
        return st;
    s3_map *m = calloc(1, sizeof *m);
    if (!m)
        return nczm_fmterr(errmsg, NCZM_NOMEM, "%s: out of memory", url->location);
    if ((st = nczm_map_init(&m->base, &nczm_s3_driver, url->location, flags, errmsg)) != NCZM_OK) {
        free(m);
        return st;
    }
    m->marks = url->marks;
    m->prefetch = url->prefetch;
    if ((st = s3_cfg_init(url, &m->cfg, errmsg)) == NCZM_OK) {
        size_t rl = strlen(m->cfg.root);
        m->base.key_max = S3_KEY_MAX - (rl ? rl + 1 : 0);
        st = s3_pool_init(m, errmsg);
    }
    if (st != NCZM_OK) {
        s3_close(&m->base);
        free(m->base.location);
        free(m);
        return st;
    }
    *out = m;
    return NCZM_OK;
}

static void map_free(s3_map *m)
{
    if (m) {
        s3_close(&m->base);
        free(m->base.location);
        free(m);
    }
}

/* What the root prefix holds: a store, other objects, nothing, or no bucket at all. The
 * requests run at once: a HEAD of each of the caller's marks, and a listing of one key. */
#define MAX_MARKS 8
static nczm_status root_state(s3_map *m, const char *op, int *state)
{
    s3_req r[MAX_MARKS + 1];
    size_t nm = 0;
    memset(r, 0, sizeof r);
    nczm_status st = NCZM_OK;
    for (; m->marks && m->marks[nm] && nm < MAX_MARKS && st == NCZM_OK; nm++)
        st = s3_key_req(m, &r[nm], S3_HEAD, op, m->marks[nm], NULL);
    s3_req *list = &r[nm];
    if (st == NCZM_OK) {
        char *pre = s3_list_prefix(m, "");
        st = pre ? s3_list_req(m, list, op, "", pre, 0, 1, NULL) : NCZM_NOMEM;
        free(pre);
    }
    if (st == NCZM_OK)
        st = s3_run(m, nm + 1, r);
    size_t bad = nm + 1, found = 0;
    for (size_t i = 0; i < nm; i++) {
        if (r[i].st == NCZM_OK)
            found++;
        else if (r[i].st != NCZM_NOTFOUND && bad > nm)
            bad = i;
    }
    if (st != NCZM_OK) {
        s3_oom(m, op, "");
    } else if (list->st == NCZM_NOTFOUND && list->buf && strstr(list->buf, "NoSuchBucket")) {
        *state = ROOT_NOBUCKET;
        nczm_seterr(&m->base, NCZM_NOTFOUND, "%s", list->msg);
    } else if (bad <= nm || list->st != NCZM_OK) {
        /* a GET says more than a HEAD (a HEAD's 403 has no S3 error code) */
        if (bad > nm || (list->st != NCZM_OK && r[bad].http == list->http))
            bad = nm;
        st = nczm_seterr(&m->base, r[bad].st, "%s", r[bad].msg);
    } else if (found) {
        *state = ROOT_STORE;
    } else {
        *state = strstr(list->buf ? list->buf : "", "<Contents>") ? ROOT_OTHER : ROOT_EMPTY;
    }
    for (size_t i = 0; i <= nm; i++)
        s3_req_clear(&r[i]);
    return st;
}

/* Every key below the root prefix, deleted (TRUNC, destroy). */
static nczm_status delete_all(s3_map *m, const char *op)
{
    char *pre = s3_list_prefix(m, "");
    if (!pre)
        return s3_oom(m, op, "");
    s3_listing l;
    memset(&l, 0, sizeof l);
    nczm_status st = s3_list(m, op, "", pre, 0, SIZE_MAX, &l);
    if (st == NCZM_OK)
        st = s3_delete_keys(m, op, "", l.nkeys, l.keys);
    s3_listing_clear(&l);
    free(pre);
    return st;
}

/* PUT of the bucket, for a store created in a bucket that does not exist (as netCDF-C
 * does). Outside us-east-1 S3 wants the region in the body. */
static nczm_status create_bucket(s3_map *m)
{
    s3_req r;
    memset(&r, 0, sizeof r);
    char body[256] = "";
    if (strcmp(m->cfg.region, "us-east-1") != 0)
        snprintf(body, sizeof body,
                 "<CreateBucketConfiguration xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">"
                 "<LocationConstraint>%s</LocationConstraint></CreateBucketConfiguration>",
                 m->cfg.region);
    r.method = S3_PUT;
    r.op = "create bucket";
    r.key = m->cfg.bucket;
    r.body = body;
    r.body_len = strlen(body);
    size_t bl = strlen(m->cfg.base);
    r.url = malloc(bl + 2);
    if (!r.url)
        return s3_oom(m, "create", "");
    memcpy(r.url, m->cfg.base, bl);
    memcpy(r.url + bl, "/", 2);
    nczm_status st = s3_run1(m, &r);
    /* a bucket made by someone else meanwhile is as good, if it is ours */
    if (st != NCZM_OK && r.buf && strstr(r.buf, "BucketAlreadyOwnedByYou"))
        st = NCZM_OK;
    s3_req_clear(&r);
    return st;
}

static nczm_status open_create(s3_map *m, unsigned flags)
{
    const char *op = "create";
    int state = ROOT_EMPTY;
    nczm_status st = root_state(m, op, &state);
    if (st != NCZM_OK)
        return st;
    if (state == ROOT_NOBUCKET)
        return create_bucket(m);
    if (state == ROOT_EMPTY)
        return NCZM_OK;
    if (flags & NCZM_EXCL)
        return nczm_seterr(&m->base, NCZM_EXISTS, "%s: create: objects already exist at that prefix",
                           m->base.location);
    if (state == ROOT_OTHER) {
        char marks[128];
        nczm_marks_text(&(nczm_url){.marks = m->marks}, marks, sizeof marks);
        return nczm_seterr(&m->base, NCZM_NOTSTORE,
                           "%s: create: objects exist at that prefix and are not a Zarr store (no %s at its "
                           "root); refusing to %s them",
                           m->base.location, marks, (flags & NCZM_TRUNC) ? "delete" : "write among");
    }
    return (flags & NCZM_TRUNC) ? delete_all(m, op) : NCZM_OK;
}

static nczm_status open_existing(s3_map *m)
{
    const char *op = "open";
    nczm_status st = NCZM_NOTFOUND;
    int nobucket = 0;
    /* the prefetch keys in turn, until one exists */
    for (size_t i = 0; m->prefetch && m->prefetch[i] && st == NCZM_NOTFOUND && !nobucket; i++) {
        s3_req r;
        if (s3_key_req(m, &r, S3_GET, op, m->prefetch[i], NULL) != NCZM_OK)
            return s3_oom(m, op, "");
        st = s3_run1(m, &r);
        if (st == NCZM_OK) {
            m->pre_buf = r.buf ? r.buf : strdup("");
            m->pre_len = r.len;
            m->have_pre = m->pre_buf != NULL;
            m->pre_key = m->prefetch[i];
            r.buf = NULL;
        }
        nobucket = st == NCZM_NOTFOUND && r.buf && strstr(r.buf, "NoSuchBucket");
        s3_req_clear(&r);
    }
    if (st == NCZM_OK || st != NCZM_NOTFOUND || nobucket)
        return st;
    int state = ROOT_EMPTY;
    if ((st = root_state(m, op, &state)) != NCZM_OK)
        return st;
    if (state == ROOT_STORE)
        return NCZM_OK;
    if (state == ROOT_NOBUCKET)
        return NCZM_NOTFOUND; /* root_state's message names the bucket */
    if (state == ROOT_OTHER) {
        char marks[128];
        nczm_marks_text(&(nczm_url){.marks = m->marks}, marks, sizeof marks);
        return nczm_seterr(&m->base, NCZM_NOTSTORE, "%s: open: not a Zarr store (no %s at its root)",
                           m->base.location, marks);
    }
    return nczm_seterr(&m->base, NCZM_NOTFOUND, "%s: open: no store there (nothing at that prefix)",
                       m->base.location);
}

static nczm_status s3_open(const nczm_url *url, unsigned flags, nczm_map **out, char errmsg[NCZM_ERRLEN])
{
    s3_map *m;
    nczm_status st = map_new(url, flags, &m, errmsg);
    if (st != NCZM_OK)
        return st;
    st = (flags & NCZM_CREATE) ? open_create(m, flags) : open_existing(m);
    if (st != NCZM_OK) {
        snprintf(errmsg, NCZM_ERRLEN, "%s", m->base.errmsg);
        map_free(m);
        return st;
    }
    m->base.errmsg[0] = '\0';
    *out = &m->base;
    return NCZM_OK;
}

static nczm_status s3_destroy(const nczm_url *url, char errmsg[NCZM_ERRLEN])
{
    s3_map *m;
    nczm_status st = map_new(url, 0, &m, errmsg);
    if (st != NCZM_OK)
        return st;
    int state = ROOT_EMPTY;
    st = root_state(m, "destroy", &state);
    if (st == NCZM_OK && state == ROOT_NOBUCKET)
        st = NCZM_NOTFOUND; /* root_state's message names the bucket */
    else if (st == NCZM_OK && state == ROOT_STORE)
        st = delete_all(m, "destroy");
    else if (st == NCZM_OK && state == ROOT_OTHER) {
        char marks[128];
        nczm_marks_text(&(nczm_url){.marks = m->marks}, marks, sizeof marks);
        st = nczm_seterr(&m->base, NCZM_NOTSTORE,
                         "%s: destroy: not a Zarr store (no %s at its root); refusing to delete it",
                         m->base.location, marks);
    } else if (st == NCZM_OK)
        st = nczm_seterr(&m->base, NCZM_NOTFOUND, "%s: destroy: no store there (nothing at that prefix)",
                         m->base.location);
    if (st != NCZM_OK)
        snprintf(errmsg, NCZM_ERRLEN, "%s", m->base.errmsg);
    map_free(m);
    return st;
}

static int s3_probe(const nczm_url *url)
{
    s3_map *m;
    if (map_new(url, NCZM_READONLY, &m, NULL) != NCZM_OK)
        return 0;
    int state = ROOT_EMPTY;
    int yes = root_state(m, "probe", &state) == NCZM_OK && state == ROOT_STORE;
    map_free(m);
    return yes;
}

/* ---------------------------------------------------------------- single objects */

static nczm_status head(s3_map *m, const char *op, const char *key, uint64_t *len)
{
    if (s3_prefetched(m, key)) {
        *len = m->pre_len;
        return NCZM_OK;
    }
    s3_req r;
    if (s3_key_req(m, &r, S3_HEAD, op, key, NULL) != NCZM_OK)
        return s3_oom(m, op, key);
    nczm_status st = s3_run1(m, &r);
    if (st == NCZM_OK)
        *len = r.have_clen ? r.clen : 0;
    s3_req_clear(&r);
    return st;
}

static nczm_status s3_exists(nczm_map *map, const char *key)
{
    uint64_t len;
    return head(S3M(map), "exists", key, &len);
}

static nczm_status s3_len(nczm_map *map, const char *key, uint64_t *len)
{
    return head(S3M(map), "len", key, len);
}

static nczm_status short_err(s3_map *m, const char *key, uint64_t start, uint64_t count, uint64_t size)
{
    return nczm_seterr(&m->base, NCZM_SHORT,
                       "%s: read \"%s\": bytes %llu..%llu are past the end of the %llu-byte object",
                       m->base.location, key, (unsigned long long)start, (unsigned long long)(start + count),
                       (unsigned long long)size);
}

static nczm_status s3_read(nczm_map *map, const char *key, uint64_t start, uint64_t count, void *buf)
{
    s3_map *m = S3M(map);
    if (s3_prefetched(m, key)) {
        if (start > m->pre_len || count > m->pre_len - start)
            return short_err(m, key, start, count, m->pre_len);
        if (count)
            memcpy(buf, m->pre_buf + start, (size_t)count);
        return NCZM_OK;
    }
    if (count == 0) {
        uint64_t len = 0;
        nczm_status st = head(m, "read", key, &len);
        return st != NCZM_OK || start <= len ? st : short_err(m, key, start, count, len);
    }
    s3_req r;
    if (s3_key_req(m, &r, S3_GET, "read", key, NULL) != NCZM_OK ||
        s3_req_header(&r, "Range: bytes=%llu-%llu", (unsigned long long)start,
                      (unsigned long long)(start + count - 1)) != NCZM_OK) {
        s3_req_clear(&r);
        return s3_oom(m, "read", key);
    }
    r.fixed = r.ranged = 1;
    r.dst = buf;
    r.cap = (size_t)count;
    r.skip = start;
    nczm_status st = s3_run1(m, &r);
    if (st == NCZM_SHORT || (st == NCZM_OK && r.got < count)) {
        uint64_t size = r.have_total ? r.total : r.http == 200 && r.have_clen ? r.clen : start + r.got;
        st = short_err(m, key, start, count, size);
    }
    s3_req_clear(&r);
    return st;
}

static nczm_status s3_read_all(nczm_map *map, const char *key, void **buf, size_t *len)
{
    s3_map *m = S3M(map);
    if (s3_prefetched(m, key)) {
        s3_take_prefetch(m, buf, len);
        return NCZM_OK;
    }
    s3_req r;
    if (s3_key_req(m, &r, S3_GET, "read", key, NULL) != NCZM_OK)
        return s3_oom(m, "read", key);
    nczm_status st = s3_run1(m, &r);
    if (st == NCZM_OK) {
        if (!r.buf && !(r.buf = calloc(1, 1)))
            st = s3_oom(m, "read", key);
        *buf = r.buf;
        *len = r.len;
        r.buf = st == NCZM_OK ? NULL : r.buf;
        if (st != NCZM_OK)
            *buf = NULL;
    }
    s3_req_clear(&r);
    return st;
}

static nczm_status s3_write(nczm_map *map, const char *key, const void *buf, size_t len)
{
    s3_map *m = S3M(map);
    s3_drop_prefetch(m);
    if (s3_in_parts(m, len))
        return s3_multipart_put(m, key, buf, len);
    s3_req r;
    nczm_status st = s3_put_req(m, &r, key, buf, len);
    st = st == NCZM_OK ? s3_run1(m, &r) : s3_oom(m, "write", key);
    s3_req_clear(&r);
    return st;
}

static nczm_status s3_delete(nczm_map *map, const char *key)
{
    s3_map *m = S3M(map);
    s3_drop_prefetch(m);
    uint64_t len;
    nczm_status st = head(m, "delete", key, &len);
    if (st != NCZM_OK)
        return st;
    s3_req r;
    if (s3_key_req(m, &r, S3_DELETE, "delete", key, NULL) != NCZM_OK)
        return s3_oom(m, "delete", key);
    st = s3_run1(m, &r);
    s3_req_clear(&r);
    return st;
}

static const char *const s3_schemes[] = {"s3", NULL};
/* an http(s):// URL is an S3 store only when the mode says so ("#mode=nczarr,s3") */
static const char *const s3_mode_schemes[] = {"http", "https", NULL};

const nczm_driver nczm_s3_driver = {
    .kind = NCZM_KIND_S3,
    .name = "S3",
    .mode = "s3",
    .schemes = s3_schemes,
    .mode_schemes = s3_mode_schemes,
    .opt_names = nczm_s3_opt_names,
    .opt_secrets = nczm_s3_opt_secrets,
    .opt_set = nczm_s3_opt_set,
    .opt_fragment = nczm_s3_opt_fragment,
    .opt_free = nczm_s3_opt_free,
    .key_max = S3_KEY_MAX,
    .open = s3_open,
    .destroy = s3_destroy,
    .probe = s3_probe,
    .close = s3_close,
    .exists = s3_exists,
    .len = s3_len,
    .read = s3_read,
    .read_all = s3_read_all,
    .write = s3_write,
    .delete_obj = s3_delete,
    .delete_tree = s3_delete_tree,
    .search = s3_search,
    .search_many = s3_search_many,
    .get_many = s3_get_many,
    .put_many = s3_put_many,
    .commit_many = s3_put_many,
    .get_into_many = s3_get_into_many,
    .get_into = NULL,
    /* one thread at a time per map; the batches overlap requests themselves */
    .concurrent = 0,
    .map_size = sizeof(s3_map),
    .rename_tree = s3_rename_tree,
    .copy_tree = s3_copy_tree,
};
