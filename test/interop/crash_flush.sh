#!/usr/bin/env bash
# A writer killed with SIGKILL in the middle of a flush leaves a store whose every metadata
# object is the previous one or the new one, whole: crash_writer rewrites the .zattrs of
# 221 objects per flush (the directory store syncs the whole file system twice) or of 23
# (it syncs each object and directory), and is killed at random moments, ten times over the
# same store each.
# After each kill: every .zgroup/.zarray/.zattrs parses (Python's json), each object's
# "gen" is the last completed generation or one being written after it, ncdump (netCDF-C's
# own NCZarr reader) and h5dump (through the connector) read the store, and the writer
# continues from it.
set -euo pipefail
: "${NCZARR_BUILD:?}" "${NCZARR_PREFIX:?}"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/nczarr-crash.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
native=(env -u HDF5_VOL_CONNECTOR -u HDF5_PLUGIN_PATH LD_PRELOAD=)
netcdf=(env -u HDF5_VOL_CONNECTOR "HDF5_PLUGIN_PATH=$NCZARR_PREFIX/lib/plugin" LD_PRELOAD=)
writer="$NCZARR_BUILD/test/interop_crash_writer"
kills=0 torn=0
for ngroups in 20 2; do
store=$tmp/s$ngroups.zarr
"$writer" "$store" 1 "$ngroups" >/dev/null
[ -f "$store/g00/v00/.zarray" ] || { echo "FAIL: the connector did not write a Zarr store"; exit 1; }
floor=1 # the last generation known to be complete
for round in 1 2 3 4 5 6 7 8 9 10; do
  "$writer" "$store" 1000000 "$ngroups" >"$tmp/gens.txt" 2>"$tmp/err.txt" &
  pid=$!
  # a random moment: most land inside a flush (flushes take most of the writer's time)
  sleep "0.$((RANDOM % 9 + 1))$((RANDOM % 10))"
  kill -KILL "$pid" 2>/dev/null && kills=$((kills + 1))
  rc=0
  wait "$pid" 2>/dev/null || rc=$?
  # the writer must have been killed, not have stopped by itself (an error, or a store it
  # could not open because the connector did not load)
  [ "$rc" = 137 ] || { cat "$tmp/err.txt"; echo "FAIL: round $round: the writer exited by itself ($rc)"; torn=1; }
  last=$(tail -n 1 "$tmp/gens.txt" || true)
  [ -n "$last" ] && floor=$last
  "${native[@]}" /usr/bin/python3 - "$store" "$floor" <<'PY' || { torn=1; echo "FAIL: round $round"; }
import json, os, sys
store, done = sys.argv[1], int(sys.argv[2])
gens = set()
for d, _, files in os.walk(store):
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
print(f"round ok: generations {sorted(gens)} after generation {done} completed")
PY
  "${netcdf[@]}" "$NCZARR_PREFIX/bin/ncdump" -h "file://$store#mode=nczarr,file" >"$tmp/cdl.txt" 2>&1 ||
    { cat "$tmp/cdl.txt"; echo "FAIL: ncdump cannot read the store after a kill"; torn=1; }
  "$NCZARR_PREFIX/bin/h5dump" -A "$store" >"$tmp/ddl.txt" 2>&1 ||
    { tail -n 20 "$tmp/ddl.txt"; echo "FAIL: h5dump cannot read the store after a kill"; torn=1; }
done
# the store is still writable: one more complete generation
"$writer" "$store" 1 "$ngroups" >/dev/null || { echo "FAIL: the writer cannot continue the store"; torn=1; }
done
[ "$torn" = 0 ] || exit 1
echo "crash_flush: ok ($kills kills)"
