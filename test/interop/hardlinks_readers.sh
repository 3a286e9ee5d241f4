#!/usr/bin/env bash
# Extra hard links: a store written through the connector with a second name for a
# dataset and for a group, and a cycle (g/self -> g), is shown by h5dump as the same
# program's native HDF5 file is (h5dump finds the cycle by object token: no endless
# output), and ncdump (netCDF-C, which ignores "_nczarr_group.hdf5_links") still reads it.
set -euo pipefail
: "${NCZARR_BUILD:?}" "${NCZARR_PREFIX:?}"
. "$(cd "$(dirname "$0")" && pwd)/../common/judge.sh"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/nczarr-hl.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
writer="$NCZARR_BUILD/test/interop_hardlinks_writer"
store="$tmp/links.zarr"
"$writer" "$store"
assert_store "$store" "hardlinks_readers" || exit 1
grep -qF '"hdf5_links"' "$store/g/.zattrs" || { echo "FAIL: no hdf5_links in g/.zattrs"; cat "$store/g/.zattrs"; exit 1; }
env -u HDF5_VOL_CONNECTOR -u HDF5_PLUGIN_PATH LD_PRELOAD= "$writer" "$tmp/links.h5"

# The same dump but for the file name on the first line.
timeout 60 "$NCZARR_PREFIX/bin/h5dump" "$store" | tail -n +2 >"$tmp/zarr.txt" ||
  { echo "FAIL: h5dump of the store:"; cat "$tmp/zarr.txt"; exit 1; }
env -u HDF5_VOL_CONNECTOR -u HDF5_PLUGIN_PATH LD_PRELOAD= timeout 60 "$NCZARR_PREFIX/bin/h5dump" \
  "$tmp/links.h5" | tail -n +2 >"$tmp/native.txt"
if ! diff -u "$tmp/native.txt" "$tmp/zarr.txt"; then
  echo "FAIL: h5dump shows the store unlike the native file"; exit 1
fi
for want in 'HARDLINK "/g"' 'HARDLINK "/g/sub"' 'HARDLINK "/data_alias"'; do
  grep -qF "$want" "$tmp/zarr.txt" || { echo "FAIL: h5dump lacks $want:"; cat "$tmp/zarr.txt"; exit 1; }
done
echo "h5dump of the store with a cycle matches the native file: ok"

env -u HDF5_VOL_CONNECTOR -u HDF5_PLUGIN_PATH LD_PRELOAD= "$NCZARR_PREFIX/bin/ncdump" \
  "file://$store#mode=nczarr,file" >"$tmp/out.cdl" || { echo "FAIL: ncdump:"; cat "$tmp/out.cdl"; exit 1; }
grep -qF 'data = 1, 2, 3, 4 ;' "$tmp/out.cdl" && grep -qF 'group: sub {' "$tmp/out.cdl" ||
  { echo "FAIL: ncdump:"; cat "$tmp/out.cdl"; exit 1; }
echo "ncdump reads the store: ok"
