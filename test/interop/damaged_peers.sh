#!/usr/bin/env bash
# The damaged stores of the connector's bad-input tests (test_vol_badinput: corrupt,
# mistyped or missing metadata, unsupported dtypes, short, long and empty chunks;
# test_vol_damaged: zip entries that do not match their CRC-32 or sizes, symbolic links out
# of the store), judged against the peers: those tests run again keeping their stores
# (NCZARR_KEEP_STORES), and damaged_peers.py shows, for each store, what the connector,
# netCDF-C's ncdump and zarr-python 2 and 3 make of it. "Refused" by the connector must be
# refused by a peer too, or named with the reason the connector is right to refuse; what
# the connector reads must be what the peers read.
set -euo pipefail
: "${NCZARR_BUILD:?}" "${NCZARR_PREFIX:?}" "${NCZARR_ZARR3_PYTHON:?}"
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/nczarr-peers.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/kept"
for t in test_vol_badinput test_vol_damaged; do
  TMPDIR=$tmp NCZARR_KEEP_STORES=$tmp/kept "$NCZARR_BUILD/test/$t" >"$tmp/$t.log" 2>&1 ||
    { tail -n 30 "$tmp/$t.log"; echo "FAIL: $t (its own checks) failed"; exit 1; }
done
env LD_PRELOAD= READ_INTS="$NCZARR_BUILD/test/interop_read_ints" NCDUMP="$NCZARR_PREFIX/bin/ncdump" \
  H5DUMP_ENV_PRELOAD="${LD_PRELOAD:-}" NCDUMP_PLUGIN_PATH="$NCZARR_PREFIX/lib/plugin" \
  ZARR3_PYTHON="$NCZARR_ZARR3_PYTHON" /usr/bin/python3 "$here/damaged_peers.py" "$tmp/kept/badinput" "$tmp/kept/damaged"
