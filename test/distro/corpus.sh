#!/usr/bin/env bash
# h5repack, the distribution's (HDF5 1.14.5), through the connector, of files other programs
# wrote (inside the root): HDF5's own tool test files (copied into W by run.sh) and PyTables'
# test files (python3-tables ships them). As test/interop/h5repack_corpus.sh does with the
# dependency prefix's HDF5: the files native h5repack cannot repack faithfully (it fails, or
# h5diff -c finds differences in its own output) are set aside, as are the members of the
# multi-file drivers; each other file ends as one of
#   ok       converted, and the store is what the file holds: `h5diff -c file store`
#            through the connector exits 0 and prints no "not comparable" / "Failed
#            reading" / differences / "different maximum dimensions" line that `h5diff -c -v
#            file copy` does not print too (lib.sh's h5diff_judge; an "empty dataset" line,
#            a dataset whose every value is the fill value, which a store does not write,
#            passes when h5dump shows the same values in both)
#   refused  h5repack failed with a message (the connector's, or HDF5's for what HDF5 itself
#            refuses a non-native connector): listed by message
#   WRONG    converted but differs (silent data loss), or not a store
#   CRASH    a signal, or no answer within the time limit
# Any WRONG or CRASH fails.
#   corpus.sh W
set -euo pipefail
W=$1 SECTION=corpus
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib.sh
. "$here/lib.sh"
C=$W/corpus
rm -rf "$C"
mkdir -p "$C"

