/* The zip store's changes: writing and deleting entries (with the directory entries of the
 * folder layout kept right), listing, and renaming subtrees. Opening and reading: nczm_zip.c. */
#include "nczm_zip_internal.h"

#include "nczm_zipidx.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zip.h>

/* Adds netCDF-C's directory entries for the folders above key (folder layout only). */
static nczm_status add_dirs(zip_map *zm, const char *key)
{
    if (!zm->folderlen)
        return NCZM_OK;
    char *name = nczm_zip_entry_name(zm, key, "");
    if (!name)
        return nczm_seterr(&zm->base, NCZM_NOMEM, "%s: write \"%s\": out of memory", zm->base.location, key);
    nczm_status st = NCZM_OK;
    nczm_zxnode *n = zm->ix.root, *made = NULL;
    for (char *seg = name + zm->folderlen, *p; (p = strchr(seg, '/')) != NULL; seg = p + 1) {
        nczm_zxnode *c = nczm_zx_child(&zm->ix, n, seg, (size_t)(p - seg));
        if (!c) {
            if (!(c = nczm_zx_make_child(&zm->ix, n, seg, (size_t)(p - seg)))) {
                st = nczm_seterr(&zm->base, NCZM_NOMEM, "%s: write \"%s\": out of memory", zm->base.location,
                                 key);
                break;
            }
            if (!made)
                made = c;
        }
        if (c->dir < 0) {
            char save = p[1];
            p[1] = '\0';
            zip_int64_t i = zip_dir_add(zm->za, name, ZIP_FL_ENC_UTF_8);
            if (i < 0)
                st = nczm_seterr(&zm->base, NCZM_IO, "%s: write \"%s\": adding folder \"%s\": %s",
                                 zm->base.location, key, name, nczm_zip_zerr(zm->za));
            p[1] = save;
            if (st)
                break;
            c->dir = i;
        }
        n = c;
    }
    if (st && made)
        nczm_zx_sweep(&zm->ix, made); /* no folder node without an entry */
    free(name);
    return st;
}

/* After a delete below the folder node p: drop the directory entries of folders left
 * empty, from p up, so that a prefix exists exactly while something is below it (as in the
 * directory store), and the index nodes left with nothing. The top folder stays. */
static void prune_up(zip_map *zm, nczm_zxnode *p)
{
    while (p != zm->ix.root && !p->first) {
        if (zm->folderlen && p->dir >= 0) {
            if (zip_delete(zm->za, (zip_uint64_t)p->dir) != 0)
                break;
            p->dir = -1;
        }
        if (p->obj >= 0 || p->dir >= 0)
            break;
        p = nczm_zx_drop_if_empty(&zm->ix, p);
    }
}

/* The same after a delete at key, which may have left no node of its own. */
static void prune_dirs(zip_map *zm, const char *key)
{
    nczm_zxnode *n = nczm_zx_find(&zm->ix, key, strlen(key), 0);
    prune_up(zm, n ? nczm_zx_drop_if_empty(&zm->ix, n) : nczm_zx_deepest_parent(&zm->ix, key));
}

/* Drops n and its ancestors while they have nothing: index nodes made for a write that
 * failed (the folders' directory entries stay, as they would without the index). */
static void drop_empty_up(zip_map *zm, nczm_zxnode *n)
{
    while (n && n != zm->ix.root && n->obj < 0 && n->dir < 0 && !n->first)
        n = nczm_zx_drop_if_empty(&zm->ix, n);
}

/* A zip can hold "a" and "a/b" side by side; a directory tree cannot. Refuse here too so
 * both stores agree on what a valid set of keys is. */
static nczm_status check_conflicts(zip_map *zm, const char *key)
{
    nczm_zxnode *n = nczm_zx_find(&zm->ix, key, strlen(key), 0);
    if (n && n->first)
        return nczm_seterr(&zm->base, NCZM_INVAL,
                           "%s: write \"%s\": the key is a prefix (has objects below it)", zm->base.location,
                           key);
    /* An emptied folder's leftover directory entry would shadow the object. */
    if (n && n->dir >= 0 && zip_delete(zm->za, (zip_uint64_t)n->dir) == 0)
        n->dir = -1;
    n = zm->ix.root;
    for (const char *seg = key, *p; n && (p = strchr(seg, '/')) != NULL; seg = p + 1)
        if ((n = nczm_zx_child(&zm->ix, n, seg, (size_t)(p - seg))) && n->obj >= 0)
            return nczm_seterr(&zm->base, NCZM_INVAL, "%s: write \"%s\": a prefix of the key is an object",
                               zm->base.location, key);
    return NCZM_OK;
}

