#!/usr/bin/env bash
# h5py's own test suite (`pytest --pyargs h5py`, h5py built against the project's HDF5 in
# the test environment) through the connector, twice: as is, and with the preload library
# (LD_PRELOAD, vol_connector/preload/), which serves the deprecated calls HDF5 refuses for a
# store (group listing, visits, old-style object info and references). Each run must go to
# its end (pytest exits 0 or 1, no signal, no "Fatal Python error"); the first must pass at
# least NCZARR_H5PY_MIN_PASSED tests (674 pass today, natively 853: docs/python.md groups the
# failures by cause), the second NCZARR_H5PY_PRELOAD_GAIN more (42 today: 716), and no test
# that passes without the preload may fail with it. It crashed twice before (an error stack
# HDF5 left half cleared after its deprecated reference calls refused a store; a failed close
# that freed a handle HDF5 kept).
set -uo pipefail
: "${NCZARR_ZARR3_PYTHON:?}" "${NCZARR_BUILD:?}"
min=${NCZARR_H5PY_MIN_PASSED:-674}
gain=${NCZARR_H5PY_PRELOAD_GAIN:-42}
pre=$NCZARR_BUILD/vol_connector/preload/libnczarr_preload.so
tmp=$(mktemp -d "${TMPDIR:-/tmp}/nczarr-h5pysuite.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
# through the connector: the test environment's interpreter (in the ThreadSanitizer build,
# a wrapper that preloads its runtime, which bash itself cannot run under)
py=${NCZARR_CONNECTOR_PYTHON:-$NCZARR_ZARR3_PYTHON}
# with the preload: the interpreter itself, the preload after the sanitizer runtimes it was
# built with (a sanitizer build's), which must be the first libraries loaded
# (ldd without the runtimes a sanitizer build preloads: it would not list them again)
rt=$(LD_PRELOAD='' ldd "$pre" 2>/dev/null | awk '$1 ~ /^lib(a|ub|t)san\.so/ {printf "%s ", $3}')
# HDF5 1.14.6 reads fixed-length strings with strlen past their end in places (its h5diff
# does): the sanitizers' strlen check stays off, as in the other tools' tests
if [ -n "${ASAN_OPTIONS:-}" ]; then export ASAN_OPTIONS="$ASAN_OPTIONS:intercept_strlen=0"; fi
if [ -n "${TSAN_OPTIONS:-}" ]; then export TSAN_OPTIONS="$TSAN_OPTIONS:intercept_strlen=0"; fi
[ -f "$pre" ] || { echo "FAIL: $pre is not built"; exit 1; }
cd "$tmp" || exit 1
# the suite's files must go through the connector (HDF5 falls back to native HDF5, silently,
# when the plugin does not load): a file h5py creates is a store
"$py" -c 'import h5py, sys; h5py.File(sys.argv[1], "w").close()' "$tmp/probe.zarr" &&
  [ -f "$tmp/probe.zarr/.zgroup" ] ||
  { echo "FAIL: h5py did not write a store: the connector did not load"; exit 1; }

status=0
# suite NAME LABEL CMD...: runs the suite with CMD as the interpreter; sets passed and
# writes $tmp/NAME.failed, the tests that failed
suite() {
  local name=$1 label=$2 rc summary
  shift 2
  mkdir -p "$tmp/$name" && cd "$tmp/$name" || exit 1
  COLUMNS=300 timeout 1200 "$@" -m pytest --pyargs h5py -q -p no:cacheprovider --tb=no -rfE \
    -o cache_dir="$tmp/$name/.pytest_cache" >"$tmp/$name.log" 2>&1
  rc=$?
  cd "$tmp" || exit 1
  summary=$(grep -E '[0-9]+ passed' "$tmp/$name.log" | tail -n 1)
  passed=$(echo "$summary" | sed -n 's/.* \([0-9][0-9]*\) passed.*/\1/p; s/^\([0-9][0-9]*\) passed.*/\1/p' | head -n 1)
  echo "h5py's suite, $label: ${summary:-no summary} (exit $rc)"
  grep -E '^(FAILED|ERROR) ' "$tmp/$name.log" | sed 's/ - .*//' | sort >"$tmp/$name.failed"
  if [ "$rc" -gt 1 ] || grep -q 'Fatal Python error' "$tmp/$name.log"; then
    tail -n 40 "$tmp/$name.log" | sed 's/^/    | /'
    echo "FAIL: h5py's suite did not run to its end, $label (exit $rc)"
    status=1
  fi
}

suite plain "through the connector, without the preload" "$py"
base=${passed:-0}
if [ -z "$passed" ] || [ "$passed" -lt "$min" ]; then
  echo "FAIL: ${passed:-no} tests passed, fewer than $min"
  status=1
fi
suite preload "through the connector, with the preload" env LD_PRELOAD="${LD_PRELOAD:+$LD_PRELOAD }$rt$pre" "$NCZARR_ZARR3_PYTHON"
if [ -z "$passed" ] || [ "$passed" -lt $((base + gain)) ]; then
  echo "FAIL: with the preload ${passed:-no} tests passed, fewer than $base + $gain"
  status=1
fi
lost=$(comm -13 "$tmp/plain.failed" "$tmp/preload.failed")
if [ -n "$lost" ]; then
  echo "$lost" | sed 's/^/    | /'
  echo "FAIL: tests that pass without the preload fail with it"
  status=1
fi
echo "the preload makes $(comm -23 "$tmp/plain.failed" "$tmp/preload.failed" | wc -l) more tests pass"
# Native files through the preload: with no connector the suite gives the same results with
# and without it (the preload hands native objects to HDF5's own calls). In the normal build
# only: nothing of the connector runs there, and the sanitizers would only slow it.
if [ -z "${NCZARR_SANITIZER:-}" ]; then
  nat=(env -u HDF5_VOL_CONNECTOR -u HDF5_PLUGIN_PATH)
  suite native "natively" "${nat[@]}" LD_PRELOAD= "$NCZARR_ZARR3_PYTHON"
  native_passed=${passed:-none}
  suite native_preload "natively, with the preload" "${nat[@]}" LD_PRELOAD="$pre" "$NCZARR_ZARR3_PYTHON"
  if [ "${passed:-none}" != "$native_passed" ] || ! cmp -s "$tmp/native.failed" "$tmp/native_preload.failed"; then
    diff "$tmp/native.failed" "$tmp/native_preload.failed" | sed 's/^/    | /'
    echo "FAIL: natively, the preload changes h5py's results ($native_passed passed without it, ${passed:-none} with it)"
    status=1
  else
    echo "natively, the preload changes nothing: $native_passed passed either way, the same tests failed"
  fi
fi
exit $status