one() { # $1 = file: prints "<name>|<native>|<convert rc>|<diff>|<message>"
  local f=$1 set=$2
  local name
  name=$set:$(basename "$f" .h5)
  local w=$C/w/${name//[:\/]/-}
  mkdir -p "$w"
  # from the file's directory: external datasets name their raw files relative to it
  cd "$(dirname "$f")" || return
  local n=0 c=- d=- msg=""
  native timeout 120 h5repack "$f" "$w/native.h5" >"$w/native.log" 2>&1 || n=$?
  if [ "$n" = 0 ]; then
    native timeout 300 h5diff -c "$f" "$w/native.h5" >"$w/ndiff.log" 2>&1 || n=native-diff
  fi
  if [ "$n" = 0 ]; then
    c=0
    conn_preload timeout 300 h5repack --enable-error-stack "$f" "$w/out.zarr" >"$w/conv.log" 2>&1 || c=$?
    if [ "$c" = 0 ] && ! is_store "$w/out.zarr"; then
      d=not-a-store msg="out.zarr is not a store: the connector did not load"
    elif [ "$c" = 0 ]; then
      d=0
      local extra
      extra=$(h5diff_judge "$f" "$w/out.zarr" "$w/diff.log" 2>&1) || d=differs
      if [ "$d" = differs ]; then
        # the "empty dataset" lines: the store wrote no chunk of an all-fill-value dataset
        local rest
        rest=$(sed "s|$w/out.zarr|FILE2|g; s|$f|FILE1|g" "$w/diff.log" |
          grep -E '[Nn]ot comparable|Failed reading|[1-9][0-9]* differences? found|maximum dimensions|has max dimensions' |
          grep -vFxf <(sed "s|$w/diff.log.native-copy|FILE2|g; s|$f|FILE1|g" "$w/diff.log.base") || true)
        local obj left=""
        while IFS= read -r line; do
          [ -n "$line" ] || continue
          obj=$(sed -n 's/^Not comparable: <\([^>]*\)> or <[^>]*> is an empty dataset$/\1/p' <<<"$line")
          if [ -n "$obj" ]; then
            # its values and its attributes' values, as h5dump prints them
            if diff <(native h5dump -y -w 0 -m %.17g -d "$obj" "$f" 2>&1 | python3 /src/test/common/h5dump_data.py --attributes) \
              <(conn h5dump -y -w 0 -m %.17g -d "$obj" "$w/out.zarr" 2>&1 | python3 /src/test/common/h5dump_data.py --attributes) \
              >"$w/h5dump.diff"; then
              continue
            fi
            line+=" (h5dump: $(grep '^[<>]' "$w/h5dump.diff" | head -n 2 | cut -c1-100 | tr '\n' ' '))"
          fi
          left+="$line; "
        done <<<"$rest"
        if [ -z "$left" ] && grep -q '^h5diff rc 0 ' <<<"$extra"; then d=0; else msg="${left:-$extra}"; fi
      fi
    else
      # the innermost message of the connector's class, else HDF5's innermost
      msg=$(grep -m1 -A1 "NCZarr VOL-DIAG" "$w/conv.log" | tail -n 1)
      [ -n "$msg" ] || msg=$(grep -m1 "#000" "$w/conv.log" || true)
      [ -n "$msg" ] || msg=$(grep -m1 -v '^ *$' "$w/conv.log" || true)
      msg=$(sed 's/^ *#[0-9]*: [^ ]* line [0-9]* in [^ ]* //' <<<"$msg")
    fi
  fi
  msg=${msg//|/\/}
  echo "$name|$n|$c|$d|${msg:0:220}"
  rm -rf "$w"
}
export -f one h5diff_judge is_store conn conn_preload native plugin_dir
export C W

tf=$W/hdf5-tool-testfiles
pt=/usr/lib/python3/dist-packages/tables/tests
[ -d "$tf" ] || { fail "hdf5 tool files" "no $tf (run.sh copies them)"; exit 0; }
[ -d "$pt" ] || { fail "pytables files" "no $pt (python3-tables)"; exit 0; }
{
  find "$tf" -name '*.h5' -path '*/testfiles/*' |
    grep -vE '/(tfamily|family_file)[0-9]+\.h5$|/tmulti-.\.h5$|/tsplit_file-.\.h5$|subfiling' | sort |
    sed 's/^/hdf5 /'
  find "$pt" -name '*.h5' | sort | sed 's/^/pytables /'
} >"$C/list"
jobs=$(nproc)
[ "$jobs" -gt 4 ] && jobs=4
xargs -P "$jobs" -L 1 bash -c 'one "$2" "$1"' _ <"$C/list" >"$C/results"

for set in hdf5 pytables; do
  total=0 okc=0 refused=0 wrong=0 crash=0 listed=0 bad=()
  : >"$C/$set.refused"
  while IFS='|' read -r name n c d msg; do
    [ "${name%%:*}" = "$set" ] || continue
    listed=$((listed + 1))
    [ "$n" = 0 ] || continue
    total=$((total + 1))
    if [ "$c" = 0 ] && [ "$d" = 0 ]; then okc=$((okc + 1))
    elif [ "$c" -ge 124 ] 2>/dev/null; then
      crash=$((crash + 1)) bad+=("${name#*:}")
      echo "     CRASH ${name#*:}: h5repack exit $c"
    elif [ "$c" = 0 ]; then
      wrong=$((wrong + 1)) bad+=("${name#*:}")
      echo "     WRONG ${name#*:}: ${msg:0:200}"
    elif [ -z "$msg" ]; then
      crash=$((crash + 1)) bad+=("${name#*:}")
      echo "     CRASH ${name#*:}: h5repack exit $c without a message"
    else refused=$((refused + 1)); echo "${name#*:}: $msg" >>"$C/$set.refused"
    fi
  done <"$C/results"
  echo "   $set: refused files, by message:"
  sed 's/^[^:]*: //; s/"[^"]*"/"X"/g' "$C/$set.refused" | sort | uniq -c | sort -rn | sed 's/^/     /'
  sed 's/^/     refused /' "$C/$set.refused"
  summary="$listed files; native h5repack handles $total; converted equal $okc; refused with a message $refused; wrong $wrong; crash $crash"
  if [ "$total" -lt 10 ]; then
    fail "$set files" "$summary (too few files taken)"
  elif [ "$wrong" = 0 ] && [ "$crash" = 0 ]; then
    ok "$set files" "$summary"
  else
    fail "$set files" "$summary: ${bad[*]}"
  fi
done
cp "$C/results" "$W/corpus-results.txt"
