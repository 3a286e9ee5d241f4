/* Writing the model back: dimensions are derived first (every array dimension must name
 * a shared dimension for netCDF-C), then the dirty metadata objects of every node are
 * written in one batch. With consolidation on (or when the store had .zmetadata, which
 * would otherwise go stale) .zmetadata is rebuilt from the whole model. */
#include "ncztr_array_internal.h"
#include "ncztr_format.h"
#include "ncztr_par.h"
#include "ncztr_save_internal.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

typedef struct saver {
    ncztr_file *f;
    nczm_put *puts;
    char **keys;
    char **bufs;
    size_t n, cap;
    /* .zmetadata being built: its entries' keys and texts in order (a text is the put's
     * when the object is also written, else owned here), by key in ix. As text, not as
     * one JSON tree: the tree of 100000 arrays cost more than all the rest of a save. */
    bool cons;
    struct centry {
        char *key;
        const char *text;
        char *own;
    } * ce;
    size_t nce, cecap;
    nczc_hindex ix;
    char *root_text; /* v3: the root's zarr.json, held back for the nodes to go inline */
    /* The objects handed to the store while the rest are built (a file of one process):
     * puts never moves then (cap is enough for every node), and each block of them is
     * written while the next is built. */
    nczm_commit *c;
} saver;

/* Objects handed to the commit at a time while it runs. */
#define SAVE_HANDOVER 256

/* The ascii-json option: *text (owned) replaced by its ASCII form; freed on failure. */
static herr_t as_ascii(const saver *S, char **text)
{
    if (!S->f->opts.ascii_json)
        return SUCCEED;
    char *a = ncztr_json_ascii(*text);
    free(*text);
    *text = a;
    return a ? SUCCEED : FAIL;
}

static herr_t add_put(saver *S, char *key, char *text)
{
    if (S->n == S->cap && S->c) {
        free(key);
        free(text);
        return NCZ_PUSH(NCZ_E_INTERNAL, "more metadata objects than the store's nodes");
    }
    if (S->n == S->cap) {
        size_t nc = S->cap ? S->cap * 2 : 16;
        nczm_put *p = realloc(S->puts, nc * sizeof *p);
        if (p)
            S->puts = p;
        char **k = realloc(S->keys, nc * sizeof *k);
        if (k)
            S->keys = k;
        char **b = realloc(S->bufs, nc * sizeof *b);
        if (b)
            S->bufs = b;
        if (!p || !k || !b) {
            free(key);
            free(text);
            return NCZ_PUSH(NCZ_E_NOMEM, "out of memory saving metadata");
        }
        S->cap = nc;
    }
    S->keys[S->n] = key;
    S->bufs[S->n] = text;
    S->puts[S->n] = (nczm_put){.key = key, .buf = text, .len = strlen(text)};
    S->n++;
    if (S->c && S->n % SAVE_HANDOVER == 0)
        nczm_commit_ready(S->c, S->n);
    return SUCCEED;
}

static size_t count_nodes(const ncztr_obj *o)
{
    size_t n = 1;
    for (size_t i = 0; i < o->nchildren; i++)
        n += count_nodes(o->children[i]);
    return n;
}

/* A file of one process hands its objects to the store as they are built, when there are
 * enough of them for that to pay: a node makes at most two objects, .zmetadata one more. */
static herr_t start_commit(saver *S)
{
    ncztr_file *f = S->f;
    if (f->par || f->shared_skip)
        return SUCCEED;
    size_t cap = 2 * count_nodes(f->root) + 1;
    if (cap < 2 * SAVE_HANDOVER)
        return SUCCEED;
    nczm_put *p = malloc(cap * sizeof *p);
    char **k = malloc(cap * sizeof *k), **b = malloc(cap * sizeof *b);
    if (!p || !k || !b) {
        free(p);
        free(k);
        free(b);
        return NCZ_PUSH(NCZ_E_NOMEM, "out of memory saving metadata");
    }
    S->puts = p;
    S->keys = k;
    S->bufs = b;
    S->cap = cap;
    S->c = nczm_commit_begin(f->map, S->puts, cap);
    return SUCCEED;
}

