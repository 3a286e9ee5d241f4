/* The format seam (ncztr_format.h): key names and the roles of a node's metadata. */
#include "ncztr_format.h"

#include "ncztr_jsontext.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ZGROUP  ".zgroup"
#define ZARRAY  ".zarray"
#define ZATTRS  ".zattrs"
#define ZMETA   ".zmetadata"
#define V3_META "zarr.json"

const char *const ncztr_store_marks[] = {ZGROUP, ZARRAY, V3_META, NULL};
const char *const ncztr_store_prefetch[] = {ZMETA, V3_META, NULL};
const char *const ncztr_root_keys[NCZTR_NROOT] = {ZMETA, ZGROUP, ZARRAY, ZATTRS, V3_META};
const char *const ncztr_cons_key = ZMETA;

herr_t ncztr_node_keys(ncztr_zfmt f, const char *key, bool group, bool array, char *keys[NCZTR_NSLOTS])
{
    bool oom = false;
    for (int i = 0; i < NCZTR_NSLOTS; i++)
        keys[i] = NULL;
    if (f == NCZTR_ZARR3) {
        oom = !(keys[NCZTR_SLOT_GROUP] = nczm_key_join(key, V3_META));
    } else {
        if (group)
            oom |= !(keys[NCZTR_SLOT_GROUP] = nczm_key_join(key, ZGROUP));
        if (array)
            oom |= !(keys[NCZTR_SLOT_ARRAY] = nczm_key_join(key, ZARRAY));
        oom |= !(keys[NCZTR_SLOT_ATTRS] = nczm_key_join(key, ZATTRS));
    }
    if (oom) {
        for (int i = 0; i < NCZTR_NSLOTS; i++) {
            free(keys[i]);
            keys[i] = NULL;
        }
        return NCZ_PUSH(NCZ_E_NOMEM, "out of memory");
    }
    return SUCCEED;
}

/* The attributes of a v3 array with "dimension_names" as xarray's _ARRAY_DIMENSIONS (the
 * shared dimensions of the rest of the connector), unless every name is null. */
static json_t *v3_attrs(const json_t *meta)
{
    json_t *a = json_object_get(meta, "attributes");
    const json_t *dn = json_object_get(meta, "dimension_names");
    bool named = false;
    for (size_t k = 0; k < json_array_size(dn); k++)
        named |= json_is_string(json_array_get(dn, k));
    if (!named || json_object_get(a, "_ARRAY_DIMENSIONS"))
        return json_is_object(a) ? json_incref(a) : NULL;
    json_t *c = json_is_object(a) ? json_copy(a) : json_object();
    json_t *names = json_array();
    for (size_t k = 0; c && names && k < json_array_size(dn); k++) {
        const json_t *n = json_array_get(dn, k);
        /* an unnamed dimension among named ones: netCDF's anonymous dimension name */
        if (json_array_append_new(names,
                                  json_is_string(n) ? json_string(json_string_value(n)) : json_null()) < 0)
            break;
    }
    if (!c || !names || json_array_size(names) != json_array_size(dn) ||
        json_object_set_new(c, "_ARRAY_DIMENSIONS", names) < 0) {
        json_decref(c);
        return NULL;
    }
    return c;
}

herr_t ncztr_node_roles(ncztr_zfmt f, const char *key, json_t *js[NCZTR_NSLOTS], char *errs[NCZTR_NSLOTS])
{
    if (f != NCZTR_ZARR3)
        return SUCCEED;
    json_t *meta = js[NCZTR_SLOT_GROUP];
    js[NCZTR_SLOT_GROUP] = NULL;
    if (errs[NCZTR_SLOT_GROUP]) {
        errs[NCZTR_SLOT_ARRAY] = errs[NCZTR_SLOT_GROUP];
        errs[NCZTR_SLOT_GROUP] = NULL;
        return SUCCEED;
    }
    if (!meta)
        return SUCCEED;
    const char *type = json_string_value(json_object_get(meta, "node_type"));
    const json_t *zf = json_object_get(meta, "zarr_format");
    herr_t ret = SUCCEED;
    if (!json_is_integer(zf) || json_integer_value(zf) != 3 || !type ||
        (strcmp(type, "group") != 0 && strcmp(type, "array") != 0)) {
        if (asprintf(&errs[NCZTR_SLOT_ARRAY],
                     "%s%s" V3_META
                     ": not Zarr v3 metadata (\"zarr_format\" 3 and \"node_type\" \"group\" or "
                     "\"array\")",
                     key, *key ? "/" : "") < 0) {
            errs[NCZTR_SLOT_ARRAY] = NULL;
            ret = NCZ_PUSH(NCZ_E_NOMEM, "out of memory");
        }
    } else if (!strcmp(type, "group")) {
        json_t *a = json_object_get(meta, "attributes");
        if (!(js[NCZTR_SLOT_GROUP] = json_object()))
            ret = NCZ_PUSH(NCZ_E_NOMEM, "out of memory");
        js[NCZTR_SLOT_ATTRS] = json_is_object(a) ? json_incref(a) : NULL;
    } else {
        js[NCZTR_SLOT_ARRAY] = json_incref(meta);
        js[NCZTR_SLOT_ATTRS] = v3_attrs(meta);
        if (json_object_get(meta, "attributes") && !js[NCZTR_SLOT_ATTRS] &&
            json_is_object(json_object_get(meta, "attributes")))
            ret = NCZ_PUSH(NCZ_E_NOMEM, "out of memory");
    }
    json_decref(meta);
    return ret;
}

