#!/usr/bin/env bash
# xarray opens every group of the stores that netCDF-4 programs write through the connector
# (the CDL corpus, written by `ncgen -4`; by nc4_copy of the native file in the sanitizer
# builds) with the netCDF dimension names (xarray_dims.py). netCDF-C's own NCZarr store of
# each CDL is checked first, as a control.
# The reader is Debian's /usr/bin/python3 (zarr-python 2.13), which reads metadata as
# ASCII and fails on UTF-8 text (zarr-python#1308, fixed in 2.14), while netCDF-C does not
# decode \u escapes (ncjson.c): the default keeps UTF-8 text, so for a CDL with non-ASCII
# text xarray reads the same program's store written with the connector option ascii-json;
# every other store is read as written by default, and its ascii-json twin too.
# The same programs write Zarr v3 stores ("nczarr v3", and "nczarr v3 shards=4"): xarray of
# zarr-python 3 opens every group of them with the netCDF dimension names, and finds in
# every variable the values the v2 store holds. So do the same programs' v3 stores in a zip
# ("nczarr v3 shards=4 zip-root") and in a bucket of the S3 test server ("nczarr v3" with
# s3root: the programs name their output plainly), read over s3fs.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/nc4_lib.sh"
: "${NCZ_S3_ENV:?}"
# the server's settings, the AWS variables, s3_storage_options
. "$here/../s3/s3_common.sh"
bucket=xarray-dims-$$-$RANDOM
[ -x /usr/bin/python3 ] || { echo "FAIL: missing /usr/bin/python3"; exit 1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/nczarr-xr.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
py() { nc_native /usr/bin/python3 "$@"; }
status=0
for cdl in "$here"/cdl/*.cdl; do
  n=$(basename "$cdl" .cdl)
  echo "-- $n"
  ncgen_native "$cdl" "$tmp/$n.nc" || exit 1
  nc_native "$NCBIN/ncdump" -h "$tmp/$n.nc" >"$tmp/$n.h"
  nc_native "$NCBIN/nccopy" "$tmp/$n.nc" "$(store_url "$tmp/$n.netcdf-c.zarr")" ||
    { echo "FAIL: control: netCDF-C's nccopy to NCZarr of $n"; exit 1; }
  py "$here/xarray_dims.py" "$tmp/$n.h" "$tmp/$n.netcdf-c.zarr" ||
    { echo "FAIL: control: xarray on netCDF-C's own store of $n (not the connector)"; exit 1; }
  # writer OUT: W becomes the command that writes the store OUT.
  writer() {
    if [ -z "$NC4_SANITIZED" ]; then
      # shellcheck disable=SC2046
      W=("$NCBIN/ncgen" $(ncgen_args "$cdl") -o "$1" "$cdl")
    else
      W=("$NC4_PROGS/nc4_copy" "$tmp/$n.nc" "$1")
    fi
  }
  writer "$tmp/$n.zarr"
  if ! run_logged "$tmp/write.log" nc_connector "${W[@]}"; then
    echo "FAIL: $n: the writer through the connector failed (output above)"
    status=1
    continue
  fi
  assert_store "$tmp/$n.zarr" "$n" || { status=1; continue; }
  if LC_ALL=C grep -qP '[^\x00-\x7f]' "$tmp/$n.h"; then
    echo "($n has non-ASCII text: xarray reads its ascii-json store)"
  else
    py "$here/xarray_dims.py" "$tmp/$n.h" "$tmp/$n.zarr" || status=1
  fi
  writer "$tmp/$n.ascii.zarr"
  if ! HDF5_VOL_CONNECTOR="nczarr ascii-json" run_logged "$tmp/write.log" nc_connector "${W[@]}"; then
    echo "FAIL: $n: the writer with ascii-json through the connector failed (output above)"
    status=1
    continue
  fi
  assert_store "$tmp/$n.ascii.zarr" "$n (ascii-json)" || { status=1; continue; }
  if LC_ALL=C grep -rlP '[^\x00-\x7f]' "$tmp/$n.ascii.zarr" --include='.z*' >"$tmp/nonascii"; then
    echo "FAIL: $n: ascii-json left non-ASCII metadata: $(cat "$tmp/nonascii")"
    status=1
  fi
  py "$here/xarray_dims.py" "$tmp/$n.h" "$tmp/$n.ascii.zarr" --save-values "$tmp/$n.values" || status=1
  # Zarr v3, unsharded and in shards of 4 x 4 x ... chunks: zarr-python 3's xarray opens every
  # group with the netCDF dimension names, and every variable holds the values of the v2
  # store (whose ncdump is the native file's: cdl_compare.sh)
  for form in dir shards zip s3; do
    so=()
    case $form in
      dir) opts="v3" out=$tmp/$n.v3.zarr store=$out ;;
      shards) opts="v3 shards=4" out=$tmp/$n.v3.zarr store=$out ;;
      zip) opts="v3 shards=4 zip-root" out=$tmp/$n.v3.zip store=$out ;;
      s3) opts="v3 s3root=$NCZ_S3_HTTPS_ENDPOINT/$bucket/v3" out=$n store=s3://$bucket/v3/$n
        so=(--storage-options "$(s3_storage_options)") ;;
    esac
    writer "$out"
    [ $form = s3 ] || rm -rf "$out"
    if ! HDF5_VOL_CONNECTOR="nczarr $opts" run_logged "$tmp/write.log" nc_connector "${W[@]}"; then
      echo "FAIL: $n: the writer with \"nczarr $opts\" failed (output above)"
      status=1
      continue
    fi
    case $form in
      dir | shards)
        if [ ! -f "$out/zarr.json" ] || find "$out" -name '.z*' | grep -q .; then
          echo "FAIL: $n: \"nczarr $opts\" did not write a Zarr v3 store"
          status=1
          continue
        fi ;;
      zip) assert_zip_store "$out" "$n ($opts)" || { status=1; continue; } ;;
    esac
    nc_native "$NCZARR_ZARR3_PYTHON" "$here/xarray_dims.py" "$tmp/$n.h" "$store" \
      --same-values "$tmp/$n.values" "${so[@]}" || status=1
  done
done
[ "$status" -eq 0 ] || { echo "FAIL: xarray_dims"; exit 1; }
echo "xarray_dims: ok"
