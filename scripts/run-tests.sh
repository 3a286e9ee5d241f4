#!/usr/bin/env bash
# Sets up everything and runs the whole test suite three times: a normal build, an
# AddressSanitizer + UBSan build, and a ThreadSanitizer build (the chunk pipeline runs
# codecs and store I/O on worker threads). Exits non-zero if anything fails.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
jobs=$(nproc)
prefix=$("$root/scripts/build.sh" "$root/build" | tail -n 1)
print_api() { # HDF5's API suite: counts per category and the failed tests by name
  [ -d "$1/api-results" ] && { echo "-- HDF5 API test suite through the connector --"; cat "$1"/api-results/*.txt; } || true
}
echo "== tests (RelWithDebInfo) =="
rm -rf "$root/build/api-results"
ctest --test-dir "$root/build" --output-on-failure -j "$jobs" --timeout 900 || { print_api "$root/build"; exit 1; }
print_api "$root/build"
if [ "${NCZARR_SKIP_SANITIZE:-0}" != 1 ]; then
  "$root/scripts/build.sh" "$root/build-asan" -DNCZARR_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug >/dev/null
  echo "== tests (AddressSanitizer + UBSan) =="
  ctest --test-dir "$root/build-asan" --output-on-failure -j "$jobs" --timeout 900
  "$root/scripts/build.sh" "$root/build-tsan" -DNCZARR_SANITIZE=thread >/dev/null
  echo "== tests (ThreadSanitizer) =="
  ctest --test-dir "$root/build-tsan" --output-on-failure -j "$jobs" --timeout 900
fi
