/* The XML S3 answers with, read with libxml2: errors, listings, multipart upload ids and
 * DeleteObjects results. Elements are matched by local name (S3 puts them in its
 * namespace, some servers do not). The parser never loads anything from the network
 * (XML_PARSE_NONET) and does not expand entities beyond XML's own five. */
#include "nczm_s3.h"

#include <libxml/parser.h>
#include <libxml/tree.h>
#include <stdio.h>
#include <stdlib.h>

static xmlDocPtr parse(const char *body, size_t len)
{
    if (!body || !len || len > INT32_MAX)
        return NULL;
    return xmlReadMemory(body, (int)len, "s3.xml", NULL,
                         XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
}

static int named(const xmlNode *n, const char *name)
{
    return n->type == XML_ELEMENT_NODE && strcmp((const char *)n->name, name) == 0;
}

static xmlNode *child(const xmlNode *n, const char *name)
{
    for (xmlNode *c = n ? n->children : NULL; c; c = c->next)
        if (named(c, name))
            return c;
    return NULL;
}

/* The text of an element, malloc'ed ("" when empty); NULL when out of memory. */
static char *text_of(const xmlNode *n)
{
    xmlChar *t = n ? xmlNodeGetContent(n) : NULL;
    char *s = strdup(t ? (const char *)t : "");
    if (t)
        xmlFree(t);
    return s;
}

static void copy_text(const xmlNode *n, char *dst, size_t dlen)
{
    char *t = text_of(n);
    snprintf(dst, dlen, "%s", t ? t : "");
    free(t);
}

int s3_xml_error(const char *body, size_t len, char *code, size_t codelen, char *msg, size_t msglen)
{
    code[0] = msg[0] = '\0';
    xmlDocPtr doc = parse(body, len);
    xmlNode *root = doc ? xmlDocGetRootElement(doc) : NULL;
    int r = -1;
    if (root && named(root, "Error")) {
        copy_text(child(root, "Code"), code, codelen);
        copy_text(child(root, "Message"), msg, msglen);
        /* a region mismatch says where the bucket is */
        xmlNode *reg = child(root, "Region");
        if (!reg)
            reg = child(root, "Endpoint");
        if (reg && strlen(msg) + 32 < msglen) {
            size_t l = strlen(msg);
            snprintf(msg + l, msglen - l, "%s(%s ", l ? " " : "", (const char *)reg->name);
            l = strlen(msg);
            copy_text(reg, msg + l, msglen - l - 1);
            strcat(msg, ")");
        }
        r = 0;
    }
    if (doc)
        xmlFreeDoc(doc);
    return r;
}

static int grow(void **arr, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return 0;
    size_t nc = *cap ? *cap * 2 : 64;
    while (nc < need)
        nc *= 2;
    void *na = realloc(*arr, nc * elem);
    if (!na)
        return -1;
    *arr = na;
    *cap = nc;
    return 0;
}

/* Keys and their sizes grow together (capkeys is the capacity of both). */
static int add_key(s3_listing *l, char *k, uint64_t size)
{
    if (l->nkeys == l->capkeys) {
        size_t nc = l->capkeys ? l->capkeys * 2 : 64;
        char **nk = realloc(l->keys, nc * sizeof *nk);
        if (!nk)
            return -1;
        l->keys = nk;
        uint64_t *ns = realloc(l->sizes, nc * sizeof *ns);
        if (!ns)
            return -1;
        l->sizes = ns;
        l->capkeys = nc;
    }
    l->keys[l->nkeys] = k;
    l->sizes[l->nkeys++] = size;
    return 0;
}

void s3_listing_clear(s3_listing *l)
{
    for (size_t i = 0; i < l->nkeys; i++)
        free(l->keys[i]);
    for (size_t i = 0; i < l->nprefixes; i++)
        free(l->prefixes[i]);
    free(l->keys);
    free(l->sizes);
    free(l->prefixes);
    free(l->next_token);
    memset(l, 0, sizeof *l);
}

nczm_status s3_xml_listing(const char *body, size_t len, s3_listing *out, char *why, size_t whylen)
{
    xmlDocPtr doc = parse(body, len);
    xmlNode *root = doc ? xmlDocGetRootElement(doc) : NULL;
    if (!root || !named(root, "ListBucketResult")) {
        snprintf(why, whylen, "the listing is not a ListBucketResult document");
        if (doc)
            xmlFreeDoc(doc);
        return NCZM_IO;
    }
    nczm_status st = NCZM_OK;
    free(out->next_token);
    out->next_token = NULL;
    out->truncated = 0;
    for (xmlNode *c = root->children; c && st == NCZM_OK; c = c->next) {
        if (named(c, "Contents")) {
            char *k = text_of(child(c, "Key")), *sz = text_of(child(c, "Size"));
            if (!k || !sz || add_key(out, k, strtoull(sz, NULL, 10)) != 0) {
                free(k);
                st = NCZM_NOMEM;
            }
            free(sz);
        } else if (named(c, "CommonPrefixes")) {
            char *p = text_of(child(c, "Prefix"));
            if (!p ||
                grow((void **)&out->prefixes, &out->capprefixes, out->nprefixes + 1, sizeof *out->prefixes)) {
                free(p);
                st = NCZM_NOMEM;
                break;
            }
            out->prefixes[out->nprefixes++] = p;
        } else if (named(c, "IsTruncated")) {
            char *t = text_of(c);
            out->truncated = t && strcmp(t, "true") == 0;
            free(t);
        } else if (named(c, "NextContinuationToken")) {
            free(out->next_token);
            if (!(out->next_token = text_of(c)))
                st = NCZM_NOMEM;
        }
    }
    if (st == NCZM_NOMEM)
        snprintf(why, whylen, "out of memory");
    else if (out->truncated && (!out->next_token || !*out->next_token)) {
        snprintf(why, whylen, "a truncated listing without a NextContinuationToken");
        st = NCZM_IO;
    }
    xmlFreeDoc(doc);
    return st;
}

char *s3_xml_upload_id(const char *body, size_t len)
{
    xmlDocPtr doc = parse(body, len);
    xmlNode *root = doc ? xmlDocGetRootElement(doc) : NULL;
    char *id = NULL;
    if (root && named(root, "InitiateMultipartUploadResult")) {
        xmlNode *u = child(root, "UploadId");
        id = u ? text_of(u) : NULL;
        if (id && !*id) {
            free(id);
            id = NULL;
        }
    }
    if (doc)
        xmlFreeDoc(doc);
    return id;
}

nczm_status s3_xml_delete_errors(const char *body, size_t len, s3_delerr_fn fn, void *arg)
{
    xmlDocPtr doc = parse(body, len);
    xmlNode *root = doc ? xmlDocGetRootElement(doc) : NULL;
    if (!root || !named(root, "DeleteResult")) {
        if (doc)
            xmlFreeDoc(doc);
        return NCZM_IO;
    }
    for (xmlNode *c = root->children; c; c = c->next) {
        if (!named(c, "Error"))
            continue;
        char key[1100], code[64], msg[200];
        copy_text(child(c, "Key"), key, sizeof key);
        copy_text(child(c, "Code"), code, sizeof code);
        copy_text(child(c, "Message"), msg, sizeof msg);
        fn(arg, key, code, msg);
    }
    xmlFreeDoc(doc);
    return NCZM_OK;
}
