/* Object ids, which the connector hands out as HDF5 object tokens (H5Oget_info3,
 * H5Rcreate_object) and which references in attribute values hold in the model.
 *
 * An object's id is a 64-bit hash of its path at the moment it is first known in this
 * open of the store (created, or loaded), moved on to the next free value when another
 * live object has it; the object keeps it while open, whatever it is renamed to. So a
 * token names the same object after H5Lmove, and an object found at the same path after
 * the store is closed and opened again gets the same token (nothing is stored: the path
 * is the only thing both opens share). Id 0 is never given: it is the null reference.
 *
 * Objects loaded from a store get their ids once the whole tree is loaded and the netCDF
 * dimension scales are set up (ncztr_ids_assign_tree), since that renames and adds
 * objects: ids then follow the names an application sees, in the order of the tree.
 * Every live object, linked or not, is in one index by id (f->ids), kept up to date as
 * objects are made and freed, so lookups by id never walk the tree. A deleted object
 * keeps its id while a handle holds it; once freed, its id may go to an object made later
 * at the same path, which references to it then name, as the paths they are stored as
 * would after a reopen. */
#include "ncztr_model_internal.h"

#include <stdlib.h>
#include <string.h>

static int id_match(const void *item, const void *key, size_t len)
{
    (void)len;
    return ((const ncztr_obj *)item)->id == *(const uint64_t *)key;
}

ncztr_obj *ncztr_ids_get(const ncztr_file *f, uint64_t id)
{
    return nczc_hindex_find(&f->ids, nczc_hash_u64(id), id_match, &id, 0);
}

/* The hash of the path name would have under parent ("/" for the root: parent NULL),
 * from the names of the links down to it. FAIL only when out of memory (a tree deeper
 * than the local stack of ancestors). */
static herr_t path_hash(const ncztr_obj *parent, const char *name, uint64_t *out)
{
    const ncztr_obj *local[64], **up = local;
    size_t n = 0, cap = sizeof local / sizeof local[0];
    for (const ncztr_obj *p = parent; p && p->parent; p = p->parent) {
        if (n == cap) {
            const ncztr_obj **nu = malloc(2 * cap * sizeof *nu);
            if (!nu) {
                if (up != local)
                    free(up);
                return NCZ_PUSH(NCZ_E_NOMEM, "out of memory naming object \"%s\"", name ? name : "/");
            }
            memcpy(nu, up, n * sizeof *nu);
            if (up != local)
                free(up);
            up = nu;
            cap *= 2;
        }
        up[n++] = p;
    }
    uint64_t h = NCZC_HASH_SEED;
    for (size_t i = n; i-- > 0;) {
        h = nczc_hash_bytes(h, "/", 1);
        h = nczc_hash_bytes(h, up[i]->name, strlen(up[i]->name));
    }
    if (name) {
        h = nczc_hash_bytes(h, "/", 1);
        h = nczc_hash_bytes(h, name, strlen(name));
    } else if (n == 0) {
        h = nczc_hash_bytes(h, "/", 1);
    }
    if (up != local)
        free(up);
    *out = nczc_hash_u64(h);
    return SUCCEED;
}

/* Gives o the first free id from h on and enters it in the index. */
static herr_t take(ncztr_obj *o, uint64_t h)
{
    ncztr_file *f = o->file;
    uint64_t id = h;
    while (id == 0 || ncztr_ids_get(f, id))
        id++;
    o->id = id;
    if (nczc_hindex_add(&f->ids, nczc_hash_u64(id), o) != 0) {
        o->id = 0;
        return NCZ_PUSH(NCZ_E_NOMEM, "out of memory adding object \"%s\"", o->name);
    }
    return SUCCEED;
}

herr_t ncztr_ids_take(ncztr_obj *o, const ncztr_obj *parent)
{
    uint64_t h;
    if (o->id || !o->file->ids_live)
        return SUCCEED;
    if (o->anonymous) {
        /* no path yet: a hash of a name no path can have */
        h = nczc_hash_u64(o->file->anon_seq++ ^ 0x616e6f6e796d6f75u);
    } else if (path_hash(parent, parent || o->parent ? o->name : NULL, &h) < 0) {
        return FAIL;
    }
    return take(o, h);
}

herr_t ncztr_tree_walk(ncztr_file *f, herr_t (*fn)(ncztr_obj *o, void *ud), void *ud)
{
    return f->root ? ncztr_subtree_walk(f->root, fn, ud) : SUCCEED;
}

/* A pending group has no members in memory: the walk never enters one. */
herr_t ncztr_subtree_walk(ncztr_obj *top, herr_t (*fn)(ncztr_obj *o, void *ud), void *ud)
{
    ncztr_obj **stack = NULL;
    size_t n = 0, cap = 0;
    herr_t ret = SUCCEED;
    ncztr_obj *o = top;
    for (;;) {
        if (fn(o, ud) < 0)
            NCZ_GOTO_QUIET(FAIL);
        if (n + o->nchildren > cap) {
            size_t nc = cap ? cap : 64;
            while (nc < n + o->nchildren)
                nc *= 2;
            ncztr_obj **ns = realloc(stack, nc * sizeof *ns);
            NCZ_CHECK_ALLOC(ns, FAIL);
            stack = ns;
            cap = nc;
        }
        for (size_t i = o->nchildren; i-- > 0;) /* pushed last first: popped in order */
            stack[n++] = o->children[i];
        if (!n)
            break;
        o = stack[--n];
    }
done:
    free(stack);
    return ret;
}

static herr_t assign_one(ncztr_obj *o, void *ud)
{
    (void)ud;
    return o->id ? SUCCEED : ncztr_ids_take(o, o->parent);
}

herr_t ncztr_ids_assign_tree(ncztr_file *f)
{
    f->ids_live = true;
    return ncztr_tree_walk(f, assign_one, NULL);
}

void ncztr_ids_forget(ncztr_obj *o)
{
    if (o->id && o->file)
        nczc_hindex_remove(&o->file->ids, nczc_hash_u64(o->id), o);
}

void ncztr_ids_file_closing(ncztr_file *f)
{
    /* What a handle still holds outlives the file: it must not reach back into it. */
    for (size_t i = 0; i < f->ids.cap; i++)
        if (f->ids.slots[i].item)
            ((ncztr_obj *)f->ids.slots[i].item)->file = NULL;
    nczc_hindex_clear(&f->ids);
}
