# The worker pool (common/nczc_workers.c) and the chunk pipeline's parallel stages
# (translate/data/ncztr_stages.c) with a fake codec, and the chunk buffer pool.
add_executable(test_workers ${CMAKE_CURRENT_LIST_DIR}/test_workers.c)
target_link_libraries(test_workers PRIVATE nczm)
target_include_directories(test_workers PRIVATE ${PROJECT_SOURCE_DIR}/test/common)
add_test(NAME unit.workers COMMAND test_workers)
add_executable(test_stages ${CMAKE_CURRENT_LIST_DIR}/test_stages.c)
target_link_libraries(test_stages PRIVATE ncztr)
target_include_directories(test_stages PRIVATE ${PROJECT_SOURCE_DIR}/test/common)
add_test(NAME unit.stages COMMAND test_stages)
add_executable(test_bufpool ${CMAKE_CURRENT_LIST_DIR}/test_bufpool.c)
target_link_libraries(test_bufpool PRIVATE ncztr)
target_include_directories(test_bufpool PRIVATE ${PROJECT_SOURCE_DIR}/test/common)
add_test(NAME unit.bufpool COMMAND test_bufpool)
