#!/usr/bin/env bash
# Zarr v3 stores that zarr-python 3 and xarray write (v3_make.py: every integer and float
# type in both byte orders, bool, complex, datetime64, structured, text ("string", numpy "U" and "S",
# variable-length bytes), fill values including NaN, infinities and hex bit patterns, 1-D to
# 3-D, transpose, gzip, zstd with a checksum, blosc, crc32c, no codec, sharding 1-D and 2-D
# with partial and missing shards and inner chunks and the index at either end, strings in
# shards, both chunk key encodings, nested groups, consolidated metadata) read through the
# connector with zarr-python's values: h5dump's binary output (text: h5dump dumps it) and a
# C reader (H5Dread) give, byte for byte, what zarr-python 3 reads. A data type the
# connector does not map yet (v3's "raw_bytes") is refused naming the type, the rest of
# its store still reads; complex is the structure {r, i} as h5py spells it, datetime64 an
# int64 with CF units; xarray's dimension names are dimension scales and its string
# coordinates and variables read. zarr-python's store modified through the connector stays
# v3 and reads in zarr-python. Damaged copies (v3_make.py damage) are refused with a
# message naming the problem, and zarr-python refuses them too. The same check for Zarr v2
# stores of text, bytes, numpy "U" and "S", complex and datetime64 written by zarr-python 2
# and 3 (v2_types_make.py).
set -euo pipefail
: "${NCZARR_BUILD:?}" "${NCZARR_PREFIX:?}" "${NCZARR_ZARR3_PYTHON:?}"
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../common/judge.sh"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/nczarr-v3.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
reader=$NCZARR_BUILD/test/interop_read_raw
status=0

