#!/usr/bin/env bash
# netCDF-C's own nc_test4 C programs, natively and through the connector: a measurement
# (issue [10]), not a test, since it needs the netCDF-C source and build tree that
# scripts/setup-deps.sh leaves in its work folder (config.h is the build's).
#   scripts/nc_test4.sh [BUILD_DIR]   (default: build; the connector plugin of that build)
# Each program runs in an empty directory (its inputs copied in, srcdir set to its source
# folder), 120 s at most; prints one line per program and a summary, and keeps the output
# of every failure under $TMPDIR/nczarr-nc_test4.*/.
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$here/build}" && pwd)
CACHE=${VOL_NCZARR_CACHE:-$HOME/.cache/vol-nczarr}
P=${VOL_NCZARR_DEPS:-$CACHE/deps}
SRC=$CACHE/work-${VOL_NCZARR_STACK:-newest}/netcdf-src
BLD=$CACHE/work-${VOL_NCZARR_STACK:-newest}/netcdf-build
[ -f "$BLD/config.h" ] && [ -d "$SRC/nc_test4" ] ||
  { echo "no netCDF-C source and build tree under $CACHE (scripts/setup-deps.sh makes them)"; exit 1; }
[ -f "$build/vol_connector/libnczarr_vol.so" ] || { echo "no connector plugin in $build"; exit 1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/nczarr-nc_test4.XXXXXX")
mkdir -p "$tmp/bin"
# The C programs of nc_test4 that netCDF-C's own CMake runs for a build without MPI, DAP,
# benchmarks or extra plugins.
progs=(tst_dims tst_dims2 tst_dims3 tst_files tst_files4 tst_vars tst_varms tst_unlim_vars tst_converts
  tst_converts2 tst_grps tst_grps2 tst_compounds tst_compounds2 tst_compounds3 tst_opaques tst_strings
  tst_strings2 tst_interops tst_interops4 tst_interops6 tst_interops_dims tst_enums tst_coords tst_coords2
  tst_coords3 tst_vars3 tst_vars4 tst_chunks tst_chunks2 tst_utf8 tst_fills tst_fills2 tst_fillbug
  tst_xplatform2 tst_endian_fill tst_atts t_type cdm_sea_soundings tst_vl tst_atts1 tst_atts2 tst_vars2
  tst_files5 tst_files6 tst_sync tst_h_strbug tst_h_refs tst_h_scalar tst_rename tst_rename2 tst_rename3
  tst_h5_endians tst_atts_string_rewrite tst_put_vars_two_unlim_dim tst_hdf5_file_compat
  tst_fill_attr_vanish tst_rehash tst_types tst_bug324 tst_atts3 tst_put_vars tst_elatefill tst_udf
  tst_udf_multi tst_bug1442 tst_broken_files tst_quantize tst_h_transient_types tst_strided_write
  tst_varsperf tst_vlen_unlim tst_mem_safety tst_meta_block_size tst_xplatform)
for t in "${progs[@]}"; do
  gcc -O1 -w -o "$tmp/bin/$t" "$SRC/nc_test4/$t.c" -I"$BLD" -I"$BLD/include" -I"$SRC/include" -I"$P/include" \
    -L"$P/lib" -Wl,-rpath,"$P/lib" -lnetcdf -lhdf5_hl -lhdf5 -lm 2>"$tmp/bin/$t.err" ||
    { echo "FAIL: $t does not build (see $tmp/bin/$t.err)"; exit 1; }
done
export srcdir=$SRC/nc_test4
n_native=0 n_conn=0 total=0
for t in "${progs[@]}"; do
  total=$((total + 1))
  for mode in native nczarr; do
    d=$(mktemp -d "$tmp/run.XXXXXX")
    cp "$SRC"/nc_test4/*.h5 "$SRC"/nc_test4/*.nc "$SRC"/nc_test4/*.cdl "$d"/ 2>/dev/null
    if [ $mode = native ]; then
      (cd "$d" && env -u HDF5_VOL_CONNECTOR HDF5_PLUGIN_PATH="$P/lib/plugin" timeout 120 "$tmp/bin/$t" >log 2>&1)
    else
      (cd "$d" && HDF5_VOL_CONNECTOR=nczarr HDF5_PLUGIN_PATH="$build/vol_connector:$P/lib/plugin" \
        timeout 120 "$tmp/bin/$t" >log 2>&1)
    fi
    rc=$?
    if [ $rc = 0 ]; then
      [ $mode = native ] && n_native=$((n_native + 1)) || n_conn=$((n_conn + 1))
      rm -rf "$d"
    else
      mv "$d" "$tmp/$t.$mode"
      echo "$t $mode: exit $rc: $(grep -m1 -i 'sorry\|error\|fail' "$tmp/$t.$mode/log" | cut -c1-160)"
    fi
  done
done
echo "nc_test4: $total programs; pass natively $n_native, through the connector $n_conn" \
  "($((100 * n_conn / total))%); failures kept in $tmp"
