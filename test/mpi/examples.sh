#!/usr/bin/env bash
# The MPI examples (examples/mpi_write.c, examples/netcdf_par_write.c) on 4 ranks, natively
# (parallel HDF5 and netCDF-4 into one file through MPI-IO) and through the connector: h5diff
# finds no difference between the HDF5 file and the store; ncdump of the netCDF file equals
# netCDF-C's own NCZarr reading the store.
set -euo pipefail
: "${NCZARR_BUILD:?}" "${NCZARR_PREFIX:?}" "${HDF5_VOL_CONNECTOR:?}"
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../common/judge.sh"
. "$here/mpi_lib.sh"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/nczarr-mpie.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
ex=$NCZARR_BUILD/examples
status=0

mpi_run_native 4 "$tmp/n1.log" "$ex/mpi_write" "$tmp/native.h5" || { echo "FAIL: mpi_write natively"; exit 1; }
mpi_run 4 "$tmp/s1.log" "$ex/mpi_write" "$tmp/store.zarr" || { echo "FAIL: mpi_write through the connector"; exit 1; }
assert_store "$tmp/store.zarr" mpi_write
if "$NCZARR_PREFIX/bin/h5diff" -c "$tmp/native.h5" "$tmp/store.zarr" >"$tmp/h5diff.txt" 2>&1 &&
   ! grep -q "not comparable" "$tmp/h5diff.txt"; then
  echo "ok: mpi_write: h5diff finds no difference between the MPI-IO file and the store"
else
  sed 's/^/    | /' "$tmp/h5diff.txt"; echo "FAIL: mpi_write: the store differs from the native file"; status=1
fi

mpi_run_native 4 "$tmp/n2.log" "$ex/netcdf_par_write" "$tmp/native.nc" || { echo "FAIL: netcdf_par_write natively"; exit 1; }
mpi_run 4 "$tmp/s2.log" "$ex/netcdf_par_write" "$tmp/nc.zarr" || { echo "FAIL: netcdf_par_write through the connector"; exit 1; }
assert_store "$tmp/nc.zarr" netcdf_par_write
compare_ncdump "$tmp/native.nc" "$tmp/nc.zarr" netcdf_par_write || status=1
[ "$status" -eq 0 ] || exit 1
echo "examples: ok"
