# shellcheck shell=bash
# The judgements the shell tests share, one copy each (source this after `set -euo pipefail`;
# NCZARR_PREFIX must be set, as ctest sets it):
#
#   assert_store PATH WHAT           the connector loaded and wrote PATH as an NCZarr
#                                    directory store (not the HDF5 file of the silent fallback)
#   assert_zip_store PATH WHAT       ... as a zip archive
#   run_proving_connector LOG CMD... runs CMD and fails unless the connector's plugin was
#                                    loaded into it (for tools whose output alone cannot tell)
#   compare_ncdump NATIVE STORE WHAT [--nil-as-empty]
#                                    ncdump of STORE (netCDF-C's own NCZarr reader) equals
#                                    ncdump of the native file NATIVE, up to what must differ
#                                    (normalize_cdl.py: the names of anonymous dimensions)
#   compare_h5dump NATIVE STORE WHAT [h5dump options]
#                                    h5dump shows STORE through the connector as it shows
#                                    the native file natively (up to the file's name)
#   compare_h5dump_data NATIVE STORE WHAT [h5dump_data.py options]
#                                    the same for data and attribute values only, where
#                                    the rest of the listing legitimately differs
#   compare_values NATIVE STORE WHAT [--python PY] [options]
#                                    every dataset's and attribute's value that h5py reads
#                                    in NATIVE is the one zarr-python reads in STORE
#                                    (compare_h5_zarr.py; Debian's zarr-python 2 by default)
#
# and the pieces they are made of: nc_native (netCDF-C and python without the connector),
# with_preload, real_prefix, store_url, normalize_cdl, dump_native, dump_store, compare_cdl. Each judgement prints what
# differs and returns non-zero, and no test ignores what one returns.
: "${NCZARR_PREFIX:?NCZARR_PREFIX is not set: run this test through ctest}"
JUDGE_HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

# netCDF-C (and python) without the connector: native HDF5 for files, its own NCZarr for
# store URLs (which it refuses to open with the connector's directory on HDF5_PLUGIN_PATH).
# The sanitizer runtimes a sanitizer build preloads are for HDF5's tools, not for these.
nc_native() { env -u HDF5_VOL_CONNECTOR LD_PRELOAD= HDF5_PLUGIN_PATH="$NCZARR_PREFIX/lib/plugin" "$@"; }

# with_preload CMD...: CMD with the preload library (vol_connector/preload/, HDF5's deprecated
# calls for stores) on LD_PRELOAD, after the sanitizer runtimes it was built with (a sanitizer
# build's, which must be loaded first). Give it an HDF5 tool of the real prefix
# (real_prefix), not the ThreadSanitizer build's wrapper, which sets LD_PRELOAD to its runtime.
with_preload() {
  local pre=$NCZARR_BUILD/vol_connector/preload/libnczarr_preload.so rt
  [ -f "$pre" ] || { echo "FAIL: $pre is not built"; return 1; }
  # (ldd without the runtimes a sanitizer build preloads: it would not list them again)
  rt=$(LD_PRELOAD='' ldd "$pre" | awk '$1 ~ /^lib(a|ub|t)san\.so/ {printf "%s ", $3}')
  LD_PRELOAD="$rt$pre" "$@"
}

# The dependency prefix itself (the ThreadSanitizer build's NCZARR_PREFIX is a shim whose
# HDF5 tools are wrappers that preload its runtime).
real_prefix() { dirname "$(readlink -f "$NCZARR_PREFIX/include")"; }

# The URL under which netCDF-C's own NCZarr reads a directory store.
store_url() { echo "file://$(cd "$(dirname "$1")" && pwd)/$(basename "$1")#mode=nczarr,file"; }

# assert_store PATH WHAT: HDF5 falls back to native HDF5 silently when the connector's plugin
# does not load (H5Fcreate then writes an HDF5 file at PATH and succeeds).
assert_store() {
  local p=$1 what=$2
  if [ -f "$p" ]; then
    echo "FAIL: $what: $p is a file ($(head -c 4 "$p" | od -An -c | tr -s ' ')...), not a store: native HDF5 wrote it (the connector did not load)"
    return 1
  fi
  [ -d "$p" ] || { echo "FAIL: $what: $p was not written"; return 1; }
  [ -f "$p/.zgroup" ] || { echo "FAIL: $what: $p has no .zgroup"; return 1; }
  grep -q '"_nczarr_superblock"' "$p/.zattrs" 2>/dev/null ||
    { echo "FAIL: $what: $p/.zattrs has no _nczarr_superblock"; return 1; }
}

