#!/usr/bin/env bash
# Installs everything vol-nczarr needs on Debian 12 and builds HDF5 and netCDF-C from Debian
# *source* packages into a cached prefix. Idempotent: the build is skipped when the prefix's
# stamp matches. The system's apt sources are never edited: sources come through a private
# apt configuration under the cache directory.
#
#   VOL_NCZARR_STACK=newest (default)  HDF5 1.14.6 + netCDF-C 4.10.1 (Debian forky/sid sources)
#                                      into ~/.cache/vol-nczarr/deps
#   VOL_NCZARR_STACK=trixie            HDF5 1.14.5 + netCDF-C 4.9.3 (Debian trixie sources)
#                                      into ~/.cache/vol-nczarr/deps-trixie
#   VOL_NCZARR_STACK=mpi               the newest stack built parallel (--enable-parallel HDF5,
#                                      netCDF-C with parallel I/O) with Debian's OpenMPI
#                                      into ~/.cache/vol-nczarr/deps-mpi
#   VOL_NCZARR_DEPS=/some/prefix       another prefix; VOL_NCZARR_CACHE another cache root
#
# Then scripts/setup-python.sh makes the zarr-python 3 peer of the tests (pinned, from PyPI)
# in a virtual environment, $CACHE/venv.
#
# Prints the prefix on its last line of stdout. Set VOL_NCZARR_SKIP_APT=1 to skip apt-get
# (for a machine where the packages are already there and you are not root).
set -euo pipefail

CACHE="${VOL_NCZARR_CACHE:-$HOME/.cache/vol-nczarr}"
PARALLEL=OFF
case "${VOL_NCZARR_STACK:-newest}" in
  newest)
    HDF5_DEB_VERSION="1.14.6+repack-2"; NETCDF_DEB_VERSION="1:4.10.1-1"
    SUITES="forky sid"; default_prefix="$CACHE/deps" ;;
  mpi)
    HDF5_DEB_VERSION="1.14.6+repack-2"; NETCDF_DEB_VERSION="1:4.10.1-1"
    SUITES="forky sid"; default_prefix="$CACHE/deps-mpi"; PARALLEL=ON ;;
  trixie)
    HDF5_DEB_VERSION="1.14.5+repack-3"; NETCDF_DEB_VERSION="1:4.9.3-1"
    SUITES="trixie"; default_prefix="$CACHE/deps-trixie" ;;
  *) echo "[setup-deps] VOL_NCZARR_STACK must be 'newest', 'trixie' or 'mpi'" >&2; exit 2 ;;
