#!/usr/bin/env bash
# The interop writers of the earlier issues, on S3: each HDF5 program (test/interop: every
# atomic and derived type, variable-length sequences, extra hard links, JSON-looking text
# attributes, every codec) runs natively (an HDF5 file) and through the connector straight
# into the bucket, and each store on S3 is judged against the native file:
#  1. h5dump through the connector shows the store on S3 as h5dump shows the native file;
#  2. zarr-python 3 over s3fs reads the native file's values (h5py) in it (compare_values;
#     what zarr-python 3.1 itself cannot read is named, and must fail to read);
#  3. netCDF-C's own S3 client (https): ncdump of the store on S3 is ncdump of the native
#     file (up to the names of anonymous dimensions) for the writer netCDF-C can read
#     natively (plain); netCDF-C cannot read the other native files (compound, enum, vlen,
#     hard-link cycles), so for them ncdump of the store on S3 must succeed and be ncdump
#     of the same program's store in a local directory (judged against the native file by
#     test/interop's own scripts).
# Then Zarr v3 into the bucket, judged by zarr-python 3 over s3fs, xarray and h5dump.
set -euo pipefail
: "${NCZ_S3_ENV:?}" "${NCZARR_BUILD:?}" "${NCZARR_PREFIX:?}" "${NCZARR_ZARR3_PYTHON:?}"
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../common/judge.sh"
# the server's settings, the AWS variables, s3_storage_options
. "$here/s3_common.sh"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/nczarr-s3w.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
t=$NCZARR_BUILD/test
bucket=writers-$$-$RANDOM
s3() { echo "$NCZ_S3_HTTPS_ENDPOINT/$bucket/$1#mode=nczarr,s3"; }
zarr3_char="zarr-python 3.1 has no data type for >S1 (NC_CHAR)"
status=0
# name|writer and its arguments after the output|what zarr-python 3.1 cannot read:
# PATH=WHY;PATH=WHY (compare_h5_zarr.py --unreadable)
nested="zarr-python 3.1 has no structured type with a nested or array field"
cases=(
  "plain|$t/interop_writer|/strings/label=$zarr3_char"
  "types|$t/interop_writer --types|/strings/label=$zarr3_char;/usertypes/table=$nested;/usertypes/vectors=$nested"
  "vlen|$t/interop_vlen_writer|/ragged=zarr-python 3.1 has no data type for numcodecs' vlen-array"
  "hardlinks|$t/interop_hardlinks_writer|"
  "attrs|$t/interop_attr_fidelity|"
)
for c in "${cases[@]}"; do
  IFS='|' read -r n prog zopts <<<"$c"
  read -r -a cmd <<<"$prog"
  unreadable=()
  IFS=';' read -r -a ur <<<"$zopts"
  for u in "${ur[@]}"; do unreadable+=(--unreadable "$u"); done
  echo "-- $n"
  # the program's first argument is the output
  nc_native "${cmd[0]}" "$tmp/$n.h5" "${cmd[@]:1}" >"$tmp/$n.native.log" 2>&1 ||
    { cat "$tmp/$n.native.log"; echo "FAIL: $n: the native run"; status=1; continue; }
  "${cmd[0]}" "$(s3 "$n")" "${cmd[@]:1}" >"$tmp/$n.s3.log" 2>&1 ||
    { cat "$tmp/$n.s3.log"; echo "FAIL: $n: writing to S3 through the connector"; status=1; continue; }
  "${cmd[0]}" "$tmp/$n.zarr" "${cmd[@]:1}" >"$tmp/$n.local.log" 2>&1 ||
    { cat "$tmp/$n.local.log"; echo "FAIL: $n: writing the local store"; status=1; continue; }
  assert_store "$tmp/$n.zarr" "$n" || { status=1; continue; }

  # 1. h5dump: the store on S3 through the connector = the native file
  compare_h5dump "$tmp/$n.h5" "$(s3 "$n")" "$n on S3" || status=1

  # 2. zarr-python 3 over s3fs: the native file's values
  compare_values "$tmp/$n.h5" "s3://$bucket/$n" "$n on S3" --python "$NCZARR_ZARR3_PYTHON" \
    --storage-options "$(s3_storage_options)" "${unreadable[@]}" || status=1

  # 3. netCDF-C's S3 client
  if ! nc_native "$NCZ_S3_NETCDF" "$NCZARR_PREFIX/bin/ncdump" "$(s3 "$n")" >"$tmp/$n.s3.raw" 2>"$tmp/$n.err"; then
    cat "$tmp/$n.err"
    echo "FAIL: $n: netCDF-C's ncdump cannot read the store on S3"
    status=1
    continue
  fi
  normalize_cdl --nil-as-empty <"$tmp/$n.s3.raw" >"$tmp/$n.s3.cdl"
  if [ "$n" = plain ]; then
    dump_native "$tmp/$n.h5" --nil-as-empty >"$tmp/$n.expected.cdl"
    judge="the native file"
  else
    dump_store "$tmp/$n.zarr" --nil-as-empty >"$tmp/$n.expected.cdl"
    judge="the local store"
  fi
  if diff -u "$tmp/$n.expected.cdl" "$tmp/$n.s3.cdl" >"$tmp/$n.diff"; then
    echo "ok: $n: ncdump (netCDF-C's S3 client) of the store on S3 = ncdump of $judge"
  else
    head -n 30 "$tmp/$n.diff"
    echo "FAIL: $n: ncdump of the store on S3 differs from ncdump of $judge"
    status=1
  fi
