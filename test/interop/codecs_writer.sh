#!/usr/bin/env bash
# Compression set through the dcpl, written through the connector (codecs_writer.c: deflate,
# shuffle+deflate, blosc lz4 and zstd, zstd, bzip2, deflate+fletcher32; a float32 and an
# int16 dataset each). The writer reads each back and checks the filters its dcpl shows;
# then zarr-python 2 and 3 and ncdump (netCDF-C's NCZarr with its filter plugins) must read
# every dataset with the values the writer dumped raw, and each .zarray must hold the
# numcodecs chain with integer parameters and shuffle's real element size
# (codecs_check.py); ncdump again with the connector's own filter libraries in place of
# netCDF-C's plugins. Every failing case is named; the test fails when any does.
set -euo pipefail
: "${NCZARR_BUILD:?}" "${NCZARR_PREFIX:?}" "${NCZARR_ZARR3_PYTHON:?}"
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../common/judge.sh"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/nczarr-codecs-w.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
# python and ncdump read natively, without the connector; ncdump finds netCDF-C's filter
# plugins (and its codec tables) on HDF5_PLUGIN_PATH.
native=(env -u HDF5_VOL_CONNECTOR -u HDF5_PLUGIN_PATH LD_PRELOAD=)
ncdump=(env -u HDF5_VOL_CONNECTOR LD_PRELOAD= "HDF5_PLUGIN_PATH=$NCZARR_PREFIX/lib/plugin" "$NCZARR_PREFIX/bin/ncdump")
store="$tmp/codecs.zarr"
fail=0

echo "== the writer (through the connector): write, read back, H5Pget_filter2"
set +e
"$NCZARR_BUILD/test/interop_codecs_writer" "$store" "$tmp" >"$tmp/writer.txt" 2>"$tmp/writer.err"
rc=$?
set -e
cat "$tmp/writer.txt"
if [ "$rc" != 0 ]; then
  echo "FAIL: the writer (exit $rc) $(head -c 600 "$tmp/writer.err")"
  fail=1
fi
assert_store "$store" "codecs_writer" || exit 1

for py in /usr/bin/python3 "$NCZARR_ZARR3_PYTHON"; do
  echo "== $py: $("${native[@]}" "$py" -c 'import zarr; print("zarr-python", zarr.__version__)')"
  "${native[@]}" "$py" "$here/codecs_check.py" zarr "$store" "$tmp" || fail=1
done

echo "== .zarray: numcodecs chains, integer parameters, shuffle's element size"
"${native[@]}" /usr/bin/python3 "$here/codecs_check.py" zarray "$store" || fail=1

echo "== ncdump -p 9,17 (netCDF-C's NCZarr reader)"
mkdir "$tmp/cdl"
for v in $(/usr/bin/python3 "$here/codecs_check.py" names); do
  [ -f "$store/$v/.zarray" ] || continue # codecs_check.py names it
  "${ncdump[@]}" -v "$v" -p 9,17 "file://$store#mode=nczarr,file" >"$tmp/cdl/$v.cdl" 2>"$tmp/cdl/$v.err" ||
    { echo "ncdump -v $v failed: $(head -c 300 "$tmp/cdl/$v.err")"; }
done
"${native[@]}" /usr/bin/python3 "$here/codecs_check.py" cdl "$tmp/cdl" "$tmp" || fail=1

# netCDF-C with none of its own codec plugins, as distributions build it with plugins: the
# connector's directory alone on HDF5_PLUGIN_PATH (its filter libraries, translate/plugin),
# then before and after netCDF-C's own plugin directory (netCDF-C takes each half of a codec
# from the first library that has it).
# (The sanitizer builds' plugins need their runtime, under which netCDF-C's tools deadlock at
# exit: netcdf_loads_connector.sh. These steps run in the normal build.)
paths=("$NCZARR_BUILD/vol_connector" "$NCZARR_BUILD/vol_connector:$NCZARR_PREFIX/lib/plugin"
  "$NCZARR_PREFIX/lib/plugin:$NCZARR_BUILD/vol_connector")
[ -n "${NCZARR_SANITIZER:-}" ] && paths=() && echo "sanitizer build: ncdump with the connector's filter libraries runs in the normal build"
for path in "${paths[@]}"; do
  echo "== ncdump -p 9,17 with HDF5_PLUGIN_PATH=$path"
  rm -rf "$tmp/cdl" && mkdir "$tmp/cdl"
  for v in $(/usr/bin/python3 "$here/codecs_check.py" names); do
    [ -f "$store/$v/.zarray" ] || continue
    env -u HDF5_VOL_CONNECTOR LD_PRELOAD= "HDF5_PLUGIN_PATH=$path" "$NCZARR_PREFIX/bin/ncdump" -v "$v" -p 9,17 \
      "file://$store#mode=nczarr,file" >"$tmp/cdl/$v.cdl" 2>"$tmp/cdl/$v.err" ||
      { echo "ncdump -v $v failed: $(head -c 300 "$tmp/cdl/$v.err")"; }
  done
  "${native[@]}" /usr/bin/python3 "$here/codecs_check.py" cdl "$tmp/cdl" "$tmp" || fail=1
done

[ "$fail" = 0 ] && echo "every case reads alike in zarr-python 2 and 3 and ncdump" || { echo "FAIL (cases above)"; exit 1; }