char *ncztr_array_meta_key(ncztr_zfmt f, const char *key)
{
    return nczm_key_join(key, f == NCZTR_ZARR3 ? V3_META : ZARRAY);
}

char *ncztr_attrs_key(ncztr_zfmt f, const char *key)
{
    return nczm_key_join(key, f == NCZTR_ZARR3 ? V3_META : ZATTRS);
}

herr_t ncztr_array_meta_parse(ncztr_zfmt f, const char *mkey, json_t *meta, ncztr_zarray *out)
{
    if (f == NCZTR_ZARR3)
        return ncztr_zarr3_array_from_json(mkey, meta, out);
    return ncztr_zarray_from_json(mkey, meta, out);
}

const char *ncztr_meta_name(ncztr_zfmt f, bool group)
{
    return f == NCZTR_ZARR3 ? V3_META : group ? ZGROUP : ZARRAY;
}

const char *ncztr_attrs_name(ncztr_zfmt f)
{
    return f == NCZTR_ZARR3 ? NULL : ZATTRS;
}

/* "{"metadata": {k: text, ...}, tail}" with keys rewritten by strip (the v3 node paths). */
static char *cons_object(size_t n, char *const *keys, char *const *texts, const char *head, const char *tail,
                         bool strip)
{
    size_t len = strlen(head) + strlen(tail) + 64;
    for (size_t i = 0; i < n; i++)
        len += 2 * strlen(keys[i]) + 8 + strlen(texts[i]) + 4;
    char *out = malloc(len), *p = out;
    if (!out)
        return NULL;
    p += sprintf(p, "%s", head);
    for (size_t i = 0; i < n; i++) {
        char *k = strip ? strndup(keys[i], strlen(keys[i]) - strlen("/" V3_META)) : strdup(keys[i]);
        json_t *ks = k ? json_string(k) : NULL;
        free(k);
        char *kt = ks ? ncztr_json_dump(ks) : NULL; /* the key, quoted and escaped */
        json_decref(ks);
        if (!kt) {
            free(out);
            return NULL;
        }
        p += sprintf(p, "%s%s: %s", i ? ", " : "", kt, texts[i]);
        free(kt);
    }
    sprintf(p, "%s", tail);
    return out;
}

char *ncztr_cons_text(ncztr_zfmt f, const char *root_text, size_t n, char *const *keys, char *const *texts)
{
    if (f != NCZTR_ZARR3)
        return cons_object(n, keys, texts, "{\"metadata\": {", "}, \"zarr_consolidated_format\": 1}", false);
    /* the root's object with the nodes inline, zarr-python's "inline" kind (root_text is
     * an object: its closing brace is replaced) */
    const char *end = strrchr(root_text, '}');
    if (!end)
        return NULL;
    size_t hl = (size_t)(end - root_text);
    char *head = malloc(hl + 96);
    if (!head)
        return NULL;
    memcpy(head, root_text, hl);
    while (hl > 0 && (head[hl - 1] == ' ' || head[hl - 1] == '\n'))
        hl--;
    sprintf(head + hl,
            "%s\"consolidated_metadata\": {\"kind\": \"inline\", \"must_understand\": false, "
            "\"metadata\": {",
            hl > 1 ? ", " : "");
    char *out = cons_object(n, keys, texts, head, "}}}", true);
    free(head);
    return out;
}

herr_t ncztr_v2_group_check(const char *key, const json_t *js)
{
    json_t *fmt = json_object_get(js, "zarr_format");
    if (!json_is_integer(fmt) || json_integer_value(fmt) != 2)
        return NCZ_PUSH(NCZ_E_UNSUPPORTED, "%s: only Zarr format 2 is supported there (zarr_format %s)", key,
                        fmt && json_is_integer(fmt) ? "is not 2" : "missing");
    return SUCCEED;
}

size_t ncztr_meta_key_extra(void)
{
    return strlen("/zarr.json") > strlen("/.zattrs") ? strlen("/zarr.json") : strlen("/.zattrs");
}

json_t *ncztr_v2_group_json(void)
{
    return json_pack("{s:i}", "zarr_format", 2);
}
