#!/usr/bin/env bash
# Regenerates the netCDF-C 4.9.3 fixtures in this folder with the real netCDF-C 4.9.3
# tools (the "trixie" dependency stack: VOL_NCZARR_STACK=trixie scripts/setup-deps.sh).
# They are kept in the repository because netCDF-C 4.9.3 writes what later versions no
# longer do (codec parameters as JSON strings, no .zmetadata) and the tests must keep
# reading such stores when the default stack is newer. Stores written by the stack the
# tests run on are made at test time instead (test/interop/samples_h5dump.sh).
#   test/data/netcdf-c-4.9.3/make.sh [prefix]   (default ~/.cache/vol-nczarr/deps-trixie)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
prefix=${1:-$HOME/.cache/vol-nczarr/deps-trixie}
"$prefix/bin/nc-config" --version | grep -q 'netCDF 4.9.3' || { echo "need netCDF-C 4.9.3 in $prefix" >&2; exit 1; }
export HDF5_PLUGIN_PATH=$prefix/lib/plugin
unset HDF5_VOL_CONNECTOR
cd "$here"
rm -rf sample.nczarr.file sample.zarr.file sample.nczarr.zip sample.nczarr.zip.unpacked filters.nczarr.file
"$prefix/bin/ncgen" -k nc4 -o "file://$here/sample.nczarr.file#mode=nczarr,file" sample.cdl
"$prefix/bin/ncgen" -k nc4 -o "file://$here/sample.zarr.file#mode=zarr,file" sample.cdl
"$prefix/bin/ncgen" -k nc4 -o "file://$here/sample.nczarr.zip#mode=nczarr,zip" sample.cdl
"$prefix/bin/ncgen" -k nc4 -o "file://$here/filters.nczarr.file#mode=nczarr,file" filters.cdl
mkdir sample.nczarr.zip.unpacked && (cd sample.nczarr.zip.unpacked && unzip -q ../sample.nczarr.zip)
# What ncdump prints for them (the tests compare the connector's view with ncdump's).
"$prefix/bin/ncgen" -k nc4 -o "$here/sample.nc" sample.cdl
"$prefix/bin/ncdump" sample.nc >sample.nc.cdl && rm -f sample.nc
"$prefix/bin/ncdump" "file://$here/sample.nczarr.file#mode=nczarr,file" >sample.nczarr.file.cdl
"$prefix/bin/ncdump" "file://$here/sample.zarr.file#mode=zarr,file" >sample.zarr.file.cdl
