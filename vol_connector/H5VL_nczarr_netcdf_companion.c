/* libnczarr_netcdf_companion.so: an HDF5 filter plugin that only exists so that netCDF-C
 * accepts the connector's directory on HDF5_PLUGIN_PATH (H5VL_nczarr_netcdf.h). No data is
 * ever filtered with it: it refuses to run. */
#include "H5VL_nczarr_netcdf.h"

#include <H5PLextern.h>
#include <stdio.h>

static size_t refuse(unsigned int flags, size_t cd_nelmts, const unsigned int cd_values[], size_t nbytes,
                     size_t *buf_size, void **buf)
{
    (void)flags, (void)cd_nelmts, (void)cd_values, (void)nbytes, (void)buf_size, (void)buf;
    fprintf(stderr, "nczarr: filter %d is the connector's netCDF-C companion; it holds no data\n",
            H5VL_NCZARR_COMPANION_FILTER_ID);
    return 0; /* HDF5: the filter failed */
}

static const H5Z_class2_t companion = {
    .version = H5Z_CLASS_T_VERS,
    .id = H5VL_NCZARR_COMPANION_FILTER_ID,
    .encoder_present = 0,
    .decoder_present = 0,
    .name = "vol-nczarr netCDF-C companion (never filters data)",
    .filter = refuse,
};

H5PL_type_t H5PLget_plugin_type(void)
{
    return H5PL_TYPE_FILTER;
}

const void *H5PLget_plugin_info(void)
{
    return &companion;
}
