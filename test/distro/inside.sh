#!/usr/bin/env bash
# Runs the distribution stage's sections inside the trixie root and prints the table of
# results ($W/results, lib.sh's format). Exits non-zero when any check failed or a section
# stopped early.
#   inside.sh W
set -euo pipefail
W=$1
here=$(cd "$(dirname "$0")" && pwd)
: >"$W/results"
export PYTHONDONTWRITEBYTECODE=1 # nothing written into /src

section() { # NAME SCRIPT: a section that stops early is a failure of its own
  local name=$1 script=$2 t0=$SECONDS rc=0
  echo "-- $name"
  bash "$here/$script" "$W" || rc=$?
  if [ "$rc" != 0 ]; then
    printf '%s\t%s\t%s\t%s\n' "$name" "(section)" FAIL "$script stopped with status $rc" >>"$W/results"
    echo "  FAIL  $script stopped with status $rc"
  fi
  echo "   ($name: $((SECONDS - t0)) s)"
}

section build build.sh
if [ -s "$W/plugin_dir" ]; then
  section tools tools.sh
  section reopen reopen.sh
  section gdal gdal.sh
  section corpus corpus.sh
else
  printf 'tools\t(all)\tFAIL\tnot run: the connector did not build and install\n' >>"$W/results"
fi

echo
echo "== distribution stage: results (Debian trixie: HDF5 $(dpkg-query -W -f='${Version}' libhdf5-dev)," \
  "netCDF-C $(dpkg-query -W -f='${Version}' libnetcdf-dev), NCO $(dpkg-query -W -f='${Version}' nco)," \
  "CDO $(dpkg-query -W -f='${Version}' cdo), GDAL $(dpkg-query -W -f='${Version}' gdal-bin)) =="
awk -F'\t' '{ printf "%-7s %-6s %-34s %s\n", $1, $3, $2, substr($4, 1, 120) }' "$W/results"
ok=$(awk -F'\t' '$3 == "ok"' "$W/results" | wc -l)
lim=$(awk -F'\t' '$3 == "limit"' "$W/results" | wc -l)
bad=$(awk -F'\t' '$3 == "FAIL"' "$W/results" | wc -l)
echo "checks: $ok ok, $lim measured limits as recorded, $bad failed"
[ "$bad" = 0 ]
