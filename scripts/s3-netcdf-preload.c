/* Preloaded (LD_PRELOAD) into netCDF-C's tools when they talk to the test S3 server. It does
 * two things.
 *
 * 1. The server's CA.
 * netCDF-C's S3 client (libdispatch/nch5s3comms.c) always speaks https and sets no CA of its
 * own, so libcurl checks the server against the CA bundle compiled into it. Tried here with
 * netCDF-C 4.10.1 and Debian's libcurl 7.88, none of these changes that: SSL_CERT_FILE,
 * SSL_CERT_DIR, CURL_CA_BUNDLE (the curl program's, not libcurl's), an OPENSSL_CONF whose
 * system_default section names a VerifyCAFile, and .ncrc's HTTP.SSL.CAINFO and
 * HTTP.SSL.VERIFYPEER (which only netCDF-C's DAP and byte-range clients read).
 * The test server's certificate is signed by a CA of the test's own: this library gives
 * every curl handle the program creates that CA (CURLOPT_CAINFO = $NCZ_S3_CA), so the
 * certificate is still verified, and nothing outside the test's directories changes.
 *
 * 2. A crash in netCDF-C (4.9.3 and 4.10.1): creating an S3 store with NC_CLOBBER, as ncgen
 * and nccopy always do, first "truncates" it in zs3truncate (libnczarr/zmap_s3sdk.c), which
 * passes an uninitialised NCS3INFO to NC_s3urlprocess; that reads its region field and frees
 * its fields later, so the tools die at random (SIGSEGV in strdup about half the time here).
 * Every other caller passes a zeroed structure, so zeroing it on the way in changes nothing
 * for them and removes the crash.
 *
 * Built by scripts/s3-server.sh with the system compiler, without the project's flags
 * (the tools it goes into are not built with the sanitizers). Nothing is linked: the real
 * functions are looked up in the program at run time. */
#define _GNU_SOURCE
#include <curl/curl.h>
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

typedef CURL *(*init_fn)(void);
typedef CURLcode (*setopt_fn)(CURL *, CURLoption, ...);

CURL *curl_easy_init(void)
{
    init_fn real_init = (init_fn)dlsym(RTLD_NEXT, "curl_easy_init");
    if (real_init == NULL)
        return NULL;
    CURL *handle = real_init();
    const char *ca = getenv("NCZ_S3_CA");
    if (handle != NULL && ca != NULL && ca[0] != '\0') {
        setopt_fn setopt = (setopt_fn)dlsym(RTLD_DEFAULT, "curl_easy_setopt");
        /* A CA that cannot be set leaves the handle failing verification, never trusting
         * more than before. */
        if (setopt != NULL)
            (void)setopt(handle, CURLOPT_CAINFO, ca);
    }
    return handle;
}

/* netCDF-C's NCS3INFO (include/ncs3sdk.h, the same in 4.9.3 and 4.10.1): five strings and
 * an enum. Only its size matters here. */
struct ncs3info {
    char *host, *region, *bucket, *rootkey, *profile;
    int svc;
};
typedef int (*urlprocess_fn)(void *, struct ncs3info *, void **);

int NC_s3urlprocess(void *url, struct ncs3info *s3, void **newurlp)
{
    urlprocess_fn real = (urlprocess_fn)dlsym(RTLD_NEXT, "NC_s3urlprocess");
    if (real == NULL)
        return -1; /* NC_EINVAL: cannot happen in a program that calls it */
    if (s3 != NULL)
        memset(s3, 0, sizeof *s3);
    return real(url, s3, newurlp);
}
