# zmap's parsers (included by test/fuzz/CMakeLists.txt): what a zip archive's directory, an
# S3 server's XML answers, and a store's name and options bring in from outside.

# (e) a zip archive: the input is the archive, opened through the zip store, listed and read.
nczarr_fuzz_target(zip)
target_link_libraries(fuzz_zip PRIVATE nczm)
# the zip store's index (nczm_zipidx.h) is internal to zmap/: the target calls it directly
target_include_directories(fuzz_zip PRIVATE ${PROJECT_SOURCE_DIR}/zmap/zip)

# (f) the S3 store's XML answers, parsed without a server (nczm_s3.h, internal to zmap/, and
# the curl headers it includes).
nczarr_fuzz_target(s3xml)
target_link_libraries(fuzz_s3xml PRIVATE nczm)
target_include_directories(fuzz_s3xml PRIVATE ${PROJECT_SOURCE_DIR}/zmap/s3 ${LIBCURL_INCLUDE_DIRS})

# (g) store names, store options and the connector info string: the connector's parser
# (H5VL_nczarr_info.c) is built into the target, with translate/ below it, rather than
# reached through HDF5's plugin loading, so that each input costs no plugin call.
nczarr_fuzz_target(url ${PROJECT_SOURCE_DIR}/vol_connector/H5VL_nczarr_info.c)
target_link_libraries(fuzz_url PRIVATE ncztr nczm)
target_include_directories(fuzz_url PRIVATE ${PROJECT_SOURCE_DIR}/vol_connector ${PROJECT_SOURCE_DIR}/zmap/s3
  ${LIBCURL_INCLUDE_DIRS})
