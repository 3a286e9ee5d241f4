#!/bin/sh
# style.layers: translate/ is layered (translate/CMakeLists.txt), calls going down only.
#  1. A file in folder X of translate/ includes only headers of X, of the folders below X,
#     of zmap/ (below all of translate/) and of common/ (below everything); zmap/ includes
#     no translate/ header; common/ includes none of zmap/ or translate/; vol_connector/
#     includes no zmap/ header (it reaches the store only through translate/).
#  2. With the folders' static libraries given (lowest first), no library references an
#     ncztr_* symbol that only a higher one defines.
#  3. vol_connector/ includes no *_internal.h header of translate/.
#  4. No C file of translate/, zmap/ or common/ is over 800 lines (files are split by concern).
#  5. The formats' key names and markers (.zgroup, .zarray, .zattrs, .zmetadata, zarr.json,
#     zarr_format) appear in string literals only in translate/format/, the seam between
#     the formats and everything else (comments may name them).
# Usage: check_layers.sh SOURCE_DIR [LIB_base LIB_types ... LIB_store]
src=$1
shift
layers="base types format codec model data par store"
status=0
includes() { # the quoted #include names of a file
    sed -n 's/^#include "\([^"]*\)".*/\1/p' "$1"
}

rank() { # the position of a folder in $layers, or nothing
    i=0
    for l in $layers; do
        [ "$l" = "$1" ] && echo $i && return
        i=$((i + 1))
    done
}

for dir in $layers; do
    r=$(rank "$dir")
    for f in "$src"/translate/"$dir"/*.c "$src"/translate/"$dir"/*.h; do
        [ -e "$f" ] || continue
        for h in $(includes "$f"); do
            if [ -e "$src/zmap/$h" ] || [ -e "$src/common/$h" ]; then
                continue
            fi
            owner=""
            for l in $layers; do
                [ -e "$src/translate/$l/$h" ] && owner=$l
            done
            if [ -z "$owner" ]; then
                echo "${f#$src/}: includes \"$h\", found in no folder of translate/ or zmap/"
                status=1
            elif [ "$(rank "$owner")" -gt "$r" ]; then
                echo "${f#$src/}: includes \"$h\" of translate/$owner, above translate/$dir"
                status=1
            fi
        done
    done
done
for f in "$src"/zmap/*.[ch] "$src"/zmap/*/*.[ch]; do
    if grep -n '^#include "ncztr_' "$f"; then
        echo "${f#$src/}: zmap/ includes a translate/ header"
        status=1
    fi
done
# zmap's store kinds stand apart: a driver's folder includes headers of its own, of zmap/
# and of common/ only, and zmap/'s own files none of a driver's (they reach drivers
# through the table of nczm_drivers.c).
for f in "$src"/zmap/*.[ch] "$src"/zmap/*/*.[ch]; do
    d=$(dirname "$f")
    for h in $(includes "$f"); do
        [ -e "$d/$h" ] || [ -e "$src/zmap/$h" ] || [ -e "$src/common/$h" ] && continue
        echo "${f#$src/}: includes \"$h\", not of its own folder, zmap/ or common/"
        status=1
    done
done
for f in "$src"/common/*.[ch]; do
    if grep -n '^#include "\(ncztr_\|nczm\|H5VL_\)' "$f"; then
        echo "${f#$src/}: common/ includes a header of a layer above it"
        status=1
    fi
done
for f in "$src"/vol_connector/*.[ch]; do
    for h in $(includes "$f"); do
        if [ -e "$src/zmap/$h" ]; then
            echo "${f#$src/}: includes \"$h\" of zmap/: the connector reaches the store only through translate/"
            status=1
        fi
    done
    if gcc -fpreprocessed -dD -E -P "$f" 2>/dev/null | grep -n '\bnczm_\|\bNCZM_'; then
        echo "${f#$src/}: names a zmap/ call or type: the connector reaches the store only through translate/"
        status=1
    fi
done

# The model's structs are opaque to the connector: it includes no header internal to
# translate/ (ncztr_model_internal.h defines them), so touching a field fails to compile.
for f in "$src"/vol_connector/*.[ch]; do
    if grep -n '^#include "[^"]*_internal\.h"' "$f"; then
        echo "${f#$src/}: the connector includes a header internal to translate/"
        status=1
    fi
done

for f in "$src"/translate/*/*.[ch] "$src"/zmap/*.[ch] "$src"/zmap/*/*.[ch] "$src"/common/*.[ch]; do
    n=$(wc -l <"$f")
    if [ "$n" -gt 800 ]; then
        echo "${f#$src/}: $n lines, over 800: split it by concern"
        status=1
    fi
done

for f in "$src"/translate/*/*.[ch] "$src"/zmap/*.[ch] "$src"/zmap/*/*.[ch] "$src"/vol_connector/*.[ch]; do
    case $f in "$src"/translate/format/*) continue ;; esac
    # the code without its comments, then its string literals
    if gcc -fpreprocessed -dD -E -P "$f" 2>/dev/null | grep -o '"[^"]*"' |
        grep -E '\.zgroup|\.zarray|\.zattrs|\.zmetadata|zarr\.json|zarr_format' >"${TMPDIR:-/tmp}/layers.$$"; then
        sed "s|^|${f#$src/}: a format's key outside translate/format/: |" "${TMPDIR:-/tmp}/layers.$$"
        status=1
    fi
    rm -f "${TMPDIR:-/tmp}/layers.$$"
done

if [ $# -gt 0 ]; then
    tmp=$(mktemp)
    i=0
    for lib in "$@"; do
        nm -g --defined-only "$lib" | awk -v i=$i 'NF == 3 && $3 ~ /^ncztr_/ {print i, $3}' >>"$tmp"
        i=$((i + 1))
    done
    i=0
    for lib in "$@"; do
        for s in $(nm -u "$lib" | awk '$2 ~ /^ncztr_/ {print $2}' | sort -u); do
            d=$(awk -v s="$s" '$2 == s {print $1; exit}' "$tmp")
            if [ -n "$d" ] && [ "$d" -gt $i ]; then
                echo "$(basename "$lib") uses $s, defined only in the higher $(basename "$(eval echo \${$((d + 1))})")"
                status=1
            fi
        done
        i=$((i + 1))
    done
    rm -f "$tmp"
fi
[ $status -eq 0 ] && echo "translate/ layers: calls go down only; no file over 800 lines; format keys only in translate/format/"
exit $status
