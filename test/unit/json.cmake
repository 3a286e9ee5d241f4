# translate/ JSON half: dtypes, attribute values, fill values, .zarray, JSON text layer.
# test_json reads the sample stores (netCDF-C 4.9.3 and zarr-python) from test/data;
# test_attrtype checks _nczarr_attr.types against values, empty lists, JSON-looking text;
# test_metaio loads and saves metadata objects through the model, malformed ones included;
# test_jsonascii the ascii-json option's escaping.
foreach(t json ctypes zarray attrtype metaio jsonascii)
  add_executable(test_${t} test_${t}.c)
  target_link_libraries(test_${t} PRIVATE ncztr)
  target_include_directories(test_${t} PRIVATE ${PROJECT_SOURCE_DIR}/test/common)
  add_test(NAME unit.${t} COMMAND test_${t})
endforeach()