/* The failure of a commit, naming the first object that failed. */
static herr_t commit_failed(const ncztr_file *f, const saver *S)
{
    for (size_t i = 0; i < S->n; i++)
        if (S->puts[i].status != NCZM_OK)
            return NCZ_PUSH(NCZ_E_STORE, "writing metadata \"%s\" failed: %s", S->puts[i].key,
                            nczm_errmsg(f->map));
    return NCZ_PUSH(NCZ_E_STORE, "writing metadata failed: %s", nczm_errmsg(f->map));
}

static herr_t flush_array(ncztr_obj *o, void *ud)
{
    (void)ud;
    if (o->deleted || o->kind != NCZTR_ARRAY || !o->arr || o->arr->dimonly || o->arr->load_error)
        return SUCCEED;
    return ncztr_array_flush(o);
}

static json_t *build_zgroup(void)
{
    json_t *j = ncztr_v2_group_json();
    if (!j)
        NCZ_PUSH(NCZ_E_NOMEM, "out of memory building a group's metadata");
    return j;
}

/* The children's link names in creation order, "_nczarr_group.hdf5_order", when loading
 * would give another order (a committed datatype before the dataset that uses it, say:
 * netCDF-C reads types in creation order); NULL when it would not. */
static json_t *creation_order(const ncztr_obj *g)
{
    int last = 0;
    bool sorted = true;
    for (size_t i = 0; i < g->nchildren && sorted; i++) {
        int r = ncztr_save_load_rank(g->children[i]);
        if (r >= 0 && r < last)
            sorted = false;
        if (r > last)
            last = r;
    }
    if (sorted)
        return NULL;
    json_t *l = json_array();
    bool ok = l != NULL;
    for (size_t i = 0; ok && i < g->nchildren; i++)
        if (ncztr_save_load_rank(g->children[i]) >= 0)
            jadd(&ok, l, json_string(g->children[i]->name));
    if (!ok) {
        json_decref(l);
        return json_null(); /* the caller's jset keeps the failure */
    }
    return l;
}

/* {key name: link name} of the children stored under escaped key names
 * (ncztr_key_escape); NULL when out of memory (the caller's jset fails on it). */
static json_t *escaped_names(const ncztr_obj *g)
{
    bool ok = true;
    json_t *m = json_object();
    for (size_t i = 0; m && i < g->nchildren; i++) {
        const ncztr_obj *c = g->children[i];
        const char *k = c->kind == NCZTR_ALIAS ? NULL : ncztr_obj_keyname(c);
        if (!k || !c->esc_key || k != c->esc_key) /* not escaped (the cache is its name's) */
            continue;
        jset(&ok, m, c->esc_key, json_string(c->name));
    }
    if (!ok) {
        json_decref(m);
        return NULL;
    }
    return m;
}

/* hidden: the arrays netCDF-C must not see (structured dtypes), else the others. */
static json_t *name_list(const ncztr_obj *g, ncztr_objkind kind, bool hidden)
{
    bool ok = true;
    json_t *l = json_array();
    for (size_t i = 0; i < g->nchildren; i++) {
        const ncztr_obj *c = g->children[i];
        if (c->kind == NCZTR_ARRAY && c->arr && c->arr->dimonly)
            continue; /* a dimension, not an array */
        if (c->kind == kind && (kind != NCZTR_ARRAY || (c->arr && c->arr->nc_hidden) == hidden))
            jadd(&ok, l, json_string(ncztr_obj_keyname(c)));
    }
    if (!ok) {
        json_decref(l);
        return NULL; /* the caller's jset fails on it */
    }
    return l;
}

/* An object's .zattrs as a tree of JSON values. Most arrays and groups of a v2 store have
 * nothing of their own in it: ncztr_savetext.c writes theirs as text, the same text this
 * tree dumps to (a change of a key here is a change there). */
