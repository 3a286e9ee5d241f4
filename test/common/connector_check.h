/* The connector really loaded: one check for every test program that opens or creates a
 * file through HDF5 and may run either natively or through the connector.
 *
 * HDF5 needs the connector's plugin to be found on HDF5_PLUGIN_PATH; a program whose
 * environment names the connector must get it, and a program run without it must get
 * HDF5's native connector. Without this check a test that compares the connector's output
 * with native HDF5's compares native HDF5 with itself whenever the plugin is not loaded.
 *
 *   ncz_expect_connector(file_id, path): exits the program with status 1 and a FAIL line (on stderr)
 *   when the connector serving file_id is not the one the environment asks for
 *   ("nczarr" when HDF5_VOL_CONNECTOR starts with the word nczarr, "native" otherwise).
 *   Programs that exit with the number of failures count this as one. */
#ifndef NCZ_CONNECTOR_CHECK_H
#define NCZ_CONNECTOR_CHECK_H
#include <hdf5.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The connector the environment asks for: "nczarr" or "native". */
static inline const char *ncz_wanted_connector(void)
{
    const char *env = getenv("HDF5_VOL_CONNECTOR");
    if (env && strncmp(env, "nczarr", 6) == 0 && (env[6] == '\0' || env[6] == ' '))
        return "nczarr";
    return "native";
}

static inline void ncz_expect_connector(hid_t id, const char *path)
{
    char name[64] = "";
    const char *want = ncz_wanted_connector();
    if (H5VLget_connector_name(id, name, sizeof name) < 0 || strcmp(name, want) != 0) {
        fprintf(stderr,
                "FAIL: %s was opened by the connector \"%s\", not \"%s\" (HDF5_VOL_CONNECTOR=%s, "
                "HDF5_PLUGIN_PATH=%s)\n",
                path, name, want, getenv("HDF5_VOL_CONNECTOR") ? getenv("HDF5_VOL_CONNECTOR") : "(unset)",
                getenv("HDF5_PLUGIN_PATH") ? getenv("HDF5_PLUGIN_PATH") : "(unset)");
        exit(1);
    }
}
#endif
