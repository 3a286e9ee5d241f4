/* S3 batches: all the requests of a batch in flight together (cfg.conns at a time, on the
 * map's kept connections), each with its own status. The map's message names the first
 * failure and then how many failed and which keys, so a batch of 1000 chunks that fails
 * on 3 says so; objects big enough for parts go up one after the other, each in parallel
 * parts. commit_many is put_many: a PUT is atomic and durable when S3 answers it. */
#include "nczm_s3.h"

#include <stdio.h>
#include <stdlib.h>

#define REPORT_KEYS 5 /* keys a batch message names */

void s3_batch_report(s3_map *m, const char *op, size_t n, const s3_outcome *o, int notfound_ok)
{
    size_t nfail = 0, nmiss = 0;
    const s3_outcome *first = NULL;
    for (size_t i = 0; i < n; i++) {
        if (o[i].st == NCZM_OK)
            continue;
        if (notfound_ok && o[i].st == NCZM_NOTFOUND) {
            nmiss++;
        } else if (!nfail++) {
            first = &o[i];
        }
    }
    if (!nfail && !nmiss)
        return;
    char *msg = m->base.errmsg;
    size_t cap = sizeof m->base.errmsg, l;
    int failures = nfail > 0;
    size_t count = failures ? nfail : nmiss;
    if (failures) {
        snprintf(msg, cap, "%s", first->msg && first->msg[0] ? first->msg : nczm_status_str(first->st));
        if (nfail == 1)
            return;
        l = strlen(msg);
        snprintf(msg + l, cap - l, "; %zu of %zu requests failed:", nfail, n);
    } else {
        snprintf(msg, cap, "%s: %s: %zu of %zu objects not found:", m->base.location, op, nmiss, n);
    }
    size_t named = 0;
    for (size_t i = 0; i < n && named < REPORT_KEYS; i++) {
        int counts = failures ? o[i].st != NCZM_OK && !(notfound_ok && o[i].st == NCZM_NOTFOUND)
                              : o[i].st == NCZM_NOTFOUND;
        if (!counts)
            continue;
        l = strlen(msg);
        snprintf(msg + l, cap - l, "%s \"%s\"%s%s", named ? "," : "", o[i].key,
                 failures && o[i].st != first->st ? " " : "",
                 failures && o[i].st != first->st ? nczm_status_str(o[i].st) : "");
        named++;
    }
    if (count > named) {
        l = strlen(msg);
        snprintf(msg + l, cap - l, " and %zu more", count - named);
    }
}

/* The requests the dispatcher left for the driver (status NCZM_OK), and their indexes. */
static size_t pending(size_t n, const nczm_status *st, size_t stride, size_t *idx)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (*(const nczm_status *)(const void *)((const char *)st + i * stride) == NCZM_OK)
            idx[k++] = i;
    return k;
}

/* Out of memory before the batch could run: every pending request fails with it. */
static void fail_pending(size_t n, nczm_status *st, size_t stride)
{
    for (size_t i = 0; i < n; i++) {
        nczm_status *s = (nczm_status *)(void *)((char *)st + i * stride);
        if (*s == NCZM_OK)
            *s = NCZM_NOMEM;
    }
}

typedef struct batch {
    s3_req *rq;
    s3_outcome *o;
    size_t *idx;
} batch;

/* The batch of the requests of n still pending (status NCZM_OK; st is the first status,
 * stride the size of a request): *k of them, their indexes in b->idx. Out of memory, every
 * pending request fails with it. */
static nczm_status batch_start(s3_map *m, batch *b, size_t n, nczm_status *st, size_t stride, const char *op,
                               size_t *k)
{
    b->rq = calloc(n, sizeof *b->rq);
    b->o = calloc(n, sizeof *b->o);
    b->idx = malloc(n * sizeof *b->idx);
    if (b->rq && b->o && b->idx) {
        *k = pending(n, st, stride, b->idx);
        return NCZM_OK;
    }
    free(b->rq);
    free(b->o);
    free(b->idx);
    fail_pending(n, st, stride);
    return nczm_seterr(&m->base, NCZM_NOMEM, "%s: %s: out of memory for a batch of %zu", m->base.location, op,
                       n);
}

static void batch_free(batch *b, size_t k)
{
    for (size_t j = 0; j < k; j++)
        s3_req_clear(&b->rq[j]);
    free(b->rq);
    free(b->o);
    free(b->idx);
}

nczm_status s3_get_many(nczm_map *map, size_t n, nczm_get *reqs)
{
    s3_map *m = S3M(map);
    batch b;
    size_t k = 0;
    nczm_status st = batch_start(m, &b, n, &reqs[0].status, sizeof *reqs, "read", &k);
    if (st != NCZM_OK)
        return st;
    size_t nr = 0;
    for (size_t j = 0; j < k && st == NCZM_OK; j++) {
        nczm_get *g = &reqs[b.idx[j]];
        if (s3_prefetched(m, g->key))
            s3_take_prefetch(m, &g->buf, &g->len); /* open's copy: no request */
        else
            st = s3_key_req(m, &b.rq[nr++], S3_GET, "read", g->key, NULL);
    }
    if (st == NCZM_OK)
        st = s3_run(m, nr, b.rq);
    for (size_t j = 0, q = 0; j < k && st == NCZM_OK; j++) {
        nczm_get *g = &reqs[b.idx[j]];
        if (g->buf) {
            b.o[j] = (s3_outcome){g->key, NCZM_OK, NULL};
            continue;
        }
        s3_req *r = &b.rq[q++];
        if (r->st == NCZM_OK && !r->buf && !(r->buf = calloc(1, 1)))
            s3_req_fail(m, r, NCZM_NOMEM, "out of memory");
        g->status = r->st;
        if (r->st == NCZM_OK) {
            g->buf = r->buf;
            g->len = r->len;
            r->buf = NULL;
        }
        b.o[j] = (s3_outcome){g->key, r->st, r->msg};
    }
    if (st == NCZM_OK)
        s3_batch_report(m, "read", k, b.o, 1);
    else
        for (size_t j = 0; j < k; j++) {
            free(reqs[b.idx[j]].buf);
            reqs[b.idx[j]].buf = NULL;
            reqs[b.idx[j]].status = NCZM_NOMEM;
        }
    batch_free(&b, nr);
    return st == NCZM_OK ? NCZM_OK : nczm_seterr(&m->base, st, "%s: read: out of memory", m->base.location);
}

