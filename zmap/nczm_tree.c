/* Moving and copying subtrees (H5Lmove, H5Ocopy): the store's own rename or copy where it
 * has one, else object by object. */
#include "nczm_impl.h"

#include <stdlib.h>

/* Is anything at or below prefix? 1 yes, 0 no, or a (negative) status with the message set.
 * A leftover empty directory is nothing, as prefixes exist only while objects are below. */
static int tree_present(nczm_map *map, const char *prefix)
{
    nczm_status st = map->drv->exists(map, prefix);
    if (st != NCZM_NOTFOUND)
        return st == NCZM_OK ? 1 : st;
    nczm_list l = {0, NULL};
    st = map->drv->search(map, prefix, &l);
    int found = l.count > 0;
    nczm_list_clear(&l);
    return st != NCZM_OK ? st : found;
}

/* Copies from (an object, or every object below it) to the same places under to, one
 * object at a time through read_all/write. Iterative, with the suffixes still to visit on
 * a stack, because a zip key may hold 30000 segments and recursion that deep could
 * overflow the stack. */
static nczm_status copy_objects(nczm_map *map, const char *op, const char *from, const char *to)
{
    nczm_list todo = {0, NULL};
    size_t cap = 0;
    char *rel = NULL, *src = NULL, *dst = NULL;
    nczm_status st = nczm_list_append(&todo, &cap, "", 0);
    while (st == NCZM_OK && todo.count) {
        free(rel);
        free(src);
        free(dst);
        rel = todo.names[--todo.count];
        src = malloc(strlen(from) + strlen(rel) + 1);
        dst = malloc(strlen(to) + strlen(rel) + 1);
        if (!src || !dst) {
            st = NCZM_NOMEM;
            break;
        }
        strcat(strcpy(src, from), rel);
        strcat(strcpy(dst, to), rel);
        st = map->drv->exists(map, src);
        if (st == NCZM_OK) {
            void *buf = NULL;
            size_t len = 0;
            /* The source key is valid; the destination may be too long for the store. */
            if ((st = nczm_check_key(map, op, dst)) == NCZM_OK &&
                (st = map->drv->read_all(map, src, &buf, &len)) == NCZM_OK)
                st = map->drv->write(map, dst, buf, len);
            free(buf);
            continue;
        }
        if (st != NCZM_NOTFOUND)
            break;
        nczm_list kids = {0, NULL};
        st = map->drv->search(map, src, &kids);
        for (size_t i = 0; st == NCZM_OK && i < kids.count; i++) {
            size_t rl = strlen(rel), kl = strlen(kids.names[i]);
            char *sub = malloc(rl + kl + 2);
            if (!sub) {
                st = NCZM_NOMEM;
                break;
            }
            memcpy(sub, rel, rl);
            sub[rl] = '/';
            memcpy(sub + rl + 1, kids.names[i], kl + 1);
            st = nczm_list_append(&todo, &cap, sub, rl + kl + 1);
            free(sub);
        }
        nczm_list_clear(&kids);
    }
    if (st == NCZM_NOMEM)
        nczm_seterr(map, st, "%s: %s \"%s\": out of memory", map->location, op, from);
    free(rel);
    free(src);
    free(dst);
    nczm_list_clear(&todo);
    return st;
}

static nczm_status check_tree_args(nczm_map *map, const char *op, const char *from, const char *to)
{
    /* "" (the store root) fails here too: a store cannot be moved inside itself. */
    nczm_status st = nczm_check_key(map, op, from);
    if (!st)
        st = nczm_check_key(map, op, to);
    if (!st)
        st = nczm_check_writable(map, op, to);
    if (st)
        return st;
    size_t n = strlen(from);
    if (strncmp(to, from, n) == 0 && (to[n] == '\0' || to[n] == '/'))
        return nczm_seterr(map, NCZM_INVAL,
                           "%s: %s \"%s\" to \"%s\": the destination is the source or lies inside it",
                           map->location, op, from, to);
    return NCZM_OK;
}

/* For stores that cannot do it their own way: check, copy, then (move) delete the source.
 * A failed copy is removed again so the destination is left as it was. */
static nczm_status tree_by_objects(nczm_map *map, const char *op, const char *from, const char *to, int move)
{
    int r = tree_present(map, from);
    if (r <= 0)
        return r < 0 ? (nczm_status)r
                     : nczm_seterr(map, NCZM_NOTFOUND, "%s: %s \"%s\": nothing at or below that key",
                                   map->location, op, from);
    if ((r = tree_present(map, to)) != 0)
        return r < 0 ? (nczm_status)r
                     : nczm_seterr(map, NCZM_EXISTS, "%s: %s \"%s\" to \"%s\": the destination exists",
                                   map->location, op, from, to);
    nczm_status st = copy_objects(map, op, from, to);
    if (st != NCZM_OK) {
        char msg[NCZM_ERRLEN];
        memcpy(msg, map->errmsg, sizeof msg);
        map->drv->delete_tree(map, to);
        memcpy(map->errmsg, msg, sizeof msg);
        return st;
    }
    return move ? map->drv->delete_tree(map, from) : NCZM_OK;
}

nczm_status nczm_rename_tree(nczm_map *map, const char *old_prefix, const char *new_prefix)
{
    NCZM_CHECK_MAP(map);
    nczm_status st = check_tree_args(map, "rename_tree", old_prefix, new_prefix);
    if (st)
        return st;
    if (map->drv->rename_tree &&
        (st = map->drv->rename_tree(map, old_prefix, new_prefix)) != NCZM_UNSUPPORTED)
        return st;
    return tree_by_objects(map, "rename_tree", old_prefix, new_prefix, 1);
}

nczm_status nczm_copy_tree(nczm_map *map, const char *src_prefix, const char *dst_prefix)
{
    NCZM_CHECK_MAP(map);
    nczm_status st = check_tree_args(map, "copy_tree", src_prefix, dst_prefix);
    if (st)
        return st;
    if (map->drv->copy_tree && (st = map->drv->copy_tree(map, src_prefix, dst_prefix)) != NCZM_UNSUPPORTED)
        return st;
    return tree_by_objects(map, "copy_tree", src_prefix, dst_prefix, 0);
}
