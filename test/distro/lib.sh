# shellcheck shell=bash
# What the distribution stage's scripts share (sourced inside the trixie root, after
# `set -euo pipefail`). W is the run's work dir; every result is one line of $W/results:
#   SECTION<TAB>CHECK<TAB>STATUS<TAB>DETAIL
# STATUS: ok (works as it must), limit (a measured limit, asserted to be exactly what was
# recorded: it flips to FAIL when it changes, and then README needs updating), FAIL.
: "${W:?W (the work dir) is not set}"
: "${SECTION:?SECTION is not set}"
ARCH=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || gcc -print-multiarch)
export ARCH

record() { # STATUS CHECK DETAIL...
  local st=$1 name=$2
  shift 2
  local detail="$*"
  detail=${detail//$'\n'/ | }
  detail=${detail//$'\t'/ }
  printf '%s\t%s\t%s\t%s\n' "$SECTION" "$name" "$st" "${detail:0:400}" >>"$W/results"
  printf '  %-5s %s: %s\n' "$st" "$name" "${detail:0:300}"
}
ok() { record ok "$@"; }
fail() { record FAIL "$@"; }
limit() { record limit "$1" "LIMIT: ${*:2}"; }

# The plugin dir of the installed connector (set by the build section, kept in $W/plugin_dir).
plugin_dir() { cat "$W/plugin_dir"; }
# CMD through the connector: the environment the README tells users to set.
conn() { HDF5_VOL_CONNECTOR=nczarr HDF5_PLUGIN_PATH="$(plugin_dir)" "$@"; }
# CMD through the connector with the preload library as README's Python section says to
# load it (HDF5's deprecated calls for stores: h5repack copies old-style references with one).
conn_preload() { LD_PRELOAD=/usr/local/lib/libnczarr_preload.so conn "$@"; }
# CMD natively: no connector in the environment at all.
native() { env -u HDF5_VOL_CONNECTOR -u HDF5_PLUGIN_PATH "$@"; }
# netCDF-C's own URL for a directory store.
store_url() { echo "file://$1#mode=nczarr,file"; }

# is_store PATH: what the connector wrote is an NCZarr directory store, not the HDF5 file
# HDF5 writes when the plugin does not load (it falls back to native HDF5 silently).
is_store() {
  [ -d "$1" ] && [ -f "$1/.zgroup" ] && grep -q '"_nczarr_superblock"' "$1/.zattrs" 2>/dev/null
}

# h5diff_judge NATIVE STORE LOG [h5diff options...]: the root's h5diff -c -v, through the
# connector (it opens the native file natively and the store as a store). h5diff exits 0
# on objects it cannot compare and on attributes it fails to read, so its output is read:
# any "not comparable" / "Failed reading" / "N differences found" (N > 0) line that
# `h5diff -c -v NATIVE NATIVE_COPY` does not print too is a difference; so is a dataset's
# "different maximum dimensions" (which -v prints, and nothing else reports: h5diff
# compares current dimensions only). Prints what differs.
h5diff_judge() {
  local nat=$1 st=$2 log=$3
  shift 3
  local copy="$log.native-copy"
  cp -a "$nat" "$copy"
  local rc=0 brc=0
  conn h5diff -c -v "$@" "$nat" "$copy" >"$log.base" 2>&1 || brc=$?
  conn h5diff -c -v "$@" "$nat" "$st" >"$log" 2>&1 || rc=$?
  rm -rf "$copy"
  # the lines that judge, with the two files' names taken out
  local pat='[Nn]ot comparable|Failed reading|[1-9][0-9]* differences? found|maximum dimensions|has max dimensions'
  local extra
  extra=$(comm -13 <(sed "s|$copy|FILE2|g; s|$nat|FILE1|g" "$log.base" | grep -E "$pat" | sort -u) \
    <(sed "s|$st|FILE2|g; s|$nat|FILE1|g" "$log" | grep -E "$pat" | sort -u))
  if [ "$rc" != 0 ] || [ -n "$extra" ]; then
    echo "h5diff rc $rc (native vs its copy: rc $brc): $(echo "${extra:-$(grep -v '^$' "$log" | head -n 3)}" | tr '\n' ' ')"
    return 1
  fi
}
