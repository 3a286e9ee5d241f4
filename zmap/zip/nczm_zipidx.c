/* The zip store's segment tree (nczm_zipidx.h). */
#include "nczm_zipidx.h"

#include <stdlib.h>
#include <string.h>

typedef struct seg_key {
    const nczm_zxnode *parent;
    const char *seg;
} seg_key;

static uint64_t seg_hash(const nczm_zxnode *parent, const char *seg, size_t len)
{
    return nczc_hash_str(seg, len) ^ nczc_hash_u64((uint64_t)(uintptr_t)parent);
}

static int seg_match(const void *item, const void *key, size_t len)
{
    const nczm_zxnode *n = item;
    const seg_key *k = key;
    return n->parent == k->parent && n->seglen == len && memcmp(n->seg, k->seg, len) == 0;
}

static nczm_zxnode *node_new(char *seg, size_t len)
{
    nczm_zxnode *n = calloc(1, sizeof *n);
    if (!n)
        return NULL;
    n->obj = n->dir = -1;
    n->seg = seg;
    n->seglen = len;
    return n;
}

static void node_free(nczm_zxnode *n)
{
    free(n->seg);
    free(n);
}

/* Links n under parent (list and hash); -1 when the hash cannot grow. */
static int link_node(nczm_zxindex *x, nczm_zxnode *parent, nczm_zxnode *n)
{
    n->parent = parent;
    n->hash = seg_hash(parent, n->seg, n->seglen);
    if (nczc_hindex_add(&x->ix, n->hash, n) != 0)
        return -1;
    n->prev = NULL;
    n->next = parent->first;
    if (parent->first)
        parent->first->prev = n;
    parent->first = n;
    return 0;
}

static void unlink_node(nczm_zxindex *x, nczm_zxnode *n)
{
    nczc_hindex_remove(&x->ix, n->hash, n);
    if (n->prev)
        n->prev->next = n->next;
    else
        n->parent->first = n->next;
    if (n->next)
        n->next->prev = n->prev;
    n->next = n->prev = NULL;
}

int nczm_zx_init(nczm_zxindex *x)
{
    memset(x, 0, sizeof *x);
    x->root = node_new(NULL, 0);
    return x->root ? 0 : -1;
}

void nczm_zx_free(nczm_zxindex *x)
{
    if (!x->root)
        return;
    /* Post-order without recursion: the tree can be tens of thousands of levels deep. */
    nczm_zxnode *n = x->root;
    for (;;) {
        while (n->first)
            n = n->first;
        nczm_zxnode *p = n->parent;
        if (p) {
            p->first = n->next;
            if (n->next)
                n->next->prev = NULL;
        }
        node_free(n);
        if (!p)
            break;
        n = p;
    }
    nczc_hindex_clear(&x->ix);
    x->root = NULL;
}

nczm_zxnode *nczm_zx_child(const nczm_zxindex *x, const nczm_zxnode *p, const char *seg, size_t len)
{
    seg_key k = {p, seg};
    return nczc_hindex_find(&x->ix, seg_hash(p, seg, len), seg_match, &k, len);
}

nczm_zxnode *nczm_zx_make_child(nczm_zxindex *x, nczm_zxnode *p, const char *seg, size_t len)
{
    nczm_zxnode *c = nczm_zx_child(x, p, seg, len);
    if (c)
        return c;
    char *copy = malloc(len + 1);
    if (!copy)
        return NULL;
    memcpy(copy, seg, len);
    copy[len] = '\0';
    if (!(c = node_new(copy, len))) {
        free(copy);
        return NULL;
    }
    if (link_node(x, p, c) != 0) {
        node_free(c);
        return NULL;
    }
    return c;
}

nczm_zxnode *nczm_zx_find(nczm_zxindex *x, const char *path, size_t len, int make)
{
    nczm_zxnode *n = x->root, *made = NULL;
    if (!len)
        return n;
    /* segments split at every '/': "a//b" has an empty one, as does "a/" at its end */
    for (const char *p = path, *end = path + len;;) {
        const char *sl = memchr(p, '/', (size_t)(end - p));
        size_t l = sl ? (size_t)(sl - p) : (size_t)(end - p);
        nczm_zxnode *c = nczm_zx_child(x, n, p, l);
        if (!c && !make)
            return NULL;
        if (!c) {
            if (!(c = nczm_zx_make_child(x, n, p, l))) {
                if (made)
                    nczm_zx_drop_tree(x, made);
                return NULL;
            }
            if (!made)
                made = c;
        }
        n = c;
        if (!sl)
            return n;
        p = sl + 1;
    }
}

nczm_zxnode *nczm_zx_deepest_parent(nczm_zxindex *x, const char *path)
{
    nczm_zxnode *n = x->root;
    for (const char *p = path, *sl; (sl = strchr(p, '/')) != NULL; p = sl + 1) {
        nczm_zxnode *c = nczm_zx_child(x, n, p, (size_t)(sl - p));
        if (!c)
            break;
        n = c;
    }
    return n;
}

int nczm_zx_add_entry(nczm_zxindex *x, const char *rel, int64_t idx)
{
    size_t len = strlen(rel);
    int isdir = len > 0 && rel[len - 1] == '/';
    nczm_zxnode *n = nczm_zx_find(x, rel, isdir ? len - 1 : len, 1);
    if (!n)
        return -1;
    /* The folder's own directory entry ("x/", rel "") is the root's. */
    if (isdir || len == 0)
        n->dir = idx;
    else
        n->obj = idx;
    return 0;
}

nczm_zxnode *nczm_zx_drop_if_empty(nczm_zxindex *x, nczm_zxnode *n)
{
    nczm_zxnode *p = n->parent;
    if (p && n->obj < 0 && n->dir < 0 && !n->first) {
        unlink_node(x, n);
        node_free(n);
    }
    return p;
}

void nczm_zx_sweep(nczm_zxindex *x, nczm_zxnode *top)
{
    nczm_zxnode *n = top;
    while (n->first)
        n = n->first;
    for (;;) {
        /* every child of n has been visited: find the next node in post-order first */
        nczm_zxnode *next = NULL;
        if (n != top) {
            if (n->next) {
                next = n->next;
                while (next->first)
                    next = next->first;
            } else {
                next = n->parent;
            }
        }
        nczm_zx_drop_if_empty(x, n);
        if (!next)
            break;
        n = next;
    }
}

void nczm_zx_drop_tree(nczm_zxindex *x, nczm_zxnode *top)
{
    unlink_node(x, top);
    nczm_zxnode *n = top;
    for (;;) {
        while (n->first)
            n = n->first;
        if (n == top) {
            node_free(top);
            return;
        }
        nczm_zxnode *p = n->parent;
        unlink_node(x, n);
        node_free(n);
        n = p;
    }
}

void nczm_zx_move(nczm_zxindex *x, nczm_zxnode *n, nczm_zxnode *parent, char *seg, size_t len)
{
    unlink_node(x, n);
    free(n->seg);
    n->seg = seg;
    n->seglen = len;
    /* One slot was just freed, so the index does not grow and link_node cannot fail. */
    link_node(x, parent, n);
}

nczm_zxnode *nczm_zx_next(const nczm_zxnode *top, const nczm_zxnode *n)
{
    if (n->first)
        return n->first;
    while (n != top) {
        if (n->next)
            return n->next;
        n = n->parent;
    }
    return NULL;
}
