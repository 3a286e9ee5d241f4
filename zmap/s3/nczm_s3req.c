/* One S3 request: the curl handle of an attempt, its callbacks, and what its answer means.
 *
 * Signing is libcurl's (CURLOPT_AWS_SIGV4). What libcurl 7.88 leaves to the caller, each a
 * 403 otherwise: the x-amz-content-sha256 header (the SHA-256 of the body in hex, or
 * UNSIGNED-PAYLOAD over https, where TLS protects the body), a query already in canonical
 * order with its values encoded, a percent-encoded path kept as given
 * (CURLOPT_PATH_AS_IS). The Expect: header stays as curl makes it: curl would still sign
 * a blanked one. Nothing is printed: CURLOPT_VERBOSE stays off, so the secret key (in
 * curl's handle only) and the signed headers never reach a log. */
#include "nczm_s3.h"

#include <ctype.h>
#include <openssl/sha.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

void s3_req_clear(s3_req *r)
{
    free(r->url);
    for (int i = 0; i < 3; i++)
        free(r->hdr[i]);
    free(r->buf);
    if (r->hl)
        curl_slist_free_all(r->hl);
    memset(r, 0, sizeof *r);
}

nczm_status s3_req_header(s3_req *r, const char *fmt, ...)
{
    int i = 0;
    while (i < 3 && r->hdr[i])
        i++;
    if (i == 3)
        return NCZM_INVAL;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0 || !(r->hdr[i] = malloc((size_t)n + 1)))
        return NCZM_NOMEM;
    va_start(ap, fmt);
    vsnprintf(r->hdr[i], (size_t)n + 1, fmt, ap);
    va_end(ap);
    return NCZM_OK;
}

/* Appends to the body buffer; error bodies are cut at S3_ERRBODY_MAX (only their code and
 * message matter), success bodies grow as needed (their size was announced, and is what
 * the caller asked to read). */
static int buf_append(s3_req *r, const char *p, size_t n, int is_error)
{
    if (is_error && r->len + n > S3_ERRBODY_MAX)
        n = r->len < S3_ERRBODY_MAX ? S3_ERRBODY_MAX - r->len : 0;
    if (r->len + n + 1 > r->bufcap) {
        size_t nc = r->bufcap ? r->bufcap : 4096;
        while (nc < r->len + n + 1)
            nc *= 2;
        char *nb = realloc(r->buf, nc);
        if (!nb)
            return -1;
        r->buf = nb;
        r->bufcap = nc;
    }
    memcpy(r->buf + r->len, p, n);
    r->len += n;
    r->buf[r->len] = '\0';
    return 0;
}

static int is_success(long http)
{
    return http >= 200 && http < 300;
}

static size_t on_body(char *p, size_t size, size_t nmemb, void *arg)
{
    s3_req *r = arg;
    size_t n = size * nmemb;
    if (!is_success(r->http) || !r->fixed)
        return buf_append(r, p, n, !is_success(r->http)) == 0 ? n : 0;
    size_t take = n;
    if (r->ranged && r->http == 200 && r->skip) {
        size_t drop = r->skip < take ? (size_t)r->skip : take;
        r->skip -= drop;
        p += drop;
        take -= drop;
    }
    if (take > r->cap - r->got) {
        size_t room = r->cap - r->got;
        if (room)
            memcpy((char *)r->dst + r->got, p, room);
        r->got += room;
        if (r->ranged && r->http == 200)
            r->range_done = 1;
        else
            r->too_long = 1;
        return 0; /* stops the transfer: the rest is not wanted */
    }
    if (take)
        memcpy((char *)r->dst + r->got, p, take);
    r->got += take;
    return n;
}

static uint64_t parse_u64(const char *s, const char **end)
{
    uint64_t v = 0;
    while (isdigit((unsigned char)*s) && v <= (UINT64_MAX - 9) / 10)
        v = v * 10 + (uint64_t)(*s++ - '0');
    *end = s;
    return v;
}

