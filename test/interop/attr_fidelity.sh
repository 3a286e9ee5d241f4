#!/usr/bin/env bash
# Attribute fidelity. An HDF5 program (attr_fidelity.c) writes text attributes that look
# like JSON, as fixed- and variable-length strings on a group and a dataset, plus
# attributes without elements (H5S_NULL, and a 1-D dataspace of 0 elements), natively and
# through the connector, and one value of each kind as a scalar and as 1-D of one element.
# Every reader must see the same text, byte for byte, and h5dump the same types and shapes:
# h5dump (native file vs store through the connector: Zarr v2 and v3, directory, zip and
# S3), zarr-python and ncdump (netCDF-C's own NCZarr reader, without the connector). Then empty JSON lists: written by zarr-python
# they read as H5S_NULL attributes, and stay [] when the connector rewrites the store.
set -euo pipefail
: "${NCZARR_BUILD:?}" "${NCZARR_PREFIX:?}"
. "$(cd "$(dirname "$0")" && pwd)/../common/judge.sh"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/nczarr-af.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
native=(env -u HDF5_VOL_CONNECTOR -u HDF5_PLUGIN_PATH LD_PRELOAD=)
# netCDF-C reads NCZarr itself; the connector on its plugin path would break it (README)
netcdf=(env -u HDF5_VOL_CONNECTOR "HDF5_PLUGIN_PATH=$NCZARR_PREFIX/lib/plugin" LD_PRELOAD=)
prog="$NCZARR_BUILD/test/interop_attr_fidelity"
fail=0

"${native[@]}" "$prog" "$tmp/native.h5"
"$prog" "$tmp/store.zarr"
assert_store "$tmp/store.zarr" attr_fidelity || exit 1

echo "== h5dump: native file vs store through the connector (attributes)"
"${native[@]}" "$NCZARR_PREFIX/bin/h5dump" -A "$tmp/native.h5" | sed 1d >"$tmp/native.ddl"
"$NCZARR_PREFIX/bin/h5dump" -A "$tmp/store.zarr" | sed 1d >"$tmp/store.ddl"
if diff -u "$tmp/native.ddl" "$tmp/store.ddl"; then echo "same DDL ($(wc -l <"$tmp/store.ddl") lines)"; else fail=1; fi
grep -q 'DATASPACE  NULL' "$tmp/store.ddl" || { echo "FAIL: no H5S_NULL attribute in the store's DDL"; fail=1; }

echo "== the same program's store in Zarr v3, in zip archives and on S3: the native file's DDL"
targets=("v3|$tmp/store3.zarr" "|$tmp/store.zip" "v3|$tmp/store3.zip")
if [ -n "${NCZ_S3_ENV:-}" ]; then
  # the server's settings, credentials and CA (test/s3/s3_common.sh)
  . "$(cd "$(dirname "$0")" && pwd)/../s3/s3_common.sh"
  bucket=attrs-$$-$RANDOM
  targets+=("|$NCZ_S3_HTTPS_ENDPOINT/$bucket/v2#mode=nczarr,s3" "v3|$NCZ_S3_HTTPS_ENDPOINT/$bucket/v3#mode=nczarr,s3")
