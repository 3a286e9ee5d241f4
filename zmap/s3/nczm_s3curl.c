/* libcurl, loaded when the first S3 store is opened rather than with the connector: a
 * program that never names an S3 store does not load libcurl and what it brings (TLS
 * libraries, Kerberos, LDAP, ...), whose thread-local storage and constructors then stay
 * out of every HDF5 program that loads the plugin. Once loaded it stays loaded
 * (RTLD_NODELETE), whatever happens to the plugin, as its dependencies are not safe to
 * unload under running threads. */
#include "nczm_s3.h"

#include <dlfcn.h>
#include <stdio.h>

#ifndef NCZM_LIBCURL
#define NCZM_LIBCURL "libcurl.so.4"
#endif

s3_curl_api s3_curl;

int s3_curl_load(char *why, size_t whylen)
{
    void *h = dlopen(NCZM_LIBCURL, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
    if (!h) {
        snprintf(why, whylen, "cannot load %s: %s", NCZM_LIBCURL, dlerror());
        return -1;
    }
    struct {
        const char *name;
        void **slot;
    } fns[] = {
        {"curl_global_init", (void **)&s3_curl.global_init},
        {"curl_version_info", (void **)&s3_curl.version_info},
        {"curl_easy_init", (void **)&s3_curl.easy_init},
        {"curl_easy_cleanup", (void **)&s3_curl.easy_cleanup},
        {"curl_easy_reset", (void **)&s3_curl.easy_reset},
        {"curl_easy_setopt", (void **)&s3_curl.easy_setopt},
        {"curl_easy_getinfo", (void **)&s3_curl.easy_getinfo},
        {"curl_easy_strerror", (void **)&s3_curl.easy_strerror},
        {"curl_slist_append", (void **)&s3_curl.slist_append},
        {"curl_slist_free_all", (void **)&s3_curl.slist_free_all},
        {"curl_multi_init", (void **)&s3_curl.multi_init},
        {"curl_multi_cleanup", (void **)&s3_curl.multi_cleanup},
        {"curl_multi_setopt", (void **)&s3_curl.multi_setopt},
        {"curl_multi_add_handle", (void **)&s3_curl.multi_add_handle},
        {"curl_multi_remove_handle", (void **)&s3_curl.multi_remove_handle},
        {"curl_multi_perform", (void **)&s3_curl.multi_perform},
        {"curl_multi_poll", (void **)&s3_curl.multi_poll},
        {"curl_multi_info_read", (void **)&s3_curl.multi_info_read},
    };
    for (size_t i = 0; i < sizeof fns / sizeof *fns; i++) {
        /* dlsym's void * to a function pointer: POSIX guarantees this works */
        *fns[i].slot = dlsym(h, fns[i].name);
        if (!*fns[i].slot) {
            snprintf(why, whylen, "%s has no %s (S3 needs libcurl 7.75 or newer)", NCZM_LIBCURL, fns[i].name);
            return -1;
        }
    }
    return 0;
}
