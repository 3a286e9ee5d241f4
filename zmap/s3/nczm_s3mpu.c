/* Multipart upload, for objects of cfg.mpu_threshold bytes or more: initiate, the parts in
 * parallel (cfg.part_size bytes each but the last, grown so that no object needs more than
 * S3's 10000 parts), complete. Until the completion the old object (if any) stays as it
 * was, so the write is as atomic as a single PUT; a failed upload is aborted so that its
 * parts do not linger (and cost) on the server. */
#include "nczm_s3.h"

#include <stdio.h>
#include <stdlib.h>

static nczm_status mpu_req(s3_map *m, s3_req *r, s3_method method, const char *key, const char *query)
{
    nczm_status st = s3_key_req(m, r, method, "write", key, query);
    return st == NCZM_OK ? NCZM_OK : s3_oom(m, "write", key);
}

/* "uploadId=<id>", after "partNumber=<part>&" for a part (part > 0) */
static char *upload_query(const char *id, size_t part)
{
    s3_sb q = {0};
    char num[40];
    if (part) {
        snprintf(num, sizeof num, "partNumber=%zu&", part);
        s3_sb_add(&q, num);
    }
    s3_sb_add(&q, "uploadId=");
    s3_sb_enc(&q, id, 0);
    return s3_sb_take(&q);
}

static void mpu_abort(s3_map *m, const char *key, const char *id)
{
    char msg[NCZM_ERRLEN];
    memcpy(msg, m->base.errmsg, sizeof msg);
    char *q = upload_query(id, 0);
    s3_req r;
    if (q && mpu_req(m, &r, S3_DELETE, key, q) == NCZM_OK) {
        s3_run1(m, &r);
        s3_req_clear(&r);
    }
    free(q);
    memcpy(m->base.errmsg, msg, sizeof msg);
}

/* The parts, all in flight together (cfg.conns at a time); their ETags into the body of
 * the completion. */
static nczm_status put_parts(s3_map *m, const char *key, const char *id, const char *buf, size_t len,
                             size_t part, size_t nparts, s3_sb *done)
{
    s3_req *r = calloc(nparts, sizeof *r);
    if (!r)
        return s3_oom(m, "write", key);
    nczm_status st = NCZM_OK;
    for (size_t i = 0; i < nparts && st == NCZM_OK; i++) {
        char *q = upload_query(id, i + 1);
        st = q ? mpu_req(m, &r[i], S3_PUT, key, q) : NCZM_NOMEM;
        free(q);
        r[i].body = buf + i * part;
        r[i].body_len = i + 1 < nparts ? part : len - i * part;
    }
    if (st == NCZM_OK)
        st = s3_run(m, nparts, r);
    for (size_t i = 0; i < nparts && st == NCZM_OK; i++) {
        if (r[i].st == NCZM_OK && !r[i].etag[0])
            s3_req_fail(m, &r[i], NCZM_IO, "part %zu of %zu came back without an ETag", i + 1, nparts);
        if (r[i].st != NCZM_OK) {
            st = nczm_seterr(&m->base, r[i].st, "%s (part %zu of %zu)", r[i].msg, i + 1, nparts);
            break;
        }
        char num[64];
        snprintf(num, sizeof num, "<Part><PartNumber>%zu</PartNumber><ETag>", i + 1);
        s3_sb_add(done, num);
        s3_sb_xml(done, r[i].etag);
        s3_sb_add(done, "</ETag></Part>");
    }
    if (st == NCZM_NOMEM)
        s3_oom(m, "write", key);
    for (size_t i = 0; i < nparts; i++)
        s3_req_clear(&r[i]);
    free(r);
    return st;
}

nczm_status s3_multipart_put(s3_map *m, const char *key, const void *buf, size_t len)
{
    size_t part = m->cfg.part_size;
    while ((len + part - 1) / part > S3_PARTS_MAX)
        part *= 2;
    size_t nparts = (len + part - 1) / part;
    if (!nparts)
        nparts = 1;

    s3_req r;
    nczm_status st = mpu_req(m, &r, S3_POST, key, "uploads=");
    if (st != NCZM_OK)
        return st;
    /* the object's type: curl would otherwise send (and S3 keep) a form's */
    if (s3_req_header(&r, "Content-Type: application/octet-stream") != NCZM_OK) {
        s3_req_clear(&r);
        return s3_oom(m, "write", key);
    }
    st = s3_run1(m, &r);
    char *id = st == NCZM_OK ? s3_xml_upload_id(r.buf, r.len) : NULL;
    if (st == NCZM_OK && !id)
        st = nczm_seterr(&m->base, NCZM_IO, "%s: write \"%s\": the multipart upload got no UploadId",
                         m->base.location, key);
    s3_req_clear(&r);
    if (st != NCZM_OK)
        return st;

    s3_sb done = {0};
    s3_sb_add(&done, "<CompleteMultipartUpload>");
    st = put_parts(m, key, id, buf, len, part, nparts, &done);
    s3_sb_add(&done, "</CompleteMultipartUpload>");
    size_t blen = done.len;
    char *body = s3_sb_take(&done);
    char *q = upload_query(id, 0);
    if (st == NCZM_OK && (!body || !q))
        st = s3_oom(m, "write", key);
    if (st == NCZM_OK && (st = mpu_req(m, &r, S3_POST, key, q)) == NCZM_OK) {
        r.body = body;
        r.body_len = blen;
        if (s3_req_header(&r, "Content-Type: application/xml") != NCZM_OK)
            st = s3_oom(m, "write", key);
        else
            st = s3_run1(m, &r);
        char code[64], msg[200];
        /* a completion can fail after its 200 has gone out: the body then says so */
        if (st == NCZM_OK && s3_xml_error(r.buf, r.len, code, sizeof code, msg, sizeof msg) == 0) {
            s3_req_fail(m, &r, NCZM_IO, "completing the multipart upload failed: %s%s%s", code,
                        *msg ? ": " : "", msg);
            st = nczm_seterr(&m->base, NCZM_IO, "%s", r.msg);
        }
        s3_req_clear(&r);
    }
    if (st != NCZM_OK)
        mpu_abort(m, key, id);
    free(q);
    free(body);
    free(id);
    return st;
}
