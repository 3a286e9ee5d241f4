# translate/ JSON half: dtypes, attribute values, fill values, .zarray, JSON text layer.
# Reads the sample stores (netCDF-C 4.9.3 and zarr-python) from test/data.
add_executable(test_json test_json.c)
target_link_libraries(test_json PRIVATE ncztr)
target_include_directories(test_json PRIVATE ${PROJECT_SOURCE_DIR}/test/common)
add_test(NAME unit.json COMMAND test_json)

add_executable(test_ctypes test_ctypes.c)
target_link_libraries(test_ctypes PRIVATE ncztr)
target_include_directories(test_ctypes PRIVATE ${PROJECT_SOURCE_DIR}/test/common)
add_test(NAME unit.ctypes COMMAND test_ctypes)

add_executable(test_zarray test_zarray.c)
target_link_libraries(test_zarray PRIVATE ncztr)
target_include_directories(test_zarray PRIVATE ${PROJECT_SOURCE_DIR}/test/common)
add_test(NAME unit.zarray COMMAND test_zarray)

# Attribute fidelity: _nczarr_attr.types checked against values, empty lists, JSON-looking text.
add_executable(test_attrtype test_attrtype.c)
target_link_libraries(test_attrtype PRIVATE ncztr)
target_include_directories(test_attrtype PRIVATE ${PROJECT_SOURCE_DIR}/test/common)
add_test(NAME unit.attrtype COMMAND test_attrtype)

# Loading and saving metadata objects through the model, malformed ones included.
add_executable(test_metaio test_metaio.c)
target_link_libraries(test_metaio PRIVATE ncztr)
target_include_directories(test_metaio PRIVATE ${PROJECT_SOURCE_DIR}/test/common)
add_test(NAME unit.metaio COMMAND test_metaio)
