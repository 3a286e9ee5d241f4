#!/usr/bin/env bash
# The main job: set up everything, build, run an unmodified HDF5 program that writes a Zarr
# store through the connector, and show the store with h5dump (through the connector too).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
prefix=$("$root/scripts/build.sh" "$root/build" | tail -n 1)
store="$root/build/example.zarr"
export HDF5_PLUGIN_PATH="$root/build/vol_connector:$prefix/lib/plugin"
export HDF5_VOL_CONNECTOR=nczarr
"$root/build/examples/write_store" "$store"
"$prefix/bin/h5dump" "$store"
