# The zip store's entry index (zmap/zip/nczm_zipidx.c) against the directory store.
add_executable(test_zipidx ${CMAKE_CURRENT_LIST_DIR}/test_zipidx.c)
target_link_libraries(test_zipidx PRIVATE nczm)
target_include_directories(test_zipidx PRIVATE ${PROJECT_SOURCE_DIR}/test/common)
add_test(NAME unit.zipidx COMMAND test_zipidx)
set_tests_properties(unit.zipidx PROPERTIES TIMEOUT 120)
