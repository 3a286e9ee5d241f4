#!/usr/bin/env bash
# cdl_compare.sh NAME: test/netcdf4/cdl/NAME.cdl written as a netCDF-4 file by `ncgen -4`
# (or the kind the CDL names: nc4_lib.sh ncgen_native), natively, and as NCZarr stores
# through the connector, by the same `ncgen`, by `nccopy` of the native file (which reads
# native.nc through the connector too: it hands native HDF5 files to HDF5's native
# connector) and by nc4_copy (built here; the only writer in the sanitizer builds), which
# reads its input natively, and once more through the connector as nccopy does.
# netCDF-C's own NCZarr reader must show each store exactly as ncdump shows the native file
# (apart from the name line and _NCProperties), the store must keep the native file's
# chunk shapes, and h5dump through the connector must show the native file's dimension
# scales (compare_scales). A control copies the native file natively with nc4_copy (same ncdump).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/nc4_lib.sh"
name=${1:?usage: cdl_compare.sh NAME}
cdl=$here/cdl/$name.cdl
[ -f "$cdl" ] || { echo "FAIL: no $cdl"; exit 1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/nczarr-cdl.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

ncgen_native "$cdl" "$tmp/native.nc" || exit 1
dump_native "$tmp/native.nc" >"$tmp/native.cdl"
nc_native "$NCBIN/ncdump" -hs "$tmp/native.nc" >"$tmp/native.hs"
status=0

# control: the copy program itself, without the connector
run_logged "$tmp/control.log" nc_native "$NC4_PROGS/nc4_copy" "$tmp/native.nc" "$tmp/control.nc" ||
  { echo "FAIL: control: nc4_copy of the native file (no connector)"; exit 1; }
dump_native "$tmp/control.nc" >"$tmp/control.cdl"
compare_cdl "$tmp/native.cdl" "$tmp/control.cdl" "control: nc4_copy without the connector" || exit 1
assert_ncproperties "$tmp/control.nc" "control: nc4_copy without the connector" || exit 1

# check WHAT STORE CMD...: CMD writes STORE through the connector. The store has the chunk
# shapes of ${chunks_hs:-native.hs} (ncdump -hs of the native file).
check() {
  local what=$1 store=$2
  shift 2
  echo "-- $what"
  if ! run_logged "$tmp/write.log" nc_connector "$@"; then
    echo "FAIL: $what: the writer failed (output above)"
    # HDF5_VOL_CONNECTOR applies to every file a program opens, its input too
    [ -e "$store" ] || [ "${1##*/}" != nccopy ] ||
      echo "    (no store was created: nccopy failed reading native.nc, a native HDF5 file, through the connector)"
    status=1
    return
  fi
  assert_store "$store" "$what" || { status=1; return; }
  assert_ncproperties "$store" "$what" || status=1
  if ! dump_store "$store" >"$tmp/store.cdl" 2>"$tmp/dump.err"; then
    sed 's/^/    | /' "$tmp/dump.err"
    echo "FAIL: $what: netCDF-C's NCZarr cannot read the store"
    status=1
    return
  fi
  compare_cdl "$tmp/native.cdl" "$tmp/store.cdl" "$what" || status=1
  nc_native /usr/bin/python3 "$here/check_chunks.py" "${chunks_hs:-$tmp/native.hs}" "$store" || status=1
  compare_scales "$tmp/native.nc" "$store" "$what" || status=1
}

if [ -z "$NC4_SANITIZED" ]; then
  # shellcheck disable=SC2046
  check "ncgen $(ncgen_args "$cdl") through the connector" "$tmp/ncgen.zarr" "$NCBIN/ncgen" $(ncgen_args "$cdl") -o "$tmp/ncgen.zarr" "$cdl"
  # nccopy chooses chunk shapes of its own (small chunked variables become contiguous):
  # the store must have those of nccopy's copy without the connector.
  nc_native "$NCBIN/nccopy" "$tmp/native.nc" "$tmp/nccopy.nc" || { echo "FAIL: nccopy without the connector"; exit 1; }
  nc_native "$NCBIN/ncdump" -hs "$tmp/nccopy.nc" >"$tmp/nccopy.hs"
  chunks_hs=$tmp/nccopy.hs check "nccopy native.nc through the connector" "$tmp/nccopy.zarr" \
    "$NCBIN/nccopy" "$tmp/native.nc" "$tmp/nccopy.zarr"
else
  echo "-- sanitizer build: ncgen and nccopy cannot load the sanitized connector (nc4_copy writes the store)"
fi
check "nc4_copy through the connector" "$tmp/copy.zarr" "$NC4_PROGS/nc4_copy" "$tmp/native.nc" "$tmp/copy.zarr"
check "nc4_copy reading native.nc through the connector too" "$tmp/copy2.zarr" \
  "$NC4_PROGS/nc4_copy" --through-connector "$tmp/native.nc" "$tmp/copy2.zarr"

[ "$status" -eq 0 ] || { echo "FAIL: $name"; exit 1; }
echo "cdl_compare $name: ok"
