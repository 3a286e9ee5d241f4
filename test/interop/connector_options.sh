#!/usr/bin/env bash
# The connector options (HDF5_VOL_CONNECTOR="nczarr <options>", netCDF-C's URL mode words):
# mode=zarr writes pure Zarr, noxarray drops _ARRAY_DIMENSIONS, consolidated writes
# .zmetadata (ignore-zmetadata reads around a stale one), zip stores work; real readers (zarr-python, ncdump, h5dump) read each result.
# A bad option is a clear error, not a silent fallback.
set -euo pipefail
: "${NCZARR_BUILD:?}" "${NCZARR_PREFIX:?}" "${NCZARR_ZARR3_PYTHON:?}"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/nczarr-opt.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
native=(env -u HDF5_VOL_CONNECTOR -u HDF5_PLUGIN_PATH LD_PRELOAD=)
write="$NCZARR_BUILD/examples/write_store"
# each check runs under zarr-python 2 (Debian's) and 3 (the pinned environment)
py() {
  local code p
  code=$(cat)
  for p in /usr/bin/python3 "$NCZARR_ZARR3_PYTHON"; do
    "${native[@]}" "$p" - "$@" <<<"$code" || { echo "FAIL: under $p"; exit 1; }
    echo "  $p: ok"
  done
}
# output to a file first: with pipefail, grep -q closing the pipe early fails the writer
shows() {
  local want=$1; shift
  "$@" >"$tmp/out.txt" 2>&1 || { echo "FAIL: $*"; cat "$tmp/out.txt"; exit 1; }
  grep -q -- "$want" "$tmp/out.txt" || { echo "FAIL: '$want' not in the output of $*"; cat "$tmp/out.txt"; exit 1; }
}

# mode=zarr: no NCZarr key anywhere, still read by zarr-python, ncdump (mode=zarr) and us
HDF5_VOL_CONNECTOR="nczarr mode=zarr" "$write" "$tmp/pure.zarr" >/dev/null
# native HDF5 (the silent fallback when the plugin does not load) would write a file
[ -f "$tmp/pure.zarr/.zgroup" ] || { echo "FAIL: not a Zarr store: the connector did not load"; exit 1; }
if grep -rl "_nczarr" "$tmp/pure.zarr" --include=.zattrs; then echo "FAIL: mode=zarr wrote _nczarr keys"; exit 1; fi
py "$tmp/pure.zarr" <<'PY'
import sys, zarr, numpy as np
g = zarr.open_group(sys.argv[1], mode="r")
assert g["temperature"][0, 0] == 270.5 and list(g["station/counts"][...]) == [3, 1, 4, 1, 5]
assert g["temperature"].attrs["_ARRAY_DIMENSIONS"] == ["_Anonymous_Dim_4", "_Anonymous_Dim_6"]
PY
shows "counts = 3, 1, 4, 1, 5" "${native[@]}" "$NCZARR_PREFIX/bin/ncdump" "file://$tmp/pure.zarr#mode=zarr,file"
shows "(0): 3, 1, 4, 1, 5" "$NCZARR_PREFIX/bin/h5dump" -d /station/counts "$tmp/pure.zarr"
echo "mode=zarr: ok"

# noxarray + consolidated
HDF5_VOL_CONNECTOR="nczarr noxarray,consolidated" "$write" "$tmp/cons.zarr" >/dev/null
if grep -rl "_ARRAY_DIMENSIONS" "$tmp/cons.zarr" --include=.zattrs; then echo "FAIL: noxarray wrote _ARRAY_DIMENSIONS"; exit 1; fi
py "$tmp/cons.zarr" <<'PY'
import sys, zarr
g = zarr.open_consolidated(sys.argv[1], mode="r")
assert g["temperature"][3, 5] == 293.5 and g["station"].attrs["station_id"] == 7
PY
shows "station_id = 7" "${native[@]}" "$NCZARR_PREFIX/bin/ncdump" "file://$tmp/cons.zarr#mode=nczarr,file"
echo "noxarray, consolidated: ok"

