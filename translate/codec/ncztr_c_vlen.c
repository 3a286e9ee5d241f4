/* The array->bytes codecs of variable-length elements (numcodecs "vlen-utf8", "vlen-bytes",
 * "vlen-array"; Zarr v3 "vlen-utf8", "vlen-bytes", "numcodecs.vlen-array"). One encoding
 * for the three:
 *   uint32 LE  number of elements (the whole chunk, edge chunks included)
 *   then per element, in the chunk's order: uint32 LE byte length, the bytes.
 * vlen-utf8 holds UTF-8 text, vlen-bytes raw bytes, vlen-array the numbers of a sequence
 * (its "dtype": the length must be a multiple of their size).
 *
 * In memory a decoded chunk is an array of hvl_t, one per element: len counts bytes for
 * text and bytes, numbers for sequences; p is malloc'ed (NULL when len is 0) and belongs to
 * whoever decoded it (translate/data/ncztr_vlen.c, which converts to the application's
 * types). So the chain's "raw chunk" of such an array is nel * sizeof(hvl_t) bytes, and
 * only this codec ever looks inside it. */
#include "ncztr_codec_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct vlen_state {
    size_t bsz; /* bytes per unit of hvl_t.len: 1, or the size of a sequence's numbers */
    const char *name;
} vlen_state;

static uint32_t le32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void put_le32(unsigned char *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static int parse_common(const char *name, size_t bsz, void **state, char *msg, size_t msglen)
{
    vlen_state *s = calloc(1, sizeof *s);
    if (!s) {
        NCZTR_CODEC_MSG("out of memory");
        return -1;
    }
    s->bsz = bsz;
    s->name = name;
    *state = s;
    return 1;
}

static int parse_utf8(const json_t *j, bool v3, const ncztr_cctx *cx, void **state, char *msg, size_t msglen)
{
    (void)j;
    (void)v3;
    (void)cx;
    return parse_common("vlen-utf8", 1, state, msg, msglen);
}

static int parse_bytes(const json_t *j, bool v3, const ncztr_cctx *cx, void **state, char *msg, size_t msglen)
{
    (void)j;
    (void)v3;
    (void)cx;
    return parse_common("vlen-bytes", 1, state, msg, msglen);
}

/* "dtype": the numbers' numpy type ("<u4"); their size is what a length must divide by. */
static int parse_array(const json_t *j, bool v3, const ncztr_cctx *cx, void **state, char *msg, size_t msglen)
{
    (void)v3;
    (void)cx;
    const char *dt = json_string_value(json_object_get(j, "dtype"));
    size_t n = 0;
    if (dt && strlen(dt) >= 3 && strchr("<>|", dt[0]) && strchr("iuf", dt[1]))
        n = (size_t)strtoul(dt + 2, NULL, 10);
    if (n != 1 && n != 2 && n != 4 && n != 8) {
        NCZTR_CODEC_MSG("codec \"vlen-array\": \"dtype\" must name a number type such as \"<u4\"");
        return -1;
    }
    return parse_common("vlen-array", n, state, msg, msglen);
}

static void free_elems(hvl_t *el, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(el[i].p);
        el[i].p = NULL;
        el[i].len = 0;
    }
}