# assert_zip_store PATH WHAT: a zip archive (its local-header signature), not an HDF5 file.
assert_zip_store() {
  local p=$1 what=$2
  [ -f "$p" ] || { echo "FAIL: $what: $p was not written"; return 1; }
  [ "$(head -c 4 "$p" | od -An -tx1 | tr -d ' ')" = 504b0304 ] ||
    { echo "FAIL: $what: $p is not a zip archive ($(head -c 8 "$p" | od -An -c | tr -s ' ')...): the connector did not load"; return 1; }
}

# run_proving_connector LOG CMD...: runs CMD (output in LOG, status returned) with the
# dynamic linker's log on, and fails when HDF5 did not load the connector's plugin into it:
# HDF5's tools print the same for a native file with or without the connector. (The loader
# names libhdf5 as the one that loaded it, or a sanitizer runtime that intercepts dlopen.)
run_proving_connector() {
  local log=$1 rc=0
  shift
  rm -f "$log".ld.*
  LD_DEBUG=files LD_DEBUG_OUTPUT="$log.ld" "$@" >"$log" 2>&1 || rc=$?
  if ! cat "$log".ld.* 2>/dev/null | grep -qE 'file=[^ ]*/libnczarr_vol\.so \[0\];  dynamically loaded by '; then
    echo "FAIL: HDF5 did not load the connector's plugin into ${1##*/} (HDF5_VOL_CONNECTOR=${HDF5_VOL_CONNECTOR:-unset}, HDF5_PLUGIN_PATH=${HDF5_PLUGIN_PATH:-unset})"
    rm -f "$log".ld.*
    return 1
  fi
  case "${HDF5_VOL_CONNECTOR:-}" in
    nczarr | "nczarr "*) ;;
    *) echo "FAIL: HDF5_VOL_CONNECTOR=${HDF5_VOL_CONNECTOR:-unset} does not name the connector"; rm -f "$log".ld.*; return 1 ;;
  esac
  rm -f "$log".ld.*
  return "$rc"
}

# normalize_cdl [--nil-as-empty] < CDL: test/common/normalize_cdl.py.
normalize_cdl() { env LD_PRELOAD= /usr/bin/python3 "$JUDGE_HERE/normalize_cdl.py" "$@"; }
# dump_native FILE / dump_store STORE [normalize_cdl options]: normalised ncdump output.
dump_native() {
  local f=$1 raw
  shift
  raw=$(mktemp "${TMPDIR:-/tmp}/nczarr-ncdump.XXXXXX")
  nc_native "$NCZARR_PREFIX/bin/ncdump" "$f" >"$raw" || { cat "$raw"; rm -f "$raw"; return 1; }
  normalize_cdl "$@" <"$raw"
  rm -f "$raw"
}
dump_store() {
  local s=$1 raw
  shift
  raw=$(mktemp "${TMPDIR:-/tmp}/nczarr-ncdump.XXXXXX")
  nc_native "$NCZARR_PREFIX/bin/ncdump" "$(store_url "$s")" >"$raw" || { cat "$raw"; rm -f "$raw"; return 1; }
  normalize_cdl "$@" <"$raw"
  rm -f "$raw"
}

# compare_cdl EXPECTED ACTUAL WHAT: prints the difference and fails when they differ.
compare_cdl() {
  if ! diff -u --label "native ($3)" --label "store ($3)" "$1" "$2"; then
    echo "FAIL: $3: ncdump of the store differs from ncdump of the native file (diff above)"
    return 1
  fi
}

# compare_ncdump NATIVE STORE WHAT [--nil-as-empty]
compare_ncdump() {
  local native=$1 store=$2 what=$3 d rc=0
  shift 3
  d=$(mktemp -d "${TMPDIR:-/tmp}/nczarr-cdl.XXXXXX")
  if ! dump_native "$native" "$@" >"$d/native.cdl" 2>"$d/err"; then
    cat "$d/native.cdl" "$d/err"
    echo "FAIL: $what: ncdump cannot read the native file"
    rm -rf "$d"
    return 1
  fi
  if ! dump_store "$store" "$@" >"$d/store.cdl" 2>"$d/err"; then
    cat "$d/store.cdl" "$d/err" | sed 's/^/    | /'
    echo "FAIL: $what: netCDF-C's NCZarr cannot read the store"
    rm -rf "$d"
    return 1
  fi
  compare_cdl "$d/native.cdl" "$d/store.cdl" "$what" || rc=1
  [ "$rc" -ne 0 ] || echo "ok: $what: ncdump of the store = ncdump of the native file ($(wc -l <"$d/store.cdl") lines)"
  rm -rf "$d"
  return "$rc"
}

