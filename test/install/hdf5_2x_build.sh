#!/usr/bin/env bash
# install.hdf5_2x_build: the project builds against HDF5 2.x, and what a 1.14 build imports is
# all there in 2.x or on the compat header's list of replaced calls.
#   hdf5_2x_build.sh SOURCE_DIR PLUGIN
# SOURCE_DIR is configured and built (tests off, warnings as errors) in a folder of its own
# against the HDF5 2.x prefix of scripts/setup-hdf5-2x.sh: sid's 2.x headers, the libhdf5
# 2.0.0 of h5py's wheel. Then:
#  1. CMake says it found HDF5 2.x there.
#  2. Every library built links with --no-undefined against 2.0.0 (the connector and the
#     netCDF-C companion do), and nm finds no HDF5 symbol that a built library imports
#     missing from 2.0.0's exports (nor from any other built library).
#  3. PLUGIN, the connector of the build running this test (against 1.14), imports only
#     HDF5 symbols that 2.0.0 exports or that translate/base/ncztr_h5compat.h lists as
#     replaced in 2.x ("old -> new"), whose replacement 2.0.0 exports and the 2.x build
#     imports instead: the mapping is printed.
#  4. The 2.x-built connector loads into HDF5 2.0.0 and an unmodified HDF5 program built
#     there writes a store through it.
# No prefix in the cache is a failure that names the script making it.
set -euo pipefail
export LC_ALL=C # one collation for sort and comm
src=$(cd "$1" && pwd) plugin14=$2
cache="${VOL_NCZARR_CACHE:-$HOME/.cache/vol-nczarr}"
prefix="$cache/hdf5-2x"
compat="$src/translate/base/ncztr_h5compat.h"
fail() {
    echo "FAIL: $*"
    exit 1
}

[ -f "$prefix/.stamp" ] && [ -f "$prefix/include/H5public.h" ] && [ -e "$prefix/lib/libhdf5.so" ] ||
    fail "no HDF5 2.x prefix at $prefix: run scripts/setup-hdf5-2x.sh (scripts/setup-deps.sh runs it)"
[ -f "$plugin14" ] || fail "no plugin at $plugin14"
[ -f "$compat" ] || fail "no compat header at $compat"
lib=$(readlink -f "$prefix/lib/libhdf5.so")
libver=$(strings -a "$lib" | sed -n 's/^HDF5 library version: \([0-9][0-9.]*\)$/\1/p' | head -n1)
case "$libver" in
    2.*) ;;
    *) fail "$lib is HDF5 '$libver', not 2.x: run scripts/setup-hdf5-2x.sh again" ;;
esac
echo "HDF5 2.x prefix: $prefix ($(sed -n 2p "$prefix/.stamp"))"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/nczarr-h5x.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
gen=()
command -v ninja >/dev/null 2>&1 && gen=(-G Ninja)

# 1. configure: the root way only, so that no other HDF5 on the machine can stand in
if ! cmake -S "$src" -B "$tmp/build" "${gen[@]}" -DHDF5_ROOT="$prefix" -DNCZARR_HDF5_METHODS=root \
    -DNCZARR_WERROR=ON -DNCZARR_BUILD_TESTS=OFF >"$tmp/configure.log" 2>&1; then
    tail -n 40 "$tmp/configure.log"
    fail "configuring against $prefix failed"
fi
found=$(grep -E "^-- HDF5 [0-9.]+ found through" "$tmp/configure.log" || true)
echo "cmake: ${found#-- }"
echo "$found" | grep -qE "^-- HDF5 2\.[0-9]+\.[0-9]+ found through HDF5_ROOT=$prefix: $prefix/lib/libhdf5.so" ||
    fail "CMake did not find HDF5 2.x at $prefix"

# 2. build everything (the connector, the companion, the examples and benchmarks)
if ! cmake --build "$tmp/build" -j "$(nproc)" >"$tmp/build.log" 2>&1; then
    grep -E "error|undefined reference|FAILED" "$tmp/build.log" | head -n 60
    fail "building against HDF5 2.x failed (above: the errors)"
