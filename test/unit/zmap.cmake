# zmap unit tests: both stores, key and URL rules, and the real sample archives (test/data).
add_executable(test_zmap ${CMAKE_CURRENT_LIST_DIR}/test_zmap.c)
target_link_libraries(test_zmap PRIVATE nczm)
# nczm_s3.h: the S3 driver's options as parsed
target_include_directories(test_zmap PRIVATE ${PROJECT_SOURCE_DIR}/test/common ${PROJECT_SOURCE_DIR}/zmap/s3)
add_test(NAME unit.zmap COMMAND test_zmap)
# the directory store's commits of many objects
add_executable(test_zmap_commit ${CMAKE_CURRENT_LIST_DIR}/test_zmap_commit.c)
target_link_libraries(test_zmap_commit PRIVATE nczm)
target_include_directories(test_zmap_commit PRIVATE ${PROJECT_SOURCE_DIR}/test/common)
add_test(NAME unit.zmap_commit COMMAND test_zmap_commit)

# The S3 store against a real server (Ceph RGW): test/s3/CMakeLists.txt puts these tests on
# the fixture s3server (nczarr_s3_test), which starts it and writes the s3.env they read.
# Without a server the test fails: it never skips.
set(NCZARR_S3_ENV_FILE "${PROJECT_BINARY_DIR}/s3-server/s3.env")
add_executable(test_zmap_s3 ${CMAKE_CURRENT_LIST_DIR}/test_zmap_s3.c)
target_link_libraries(test_zmap_s3 PRIVATE nczm)
# nczm_s3.h: the addressing of names and the driver's options, checked without a server
target_include_directories(test_zmap_s3 PRIVATE ${PROJECT_SOURCE_DIR}/test/common ${PROJECT_SOURCE_DIR}/zmap/s3)
add_test(NAME unit.zmap_s3 COMMAND test_zmap_s3 ${NCZARR_S3_ENV_FILE})
set_tests_properties(unit.zmap_s3 PROPERTIES TIMEOUT 300)
nczarr_s3_test(unit.zmap_s3)
if(VALGRIND AND NOT NCZARR_SANITIZE_KIND)
  add_test(NAME valgrind.unit.zmap_s3 COMMAND ${VALGRIND} --leak-check=full --errors-for-leak-kinds=definite
    --error-exitcode=99
    $<TARGET_FILE:test_zmap_s3> ${NCZARR_S3_ENV_FILE})
  set_tests_properties(valgrind.unit.zmap_s3 PROPERTIES TIMEOUT 600 LABELS valgrind)
  nczarr_s3_test(valgrind.unit.zmap_s3)
endif()
