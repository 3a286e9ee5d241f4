/* The S3 store's internals, shared by its source files (internal to zmap/):
 *   nczm_s3opts.c   the options a store name carries (nczm_s3opts.h), set by name or from
 *                   its fragment
 *   nczm_s3cfg.c    names (s3://, path style, virtual host), options, URLs and key encoding
 *   nczm_s3cred.c   credentials, region and CA from the environment and the AWS files
 *   nczm_s3req.c    one request: curl handle set-up, SigV4, callbacks, status and message
 *   nczm_s3run.c    running requests: curl multi, bounded connections, retries with backoff
 *   nczm_s3curl.c   libcurl, loaded when the first S3 store opens
 *   nczm_s3xml.c    the XML S3 answers with (libxml2)
 *   nczm_s3.c       the driver: open/create/destroy/probe and single-object calls
 *   nczm_s3batch.c  the batches (get_many, put_many, get_into_many) and their messages
 *   nczm_s3tree.c   listing, delete_tree, rename_tree, copy_tree
 *   nczm_s3mpu.c    multipart upload
 *
 * A map is used by one thread at a time; maps share nothing but curl's and libxml2's global
 * initialisation (done once). No call here prints anything: secrets (the secret key, the
 * session token) live only in s3_cfg and curl's handles, and messages are built from the
 * store's name, keys, HTTP statuses and S3 error codes. */
#ifndef NCZM_S3_H
#define NCZM_S3_H

#include "nczm_impl.h"
#include "nczm_s3opts.h"

/* curl's type-checking macros would stand in the way of the calls through s3_curl below */
#define CURL_DISABLE_TYPECHECK
#include <curl/curl.h>
#include <stdint.h>

/* libcurl's functions, found in libcurl when the first S3 store opens (nczm_s3curl.c). The
 * macros make the calls below read as plain curl calls. */
typedef struct s3_curl_api {
    CURLcode (*global_init)(long);
    curl_version_info_data *(*version_info)(CURLversion);
    CURL *(*easy_init)(void);
    void (*easy_cleanup)(CURL *);
    void (*easy_reset)(CURL *);
    CURLcode (*easy_setopt)(CURL *, CURLoption, ...);
    CURLcode (*easy_getinfo)(CURL *, CURLINFO, ...);
    const char *(*easy_strerror)(CURLcode);
    struct curl_slist *(*slist_append)(struct curl_slist *, const char *);
    void (*slist_free_all)(struct curl_slist *);
    CURLM *(*multi_init)(void);
    CURLMcode (*multi_cleanup)(CURLM *);
    CURLMcode (*multi_setopt)(CURLM *, CURLMoption, ...);
    CURLMcode (*multi_add_handle)(CURLM *, CURL *);
    CURLMcode (*multi_remove_handle)(CURLM *, CURL *);
    CURLMcode (*multi_perform)(CURLM *, int *);
    CURLMcode (*multi_poll)(CURLM *, struct curl_waitfd[], unsigned int, int, int *);
    CURLMsg *(*multi_info_read)(CURLM *, int *);
} s3_curl_api;
extern s3_curl_api s3_curl;
/* Loads libcurl (once: s3_global_init calls it); -1 with why set when it cannot. */
int s3_curl_load(char *why, size_t whylen);
/* curl.h makes these macros of themselves when type checks are off */
#undef curl_easy_setopt
#undef curl_easy_getinfo
#undef curl_multi_setopt
#define curl_global_init         s3_curl.global_init
#define curl_version_info        s3_curl.version_info
#define curl_easy_init           s3_curl.easy_init
#define curl_easy_cleanup        s3_curl.easy_cleanup
#define curl_easy_reset          s3_curl.easy_reset
#define curl_easy_setopt         s3_curl.easy_setopt
#define curl_easy_getinfo        s3_curl.easy_getinfo
#define curl_easy_strerror       s3_curl.easy_strerror
#define curl_slist_append        s3_curl.slist_append
#define curl_slist_free_all      s3_curl.slist_free_all
#define curl_multi_init          s3_curl.multi_init
#define curl_multi_cleanup       s3_curl.multi_cleanup
#define curl_multi_setopt        s3_curl.multi_setopt
#define curl_multi_add_handle    s3_curl.multi_add_handle
#define curl_multi_remove_handle s3_curl.multi_remove_handle
#define curl_multi_perform       s3_curl.multi_perform
#define curl_multi_poll          s3_curl.multi_poll
#define curl_multi_info_read     s3_curl.multi_info_read