nczm_status nczm_zip_write(nczm_map *map, const char *key, const void *data, size_t len)
{
    zip_map *zm = ZM(map);
    nczm_status st = check_conflicts(zm, key);
    if (!st)
        st = add_dirs(zm, key);
    if (st)
        return st;
    char *name = nczm_zip_entry_name(zm, key, "");
    char *copy = malloc(len ? len : 1);
    zip_int64_t nent = zip_get_num_entries(zm->za, 0);
    /* Room for the entry's slot and its index node before adding, so nothing can fail
     * after libzip holds the buffer (an existing name keeps its index; a new one is
     * appended). */
    nczm_zxnode *node = nczm_zx_find(&zm->ix, key, strlen(key), 1);
    if (!name || !copy || nent < 0 || !node || nczm_zip_ensure_pend(zm, (zip_uint64_t)nent) != 0) {
        free(name);
        free(copy);
        drop_empty_up(zm, node);
        return nczm_seterr(map, NCZM_NOMEM, "%s: write \"%s\": out of memory", map->location, key);
    }
    memcpy(copy, data, len);
    zip_source_t *src = zip_source_buffer(zm->za, copy, len, 0);
    zip_int64_t idx = src ? zip_file_add(zm->za, name, src, ZIP_FL_OVERWRITE | ZIP_FL_ENC_UTF_8) : -1;
    free(name);
    if (idx < 0) {
        st = nczm_seterr(map, NCZM_IO, "%s: write \"%s\": %s", map->location, key, nczm_zip_zerr(zm->za));
        if (src)
            zip_source_free(src);
        free(copy);
        drop_empty_up(zm, node);
        return st;
    }
    node->obj = idx;
    /* Replacing freed the old entry's source, so its buffer is no longer referenced. */
    nczm_zip_drop_pend(zm, (zip_uint64_t)idx);
    zm->pend[idx].data = copy;
    zm->pend[idx].len = len;
    if (zip_set_file_compression(zm->za, (zip_uint64_t)idx, ZIP_CM_STORE, 0) != 0)
        return nczm_seterr(map, NCZM_IO, "%s: write \"%s\": %s", map->location, key, nczm_zip_zerr(zm->za));
    return NCZM_OK;
}

nczm_status nczm_zip_delete(nczm_map *map, const char *key)
{
    zip_map *zm = ZM(map);
    zip_uint64_t idx;
    nczm_status st = nczm_zip_find(zm, "delete", key, &idx);
    if (st)
        return st;
    if (zip_delete(zm->za, idx) != 0)
        return nczm_seterr(map, NCZM_IO, "%s: delete \"%s\": %s", map->location, key, nczm_zip_zerr(zm->za));
    nczm_zip_drop_pend(zm, idx);
    nczm_zxnode *n = nczm_zx_find(&zm->ix, key, strlen(key), 0);
    if (n)
        n->obj = -1;
    prune_dirs(zm, key);
    return NCZM_OK;
}

nczm_status nczm_zip_delete_tree(nczm_map *map, const char *prefix)
{
    zip_map *zm = ZM(map);
    nczm_status st = NCZM_OK;
    nczm_zxnode *top = nczm_zx_find(&zm->ix, prefix, strlen(prefix), 0);
    if (!top) {
        prune_dirs(zm, prefix);
        return NCZM_OK;
    }
    /* The object at prefix, its directory entry and everything under it. */
    for (nczm_zxnode *n = top; n && !st; n = nczm_zx_next(top, n))
        for (int d = 0; d < 2 && !st; d++) {
            int64_t *e = d ? &n->dir : &n->obj;
            if (*e < 0)
                continue;
            if (zip_delete(zm->za, (zip_uint64_t)*e) != 0) {
                st = nczm_seterr(map, NCZM_IO, "%s: delete_tree \"%s\": %s", map->location, prefix,
                                 nczm_zip_zerr(zm->za));
            } else {
                nczm_zip_drop_pend(zm, (zip_uint64_t)*e);
                *e = -1;
            }
        }
    nczm_zxnode *parent = top->parent;
    nczm_zx_sweep(&zm->ix, top);
    if (!st)
        prune_up(zm, parent);
    return st;
}

