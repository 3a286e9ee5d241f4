#!/usr/bin/env bash
# netCDF-C programs with HDF5_VOL_CONNECTOR=nczarr load the connector into a process that
# also holds netCDF-C's own NCZarr code (whose zmap functions have our names): they must
# never crash. nc_create of a plain path reaches the connector through HDF5 (writing
# netCDF-4 through it needs dimension scales, a later feature: a clean failure is fine
# today); nc_open of a store's URL goes to netCDF-C's NCZarr reader and must still work.
set -euo pipefail
: "${NCZARR_BUILD:?}" "${NCZARR_PREFIX:?}" "${NCZARR_SAMPLES:?}"
# netCDF-C's installed tools deadlock at exit under a preloaded ASan runtime, with or
# without the connector (p11-kit's destructor, loaded through libcurl): in the sanitizer
# build, netcdf_program (built with the sanitizers, linked against the same netCDF-C) makes
# the same calls instead; the normal build runs both.
asan=0 # any sanitizer build (ThreadSanitizer's plugin cannot load into them either)
[ -n "${NCZARR_SANITIZER:-}" ] && asan=1
prog=$NCZARR_BUILD/test/netcdf_program
tmp=$(mktemp -d "${TMPDIR:-/tmp}/nczarr-nc.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
no_crash() { # runs a command; any exit status below 128 is fine, a signal is not
  local rc=0
  if [ "$asan" = 1 ] && [ "${1##*/}" != netcdf_program ]; then
    echo "sanitizer build: ${*##*/} runs as netcdf_program below"
    return 0
  fi
  if [ "${1##*/}" = netcdf_program ]; then
    env LD_PRELOAD= "$@" >"$tmp/out.txt" 2>&1 || rc=$?
  else
    "$@" >"$tmp/out.txt" 2>&1 || rc=$?
  fi
  if [ "$rc" -ge 128 ]; then echo "FAIL: crashed (status $rc): $*"; cat "$tmp/out.txt"; exit 1; fi
  echo "exit $rc: ${*##*/}"
}
grep -v "_DeflateLevel\|_Shuffle" "$NCZARR_SAMPLES/netcdf-c-4.9.3/sample.cdl" >"$tmp/plain.cdl"
no_crash "$NCZARR_PREFIX/bin/ncgen" -k nc4 -o "$tmp/a.zarr" "$NCZARR_SAMPLES/netcdf-c-4.9.3/sample.cdl"
no_crash "$NCZARR_PREFIX/bin/ncgen" -k nc4 -o "$tmp/b.zarr" "$tmp/plain.cdl"
# the create reached the connector (native HDF5, the silent fallback, would write a file)
[ "$asan" = 1 ] || [ -f "$tmp/b.zarr/.zgroup" ] || { echo "FAIL: ncgen did not go through the connector"; exit 1; }
no_crash "$prog" create "$tmp/c.zarr"
[ -f "$tmp/c.zarr/.zgroup" ] || { echo "FAIL: nc_create did not go through the connector"; exit 1; }
no_crash "$prog" open "$tmp/missing.nc"
no_crash "$NCZARR_PREFIX/bin/ncdump" "$tmp/b.zarr"
no_crash "$NCZARR_PREFIX/bin/ncdump" "$tmp/missing.nc"
# netCDF-C (4.9.3 and 4.10.1 alike) tries every library in HDF5_PLUGIN_PATH as a compression filter and
# refuses to open any Zarr store once it meets a library that is not one (our connector):
# a known netCDF-C limitation, documented in the README. It must fail cleanly, not crash.
"$NCZARR_BUILD/examples/write_store" "$tmp/ex.zarr" >/dev/null
no_crash "$NCZARR_PREFIX/bin/ncdump" "file://$tmp/ex.zarr#mode=nczarr,file"
no_crash "$prog" open "file://$tmp/ex.zarr#mode=nczarr,file"
echo "netcdf_loads_connector: ok"
