/* Names: which link names HDF5 programs may give, which key names a store may hold, and
 * the escaped key name of a link name no key can hold (see ncztr_key_escape). */
#include "ncztr_format.h"
#include "ncztr_model_internal.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool key_byte_ok(unsigned char c, bool first)
{
    return c >= 0x20 && c != 0x7f && c != '\\' && !(first && c == '.');
}

bool ncztr_key_needs_escape(const char *name)
{
    size_t n = 0;
    for (; name[n]; n++)
        if (!key_byte_ok((unsigned char)name[n], n == 0))
            return true;
    return n > 255;
}

char *ncztr_key_escape(const char *name, bool *failed)
{
    size_t n = strlen(name), full = 0, o = 0, i = 0;
    for (size_t j = 0; j < n; j++)
        full += key_byte_ok((unsigned char)name[j], j == 0) ? 1 : 3;
    if (full == n && n <= 255)
        return NULL;
    bool cut = full > 255, lead = !key_byte_ok((unsigned char)name[0], true);
    char *k = malloc((cut ? 200 : full) + 19);
    if (!k) {
        *failed = true;
        NCZ_PUSH(NCZ_E_NOMEM, "out of memory");
        return NULL;
    }
    /* netCDF-C refuses a whole store with a name that starts with anything but a letter, a
     * digit or '_' (NC_check_name): an escape there gets a '_' before it */
    if (lead)
        k[o++] = '_';
    for (; i < n; i++) {
        unsigned char c = (unsigned char)name[i];
        bool ok = key_byte_ok(c, i == 0);
        if (cut && o + (ok ? 1 : 3) > 200)
            break;
        if (ok)
            k[o++] = (char)c;
        else
            o += (size_t)sprintf(k + o, "%%%02X", c);
    }
    /* not in the middle of a UTF-8 character (its bytes are kept as they are) */
    while (cut && i > 0 && i < n && ((unsigned char)name[i] & 0xc0) == 0x80) {
        i--;
        o--;
    }
    k[o] = '\0';
    if (cut) {                            /* the hash tells apart names cut to the same bytes */
        uint64_t h = 0xcbf29ce484222325u; /* FNV-1a */
        for (size_t j = 0; j < n; j++)
            h = (h ^ (unsigned char)name[j]) * 0x100000001b3u;
        sprintf(k + o, "~%016llx", (unsigned long long)h);
    }
    return k;
}

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
