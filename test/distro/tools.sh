#!/usr/bin/env bash
# Sections 2 and 3 (inside the root): each of the distribution's tools writes the same data
# twice, natively and through the connector (HDF5_VOL_CONNECTOR=nczarr), and the store is
# judged against the native file:
#   h5diff    the root's `h5diff -c -v native store` through the connector (lib.sh's
#             h5diff_judge reads its output); the root group's attributes are left to the
#             next judge, since h5diff can only leave out all of an object's attributes
#             (--exclude-attribute PATH) and the tools' provenance attributes differ
#   values    every dataset's and attribute's value h5dump prints (natively of the native
#             file, through the connector of the store) but the provenance attributes
#             (history, NCO, CDI, CDO, GDAL, _NCProperties): test/common/h5dump_data.py
#   ncdump    the distribution's ncdump of the store by URL (netCDF-C's own NCZarr reader,
#             no connector) shows the native file's values: cdl_compare.py, which also
#             asserts the measured limit on compressed arrays (LIMIT lines)
# One line per tool in the results: ok, limit (all equal but for a measured limit), FAIL.
#   tools.sh W
set -euo pipefail
W=$1 SECTION=tools
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib.sh
. "$here/lib.sh"
T=$W/tools
mkdir -p "$T" "$W/bin"
cd "$T"

# The inputs: a netCDF-4 file from CDL (ncgen), a small GeoTIFF from an ASCII grid (GDAL)
ncgen -4 -o "$T/input.nc" "$here/input.cdl"
printf 'ncols 5\nnrows 4\nxllcorner 0\nyllcorner 0\ncellsize 1\nNODATA_value -9999\n%s\n%s\n%s\n%s\n' \
  "1 2 3 4 5" "6 7 -9999 9 10" "11 12 13 14 15" "16 17 18 19 20" >"$T/grid.asc"
gdal_translate -q -of GTiff -a_srs EPSG:4326 "$T/grid.asc" "$T/grid.tif"
# The Fortran programs: HDF5's linked by hand to the shared libraries, and with h5fc -shlib;
# Debian's h5fc (like h5cc) links HDF5 statically by default (measured at the end)
gfortran -o "$W/bin/write_hdf5" "$here/write_hdf5.f90" -I/usr/include/hdf5/serial \
  -L/usr/lib/"$ARCH"/hdf5/serial -lhdf5_fortran -lhdf5
h5fc -shlib -o "$W/bin/write_hdf5_h5fc" "$here/write_hdf5.f90"
gfortran -o "$W/bin/write_nf90" "$here/write_nf90.f90" $(nf-config --fflags) $(nf-config --flibs)

# The writers: WRAPPER OUT (WRAPPER is lib.sh's `native` or `conn`)
in=$T/input.nc tif=$T/grid.tif
w_ncks() { "$1" ncks -O -4 "$in" "$2"; }
w_ncks_deflate() { "$1" ncks -O -4 -L 5 "$in" "$2"; }
w_nccopy() { "$1" nccopy -4 "$in" "$2"; }
w_nccopy_deflate() { "$1" nccopy -d 5 -s "$in" "$2"; }
# CDO skips what CDI cannot hold (char and string variables), the same way both times
w_cdo() { "$1" cdo -s -f nc4 copy "$in" "$2"; }
w_gdal_translate() { "$1" gdal_translate -q -of netCDF -co FORMAT=NC4 "$tif" "$2"; }
w_gdalwarp() { "$1" gdalwarp -q -of netCDF -co FORMAT=NC4 "$tif" "$2"; }
w_netcdf4_python() { "$1" python3 "$here/write_nc4py.py" "$2"; }
w_xarray() { "$1" python3 "$here/write_xarray.py" "$2"; }
w_h5py() { "$1" python3 "$here/write_h5py.py" "$2"; }
w_fortran_hdf5() { "$1" "$W/bin/write_hdf5" "$2"; }
w_fortran_hdf5_h5fc() { "$1" "$W/bin/write_hdf5_h5fc" "$2"; }
w_netcdf_fortran() { "$1" "$W/bin/write_nf90" "$2"; }

PROVENANCE=(history NCO CDI CDO GDAL _NCProperties history_of_appended_files)
skips=()
for a in "${PROVENANCE[@]}"; do skips+=(--skip "/@$a"); done

