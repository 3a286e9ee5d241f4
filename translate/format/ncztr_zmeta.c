/* .zmetadata, scanned (ncztr_zmeta.h). The scan only finds where each value of the
 * "metadata" object starts and ends (strings, with their escapes, and brackets); whether a
 * value is valid JSON is jansson's to say when the entry is parsed. */
#include "ncztr_zmeta.h"

#include "ncztr_format.h"

#include "nczc_hash.h"
#include "ncztr_jsontext.h"

#include <stdlib.h>
#include <string.h>

typedef struct zentry {
    char *key;       /* NUL-terminated: inside text, or malloc'ed when it had escapes */
    bool key_owned;  /* malloc'ed */
    const char *val; /* the entry's JSON text, vlen bytes, inside text */
    size_t vlen;
} zentry;

/* A group's child, for listing: the key "parent/name/.zgroup" (or .zarray) split up. */
typedef struct centry {
    const char *parent; /* its first plen bytes */
    size_t plen;
    const char *name;
    size_t nlen;
    size_t seq; /* the entry's position */
} centry;

struct ncztr_zmeta {
    char *text;
    zentry *e;
    size_t n;
    nczc_hindex ix; /* entries by key: items are positions + 1 (the array is not moved) */
    centry *c;      /* children, sorted by (parent, seq); NULL until first listed */
    size_t nc;
};

/* JSON whitespace */
static const char *ws(const char *p, const char *end)
{
    while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
        p++;
    return p;
}

/* p at a '"': just past the closing quote, or NULL. *esc: the string has escapes. */
static const char *str_end(const char *p, const char *end, bool *esc)
{
    *esc = false;
    for (p++; p < end; p++) {
        unsigned char c = (unsigned char)*p;
        if (c == '"')
            return p + 1;
        if (c < 0x20)
            return NULL; /* JSON strings hold no raw control characters */
        if (c == '\\') {
            *esc = true;
            if (++p >= end)
                return NULL;
        }
    }
    return NULL;
}

#define MAX_DEPTH 2048 /* as jansson's parser */

/* p at the start of a value: just past its end, or NULL when it is cut short or its
 * brackets do not match. */
static const char *value_end(const char *p, const char *end)
{
    char open[MAX_DEPTH];
    size_t depth = 0;
    bool esc;
    if (p >= end)
        return NULL;
    if (*p == '"')
        return str_end(p, end, &esc);
    if (*p != '{' && *p != '[') {
        const char *s = p;
        while (p < end && !strchr(",}] \t\r\n", *p))
            p++;
        return p > s ? p : NULL;
    }
    while (p < end) {
        char c = *p;
        if (c == '"') {
            if (!(p = str_end(p, end, &esc)))
                return NULL;
            continue;
        }
        if (c == '{' || c == '[') {
            if (depth == MAX_DEPTH)
                return NULL;
            open[depth++] = c;
        } else if (c == '}' || c == ']') {
            if (!depth || open[depth - 1] != (c == '}' ? '{' : '['))
                return NULL;
            if (--depth == 0)
                return p + 1;
        }
        p++;
    }
    return NULL;
}

/* The key of the string at [s, e) (quotes included), NUL-terminated in place when it has
 * no escapes (its closing quote becomes the NUL), else decoded by jansson into a new
 * string. NULL when it does not decode or out of memory (*oom). */
static char *key_of(char *s, const char *e, bool esc, bool *owned, bool *oom)
{
    *owned = false;
    if (!esc) {
        s[e - s - 1] = '\0';
        return s + 1;
    }
    json_error_t err;
    json_t *j = json_loadb(s, (size_t)(e - s), JSON_DECODE_ANY | JSON_ALLOW_NUL, &err);
    char *k = json_is_string(j) ? strdup(json_string_value(j)) : NULL;
    if (json_is_string(j) && !k)
        *oom = true;
    json_decref(j);
    *owned = k != NULL;
    return k;
}

