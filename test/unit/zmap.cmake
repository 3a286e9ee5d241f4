# zmap unit tests: both stores, key and URL rules, and the real sample archives (test/data).
add_executable(test_zmap ${CMAKE_CURRENT_LIST_DIR}/test_zmap.c)
target_link_libraries(test_zmap PRIVATE nczm)
target_include_directories(test_zmap PRIVATE ${PROJECT_SOURCE_DIR}/test/common)
add_test(NAME unit.zmap COMMAND test_zmap)
