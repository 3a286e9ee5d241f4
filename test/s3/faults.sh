#!/usr/bin/env bash
# Bad input and faults on S3, each a clear error in bounded time, never a hang or a crash:
# a wrong secret (the 403 and S3's code named, the secret never printed), an unknown bucket,
# a dead endpoint, a key with "..", and the server stopped in the middle of a write (the
# writer fails within its retry budget; a store closed before stays readable once the
# server is back). Runs its own server for the stop: the shared one stays up. The opens are
# multiproc_writer's (its H5Fopen prints HDF5's error stack; h5dump hides the last one).
set -euo pipefail
: "${NCZ_S3_ENV:?}" "${NCZARR_BUILD:?}" "${NCZARR_PREFIX:?}"
here=$(cd "$(dirname "$0")" && pwd)
server="$here/../../scripts/s3-server.sh"
. "$NCZ_S3_ENV"
export AWS_ACCESS_KEY_ID=$NCZ_S3_ACCESS_KEY AWS_SECRET_ACCESS_KEY=$NCZ_S3_SECRET_KEY
export AWS_REGION=$NCZ_S3_REGION AWS_CA_BUNDLE=$NCZ_S3_CA
tmp=$(mktemp -d "${TMPDIR:-/tmp}/nczarr-s3f.XXXXXX")
# A fixed root in the build tree: a server left by a run that was killed (ctest's timeout
# gives no trap a chance) is stopped by the next start there, or by scripts/run-tests.sh.
own=$NCZARR_BUILD/s3-server-faults
trap 'bash "$server" stop "$own" >/dev/null 2>&1 || true; rm -rf "$tmp"' EXIT
w="$NCZARR_BUILD/test/interop_multiproc_writer"
bucket=faults-$$-$RANDOM
url() { echo "$NCZ_S3_ENDPOINT/$bucket/$1#mode=nczarr,s3"; }
status=0

# expect_fail SECONDS WHAT PATTERN... -- COMMAND: COMMAND fails within SECONDS and its
# output matches every PATTERN (extended regex).
expect_fail() {
  local limit=$1 what=$2 pats=() t0 rc=0
  shift 2
  while [ "$1" != -- ]; do pats+=("$1"); shift; done
  shift
  t0=$SECONDS
  timeout $((limit + 30)) "$@" >"$tmp/out" 2>&1 || rc=$?
  local took=$((SECONDS - t0)) ok=1
  if [ "$rc" -eq 0 ]; then echo "FAIL: $what: succeeded"; ok=0; fi
  if [ "$rc" -ge 124 ]; then echo "FAIL: $what: hung or crashed (exit $rc)"; ok=0; fi
  if [ "$took" -gt "$limit" ]; then echo "FAIL: $what: took ${took}s (limit ${limit}s)"; ok=0; fi
  for p in "${pats[@]}"; do
    grep -qE -- "$p" "$tmp/out" || { echo "FAIL: $what: no /$p/ in the output"; ok=0; }
  done
  if grep -qF -- "$NCZ_S3_SECRET_KEY" "$tmp/out" || grep -qF -- "not-the-secret-key" "$tmp/out"; then
    echo "FAIL: $what: a secret was printed"; ok=0
  fi
  if [ "$ok" -eq 1 ]; then
    echo "ok: $what: exit $rc in ${took}s: $(grep -m1 -oE "$pats" "$tmp/out" | head -n 1)"
  else
    sed 's/^/    | /' "$tmp/out" | head -n 30
    status=1
  fi
}

HDF5_VOL_CONNECTOR=nczarr "$NCZARR_BUILD/examples/write_store" "$(url good)" >/dev/null
expect_fail 20 "wrong secret" "403" "SignatureDoesNotMatch" -- \
  env AWS_SECRET_ACCESS_KEY=not-the-secret-key "$w" verify "$(url good)" 1