static int entry_match(const void *item, const void *key, size_t len)
{
    (void)len;
    const struct {
        const zentry *e;
        const char *k;
    } *q = key;
    return strcmp(q->e[(uintptr_t)item - 1].key, q->k) == 0;
}

static size_t lookup(const ncztr_zmeta *z, const char *key)
{
    struct {
        const zentry *e;
        const char *k;
    } q = {z->e, key};
    void *hit = nczc_hindex_find(&z->ix, nczc_hash_str(key, strlen(key)), entry_match, &q, 0);
    return (size_t)(uintptr_t)hit; /* position + 1, or 0 */
}

/* Records the members of the "metadata" object at p; returns just past it, or NULL. */
static const char *scan_metadata(ncztr_zmeta *z, char *p, const char *end, bool *oom)
{
    size_t cap = 0;
    p = (char *)ws(p + 1, end);
    if (p < end && *p == '}')
        return p + 1;
    for (;;) {
        bool esc, owned;
        const char *ke, *ve;
        if (p >= end || *p != '"' || !(ke = str_end(p, end, &esc)))
            return NULL;
        char *k = key_of(p, ke, esc, &owned, oom);
        if (!k)
            return NULL;
        p = (char *)ws(ke, end);
        if (p >= end || *p != ':' || ((p = (char *)ws(p + 1, end)), !(ve = value_end(p, end)))) {
            if (owned)
                free(k);
            return NULL;
        }
        if (z->n == cap) {
            size_t nc = cap ? cap * 2 : 256;
            zentry *ne = realloc(z->e, nc * sizeof *ne);
            if (!ne) {
                *oom = true;
                if (owned)
                    free(k);
                return NULL;
            }
            z->e = ne;
            cap = nc;
        }
        z->e[z->n++] = (zentry){k, owned, p, (size_t)(ve - p)};
        p = (char *)ws(ve, end);
        if (p < end && *p == '}')
            return p + 1;
        if (p >= end || *p != ',')
            return NULL;
        p = (char *)ws(p + 1, end);
    }
}

static void drop_entries(ncztr_zmeta *z)
{
    for (size_t i = 0; i < z->n; i++)
        if (z->e[i].key_owned)
            free(z->e[i].key);
    free(z->e);
    z->e = NULL;
    z->n = 0;
}

/* The top-level object: its "metadata" member (the last, if repeated, as jansson keeps). */
static bool scan_top(ncztr_zmeta *z, char *text, size_t len, bool *oom)
{
    const char *end = text + len;
    char *p = (char *)ws(text, end);
    bool have = false;
    if (p >= end || *p != '{')
        return false;
    p = (char *)ws(p + 1, end);
    if (p < end && *p == '}')
        return false;
    for (;;) {
        bool esc;
        const char *ke, *ve;
        if (p >= end || *p != '"' || !(ke = str_end(p, end, &esc)))
            return false;
        bool is_meta = !esc && (size_t)(ke - p) == 10 && memcmp(p, "\"metadata\"", 10) == 0;
        if (esc) { /* "meta\u0064ata" is "metadata" too */
            json_error_t err;
            json_t *j = json_loadb(p, (size_t)(ke - p), JSON_DECODE_ANY | JSON_ALLOW_NUL, &err);
            is_meta = json_is_string(j) && strcmp(json_string_value(j), "metadata") == 0;
            json_decref(j);
        }
        p = (char *)ws(ke, end);
        if (p >= end || *p != ':')
            return false;
        p = (char *)ws(p + 1, end);
        if (is_meta && p < end && *p == '{') {
            drop_entries(z);
            ve = scan_metadata(z, p, end, oom);
            have = ve != NULL;
        } else {
            ve = value_end(p, end);
            if (is_meta) {
                drop_entries(z); /* a later "metadata" that is no object replaces the first */
                have = false;
            }
        }
        if (!ve)
            return false;
        p = (char *)ws(ve, end);
        if (p < end && *p == '}')
            return have && ws(p + 1, end) == end;
        if (p >= end || *p != ',')
            return false;
        p = (char *)ws(p + 1, end);
    }
}

