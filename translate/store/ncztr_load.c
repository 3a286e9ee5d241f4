/* Reading a store into the model: NCZarr stores walk the `_nczarr_group` lists; pure Zarr
 * stores are listed with search(); a consolidated `.zmetadata` replaces every metadata
 * read (one GET instead of hundreds on S3). Metadata of one group's children is fetched
 * with one batch request. An array listed by an NCZarr group is only a stub on open: its
 * .zarray/.zattrs are read on first use (ncztr_obj_load), as a walk needs no more than its
 * name and kind. An array whose metadata is unusable is kept with its error, so the rest
 * of the store stays readable and opening that array reports why. In a store opened
 * read-only whose root says no group holds extra links, a group listed by an NCZarr group
 * is pending the same way (load_pending): its .zattrs and members are read on first use,
 * and a .zattrs that cannot be used is reported, naming its key, at each use of it. */
#include "ncztr_array_internal.h"
#include "ncztr_format.h"
#include "ncztr_store.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct loader {
    ncztr_file *f;
    ncztr_zfmt fmt;
    ncztr_zmeta *cons; /* the .zmetadata, or NULL */
    /* The listings of the child groups of the batch being loaded, made together before
     * they are walked one after another (a remote store overlaps them): entries are taken
     * by the group's load_children. */
    nczm_search_req *pre;
    size_t npre;
    /* Groups an NCZarr group lists are left pending (ncztr_obj.pending): the store is open
     * read-only and its root says no group below it holds extra links, whose counts
     * (H5Oget_info's rc) would need every group read. */
    bool lazy;
} loader;

/* The prefetched listing of key, moved into *out; false when there is none (or it failed:
 * the caller then lists by itself, with its own error handling). */
static bool take_listing(loader *L, const char *key, nczm_list *out)
{
    for (size_t i = 0; i < L->npre; i++)
        if (L->pre[i].prefix && !strcmp(L->pre[i].prefix, key) && L->pre[i].status == NCZM_OK) {
            *out = L->pre[i].list;
            memset(&L->pre[i].list, 0, sizeof L->pre[i].list);
            L->pre[i].status = NCZM_NOTFOUND; /* taken */
            return true;
        }
    return false;
}

/* Will loading this group list it? Pure Zarr groups are always listed; an NCZarr group
 * only when its _nczarr_group names children. */
static bool lists_children(const json_t *zattrs)
{
    const json_t *ng = zattrs ? json_object_get(zattrs, "_nczarr_group") : NULL;
    if (!json_is_object(ng))
        return true;
    const char *lists[] = {"arrays", "vars", "groups", "hdf5_arrays"};
    for (size_t i = 0; i < sizeof lists / sizeof *lists; i++)
        if (json_array_size(json_object_get(ng, lists[i])) > 0)
            return true;
    return false;
}

/* Metadata of several keys at once (ncztr_loadjson.c), from the .zmetadata when there is one. */
static herr_t get_json_many(loader *L, size_t n, char **keys, json_t **out, char **errs)
{
    return ncztr_load_json_many(L->f, L->cons, n, keys, out, errs);
}

static herr_t load_group(loader *L, ncztr_obj *g, json_t *zattrs, const char *key, bool absent);

static herr_t new_array(ncztr_obj *o)
{
    o->arr = calloc(1, sizeof *o->arr);
    if (!o->arr)
        return NCZ_PUSH(NCZ_E_NOMEM, "out of memory");
    o->arr->type = o->arr->dcpl = H5I_INVALID_HID;
    return SUCCEED;
}

/* The attributes of an array (a new reference; NULL after pushing when out of memory): a
 * numpy datetime64 / timedelta64 array, stored as int64, gets the CF "units" its unit means
 * ("seconds since 1970-01-01T00:00:00", "days"), as xarray and netCDF write time, unless
 * it has one. */
static json_t *time_units(const ncztr_zarray *za, json_t *zattrs)
{
    static const struct {
        const char *unit, *cf;
    } units[] = {{"W", "weeks"},   {"D", "days"},          {"h", "hours"},         {"m", "minutes"},
                 {"s", "seconds"}, {"ms", "milliseconds"}, {"us", "microseconds"}, {"ns", "nanoseconds"}};
    const char *cf = NULL;
    for (size_t i = 0; za->time_kind && i < sizeof units / sizeof *units && !cf; i++)
        if (!strcmp(za->time_unit, units[i].unit))
            cf = units[i].cf;
    if (!cf || json_object_get(zattrs, "units"))
        return zattrs ? json_incref(zattrs) : json_object();
    json_t *c = zattrs ? json_copy(zattrs) : json_object();
    char text[96];
    snprintf(text, sizeof text, "%s%s", cf, za->time_kind == 'M' ? " since 1970-01-01T00:00:00" : "");
    if (!c || json_object_set_new(c, "units", json_string(text)) < 0) {
        json_decref(c);
        NCZ_PUSH(NCZ_E_NOMEM, "out of memory");
        return NULL;
    }
    return c;
}

/* Loads one array. Unusable metadata is remembered as the array's load_error (reported
 * when the application opens it) instead of failing the whole store. */
