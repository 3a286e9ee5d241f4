#!/usr/bin/env bash
# The example program writes a store through the connector and, run natively, an HDF5 file.
# The real ncdump (netCDF-C's own NCZarr reader) must show the store as it shows the native
# file (up to the names of anonymous dimensions), and zarr-python 2 and 3 must read the
# native file's values, chunk shapes and fill values in it (compare_values).
set -euo pipefail
: "${NCZARR_BUILD:?}" "${NCZARR_PREFIX:?}" "${NCZARR_ZARR3_PYTHON:?}"
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../common/judge.sh"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/nczarr-ex.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
store="$tmp/example.zarr"
"$NCZARR_BUILD/examples/write_store" "$store"
assert_store "$store" "examples/write_store"
env -u HDF5_VOL_CONNECTOR -u HDF5_PLUGIN_PATH LD_PRELOAD= "$NCZARR_BUILD/examples/write_store" "$tmp/example.h5"
status=0

compare_ncdump "$tmp/example.h5" "$store" "examples/write_store" || status=1
compare_values "$tmp/example.h5" "$store" "examples/write_store" || status=1
compare_values "$tmp/example.h5" "$store" "examples/write_store" --python "$NCZARR_ZARR3_PYTHON" || status=1

[ "$status" -eq 0 ] || { echo "FAIL: example_readers"; exit 1; }
echo "example_readers: ok"
