#!/usr/bin/env bash
# The raw-data workload against native HDF5 and netCDF-C: float32 16384 x 16384 (1 GiB) in
# chunks of 512 x 512 (1 MiB), written and read back in blocks of 512 full rows (one
# H5Dwrite/H5Dread of a hyperslab per block: 32 chunks per call, none of them a contiguous
# run of the caller's buffer), raw and shuffle+deflate, on a tmpfs and on a disk directory.
# Each figure is the median of --runs runs, the peers taking turns, every write and read a
# process of its own; bench_codecs prints peak RSS beside each. After each directory,
# fs_floor.py prints what its file system allows a store of one file per chunk: as many
# 1 MiB files as chunks against one file of the same size. --base REV adds the connector of
# an earlier commit (bench/build_base.sh) as the peer "base", taking turns with the others:
# "no regression" measured in one run. Not a test: nothing is asserted.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$here/../build
mib=1024 runs=5 dirs="/dev/shm ${TMPDIR:-/var/tmp}" base=""
usage() {
  cat <<USAGE
usage: bench/bench_raw.sh [--build DIR] [--mib N] [--runs N] [--dirs "DIR ..."] [--base REV]
  --build  the build tree (default $build)
  --mib    array size in MiB (default $mib; 16384 columns, rows follow)
  --runs   runs per figure, median reported (default $runs)
  --dirs   store directories, a tmpfs and a disk one (default "$dirs")
  --base   also the connector of commit REV, built by bench/build_base.sh (peer "base")
USAGE
}
cmdline="bench/bench_raw.sh${*:+ $*}"
while [ $# -gt 0 ]; do
  case $1 in
    --build) build=$2; shift 2 ;;
    --mib) mib=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    --dirs) dirs=$2; shift 2 ;;
    --base) base=$2; shift 2 ;;
    -h | --help) usage; exit 0 ;;
    *) usage >&2; exit 2 ;;
  esac
done
bin=$build/bench/bench_codecs
[ -x "$bin" ] || { echo "bench_raw: no $bin (build the project first)" >&2; exit 1; }
peers=nczarr,native,netcdf base_args=()
if [ -n "$base" ]; then
  base_args=(--base-connector-dir "$("$here/build_base.sh" --build "$build" "$base")")
  peers+=,base
fi
echo "# $cmdline"
echo "# $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores, at $(git -C "$here" rev-parse --short HEAD 2>/dev/null)$(
  [ -z "$base" ] || echo ", base $(git -C "$here" rev-parse --short "$base^{commit}")")"
for d in $dirs; do
  echo
  echo "## $d ($(stat -f -c %T "$d"))"
  "$bin" --dir "$d" --mib "$mib" --runs "$runs" --cols 16384 --chunk 512x512 --cases raw,deflate \
    --peers "$peers" "${base_args[@]}"
  # what the file system itself allows a store of one file per chunk (bench/fs_floor.py)
  python3 "$here/fs_floor.py" "$d" --files "$mib" --mib 1 --runs "$runs"
done
