# Metadata at scale (test_vol_scale.c): one ctest entry per case, each checking what
# thousands of objects read back as. How fast they are is bench/bench_meta's business (the
# tests time nothing; their TIMEOUT only turns a hang into a failure).
add_executable(test_vol_scale ${CMAKE_CURRENT_LIST_DIR}/test_vol_scale.c)
target_include_directories(test_vol_scale PRIVATE ${PROJECT_SOURCE_DIR}/test/common)
target_link_libraries(test_vol_scale PRIVATE nczarr::hdf5 PkgConfig::LIBZIP)
add_dependencies(test_vol_scale nczarr_vol)
foreach(c attrs links ghosts cons_pure zip_nested zip_deep dir_commit)
  add_test(NAME scale.${c} COMMAND test_vol_scale ${c})
  set_tests_properties(scale.${c} PROPERTIES ENVIRONMENT "${NCZARR_ENV}" LABELS scale TIMEOUT 900)
endforeach()

# .zmetadata read entry by entry (translate/format/ncztr_zmeta.c): what it accepts and ignores.
nczarr_vol_test(test_vol_zmeta)
if(VALGRIND AND NOT NCZARR_SANITIZE)
  add_test(NAME valgrind.test_vol_zmeta COMMAND ${VALGRIND} --leak-check=full --errors-for-leak-kinds=definite
    --error-exitcode=9 -q $<TARGET_FILE:test_vol_zmeta>)
  set_tests_properties(valgrind.test_vol_zmeta PROPERTIES ENVIRONMENT "${NCZARR_ENV}" LABELS valgrind)
endif()
