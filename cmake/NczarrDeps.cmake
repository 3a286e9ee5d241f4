# Locates the dependencies. HDF5 >= 1.14: the one the user has, wherever it came from
# (cmake/NczarrFindHDF5.cmake says which ways it looks, and which it took).
find_package(PkgConfig REQUIRED)
include(NczarrFindHDF5)
get_filename_component(HDF5_LIB_DIR "${HDF5_C_LIBRARY}" DIRECTORY)
# The installation's prefix, where its tools are: <prefix>/lib or <prefix>/include, else /usr
# (Debian's /usr/lib/<arch>/hdf5/serial, /usr/include/hdf5/serial: tools in /usr/bin).
get_filename_component(HDF5_PREFIX "${HDF5_LIB_DIR}" DIRECTORY)
get_filename_component(_h5inc_parent "${HDF5_INCLUDE_DIR}" DIRECTORY)
if(NOT HDF5_LIB_DIR MATCHES "/lib(64)?$")
  if(HDF5_INCLUDE_DIR MATCHES "/include$")
    set(HDF5_PREFIX "${_h5inc_parent}")
  else()
    set(HDF5_PREFIX "/usr")
  endif()
endif()
add_library(nczarr::hdf5 INTERFACE IMPORTED)
target_include_directories(nczarr::hdf5 INTERFACE "${HDF5_INCLUDE_DIR}")
target_link_libraries(nczarr::hdf5 INTERFACE "${HDF5_C_LIBRARY}")
# A parallel HDF5 (H5_HAVE_PARALLEL) includes mpi.h from its headers: the connector then
# builds its MPI layer (translate/par) and the MPI tests, against the same MPI.
file(STRINGS "${HDF5_INCLUDE_DIR}/H5pubconf.h" _h5par REGEX "#define H5_HAVE_PARALLEL 1")
set(NCZARR_PARALLEL OFF)
if(_h5par)
  find_package(MPI REQUIRED COMPONENTS C)
  target_link_libraries(nczarr::hdf5 INTERFACE MPI::MPI_C)
  set(NCZARR_PARALLEL ON)
  message(STATUS "HDF5 is parallel: MPI ${MPI_C_VERSION} (${MPIEXEC_EXECUTABLE})")
endif()
set(NCZARR_PLUGIN_INSTALL_DIR "${CMAKE_INSTALL_LIBDIR}/hdf5/plugin")
set(CMAKE_BUILD_RPATH "${HDF5_LIB_DIR}")
set(CMAKE_INSTALL_RPATH "${HDF5_LIB_DIR}")

pkg_check_modules(JANSSON REQUIRED IMPORTED_TARGET jansson)
pkg_check_modules(LIBZIP REQUIRED IMPORTED_TARGET libzip)
# The S3 store: libcurl (SigV4 signing, 7.75 or newer; its headers at build time, the
# library loaded when an S3 store opens), libxml2 (S3's answers), OpenSSL's libcrypto
# (payload SHA-256, DeleteObjects' MD5).
pkg_check_modules(LIBCURL REQUIRED IMPORTED_TARGET libcurl>=7.75)
# The S3 store dlopens libcurl by its soname (libcurl.so.4 for every libcurl since 7.16).
set(NCZARR_LIBCURL_SONAME "libcurl.so.4" CACHE STRING "libcurl's soname, loaded when an S3 store opens")
pkg_check_modules(LIBXML2 REQUIRED IMPORTED_TARGET libxml-2.0)
find_package(OpenSSL REQUIRED COMPONENTS Crypto)

# Tools used by the tests (from the dependency prefix when there is one).
find_program(H5DUMP h5dump HINTS "${HDF5_PREFIX}/bin" NO_DEFAULT_PATH)
find_program(H5LS h5ls HINTS "${HDF5_PREFIX}/bin" NO_DEFAULT_PATH)
find_program(H5_API_TEST h5_api_test HINTS "${HDF5_PREFIX}/bin" NO_DEFAULT_PATH)
find_program(NCDUMP ncdump HINTS "${HDF5_PREFIX}/bin" NO_DEFAULT_PATH)
find_program(NCGEN ncgen HINTS "${HDF5_PREFIX}/bin" NO_DEFAULT_PATH)
find_program(DEBIAN_PYTHON3 python3 PATHS /usr/bin NO_DEFAULT_PATH)
# zarr-python 3, the second Python peer: the virtual environment scripts/setup-python.sh makes
# in the cache root. A python that is not there or has no zarr 3 leaves the variable false,
# which makes the test tools.NCZARR_ZARR3_PYTHON fail.
if(DEFINED ENV{VOL_NCZARR_CACHE})
  set(_nczarr_cache "$ENV{VOL_NCZARR_CACHE}")
else()
  set(_nczarr_cache "$ENV{HOME}/.cache/vol-nczarr")
endif()
set(NCZARR_ZARR3_PYTHON "${_nczarr_cache}/venv/bin/python" CACHE FILEPATH
  "python of the zarr-python 3 environment (scripts/setup-python.sh)")
set(NCZARR_ZARR3_PYTHON_OK FALSE)
if(EXISTS "${NCZARR_ZARR3_PYTHON}")
  execute_process(COMMAND "${NCZARR_ZARR3_PYTHON}" -c "import zarr, numcodecs, xarray; print(zarr.__version__)"
    OUTPUT_VARIABLE _zarr3_version OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE _zarr3_rc ERROR_QUIET)
  if(_zarr3_rc EQUAL 0 AND _zarr3_version MATCHES "^3\\.")
    set(NCZARR_ZARR3_PYTHON_OK TRUE)
    message(STATUS "zarr-python ${_zarr3_version}: ${NCZARR_ZARR3_PYTHON}")
  endif()
endif()
if(NOT NCZARR_ZARR3_PYTHON_OK)
  message(WARNING "no zarr-python 3 at ${NCZARR_ZARR3_PYTHON} (run scripts/setup-python.sh or set NCZARR_ZARR3_PYTHON): the tests that need it fail")
endif()
find_program(VALGRIND valgrind)
# netCDF-C (the benchmark's third peer, and a test program) from the same prefix.
find_library(NETCDF_LIBRARY netcdf HINTS "${HDF5_PREFIX}/lib" NO_DEFAULT_PATH)
find_path(NETCDF_INCLUDE_DIR netcdf.h HINTS "${HDF5_PREFIX}/include" NO_DEFAULT_PATH)
find_program(CLANG_FORMAT clang-format)
