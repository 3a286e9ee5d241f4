/* Shared by the translate/ JSON unit tests: error-stack capture, file reading, JSON parsing. */
#ifndef JSON_TEST_UTIL_H
#define JSON_TEST_UTIL_H

#include "ncz_test.h"
#include "ncztr_err.h"
#include "ncztr_format.h"
#include "ncztr_zarray.h"

#include <ftw.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#ifndef NCZ_SAMPLES_DIR
#error "NCZ_SAMPLES_DIR (the fixtures folder, test/data) is set by the build"
#endif

/* ---- error stack capture -------------------------------------------------------------- */
static char g_err[16384];

static inline herr_t walk_cb(unsigned n, const H5E_error2_t *e, void *data)
{
    (void)n;
    (void)data;
    if (e->desc && *e->desc) {
        size_t len = strlen(g_err);
        snprintf(g_err + len, sizeof g_err - len, "%s%s", len ? " | " : "", e->desc);
    }
    return 0;
}

/* Clears the stack before an operation expected to fail. */
static inline void err_reset(void)
{
    H5Eclear2(H5E_DEFAULT);
    g_err[0] = '\0';
}

/* The messages on the stack, joined; clears it. */
static inline const char *err_text(void)
{
    g_err[0] = '\0';
    H5Ewalk2(H5E_DEFAULT, H5E_WALK_DOWNWARD, walk_cb, NULL);
    H5Eclear2(H5E_DEFAULT);
    return g_err;
}

/* Checks that an expression failed and that the error text contains each substring. */
#define CHECK_FAILS(failed, sub1, sub2)                                                                      \
    do {                                                                                                     \
        int f_ = (failed);                                                                                   \
        const char *t_ = err_text();                                                                         \
        CHECK(f_, "expected failure (%s)", sub1);                                                            \
        CHECK(strstr(t_, sub1) != NULL, "error text \"%s\" lacks \"%s\"", t_, sub1);                         \
        CHECK(strstr(t_, sub2) != NULL, "error text \"%s\" lacks \"%s\"", t_, sub2);                         \
    } while (0)

static inline char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    long n;
    if (!f)
        return NULL;
    if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
        (buf = malloc((size_t)n + 1)) != NULL) {
        if (fread(buf, 1, (size_t)n, f) != (size_t)n) {
            free(buf);
            buf = NULL;
        } else {
            buf[n] = '\0';
            *len = (size_t)n;
        }
    }
    fclose(f);
    return buf;
}

/* Parses `{"v": <text>}` and returns a new reference to v. */
static inline json_t *parse_value(const char *text)
{
    size_t n = strlen(text) + 16;
    char *buf = malloc(n);
    json_t *o, *v = NULL;
    snprintf(buf, n, "{\"v\": %s}", text);
    o = ncztr_json_parse_object("test", buf, strlen(buf));
    if (o)
        v = json_incref(json_object_get(o, "v"));
    json_decref(o);
    free(buf);
    return v;
}

/* Sample files of one name below NCZ_SAMPLES_DIR. */
static char *g_paths[512];
static int g_npaths;
static const char *g_want_name;

static inline int collect(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb;
    if (flag == FTW_F && !strcmp(path + ftw->base, g_want_name) && g_npaths < 512)
        g_paths[g_npaths++] = strdup(path);
    return 0;
}

static inline void collect_files(const char *name)
{
    g_npaths = 0;
    g_want_name = name;
    nftw(NCZ_SAMPLES_DIR, collect, 16, FTW_PHYS);
}

static inline void free_paths(void)
{
    for (int i = 0; i < g_npaths; i++)
        free(g_paths[i]);
    g_npaths = 0;
}

#endif
