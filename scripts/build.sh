#!/usr/bin/env bash
# Configures and builds vol-nczarr against the dependency prefix.
#   scripts/build.sh [build-dir] [extra cmake args...]
# Prints nothing but progress on stderr; the build dir is ./build by default.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
prefix=$("$root/scripts/setup-deps.sh" | tail -n 1)
bdir=${1:-"$root/build"}
shift || true
gen=()
command -v ninja >/dev/null 2>&1 && gen=(-G Ninja)
if [ ! -f "$bdir/CMakeCache.txt" ]; then
  cmake -S "$root" -B "$bdir" "${gen[@]}" -DCMAKE_PREFIX_PATH="$prefix" "$@" >&2
fi
cmake --build "$bdir" -j "$(nproc)" >&2
echo "$prefix"
