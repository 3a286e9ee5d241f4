#!/usr/bin/env bash
# Line coverage of translate/ and zmap/ reached by the fuzz targets' committed corpora: a
# build with -DNCZARR_FUZZ=ON -DNCZARR_FUZZ_COVERAGE=ON (clang's source coverage), each
# target run once over its corpus, the profiles merged (llvm-profdata-16) and reported per
# file (llvm-cov-16): lines, lines covered and the percentage, the connector plugin and the
# targets' own objects together.
#   test/fuzz/coverage.sh [--build DIR] [TARGET...]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build="$root/build-fuzzcov"; targets=()
while [ $# -gt 0 ]; do
  case "$1" in
    --build) build=$2; shift 2 ;;
    *) targets+=("$1"); shift ;;
  esac
done
if [ ${#targets[@]} -eq 0 ]; then
  for f in "$here"/fuzz_*.c; do t=$(basename "$f" .c); targets+=("${t#fuzz_}"); done
fi
"$root/scripts/build.sh" "$build" -DCMAKE_C_COMPILER=clang-16 -DNCZARR_FUZZ=ON -DNCZARR_FUZZ_COVERAGE=ON \
  -DNCZARR_BUILD_TESTS=OFF >/dev/null
prof="$build/fuzz-cov"
rm -rf "$prof"; mkdir -p "$prof"
export ASAN_OPTIONS=detect_leaks=0:allocator_may_return_null=1:detect_odr_violation=0
export TMPDIR=${NCZARR_FUZZ_TMP:-/dev/shm}
objs=()
for t in "${targets[@]}"; do
  exe="$build/test/fuzz/fuzz_$t"
  LLVM_PROFILE_FILE="$prof/$t-%p.profraw" "$exe" -runs=0 -rss_limit_mb=1024 -malloc_limit_mb=1024 -timeout=10 \
    "$here/corpus/$t" >"$prof/$t.log" 2>&1 || { echo "coverage: $t failed on its corpus ($prof/$t.log)" >&2; exit 1; }
  objs+=(-object "$exe")
done
llvm-profdata-16 merge -sparse -o "$prof/all.profdata" "$prof"/*.profraw
# the plugin (loaded by fuzz_store) holds the connector's code
plugin=$(find "$build/vol_connector" -maxdepth 1 -name 'libnczarr_vol.so' | head -n 1)
llvm-cov-16 report -instr-profile="$prof/all.profdata" "$plugin" "${objs[@]}" \
  "$root/translate" "$root/zmap" 2>/dev/null |
  awk -v root="$root/" 'NR > 2 && $1 !~ /^-/ { f = $1; sub(root, "", f);
      if ($1 == "TOTAL") f = "TOTAL";
      printf "%-42s %6d lines %6d covered %7s\n", f, $8, $8 - $9, $10 }'
