#!/usr/bin/env bash
# Stores that zarr-python 2 (Debian's) and zarr-python 3 (the pinned venv, writing Zarr
# format 2) compress with zlib, gzip, shuffle+zlib, blosc (default, lz4, zstd, bit shuffle,
# auto shuffle), zstd, bz2, lz4 and with their default compressor, for float32, int16 and
# uint8 (codecs_make.py). Each zarr-python first reads both stores (the peers agree); then
# the connector must give the values zarr-python wrote: h5dump's binary output and a C
# reader (codecs_reader.c: H5Dread of all and of a hyperslab) against the raw values.
# Every failing array is named; the test fails when any does.
set -euo pipefail
: "${NCZARR_BUILD:?}" "${NCZARR_PREFIX:?}" "${NCZARR_ZARR3_PYTHON:?}"
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/nczarr-codecs-f.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
native=(env -u HDF5_VOL_CONNECTOR -u HDF5_PLUGIN_PATH LD_PRELOAD=)
pythons=(/usr/bin/python3 "$NCZARR_ZARR3_PYTHON")
fail=0
# The message of the deepest frame of the first HDF5 error stack in a file (the connector's own).
why() { awk '/^ *#000: / { n++ } n == 1 && /^ *#[0-9]+: / { last = $0 } END { print last }' "$1" |
  sed -E 's/^.* in [A-Za-z0-9_]+\(\): //'; }

echo "== zarr-python writes"
for k in 0 1; do
  mkdir "$tmp/w$k"
  "${native[@]}" "${pythons[$k]}" "$here/codecs_make.py" make "$tmp/w$k" ||
    { echo "FAIL: ${pythons[$k]} codecs_make.py make"; exit 1; }
done
echo "== each zarr-python reads both stores"
for py in "${pythons[@]}"; do
  for k in 0 1; do
    "${native[@]}" "$py" "$here/codecs_make.py" check "$tmp/w$k" >"$tmp/check.txt" || {
      grep FAIL "$tmp/check.txt"; echo "FAIL: $py cannot read the store of ${pythons[$k]}"; exit 1
    }
  done
done
echo "zarr-python 2 and 3 read each other's stores: ok"

for k in 0 1; do
  dir=$tmp/w$k
  echo "== the store of ${pythons[$k]} through the connector"
  echo "-- h5dump -b LE (binary output) against the raw values"
  nok=0
  while read -r name; do
    kind=${name##*_}
    if ! "$NCZARR_PREFIX/bin/h5dump" --enable-error-stack -d "/$name" -b LE -o "$tmp/out.bin" "$dir/store.zarr" \
      >"$tmp/h5dump.txt" 2>&1; then
      echo "FAIL $name: h5dump failed: $(why "$tmp/h5dump.txt")"
      fail=1
    elif ! cmp -s "$tmp/out.bin" "$dir/$kind.bin"; then
      echo "FAIL $name: h5dump's values differ from zarr-python's ($(cmp "$tmp/out.bin" "$dir/$kind.bin" 2>&1 | head -n 1))"
      fail=1
    else
      nok=$((nok + 1))
    fi
    rm -f "$tmp/out.bin"
  done <"$dir/names.txt"
  echo "h5dump: $nok of $(wc -l <"$dir/names.txt") arrays identical"
  echo "-- the C reader (H5Dread)"
  set +e
  "$NCZARR_BUILD/test/interop_codecs_reader" "$dir" >"$tmp/reader.txt" 2>"$tmp/reader.err"
  rc=$?
  set -e
  sed '/^ok/d' "$tmp/reader.txt"
  echo "C reader: $(awk '/^ok/ { n++ } END { print n + 0 }' "$tmp/reader.txt") of $(wc -l <"$dir/names.txt") arrays identical"
  if [ "$rc" != 0 ]; then
    echo "FAIL: the C reader (exit $rc) $(head -c 600 "$tmp/reader.err")"
    fail=1
  fi
done

[ "$fail" = 0 ] && echo "the connector reads every store zarr-python compressed" || { echo "FAIL (arrays above)"; exit 1; }
