# Metadata at scale (test_vol_scale.c): one ctest entry per case. Linear code runs each in
# a second or two (ten times that under the sanitizers); the quadratic code this guards
# against took minutes, so the TIMEOUT catches a regression without any timing assertion.
add_executable(test_vol_scale ${CMAKE_CURRENT_LIST_DIR}/test_vol_scale.c)
target_include_directories(test_vol_scale PRIVATE ${PROJECT_SOURCE_DIR}/test/common)
target_link_libraries(test_vol_scale PRIVATE nczarr::hdf5 PkgConfig::LIBZIP)
add_dependencies(test_vol_scale nczarr_vol)
foreach(c attrs links ghosts cons_pure zip_nested zip_deep)
  add_test(NAME scale.${c} COMMAND test_vol_scale ${c})
  set_tests_properties(scale.${c} PROPERTIES ENVIRONMENT "${NCZARR_ENV}" LABELS scale TIMEOUT 60)
endforeach()
