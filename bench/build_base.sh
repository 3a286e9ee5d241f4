#!/usr/bin/env bash
# Builds the connector of an earlier commit, for bench_codecs' peer "base"
# (--base-connector-dir): a change measured against the code before it in one run, both
# taking turns in the same state of the machine, instead of against figures of another
# day. The commit's tree is exported with git archive (no worktree is registered) and
# configured against the dependency prefix and build type of the build tree --build; only
# the connector and its filter plugins are built. Prints the directory that holds them.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
build=$root/build out=""
usage() {
  cat <<USAGE
usage: bench/build_base.sh [--build DIR] [--out DIR] REV
  REV      the commit whose connector to build (anything git rev-parse takes)
  --build  the build tree whose configuration to copy (default $build)
  --out    where the commit's source and build go (default
           \${TMPDIR:-/tmp}/vol-nczarr-base-<commit>); an earlier build there is reused
USAGE
}
rev=""
while [ $# -gt 0 ]; do
  case $1 in
    --build) build=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    -h | --help) usage; exit 0 ;;
    -*) usage >&2; exit 2 ;;
    *) [ -z "$rev" ] || { usage >&2; exit 2; }; rev=$1; shift ;;
  esac
done
[ -n "$rev" ] || { usage >&2; exit 2; }
cache=$build/CMakeCache.txt
[ -f "$cache" ] || { echo "build_base: no $cache (build the project first)" >&2; exit 1; }
sha=$(git -C "$root" rev-parse --verify "$rev^{commit}")
out=${out:-${TMPDIR:-/tmp}/vol-nczarr-base-${sha:0:12}}
conn=$out/build/vol_connector
if [ ! -f "$conn/libnczarr_vol.so" ]; then
  prefix=$(sed -n 's/^CMAKE_PREFIX_PATH:[A-Z]*=//p' "$cache")
  btype=$(sed -n 's/^CMAKE_BUILD_TYPE:[A-Z]*=//p' "$cache")
  rm -rf "$out"
  mkdir -p "$out/src"
  git -C "$root" archive "$sha" | tar -x -C "$out/src"
  gen=()
  command -v ninja >/dev/null 2>&1 && gen=(-G Ninja)
  cmake -S "$out/src" -B "$out/build" "${gen[@]}" -DCMAKE_PREFIX_PATH="$prefix" \
    -DCMAKE_BUILD_TYPE="${btype:-RelWithDebInfo}" >&2
  # the connector and whichever filter plugins that commit has
  mapfile -t targets < <(cmake --build "$out/build" --target help | grep -oE '\bnczarr_(vol|filter_[a-z0-9]+)\b' |
    sort -u)
  cmake --build "$out/build" -j "$(nproc)" --target "${targets[@]}" >&2
fi
[ -f "$conn/libnczarr_vol.so" ] || { echo "build_base: $sha built no $conn/libnczarr_vol.so" >&2; exit 1; }
echo "$conn"