static herr_t build_zattrs(const ncztr_obj *o, json_t **out)
{
    herr_t ret = SUCCEED;
    ncztr_file *f = o->file;
    bool nc = !f->opts.pure_zarr, ok = true;
    json_t *j = json_object(), *types = json_object(), *atypes = NULL, *h5 = NULL;
    json_t *ashapes = json_object(), *acsets = json_object();
    NCZ_CHECK_ALLOC(j && types && ashapes && acsets, FAIL);
    if (ncztr_save_user_attrs(o, j, types, &atypes, ashapes, acsets) < 0)
        NCZ_GOTO_QUIET(FAIL);
    if (o->kind == NCZTR_ARRAY) {
        const ncztr_array *a = o->arr;
        if (!f->opts.noxarray) {
            json_t *ad = json_array();
            if (a->scalar)
                jadd(&ok, ad, json_string("_scalar_"));
            else
                for (int k = 0; k < a->za.rank; k++)
                    jadd(&ok, ad,
                         json_string(a->dimrefs && a->dimrefs[k] ? ncztr_save_simple_name(a->dimrefs[k])
                                                                 : "_unknown_"));
            jset(&ok, j, "_ARRAY_DIMENSIONS", ad);
            jset(&ok, types, "_ARRAY_DIMENSIONS", json_string("|J0"));
        }
        if (nc && a->vlen_string && a->maxstrlen != f->default_maxstrlen) {
            jset(&ok, j, "_nczarr_maxstrlen", json_integer((json_int_t)a->maxstrlen));
            jset(&ok, types, "_nczarr_maxstrlen", json_string("<i4"));
        }
        if (nc) {
            json_t *na = json_object(), *refs = json_array();
            if (!a->scalar)
                for (int k = 0; k < a->za.rank; k++)
                    jadd(&ok, refs, json_string(a->dimrefs && a->dimrefs[k] ? a->dimrefs[k] : ""));
            jset(&ok, na, "dimension_references", refs);
            if (a->scalar)
                jset(&ok, na, "scalar", json_integer(1));
            if (a->null_space)
                jset(&ok, na, "hdf5_null", json_integer(1));
            if (a->is_datatype)
                jset(&ok, na, "hdf5_datatype", json_integer(1));
            if (a->za.dtype.tclass == NCZTR_T_STRING && !a->vlen_string)
                jset(&ok, na, "fixedstring", json_integer(1));
            if (ncztr_ctype_is_special(a->type) || a->ref_obj ||
                (a->za.dtype.tclass == NCZTR_T_VLEN && a->za.vlen_kind == 'j')) {
                /* enum/compound/array/references: the exact HDF5 type (the dtype says only
                 * the bytes, or the text of the objects' paths) */
                char *b64 = ncztr_type_encode(a->type, o->name);
                if (!b64) {
                    json_decref(na);
                    NCZ_GOTO_QUIET(FAIL);
                }
                jset(&ok, na, "hdf5_type", json_string(b64));
                free(b64);
            }
            if (ncztr_zarray_fill_elided(&a->za))
                jset(&ok, na, "fill_zero", json_integer(1));
            if (!a->scalar && ncztr_save_finite_maxdims(a)) {
                /* maximum dimensions beyond the shape (NCZarr says only which dimensions are
                 * unlimited): each, or null for an unlimited one */
                json_t *md = json_array();
                for (int k = 0; k < a->za.rank; k++)
                    jadd(&ok, md,
                         a->maxdims[k] == H5S_UNLIMITED ? json_null()
                                                        : json_integer((json_int_t)a->maxdims[k]));
                jset(&ok, na, "hdf5_maxdims", md);
            }
            if (ncztr_is_half_float(a->type)) /* stored as float32: see ncztr_array_create */
                jset(&ok, na, "hdf5_dtype",
                     json_string(H5Tget_order(a->type) == H5T_ORDER_BE ? ">f2" : "<f2"));
            jset(&ok, na, "storage",
                 json_string(a->storage == NCZTR_STORAGE_CONTIGUOUS ? "contiguous"
                             : a->storage == NCZTR_STORAGE_COMPACT  ? "compact"
                                                                    : "chunked"));
            jset(&ok, j, "_nczarr_array", na);
            jset(&ok, types, "_nczarr_array", json_string("|J0"));
        }
    } else {
        if (!o->parent && f->ncproperties) {
            jset(&ok, j, "_NCProperties", json_string(f->ncproperties));
            jset(&ok, types, "_NCProperties", json_string(">S1"));
        }
        if (nc) {
            json_t *g = json_object(), *dims = json_object();
            for (size_t i = 0; i < o->ndims; i++) {
                const ncztr_dim *d = &o->dims[i];
                if (d->unlimited) {
                    json_t *u = json_object();
                    jset(&ok, u, "size", json_integer((json_int_t)d->size));
                    jset(&ok, u, "unlimited", json_integer(1));
                    jset(&ok, dims, d->name, u);
                } else {
                    jset(&ok, dims, d->name, json_integer((json_int_t)d->size));
                }
            }
            jset(&ok, g, "dimensions", dims);
            jset(&ok, g, "arrays", name_list(o, NCZTR_ARRAY, false));
            jset(&ok, g, "groups", name_list(o, NCZTR_GROUP, false));
            json_t *hn = escaped_names(o);
            if (hn && json_object_size(hn))
                jset(&ok, g, "hdf5_names", hn);
            else
                json_decref(hn);
            json_t *ord = creation_order(o);
            if (ord)
                jset(&ok, g, "hdf5_order", ord);
            json_t *hidden = name_list(o, NCZTR_ARRAY, true);
            if (json_array_size(hidden) > 0)
                jset(&ok, g, "hdf5_arrays", hidden);
            else
                json_decref(hidden);
            if (ncztr_alias_save(o, g) < 0) {
                json_decref(g);
                NCZ_GOTO_QUIET(FAIL);
            }
            /* a store without extra links anywhere says so at its root: a read-only open may
             * then leave its groups unread until used (ncztr_load.c) */
            if (!o->parent && !o->file->has_aliases)
                jset(&ok, g, "hdf5_links_below", json_false());
            /* a store holding datasets of object references says so at its root: their
             * stored paths must follow moves and deletes in later opens too, before those
             * arrays are used (ncztr_refsync.c) */
            if (!o->parent && o->file->has_ref_arrays)
                jset(&ok, g, "hdf5_ref_arrays", json_true());
            jset(&ok, j, "_nczarr_group", g);
            jset(&ok, types, "_nczarr_group", json_string("|J0"));
            if (!o->parent) {
                json_t *sb = json_object();
                jset(&ok, sb, "version", json_string("2.0.0"));
                jset(&ok, j, "_nczarr_superblock", sb);
                jset(&ok, types, "_nczarr_superblock", json_string("|J0"));
            }
        }
    }
    if (nc) {
        json_t *at = json_object();
        jset(&ok, types, "_nczarr_attr", json_string("|J0"));
        if (json_object_set(at, "types", types) != 0)
            ok = false;
        /* HDF5 settings NCZarr has no place for: inside "_nczarr_attr", which netCDF-C
         * hides and whose other keys it ignores (a key of its own would show up). */
        const ncztr_attr *strict = o->parent ? NULL : ncztr_attr_find(o, "_nc3_strict");
        /* made only when it will hold something (most objects have none of it); what it
         * says of the attributes is rebuilt from them as they are now */
        if (o->hdf5 || atypes || strict || json_object_size(ashapes) > 0 || json_object_size(acsets) > 0) {
            h5 = o->hdf5 ? json_deep_copy(o->hdf5) : json_object();
            NCZ_CHECK_ALLOC(h5, FAIL);
            (void)json_object_del(h5, "atypes");
            if (atypes) {
                jset(&ok, h5, "atypes", atypes);
                atypes = NULL;
            }
            (void)json_object_del(h5, "ashapes");
            (void)json_object_del(h5, "acsets");
            (void)json_object_del(h5, "nc3_strict");
            if (strict) /* netCDF-4's classic-model flag (see ncztr_attr_is_plumbing) */
                jset(&ok, h5, "nc3_strict", json_integer(1));
            if (json_object_size(ashapes) > 0 && json_object_set(h5, "ashapes", ashapes) != 0)
                ok = false;
            if (json_object_size(acsets) > 0 && json_object_set(h5, "acsets", acsets) != 0)
                ok = false;
            if (json_object_size(h5) > 0 && json_object_set(at, "hdf5", h5) != 0)
                ok = false;
        }
        jset(&ok, j, "_nczarr_attr", at);
    }
    if (!ok)
        NCZ_GOTO(FAIL, NCZ_E_NOMEM, "out of memory building the attributes of \"%s\"", o->name);
    *out = j;
    j = NULL;
done:
    json_decref(j);
    json_decref(types);
    json_decref(atypes);
    json_decref(ashapes);
    json_decref(acsets);
    json_decref(h5);
    return ret;
}

