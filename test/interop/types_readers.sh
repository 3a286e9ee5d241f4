#!/usr/bin/env bash
# Types and names a store keeps in the connector's own forms (types_writer.c): values with
# variable-length parts inside (one JSON text per element, "vlen-utf8"), numbers no Zarr
# dtype describes (a "|V<n>" field, the exact HDF5 type kept), link names a key cannot
# hold (an escaped key name, the link name in "_nczarr_group.hdf5_names"). h5dump shows the
# store as the same program's native file, h5diff finds no difference and compares every
# object, and zarr-python 3 reads the texts as the values; ncdump reads the store.
set -euo pipefail
: "${NCZARR_BUILD:?}" "${NCZARR_PREFIX:?}" "${NCZARR_ZARR3_PYTHON:?}"
. "$(cd "$(dirname "$0")" && pwd)/../common/judge.sh"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/nczarr-types.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
writer="$NCZARR_BUILD/test/interop_types_writer"
store="$tmp/types.zarr"
"$writer" "$store"
assert_store "$store" "types_readers" || exit 1
env -u HDF5_VOL_CONNECTOR -u HDF5_PLUGIN_PATH LD_PRELOAD= "$writer" "$tmp/types.h5"

compare_h5dump "$tmp/types.h5" "$store" "types_readers"
compare_h5dump "$tmp/types.h5" "$store" "types_readers, in creation order" --sort_by=creation_order
# h5diff exits 0 when it skips objects it cannot compare: none may be skipped. The long
# doubles are left to h5dump above: native HDF5 writes x87 long doubles with whatever its
# conversion buffer held in their 6 padding bytes, and h5diff counts bytes that differ.
"$NCZARR_PREFIX/bin/h5diff" -c --exclude-path /long_double "$tmp/types.h5" "$store" >"$tmp/diff.txt" 2>&1 ||
  { echo "FAIL: h5diff:"; cat "$tmp/diff.txt"; exit 1; }
if grep -q . "$tmp/diff.txt"; then echo "FAIL: h5diff skipped objects:"; cat "$tmp/diff.txt"; exit 1; fi
echo "ok: h5diff compares every object and finds no difference"

for k in _%2Ehidden/_%2Edata plain/_%2Edata _%2Erecords opaque100; do
  [ -d "$store/$k" ] || { echo "FAIL: no key $k:"; ls -a "$store"; exit 1; }
done
env LD_PRELOAD= "$NCZARR_ZARR3_PYTHON" - "$store" <<'PYEOF'
import json, sys, zarr
g = zarr.open_group(sys.argv[1], mode="r", zarr_format=2)
recs = [json.loads(t) for t in g["_%2Erecords"][:]]
assert recs == [{"i": 1, "s": "one", "v": [1, 2, 3]}, {"i": 2, "s": None, "v": []},
                {"i": 3, "s": "drei \u00fc", "v": [-7]}], recs
assert [json.loads(t) for t in g["seq_of_seqs"][:]] == [[[5, 6], [], [7]], [[7]]]
assert [json.loads(t) for t in g["array_of_seqs"][:]] == [[[5, 6], [7]], [[], [5, 6]]]
sc = [json.loads(t) for t in g["seq_of_compounds"][:]]
assert sc == [[{"x": 1, "y": 0.5}, {"x": -2, "y": 1e300}], [{"x": 3, "y": -0.0}]], sc
op = g["opaque100"][:]
assert op.dtype.itemsize == 100 and bytes(op[1][0])[:3] == bytes([700 % 256, 707 % 256, 714 % 256])
assert g["long_double"].dtype.itemsize == 16
names = g.attrs.asdict()["_nczarr_group"]["hdf5_names"]
assert names["_%2Ehidden"] == ".hidden" and names["_%2Erecords"] == ".records", names
assert any(v == "n" * 300 for v in names.values()), names
print("zarr-python 3 reads the JSON texts, the raw bytes and the names: ok")
PYEOF
# a record over 1 MiB: zarr-python 2 (zarr-python 3 has no structured dtype with a subarray)
env LD_PRELOAD= /usr/bin/python3 - "$store/big_record" <<'PYEOF'
import json, sys, zarr
big = zarr.open_array(sys.argv[1], mode="r")
assert big.fill_value is None and big[0]["value"][1001] == 250.25, (big.fill_value, big[0]["value"][1001])
assert json.load(open(sys.argv[1] + "/.zattrs"))["_nczarr_array"]["fill_zero"] == 1
print("zarr-python 2 reads the 1.1 MB record, fill_value null: ok")
PYEOF
nc_native "$NCZARR_PREFIX/bin/ncdump" -h "$(store_url "$store")" >"$tmp/out.cdl" 2>&1 ||
  { echo "FAIL: ncdump:"; cat "$tmp/out.cdl"; exit 1; }
echo "ok: ncdump reads the store"