# ignore-zmetadata: a stale .zmetadata (another tool changed .zattrs behind it) is what a
# plain open shows; with the option the metadata objects themselves are read
"${native[@]}" /usr/bin/python3 - "$tmp/cons.zarr" <<'PY'
import json, sys
p = sys.argv[1] + "/station/.zattrs"
a = json.load(open(p))
a["station_id"] = 99
json.dump(a, open(p, "w"))
PY
shows "(0): 7" "$NCZARR_PREFIX/bin/h5dump" -a /station/station_id "$tmp/cons.zarr"
HDF5_VOL_CONNECTOR="nczarr ignore-zmetadata" shows "(0): 99" "$NCZARR_PREFIX/bin/h5dump" -a /station/station_id "$tmp/cons.zarr"
echo "ignore-zmetadata: ok"

# a zip store (netCDF-C's layout: keys under a folder named after the file)
"$write" "$tmp/zipped.zip" >/dev/null
shows " zipped/.zgroup" unzip -l "$tmp/zipped.zip"
shows "counts = 3, 1, 4, 1, 5" "${native[@]}" "$NCZARR_PREFIX/bin/ncdump" "file://$tmp/zipped.zip#mode=nczarr,zip"
shows "293.5" "$NCZARR_PREFIX/bin/h5dump" -d /temperature "$tmp/zipped.zip"
HDF5_VOL_CONNECTOR="nczarr zip-root" "$write" "$tmp/root.zip" >/dev/null
py "$tmp/root.zip" <<'PY'
import sys, zarr
ZipStore = zarr.ZipStore if zarr.__version__.startswith("2.") else zarr.storage.ZipStore
with ZipStore(sys.argv[1], mode="r") as s:
    g = zarr.open_group(s, mode="r")
    assert list(g["station/counts"][...]) == [3, 1, 4, 1, 5]
PY
echo "zip stores: ok"

# a bad option is an error that names it
if HDF5_VOL_CONNECTOR="nczarr bogus" "$NCZARR_PREFIX/bin/h5dump" -H "$tmp/pure.zarr" >"$tmp/bad.txt" 2>&1; then
  echo "FAIL: a bad option was accepted"; exit 1
fi
grep -q 'bad connector option "bogus"' "$tmp/bad.txt" || { echo "FAIL: no clear message"; cat "$tmp/bad.txt"; exit 1; }
# store options: the S3 store checks its own (a directory store ignores them); credentials
# are refused, since HDF5 prints the options
HDF5_VOL_CONNECTOR="nczarr endpoint=http://127.0.0.1:9 region=eu-west-1 anonymous" \
  shows "293.5" "$NCZARR_PREFIX/bin/h5dump" -d /temperature "$tmp/zipped.zip"
if HDF5_VOL_CONNECTOR="nczarr connections=lots" "$NCZARR_PREFIX/bin/h5dump" -H "$tmp/pure.zarr" >"$tmp/bad.txt" 2>&1; then
  echo "FAIL: a bad S3 option value was accepted"; exit 1
fi
grep -q 'S3 option connections="lots"' "$tmp/bad.txt" || { echo "FAIL: no message naming the S3 option"; cat "$tmp/bad.txt"; exit 1; }
if HDF5_VOL_CONNECTOR="nczarr secret_key=abc123" "$NCZARR_PREFIX/bin/h5dump" -H "$tmp/pure.zarr" >"$tmp/bad.txt" 2>&1; then
  echo "FAIL: a secret in the connector info was accepted"; exit 1
fi
grep -q 'credentials never go in the connector info' "$tmp/bad.txt" || { echo "FAIL: no clear message for a secret"; cat "$tmp/bad.txt"; exit 1; }
if grep -q abc123 "$tmp/bad.txt"; then echo "FAIL: the secret was printed"; exit 1; fi
echo "bad option: ok"
