/* rename_tree and copy_tree on S3: every object below the source is copied on the server
 * (CopyObject, no byte comes to the client), all at once up to cfg.conns, then for a
 * rename the sources are deleted. A copy that fails is undone, so the destination is left
 * as it was. Objects over 5 GiB, which one CopyObject cannot copy, make the call
 * NCZM_UNSUPPORTED before anything changes: the dispatcher then copies through the client
 * (read_all + write in parts). */
#include "nczm_s3.h"

#include <stdio.h>
#include <stdlib.h>

typedef struct tree {
    s3_map *m;
    const char *op, *from, *to;
    char *ffrom, *fto; /* full keys */
    s3_listing src;    /* the source objects (full keys), sizes */
} tree;

/* HEAD of the source object and the destination object, a one-key listing below the
 * destination, and a HEAD of every proper prefix of the destination: one run. */
static nczm_status checks(tree *t)
{
    s3_map *m = t->m;
    size_t nparents = 0;
    for (const char *p = t->to; (p = strchr(p, '/')) != NULL; p++)
        nparents++;
    size_t n = 3 + nparents;
    s3_req *r = calloc(n, sizeof *r);
    char **parents = calloc(nparents + 1, sizeof *parents);
    nczm_status st = r && parents ? NCZM_OK : NCZM_NOMEM;
    if (st == NCZM_OK)
        st = s3_key_req(m, &r[0], S3_HEAD, t->op, t->from, NULL);
    if (st == NCZM_OK)
        st = s3_key_req(m, &r[1], S3_HEAD, t->op, t->to, NULL);
    if (st == NCZM_OK) {
        /* the destination is a non-empty key: its prefix is "<full key>/" */
        char *pre = s3_list_prefix(m, t->to);
        st = pre ? s3_list_req(m, &r[2], t->op, t->to, pre, 0, 1, NULL) : NCZM_NOMEM;
        free(pre);
    }
    size_t k = 0;
    for (const char *p = t->to; st == NCZM_OK && (p = strchr(p, '/')) != NULL; p++, k++) {
        size_t l = (size_t)(p - t->to);
        if (!(parents[k] = malloc(l + 1)))
            st = NCZM_NOMEM;
        else {
            memcpy(parents[k], t->to, l);
            parents[k][l] = '\0';
            st = s3_key_req(m, &r[3 + k], S3_HEAD, t->op, parents[k], NULL);
        }
    }
    if (st == NCZM_OK)
        st = s3_run(m, n, r);
    if (st != NCZM_OK) {
        st = s3_oom(t->m, t->op, t->from);
        goto done;
    }
    for (size_t i = 0; i < n; i++) {
        if (r[i].st != NCZM_OK && r[i].st != NCZM_NOTFOUND) {
            st = nczm_seterr(&m->base, r[i].st, "%s", r[i].msg);
            goto done;
        }
    }
    if (r[2].st != NCZM_OK) {
        st = nczm_seterr(&m->base, r[2].st, "%s", r[2].msg);
        goto done;
    }
    if (r[0].st != NCZM_OK && !t->src.nkeys) {
        st = nczm_seterr(&m->base, NCZM_NOTFOUND, "%s: %s \"%s\": nothing at or below that key",
                         m->base.location, t->op, t->from);
        goto done;
    }
    if (r[1].st == NCZM_OK || strstr(r[2].buf ? r[2].buf : "", "<Key>")) {
        st = nczm_seterr(&m->base, NCZM_EXISTS, "%s: %s \"%s\" to \"%s\": the destination exists",
                         m->base.location, t->op, t->from, t->to);
        goto done;
    }
    for (size_t i = 0; i < nparents; i++) {
        if (r[3 + i].st == NCZM_OK) {
            st = nczm_seterr(&m->base, NCZM_INVAL,
                             "%s: %s \"%s\" to \"%s\": \"%s\" is an object, not a prefix", m->base.location,
                             t->op, t->from, t->to, parents[i]);
            goto done;
        }
    }
    if (r[0].st == NCZM_OK) {
        char *fk = strdup(t->ffrom);
        char **nk = fk ? realloc(t->src.keys, (t->src.nkeys + 1) * sizeof *nk) : NULL;
        uint64_t *ns = nk ? realloc(t->src.sizes, (t->src.nkeys + 1) * sizeof *ns) : NULL;
        if (nk)
            t->src.keys = nk;
        if (ns)
            t->src.sizes = ns;
        if (!ns) {
            free(fk);
            st = s3_oom(t->m, t->op, t->from);
            goto done;
        }
        t->src.keys[t->src.nkeys] = fk;
        t->src.sizes[t->src.nkeys++] = r[0].have_clen ? r[0].clen : 0;
        t->src.capkeys = t->src.nkeys;
    }
done:
    for (size_t i = 0; r && i < n; i++)
        s3_req_clear(&r[i]);
    for (size_t i = 0; parents && i < nparents; i++)
        free(parents[i]);
    free(parents);
    free(r);
    return st;
}