fi
for t in "${targets[@]}"; do
  opt=${t%%|*} name=${t#*|}
  if ! HDF5_VOL_CONNECTOR="nczarr $opt" "$prog" "$name" ||
    ! "$NCZARR_PREFIX/bin/h5dump" -A "$name" | sed 1d >"$tmp/kind.ddl"; then
    echo "FAIL: ${opt:-v2} $name: written or dumped with an error"
    fail=1
  elif diff -u "$tmp/native.ddl" "$tmp/kind.ddl"; then
    echo "same DDL: ${opt:-v2} $name"
  else
    echo "FAIL: ${opt:-v2} $name: the DDL differs from the native file's"
    fail=1
  fi
done

echo "== ncdump of the store"
"${netcdf[@]}" "$NCZARR_PREFIX/bin/ncdump" -h "file://$tmp/store.zarr#mode=nczarr,file" >"$tmp/store.cdl" ||
  { echo "FAIL: ncdump cannot read the store"; cat "$tmp/store.cdl"; exit 1; }

echo "== zarr-python and ncdump see the texts h5py reads from the native file"
check_texts() {
  "${native[@]}" /usr/bin/python3 - "$tmp/native.h5" "$tmp/store.zarr" "$tmp/store.cdl" <<'PY'
import json, sys, h5py, zarr
native, store, cdl = h5py.File(sys.argv[1], "r"), zarr.open_group(sys.argv[2], mode="r"), open(sys.argv[3]).read()
lines = set(l.strip() for l in cdl.splitlines())

def text(v):
    return v.decode() if isinstance(v, bytes) else str(v)

def cdl_string(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'

bad = 0
for path, cdl_prefix in (("g", ""), ("g/d", "d")):
    h, z = native[path].attrs, store[path].attrs
    names = [n for n in h if n.startswith(("c_", "s_"))]
    assert len(names) == 18, names
    for n in names:
        want = text(h[n])
        got = z[n]
        if n == "c_canonical":
            # exactly NCZarr's JSON spelling: stored as JSON (NCZarr's convention)
            ok = got == json.loads(want)
        else:
            ok = got == want
        if not ok:
            print(f"FAIL zarr-python {path}:{n}: {got!r} != {want!r}"); bad = 1
        line = ("string " if n.startswith("s_") else "") + f"{cdl_prefix}:{n} = {cdl_string(want)} ;"
        if line not in lines:
            print(f"FAIL ncdump {path}:{n}: no line {line!r}"); bad = 1
    for n in ("empty", "zero"):
        if list(z[n]) != [] or not isinstance(z[n], list):
            print(f"FAIL zarr-python {path}:{n}: {z[n]!r} != []"); bad = 1
    # a compound attribute is JSON: an object for zarr-python, its text for netCDF-C
    if z["rec"] != {"a": 1, "b": 2}:
        print(f"FAIL zarr-python {path}:rec: {z['rec']!r}"); bad = 1
    line = f'{cdl_prefix}:rec = {cdl_string(json.dumps({"a": 1, "b": 2}))} ;'
    if line not in lines:
        print(f"FAIL ncdump {path}:rec: no line {line!r}"); bad = 1
sys.exit(bad)
PY
}
if check_texts; then echo "zarr-python and ncdump agree with h5py"; else fail=1; fi

echo "== the connector rewrites the objects: texts and empty attributes unchanged"
"$prog" --add "$tmp/store.zarr" /g /g/d
"${netcdf[@]}" "$NCZARR_PREFIX/bin/ncdump" -h "file://$tmp/store.zarr#mode=nczarr,file" >"$tmp/store.cdl" ||
  { echo "FAIL: ncdump cannot read the rewritten store"; fail=1; }
grep -q 'd:added = 42 ;' "$tmp/store.cdl" || { echo "FAIL: the added attribute is missing"; fail=1; }
if check_texts; then echo "zarr-python and ncdump still agree"; else fail=1; fi
"${native[@]}" /usr/bin/python3 - "$tmp/store.zarr" <<'PY' || fail=1
import sys, zarr
g = zarr.open_group(sys.argv[1], mode="r")
for p in ("g", "g/d"):
    assert g[p].attrs["added"] == 42 and g[p].attrs["empty"] == [] and g[p].attrs["zero"] == [], dict(g[p].attrs)
print("zarr-python: [] kept")
PY
"$NCZARR_PREFIX/bin/h5dump" -A "$tmp/store.zarr" | sed 1d >"$tmp/store2.ddl"
"${native[@]}" "$prog" --add "$tmp/native.h5" /g /g/d
"${native[@]}" "$NCZARR_PREFIX/bin/h5dump" -A "$tmp/native.h5" | sed 1d >"$tmp/native2.ddl"
if diff -u "$tmp/native2.ddl" "$tmp/store2.ddl"; then echo "same DDL after the rewrite"; else fail=1; fi

echo "== zarr-python's attrs[\"e\"] = []: an attribute without elements, [] after a rewrite"
"${native[@]}" /usr/bin/python3 - "$tmp/py.zarr" <<'PY'
import sys, zarr
g = zarr.open_group(sys.argv[1], mode="w")
g.attrs["e"] = []
g.attrs["nested"] = {"a": 1}
a = g.zeros("arr", shape=(2,), dtype="i4")
a.attrs["e"] = []
PY
"$NCZARR_PREFIX/bin/h5dump" -A "$tmp/py.zarr" >"$tmp/py.ddl"
"${native[@]}" /usr/bin/python3 - "$tmp/py.ddl" <<'PY' || fail=1
import re, sys
ddl = open(sys.argv[1]).read()
blocks = re.findall(r'ATTRIBUTE "e" \{\s*DATATYPE\s+(\S+)\s*DATASPACE\s+(\S+)', ddl)
assert len(blocks) == 2 and all(b == ("H5T_IEEE_F64LE", "NULL") for b in blocks), (blocks, ddl)
assert 'ATTRIBUTE "nested"' in ddl and '"{"a": 1}"' in ddl, ddl
print("h5dump: both are H5S_NULL; the JSON object reads as its text")
PY
"$prog" --add "$tmp/py.zarr" / /arr
if grep -rl "_nczarr" "$tmp/py.zarr"; then echo "FAIL: NCZarr keys written into a pure Zarr store"; fail=1; fi
"${native[@]}" /usr/bin/python3 - "$tmp/py.zarr" <<'PY' || fail=1
import sys, zarr
g = zarr.open_group(sys.argv[1], mode="r")
assert dict(g.attrs) == {"e": [], "nested": {"a": 1}, "added": 42}, dict(g.attrs)
# (the connector also writes xarray's _ARRAY_DIMENSIONS for the array)
arr = {k: v for k, v in g["arr"].attrs.items() if k != "_ARRAY_DIMENSIONS"}
assert arr == {"e": [], "added": 42}, arr
print("zarr-python: [] and the JSON object kept after the rewrite")
PY

[ "$fail" = 0 ] && echo "attributes kept their text and shape everywhere" || { echo "FAIL"; exit 1; }
