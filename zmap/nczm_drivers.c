/* The table of store kinds: a new store is a folder of zmap/ with its driver (nczm_impl.h
 * says what a driver fills in: names, URL schemes, options, calls), one line here and its
 * folder's name in zmap/CMakeLists.txt. Order matters only for paths: a driver claiming a
 * path (zip: "*.zip") comes before the default one (the directory store). */
#include "nczm_impl.h"

#include <stdio.h>
#include <stdlib.h>

extern const nczm_driver nczm_file_driver;
extern const nczm_driver nczm_zip_driver;
extern const nczm_driver nczm_s3_driver;

const nczm_driver *const nczm_drivers[] = {
    &nczm_zip_driver,
    &nczm_s3_driver,
    &nczm_file_driver,
    NULL,
};

int nczm_name_listed(const char *const *names, const char *name)
{
    for (const char *const *n = names; n && *n; n++)
        if (strcmp(*n, name) == 0)
            return 1;
    return 0;
}

int nczm_option_known(const char *name)
{
    for (const nczm_driver *const *d = nczm_drivers; name && *d; d++)
        if (nczm_name_listed((*d)->opt_names, name))
            return nczm_name_listed((*d)->opt_secrets, name) ? NCZM_OPTION_SECRET : 1;
    return 0;
}

/* snprintf at *n, keeping *n within len */
static void append(char *buf, size_t len, size_t *n, const char *a, const char *b)
{
    if (*n + 1 >= len)
        return;
    int w = snprintf(buf + *n, len - *n, "%s%s", a, b);
    if (w > 0)
        *n = *n + (size_t)w < len ? *n + (size_t)w : len - 1;
}

void nczm_option_names(char *buf, size_t len)
{
    size_t n = 0;
    if (!len)
        return;
    buf[0] = '\0';
    for (const nczm_driver *const *d = nczm_drivers; *d; d++) {
        if (!(*d)->opt_names)
            continue;
        append(buf, len, &n, n ? "; " : "", (*d)->name);
        const char *sep = ": ";
        for (const char *const *o = (*d)->opt_names; *o; o++) {
            if (nczm_name_listed((*d)->opt_secrets, *o))
                continue;
            append(buf, len, &n, sep, *o);
            append(buf, len, &n, "=", "");
            sep = ", ";
        }
    }
}

/* Sets the option on a scratch block of the kind that takes it, then drops it. */
static nczm_status check_with(const nczm_driver *d, const char *name, const char *value,
                              char errmsg[NCZM_ERRLEN])
{
    void *scratch = NULL;
    nczm_status st = d->opt_set(&scratch, name, value, errmsg);
    d->opt_free(scratch);
    return st;
}

nczm_status nczm_option_check(const char *name, const char *value, char errmsg[NCZM_ERRLEN])
{
    if (errmsg)
        errmsg[0] = '\0';
    for (const nczm_driver *const *d = nczm_drivers; name && *d; d++)
        if ((*d)->opt_set && nczm_name_listed((*d)->opt_names, name))
            return check_with(*d, name, value, errmsg);
    return nczm_fmterr(errmsg, NCZM_INVAL, "unknown store option \"%s\"", name ? name : "");
}

nczm_status nczm_url_set(nczm_url *url, const char *name, const char *value, char errmsg[NCZM_ERRLEN])
{
    if (errmsg)
        errmsg[0] = '\0';
    if (!url || !name)
        return nczm_fmterr(errmsg, NCZM_INVAL, "nczm_url_set: no URL or option name");
    const nczm_driver *own = url->drv;
    if (own && own->opt_set && nczm_name_listed(own->opt_names, name))
        return own->opt_set(&url->opts, name, value, errmsg);
    /* another kind's option: checked by that kind, then dropped */
    if (!nczm_option_known(name))
        return nczm_fmterr(errmsg, NCZM_INVAL, "unknown %s option \"%s\"", own ? own->name : "store", name);
    return nczm_option_check(name, value, errmsg);
}

int nczm_url_single_writer(const nczm_url *url)
{
    return url && url->drv && url->drv->single_writer;
}