/* Whether below child c (its own segment checked by the caller) there is an object a key
 * can name: c's own, or one whose every segment down from c is a valid one. A name no key
 * can reach (a segment with a backslash, say) or a bare directory entry holds nothing a
 * listing may promise: a listed child is one that can be read, renamed or deleted. Walked
 * without recursion: an archive's names may have tens of thousands of segments. */
static int holds_object(const nczm_zxnode *c)
{
    for (const nczm_zxnode *n = c; n; n = nczm_zx_next(c, n)) {
        if (n->obj < 0)
            continue;
        const nczm_zxnode *up = n;
        while (up != c && nczm_segment_ok(up->seg, up->seglen))
            up = up->parent;
        if (up == c)
            return 1;
    }
    return 0;
}

nczm_status nczm_zip_search(nczm_map *map, const char *prefix, nczm_list *out)
{
    zip_map *zm = ZM(map);
    size_t cap = 0;
    nczm_zxnode *n = nczm_zx_find(&zm->ix, prefix, strlen(prefix), 0);
    /* Children come from entry names: "p/a" gives "a", "p/b/c" gives "b" whether or not
     * "p/b/" has a directory entry of its own; "p/d/" alone gives nothing. */
    for (nczm_zxnode *c = n ? n->first : NULL; c; c = c->next)
        if (nczm_segment_ok(c->seg, c->seglen) && holds_object(c) &&
            nczm_list_append(out, &cap, c->seg, c->seglen) != NCZM_OK)
            return nczm_seterr(map, NCZM_NOMEM, "%s: search \"%s\": out of memory", map->location, prefix);
    nczm_list_finish(out);
    return NCZM_OK;
}

/* Puts the entries renamed so far back under their old names (best effort: this only runs
 * when something already failed). */
static void undo_renames(zip_map *zm, const zip_uint64_t *moved, size_t n, const char *from, size_t tolen)
{
    while (n--) {
        const char *cur = zip_get_name(zm->za, moved[n], 0);
        char *back = cur ? malloc(strlen(from) + strlen(cur + tolen) + 1) : NULL;
        if (back) {
            strcat(strcpy(back, from), cur + tolen);
            zip_file_rename(zm->za, moved[n], back, ZIP_FL_ENC_UTF_8);
        }
        free(back);
    }
}

/* Entries (objects, and directories when dirs) in the subtree of top. */
static size_t count_entries(const nczm_zxnode *top, int dirs)
{
    size_t k = 0;
    for (const nczm_zxnode *n = top; n; n = nczm_zx_next(top, n))
        k += (n->obj >= 0) + (dirs && n->dir >= 0);
    return k;
}

/* zip_file_rename changes an entry's name in place: its data, and the pending buffer kept
 * under its index, stay where they are, so no object is read or copied. In the index the
 * subtree changes parent. */
