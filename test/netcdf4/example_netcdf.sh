#!/usr/bin/env bash
# examples/netcdf_write (an unmodified netCDF-4 program) through the connector writes a
# store that netCDF-C's own NCZarr reader shows as expected/netcdf_write.cdl, which is
# also what ncdump shows of the netCDF-4 file the same program writes natively.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/nc4_lib.sh"
prog=$NCZARR_BUILD/examples/netcdf_write
[ -x "$prog" ] || { echo "FAIL: $prog was not built"; exit 1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/nczarr-exnc.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
expected=$here/expected/netcdf_write.cdl

run_logged "$tmp/native.log" nc_native "$prog" "$tmp/native.nc" || { echo "FAIL: netcdf_write (native)"; exit 1; }
dump_native "$tmp/native.nc" >"$tmp/native.cdl"
if ! diff -u "$expected" "$tmp/native.cdl"; then
  echo "FAIL: ncdump of the native file differs from test/netcdf4/expected/netcdf_write.cdl"
  exit 1
fi
echo "native file: ok"

run_logged "$tmp/store.log" nc_connector "$prog" "$tmp/example.zarr" ||
  { echo "FAIL: netcdf_write through the connector (output above)"; exit 1; }
assert_store "$tmp/example.zarr" netcdf_write
if ! dump_store "$tmp/example.zarr" >"$tmp/store.cdl" 2>"$tmp/dump.err"; then
  sed 's/^/    | /' "$tmp/dump.err"
  echo "FAIL: netCDF-C's NCZarr cannot read the store"
  exit 1
fi
if ! diff -u "$expected" "$tmp/store.cdl"; then
  echo "FAIL: ncdump of the store differs from test/netcdf4/expected/netcdf_write.cdl"
  exit 1
fi
echo "example_netcdf: ok"
