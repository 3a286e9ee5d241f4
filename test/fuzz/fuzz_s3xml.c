/* Fuzz target (f): the S3 store's XML answers (nczm_s3xml.c), parsed as the driver parses
 * what a server sends, with no server. The input is one or more documents separated by NUL
 * bytes (which no XML text holds). Each document is given to every parser, with the
 * buffers the driver's callers pass:
 *   s3_xml_error          an error answer (any failed request, and a CopyObject or
 *                         CompleteMultipartUpload that fails after its 200)
 *   s3_xml_listing        a ListObjectsV2 page: the documents in turn are the pages of one
 *                         listing, as s3_list reads them (a failed page starts it over);
 *                         a truncated page's NextContinuationToken goes into the request
 *                         for the next page (s3_list_req), and every key and common prefix
 *                         into an object's URL (s3_url_of), as deleting a tree does
 *   s3_xml_upload_id      an InitiateMultipartUploadResult
 *   s3_xml_delete_errors  a DeleteObjects answer (DeleteResult)
 * and the strings they hand back must be whole (NUL-terminated) and their lengths what
 * they say. */
#include "nczm_s3.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A map with just what building a request's URL reads: no connection, no credentials. */
static s3_map fake;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    static char base[] = "http://localhost:8000/nczarr-bucket";
    static char root[] = "fuzz/store";
    static char key_base[] = "http://localhost:8000/nczarr-bucket/fuzz/store/";
    fake.cfg.base = base;
    fake.cfg.root = root;
    fake.cfg.key_base = key_base;
    fake.cfg.key_base_len = strlen(key_base);
    fake.cfg.max_keys = 1000;
    fake.base.location = base;
    return 0;
}

static volatile size_t sink; /* keeps the checks' reads */

static void on_delete_error(void *arg, const char *key, const char *code, const char *msg)
{
    (void)arg;
    sink += strlen(key) + strlen(code) + strlen(msg);
}

static void same_key(void *arg, const char *key, const char *code, const char *msg)
{
    (void)code;
    (void)msg;
    if (strcmp(key, arg) != 0) {
        fprintf(stderr, "the key \"%s\" went into XML (s3_sb_xml) and came back as \"%s\"\n", (char *)arg,
                key);
        abort();
    }
}

/* A listed key goes back to the server in XML (a DeleteObjects body, s3_sb_xml): what the
 * server reads there must be the key itself, or another object is deleted. The server's
 * reading is stood in for by the driver's own parser, of an answer holding that text. */
static void key_round_trip(const char *key)
{
    if (strlen(key) >= 1099) /* s3_xml_delete_errors' key buffer */
        return;
    s3_sb b = {0};
    s3_sb_add(&b, "<DeleteResult><Error><Key>");
    s3_sb_xml(&b, key);
    s3_sb_add(&b, "</Key><Code>x</Code></Error></DeleteResult>");
    size_t n = b.len;
    char *doc = s3_sb_take(&b);
    if (doc && s3_xml_delete_errors(doc, n, same_key, (void *)key) != NCZM_OK)
        abort();
    free(doc);
}

/* What the driver does with a page it took: the next page's request, and the URLs of the
 * keys (delete_tree, copy_tree and rename_tree address every key listed). */
static void use_listing(const s3_listing *l)
{
    if (l->nkeys > l->capkeys || (l->truncated && (!l->next_token || !*l->next_token)))
        abort();
    for (size_t i = 0; i < l->nkeys + l->nprefixes; i++) {
        const char *k = i < l->nkeys ? l->keys[i] : l->prefixes[i - l->nkeys];
        key_round_trip(k);
        char *u = s3_url_of(&fake, k, NULL);
        if (u) {
            char shown[300];
            s3_url_display(u, shown, sizeof shown);
            sink += strlen(shown);
        }
        free(u);
    }
    s3_req r;
    if (s3_list_req(&fake, &r, "search", "", "fuzz/store/", 1, SIZE_MAX, l) == NCZM_OK)
        sink += strlen(r.url);
    s3_req_clear(&r);
}

static void parse_doc(const char *doc, size_t len, s3_listing *l)
{
    char code[64], msg[200];
    if (s3_xml_error(doc, len, code, sizeof code, msg, sizeof msg) == 0)
        sink += strlen(code) + strlen(msg);
    /* small buffers: what is cut must still end with its NUL */
    char c2[4], m2[40];
    s3_xml_error(doc, len, c2, sizeof c2, m2, sizeof m2);
    if (strlen(c2) >= sizeof c2 || strlen(m2) >= sizeof m2)
        abort();

    char why[128];
    if (s3_xml_listing(doc, len, l, why, sizeof why) == NCZM_OK)
        use_listing(l);
    else
        s3_listing_clear(l);

    char *id = s3_xml_upload_id(doc, len);
    if (id && !*id)
        abort(); /* an empty UploadId is no UploadId */
    free(id);

    s3_xml_delete_errors(doc, len, on_delete_error, NULL);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* each document in a buffer of its own, as a request's answer is (r->buf, NUL after) */
    s3_listing l;
    memset(&l, 0, sizeof l);
    const char *s = (const char *)data, *end = s + size;
    while (s <= end) {
        const char *nul = memchr(s, '\0', (size_t)(end - s));
        size_t n = nul ? (size_t)(nul - s) : (size_t)(end - s);
        char *doc = malloc(n + 1);
        if (!doc)
            break;
        memcpy(doc, s, n);
        doc[n] = '\0';
        parse_doc(doc, n, &l);
        free(doc);
        if (!nul)
            break;
        s = nul + 1;
    }
    s3_listing_clear(&l);
    return 0;
}