nc_native "$NCZARR_ZARR3_PYTHON" "$here/v3_make.py" make "$tmp" || { echo "FAIL: zarr-python 3 cannot write the corpus"; exit 1; }
nread=0
# check_arrays STORE LIST: every array of LIST ("<n> <path> <dtype> <shape> read") read through
# the connector gives zarr-python's values (DIR/raw/<n>.bin)
check_arrays() {
  local store=$1 n path dtype shape st
  while read -r n path dtype shape st; do
    if [ "$dtype" = text ] || [ "${dtype:1:1}" = V ]; then
      # h5dump shows text and records, no binary (natively too): it must dump them; the values
      # are the C reader's
      if ! "$NCZARR_PREFIX/bin/h5dump" -d "/$path" "$store" >"$tmp/h5dump.txt" 2>"$tmp/err" ||
        ! grep -q "DATA {" "$tmp/h5dump.txt"; then
        sed 's/^/    | /' "$tmp/err" | head -n 20
        echo "FAIL: $path: h5dump cannot read it"
        status=1
      fi
    elif [ "${dtype:1:1}" = c ]; then
      # h5dump writes no binary output of a compound (natively too): its text, number by number
      if ! "$NCZARR_PREFIX/bin/h5dump" -d "/$path" -y -w 0 -m %.17g "$store" >"$tmp/h5dump.txt" 2>"$tmp/err" ||
        ! env LD_PRELOAD= /usr/bin/python3 - "$tmp/h5dump.txt" "$tmp/raw/$n.bin" "$dtype" <<'PY'; then
import re, sys
import numpy as np
text = open(sys.argv[1]).read()
data = text[text.index("DATA {"):]
got = [float(x) for x in re.findall(r"-?(?:inf|nan|[0-9.]+(?:e[-+]?[0-9]+)?)", data, re.I)]
dt = np.dtype(sys.argv[3])
want = np.fromfile(sys.argv[2], dtype=dt.newbyteorder("<")).view("<f%d" % (dt.itemsize // 2))
if len(got) != want.size or not all(g == float(w) or (g != g and w != w) for g, w in zip(got, want)):
    sys.exit(f"h5dump shows {got}, zarr-python {want.tolist()}")
PY
        sed 's/^/    | /' "$tmp/err" | head -n 20
        echo "FAIL: $path ($dtype $shape): h5dump's values differ from zarr-python's"
        status=1
      fi
    # h5dump's binary output, little-endian
    elif ! "$NCZARR_PREFIX/bin/h5dump" -d "/$path" -b LE -o "$tmp/h5dump.bin" "$store" >"$tmp/err" 2>&1; then
      sed 's/^/    | /' "$tmp/err" | head -n 20
      echo "FAIL: $path: h5dump cannot read it"
      status=1
    elif ! cmp -s "$tmp/raw/$n.bin" "$tmp/h5dump.bin"; then
      echo "FAIL: $path ($dtype $shape): h5dump's values differ from zarr-python's ($(cmp "$tmp/raw/$n.bin" "$tmp/h5dump.bin" 2>&1 | head -n 1))"
      status=1
    fi
    # the C reader
    if ! "$reader" "$store" "/$path" "$tmp/c.bin" >"$tmp/err" 2>&1; then
      sed 's/^/    | /' "$tmp/err" | head -n 20
      echo "FAIL: $path: H5Dread fails"
      status=1
    elif ! cmp -s "$tmp/raw/$n.bin" "$tmp/c.bin"; then
      echo "FAIL: $path ($dtype $shape): H5Dread's values differ from zarr-python's"
      status=1
    else
      nread=$((nread + 1))
    fi
  done <"$2"
}
store=$tmp/v3.zarr
check_arrays "$store" "$tmp/arrays.txt"
# sharded arrays read in blocks of whole inner chunks, each covering part of a shard: only
# the inner chunks a block needs are read (their shard's index, then their bytes), the
# same values; at the array's edge, in shards and inner chunks never written, the index at
# either end
for pr in shards/s1:10 shards/s2_sparse:5 shards/s2_start_inner:4; do
  path=${pr%:*} n=$(awk -v p="${pr%:*}" '$2 == p { print $1 }' "$tmp/arrays.txt")
  if ! "$reader" "$store" "/$path" "$tmp/c.bin" "${pr#*:}" >"$tmp/err" 2>&1; then
    sed 's/^/    | /' "$tmp/err" | head -n 20
    echo "FAIL: $path: H5Dread of blocks of ${pr#*:} rows fails"
    status=1
  elif ! cmp -s "$tmp/raw/$n.bin" "$tmp/c.bin"; then
    echo "FAIL: $path: blocks of ${pr#*:} rows differ from zarr-python's values"
    status=1
  fi
done
check_arrays "$tmp/xr.zarr" "$tmp/xr_arrays.txt"
grep -q ' text ' "$tmp/xr_arrays.txt" || { echo "FAIL: xarray's store has no text array to read"; status=1; }
# Zarr v2 stores of text, bytes, complex and datetime64 from zarr-python 2 and 3
nc_native /usr/bin/python3 "$here/v2_types_make.py" "$tmp" zp2 || { echo "FAIL: zarr-python 2 cannot write the v2 corpus"; exit 1; }
nc_native "$NCZARR_ZARR3_PYTHON" "$here/v2_types_make.py" "$tmp" zp3 || { echo "FAIL: zarr-python 3 cannot write the v2 corpus"; exit 1; }
before=$nread
check_arrays "$tmp/zp2.zarr" "$tmp/zp2.txt"
check_arrays "$tmp/zp3.zarr" "$tmp/zp3.txt"
echo "ok: $((nread - before)) arrays of Zarr v2 stores (text, bytes, numpy U and S, complex, datetime64) from zarr-python 2 and 3 read with their values"
# a type the connector does not map yet: a clear refusal naming it, never a crash; the
# other array of the store reads
nrefused=0
while read -r path type; do
  rc=0
  "$reader" "$tmp/later.zarr" "/$path" "$tmp/out.bin" >"$tmp/err" 2>&1 || rc=$?
  if [ "$rc" -ne 1 ] || ! grep -qF "data type \"$type\" is not supported" "$tmp/err"; then
    sed 's/^/    | /' "$tmp/err" | head -n 20
    echo "FAIL: $path: expected a refusal naming data type $type (exit $rc)"
    status=1
  else
    nrefused=$((nrefused + 1))
  fi
done <"$tmp/later.txt"
"$reader" "$tmp/later.zarr" /ok "$tmp/out.bin" >"$tmp/err" 2>&1 || { cat "$tmp/err"; echo "FAIL: the other array of later.zarr"; status=1; }
echo "ok: $nread arrays (zarr-python's and xarray's) read with zarr-python 3's values (h5dump and H5Dread); $nrefused of a type not mapped yet refused"
# complex as h5py spells it, time with its CF units
if ! "$NCZARR_PREFIX/bin/h5dump" -A -d /numpy/complex64 -d /numpy/datetime "$store" >"$tmp/types.txt" 2>&1; then
  sed 's/^/    | /' "$tmp/types.txt" | head -n 20
  echo "FAIL: h5dump -A of the complex and datetime arrays"
  status=1
fi
for want in 'H5T_IEEE_F32LE "r";' 'H5T_IEEE_F32LE "i";' '"seconds since 1970-01-01T00:00:00"'; do
  grep -qF -- "$want" "$tmp/types.txt" || { sed 's/^/    | /' "$tmp/types.txt"; echo "FAIL: no $want in h5dump -H"; status=1; }
done

# the root's attributes
"$NCZARR_PREFIX/bin/h5dump" -A "$store" >"$tmp/attrs.txt" 2>&1 || { cat "$tmp/attrs.txt"; echo "FAIL: h5dump -A"; status=1; }
grep -qF '(0): "zarr-python 3 corpus"' "$tmp/attrs.txt" || { echo "FAIL: the root attribute title"; status=1; }

# xarray: dimension names are dimension scales
"$NCZARR_PREFIX/bin/h5dump" -A "$tmp/xr.zarr" >"$tmp/xr.txt" 2>&1 || { cat "$tmp/xr.txt"; echo "FAIL: h5dump -A of xarray's store"; status=1; }
env LD_PRELOAD= /usr/bin/python3 "$here/../netcdf4/normalize_h5dump.py" <"$tmp/xr.txt" >"$tmp/xr.facts"
for want in 'DATASET /temp DIMENSION_LIST 0 /time' 'DATASET /temp DIMENSION_LIST 1 /lat' \
  'DATASET /time CLASS "DIMENSION_SCALE"' 'DATASET /lat REFERENCE_LIST /temp 1' \
  'DATASET /remark DIMENSION_LIST 0 /station' 'DATASET /station CLASS "DIMENSION_SCALE"'; do
  grep -qxF "$want" "$tmp/xr.facts" || { sed 's/^/    | /' "$tmp/xr.facts"; echo "FAIL: xarray's store: no \"$want\""; status=1; }
done

# zarr-python's store modified through the connector: it stays v3 (no v2 key appears), its
# consolidated metadata stays fresh, and zarr-python reads the new attribute and every
# array as it was
cp -r "$store" "$tmp/mod.zarr"
"$NCZARR_BUILD/test/interop_add_attribute" "$tmp/mod.zarr" added 42 >"$tmp/err" 2>&1 ||
  { cat "$tmp/err"; echo "FAIL: adding an attribute to zarr-python's v3 store"; status=1; }
if find "$tmp/mod.zarr" -name '.z*' | grep -q .; then echo "FAIL: v2 keys written into a v3 store"; status=1; fi
nc_native "$NCZARR_ZARR3_PYTHON" - "$tmp/mod.zarr" "$tmp" "$here" <<'PY' || { echo "FAIL: zarr-python 3 on the modified store"; status=1; }
import sys, warnings
import numpy as np
import zarr
warnings.simplefilter("ignore")
store, d = sys.argv[1], sys.argv[2]
for consolidated in (True, False):
    g = zarr.open_group(store, mode="r", use_consolidated=consolidated)
    assert g.attrs["added"] == 42 and g.attrs["title"] == "zarr-python 3 corpus", dict(g.attrs)
sys.path.insert(0, sys.argv[3])
from zarr_values import records
for line in open(f"{d}/arrays.txt"):
    n, path, dtype, shape, st = line.split()
    v = g[path][...]
    if dtype == "text":
        assert records(v) == open(f"{d}/raw/{n}.bin", "rb").read(), path
        continue
    if dtype.startswith("|V"):
        assert np.ascontiguousarray(v).tobytes() == open(f"{d}/raw/{n}.bin", "rb").read(), path
        continue
    if v.dtype.kind in "Mm":
        v = v.view("i8")
    want = np.fromfile(f"{d}/raw/{n}.bin", dtype=np.dtype(dtype).newbyteorder("<"))
    assert np.array_equal(v.reshape(-1).astype(want.dtype), want, equal_nan=v.dtype.kind in "fc"), path
print("zarr-python 3 reads the modified store: the attribute added, every array as it was")
PY

# damaged copies: refused naming what is wrong, and by zarr-python too
nc_native "$NCZARR_ZARR3_PYTHON" "$here/v3_make.py" damage "$tmp" >/dev/null || { echo "FAIL: damaging copies"; exit 1; }
while read -r case path needle; do
  # damaged shards are read whole, and in blocks of inner chunks (a shard's index, then
  # some of its inner chunks, read by byte range); blocks of 30 rows take the end of one
  # shard and the start of the next in one read
  modes=whole
  case $case in shard_zero_length) modes="whole 10 30" ;; shard_*) modes="whole 10" ;; esac
  bad=0
  for r in $modes; do
    rows=()
    [ "$r" = whole ] || rows=("$r")
    rc=0
    "$reader" "$tmp/bad/$case.zarr" "/$path" "$tmp/out.bin" "${rows[@]}" >"$tmp/err" 2>&1 || rc=$?
    if [ "$rc" -ne 1 ] || ! grep -q "NCZarr VOL" "$tmp/err" || ! grep -qF -- "$needle" "$tmp/err"; then
      sed 's/^/    | /' "$tmp/err" | head -n 20
      echo "FAIL: damaged $case (read $r): expected a refusal naming \"$needle\" (exit $rc)"
      bad=1
    fi
  done
  if [ "$bad" -ne 0 ]; then
    status=1
    continue
  fi
  if nc_native "$NCZARR_ZARR3_PYTHON" -c "import sys, zarr; zarr.open_group(sys.argv[1], mode='r', use_consolidated=False)[sys.argv[2]][...]" \
    "$tmp/bad/$case.zarr" "$path" >/dev/null 2>&1; then
    echo "FAIL: damaged $case: zarr-python reads it: the connector's refusal is not judged by a peer"
    status=1
  else
    echo "ok: damaged $case: refused (\"$needle\"), and by zarr-python"
  fi