static size_t on_header(char *p, size_t size, size_t nmemb, void *arg)
{
    s3_req *r = arg;
    size_t n = size * nmemb;
    char line[256];
    size_t l = n < sizeof line - 1 ? n : sizeof line - 1;
    memcpy(line, p, l);
    line[l] = '\0';
    while (l && (line[l - 1] == '\r' || line[l - 1] == '\n'))
        line[--l] = '\0';
    const char *end;
    if (strncmp(line, "HTTP/", 5) == 0) {
        /* a new answer (after a 100 Continue, or a retry): forget the last one's headers */
        const char *sp = strchr(line, ' ');
        r->http = sp ? (long)parse_u64(sp + 1, &end) : 0;
        r->have_clen = r->have_total = 0;
        r->etag[0] = '\0';
        return n;
    }
    if (strncasecmp(line, "content-length:", 15) == 0) {
        const char *v = line + 15;
        while (*v == ' ')
            v++;
        r->clen = parse_u64(v, &end);
        r->have_clen = end > v;
        if (r->have_clen && is_success(r->http) && r->fixed && !r->ranged && r->clen > r->cap) {
            r->too_long = 1;
            return 0; /* no need to fetch what will not fit */
        }
        if (r->have_clen && is_success(r->http) && !r->fixed && r->method != S3_HEAD &&
            r->clen < SIZE_MAX - 1 && r->clen + 1 > r->bufcap) {
            char *nb = realloc(r->buf, (size_t)r->clen + 1);
            if (nb) {
                r->buf = nb;
                r->bufcap = (size_t)r->clen + 1;
            }
        }
    } else if (strncasecmp(line, "content-range:", 14) == 0) {
        const char *slash = strchr(line, '/');
        if (slash && isdigit((unsigned char)slash[1])) {
            r->total = parse_u64(slash + 1, &end);
            r->have_total = 1;
        }
    } else if (strncasecmp(line, "etag:", 5) == 0) {
        const char *v = line + 5;
        while (*v == ' ')
            v++;
        snprintf(r->etag, sizeof r->etag, "%.*s", (int)sizeof r->etag - 1, v);
    }
    return n;
}

static size_t on_read(char *p, size_t size, size_t nmemb, void *arg)
{
    s3_req *r = arg;
    size_t n = size * nmemb, left = r->body_len - r->sent;
    if (n > left)
        n = left;
    memcpy(p, (const char *)r->body + r->sent, n);
    r->sent += n;
    return n;
}

/* curl rewinds an upload it must send again (a connection that closed under it). */
static int on_seek(void *arg, curl_off_t off, int origin)
{
    s3_req *r = arg;
    if (origin != SEEK_SET || off < 0 || (uint64_t)off > r->body_len)
        return CURL_SEEKFUNC_CANTSEEK;
    r->sent = (size_t)off;
    return CURL_SEEKFUNC_OK;
}

static void payload_hash(const s3_map *m, s3_req *r)
{
    if (r->sha[0])
        return;
    if (!r->body_len && r->method != S3_PUT && r->method != S3_POST) {
        memcpy(r->sha, S3_EMPTY_SHA256, sizeof S3_EMPTY_SHA256);
        return;
    }
    if (m->cfg.https && r->method == S3_PUT) {
        snprintf(r->sha, sizeof r->sha, "UNSIGNED-PAYLOAD");
        return;
    }
    unsigned char d[SHA256_DIGEST_LENGTH];
    SHA256(r->body_len ? r->body : (const void *)"", r->body_len, d);
    for (int i = 0; i < SHA256_DIGEST_LENGTH; i++)
        snprintf(r->sha + 2 * i, 3, "%02x", d[i]);
}

#define SETOPT(e, o, v)                                                                                      \
    do {                                                                                                     \
        if (curl_easy_setopt((e), (o), (v)) != CURLE_OK)                                                     \
            bad = 1;                                                                                         \
    } while (0)

