#!/usr/bin/env bash
# The connector on S3 against netCDF-C's NCZarr over its own S3 client, on a Ceph RGW test
# server of its own on loopback (scripts/s3-server.sh, in a temporary root, stopped on exit),
# or with --server ROOT on one already running there (the test suite's: bench.s3_smoke).
# Every store is reached over https, as netCDF-C's client always does.
#
# 1. Open: a store of --arrays small arrays (float32[16], one chunk and one text attribute
#    each), written by the connector with `consolidated`. Requests to open it and read
#    what a header dump shows: the connector (bench_s3_h5 walk: open, each array's type,
#    shape, chunks and attributes; and h5dump -H), from .zmetadata and with the option
#    ignore-zmetadata (listing), and netCDF-C's ncdump -h (which must read the store: it
#    must list every array). Requests by method come from the gateway's request log
#    (its beast access lines), the connector's total also from NCZARR_STATS=1. Times are
#    the wall time of each process.
# 2. Throughput: one float32 array of --chunks chunks of --chunk-kib KiB, written with one
#    call and read back with one call: the connector with its defaults (requests in flight),
#    the connector with connections=1 workers=1 (one request at a time), and netCDF-C
#    (nc_put_var_float/nc_get_var_float, bench_s3_nc). Times span create or open to close,
#    inside the programs; MiB/s of the raw data.
# Each figure is the median of --runs runs; in each run every peer runs once, the peers
# taking turns (who starts rotates); ratios are to netCDF-C measured in the same runs.
# Not a test: nothing is asserted about speed.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
build=$here/../build
prefix=${NCZARR_PREFIX:-$HOME/.cache/vol-nczarr/deps}
runs=5 arrays=1000 chunks=1000 chunk_kib=64 limit=600 workdir=${TMPDIR:-/tmp} srv=
usage() {
  cat <<EOF
usage: bench/bench_s3.sh [--build DIR] [--prefix DIR] [--runs N] [--arrays N] [--chunks N]
                         [--chunk-kib K] [--workdir DIR] [--timeout S] [--server ROOT]
  --build     the build tree (default $build)
  --prefix    HDF5 + netCDF-C prefix (default \$NCZARR_PREFIX or ~/.cache/vol-nczarr/deps)
  --runs      runs per peer, median reported (default $runs)
  --arrays    arrays in the open test's store (default $arrays)
  --chunks    chunks of the throughput array (default $chunks)
  --chunk-kib chunk size in KiB (default $chunk_kib)
  --workdir   where the server's temporary root goes (default \$TMPDIR or /tmp)
  --timeout   seconds any one program may run before the benchmark fails (default $limit)
  --server    the root of a server scripts/s3-server.sh started (default: start one here)
EOF
}
cmdline="bench/bench_s3.sh${*:+ $*}"
while [ $# -gt 0 ]; do
  case $1 in
    --build) build=$2; shift 2 ;;
    --prefix) prefix=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    --arrays) arrays=$2; shift 2 ;;
    --chunks) chunks=$2; shift 2 ;;
    --chunk-kib) chunk_kib=$2; shift 2 ;;
    --workdir) workdir=$2; shift 2 ;;
    --timeout) limit=$2; shift 2 ;;
    --server) srv=$(cd "$2" && pwd); shift 2 ;;
    -h | --help) usage; exit 0 ;;
    *) usage >&2; exit 2 ;;
  esac
done
for v in runs arrays chunks chunk_kib limit; do
  [[ ${!v} =~ ^[1-9][0-9]*$ ]] || { echo "bench_s3: ${v//_/-} must be a positive integer" >&2; exit 2; }
done
build=$(cd "$build" && pwd)
h5=$build/bench/bench_s3_h5 nc=$build/bench/bench_s3_nc
for f in "$h5" "$nc" "$build/vol_connector/libnczarr_vol.so" "$prefix/bin/h5dump" "$prefix/bin/ncdump"; do
  [ -x "$f" ] || [ -f "$f" ] || { echo "bench_s3: missing $f (build the tree first)" >&2; exit 1; }
