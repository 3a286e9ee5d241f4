#!/usr/bin/env bash
# A writer killed with SIGKILL in the middle of a flush leaves a store whose every metadata
# object is the previous one or the new one, whole: crash_writer rewrites the .zattrs of
# 221 objects per flush (the directory store syncs the whole file system twice; it also makes
# a new group of 40 datasets, which the store writes as a new subtree renamed into place
# once) or of 23 (it syncs each object and directory), and is killed ten times over the
# same store each,
# every time inside a flush: it prints "flush G" before H5Fflush and G after, and the test
# kills it as soon as it reads "flush G" (after 0 to 9 ms more, so that kills land at
# different points of the flush); a kill that did not land between the two lines (the
# flush was done first) does not count, and the round is repeated.
# After each kill: every .zgroup/.zarray/.zattrs parses (Python's json), each object's
# "gen" is the last completed generation or the one being flushed, ncdump (netCDF-C's own
# NCZarr reader) and h5dump (through the connector) read the store, and the writer
# continues from it.
set -euo pipefail
: "${NCZARR_BUILD:?}" "${NCZARR_PREFIX:?}"
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../common/judge.sh"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/nczarr-crash.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
native=(env -u HDF5_VOL_CONNECTOR -u HDF5_PLUGIN_PATH LD_PRELOAD=)
writer="$NCZARR_BUILD/test/interop_crash_writer"
landed=0 missed=0 torn=0
for ngroups in 20 2; do
nnew=$([ "$ngroups" = 20 ] && echo 40 || echo 0)
store=$tmp/s$ngroups.zarr
"$writer" "$store" 1 "$ngroups" "$nnew" >/dev/null
assert_store "$store" "crash_writer" || exit 1
floor=1 # the last generation known to be complete
round=0 attempts=0
while [ "$round" -lt 10 ]; do
  attempts=$((attempts + 1))
  [ "$attempts" -le 40 ] || { echo "FAIL: $ngroups groups: only $round of 40 kills landed inside a flush"; exit 1; }
  rm -f "$tmp/out.fifo"
  mkfifo "$tmp/out.fifo"
  "$writer" "$store" 1000000 "$ngroups" "$nnew" >"$tmp/out.fifo" 2>"$tmp/err.txt" &
  pid=$!
  exec 3<"$tmp/out.fifo"
  : >"$tmp/gens.txt"
  skip=$((RANDOM % 3)) # kill in the first, second or third flush of this run
  while IFS= read -r line <&3; do
    echo "$line" >>"$tmp/gens.txt"
    case "$line" in
      "flush "*)
        if [ "$skip" -eq 0 ]; then
          sleep "0.00$((RANDOM % 10))"
          kill -KILL "$pid" 2>/dev/null || echo "(the writer had exited: its status follows)"
          break
        fi
        skip=$((skip - 1)) ;;
    esac
  done
  cat <&3 >>"$tmp/gens.txt" # what it printed before the kill arrived
  exec 3<&-
  rc=0
  wait "$pid" 2>/dev/null || rc=$?
  # the writer must have been killed, not have stopped by itself (an error, or a store it
  # could not open because the connector did not load)
  [ "$rc" = 137 ] || { cat "$tmp/gens.txt" "$tmp/err.txt"; echo "FAIL: the writer exited by itself ($rc)"; exit 1; }
  last=$(sed -n '/^[0-9][0-9]*$/h; ${x;p}' "$tmp/gens.txt")
  [ -n "$last" ] && floor=$last
  if ! tail -n 1 "$tmp/gens.txt" | grep -q '^flush '; then
    missed=$((missed + 1)) # the flush completed before the kill: not a kill inside a flush
  else
    round=$((round + 1))
    landed=$((landed + 1))
  fi
  "${native[@]}" /usr/bin/python3 - "$store" "$floor" <<'PY' || { torn=1; echo "FAIL: round $round"; }
import json, os, sys
store, done = sys.argv[1], int(sys.argv[2])
gens = set()
for d, dirs, files in os.walk(store):
    # a new subtree a kill left under its temporary name is no part of the store
    dirs[:] = [x for x in dirs if not x.startswith(".nczm-tmp")]
    rel = os.path.relpath(d, store).split(os.sep)
    if rel[0].startswith("new"):
        # a new group of generation n is there whole or not at all (one rename), and
        # keeps its generation
        n = int(rel[0][3:])
        if len(rel) == 1:
            arrays = [x for x in dirs if os.path.exists(os.path.join(d, x, ".zarray"))]
            if len(arrays) != 40 or len(dirs) != 40:
                sys.exit(f"{d}: {len(arrays)} whole arrays of 40 ({len(dirs)} directories)")
        for f in files:
            if f in (".zgroup", ".zarray", ".zattrs"):
                p = os.path.join(d, f)
                try:
                    j = json.load(open(p))
                except Exception as e:
                    sys.exit(f"torn object {p}: {e}")
                if f == ".zattrs" and j.get("gen") != n:
                    sys.exit(f"{p}: gen {j.get('gen')!r} in the new group of generation {n}")
        continue
    for f in files:
        if f in (".zgroup", ".zarray", ".zattrs", ".zmetadata"):
            p = os.path.join(d, f)
            try:
                j = json.load(open(p))
            except Exception as e:
                sys.exit(f"torn object {p}: {e}")
            if f == ".zattrs":
                g = j.get("gen")
                if not isinstance(g, int):
                    sys.exit(f"{p}: no integer gen: {g!r}")
                if not j.get("text", "").startswith(f"generation {g}:"):
                    sys.exit(f"{p}: text of another generation than gen {g}")
                gens.add(g)
# every object is at the last complete generation or at one being written after it (the
# writer continues from the root's generation, which may be one ahead of the rest)
if not gens or min(gens) < done or max(gens) > done + 2:
    sys.exit(f"generations {sorted(gens)} after generation {done} completed")
print(f"round ok: generations {sorted(gens)} after generation {done} completed"
      + (" (a flush cut in the middle)" if len(gens) > 1 else ""))
PY
  nc_native "$NCZARR_PREFIX/bin/ncdump" -h "file://$store#mode=nczarr,file" >"$tmp/cdl.txt" 2>&1 ||
    { cat "$tmp/cdl.txt"; echo "FAIL: ncdump cannot read the store after a kill"; torn=1; }
  "$NCZARR_PREFIX/bin/h5dump" -A "$store" >"$tmp/ddl.txt" 2>&1 ||
    { tail -n 20 "$tmp/ddl.txt"; echo "FAIL: h5dump cannot read the store after a kill"; torn=1; }
done
# the store is still writable: one more complete generation
"$writer" "$store" 1 "$ngroups" "$nnew" >/dev/null || { echo "FAIL: the writer cannot continue the store"; torn=1; }
done
[ "$torn" = 0 ] || exit 1
echo "crash_flush: ok ($landed kills inside a flush; $missed more landed after the flush and were repeated)"
