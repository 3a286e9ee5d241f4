#!/usr/bin/env bash
# Section 4 (inside the root): what each of the distribution's tools does when handed a
# store written through the connector, by its plain name and by netCDF-C's URL
# (file:///abs/store#mode=nczarr,file), with and without the connector in the environment.
# Every probe asserts exactly the behaviour measured with Debian trixie's packages: the
# exit status and a piece of the output (for a failure, its message). A behaviour that
# changes (a tool that starts or stops reading stores) fails the probe, and README's list of
# what works must then be updated with it.
#   reopen.sh W   (after tools.sh: it reads the stores tools.sh wrote)
set -euo pipefail
W=$1 SECTION=reopen
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib.sh
. "$here/lib.sh"
S=$W/tools/ncks/store.zarr # NCO's store of the stage's dataset (input.cdl)
U=$(store_url "$S")
[ -d "$S" ] || { fail store "no store $S (tools.sh did not write it)"; exit 0; }
cd "$W"

# probe ID ENVS RC TEXT [NOTE] -- CMD...: runs CMD in each environment of ENVS (native: no
# connector; conn: HDF5_VOL_CONNECTOR=nczarr), and asserts its exit status is RC and its
# output holds TEXT (fixed string). Records works (RC 0) or the failure as measured: ok, or
# limit with its message (and NOTE, where the output alone does not say what happens).
probe() {
  local id=$1 envs=$2 want_rc=$3 text=$4 note="" e rc out bad=""
  shift 4
  [ "$1" = -- ] || { note=$1; shift; }
  shift
  for e in ${envs//,/ }; do
    rc=0
    out=$("$e" timeout 120 "$@" 2>&1 </dev/null) || rc=$?
    if [ "$rc" != "$want_rc" ] || ! grep -qF -- "$text" <<<"$out"; then
      bad+="[$e: exit $rc, measured $want_rc; '${text:0:60}' $(grep -qF -- "$text" <<<"$out" && echo found || echo 'not found'): $(grep -v '^ *$' <<<"$out" | tail -n 2 | tr '\n' ' ' | cut -c1-200)] "
    fi
  done
  if [ -n "$bad" ]; then
    fail "$id" "changed (update README and this probe): $bad"
  elif [ "$want_rc" = 0 ]; then
    ok "$id" "works ($envs): '$text'"
  else
    limit "$id" "exit $want_rc ($envs): ${note:+$note }$text"
  fi
}

# netCDF-C's tools and libraries: nc_open sniffs a file's first bytes, so a directory is
# not netCDF; the URL selects netCDF-C's own NCZarr reader
probe "ncdump name" native,conn 1 "ncdump: $S: NetCDF: Unknown file format" -- ncdump -h "$S"
probe "ncdump URL" native,conn 0 "float temp(time, lat, lon) ;" -- ncdump -h "$U"
probe "ncks -H name" native,conn 1 'Translation into English with nc_strerror(-51) is "NetCDF: Unknown file format"' -- ncks -H "$S"
# NCO 5.3.3 dies on a string variable holding "" read through netCDF-C's NCZarr (which
# returns NULL for it, ncdump prints NIL): the same with a store netCDF-C wrote itself
# (the "ncks -H URL, netCDF-C's own store" probe), so not the connector's
probe "ncks -H URL" native,conn 139 "" "SIGSEGV, no message (string variable holding \"\")" -- ncks -H "$U"
probe "ncks -H URL, no string variable" native,conn 0 "270, 271, 272, 273," -- ncks -H -x -v name "$U"
own=$W/netcdf-own.zarr
rm -rf "$own"
native nccopy -4 "$W/tools/input.nc" "$(store_url "$own")"
probe "ncks -H URL, netCDF-C's own store" native 139 "" "SIGSEGV, no message (the same, without the connector)" -- ncks -H "$(store_url "$own")"
probe "cdo info name" native,conn 1 "Is a directory" -- cdo -s info "$S"
probe "cdo info URL" native,conn 0 "294.00      299.50      305.00" -- cdo -s info "$U"
probe "cdo sinfo name" native,conn 1 "Is a directory" -- cdo -s sinfo "$S"
probe "cdo sinfo URL" native,conn 0 "File format : NCZarr" -- cdo -s sinfo "$U"
py_nc4='import netCDF4, sys; d = netCDF4.Dataset(sys.argv[1]); print(d["temp"][0, 0, :].tolist())'
probe "netCDF4.Dataset name" native,conn 1 "OSError: [Errno -51] NetCDF: Unknown file format: '$S'" -- python3 -c "$py_nc4" "$S"
probe "netCDF4.Dataset URL" native,conn 0 "[270.0, 271.0, 272.0, 273.0]" -- python3 -c "$py_nc4" "$U"
py_xr='import sys, xarray; d = xarray.open_dataset(sys.argv[1], **({"engine": sys.argv[2]} if sys.argv[2] else {})); print(d["temp"].values[0, 0].tolist())'
probe "xarray netcdf4 name" native,conn 1 "OSError: [Errno -51] NetCDF: Unknown file format: '$S'" -- python3 -c "$py_xr" "$S" netcdf4
probe "xarray netcdf4 URL" native,conn 0 "[270.0, 271.0, 272.0, 273.0]" -- python3 -c "$py_xr" "$U" netcdf4
# xarray's zarr engine (zarr-python 3.0.6): reads the store by name (without consolidated
# metadata: a RuntimeWarning), takes the URL for an fsspec URL, and trixie has no fsspec
probe "xarray zarr name" native,conn 0 "[270.0, 271.0, 272.0, 273.0]" -- python3 -c "$py_xr" "$S" zarr
probe "xarray zarr URL" native,conn 1 "ModuleNotFoundError: No module named 'fsspec'" -- python3 -c "$py_xr" "$U" zarr
probe "xarray (no engine) name" native,conn 0 "[270.0, 271.0, 272.0, 273.0]" -- python3 -c "$py_xr" "$S" ""
# GDAL: its Zarr driver reads the store by name; its netCDF driver takes the URL only in
# the multidimensional API (gdalmdiminfo), not as a raster subdataset
probe "gdalinfo name" native,conn 0 "Driver: Zarr/Zarr" -- gdalinfo "$S"
probe "gdalinfo ZARR:name:/temp" native,conn 0 "Size is 4, 3" -- gdalinfo "ZARR:\"$S\":/temp"
probe "gdalinfo URL" native,conn 1 "ERROR 4: $U: No such file or directory" -- gdalinfo "$U"
probe "gdalinfo NETCDF:URL:temp" native,conn 1 "ERROR 4: NETCDF:\"$U\":temp: No such file or directory" -- gdalinfo "NETCDF:\"$U\":temp"
probe "gdalmdiminfo NETCDF:URL" native,conn 0 '"driver": "netCDF"' -- gdalmdiminfo "NETCDF:\"$U\""
probe "gdalmdiminfo name" native,conn 0 '"driver": "Zarr"' -- gdalmdiminfo "$S"
# HDF5's tools read a store only through the connector (by name, or by the URL, which the
# connector understands too)
probe "h5dump name" conn 0 'DATASET "temp"' -- h5dump -H "$S"
probe "h5dump name, no connector" native 1 "h5dump error: unable to open file \"$S\"" -- h5dump -H "$S"
probe "h5dump URL" conn 0 'DATASET "temp"' -- h5dump -H "$U"
probe "h5ls name" conn 0 "temp                     Dataset {3/Inf, 3, 4}" -- h5ls "$S"
