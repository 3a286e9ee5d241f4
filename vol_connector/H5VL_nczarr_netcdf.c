/* The connector as netCDF-C's plugin loader sees it: a library of codec defaults
 * (H5VL_nczarr_netcdf.h says why). */
#include "H5VL_nczarr_netcdf.h"
#include "ncztr_ncplugin.h"

#include <stddef.h>

/* netCDF-C only calls the conversions for a variable whose filter is the companion's, which
 * no store has: they refuse (NC_EFILTER). */
static int to_hdf5(const char *codec, size_t *nparamsp, unsigned **paramsp)
{
    (void)codec, (void)nparamsp, (void)paramsp;
    return NCZTR_NC_EFILTER;
}

static int from_hdf5(size_t nparams, const unsigned *params, char **codecp)
{
    (void)nparams, (void)params, (void)codecp;
    return NCZTR_NC_EFILTER;
}

static const ncztr_nc_codec companion = {
    .version = NCZTR_NC_CODEC_VERSION,
    .sort = NCZTR_NC_CODEC_HDF5,
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