done

tmp=$(mktemp -d "$workdir/nczarr-bench-s3.XXXXXX")
server=$here/../scripts/s3-server.sh
# The server and curl run without the sanitizer runtimes a sanitizer build's test preloads
# (under them the gateway never comes up).
plain() { env -u LD_PRELOAD -u ASAN_OPTIONS -u UBSAN_OPTIONS -u TSAN_OPTIONS "$@"; }
own_server=0
[ -n "$srv" ] || { srv=$tmp/srv own_server=1; }
cleanup() {
  if [ "$own_server" = 1 ]; then
    plain bash "$server" stop "$srv" >/dev/null 2>&1 || echo "bench_s3: stopping the server in $srv failed" >&2
  fi
  rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
if [ "$own_server" = 1 ]; then
  plain bash "$server" start "$srv" 2>"$tmp/server.log" || { cat "$tmp/server.log" >&2; exit 1; }
fi
[ -f "$srv/s3.env" ] || { echo "bench_s3: no server in $srv (no s3.env)" >&2; exit 1; }
# shellcheck disable=SC1091
. "$srv/s3.env"
rgwlog=$srv/log/client.rgw.log
export AWS_ACCESS_KEY_ID=$NCZ_S3_ACCESS_KEY AWS_SECRET_ACCESS_KEY=$NCZ_S3_SECRET_KEY
export AWS_REGION=$NCZ_S3_REGION AWS_CA_BUNDLE=$NCZ_S3_CA
export HDF5_PLUGIN_PATH=$build/vol_connector:$prefix/lib/plugin
unset HDF5_VOL_CONNECTOR NCZARR_STATS
bucket=bench-$$
url() { echo "$NCZ_S3_HTTPS_ENDPOINT/$bucket/$1#mode=nczarr,s3"; }
# The connector with OPTIONS (first argument); netCDF-C without it, through the server's
# wrapper (credentials, CA), with netCDF-C's filter plugins alone on its plugin path.
conn() {
  local opts=$1
  shift
  HDF5_VOL_CONNECTOR="nczarr${opts:+ $opts}" timeout -k 5 "$limit" "$@"
}
ncc() { timeout -k 5 "$limit" env -u HDF5_VOL_CONNECTOR HDF5_PLUGIN_PATH="$prefix/lib/plugin" "$NCZ_S3_NETCDF" "$@"; }
# ncdump is never sanitized and loads no code of ours: it runs without the runtimes (with
# ASan's preloaded it does not exit).
ncdump_s3() { LD_PRELOAD='' ncc "$prefix/bin/ncdump" "$@"; }
die() {
  echo "bench_s3: $*" >&2
  exit 1
}

# counted OUT CMD...: runs CMD (stdout to OUT, stderr to OUT.err) between two marker
# requests and leaves in $tmp/count "HEAD GET LIST PUT POST DELETE" of the requests the
# gateway logged between them.
marks=0
mark() { plain curl -s -o /dev/null --max-time 10 "$NCZ_S3_ENDPOINT/$1" || true; }
counted() {
  local out=$1 a b i
  shift
  a=bench-mark-$$-$((marks += 1)) b=bench-mark-$$-$((marks += 1))
  mark "$a"
  "$@" >"$out" 2>"$out.err" || return 1
  mark "$b"
  # The gateway's log is written by a thread of its own: wait for the second marker.
  for ((i = 0; i < 200; i++)); do
    grep -q "GET /$b " "$rgwlog" && break
    sleep 0.05
  done
  sed -n "\\| beast: .*\"GET /$a |,\\| beast: .*\"GET /$b |p" "$rgwlog" | grep ' beast: ' | grep -v '"GET /bench-mark-' |
    awk -F'"' '{ split($2, r, " "); m = r[1]; t = r[2]
                 if (m == "GET" && t ~ /^\/[^\/?]+\/?(\?.*)?$/) m = "LIST"
                 n[m]++ }
               END { printf "%d %d %d %d %d %d\n", n["HEAD"], n["GET"], n["LIST"], n["PUT"], n["POST"], n["DELETE"] }' \
      >"$tmp/count"
}
# requests_of FILE: the total NCZARR_STATS printed in FILE (summed over its stores).
requests_of() { awk '/^nczarr: .*: [0-9]+ requests$/ { s += $(NF - 1) } END { print s + 0 }' "$1"; }
# timed OUT CMD...: wall time of CMD in seconds on stdout, its stdout in OUT.
timed() {
  local out=$1 t0 t1
  shift
  t0=$EPOCHREALTIME
  "$@" >"$out" 2>"$out.err" || { cat "$out.err" >&2; return 1; }
  t1=$EPOCHREALTIME
  awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.6f\n", b - a }'
}
seconds_of() { sed -n 's/^seconds=//p' "$1"; }
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
fmt_counts() {
  awk '{ split("HEAD GET LIST PUT POST DELETE", m, " "); s = ""
         for (i = 1; i <= 6; i++) if ($i) s = s (s == "" ? "" : " + ") $i " " m[i]
         printf "%s", s == "" ? "none" : s }' "$1"
}

