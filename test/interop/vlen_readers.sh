#!/usr/bin/env bash
# Variable-length sequences both ways: a dataset of them written through the connector is
# read by zarr-python as an object array (numcodecs "vlen-array") while ncdump still reads
# the store's other variable; a ragged array zarr-python writes is read by h5dump (its
# element 1, never written, was stored by zarr-python as its fill value 0, that is [0]).
set -euo pipefail
: "${NCZARR_BUILD:?}" "${NCZARR_PREFIX:?}"
. "$(cd "$(dirname "$0")" && pwd)/../common/judge.sh"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/nczarr-vlen.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
py=/usr/bin/python3

store="$tmp/ragged.zarr"
"$NCZARR_BUILD/test/interop_vlen_writer" "$store" >/dev/null
assert_store "$store" "vlen_readers" || exit 1
env -u LD_PRELOAD $py - "$store" <<'PYEOF'
import sys, zarr
g = zarr.open_group(sys.argv[1], mode="r")
r = g["ragged"]
assert r.dtype == object, r.dtype
got = [list(map(int, x)) for x in r[:]]
want = [[10 * i + k for k in range(i)] for i in range(5)]
assert got == want, got
assert list(g["plain"][:]) == [0, 1, 4, 9, 16]
print("zarr-python reads the sequences:", got)
PYEOF
env -u HDF5_VOL_CONNECTOR -u HDF5_PLUGIN_PATH LD_PRELOAD= "$NCZARR_PREFIX/bin/ncdump" \
  "file://$store#mode=nczarr,file" >"$tmp/out.cdl"
grep -qF 'plain = 0, 1, 4, 9, 16 ;' "$tmp/out.cdl" || { echo "FAIL: ncdump:"; cat "$tmp/out.cdl"; exit 1; }
echo "ncdump reads the rest of the store: ok"

foreign="$tmp/foreign.zarr"
env -u LD_PRELOAD $py - "$foreign" <<'PYEOF'
import sys, zarr, numcodecs, numpy as np
z = zarr.open(sys.argv[1], mode="w", shape=(4,), chunks=(3,), dtype=object,
              object_codec=numcodecs.VLenArray("<f8"), compressor=None)
z[0] = np.array([1.5, 2.5])
z[2] = np.array([], dtype="<f8")
z[3] = np.array([-1.0, 0.0, 1.0])
PYEOF
"$NCZARR_PREFIX/bin/h5dump" "$foreign" >"$tmp/dump.txt" 2>&1 || { echo "FAIL: h5dump:"; cat "$tmp/dump.txt"; exit 1; }
grep -qF 'H5T_VLEN { H5T_IEEE_F64LE }' "$tmp/dump.txt" &&
  grep -qF '(0): (1.5, 2.5), (0), (), (-1, 0, 1)' "$tmp/dump.txt" ||
  { echo "FAIL: h5dump of zarr-python's ragged array:"; cat "$tmp/dump.txt"; exit 1; }
echo "h5dump reads zarr-python's ragged array: ok"
