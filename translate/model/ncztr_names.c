/* Names: which link names HDF5 programs may give, and whether a new key fits beside its
 * siblings' (the escaped key names themselves: ncztr_keyname.c). */
#include "ncztr_format.h"
#include "ncztr_model_internal.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* An HDF5 link name: any but "", ".", ".." and names with '/'. Those a key cannot hold are
 * stored under an escaped key name (ncztr_key_escape). */
herr_t ncztr_check_link_name(const char *name, const char *what)
{
    if (!name || !*name)
        return NCZ_PUSH(NCZ_E_ARGS, "%s name is empty", what);
    if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0 || strchr(name, '/'))
        return NCZ_PUSH(NCZ_E_ARGS, "%s name \"%s\" is not allowed in a Zarr store", what, name);
    return SUCCEED;
}

/* A name read from the store as a key name. */
static herr_t check_key_name(const char *name, const char *what)
{
    if (!name || !*name)
        return NCZ_PUSH(NCZ_E_ARGS, "%s name is empty", what);
    if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
        return NCZ_PUSH(NCZ_E_ARGS, "%s name \"%s\" is not allowed in a Zarr store", what, name);
    if (strlen(name) > 255)
        return NCZ_PUSH(NCZ_E_ARGS, "%s name \"%.40s...\" is longer than 255 bytes", what, name);
    for (const unsigned char *p = (const unsigned char *)name; *p; p++)
        if (*p < 0x20 || *p == 0x7f || *p == '/' || *p == '\\')
            return NCZ_PUSH(NCZ_E_ARGS, "%s name \"%s\" contains a character not allowed in a Zarr key", what,
                            name);
    if (name[0] == '.')
        return NCZ_PUSH(NCZ_E_ARGS, "%s name \"%s\" starts with '.', which Zarr reserves for metadata keys",
                        what, name);
    return SUCCEED;
}

herr_t ncztr_check_name(const char *name, const char *what)
{
    return check_key_name(name, what);
}

herr_t ncztr_check_alias_name(const char *name)
{
    return ncztr_check_link_name(name, "hard link");
}

herr_t ncztr_check_key_room(const ncztr_obj *parent, const char *name, size_t extra)
{
    bool failed = false;
    char *esc = ncztr_key_escape(name, &failed);
    if (failed)
        return FAIL;
    const char *kn = esc ? esc : name;
    /* another child already stored under that key name: one named so (the escaped name is
     * someone's link name), or one whose name escapes to it (then the name has a '%' or the
     * '~' of a hash: only then are the siblings looked through) */
    const ncztr_obj *c = esc ? ncztr_child(parent, kn) : NULL;
    for (size_t i = 0; !c && !esc && (strchr(name, '%') || strchr(name, '~')) && i < parent->nchildren; i++)
        if (parent->children[i]->kind != NCZTR_ALIAS && !parent->children[i]->deleted &&
            ncztr_key_needs_escape(parent->children[i]->name) &&
            strcmp(ncztr_obj_keyname(parent->children[i]), kn) == 0)
            c = parent->children[i];
    if (c && c->kind != NCZTR_ALIAS && strcmp(c->name, name) != 0) {
        herr_t r = NCZ_PUSH(NCZ_E_EXISTS, "cannot create \"%s\": its key name \"%s\" is that of \"%s\"", name,
                            kn, c->name);
        free(esc);
        return r;
    }
    char *pk = ncztr_obj_key(parent);
    if (!pk) {
        free(esc);
        return FAIL;
    }
    size_t len = strlen(pk) + (*pk ? 1 : 0) + strlen(kn) + extra;
    free(pk);
    free(esc);
    size_t max = nczm_key_max(parent->file->map);
    if (len > max)
        return NCZ_PUSH(
            NCZ_E_NOTREPR,
            "cannot create \"%s\": its keys would be %zu bytes long, more than the %zu bytes this "
            "store allows",
            name, len, max);
    return SUCCEED;
}
