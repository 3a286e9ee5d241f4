# shellcheck shell=bash
# Running a command inside the Debian trixie root (source this after `set -euo pipefail`).
#
#   distro_sudo CMD...            CMD as root (sudo when we are not root)
#   distro_in ROOT [VAR=VAL...] -- CMD...
#                                 CMD inside ROOT: a private mount namespace (so nothing
#                                 mounted here outlives the command or shows on the host),
#                                 /proc and a /dev/shm tmpfs mounted in it, a clean
#                                 environment (the host's PATH, LD_* and HDF5_* must not leak
#                                 in) plus the VAR=VAL given, no standard input.

distro_sudo() {
  if [ "$(id -u)" = 0 ]; then "$@"; else sudo -n "$@"; fi
}

distro_in() {
  local root=$1
  shift
  local envs=()
  while [ $# -gt 0 ] && [ "$1" != -- ]; do envs+=("$1"); shift; done
  [ "${1:-}" = -- ] && shift
  # unshare's default propagation for --mount is private: the mounts below stay in it
  distro_sudo unshare --mount --fork sh -c '
    r=$1; shift
    mount -t proc proc "$r/proc" && mount -t tmpfs -o mode=1777 shm "$r/dev/shm" || exit 125
    exec chroot "$r" "$@"' sh "$root" \
    env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
    LANG=C.UTF-8 LC_ALL=C.UTF-8 TMPDIR=/tmp DEBIAN_FRONTEND=noninteractive "${envs[@]}" "$@" </dev/null
}