static int encode(const void *state, const ncztr_cctx *cx, const void *in, size_t inlen, void **out,
                  size_t *outlen, ncztr_cerr *e)
{
    const vlen_state *s = state;
    const hvl_t *el = in;
    size_t nel = inlen / sizeof(hvl_t), total = 4;
    (void)cx;
    if (nel > UINT32_MAX)
        return NCZTR_CODEC_FAIL(e, "%s: a chunk of %zu elements is too large (at most 2^32-1)", s->name, nel);
    for (size_t i = 0; i < nel; i++) {
        if (el[i].len > UINT32_MAX / s->bsz || total > SIZE_MAX - 4 - el[i].len * s->bsz)
            return NCZTR_CODEC_FAIL(e, "%s: an element of %zu bytes is too long (at most 4 GiB)", s->name,
                                    el[i].len * s->bsz);
        total += 4 + el[i].len * s->bsz;
    }
    unsigned char *buf = malloc(total), *p = buf;
    if (!buf)
        return NCZTR_CODEC_FAIL(e, "%s: out of memory", s->name);
    put_le32(p, (uint32_t)nel);
    p += 4;
    for (size_t i = 0; i < nel; i++) {
        size_t l = el[i].len * s->bsz;
        put_le32(p, (uint32_t)l);
        p += 4;
        if (l)
            memcpy(p, el[i].p, l);
        p += l;
    }
    *out = buf;
    *outlen = total;
    return 0;
}

static int decode(const void *state, const ncztr_cctx *cx, const void *in, size_t inlen, void *out,
                  size_t cap, ncztr_dres *r, ncztr_cerr *e)
{
    const vlen_state *s = state;
    const unsigned char *buf = in;
    size_t nel = cx->chunk_bytes / sizeof(hvl_t), pos = 4, bsz = s->bsz;
    hvl_t *el = out;
    if (cap < cx->chunk_bytes)
        return NCZTR_CODEC_FAIL(e, "%s: no room for %zu elements", s->name, nel);
    memset(el, 0, nel * sizeof *el);
    if (inlen < 4)
        return NCZTR_CODEC_FAIL(e, "%s: %zu bytes, too few for a chunk of variable-length elements", s->name,
                                inlen);
    if (le32(buf) != nel)
        return NCZTR_CODEC_FAIL(e, "%s: the chunk holds %lu elements, expected %zu", s->name,
                                (unsigned long)le32(buf), nel);
    for (size_t i = 0; i < nel; i++) {
        if (inlen - pos < 4) {
            free_elems(el, i);
            return NCZTR_CODEC_FAIL(e, "%s: the chunk ends inside element %zu", s->name, i);
        }
        size_t l = le32(buf + pos);
        pos += 4;
        if (l > inlen - pos || l % bsz) {
            free_elems(el, i);
            return NCZTR_CODEC_FAIL(e, "%s: element %zu has %zu bytes, %s", s->name, i, l,
                                    l % bsz ? "not a whole number of its numbers"
                                            : "more than the chunk holds");
        }
        if (l) {
            if (!(el[i].p = malloc(l))) {
                free_elems(el, i);
                return NCZTR_CODEC_FAIL(e, "%s: out of memory", s->name);
            }
            memcpy(el[i].p, buf + pos, l);
        }
        el[i].len = l / bsz;
        pos += l;
    }
    if (pos != inlen) {
        free_elems(el, nel);
        return NCZTR_CODEC_FAIL(e, "%s: %zu bytes after the chunk's last element", s->name, inlen - pos);
    }
    r->where = NCZTR_D_OUT;
    r->outlen = cx->chunk_bytes;
    return 0;
}

const ncztr_codec_class ncztr_codec_vlen_utf8 = {
    .v2id = "vlen-utf8",
    .v3name = "vlen-utf8",
    .kind = NCZTR_CK_A2B,
    .vlen = true,
    .parse = parse_utf8,
    .encode = encode,
    .decode = decode,
    .free_state = free,
};

const ncztr_codec_class ncztr_codec_vlen_bytes = {
    .v2id = "vlen-bytes",
    .v3name = "vlen-bytes",
    .kind = NCZTR_CK_A2B,
    .vlen = true,
    .parse = parse_bytes,
    .encode = encode,
    .decode = decode,
    .free_state = free,
};

const ncztr_codec_class ncztr_codec_vlen_array = {
    .v2id = "vlen-array",
    .kind = NCZTR_CK_A2B,
    .vlen = true,
    .parse = parse_array,
    .encode = encode,
    .decode = decode,
    .free_state = free,
};
