/* Indexes of the model: children and attributes by name or by index, shared dimensions by
 * name (lookups by path and by id, which follow links: ncztr_lookup.c). Groups and objects can hold 100000s
 * of members, and HDF5 programs look every one of them up by name while walking (H5Literate then
 * H5Oget_info_by_name, H5Aiterate then H5Aopen), so lookups must not scan:
 *  - by name: a hash index (nczc_hash.h) per member list, built on the first lookup in a
 *    list of more than a few members and kept up to date from then on;
 *  - by name order: the members sorted once, kept until the list changes;
 *  - by creation order: the member arrays themselves (appended in creation order);
 *  - by id: one index of the file's live objects, kept by ncztr_ids.c.
 * Every index is a cache: if memory runs out while updating one it is dropped, and
 * lookups fall back to scanning, never to a wrong answer. */
#include "ncztr_model_internal.h"

#include <stdlib.h>
#include <string.h>

/* Lists shorter than this are scanned: an index would cost more than it saves. */
#define INDEX_MIN 16

/* ---- children ---- */

static int child_match(const void *item, const void *key, size_t len)
{
    const char *n = ((const ncztr_obj *)item)->name;
    return strncmp(n, key, len) == 0 && n[len] == '\0';
}

static uint64_t name_hash(const char *name)
{
    return nczc_hash_str(name, strlen(name));
}

static void build_child_index(ncztr_obj *g)
{
    for (size_t i = 0; i < g->nchildren; i++)
        if (nczc_hindex_add(&g->child_ix, name_hash(g->children[i]->name), g->children[i]) != 0) {
            nczc_hindex_clear(&g->child_ix);
            return;
        }
}

void ncztr_index_child_added(ncztr_obj *g, ncztr_obj *c)
{
    free(g->child_by_name);
    g->child_by_name = NULL;
    if (g->child_ix.count && nczc_hindex_add(&g->child_ix, name_hash(c->name), c) != 0)
        nczc_hindex_clear(&g->child_ix);
}

void ncztr_index_child_removed(ncztr_obj *g, ncztr_obj *c)
{
    free(g->child_by_name);
    g->child_by_name = NULL;
    nczc_hindex_remove(&g->child_ix, name_hash(c->name), c);
}

ncztr_obj *ncztr_child_len(const ncztr_obj *g, const char *name, size_t len)
{
    if (!g || g->kind != NCZTR_GROUP || ncztr_group_ready(g) < 0)
        return NULL;
    if (g->nchildren >= INDEX_MIN && !g->child_ix.count)
        build_child_index((ncztr_obj *)g); /* a cache: the group itself is not changed */
    if (g->child_ix.count)
        return nczc_hindex_find(&g->child_ix, nczc_hash_str(name, len), child_match, name, len);
    for (size_t i = 0; i < g->nchildren; i++)
        if (child_match(g->children[i], name, len))
            return g->children[i];
    return NULL;
}

ncztr_obj *ncztr_child(const ncztr_obj *g, const char *name)
{
    return ncztr_child_len(g, name, strlen(name));
}

/* qsort's comparator gets no context, so one per member kind. */
static int cmp_obj_name(const void *a, const void *b)
{
    return strcmp((*(ncztr_obj *const *)a)->name, (*(ncztr_obj *const *)b)->name);
}

static int cmp_attr_name(const void *a, const void *b)
{
    return strcmp((*(ncztr_attr *const *)a)->name, (*(ncztr_attr *const *)b)->name);
}

/* The members sorted by name: the cache, made when missing (NULL when out of memory). */
static void **by_name(void **cache, void *const *members, size_t n, int (*cmp)(const void *, const void *))
{
    if (!*cache && n) {
        void **v = malloc(n * sizeof *v);
        if (!v)
            return NULL;
        memcpy(v, members, n * sizeof *v);
        qsort(v, n, sizeof *v, cmp);
        *cache = v;
    }
    return *cache;
}