static herr_t load_array(ncztr_obj *o, json_t *za, json_t *zattrs, const char *key, const char *zkey,
                         const char *meta_error)
{
    herr_t ret = SUCCEED;
    size_t mark = ncz_err_mark();
    ncztr_zfmt fmt = (ncztr_zfmt)o->file->zarr_format;
    char *atkey = ncztr_attrs_key(fmt, key);
    NCZ_CHECK_ALLOC(atkey, FAIL);
    if (!o->arr && new_array(o) < 0)
        NCZ_GOTO_QUIET(FAIL);
    if (meta_error) {
        NCZ_PUSH(NCZ_E_FORMAT, "%s", meta_error);
    } else if (!za) {
        NCZ_PUSH(NCZ_E_FORMAT, "array \"%s\" has no %s", o->name, zkey);
    } else if (ncztr_array_meta_parse(fmt, zkey, za, &o->arr->za) == SUCCEED &&
               ncztr_array_maxdims_new(o->arr) == SUCCEED &&
               (zattrs = time_units(&o->arr->za, zattrs)) != NULL) {
        json_t *nca = json_object_get(zattrs, "_nczarr_array");
        bool ok = ncztr_load_attrs(o, zattrs, atkey) == SUCCEED &&
                  ncztr_array_setup_loaded(o, nca, zattrs, atkey, zkey) == SUCCEED;
        json_decref(zattrs);
        if (ok)
            NCZ_GOTO_QUIET(SUCCEED);
    }
    o->arr->load_error = ncz_err_take_messages(mark);
    if (!o->arr->load_error)
        o->arr->load_error = strdup("unreadable metadata");
    NCZ_CHECK_ALLOC(o->arr->load_error, FAIL);
done:
    free(atkey);
    return ret;
}

static herr_t string_list(json_t *arr, const char *what, const char *key, size_t *n, const char ***out)
{
    *n = 0;
    *out = NULL;
    if (!arr)
        return SUCCEED;
    if (!json_is_array(arr))
        return NCZ_PUSH(NCZ_E_FORMAT, "%s: \"%s\" must be a list of names", key, what);
    size_t m = json_array_size(arr);
    const char **v = calloc(m ? m : 1, sizeof *v);
    if (!v)
        return NCZ_PUSH(NCZ_E_NOMEM, "out of memory");
    for (size_t i = 0; i < m; i++) {
        json_t *s = json_array_get(arr, i);
        if (!json_is_string(s) || ncztr_check_name(json_string_value(s), "NCZarr") < 0) {
            free(v);
            return NCZ_PUSH(NCZ_E_FORMAT, "%s: \"%s\" entry %zu is not a valid name", key, what, i);
        }
        v[i] = json_string_value(s);
    }
    *n = m;
    *out = v;
    return SUCCEED;
}

/* Lists the children of a pure Zarr group: names under it that hold .zgroup or .zarray. With
 * .zmetadata, from the index of its keys, in the order they appear there. */
static herr_t list_pure(loader *L, const char *key, nczm_list *names)
{
    if (L->cons)
        return ncztr_zmeta_children(L->cons, key, names);
    if (take_listing(L, key, names))
        return SUCCEED;
    if (nczm_search(L->f->map, key, names) != NCZM_OK)
        return NCZ_PUSH(NCZ_E_STORE, "cannot list \"%s\": %s", *key ? key : "/", nczm_errmsg(L->f->map));
    return SUCCEED;
}

/* Children are read in batches: a batch is what a remote store overlaps, and only one
 * batch of metadata is held in memory at a time, whatever the size of the group. */
#define LOAD_BATCH 256

/* What load_children knows of the children of one group. */
typedef struct child_list {
    const char **names;
    size_t n, na; /* names[0..na) are listed arrays (NCZarr) */
    bool pure;
    const nczm_list *present; /* the group's listing, or NULL: probe every name */
    json_t *hdf5_names;       /* "_nczarr_group.hdf5_names" {key name: link name}, or NULL */
} child_list;

/* The link name of the child stored under key name nm: the group's "hdf5_names" entry when
 * it escapes to nm (ncztr_key_escape), else nm. */
static const char *link_name(json_t *hdf5_names, const char *nm)
{
    const char *hn = json_is_object(hdf5_names) ? json_string_value(json_object_get(hdf5_names, nm)) : NULL;
    if (!hn || ncztr_check_link_name(hn, "link") < 0) {
        H5Eclear2(H5E_DEFAULT);
        return nm;
    }
    bool failed = false;
    char *k = ncztr_key_escape(hn, &failed);
    bool same = k && strcmp(k, nm) == 0;
    free(k);
    if (failed)
        H5Eclear2(H5E_DEFAULT);
    return same ? hn : nm;
}

static bool listed(const nczm_list *l, const char *name)
{
    size_t lo = 0, hi = l->count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(l->names[mid], name);
        if (c == 0)
            return true;
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return false;
}

/* The listings that loading the child groups among children [b, b + m) will need, made in
 * one nczm_search_many (for each child: js/errs as load_batch read them). A listing that
 * fails is left to the group's own load to make again and report. */
