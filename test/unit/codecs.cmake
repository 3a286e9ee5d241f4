# translate/codec: the codecs, the chain, and codec JSON <-> HDF5 filters. The plugins come
# from the dependency prefix's plugin directory (where the setup script builds netCDF-C's).
add_executable(test_codecs ${CMAKE_CURRENT_LIST_DIR}/test_codecs.c)
target_link_libraries(test_codecs PRIVATE ncztr_codec)
target_include_directories(test_codecs PRIVATE ${PROJECT_SOURCE_DIR}/test/common)
add_test(NAME unit.codecs COMMAND test_codecs)
set_tests_properties(unit.codecs PROPERTIES ENVIRONMENT "HDF5_PLUGIN_PATH=${HDF5_PREFIX}/lib/plugin")
