#!/usr/bin/env bash
# Copies across connectors with HDF5's own tools (issue [10]). Every copy is made twice:
# natively (into an .h5 file) and through the connector (into a store, or from a store), and
# the two are judged against each other: h5ls -r lists the same objects and links, h5diff
# finds no difference between them, and h5diff says of the store copy against the original
# exactly what it says of the native copy. Covered: h5copy native -> store, store -> store and
# store -> native; h5copy's flags (soft-link expansion, shallow, no attributes); hard, soft
# and external links; a netCDF-4 file's root group, whose dimension scales' references must
# name the copies; h5repack store -> native, and native -> store with -f and -l.
set -euo pipefail
: "${NCZARR_BUILD:?}" "${NCZARR_PREFIX:?}"
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../common/judge.sh"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/nczarr-copy.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
B=$NCZARR_PREFIX/bin
# HDF5 1.14.6's h5diff reads a fixed-length string value with strlen, past its end when it
# fills its width (tools/lib/h5diff_array.c:556): under the sanitizer builds that stops
# h5diff on any such attribute, ours or not. The sanitizers' strlen check stays off here.
if [ -n "${ASAN_OPTIONS:-}" ]; then export ASAN_OPTIONS="$ASAN_OPTIONS:intercept_strlen=0"; fi
if [ -n "${TSAN_OPTIONS:-}" ]; then export TSAN_OPTIONS="$TSAN_OPTIONS:intercept_strlen=0"; fi
status=0
fail() { echo "FAIL: $*"; status=1; }
run() { # run WHAT CMD...: prints the output of a failing command
  local what=$1; shift
  if ! "$@" >"$tmp/run.log" 2>&1; then
    sed 's/^/    | /' "$tmp/run.log" | head -n 30
    fail "$what"
    return 1
  fi
}
native() { env -u HDF5_VOL_CONNECTOR "$@"; }
lsr() { "$B/h5ls" -r "$1" 2>&1 | sed 's/ *$//'; }
# judge WHAT ORIG NAME [objects]: NAME.zarr (the connector's copy) against NAME.h5 (the
# native copy of the same ORIG)
judge() {
  local what=$1 orig=$2 name=$3; shift 3
  local n="$tmp/$name.h5" z="$tmp/$name.zarr" ok=1
  if ! diff <(native "$B/h5ls" -r "$n" 2>&1 | sed 's/ *$//') <(lsr "$z") >"$tmp/ls.diff"; then
    sed 's/^/    | /' "$tmp/ls.diff"; fail "$what: h5ls -r of the copy differs from the native copy's"; ok=0
  fi
  # (an unwritten dataset in both is "not comparable" to h5diff: the third check below sees
  # a copy that lost the values of a written one)
  local rc=0
  "$B/h5diff" -c "$n" "$z" "$@" >"$tmp/d.log" 2>&1 || rc=$?
  if [ $rc -gt 1 ] || grep -v 'is an empty dataset$' "$tmp/d.log" | grep -q .; then
    sed 's/^/    | /' "$tmp/d.log" | head -n 30; fail "$what: h5diff of the native copy and the copy"; ok=0
  fi
  local rn=0 rz=0
  native "$B/h5diff" -c "$orig" "$n" "$@" >"$tmp/dn.log" 2>&1 || rn=$?
  "$B/h5diff" -c "$orig" "$z" "$@" >"$tmp/dz.log" 2>&1 || rz=$?
  if [ "$rn" != "$rz" ] || ! diff <(sed "s#$n#COPY#g" "$tmp/dn.log") <(sed "s#$z#COPY#g" "$tmp/dz.log") >"$tmp/dd.diff"; then
    sed 's/^/    | /' "$tmp/dd.diff" | head -n 30
    fail "$what: h5diff against the original says otherwise of the copy (exit $rz) than of the native copy (exit $rn)"
    ok=0
  fi
  [ $ok = 1 ] && echo "ok: $what"
  return 0
}
# both WHAT SRC_NATIVE SRC_STORE NAME [h5copy options...]: NAME.h5 from SRC_NATIVE natively,
# NAME.zarr from SRC_STORE (the same content, or the same file) through the connector
both() {
  local what=$1 sn=$2 sz=$3 name=$4; shift 4
  native "$B/h5copy" "$@" -i "$sn" -o "$tmp/$name.h5" || { fail "$what: native h5copy"; return 1; }
  run "$what" "$B/h5copy" "$@" -i "$sz" -o "$tmp/$name.zarr" || return 1
}

