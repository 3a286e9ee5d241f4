/* netCDF-C's plugin interface for NCZarr codecs, spelled here so that the connector builds
 * without netCDF-C (its installed netcdf_filter_build.h includes a header CMake installs do
 * not ship). netCDF-C 4.9 and 4.10 (libnczarr/zplugins.c) load every library of the
 * directories of HDF5_PLUGIN_PATH and take from each an HDF5 filter (H5PLget_plugin_type,
 * H5PLget_plugin_info), a codec (NCZ_get_codec_info) or a table of codecs
 * (NCZ_codec_info_defaults); a codec is used only with a filter of its hdf5id. */
#ifndef NCZTR_NCPLUGIN_H
#define NCZTR_NCPLUGIN_H

#include <stddef.h>

#define NCZTR_NC_CODEC_VERSION 1      /* NCZ_CODEC_CLASS_VER */
#define NCZTR_NC_CODEC_HDF5    1      /* NCZ_CODEC_HDF5: an HDF5 filter <-> a codec */
#define NCZTR_NC_EFILTER       (-132) /* NC_EFILTER */

/* NCZ_codec_t, version 1 of the struct (include/netcdf_filter_build.h) */
typedef struct ncztr_nc_codec {
    int version;
    int sort;
    const char *codecid;
    unsigned int hdf5id;
    void (*initialize)(void);
    void (*finalize)(void);
    /* the codec's JSON -> the filter's parameters (malloc'ed; netCDF-C frees them) */
    int (*to_hdf5)(const char *codec, size_t *nparamsp, unsigned **paramsp);
    /* the filter's parameters -> the codec's JSON (malloc'ed; netCDF-C frees it) */
    int (*from_hdf5)(size_t nparams, const unsigned *params, char **codecp);
    int (*modify_parameters)(int ncid, int varid, size_t *vnparamsp, unsigned **vparamsp, size_t *wnparamsp,
                             unsigned **wparamsp);
} ncztr_nc_codec;

#endif
