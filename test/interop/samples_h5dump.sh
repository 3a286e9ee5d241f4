#!/usr/bin/env bash
# Every sample store reads through the connector with the values the real tools print:
# netCDF-C 4.9.3's (fixtures in test/data) and those the netCDF-C of the dependency prefix
# and Debian's zarr-python write here, now (ncgen of the same CDL, make_samples.py). h5dump's values and attributes are
# compared with zarr-python's and, for netCDF-C's stores, with ncdump's
# (compare_values.py). Compressed arrays cannot be read yet: reading one must fail with
# an error naming its codec while the rest of the store still dumps.
set -euo pipefail
: "${NCZARR_PREFIX:?}" "${NCZARR_SAMPLES:?}"
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/nczarr-smp.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

S=$NCZARR_SAMPLES
export H5DUMP=$NCZARR_PREFIX/bin/h5dump NCDUMP=$NCZARR_PREFIX/bin/ncdump
# h5dump loads the connector (and, in sanitizer builds, needs the runtimes preloaded);
# python and ncdump must not get the preload.
export H5DUMP_ENV_PRELOAD="${LD_PRELOAD:-}"
export NCDUMP_PLUGIN_PATH=$NCZARR_PREFIX/lib/plugin
py() { env LD_PRELOAD= /usr/bin/python3 "$@"; }
# netCDF-C's tools run without the connector and with only the filter plugins on the path.
nc() { env -u HDF5_VOL_CONNECTOR LD_PRELOAD= HDF5_PLUGIN_PATH="$NCZARR_PREFIX/lib/plugin" "$@"; }
status=0

# Stores written here, now, by the netCDF-C of the prefix and by zarr-python.
gen=$tmp/gen
mkdir -p "$gen/nc" "$gen/zp"
ncver=$("$NCZARR_PREFIX/bin/nc-config" --version)
for m in "sample.nczarr.file sample.cdl nczarr,file" "sample.zarr.file sample.cdl zarr,file" \
  "sample.nczarr.zip sample.cdl nczarr,zip" "filters.nczarr.file filters.cdl nczarr,file"; do
  set -- $m
  nc "$NCZARR_PREFIX/bin/ncgen" -k nc4 -o "file://$gen/nc/$1#mode=$3" "$S/netcdf-c-4.9.3/$2" ||
    { echo "FAIL: $ncver ncgen cannot write $1"; exit 1; }
done
py "$S/zarr-python/make_samples.py" "$gen/zp" >/dev/null || { echo "FAIL: make_samples.py"; exit 1; }
echo "stores: test/data (netCDF-C 4.9.3, zarr-python) and $ncver + zarr-python $(py -c 'import zarr; print(zarr.__version__)') now"

