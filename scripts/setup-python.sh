#!/usr/bin/env bash
# Makes the zarr-python 3 peer of the tests: a virtual environment of Debian's python3 in the
# cache prefix (<VOL_NCZARR_CACHE or ~/.cache/vol-nczarr>/venv) holding the pins of
# scripts/requirements-zarr3.txt from PyPI, h5py and PyTables built from source against the dependency
# prefix (VOL_NCZARR_DEPS, default <cache>/deps). An environment whose installed versions equal the
# pins is reused; any other is made again. Prints the environment's python on its last line
# of stdout. scripts/setup-deps.sh calls it; it also runs alone (it never reads stdin).
set -euo pipefail

CACHE="${VOL_NCZARR_CACHE:-$HOME/.cache/vol-nczarr}"
VENV="$CACHE/venv"
# the HDF5 h5py is built against: the dependency prefix of scripts/setup-deps.sh
DEPS="${VOL_NCZARR_DEPS:-$CACHE/deps}"
REQS="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/requirements-zarr3.txt"
log() { echo "[setup-python] $*" >&2; }

# The pins as "name==version" lines (comments and blanks dropped), sorted.
pins() { sed -e 's/#.*//' -e 's/[[:space:]]//g' "$REQS" | grep -v '^$' | sort; }

# True when $VENV's python imports nothing but the pinned versions of the pinned packages.
venv_matches() {
  [ -x "$VENV/bin/python" ] || return 1
  local want have
  want=$(pins)
  have=$("$VENV/bin/python" - "$REQS" </dev/null 2>/dev/null <<'PY'
import sys, re
from importlib import metadata
for line in open(sys.argv[1]):
    line = line.split("#", 1)[0].strip()
    if not line:
        continue
    name = re.split(r"[=<>!~ ]", line, 1)[0]
    try:
        print(f"{name}=={metadata.version(name)}")
    except metadata.PackageNotFoundError:
        print(f"{name}==missing")
PY
) || return 1
  [ "$(printf '%s\n' "$have" | sort)" = "$want" ] || return 1
  # h5py and PyTables must use the prefix's HDF5 (a wheel brings its own, which the
  # connector's plugin, built against the prefix's, cannot share objects with)
  local so
  for m in h5py._errors tables.hdf5extension; do
    so=$("$VENV/bin/python" -c "import $m as e; print(e.__file__)" </dev/null 2>/dev/null) || return 1
    # (grep without -q: it would stop reading, and pipefail would see ldd's SIGPIPE)
    ldd "$so" | grep "$DEPS/lib/libhdf5\.so" >/dev/null || return 1
  done
}

setup_python_venv() {
  [ -f "$REQS" ] || { log "missing $REQS"; return 1; }
  if venv_matches; then
    log "zarr-python 3 environment is current: $VENV"
  else
    [ -e "$VENV" ] && log "environment at $VENV does not match $REQS: making it again"
    rm -rf "$VENV"
    mkdir -p "$CACHE"
    log "making $VENV ($(pins | tr '\n' ' '))"
    /usr/bin/python3 -m venv "$VENV" </dev/null >&2
    [ -f "$DEPS/include/hdf5.h" ] || { log "no HDF5 in $DEPS to build h5py against (run scripts/setup-deps.sh)"; return 1; }
    # PyTables' build (isolated) takes the pinned blosc2 too (PIP_CONSTRAINT), and its
    # extensions find the prefix's HDF5 by their RUNPATH, as h5py's do by setup.py's
    local cons="$CACHE/venv-constraints.txt"
    grep -E '^blosc2==' "$REQS" >"$cons"
    HDF5_DIR="$DEPS" PIP_CONSTRAINT="$cons" LDFLAGS="-Wl,-rpath,$DEPS/lib" \
      "$VENV/bin/python" -m pip install --no-input --disable-pip-version-check -q \
      --no-binary h5py,tables -r "$REQS" </dev/null >&2
    venv_matches || { log "installed versions in $VENV do not match $REQS"; return 1; }
  fi
  echo "$VENV/bin/python"
}

setup_python_venv