/* The destination full key of a source full key. */
static char *dest_of(const tree *t, const char *src)
{
    s3_sb b = {0};
    s3_sb_add(&b, t->fto);
    s3_sb_add(&b, src + strlen(t->ffrom));
    return s3_sb_take(&b);
}

static nczm_status copy_all(tree *t, char **dst)
{
    s3_map *m = t->m;
    size_t n = t->src.nkeys;
    s3_req *r = calloc(n, sizeof *r);
    nczm_status st = r ? NCZM_OK : NCZM_NOMEM;
    for (size_t i = 0; i < n && st == NCZM_OK; i++) {
        s3_sb src = {0};
        s3_sb_add(&src, "x-amz-copy-source: /");
        s3_sb_enc(&src, m->cfg.bucket, 0);
        s3_sb_add(&src, "/");
        s3_sb_enc(&src, t->src.keys[i], 1);
        char *hdr = s3_sb_take(&src);
        r[i].method = S3_PUT;
        r[i].op = t->op;
        r[i].key = t->src.keys[i];
        r[i].url = dst[i] ? s3_url_of(m, dst[i], NULL) : NULL;
        r[i].hdr[0] = hdr;
        st = r[i].url && hdr ? NCZM_OK : NCZM_NOMEM;
    }
    if (st == NCZM_OK)
        st = s3_run(m, n, r);
    size_t failed = 0, first = n;
    for (size_t i = 0; i < n && st == NCZM_OK; i++) {
        char code[64], msg[200];
        /* CopyObject can fail after its 200 has gone out: the body then says so */
        if (r[i].st == NCZM_OK && s3_xml_error(r[i].buf, r[i].len, code, sizeof code, msg, sizeof msg) == 0)
            s3_req_fail(m, &r[i], NCZM_IO, "copy failed: %s%s%s", code, *msg ? ": " : "", msg);
        if (r[i].st != NCZM_OK && !failed++)
            first = i;
    }
    if (st != NCZM_OK) {
        st = s3_oom(t->m, t->op, t->from);
    } else if (failed) {
        /* undo: delete the copies that were made */
        char msg[NCZM_ERRLEN];
        const char *more = failed > 1 ? "; other copies failed too" : "";
        snprintf(msg, sizeof msg, "%.*s%s", (int)(sizeof msg - 1 - strlen(more)), r[first].msg, more);
        st = r[first].st;
        char **made = malloc(n * sizeof *made);
        size_t k = 0;
        for (size_t i = 0; made && i < n; i++)
            if (r[i].st == NCZM_OK)
                made[k++] = dst[i];
        if (made)
            s3_delete_keys(m, t->op, t->to, k, made);
        free(made);
        nczm_seterr(&m->base, st, "%s", msg);
    }
    for (size_t i = 0; r && i < n; i++)
        s3_req_clear(&r[i]);
    free(r);
    return st;
}

static nczm_status tree_copy(nczm_map *map, const char *op, const char *from, const char *to, int move)
{
    s3_map *m = S3M(map);
    s3_drop_prefetch(m);
    tree t = {m, op, from, to, s3_full_key(m, from), s3_full_key(m, to), {0}};
    char *below = t.ffrom ? nczm_join(t.ffrom, "") : NULL;
    char **dst = NULL;
    nczm_status st = below && t.fto ? NCZM_OK : s3_oom(m, op, from);
    if (st == NCZM_OK)
        st = s3_list(m, op, from, below, 0, SIZE_MAX, &t.src);
    if (st == NCZM_OK)
        st = checks(&t);
    for (size_t i = 0; st == NCZM_OK && i < t.src.nkeys; i++)
        if (t.src.sizes[i] > S3_SINGLE_MAX)
            st = NCZM_UNSUPPORTED; /* nothing changed yet: the dispatcher copies through the client */
    if (st == NCZM_OK && !(dst = calloc(t.src.nkeys, sizeof *dst)))
        st = s3_oom(m, op, from);
    for (size_t i = 0; st == NCZM_OK && i < t.src.nkeys; i++)
        if (!(dst[i] = dest_of(&t, t.src.keys[i])))
            st = s3_oom(m, op, from);
    if (st == NCZM_OK)
        st = copy_all(&t, dst);
    if (st == NCZM_OK && move)
        st = s3_delete_keys(m, op, from, t.src.nkeys, t.src.keys);
    for (size_t i = 0; dst && i < t.src.nkeys; i++)
        free(dst[i]);
    free(dst);
    free(below);
    free(t.ffrom);
    free(t.fto);
    s3_listing_clear(&t.src);
    return st;
}

nczm_status s3_rename_tree(nczm_map *map, const char *from, const char *to)
{
    return tree_copy(map, "rename_tree", from, to, 1);
}

nczm_status s3_copy_tree(nczm_map *map, const char *from, const char *to)
{
    return tree_copy(map, "copy_tree", from, to, 0);
}
