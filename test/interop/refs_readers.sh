#!/usr/bin/env bash
# Attributes holding object references (test_vol_refs --write): stored as the objects'
# paths, they are shown by h5dump through the connector as the same program's native HDF5
# file shows them (the file name apart), ncdump still reads the store (plain references as
# strings, the others as JSON text), and zarr-python 2 and 3 read the paths as JSON.
set -euo pipefail
: "${NCZARR_BUILD:?}" "${NCZARR_PREFIX:?}" "${NCZARR_ZARR3_PYTHON:?}"
. "$(cd "$(dirname "$0")" && pwd)/../common/judge.sh"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/nczarr-refs.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
writer="$NCZARR_BUILD/test/test_vol_refs"
store="$tmp/refs.zarr"
"$writer" --write "$store"
assert_store "$store" "refs_readers" || exit 1
env -u HDF5_VOL_CONNECTOR -u HDF5_PLUGIN_PATH LD_PRELOAD= "$writer" --write-native "$tmp/refs.h5"

# h5dump prints each reference as the file name and the object's path
timeout 60 "$NCZARR_PREFIX/bin/h5dump" "$store" 2>"$tmp/zarr.err" | sed "s#$store#FILE#g" >"$tmp/zarr.txt" ||
  { echo "FAIL: h5dump of the store:"; cat "$tmp/zarr.txt" "$tmp/zarr.err"; exit 1; }
env -u HDF5_VOL_CONNECTOR -u HDF5_PLUGIN_PATH LD_PRELOAD= timeout 60 "$NCZARR_PREFIX/bin/h5dump" \
  "$tmp/refs.h5" | sed "s#$tmp/refs.h5#FILE#g" >"$tmp/native.txt"
if ! diff -u "$tmp/native.txt" "$tmp/zarr.txt"; then
  echo "FAIL: h5dump shows the store unlike the native file"; exit 1
fi
if [ -s "$tmp/zarr.err" ]; then
  echo "FAIL: h5dump of the store wrote errors:"; cat "$tmp/zarr.err"; exit 1
fi
grep -qF 'DATASET "FILE/g/dd"' "$tmp/zarr.txt" || { echo "FAIL: no reference in the dump:"; cat "$tmp/zarr.txt"; exit 1; }
echo "h5dump shows the references as in the native file: ok"

env -u HDF5_VOL_CONNECTOR -u HDF5_PLUGIN_PATH LD_PRELOAD= "$NCZARR_PREFIX/bin/ncdump" \
  "file://$store#mode=nczarr,file" >"$tmp/out.cdl" 2>&1 || { echo "FAIL: ncdump:"; cat "$tmp/out.cdl"; exit 1; }
for want in 'string :scalar = "/g/dd" ;' 'string :grid = "/g", "/top", "/g/dd", "/" ;' \
  ':list = "[\"/g\",\"/g/dd\",null]" ;' 'string top:back = "/" ;'; do
  grep -qF "$want" "$tmp/out.cdl" || { echo "FAIL: ncdump lacks $want:"; cat "$tmp/out.cdl"; exit 1; }
done
echo "ncdump reads the store: ok"

for py in /usr/bin/python3 "$NCZARR_ZARR3_PYTHON"; do
  env -u LD_PRELOAD "$py" - "$store" <<'PYEOF'
import sys, zarr
g = zarr.open_group(sys.argv[1], mode="r")
a = dict(g.attrs)
assert a["scalar"] == "/g/dd", a
assert a["list"] == ["/g", "/g/dd", None], a
assert a["vl"] == [["/g/dd", "/top"], []], a
assert a["cmp"] == [{"dataset": "/g/dd", "dimension": 0}, {"dataset": "/top", "dimension": 1}], a
assert a["grid"] == ["/g", "/top", "/g/dd", "/"], a
assert dict(g["g"].attrs)["svl"] == ["/top"]
assert dict(g["top"].attrs)["back"] == "/"
print("zarr-python", zarr.__version__, "reads the paths: ok")
PYEOF
done