hdf5_version=$(sed -n 's/^#define H5_VERSION "\(.*\)"/\1/p' "$prefix/include/H5pubconf.h")
netcdf_version=$("$prefix/bin/nc-config" --version | awk '{ print $2 }')
ceph_version=$(radosgw --version 2>/dev/null | awk '{ print $3 }')
echo "# $cmdline"
echo "# $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores; HDF5 $hdf5_version, netCDF-C $netcdf_version, Ceph RGW $ceph_version (memstore) on 127.0.0.1, https"
echo "# median of $runs runs, peers taking turns; ratios to netCDF-C in the same runs"

# ---- 1. open cost
store=$(url arrays)
conn consolidated "$h5" arrays "$store" "$arrays" >/dev/null || die "writing the store of $arrays arrays failed"
ncdump_s3 -h "$store" >"$tmp/ncdump.cdl" 2>"$tmp/ncdump.err" ||
  { cat "$tmp/ncdump.err" >&2; die "netCDF-C's ncdump -h cannot read the connector's store"; }
seen=$(grep -c '^	float var[0-9]*(' "$tmp/ncdump.cdl" || true)
[ "$seen" = "$arrays" ] || die "ncdump -h lists $seen arrays of $arrays"
walked=$(conn "" "$h5" walk "$store" | sed -n 's/^objects=//p')
[ "$walked" = "$arrays" ] || die "the connector's walk saw $walked arrays of $arrays"

open_peers=(walk walk_ign h5dump ncdump)
declare -A open_label=(
  [walk]="connector open+walk, .zmetadata"
  [walk_ign]="connector open+walk, ignore-zmetadata"
  [h5dump]="connector h5dump -H, .zmetadata"
  [ncdump]="netCDF-C ncdump -h"
)
open_cmd() {
  case $1 in
    walk) conn "" "$h5" walk "$store" ;;
    walk_ign) conn ignore-zmetadata "$h5" walk "$store" ;;
    h5dump) conn "" "$prefix/bin/h5dump" -H "$store" ;;
    ncdump) ncdump_s3 -h "$store" ;;
  esac
}
declare -A open_counts open_stats
for p in "${open_peers[@]}"; do
  NCZARR_STATS=1 counted "$tmp/o.$p" open_cmd "$p" || { cat "$tmp/o.$p.err" >&2; die "$p failed"; }
  open_counts[$p]=$(fmt_counts "$tmp/count")
  read -r -a c <"$tmp/count"
  open_total=$((c[0] + c[1] + c[2] + c[3] + c[4] + c[5]))
  open_stats[$p]=$open_total
  [ "$p" = ncdump ] || open_stats[$p]="$open_total (NCZARR_STATS: $(requests_of "$tmp/o.$p.err"))"
