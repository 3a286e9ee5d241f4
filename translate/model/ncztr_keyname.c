/* The key name of a link name: escaped when no key can hold it (ncztr_key_escape), and an
 * object's own (ncztr_obj_keyname, cached in the object). Calls nothing of the model. */
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
    if (cut) { /* the hash tells apart names cut to the same bytes: plain FNV-1a, part of the key */
        uint64_t h = nczc_hash_bytes(NCZC_HASH_SEED, name, n);
        sprintf(k + o, "~%016llx", (unsigned long long)h);
    }
    return k;
}

const char *ncztr_obj_keyname(const ncztr_obj *o)
{
    size_t n = strlen(NCZTR_NON_COORD);
    const char *name = o->name;
    if (o->kind == NCZTR_ARRAY && strncmp(name, NCZTR_NON_COORD, n) == 0 && name[n])
        name += n;
    if (!o->parent || !ncztr_key_needs_escape(name))
        return name;
    /* the escaped form is cached in the object (a cache: the object is logically const) */
    ncztr_obj *m = (ncztr_obj *)(uintptr_t)o;
    if (!m->esc_from || strcmp(m->esc_from, name) != 0) {
        bool failed = false;
        char *k = ncztr_key_escape(name, &failed), *from = k ? strdup(name) : NULL;
        if (failed || (k && !from)) {
            free(k);
            free(from);
            return name; /* out of memory: the caller's key is then refused by the store */
        }
        free(m->esc_key);
        free(m->esc_from);
        m->esc_key = k;
        m->esc_from = from;
    }
    return m->esc_key ? m->esc_key : name;
}