static herr_t prefetch_listings(loader *L, const char *key, const child_list *cl, size_t b, size_t m,
                                json_t **js, char **errs, const bool *absent, nczm_search_req **out,
                                size_t *nout)
{
    size_t n = 0;
    nczm_search_req *r = calloc(m ? m : 1, sizeof *r);
    if (!r)
        return NCZ_PUSH(NCZ_E_NOMEM, "out of memory");
    for (size_t k = 0; k < m; k++) {
        const char *nm = cl->names[b + k];
        bool group = cl->pure ? (js[3 * k] || errs[3 * k]) : b + k >= cl->na;
        if (nm[0] == '.' || !group || absent[k] || errs[3 * k] || errs[3 * k + 2] || (L->lazy && !cl->pure) ||
            !lists_children(js[3 * k + 2]))
            continue; /* (a pending group is listed when it is read) */
        if (!(r[n].prefix = nczm_key_join(key, nm))) {
            for (size_t i = 0; i < n; i++)
                free((char *)r[i].prefix);
            free(r);
            return NCZ_PUSH(NCZ_E_NOMEM, "out of memory");
        }
        n++;
    }
    if (n > 0)
        (void)nczm_search_many(L->f->map, n, r);
    *out = r;
    *nout = n;
    return SUCCEED;
}

/* Loads children [b, b + m) of cl. */
static herr_t load_batch(loader *L, ncztr_obj *g, const char *key, const child_list *cl, size_t b, size_t m)
{
    herr_t ret = SUCCEED;
    /* on the heap: groups may nest thousands deep, and this recurses through them */
    char **keys = calloc(3 * m, sizeof *keys), **errs = calloc(3 * m, sizeof *errs);
    json_t **js = calloc(3 * m, sizeof *js);
    nczm_search_req *pre = NULL, *saved_pre = L->pre;
    size_t npre = 0, saved_npre = L->npre;
    bool *absent = calloc(m, sizeof *absent);
    if (!keys || !errs || !js || !absent)
        NCZ_GOTO(FAIL, NCZ_E_NOMEM, "out of memory");
    /* per child: .zgroup, .zarray, .zattrs; an NCZarr list says which of the first two to
     * read (none for a listed array: it is read on first use), and a listing of the group
     * which children exist at all */
    for (size_t k = 0; k < m; k++) {
        const char *nm = cl->names[b + k];
        bool want_group = !cl->pure && b + k >= cl->na, want_array = !cl->pure && b + k < cl->na;
        if (nm[0] == '.')
            continue;
        if (cl->present && !listed(cl->present, nm)) {
            absent[k] = true;
            continue;
        }
        if (want_array || (want_group && L->lazy))
            continue; /* read on first use (ncztr_obj_load) */
        char *ck = nczm_key_join(key, nm);
        NCZ_CHECK_ALLOC(ck, FAIL);
        /* A group its NCZarr parent lists is known to be one, but its .zgroup is read all
         * the same (in the same batch): other readers need it, so a damaged one is an
         * error here too, not a store that only this connector opens. */
        herr_t kr = ncztr_node_keys(L->fmt, ck, !want_array, !want_group, &keys[3 * k]);
        free(ck);
        if (kr < 0)
            NCZ_GOTO_QUIET(FAIL);
    }
    if (get_json_many(L, 3 * m, keys, js, errs) < 0)
        NCZ_GOTO_QUIET(FAIL);
    for (size_t k = 0; k < m && L->fmt != NCZTR_ZARR2; k++) {
        char *ck = nczm_key_join(key, cl->names[b + k]);
        NCZ_CHECK_ALLOC(ck, FAIL);
        herr_t rr = ncztr_node_roles(L->fmt, ck, &js[3 * k], &errs[3 * k]);
        free(ck);
        if (rr < 0)
            NCZ_GOTO_QUIET(FAIL);
    }
    if (!L->cons && prefetch_listings(L, key, cl, b, m, js, errs, absent, &pre, &npre) < 0)
        NCZ_GOTO_QUIET(FAIL);
    saved_pre = L->pre;
    saved_npre = L->npre;
    L->pre = pre;
    L->npre = npre;
    for (size_t k = 0; k < m; k++) {
        const char *nm = cl->names[b + k];
        json_t *zg = js[3 * k], *za = js[3 * k + 1], *zat = js[3 * k + 2];
        const char *zg_err = errs[3 * k], *za_err = errs[3 * k + 1], *zat_err = errs[3 * k + 2];
        bool has_zg = zg || zg_err, has_za = za || za_err;
        bool want_group = !cl->pure && b + k >= cl->na, want_array = !cl->pure && b + k < cl->na;
        if (nm[0] == '.')
            continue;
        if (cl->pure && !has_zg && !has_za)
            continue; /* a chunk or a stray key */
        const char *ln = link_name(cl->hdf5_names, nm);
        if (ncztr_child(g, ln))
            continue; /* listed twice */
        char *ck = nczm_key_join(key, nm);
        NCZ_CHECK_ALLOC(ck, FAIL);
        ncztr_obj *c = NULL;
        if ((cl->pure && has_zg) || want_group) {
            /* Listed as a group but has no .zgroup: keep the group readable. A group whose
             * metadata does not parse cannot be walked: that is an error for the store. */
            if (zg_err || zat_err) {
                free(ck);
                NCZ_GOTO(FAIL, NCZ_E_FORMAT, "group \"%s\": %s", nm, zg_err ? zg_err : zat_err);
            }
            if (zg && L->fmt == NCZTR_ZARR2 && ncztr_v2_group_check(keys[3 * k], zg) < 0) {
                free(ck);
                NCZ_GOTO_QUIET(FAIL);
            }
            c = ncztr_obj_new(L->f, NCZTR_GROUP, ln);
            if (!c || ncztr_obj_attach(g, c) < 0) {
                ncztr_obj_unref(c);
                free(ck);
                NCZ_GOTO_QUIET(FAIL);
            }
            if (want_group && L->lazy && !absent[k]) {
                c->pending = true; /* read on first use: load_pending */
                L->f->npending++;
                free(ck);
                continue;
            }
            if (load_group(L, c, zat, ck, absent[k]) < 0) {
                free(ck);
                NCZ_GOTO_QUIET(FAIL);
            }
        } else if ((cl->pure && has_za) || want_array) {
            c = ncztr_obj_new(L->f, NCZTR_ARRAY, ln);
            if (!c || ncztr_obj_attach(g, c) < 0) {
                ncztr_obj_unref(c);
                free(ck);
                NCZ_GOTO_QUIET(FAIL);
            }
            if (want_array && !absent[k]) {
                /* its metadata is read when it is first used: a stub until then */
                free(ck);
                if (new_array(c) < 0)
                    NCZ_GOTO_QUIET(FAIL);
                c->arr->stub = true;
                continue;
            }
            /* Unparsable .zarray/.zattrs: kept as the array's load error (reported when
             * it is opened); the rest of the store stays readable. */
            char *zkey = keys[3 * k + 1] ? NULL : ncztr_array_meta_key(L->fmt, ck);
            const char *zk = keys[3 * k + 1] ? keys[3 * k + 1] : zkey;
            herr_t r = zk ? load_array(c, za, zat, ck, zk, za_err ? za_err : zat_err)
                          : NCZ_PUSH(NCZ_E_NOMEM, "out of memory");
            free(zkey);
            if (r < 0) {
                free(ck);
                NCZ_GOTO_QUIET(FAIL);
            }
        }
        free(ck);
    }
done:
    L->pre = saved_pre;
    L->npre = saved_npre;
    for (size_t i = 0; i < npre; i++) {
        free((char *)pre[i].prefix);
        nczm_list_clear(&pre[i].list);
    }
    free(pre);
    for (size_t i = 0; i < 3 * m; i++) {
        free(keys ? keys[i] : NULL);
        json_decref(js ? js[i] : NULL);
        free(errs ? errs[i] : NULL);
    }
    free(keys);
    free(js);
    free(errs);
    free(absent);
    return ret;
}