nczm_status s3_req_setup(s3_map *m, s3_req *r)
{
    CURL *e = r->easy;
    const s3_cfg *c = &m->cfg;
    int bad = 0;
    r->http = 0;
    r->len = r->got = r->sent = 0;
    r->have_clen = r->have_total = r->too_long = r->range_done = 0;
    r->etag[0] = r->cerr[0] = '\0';
    r->cc = CURLE_OK;
    if (r->buf)
        r->buf[0] = '\0';
    if (r->hl) {
        curl_slist_free_all(r->hl);
        r->hl = NULL;
    }
    payload_hash(m, r);

    char h[96];
    snprintf(h, sizeof h, "x-amz-content-sha256: %s", r->sha);
    struct curl_slist *hl = curl_slist_append(NULL, h), *t;
    if (hl && c->token_hdr && (t = curl_slist_append(hl, c->token_hdr)) != NULL)
        hl = t;
    else if (c->token_hdr)
        bad = 1;
    for (int i = 0; hl && i < 3 && r->hdr[i]; i++)
        if ((t = curl_slist_append(hl, r->hdr[i])) != NULL)
            hl = t;
        else
            bad = 1;
    if (!hl || bad) {
        if (hl)
            curl_slist_free_all(hl);
        return NCZM_NOMEM;
    }
    r->hl = hl;

    SETOPT(e, CURLOPT_URL, r->url);
    SETOPT(e, CURLOPT_PATH_AS_IS, 1L);
    SETOPT(e, CURLOPT_NOSIGNAL, 1L);
    SETOPT(e, CURLOPT_PROTOCOLS_STR, "http,https");
    SETOPT(e, CURLOPT_ERRORBUFFER, r->cerr);
    SETOPT(e, CURLOPT_PRIVATE, r);
    SETOPT(e, CURLOPT_HTTPHEADER, hl);
    /* a dead or stopped server: a bounded wait for the connection and for every byte */
    SETOPT(e, CURLOPT_CONNECTTIMEOUT_MS, (long)(c->stall_s < 10 ? c->stall_s : 10) * 1000L);
    SETOPT(e, CURLOPT_LOW_SPEED_LIMIT, 1L);
    SETOPT(e, CURLOPT_LOW_SPEED_TIME, (long)c->stall_s);
    SETOPT(e, CURLOPT_TCP_KEEPALIVE, 1L);
    SETOPT(e, CURLOPT_BUFFERSIZE, 256L * 1024);
    if (c->cainfo)
        SETOPT(e, CURLOPT_CAINFO, c->cainfo);
    if (c->sigv4) {
        SETOPT(e, CURLOPT_AWS_SIGV4, c->sigv4);
        SETOPT(e, CURLOPT_USERNAME, c->access);
        SETOPT(e, CURLOPT_PASSWORD, c->secret);
    }
    SETOPT(e, CURLOPT_WRITEFUNCTION, on_body);
    SETOPT(e, CURLOPT_WRITEDATA, r);
    SETOPT(e, CURLOPT_HEADERFUNCTION, on_header);
    SETOPT(e, CURLOPT_HEADERDATA, r);
    switch (r->method) {
    case S3_GET:
        SETOPT(e, CURLOPT_HTTPGET, 1L);
        break;
    case S3_HEAD:
        SETOPT(e, CURLOPT_NOBODY, 1L);
        break;
    case S3_PUT:
        SETOPT(e, CURLOPT_UPLOAD, 1L);
        SETOPT(e, CURLOPT_INFILESIZE_LARGE, (curl_off_t)r->body_len);
        break;
    case S3_POST:
        SETOPT(e, CURLOPT_POST, 1L);
        SETOPT(e, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)r->body_len);
        break;
    case S3_DELETE:
        SETOPT(e, CURLOPT_CUSTOMREQUEST, "DELETE");
        break;
    }
    if (r->method == S3_PUT || r->method == S3_POST) {
        SETOPT(e, CURLOPT_READFUNCTION, on_read);
        SETOPT(e, CURLOPT_READDATA, r);
        SETOPT(e, CURLOPT_SEEKFUNCTION, on_seek);
        SETOPT(e, CURLOPT_SEEKDATA, r);
    }
    return bad ? NCZM_INVAL : NCZM_OK;
}

static const char *method_name(s3_method m)
{
    static const char *const names[] = {"GET", "HEAD", "PUT", "POST", "DELETE"};
    return names[m];
}

/* The S3 error code and message of an answer, when its body has them. */
static void answer_code(const s3_req *r, char *code, size_t codelen, char *msg, size_t msglen)
{
    code[0] = msg[0] = '\0';
    if (r->buf && r->len)
        s3_xml_error(r->buf, r->len, code, codelen, msg, msglen);
}

