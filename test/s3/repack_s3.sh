#!/usr/bin/env bash
# h5repack into a bucket and back (issue [10]): 20 of HDF5's own tool test files (types,
# filters, layouts, links, attributes, a virtual dataset, external raw data), each
#   HDF5_VOL_CONNECTOR=nczarr h5repack in.h5 <store in the test RGW's bucket>
#   h5diff in.h5 <store>                                  (through the connector)
#   HDF5_VOL_CONNECTOR="nczarr native" h5repack <store> back.h5  (back to a native file)
#   h5diff in.h5 back.h5                                  (native HDF5 alone)
# every h5diff finding no difference.
set -euo pipefail
: "${NCZARR_BUILD:?}" "${NCZARR_PREFIX:?}"
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../common/judge.sh"
. "$here/s3_common.sh"
files_dir=$NCZARR_PREFIX/share/hdf5-tool-testfiles
[ -d "$files_dir" ] || { echo "FAIL: no tool test files in $files_dir (scripts/setup-deps.sh unpacks them)"; exit 1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/nczarr-repack-s3.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
B=$NCZARR_PREFIX/bin
bucket=repack-$$-$RANDOM
files=(h5diff/h5diff_basic2 h5diff/h5diff_dtypes h5diff/h5diff_hyper1 h5diff/h5diff_links
  h5diff/h5diff_softlinks h5diff/h5diff_strings1 h5dump/tarray1 h5dump/tattr h5dump/tbitnopaque
  h5dump/tcmpdints h5dump/tcompound_complex2 h5dump/tfloat16 h5dump/tgroup h5dump/thlink
  h5dump/tnestedcomp h5dump/tvldtypes1 h5dump/vds/vds-eiger h5repack/h5repack_filters
  h5repack/h5repack_layout h5repack/h5repack_uint8be_ex)
status=0
n=0
for f in "${files[@]}"; do
  in="$files_dir/${f%%/*}/testfiles/${f#*/}.h5"
  name=$(basename "$f")
  url="$NCZ_S3_HTTPS_ENDPOINT/$bucket/$name.zarr#mode=nczarr,s3"
  [ -f "$in" ] || { echo "FAIL: $f: no $in"; status=1; continue; }
  # from the file's directory: external datasets name their raw files relative to it
  cd "$(dirname "$in")"
  if ! timeout 300 "$B/h5repack" "$in" "$url" >"$tmp/log" 2>&1; then
    sed 's/^/    | /' "$tmp/log" | head -n 20; echo "FAIL: $f: h5repack into the bucket"; status=1; continue
  fi
  # in the bucket, as a store (HDF5 falls back to native HDF5 when the plugin does not load)
  code=$(s3_status GET "$bucket/$name.zarr/.zgroup")
  [ "$code" = 200 ] || { echo "FAIL: $f: no store in the bucket (GET .zgroup: HTTP $code)"; status=1; continue; }
  if ! timeout 300 "$B/h5diff" "$in" "$url" >"$tmp/log" 2>&1; then
    sed 's/^/    | /' "$tmp/log" | head -n 20; echo "FAIL: $f: h5diff of the file and the store in the bucket"; status=1
  fi
  if ! HDF5_VOL_CONNECTOR="nczarr native" timeout 300 "$B/h5repack" "$url" "$tmp/$name.back.h5" >"$tmp/log" 2>&1; then
    sed 's/^/    | /' "$tmp/log" | head -n 20; echo "FAIL: $f: h5repack from the bucket to a native file"; status=1; continue
  fi
  if ! nc_native timeout 300 "$B/h5diff" "$in" "$tmp/$name.back.h5" >"$tmp/log" 2>&1; then
    sed 's/^/    | /' "$tmp/log" | head -n 20; echo "FAIL: $f: native h5diff of the file and its round trip"; status=1
    continue
  fi
  n=$((n + 1))
  echo "ok: $f: into the bucket and back"
done
echo "$n of ${#files[@]} files round-tripped through the bucket"
exit $status