# compare_values NATIVE STORE WHAT [--python PY] [compare_h5_zarr.py options...]: PY is
# the zarr-python that reads STORE (Debian's python3, zarr-python 2, by default; the
# zarr-python 3 environment has no h5py: Debian's python3 snapshots the native file for it).
# STORE may be an s3:// URL (--storage-options JSON).
compare_values() {
  local native=$1 store=$2 what=$3 py=/usr/bin/python3 snap rc=0
  shift 3
  if [ "${1:-}" = --python ]; then py=$2; shift 2; fi
  snap=$native
  if [ "$py" != /usr/bin/python3 ]; then
    snap=$(mktemp "${TMPDIR:-/tmp}/nczarr-snap.XXXXXX").pickle
    nc_native /usr/bin/python3 "$JUDGE_HERE/compare_h5_zarr.py" --snapshot "$native" "$snap" ||
      { echo "FAIL: $what: h5py cannot read the native file $native"; rm -f "$snap"; return 1; }
  fi
  nc_native "$py" "$JUDGE_HERE/compare_h5_zarr.py" "$snap" "$store" "$@" || rc=$?
  [ "$snap" = "$native" ] || rm -f "$snap"
  if [ "$rc" -eq 0 ]; then
    echo "ok: $what: zarr-python ($py) reads the native file's values in the store"
  else
    echo "FAIL: $what: zarr-python ($py) does not read the native file's values in the store (above)"
  fi
  return "$rc"
}

# compare_h5dump_data NATIVE STORE WHAT [h5dump_data.py options]: every dataset's data and
# every attribute's value that h5dump prints of the native file (natively) is what it
# prints of STORE through the connector (test/common/h5dump_data.py; --skip names a value
# one side holds for a reason the caller gives).
compare_h5dump_data() {
  local native=$1 store=$2 what=$3 d rc=0
  shift 3
  d=$(mktemp -d "${TMPDIR:-/tmp}/nczarr-h5data.XXXXXX")
  if ! env -u HDF5_VOL_CONNECTOR "$NCZARR_PREFIX/bin/h5dump" -y -w 0 -m %.17g "$native" >"$d/native.txt" 2>"$d/err"; then
    cat "$d/err"
    echo "FAIL: $what: h5dump of the native file"
    rm -rf "$d"
    return 1
  fi
  if ! "$NCZARR_PREFIX/bin/h5dump" -y -w 0 -m %.17g "$store" >"$d/store.txt" 2>"$d/err"; then
    head -n 30 "$d/err" | sed 's/^/    | /'
    echo "FAIL: $what: h5dump of the store through the connector"
    rm -rf "$d"
    return 1
  fi
  env LD_PRELOAD= /usr/bin/python3 "$JUDGE_HERE/h5dump_data.py" --attributes "$@" <"$d/native.txt" >"$d/native.facts"
  env LD_PRELOAD= /usr/bin/python3 "$JUDGE_HERE/h5dump_data.py" --attributes "$@" <"$d/store.txt" >"$d/store.facts"
  if diff -u --label "h5dump data: native ($what)" --label "h5dump data: store via the connector ($what)" \
    "$d/native.facts" "$d/store.facts"; then
    echo "ok: $what: h5dump shows the native file's data and attributes in the store ($(wc -l <"$d/native.facts") values)"
  else
    echo "FAIL: $what: h5dump shows other data or attributes in the store than in the native file (diff above)"
    rc=1
  fi
  rm -rf "$d"
  return "$rc"
}

# compare_h5dump NATIVE STORE WHAT [h5dump options]: h5dump shows STORE through the
# connector exactly as it shows the native file natively, but for the first line (the
# name) and the file's name in references (both written FILE).
compare_h5dump() {
  local native=$1 store=$2 what=$3 d rc=0
  shift 3
  d=$(mktemp -d "${TMPDIR:-/tmp}/nczarr-h5dump.XXXXXX")
  env -u HDF5_VOL_CONNECTOR "$NCZARR_PREFIX/bin/h5dump" -w 0 "$@" "$native" >"$d/native.raw" 2>&1 || rc=$?
  "$NCZARR_PREFIX/bin/h5dump" -w 0 "$@" "$store" >"$d/store.raw" 2>&1 || rc=$?
  tail -n +2 "$d/native.raw" | perl -pe 'BEGIN { $n = shift } s/\Q$n\E/FILE/g' "$native" >"$d/native.ddl"
  tail -n +2 "$d/store.raw" | perl -pe 'BEGIN { $n = shift } s/\Q$n\E/FILE/g' "$store" >"$d/store.ddl"
  if [ "$rc" -ne 0 ]; then
    head -n 30 "$d/store.raw" | sed 's/^/    | /'
    echo "FAIL: $what: h5dump failed (status $rc)"
  elif diff -u --label "h5dump: native ($what)" --label "h5dump: store via the connector ($what)" \
    "$d/native.ddl" "$d/store.ddl"; then
    echo "ok: $what: h5dump shows the store as the native file ($(wc -l <"$d/store.ddl") lines)"
  else
    echo "FAIL: $what: h5dump shows the store unlike the native file (diff above)"
    rc=1
  fi
  rm -rf "$d"
  return "$rc"
}