static herr_t load_children(loader *L, ncztr_obj *g, const char *key, json_t *hdf5_names, size_t na,
                            const char **arrays, size_t ng, const char **groups, bool pure)
{
    herr_t ret = SUCCEED;
    nczm_list names = {0}, present = {0};
    child_list cl = {NULL, 0, na, pure, NULL, hdf5_names};
    if (pure) {
        if (list_pure(L, key, &names) < 0)
            NCZ_GOTO_QUIET(FAIL);
        cl.n = names.count;
        cl.names = calloc(cl.n ? cl.n : 1, sizeof *cl.names);
        NCZ_CHECK_ALLOC(cl.names, FAIL);
        for (size_t i = 0; i < cl.n; i++)
            cl.names[i] = names.names[i];
    } else {
        cl.n = na + ng;
        cl.names = calloc(cl.n ? cl.n : 1, sizeof *cl.names);
        NCZ_CHECK_ALLOC(cl.names, FAIL);
        for (size_t i = 0; i < na; i++)
            cl.names[i] = arrays[i];
        for (size_t i = 0; i < ng; i++)
            cl.names[na + i] = groups[i];
        /* One listing of the group instead of a failed read per listed name that is not
         * there (a damaged or hand-edited list can name 100000s). If the store cannot
         * list, every name is probed. */
        if (cl.n && !L->cons &&
            (take_listing(L, key, &present) || nczm_search(L->f->map, key, &present) == NCZM_OK))
            cl.present = &present;
    }
    for (size_t i = 0; i < cl.n; i++)
        if (cl.names[i][0] == '.' || ncztr_check_name(cl.names[i], "link") < 0) {
            H5Eclear2(H5E_DEFAULT);
            if (!pure)
                NCZ_GOTO(FAIL, NCZ_E_FORMAT, "%s: invalid child name \"%s\"", *key ? key : "/", cl.names[i]);
        }
    for (size_t b = 0; b < cl.n; b += LOAD_BATCH)
        if (load_batch(L, g, key, &cl, b, cl.n - b < LOAD_BATCH ? cl.n - b : LOAD_BATCH) < 0)
            NCZ_GOTO_QUIET(FAIL);
done:
    free(cl.names);
    nczm_list_clear(&names);
    nczm_list_clear(&present);
    return ret;
}

