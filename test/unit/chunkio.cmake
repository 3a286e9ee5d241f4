# Dataset data path tests (translate/data/ncztr_chunkio.c, ncztr_codec.c) through the model API.
add_executable(test_chunkio ${CMAKE_CURRENT_LIST_DIR}/test_chunkio.c)
target_link_libraries(test_chunkio PRIVATE ncztr)
target_include_directories(test_chunkio PRIVATE ${PROJECT_SOURCE_DIR}/test/common)
add_test(NAME unit.chunkio COMMAND test_chunkio)