ncztr_zmeta *ncztr_zmeta_scan(char *text, size_t len, bool *oom)
{
    *oom = false;
    ncztr_zmeta *z = calloc(1, sizeof *z);
    if (!z) {
        free(text);
        *oom = true;
        NCZ_PUSH(NCZ_E_NOMEM, "out of memory reading .zmetadata");
        return NULL;
    }
    z->text = text;
    if (!scan_top(z, text, len, oom))
        goto fail;
    /* A key given twice keeps its first place and its last value, as in jansson. */
    size_t w = 0;
    for (size_t r = 0; r < z->n; r++) {
        size_t at = lookup(z, z->e[r].key);
        if (at) {
            z->e[at - 1].val = z->e[r].val;
            z->e[at - 1].vlen = z->e[r].vlen;
            if (z->e[r].key_owned)
                free(z->e[r].key);
            continue;
        }
        z->e[w] = z->e[r];
        if (nczc_hindex_add(&z->ix, nczc_hash_str(z->e[w].key, strlen(z->e[w].key)),
                            (void *)(uintptr_t)(w + 1)) != 0) {
            z->n = w + 1 + (z->n - r - 1); /* keep what still needs freeing */
            memmove(z->e + w + 1, z->e + r + 1, (z->n - w - 1) * sizeof *z->e);
            *oom = true;
            goto fail;
        }
        w++;
    }
    z->n = w;
    return z;
fail:
    if (*oom)
        NCZ_PUSH(NCZ_E_NOMEM, "out of memory reading .zmetadata");
    ncztr_zmeta_free(z);
    return NULL;
}

ncztr_zmeta_st ncztr_zmeta_get(const ncztr_zmeta *z, const char *key, json_t **out)
{
    *out = NULL;
    size_t at = lookup(z, key);
    if (!at)
        return NCZTR_ZMETA_ABSENT;
    const zentry *e = &z->e[at - 1];
    if (e->val[0] != '{') {
        json_error_t err;
        *out = json_loadb(e->val, e->vlen, JSON_DECODE_ANY | JSON_ALLOW_NUL, &err);
        return NCZTR_ZMETA_NOTOBJ;
    }
    size_t mark = ncz_err_mark();
    if (!(*out = ncztr_json_parse_object(key, e->val, e->vlen))) {
        free(ncz_err_take_messages(mark));
        return NCZTR_ZMETA_BROKEN;
    }
    return NCZTR_ZMETA_FOUND;
}

static int cmp_bytes(const char *a, size_t al, const char *b, size_t bl)
{
    int c = memcmp(a, b, al < bl ? al : bl);
    return c ? c : (al > bl) - (al < bl);
}

static int cmp_child(const centry *a, const centry *b, bool by_name)
{
    int c = cmp_bytes(a->parent, a->plen, b->parent, b->plen);
    if (!c && by_name)
        c = cmp_bytes(a->name, a->nlen, b->name, b->nlen);
    return c ? c : (a->seq > b->seq) - (a->seq < b->seq);
}

static int cmp_parent_name_seq(const void *a, const void *b)
{
    return cmp_child(a, b, true);
}

static int cmp_parent_seq(const void *a, const void *b)
{
    return cmp_child(a, b, false);
}

/* Every (parent, child) once, then sorted so that each parent's children are one range in
 * the order of their first entry. */
