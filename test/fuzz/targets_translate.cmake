# The fuzz targets of translate/'s parsers (included by CMakeLists.txt): each links the
# lowest layer that holds what it fuzzes.
# (b) the codec chain's decoders, sharding included: codec config, chunk shape and bytes
nczarr_fuzz_target(codecs)
target_link_libraries(fuzz_codecs PRIVATE ncztr_codec)
# (c) NCZarr attribute JSON with its "_nczarr_attr" type entries to HDF5 values
nczarr_fuzz_target(attrjson)
target_link_libraries(fuzz_attrjson PRIVATE ncztr_types)
# (d) dtypes, structured dtypes, kept HDF5 types and fill values; whole .zarray / zarr.json
nczarr_fuzz_target(dtype)
target_link_libraries(fuzz_dtype PRIVATE ncztr_format)
