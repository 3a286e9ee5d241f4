#!/usr/bin/env bash
# Makes (once) a Debian trixie root with the HDF5, netCDF and tools the distribution ships,
# for the distribution test stage (test/distro/run.sh), and prints its path.
#   scripts/setup-distro.sh
# The root is $VOL_NCZARR_CACHE/distro-trixie (default ~/.cache/vol-nczarr/distro-trixie),
# beside the dependency prefix. It is made with debootstrap from Debian's own packages; its
# stamp file holds the suite, the mirror and the package lists, and a root whose stamp
# differs (a package added here) is made again from scratch. The host's apt sources are never
# touched: debootstrap and the root's apt use the root's own sources.list.
# Also kept in the root, for the finder's "too old" check: Debian 12's real HDF5 1.10.8
# development files (downloaded on the host with `apt-get download`, unpacked with dpkg -x,
# not installed), under /opt/debian12-hdf5.
# Needs root (sudo when not root): debootstrap, chroot and the mounts inside it.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../test/distro/chroot.sh
. "$here/../test/distro/chroot.sh"

CACHE="${VOL_NCZARR_CACHE:-$HOME/.cache/vol-nczarr}"
ROOT="$CACHE/distro-trixie"
SUITE=trixie
MIRROR=http://deb.debian.org/debian
# What the stage meets: the distribution's HDF5 (with its tools), netCDF-C and the programs
# users convert files with, the compilers for the Fortran programs, the build tools, and the
# connector's build dependencies (README "Using it from CMake"). python3-zarr is there so
# that xarray's zarr engine can be measured too.
PACKAGES=(libhdf5-dev hdf5-tools netcdf-bin nco cdo gdal-bin python3-netcdf4 python3-xarray
  python3-h5py python3-tables python3-zarr gfortran libnetcdff-dev cmake make gcc pkg-config
  libjansson-dev libzip-dev libcurl4-openssl-dev libxml2-dev libssl-dev zlib1g-dev libzstd-dev
  libbz2-dev liblz4-dev libblosc-dev libdeflate-dev)
# Debian 12's HDF5 (no VOL API): the library the headers name has to be there too, or the
# finder would stop at "no libhdf5" before it looks at the version.
OLD_HDF5=(libhdf5-dev=1.10.8+repack1-1 libhdf5-103-1=1.10.8+repack1-1 libhdf5-hl-100=1.10.8+repack1-1)

log() { echo "[setup-distro] $*" >&2; }
stamp_text() {
  printf 'suite=%s mirror=%s variant=minbase\npackages=%s\nold-hdf5=%s\n' \
    "$SUITE" "$MIRROR" "$(printf '%s\n' "${PACKAGES[@]}" | sort | tr '\n' ' ')" "${OLD_HDF5[*]}"
}

mkdir -p "$CACHE"
# one setup at a time (two test runs at once must not both build the root)
exec 9>"$CACHE/distro-trixie.lock"
flock 9

if [ -f "$ROOT/.distro-stamp" ] && [ "$(cat "$ROOT/.distro-stamp")" = "$(stamp_text)" ]; then
  echo "$ROOT"
  exit 0
fi

if ! command -v debootstrap >/dev/null 2>&1 && [ ! -x /usr/sbin/debootstrap ]; then
  log "installing debootstrap on the host"
  distro_sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap >&2 </dev/null ||
    { distro_sudo apt-get update -qq >&2 </dev/null &&
      distro_sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap >&2 </dev/null; }
fi
debootstrap=$(command -v debootstrap || echo /usr/sbin/debootstrap)

# Built beside the final place and moved there at the end, so that an interrupted setup
# never leaves a root that looks finished. --one-file-system: nothing mounted inside is
# followed (every mount is in a private namespace that is gone, but be safe).
new="$ROOT.new"
distro_sudo rm -rf --one-file-system "$new"
log "debootstrap $SUITE into $new (about a minute)"
distro_sudo "$debootstrap" --variant=minbase "$SUITE" "$new" "$MIRROR" >"$CACHE/distro-trixie.debootstrap.log" 2>&1 </dev/null ||
  { tail -n 30 "$CACHE/distro-trixie.debootstrap.log" >&2; log "debootstrap failed"; exit 1; }
distro_sudo cp /etc/resolv.conf "$new/etc/resolv.conf"
log "installing ${#PACKAGES[@]} packages in the root (a few minutes, about 2.4 GB)"
aptlog="$CACHE/distro-trixie.apt.log"
{ distro_in "$new" -- apt-get update -q &&
  distro_in "$new" -- apt-get install -y -q --no-install-recommends "${PACKAGES[@]}" &&
  distro_in "$new" -- apt-get clean; } >"$aptlog" 2>&1 ||
  { tail -n 30 "$aptlog" >&2; log "installing the packages failed (log: $aptlog)"; exit 1; }

log "Debian 12's HDF5 1.10.8 (apt-get download on the host, unpacked, not installed)"
debs="$CACHE/distro-debs"
mkdir -p "$debs"
if ! (cd "$debs" && apt-get download "${OLD_HDF5[@]}" >&2 2>"$debs/download.log" </dev/null); then
  # the host's package lists may be stale or missing
  distro_sudo apt-get update -qq >&2 </dev/null
  (cd "$debs" && apt-get download "${OLD_HDF5[@]}" >&2 </dev/null)
fi
distro_sudo mkdir -p "$new/opt/debian12-hdf5"
for p in "${OLD_HDF5[@]}"; do
  f=$(ls "$debs/${p%%=*}_"*.deb | head -n 1)
  distro_sudo dpkg -x "$f" "$new/opt/debian12-hdf5"
done

stamp_text | distro_sudo tee "$new/.distro-stamp" >/dev/null
distro_sudo rm -rf --one-file-system "$ROOT"
distro_sudo mv "$new" "$ROOT"
log "root ready: $ROOT ($(distro_sudo du -sh "$ROOT" | cut -f1))"
echo "$ROOT"
