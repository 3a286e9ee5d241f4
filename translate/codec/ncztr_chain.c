/* The codec chain of one array (stub: only the null chain until the codecs land). */
#include "ncztr_codecs.h"
#include "ncztr_err.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct ncztr_chain {
    bool null;
    char *unusable;
};

static bool codec_absent(const json_t *j)
{
    return j == NULL || json_is_null(j) || (json_is_array(j) && json_array_size(j) == 0);
}

herr_t ncztr_chain_build(const json_t *filters, const json_t *compressor, size_t esz, size_t chunk_bytes,
                         const char *path, ncztr_chain **out)
{
    (void)esz;
    (void)chunk_bytes;
    ncztr_chain *c = calloc(1, sizeof *c);
    if (!c)
        return NCZ_PUSH(NCZ_E_NOMEM, "array \"%s\": out of memory building its codec chain", path);
    c->null = codec_absent(filters) && codec_absent(compressor);
    if (!c->null) {
        char buf[512];
        const json_t *f = codec_absent(filters) ? compressor : json_array_get(filters, 0);
        const char *id = json_string_value(json_object_get(f, "id"));
        snprintf(buf, sizeof buf, "codec \"%s\" is not supported yet", id ? id : "?");
        c->unusable = strdup(buf);
    }
    *out = c;
    return SUCCEED;
}

void ncztr_chain_free(ncztr_chain *c)
{
    if (!c)
        return;
    free(c->unusable);
    free(c);
}

bool ncztr_chain_is_null(const ncztr_chain *c)
{
    return c->null;
}

const char *ncztr_chain_unusable(const ncztr_chain *c)
{
    return c->unusable;
}

int ncztr_chain_decode(const ncztr_chain *c, const void *in, size_t inlen, void *out, size_t outlen,
                       ncztr_cerr *e)
{
    if (c->unusable) {
        snprintf(e->msg, sizeof e->msg, "%s", c->unusable);
        return -1;
    }
    if (inlen != outlen) {
        snprintf(e->msg, sizeof e->msg, "stored chunk has %zu bytes, expected %zu", inlen, outlen);
        return -1;
    }
    memcpy(out, in, outlen);
    return 0;
}

int ncztr_chain_encode(const ncztr_chain *c, const void *in, size_t inlen, void **out, size_t *outlen,
                       ncztr_cerr *e)
{
    if (c->unusable) {
        snprintf(e->msg, sizeof e->msg, "%s", c->unusable);
        return -1;
    }
    *out = (void *)(uintptr_t)in;
    *outlen = inlen;
    return 0;
}
