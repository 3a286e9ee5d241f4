#!/usr/bin/env bash
# Faults of MPI programs (test/mpi/par_faults.c, 4 ranks), each ending in bounded time:
# - a rank writes an attribute the others do not: every rank's H5Fclose fails at once with
#   the connector's message ("the ranks would write different metadata");
# - a rank leaves out a collective H5Dwrite: every rank fails at once ("different collective
#   calls");
# - a rank never closes the file: the others fail after NCZARR_MPI_TIMEOUT (8 s here; 50 s by
#   default) naming the timeout;
# - a rank is killed (SIGKILL) while a dataset created after the last H5Fflush is being
#   written: the store still opens, and holds what the flush saved (h5dump, zarr-python 3).
# In each case the store written before stays readable.
set -euo pipefail
: "${NCZARR_BUILD:?}" "${NCZARR_PREFIX:?}" "${NCZARR_ZARR3_PYTHON:?}" "${HDF5_VOL_CONNECTOR:?}"
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../common/judge.sh"
. "$here/mpi_lib.sh"
prog=$NCZARR_BUILD/test/mpi/par_faults
tmp=$(mktemp -d "${TMPDIR:-/tmp}/nczarr-mpif.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
status=0

# the flushed dataset "a" (40 x 30 of i * 100 + j) reads back, through the connector and in
# zarr-python 3
check_flushed() {
  local store=$1 what=$2
  "$NCZARR_PREFIX/bin/h5dump" -d /a -s 39,27 -c 1,3 "$store" >"$tmp/dump.txt" 2>&1 &&
    grep -q "(39,27): 3927, 3928, 3929" "$tmp/dump.txt" ||
    { sed 's/^/    | /' "$tmp/dump.txt"; echo "FAIL: $what: h5dump does not show the flushed values"; return 1; }
  env -u HDF5_VOL_CONNECTOR LD_PRELOAD= "$NCZARR_ZARR3_PYTHON" - "$store" <<'PY' ||
import sys, numpy as np, zarr
a = zarr.open_group(sys.argv[1], mode="r", zarr_format=2)["a"][...]
assert (a == np.arange(40)[:, None] * 100 + np.arange(30)[None, :]).all(), "a differs"
PY
    { echo "FAIL: $what: zarr-python 3 does not read the flushed values"; return 1; }
  echo "ok: $what: the store holds what the last flush saved (h5dump, zarr-python 3)"
}

for mode in mismatch skip absent; do
  t0=$(date +%s)
  if ! NCZARR_MPI_TIMEOUT=8 mpi_run 4 "$tmp/$mode.log" "$prog" $mode "$tmp/$mode.zarr"; then
    echo "FAIL: $mode: the program did not end as it should"; status=1; continue
  fi
  secs=$(($(date +%s) - t0))
  case $mode in
    mismatch) msg="the ranks would write different metadata" ;;
    skip) msg="the ranks are in different collective calls" ;;
    absent) msg="not every rank joined within 8 s" ;;
  esac
  n=$(grep -c "$msg" "$tmp/$mode.log" || true)
  if grep -q "failed as expected on every rank" "$tmp/$mode.log" && [ "$n" -ge 3 ] && [ "$secs" -lt 60 ]; then
    echo "ok: $mode: every rank failed in ${secs} s with the connector's message: \"$msg\""
  else
    sed 's/^/    | /' "$tmp/$mode.log"
    echo "FAIL: $mode: expected \"$msg\" on the ranks within 60 s (${secs} s, $n messages)"; status=1
  fi
  check_flushed "$tmp/$mode.zarr" "$mode" || status=1
done

# a rank killed in the middle of a write
if env LD_PRELOAD= OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1 \
   timeout 120 mpirun -n 4 "$prog" kill "$tmp/kill.zarr" >"$tmp/kill.log" 2>&1; then
  sed 's/^/    | /' "$tmp/kill.log"; echo "FAIL: kill: the job did not end with the killed rank"; status=1
fi
check_flushed "$tmp/kill.zarr" "kill" || status=1
[ "$status" -eq 0 ] || exit 1
echo "faults: ok"