/* absent: nothing is stored under key (a listed group that is not there): no listing. */
static herr_t load_group(loader *L, ncztr_obj *g, json_t *zattrs, const char *key, bool absent)
{
    herr_t ret = SUCCEED;
    const char **arrays = NULL, **groups = NULL, **hidden = NULL;
    size_t na = 0, ng = 0, nh = 0, nvisible = SIZE_MAX;
    char *zkey = ncztr_attrs_key(L->fmt, key);
    NCZ_CHECK_ALLOC(zkey, FAIL);
    json_t *ng_obj = zattrs ? json_object_get(zattrs, "_nczarr_group") : NULL;
    bool pure = ng_obj == NULL;
    if (ng_obj) {
        if (!json_is_object(ng_obj))
            NCZ_GOTO(FAIL, NCZ_E_FORMAT, "%s: \"_nczarr_group\" must be a JSON object", zkey);
        json_t *dims = json_object_get(ng_obj, "dimensions");
        if (!dims)
            dims = json_object_get(ng_obj, "dims");
        if (ncztr_load_dims(g, dims, zkey) < 0)
            NCZ_GOTO_QUIET(FAIL);
        json_t *ja = json_object_get(ng_obj, "arrays");
        if (!ja)
            ja = json_object_get(ng_obj, "vars");
        if (string_list(ja, "arrays", zkey, &na, &arrays) < 0 ||
            string_list(json_object_get(ng_obj, "groups"), "groups", zkey, &ng, &groups) < 0 ||
            string_list(json_object_get(ng_obj, "hdf5_arrays"), "hdf5_arrays", zkey, &nh, &hidden) < 0)
            NCZ_GOTO_QUIET(FAIL);
        if (nh > 0) {
            /* arrays kept from netCDF-C (structured dtypes) follow the listed ones */
            const char **all = realloc(arrays, (na + nh) * sizeof *all);
            NCZ_CHECK_ALLOC(all, FAIL);
            arrays = all;
            memcpy(arrays + na, hidden, nh * sizeof *hidden);
            nvisible = na;
            na += nh;
        }
    }
    if (ncztr_load_attrs(g, zattrs, zkey) < 0)
        NCZ_GOTO_QUIET(FAIL);
    if (!(pure && absent) && load_children(L, g, key, ng_obj ? json_object_get(ng_obj, "hdf5_names") : NULL,
                                           na, arrays, ng, groups, pure) < 0)
        NCZ_GOTO_QUIET(FAIL);
    if (ng_obj && ncztr_alias_load(g, json_object_get(ng_obj, "hdf5_links"), zkey) < 0)
        NCZ_GOTO_QUIET(FAIL);
    if (ng_obj && ncztr_group_set_order(g, json_object_get(ng_obj, "hdf5_order")) < 0)
        NCZ_GOTO_QUIET(FAIL);
    if (nvisible != SIZE_MAX)
        for (size_t i = nvisible; i < na; i++) {
            ncztr_obj *c =
                ncztr_child(g, link_name(ng_obj ? json_object_get(ng_obj, "hdf5_names") : NULL, arrays[i]));
            if (c && c->kind == NCZTR_ARRAY && c->arr)
                c->arr->nc_hidden = true;
        }
done:
    free(hidden);
    free(arrays);
    free(groups);
    free(zkey);
    return ret;
}

static const char *base_name_noext(const char *loc, char *buf, size_t len)
{
    const char *b = strrchr(loc, '/');
    b = b ? b + 1 : loc;
    snprintf(buf, len, "%s", b);
    char *dot = strrchr(buf, '.');
    if (dot && dot != buf)
        *dot = '\0';
    if (!*buf || ncztr_check_name(buf, "array") < 0) {
        H5Eclear2(H5E_DEFAULT);
        snprintf(buf, len, "array");
    }
    return buf;
}

static herr_t load_stub(ncztr_obj *o);
static herr_t load_pending(ncztr_obj *g);

