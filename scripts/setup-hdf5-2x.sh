#!/usr/bin/env bash
# An HDF5 2.x prefix for the build test test/install/hdf5_2x_build.sh, made once in the cache
# ($VOL_NCZARR_CACHE or ~/.cache/vol-nczarr, folder hdf5-2x) from two binary packages, since
# no Debian release the project builds on has HDF5 2.x and building it from source would
# take the dependency setup's time again:
#   include/  the headers of Debian sid's libhdf5-dev (2.x, serial; H5pubconf.h is among
#             them), through a private apt configuration: the system's apt sources are
#             never edited, nothing is installed (the package is only unpacked)
#   lib/      the libhdf5 that PyPI's h5py 3.16.0 wheel bundles (HDF5 2.0.0, the first 2.x
#             release), with the libraries it needs, and libhdf5.so/libhdf5_hl.so naming it:
#             a build linked here with --no-undefined proves that every HDF5 symbol the
#             connector imports exists in 2.0.0
# The headers are the newer release (sid moves on; 2.0.0's are not packaged): what they
# declare beyond 2.0.0 fails the link, which is the point of linking against 2.0.0.
# Idempotent: a complete prefix (its .stamp) is kept. Prints the prefix on its last line.
set -euo pipefail

CACHE="${VOL_NCZARR_CACHE:-$HOME/.cache/vol-nczarr}"
DIR="$CACHE/hdf5-2x"
H5PY_VERSION="3.16.0" # bundles libhdf5 2.0.0
STAMP_TEXT="deb=libhdf5-dev(sid) wheel=h5py==$H5PY_VERSION layout=v1"
log() { echo "[setup-hdf5-2x] $*" >&2; }

if [ -f "$DIR/.stamp" ] && [ "$(head -n1 "$DIR/.stamp")" = "$STAMP_TEXT" ] && [ -f "$DIR/include/H5pubconf.h" ] \
  && [ -e "$DIR/lib/libhdf5.so" ]; then
  log "HDF5 2.x prefix is current: $DIR ($(sed -n 2p "$DIR/.stamp"))"
  echo "$DIR"
  exit 0
fi

WORK="$DIR/work"
rm -rf "$DIR/include" "$DIR/lib" "$DIR/.stamp"
mkdir -p "$WORK/apt/sources.list.d" "$WORK/apt/lists/partial" "$WORK/apt/cache/archives/partial" "$WORK/deb" \
  "$WORK/wheel"

# Debian sid's headers: binary packages (Types: deb), this machine's architecture.
arch=$(dpkg --print-architecture)
rm -f "$WORK"/apt/sources.list.d/*
cat >"$WORK/apt/sources.list.d/debian-sid.sources" <<SRC
Types: deb
URIs: http://deb.debian.org/debian
Suites: sid
Components: main
Architectures: $arch
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
opts=(-o Dir::Etc::sourcelist=/dev/null -o "Dir::Etc::sourceparts=$WORK/apt/sources.list.d"
  -o "Dir::State::Lists=$WORK/apt/lists" -o "Dir::Cache=$WORK/apt/cache" -o APT::Sandbox::User=root)
if ! ls "$WORK"/deb/libhdf5-dev_*.deb >/dev/null 2>&1; then
  log "fetching Debian sid's libhdf5-dev (private apt configuration)"
  apt-get "${opts[@]}" update -qq >&2
  (cd "$WORK/deb" && apt-get "${opts[@]}" download libhdf5-dev >&2)
fi
deb=$(ls "$WORK"/deb/libhdf5-dev_*.deb | head -n1)
rm -rf "$WORK/deb/x"
dpkg-deb -x "$deb" "$WORK/deb/x"
src_inc="$WORK/deb/x/usr/include/hdf5/serial"
[ -f "$src_inc/H5public.h" ] && [ -f "$src_inc/H5pubconf.h" ] ||
  { log "no H5public.h/H5pubconf.h under $src_inc in $deb"; exit 1; }
major=$(sed -n 's/^#define H5_VERS_MAJOR[ \t]*\([0-9]*\).*/\1/p' "$src_inc/H5public.h")
[ "${major:-0}" -ge 2 ] || { log "$deb holds HDF5 major version '$major', not 2.x"; exit 1; }
# A serial build's headers include nothing but the C library's (mpi.h only with
# H5_HAVE_PARALLEL): nothing else to fetch.
if grep -q '^#define H5_HAVE_PARALLEL 1' "$src_inc/H5pubconf.h"; then
  log "$deb is a parallel build (its headers include mpi.h)"
  exit 1
