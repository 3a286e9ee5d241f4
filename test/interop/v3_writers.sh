#!/usr/bin/env bash
# Zarr v3 written through the connector (HDF5_VOL_CONNECTOR="nczarr v3"), judged by
# zarr-python 3 and xarray against the native file of the same program. Every HDF5 writer
# program of the earlier interop tests (every atomic type, strings, fill values, scalars,
# groups, attributes of every kind, hard links, every codec) runs natively and through the
# connector: into a v3 directory store, into one in shards of 4 x 4 x ... chunks, and into
# a zip archive (zarr-python's layout, zip-root) of shards. For each store:
#  1. zarr-python 3 reads the native file's values (h5py) in it (compare_values);
#  2. xarray opens every group, with each variable's dimension_names and values (v3_xarray.py);
#  3. h5dump through the connector shows the native file's data and attributes.
# What v3 has no data type for is refused when the dataset is created, naming it: compound
# members that are compounds or arrays, and variable-length sequences of numbers. Then
# several processes write disjoint shard-aligned blocks of one sharded store at once: the
# store is complete, and zarr-python reads every value; and processes writing one row of
# every shard, one after another, keep each other's rows.
set -euo pipefail
: "${NCZARR_BUILD:?}" "${NCZARR_PREFIX:?}" "${NCZARR_ZARR3_PYTHON:?}"
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../common/judge.sh"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/nczarr-v3w.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
t=$NCZARR_BUILD/test
status=0

# is_v3 STORE WHAT: a v3 directory store (zarr.json at the root, no v2 key anywhere)
is_v3() {
  [ -f "$1/zarr.json" ] && ! find "$1" -name '.z*' | grep -q . ||
    { echo "FAIL: $2: $1 is not a Zarr v3 store"; return 1; }
}

# name|writer and its arguments after the output
cases=(
  "plain|$t/interop_writer"
  "hardlinks|$t/interop_hardlinks_writer"
  "attrs|$t/interop_attr_fidelity"
  "codecs|$t/interop_codecs_writer RAW"
)
for c in "${cases[@]}"; do
  IFS='|' read -r n prog <<<"$c"
  read -r -a cmd <<<"$prog"
  mkdir -p "$tmp/raw"
  args=("${cmd[@]:1}")
  args=("${args[@]/RAW/$tmp/raw}")
  nc_native "${cmd[0]}" "$tmp/$n.h5" "${args[@]}" >"$tmp/log" 2>&1 ||
    { cat "$tmp/log"; echo "FAIL: $n: the native run"; status=1; continue; }
  for form in dir shards zip; do
    case $form in
      dir) opts="v3" store=$tmp/$n.zarr ;;
      shards) opts="v3 shards=4" store=$tmp/$n.shards.zarr ;;
      zip) opts="v3 shards=4 zip-root" store=$tmp/$n.zip ;;
    esac
    what="$n ($opts)"
    echo "-- $what"
    if ! HDF5_VOL_CONNECTOR="nczarr $opts" "${cmd[0]}" "$store" "${args[@]}" >"$tmp/log" 2>&1; then
      cat "$tmp/log"
      echo "FAIL: $what: writing through the connector"
      status=1
      continue
    fi
    if [ $form = zip ]; then
      assert_zip_store "$store" "$what" || { status=1; continue; }
      unzip -Z1 "$store" >"$tmp/names" && grep -qx 'zarr.json' "$tmp/names" ||
        { echo "FAIL: $what: no zarr.json at the archive's root"; status=1; }
    else
      is_v3 "$store" "$what" || { status=1; continue; }
    fi
    compare_values "$tmp/$n.h5" "$store" "$what" --python "$NCZARR_ZARR3_PYTHON" || status=1
    nc_native "$NCZARR_ZARR3_PYTHON" "$here/v3_xarray.py" "$store" || { echo "FAIL: $what: xarray"; status=1; }
    compare_h5dump_data "$tmp/$n.h5" "$store" "$what" || status=1
  done
done

