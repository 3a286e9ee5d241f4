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
# A build dir configured against another dependency prefix (VOL_NCZARR_STACK) starts over.
if [ -f "$bdir/CMakeCache.txt" ] && ! grep -qx "CMAKE_PREFIX_PATH:[A-Z]*=$prefix" "$bdir/CMakeCache.txt"; then
  rm -rf "$bdir"
fi
if [ ! -f "$bdir/CMakeCache.txt" ]; then
  cmake -S "$root" -B "$bdir" "${gen[@]}" -DCMAKE_PREFIX_PATH="$prefix" -DNCZARR_WERROR=ON "$@" >&2
fi
cmake --build "$bdir" -j "$(nproc)" >&2
echo "$prefix"
