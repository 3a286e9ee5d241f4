#!/usr/bin/env bash
# GDAL writing a store through the connector (inside the root; after tools.sh, whose
# GeoTIFF and netCDF inputs it uses). Measured with Debian trixie's GDAL 3.10.3:
#   - gdal_translate -of netCDF (GDALDriver::CreateCopy): netCDF's CreateCopy writes the
#     whole store, prints "done", then reopens its output with netCDFDataset::Open to return
#     it; netCDFIdentifyFormat (frmts/netcdf/netcdfdrivercore.cpp) reads the first bytes of
#     the name and finds none in a directory (nHeaderBytes < 4: NCDF_FORMAT_NONE), so the
#     reopen fails and the tool exits 1, without an error message. A zip store (a file
#     beginning "PK") is not netCDF to it either. Naming the output "NETCDF:name" (the one
#     prefix the identify accepts whatever the bytes) makes a store literally named
#     "NETCDF:name", and the reopen looks for "name".
#   - gdalmdimtranslate from a raster (GeoTIFF) goes through the same CreateCopy: exit 1.
#   - what writes a store and exits 0: gdalwarp -of netCDF (GDALDriver::Create: the dataset
#     it created is returned, never reopened), gdalmdimtranslate -of netCDF from a
#     multidimensional source (a netCDF file), and GDAL's Python Create() + WriteArray.
# Each is asserted as measured; the ones that exit 0 are judged against the same command run
# natively (h5diff_judge, and the values h5dump prints).
#   gdal.sh W
set -euo pipefail
W=$1 SECTION=gdal
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib.sh
. "$here/lib.sh"
G=$W/gdal
rm -rf "$G"
mkdir -p "$G"
cd "$G"
tif=$W/tools/grid.tif nc=$W/tools/input.nc
[ -f "$tif" ] && [ -f "$nc" ] || { fail inputs "no $tif or $nc (tools.sh makes them)"; exit 0; }
co=(-of netCDF -co FORMAT=NC4)
skips=()
for a in history NCO CDI CDO GDAL _NCProperties; do skips+=(--skip "/@$a"); done

# same NAME NATIVE STORE: the store holds what the native file holds
same() {
  local name=$1 nat=$2 st=$3 out
  is_store "$st" || { echo "$st is not a store"; return 1; }
  out=$(h5diff_judge "$nat" "$st" "$G/$name.h5diff" --exclude-attribute /) || { echo "h5diff: $out"; return 1; }
  native h5dump -y -w 0 -m %.17g "$nat" 2>&1 | python3 /src/test/common/h5dump_data.py --attributes "${skips[@]}" >"$G/$name.nat.facts"
  conn h5dump -y -w 0 -m %.17g "$st" 2>&1 | python3 /src/test/common/h5dump_data.py --attributes "${skips[@]}" >"$G/$name.st.facts"
  [ -s "$G/$name.nat.facts" ] && cmp -s "$G/$name.nat.facts" "$G/$name.st.facts" ||
    { echo "h5dump values differ: $(diff "$G/$name.nat.facts" "$G/$name.st.facts" | grep '^[<>]' | head -n 2)"; return 1; }
  echo "h5diff and $(wc -l <"$G/$name.nat.facts") h5dump values equal to the native output"
}

# 1. gdal_translate into a directory store: the store is right, the exit status is 1, and
# nothing says why
rc=0
conn gdal_translate "${co[@]}" "$tif" "$G/translate.zarr" >"$G/translate.log" 2>&1 || rc=$?
native gdal_translate -q "${co[@]}" "$tif" "$G/translate.nc"
if [ "$rc" = 1 ] && grep -q '100 - done\.' "$G/translate.log" && ! grep -qiE 'error|fail' "$G/translate.log" &&
  out=$(same translate "$G/translate.nc" "$G/translate.zarr"); then
  limit gdal_translate "exit 1 after '100 - done.', no message; the store is complete ($out)"
else
  fail gdal_translate "changed (update README and this check): exit $rc: $(tail -n 2 "$G/translate.log" | tr '\n' ' ') ${out:-}"
