#!/usr/bin/env bash
# prog_compare.sh PROGRAM: a netCDF-4 test program of test/netcdf4 (built here) run twice,
# natively (a netCDF-4 file) and with the connector (a store); netCDF-C's own NCZarr reader
# must show the store exactly as ncdump shows the file (apart from the name line and
# _NCProperties), with the file's chunk shapes, and h5dump through the connector must show
# the file's dimension scales.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/nc4_lib.sh"
prog=$NC4_PROGS/${1:?usage: prog_compare.sh PROGRAM}
[ -x "$prog" ] || { echo "FAIL: $prog was not built"; exit 1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/nczarr-ncp.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

run_logged "$tmp/native.log" nc_native "$prog" "$tmp/native.nc" || { echo "FAIL: ${prog##*/} (native)"; exit 1; }
dump_native "$tmp/native.nc" >"$tmp/native.cdl"
nc_native "$NCBIN/ncdump" -hs "$tmp/native.nc" >"$tmp/native.hs"
echo "-- native file:"
sed 's/^/    /' "$tmp/native.cdl"

run_logged "$tmp/store.log" nc_connector "$prog" "$tmp/out.zarr" ||
  { echo "FAIL: ${prog##*/} through the connector (output above)"; exit 1; }
assert_store "$tmp/out.zarr" "${prog##*/}"
status=0
assert_ncproperties "$tmp/out.zarr" "${prog##*/}" || status=1
if ! dump_store "$tmp/out.zarr" >"$tmp/store.cdl" 2>"$tmp/dump.err"; then
  sed 's/^/    | /' "$tmp/dump.err"
  echo "FAIL: netCDF-C's NCZarr cannot read the store"
  exit 1
fi
compare_cdl "$tmp/native.cdl" "$tmp/store.cdl" "${prog##*/}" || status=1
nc_native /usr/bin/python3 "$here/check_chunks.py" "$tmp/native.hs" "$tmp/out.zarr" || status=1
if [ "${prog##*/}" = nc4_nodimscale ]; then
  # the file's variables have no DIMENSION_LIST (netCDF-C attached no scale), while every
  # array of a store names its dimensions in dimension_references
  echo "-- h5dump dimension scales not compared: NC_NODIMSCALE_ATTACH"
else
  compare_scales "$tmp/native.nc" "$tmp/out.zarr" "${prog##*/}" || status=1
fi
[ "$status" -eq 0 ] || exit 1
echo "prog_compare ${prog##*/}: ok"