/* The i-th of n members in an index and order, from the creation-ordered array and the
 * name-sorted cache. */
static void *nth(void *const *crt, void *const *named, size_t n, H5_index_t idx, H5_iter_order_t order,
                 size_t i)
{
    size_t k = order == H5_ITER_DEC ? n - 1 - i : i;
    return idx == H5_INDEX_NAME ? named[k] : crt[k];
}

/* A malloc'ed copy of the members in the asked index and order. */
static void **sorted_copy(void *const *crt, void *const *named, size_t n, H5_index_t idx,
                          H5_iter_order_t order)
{
    void **v = malloc((n ? n : 1) * sizeof *v);
    if (v)
        for (size_t i = 0; i < n; i++)
            v[i] = nth(crt, named, n, idx, order, i);
    return v;
}

ncztr_obj **ncztr_children_sorted(const ncztr_obj *g, H5_index_t idx, H5_iter_order_t order)
{
    ncztr_obj *m = (ncztr_obj *)g; /* the name order is a cache */
    void **named = NULL;
    if (ncztr_group_ready(g) < 0)
        return NULL;
    if (idx == H5_INDEX_NAME && g->nchildren &&
        !(named =
              by_name((void **)&m->child_by_name, (void *const *)g->children, g->nchildren, cmp_obj_name)))
        goto nomem;
    void **v = sorted_copy((void *const *)g->children, named, g->nchildren, idx, order);
    if (!v)
        goto nomem;
    return (ncztr_obj **)v;
nomem:
    NCZ_PUSH(NCZ_E_NOMEM, "out of memory listing a group");
    return NULL;
}

ncztr_obj *ncztr_child_by_idx(const ncztr_obj *g, H5_index_t idx, H5_iter_order_t order, hsize_t n)
{
    if (g && ncztr_group_ready(g) < 0)
        return NULL;
    if (!g || g->kind != NCZTR_GROUP || n >= g->nchildren) {
        NCZ_PUSH(NCZ_E_NOTFOUND, "link index %llu is out of range (the group has %zu links)",
                 (unsigned long long)n, g ? g->nchildren : 0);
        return NULL;
    }
    ncztr_obj *m = (ncztr_obj *)g;
    void **named = NULL;
    if (idx == H5_INDEX_NAME && !(named = by_name((void **)&m->child_by_name, (void *const *)g->children,
                                                  g->nchildren, cmp_obj_name))) {
        NCZ_PUSH(NCZ_E_NOMEM, "out of memory listing a group");
        return NULL;
    }
    return nth((void *const *)g->children, named, g->nchildren, idx, order, (size_t)n);
}

/* ---- attributes ---- */

static int attr_match(const void *item, const void *key, size_t len)
{
    const char *n = ((const ncztr_attr *)item)->name;
    return strncmp(n, key, len) == 0 && n[len] == '\0';
}

static void build_attr_index(ncztr_obj *o)
{
    for (size_t i = 0; i < o->nattrs; i++)
        if (nczc_hindex_add(&o->attr_ix, name_hash(o->attrs[i]->name), o->attrs[i]) != 0) {
            nczc_hindex_clear(&o->attr_ix);
            return;
        }
}

void ncztr_index_attr_added(ncztr_obj *o, ncztr_attr *a)
{
    free(o->attr_by_name);
    o->attr_by_name = NULL;
    if (o->attr_ix.count && nczc_hindex_add(&o->attr_ix, name_hash(a->name), a) != 0)
        nczc_hindex_clear(&o->attr_ix);
}

void ncztr_index_attr_removed(ncztr_obj *o, ncztr_attr *a)
{
    free(o->attr_by_name);
    o->attr_by_name = NULL;
    nczc_hindex_remove(&o->attr_ix, name_hash(a->name), a);
}

