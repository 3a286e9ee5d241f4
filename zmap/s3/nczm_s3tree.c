/* Listings and subtrees on S3. search is one ListObjectsV2 with delimiter '/' (page after
 * page: S3 gives at most 1000 keys a request). delete_tree lists every key below the
 * prefix and deletes them with DeleteObjects, 1000 keys a request, several requests at
 * once. rename_tree and copy_tree copy each object on the server (CopyObject: no byte
 * comes to the client), all at once, then (rename) delete the sources; a copy that fails
 * is undone. */
#include "nczm_s3.h"

#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>

#define DELETE_BATCH 1000 /* S3's most keys per DeleteObjects */

nczm_status s3_list_req(s3_map *m, s3_req *r, const char *op, const char *key, const char *fullprefix,
                        int shallow, size_t want, const s3_listing *out)
{
    /* the query in canonical order, values encoded (SigV4 signs it as sent) */
    char num[64];
    snprintf(num, sizeof num,
             "list-type=2&max-keys=%u&prefix=", want < m->cfg.max_keys ? (unsigned)want : m->cfg.max_keys);
    s3_sb q = {0};
    if (out && out->next_token) {
        s3_sb_add(&q, "continuation-token=");
        s3_sb_enc(&q, out->next_token, 0);
        s3_sb_add(&q, "&");
    }
    if (shallow)
        s3_sb_add(&q, "delimiter=%2F&");
    s3_sb_add(&q, num);
    s3_sb_enc(&q, fullprefix, 0);
    char *qs = s3_sb_take(&q);
    memset(r, 0, sizeof *r);
    r->method = S3_GET;
    r->op = op;
    r->key = key;
    r->url = qs ? s3_url_of(m, "", qs) : NULL;
    free(qs);
    return r->url ? NCZM_OK : NCZM_NOMEM;
}

/* Adds a page's answer to the listing; on failure r->st and r->msg say why. */
static void page_take(s3_map *m, s3_req *r, s3_listing *out)
{
    if (r->st != NCZM_OK)
        return;
    char why[128];
    nczm_status st = s3_xml_listing(r->buf, r->len, out, why, sizeof why);
    if (st != NCZM_OK)
        s3_req_fail(m, r, st, "%s", why);
}

nczm_status s3_list(s3_map *m, const char *op, const char *key, const char *fullprefix, int shallow,
                    size_t max_total, s3_listing *out)
{
    nczm_status st = NCZM_OK;
    do {
        s3_req r;
        if (s3_list_req(m, &r, op, key, fullprefix, shallow, max_total - out->nkeys - out->nprefixes, out) !=
            NCZM_OK) {
            s3_req_clear(&r);
            return s3_oom(m, op, key);
        }
        s3_run(m, 1, &r);
        page_take(m, &r, out);
        if ((st = r.st) != NCZM_OK)
            nczm_seterr(&m->base, st, "%s", r.msg);
        s3_req_clear(&r);
    } while (st == NCZM_OK && out->truncated && out->nkeys + out->nprefixes < max_total);
    return st;
}

char *s3_list_prefix(const s3_map *m, const char *key)
{
    char *fk = s3_full_key(m, key);
    char *p = fk && *fk ? nczm_join(fk, "") : fk ? strdup("") : NULL;
    free(fk);
    return p;
}

/* A shallow listing below pre as the immediate children's names: keys and common prefixes
 * less pre (and the prefixes' '/'); names no key could have ("", "..", a "directory
 * marker" object) are left out. */
static nczm_status listing_names(const s3_listing *l, const char *pre, nczm_list *out)
{
    size_t pl = strlen(pre), cap = 0;
    for (size_t i = 0; i < l->nkeys + l->nprefixes; i++) {
        const char *s = i < l->nkeys ? l->keys[i] : l->prefixes[i - l->nkeys];
        size_t n = strlen(s);
        if (n < pl || strncmp(s, pre, pl) != 0)
            continue;
        s += pl;
        n -= pl;
        if (i >= l->nkeys && n && s[n - 1] == '/')
            n--;
        if (nczm_segment_ok(s, n) && nczm_list_append(out, &cap, s, n) != NCZM_OK)
            return NCZM_NOMEM;
    }
    nczm_list_finish(out);
    return NCZM_OK;
}

