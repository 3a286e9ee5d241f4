#!/usr/bin/env bash
# Bad input and faults on S3, each a clear error, never a hang or a crash: a wrong secret
# (the 403 and S3's code named, the secret never printed), an unknown bucket, a dead
# endpoint, a key with "..", and the server taken away in the middle of a write: the writer
# has written and flushed array "a" of a store and waits (multiproc_writer write-pausing)
# while the server is paused, then writes "b" and closes: it must fail naming the server,
# and once the server is back, a store closed before and the "a" flushed before the pause
# read back whole. Runs its own server for the pause: the shared one stays up. The opens are
# multiproc_writer's (its H5Fopen prints HDF5's error stack; h5dump hides the last one).
# Nothing here is timed: each command runs under `timeout` only so that a hang is reported
# as one (exit 124) instead of stopping the suite.
set -euo pipefail
: "${NCZ_S3_ENV:?}" "${NCZARR_BUILD:?}" "${NCZARR_PREFIX:?}"
here=$(cd "$(dirname "$0")" && pwd)
server="$here/../../scripts/s3-server.sh"
# the server's settings and the AWS variables
. "$here/s3_common.sh"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/nczarr-s3f.XXXXXX")
# A fixed root in the build tree: a server left by a run that was killed (ctest's timeout
# gives no trap a chance) is stopped by the next start there, or by scripts/run-tests.sh.
own=$NCZARR_BUILD/s3-server-faults
trap 'bash "$server" stop "$own" >/dev/null 2>&1 || echo "(stopping $own failed)"; rm -rf "$tmp"' EXIT
w="$NCZARR_BUILD/test/interop_multiproc_writer"
bucket=faults-$$-$RANDOM
url() { echo "$NCZ_S3_ENDPOINT/$bucket/$1#mode=nczarr,s3"; }
status=0

# expect_fail WHAT PATTERN... -- COMMAND: COMMAND fails (not by a signal, not hanging) and
# its output matches every PATTERN (extended regex) and shows no secret.
expect_fail() {
  local what=$1 pats=() rc=0
  shift
  while [ "$1" != -- ]; do pats+=("$1"); shift; done
  shift
  timeout 300 "$@" >"$tmp/out" 2>&1 || rc=$?
  local ok=1
  if [ "$rc" -eq 0 ]; then echo "FAIL: $what: succeeded"; ok=0; fi
  if [ "$rc" -ge 124 ]; then echo "FAIL: $what: hung or crashed (exit $rc)"; ok=0; fi
  for p in "${pats[@]}"; do
    grep -qE -- "$p" "$tmp/out" || { echo "FAIL: $what: no /$p/ in the output"; ok=0; }
  done
  if grep -qF -- "$NCZ_S3_SECRET_KEY" "$tmp/out" || grep -qF -- "not-the-secret-key" "$tmp/out"; then
    echo "FAIL: $what: a secret was printed"; ok=0
  fi
  if [ "$ok" -eq 1 ]; then
    echo "ok: $what: exit $rc: $(grep -m1 -oE "${pats[0]}" "$tmp/out" | head -n 1)"
  else
    sed 's/^/    | /' "$tmp/out" | head -n 30
    status=1
  fi
}

HDF5_VOL_CONNECTOR=nczarr "$NCZARR_BUILD/examples/write_store" "$(url good)" >/dev/null
expect_fail "wrong secret" "403" "SignatureDoesNotMatch" -- \
  env AWS_SECRET_ACCESS_KEY=not-the-secret-key "$w" verify "$(url good)" 1
expect_fail "unknown access key" "403" "InvalidAccessKeyId" -- \
  env AWS_ACCESS_KEY_ID=NOSUCHKEY0000000 "$w" verify "$(url good)" 1
expect_fail "unknown bucket" "NoSuchBucket|404" "no-such-bucket-$$" -- \
  "$w" verify "$NCZ_S3_ENDPOINT/no-such-bucket-$$/x#mode=nczarr,s3" 1