esac
STAMP_TEXT="hdf5=$HDF5_DEB_VERSION netcdf=$NETCDF_DEB_VERSION options=v3"
[ "$PARALLEL" = ON ] && STAMP_TEXT="$STAMP_TEXT parallel=openmpi"
PREFIX="${VOL_NCZARR_DEPS:-$default_prefix}"
WORK="$CACHE/work-${VOL_NCZARR_STACK:-newest}"
HDF5_UPSTREAM=${HDF5_DEB_VERSION%-*}; NETCDF_UPSTREAM=${NETCDF_DEB_VERSION#*:}; NETCDF_UPSTREAM=${NETCDF_UPSTREAM%-*}
log() { echo "[setup-deps] $*" >&2; }

DEB_PACKAGES=(build-essential cmake ninja-build pkg-config m4 ca-certificates zlib1g-dev
  libaec-dev libzip-dev liblz4-dev libblosc-dev libzstd-dev libdeflate-dev libbz2-dev libxml2-dev libcurl4-openssl-dev
  libssl-dev libjansson-dev unzip zip python3-zarr python3-xarray python3-numcodecs
  python3-numpy python3-h5py python3-venv valgrind clang clang-format debian-archive-keyring
  clang-16 libclang-rt-16-dev llvm-16
  radosgw ceph-mon ceph-osd curl openssl iproute2 libopenmpi-dev openmpi-bin)

install_debs() {
  [ "${VOL_NCZARR_SKIP_APT:-0}" = 1 ] && return 0
  local missing=()
  for p in "${DEB_PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  log "installing Debian packages: ${missing[*]}"
  local sudo=""; [ "$(id -u)" = 0 ] || sudo="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq >&2
  $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
}

fetch_sources() {
  mkdir -p "$WORK/apt/sources.list.d" "$WORK/apt/lists/partial" "$WORK/apt/cache/archives/partial" "$WORK/src"
  rm -f "$WORK"/apt/sources.list.d/*
  cat >"$WORK/apt/sources.list.d/debian-src.sources" <<SRC
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: $SUITES
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
  local opts=(-o Dir::Etc::sourcelist=/dev/null -o "Dir::Etc::sourceparts=$WORK/apt/sources.list.d"
    -o "Dir::State::Lists=$WORK/apt/lists" -o "Dir::Cache=$WORK/apt/cache" -o APT::Sandbox::User=root)
  if ! ls "$WORK"/src/hdf5_"$HDF5_UPSTREAM".orig.tar.* >/dev/null 2>&1 \
     || ! ls "$WORK"/src/netcdf_"$NETCDF_UPSTREAM".orig.tar.* >/dev/null 2>&1; then
    log "fetching $SUITES source tarballs (private apt configuration)"
    apt-get "${opts[@]}" update -qq >&2
    (cd "$WORK/src" && apt-get "${opts[@]}" source --download-only --tar-only \
      "hdf5=$HDF5_DEB_VERSION" "netcdf=$NETCDF_DEB_VERSION" >&2)
  fi
}

unpack() { # $1 = tarball glob name, $2 = destination dir
  local tb; tb=$(ls "$WORK"/src/$1 | head -n1)
  rm -rf "$2"; mkdir -p "$2"
  tar --no-same-owner -xf "$tb" -C "$2" --strip-components=1
}

build_hdf5() {
  log "building HDF5 $HDF5_DEB_VERSION into $PREFIX"
  unpack "hdf5_$HDF5_UPSTREAM.orig.tar.*" "$WORK/hdf5-src"
  # Debian's libaec ships no CMake config; HDF5's CMake then silently drops szip. A tiny shim
  # package gives it the imported target it looks for.
  mkdir -p "$WORK/szip-shim"
  cat >"$WORK/szip-shim/szip-config.cmake" <<'SHIM'
if(NOT TARGET szip-shared)
  add_library(szip-shared SHARED IMPORTED)
  find_library(_SZ_LIB NAMES sz REQUIRED)
  find_path(_SZ_INC NAMES szlib.h REQUIRED)
  set_target_properties(szip-shared PROPERTIES IMPORTED_LOCATION "${_SZ_LIB}"
    INTERFACE_INCLUDE_DIRECTORIES "${_SZ_INC}")
endif()
set(SZIP_FOUND TRUE)
set(szip_FOUND TRUE)
set(SZIP_LIBRARIES szip-shared)
set(SZIP_INCLUDE_DIRS "${_SZ_INC}")
set(SZIP_INCLUDE_DIR "${_SZ_INC}")
SHIM
  cp "$WORK/szip-shim/szip-config.cmake" "$WORK/szip-shim/SZIPConfig.cmake"
  # HDF5 1.14.6 looks for libaec's own CMake package instead: targets libaec::sz/libaec::aec.
  cat >"$WORK/szip-shim/libaec-config.cmake" <<'SHIM'
find_library(_AEC_SZ NAMES sz REQUIRED)
find_library(_AEC_AEC NAMES aec REQUIRED)
find_path(_AEC_INC NAMES szlib.h REQUIRED)
foreach(_t sz aec)
  if(NOT TARGET libaec::${_t})
    add_library(libaec::${_t} SHARED IMPORTED)
  endif()
endforeach()
set_target_properties(libaec::sz PROPERTIES IMPORTED_LOCATION "${_AEC_SZ}" INTERFACE_INCLUDE_DIRECTORIES "${_AEC_INC}")
set_target_properties(libaec::aec PROPERTIES IMPORTED_LOCATION "${_AEC_AEC}" INTERFACE_INCLUDE_DIRECTORIES "${_AEC_INC}")
set(libaec_FOUND TRUE)
set(SZIP_INCLUDE_DIR "${_AEC_INC}")
SHIM
  rm -rf "$WORK/hdf5-build"
  # The parallel stack: MPI compilers, no thread safety (HDF5 refuses both), HDF5's own tests
  # left out (the serial stack runs its API suite).
  local par=(-DHDF5_ENABLE_PARALLEL=OFF -DHDF5_ENABLE_THREADSAFE=OFF -DBUILD_TESTING=ON)
  [ "$PARALLEL" = ON ] && par=(-DCMAKE_C_COMPILER=mpicc -DHDF5_ENABLE_PARALLEL=ON
    -DHDF5_ENABLE_THREADSAFE=OFF -DBUILD_TESTING=OFF)
  cmake -S "$WORK/hdf5-src" -B "$WORK/hdf5-build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo "${par[@]}" \
    -DCMAKE_INSTALL_PREFIX="$PREFIX" -DCMAKE_INSTALL_RPATH="$PREFIX/lib" \
    -DBUILD_SHARED_LIBS=ON -DBUILD_STATIC_LIBS=OFF -DONLY_SHARED_LIBS=ON \
    -DHDF5_BUILD_HL_LIB=ON -DHDF5_BUILD_TOOLS=ON -DHDF5_BUILD_EXAMPLES=OFF -DHDF5_BUILD_FORTRAN=OFF \
    -DHDF5_BUILD_CPP_LIB=OFF -DHDF5_BUILD_JAVA=OFF -DHDF5_BUILD_DOC=OFF \
    -DHDF5_ENABLE_Z_LIB_SUPPORT=ON -DHDF5_ENABLE_SZIP_SUPPORT=ON -DHDF5_ENABLE_SZIP_ENCODING=ON \
    -DSZIP_DIR="$WORK/szip-shim" -Dszip_DIR="$WORK/szip-shim" -Dlibaec_DIR="$WORK/szip-shim" -DSZIP_USE_EXTERNAL=OFF \
    -DHDF5_ENABLE_PLUGIN_SUPPORT=OFF -DH5_DEFAULT_PLUGINDIR="$PREFIX/lib/plugin" \
    -DHDF5_TEST_SERIAL=ON -DHDF5_TEST_API=ON -DHDF5_TEST_API_INSTALL=ON \
    -DHDF5_TEST_TOOLS=OFF -DHDF5_TEST_EXAMPLES=OFF -DHDF5_TEST_SWMR=OFF -DHDF5_TEST_PARALLEL=OFF \
    -DHDF5_TEST_CPP=OFF -DHDF5_TEST_FORTRAN=OFF -DHDF5_TEST_JAVA=OFF >"$WORK/hdf5-configure.log" 2>&1 \
    || { tail -n 40 "$WORK/hdf5-configure.log" >&2; exit 1; }
  grep -q "H5_HAVE_FILTER_SZIP 1" "$WORK/hdf5-build/src/H5pubconf.h" \
    || { log "HDF5 configured without szip; see $WORK/hdf5-configure.log"; exit 1; }
  cmake --build "$WORK/hdf5-build" >"$WORK/hdf5-build.log" 2>&1 || { tail -n 40 "$WORK/hdf5-build.log" >&2; exit 1; }
  cmake --install "$WORK/hdf5-build" >"$WORK/hdf5-install.log" 2>&1 || { tail -n 40 "$WORK/hdf5-install.log" >&2; exit 1; }
  # Installed metadata quirks: hdf5.pc names a static zlib that does not exist.
  sed -i 's/-lzlib-static/-lz/g; s/-lszip-shared/-lsz/g' "$PREFIX"/lib/pkgconfig/hdf5*.pc 2>/dev/null || true
}

build_netcdf() {
  log "building netCDF-C $NETCDF_DEB_VERSION into $PREFIX"
  unpack "netcdf_$NETCDF_UPSTREAM.orig.tar.*" "$WORK/netcdf-src"
  rm -rf "$WORK/netcdf-build"
  local par=()
  [ "$PARALLEL" = ON ] && par=(-DCMAKE_C_COMPILER=mpicc -DNETCDF_ENABLE_PARALLEL4=ON)
  cmake -S "$WORK/netcdf-src" -B "$WORK/netcdf-build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo "${par[@]}" \
    -DCMAKE_INSTALL_PREFIX="$PREFIX" -DCMAKE_PREFIX_PATH="$PREFIX" -DHDF5_DIR="$PREFIX/cmake" \
    -DCMAKE_INSTALL_RPATH="$PREFIX/lib" -DBUILD_SHARED_LIBS=ON -DNETCDF_ENABLE_HDF5=ON \
    -DNETCDF_ENABLE_NCZARR=ON -DNETCDF_ENABLE_NCZARR_ZIP=ON -DNETCDF_ENABLE_NCZARR_FILTERS=ON \
    -DNETCDF_ENABLE_DAP=ON -DNETCDF_ENABLE_BYTERANGE=ON -DNETCDF_ENABLE_S3=ON -DNETCDF_ENABLE_S3_INTERNAL=ON \
    -DNETCDF_ENABLE_PLUGINS=ON -DNETCDF_ENABLE_FILTER_SZIP=ON -DNETCDF_ENABLE_FILTER_BZ2=ON \
    -DNETCDF_ENABLE_FILTER_BLOSC=ON -DNETCDF_ENABLE_FILTER_ZSTD=ON \
    -DNETCDF_WITH_PLUGIN_DIR="$PREFIX/lib/plugin" -DNETCDF_PLUGIN_INSTALL=ON -DENABLE_PLUGIN_INSTALL=ON \
    -DPLUGIN_INSTALL_DIR="$PREFIX/lib/plugin" \
    -DNETCDF_ENABLE_TESTS=OFF -DNETCDF_ENABLE_EXAMPLES=OFF -DNETCDF_ENABLE_DOXYGEN=OFF \
    >"$WORK/netcdf-configure.log" 2>&1 || { tail -n 40 "$WORK/netcdf-configure.log" >&2; exit 1; }
  cmake --build "$WORK/netcdf-build" >"$WORK/netcdf-build.log" 2>&1 || { tail -n 40 "$WORK/netcdf-build.log" >&2; exit 1; }
  cmake --install "$WORK/netcdf-build" >"$WORK/netcdf-install.log" 2>&1 || { tail -n 40 "$WORK/netcdf-install.log" >&2; exit 1; }
  sed -i 's/-lHDF5::HDF5/-lhdf5_hl -lhdf5/g; s/-lCURL::libcurl/-lcurl/g' \
    "$PREFIX/lib/pkgconfig/netcdf.pc" "$PREFIX/bin/nc-config" 2>/dev/null || true
}

install_debs
if [ -f "$PREFIX/.stamp" ] && [ "$(cat "$PREFIX/.stamp")" = "$STAMP_TEXT" ] \
   && [ -x "$PREFIX/bin/h5dump" ] && [ -x "$PREFIX/bin/ncdump" ]; then
  log "dependency prefix is current: $PREFIX"
else
  rm -rf "$PREFIX"; mkdir -p "$PREFIX"
  fetch_sources
  build_hdf5
  build_netcdf
  echo "$STAMP_TEXT" >"$PREFIX/.stamp"
  log "done: $PREFIX"
fi
# The .h5 files of HDF5's own tool tests (and the raw files of their external datasets), for
# the h5repack corpus test: taken from the same source tarball, kept beside the prefix.
TESTFILES="$PREFIX/share/hdf5-tool-testfiles"
if [ ! -f "$TESTFILES/.complete" ]; then
  log "unpacking HDF5's tool test files into $TESTFILES"
  ls "$WORK"/src/hdf5_"$HDF5_UPSTREAM".orig.tar.* >/dev/null 2>&1 || fetch_sources
  tb=$(ls "$WORK"/src/hdf5_"$HDF5_UPSTREAM".orig.tar.* | head -n1)
  rm -rf "$TESTFILES"; mkdir -p "$TESTFILES"
  tar --no-same-owner -xf "$tb" -C "$TESTFILES" --strip-components=3 --wildcards '*/tools/test/*/testfiles/*'
  touch "$TESTFILES/.complete"
fi
VOL_NCZARR_CACHE="$CACHE" "$(dirname "$0")/setup-hdf5-2x.sh" >/dev/null
VOL_NCZARR_CACHE="$CACHE" "$(dirname "$0")/setup-python.sh" >/dev/null
echo "$PREFIX"
