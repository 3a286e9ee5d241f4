/* Running S3 requests: one curl multi handle per map, at most cfg.conns transfers at a
 * time, easy handles (and through the multi handle, their connections) kept for the next
 * call. A failure that may pass (5xx, 429, a dropped, refused or stalled connection) is
 * tried again after an exponential backoff with jitter, for at most cfg.retry_ms from the
 * request's first attempt; a refused connection to a server that has never answered this
 * map only for cfg.connect_ms, as a server that is not there will not appear. Everything
 * runs in the calling thread: a map is used by one thread at a time. */
#include "nczm_s3.h"

#include <libxml/parser.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define S3_MAX_ATTEMPTS 30
#define S3_BACKOFF_MIN  0.1 /* seconds before the first retry (with jitter: 0.05-0.1) */
#define S3_BACKOFF_MAX  5.0

static pthread_once_t global_once = PTHREAD_ONCE_INIT;
static char global_why[256];

/* Loading libcurl, curl_global_init (not safe to race with another thread's curl calls)
 * and libxml2's parser initialisation: once per process. None is ever undone, as another
 * library in the process may use them too. */
static void global_init(void)
{
    if (s3_curl_load(global_why, sizeof global_why) != 0)
        return;
    CURLcode rc = curl_global_init(CURL_GLOBAL_DEFAULT);
    if (rc != CURLE_OK)
        snprintf(global_why, sizeof global_why, "libcurl initialisation failed: %s", curl_easy_strerror(rc));
    xmlInitParser();
}

nczm_status s3_global_init(char errmsg[NCZM_ERRLEN])
{
    pthread_once(&global_once, global_init);
    if (global_why[0])
        return nczm_fmterr(errmsg, NCZM_UNSUPPORTED, "S3 stores need libcurl: %s", global_why);
    curl_version_info_data *v = curl_version_info(CURLVERSION_NOW);
    if (!v || v->version_num < 0x074b00)
        return nczm_fmterr(errmsg, NCZM_UNSUPPORTED, "S3 needs libcurl 7.75 or newer (AWS SigV4), this is %s",
                           v ? v->version : "unknown");
    return NCZM_OK;
}

nczm_status s3_pool_init(s3_map *m, char errmsg[NCZM_ERRLEN])
{
    m->multi = curl_multi_init();
    m->idle = calloc(m->cfg.conns, sizeof *m->idle);
    if (!m->multi || !m->idle)
        return nczm_fmterr(errmsg, NCZM_NOMEM, "%s: out of memory", m->base.location);
    curl_multi_setopt(m->multi, CURLMOPT_MAX_TOTAL_CONNECTIONS, (long)m->cfg.conns);
    curl_multi_setopt(m->multi, CURLMOPT_MAXCONNECTS, (long)m->cfg.conns);
    m->seed = (unsigned)time(NULL) ^ (unsigned)(uintptr_t)m;
    return NCZM_OK;
}

void s3_pool_free(s3_map *m)
{
    for (unsigned i = 0; i < m->nidle; i++)
        curl_easy_cleanup(m->idle[i]);
    free(m->idle);
    m->idle = NULL;
    m->nidle = 0;
    if (m->multi)
        curl_multi_cleanup(m->multi);
    m->multi = NULL;
}

static CURL *get_easy(s3_map *m)
{
    if (m->nidle) {
        CURL *e = m->idle[--m->nidle];
        curl_easy_reset(e);
        return e;
    }
    return curl_easy_init();
}