expect_fail "missing store" "good-not|not a Zarr store|no \.zgroup" -- "$w" verify "$(url good-not)" 1
dead=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
expect_fail "dead endpoint" "127\.0\.0\.1:$dead" -- \
  env NCZM_S3_RETRY_SECONDS=5 "$w" verify "http://127.0.0.1:$dead/$bucket/good#mode=nczarr,s3" 1
expect_fail "a key with .." "\.\." -- "$w" verify "$NCZ_S3_ENDPOINT/$bucket/a/../good#mode=nczarr,s3" 1
expect_fail "creating a key with .." "\.\." -- \
  env HDF5_VOL_CONNECTOR=nczarr "$NCZARR_BUILD/examples/write_store" "$NCZ_S3_ENDPOINT/$bucket/x/../y#mode=nczarr,s3"

# The server taken away in the middle of a write.
timeout 300 bash "$server" start "$own" >"$tmp/start.log" 2>&1 || { cat "$tmp/start.log"; echo "FAIL: second server"; exit 1; }
own_env=$(bash -c ". '$own/s3.env'; echo \$NCZ_S3_ENDPOINT")
ourl() { echo "$own_env/$bucket/$1#mode=nczarr,s3"; }
# every step bounded: a hang is a failure with a message, not the test's timeout
timeout 300 "$w" create "$(ourl closed)" 1 4 && timeout 300 "$w" write "$(ourl closed)" 0 1 ||
  { echo "FAIL: writing the closed store"; exit 1; }
timeout 300 "$w" create "$(ourl big)" 1 4000 || { echo "FAIL: creating the big store"; exit 1; }
mkfifo "$tmp/go" "$tmp/said"
NCZM_S3_RETRY_SECONDS=5 timeout 300 "$w" write-pausing "$(ourl big)" 0 1 <"$tmp/go" >"$tmp/said" 2>"$tmp/out" &
writer=$!
exec 4>"$tmp/go" 3<"$tmp/said"
said=""
IFS= read -r said <&3 || echo "(the writer said nothing: its status follows)"
if [ "$said" = "flushed a" ]; then
  timeout 120 bash "$server" pause "$own" >"$tmp/pause.log" 2>&1 || { cat "$tmp/pause.log"; echo "FAIL: pausing the server"; exit 1; }
fi
echo go >&4
exec 4>&- 3<&-
rc=0
wait "$writer" || rc=$?
if [ "$said" != "flushed a" ]; then
  sed 's/^/    | /' "$tmp/out" | head -n 20
  echo "FAIL: server taken away mid-write: the writer did not get to write \"a\" (exit $rc)"
  status=1
elif [ "$rc" -eq 0 ] || [ "$rc" -ge 124 ]; then
  sed 's/^/    | /' "$tmp/out" | head -n 20
  echo "FAIL: server taken away mid-write: writer exit $rc (must fail, neither succeed nor hang)"
  status=1
elif ! grep -qE "127\.0\.0\.1" "$tmp/out"; then
  sed 's/^/    | /' "$tmp/out" | head -n 20
  echo "FAIL: server taken away mid-write: the error does not name the server"
  status=1
else
  echo "ok: server taken away mid-write: the writer failed (exit $rc): $(grep -m1 -oE '[^:]*127\.0\.0\.1[^ ]*[^:]*' "$tmp/out")"
fi
timeout 300 bash "$server" resume "$own" >"$tmp/resume.log" 2>&1 || { cat "$tmp/resume.log"; echo "FAIL: restarting the server"; exit 1; }
own_env=$(bash -c ". '$own/s3.env'; echo \$NCZ_S3_ENDPOINT")
if timeout 300 "$w" verify "$(ourl closed)" 1; then
  echo "ok: the store closed before the pause reads back whole"
else
  echo "FAIL: the store closed before the pause does not read back"
  status=1
fi
if timeout 300 "$w" verify-a "$(ourl big)" 1; then
  echo "ok: the array flushed before the pause reads back whole"
else
  echo "FAIL: the array flushed before the pause does not read back"
  status=1
fi
[ "$status" -eq 0 ] || { echo "FAIL: faults"; exit 1; }
echo "faults: ok"