fi
mkdir -p "$DIR/include"
cp "$src_inc"/*.h "$DIR/include/"

# h5py's manylinux wheel: its libhdf5 2.0.0 and what that needs (libsz, libaec), renamed by
# auditwheel (libhdf5-<hash>.so.320.0.0), found beside it through its RPATH $ORIGIN.
case "$(uname -m)" in
  x86_64) plat=manylinux_2_28_x86_64 ;;
  aarch64) plat=manylinux_2_28_aarch64 ;;
  *) log "no h5py wheel for $(uname -m)"; exit 1 ;;
esac
if ! ls "$WORK"/wheel/h5py-"$H5PY_VERSION"-*.whl >/dev/null 2>&1; then
  log "fetching h5py $H5PY_VERSION's wheel ($plat) from PyPI"
  py=""
  for p in python3 /usr/bin/python3 "$CACHE/venv/bin/python"; do
    if "$p" -m pip --version >/dev/null 2>&1; then
      py=$p
      break
    fi
  done
  [ -n "$py" ] || { log "no python3 with pip to fetch h5py's wheel (Debian: apt install python3-pip)"; exit 1; }
  "$py" -m pip download -q "h5py==$H5PY_VERSION" --no-deps --only-binary :all: --platform "$plat" \
    --python-version 3.11 --implementation cp -d "$WORK/wheel" >&2
fi
whl=$(ls "$WORK"/wheel/h5py-"$H5PY_VERSION"-*.whl | head -n1)
rm -rf "$WORK/wheel/x"
python3 -m zipfile -e "$whl" "$WORK/wheel/x"
mkdir -p "$DIR/lib"
cp "$WORK"/wheel/x/h5py.libs/*.so* "$DIR/lib/"
h5lib=$(cd "$DIR/lib" && ls libhdf5-*.so.* | head -n1)
h5hl=$(cd "$DIR/lib" && ls libhdf5_hl-*.so.* | head -n1)
[ -n "$h5lib" ] && [ -n "$h5hl" ] || { log "no libhdf5 in $whl"; exit 1; }
ln -sf "$h5lib" "$DIR/lib/libhdf5.so"
ln -sf "$h5hl" "$DIR/lib/libhdf5_hl.so"

# The prefix works: a program compiles with the headers, links with the library, and the
# library says which version it is.
cat >"$WORK/version.c" <<'C'
#include <hdf5.h>
#include <stdio.h>
int main(void)
{
    unsigned maj, min, rel;
    if (H5get_libversion(&maj, &min, &rel) < 0)
        return 1;
    printf("%u.%u.%u\n", maj, min, rel);
    return 0;
}
C
cc -std=c11 -o "$WORK/version" "$WORK/version.c" -I"$DIR/include" -L"$DIR/lib" -lhdf5 -Wl,-rpath,"$DIR/lib" >&2
libver=$("$WORK/version")
hver=$(sed -n 's/^#define H5_VERS_\(MAJOR\|MINOR\|RELEASE\)[ \t]*\([0-9]*\).*/\2/p' "$DIR/include/H5public.h" |
  paste -sd.)
case "$libver" in
  2.*) ;;
  *) log "the wheel's libhdf5 is $libver, not 2.x"; exit 1 ;;
esac
# What was unpacked is in the prefix now; the downloads stay, so that a new layout needs no network.
rm -rf "$WORK/deb/x" "$WORK/wheel/x" "$WORK/apt/lists"
printf '%s\n%s\n' "$STAMP_TEXT" "headers $hver ($(basename "$deb")), library $libver ($(basename "$whl"): $h5lib)" \
  >"$DIR/.stamp"
log "done: $DIR (headers $hver, library $libver)"
echo "$DIR"