# no v3 data type: refused at H5Dcreate, naming the dataset and why
for c in "types|$t/interop_writer --types|table|has no Zarr v3 \"structured\" field" \
  "vlen|$t/interop_vlen_writer|ragged|variable-length sequences of numbers have no Zarr v3 data type"; do
  IFS='|' read -r n prog dset needle <<<"$c"
  read -r -a cmd <<<"$prog"
  rc=0
  HDF5_VOL_CONNECTOR="nczarr v3" "${cmd[0]}" "$tmp/$n.zarr" "${cmd[@]:1}" >"$tmp/log" 2>&1 || rc=$?
  if [ "$rc" -eq 0 ] || ! grep -q "H5Dcreate" "$tmp/log" || ! grep -qF -- "$needle" "$tmp/log" ||
    ! grep -qF "$dset" "$tmp/log"; then
    sed 's/^/    | /' "$tmp/log" | head -n 30
    echo "FAIL: $n: expected H5Dcreate of $dset refused (\"$needle\"), exit $rc"
    status=1
  else
    echo "ok: $n: $dset refused at H5Dcreate (\"$needle\")"
  fi
done

# processes writing disjoint shard-aligned blocks of one sharded store at once
w=$t/interop_multiproc_writer
store=$tmp/mp.zarr
HDF5_VOL_CONNECTOR="nczarr v3 shards=4" "$w" create "$store" 4 16 >"$tmp/log" 2>&1 ||
  { cat "$tmp/log"; echo "FAIL: multiproc create"; exit 1; }
is_v3 "$store" "multiproc" || exit 1
if ! MULTIPROC_BLOCKS=1 "$w" writers "$store" 4 >"$tmp/log" 2>&1; then
  cat "$tmp/log"
  echo "FAIL: multiproc: a writer failed"
  status=1
else
  # 64 rows of 1-row chunks in shards of 4 rows: 16 shard objects per array, each written once
  n=$(find "$store/a/c" "$store/b/c" -type f | wc -l)
  [ "$n" -eq 32 ] || { echo "FAIL: multiproc: $n shard objects, want 32"; status=1; }
  MULTIPROC_BLOCKS=1 "$w" verify "$store" 4 || { echo "FAIL: multiproc: values through the connector"; status=1; }
  nc_native "$NCZARR_ZARR3_PYTHON" - "$store" <<'PY' || { echo "FAIL: multiproc: zarr-python 3"; status=1; }
import sys
import numpy as np
import zarr
g = zarr.open_group(sys.argv[1], mode="r", zarr_format=3)
rows, cols = g["a"].shape
assert g["a"].shards == (4, cols), g["a"].shards
r = np.arange(rows)[:, None]
c = np.arange(cols)[None, :]
assert (g["a"][:] == r * 1000 + c).all(), "a differs"
assert (g["b"][:] == r + c / 1024.0).all(), "b differs"
print(f"zarr-python 3: {rows} x {cols}, shards {g['a'].shards}: every value")
PY
fi

# part of a shard: 4 processes one after another, each writing every 4th row, so one row
# of each shard: each rewrites the shards with the rows the others wrote kept
store=$tmp/partial.zarr
HDF5_VOL_CONNECTOR="nczarr v3 shards=4" "$w" create "$store" 4 16 >"$tmp/log" 2>&1 ||
  { cat "$tmp/log"; echo "FAIL: partial shards: create"; exit 1; }
for rank in 0 1 2 3; do
  "$w" write "$store" $rank 4 >"$tmp/log" 2>&1 || { cat "$tmp/log"; echo "FAIL: partial shards: writer $rank"; status=1; }
done
if "$w" verify "$store" 4 >"$tmp/log" 2>&1; then
  echo "ok: partial shards: 4 writers of one row of every shard, one after another: every value kept"
else
  cat "$tmp/log"
  echo "FAIL: partial shards: a writer lost rows of the shards it rewrote"
  status=1
fi

[ "$status" -eq 0 ] || { echo "FAIL: v3_writers"; exit 1; }
echo "v3_writers: ok"