static int centry_match(const void *item, const void *key, size_t len)
{
    (void)len;
    const struct {
        const struct centry *ce;
        const char *k;
    } *q = key;
    return strcmp(q->ce[(uintptr_t)item - 1].key, q->k) == 0;
}

/* Adds k (taken over) with its text to .zmetadata; own: the text is the entry's to free.
 * A key given again replaces its text in place, as setting a JSON object member does. */
static herr_t cons_add(saver *S, char *k, const char *text, char *own)
{
    struct {
        const struct centry *ce;
        const char *k;
    } q = {S->ce, k};
    uint64_t h = nczc_hash_str(k, strlen(k));
    void *hit = nczc_hindex_find(&S->ix, h, centry_match, &q, 0);
    if (hit) {
        struct centry *e = &S->ce[(uintptr_t)hit - 1];
        free(e->own);
        e->text = text;
        e->own = own;
        free(k);
        return SUCCEED;
    }
    if (S->nce == S->cecap) {
        size_t nc = S->cecap ? S->cecap * 2 : 64;
        struct centry *n = realloc(S->ce, nc * sizeof *n);
        if (!n)
            goto nomem;
        S->ce = n;
        S->cecap = nc;
    }
    if (nczc_hindex_add(&S->ix, h, (void *)(uintptr_t)(S->nce + 1)) != 0)
        goto nomem;
    S->ce[S->nce++] = (struct centry){k, text, own};
    return SUCCEED;
nomem:
    free(k);
    free(own);
    return NCZ_PUSH(NCZ_E_NOMEM, "out of memory building the consolidated metadata");
}