nczm_status s3_put_many(nczm_map *map, size_t n, nczm_put *reqs)
{
    s3_map *m = S3M(map);
    s3_drop_prefetch(m);
    batch b;
    size_t k = 0;
    nczm_status st = batch_start(m, &b, n, &reqs[0].status, sizeof *reqs, "write", &k);
    if (st != NCZM_OK)
        return st;
    size_t nr = 0;
    /* small objects in one run; big ones in parts afterwards, their messages kept here */
    char **bigmsg = calloc(k ? k : 1, sizeof *bigmsg);
    if (!bigmsg)
        st = NCZM_NOMEM;
    for (size_t j = 0; j < k && st == NCZM_OK; j++) {
        nczm_put *p = &reqs[b.idx[j]];
        if (s3_in_parts(m, p->len))
            continue;
        st = s3_put_req(m, &b.rq[nr++], p->key, p->buf ? p->buf : "", p->len);
    }
    if (st == NCZM_OK)
        st = s3_run(m, nr, b.rq);
    size_t r = 0;
    for (size_t j = 0; j < k && st == NCZM_OK; j++) {
        nczm_put *p = &reqs[b.idx[j]];
        if (s3_in_parts(m, p->len)) {
            p->status = s3_multipart_put(m, p->key, p->buf, p->len);
            if (p->status != NCZM_OK)
                bigmsg[j] = strdup(m->base.errmsg); /* NULL: the report gives the status's words */
            b.o[j] = (s3_outcome){p->key, p->status, bigmsg[j]};
            continue;
        }
        p->status = b.rq[r].st;
        b.o[j] = (s3_outcome){p->key, p->status, b.rq[r].msg};
        r++;
    }
    if (st == NCZM_OK)
        s3_batch_report(m, "write", k, b.o, 0);
    else
        for (size_t j = 0; j < k; j++)
            reqs[b.idx[j]].status = NCZM_NOMEM;
    for (size_t j = 0; bigmsg && j < k; j++)
        free(bigmsg[j]);
    free(bigmsg);
    batch_free(&b, nr);
    return st == NCZM_OK ? NCZM_OK : nczm_seterr(&m->base, st, "%s: write: out of memory", m->base.location);
}

nczm_status s3_get_into_many(nczm_map *map, size_t n, nczm_getinto *reqs)
{
    s3_map *m = S3M(map);
    batch b;
    size_t k = 0;
    nczm_status st = batch_start(m, &b, n, &reqs[0].status, sizeof *reqs, "read", &k);
    if (st != NCZM_OK)
        return st;
    size_t nr = 0, pre = SIZE_MAX;
    char premsg[NCZM_ERRLEN] = "";
    for (size_t j = 0; j < k && st == NCZM_OK; j++) {
        nczm_getinto *g = &reqs[b.idx[j]];
        if (s3_prefetched(m, g->key)) {
            /* answered from open's copy, without a request */
            pre = j;
            g->len = m->pre_len;
            g->status = m->pre_len > g->cap ? NCZM_LONG : NCZM_OK;
            if (g->status == NCZM_OK && m->pre_len)
                memcpy(g->buf, m->pre_buf, m->pre_len);
            else if (g->status != NCZM_OK) {
                nczm_long_err(&m->base, g->key, m->pre_len, g->cap);
                memcpy(premsg, m->base.errmsg, sizeof premsg);
            }
            continue;
        }
        s3_req *r = &b.rq[nr++];
        st = s3_key_req(m, r, S3_GET, "read", g->key, NULL);
        r->fixed = 1;
        r->dst = g->buf;
        r->cap = g->cap;
    }
    if (st == NCZM_OK)
        st = s3_run(m, nr, b.rq);
    for (size_t j = 0, q = 0; j < k && st == NCZM_OK; j++) {
        nczm_getinto *g = &reqs[b.idx[j]];
        if (j == pre) {
            b.o[j] = (s3_outcome){g->key, g->status, premsg};
            continue;
        }
        s3_req *r = &b.rq[q++];
        g->status = r->st;
        if (r->st == NCZM_OK)
            g->len = r->got;
        else if (r->st == NCZM_LONG)
            g->len = r->have_clen && r->clen < SIZE_MAX ? (size_t)r->clen : SIZE_MAX;
        b.o[j] = (s3_outcome){g->key, r->st, r->msg};
    }
    if (st == NCZM_OK)
        s3_batch_report(m, "read", k, b.o, 1);
    else
        for (size_t j = 0; j < k; j++)
            reqs[b.idx[j]].status = NCZM_NOMEM;
    batch_free(&b, nr);
    return st == NCZM_OK ? NCZM_OK : nczm_seterr(&m->base, st, "%s: read: out of memory", m->base.location);
}
