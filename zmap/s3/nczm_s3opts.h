/* The S3 store's options (internal to zmap/): what a store name's fragment and the
 * caller's nczm_url_set may give, kept in nczm_url.opts. Unset ones come from the
 * environment and the AWS files (nczm_s3cred.c, README "S3"). */
#ifndef NCZM_S3OPTS_H
#define NCZM_S3OPTS_H

#include "nczm.h"

#include <stdint.h>

typedef struct nczm_s3_opts {
    /* Each string is malloc'ed or NULL when unset; numbers are 0 when unset. */
    char *endpoint;               /* "https://host[:port]" for s3:// names (default AWS) */
    char *region;                 /* signing region (default: from the host, AWS_REGION, profile) */
    char *profile;                /* profile in ~/.aws/credentials and ~/.aws/config */
    char *access_key;             /* with secret_key: credentials that win over all others */
    char *secret_key;             /* never printed; wiped when freed */
    char *session_token;          /* temporary credentials (x-amz-security-token) */
    char *cainfo;                 /* CA bundle file for https (else AWS_CA_BUNDLE, else the system's) */
    int anonymous;                /* 1: unsigned requests whatever credentials exist (public buckets) */
    uint64_t multipart_threshold; /* objects of this size or more go up in parts (64 MiB) */
    unsigned max_keys;            /* keys per listing request (1000, S3's maximum) */
    unsigned connections;         /* requests in flight per map (16) */
    unsigned retry_ms;            /* time a failing request is retried for (20000) */
} nczm_s3_opts;

/* The options of an S3 store name: never NULL (all unset when none was given). */
const nczm_s3_opts *nczm_s3_opts_of(const nczm_url *url);

/* The driver's option entries (nczm_driver.opt_*). */
extern const char *const nczm_s3_opt_names[];
extern const char *const nczm_s3_opt_secrets[];
nczm_status nczm_s3_opt_set(void **opts, const char *name, const char *value, char errmsg[NCZM_ERRLEN]);
nczm_status nczm_s3_opt_fragment(void **opts, const char *fragment, const char *name,
                                 char errmsg[NCZM_ERRLEN]);
void nczm_s3_opt_free(void *opts);

#endif
