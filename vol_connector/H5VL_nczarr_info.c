/* Connector info: the options after the connector name in HDF5_VOL_CONNECTOR (or h5dump's
 * --vol-info). Words are separated by spaces or commas, as in netCDF-C's URL modes:
 *   mode=nczarr | mode=zarr (also bare "nczarr"/"zarr"), noxarray, xarray, consolidated,
 *   ignore-zmetadata, zip (plain names are zip archives), zip-root, ascii-json, maxstrlen=N,
 *   workers=N; for S3 stores endpoint=,
 *   region=, awsprofile=, anonymous, cainfo=, connections=, retry_seconds=. */
#include "H5VL_nczarr.h"
#include "nczc_workers.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void *H5VL_nczarr_info_copy(const void *info)
{
    H5VL_nczarr_info_t *c = malloc(sizeof *c);
    if (!c) {
        NCZ_PUSH(NCZ_E_NOMEM, "out of memory copying connector info");
        return NULL;
    }
    if (info)
        memcpy(c, info, sizeof *c);
    else
        memset(c, 0, sizeof *c);
    return c;
}

herr_t H5VL_nczarr_info_cmp(int *cmp_value, const void *info1, const void *info2)
{
    *cmp_value = (info1 && info2) ? memcmp(info1, info2, sizeof(H5VL_nczarr_info_t)) : (info1 != info2);
    return SUCCEED;
}

herr_t H5VL_nczarr_info_free(void *info)
{
    free(info);
    return SUCCEED;
}

herr_t H5VL_nczarr_info_to_str(const void *info, char **str)
{
    const H5VL_nczarr_info_t *i = info;
    char buf[256 + sizeof i->storeopts];
    if (!i) {
        *str = NULL;
        return SUCCEED;
    }
    int n = snprintf(buf, sizeof buf, "mode=%s", i->pure_zarr ? "zarr" : "nczarr");
    if (i->noxarray)
        n += snprintf(buf + n, sizeof buf - (size_t)n, " noxarray");
    if (i->consolidate)
        n += snprintf(buf + n, sizeof buf - (size_t)n, " consolidated");
    if (i->zip_root)
        n += snprintf(buf + n, sizeof buf - (size_t)n, " zip-root");
    if (i->zip_names)
        n += snprintf(buf + n, sizeof buf - (size_t)n, " zip");
    if (i->maxstrlen)
        n += snprintf(buf + n, sizeof buf - (size_t)n, " maxstrlen=%zu", i->maxstrlen);
    if (i->ascii_json)
        n += snprintf(buf + n, sizeof buf - (size_t)n, " ascii-json");
    if (i->ignore_zmetadata)
        n += snprintf(buf + n, sizeof buf - (size_t)n, " ignore-zmetadata");
    if (i->v3)
        n += snprintf(buf + n, sizeof buf - (size_t)n, " v3");
    if (i->shards)
        n += snprintf(buf + n, sizeof buf - (size_t)n, " shards=%u", i->shards);
    if (i->workers)
        n += snprintf(buf + n, sizeof buf - (size_t)n, " workers=%u", i->workers);
    if (i->native_create)
        n += snprintf(buf + n, sizeof buf - (size_t)n, " native");
    for (const char *p = i->storeopts; *p;) {
        const char *e = strchr(p, '\n');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        n += snprintf(buf + n, sizeof buf - (size_t)n, " %.*s", (int)len, p);
        p += len + (e ? 1 : 0);
    }
    *str = H5allocate_memory(strlen(buf) + 1, 0);
    if (!*str)
        return NCZ_PUSH(NCZ_E_NOMEM, "out of memory");
    strcpy(*str, buf);
    return SUCCEED;
}

#define KNOWN                                                                                                \
    "mode=nczarr, mode=zarr, noxarray, consolidated, ignore-zmetadata, zip, zip-root, ascii-json, "          \
    "maxstrlen=N, "                                                                                          \
    "workers=N, v3, v2, shards=N, native"

/* The words the connector takes, its own and the store kinds' (translate/ and zmap/ know
 * those), for messages. */
static const char *known_words(char *buf, size_t len)
{
    int n = snprintf(buf, len, "%s; ", KNOWN);
    if (n > 0 && (size_t)n < len)
        ncztr_store_option_names(buf + n, len - (size_t)n);
    return buf;
}

/* A store option, "name=value" (a bare name means name=1: "anonymous"), kept as a line for
 * translate/ to apply to the store's name, where its store kind checks the value. None
 * carries a secret: credentials come from the environment or the AWS files, never from the
 * info string, which HDF5 prints. 1: taken, 0: not a store option, FAIL: refused. */
static int add_storeopt(H5VL_nczarr_info_t *info, const char *w, char *why, size_t whylen)
{
    const char *eq = strchr(w, '=');
    char name[64];
    size_t nl = eq ? (size_t)(eq - w) : strlen(w);
    if (nl == 0 || nl >= sizeof name)
        return 0;
    memcpy(name, w, nl);
    name[nl] = '\0';
    int k = ncztr_store_option(name);
    if (k == 0)
        return 0;
    if (k < 0) {
        snprintf(
            why, whylen,
            "connector option \"%s\": credentials never go in the connector info (HDF5 prints it): use the "
            "environment or the AWS files",
            name);
        return NCZ_PUSH(NCZ_E_ARGS, "%s", why);
    }
    const char *value = eq ? eq + 1 : "1";
    if (ncztr_store_option_check(name, value, why, whylen) < 0)
        return FAIL;
    size_t used = strlen(info->storeopts);
    int n = snprintf(info->storeopts + used, sizeof info->storeopts - used, "%s=%s\n", name, value);
    if (n < 0 || (size_t)n >= sizeof info->storeopts - used) {
        info->storeopts[used] = '\0';
        return NCZ_PUSH(NCZ_E_ARGS, "connector option \"%s\": the store options are longer than %zu bytes", w,
                        sizeof info->storeopts - 1);
    }
    return 1;
}