herr_t ncztr_load_tree(ncztr_file *f)
{
    herr_t ret = SUCCEED;
    loader L = {.f = f, .fmt = NCZTR_ZARR2};
    /* Arrays listed by their group are stubs until first used; the model completes them
     * through this hook, as it cannot call up into the loader. */
    f->hooks.load_stub = load_stub;
    f->hooks.load_attrs = ncztr_obj_load_attrs;
    char *keys[NCZTR_NROOT];
    json_t *js[NCZTR_NROOT] = {NULL};
    char *errs[NCZTR_NROOT] = {NULL};
    for (int i = 0; i < NCZTR_NROOT; i++)
        keys[i] = (char *)ncztr_root_keys[i];
    /* A .zmetadata that cannot be used is ignored, as zarr.open does: the metadata it
     * would have replaced is read from the store itself. */
    nczm_get zm = {.key = keys[NCZTR_ROOT_CONS], .status = NCZM_NOTFOUND};
    nczm_status st = f->opts.ignore_zmetadata ? NCZM_OK : nczm_get_many(f->map, 1, &zm);
    if (st == NCZM_OK && zm.status == NCZM_OK) {
        bool oom = false;
        L.cons = ncztr_zmeta_scan(zm.buf, zm.len, &oom);
        if (oom)
            NCZ_GOTO_QUIET(FAIL);
    } else if (zm.status != NCZM_NOTFOUND) {
        NCZ_GOTO(FAIL, NCZ_E_STORE, "reading \"%s\" failed: %s", keys[NCZTR_ROOT_CONS], nczm_errmsg(f->map));
    }
    /* v2's root objects, and v3's (not with v2's consolidated metadata: a v2 store) */
    if (L.cons)
        keys[NCZTR_ROOT_V3] = NULL;
    if (get_json_many(&L, NCZTR_NROOT - 1, keys + 1, js + 1, errs + 1) < 0)
        NCZ_GOTO_QUIET(FAIL);
    f->root = ncztr_obj_new(f, NCZTR_GROUP, "");
    if (!f->root)
        NCZ_GOTO_QUIET(FAIL);
    bool v2 =
        js[NCZTR_ROOT_ZGROUP] || errs[NCZTR_ROOT_ZGROUP] || js[NCZTR_ROOT_ZARRAY] || errs[NCZTR_ROOT_ZARRAY];
    if (!v2 && (js[NCZTR_ROOT_V3] || errs[NCZTR_ROOT_V3])) {
        /* Zarr v3: the root's metadata in the roles v2's objects have */
        L.fmt = NCZTR_ZARR3;
        f->zarr_format = 3;
        if (!errs[NCZTR_ROOT_V3] && !f->opts.ignore_zmetadata) {
            bool oom = false;
            L.cons = ncztr_zmeta_from_v3(js[NCZTR_ROOT_V3], &oom);
            if (oom)
                NCZ_GOTO_QUIET(FAIL);
        }
        json_t *nj[NCZTR_NSLOTS] = {js[NCZTR_ROOT_V3], NULL, NULL};
        char *ne[NCZTR_NSLOTS] = {errs[NCZTR_ROOT_V3], NULL, NULL};
        js[NCZTR_ROOT_V3] = NULL;
        errs[NCZTR_ROOT_V3] = NULL;
        /* a v2 .zattrs beside zarr.json is not this store's: the slot is v3's now */
        json_decref(js[NCZTR_ROOT_ZATTRS]);
        js[NCZTR_ROOT_ZATTRS] = NULL;
        free(errs[NCZTR_ROOT_ZATTRS]);
        errs[NCZTR_ROOT_ZATTRS] = NULL;
        herr_t rr = ncztr_node_roles(L.fmt, "", nj, ne);
        js[NCZTR_ROOT_ZGROUP] = nj[NCZTR_SLOT_GROUP];
        js[NCZTR_ROOT_ZARRAY] = nj[NCZTR_SLOT_ARRAY];
        js[NCZTR_ROOT_ZATTRS] = nj[NCZTR_SLOT_ATTRS];
        errs[NCZTR_ROOT_ZARRAY] = ne[NCZTR_SLOT_ARRAY];
        if (rr < 0)
            NCZ_GOTO_QUIET(FAIL);
    } else {
        f->zarr_format = 2;
    }
    /* the root group's metadata must be usable: it lists everything else */
    if (errs[NCZTR_ROOT_ZGROUP])
        NCZ_GOTO(FAIL, NCZ_E_FORMAT, "%s", errs[NCZTR_ROOT_ZGROUP]);
    if (js[NCZTR_ROOT_ZGROUP] && errs[NCZTR_ROOT_ZATTRS])
        NCZ_GOTO(FAIL, NCZ_E_FORMAT, "%s", errs[NCZTR_ROOT_ZATTRS]);
    json_t *zg = js[NCZTR_ROOT_ZGROUP], *za = js[NCZTR_ROOT_ZARRAY], *zat = js[NCZTR_ROOT_ZATTRS];
    if (zg) {
        if (L.fmt == NCZTR_ZARR2 && ncztr_v2_group_check(keys[NCZTR_ROOT_ZGROUP], zg) < 0)
            NCZ_GOTO_QUIET(FAIL);
        if (zat && json_object_get(zat, "_nczarr_superblock"))
            f->superblock = true;
        L.lazy = f->readonly && !f->par &&
                 json_is_false(json_object_get(json_object_get(zat, "_nczarr_group"), "hdf5_links_below"));
        f->hooks.load_group = load_pending;
        /* datasets of object references somewhere (ncztr_refsync.c) */
        if (json_is_true(json_object_get(json_object_get(zat, "_nczarr_group"), "hdf5_ref_arrays")))
            f->has_ref_arrays = true;
        if (load_group(&L, f->root, zat, "", false) < 0)
            NCZ_GOTO_QUIET(FAIL);
    } else if (za || errs[NCZTR_ROOT_ZARRAY]) {
        /* A store whose root is an array: HDF5 needs a root group, so the array appears
         * as a dataset in it, named after the store. */
        char nm[256];
        base_name_noext(f->url.location, nm, sizeof nm);
        f->root_is_array = true;
        ncztr_obj *c = ncztr_obj_new(f, NCZTR_ARRAY, nm);
        if (!c || ncztr_obj_attach(f->root, c) < 0) {
            ncztr_obj_unref(c);
            NCZ_GOTO_QUIET(FAIL);
        }
        c->at_store_root = true;
        char *mkey = ncztr_array_meta_key(L.fmt, "");
        NCZ_CHECK_ALLOC(mkey, FAIL);
        herr_t r = load_array(c, za, zat, "", mkey,
                              errs[NCZTR_ROOT_ZARRAY] ? errs[NCZTR_ROOT_ZARRAY] : errs[NCZTR_ROOT_ZATTRS]);
        free(mkey);
        if (r < 0)
            NCZ_GOTO_QUIET(FAIL);
    } else {
        char marks[128];
        nczm_marks_text(&f->url, marks, sizeof marks);
        NCZ_GOTO(FAIL, NCZ_E_FORMAT, "\"%s\" is not a Zarr store: no %s at its root", f->url.location, marks);
    }
    /* A store keeps its flavour: one without an NCZarr superblock (zarr-python, xarray,
     * netCDF-C's mode=zarr) is written back as pure Zarr, without _nczarr_* keys. */
    if (!f->superblock)
        f->opts.pure_zarr = true;
    /* A .zmetadata found on open must not go stale: it is rewritten on every save. It is
     * kept in any case: the metadata of arrays read on first use comes from it. */
    if (L.cons && !f->readonly)
        f->opts.consolidate = true;
    /* Ignored, a .zmetadata is still made fresh by the next save that changes metadata. */
    if (f->opts.ignore_zmetadata && !f->readonly && L.fmt == NCZTR_ZARR2 &&
        nczm_exists(f->map, keys[NCZTR_ROOT_CONS]) == NCZM_OK)
        f->opts.consolidate = true;
    f->old_cons = L.cons;
    L.cons = NULL;
    /* dimension scales need the whole tree, and read the coordinate arrays' metadata
     * (through .zmetadata when there is one, now that old_cons is set) */
    if (ncztr_dimscales_loaded(f) < 0)
        NCZ_GOTO_QUIET(FAIL);
    /* ids follow the names the dimension scales gave (ncztr_ids.c) */
    if (ncztr_ids_assign_tree(f) < 0 || ncztr_load_resolve_refs(f->root) < 0)
        NCZ_GOTO_QUIET(FAIL);
done:
    for (int i = 0; i < NCZTR_NROOT; i++) {
        json_decref(js[i]);
        free(errs[i]);
    }
    ncztr_zmeta_free(L.cons);
    return ret;
}

