#!/usr/bin/env bash
# PyTables (built against the project's HDF5 in the test environment) and pandas on it,
# through the connector with the preload library (PyTables lists groups and finds nodes
# with HDF5's deprecated calls, which HDF5 refuses for a store: vol_connector/preload/).
# PyTables writes the same tree (groups, a table, arrays of three kinds, compression,
# attributes) as an .h5 file natively and as a zip store (PyTables opens regular files
# only: a directory store is refused before HDF5 is asked), and reads both back: walk_nodes
# lists the same nodes with the same classes, shapes, values and attributes. Without the
# preload the store lists its root alone (asserted: what the preload is for); with the
# connector option "zip" the same under an .h5 name. pandas' to_hdf/read_hdf round-trip a
# frame of several columns in a zip store, fixed and table.
set -euo pipefail
: "${NCZARR_ZARR3_PYTHON:?}" "${NCZARR_BUILD:?}"
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../common/judge.sh"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/nczarr-tables.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
py=$NCZARR_ZARR3_PYTHON s=$here/pytables_store.py
fail=0
cd "$tmp"

nc_native "$py" "$s" write native.h5
nc_native "$py" "$s" dump native.h5 >native.json
HDF5_VOL_CONNECTOR=nczarr with_preload "$py" "$s" write store.zip
assert_zip_store store.zip "PyTables' store" || exit 1
HDF5_VOL_CONNECTOR=nczarr with_preload "$py" "$s" dump store.zip >store.json
if diff -u native.json store.json; then
  echo "ok: walk_nodes of the store = the native file's ($(grep -c '"class"' store.json) nodes, values and attributes)"
else
  echo "FAIL: PyTables reads the store otherwise than the native file"
  fail=1
fi
# without the preload HDF5 refuses PyTables' group listing for a store: the root alone
HDF5_VOL_CONNECTOR=nczarr "${NCZARR_CONNECTOR_PYTHON:-$py}" "$s" dump store.zip >bare.json 2>bare.err || true
if [ "$(grep -c '"class"' bare.json)" = 1 ]; then
  echo "ok: without the preload PyTables lists the store's root alone (HDF5 refuses H5Literate_by_name1)"
else
  echo "FAIL: without the preload PyTables listed $(grep -c '"class"' bare.json) nodes (the preload's use changed?)"
  fail=1
fi
# PyTables refuses a directory before HDF5 is asked
HDF5_VOL_CONNECTOR=nczarr with_preload "$py" -c 'import sys, tables; tables.open_file(sys.argv[1], "w").close()' dir.zarr
if HDF5_VOL_CONNECTOR=nczarr with_preload "$py" -c 'import sys, tables; tables.open_file(sys.argv[1], "r")' dir.zarr \
  >dir.out 2>&1; then
  echo "FAIL: PyTables opened a directory store (update docs/python.md)"
  fail=1
elif grep -q "is not a regular file" dir.out; then
  echo "ok: PyTables refuses a directory store: $(grep -o "[^:]*is not a regular file" dir.out | head -n 1)"
else
  echo "FAIL: PyTables on a directory store: $(tail -n 2 dir.out)"
  fail=1
fi
# the option "zip": PyTables' own kind of name (.h5) is a zip store, which it reopens
HDF5_VOL_CONNECTOR="nczarr zip" with_preload "$py" "$s" write named.h5
assert_zip_store named.h5 "PyTables' store under an .h5 name (option zip)" || fail=1
HDF5_VOL_CONNECTOR="nczarr zip" with_preload "$py" "$s" dump named.h5 >named.json
if diff -u native.json named.json >/dev/null; then
  echo "ok: with the option zip an .h5 name is a zip store, and reads as the native file"
else
  echo "FAIL: the option zip: named.h5 reads otherwise than the native file"
  fail=1
fi
if HDF5_VOL_CONNECTOR=nczarr with_preload "$py" "$s" pandas frame.zip; then
  assert_zip_store frame.zip "pandas' store" || fail=1
else
  echo "FAIL: pandas to_hdf/read_hdf through the connector"
  fail=1
fi
[ "$fail" = 0 ] || { echo "FAIL: pytables_store"; exit 1; }
echo "pytables_store: ok"