/* why: the reason, when it is more than an unknown word (never echoing a secret) */
static herr_t apply_word(H5VL_nczarr_info_t *info, const char *w, char *why, size_t whylen)
{
    if (!strcmp(w, "mode=nczarr") || !strcmp(w, "nczarr") || !strcmp(w, "file") || !strcmp(w, "mode=file"))
        info->pure_zarr = 0;
    else if (!strcmp(w, "zip") || !strcmp(w, "mode=zip")) /* netCDF-C's mode word for zip stores */
        info->zip_names = 1;
    else if (!strcmp(w, "mode=zarr") || !strcmp(w, "zarr"))
        info->pure_zarr = 1;
    else if (!strcmp(w, "noxarray"))
        info->noxarray = 1;
    else if (!strcmp(w, "xarray"))
        info->noxarray = 0;
    else if (!strcmp(w, "consolidated"))
        info->consolidate = 1;
    else if (!strcmp(w, "zip-root"))
        info->zip_root = 1;
    else if (!strcmp(w, "ascii-json"))
        info->ascii_json = 1;
    else if (!strcmp(w, "ignore-zmetadata"))
        info->ignore_zmetadata = 1;
    else if (!strcmp(w, "v3"))
        info->v3 = 1;
    else if (!strcmp(w, "native"))
        info->native_create = 1;
    else if (!strcmp(w, "v2"))
        info->v3 = 0;
    else if (!strncmp(w, "shards=", 7)) {
        char *end = NULL;
        errno = 0;
        unsigned long long v = strtoull(w + 7, &end, 10);
        if (errno || !end || *end || end == w + 7 || v == 0 || v > 65536)
            return NCZ_PUSH(NCZ_E_ARGS, "connector option \"%s\": shards must be an integer from 1 to 65536",
                            w);
        info->shards = (unsigned)v;
    } else if (!strncmp(w, "maxstrlen=", 10)) {
        char *end = NULL;
        errno = 0;
        unsigned long long v = strtoull(w + 10, &end, 10);
        if (errno || !end || *end || v == 0 || v > (1u << 30))
            return NCZ_PUSH(NCZ_E_ARGS, "connector option \"%s\": maxstrlen must be a positive integer", w);
        info->maxstrlen = (size_t)v;
    } else if (!strncmp(w, "workers=", 8)) {
        char *end = NULL;
        errno = 0;
        unsigned long long v = strtoull(w + 8, &end, 10);
        if (errno || !end || *end || end == w + 8 || v == 0 || v > NCZC_WORKERS_MAX)
            return NCZ_PUSH(NCZ_E_ARGS, "connector option \"%s\": workers must be an integer from 1 to %d", w,
                            NCZC_WORKERS_MAX);
        info->workers = (unsigned)v;
    } else {
        int k = add_storeopt(info, w, why, whylen);
        if (k == 0) {
            char known[1024];
            return NCZ_PUSH(NCZ_E_ARGS, "unknown nczarr connector option \"%s\" (known: %s)", w,
                            known_words(known, sizeof known));
        }
        return k < 0 ? FAIL : SUCCEED;
    }
    return SUCCEED;
}

herr_t H5VL_nczarr_str_to_info(const char *str, void **info)
{
    H5VL_nczarr_info_t *i = calloc(1, sizeof *i);
    if (!i)
        return NCZ_PUSH(NCZ_E_NOMEM, "out of memory");
    char *copy = strdup(str ? str : "");
    if (!copy) {
        free(i);
        return NCZ_PUSH(NCZ_E_NOMEM, "out of memory");
    }
    /* "mode=zarr,noxarray" spreads a mode list over one word: split on commas too, and
     * carry "mode=" to the words that follow it. */
    char *save = NULL;
    for (char *w = strtok_r(copy, " \t\n,;", &save); w; w = strtok_r(NULL, " \t\n,;", &save)) {
        /* names are case-insensitive; values (an endpoint, a path, a profile) are not */
        for (char *p = w; *p && *p != '='; p++)
            *p = (char)tolower((unsigned char)*p);
        char why[640] = "";
        if (apply_word(i, w, why, sizeof why) < 0) {
            /* HDF5 parses HDF5_VOL_CONNECTOR while it initialises itself, when its error
             * stack does not reach the user yet: say it on stderr too, once (the word
             * alone: another word of the string may hold a secret). */
            char known[1024];
            if (why[0])
                fprintf(stderr, "nczarr: bad connector option: %s\n", why);
            else
                fprintf(stderr, "nczarr: bad connector option \"%s\" (known: %s)\n", w,
                        known_words(known, sizeof known));
            free(copy);
            free(i);
            return FAIL;
        }
    }
    free(copy);
    *info = i;
    return SUCCEED;
}

void H5VL_nczarr_info_from_fapl(hid_t fapl_id, H5VL_nczarr_info_t *out)
{
    memset(out, 0, sizeof *out);
    void *info = NULL;
    if (fapl_id >= 0 && H5Pget_vol_info(fapl_id, &info) >= 0 && info) {
        memcpy(out, info, sizeof *out);
        H5VL_nczarr_info_free(info);
    }
    H5Eclear2(H5E_DEFAULT);
}