done

# every codec, written by the codecs writer (its second argument is a folder for raw data)
echo "-- codecs"
mkdir -p "$tmp/raw1" "$tmp/raw2"
if nc_native "$t/interop_codecs_writer" "$tmp/codecs.h5" "$tmp/raw1" >"$tmp/codecs.log" 2>&1 &&
  "$t/interop_codecs_writer" "$(s3 codecs)" "$tmp/raw2" >"$tmp/codecs.log" 2>&1; then
  compare_h5dump "$tmp/codecs.h5" "$(s3 codecs)" "codecs on S3" || status=1
  compare_values "$tmp/codecs.h5" "s3://$bucket/codecs" "codecs on S3" --python "$NCZARR_ZARR3_PYTHON" \
    --storage-options "$(s3_storage_options)" || status=1
else
  cat "$tmp/codecs.log"
  echo "FAIL: codecs: writing"
  status=1
fi
# Zarr v3 straight into the bucket ("nczarr v3", and in shards): zarr-python 3 over s3fs
# reads the native file's values, xarray opens every group with its dimension names, h5dump
# through the connector shows the native file's data
for c in "plain|$t/interop_writer|v3" "plain|$t/interop_writer|v3 shards=4" "codecs|$t/interop_codecs_writer RAW|v3 shards=4" \
  "hardlinks|$t/interop_hardlinks_writer|v3 shards=4" "attrs|$t/interop_attr_fidelity|v3"; do
  IFS='|' read -r n prog opts <<<"$c"
  read -r -a cmd <<<"$prog"
  args=("${cmd[@]:1}")
  args=("${args[@]/RAW/$tmp/raw3}")
  mkdir -p "$tmp/raw3"
  key="$n-${opts// /-}"
  key=${key//=/}
  what="$n ($opts) on S3"
  echo "-- $what"
  [ -f "$tmp/$n.h5" ] || nc_native "${cmd[0]}" "$tmp/$n.h5" "${args[@]}" >/dev/null 2>&1 ||
    { echo "FAIL: $what: the native run"; status=1; continue; }
  if ! HDF5_VOL_CONNECTOR="nczarr $opts" "${cmd[0]}" "$(s3 "$key")" "${args[@]}" >"$tmp/v3.log" 2>&1; then
    cat "$tmp/v3.log"
    echo "FAIL: $what: writing"
    status=1
    continue
  fi
  compare_values "$tmp/$n.h5" "s3://$bucket/$key" "$what" --python "$NCZARR_ZARR3_PYTHON" \
    --storage-options "$(s3_storage_options)" || status=1
  nc_native "$NCZARR_ZARR3_PYTHON" "$here/../interop/v3_xarray.py" "s3://$bucket/$key" \
    --storage-options "$(s3_storage_options)" || { echo "FAIL: $what: xarray"; status=1; }
  compare_h5dump_data "$tmp/$n.h5" "$(s3 "$key")" "$what" || status=1
done
[ "$status" -eq 0 ] || { echo "FAIL: writers_s3"; exit 1; }
echo "writers_s3: ok"