/* key/name with its JSON text (taken over): written when write, kept for .zmetadata when
 * consolidating. */
static herr_t emit_text(saver *S, const char *key, const char *name, char *text, bool write)
{
    if (as_ascii(S, &text) < 0)
        return FAIL;
    char *k = nczm_key_join(key, name), *ck = NULL;
    if (!k || (S->cons && !(ck = strdup(k)))) {
        free(k);
        free(text);
        return NCZ_PUSH(NCZ_E_NOMEM, "out of memory");
    }
    if (!write) {
        free(k);
        return S->cons ? cons_add(S, ck, text, text) : (free(text), SUCCEED);
    }
    if (add_put(S, k, text) < 0) {
        free(ck);
        return FAIL;
    }
    return S->cons ? cons_add(S, ck, text, NULL) : SUCCEED;
}

static herr_t emit(saver *S, const char *key, const char *name, json_t *j, bool write)
{
    if (!j)
        return FAIL; /* its builder pushed why */
    char *text = ncztr_json_dump(j);
    json_decref(j);
    return text ? emit_text(S, key, name, text, write) : FAIL;
}

/* The consolidated metadata of the entries (ncztr_cons_text): v2's .zmetadata, or v3's
 * root zarr.json (root_text) with them inline. */
static char *cons_text(const saver *S, const char *root_text)
{
    char **keys = malloc((S->nce ? S->nce : 1) * sizeof *keys),
         **texts = malloc((S->nce ? S->nce : 1) * sizeof *texts);
    char *out = NULL;
    if (keys && texts) {
        for (size_t i = 0; i < S->nce; i++) {
            keys[i] = S->ce[i].key;
            texts[i] = (char *)(uintptr_t)S->ce[i].text;
        }
        out = ncztr_cons_text((ncztr_zfmt)S->f->zarr_format, root_text, S->nce, keys, texts);
    }
    free(keys);
    free(texts);
    return out;
}

/* A Zarr v3 node: one zarr.json, its attributes inside. The root's is held back when
 * consolidating: the others go inline into it (ncztr_save_tree). */
static herr_t save_v3(saver *S, ncztr_obj *o, const char *key)
{
    bool write = o->meta_dirty || o->attrs_dirty;
    if (!write && !S->cons)
        return SUCCEED;
    json_t *attrs = NULL;
    if (build_zattrs(o, &attrs) < 0)
        return FAIL;
    json_t *node = ncztr_zarr3_node_json(key, o->kind == NCZTR_ARRAY ? &o->arr->za : NULL, attrs);
    if (!node)
        return FAIL;
    if (o == o->file->root && S->cons) {
        char *text = ncztr_json_dump(node);
        json_decref(node);
        if (!text)
            return NCZ_PUSH(NCZ_E_NOMEM, "out of memory");
        free(S->root_text);
        S->root_text = text;
        return SUCCEED;
    }
    return emit(S, key, ncztr_meta_name(NCZTR_ZARR3, false), node, write);
}

