#!/usr/bin/env bash
# Makes the fuzz targets' seed corpora from stores the project's own tests write (no
# third-party files): the connector's writers (test/interop/*_writer.c, attr_fidelity.c) in
# Zarr v2 and v3, zarr-python 2 and 3 (v3_make.py: every data type, codec, sharding form,
# consolidated metadata, and its damaged copies; v2_types_make.py), and netCDF-C's NCZarr
# (ncgen of test/netcdf4/cdl/*.cdl). Each store becomes fuzz_store inputs (pack_store.py, also
# opened for writing); each seeds_<target>.py or .sh makes its own target's inputs, from the
# same stores (codecs, attrjson, dtype) or by itself (zip, s3xml, url). The new seeds are then merged into test/fuzz/corpus/<target>/ by libFuzzer
# (-merge=1: only inputs that add coverage are kept).
#   test/fuzz/make_seeds.sh [--build BUILD] [--fuzz-build FUZZBUILD] [--keep DIR]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build="$root/build"; fbuild="$root/build-fuzz"; keep=""
while [ $# -gt 0 ]; do
  case "$1" in
    --build) build=$2; shift 2 ;;
    --fuzz-build) fbuild=$2; shift 2 ;;
    --keep) keep=$2; shift 2 ;;
    *) echo "usage: $0 [--build BUILD] [--fuzz-build FUZZBUILD] [--keep DIR]" >&2; exit 2 ;;
  esac
done
prefix=$(sed -n 's/^CMAKE_PREFIX_PATH:[A-Z]*=//p' "$build/CMakeCache.txt")
py3=$(sed -n 's/^NCZARR_ZARR3_PYTHON:[A-Z]*=//p' "$build/CMakeCache.txt")
tmp=${keep:-$(mktemp -d "${TMPDIR:-/tmp}/nczarr-seeds.XXXXXX")}
[ -n "$keep" ] || trap 'rm -rf "$tmp"' EXIT
st="$tmp/stores"; raw="$tmp/raw"
mkdir -p "$st" "$raw/store"
conn=(env "HDF5_PLUGIN_PATH=$build/vol_connector:$prefix/lib/plugin")
native=(env -u HDF5_VOL_CONNECTOR -u HDF5_PLUGIN_PATH LD_PRELOAD=)
w="$build/test"
# The writers stop at the first type v3 cannot hold (they test v2 first of all): what
# they wrote before that is a store all the same.
for fmt in v2 v3; do
  vol="nczarr"; [ $fmt = v3 ] && vol="nczarr v3"
  c=("${conn[@]}" "HDF5_VOL_CONNECTOR=$vol")
  mkdir -p "$tmp/cw_$fmt"
  for cmd in "interop_writer $st/writer_$fmt.zarr" "interop_writer $st/writer_types_$fmt.zarr --types" \
      "interop_types_writer $st/types_$fmt.zarr" "interop_vlen_writer $st/vlen_$fmt.zarr" \
      "interop_hardlinks_writer $st/links_$fmt.zarr" "interop_attr_fidelity $st/attrs_$fmt.zarr" \
      "interop_codecs_writer $st/codecs_$fmt.zarr $tmp/cw_$fmt"; do
    read -r -a a <<<"$cmd"
    "${c[@]}" "$w/${a[0]}" "${a[@]:1}" >/dev/null 2>&1 || [ $fmt = v3 ] ||
      { echo "make_seeds: $cmd failed" >&2; exit 1; }
  done
done
"${native[@]}" "$py3" "$root/test/interop/v3_make.py" make "$tmp/zp3" >/dev/null
"${native[@]}" "$py3" "$root/test/interop/v3_make.py" damage "$tmp/zp3" >/dev/null
"${native[@]}" "$py3" "$root/test/interop/v2_types_make.py" "$tmp/zp3" zp3 >/dev/null
"${native[@]}" /usr/bin/python3 "$root/test/interop/v2_types_make.py" "$tmp/zp3" zp2 >/dev/null
for cdl in "$root"/test/netcdf4/cdl/*.cdl; do
  n=$(basename "$cdl" .cdl)
  "${native[@]}" "$prefix/bin/ncgen" -k nc4 -o "file://$st/nc_$n.zarr#mode=nczarr,file" "$cdl"
done
# every store directory, wherever the writers put it
find "$tmp" -name '*.zarr' -type d | while read -r s; do
  n=$(echo "${s#"$tmp"/}" | tr '/' '_')
  python3 "$here/pack_store.py" "$s" "$raw/store/$n"
  python3 "$here/pack_store.py" "$s" "$raw/store/rw_$n" --options rw --max-object 512
done
# The other targets' seed makers: from these stores (STORES_DIR OUT_DIR), or from what they
# make themselves (OUT_DIR, and the build for the connector's writers).
for g in "$here"/seeds_*; do
  [ -e "$g" ] || continue
  t=$(basename "$g"); t=${t#seeds_}; t=${t%.*}
  mkdir -p "$raw/$t"
  case "$t" in
    codecs | attrjson | dtype) /usr/bin/python3 "$g" "$tmp" "$raw/$t" ;;
    zip) bash "$g" "$raw/$t" "$build" ;;
    *) /usr/bin/python3 "$g" "$raw/$t" ;;
  esac
done
for d in "$raw"/*/; do
  t=$(basename "$d")
  exe="$fbuild/test/fuzz/fuzz_$t"
  [ -x "$exe" ] || { echo "no $exe: build with -DNCZARR_FUZZ=ON" >&2; exit 1; }
  mkdir -p "$here/corpus/$t"
  before=$(ls "$here/corpus/$t" | wc -l)
  TMPDIR=${NCZARR_FUZZ_TMP:-/dev/shm} ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1:detect_odr_violation=0 \
    "$exe" -merge=1 -rss_limit_mb=1024 -malloc_limit_mb=1024 -timeout=5 "$here/corpus/$t" "$d" >"$tmp/merge_$t.log" 2>&1 ||
    { echo "merge of $t failed: $tmp/merge_$t.log" >&2; tail -n 30 "$tmp/merge_$t.log" >&2; exit 1; }
  echo "$t: $(ls "$d" | wc -l) seeds, corpus $before -> $(ls "$here/corpus/$t" | wc -l) inputs"
done
