#!/usr/bin/env bash
# h5dump through the connector of the NCZarr stores that netCDF-C itself writes from the
# CDL corpus (`ncgen -4`, then `nccopy` to #mode=nczarr,file, no connector) shows the
# dimension scales as h5dump shows them in the netCDF-4 file of the same CDL: which
# datasets are scales (CLASS, NAME), what each DIMENSION_LIST points to, the REFERENCE_LIST
# entries, the dataspaces, and the _Netcdf4Dimid/_Netcdf4Coordinates netCDF-C's HDF5 layer
# reads (normalize_h5dump.py keeps just those facts).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/nc4_lib.sh"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/nczarr-h5s.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
py() { nc_native /usr/bin/python3 "$@"; }
# h5dump loads the connector (and, in the sanitizer builds, gets the runtimes preloaded).
h5dump_store() { "$NCBIN/h5dump" -A "$1"; }
h5dump_native() { env -u HDF5_VOL_CONNECTOR "$NCBIN/h5dump" -A "$1"; }
status=0
for cdl in "$here"/cdl/*.cdl; do
  n=$(basename "$cdl" .cdl)
  echo "-- $n"
  nc_native "$NCBIN/ncgen" -4 -o "$tmp/$n.nc" "$cdl" || { echo "FAIL: ncgen -4 (native) of $n.cdl"; exit 1; }
  nc_native "$NCBIN/nccopy" "$tmp/$n.nc" "$(store_url "$tmp/$n.zarr")" ||
    { echo "FAIL: netCDF-C's nccopy to NCZarr of $n"; exit 1; }
  h5dump_native "$tmp/$n.nc" >"$tmp/$n.native.txt" || { echo "FAIL: h5dump of the native $n.nc"; exit 1; }
  py "$here/normalize_h5dump.py" <"$tmp/$n.native.txt" >"$tmp/$n.native.facts"
  grep -q . "$tmp/$n.native.facts" || { echo "FAIL: no facts in the native h5dump of $n"; exit 1; }
  if ! h5dump_store "$tmp/$n.zarr" >"$tmp/$n.store.txt" 2>"$tmp/$n.store.err"; then
    sed 's/^/    | /' "$tmp/$n.store.err"
    echo "FAIL: $n: h5dump -A of netCDF-C's store through the connector failed (facts compared anyway)"
    status=1
  fi
  # the connector read it: native HDF5 cannot open a directory
  grep -q '^GROUP "/" {' "$tmp/$n.store.txt" || { echo "FAIL: $n: h5dump shows no root group"; status=1; continue; }
  py "$here/normalize_h5dump.py" <"$tmp/$n.store.txt" >"$tmp/$n.store.facts"
  if ! diff -u --label "netCDF-4 file $n.nc" --label "netCDF-C's store $n.zarr via the connector" \
    "$tmp/$n.native.facts" "$tmp/$n.store.facts"; then
    echo "FAIL: $n: the dimension-scale facts differ (diff above)"
    status=1
  fi
done
[ "$status" -eq 0 ] || { echo "FAIL: h5dump_scales"; exit 1; }
echo "h5dump_scales: ok"
