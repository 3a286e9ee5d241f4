# Shared by the test/netcdf4 scripts (sourced, after `set -euo pipefail`).
# ctest sets HDF5_VOL_CONNECTOR=nczarr and HDF5_PLUGIN_PATH (the connector's directory and
# the filter plugins); NCZARR_SANITIZER is set in the sanitizer builds.
: "${NCZARR_BUILD:?}" "${NCZARR_PREFIX:?}" "${HDF5_VOL_CONNECTOR:?}" "${HDF5_PLUGIN_PATH:?}"
NC4_HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# nc_native, store_url, assert_store, dump_native, dump_store, compare_cdl, compare_ncdump
. "$NC4_HERE/../common/judge.sh"
NCBIN=$NCZARR_PREFIX/bin
NC4_PROGS=$NCZARR_BUILD/test/netcdf4
# netCDF-C's tools deadlock at exit with a preloaded ASan runtime and cannot load the
# sanitized connector without one (test/interop/netcdf_loads_connector.sh): in sanitizer
# builds, only programs built here with the sanitizers write through the connector.
NC4_SANITIZED=${NCZARR_SANITIZER:+1}
for t in ncgen nccopy ncdump h5dump; do
  [ -x "$NCBIN/$t" ] || { echo "FAIL: missing tool $NCBIN/$t"; exit 1; }
done

# A netCDF-C program with the connector; LD_PRELOAD (the sanitizer runtimes, for HDF5's
# tools) is not for netCDF-C's tools, and the programs built here link their own.
nc_connector() { env LD_PRELOAD= "$@"; }

# assert_ncproperties PATH WHAT: netCDF-C's provenance attribute was written (the connector
# keeps _NCProperties as an attribute of the root group).
assert_ncproperties() {
  if [ -d "$1" ]; then
    grep -q '"_NCProperties"' "$1/.zattrs" || { echo "FAIL: $2: $1/.zattrs has no _NCProperties"; return 1; }
  else
    # grep reads all of ncdump's output (grep -q could make ncdump die of SIGPIPE)
    nc_native "$NCBIN/ncdump" -hs "$1" | grep '^[[:space:]]*:_NCProperties = ' >/dev/null ||
      { echo "FAIL: $2: $1 has no _NCProperties"; return 1; }
  fi
}

# ncgen_native CDL OUT: the netCDF-4 file of a corpus CDL, natively. `ncgen -4` unless the
# CDL says otherwise in a line "// ncgen-kind: K" (ncgen -k K: nc7 is the classic model).
cdl_kind() { sed -n 's|^// ncgen-kind: *\([a-z0-9]*\).*|\1|p' "$1" | head -n 1; }
ncgen_args() { local k; k=$(cdl_kind "$1"); if [ -n "$k" ]; then echo "-k $k"; else echo "-4"; fi; }
ncgen_native() {
  # shellcheck disable=SC2046
  nc_native "$NCBIN/ncgen" $(ncgen_args "$1") -o "$2" "$1" || { echo "FAIL: ncgen $(ncgen_args "$1") (native) of $1"; return 1; }
}

# netcdf_c_store_skips NAME: h5dump_data.py --skip options for the values netCDF-C 4.10.1's
# own NCZarr writer (nccopy to #mode=nczarr) does not keep as the netCDF-4 file of CDL NAME
# holds them (its store holds them so: the connector shows what is there). For
# compare_h5dump_data of netCDF-C's stores.
netcdf_c_store_skips() {
  case "$1" in
    # text attributes are cut at their first non-ASCII byte ("café λ" is stored as "caf")
    text_strings) echo "--skip /@utf8" ;;
    # floating-point attribute values are written with 6 significant digits
    types_atomic) echo "--skip /v_double@a_double --skip /v_float@a_float" ;;
    # a variable never written gets a chunk of fill values, where the netCDF-4 file
    # allocates no storage (for which h5dump prints no data)
    unlimited_multi) echo "--skip /never_written" ;;
  esac
}

# compare_scales NATIVE STORE WHAT: h5dump -A of the store through the connector shows
# the dimension scales of the native file (normalize_h5dump.py's facts). Prints the diff.
compare_scales() {
  local native=$1 store=$2 what=$3 d
  d=$(mktemp -d "${TMPDIR:-/tmp}/nczarr-scales.XXXXXX")
  env -u HDF5_VOL_CONNECTOR "$NCBIN/h5dump" -A "$native" >"$d/native.txt" 2>"$d/native.err" ||
    { cat "$d/native.err"; echo "FAIL: $what: h5dump -A of the native file"; rm -rf "$d"; return 1; }
  local rc=0
  "$NCBIN/h5dump" -A "$store" >"$d/store.txt" 2>"$d/store.err" || rc=$?
  nc_native /usr/bin/python3 "$NC4_HERE/normalize_h5dump.py" <"$d/native.txt" >"$d/native.facts"
  nc_native /usr/bin/python3 "$NC4_HERE/normalize_h5dump.py" <"$d/store.txt" >"$d/store.facts"
  if [ "$rc" -ne 0 ]; then
    head -n 40 "$d/store.err" | sed 's/^/    | /'
    echo "FAIL: $what: h5dump -A of the store through the connector failed (status $rc; facts compared anyway)"
  fi
  if ! diff -u --label "h5dump facts: native netCDF-4 ($what)" --label "h5dump facts: store via the connector ($what)" \
    "$d/native.facts" "$d/store.facts"; then
    echo "FAIL: $what: the dimension scales h5dump shows through the connector differ (diff above)"
    rc=1
  fi
  rm -rf "$d"
  [ "$rc" -eq 0 ]
}

# run_logged LOG CMD...: runs CMD with its output in LOG; shows LOG when it fails (its
# first 60 lines, where the first error stack is, and its last 5).
run_logged() {
  local log=$1 rc=0 n
  shift
  "$@" >"$log" 2>&1 || rc=$?
  if [ "$rc" -ne 0 ]; then
    n=$(wc -l <"$log")
    if [ "$n" -le 70 ]; then
      sed 's/^/    | /' "$log"
    else
      head -n 60 "$log" | sed 's/^/    | /'
      echo "    | ... ($((n - 65)) lines left out)"
      tail -n 5 "$log" | sed 's/^/    | /'
    fi
    if [ "$rc" -ge 128 ]; then echo "FAIL: crashed (status $rc): ${*##*/}"; fi
  fi
  return "$rc"
}