done
for ((r = 0; r < runs; r++)); do
  for ((i = 0; i < ${#open_peers[@]}; i++)); do
    p=${open_peers[$(((i + r) % ${#open_peers[@]}))]}
    timed "$tmp/t.out" open_cmd "$p" >>"$tmp/open.$p" || die "$p failed"
  done
done
echo
echo "1. Open: $arrays arrays (float32[16], one chunk and one attribute each), written by the connector with consolidated"
echo
echo "| reader | requests | by method | wall s | ncdump -h time / this |"
echo "|---|---|---|---|---|"
t_nc=$(median <"$tmp/open.ncdump")
for p in "${open_peers[@]}"; do
  t=$(median <"$tmp/open.$p")
  printf '| %s | %s | %s | %.3f | %.1f |\n' "${open_label[$p]}" "${open_stats[$p]}" "${open_counts[$p]}" "$t" \
    "$(awk -v a="$t_nc" -v b="$t" 'BEGIN { print a / b }')"
done

# ---- 2. throughput
elems=$((chunk_kib * 256))
mib=$(awk -v c="$chunks" -v k="$chunk_kib" 'BEGIN { print c * k / 1024 }')
tp_peers=(conc seq nc)
workers=$(nproc)
declare -A tp_label=(
  [conc]="connector (defaults: 16 connections, $workers workers)"
  [seq]="connector connections=1 workers=1"
  [nc]="netCDF-C"
)
tp_run() { # PEER write|read URL
  case $1 in
    conc) conn "" "$h5" "$2" "$3" ${4:+"$4" "$5"} ;;
    seq) conn "connections=1 workers=1" "$h5" "$2" "$3" ${4:+"$4" "$5"} ;;
    nc) ncc "$nc" "$2" "$3" ${4:+"$4" "$5"} ;;
  esac
}
declare -A tp_counts
for ((r = 0; r < runs; r++)); do
  for ((i = 0; i < ${#tp_peers[@]}; i++)); do
    p=${tp_peers[$(((i + r) % ${#tp_peers[@]}))]}
    u=$(url "tp-$p-$r")
    if [ "$r" = 0 ]; then
      counted "$tmp/w" tp_run "$p" write "$u" "$chunks" "$elems" || { cat "$tmp/w.err" >&2; die "$p write failed"; }
      wc_=$(fmt_counts "$tmp/count")
      counted "$tmp/r" tp_run "$p" read "$u" || { cat "$tmp/r.err" >&2; die "$p read failed"; }
      tp_counts[$p]="$wc_ / $(fmt_counts "$tmp/count")"
    else
      tp_run "$p" write "$u" "$chunks" "$elems" >"$tmp/w" 2>"$tmp/w.err" || { cat "$tmp/w.err" >&2; die "$p write failed"; }
      tp_run "$p" read "$u" >"$tmp/r" 2>"$tmp/r.err" || { cat "$tmp/r.err" >&2; die "$p read failed"; }
    fi
    seconds_of "$tmp/w" >>"$tmp/tp.$p.write"
    seconds_of "$tmp/r" >>"$tmp/tp.$p.read"
    # The gateway holds every object in memory (2 GiB at most): each store goes once read.
    conn "" "$h5" delete "$u" || die "deleting $u failed"
  done
done
echo
echo "2. Throughput: one float32 array, $chunks chunks of $chunk_kib KiB ($mib MiB), written with one call, read with one call"
echo
echo "| writer/reader | write MiB/s | read MiB/s | write vs netCDF-C | read vs netCDF-C | requests write / read |"
echo "|---|---|---|---|---|---|"
declare -A tp_write tp_read
for p in "${tp_peers[@]}"; do
  tp_write[$p]=$(median <"$tmp/tp.$p.write")
  tp_read[$p]=$(median <"$tmp/tp.$p.read")
done
for p in "${tp_peers[@]}"; do
  awk -v m="$mib" -v w="${tp_write[$p]}" -v r="${tp_read[$p]}" -v nw="${tp_write[nc]}" -v nr="${tp_read[nc]}" \
    -v l="${tp_label[$p]}" -v c="${tp_counts[$p]}" \
    'BEGIN { printf "| %s | %.1f | %.1f | %.2f | %.2f | %s |\n", l, m / w, m / r, nw / w, nr / r, c }'
done
