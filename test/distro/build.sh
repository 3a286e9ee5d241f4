#!/usr/bin/env bash
# Section 1 (inside the root): the connector builds against the distribution's HDF5 the way
# README says, with no flags, and installs; and the HDF5 finder (cmake/NczarrFindHDF5.cmake)
# finds Debian's HDF5 each way alone, and refuses, naming what it met, an HDF5 that is too
# old (Debian 12's real 1.10.8) and an HDF5 1.14 without the VOL headers.
#   build.sh W   (the source is /src; W the work dir)
set -euo pipefail
W=$1 SECTION=build
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib.sh
. "$here/lib.sh"
cd /src
CMAKE_BUILD_PARALLEL_LEVEL=$(nproc) # the same commands, on every core
export CMAKE_BUILD_PARALLEL_LEVEL
serial=/usr/lib/$ARCH/hdf5/serial # Debian's HDF5 "prefix" (include is a link to the headers)
out=$W/build
mkdir -p "$out"

# found_line LOG: the finder's "HDF5 <ver> found through <how>: ..." line
found_line() { grep -m1 -o 'HDF5 [0-9.]* found through .*' "$1" || true; }
# warnings LOG: compiler warnings in a build log
warnings() { grep -E '(warning|error): ' "$1" | grep -v '^CMake Warning' || true; }

# build NAME EXPECTED-HOW CMAKE-ARGS...: configures build-NAME, builds, asserts the finder's
# line names EXPECTED-HOW (a prefix of what follows "found through") and 1.14.x.
build() {
  local name=$1 how=$2
  shift 2
  local log=$out/$name.log line
  rm -rf "build-$name"
  if ! cmake -S . -B "build-$name" "$@" >"$log" 2>&1 || ! cmake --build "build-$name" >>"$log" 2>&1; then
    fail "$name" "cmake $* failed: $(grep -m3 -E 'Error|error' "$log")"
    return 0
  fi
  line=$(found_line "$log")
  case "$line" in
    "HDF5 1.14."*" found through $how"*) ok "$name" "$line" ;;
    *) fail "$name" "expected 'HDF5 1.14.x found through $how', CMake said: '${line:-no found-through line}'" ;;
  esac
  local wn
  wn=$(warnings "$log")
  [ -z "$wn" ] || fail "$name-warnings" "gcc $(gcc -dumpfullversion) warns: $(echo "$wn" | head -n 3)"
}

# refuse NAME EXPECTED-TEXT... -- CMAKE-ARGS...: configuring must stop (FATAL_ERROR) with a
# message holding every EXPECTED-TEXT.
refuse() {
  local name=$1 log=$out/$1.log rc=0 want=()
  shift
  while [ "$1" != -- ]; do want+=("$1"); shift; done
  shift
  rm -rf "build-$name"
  cmake -S . -B "build-$name" "$@" >"$log" 2>&1 || rc=$?
  rm -rf "build-$name"
  local msg
  msg=$(sed -n '/CMake Error/,/^-- Configuring incomplete/p' "$log" | grep -v '^ *$' | tr -s ' ')
  if [ "$rc" = 0 ]; then fail "$name" "configured (rc 0) where it must stop: $(found_line "$log")"; return 0; fi
  grep -q 'CMake Error at cmake/NczarrFindHDF5.cmake' "$log" ||
    { fail "$name" "stopped, but not in the finder: $(echo "$msg" | head -n 3)"; return 0; }
  local w
  for w in "${want[@]}"; do
    grep -qF -- "$w" "$log" || { fail "$name" "message lacks '$w': $msg"; return 0; }
  done
  ok "$name" "refused: $(echo "$msg" | grep -E ' - |not found' | tr '\n' ' ')"
}

# 1. README's plain command, no flags, then install into the root's /usr/local
echo "-- plain build (cmake -S . -B build && cmake --build build), install"
rm -rf build
# what an earlier run installed must not stand in for this run's install
rm -rf /usr/local/lib/hdf5/plugin /usr/local/lib/"$ARCH"/hdf5/plugin /usr/local/lib/cmake/vol-nczarr \
  /usr/local/lib/"$ARCH"/cmake/vol-nczarr
