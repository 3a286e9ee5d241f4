# shellcheck shell=bash
# Sourced by the tests that use the S3 test server (test/s3/CMakeLists.txt, nczarr_s3_test):
# loads the server's settings ($NCZ_S3_ENV, written by scripts/s3-server.sh start) and gives
# signed requests with curl's SigV4 signer, the one behind libcurl's CURLOPT_AWS_SIGV4.
: "${NCZ_S3_ENV:?NCZ_S3_ENV is not set: run this test through ctest (fixture s3server)}"
[ -f "$NCZ_S3_ENV" ] || { echo "FAIL: no S3 server: $NCZ_S3_ENV is missing (did s3.server_start fail?)"; exit 1; }
# shellcheck disable=SC1090
. "$NCZ_S3_ENV"

# s3_curl METHOD PATH [curl args]: curl with a request to $NCZ_S3_ENDPOINT/PATH signed as
# the test user (PATH percent-encoded and its query sorted by name by the caller: curl
# signs them as given). The body goes to stdout unless the args say otherwise.
s3_curl() {
  local method=$1 path=$2
  shift 2
  curl -sS --max-time 60 -X "$method" --aws-sigv4 "aws:amz:$NCZ_S3_REGION:s3" \
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
