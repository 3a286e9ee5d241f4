#!/usr/bin/env bash
# h5py (built against the project's HDF5 in the test environment, scripts/setup-python.sh)
# writes the same corpus natively and through the connector (h5py_roundtrip.py: groups,
# chunked + gzip + shuffle, a resizable dataset grown twice, variable-length and fixed
# strings, a compound, complex numbers, attributes, dimension scales and labels); each is
# read back by path with h5py, natively and through the connector, and both reads agree in
# values, slices, fancy indexing, dtypes, chunks (contiguous stays contiguous), compression,
# fill values, attributes, dimension labels and scales. Then the call sequences that
# crashed h5py (a native-only call that fails, then reads, a compound dataset, close) must
# leave the process alive.
set -euo pipefail
: "${NCZARR_ZARR3_PYTHON:?}"
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../common/judge.sh"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/nczarr-h5py.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
py=$NCZARR_ZARR3_PYTHON
# through the connector: the same interpreter (in the ThreadSanitizer build, a wrapper that
# preloads its runtime, which bash itself cannot run under)
cpy=${NCZARR_CONNECTOR_PYTHON:-$py}
s=$here/h5py_roundtrip.py
status=0
nc_native "$py" "$s" write "$tmp/native.h5" || { echo "FAIL: h5py writes natively"; exit 1; }
nc_native "$py" "$s" dump "$tmp/native.h5" "$tmp/native.pkl" || { echo "FAIL: h5py reads natively"; exit 1; }
"$cpy" "$s" write "$tmp/out.zarr" || { echo "FAIL: h5py writes through the connector"; exit 1; }
assert_store "$tmp/out.zarr" "h5py write" || exit 1
"$cpy" "$s" dump "$tmp/out.zarr" "$tmp/store.pkl" || { echo "FAIL: h5py reads the store through the connector"; exit 1; }
nc_native "$py" "$s" compare "$tmp/native.pkl" "$tmp/store.pkl" || { echo "FAIL: h5py reads the store differently"; status=1; }
if "$cpy" "$s" sequences "$tmp/seq.zarr" >"$tmp/seq.log" 2>&1; then
  grep -q '^survived$' "$tmp/seq.log" || { cat "$tmp/seq.log"; echo "FAIL: the sequences did not run to the end"; status=1; }
else
  rc=$?
  sed 's/^/    | /' "$tmp/seq.log" | tail -n 20
  echo "FAIL: h5py's process ended with status $rc in the sequences that crashed it"
  status=1
fi
[ "$status" -eq 0 ] || { echo "FAIL: h5py_roundtrip"; exit 1; }
echo "h5py_roundtrip: ok"
