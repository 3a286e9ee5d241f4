#!/usr/bin/env bash
# cmake/NczarrFindHDF5.cmake finds the HDF5 a user has by each way alone, and says which:
# the dependency prefix's HDF5 (1.14, installed by HDF5's CMake: a CMake package, hdf5.pc
# and h5cc) through HDF5_ROOT, its CMake package (HDF5_DIR), pkg-config and h5cc, each
# with NCZARR_HDF5_METHODS naming only that way; a prefix with no HDF5 stops configuring
# with a message naming what was looked at. (A distribution's HDF5, and one too old or
# without the VOL headers: the distribution stage, test/distro.)
#   find_hdf5.sh SOURCE_DIR
set -euo pipefail
src=$1
: "${NCZARR_PREFIX:?}"
# the prefix itself (the ThreadSanitizer build's NCZARR_PREFIX is a shim whose h5 tools are
# wrappers that preload the runtime, under which h5cc, a shell script, cannot run)
p=$(dirname "$(readlink -f "$NCZARR_PREFIX/include")")
tmp=$(mktemp -d "${TMPDIR:-/tmp}/nczarr-findh5.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail=0
# configure WAY EXPECT [env/cmake args...]: configuring succeeds (or fails, for EXPECT
# starting with "!") and its output holds EXPECT.
configure() {
  local way=$1 want=$2 rc=0
  shift 2
  local envs=() args=()
  for a in "$@"; do case "$a" in -D*) args+=("$a") ;; *) envs+=("$a") ;; esac; done
  rm -rf "$tmp/b"
  env -u HDF5_ROOT -u LD_PRELOAD "${envs[@]}" cmake -S "$src" -B "$tmp/b" -DNCZARR_HDF5_METHODS="$way" -DNCZARR_BUILD_TESTS=OFF \
    "${args[@]}" >"$tmp/out.txt" 2>&1 || rc=$?
  local neg=0
  [ "${want:0:1}" = "!" ] && { neg=1; want=${want:1}; }
  if { [ "$neg" = 0 ] && [ "$rc" != 0 ]; } || { [ "$neg" = 1 ] && [ "$rc" = 0 ]; }; then
    sed 's/^/    | /' "$tmp/out.txt" | tail -n 20
    echo "FAIL: $way: configure exit $rc"
    fail=1
  elif ! tr -s ' \n' ' ' <"$tmp/out.txt" | grep -qF -- "$want"; then
    sed 's/^/    | /' "$tmp/out.txt" | tail -n 20
    echo "FAIL: $way: no \"$want\" in CMake's output"
    fail=1
  else
    local how=found; [ "$neg" = 1 ] && how=stopped
    echo "ok: $way ($how): $want"
  fi
}
configure root "found through HDF5_ROOT=$p: $p/lib/libhdf5.so" "-DHDF5_ROOT=$p"
configure root "found through HDF5_ROOT=$p (environment)" "HDF5_ROOT=$p"
configure root "found through CMAKE_PREFIX_PATH entry $p" "-DCMAKE_PREFIX_PATH=$p"
configure config "found through HDF5 CMake package $p/cmake" "-DHDF5_DIR=$p/cmake"
configure pkgconfig "found through pkg-config hdf5 (1.14" "PKG_CONFIG_PATH=$p/lib/pkgconfig"
configure h5cc "found through $p/bin/h5cc" "PATH=$p/bin:$PATH"
# nothing usable where it was told to look: configuring stops, naming what it found there
configure root "!HDF5_ROOT=$tmp/none: no HDF5 headers (H5public.h) there" "-DHDF5_ROOT=$tmp/none"
mkdir -p "$tmp/headers-only/include"
cp "$p"/include/H5*.h "$tmp/headers-only/include/"
configure root "!HDF5_ROOT=$tmp/headers-only: HDF5 1.14.6 headers at $tmp/headers-only/include, but no libhdf5 found" \
  "-DHDF5_ROOT=$tmp/headers-only"
rm "$tmp/headers-only/include/H5VLconnector.h"
configure root "!has no VOL connector headers (H5VLconnector.h)" "-DHDF5_ROOT=$tmp/headers-only"
# an HDF5_ROOT that will not do stops the search, though another HDF5 is to be found elsewhere
configure "root;config;pkgconfig;h5cc;system" "!not found where HDF5_ROOT says" "-DHDF5_ROOT=$tmp/headers-only" \
  "-DCMAKE_PREFIX_PATH=$p" "PKG_CONFIG_PATH=$p/lib/pkgconfig"
[ "$fail" = 0 ] || { echo "FAIL: find_hdf5"; exit 1; }
echo "find_hdf5: ok"
