#!/usr/bin/env bash
# The interop writer (an ordinary HDF5 program covering the data model) runs twice: with
# native HDF5 and through the connector. Then three independent judges compare the results:
#  1. h5py reads the native file, zarr-python the store: every dataset and attribute agree;
#  2. ncdump reads the native file (netCDF-C's HDF5 reader) and the store (its NCZarr reader):
#     the same CDL, up to how unnamed dimensions are called;
#  3. h5dump shows the native file and, through the connector, the store identically.
set -euo pipefail
: "${NCZARR_BUILD:?}" "${NCZARR_PREFIX:?}"
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/nczarr-iw.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
native=(env -u HDF5_VOL_CONNECTOR -u HDF5_PLUGIN_PATH LD_PRELOAD=)
writer="$NCZARR_BUILD/test/interop_writer"

"${native[@]}" "$writer" "$tmp/native.h5"
"$writer" "$tmp/store.zarr"
[ -f "$tmp/store.zarr/.zgroup" ] || { echo "FAIL: the connector did not write a Zarr store"; exit 1; }
fail=0

echo "== 1. h5py (native file) vs zarr-python (store)"
"${native[@]}" /usr/bin/python3 "$here/compare_h5_zarr.py" "$tmp/native.h5" "$tmp/store.zarr" || fail=1

echo "== 2. ncdump (native file) vs ncdump (store, netCDF-C's NCZarr reader)"
"${native[@]}" "$NCZARR_PREFIX/bin/ncdump" "$tmp/native.h5" | python3 "$here/normalize_cdl.py" >"$tmp/native.cdl"
"${native[@]}" "$NCZARR_PREFIX/bin/ncdump" "file://$tmp/store.zarr#mode=nczarr,file" |
  python3 "$here/normalize_cdl.py" >"$tmp/store.cdl"
if diff -u "$tmp/native.cdl" "$tmp/store.cdl"; then echo "same CDL ($(wc -l <"$tmp/store.cdl") lines)"; else fail=1; fi

echo "== 3. h5dump (native file) vs h5dump through the connector (store)"
"${native[@]}" "$NCZARR_PREFIX/bin/h5dump" "$tmp/native.h5" | sed 1d >"$tmp/native.ddl"
"$NCZARR_PREFIX/bin/h5dump" "$tmp/store.zarr" | sed 1d >"$tmp/store.ddl"
if diff -u "$tmp/native.ddl" "$tmp/store.ddl"; then echo "same DDL ($(wc -l <"$tmp/store.ddl") lines)"; else fail=1; fi

echo "== enum, compound and array types (interop_writer --types)"
"${native[@]}" "$writer" "$tmp/tnative.h5" --types
"$writer" "$tmp/tstore.zarr" --types
echo "-- 1. h5py vs zarr-python"
"${native[@]}" /usr/bin/python3 "$here/compare_h5_zarr.py" "$tmp/tnative.h5" "$tmp/tstore.zarr" || fail=1
# netCDF-C 4.9.3 cannot read structured dtypes: compound/array datasets are kept out of its
# array lists, so ncdump must still read the store, show everything the plain store shows,
# and show the enum datasets as their integers.
echo "-- 2. ncdump reads the rest of the store"
if "${native[@]}" "$NCZARR_PREFIX/bin/ncdump" "file://$tmp/tstore.zarr#mode=nczarr,file" |
  python3 "$here/normalize_cdl.py" >"$tmp/tstore.cdl"; then
  if diff "$tmp/store.cdl" "$tmp/tstore.cdl" | grep -q '^<'; then
    echo "FAIL: ncdump of the typed store lost lines of the plain store"; fail=1
  elif ! grep -q 'int color(2 dims)' "$tmp/tstore.cdl" || ! grep -q 'byte flag(1 dims)' "$tmp/tstore.cdl"; then
    echo "FAIL: ncdump does not show the enum datasets"; fail=1
  else
    echo "ncdump reads it ($(wc -l <"$tmp/tstore.cdl") lines)"
  fi
else
  echo "FAIL: ncdump cannot read the typed store"; fail=1
fi
echo "-- 3. h5dump native vs connector"
"${native[@]}" "$NCZARR_PREFIX/bin/h5dump" "$tmp/tnative.h5" | sed 1d >"$tmp/tnative.ddl"
"$NCZARR_PREFIX/bin/h5dump" "$tmp/tstore.zarr" | sed 1d >"$tmp/tstore.ddl"
if diff -u "$tmp/tnative.ddl" "$tmp/tstore.ddl"; then echo "same DDL ($(wc -l <"$tmp/tstore.ddl") lines)"; else fail=1; fi

[ "$fail" = 0 ] && echo "all three judges agree" || { echo "FAIL"; exit 1; }
