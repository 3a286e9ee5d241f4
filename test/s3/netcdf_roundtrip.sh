#!/usr/bin/env bash
# netCDF-C writes a store to the S3 test server through its own S3 client (https, as it
# always rewrites S3 URLs, verified against the test CA) and reads it back: the CDL is the
# one of the same data written to a local netCDF-4 file. The keys really are on the server.
#   netcdf_roundtrip.sh NCGEN NCDUMP
set -euo pipefail
ncgen=$1 ncdump=$2
here=$(cd "$(dirname "$0")" && pwd)
. "$here/s3_common.sh"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/nczarr-s3nc.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail=0

bucket=netcdf-roundtrip
url="$NCZ_S3_HTTPS_ENDPOINT/$bucket/data/store#mode=nczarr,s3"
# netCDF-C does not create buckets.
s3_make_bucket $bucket

"$ncgen" -4 -o "$tmp/native.nc" "$here/roundtrip.cdl"
"$ncdump" "$tmp/native.nc" | tail -n +2 >"$tmp/native.cdl"

"$NCZ_S3_NETCDF" "$ncgen" -4 -o "$url" "$here/roundtrip.cdl"
"$NCZ_S3_NETCDF" "$ncdump" "$url" >"$tmp/s3.full.cdl"
tail -n +2 "$tmp/s3.full.cdl" >"$tmp/s3.cdl"
if diff -u "$tmp/native.cdl" "$tmp/s3.cdl"; then
  echo "ok: ncdump of the store on S3 = ncdump of the netCDF-4 file ($(wc -l <"$tmp/s3.cdl") lines)"
else
  echo "FAIL: the store on S3 reads back differently"
  fail=1
fi

# The store is in the bucket, under its key, as NCZarr objects.
list=$(s3_curl GET "$bucket?list-type=2&prefix=data%2Fstore%2F" --fail)
for key in data/store/.zgroup data/store/field/.zarray data/store/sub/s/.zarray; do
  case "$list" in
    *"<Key>$key</Key>"*) echo "ok: $key is on the server" ;;
    *) echo "FAIL: $key not listed in the bucket: $list"; fail=1 ;;
  esac
done

# Overwriting a store that exists (ncgen creates with NC_CLOBBER, which truncates on S3).
"$NCZ_S3_NETCDF" "$ncgen" -4 -o "$url" "$here/roundtrip.cdl"
if "$NCZ_S3_NETCDF" "$ncdump" "$url" | tail -n +2 | diff -u "$tmp/native.cdl" -; then
  echo "ok: a store written over reads back the same"
else
  echo "FAIL: the rewritten store differs"
  fail=1
fi

exit $fail
