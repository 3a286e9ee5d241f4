/* The S3 test server's settings for the programs that talk to it (test_zmap_s3,
 * bench_zmap_s3): the sourceable s3.env file scripts/s3-server.sh start writes.
 * Header-only (static functions). */
#ifndef S3_ENV_FILE_H
#define S3_ENV_FILE_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Sets each NCZ_S3_* variable of the file's "[export ]NAME=VALUE" lines (values optionally
 * in single or double quotes) that the environment does not set already. A missing file
 * sets nothing. */
static void load_env_file(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    char line[4096];
    while (fgets(line, sizeof line, f)) {
        char *s = line, *eq;
        if (strncmp(s, "export ", 7) == 0)
            s += 7;
        if (strncmp(s, "NCZ_S3_", 7) != 0 || !(eq = strchr(s, '=')))
            continue;
        *eq = '\0';
        char *v = eq + 1;
        v[strcspn(v, "\r\n")] = '\0';
        size_t n = strlen(v);
        if (n >= 2 && (v[0] == '\'' || v[0] == '"') && v[n - 1] == v[0]) {
            v[n - 1] = '\0';
            v++;
        }
        setenv(s, v, 0);
    }
    fclose(f);
}

#endif