# sources: the interop writer (types, filters, attributes, unwritten chunks), the hardlinks
# writer (hard, soft and external links, a cycle), a netCDF-4 file (dimension scales)
nc_native "$NCZARR_BUILD/test/interop_writer" "$tmp/w.h5" >/dev/null
nc_native "$NCZARR_BUILD/test/interop_hardlinks_writer" "$tmp/hl.h5"
cat >"$tmp/nc.cdl" <<'EOF'
netcdf nc {
dimensions:
  time = UNLIMITED ; x = 3 ;
variables:
  double time(time) ; time:units = "seconds since 1970-01-01" ;
  int x(x) ;
  float temp(time, x) ; temp:long_name = "temperature" ;
data:
  time = 1, 2 ; x = 10, 20, 30 ;
  temp = 1, 2, 3, 4, 5, 6 ;
}
EOF
nc_native "$B/ncgen" -4 -o "$tmp/nc.nc" "$tmp/nc.cdl"

# native -> store: every top-level object of the interop writer's file
mapfile -t tops < <(native "$B/h5ls" "$tmp/w.h5" | awk '{print $1}')
[ ${#tops[@]} -ge 3 ] || fail "the interop writer's file has only ${#tops[@]} objects"
for o in "${tops[@]}"; do both "h5copy native -> store of /$o" "$tmp/w.h5" "$tmp/w.h5" wc -s "/$o" -d "/$o"; done
assert_store "$tmp/wc.zarr" "h5copy" || exit 1
judge "h5copy native -> store (${#tops[@]} objects)" "$tmp/w.h5" wc
# store -> store and store -> native, the root as a group
both "h5copy store -> store" "$tmp/w.h5" "$tmp/wc.zarr" all -s / -d /all && judge "h5copy store -> store" "$tmp/w.h5" all / /all
# (H5Fcreate through the connector makes a store: h5copy writes into a native file that exists)
nc_native "$B/h5mkgrp" "$tmp/back.h5" /first
run "h5copy store -> native" "$B/h5copy" -i "$tmp/all.zarr" -o "$tmp/back.h5" -s /all -d /all
head -c 8 "$tmp/back.h5" | grep -q HDF || fail "h5copy store -> native did not write an HDF5 file"
nc_native "$B/h5copy" -i "$tmp/all.h5" -o "$tmp/back-native.h5" -s /all -d /all
native "$B/h5diff" -c "$tmp/back-native.h5" "$tmp/back.h5" /all /all >"$tmp/d.log" 2>&1 || true
if ! grep -v 'is an empty dataset$' "$tmp/d.log" | grep -q .; then echo "ok: h5copy store -> native"; else
  sed 's/^/    | /' "$tmp/d.log" | head -n 30; fail "h5copy store -> native: native h5diff finds differences"
fi

# links, and h5copy's flags
both "h5copy of /g with its links" "$tmp/hl.h5" "$tmp/hl.h5" links -s /g -d /g
for l in soft_data dangling ext data_alias; do
  both "h5copy of /$l" "$tmp/hl.h5" "$tmp/hl.h5" links -s "/$l" -d "/$l"
done
judge "hard, soft and external links" "$tmp/hl.h5" links
grep -Eq '^/dangling +Soft Link \{/nowhere\}' <(lsr "$tmp/links.zarr") &&
  grep -Eq '^/ext +External Link \{other.h5//x\}' <(lsr "$tmp/links.zarr") &&
  grep -Eq '^/g/soft_rel +Soft Link \{sub\}' <(lsr "$tmp/links.zarr") ||
  { lsr "$tmp/links.zarr"; fail "the store copy lacks the soft and external links"; }
both "h5copy -f soft" "$tmp/hl.h5" "$tmp/hl.h5" soft -f soft -s /g -d /soft && judge "h5copy -f soft" "$tmp/hl.h5" soft
nc_native "$B/h5mkgrp" -p "$tmp/deep.h5" /a/b/c
both "h5copy -f shallow" "$tmp/deep.h5" "$tmp/deep.h5" shallow -f shallow -s /a -d /shallow &&
  judge "h5copy -f shallow" "$tmp/deep.h5" shallow
both "h5copy -f noattr" "$tmp/nc.nc" "$tmp/nc.nc" noattr -f noattr -s /temp -d /noattr &&
  judge "h5copy -f noattr" "$tmp/nc.nc" noattr
"$B/h5dump" -A -d /noattr "$tmp/noattr.zarr" 2>&1 | grep -q 'ATTRIBUTE' && fail "h5copy -f noattr copied attributes"

# a netCDF-4 file, root group and all: the dimension scales' references name the copies
both "h5copy of a netCDF-4 file" "$tmp/nc.nc" "$tmp/nc.nc" nccopy -s / -d /copy &&
  judge "h5copy of a netCDF-4 file" "$tmp/nc.nc" nccopy / /copy
"$B/h5dump" -A -d /copy/temp "$tmp/nccopy.zarr" >"$tmp/dims.txt" 2>&1 || true
if grep -q '(DATASET "[^"]*/copy/time")' "$tmp/dims.txt" && grep -q '(DATASET "[^"]*/copy/x")' "$tmp/dims.txt"; then
  echo "ok: the dimension scales of the copy name the copied scales"
else
  cat "$tmp/dims.txt"; fail "the copy's DIMENSION_LIST does not name the copied scales"
fi

# h5repack: store -> native, and native -> store with -f and -l
# (the connector option "native": H5Fcreate makes a native file; --dst-vol-name native, the
# other way, makes HDF5 refuse H5Lcopy between the two connectors)
run "h5repack store -> native" env HDF5_VOL_CONNECTOR="nczarr native" "$B/h5repack" "$tmp/wc.zarr" "$tmp/repacked.h5" &&
  head -c 8 "$tmp/repacked.h5" | grep -q HDF &&
  native "$B/h5repack" "$tmp/w.h5" "$tmp/repacked-native.h5" &&
  if native "$B/h5diff" -c "$tmp/repacked-native.h5" "$tmp/repacked.h5" >"$tmp/d.log" 2>&1 ||
    ! grep -v 'is an empty dataset$' "$tmp/d.log" | grep -q .; then
    echo "ok: h5repack store -> native"
  else sed 's/^/    | /' "$tmp/d.log" | head -n 30; fail "h5repack store -> native: h5diff"; fi
k=0
for opt in "-f GZIP=6" "-l /g/data:CHUNK=2" "-f SHUF -f GZIP=1 -l CHUNK=3"; do
  name=rp$((++k))
  # shellcheck disable=SC2086
  native "$B/h5repack" $opt "$tmp/hl.h5" "$tmp/$name.h5" && run "h5repack $opt native -> store" "$B/h5repack" $opt "$tmp/hl.h5" "$tmp/$name.zarr" &&
    judge "h5repack $opt" "$tmp/hl.h5" "$name"
  diff <(native "$B/h5dump" -p -H -d /g/data "$tmp/$name.h5" | sed -n '/STORAGE_LAYOUT/,/FILLVALUE/p' | grep -v 'SIZE\|OFFSET') \
    <("$B/h5dump" -p -H -d /g/data "$tmp/$name.zarr" | sed -n '/STORAGE_LAYOUT/,/FILLVALUE/p' | grep -v 'SIZE\|OFFSET') ||
    fail "h5repack $opt: h5dump -p shows other chunks or filters in the store"
done
exit $status