expect_fail 20 "unknown access key" "403" "InvalidAccessKeyId" -- \
  env AWS_ACCESS_KEY_ID=NOSUCHKEY0000000 "$w" verify "$(url good)" 1
expect_fail 20 "unknown bucket" "NoSuchBucket|404" "no-such-bucket-$$" -- \
  "$w" verify "$NCZ_S3_ENDPOINT/no-such-bucket-$$/x#mode=nczarr,s3" 1
expect_fail 20 "missing store" "good-not|not a Zarr store|no \.zgroup" -- "$w" verify "$(url good-not)" 1
dead=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
expect_fail 20 "dead endpoint" "127\.0\.0\.1:$dead" -- \
  env NCZM_S3_RETRY_SECONDS=5 "$w" verify "http://127.0.0.1:$dead/$bucket/good#mode=nczarr,s3" 1
expect_fail 20 "a key with .." "\.\." -- "$w" verify "$NCZ_S3_ENDPOINT/$bucket/a/../good#mode=nczarr,s3" 1
expect_fail 20 "creating a key with .." "\.\." -- \
  env HDF5_VOL_CONNECTOR=nczarr "$NCZARR_BUILD/examples/write_store" "$NCZ_S3_ENDPOINT/$bucket/x/../y#mode=nczarr,s3"

# The server stopped in the middle of a write.
timeout 300 bash "$server" start "$own" >"$tmp/start.log" 2>&1 || { cat "$tmp/start.log"; echo "FAIL: second server"; exit 1; }
own_env=$(bash -c ". '$own/s3.env'; echo \$NCZ_S3_ENDPOINT")
ourl() { echo "$own_env/$bucket/$1#mode=nczarr,s3"; }
# every step bounded: a hang is a failure with a message, not the test's timeout
timeout 120 "$w" create "$(ourl closed)" 1 4 && timeout 120 "$w" write "$(ourl closed)" 0 1 ||
  { echo "FAIL: writing the closed store"; exit 1; }
timeout 120 "$w" create "$(ourl big)" 1 4000 || { echo "FAIL: creating the big store"; exit 1; }
t0=$SECONDS
NCZM_S3_RETRY_SECONDS=5 timeout 120 "$w" write "$(ourl big)" 0 1 >"$tmp/out" 2>&1 &
writer=$!
sleep 1
timeout 120 bash "$server" pause "$own" >"$tmp/pause.log" 2>&1 || { cat "$tmp/pause.log"; echo "FAIL: pausing the server"; exit 1; }
rc=0
wait "$writer" || rc=$?
took=$((SECONDS - t0))
if [ "$rc" -eq 0 ] || [ "$rc" -ge 124 ] || [ "$took" -gt 60 ]; then
  sed 's/^/    | /' "$tmp/out" | head -n 20
  echo "FAIL: server stopped mid-write: writer exit $rc after ${took}s"
  status=1
elif ! grep -qE "127\.0\.0\.1" "$tmp/out"; then
  sed 's/^/    | /' "$tmp/out" | head -n 20
  echo "FAIL: server stopped mid-write: the error does not name the server"
  status=1
else
  echo "ok: server stopped mid-write: the writer failed (exit $rc) in ${took}s: $(grep -m1 -oE '[^:]*127\.0\.0\.1[^ ]*[^:]*' "$tmp/out")"
fi
timeout 180 bash "$server" resume "$own" >"$tmp/resume.log" 2>&1 || { cat "$tmp/resume.log"; echo "FAIL: restarting the server"; exit 1; }
own_env=$(bash -c ". '$own/s3.env'; echo \$NCZ_S3_ENDPOINT")
if timeout 120 "$w" verify "$(ourl closed)" 1; then
  echo "ok: the store closed before the stop reads back whole"
else
  echo "FAIL: the store closed before the stop does not read back"
  status=1
fi
[ "$status" -eq 0 ] || { echo "FAIL: faults"; exit 1; }
echo "faults: ok"
