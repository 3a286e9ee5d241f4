#!/usr/bin/env bash
# After H5Lmove renames a variable and a group in a store (as netCDF-C does), the keys have
# moved on disk and the real ncdump (netCDF-C's own NCZarr reader) reads the renamed store.
set -euo pipefail
: "${NCZARR_BUILD:?}" "${NCZARR_PREFIX:?}"
. "$(cd "$(dirname "$0")" && pwd)/../common/judge.sh"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/nczarr-mv.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
store="$tmp/renamed.zarr"
"$NCZARR_BUILD/examples/write_store" "$store"
assert_store "$store" "rename_readers" || exit 1
"$NCZARR_BUILD/test/interop_rename" "$store"

for gone in temperature station; do
  [ ! -e "$store/$gone" ] || { echo "FAIL: $store/$gone is still there after the rename"; exit 1; }
done
for key in temp/.zarray temp/0.0 temp/1.1 site/.zgroup site/counts/.zarray; do
  [ -f "$store/$key" ] || { echo "FAIL: $store/$key is missing after the rename"; exit 1; }
done

# ncdump reads through netCDF-C's NCZarr, not through HDF5: keep our connector out of it.
env -u HDF5_VOL_CONNECTOR -u HDF5_PLUGIN_PATH LD_PRELOAD= "$NCZARR_PREFIX/bin/ncdump" \
  "file://$store#mode=nczarr,file" >"$tmp/out.cdl"
for want in 'float temp(' 'temp:units = "K"' '270.5, 271.5, 272.5' '288.5, 289.5, 290.5, 291.5, 292.5, 293.5 ;' \
  'group: site {' 'counts = 3, 1, 4, 1, 5 ;'; do
  grep -qF -- "$want" "$tmp/out.cdl" || { echo "FAIL: ncdump output lacks \"$want\":"; cat "$tmp/out.cdl"; exit 1; }
done
if grep -qwE 'temperature|station' "$tmp/out.cdl"; then
  echo "FAIL: ncdump still shows an old name:"; cat "$tmp/out.cdl"; exit 1
fi
echo "ncdump after rename: ok"
