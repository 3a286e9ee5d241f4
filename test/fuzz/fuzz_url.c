/* Fuzz target (g): store names, store options and the connector info string. The input is
 *   <store name>\n<connector info string>[\n@@aws\n<AWS config file>]
 * The store name goes to nczm_url_parse (plain paths, file://, zip and S3 URLs, fragments
 * with mode= lists and aws.profile=/aws.region=); the info string to the connector's
 * parser (H5VL_nczarr_str_to_info, built into this target), whose result must print
 * (H5VL_nczarr_info_to_str) as a string that parses back to the same info. The store
 * options the info string carries are checked (nczm_option_check) and set on the parsed
 * name (nczm_url_set), as translate/ does when a store opens. An S3 name then gets its
 * configuration (s3_cfg_init: endpoint, bucket, root, region, credentials; the AWS config
 * and credentials files are the input's last part when it has one, else absent) and the
 * URLs of some keys, as its requests would: nothing is sent. */
#include "H5VL_nczarr.h"
#include "ncztr_store.h"
#include "nczm_s3.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char aws_path[4096];
static FILE *quiet; /* /dev/null, for the parser's stderr (str_to_info) */
static const char *const marks[] = {".zgroup", ".zarray", "zarr.json", NULL};
static const char *const mode_words[] = {"nczarr",   "zarr",         "zip", "file",   "s3",
                                         "noxarray", "consolidated", "v3",  "xarray", NULL};

static void remove_aws(void)
{
    unlink(aws_path);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    const char *tmp = getenv("TMPDIR");
    snprintf(aws_path, sizeof aws_path, "%s/nczarr-fuzz-aws-%ld", tmp && *tmp ? tmp : "/tmp", (long)getpid());
    /* the S3 settings come from the input alone: none from this machine's environment */
    const char *vars[] = {"AWS_PROFILE",
                          "AWS_REGION",
                          "AWS_DEFAULT_REGION",
                          "AWS_ENDPOINT_URL",
                          "AWS_ENDPOINT_URL_S3",
                          "AWS_CA_BUNDLE",
                          "AWS_ACCESS_KEY_ID",
                          "AWS_SECRET_ACCESS_KEY",
                          "AWS_SESSION_TOKEN",
                          "NCZM_S3_MAX_KEYS",
                          "NCZM_S3_CONNECTIONS",
                          "NCZM_S3_RETRY_SECONDS",
                          "NCZM_S3_MULTIPART_THRESHOLD",
                          "NCZM_S3_STALL_SECONDS"};
    for (size_t i = 0; i < sizeof vars / sizeof *vars; i++)
        unsetenv(vars[i]);
    atexit(remove_aws);
    quiet = fopen("/dev/null", "w");
    setenv("AWS_CONFIG_FILE", aws_path, 1);
    setenv("AWS_SHARED_CREDENTIALS_FILE", aws_path, 1);
    if (H5open() < 0)
        abort();
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    return 0;
}

static volatile size_t sink;

/* The parser says why it refuses an info string on stderr as well (HDF5 parses
 * HDF5_VOL_CONNECTOR before its error stack reaches anyone): at millions of inputs that is
 * gigabytes of log. Its stdio stream goes to /dev/null during the call; the sanitizers and
 * libFuzzer write to the descriptor (or a stream they took at start) and are still heard. */
static herr_t str_to_info(const char *str, void **info)
{
    FILE *saved = stderr;
    if (quiet)
        stderr = quiet;
    herr_t r = H5VL_nczarr_str_to_info(str, info);
    stderr = saved;
    return r;
}

/* The info string: parsed, printed, parsed again to the same info. */
static H5VL_nczarr_info_t *info_of(const char *str)
{
    void *info = NULL;
    if (str_to_info(str, &info) < 0)
        return NULL;
    char *printed = NULL;
    if (H5VL_nczarr_info_to_str(info, &printed) < 0 || !printed)
        abort();
    void *again = NULL;
    int cmp = 1;
    if (str_to_info(printed, &again) < 0 || H5VL_nczarr_info_cmp(&cmp, info, again) < 0 || cmp) {
        fprintf(stderr, "info string \"%s\" printed as \"%s\", which %s\n", str, printed,
                again ? "parses to another info" : "does not parse");
        abort();
    }
    H5free_memory(printed);
    H5VL_nczarr_info_free(again);
    return info;
}

