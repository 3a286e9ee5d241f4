#!/usr/bin/env bash
# h5repack of every .h5 file of HDF5's own tool tests into a store, as a user converts files:
# `HDF5_VOL_CONNECTOR=nczarr h5repack in.h5 out.zarr`, then `h5diff in.h5 out.zarr` through
# the connector. The members of multi-file drivers (family, multi, split, subfiling) are left
# out; so are files native h5repack cannot repack to an .h5 file, or not so that h5diff
# finds no difference in its output (the denominator is what native h5repack handles). Each
# file ends as one of:
#   ok       converted, and h5diff finds no difference
#   refused  h5repack failed with the connector's message (or HDF5's, for what HDF5 itself
#            refuses a non-native connector), printed grouped by message
#   WRONG    converted but h5diff finds differences or fails (silent data loss), or the
#            output is not a store (the connector did not load)
#   CRASH    a signal, or no answer within the time limit
# Fails on any WRONG or CRASH, or when fewer files convert than NCZARR_CORPUS_MIN_OK (the
# count reached so far: it may only go up). The goal (issue [10]) is 95%.
# The connector's h5repack runs with the preload library (old-style references: issue [14]).
# Usage: h5repack_corpus.sh [TESTFILES_DIR]  (default: the prefix's share/hdf5-tool-testfiles,
# which scripts/setup-deps.sh unpacks from HDF5's source).
set -uo pipefail
: "${NCZARR_PREFIX:?}"
files_dir=${1:-$NCZARR_PREFIX/share/hdf5-tool-testfiles}
min_ok=${NCZARR_CORPUS_MIN_OK:-258}
. "$(cd "$(dirname "$0")" && pwd)/../common/judge.sh"
R=$(real_prefix)
# HDF5 1.14.6's h5diff reads a fixed-length string value with strlen, past its end when it
# fills its width (tools/lib/h5diff_array.c:556): under the sanitizer builds that stops
# h5diff on any such attribute, ours or not. The sanitizers' strlen check stays off here.
if [ -n "${ASAN_OPTIONS:-}" ]; then export ASAN_OPTIONS="$ASAN_OPTIONS:intercept_strlen=0"; fi
if [ -n "${TSAN_OPTIONS:-}" ]; then export TSAN_OPTIONS="$TSAN_OPTIONS:intercept_strlen=0"; fi
[ -d "$files_dir" ] || { echo "FAIL: no tool test files in $files_dir (scripts/setup-deps.sh unpacks them)"; exit 1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/nczarr-corpus.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

one() { # $1 = file: prints "<name> <native rc> <convert rc> <diff rc> <message>"
  local f=$1 P=$NCZARR_PREFIX
  local name=${f#"$files_dir"/}; name=${name%.h5}; name=${name/\/testfiles\//\/}
  local w="$tmp/${name//\//-}"
  mkdir -p "$w"
  # from the file's directory: external datasets name their raw files relative to it
  cd "$(dirname "$f")" || return
  env -u HDF5_VOL_CONNECTOR timeout 120 "$P/bin/h5repack" "$f" "$w/native.h5" >"$w/native.log" 2>&1
  local n=$? c=- d=- msg=""
  # a file native h5repack does not copy faithfully (h5diff finds differences in its own
  # output: a second name of a named datatype dropped, say) is not one it handles
  if [ $n = 0 ]; then
    env -u HDF5_VOL_CONNECTOR timeout 900 "$P/bin/h5diff" -c "$f" "$w/native.h5" >"$w/ndiff.log" 2>&1 || n=native-diff
  fi
  if [ $n = 0 ]; then
    # with the preload: h5repack copies old-style references with H5Rcreate, which HDF5
    # refuses for a store (and h5repack then writes null references)
    HDF5_VOL_CONNECTOR=nczarr with_preload timeout 300 "$R/bin/h5repack" --enable-error-stack "$f" \
      "$w/out.zarr" >"$w/conv.log" 2>&1
    c=$?
    # HDF5 falls back to native HDF5 when the plugin does not load: then out.zarr is a file
    if [ $c = 0 ] && [ ! -f "$w/out.zarr/.zgroup" ]; then
      echo "$name $n $c not-a-store out.zarr is not a store: the connector did not load"
      rm -rf "$w"
      return
    fi
    if [ $c = 0 ]; then
      HDF5_VOL_CONNECTOR=nczarr timeout 900 "$P/bin/h5diff" "$f" "$w/out.zarr" >"$w/diff.log" 2>&1
      d=$?
      # h5diff exits 0 when it skips objects it cannot compare (a type that changed): any
      # it skips beyond those it skips between the file and native h5repack's output is wrong
      if [ $d = 0 ]; then
        HDF5_VOL_CONNECTOR=nczarr timeout 900 "$P/bin/h5diff" -c "$f" "$w/out.zarr" >"$w/cdiff.log" 2>&1
        extra=$(comm -13 <(grep "Not comparable" "$w/ndiff.log" | sort) <(grep "Not comparable" "$w/cdiff.log" | sort))
        # "an empty dataset": no chunk stored (every value the fill value, which a store does
        # not write) where the file has storage: h5diff then compares no values, so h5dump's
        # values of the dataset are compared instead
        while read -r obj; do
          [ -n "$obj" ] || continue
          if cmp -s <(env -u HDF5_VOL_CONNECTOR "$P/bin/h5dump" -d "$obj" "$f" 2>&1 | sed 1d) \
            <(HDF5_VOL_CONNECTOR=nczarr "$P/bin/h5dump" -d "$obj" "$w/out.zarr" 2>&1 | sed 1d); then
            extra=$(echo "$extra" | grep -vF "<$obj> or <$obj> is an empty dataset")
          fi
        done < <(echo "$extra" | sed -n 's/^Not comparable: <\([^>]*\)> or <[^>]*> is an empty dataset$/\1/p')
        [ -z "$extra" ] || { d=not-comparable; echo "$extra" >"$w/diff.log"; }
      fi
      [ $d = 0 ] || msg=$(grep -m1 -v "^$" "$w/diff.log" | cut -c1-200)
    else
      # the innermost message of the connector's class, else HDF5's innermost
      msg=$(grep -m1 -A1 "NCZarr VOL-DIAG" "$w/conv.log" | tail -1)
      [ -n "$msg" ] || msg=$(grep -m1 "#000" "$w/conv.log")
      msg=$(echo "$msg" | sed 's/^ *#[0-9]*: [^ ]* line [0-9]* in [^ ]* //' | cut -c1-200)
    fi
  fi
  echo "$name $n $c $d $msg"
  rm -rf "$w"
}
export -f one with_preload
export tmp files_dir R

# NCZARR_CORPUS_STRIDE=N takes every Nth file only (the sanitizer builds, which check the
# connector's memory and threads on these files, not the count, which the normal build
# checks: they run 3 to 10 times slower)
stride=${NCZARR_CORPUS_STRIDE:-1}
find "$files_dir" -name '*.h5' -path '*/testfiles/*' |
  grep -vE '/(tfamily|family_file)[0-9]+\.h5$|/tmulti-.\.h5$|/tsplit_file-.\.h5$|subfiling' | sort |
  awk -v s="$stride" '(NR - 1) % s == 0' >"$tmp/list"
jobs=$(nproc); [ "$jobs" -gt 4 ] && jobs=4
xargs -P "$jobs" -I{} bash -c 'one "$@"' _ {} <"$tmp/list" >"$tmp/results"

total=0 ok=0 refused=0 wrong=0 crash=0
while read -r name n c d msg; do
  [ "$n" = 0 ] || continue
  total=$((total + 1))
  if [ "$c" = 0 ] && [ "$d" = 0 ]; then ok=$((ok + 1)); echo "$name" >>"$tmp/ok"
  elif [ "$c" -ge 124 ] 2>/dev/null || { [ "$c" = 0 ] && [ "$d" -ge 124 ]; } 2>/dev/null; then
    crash=$((crash + 1)); echo "CRASH $name (h5repack $c, h5diff $d)"
  elif [ "$c" = 0 ]; then wrong=$((wrong + 1)); echo "WRONG $name: h5diff $d: $msg"  # (or not a store)
  elif [ -z "$msg" ]; then crash=$((crash + 1)); echo "CRASH $name: h5repack $c without a message"
  else refused=$((refused + 1)); echo "$msg" >>"$tmp/refusals"; echo "refused $name: $msg" >>"$tmp/refused"
  fi
done <"$tmp/results"
listed=$(wc -l <"$tmp/list")
echo "--- refusals by message (object names replaced by X) ---"
[ -f "$tmp/refusals" ] && sed 's/"[^"]*"/"X"/g' "$tmp/refusals" | sort | uniq -c | sort -rn
echo "--- refused files ---"
[ -f "$tmp/refused" ] && sort "$tmp/refused"
echo "--- converted files ---"
[ -f "$tmp/ok" ] && sort "$tmp/ok" | tr '\n' ' ' && echo
echo "files: $listed; native h5repack handles $total; converted with no h5diff difference: $ok" \
  "($((100 * ok / (total ? total : 1)))%; goal 95%); refused: $refused; wrong: $wrong; crash or hang: $crash"
status=0
[ "$wrong" = 0 ] && [ "$crash" = 0 ] || status=1
if [ "$stride" = 1 ]; then
  [ "$ok" -ge "$min_ok" ] || { echo "FAIL: $ok files convert, fewer than $min_ok"; status=1; }
  [ "$total" -ge 250 ] || { echo "FAIL: only $total files taken (expected the tool tests' 272)"; status=1; }
else
  echo "(every ${stride}th file: the count is the normal build's to check)"
  [ "$total" -ge $((250 / stride)) ] || { echo "FAIL: only $total files taken"; status=1; }
fi
exit $status
