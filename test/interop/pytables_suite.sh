#!/usr/bin/env bash
# PyTables' own test suite (PyTables 3.11.1 built against the project's HDF5 in the test
# environment), a part of it that runs in under a minute natively on two cores (the whole
# takes over ten: test_tables and test_earray alone take minutes), twice: natively, and through
# the connector with the option "zip" (PyTables opens regular files only, so its temporary
# .h5 files must be zip stores) and the preload library (PyTables lists groups with HDF5's
# deprecated calls). pytables_suite.py runs each module's suite() as PyTables' test_all does.
# Both runs must go to their end (no signal, no "Fatal Python error"); natively no test may
# fail and at least NCZARR_PYTABLES_NATIVE_PASSED must pass (2637 today); through the
# connector at least NCZARR_PYTABLES_MIN_PASSED (2446 pass today; one run of eight passed one fewer,
# the extra failure not identified: a margin; docs/python.md groups the failures by
# cause, and a run under the floor lists the failing tests), and the files the suite wrote
# and closed must be zip archives (HDF5 falls back to native HDF5 silently when the
# connector does not load).
set -euo pipefail
: "${NCZARR_ZARR3_PYTHON:?}" "${NCZARR_BUILD:?}"
here=$(cd "$(dirname "$0")" && pwd)
native_min=${NCZARR_PYTABLES_NATIVE_PASSED:-2637}
min=${NCZARR_PYTABLES_MIN_PASSED:-2440}
min_zip=${NCZARR_PYTABLES_MIN_ZIP:-4000}
modules=${NCZARR_PYTABLES_MODULES:-"test_basics test_attributes test_array test_create test_carray test_vlarray test_types
  test_enum test_nestedtypes test_links test_tree test_do_undo test_hdf5compat test_backcompat
  test_timetype test_lists test_direct_chunk test_numpy test_tablesMD test_expression
  test_index_backcompat"}
pre=$NCZARR_BUILD/vol_connector/preload/libnczarr_preload.so
runner=$here/pytables_suite.py
py=$NCZARR_ZARR3_PYTHON
tmp=$(mktemp -d "${TMPDIR:-/tmp}/nczarr-tablessuite.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
[ -f "$pre" ] || { echo "FAIL: $pre is not built"; exit 1; }
# the preload after the sanitizer runtimes it was built with (a sanitizer build's), which
# must be the first libraries loaded (ldd without the runtimes a sanitizer build preloads:
# it would not list them again)
rt=$(LD_PRELOAD='' ldd "$pre" 2>/dev/null | awk '$1 ~ /^lib(a|ub|t)san\.so/ {printf "%s ", $3}')
# HDF5 1.14.6 reads fixed-length strings with strlen past their end in places (its h5diff
# does): the sanitizers' strlen check stays off, as in the other tools' tests
if [ -n "${ASAN_OPTIONS:-}" ]; then export ASAN_OPTIONS="$ASAN_OPTIONS:intercept_strlen=0"; fi
if [ -n "${TSAN_OPTIONS:-}" ]; then export TSAN_OPTIONS="$TSAN_OPTIONS:intercept_strlen=0"; fi
# natively: no connector, no preload, no sanitizer runtime (nothing instrumented is loaded)
native=(env -u HDF5_VOL_CONNECTOR -u HDF5_PLUGIN_PATH LD_PRELOAD=)
# through the connector: a plain name is a zip store (PyTables' temporary files are .h5)
connector=(env HDF5_VOL_CONNECTOR="nczarr zip" LD_PRELOAD="${LD_PRELOAD:+$LD_PRELOAD }$rt$pre")

# the suite's files go through the connector: a file PyTables creates in a temporary folder
# (as the suite's files are, by tempfile) is a zip archive
mkdir -p "$tmp/probe"
TMPDIR=$tmp/probe "${connector[@]}" "$py" -c 'import tables, tempfile; tables.open_file(tempfile.mktemp(suffix=".h5"), "w").close()'
probe=$(ls "$tmp/probe"/*.h5)
[ "$(head -c 4 "$probe" | od -An -tx1 | tr -d ' ')" = 504b0304 ] ||
  { echo "FAIL: PyTables did not write a zip store ($probe): the connector did not load"; exit 1; }

status=0
# suite NAME LABEL CMD...: runs the modules with CMD before the interpreter (an env), its
# temporary files in its own folder; sets passed and failures; writes $tmp/NAME.failed
suite() {
  local name=$1 label=$2 rc=0 total
  shift 2
  mkdir -p "$tmp/$name.tmp"
  # shellcheck disable=SC2086 # the module names are words
  TMPDIR=$tmp/$name.tmp timeout 1500 "$@" "$py" "$runner" "$tmp/$name" $modules >"$tmp/$name.log" 2>&1 || rc=$?
  total=$(grep '^total: ' "$tmp/$name.log" | tail -n 1 || true)
  passed=$(echo "$total" | sed -n 's/.* passed=\([0-9]*\).*/\1/p')
  failures=$(echo "$total" | sed -n 's/.* failed=\([0-9]*\) errors=\([0-9]*\).*/\1 + \2/p')
  echo "PyTables' suite, $label: ${total:-no summary} (exit $rc)"
  if [ "$rc" != 0 ] || [ -z "$total" ] || grep -q 'Fatal Python error' "$tmp/$name.log"; then
    tail -n 40 "$tmp/$name.log" | sed 's/^/    | /'
    echo "FAIL: PyTables' suite did not run to its end, $label (exit $rc)"
    status=1
  fi
}

suite native natively "${native[@]}"
if [ -z "$passed" ] || [ "$passed" -lt "$native_min" ] || [ "$((failures))" != 0 ]; then
  sed 's/^/    | /' "$tmp/native.failed"
  echo "FAIL: natively ${passed:-no} tests passed (at least $native_min expected) and ${failures:-?} failed (none expected)"
  status=1
fi
native_passed=${passed:-0}
suite conn "through the connector (option zip, with the preload)" "${connector[@]}"
kinds=$(head -n 1 "$tmp/conn.files" 2>/dev/null || true)
zip=$(echo "$kinds" | sed -n 's/.*zip=\([0-9]*\).*/\1/p')
echo "files the suite wrote and closed through the connector: ${kinds:-none recorded}"
if [ -z "$zip" ] || [ "$zip" -lt "$min_zip" ]; then
  echo "FAIL: ${zip:-no} zip stores among the suite's files, fewer than $min_zip"
  status=1
fi
if [ -z "$passed" ] || [ "$passed" -lt "$min" ]; then
  sed 's/^/    | /' "$tmp/conn.failed"
  echo "FAIL: through the connector ${passed:-no} tests passed, fewer than $min"
  status=1
fi
# by module, what fails through the connector (docs/python.md says why)
if [ -s "$tmp/conn.failed" ]; then
  echo "failing through the connector, by module:"
  awk '{split($2, p, "."); n[p[1]]++} END {for (m in n) printf "    %s %d\n", m, n[m]}' "$tmp/conn.failed" | sort
fi
conn_passed=${passed:-no}
# Native files through the preload: the same results with and without it (the preload hands
# native objects to HDF5's own calls). In the normal build only: nothing of the connector
# runs there.
if [ -z "${NCZARR_SANITIZER:-}" ]; then
  suite native_preload "natively, with the preload" env -u HDF5_VOL_CONNECTOR -u HDF5_PLUGIN_PATH LD_PRELOAD="$pre"
  if [ "${passed:-none}" != "$native_passed" ] || ! cmp -s "$tmp/native.failed" "$tmp/native_preload.failed"; then
    diff "$tmp/native.failed" "$tmp/native_preload.failed" | sed 's/^/    | /'
    echo "FAIL: natively, the preload changes PyTables' results ($native_passed passed without it, ${passed:-none} with it)"
    status=1
  else
    echo "natively, the preload changes nothing: $native_passed passed either way"
  fi
fi
echo "pytables_suite: natively $native_passed passed, through the connector $conn_passed (at least $min)"
exit $status