# tool NAME EXT STORE_RC: writes native.EXT and store.zarr with w_NAME, judges, records.
# STORE_RC is the exit status the tool is measured to end with when it writes a store.
tool() {
  local name=$1 ext=$2 want_rc=$3
  local d=$T/$name nat=$T/$name/native.$ext st=$T/$name/store.zarr rc=0 out
  local status=ok notes=()
  rm -rf "$d"
  mkdir -p "$d"
  echo "-- $name"
  if ! "w_$name" native "$nat" >"$d/native.log" 2>&1; then
    fail "$name" "the native run failed: $(tail -n 3 "$d/native.log")"
    return 0
  fi
  "w_$name" conn "$st" >"$d/store.log" 2>&1 || rc=$?
  if [ "$rc" != "$want_rc" ]; then
    fail "$name" "through the connector: exit $rc (measured: $want_rc): $(tail -n 3 "$d/store.log")"
    return 0
  fi
  [ "$rc" = 0 ] || { status=limit; notes+=("LIMIT: exits $rc after writing the store (gdal.sh)"); }
  if ! is_store "$st"; then
    fail "$name" "$st is not an NCZarr store (the connector did not load?): $(ls -ld "$st" 2>&1)"
    return 0
  fi
  # h5diff, the root group's attributes left to the values judge
  if out=$(h5diff_judge "$nat" "$st" "$d/h5diff.log" --exclude-attribute /); then
    notes+=("h5diff: equal")
  else
    status=FAIL; notes+=("h5diff: $out")
  fi
  # every value h5dump prints, the provenance attributes left out
  native h5dump -y -w 0 -m %.17g "$nat" >"$d/native.h5dump" 2>&1 || true
  conn h5dump -y -w 0 -m %.17g "$st" >"$d/store.h5dump" 2>&1 || true
  python3 /src/test/common/h5dump_data.py --attributes "${skips[@]}" <"$d/native.h5dump" >"$d/native.facts"
  python3 /src/test/common/h5dump_data.py --attributes "${skips[@]}" <"$d/store.h5dump" >"$d/store.facts"
  if [ ! -s "$d/native.facts" ]; then
    status=FAIL; notes+=("h5dump: nothing read of the native file: $(head -n 2 "$d/native.h5dump")")
  elif diff "$d/native.facts" "$d/store.facts" >"$d/values.diff"; then
    notes+=("h5dump: $(wc -l <"$d/native.facts") values equal")
  else
    status=FAIL; notes+=("h5dump values differ: $(grep '^[<>]' "$d/values.diff" | head -n 2 | cut -c1-120)")
  fi
  # ncdump by URL, without the connector: netCDF-C's own NCZarr reader
  native ncdump "$nat" >"$d/native.cdl" 2>&1 || true
  if ! native ncdump "$(store_url "$st")" >"$d/store.cdl" 2>&1; then
    status=FAIL; notes+=("ncdump URL failed: $(head -n 2 "$d/store.cdl")")
  elif out=$(python3 "$here/cdl_compare.py" "$d/native.cdl" "$d/store.cdl" "$st"); then
    if grep -q '^LIMIT' <<<"$out"; then
      [ "$status" = FAIL ] || status=limit
      grep '^LIMIT' <<<"$out" | sed 's/^/        /' # each array's values, for the log
    fi
    notes+=("ncdump URL: $(tail -n 1 <<<"$out")")
  else
    status=FAIL; notes+=("ncdump URL: $(grep -v '^LIMIT' <<<"$out" | head -n 3 | tr '\n' ' ')")
  fi
  record "$status" "$name" "${notes[*]}"
}

tool ncks nc 0
tool ncks_deflate nc 0
tool nccopy nc 0
tool nccopy_deflate nc 0
tool cdo nc 0
tool gdal_translate nc 1 # netCDF's CreateCopy reopens its output and cannot (gdal.sh)
tool gdalwarp nc 0
tool netcdf4_python nc 0
tool xarray nc 0
tool h5py h5 0
tool fortran_hdf5 h5 0
tool fortran_hdf5_h5fc h5 0
tool netcdf_fortran nc 0

# Measured: a program linked with Debian's h5fc without -shlib holds its own (static) copy
# of HDF5, and the plugin loads the shared libhdf5: the connector is handed ids of the other
# copy. The file is created, then H5Dcreate fails. (h5cc's default is static too.)
echo "-- h5fc's default (static HDF5)"
h5fc -o "$W/bin/write_hdf5_static" "$here/write_hdf5.f90"
d=$T/fortran_hdf5_static
rm -rf "$d"
mkdir -p "$d"
rc=0
conn "$W/bin/write_hdf5_static" "$d/store.zarr" >"$d/store.log" 2>&1 || rc=$?
msg="H5Sget_simple_extent_ndims(): not a dataspace"
if [ "$rc" = 1 ] && grep -qF "$msg" "$d/store.log" && grep -q 'FAIL: h5dcreate_f' "$d/store.log"; then
  limit fortran_hdf5_static "a program of plain h5fc (static libhdf5.a) through the connector: exit 1," \
    "'$msg' then 'FAIL: h5dcreate_f' (use h5fc -shlib)"
else
  fail fortran_hdf5_static "changed (update README and this check): exit $rc: $(grep -m2 -E '#000|FAIL' "$d/store.log" | tr '\n' ' ')"
fi

# The judge itself: a store that differs from the native file in one attribute or one value
# must be caught (h5diff_judge and the values judge are not blind).
echo "-- the judges catch a difference"
jd=$T/judge
mkdir -p "$jd"
cp "$T/ncks/native.nc" "$jd/a.nc"
ncatted -h -a units,temp,o,c,"degC" "$jd/a.nc"
conn ncks -O -4 "$jd/a.nc" "$jd/attr.zarr" >/dev/null 2>&1
cp "$T/ncks/native.nc" "$jd/b.nc"
ncap2 -h -O -s 'count(1,1)=77' "$jd/b.nc" "$jd/b2.nc"
conn ncks -O -4 "$jd/b2.nc" "$jd/value.zarr" >/dev/null 2>&1
if h5diff_judge "$T/ncks/native.nc" "$jd/attr.zarr" "$jd/attr.log" --exclude-attribute / >/dev/null; then
  fail judge "h5diff_judge found no difference in a store whose temp:units differs"
elif h5diff_judge "$T/ncks/native.nc" "$jd/value.zarr" "$jd/value.log" --exclude-attribute / >/dev/null; then
  fail judge "h5diff_judge found no difference in a store where count(1,1) differs"
else
  ok judge "h5diff_judge catches a changed attribute and a changed value"
fi