herr_t ncztr_attr_append(ncztr_obj *o, ncztr_attr *a)
{
    if (o->nattrs == o->attrs_cap) {
        size_t ncap = o->attrs_cap ? o->attrs_cap * 2 : 8;
        ncztr_attr **na = realloc(o->attrs, ncap * sizeof *na);
        if (!na)
            return NCZ_PUSH(NCZ_E_NOMEM, "out of memory adding attribute \"%s\"", a->name);
        o->attrs = na;
        o->attrs_cap = ncap;
    }
    a->corder = o->next_attr_corder++;
    o->attrs[o->nattrs++] = a;
    ncztr_index_attr_added(o, a);
    return SUCCEED;
}

ncztr_attr *ncztr_attr_find(const ncztr_obj *o, const char *name)
{
    if (ncztr_obj_attrs_ready(o) < 0)
        return NULL;
    return ncztr_attr_find_loaded(o, name);
}

ncztr_attr *ncztr_attr_find_loaded(const ncztr_obj *o, const char *name)
{
    size_t len = strlen(name);
    if (o->nattrs >= INDEX_MIN && !o->attr_ix.count)
        build_attr_index((ncztr_obj *)o);
    if (o->attr_ix.count)
        return nczc_hindex_find(&o->attr_ix, nczc_hash_str(name, len), attr_match, name, len);
    for (size_t i = 0; i < o->nattrs; i++)
        if (attr_match(o->attrs[i], name, len))
            return o->attrs[i];
    return NULL;
}

ncztr_attr **ncztr_attrs_sorted(const ncztr_obj *o, H5_index_t idx, H5_iter_order_t order)
{
    ncztr_obj *m = (ncztr_obj *)o;
    void **named = NULL, **v = NULL;
    if (ncztr_obj_attrs_ready(o) < 0)
        return NULL;
    if (idx == H5_INDEX_NAME && o->nattrs &&
        !(named = by_name((void **)&m->attr_by_name, (void *const *)o->attrs, o->nattrs, cmp_attr_name)))
        goto nomem;
    if (!(v = sorted_copy((void *const *)o->attrs, named, o->nattrs, idx, order)))
        goto nomem;
    return (ncztr_attr **)v;
nomem:
    NCZ_PUSH(NCZ_E_NOMEM, "out of memory listing attributes");
    return NULL;
}

ncztr_attr *ncztr_attr_by_idx(const ncztr_obj *o, H5_index_t idx, H5_iter_order_t order, hsize_t n)
{
    if (ncztr_obj_attrs_ready(o) < 0)
        return NULL;
    if (n >= o->nattrs) {
        NCZ_PUSH(NCZ_E_NOTFOUND, "attribute index %llu is out of range (the object has %zu attributes)",
                 (unsigned long long)n, o->nattrs);
        return NULL;
    }
    ncztr_obj *m = (ncztr_obj *)o;
    void **named = NULL;
    if (idx == H5_INDEX_NAME &&
        !(named = by_name((void **)&m->attr_by_name, (void *const *)o->attrs, o->nattrs, cmp_attr_name))) {
        NCZ_PUSH(NCZ_E_NOMEM, "out of memory listing attributes");
        return NULL;
    }
    return nth((void *const *)o->attrs, named, o->nattrs, idx, order, (size_t)n);
}

/* ---- positions: member arrays are in creation order, so a member's creation order number
 * finds it by binary search (a scan when that fails, which it cannot unless the order was
 * broken) ---- */

static size_t pos_of(void *const *v, size_t n, const void *item, uint64_t corder,
                     uint64_t (*corder_of)(const void *))
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (corder_of(v[mid]) < corder)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < n && v[lo] == item)
        return lo;
    for (size_t i = 0; i < n; i++)
        if (v[i] == item)
            return i;
    return n;
}

static uint64_t obj_corder(const void *o)
{
    return ((const ncztr_obj *)o)->corder;
}

static uint64_t attr_corder(const void *a)
{
    return ((const ncztr_attr *)a)->corder;
}