nczm_status s3_search(nczm_map *map, const char *prefix, nczm_list *out)
{
    s3_map *m = S3M(map);
    char *pre = s3_list_prefix(m, prefix);
    if (!pre)
        return s3_oom(m, "search", prefix);
    s3_listing l;
    memset(&l, 0, sizeof l);
    nczm_status st = s3_list(m, "search", prefix, pre, 1, SIZE_MAX, &l);
    if (st == NCZM_OK && listing_names(&l, pre, out) != NCZM_OK)
        st = s3_oom(m, "search", prefix);
    s3_listing_clear(&l);
    free(pre);
    return st;
}

/* Many listings at once: the first page of every prefix in one run, then the next pages
 * of those that have more, and so on. */
nczm_status s3_search_many(nczm_map *map, size_t n, nczm_search_req *reqs)
{
    s3_map *m = S3M(map);
    char **pre = calloc(n, sizeof *pre);
    s3_listing *l = calloc(n, sizeof *l);
    s3_req *rq = calloc(n, sizeof *rq);
    size_t *idx = malloc(n * sizeof *idx);
    s3_outcome *o = calloc(n, sizeof *o);
    char(*msg)[NCZM_ERRLEN] = calloc(n, sizeof *msg);
    nczm_status st = pre && l && rq && idx && o && msg ? NCZM_OK : NCZM_NOMEM;
    for (size_t i = 0; i < n && st == NCZM_OK; i++)
        if (reqs[i].status == NCZM_OK && !(pre[i] = s3_list_prefix(m, reqs[i].prefix)))
            st = NCZM_NOMEM;
    for (int first = 1; st == NCZM_OK; first = 0) {
        size_t k = 0;
        for (size_t i = 0; i < n && st == NCZM_OK; i++) {
            if (reqs[i].status != NCZM_OK || (!first && !l[i].truncated))
                continue;
            idx[k] = i;
            st = s3_list_req(m, &rq[k++], "search", reqs[i].prefix, pre[i], 1, SIZE_MAX, &l[i]);
        }
        if (st == NCZM_OK && !k)
            break;
        if (st == NCZM_OK)
            st = s3_run(m, k, rq);
        for (size_t j = 0; j < k; j++) {
            page_take(m, &rq[j], &l[idx[j]]);
            if (st == NCZM_OK && rq[j].st != NCZM_OK) {
                reqs[idx[j]].status = rq[j].st;
                memcpy(msg[idx[j]], rq[j].msg, NCZM_ERRLEN);
            }
            s3_req_clear(&rq[j]);
        }
    }
    for (size_t i = 0; i < n && st == NCZM_OK; i++) {
        if (reqs[i].status == NCZM_OK && listing_names(&l[i], pre[i], &reqs[i].list) != NCZM_OK)
            st = NCZM_NOMEM;
        o[i] = (s3_outcome){reqs[i].prefix, reqs[i].status, msg[i]};
    }
    if (st == NCZM_OK)
        s3_batch_report(m, "search", n, o, 0);
    else
        nczm_seterr(map, st, "%s: search: out of memory", map->location);
    for (size_t i = 0; i < n; i++) {
        if (st != NCZM_OK && reqs[i].status == NCZM_OK) {
            nczm_list_clear(&reqs[i].list);
            reqs[i].status = st;
        }
        if (pre)
            free(pre[i]);
        if (l)
            s3_listing_clear(&l[i]);
    }
    free(pre);
    free(l);
    free(rq);
    free(idx);
    free(o);
    free(msg);
    return st;
}

