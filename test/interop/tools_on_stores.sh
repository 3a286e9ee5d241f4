#!/usr/bin/env bash
# HDF5's command-line tools on a store through the connector (issue [10]): h5stat runs to
# its end and reports as the file's total space the bytes of every object of the store;
# h5ls -r -v lists every object that h5ls lists of the same program's native file; h5mkgrp
# adds a group that h5ls then shows. (awk runs without the sanitizer builds' preloaded runtime:
# mawk trips ASan.)
set -euo pipefail
: "${NCZARR_BUILD:?}" "${NCZARR_PREFIX:?}"
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../common/judge.sh"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/nczarr-tools.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
B=$NCZARR_PREFIX/bin
w=$NCZARR_BUILD/test/interop_writer
status=0
nc_native "$w" "$tmp/native.h5" >/dev/null
"$w" "$tmp/out.zarr" >/dev/null
assert_store "$tmp/out.zarr" "interop_writer" || exit 1

# h5stat: exit 0, no warning, total space = the store's bytes
if ! "$B/h5stat" "$tmp/out.zarr" >"$tmp/stat.txt" 2>&1; then
  sed 's/^/    | /' "$tmp/stat.txt" | head -n 20
  echo "FAIL: h5stat of the store"
  status=1
fi
if grep -i 'warning\|error' "$tmp/stat.txt"; then
  echo "FAIL: h5stat warned"
  status=1
fi
want=$(find "$tmp/out.zarr" -type f -printf '%s\n' | env LD_PRELOAD= awk '{ s += $1 } END { print s + 0 }')
got=$(sed -n 's/^Total space: \([0-9]*\) bytes$/\1/p' "$tmp/stat.txt")
if [ "$got" = "$want" ]; then
  echo "ok: h5stat: total space $got bytes = the store's objects"
else
  echo "FAIL: h5stat: total space \"$got\", the store's objects hold $want bytes"
  status=1
fi

# h5ls -r -v: the native file's objects
names() { sed -n 's/^\(\/[^ ]*\) .*\(Group\|Dataset\).*/\1/p' "$1" | sort; }
env -u HDF5_VOL_CONNECTOR "$B/h5ls" -r "$tmp/native.h5" >"$tmp/ls.native" 2>&1 || { cat "$tmp/ls.native"; echo "FAIL: h5ls of the native file"; exit 1; }
if ! "$B/h5ls" -r -v "$tmp/out.zarr" >"$tmp/ls.store" 2>&1; then
  sed 's/^/    | /' "$tmp/ls.store" | head -n 20
  echo "FAIL: h5ls -r -v of the store"
  status=1
fi
"$B/h5ls" -r "$tmp/out.zarr" >"$tmp/ls.store.short" 2>&1 || true
if diff <(names "$tmp/ls.native") <(names "$tmp/ls.store.short") >"$tmp/ls.diff"; then
  echo "ok: h5ls -r lists the native file's $(names "$tmp/ls.native" | wc -l) objects in the store"
else
  cat "$tmp/ls.diff"
  echo "FAIL: h5ls -r of the store lists other objects than of the native file"
  status=1
fi

# h5mkgrp
if "$B/h5mkgrp" -p "$tmp/out.zarr" /made/by/h5mkgrp && "$B/h5ls" -r "$tmp/out.zarr" | grep -q '^/made/by/h5mkgrp  *Group'; then
  echo "ok: h5mkgrp -p made /made/by/h5mkgrp"
else
  echo "FAIL: h5mkgrp -p /made/by/h5mkgrp"
  status=1
fi
[ "$status" -eq 0 ] || { echo "FAIL: tools_on_stores"; exit 1; }
echo "tools_on_stores: ok"
