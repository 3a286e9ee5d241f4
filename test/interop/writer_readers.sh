#!/usr/bin/env bash
# The interop writer (an ordinary HDF5 program covering the data model) runs twice: with
# native HDF5 and through the connector. Then independent judges compare the results:
#  1. h5py reads the native file, zarr-python 2 and 3 the store: every dataset and
#     attribute agree (compare_values);
#  2. ncdump reads the native file (netCDF-C's HDF5 reader) and the store (its NCZarr
#     reader): the same CDL, up to how anonymous dimensions are called (compare_ncdump);
#  3. h5dump shows the native file and, through the connector, the store identically.
set -euo pipefail
: "${NCZARR_BUILD:?}" "${NCZARR_PREFIX:?}" "${NCZARR_ZARR3_PYTHON:?}"
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../common/judge.sh"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/nczarr-iw.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
native=(env -u HDF5_VOL_CONNECTOR -u HDF5_PLUGIN_PATH LD_PRELOAD=)
writer="$NCZARR_BUILD/test/interop_writer"
# zarr-python 3.1 has no data type for ">S1" (netCDF-C's spelling of NC_CHAR, which the
# connector writes for HDF5's 1-byte strings): it refuses those arrays of netCDF-C's stores too.
zarr3_char="zarr-python 3.1 has no data type for >S1 (NC_CHAR)"
fail=0

"${native[@]}" "$writer" "$tmp/native.h5"
"$writer" "$tmp/store.zarr"
assert_store "$tmp/store.zarr" "interop_writer"

echo "== 1. h5py (native file) vs zarr-python 2 and 3 (store)"
compare_values "$tmp/native.h5" "$tmp/store.zarr" "plain" || fail=1
compare_values "$tmp/native.h5" "$tmp/store.zarr" "plain" --python "$NCZARR_ZARR3_PYTHON" \
  --unreadable "/strings/label=$zarr3_char" || fail=1

echo "== 2. ncdump (native file) vs ncdump (store, netCDF-C's NCZarr reader)"
# NCZarr keeps fixed-length strings: "" is stored as zero bytes, which netCDF-C's NCZarr
# reader shows as NIL (its own stores read the same way)
compare_ncdump "$tmp/native.h5" "$tmp/store.zarr" "plain" --nil-as-empty || fail=1

echo "== 3. h5dump (native file) vs h5dump through the connector (store)"
compare_h5dump "$tmp/native.h5" "$tmp/store.zarr" "plain" || fail=1

echo "== enum, compound and array types (interop_writer --types)"
"${native[@]}" "$writer" "$tmp/tnative.h5" --types
"$writer" "$tmp/tstore.zarr" --types
assert_store "$tmp/tstore.zarr" "interop_writer --types"
echo "-- 1. h5py vs zarr-python 2 and 3"
compare_values "$tmp/tnative.h5" "$tmp/tstore.zarr" "types" || fail=1
# zarr-python 3.1 reads structured dtypes only with scalar fields of base types
compare_values "$tmp/tnative.h5" "$tmp/tstore.zarr" "types" --python "$NCZARR_ZARR3_PYTHON" \
  --unreadable "/strings/label=$zarr3_char" \
  --unreadable "/usertypes/table=zarr-python 3.1 has no structured type with a nested or array field" \
  --unreadable "/usertypes/vectors=zarr-python 3.1 has no structured type with an array field" || fail=1
# netCDF-C cannot read structured dtypes: compound/array datasets are kept out of its array
# lists, so ncdump must still read the store, show every line it shows of the plain store
# (the typed store is the plain one plus the typed datasets), and show the enum datasets
# as their integers.
echo "-- 2. ncdump reads the rest of the store"
if dump_store "$tmp/store.zarr" --nil-as-empty >"$tmp/store.cdl" &&
  dump_store "$tmp/tstore.zarr" --nil-as-empty >"$tmp/tstore.cdl"; then
  # the plain store's lines the typed store's dump lacks (comm needs sorted input)
  sort "$tmp/store.cdl" >"$tmp/store.sorted"
  sort "$tmp/tstore.cdl" >"$tmp/tstore.sorted"
  comm -23 "$tmp/store.sorted" "$tmp/tstore.sorted" >"$tmp/lost"
  if [ -s "$tmp/lost" ]; then
    sed 's/^/    < /' "$tmp/lost" | head -n 40
    echo "FAIL: ncdump of the typed store lost $(wc -l <"$tmp/lost") lines of the plain store (above)"
    fail=1
  elif ! grep -qF 'int color(_anon_2, _anon_3) ;' "$tmp/tstore.cdl" ||
    ! grep -qF 'byte flag(_anon_4) ;' "$tmp/tstore.cdl"; then
    echo "FAIL: ncdump does not show the enum datasets"
    sed -n '/ color(\| flag(/p' "$tmp/tstore.cdl"
    fail=1
  else
    echo "ok: ncdump reads it ($(wc -l <"$tmp/tstore.cdl") lines, every line of the plain store's)"
  fi
else
  echo "FAIL: ncdump cannot read the typed store"
  fail=1
fi
echo "-- 3. h5dump native vs connector"
compare_h5dump "$tmp/tnative.h5" "$tmp/tstore.zarr" "types" || fail=1

[ "$fail" = 0 ] && echo "all three judges agree" || { echo "FAIL"; exit 1; }
