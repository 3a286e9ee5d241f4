#!/usr/bin/env bash
# h5dump through the connector of the NCZarr stores that netCDF-C itself writes from the
# CDL corpus (`ncgen -4`, or the CDL's kind, then `nccopy` to #mode=nczarr,file, without
# the connector) shows the dimension scales as h5dump shows them in the netCDF-4 file of
# the same CDL: which datasets are scales (CLASS, NAME), what each DIMENSION_LIST points
# to, the REFERENCE_LIST entries, the dataspaces, and the _Netcdf4Dimid and
# _Netcdf4Coordinates netCDF-C's HDF5 layer reads (normalize_h5dump.py keeps just those
# facts; compare_scales in nc4_lib.sh), and every dataset's data and attribute's value
# h5dump prints of the netCDF-4 file is what it prints through the connector
# (compare_h5dump_data; netcdf_c_store_skips names what netCDF-C's writer does not keep).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/nc4_lib.sh"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/nczarr-h5s.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
status=0
for cdl in "$here"/cdl/*.cdl; do
  n=$(basename "$cdl" .cdl)
  echo "-- $n"
  ncgen_native "$cdl" "$tmp/$n.nc" || exit 1
  nc_native "$NCBIN/nccopy" "$tmp/$n.nc" "$(store_url "$tmp/$n.zarr")" ||
    { echo "FAIL: netCDF-C's nccopy to NCZarr of $n"; exit 1; }
  compare_scales "$tmp/$n.nc" "$tmp/$n.zarr" "$n: netCDF-C's store" || status=1
  # shellcheck disable=SC2046
  compare_h5dump_data "$tmp/$n.nc" "$tmp/$n.zarr" "$n: netCDF-C's store" $(netcdf_c_store_skips "$n") || status=1
done
[ "$status" -eq 0 ] || { echo "FAIL: h5dump_scales"; exit 1; }
echo "h5dump_scales: ok"
