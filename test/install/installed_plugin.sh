#!/usr/bin/env bash
# `cmake --install` into an empty prefix: the plugin lands in <prefix>/<libdir>/hdf5/plugin,
# the CMake package names that folder, the plugin's RUNPATH names the HDF5 it was built
# against, and an unmodified HDF5 program writes a store through the installed copy.
#   installed_plugin.sh BUILD_DIR HDF5_LIB_DIR
set -euo pipefail
build=$1 h5lib=$2
: "${NCZARR_PREFIX:?}"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/nczarr-inst.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cmake --install "$build" --prefix "$tmp/p" >/dev/null
plugin=$(find "$tmp/p" -name libnczarr_vol.so)
[ -n "$plugin" ] || { echo "FAIL: no plugin installed"; exit 1; }
dir=$(dirname "$plugin")
case "$dir" in */hdf5/plugin) ;; *) echo "FAIL: plugin installed in $dir"; exit 1 ;; esac
cfg=$(find "$tmp/p" -name vol-nczarr-config.cmake)
grep -q 'hdf5/plugin' "$cfg" || { echo "FAIL: $cfg does not name the plugin folder"; exit 1; }
readelf -d "$plugin" | grep -E 'RUNPATH|RPATH' | grep -qF "$h5lib" ||
  { readelf -d "$plugin"; echo "FAIL: the plugin's RUNPATH does not name $h5lib"; exit 1; }
HDF5_PLUGIN_PATH="$dir" HDF5_VOL_CONNECTOR=nczarr "$build/examples/write_store" "$tmp/ex.zarr" >/dev/null
[ -f "$tmp/ex.zarr/.zgroup" ] || { echo "FAIL: the installed plugin did not write a store"; exit 1; }
HDF5_PLUGIN_PATH="$dir" HDF5_VOL_CONNECTOR=nczarr "$NCZARR_PREFIX/bin/h5dump" -H "$tmp/ex.zarr" >/dev/null
echo "installed_plugin: ok ($dir)"