nczm_status nczm_zip_rename_tree(nczm_map *map, const char *old_prefix, const char *new_prefix)
{
    zip_map *zm = ZM(map);
    const char *op = "rename_tree";
    char *from = nczm_zip_entry_name(zm, old_prefix, ""), *to = nczm_zip_entry_name(zm, new_prefix, ""),
         *nn = NULL, *leaf = NULL;
    zip_uint64_t *moved = NULL, *todo = NULL;
    size_t nmoved = 0, ntodo = 0;
    nczm_status st = NCZM_OK;
    nczm_zxnode *src = nczm_zx_find(&zm->ix, old_prefix, strlen(old_prefix), 0);
    nczm_zxnode *dst = nczm_zx_find(&zm->ix, new_prefix, strlen(new_prefix), 0), *dparent = NULL;
    if (!from || !to)
        goto nomem;
    size_t fl = strlen(from), tl = strlen(to);
    if (!src || !count_entries(src, 0)) {
        st = nczm_seterr(map, NCZM_NOTFOUND, "%s: %s \"%s\": nothing at or below that key", map->location, op,
                         old_prefix);
        goto done;
    }
    if (dst && count_entries(dst, 0)) {
        st = nczm_seterr(map, NCZM_EXISTS, "%s: %s \"%s\" to \"%s\": the destination exists", map->location,
                         op, old_prefix, new_prefix);
        goto done;
    }
    nczm_zxnode *n = zm->ix.root;
    for (const char *seg = new_prefix, *p; n && (p = strchr(seg, '/')) != NULL; seg = p + 1)
        if ((n = nczm_zx_child(&zm->ix, n, seg, (size_t)(p - seg))) && n->obj >= 0) {
            st = nczm_seterr(map, NCZM_INVAL,
                             "%s: %s \"%s\" to \"%s\": a prefix of the destination is an object",
                             map->location, op, old_prefix, new_prefix);
            goto done;
        }
    ntodo = count_entries(src, 1);
    const char *slash = strrchr(new_prefix, '/');
    const char *lname = slash ? slash + 1 : new_prefix;
    if (!(moved = malloc(ntodo * sizeof *moved)) || !(todo = malloc(ntodo * sizeof *todo)) ||
        !(leaf = strdup(lname)))
        goto nomem;
    ntodo = 0;
    for (nczm_zxnode *m = src; m; m = nczm_zx_next(src, m)) {
        if (m->obj >= 0)
            todo[ntodo++] = (zip_uint64_t)m->obj;
        if (m->dir >= 0)
            todo[ntodo++] = (zip_uint64_t)m->dir;
    }
    /* Directory entries of an emptied folder at the destination would collide. */
    if (dst) {
        for (nczm_zxnode *m = dst; m; m = nczm_zx_next(dst, m))
            if (m->dir >= 0) {
                if (zip_delete(zm->za, (zip_uint64_t)m->dir) != 0)
                    goto zfail;
                m->dir = -1;
            }
        nczm_zx_drop_tree(&zm->ix, dst);
        dst = NULL;
    }
    if ((st = add_dirs(zm, new_prefix)) != NCZM_OK)
        goto done;
    /* The destination's parent node, made now so that nothing can fail after the renames. */
    if (!(dparent = nczm_zx_find(&zm->ix, new_prefix, (size_t)(lname - new_prefix) - (slash ? 1 : 0), 1)))
        goto nomem;
    for (size_t i = 0; i < ntodo; i++) {
        const char *e = zip_get_name(zm->za, todo[i], 0);
        if (!e)
            goto zfail;
        free(nn);
        if (!(nn = malloc(tl + strlen(e + fl) + 1)))
            goto nomem;
        strcat(strcpy(nn, to), e + fl);
        if (strlen(nn) - zm->folderlen > nczm_key_max(map)) {
            st = nczm_seterr(map, NCZM_BADKEY,
                             "%s: %s \"%s\" to \"%s\": a moved key would be longer than the %zu bytes a zip "
                             "store allows",
                             map->location, op, old_prefix, new_prefix, nczm_key_max(map));
            goto undo;
        }
        if (zip_file_rename(zm->za, todo[i], nn, ZIP_FL_ENC_UTF_8) != 0)
            goto zfail;
        moved[nmoved++] = todo[i];
    }
    nczm_zxnode *oparent = src->parent;
    nczm_zx_move(&zm->ix, src, dparent, leaf, strlen(leaf));
    leaf = NULL;
    prune_up(zm, oparent);
    goto done;
zfail:
    st = nczm_seterr(map, NCZM_IO, "%s: %s \"%s\" to \"%s\": %s", map->location, op, old_prefix, new_prefix,
                     nczm_zip_zerr(zm->za));
    goto undo;
nomem:
    st = nczm_seterr(map, NCZM_NOMEM, "%s: %s \"%s\": out of memory", map->location, op, old_prefix);
undo:
    if (from && to) {
        undo_renames(zm, moved, nmoved, from, strlen(to));
        prune_dirs(zm, new_prefix);
    }
done:
    free(nn);
    free(leaf);
    free(moved);
    free(todo);
    free(from);
    free(to);
    return st;
}
