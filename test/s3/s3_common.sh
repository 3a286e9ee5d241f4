# shellcheck shell=bash
# Sourced by the tests that use the S3 test server (test/s3/CMakeLists.txt, nczarr_s3_test):
# loads the server's settings ($NCZ_S3_ENV, written by scripts/s3-server.sh start) and gives
# signed requests with curl's SigV4 signer, the one behind libcurl's CURLOPT_AWS_SIGV4.
: "${NCZ_S3_ENV:?NCZ_S3_ENV is not set: run this test through ctest (fixture s3server)}"
[ -f "$NCZ_S3_ENV" ] || { echo "FAIL: no S3 server: $NCZ_S3_ENV is missing (did s3.server_start fail?)"; exit 1; }
S3_COMMON_HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck disable=SC1090
. "$NCZ_S3_ENV"

# s3_curl METHOD PATH [curl args]: curl with a request to $NCZ_S3_ENDPOINT/PATH signed as
# the test user (PATH percent-encoded and its query sorted by name by the caller: curl
# signs them as given). The body goes to stdout unless the args say otherwise. Never under
# the sanitizer builds' preloaded runtimes (curl hangs with a preloaded ASan).
s3_curl() {
  local method=$1 path=$2
  shift 2
  env LD_PRELOAD= curl -sS --max-time 60 -X "$method" --aws-sigv4 "aws:amz:$NCZ_S3_REGION:s3" \
    --user "$NCZ_S3_ACCESS_KEY:$NCZ_S3_SECRET_KEY" -H "x-amz-content-sha256: UNSIGNED-PAYLOAD" \
    "$@" "$NCZ_S3_ENDPOINT/$path"
}

# s3_status METHOD PATH [curl args]: only the HTTP status of that request.
s3_status() {
  s3_curl "$@" -o /dev/null -w '%{http_code}'
}

# s3_make_bucket NAME: creates the bucket (a bucket of ours that exists is fine).
s3_make_bucket() {
  local code
  code=$(s3_status PUT "$1")
  [ "$code" = 200 ] || { echo "FAIL: creating bucket $1 gave HTTP $code"; return 1; }
}

# The connector's and the peers' view of the test server: the standard AWS variables (the
# connector and botocore read them), and botocore without the checksummed chunked uploads
# (1.36+) that Ceph 16's gateway refuses (MissingContentLength).
export AWS_ACCESS_KEY_ID=$NCZ_S3_ACCESS_KEY AWS_SECRET_ACCESS_KEY=$NCZ_S3_SECRET_KEY
export AWS_REGION=$NCZ_S3_REGION AWS_CA_BUNDLE=$NCZ_S3_CA
export AWS_REQUEST_CHECKSUM_CALCULATION=when_required AWS_RESPONSE_CHECKSUM_VALIDATION=when_required

# s3_storage_options: fsspec's storage options for s3fs on the test server (JSON).
s3_storage_options() {
  printf '{"key": "%s", "secret": "%s", "client_kwargs": {"endpoint_url": "%s", "region_name": "%s"}}' \
    "$NCZ_S3_ACCESS_KEY" "$NCZ_S3_SECRET_KEY" "$NCZ_S3_ENDPOINT" "$NCZ_S3_REGION"
}

# s3_fetch BUCKET/PREFIX DIR: s3fs (of the zarr-python 3 environment) copies every object
# under BUCKET/PREFIX/ to DIR, keys as paths: what a peer reads of a store on S3.
s3_fetch() {
  env -u HDF5_VOL_CONNECTOR LD_PRELOAD= "${NCZARR_ZARR3_PYTHON:?}" - "$1" "$2" "$(s3_storage_options)" <<'PY'
import json, os, sys
import s3fs
src, dst, opts = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
fs = s3fs.S3FileSystem(**opts)
keys = fs.find(src)
if not keys:
    sys.exit(f"s3_fetch: no object under {src}")
for k in keys:
    p = os.path.join(dst, k[len(src):].lstrip("/"))
    os.makedirs(os.path.dirname(p), exist_ok=True)
    fs.get(k, p)
print(f"s3_fetch: {len(keys)} objects of {src}")
PY
}

# s3_compare_values S3_URL BUCKET/PREFIX WHAT [NCDUMP_URL]: h5dump through the connector
# reads S3_URL on the server with the values and attributes zarr-python 2 reads in s3fs's
# copy of the same objects and, with NCDUMP_URL, those netCDF-C's S3 client reads
# (test/interop/compare_values.py with --h5dump-name).
s3_compare_values() {
  local url=$1 src=$2 what=$3 nurl=${4:-} d rc=0
  d=$(mktemp -d "${TMPDIR:-/tmp}/nczarr-s3cmp.XXXXXX")
  s3_fetch "$src" "$d/copy.zarr" >/dev/null || { echo "FAIL: $what: s3fs cannot copy $src"; rm -rf "$d"; return 1; }
  printf '#!/bin/sh\nexec "%s" "%s" "$@"\n' "$NCZ_S3_NETCDF" "$NCZARR_PREFIX/bin/ncdump" >"$d/ncdump"
  chmod +x "$d/ncdump"
  env LD_PRELOAD= H5DUMP="$NCZARR_PREFIX/bin/h5dump" NCDUMP="$d/ncdump" H5DUMP_ENV_PRELOAD="${LD_PRELOAD:-}" \
    NCDUMP_PLUGIN_PATH="$NCZARR_PREFIX/lib/plugin" /usr/bin/python3 "$S3_COMMON_HERE/../interop/compare_values.py" \
    "$d/copy.zarr" ${nurl:+"$nurl"} --h5dump-name "$url" >"$d/out" 2>&1 || rc=$?
  if [ "$rc" -eq 0 ]; then
    echo "ok: $what: h5dump through the connector on S3 = zarr-python${nurl:+ = the S3 client of netCDF-C} ($(tail -n 1 "$d/out" | sed 's/^[^:]*: //'))"
  else
    sed 's/^/    | /' "$d/out" | tail -n 40
    echo "FAIL: $what: h5dump through the connector on S3 differs from the peers (above)"
  fi
  rm -rf "$d"
  return "$rc"
}