/* f->hooks.load_stub: o is an array stub (ncztr_obj_load checked). */
static herr_t load_stub(ncztr_obj *o)
{
    herr_t ret = SUCCEED;
    loader L = {.f = o->file, .fmt = (ncztr_zfmt)o->file->zarr_format, .cons = o->file->old_cons};
    char *keys[NCZTR_NSLOTS] = {NULL}, *errs[NCZTR_NSLOTS] = {NULL}, *mkey = NULL;
    json_t *js[NCZTR_NSLOTS] = {NULL};
    char *key = ncztr_obj_key(o);
    NCZ_CHECK_ALLOC(key, FAIL);
    if (ncztr_node_keys(L.fmt, key, false, true, keys) < 0)
        NCZ_GOTO_QUIET(FAIL);
    mkey = ncztr_array_meta_key(L.fmt, key);
    NCZ_CHECK_ALLOC(mkey, FAIL);
    o->arr->stub = false;
    size_t mark = ncz_err_mark();
    if (get_json_many(&L, NCZTR_NSLOTS, keys, js, errs) < 0) {
        /* The store failed: this array cannot be used, the rest of it may. */
        o->arr->load_error = ncz_err_take_messages(mark);
        if (!o->arr->load_error)
            o->arr->load_error = strdup("reading its metadata failed");
        NCZ_CHECK_ALLOC(o->arr->load_error, FAIL);
    } else if (ncztr_node_roles(L.fmt, key, js, errs) < 0 ||
               load_array(o, js[NCZTR_SLOT_ARRAY], js[NCZTR_SLOT_ATTRS], key, mkey,
                          errs[NCZTR_SLOT_ARRAY] ? errs[NCZTR_SLOT_ARRAY] : errs[NCZTR_SLOT_ATTRS]) < 0) {
        NCZ_GOTO_QUIET(FAIL);
    }
done:
    for (int i = 0; i < NCZTR_NSLOTS; i++) {
        free(keys[i]);
        free(errs[i]);
        json_decref(js[i]);
    }
    free(mkey);
    free(key);
    return ret;
}

/* The error of a group read after the open, kept for every later use: its messages since
 * mark (FAIL only when out of memory). */
