#!/usr/bin/env bash
# The connector's codecs as plugin libraries (translate/plugin: libnczarr_filter_*.so, built
# into the connector's directory) serve the programs that have none of their own:
#  - native HDF5 (no connector): h5repack writes a native file with zstd, bzip2 and blosc
#    through the connector's directory alone, and the file reads alike through netCDF-C's
#    filter plugins alone (the same bytes as the standard filters), and the reverse;
#  - netCDF-C's NCZarr with the connector's directory alone on HDF5_PLUGIN_PATH (no netCDF-C
#    plugin): a store zarr-python 2 wrote with each numcodecs compressor, lz4 included (no
#    netCDF-C plugin has lz4), reads with zarr-python's values;
#  - a damaged chunk is an error in ncdump ("NetCDF: Filter error"), not values.
# (Stores the connector writes, read by ncdump with its directory alone: codecs_writer.sh.)
set -euo pipefail
: "${NCZARR_BUILD:?}" "${NCZARR_PREFIX:?}"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/nczarr-fplug.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
B=$NCZARR_PREFIX/bin
ours=$NCZARR_BUILD/vol_connector
theirs=$NCZARR_PREFIX/lib/plugin
fail=0
# HDF5's tools keep the sanitizer runtime a sanitizer build preloads (the plugins are built
# with it); netCDF-C's tools deadlock at exit under a preloaded ASan runtime (see
# netcdf_loads_connector.sh), so their steps run in the normal build.
native() { env -u HDF5_VOL_CONNECTOR "HDF5_PLUGIN_PATH=$1" "${@:2}"; }

echo "== native HDF5: h5repack with each filter, read back by the other side's plugins"
# chunked datasets that compress (blosc's plugin refuses chunks that do not)
env LD_PRELOAD= /usr/bin/python3 -c '
import sys, h5py, numpy as np
with h5py.File(sys.argv[1], "w") as f:
    f.create_dataset("t", data=np.sin(np.arange(40000, dtype="f4") / 50).reshape(200, 200), chunks=(50, 200))
    f.create_dataset("n", data=np.arange(20000, dtype="i2").reshape(100, 200) % 97, chunks=(25, 100))
' "$tmp/in.h5"
# filter id, flag, cd_values (h5repack's UD=): zstd level 5, bzip2 level 9, blosc lz4 clevel 5
for spec in zstd:32015,0,1,5 bz2:307,0,1,9 blosc:32001,0,7,0,0,0,0,5,1,1; do
  name=${spec%%:*} ud=${spec#*:}
  for w in ours theirs; do
    r=$([ $w = ours ] && echo theirs || echo ours)
    wdir=${!w} rdir=${!r}
    out="$tmp/$name.$w.h5"
    if ! native "$wdir" "$B/h5repack" -f "UD=$ud" "$tmp/in.h5" "$out" >"$tmp/err" 2>&1; then
      echo "FAIL: $name: h5repack with the $w plugins: $(head -c 400 "$tmp/err")"
      fail=1
      continue
    fi
    native "$rdir" "$B/h5dump" -p -H "$out" | grep -q "FILTER_ID ${ud%%,*}" ||
      { echo "FAIL: $name: $out does not hold filter ${ud%%,*}"; fail=1; continue; }
    if native "$rdir" "$B/h5diff" "$tmp/in.h5" "$out" >"$tmp/diff" 2>&1 && ! grep -qi "not comparable\|differences found" "$tmp/diff"; then
      echo "ok: $name written by the $w plugin reads alike through the $r plugins"
    else
      echo "FAIL: $name written by the $w plugin, read through the $r plugins: $(head -c 400 "$tmp/diff")"
      fail=1
    fi
  done
done

if [ -n "${NCZARR_SANITIZER:-}" ]; then
  echo "sanitizer build: the ncdump steps run in the normal build"
  [ "$fail" = 0 ] || { echo "FAIL: filter_plugins"; exit 1; }
  echo "filter_plugins: ok"
  exit 0
fi
echo "== netCDF-C's NCZarr with the connector's directory alone: zarr-python 2's compressors"
env LD_PRELOAD= /usr/bin/python3 - "$tmp" <<'PY'
import sys, numpy as np, zarr, numcodecs
d = sys.argv[1]
data = (np.arange(60, dtype="f4") * 1.5).reshape(6, 10)
comps = {"zlib": numcodecs.Zlib(4), "bz2": numcodecs.BZ2(9), "zstd": numcodecs.Zstd(3),
         "lz4": numcodecs.LZ4(1), "blosc": numcodecs.Blosc("zstd", 5, numcodecs.Blosc.SHUFFLE)}
for name, c in comps.items():
    g = zarr.open_group("%s/%s.zarr" % (d, name), mode="w")
    a = g.create_dataset("v", data=data, chunks=(3, 5), compressor=c,
                         filters=[numcodecs.Shuffle(4)] if name == "zlib" else None)
    a.attrs["_ARRAY_DIMENSIONS"] = ["y", "x"]
np.savetxt("%s/expected.txt" % d, data.reshape(-1), fmt="%.9g")
PY
for name in zlib bz2 zstd lz4 blosc; do
  url="file://$tmp/$name.zarr#mode=zarr,file"
  if ! native "$ours" "$B/ncdump" -v v -p 9 "$url" >"$tmp/$name.cdl" 2>"$tmp/err"; then
    echo "FAIL: $name: ncdump with the connector's directory alone: $(head -c 400 "$tmp/err")"
    fail=1
    continue
  fi
  sed -n '/^ v =/,/;/p' "$tmp/$name.cdl" | tr -d 'v=;,' | tr -s ' \n' '\n' | sed '/^$/d' >"$tmp/$name.got"
  if cmp -s <(awk '{printf "%.9g\n", $1}' "$tmp/expected.txt") <(awk '{printf "%.9g\n", $1}' "$tmp/$name.got"); then
    echo "ok: $name: ncdump reads zarr-python's values"
  else
    echo "FAIL: $name: ncdump's values differ from zarr-python's"
    head -n 5 "$tmp/$name.got"
    fail=1
  fi
done
# a chunk damaged: ncdump fails on it, it does not print its bytes as values
printf 'garbage-bytes-of-no-codec' >"$tmp/zstd.zarr/v/0.0"
if native "$ours" "$B/ncdump" -v v "file://$tmp/zstd.zarr#mode=zarr,file" >"$tmp/out" 2>&1; then
  echo "FAIL: ncdump read a damaged zstd chunk without an error"
  fail=1
elif grep -q "NetCDF: Filter error" "$tmp/out"; then
  echo "ok: a damaged chunk: $(grep -o "NetCDF: Filter error[^)]*" "$tmp/out" | head -n 1)"
else
  echo "FAIL: a damaged chunk: $(head -c 300 "$tmp/out")"
  fail=1
fi
[ "$fail" = 0 ] || { echo "FAIL: filter_plugins"; exit 1; }
echo "filter_plugins: ok"