static herr_t save_node(saver *S, ncztr_obj *o)
{
    herr_t ret = SUCCEED;
    char *key = NULL;
    ncztr_zfmt fmt = (ncztr_zfmt)o->file->zarr_format;
    if (o->deleted || o->kind == NCZTR_ALIAS)
        return SUCCEED; /* an alias is written in its group's "hdf5_links" */
    if (o->kind == NCZTR_ARRAY && o->arr && o->arr->dimonly)
        return SUCCEED; /* a netCDF dimension: written in its group's "dimensions" */
    key = ncztr_obj_key(o);
    NCZ_CHECK_ALLOC(key, FAIL);
    if (o->kind == NCZTR_GROUP) {
        if (fmt == NCZTR_ZARR3 ? save_v3(S, o, key) < 0
                               : (o->meta_dirty || S->cons) && emit(S, key, ncztr_meta_name(fmt, true),
                                                                    build_zgroup(), o->meta_dirty) < 0)
            NCZ_GOTO_QUIET(FAIL);
        for (size_t i = 0; i < o->nchildren; i++)
            if (save_node(S, o->children[i]) < 0)
                NCZ_GOTO_QUIET(FAIL);
        if (fmt == NCZTR_ZARR3)
            NCZ_GOTO_QUIET(SUCCEED);
    } else {
        if (o->arr->load_error) {
            /* never rewrite what we could not read; keep its consolidated entries */
            const char *names[2] = {ncztr_meta_name(fmt, false), ncztr_attrs_name(fmt)};
            for (int i = 0; S->cons && o->file->old_cons && i < 2 && names[i]; i++) {
                char *k = nczm_key_join(key, names[i]);
                NCZ_CHECK_ALLOC(k, FAIL);
                json_t *e = NULL;
                ncztr_zmeta_get(o->file->old_cons, k, &e);
                free(k);
                if (e && emit(S, key, names[i], e, false) < 0)
                    NCZ_GOTO_QUIET(FAIL);
            }
            NCZ_GOTO_QUIET(SUCCEED);
        }
        if (fmt == NCZTR_ZARR3) {
            if (save_v3(S, o, key) < 0)
                NCZ_GOTO_QUIET(FAIL);
            NCZ_GOTO_QUIET(SUCCEED);
        }
        if (o->meta_dirty || S->cons) {
            char *text = ncztr_zarray_dump(&o->arr->za);
            if (!text || emit_text(S, key, ncztr_meta_name(fmt, false), text, o->meta_dirty) < 0)
                NCZ_GOTO_QUIET(FAIL);
        }
    }
    if (o->attrs_dirty || S->cons) {
        char *text = NULL;
        json_t *j = NULL;
        if ((o->kind == NCZTR_ARRAY ? ncztr_save_array_zattrs_text(o, &text)
                                    : ncztr_save_group_zattrs_text(o, &text)) < 0)
            NCZ_GOTO_QUIET(FAIL);
        if (text ? emit_text(S, key, ncztr_attrs_name(fmt), text, o->attrs_dirty) < 0
                 : build_zattrs(o, &j) < 0 || emit(S, key, ncztr_attrs_name(fmt), j, o->attrs_dirty) < 0)
            NCZ_GOTO_QUIET(FAIL);
    }
done:
    free(key);
    return ret;
}

static void clear_dirty(ncztr_obj *o)
{
    o->meta_dirty = o->attrs_dirty = o->is_new = false;
    for (size_t i = 0; i < o->nchildren; i++)
        clear_dirty(o->children[i]);
}