fi
vol="$tmp/build/vol_connector/libnczarr_vol.so"
companion="$tmp/build/vol_connector/libnczarr_netcdf_companion.so"
[ -f "$vol" ] && [ -f "$companion" ] || fail "the build made no connector or no companion"
soname=$(readelf -d "$lib" | sed -n 's/.*SONAME.*\[\(.*\)\].*/\1/p')
readelf -d "$vol" | grep -q "NEEDED.*\[$soname\]" || fail "the connector was not linked against $lib ($soname)"
nm -D --defined-only "$lib" | awk '{print $NF}' | sort -u >"$tmp/h5x.def"
echo "libhdf5 $libver ($soname) exports $(wc -l <"$tmp/h5x.def") symbols"
imports() { # the HDF5 symbols a library imports
    nm -D --undefined-only "$1" | awk '{print $NF}' | sed 's/@.*//' | grep '^H5' | sort -u || true
}
missing=0
for so in $(find "$tmp/build" -name '*.so' -type f | sort); do
    imports "$so" >"$tmp/imp"
    comm -23 "$tmp/imp" "$tmp/h5x.def" >"$tmp/miss"
    echo "built against 2.x: ${so#"$tmp/build/"} imports $(wc -l <"$tmp/imp") HDF5 symbols, missing from $libver: $(wc -l <"$tmp/miss")"
    if [ -s "$tmp/miss" ]; then
        sed 's/^/  missing: /' "$tmp/miss"
        missing=1
    fi
done
[ $missing = 0 ] || fail "libraries built against HDF5 2.x import symbols that $libver does not export"
imports "$vol" >"$tmp/vol2x.imp"

# 3. what the 1.14 build imports
sed -n 's/^ \*   \(H5[A-Za-z0-9_]*\) -> \([A-Za-z0-9_]*\)$/\1 \2/p' "$compat" >"$tmp/map"
[ -s "$tmp/map" ] || fail "$compat lists no replaced symbols (lines ' *   OLD -> NEW')"
while read -r old new; do
    grep -qxF "$old" "$tmp/h5x.def" && fail "$compat lists $old as replaced, but $libver exports it"
    grep -qxF "$new" "$tmp/h5x.def" || fail "$compat replaces $old with $new, which $libver does not export"
done <"$tmp/map"
imports "$plugin14" >"$tmp/imp14"
echo "the build's plugin $plugin14 ($(readelf -d "$plugin14" | sed -n 's/.*NEEDED.*\[\(libhdf5[^]]*\)\].*/\1/p')) imports $(wc -l <"$tmp/imp14") HDF5 symbols:"
comm -12 "$tmp/imp14" "$tmp/h5x.def" >"$tmp/both"
echo "  $(wc -l <"$tmp/both") exported by $libver too"
bad=0
for s in $(comm -23 "$tmp/imp14" "$tmp/h5x.def"); do
    new=$(awk -v s="$s" '$1 == s {print $2}' "$tmp/map")
    if [ -z "$new" ]; then
        echo "  $s: not in $libver, and not on ncztr_h5compat.h's list of replaced calls"
        bad=1
    elif ! grep -qxF "$new" "$tmp/vol2x.imp"; then
        echo "  $s -> $new: $libver exports $new, but the 2.x-built connector does not import it"
        bad=1
    else
        echo "  $s -> $new (ncztr_h5compat.h): $libver exports $new, the 2.x-built connector imports it"
    fi
done
[ $bad = 0 ] || fail "the 1.14 build imports HDF5 symbols that 2.x lacks and the compat header does not map"

# 4. the 2.x-built connector at work in HDF5 2.0.0
if ! HDF5_PLUGIN_PATH="$tmp/build/vol_connector" HDF5_VOL_CONNECTOR=nczarr "$tmp/build/examples/write_store" \
    "$tmp/ex.zarr" >"$tmp/run.log" 2>&1; then
    cat "$tmp/run.log"
    fail "write_store through the 2.x-built connector failed"
fi
[ -f "$tmp/ex.zarr/.zgroup" ] && [ -d "$tmp/ex.zarr/temperature" ] ||
    fail "write_store under HDF5 $libver wrote no store (was the connector loaded?)"
echo "write_store (built against 2.x) wrote a store through the 2.x-built connector under HDF5 $libver"
echo "hdf5_2x_build: ok"
