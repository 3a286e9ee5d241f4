#!/usr/bin/env bash
# interop.preload_h5py: h5py (built with H5_USE_110_API, so its group listing, visits, "a/b"
# in a group, get(getclass/getlink) and object references are HDF5's deprecated calls) on a
# store through the connector with the preload library (LD_PRELOAD, vol_connector/preload/)
# answers as it does natively on an .h5 file of the same tree (preload_h5py.py read: the same
# lines), where without the preload HDF5 refuses those calls; the .h5 file with the preload,
# with and without the connector, reads exactly as without it (addresses included: the
# preload forwards native objects to HDF5's own); region references of the native file work
# in all three; and on the store, bad input (a reference to a deleted object, an address that
# names no object, a region reference, a closed file) raises a clear error, no crash.
# References kept in attributes and datasets are compared where the connector takes them
# (probed: old-style references in stores are being added).
set -euo pipefail
: "${NCZARR_ZARR3_PYTHON:?}" "${NCZARR_BUILD:?}"
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../common/judge.sh"
pre=$NCZARR_BUILD/vol_connector/preload/libnczarr_preload.so
[ -f "$pre" ] || { echo "FAIL: $pre is not built"; exit 1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/nczarr-preh5py.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
s=$here/preload_h5py.py
py=$NCZARR_ZARR3_PYTHON
# through the connector without the preload: the interpreter of the build (in the
# ThreadSanitizer build, a wrapper that preloads its runtime, and only that)
cpy=${NCZARR_CONNECTOR_PYTHON:-$py}
# With the preload: the test environment's interpreter itself, the preload after the
# sanitizer runtimes it was built with (a sanitizer build's), which must be loaded first.
# (ldd without the runtimes a sanitizer build preloads: it would not list them again)
rt=$(LD_PRELOAD='' ldd "$pre" | awk '$1 ~ /^lib(a|ub|t)san\.so/ {printf "%s ", $3}')
with_pre() { LD_PRELOAD="${LD_PRELOAD:+$LD_PRELOAD }$rt$pre" "$py" "$s" "$@"; }
native_pre() {
  env -u HDF5_VOL_CONNECTOR HDF5_PLUGIN_PATH="$NCZARR_PREFIX/lib/plugin" LD_PRELOAD="$rt$pre" "$py" "$s" "$@"
}
native() { nc_native "$py" "$s" "$@"; }
status=0
fail() {
  echo "FAIL: $*"
  status=1
}
# same A B WHAT: two transcripts agree past their first line, which says whether the
# preload was loaded: absent in A, loaded in B
same() {
  head -n 1 "$1" | grep -qx "preload: absent" || fail "$3: $(head -n 1 "$1") where the preload should be absent"
  head -n 1 "$2" | grep -qx "preload: loaded" || fail "$3: $(head -n 1 "$2") where the preload should be loaded"
  diff <(tail -n +2 "$1") <(tail -n +2 "$2") >"$tmp/diff" || { head -n 30 "$tmp/diff"; fail "$3"; }
}

probed=$(with_pre probe "$tmp/probe.zarr") || { echo "FAIL: probing the connector"; exit 1; }
read -r -a refs <<<"$probed"
assert_store "$tmp/probe.zarr" "probe" || exit 1
echo "object references the connector keeps: ${probed:-none} (attr: in attributes, dset: in datasets)"

native write "$tmp/native.h5" "${refs[@]}" || { echo "FAIL: h5py writes natively"; exit 1; }
native read "$tmp/native.h5" "${refs[@]}" >"$tmp/native.txt" || { echo "FAIL: h5py reads natively"; exit 1; }
native_pre read "$tmp/native.h5" "${refs[@]}" >"$tmp/native_pre.txt" || fail "h5py reads natively with the preload"
same "$tmp/native.txt" "$tmp/native_pre.txt" "native h5py reads otherwise with the preload"

with_pre write "$tmp/store.zarr" "${refs[@]}" || fail "h5py writes the store with the preload"
assert_store "$tmp/store.zarr" "preload_h5py write" || exit 1
with_pre read "$tmp/store.zarr" "${refs[@]}" >"$tmp/store.txt" || fail "h5py reads the store with the preload"
same "$tmp/native.txt" "$tmp/store.txt" "h5py reads the store otherwise than the native file"
echo "h5py reads the store as the native file: $(($(wc -l <"$tmp/store.txt") - 1)) lines alike"

# without the preload, HDF5 refuses h5py's listing of a store (what the preload is for)
if "$cpy" "$s" read "$tmp/store.zarr" "${refs[@]}" >"$tmp/nopre.txt" 2>&1; then
  fail "h5py listed a store without the preload: is HDF5 newer than 1.14's refusals? (preload_h5py.sh)"
else
  grep -q "only meant to be used with the native VOL connector" "$tmp/nopre.txt" ||
    { tail -n 5 "$tmp/nopre.txt"; fail "without the preload, h5py should meet HDF5's refusal"; }
fi

# the native file through the connector with the preload
with_pre read "$tmp/native.h5" "${refs[@]}" >"$tmp/conn_h5.txt" || fail "h5py reads the .h5 through the connector"
same "$tmp/native.txt" "$tmp/conn_h5.txt" "h5py reads the .h5 file otherwise through the connector"
# ... with the very addresses native HDF5 gives (the preload leaves native objects alone)
native addrs "$tmp/native.h5" >"$tmp/addrs.txt" || fail "addresses natively"
native_pre addrs "$tmp/native.h5" >"$tmp/addrs_pre.txt" || fail "addresses natively with the preload"
with_pre addrs "$tmp/native.h5" >"$tmp/addrs_conn.txt" || fail "addresses through the connector"
same "$tmp/addrs.txt" "$tmp/addrs_pre.txt" "native addresses differ with the preload"
same "$tmp/addrs.txt" "$tmp/addrs_conn.txt" "native addresses differ through the connector with the preload"

# region references of the native file: HDF5's own, whoever is in the process
for run in native native_pre with_pre; do
  "$run" region "$tmp/native.h5" >"$tmp/region.$run" 2>&1 || { cat "$tmp/region.$run"; fail "$run: region references"; }
done
cat "$tmp/region.native"
cmp -s "$tmp/region.native" "$tmp/region.native_pre" && cmp -s "$tmp/region.native" "$tmp/region.with_pre" ||
  fail "region references of a native file differ with the preload"

# bad input on the store
if with_pre bad "$tmp/store.zarr" >"$tmp/bad.txt" 2>&1; then
  cat "$tmp/bad.txt"
else
  rc=$?
  sed 's/^/    | /' "$tmp/bad.txt" | tail -n 30
  fail "bad input on a store (exit $rc)"
fi
[ "$status" -eq 0 ] || { echo "FAIL: preload_h5py"; exit 1; }
echo "preload_h5py: ok"
