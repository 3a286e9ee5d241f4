/* What lets netCDF-C share HDF5_PLUGIN_PATH with the connector. netCDF-C (4.9 and 4.10,
 * libnczarr/zplugins.c) loads every library of those directories when it first opens a Zarr
 * store, as a compression filter (H5PLget_plugin_type + H5PLget_plugin_info), a codec
 * (NCZ_get_codec_info) or a library of codec defaults (NCZ_codec_info_defaults), and fails
 * the open when a library is none of them: an HDF5 plugin of another type, as this
 * connector is, makes it refuse every Zarr store. A library of codec defaults is taken
 * without its plugin type being asked, so the connector is also one: it offers one codec,
 * for a private filter id that the companion filter library next to it
 * (libnczarr_netcdf_companion.so) holds. netCDF-C requires the id of every default to be
 * a filter it loaded, and pairs the codec with it; the filter never runs (no dataset names
 * it), and refuses to if asked. */
#ifndef H5VL_NCZARR_NETCDF_H
#define H5VL_NCZARR_NETCDF_H

/* In HDF5's range for unregistered filters (32768-65535). */
#define H5VL_NCZARR_COMPANION_FILTER_ID 65040
#define H5VL_NCZARR_COMPANION_CODEC     "vol-nczarr-companion"

#endif
