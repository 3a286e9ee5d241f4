#!/usr/bin/env bash
# netCDF-C programs with HDF5_VOL_CONNECTOR=nczarr load the connector into a process that
# also holds netCDF-C's own NCZarr code (whose zmap functions have our names). Each step
# has one expected exit status and message, and what a step writes is judged by netCDF-C's
# own NCZarr reader against the native netCDF-4 file of the same input:
#  - nc_create of a plain path reaches the connector and writes a store (ncgen, and
#    netcdf_program's nc_create + a variable on an unlimited dimension + nc_close);
#  - opening a missing file fails with "No such file or directory";
#  - netCDF-C's own NCZarr reads store URLs with the connector's directory on
#    HDF5_PLUGIN_PATH (its plugin loader takes the connector for a library of codec
#    defaults, paired with the companion filter beside it: vol_connector/H5VL_nczarr_netcdf.h),
#    compressed stores too: ncdump shows what it shows without the connector's directory;
#    without the companion it refuses every store ("Filter error: bad id or parameters": the
#    codec's filter is missing), as it did before the connector offered the codec
#    ("Unclassified failure in accessing a dynamically loaded plugin");
#  - a program reopens its own store by its plain name (netCDF-C infers the format of a
#    path from its first bytes, which a directory has not, but hands a path to HDF5 when
#    HDF5 finds it accessible and its extended attributes mention ".daos", as DAOS
#    containers' do: the connector labels the stores it creates so) and appends a record
#    with NC_WRITE: ncdump of the store is ncdump of the same program's netCDF-4 file; ncdump
#    by plain name through the connector shows what netCDF-C's own NCZarr shows by URL;
#    a store without the label (the label removed) is refused as before ("Unknown file
#    format").
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
# reopened by its plain name, a record appended
expect 0 "appended record 1" -- "$prog" append "$tmp/c.zarr"
nc_native "$prog" append "$tmp/c.nc" >/dev/null
compare_ncdump "$tmp/c.nc" "$tmp/c.zarr" "netcdf_program create + append" || status=1
expect 0 "1 variables, 2 global attributes" -- "$prog" open "$tmp/c.zarr"
"$NCZARR_BUILD/examples/write_store" "$tmp/ex.zarr" >/dev/null
assert_store "$tmp/ex.zarr" "examples/write_store" || status=1
expect 0 "" -- "$prog" open "$(store_url "$tmp/ex.zarr")"
# the connector's directory without the companion: netCDF-C refuses the store
mkdir "$tmp/alone"
cp "$NCZARR_BUILD/vol_connector/libnczarr_vol.so" "$tmp/alone/"
HDF5_PLUGIN_PATH=$tmp/alone:$NCZARR_PREFIX/lib/plugin \
  expect 1 "NetCDF: Filter error: bad id or parameters" -- "$prog" open "$(store_url "$tmp/ex.zarr")"

if [ -z "${NCZARR_SANITIZER:-}" ]; then
  grep -v "_DeflateLevel\|_Shuffle" "$NCZARR_SAMPLES/netcdf-c-4.9.3/sample.cdl" >"$tmp/plain.cdl"
  for cdl in "$NCZARR_SAMPLES/netcdf-c-4.9.3/sample.cdl" "$tmp/plain.cdl"; do
    n=$(basename "$cdl" .cdl)
    expect 0 "" -- "$B/ncgen" -k nc4 -o "$tmp/$n.zarr" "$cdl"
    nc_native "$B/ncgen" -k nc4 -o "$tmp/$n.nc" "$cdl"
    assert_store "$tmp/$n.zarr" "ncgen $n" && compare_ncdump "$tmp/$n.nc" "$tmp/$n.zarr" "ncgen -k nc4 $n.cdl" || status=1
  done
  # by its plain name through the connector: what netCDF-C's NCZarr shows by URL
  expect 0 "" -- "$B/ncdump" "$tmp/plain.zarr"
  sed 1d "$tmp/out.txt" >"$tmp/plain.by-name.cdl"
  nc_native "$B/ncdump" "$(store_url "$tmp/plain.zarr")" | sed 1d >"$tmp/plain.by-url.cdl"
  if ! diff -u "$tmp/plain.by-url.cdl" "$tmp/plain.by-name.cdl"; then
    echo "FAIL: ncdump of the store by its plain name differs from netCDF-C's by URL"
    status=1
  fi
  # a Zarr v3 store (which netCDF-C's own NCZarr cannot read) by its plain name: the native
  # file's ncdump
  HDF5_VOL_CONNECTOR="nczarr v3" expect 0 "" -- "$B/ncgen" -k nc4 -o "$tmp/plain.v3.zarr" "$tmp/plain.cdl"
  expect 0 "" -- "$B/ncdump" "$tmp/plain.v3.zarr"
  sed 1d "$tmp/out.txt" >"$tmp/plain.v3.cdl"
  nc_native "$B/ncdump" "$tmp/plain.nc" | sed 1d >"$tmp/plain.native.cdl"
  if ! diff -u "$tmp/plain.native.cdl" "$tmp/plain.v3.cdl"; then
    echo "FAIL: ncdump of the v3 store by its plain name differs from the netCDF-4 file's"
    status=1
  fi
  # without the connector's label netCDF-C sees no format it knows
  env LD_PRELOAD= /usr/bin/python3 -c 'import os, sys; os.removexattr(sys.argv[1], "user.nczarr")' "$tmp/plain.zarr"
  expect 1 "NetCDF: Unknown file format" -- "$B/ncdump" "$tmp/plain.zarr"
  expect 1 "No such file or directory" -- "$B/ncdump" "$tmp/missing.nc"
  # netCDF-C's NCZarr with the connector's directory on the path (and the connector asked
  # for): the compressed store reads as it reads with the filter directory alone
  expect 0 "" -- "$B/ncdump" "$(store_url "$tmp/sample.zarr")"
  cp "$tmp/out.txt" "$tmp/with.cdl"
  nc_native "$B/ncdump" "$(store_url "$tmp/sample.zarr")" >"$tmp/without.cdl" 2>&1 ||
    { cat "$tmp/without.cdl"; echo "FAIL: ncdump of the store without the connector's directory"; status=1; }
  if ! diff -u "$tmp/without.cdl" "$tmp/with.cdl"; then
    echo "FAIL: ncdump of a store URL differs with the connector's directory on HDF5_PLUGIN_PATH"
    status=1
  fi
else
  echo "sanitizer build: the ncgen and ncdump steps run in the normal build (netCDF-C's tools deadlock under a preloaded ASan runtime)"
fi
[ "$status" -eq 0 ] || { echo "FAIL: netcdf_loads_connector"; exit 1; }
echo "netcdf_loads_connector: ok"
