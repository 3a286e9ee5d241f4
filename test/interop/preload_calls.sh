#!/usr/bin/env bash
# interop.preload_calls: every call the preload library serves (vol_connector/preload/:
# H5Literate1, H5Lget_info1, H5Lvisit1, H5Oget_info1/2, H5Ovisit1/2, H5Oopen_by_addr,
# H5Rcreate, H5Rdereference1/2, H5Rget_obj_type1/2, H5Rget_name; and H5Giterate and
# H5Aiterate1, which the connector itself serves; by name and by index where they have those
# forms), made by an old C program (preload_calls.c) on the same
# tree natively and as a store:
#  - a store through the connector with the preload answers every call as native HDF5
#    answers it for the .h5 file (the same transcript: names, types, counts, orders, the
#    index an iteration stops at, addresses that are the tokens and open their objects,
#    references that follow), and without the preload the calls fail (HDF5's refusal);
#  - the .h5 file with the preload, with or without the connector, gives exactly what it
#    gives without it (the preload forwards native objects to HDF5's own; the connector
#    reports the native connector as the terminal one of a native file it opens), region
#    references included;
#  - bad input on a store (a reference to a deleted object, a null one, an address that
#    names no object, region references, bad arguments, a closed file): each fails with its
#    message on HDF5's error stack, and nothing crashes.
# References kept in attributes and datasets are compared where the connector takes them
# (probed: old-style references in stores are being added).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../common/judge.sh"
: "${NCZARR_BUILD:?}"
bin=$NCZARR_BUILD/test/interop_preload_calls
pre=$NCZARR_BUILD/vol_connector/preload/libnczarr_preload.so
[ -x "$bin" ] && [ -f "$pre" ] || { echo "FAIL: $bin or $pre is not built"; exit 1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/nczarr-preload.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
# The preload after the sanitizer runtimes it was built with (a sanitizer build's): those must
# be the first libraries loaded, before anything that uses them (ldd without the runtimes a
# sanitizer build preloads, which it would not list again).
rt=$(LD_PRELOAD='' ldd "$pre" | awk '$1 ~ /^lib(a|ub|t)san\.so/ {printf "%s ", $3}')
with_pre() { LD_PRELOAD="${LD_PRELOAD:+$LD_PRELOAD }$rt$pre" "$@"; }
native_pre() { env -u HDF5_VOL_CONNECTOR HDF5_PLUGIN_PATH="$NCZARR_PREFIX/lib/plugin" LD_PRELOAD="$rt$pre" "$@"; }
status=0
fail() {
  echo "FAIL: $*"
  status=1
}
# read FILE LOG WANT -- CMD...: the transcript of CMD read FILE on stdout; LOG must say the
# preload was loaded (WANT=loaded) or not (absent)
expect_preload() {
  grep -qx "preload: $2" "$1" || fail "$3: the preload was not $2 ($(head -n 1 "$1"))"
}

probed=$(with_pre "$bin" probe "$tmp/probe.zarr") || { echo "FAIL: probing the connector"; exit 1; }
read -r -a refs <<<"$probed"
assert_store "$tmp/probe.zarr" "probe" || exit 1
echo "old-style references the connector keeps: ${probed:-none} (attr: attributes, dset: datasets)"

nc_native "$bin" write "$tmp/native.h5" || { echo "FAIL: writing natively"; exit 1; }
nc_native "$bin" read "$tmp/native.h5" "${refs[@]}" >"$tmp/native.txt" 2>"$tmp/native.err" ||
  { cat "$tmp/native.err"; echo "FAIL: reading natively"; exit 1; }
expect_preload "$tmp/native.err" absent "native"

# native, with the preload in the process: exactly the same
native_pre "$bin" read "$tmp/native.h5" "${refs[@]}" >"$tmp/native_pre.txt" 2>"$tmp/native_pre.err" ||
  fail "reading natively with the preload"
expect_preload "$tmp/native_pre.err" loaded "native with the preload"
cmp -s "$tmp/native.txt" "$tmp/native_pre.txt" ||
  { diff "$tmp/native.txt" "$tmp/native_pre.txt" | head -n 20; fail "native HDF5 answers otherwise with the preload"; }

# the store, through the connector with the preload: what native HDF5 answers
with_pre "$bin" write "$tmp/store.zarr" || fail "writing the store"
assert_store "$tmp/store.zarr" "preload_calls write" || exit 1
with_pre "$bin" read "$tmp/store.zarr" "${refs[@]}" >"$tmp/store.txt" 2>"$tmp/store.err" ||
  { cat "$tmp/store.err"; fail "reading the store with the preload"; }
expect_preload "$tmp/store.err" loaded "the store with the preload"
diff "$tmp/native.txt" "$tmp/store.txt" >"$tmp/store.diff" ||
  { head -n 40 "$tmp/store.diff"; fail "the store answers otherwise than the native file"; }
echo "the store answers $(wc -l <"$tmp/store.txt") lines as the native file does"

# ... and without it, HDF5 refuses the calls (what the preload is for)
"$bin" read "$tmp/store.zarr" "${refs[@]}" >"$tmp/nopre.txt" 2>"$tmp/nopre.err" || true
expect_preload "$tmp/nopre.err" absent "the store without the preload"
grep -qx "H5Literate1 / name inc: -1" "$tmp/nopre.txt" && grep -q "H5Rcreate a/y: failed" "$tmp/nopre.txt" ||
  fail "without the preload, H5Literate1 and H5Rcreate should fail on a store"

# the native file through the connector, with the preload: HDF5's own answers
with_pre "$bin" read "$tmp/native.h5" "${refs[@]}" >"$tmp/conn_h5.txt" 2>"$tmp/conn_h5.err" ||
  fail "reading the native file through the connector with the preload"
expect_preload "$tmp/conn_h5.err" loaded "the native file through the connector"
cmp -s "$tmp/native.txt" "$tmp/conn_h5.txt" ||
  {
    diff "$tmp/native.txt" "$tmp/conn_h5.txt" | head -n 20
    fail "the native file answers otherwise through the connector"
  }

# region references of the native file: HDF5's own, whoever is in the process
for run in nc_native native_pre with_pre; do
  "$run" "$bin" region "$tmp/native.h5" >"$tmp/region.$run" 2>&1 ||
    { cat "$tmp/region.$run"; fail "$run: region references"; }
done
cat "$tmp/region.nc_native"
cmp -s "$tmp/region.nc_native" "$tmp/region.native_pre" && cmp -s "$tmp/region.nc_native" "$tmp/region.with_pre" ||
  fail "region references of a native file differ with the preload"

# bad input on the store
if with_pre "$bin" bad "$tmp/store.zarr" >"$tmp/bad.txt" 2>"$tmp/bad.err"; then
  cat "$tmp/bad.txt"
else
  rc=$?
  cat "$tmp/bad.txt"
  tail -n 20 "$tmp/bad.err" | sed 's/^/    | /'
  fail "bad input (exit $rc)"
fi
[ "$status" -eq 0 ] || { echo "FAIL: preload_calls"; exit 1; }
echo "preload_calls: ok"