/* Stores the chunks still cached and lists the metadata to write in S. */
static herr_t build(ncztr_file *f, saver *S_)
{
    herr_t ret = SUCCEED;
    saver S = *S_;
    /* Arrays whose metadata was never read are read now, as they would have been on open:
     * a save derives dimensions and writes .zmetadata from all of them. */
    if (ncztr_tree_load(f->root) < 0 || ncztr_dimscales_derive(f) < 0 || ncztr_save_dims(f) < 0)
        NCZ_GOTO_QUIET(FAIL);
    ncztr_alias_refresh(f);
    /* the chunks first, on every core: the commit below may hold the worker pool */
    if (ncztr_tree_walk(f, flush_array, NULL) < 0)
        NCZ_GOTO_QUIET(FAIL);
    S.cons = f->opts.consolidate;
    if (start_commit(&S) < 0 || save_node(&S, f->root) < 0)
        NCZ_GOTO_QUIET(FAIL);
    if (S.cons && (S.n > 0 || S.root_text)) {
        bool v3 = f->zarr_format == NCZTR_ZARR3;
        char *text = v3 ? (S.root_text ? cons_text(&S, S.root_text) : NULL) : cons_text(&S, NULL);
        char *k = strdup(v3 ? ncztr_meta_name(NCZTR_ZARR3, true) : ncztr_cons_key);
        if (!text || !k) {
            free(text);
            free(k);
            NCZ_GOTO(FAIL, NCZ_E_NOMEM, "out of memory writing consolidated metadata");
        }
        if (as_ascii(&S, &text) < 0) {
            free(k);
            NCZ_GOTO_QUIET(FAIL);
        }
        if (add_put(&S, k, text) < 0)
            NCZ_GOTO_QUIET(FAIL);
    }
done:
    *S_ = S;
    return ret;
}

/* What the ranks of a parallel file compare before rank 0 writes: every key and text. */
static uint64_t puts_hash(const saver *S)
{
    uint64_t h = 0x9e3779b97f4a7c15ull;
    for (size_t i = 0; i < S->n; i++) {
        h = nczc_hash_bytes(h, S->puts[i].key, strlen(S->puts[i].key) + 1);
        h = nczc_hash_bytes(h, S->puts[i].buf, S->puts[i].len);
    }
    return h ^ S->n;
}

static herr_t drop_cache(ncztr_obj *o, void *ud)
{
    (void)ud;
    return o->arr ? ncztr_array_cache_evict(o) : SUCCEED;
}

herr_t ncztr_save_tree(ncztr_file *f)
{
    herr_t ret = SUCCEED;
    saver S = {.f = f};
    bool agreed = false; /* many ranks: the last step (all learn whether rank 0 wrote) is due */
    if (f->readonly)
        return SUCCEED;
    /* Many ranks: the pieces of chunks go to their owners first; then every rank stores its
     * chunks, the ranks compare the metadata, and rank 0 writes it. */
    if (f->par && ncztr_par_exchange(f, SUCCEED, "flush") < 0)
        return FAIL;
    ret = build(f, &S);
    if (S.c) { /* the objects are being written: committed, or taken back after a failure */
        nczm_status st = nczm_commit_end(S.c, S.n, ret == SUCCEED);
        S.c = NULL;
        if (ret < 0)
            NCZ_GOTO_QUIET(FAIL);
        if (st != NCZM_OK)
            NCZ_GOTO_QUIET(commit_failed(f, &S));
    } else {
        if (f->par) {
            ret = ncztr_par_status(f, ret, "flush");
            if (ret == SUCCEED)
                ret = ncztr_par_agree(f, puts_hash(&S), "flush");
            if (ret < 0)
                NCZ_GOTO_QUIET(FAIL);
            agreed = true;
        } else if (ret < 0) {
            NCZ_GOTO_QUIET(FAIL);
        }
        if (S.n > 0 && !f->shared_skip && nczm_commit_many(f->map, S.n, S.puts) != NCZM_OK)
            NCZ_GOTO_QUIET(commit_failed(f, &S));
    }
    clear_dirty(f->root);
done:
    /* Returns on every rank once the store is complete; the caches are dropped, since other
     * ranks may have changed any chunk. */
    if (agreed) {
        ret = ncztr_par_status(f, ret, "writing the metadata");
        if (ret == SUCCEED && ncztr_tree_walk(f, drop_cache, NULL) < 0)
            ret = FAIL;
    }
    for (size_t i = 0; i < S.n; i++) {
        free(S.keys[i]);
        free(S.bufs[i]);
    }
    free(S.puts);
    free(S.keys);
    free(S.bufs);
    for (size_t i = 0; i < S.nce; i++) {
        free(S.ce[i].key);
        free(S.ce[i].own);
    }
    free(S.ce);
    free(S.root_text);
    nczc_hindex_clear(&S.ix);
    return ret;
}
