#!/usr/bin/env bash
# The S3 test server speaks S3 as AWS does, checked with curl's SigV4 signer (the one the
# S3 driver uses through libcurl): buckets, PUT, GET (whole and ranged), HEAD, DELETE,
# ListObjectsV2 with a delimiter and with pages, HTTPS with the test CA, and real errors:
# a wrong secret is 403 SignatureDoesNotMatch, a missing bucket or key a 404.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/s3_common.sh"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/nczarr-s3smoke.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail=0
check() { # DESCRIPTION EXPECTED ACTUAL
  if [ "$2" = "$3" ]; then echo "ok: $1"; else echo "FAIL: $1: expected '$2', got '$3'"; fail=1; fi
}
contains() { # DESCRIPTION NEEDLE HAYSTACK
  case "$3" in *"$2"*) echo "ok: $1" ;; *) echo "FAIL: $1: no '$2' in: $3"; fail=1 ;; esac
}

b=smoke-curl
s3_make_bucket $b
check "re-creating a bucket we own" 200 "$(s3_status PUT $b)"

printf 'hello, zarr' >"$tmp/one"
head -c 100000 /dev/urandom >"$tmp/big"
check "PUT a/b/one" 200 "$(s3_status PUT $b/a/b/one --data-binary @"$tmp/one")"
check "PUT a/two (100000 bytes)" 200 "$(s3_status PUT $b/a/two --data-binary @"$tmp/big")"
check "PUT a key with a space (percent-encoded)" 200 "$(s3_status PUT "$b/a/sp%20ace" --data-binary x)"
check "PUT top" 200 "$(s3_status PUT $b/top --data-binary top)"

check "GET a/b/one" "hello, zarr" "$(s3_curl GET $b/a/b/one --fail)"
s3_curl GET $b/a/two --fail -o "$tmp/big.back"
check "GET a/two, byte for byte" ok "$(cmp -s "$tmp/big" "$tmp/big.back" && echo ok || echo differs)"
check "ranged GET bytes=2-4" "llo" "$(s3_curl GET $b/a/b/one --fail -H 'Range: bytes=2-4')"
check "HEAD a/two: Content-Length" 100000 \
  "$(s3_curl HEAD $b/a/two --fail -I | tr -d '\r' | awk 'tolower($1) == "content-length:" {print $2}')"

# ListObjectsV2: the query goes in sorted by name, values percent-encoded, as curl signs it.
list=$(s3_curl GET "$b?delimiter=%2F&list-type=2&prefix=a%2F" --fail)
contains "list a/ with delimiter /: the sub-prefix" "<CommonPrefixes><Prefix>a/b/</Prefix></CommonPrefixes>" "$list"
contains "list a/ with delimiter /: a/two" "<Key>a/two</Key>" "$list"
contains "list a/ with delimiter /: the key with a space" "<Key>a/sp ace</Key>" "$list"
check "list a/ with delimiter /: nothing below a/b/ listed" 0 "$(awk '/<Key>a\/b\/one<\/Key>/ { n++ } END { print n + 0 }' <<<"$list")"
check "list a/ with delimiter /: 3 entries" 3 "$(grep -o '<KeyCount>[0-9]*' <<<"$list" | tr -dc 0-9)"
top=$(s3_curl GET "$b?delimiter=%2F&list-type=2" --fail)
contains "list the bucket root: prefix a/" "<Prefix>a/</Prefix>" "$top"
contains "list the bucket root: top" "<Key>top</Key>" "$top"
page=$(s3_curl GET "$b?list-type=2&max-keys=2" --fail)
contains "a page of 2 of 4 keys is truncated" "<IsTruncated>true</IsTruncated>" "$page"
token=$(sed -n 's:.*<NextContinuationToken>\([^<]*\)</NextContinuationToken>.*:\1:p' <<<"$page")
[ -n "$token" ] || { echo "FAIL: no NextContinuationToken in: $page"; fail=1; }
enc=$(python3 -c 'import sys, urllib.parse; print(urllib.parse.quote(sys.argv[1], safe=""))' "$token")
page2=$(s3_curl GET "$b?continuation-token=$enc&list-type=2&max-keys=2" --fail)
contains "the second page ends the listing" "<IsTruncated>false</IsTruncated>" "$page2"
check "the two pages hold the 4 keys" 4 "$(cat <(grep -o '<Key>[^<]*' <<<"$page") <(grep -o '<Key>[^<]*' <<<"$page2") | sort -u | wc -l)"

# Errors are S3's own.
bad=$(curl -sS --max-time 60 --aws-sigv4 "aws:amz:$NCZ_S3_REGION:s3" --user "$NCZ_S3_ACCESS_KEY:wrong-secret" \
  -H "x-amz-content-sha256: UNSIGNED-PAYLOAD" -w '\n%{http_code}' "$NCZ_S3_ENDPOINT/$b/a/b/one")
check "a wrong secret: HTTP 403" 403 "$(tail -n 1 <<<"$bad")"
contains "a wrong secret: SignatureDoesNotMatch" "<Code>SignatureDoesNotMatch</Code>" "$bad"
check "an unknown bucket: HTTP 404" 404 "$(s3_status GET no-such-bucket/x)"
contains "an unknown bucket: NoSuchBucket" "<Code>NoSuchBucket</Code>" "$(s3_curl GET no-such-bucket/x)"
check "DELETE top" 204 "$(s3_status DELETE $b/top)"
check "GET top after DELETE: HTTP 404" 404 "$(s3_status GET $b/top)"
contains "GET top after DELETE: NoSuchKey" "<Code>NoSuchKey</Code>" "$(s3_curl GET $b/top)"

# HTTPS: the certificate verifies against the test CA, and only against it.
https=$(curl -sS --max-time 60 --cacert "$NCZ_S3_CA" --aws-sigv4 "aws:amz:$NCZ_S3_REGION:s3" \
  --user "$NCZ_S3_ACCESS_KEY:$NCZ_S3_SECRET_KEY" -H "x-amz-content-sha256: UNSIGNED-PAYLOAD" \
  "$NCZ_S3_HTTPS_ENDPOINT/$b/a/b/one")
check "GET over HTTPS, verified with the test CA" "hello, zarr" "$https"
rc=0
curl -sS --max-time 60 -o /dev/null "$NCZ_S3_HTTPS_ENDPOINT/" 2>/dev/null || rc=$?
check "HTTPS without the test CA: certificate rejected (curl exit 60)" 60 "$rc"

exit $fail
