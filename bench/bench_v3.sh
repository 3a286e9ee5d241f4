#!/usr/bin/env bash
# Zarr v3 through the connector against zarr-python 3, tensorstore and zarrs (zarr-python 3
# with zarrs' codec pipeline; bench_zarr3.py says how each is used): one table. For each store directory
# (tmpfs and a disk directory), then a bucket of a Ceph RGW of its own on loopback
# (scripts/s3-server.sh, stopped on exit; --s3 no leaves it out), and each layout
# (unsharded; shards of 4 x 4 chunks), runs bench_codecs --zarr-format 3 (float32 rows x
# 8192 in chunks of 256 x 1024, written and read back 512 rows per call; raw and zstd level
# 1; the connector with "nczarr v3 [shards=4]", zarr-python 3 with the same chunk and shard
# shapes; each figure the median of --runs runs, the peers taking turns) and prints the rows
# of all runs together, with the ratios to zarr-python 3 and to the fastest other peer of the
# row (xbest; "best" names it, writes/reads) measured in the same run. In a
# directory, the "floor" row is the least any writer using write(2) and any reader using
# read(2) must do with the connector's layout (bench_codecs --floor); its xbest is over the
# fastest peer but the connector. On S3 (the connector and zarr-python 3 only) both peers speak plain http to the
# gateway; the columns after RSS are the requests of one write and one read, from the
# gateway's request log (PUT/GET/other), the CPU seconds of the server's processes in one
# write and one read, and the most a client costing no CPU could get over zarr-python 3
# with the same requests (zarr-python 3's seconds over the server's CPU seconds per core).
# Not a test: nothing is asserted.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$here/../build
mib=1024 runs=5 dirs="/dev/shm ${TMPDIR:-/var/tmp}" s3=yes
usage() {
  cat <<EOF
usage: bench/bench_v3.sh [--build DIR] [--mib N] [--runs N] [--dirs "DIR ..."] [--s3 yes|no]
  --build  the build tree (default $build)
  --mib    array size in MiB (default $mib)
  --runs   runs per figure, median reported (default $runs)
  --dirs   store directories, a tmpfs and a disk one (default "$dirs")
  --s3     also a bucket of a gateway started for the run (default $s3)
EOF
}
cmdline="bench/bench_v3.sh${*:+ $*}"
while [ $# -gt 0 ]; do
  case $1 in
    --build) build=$2; shift 2 ;;
    --mib) mib=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    --dirs) dirs=$2; shift 2 ;;
    --s3) s3=$2; shift 2 ;;
    -h | --help) usage; exit 0 ;;
    *) usage >&2; exit 2 ;;
  esac