done <"$tmp/bad.txt"

# chunk objects outside the grid (past the last chunk, not a number, a shard past the last):
# never read, by zarr-python or the connector: the arrays read with the values of the
# undamaged store, which zarr-python reads in the stray copy too
grep -wFf "$tmp/stray.txt" "$tmp/arrays.txt" | awk '$2 == "dims/d1" || $2 == "shards/s1"' >"$tmp/stray_arrays.txt"
[ "$(wc -l <"$tmp/stray_arrays.txt")" -eq 2 ] || { echo "FAIL: stray: the arrays are not in the corpus"; status=1; }
before=$nread
check_arrays "$tmp/bad/stray.zarr" "$tmp/stray_arrays.txt"
if [ $((nread - before)) -eq 2 ] && nc_native "$NCZARR_ZARR3_PYTHON" - "$tmp" <<'PY'; then
import sys, zarr
import numpy as np
d = sys.argv[1]
good = zarr.open_group(f"{d}/v3.zarr", mode="r", use_consolidated=False)
stray = zarr.open_group(f"{d}/bad/stray.zarr", mode="r", use_consolidated=False)
for p in ("dims/d1", "shards/s1"):
    assert np.array_equal(good[p][...], stray[p][...], equal_nan=True), p
PY
  echo "ok: chunk objects outside the grid are not read (the connector and zarr-python)"
else
  echo "FAIL: stray chunk objects outside the grid changed what is read"
  status=1
fi

[ "$status" -eq 0 ] || { echo "FAIL: v3_readers"; exit 1; }
echo "v3_readers: ok"