check_set() { # SET NC_DIR ZP_DIR: every check on one writer's stores
set=$1 NC=$2 ZP=$3
echo "-- $set"
# 1. The connector really is the reader: native HDF5 cannot open a directory at all.
"$H5DUMP" -H "$ZP/basic.zarr" >"$tmp/basic.h" 2>"$tmp/basic.err" ||
  { cat "$tmp/basic.err"; echo "FAIL: h5dump cannot open a Zarr directory: the connector did not load"; exit 1; }
grep -q 'DATASET "t_int8"' "$tmp/basic.h" ||
  { cat "$tmp/basic.h"; echo "FAIL: basic.zarr does not show dataset t_int8"; exit 1; }

# 2. Values and attributes against zarr-python (and ncdump for netCDF-C's stores).
run() {
  if ! py "$here/compare_values.py" "$@"; then
    echo "FAIL: $1"
    status=1
  fi
}
run "$ZP/basic.zarr"
run "$ZP/xarray.zarr"
run "$ZP/slash_sep.zarr"
run "$ZP/order_f.zarr"
run "$ZP/zipped.zip"
run "$NC/sample.nczarr.file" "file://$NC/sample.nczarr.file#mode=nczarr,file"
run "$NC/sample.zarr.file" "file://$NC/sample.zarr.file#mode=zarr,file"
run "$NC/sample.nczarr.zip" "file://$NC/sample.nczarr.zip#mode=nczarr,zip"
run "$NC/filters.nczarr.file" "file://$NC/filters.nczarr.file#mode=nczarr,file"

# 3. The same stores with every array numcodecs can decode rewritten uncompressed (same
# keys, missing chunks, order, separators, fill values), so that the values of the
# compressed sample arrays (all of zarr-python's defaults are Blosc) are compared too.
mkdir -p "$tmp/twin/$set"
twin() {
  local src=$1 dst
  dst=$tmp/twin/$set/$(basename "$src")
  shift
  py "$here/compare_values.py" --decompress "$src" "$dst" || { echo "FAIL: cannot decompress $src"; status=1; return; }
  run "$dst" "${@/\{\}/$dst}"
}
twin "$ZP/basic.zarr"
twin "$ZP/xarray.zarr"
twin "$ZP/slash_sep.zarr"
twin "$ZP/order_f.zarr"
twin "$ZP/zipped.zip"
twin "$NC/sample.nczarr.file" "file://{}#mode=nczarr,file"
twin "$NC/sample.zarr.file" "file://{}#mode=zarr,file"
twin "$NC/sample.nczarr.zip" "file://{}#mode=nczarr,zip"
twin "$NC/filters.nczarr.file" "file://{}#mode=nczarr,file"

# 4. Types and shapes the readers agree on (ncdump's CDL / zarr-python's dtype).
# expect STORE DATASET PATTERN...: every pattern must appear in `h5dump -H -d DATASET`.
expect() {
  local store=$1 dset=$2
  shift 2
  if ! "$H5DUMP" -H -d "$dset" "$store" >"$tmp/h.txt" 2>"$tmp/h.err"; then
    cat "$tmp/h.err"
    echo "FAIL: $store: h5dump -H -d $dset failed"
    status=1
    return
  fi
  local p
  for p in "$@"; do
    if ! grep -qF -- "$p" "$tmp/h.txt"; then
      cat "$tmp/h.txt"
      echo "FAIL: $store $dset: header lacks '$p'"
      status=1
    fi
  done
}
for st in "$NC/sample.nczarr.file" "$NC/sample.nczarr.zip"; do
  # NC_STRING (|S128 with NCZarr metadata) is a variable-length string, NC_CHAR (>S1) a
  # 1-byte string, a scalar (shape [1] + "scalar": 1) a scalar dataspace, an unlimited
  # dimension an unlimited maximum.
  expect "$st" /names 'STRSIZE H5T_VARIABLE' 'SIMPLE { ( 4 ) / ( 4 ) }'
  expect "$st" /label 'STRSIZE 1;' 'SIMPLE { ( 6 ) / ( 6 ) }'
  expect "$st" /scalar_int 'H5T_STD_I32LE' 'DATASPACE  SCALAR'
  expect "$st" /sub/big 'H5T_STD_I64LE' 'DATASPACE  SCALAR'
  expect "$st" /time 'SIMPLE { ( 3 ) / ( H5S_UNLIMITED ) }'
  expect "$st" /temp 'H5T_IEEE_F32LE' 'SIMPLE { ( 3, 4 ) / ( H5S_UNLIMITED, 4 ) }'
  expect "$st" /sub/flags 'H5T_STD_U8LE'
  expect "$st" /sub/v 'H5T_STD_I16LE' 'SIMPLE { ( 4, 2 ) / ( 4, 2 ) }'
done
expect "$NC/sample.zarr.file" /scalar_int 'SIMPLE { ( 1 ) / ( 1 ) }'
expect "$ZP/basic.zarr" /fixed_strings 'STRSIZE 6;'
expect "$ZP/basic.zarr" /t_uint16_be 'H5T_STD_U16BE' 'SIMPLE { ( 5, 7 ) / ( 5, 7 ) }'
expect "$ZP/basic.zarr" /t_float64_be 'H5T_IEEE_F64BE'
expect "$ZP/slash_sep.zarr" /slash_sep 'H5T_STD_I16LE' 'SIMPLE { ( 4, 4 ) / ( 4, 4 ) }'
expect "$ZP/order_f.zarr" /order_f 'H5T_STD_I32LE' 'SIMPLE { ( 3, 5 ) / ( 3, 5 ) }'
expect "$ZP/xarray.zarr" /temp 'H5T_IEEE_F32LE' 'SIMPLE { ( 2, 3, 4 ) / ( 2, 3, 4 ) }'
expect "$ZP/zipped.zip" /v 'H5T_IEEE_F64LE' 'SIMPLE { ( 3, 4 ) / ( 3, 4 ) }'

}
check_set fixtures "$S/netcdf-c-4.9.3" "$S/zarr-python"
check_set now "$gen/nc" "$gen/zp"

if [ "$status" -ne 0 ]; then
  echo "FAIL: samples_h5dump"
  exit 1
fi
echo "samples_h5dump: ok"
