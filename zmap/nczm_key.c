/* zmap keys and key lists: what a key may contain (the same rules for every store), how
 * it is quoted in messages, and the sorted name lists search() returns. */
#include "nczm_impl.h"

#include <stdio.h>
#include <stdlib.h>

/* No store holds longer keys; each driver has its own, smaller limit (key_max). */
#define NCZM_KEY_MAX 65535

static int byte_ok(unsigned char c)
{
    return c >= 0x20 && c != 0x7f && c != '\\';
}

int nczm_segment_ok(const char *name, size_t len)
{
    if (len == 0 || (len == 1 && name[0] == '.') || (len == 2 && name[0] == '.' && name[1] == '.'))
        return 0;
    for (size_t i = 0; i < len; i++)
        if (name[i] == '/' || !byte_ok((unsigned char)name[i]))
            return 0;
    return 1;
}

const char *nczm_key_problem(const char *key)
{
    if (!key)
        return "key is NULL";
    size_t n = strlen(key);
    if (n == 0)
        return "key is empty";
    if (n > NCZM_KEY_MAX)
        return "key is longer than 65535 bytes";
    if (key[0] == '/')
        return "key starts with '/'";
    if (key[n - 1] == '/')
        return "key ends with '/'";
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)key[i];
        if (c == '\\')
            return "key contains a backslash";
        if (!byte_ok(c))
            return "key contains a control character";
    }
    const char *seg = key;
    for (;;) {
        const char *slash = strchr(seg, '/');
        size_t len = slash ? (size_t)(slash - seg) : strlen(seg);
        if (len == 0)
            return "key has an empty segment";
        if ((len == 1 && seg[0] == '.') || (len == 2 && seg[0] == '.' && seg[1] == '.'))
            return "key has a \".\" or \"..\" segment";
        if (!slash)
            break;
        seg = slash + 1;
    }
    return NULL;
}

nczm_status nczm_key_validate(const char *key)
{
    return nczm_key_problem(key) ? NCZM_BADKEY : NCZM_OK;
}

void nczm_key_quote(char *dst, size_t dstlen, const char *key)
{
    if (dstlen < 8) {
        if (dstlen)
            dst[0] = '\0';
        return;
    }
    if (!key) {
        snprintf(dst, dstlen, "(null)");
        return;
    }
    /* Invariant: o + 4 <= dstlen, so "..." and the NUL always fit and a cut key is
     * visibly cut. */
    size_t o = 0;
    for (size_t i = 0; key[i]; i++) {
        unsigned char c = (unsigned char)key[i];
        char tmp[8];
        int w = (c < 0x20 || c == 0x7f) ? snprintf(tmp, sizeof tmp, "\\x%02x", c)
                                        : snprintf(tmp, sizeof tmp, "%c", c);
        if (o + (size_t)w + 4 > dstlen) {
            memcpy(dst + o, "...", 4);
            return;
        }
        memcpy(dst + o, tmp, (size_t)w);
        o += (size_t)w;
    }
    dst[o] = '\0';
}
nczm_status nczm_list_append(nczm_list *list, size_t *cap, const char *name, size_t len)
{
    if (list->count == *cap) {
        size_t ncap = *cap ? *cap * 2 : 16;
        char **nn = realloc(list->names, ncap * sizeof *nn);
        if (!nn)
            return NCZM_NOMEM;
        list->names = nn;
        *cap = ncap;
    }
    char *s = malloc(len + 1);
    if (!s)
        return NCZM_NOMEM;
    memcpy(s, name, len);
    s[len] = '\0';
    list->names[list->count++] = s;
    return NCZM_OK;
}

static int cmp_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

void nczm_list_finish(nczm_list *list)
{
    if (list->count < 2)
        return;
    qsort(list->names, list->count, sizeof *list->names, cmp_names);
    size_t w = 1;
    for (size_t r = 1; r < list->count; r++) {
        if (strcmp(list->names[r], list->names[w - 1]) == 0)
            free(list->names[r]);
        else
            list->names[w++] = list->names[r];
    }
    list->count = w;
}

void nczm_list_clear(nczm_list *list)
{
    if (!list)
        return;
    for (size_t i = 0; i < list->count; i++)
        free(list->names[i]);
    free(list->names);
    list->names = NULL;
    list->count = 0;
}

char *nczm_key_join(const char *prefix, const char *name)
{
    return *prefix ? nczm_join(prefix, name) : strdup(name);
}

char *nczm_join(const char *dir, const char *name)
{
    size_t a = strlen(dir), b = strlen(name);
    char *s = malloc(a + b + 2);
    if (!s)
        return NULL;
    memcpy(s, dir, a);
    s[a] = '/';
    memcpy(s + a + 1, name, b + 1);
    return s;
}

size_t nczm_key_max(const nczm_map *map)
{
    if (map && map->key_max)
        return map->key_max;
    return map && map->drv->key_max ? map->drv->key_max : 1024;
}