fi

# 2. into a zip store
rc=0
conn gdal_translate -q "${co[@]}" "$tif" "$G/translate.zip" >"$G/translate-zip.log" 2>&1 || rc=$?
if [ "$rc" = 1 ] && [ "$(head -c 2 "$G/translate.zip" 2>/dev/null)" = PK ]; then
  limit "gdal_translate to .zip" "exit 1 the same way (a zip store is written)"
else
  fail "gdal_translate to .zip" "changed: exit $rc, $(ls -l "$G/translate.zip" 2>&1)"
fi

# 3. the NETCDF: prefix on the output name
rc=0
conn gdal_translate -q "${co[@]}" "$tif" "NETCDF:prefixed.zarr" >"$G/prefix.log" 2>&1 || rc=$?
if [ "$rc" = 1 ] && is_store "$G/NETCDF:prefixed.zarr" && [ ! -e "$G/prefixed.zarr" ]; then
  limit "gdal_translate to NETCDF:name" "exit 1; the store is named 'NETCDF:prefixed.zarr' (the prefix is not taken off)"
else
  fail "gdal_translate to NETCDF:name" "changed: exit $rc, $(ls -d "$G"/*prefixed* 2>&1 | tr '\n' ' ')"
fi

# 4. gdalmdimtranslate from a raster: CreateCopy again
rc=0
conn gdalmdimtranslate "${co[@]}" "$tif" "$G/mdim-raster.zarr" >"$G/mdim-raster.log" 2>&1 || rc=$?
if [ "$rc" = 1 ] && is_store "$G/mdim-raster.zarr" && ! grep -qiE 'error|fail' "$G/mdim-raster.log"; then
  limit "gdalmdimtranslate from GeoTIFF" "exit 1 after 'done', no message (raster source: CreateCopy)"
else
  fail "gdalmdimtranslate from GeoTIFF" "changed: exit $rc: $(tail -n 2 "$G/mdim-raster.log" | tr '\n' ' ')"
fi

# 5. what works: gdalmdimtranslate from a multidimensional source, gdalwarp, Python Create()
works() { # NAME NATIVE-OUT STORE-OUT CMD... (CMD gets the output name last)
  local name=$1 nat=$2 st=$3 rc=0 out
  shift 3
  native "$@" "$nat" >"$G/$name.native.log" 2>&1 || { fail "$name" "native run failed: $(tail -n 2 "$G/$name.native.log")"; return 0; }
  conn "$@" "$st" >"$G/$name.log" 2>&1 || rc=$?
  if [ "$rc" != 0 ]; then
    fail "$name" "exit $rc (measured 0): $(tail -n 2 "$G/$name.log" | tr '\n' ' ')"
  elif out=$(same "$name" "$nat" "$st"); then
    ok "$name" "exit 0; $out"
  else
    fail "$name" "exit 0 but: $out"
  fi
}
works "gdalmdimtranslate from netCDF" "$G/mdim.nc" "$G/mdim.zarr" gdalmdimtranslate "${co[@]}" "$nc"
works "gdalwarp -of netCDF" "$G/warp.nc" "$G/warp.zarr" gdalwarp -q "${co[@]}" "$tif"
cat >"$G/create.py" <<'EOF'
import sys
from osgeo import gdal
gdal.UseExceptions()
src = gdal.Open(sys.argv[1])
ds = gdal.GetDriverByName("netCDF").Create(sys.argv[2], src.RasterXSize, src.RasterYSize, 1, gdal.GDT_Float32,
                                           ["FORMAT=NC4"])
ds.SetGeoTransform(src.GetGeoTransform())
ds.SetProjection(src.GetProjection())
ds.GetRasterBand(1).SetNoDataValue(-9999)
ds.GetRasterBand(1).WriteArray(src.GetRasterBand(1).ReadAsArray())
ds = None
EOF
works "python gdal Create()" "$G/create.nc" "$G/create.zarr" python3 "$G/create.py" "$tif"