void s3_req_fail(s3_map *m, s3_req *r, nczm_status st, const char *fmt, ...)
{
    char what[NCZM_ERRLEN], u[300];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    s3_url_display(r->url ? r->url : "", u, sizeof u);
    /* a message longer than NCZM_ERRLEN is cut, keeping its start */
    char full[3 * NCZM_ERRLEN];
    snprintf(full, sizeof full, "%s: %s \"%s\": %s (%s %s)", m->base.location, r->op ? r->op : "request",
             r->key ? r->key : "", what, method_name(r->method), u);
    snprintf(r->msg, sizeof r->msg, "%.*s", (int)sizeof r->msg - 1, full);
    r->st = st;
}

int s3_req_retryable(const s3_map *m, const s3_req *r)
{
    if (r->too_long || r->range_done)
        return 0;
    switch (r->cc) {
    case CURLE_OK:
        break;
    case CURLE_COULDNT_CONNECT:
    case CURLE_OPERATION_TIMEDOUT:
    case CURLE_SEND_ERROR:
    case CURLE_RECV_ERROR:
    case CURLE_GOT_NOTHING:
    case CURLE_PARTIAL_FILE:
    case CURLE_HTTP2:
    case CURLE_HTTP2_STREAM:
        return 1;
    default:
        return 0;
    }
    if (r->http == 429 || r->http == 500 || r->http == 502 || r->http == 503 || r->http == 504)
        return 1;
    if (r->http == 400 && r->buf && strstr(r->buf, "<Code>RequestTimeout</Code>"))
        return 1;
    (void)m;
    return 0;
}

void s3_req_judge(s3_map *m, s3_req *r)
{
    r->st = NCZM_OK;
    r->msg[0] = '\0';
    if (r->range_done && r->cc == CURLE_WRITE_ERROR)
        r->cc = CURLE_OK;
    if (r->too_long) {
        uint64_t len = r->have_clen ? r->clen : r->got;
        s3_req_fail(m, r, NCZM_LONG, "the object is %llu bytes, more than the %zu expected",
                    (unsigned long long)len, r->cap);
        return;
    }
    if (r->cc == CURLE_WRITE_ERROR) {
        /* the callbacks refuse data only when the answer's buffer cannot grow */
        s3_req_fail(m, r, NCZM_NOMEM, "out of memory for the answer (%llu bytes)",
                    (unsigned long long)(r->have_clen ? r->clen : r->len));
        return;
    }
    if (r->cc != CURLE_OK) {
        char tries[48] = "";
        if (r->attempts > 1)
            snprintf(tries, sizeof tries, "; gave up after %u attempts", r->attempts);
        s3_req_fail(m, r, NCZM_IO, "%s%s%.*s%s%s", curl_easy_strerror(r->cc), r->cerr[0] ? " (" : "", 200,
                    r->cerr, r->cerr[0] ? ")" : "", tries);
        return;
    }
    if (is_success(r->http)) {
        /* the buffer may have been sized from Content-Length and not written since */
        if (r->buf && r->bufcap > r->len)
            r->buf[r->len] = '\0';
        return;
    }
    char code[64], smsg[200];
    answer_code(r, code, sizeof code, smsg, sizeof smsg);
    nczm_status st = NCZM_IO;
    const char *hint = "";
    char credhint[200];
    switch (r->http) {
    case 404:
        st = NCZM_NOTFOUND;
        if (strcmp(code, "NoSuchBucket") == 0)
            hint = " (the bucket does not exist)";
        else if (!code[0])
            hint = " (no such object)";
        break;
    case 401:
    case 403:
        st = NCZM_PERM;
        if (!code[0] && r->method == S3_HEAD)
            hint = " (a HEAD answer has no body to say why: a wrong access or secret key, or no permission)";
        snprintf(credhint, sizeof credhint, "%s; credentials: %s", hint,
                 m->cfg.cred_from ? m->cfg.cred_from : "?");
        hint = credhint;
        break;
    case 416:
        st = NCZM_SHORT;
        break;
    case 400:
    case 301:
    case 307:
        st = NCZM_INVAL;
        if (r->http != 400)
            hint = " (the bucket is in another region or at another endpoint)";
        break;
    default:
        break;
    }
    char tries[48] = "";
    if (r->attempts > 1)
        snprintf(tries, sizeof tries, "; gave up after %u attempts", r->attempts);
    s3_req_fail(m, r, st, "HTTP %ld%s%s%s%s%s%s", r->http, code[0] ? " " : "", code, smsg[0] ? ": " : "",
                smsg, hint, tries);
}
