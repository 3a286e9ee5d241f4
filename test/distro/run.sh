#!/usr/bin/env bash
# The distribution stage: the connector meets the HDF5, netCDF-C and tools Debian trixie
# ships, in a Debian trixie root (scripts/setup-distro.sh makes it once, cached).
#   test/distro/run.sh
# Copies the clone (what `git ls-files -co --exclude-standard` lists) into ROOT/src afresh,
# then runs, inside the root (test/distro/inside.sh):
#   build    README's plain build and install; the HDF5 finder each way alone, -Werror with
#            gcc 14, and the HDF5s it must refuse (build.sh)
#   tools    each tool writes the same data natively and through the connector; h5diff of
#            the two; ncdump of the store by URL (tools.sh)
#   reopen   what each tool does with a store's name and URL, as measured (reopen.sh)
#   gdal     GDAL writing a store through the connector (gdal.sh)
#   corpus   h5repack of HDF5's tool test files and PyTables' test files into stores (corpus.sh)
# Prints a table of results; exits non-zero on any failure. Nothing is skipped: a missing
# tool or file is a failure. No standard input is read.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
# shellcheck source=chroot.sh
. "$here/chroot.sh"
CACHE="${VOL_NCZARR_CACHE:-$HOME/.cache/vol-nczarr}"

ROOT=$("$src/scripts/setup-distro.sh" </dev/null | tail -n 1)
[ -f "$ROOT/.distro-stamp" ] || { echo "FAIL: no Debian trixie root at '$ROOT'"; exit 1; }

# The clone, fresh: tracked and untracked-but-not-ignored files (a file deleted in the work
# tree but still tracked is left out), never the host's build dirs.
distro_sudo rm -rf --one-file-system "$ROOT/src"
distro_sudo mkdir -p "$ROOT/src"
(cd "$src" && git ls-files -co --exclude-standard -z |
  while IFS= read -r -d '' f; do { [ -e "$f" ] || [ -L "$f" ]; } && printf '%s\0' "$f"; done |
  tar --null -T - -cf -) | distro_sudo tar -xf - -C "$ROOT/src"

# The work dir, under the root's /tmp (what the tools write lands there); the last run's
# is removed, this one is kept until the next run for a look after a failure.
distro_sudo sh -c 'rm -rf --one-file-system "$1"/tmp/distro-run.*' sh "$ROOT"
W=$(distro_sudo mktemp -d "$ROOT/tmp/distro-run.XXXXXX")
WIN=${W#"$ROOT"} # the same dir, as the root sees it
# HDF5's tool test files (from the dependency prefix's HDF5 source), for the h5repack corpus
tf="${VOL_NCZARR_DEPS:-$CACHE/deps}/share/hdf5-tool-testfiles"
[ -d "$tf" ] || { echo "FAIL: no HDF5 tool test files in $tf (scripts/setup-deps.sh unpacks them)"; exit 1; }
distro_sudo cp -a "$tf" "$W/hdf5-tool-testfiles"

rc=0
distro_in "$ROOT" -- bash /src/test/distro/inside.sh "$WIN" || rc=$?
echo "(work dir: $W)"
exit "$rc"
