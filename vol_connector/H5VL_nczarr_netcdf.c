/* The connector as netCDF-C's plugin loader sees it: a library of codec defaults
 * (H5VL_nczarr_netcdf.h says why). */
#include "H5VL_nczarr_netcdf.h"

#include <stddef.h>

/* netCDF-C's NCZ_codec_t (include/netcdf_filter_build.h, version 1 of the struct), spelled
 * here so that the connector builds without netCDF-C. */
typedef struct ncz_codec_v1 {
    int version;
    int sort; /* 1: HDF5 <-> codec */
    const char *codecid;
    unsigned int hdf5id;
    void (*initialize)(void);
    void (*finalize)(void);
    int (*to_hdf5)(const char *codec, size_t *nparamsp, unsigned **paramsp);
    int (*from_hdf5)(size_t nparams, const unsigned *params, char **codecp);
    int (*modify_parameters)(int ncid, int varid, size_t *vnparamsp, unsigned **vparamsp, size_t *wnparamsp,
                             unsigned **wparamsp);
} ncz_codec_v1;

/* netCDF-C only calls the conversions for a variable whose filter is the companion's, which
 * no store has: they refuse (NC_EFILTER). */
static int to_hdf5(const char *codec, size_t *nparamsp, unsigned **paramsp)
{
    (void)codec, (void)nparamsp, (void)paramsp;
    return -132;
}

static int from_hdf5(size_t nparams, const unsigned *params, char **codecp)
{
    (void)nparams, (void)params, (void)codecp;
    return -132;
}

static const ncz_codec_v1 companion = {
    .version = 1,
    .sort = 1,
    .codecid = H5VL_NCZARR_COMPANION_CODEC,
    .hdf5id = H5VL_NCZARR_COMPANION_FILTER_ID,
    .to_hdf5 = to_hdf5,
    .from_hdf5 = from_hdf5,
};

/* netCDF-C's loader stops at the first NULL. */
static const void *const defaults[] = {&companion, NULL};

__attribute__((visibility("default"))) const void *NCZ_codec_info_defaults(void);
const void *NCZ_codec_info_defaults(void)
{
    return defaults;
}