#define S3_KEY_MAX      1024                /* S3's limit on a whole key, the root prefix included */
#define S3_SINGLE_MAX   ((uint64_t)5 << 30) /* the largest single PUT or CopyObject */
#define S3_PART_MIN     ((size_t)5 << 20)   /* the smallest part but the last */
#define S3_PARTS_MAX    10000
#define S3_ERRBODY_MAX  ((size_t)1 << 20) /* an error answer longer than this is cut */
#define S3_EMPTY_SHA256 "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

/* Everything a request needs, resolved once when the map opens (nczm_s3cfg.c). */
typedef struct s3_cfg {
    char *base; /* URL of the bucket, no trailing '/': "http://h:p/bucket" (path style) or
                   "https://bucket.s3.region.amazonaws.com" (virtual host) */
    char *bucket;
    char *root;     /* root prefix: no leading or trailing '/', "" at the bucket's root */
    char *key_base; /* "<base>/<root encoded>/" ("<base>/" at the bucket's root): every
                       key URL starts with it */
    size_t key_base_len;
    char *region;
    char *sigv4;           /* "aws:amz:<region>:s3" for CURLOPT_AWS_SIGV4; NULL when anonymous */
    char *access;          /* access key id; NULL when anonymous */
    char *secret;          /* secret access key; NULL when anonymous. Wiped when freed. */
    char *token_hdr;       /* "x-amz-security-token: ..." or NULL. Wiped when freed. */
    char *cainfo;          /* CA bundle or NULL */
    const char *cred_from; /* where the credentials came from, for messages */
    int https;
    uint64_t mpu_threshold; /* objects this big or bigger go up in parts */
    size_t part_size;
    unsigned max_keys;   /* per listing request */
    unsigned conns;      /* requests in flight */
    unsigned retry_ms;   /* how long a failing request is retried */
    unsigned connect_ms; /* connection retries while the server never answered this map */
    unsigned stall_s;    /* a transfer moving no byte for this long fails (and is retried) */
} s3_cfg;

/* Fills cfg from a parsed URL, its options, the environment and the AWS files. On failure
 * cfg holds nothing to free and errmsg says why (never quoting a secret). */
nczm_status s3_cfg_init(const nczm_url *url, s3_cfg *cfg, char errmsg[NCZM_ERRLEN]);
void s3_cfg_clear(s3_cfg *cfg);

/* Credentials, region, endpoint and CA bundle from the AWS environment variables and files
 * (nczm_s3cred.c), for what the URL's options leave unset. All strings malloc'ed or NULL. */
typedef struct s3_env {
    char *access, *secret, *token; /* all NULL: anonymous */
    char *region;
    char *endpoint;
    char *cainfo;
    const char *from; /* "options", "environment", "profile \"x\" in <file>", "none" */
} s3_env;
nczm_status s3_env_resolve(const nczm_url *url, s3_env *env, char errmsg[NCZM_ERRLEN]);
void s3_env_clear(s3_env *env);

typedef struct s3_map {
    nczm_map base; /* must stay first: the dispatcher frees the block through it */
    s3_cfg cfg;
    CURLM *multi;
    CURL **idle; /* easy handles kept for reuse (their connections live in multi) */
    unsigned nidle;
    int answered;  /* the server has answered a request of this map */
    unsigned seed; /* backoff jitter */
    /* the store's marks and prefetch keys (nczm_url, the caller's static lists) */
    const char *const *marks;
    const char *const *prefetch;
    /* open's GET of the first prefetch key that exists, kept for the first whole read of it */
    const char *pre_key;
    char *pre_buf;
    size_t pre_len;
    int have_pre;
} s3_map;

#define S3M(map) ((s3_map *)(map))

/* Does an object of len bytes go up in parts (multipart upload) rather than in one PUT? */
static inline int s3_in_parts(const s3_map *m, size_t len)
{
    return (uint64_t)len >= m->cfg.mpu_threshold && len > S3_PART_MIN;
}

typedef enum { S3_GET, S3_HEAD, S3_PUT, S3_POST, S3_DELETE } s3_method;

/* One HTTP request and its answer. The caller zeroes it, fills the "in" part (s3_req_*
 * helpers), runs it with s3_run, reads the "out" part and frees it with s3_req_clear. */
