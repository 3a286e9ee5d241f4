# zmap unit tests: both stores, key and URL rules, and the real sample archives (test/data).
add_executable(test_zmap ${CMAKE_CURRENT_LIST_DIR}/test_zmap.c)
target_link_libraries(test_zmap PRIVATE nczm)
target_include_directories(test_zmap PRIVATE ${PROJECT_SOURCE_DIR}/test/common)
add_test(NAME unit.zmap COMMAND test_zmap)

# The S3 store against a real server (Ceph RGW): the fixture s3server starts it and writes
# the s3.env this test reads (NCZ_S3_* variables in the environment win). Without a server
# the test fails: it never skips.
if(NOT DEFINED NCZARR_S3_ENV_FILE)
  set(NCZARR_S3_ENV_FILE "${PROJECT_BINARY_DIR}/s3server/s3.env")
endif()
add_executable(test_zmap_s3 ${CMAKE_CURRENT_LIST_DIR}/test_zmap_s3.c)
target_link_libraries(test_zmap_s3 PRIVATE nczm)
target_include_directories(test_zmap_s3 PRIVATE ${PROJECT_SOURCE_DIR}/test/common)
add_test(NAME unit.zmap_s3 COMMAND test_zmap_s3 ${NCZARR_S3_ENV_FILE})
set_tests_properties(unit.zmap_s3 PROPERTIES FIXTURES_REQUIRED s3server TIMEOUT 300)
if(VALGRIND AND NOT NCZARR_SANITIZE_KIND)
  add_test(NAME valgrind.unit.zmap_s3 COMMAND ${VALGRIND} --leak-check=full --errors-for-leak-kinds=definite
    --error-exitcode=99
    $<TARGET_FILE:test_zmap_s3> ${NCZARR_S3_ENV_FILE})
  set_tests_properties(valgrind.unit.zmap_s3 PROPERTIES FIXTURES_REQUIRED s3server TIMEOUT 600 LABELS valgrind)
endif()
# TEMPORARY (s3drv helper, to be dropped once the real s3server fixture is merged): with
# -DNCZARR_S3_LOCAL_ENV=/path/to/s3.env of a server started by hand, the fixture copies it
# where the tests read it.
if(NCZARR_S3_LOCAL_ENV)
  add_test(NAME unit.s3server_local COMMAND ${CMAKE_COMMAND} -E copy ${NCZARR_S3_LOCAL_ENV} ${NCZARR_S3_ENV_FILE})
  set_tests_properties(unit.s3server_local PROPERTIES FIXTURES_SETUP s3server)
endif()
