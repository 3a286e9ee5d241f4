#!/usr/bin/env bash
# Stores written by other tools, modified in place through the connector, keep what they
# were: an xarray store (pure Zarr, consolidated) stays pure Zarr with xarray's dimension
# names and an up-to-date .zmetadata; a netCDF-C NCZarr store keeps its dimensions. The
# owners' readers (xarray/zarr-python, ncdump) judge.
set -euo pipefail
: "${NCZARR_BUILD:?}" "${NCZARR_PREFIX:?}" "${NCZARR_SAMPLES:?}" "${NCZARR_ZARR3_PYTHON:?}"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/nczarr-mod.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
native=(env -u HDF5_VOL_CONNECTOR -u HDF5_PLUGIN_PATH LD_PRELOAD=)
add="$NCZARR_BUILD/test/interop_add_attribute"

cp -r "$NCZARR_SAMPLES/zarr-python/xarray.zarr" "$tmp/"
"$add" "$tmp/xarray.zarr" added 42
if grep -rl "_nczarr" "$tmp/xarray.zarr"; then echo "FAIL: NCZarr keys written into a pure Zarr store"; exit 1; fi
# xarray over zarr-python 2 (Debian's) and 3 (the pinned environment)
for py in /usr/bin/python3 "$NCZARR_ZARR3_PYTHON"; do
"${native[@]}" "$py" - "$tmp/xarray.zarr" "$NCZARR_SAMPLES/zarr-python/xarray.zarr" <<'PY'
import sys, zarr, xarray as xr, numpy as np
new, old = xr.open_zarr(sys.argv[1]), xr.open_zarr(sys.argv[2])
assert new.temp.dims == ("time", "lat", "lon"), new.temp.dims
assert np.array_equal(new.temp.values, old.temp.values)
assert new.attrs == dict(old.attrs, added=42), new.attrs
assert zarr.open_consolidated(sys.argv[1], mode="r").attrs["added"] == 42, "stale .zmetadata"
print(f"xarray {xr.__version__} (zarr-python {zarr.__version__}) store: ok")
PY
done

cp -r "$NCZARR_SAMPLES/netcdf-c-4.9.3/sample.nczarr.file" "$tmp/"
"${native[@]}" "$NCZARR_PREFIX/bin/ncdump" "file://$tmp/sample.nczarr.file#mode=nczarr,file" >"$tmp/before.cdl"
"$add" "$tmp/sample.nczarr.file" added 42
"${native[@]}" "$NCZARR_PREFIX/bin/ncdump" "file://$tmp/sample.nczarr.file#mode=nczarr,file" >"$tmp/after.cdl"
# the only difference is the new global attribute
if diff "$tmp/before.cdl" "$tmp/after.cdl" >"$tmp/diff.txt"; then
  echo "FAIL: ncdump does not show the added attribute"; exit 1
fi
if [ "$(awk '/^[<>]/ { n++ } END { print n + 0 }' "$tmp/diff.txt")" != 1 ] || ! grep -q '^> .*:added = 42 ;' "$tmp/diff.txt"; then
  echo "FAIL: ncdump shows more than the added attribute:"; cat "$tmp/diff.txt"; exit 1
fi
echo "netCDF-C NCZarr store: ok"