typedef struct s3_req {
    /* in */
    s3_method method;
    char *url;        /* malloc'ed, the query already in S3's canonical order */
    const char *op;   /* "read", "write", ... for messages */
    const char *key;  /* the zmap key (or full S3 key) for messages; borrowed */
    const void *body; /* PUT/POST payload, borrowed; body_len bytes */
    size_t body_len;
    char *hdr[3]; /* extra headers, malloc'ed ("Range: ...", "x-amz-copy-source: ...") */
    int fixed;    /* success bodies go to dst (at most cap bytes), else into buf */
    void *dst;
    size_t cap;
    int ranged;    /* a ranged GET: a 200 answer (the whole object) is cut to the range */
    uint64_t skip; /* then: bytes to drop before dst */
    /* out */
    long http; /* HTTP status of the last attempt, 0 if none came */
    char *buf; /* body (a success without dst, or an error), NUL-terminated */
    size_t len, bufcap;
    size_t got;     /* bytes stored at dst */
    uint64_t clen;  /* Content-Length, when have_clen */
    uint64_t total; /* object size from Content-Range, when have_total */
    int have_clen, have_total;
    int too_long;   /* the answer did not fit at dst (clen says how long it is) */
    int range_done; /* a 200 answer to a ranged GET filled dst and was cut off */
    char etag[136];
    nczm_status st;        /* the request's outcome */
    char msg[NCZM_ERRLEN]; /* its message when st is a failure */
    /* the engine's */
    CURL *easy;
    struct curl_slist *hl;
    size_t sent;
    CURLcode cc;
    char cerr[CURL_ERROR_SIZE];
    char sha[68]; /* x-amz-content-sha256 */
    unsigned attempts;
    double first, next; /* monotonic seconds: first attempt, next attempt */
    int queued;
} s3_req;

void s3_req_clear(s3_req *r);
/* Adds "Name: value" to the request's extra headers; NCZM_NOMEM or NCZM_INVAL (full). */
nczm_status s3_req_header(s3_req *r, const char *fmt, ...) NCZM_PRINTF(2, 3);

/* curl and libxml2, once per process; then the map's multi handle and handle pool. */
nczm_status s3_global_init(char errmsg[NCZM_ERRLEN]);
nczm_status s3_pool_init(s3_map *m, char errmsg[NCZM_ERRLEN]);
void s3_pool_free(s3_map *m);

/* Runs n requests, at most cfg.conns at a time, retrying what may pass on a second try
 * (5xx, 429, dropped or refused connections, stalls) with exponential backoff and jitter
 * for at most cfg.retry_ms. Every request ends with st and, on failure, msg set. Returns
 * NCZM_NOMEM when the batch could not run at all; per-request failures are in the
 * requests. Sets nothing in the map's errmsg. */
nczm_status s3_run(s3_map *m, size_t n, s3_req *reqs);
/* s3_run of one request; on failure its message goes to the map's errmsg. */
nczm_status s3_run1(s3_map *m, s3_req *r);

/* Engine internals (nczm_s3req.c): set up an easy handle for an attempt, and judge an
 * attempt's result: 1 when it should be tried again. */
nczm_status s3_req_setup(s3_map *m, s3_req *r);
int s3_req_retryable(const s3_map *m, const s3_req *r);
/* Sets r->st and r->msg from the last attempt. */
void s3_req_judge(s3_map *m, s3_req *r);
/* A failure's message for a request, in the common form. */
void s3_req_fail(s3_map *m, s3_req *r, nczm_status st, const char *fmt, ...) NCZM_PRINTF(4, 5);

/* The map's "<op> \"<key>\": out of memory" message; returns NCZM_NOMEM. */
nczm_status s3_oom(s3_map *m, const char *op, const char *key);

/* ---- URLs and keys (nczm_s3cfg.c) ---- */
/* The S3 key of a zmap key: "<root>/<key>", or key at the bucket's root; "" gives the root
 * prefix itself. malloc'ed, NULL when out of memory. */
char *s3_full_key(const s3_map *m, const char *key);
/* The URL of an S3 key (already full), with an optional query (already encoded, sorted). */
char *s3_url_of(const s3_map *m, const char *fullkey, const char *query);
/* The URL of a zmap key. */
char *s3_key_url(const s3_map *m, const char *key, const char *query);
/* A growing string; after an allocation failure it stays failed (oom) and take gives NULL. */
typedef struct s3_sb {
    char *s;
    size_t len, cap;
    int oom;
} s3_sb;
void s3_sb_add(s3_sb *b, const char *s); /* as is */
/* percent-encoded: all but A-Za-z0-9-._~, and '/' when keep_slash, uppercase hex */
void s3_sb_enc(s3_sb *b, const char *s, int keep_slash);
void s3_sb_xml(s3_sb *b, const char *s); /* the five XML specials and CR escaped */
char *s3_sb_take(s3_sb *b);              /* the string (malloc'ed, "" if empty), or NULL after a failure */
/* The message form of a URL: no query. Writes into out. */
void s3_url_display(const char *url, char *out, size_t outlen);

