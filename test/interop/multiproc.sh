#!/usr/bin/env bash
# Several processes, one store (the pattern of Dask workers over zarr-python): a store is
# created, then 4 processes open it read-write at once and each writes 64 chunks of each of
# two arrays (disjoint, chunk-aligned, interleaved rows), then the store must be complete
# and consistent: every value right through the connector and in zarr-python, ncdump reads
# it, and no metadata object was rewritten by the chunk writers (same inode: the directory
# store replaces an object by renaming a new file over it). Both with and without
# consolidated metadata (.zmetadata must not be rewritten either).
set -euo pipefail
: "${NCZARR_BUILD:?}" "${NCZARR_PREFIX:?}"
. "$(cd "$(dirname "$0")" && pwd)/../common/judge.sh"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/nczarr-mp.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
w="$NCZARR_BUILD/test/interop_multiproc_writer"
native=(env -u HDF5_VOL_CONNECTOR "HDF5_PLUGIN_PATH=$NCZARR_PREFIX/lib/plugin" LD_PRELOAD=)
nproc=4 nchunk=64
meta() { (cd "$1" && find . -name '.z*' -type f -printf '%p %i %s\n' | sort); }
for opt in "" consolidated; do
  store=$tmp/mp${opt:+-$opt}.zarr
  HDF5_VOL_CONNECTOR="nczarr $opt" "$w" create "$store" $nproc $nchunk
  assert_store "$store" "multiproc_writer create" || exit 1
  [ -z "$opt" ] || [ -f "$store/.zmetadata" ] || { echo "FAIL: no .zmetadata with $opt"; exit 1; }
  meta "$store" >"$tmp/before"
  "$w" writers "$store" $nproc || { echo "FAIL: ${opt:-default}: a writer failed (above)"; exit 1; }
  meta "$store" >"$tmp/after"
  if ! diff "$tmp/before" "$tmp/after"; then
    echo "FAIL: ${opt:-default}: chunk writers rewrote metadata (path inode size, before < after >)"
    exit 1
  fi
  n=$(find "$store/a" "$store/b" -type f ! -name '.z*' | wc -l)
  [ "$n" -eq $((2 * nproc * nchunk)) ] || { echo "FAIL: $n chunks, want $((2 * nproc * nchunk))"; exit 1; }
  "$w" verify "$store" $nproc || { echo "FAIL: ${opt:-default}: values through the connector"; exit 1; }
  "${native[@]}" /usr/bin/python3 - "$store" $nproc <<'PY' || { echo "FAIL: ${opt:-default}: zarr-python"; exit 1; }
import sys
import numpy as np
import zarr
g = zarr.open_group(sys.argv[1], mode="r")
rows, cols = g["a"].shape
r = np.arange(rows)[:, None]
c = np.arange(cols)[None, :]
assert (g["a"][:] == r * 1000 + c).all(), "a differs"
assert (g["b"][:] == r + c / 1024.0).all(), "b differs"
print("zarr-python: %d x %d ok" % (rows, cols))
PY
  "${native[@]}" "$NCZARR_PREFIX/bin/ncdump" -h "file://$store#mode=nczarr,file" >/dev/null ||
    { echo "FAIL: ${opt:-default}: ncdump"; exit 1; }
  echo "${opt:-default}: $nproc writers x $nchunk chunks x 2 arrays: ok"
done
echo "multiproc: ok"
