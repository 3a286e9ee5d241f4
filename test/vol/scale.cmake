# Metadata at scale (test_vol_scale.c): one ctest entry per case. Linear code runs each in
# a second or two (ten times that under the sanitizers); the quadratic code this guards
# against took minutes, so the TIMEOUT catches a regression without any timing assertion.
add_executable(test_vol_scale ${CMAKE_CURRENT_LIST_DIR}/test_vol_scale.c)
target_include_directories(test_vol_scale PRIVATE ${PROJECT_SOURCE_DIR}/test/common)
target_link_libraries(test_vol_scale PRIVATE nczarr::hdf5 PkgConfig::LIBZIP)
add_dependencies(test_vol_scale nczarr_vol)
# The sanitizers make everything several times slower, the old code included.
set(_scale_timeout 60)
if(NCZARR_SANITIZE)
  set(_scale_timeout 300)
endif()
foreach(c attrs links ghosts cons_pure zip_nested zip_deep)
  add_test(NAME scale.${c} COMMAND test_vol_scale ${c})
  set_tests_properties(scale.${c} PROPERTIES ENVIRONMENT "${NCZARR_ENV}" LABELS scale TIMEOUT ${_scale_timeout})
endforeach()

# .zmetadata read entry by entry (translate/meta/ncztr_zmeta.c): what it accepts and ignores.
nczarr_vol_test(test_vol_zmeta)
if(VALGRIND AND NOT NCZARR_SANITIZE)
  add_test(NAME valgrind.test_vol_zmeta COMMAND ${VALGRIND} --leak-check=full --errors-for-leak-kinds=definite
    --error-exitcode=9 -q $<TARGET_FILE:test_vol_zmeta>)
  set_tests_properties(valgrind.test_vol_zmeta PROPERTIES ENVIRONMENT "${NCZARR_ENV}" LABELS valgrind)
endif()