/* ---- XML answers (nczm_s3xml.c) ---- */
/* S3's <Error><Code>..</Code><Message>..</Message>: 0 if body is one, else -1. */
int s3_xml_error(const char *body, size_t len, char *code, size_t codelen, char *msg, size_t msglen);
typedef struct s3_listing {
    /* keys and common prefixes as given, each malloc'ed; sizes of the keys */
    char **keys;
    uint64_t *sizes;
    size_t nkeys, capkeys;
    char **prefixes;
    size_t nprefixes, capprefixes;
    int truncated;
    char *next_token; /* NextContinuationToken, malloc'ed */
} s3_listing;
/* Parses one ListObjectsV2 page, appending to out (which may hold earlier pages). */
nczm_status s3_xml_listing(const char *body, size_t len, s3_listing *out, char *why, size_t whylen);
void s3_listing_clear(s3_listing *l);
/* <UploadId> of InitiateMultipartUploadResult, malloc'ed; NULL if absent. */
char *s3_xml_upload_id(const char *body, size_t len);
/* DeleteObjects' <Error> entries: calls fn for each failed key with its code and message. */
typedef void (*s3_delerr_fn)(void *arg, const char *key, const char *code, const char *msg);
nczm_status s3_xml_delete_errors(const char *body, size_t len, s3_delerr_fn fn, void *arg);

/* ---- listing and trees (nczm_s3tree.c) ---- */
/* Every S3 key below fullprefix (a full key ending in '/' or ""), with sizes; delimiter
 * '/' when shallow. Failures set the map's errmsg (op and key name what was asked). */
nczm_status s3_list(s3_map *m, const char *op, const char *key, const char *fullprefix, int shallow,
                    size_t max_total, s3_listing *out);
/* The request for the next page of a listing below fullprefix, at most want keys (the
 * first page when out is NULL or holds no continuation token), zeroed first. */
nczm_status s3_list_req(s3_map *m, s3_req *r, const char *op, const char *key, const char *fullprefix,
                        int shallow, size_t want, const s3_listing *out);
/* The full key's prefix for listing below a zmap key ("" = the store's root): "<full key>/",
 * or "" at the bucket's root. malloc'ed, NULL when out of memory. */
char *s3_list_prefix(const s3_map *m, const char *key);
/* Deletes these full S3 keys (DeleteObjects, 1000 a request, several requests at once). */
nczm_status s3_delete_keys(s3_map *m, const char *op, const char *key, size_t n, char *const *fullkeys);
nczm_status s3_search(nczm_map *map, const char *prefix, nczm_list *out);
nczm_status s3_search_many(nczm_map *map, size_t n, nczm_search_req *reqs);
nczm_status s3_delete_tree(nczm_map *map, const char *prefix);
nczm_status s3_rename_tree(nczm_map *map, const char *from, const char *to);
nczm_status s3_copy_tree(nczm_map *map, const char *from, const char *to);

/* ---- batches (nczm_s3batch.c) and multipart (nczm_s3mpu.c) ---- */
nczm_status s3_get_many(nczm_map *map, size_t n, nczm_get *reqs);
nczm_status s3_put_many(nczm_map *map, size_t n, nczm_put *reqs);
nczm_status s3_get_into_many(nczm_map *map, size_t n, nczm_getinto *reqs);
/* A PUT request of one object (small enough for one request). */
nczm_status s3_put_req(s3_map *m, s3_req *r, const char *key, const void *buf, size_t len);
/* Uploads one object in parts; the map's errmsg says why on failure. */
nczm_status s3_multipart_put(s3_map *m, const char *key, const void *buf, size_t len);
/* A request for a zmap key (GET, HEAD, PUT without body yet, DELETE), zeroed first. */
nczm_status s3_key_req(s3_map *m, s3_req *r, s3_method method, const char *op, const char *key,
                       const char *query);
/* open's copy of .zmetadata: is it the one for key; hand it over (owned by the caller);
 * forget it (any write may change it). */
int s3_prefetched(const s3_map *m, const char *key);
void s3_take_prefetch(s3_map *m, void **buf, size_t *len);
void s3_drop_prefetch(s3_map *m);

/* What a batch reports about each request it ran or answered itself. */
typedef struct s3_outcome {
    const char *key;
    nczm_status st;
    const char *msg; /* the failure's message */
} s3_outcome;
/* Leaves the batch's message in the map: the first failure's (in request order), then how
 * many failed with the first few keys; or, when nothing failed but gets found missing
 * keys (notfound_ok), which keys were missing. Nothing when all went well. */
void s3_batch_report(s3_map *m, const char *op, size_t n, const s3_outcome *o, int notfound_ok);

#endif
