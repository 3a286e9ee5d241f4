#!/usr/bin/env bash
# HDF5's tools on native HDF5 files with the connector as the default (HDF5_VOL_CONNECTOR=
# nczarr, set by ctest): the connector hands them to HDF5's native connector, so h5dump
# (also -p -A, and with --vol-name=native), h5ls -r -v and h5stat print exactly what they
# print without the connector. Files: test_vol_native's native file (groups, chunked and
# compressed data, strings, compound, a committed datatype, soft and hard links, old- and
# new-style references, a dimension scale) and the netCDF-4 file of every CDL of
# test/netcdf4/cdl (ncgen -4, natively). h5dump prints old-style object references with a
# number that changes from run to run even natively: that number is masked.
# (These tools fall back to the native connector by themselves when the default one cannot
# open a file, and print the same when the plugin does not load at all: every run with the
# connector proves that HDF5 loaded its plugin (run_proving_connector). What only the
# pass-through makes work is checked by test_vol_native and by nccopy in
# test/netcdf4/cdl_compare.sh. Here: it changes nothing the tools print.)
set -euo pipefail
: "${NCZARR_PREFIX:?}" "${NCZARR_BUILD:?}" "${HDF5_VOL_CONNECTOR:?}"
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../common/judge.sh"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/nczarr-nattools.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
B=$NCZARR_PREFIX/bin
for t in h5dump h5ls h5stat ncgen; do
  [ -x "$B/$t" ] || { echo "FAIL: missing tool $B/$t"; exit 1; }
done
# netCDF-C's ncgen without the connector (and without the sanitizer runtimes: not ours)
nc() { nc_native "$@"; }
mask() { sed -E 's/(DATASET|GROUP|DATATYPE) [0-9]+ "/\1 N "/g'; }

"$NCZARR_BUILD/test/test_vol_native" --write-native "$tmp/objects.h5" ||
  { echo "FAIL: test_vol_native --write-native"; exit 1; }
files=("$tmp/objects.h5")
for cdl in "$here"/../netcdf4/cdl/*.cdl; do
  n=$(basename "$cdl" .cdl)
  nc "$B/ncgen" -4 -o "$tmp/$n.nc" "$cdl" || { echo "FAIL: ncgen -4 $cdl"; exit 1; }
  files+=("$tmp/$n.nc")
done

status=0
for f in "${files[@]}"; do
  for cmd in "h5dump" "h5dump -p -A" "h5dump --vol-name=native" "h5ls -r -v" "h5stat"; do
    rc=0
    # shellcheck disable=SC2086
    env -u HDF5_VOL_CONNECTOR "$B"/$cmd "$f" >"$tmp/native.txt" 2>&1 ||
      { echo "FAIL: $cmd $(basename "$f") without the connector"; status=1; continue; }
    # the same output would come from a process without the connector: prove it was loaded
    # shellcheck disable=SC2086
    run_proving_connector "$tmp/vol.txt" "$B"/$cmd "$f" || rc=$?
    if [ "$rc" -ne 0 ]; then
      head -n 30 "$tmp/vol.txt" | sed 's/^/    | /'
      echo "FAIL: $cmd $(basename "$f") with HDF5_VOL_CONNECTOR=$HDF5_VOL_CONNECTOR: status $rc"
      status=1
      continue
    fi
    if ! diff -u --label "$cmd (native)" --label "$cmd (connector)" <(mask <"$tmp/native.txt") \
      <(mask <"$tmp/vol.txt") >"$tmp/diff"; then
      head -n 40 "$tmp/diff"
      echo "FAIL: $cmd $(basename "$f"): the output differs with the connector (diff above)"
      status=1
    fi
  done
done
[ "$status" -eq 0 ] && echo "native_tools: ${#files[@]} native files, h5dump/h5ls/h5stat the same through the connector"
exit "$status"