static herr_t index_children(ncztr_zmeta *z)
{
    if (!(z->c = malloc((z->n ? z->n : 1) * sizeof *z->c)))
        return NCZ_PUSH(NCZ_E_NOMEM, "out of memory indexing .zmetadata");
    for (size_t i = 0; i < z->n; i++) {
        /* "parent/name/<mark>" or "name/<mark>" at the root (a node's metadata key, any
         * format's): the last two segments */
        const char *k = z->e[i].key, *marker = strrchr(k, '/');
        bool mark = false;
        for (size_t m = 0; marker && ncztr_store_marks[m] && !mark; m++)
            mark = strcmp(marker + 1, ncztr_store_marks[m]) == 0;
        if (!mark)
            continue;
        const char *name = marker;
        while (name > k && name[-1] != '/')
            name--;
        z->c[z->nc++] = (centry){k, name > k ? (size_t)(name - k) - 1 : 0, name, (size_t)(marker - name), i};
    }
    qsort(z->c, z->nc, sizeof *z->c, cmp_parent_name_seq);
    size_t w = 0;
    for (size_t r = 0; r < z->nc; r++)
        if (!w || cmp_bytes(z->c[w - 1].parent, z->c[w - 1].plen, z->c[r].parent, z->c[r].plen) != 0 ||
            cmp_bytes(z->c[w - 1].name, z->c[w - 1].nlen, z->c[r].name, z->c[r].nlen) != 0)
            z->c[w++] = z->c[r];
    z->nc = w;
    qsort(z->c, z->nc, sizeof *z->c, cmp_parent_seq);
    return SUCCEED;
}

herr_t ncztr_zmeta_children(ncztr_zmeta *z, const char *key, nczm_list *names)
{
    names->count = 0;
    names->names = NULL;
    if (!z->c && index_children(z) < 0)
        return FAIL;
    size_t kl = strlen(key), lo = 0, hi = z->nc;
    while (lo < hi) { /* the first child whose parent does not sort before key */
        size_t mid = lo + (hi - lo) / 2;
        if (cmp_bytes(z->c[mid].parent, z->c[mid].plen, key, kl) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    size_t end = lo;
    while (end < z->nc && cmp_bytes(z->c[end].parent, z->c[end].plen, key, kl) == 0)
        end++;
    if (!(names->names = malloc((end > lo ? end - lo : 1) * sizeof *names->names)))
        return NCZ_PUSH(NCZ_E_NOMEM, "out of memory listing \"%s\"", *key ? key : "/");
    for (size_t i = lo; i < end; i++) {
        if (!(names->names[names->count] = strndup(z->c[i].name, z->c[i].nlen)))
            return NCZ_PUSH(NCZ_E_NOMEM, "out of memory listing \"%s\"", *key ? key : "/");
        names->count++;
    }
    return SUCCEED;
}

void ncztr_zmeta_free(ncztr_zmeta *z)
{
    if (!z)
        return;
    drop_entries(z);
    nczc_hindex_clear(&z->ix);
    free(z->c);
    free(z->text);
    free(z);
}

/* Zarr v3's consolidated metadata (the root's zarr.json) as the v2 scanner reads it: the
 * nodes keyed "path/zarr.json". */
ncztr_zmeta *ncztr_zmeta_from_v3(const json_t *root, bool *oom)
{
    *oom = false;
    const json_t *cm = json_object_get(root, "consolidated_metadata");
    const json_t *md = json_object_get(cm, "metadata");
    if (!json_is_object(md))
        return NULL;
    /* the consolidated nodes keyed as the loader asks for them: "path/zarr.json" */
    json_t *keyed = json_object();
    json_t *wrap = json_object();
    const char *path;
    json_t *v;
    bool ok = keyed && wrap;
    json_object_foreach((json_t *)md, path, v)
    {
        char *k = ok ? nczm_key_join(path, ncztr_meta_name(NCZTR_ZARR3, true)) : NULL;
        ok = k && json_object_set(keyed, k, v) == 0;
        free(k);
    }
    char *text = NULL;
    if (ok && json_object_set(wrap, "metadata", keyed) == 0)
        text = json_dumps(wrap, JSON_COMPACT);
    json_decref(keyed);
    json_decref(wrap);
    if (!text) {
        *oom = true;
        NCZ_PUSH(NCZ_E_NOMEM, "out of memory reading consolidated metadata");
        return NULL;
    }
    return ncztr_zmeta_scan(text, strlen(text), oom);
}