log=$out/plain.log
if cmake -S . -B build >"$log" 2>&1 && cmake --build build >>"$log" 2>&1 && cmake --install build >>"$log" 2>&1; then
  line=$(found_line "$log")
  case "$line" in
    "HDF5 1.14."*) ok plain "$line" ;;
    *) fail plain "no 'HDF5 1.14.x found through' line: '$line'" ;;
  esac
  wn=$(warnings "$log")
  [ -z "$wn" ] || fail plain-warnings "gcc $(gcc -dumpfullversion) warns: $(echo "$wn" | head -n 3)"
  # GNUInstallDirs gives lib/ under /usr/local (Debian's multiarch libdir only under /usr)
  pd=""
  for d in /usr/local/lib/$ARCH/hdf5/plugin /usr/local/lib/hdf5/plugin; do
    [ -f "$d/libnczarr_vol.so" ] && pd=$d
  done
  if [ -n "$pd" ] && [ -f "$pd/libnczarr_netcdf_companion.so" ]; then
    echo "$pd" >"$W/plugin_dir"
    ok install "plugin in $pd: $(cd "$pd" && ls | tr '\n' ' ')"
    [ -f /usr/local/lib/libnczarr_preload.so ] && ok install-preload "/usr/local/lib/libnczarr_preload.so" ||
      fail install-preload "no /usr/local/lib/libnczarr_preload.so: $(find /usr/local -name 'libnczarr_preload*' | tr '\n' ' ')"
  else
    fail install "no libnczarr_vol.so (+ companion) in /usr/local/lib{/$ARCH,}/hdf5/plugin: $(find /usr/local -name 'libnczarr*' | tr '\n' ' ')"
  fi
else
  fail plain "$(grep -m5 -iE 'error' "$log" | tr '\n' ' ')"
fi

# 2. each way of finding HDF5 alone (the library only: the tests are the plain build's)
echo "-- HDF5 found each way alone"
noTests=(-DNCZARR_BUILD_TESTS=OFF)
build root "HDF5_ROOT=$serial" -DHDF5_ROOT="$serial" -DNCZARR_HDF5_METHODS=root "${noTests[@]}"
build pkgconfig "pkg-config hdf5" -DNCZARR_HDF5_METHODS=pkgconfig "${noTests[@]}"
build h5cc "/usr/bin/h5cc" -DNCZARR_HDF5_METHODS=h5cc "${noTests[@]}"
# configure only (nothing new to compile): the compiler's default paths alone; and Debian
# ships no HDF5 CMake package (hdf5-config.cmake), so "config" alone must find nothing
configure_only() { # NAME EXPECTED-HOW CMAKE-ARGS...
  local name=$1 how=$2 log=$out/$1.log line
  shift 2
  rm -rf "build-$name"
  cmake -S . -B "build-$name" "$@" >"$log" 2>&1 || true
  rm -rf "build-$name"
  line=$(found_line "$log")
  case "$line" in
    "HDF5 1.14."*" found through $how"*) ok "$name" "(configure) $line" ;;
    *) fail "$name" "expected 'HDF5 1.14.x found through $how': '${line:-$(grep -m2 -A2 'CMake Error' "$log")}'" ;;
  esac
}
configure_only system "the compiler's default paths" -DNCZARR_HDF5_METHODS=system "${noTests[@]}"
# gcc 14 here: -Werror must pass (every warning of this compiler is a failure)
build werror "" -DNCZARR_WERROR=ON "${noTests[@]}"

# 3. HDF5s it must refuse, naming the version found and where
echo "-- HDF5s the finder must refuse"
old=/opt/debian12-hdf5/usr/lib/$ARCH/hdf5/serial # Debian 12's libhdf5-dev, unpacked (setup-distro.sh)
refuse too-old "HDF5 1.10.8 at /opt/debian12-hdf5/" "is older than 1.14" "HDF5_ROOT=$old" -- \
  -DHDF5_ROOT="$old" -DNCZARR_HDF5_METHODS=root "${noTests[@]}"
# an HDF5 1.14 whose headers lack the VOL connector API (a copy of Debian's, less H5VLconnector.h)
nv=$W/hdf5-novol
rm -rf "$nv"
mkdir -p "$nv/lib"
cp -rL /usr/include/hdf5/serial "$nv/include"
rm "$nv/include/H5VLconnector.h"
cp -a /usr/lib/"$ARCH"/libhdf5_serial.so* /usr/lib/"$ARCH"/libhdf5_serial_hl.so* "$nv/lib/"
refuse no-vol-headers "HDF5 1.14.5 at $nv/include has no VOL connector headers (H5VLconnector.h)" -- \
  -DHDF5_ROOT="$nv" -DNCZARR_HDF5_METHODS=root "${noTests[@]}"
refuse config-none "looked in: config.  No HDF5 at" -- -DNCZARR_HDF5_METHODS=config "${noTests[@]}"

# a too-old HDF5_ROOT with the default ways: the search stops there, it does not take the
# system's HDF5 (pkg-config's) in place of the one the user named
refuse old-root-default "HDF5 1.10.8 at /opt/debian12-hdf5/" "not found where HDF5_ROOT says" -- \
  -DHDF5_ROOT="$old" "${noTests[@]}"
