#!/usr/bin/env bash
# Zarr v3 through the connector against zarr-python 3: one table. For each store directory
# (tmpfs and a disk directory) and each layout (unsharded; shards of 4 x 4 chunks), runs
# bench_codecs --zarr-format 3 (float32 rows x 8192 in chunks of 256 x 1024, written and
# read back 512 rows per call; raw and zstd level 1; the connector with "nczarr v3
# [shards=4]", zarr-python 3 with the same chunk and shard shapes; each figure the median
# of --runs runs, the peers taking turns) and prints the rows of all runs together, with
# the ratios to zarr-python 3 measured in the same run. Not a test: nothing is asserted.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$here/../build
mib=1024 runs=5 dirs="/dev/shm ${TMPDIR:-/var/tmp}"
usage() {
  cat <<EOF
usage: bench/bench_v3.sh [--build DIR] [--mib N] [--runs N] [--dirs "DIR ..."]
  --build  the build tree (default $build)
  --mib    array size in MiB (default $mib)
  --runs   runs per figure, median reported (default $runs)
  --dirs   store directories, a tmpfs and a disk one (default "$dirs")
EOF
}
cmdline="bench/bench_v3.sh${*:+ $*}"
while [ $# -gt 0 ]; do
  case $1 in
    --build) build=$2; shift 2 ;;
    --mib) mib=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    --dirs) dirs=$2; shift 2 ;;
    -h | --help) usage; exit 0 ;;
    *) usage >&2; exit 2 ;;
  esac
done
bin=$build/bench/bench_codecs
[ -x "$bin" ] || { echo "bench_v3: no $bin (build the project first)" >&2; exit 1; }
out=$(mktemp)
trap 'rm -f "$out"' EXIT
echo "# $cmdline"
echo "# $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores; float32 ${mib} MiB, chunks 256 x 1024 (1 MiB), 512 rows per call; median of $runs runs"
printf '%-10s %-7s %-6s %-7s %12s %11s %8s %6s %6s %9s\n' store shards case peer "write MiB/s" "read MiB/s" stored "w xz3" "r xz3" "RSS w/r"
for d in $dirs; do
  fs=$(stat -f -c %T "$d")
  for shards in 0 4; do
    args=(--dir "$d" --mib "$mib" --runs "$runs" --zarr-format 3 --cases raw,zstd --peers nczarr,zarr3)
    [ "$shards" -eq 0 ] || args+=(--shards "$shards")
    if ! "$bin" "${args[@]}" >"$out" 2>&1; then
      cat "$out" >&2
      echo "bench_v3: bench_codecs ${args[*]} failed" >&2
      exit 1
    fi
    # the rows of bench_codecs' table: "case peer write read stored (4 native/netCDF ratios) w r RSS"
    awk -v store="$d ($fs)" -v sh="$([ "$shards" -eq 0 ] && echo none || echo "${shards}x$shards")" '
      /^case +peer/ { table = 1; next }
      table && NF >= 10 {
        if ($1 == "raw" || $1 == "zstd") { c = $1; $1 = "" ; $0 = $0 }
        printf "%-10s %-7s %-6s %-7s %12s %11s %8s %6s %6s %9s\n", store, sh, c, $1, $2, $3, $4, $9, $10, $11
      }' "$out"
  done
done