static char *b64(const unsigned char *d, size_t n, char *out)
{
    static const char t[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    char *w = out;
    for (size_t i = 0; i < n; i += 3) {
        unsigned v =
            (unsigned)d[i] << 16 | (i + 1 < n ? (unsigned)d[i + 1] << 8 : 0) | (i + 2 < n ? d[i + 2] : 0);
        *w++ = t[v >> 18 & 63];
        *w++ = t[v >> 12 & 63];
        *w++ = i + 1 < n ? t[v >> 6 & 63] : '=';
        *w++ = i + 2 < n ? t[v & 63] : '=';
    }
    *w = '\0';
    return out;
}

typedef struct delctx {
    s3_map *m;
    const char *op;
    size_t nerr;
    char first[NCZM_ERRLEN];
} delctx;

static void on_delete_error(void *arg, const char *key, const char *code, const char *msg)
{
    delctx *c = arg;
    if (!c->nerr++)
        snprintf(c->first, sizeof c->first, "%s: %s: deleting \"%s\": %s%s%s", c->m->base.location, c->op,
                 key, code, *msg ? ": " : "", msg);
}

nczm_status s3_delete_keys(s3_map *m, const char *op, const char *key, size_t n, char *const *fullkeys)
{
    size_t nb = (n + DELETE_BATCH - 1) / DELETE_BATCH;
    if (!nb)
        return NCZM_OK;
    s3_req *rq = calloc(nb, sizeof *rq);
    char **bodies = calloc(nb, sizeof *bodies);
    nczm_status st = rq && bodies ? NCZM_OK : NCZM_NOMEM;
    for (size_t b = 0; b < nb && st == NCZM_OK; b++) {
        s3_sb sb = {0};
        s3_sb_add(&sb, "<Delete><Quiet>true</Quiet>");
        for (size_t i = b * DELETE_BATCH; i < n && i < (b + 1) * DELETE_BATCH; i++) {
            s3_sb_add(&sb, "<Object><Key>");
            s3_sb_xml(&sb, fullkeys[i]);
            s3_sb_add(&sb, "</Key></Object>");
        }
        s3_sb_add(&sb, "</Delete>");
        size_t len = sb.len;
        char *x = bodies[b] = s3_sb_take(&sb);
        unsigned char md5[EVP_MAX_MD_SIZE];
        unsigned int ml = 0;
        char md5b[32];
        s3_req *r = &rq[b];
        r->method = S3_POST;
        r->op = op;
        r->key = key;
        r->body = x;
        r->body_len = len;
        r->url = x ? s3_url_of(m, "", "delete=") : NULL;
        if (!r->url || !EVP_Digest(x, len, md5, &ml, EVP_md5(), NULL) ||
            s3_req_header(r, "Content-MD5: %s", b64(md5, ml, md5b)) != NCZM_OK ||
            s3_req_header(r, "Content-Type: application/xml") != NCZM_OK)
            st = NCZM_NOMEM;
    }
    if (st == NCZM_OK)
        st = s3_run(m, nb, rq);
    delctx c = {m, op, 0, ""};
    const s3_req *bad = NULL;
    for (size_t b = 0; b < nb && st == NCZM_OK; b++) {
        if (rq[b].st != NCZM_OK) {
            if (!bad)
                bad = &rq[b];
        } else if (s3_xml_delete_errors(rq[b].buf, rq[b].len, on_delete_error, &c) != NCZM_OK && !bad) {
            s3_req_fail(m, &rq[b], NCZM_IO, "the DeleteObjects answer is not a DeleteResult");
            bad = &rq[b];
        }
    }
    if (st != NCZM_OK)
        st = s3_oom(m, op, key);
    else if (bad)
        st = nczm_seterr(&m->base, bad->st, "%s", bad->msg);
    else if (c.nerr) {
        st = nczm_seterr(&m->base, NCZM_IO, "%s", c.first);
        size_t l = strlen(m->base.errmsg);
        if (c.nerr > 1)
            snprintf(m->base.errmsg + l, sizeof m->base.errmsg - l, "; %zu keys could not be deleted",
                     c.nerr);
    }
    for (size_t b = 0; rq && b < nb; b++) {
        s3_req_clear(&rq[b]);
        free(bodies ? bodies[b] : NULL);
    }
    free(rq);
    free(bodies);
    return st;
}

nczm_status s3_delete_tree(nczm_map *map, const char *prefix)
{
    s3_map *m = S3M(map);
    s3_drop_prefetch(m);
    char *pre = s3_list_prefix(m, prefix);
    s3_listing l;
    memset(&l, 0, sizeof l);
    nczm_status st = pre ? s3_list(m, "delete_tree", prefix, pre, 0, SIZE_MAX, &l) : NCZM_NOMEM;
    /* the object at prefix itself goes too (a DeleteObjects of a missing key is no error);
     * without memory for its name the call fails rather than leave the object behind */
    int added = 0;
    if (st == NCZM_OK) {
        char *self = s3_full_key(m, prefix);
        char **nk = self ? realloc(l.keys, (l.nkeys + 1) * sizeof *nk) : NULL;
        if (nk) {
            l.keys = nk;
            l.keys[l.nkeys++] = self;
            l.capkeys = l.nkeys; /* sizes are not used here */
            added = 1;
        } else {
            free(self);
        }
    }
    if (st == NCZM_OK && added)
        st = s3_delete_keys(m, "delete_tree", prefix, l.nkeys, l.keys);
    else if (st == NCZM_OK || st == NCZM_NOMEM)
        st = s3_oom(m, "delete_tree", prefix);
    free(pre);
    s3_listing_clear(&l);
    return st;
}
