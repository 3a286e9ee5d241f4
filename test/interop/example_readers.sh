#!/usr/bin/env bash
# The example program writes a store through the connector; the real ncdump (netCDF-C's own
# NCZarr reader) and zarr-python must read it with the values the program wrote.
set -euo pipefail
: "${NCZARR_BUILD:?}" "${NCZARR_PREFIX:?}" "${NCZARR_ZARR3_PYTHON:?}"
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/nczarr-ex.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
store="$tmp/example.zarr"
"$NCZARR_BUILD/examples/write_store" "$store"
# HDF5 falls back to native HDF5 silently when the plugin does not load: then this would be
# an HDF5 file, not a directory holding .zgroup.
[ -f "$store/.zgroup" ] || { echo "FAIL: $store is not a Zarr store: the connector did not load"; exit 1; }

# ncdump reads through netCDF-C's NCZarr, not through HDF5: keep our connector out of it.
env -u HDF5_VOL_CONNECTOR -u HDF5_PLUGIN_PATH LD_PRELOAD= "$NCZARR_PREFIX/bin/ncdump" \
  "file://$store#mode=nczarr,file" >"$tmp/out.cdl"
sed -i '1s/^netcdf .* {/netcdf example {/' "$tmp/out.cdl"
if ! diff -u "$here/expected/example.cdl" "$tmp/out.cdl"; then
  echo "FAIL: ncdump output differs from test/interop/expected/example.cdl"; exit 1
fi
echo "ncdump: ok"

# zarr-python 2 (Debian's) and 3 (the pinned environment)
for py in /usr/bin/python3 "$NCZARR_ZARR3_PYTHON"; do
env -u HDF5_VOL_CONNECTOR -u HDF5_PLUGIN_PATH LD_PRELOAD= "$py" - "$store" <<'PY'
import sys, zarr, numpy as np
g = zarr.open_group(sys.argv[1], mode="r")
t = g["temperature"]
assert t.shape == (4, 6) and t.chunks == (2, 3) and t.dtype == np.dtype("<f4"), (t.shape, t.chunks, t.dtype)
assert np.array_equal(t[...], (270.5 + np.arange(24, dtype="f4")).reshape(4, 6)), t[...]
assert t.fill_value == -999.0, t.fill_value
assert t.attrs["units"] == "K" and list(t.attrs["valid_range"]) == [200.0, 350.0], dict(t.attrs)
c = g["station/counts"]
assert c.dtype == np.dtype("<i4") and list(c[...]) == [3, 1, 4, 1, 5], c[...]
assert g["station"].attrs["station_id"] == 7, dict(g["station"].attrs)
print(f"zarr-python {zarr.__version__}: ok")
PY
done