static herr_t keep_group_error(ncztr_obj *c, size_t mark)
{
    free(c->group_error);
    c->group_error = ncz_err_take_messages(mark);
    if (!c->group_error && !(c->group_error = strdup("its metadata cannot be read")))
        return NCZ_PUSH(NCZ_E_NOMEM, "out of memory");
    return SUCCEED;
}

/* f->hooks.load_group: reads pending group g, and with it the pending groups that follow it
 * among its parent's members (one batch of reads, as on open: a walk that opens each group
 * meets them in turn). A group whose .zattrs cannot be used keeps that as its group_error,
 * which every use of it reports (ncztr_obj_load); the others of the batch are unaffected.
 * FAIL when g cannot be read. */
static herr_t load_pending(ncztr_obj *g)
{
    herr_t ret = SUCCEED;
    ncztr_file *f = g->file;
    loader L = {.f = f, .fmt = (ncztr_zfmt)f->zarr_format, .cons = f->old_cons, .lazy = true};
    ncztr_obj *p = g->parent, **batch = calloc(LOAD_BATCH, sizeof *batch);
    char **keys = calloc(3 * LOAD_BATCH, sizeof *keys), **errs = calloc(3 * LOAD_BATCH, sizeof *errs);
    char **ck = calloc(LOAD_BATCH, sizeof *ck);
    json_t **js = calloc(3 * LOAD_BATCH, sizeof *js);
    bool *read = calloc(LOAD_BATCH, sizeof *read); /* read here (not by a nested call) */
    size_t m = 0;
    NCZ_CHECK_ALLOC(batch && keys && errs && ck && js && read, FAIL);
    batch[m++] = g;
    for (size_t i = p ? ncztr_child_pos(p, g) + 1 : 0; p && i < p->nchildren && m < LOAD_BATCH; i++)
        if (p->children[i]->kind == NCZTR_GROUP && p->children[i]->pending)
            batch[m++] = p->children[i];
    for (size_t k = 0; k < m; k++) {
        NCZ_CHECK_ALLOC(ck[k] = ncztr_obj_key(batch[k]), FAIL);
        if (ncztr_node_keys(L.fmt, ck[k], true, false, &keys[3 * k]) < 0)
            NCZ_GOTO_QUIET(FAIL);
    }
    size_t mark = ncz_err_mark();
    if (get_json_many(&L, 3 * m, keys, js, errs) < 0) {
        /* the store failed: none of them can be read */
        if (keep_group_error(g, mark) < 0)
            NCZ_GOTO_QUIET(FAIL);
        for (size_t k = 0; k < m; k++) {
            batch[k]->pending = false;
            f->npending--;
            if (k > 0)
                NCZ_CHECK_ALLOC(batch[k]->group_error = strdup(g->group_error), FAIL);
        }
        NCZ_GOTO(FAIL, NCZ_E_STORE, "%s", g->group_error);
    }
    for (size_t k = 0; k < m && L.fmt != NCZTR_ZARR2; k++)
        if (ncztr_node_roles(L.fmt, ck[k], &js[3 * k], &errs[3 * k]) < 0)
            NCZ_GOTO_QUIET(FAIL);
    /* One at a time: a group still pending while another is read (a dimension named
     * there) is read by itself then, and passed over here. */
    for (size_t k = 0; k < m; k++) {
        ncztr_obj *c = batch[k];
        const char *err = errs[3 * k] ? errs[3 * k] : errs[3 * k + 2];
        if (!c->pending)
            continue;
        c->pending = false;
        f->npending--;
        read[k] = true;
        mark = ncz_err_mark();
        f->reading_pending++;
        herr_t r = err ? NCZ_PUSH(NCZ_E_FORMAT, "group \"%s\": %s", ck[k], err)
                   : js[3 * k] && L.fmt == NCZTR_ZARR2 && ncztr_v2_group_check(keys[3 * k], js[3 * k]) < 0
                       ? FAIL
                       : load_group(&L, c, js[3 * k + 2], ck[k], false);
        if (r == SUCCEED)
            r = ncztr_dimscales_group_loaded(c);
        f->reading_pending--;
        if (r < 0 && keep_group_error(c, mark) < 0)
            NCZ_GOTO_QUIET(FAIL);
    }
    /* References wait until the groups are complete: they may name their members. (While
     * the store opens, ids come after the whole tree: ncztr_load_tree resolves them.) */
    for (size_t k = 0; k < m && f->ids_live; k++) {
        mark = ncz_err_mark();
        if (read[k] && !batch[k]->group_error && ncztr_load_resolve_refs(batch[k]) < 0 &&
            keep_group_error(batch[k], mark) < 0)
            NCZ_GOTO_QUIET(FAIL);
    }
    if (g->group_error)
        NCZ_GOTO(FAIL, NCZ_E_FORMAT, "%s", g->group_error);
done:
    for (size_t i = 0; ck && keys && js && errs && i < 3 * m; i++) {
        free(keys[i]);
        free(errs[i]);
        json_decref(js[i]);
    }
    for (size_t k = 0; ck && k < m; k++)
        free(ck[k]);
    free(batch);
    free(keys);
    free(errs);
    free(ck);
    free(js);
    free(read);
    return ret;
}