/* Each "name=value" word of the info string against the store kinds' option table. */
static void check_words(const char *str)
{
    char *copy = strdup(str), *save = NULL, err[NCZM_ERRLEN];
    for (char *w = copy ? strtok_r(copy, " \t\n,;", &save) : NULL; w; w = strtok_r(NULL, " \t\n,;", &save)) {
        char *eq = strchr(w, '=');
        if (eq)
            *eq = '\0';
        if (nczm_option_known(w))
            nczm_option_check(w, eq ? eq + 1 : "1", err);
    }
    free(copy);
}

/* What an S3 store would address: its configuration and some keys' URLs. */
static void s3_addresses(const nczm_url *url)
{
    s3_map m;
    memset(&m, 0, sizeof m);
    char err[NCZM_ERRLEN];
    if (s3_cfg_init(url, &m.cfg, err) != NCZM_OK)
        return;
    m.base.location = url->location;
    const char *keys[] = {"", ".zgroup", "g/a b/0.1", "x%y/zarr.json"};
    for (size_t i = 0; i < sizeof keys / sizeof *keys; i++) {
        char *u = s3_key_url(&m, keys[i], i ? NULL : "list-type=2");
        char *fk = s3_full_key(&m, keys[i]);
        char *lp = s3_list_prefix(&m, keys[i]);
        if (!u || !fk || !lp || strncmp(u, m.cfg.key_base, strlen(m.cfg.base)) != 0)
            abort(); /* every key's URL starts with the bucket's */
        free(u);
        free(fk);
        free(lp);
    }
    s3_cfg_clear(&m.cfg);
}

static void try_name(const char *name, const H5VL_nczarr_info_t *info)
{
    nczm_url url;
    char err[NCZM_ERRLEN];
    if (nczm_url_parse(name, &url, err) != NCZM_OK)
        return;
    url.marks = marks;
    if (!url.location || !url.mode || !url.drv || url.kind == NCZM_KIND_NONE)
        abort();
    for (const char *const *w = mode_words; *w; w++)
        sink += (size_t)nczm_mode_has(url.mode, *w);
    sink += (size_t)nczm_url_single_writer(&url);
    char mt[128];
    nczm_marks_text(&url, mt, sizeof mt);
    nczm_url_clear(&url);
    /* the name as translate/ makes it a store: the info's store options applied */
    ncztr_opts o = {.zip_names = info && info->zip_names};
    snprintf(o.storeopts, sizeof o.storeopts, "%s", info ? info->storeopts : "");
    if (ncztr_store_name(name, &o, &url) < 0)
        return;
    if (url.kind == NCZM_KIND_S3)
        s3_addresses(&url);
    nczm_url_clear(&url);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *in = malloc(size + 1);
    if (!in)
        return 0;
    memcpy(in, data, size);
    in[size] = '\0';
    if (memchr(data, '\0', size)) { /* neither a name nor an info string holds a NUL */
        free(in);
        return 0;
    }
    char *aws = strstr(in, "\n@@aws\n");
    if (aws) {
        *aws = '\0';
        aws += 7;
        FILE *f = fopen(aws_path, "w");
        if (f) {
            fputs(aws, f);
            fclose(f);
        }
    } else {
        unlink(aws_path);
    }
    char *nl = strchr(in, '\n');
    const char *str = "";
    if (nl) {
        *nl = '\0';
        str = nl + 1;
    }
    char opts[1024];
    nczm_option_names(opts, sizeof opts);
    check_words(str);
    H5VL_nczarr_info_t *info = info_of(str);
    try_name(in, info);
    H5VL_nczarr_info_free(info);
    H5Eclear2(H5E_DEFAULT);
    free(in);
    return 0;
}
