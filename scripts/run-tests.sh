#!/usr/bin/env bash
# Sets up everything and runs the whole test suite three times: a normal build, an
# AddressSanitizer + UBSan build, and a ThreadSanitizer build (the chunk pipeline runs
# codecs and store I/O on worker threads); the distribution stage (test/distro/run.sh: the
# connector built and used in a Debian trixie root, with the HDF5 and tools it ships); a
# clang build with warnings as errors; libFuzzer targets (test/fuzz/); and the MPI tests, in builds against the
# parallel stack (VOL_NCZARR_STACK=mpi: HDF5 and netCDF-C built with OpenMPI, cached in
# ~/.cache/vol-nczarr/deps-mpi), normal and with AddressSanitizer + UBSan. Exits non-zero
# if anything fails.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
jobs=$(nproc)
prefix=$("$root/scripts/build.sh" "$root/build" | tail -n 1)
# The S3 tests' server: packages and the prepared cluster template, once for all builds.
# Each build's ctest starts its own server (fixture s3.server_start, in BUILD/s3-server) and
# stops it; on an interruption, what is still running under a build dir is stopped here.
"$root/scripts/s3-server.sh" setup
stop_s3_servers() {
  local d
  for d in "$root"/build*/s3-server "$root"/build*/s3-server-faults; do
    [ -d "$d" ] && "$root/scripts/s3-server.sh" stop "$d" || true
  done
}
trap stop_s3_servers EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
print_api() { # HDF5's API suite: counts per category and the failed tests by name
  [ -d "$1/api-results" ] && { echo "-- HDF5 API test suite through the connector --"; cat "$1"/api-results/*.txt; } || true
}
echo "== tests (RelWithDebInfo) =="
rm -rf "$root/build/api-results"
ctest --test-dir "$root/build" --output-on-failure -j "$jobs" --timeout 900 || { print_api "$root/build"; exit 1; }
print_api "$root/build"
# The connector against what a distribution ships: built by README's plain command in a
# Debian trixie root (scripts/setup-distro.sh, made once and cached), then trixie's HDF5
# tools, netCDF-C, NCO, CDO, GDAL, Python and Fortran programs write through it
# (test/distro/run.sh; a few minutes once the root is cached).
echo "== distribution (Debian trixie: its HDF5 and tools) =="
"$root/test/distro/run.sh"
# Warnings are errors with clang too (gcc 12 builds above, gcc 14 in the trixie root).
echo "== clang build (warnings are errors) =="
"$root/scripts/build.sh" "$root/build-clang" -DCMAKE_C_COMPILER=clang >/dev/null
echo "== MPI tests (parallel HDF5 and netCDF-C, OpenMPI, 4 ranks) =="
VOL_NCZARR_STACK=mpi "$root/scripts/build.sh" "$root/build-mpi" >/dev/null
ctest --test-dir "$root/build-mpi" --output-on-failure -L mpi --timeout 900
if [ "${NCZARR_SKIP_SANITIZE:-0}" != 1 ]; then
  "$root/scripts/build.sh" "$root/build-asan" -DNCZARR_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug >/dev/null
  echo "== tests (AddressSanitizer + UBSan) =="
  ctest --test-dir "$root/build-asan" --output-on-failure -j "$jobs" --timeout 900
  VOL_NCZARR_STACK=mpi "$root/scripts/build.sh" "$root/build-mpi-asan" -DNCZARR_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug >/dev/null
  echo "== MPI tests (AddressSanitizer + UBSan) =="
  ctest --test-dir "$root/build-mpi-asan" --output-on-failure -L mpi --timeout 900
  "$root/scripts/build.sh" "$root/build-tsan" -DNCZARR_SANITIZE=thread >/dev/null
  echo "== tests (ThreadSanitizer) =="
  # A preloaded TSan runtime (gcc 12's) once died in CI mapping a shadow larger than the
  # address space ("failed to allocate 0x1ec400000c000 bytes", errno 12), never seen here:
  # the address layout, which randomisation changes each run, is the likely cause. The
  # tests run with randomisation off, which their children inherit, so every run has the
  # one layout that passes here.
  norandom=()
  if setarch "$(uname -m)" -R true 2>/dev/null; then norandom=(setarch "$(uname -m)" -R); fi
  "${norandom[@]}" ctest --test-dir "$root/build-tsan" --output-on-failure -j "$jobs" --timeout 900
fi
# Coverage-guided fuzzing (libFuzzer, clang-16, AddressSanitizer + UBSan) of every parser that
# reads what a store holds (test/fuzz/, docs/fuzzing.md): each target replays its committed
# corpus, every past crash included, then fuzzes for NCZARR_FUZZ_SECONDS (default 30).
"$root/scripts/build.sh" "$root/build-fuzz" -DCMAKE_C_COMPILER=clang-16 -DNCZARR_FUZZ=ON -DNCZARR_BUILD_TESTS=OFF >/dev/null
echo "== fuzzing (libFuzzer: corpora replayed, then ${NCZARR_FUZZ_SECONDS:-30} s a target) =="
"$root/test/fuzz/run.sh" --build "$root/build-fuzz" --time "${NCZARR_FUZZ_SECONDS:-30}"
