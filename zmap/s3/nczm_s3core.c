/* What the S3 store's files share (nczm_s3.h): requests on a key, the prefetched object,
 * out-of-memory errors. */
#include "nczm_s3.h"
#include <stdio.h>
#include <stdlib.h>

void s3_drop_prefetch(s3_map *m)
{
    free(m->pre_buf);
    m->pre_buf = NULL;
    m->pre_len = 0;
    m->have_pre = 0;
    m->pre_key = NULL;
}

nczm_status s3_key_req(s3_map *m, s3_req *r, s3_method method, const char *op, const char *key,
                       const char *query)
{
    memset(r, 0, sizeof *r);
    r->method = method;
    r->op = op;
    r->key = key;
    r->url = s3_key_url(m, key, query);
    return r->url ? NCZM_OK : NCZM_NOMEM;
}

nczm_status s3_oom(s3_map *m, const char *op, const char *key)
{
    return nczm_seterr(&m->base, NCZM_NOMEM, "%s: %s \"%s\": out of memory", m->base.location, op, key);
}

int s3_prefetched(const s3_map *m, const char *key)
{
    return m->have_pre && m->pre_key && strcmp(key, m->pre_key) == 0;
}

void s3_take_prefetch(s3_map *m, void **buf, size_t *len)
{
    *buf = m->pre_buf;
    *len = m->pre_len;
    m->pre_buf = NULL;
    s3_drop_prefetch(m);
}

nczm_status s3_put_req(s3_map *m, s3_req *r, const char *key, const void *buf, size_t len)
{
    nczm_status st = s3_key_req(m, r, S3_PUT, "write", key, NULL);
    r->body = buf;
    r->body_len = len;
    return st;
}