static void put_easy(s3_map *m, CURL *e)
{
    if (m->nidle < m->cfg.conns)
        m->idle[m->nidle++] = e;
    else
        curl_easy_cleanup(e);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Backoff before attempt a+1: 0.1 s doubling to 5 s, times a random 0.5-1 so that many
 * requests failing together do not come back together. */
static double backoff(s3_map *m, unsigned a)
{
    double d = S3_BACKOFF_MIN;
    for (unsigned i = 1; i < a && d < S3_BACKOFF_MAX; i++)
        d *= 2;
    if (d > S3_BACKOFF_MAX)
        d = S3_BACKOFF_MAX;
    return d * (0.5 + 0.5 * (double)rand_r(&m->seed) / (double)RAND_MAX);
}

/* Starts an attempt; 0 when it is under way, else the request has failed for good. */
static int start(s3_map *m, s3_req *r, double t)
{
    if (!r->attempts)
        r->first = t;
    r->easy = get_easy(m);
    nczm_status st = r->easy ? s3_req_setup(m, r) : NCZM_NOMEM;
    if (st == NCZM_OK && curl_multi_add_handle(m->multi, r->easy) == CURLM_OK)
        return 0;
    s3_req_fail(m, r, st == NCZM_OK ? NCZM_IO : st, "%s",
                st == NCZM_NOMEM ? "out of memory" : "the request could not be set up");
    if (r->easy)
        put_easy(m, r->easy);
    r->easy = NULL;
    return -1;
}

/* An attempt has ended: 1 when the request is to be tried again at r->next. */
static int finished(s3_map *m, s3_req *r, CURLcode cc, double t)
{
    r->cc = cc;
    r->attempts++;
    m->base.requests++;
    curl_multi_remove_handle(m->multi, r->easy);
    put_easy(m, r->easy);
    r->easy = NULL;
    if (r->http)
        m->answered = 1;
    if (s3_req_retryable(m, r) && r->attempts < S3_MAX_ATTEMPTS) {
        double d = backoff(m, r->attempts);
        unsigned budget = cc == CURLE_COULDNT_CONNECT && !m->answered ? m->cfg.connect_ms : m->cfg.retry_ms;
        /* the last try comes at the end of the budget rather than not at all */
        double left = (double)budget / 1000.0 - (t - r->first);
        if (d > left && left >= 0.05)
            d = left;
        if (d <= left) {
            r->next = t + d;
            return 1;
        }
    }
    s3_req_judge(m, r);
    return 0;
}

nczm_status s3_run(s3_map *m, size_t n, s3_req *reqs)
{
    if (!n)
        return NCZM_OK;
    size_t *retry = malloc(n * sizeof *retry);
    if (!retry) {
        for (size_t i = 0; i < n; i++)
            s3_req_fail(m, &reqs[i], NCZM_NOMEM, "out of memory");
        return NCZM_NOMEM;
    }
    size_t fresh = 0, nretry = 0, active = 0;
    for (size_t i = 0; i < n; i++)
        reqs[i].attempts = 0, reqs[i].sha[0] = '\0';
    while (fresh < n || nretry || active) {
        double t = now_s();
        /* due retries first (they are older), then new requests in order */
        for (size_t k = 0; k < nretry && active < m->cfg.conns;) {
            s3_req *r = &reqs[retry[k]];
            if (r->next > t) {
                k++;
                continue;
            }
            retry[k] = retry[--nretry];
            if (start(m, r, t) == 0)
                active++;
        }
        while (fresh < n && active < m->cfg.conns)
            if (start(m, &reqs[fresh++], t) == 0)
                active++;
        int running = 0;
        curl_multi_perform(m->multi, &running);
        CURLMsg *msg;
        int left;
        while ((msg = curl_multi_info_read(m->multi, &left)) != NULL) {
            if (msg->msg != CURLMSG_DONE)
                continue;
            s3_req *r = NULL;
            curl_easy_getinfo(msg->easy_handle, CURLINFO_PRIVATE, (char **)&r);
            active--;
            t = now_s();
            if (finished(m, r, msg->data.result, t))
                retry[nretry++] = (size_t)(r - reqs);
        }
        if (!active && !nretry && fresh >= n)
            break;
        /* sleep until curl has something, or a slot is free and a retry is due */
        double wait = 1.0;
        if (active < m->cfg.conns) {
            if (fresh < n)
                wait = 0;
            for (size_t k = 0; k < nretry; k++)
                if (reqs[retry[k]].next - t < wait)
                    wait = reqs[retry[k]].next - t;
        }
        if (wait > 0)
            curl_multi_poll(m->multi, NULL, 0, (int)(wait * 1000) + 1, NULL);
    }
    free(retry);
    return NCZM_OK;
}

nczm_status s3_run1(s3_map *m, s3_req *r)
{
    nczm_status st = s3_run(m, 1, r);
    if (st == NCZM_OK)
        st = r->st;
    if (st != NCZM_OK)
        snprintf(m->base.errmsg, sizeof m->base.errmsg, "%s", r->msg);
    return st;
}
