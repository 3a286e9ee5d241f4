#!/usr/bin/env bash
# netCDF-C programs with HDF5_VOL_CONNECTOR=nczarr load the connector into a process that
# also holds netCDF-C's own NCZarr code (whose zmap functions have our names). Each step
# has one expected exit status and message, and what a step writes is judged by netCDF-C's
# own NCZarr reader against the native netCDF-4 file of the same input:
#  - nc_create of a plain path reaches the connector and writes a store (ncgen, and
#    netcdf_program's nc_create + a variable on an unlimited dimension + nc_close);
#  - opening a missing file fails with "No such file or directory";
#  - two limits of netCDF-C 4.10.1 that issue [10] is to lift, asserted as they are today
#    so that the day they change this test says so: nc_open of a store by its plain name
#    fails ("Unknown file format": netCDF-C infers the format from a file's first bytes
#    before HDF5 is asked), and netCDF-C's NCZarr refuses every store URL while the
#    connector's directory is on HDF5_PLUGIN_PATH ("Unclassified failure in accessing a
#    dynamically loaded plugin": its plugin loader rejects a library that is not a filter).
# netCDF-C's installed tools deadlock at exit under a preloaded ASan runtime, with or
# without the connector (p11-kit's destructor, loaded through libcurl): the sanitizer builds
# run the netcdf_program steps (built with the sanitizers, linked against the same netCDF-C),
# the normal build runs every step.
set -euo pipefail
: "${NCZARR_BUILD:?}" "${NCZARR_PREFIX:?}" "${NCZARR_SAMPLES:?}"
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../common/judge.sh"
prog=$NCZARR_BUILD/test/netcdf_program
B=$NCZARR_PREFIX/bin
tmp=$(mktemp -d "${TMPDIR:-/tmp}/nczarr-nc.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
status=0

# expect RC PATTERN -- CMD...: CMD (with the connector) exits with RC, and when PATTERN is
# not empty its output contains it.
expect() {
  local want=$1 pat=$2 rc=0
  shift 3
  if [ "${1##*/}" = netcdf_program ]; then
    env LD_PRELOAD= "$@" >"$tmp/out.txt" 2>&1 || rc=$?
  else
    "$@" >"$tmp/out.txt" 2>&1 || rc=$?
  fi
  if [ "$rc" -ne "$want" ]; then
    sed 's/^/    | /' "$tmp/out.txt" | head -n 30
    echo "FAIL: exit $rc, expected $want: ${*##*/}"
    status=1
  elif [ -n "$pat" ] && ! grep -qF -- "$pat" "$tmp/out.txt"; then
    sed 's/^/    | /' "$tmp/out.txt" | head -n 30
    echo "FAIL: no \"$pat\" in the output of ${*##*/}"
    status=1
  else
    echo "ok: exit $rc${pat:+ (\"$pat\")}: ${*##*/}"
  fi
}

# nc_create through the connector: the store shows in netCDF-C's NCZarr reader what the
# same program's netCDF-4 file shows natively.
expect 0 "" -- "$prog" create "$tmp/c.zarr"
nc_native "$prog" create "$tmp/c.nc" >/dev/null
assert_store "$tmp/c.zarr" "netcdf_program create" && compare_ncdump "$tmp/c.nc" "$tmp/c.zarr" "netcdf_program create" ||
  status=1
expect 1 "No such file or directory" -- "$prog" open "$tmp/missing.nc"
"$NCZARR_BUILD/examples/write_store" "$tmp/ex.zarr" >/dev/null
assert_store "$tmp/ex.zarr" "examples/write_store" || status=1
expect 1 "Unclassified failure in accessing a dynamically loaded plugin" -- "$prog" open "$(store_url "$tmp/ex.zarr")"

if [ -z "${NCZARR_SANITIZER:-}" ]; then
  grep -v "_DeflateLevel\|_Shuffle" "$NCZARR_SAMPLES/netcdf-c-4.9.3/sample.cdl" >"$tmp/plain.cdl"
  for cdl in "$NCZARR_SAMPLES/netcdf-c-4.9.3/sample.cdl" "$tmp/plain.cdl"; do
    n=$(basename "$cdl" .cdl)
    expect 0 "" -- "$B/ncgen" -k nc4 -o "$tmp/$n.zarr" "$cdl"
    nc_native "$B/ncgen" -k nc4 -o "$tmp/$n.nc" "$cdl"
    assert_store "$tmp/$n.zarr" "ncgen $n" && compare_ncdump "$tmp/$n.nc" "$tmp/$n.zarr" "ncgen -k nc4 $n.cdl" || status=1
  done
  expect 1 "NetCDF: Unknown file format" -- "$B/ncdump" "$tmp/plain.zarr"
  expect 1 "No such file or directory" -- "$B/ncdump" "$tmp/missing.nc"
  expect 1 "Unclassified failure in accessing a dynamically loaded plugin" -- "$B/ncdump" "$(store_url "$tmp/ex.zarr")"
else
  echo "sanitizer build: the ncgen and ncdump steps run in the normal build (netCDF-C's tools deadlock under a preloaded ASan runtime)"
fi
[ "$status" -eq 0 ] || { echo "FAIL: netcdf_loads_connector"; exit 1; }
echo "netcdf_loads_connector: ok"