size_t ncztr_child_pos(const ncztr_obj *g, const ncztr_obj *c)
{
    return pos_of((void *const *)g->children, g->nchildren, c, c->corder, obj_corder);
}

size_t ncztr_attr_pos(const ncztr_obj *o, const ncztr_attr *a)
{
    return pos_of((void *const *)o->attrs, o->nattrs, a, a->corder, attr_corder);
}

/* ---- shared dimensions: indexed by position + 1, since the array moves as it grows ---- */

typedef struct dim_key {
    const ncztr_dim *dims;
    const char *name;
} dim_key;

static int dim_match(const void *item, const void *key, size_t len)
{
    const dim_key *k = key;
    (void)len;
    return strcmp(k->dims[(uintptr_t)item - 1].name, k->name) == 0;
}

ncztr_dim *ncztr_group_dim(const ncztr_obj *g, const char *name)
{
    ncztr_obj *m = (ncztr_obj *)g;
    if (ncztr_group_ready(g) < 0)
        return NULL;
    if (g->ndims >= INDEX_MIN && !g->dim_ix.count)
        for (size_t i = 0; i < g->ndims; i++)
            if (nczc_hindex_add(&m->dim_ix, name_hash(g->dims[i].name), (void *)(uintptr_t)(i + 1)) != 0) {
                nczc_hindex_clear(&m->dim_ix);
                break;
            }
    if (g->dim_ix.count) {
        dim_key k = {g->dims, name};
        void *hit = nczc_hindex_find(&g->dim_ix, name_hash(name), dim_match, &k, 0);
        return hit ? &g->dims[(uintptr_t)hit - 1] : NULL;
    }
    for (size_t i = 0; i < g->ndims; i++)
        if (strcmp(g->dims[i].name, name) == 0)
            return &g->dims[i];
    return NULL;
}

ncztr_dim *ncztr_group_add_dim(ncztr_obj *g, const char *name, uint64_t size, bool unlimited)
{
    if (g->ndims == g->dims_cap) {
        size_t ncap = g->dims_cap ? g->dims_cap * 2 : 4;
        ncztr_dim *nd = realloc(g->dims, ncap * sizeof *nd);
        if (!nd)
            return NULL;
        g->dims = nd;
        g->dims_cap = ncap;
    }
    ncztr_dim *d = &g->dims[g->ndims];
    if (!(d->name = strdup(name)))
        return NULL;
    d->size = size;
    d->unlimited = unlimited;
    g->ndims++;
    if (g->dim_ix.count && nczc_hindex_add(&g->dim_ix, name_hash(name), (void *)(uintptr_t)g->ndims) != 0)
        nczc_hindex_clear(&g->dim_ix);
    return d;
}

void ncztr_index_obj_free(ncztr_obj *o)
{
    nczc_hindex_clear(&o->child_ix);
    nczc_hindex_clear(&o->attr_ix);
    nczc_hindex_clear(&o->dim_ix);
    free(o->child_by_name);
    free(o->attr_by_name);
    o->child_by_name = NULL;
    o->attr_by_name = NULL;
}

struct ncztr_objset {
    nczc_hindex ix;
};

static int same_obj(const void *item, const void *key, size_t keylen)
{
    (void)keylen;
    return item == key;
}

int ncztr_objset_first_visit(ncztr_objset **set, const ncztr_obj *o)
{
    if (!o->file->has_aliases)
        return 1;
    if (!*set && !(*set = calloc(1, sizeof **set)))
        return -1;
    uint64_t h = nczc_hash_u64(o->id);
    if (nczc_hindex_find(&(*set)->ix, h, same_obj, o, 0))
        return 0;
    return nczc_hindex_add(&(*set)->ix, h, (void *)o) == 0 ? 1 : -1;
}

void ncztr_objset_free(ncztr_objset *set)
{
    if (!set)
        return;
    nczc_hindex_clear(&set->ix);
    free(set);
}