done
case $s3 in yes | no) ;; *) usage >&2; exit 2 ;; esac
bin=$build/bench/bench_codecs
[ -x "$bin" ] || { echo "bench_v3: no $bin (build the project first)" >&2; exit 1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/nczarr-bench-v3.XXXXXX")
plain() { env -u LD_PRELOAD -u ASAN_OPTIONS -u UBSAN_OPTIONS -u TSAN_OPTIONS "$@"; }
cleanup() {
  [ ! -f "${srv:-}/s3.env" ] || plain bash "$here/../scripts/s3-server.sh" stop "$srv" >/dev/null 2>&1 ||
    echo "bench_v3: stopping the server in $srv failed" >&2
  rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
out=$tmp/out
echo "# $cmdline"
echo "# $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores; float32 ${mib} MiB, chunks 256 x 1024 (1 MiB), 512 rows per call; median of $runs runs"
printf '%-10s %-7s %-6s %-11s %12s %11s %8s %6s %6s %7s %7s %-13s %9s %11s %s\n' store shards case peer "write MiB/s" "read MiB/s" stored \
  "w xz3" "r xz3" "w xbest" "r xbest" "best w/r" "RSS w/r" "CPU w/r" \
  "$([ "$s3" = yes ] && echo "S3 PUT/GET/other  srv CPU w/r  max xz3 w/r")"
# rows STORE SHARDS [REQS]: the table rows of bench_codecs' output in $out (REQS: a file of
# "peer case put get other" lines, the requests of one write and one read)
rows() {
  awk -v store="$1" -v sh="$2" -v reqs="${3:-}" '
    BEGIN { if (reqs != "") while ((getline l < reqs) > 0) { split(l, f, " "); r[f[1] " " f[2]] = f[3] "/" f[4] "/" f[5] } }
    /^case +peer/ { table = 1; next }
    table && NF >= 10 {
      if ($1 == "raw" || $1 == "zstd") { c = $1; $1 = "" ; $0 = $0 }
      if ($1 != "nczarr" && $1 != "zarr3" && $1 != "tensorstore" && $1 != "zarrs" && $1 != "floor") { table = 0; next }
      srv = NF >= 17 ? sprintf("  %11s  %11s", $16, $17) : ""
      printf "%-10s %-7s %-6s %-11s %12s %11s %8s %6s %6s %7s %7s %-13s %9s %11s %s%s\n", store, sh, c, $1, $2, $3, $4, $9, $10, $11, $12, $13, $14, $15, r[$1 " " c], srv
    }' "$out"
}
layout() { [ "$1" -eq 0 ] && echo none || echo "${1}x$1"; }
run_bench() {
  if ! "$bin" "$@" >"$out" 2>&1; then
    cat "$out" >&2
    echo "bench_v3: bench_codecs $* failed" >&2
    exit 1
  fi
}
for d in $dirs; do
  fs=$(stat -f -c %T "$d")
  for shards in 0 4; do
    args=(--dir "$d" --mib "$mib" --runs "$runs" --zarr-format 3 --cases raw,zstd --peers nczarr,zarr3,tensorstore,zarrs --floor yes)
    [ "$shards" -eq 0 ] || args+=(--shards "$shards")
    run_bench "${args[@]}"
    rows "$d ($fs)" "$(layout "$shards")"
    ! grep -q 'without a journal' "$out" || held=$d
  done
done
# bench_codecs' own line about it, which the table leaves out (bench_retire.c)
[ -z "${held:-}" ] || echo "# $held: ext2/3/4 without a journal, which passes over the inodes freed in the last minute at every file creation: each run's store was emptied and kept until its bench_codecs run ended, and each run started up to 361 s after the last one there removed its stores (bench_codecs --inode-wait)"
[ "$s3" = yes ] || exit 0

# The gateway: plain http for both peers (s3fs and the connector), each case a bench_codecs
# run of its own so that its requests, counted in the gateway's log by the peer's store name
# and method, are that case's.
# Its objects live in RAM (memstore). Each case gets a gateway of its own (a start takes a
# few seconds from the server's template), stopped after it: with one gateway for all
# cases, at 2026-11-26T21:41Z, after the first case (10 GiB written, each store removed
# after its run), the OSD logged "full status failsafe engaged, dropping updates, now
# -2147483648% full" and every later request hung. The memstore's capacity is room for
# every store of a case's runs, should removed stores never free theirs.
server_start() {
  srv=$tmp/srv-$1
  NCZ_S3_MEMSTORE_BYTES=$((mib * runs * 4 * 1048576)) NCZ_S3_GC_SECONDS=5 \
    plain bash "$here/../scripts/s3-server.sh" start "$srv" >"$tmp/server.log" 2>&1 || { cat "$tmp/server.log" >&2; exit 1; }
  # shellcheck disable=SC1091
  NCZ_S3_ENV=$srv/s3.env . "$here/../test/s3/s3_common.sh"
  rgwlog=$srv/log/client.rgw.log
  s3_make_bucket "$bucket" >/dev/null
}
server_stop() {
  plain bash "$here/../scripts/s3-server.sh" stop "$srv" >/dev/null 2>&1 || {
    echo "bench_v3: stopping the server in $srv failed" >&2
    exit 1
  }
  rm -rf "$srv"
}
bucket=bench-v3-$$
marks=0
# log_mark: a request the gateway logs, waited for: every request before it is in the log.
log_mark() {
  local m=bench-mark-$$-$((marks += 1)) i
  plain curl -s -o /dev/null --max-time 10 "$NCZ_S3_ENDPOINT/$m" || true
  for ((i = 0; i < 200; i++)); do
    grep -q "GET /$m " "$rgwlog" && return 0
    sleep 0.05
  done
}
for shards in 0 4; do
  : >"$tmp/reqs"
  : >"$tmp/all"
  for c in raw zstd; do
    server_start "$shards-$c"
    args=(--dir /dev/shm --mib "$mib" --runs "$runs" --zarr-format 3 --cases "$c" --peers nczarr,zarr3
      --s3 "$NCZ_S3_ENDPOINT/$bucket/v3" --s3-storage-options "$(s3_storage_options)"
      --server-pids "$(cat "$srv"/run/*.pid)")
    [ "$shards" -eq 0 ] || args+=(--shards "$shards")
    log_mark
    from=$(wc -l <"$rgwlog")
    run_bench "${args[@]}"
    log_mark
    # requests of one write and one read of each peer (the stores' removal between runs
    # has a user agent of its own and is left out); listings by the prefix they ask for
    tail -n +"$((from + 1))" "$rgwlog" | grep ' beast: ' | grep -v '"GET /bench-mark-' | grep -v 'bench-remove' |
      awk -F'"' -v c="$c" -v runs="$runs" '
        { split($2, r, " "); m = r[1]; t = r[2]
          p = t ~ /bench_nczarr[.]zarr/ ? "nczarr" : t ~ /bench_zarr3[.]zarr/ ? "zarr3" : ""
          if (p == "") next
          if (m == "PUT") n[p, "put"]++; else if (m == "GET") n[p, "get"]++; else n[p, "other"]++ }
        END { split("nczarr zarr3", ps, " ")
              for (i = 1; i <= 2; i++)
                printf "%s %s %.0f %.0f %.0f\n", ps[i], c, n[ps[i], "put"] / runs, n[ps[i], "get"] / runs, n[ps[i], "other"] / runs }' >>"$tmp/reqs"
    cat "$out" >>"$tmp/all"
    server_stop
  done
  cp "$tmp/all" "$out"
  rows "RGW (http)" "$(layout "$shards")" "$tmp/reqs"
done
