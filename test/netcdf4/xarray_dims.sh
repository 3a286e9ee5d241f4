#!/usr/bin/env bash
# xarray (Debian's /usr/bin/python3) opens every group of the stores that netCDF-4
# programs write through the connector (the CDL corpus, written by `ncgen -4`; by nc4_copy
# of the native file in the sanitizer builds) with the netCDF dimension names
# (xarray_dims.py). netCDF-C's own NCZarr store of each CDL is checked first, as a control.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/nc4_lib.sh"
[ -x /usr/bin/python3 ] || { echo "FAIL: missing /usr/bin/python3"; exit 1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/nczarr-xr.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
py() { nc_native /usr/bin/python3 "$@"; }
status=0
for cdl in "$here"/cdl/*.cdl; do
  n=$(basename "$cdl" .cdl)
  echo "-- $n"
  ncgen_native "$cdl" "$tmp/$n.nc" || exit 1
  nc_native "$NCBIN/ncdump" -h "$tmp/$n.nc" >"$tmp/$n.h"
  nc_native "$NCBIN/nccopy" "$tmp/$n.nc" "$(store_url "$tmp/$n.netcdf-c.zarr")" ||
    { echo "FAIL: control: netCDF-C's nccopy to NCZarr of $n"; exit 1; }
  py "$here/xarray_dims.py" "$tmp/$n.h" "$tmp/$n.netcdf-c.zarr" ||
    { echo "FAIL: control: xarray on netCDF-C's own store of $n (not the connector)"; exit 1; }
  if [ -z "$NC4_SANITIZED" ]; then
    # shellcheck disable=SC2046
    writer=("$NCBIN/ncgen" $(ncgen_args "$cdl") -o "$tmp/$n.zarr" "$cdl")
  else
    writer=("$NC4_PROGS/nc4_copy" "$tmp/$n.nc" "$tmp/$n.zarr")
  fi
  if ! run_logged "$tmp/write.log" nc_connector "${writer[@]}"; then
    echo "FAIL: $n: ${writer[0]##*/} through the connector failed (output above)"
    status=1
    continue
  fi
  assert_store "$tmp/$n.zarr" "$n" || { status=1; continue; }
  py "$here/xarray_dims.py" "$tmp/$n.h" "$tmp/$n.zarr" || status=1
done
[ "$status" -eq 0 ] || { echo "FAIL: xarray_dims"; exit 1; }
echo "xarray_dims: ok"
