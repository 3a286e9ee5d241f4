#!/usr/bin/env bash
# MPI write benchmark: 1, 2 and 4 ranks (oversubscribed past the cores) write a float32 array
# (1 GiB by default; 16384 columns, chunks 512 x 512) with one collective H5Dwrite per rank,
# raw and shuffle+deflate (level 1), natively (parallel HDF5, MPI-IO into one file) and
# through the connector (a directory store), the two taking turns; each figure the median
# of --runs runs from H5Fcreate to the end of H5Fclose on the slowest rank, on a tmpfs and on
# a disk directory (a sync before every run there). Ratio = native time / connector time
# (above 1: the connector is faster). Not a test: nothing is asserted.
# Needs the parallel build: VOL_NCZARR_STACK=mpi scripts/build.sh build-mpi
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$here/../build-mpi
mib=1024 runs=5 dirs="/dev/shm ${TMPDIR:-/var/tmp}" ranks="1 2 4"
usage() {
  cat <<USAGE
usage: bench/bench_mpi.sh [--build DIR] [--mib N] [--runs N] [--dirs "DIR ..."] [--ranks "1 2 4"]
USAGE
}
cmdline="bench/bench_mpi.sh${*:+ $*}"
while [ $# -gt 0 ]; do
  case $1 in
    --build) build=$2; shift 2 ;;
    --mib) mib=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    --dirs) dirs=$2; shift 2 ;;
    --ranks) ranks=$2; shift 2 ;;
    -h | --help) usage; exit 0 ;;
    *) usage >&2; exit 2 ;;
  esac
done
prefix=$(sed -n 's/^CMAKE_PREFIX_PATH:[A-Z]*=//p' "$build/CMakeCache.txt")
prog=$build/bench/bench_mpi
[ -x "$prog" ] || { echo "no $prog: build the parallel tree first (VOL_NCZARR_STACK=mpi scripts/build.sh $build)" >&2; exit 1; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
plugins="$build/vol_connector:$prefix/lib/plugin"

one() { # PEER DIR N KIND -> "seconds rss"
  local peer=$1 dir=$2 n=$3 kind=$4 out
  out=$dir/bench_mpi.$peer
  rm -rf "$out"
  case $dir in /dev/shm*) ;; *) sync ;; esac
  if [ "$peer" = native ]; then
    env -u HDF5_VOL_CONNECTOR HDF5_PLUGIN_PATH="$prefix/lib/plugin" mpirun -n "$n" "$prog" "$out" "$kind" "$mib"
  else
    HDF5_VOL_CONNECTOR=nczarr HDF5_PLUGIN_PATH="$plugins" mpirun -n "$n" "$prog" "$out" "$kind" "$mib"
  fi | awk '$3 == "ok" {print $1, $2; f = 1} END {exit !f}' || { echo "bench_mpi failed: $peer $n $kind" >&2; exit 1; }
  # HDF5 falls back to a native file when the plugin does not load: the connector's run must
  # have made a store
  if [ "$peer" = nczarr ] && [ ! -f "$out/.zgroup" ]; then
    echo "bench_mpi: $out is not a store: the connector did not load" >&2
    exit 1
  fi
  rm -rf "$out"
}
median() { sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }

echo "# $cmdline"
echo "# $(date -u +%FT%TZ), $(nproc) cores, $mib MiB float32, chunks 512 x 512, median of $runs"
printf "%-12s %5s %-8s %10s %10s %7s %12s %12s\n" dir ranks codec native_s nczarr_s ratio native_rss nczarr_rss
for dir in $dirs; do
  for n in $ranks; do
    for kind in raw deflate; do
      : >/tmp/bench_mpi.native; : >/tmp/bench_mpi.nczarr
      for r in $(seq "$runs"); do
        if [ $((r % 2)) -eq 1 ]; then order="native nczarr"; else order="nczarr native"; fi
        for peer in $order; do one $peer "$dir" "$n" $kind >>/tmp/bench_mpi.$peer; done
      done
      tn=$(cut -d' ' -f1 /tmp/bench_mpi.native | median) tc=$(cut -d' ' -f1 /tmp/bench_mpi.nczarr | median)
      rn=$(cut -d' ' -f2 /tmp/bench_mpi.native | sort -n | tail -1) rc=$(cut -d' ' -f2 /tmp/bench_mpi.nczarr | sort -n | tail -1)
      printf "%-12s %5s %-8s %10.3f %10.3f %7.2f %10sKiB %10sKiB\n" "$dir" "$n" $kind "$tn" "$tc" \
        "$(echo "$tn $tc" | awk '{print $1 / $2}')" "$rn" "$rc"
    done
  done
done
