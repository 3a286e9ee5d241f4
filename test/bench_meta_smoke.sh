#!/usr/bin/env bash
# bench_meta with 1000 objects and one run, so that the metadata benchmark does not rot:
# every case, in a directory under TMPDIR (on the development machine a disk, ext4 without
# a journal: there each run's stores are kept until the case ends, bench_retire.c, and
# each case waits inode_wait after their removal, 1 s here, not the minute a figure
# needs). It asserts that every row ran, the floors were timed and nothing was left
# behind, never a speed.
set -euo pipefail
bin=$1
dir=$(mktemp -d "${TMPDIR:-/tmp}/bench_meta_smoke.XXXXXX")
trap 'rm -rf "$dir"' EXIT
out=$("$bin" "$dir" 1000 1 all 1000 1)
printf '%s\n' "$out"
num='[0-9]+\.[0-9]+'
# the write rows of arrays and groups carry the three floors
[ "$(grep -cE "^(arrays|groups) +write +1000 +1 +$num +$num +$num +$num +$num +$num +$num\$" <<<"$out")" -eq 2 ]
[ "$(grep -cE "^(attrs|arrays\+cons) +write +1000 +1 +$num +$num +$num\$" <<<"$out")" -eq 2 ]
[ "$(grep -cE "^[a-z+]+ +open\+walk +1000 +1 +$num" <<<"$out")" -eq 4 ]
[ "$(grep -cE "^[a-z+]+ +walk\+open +1000 +1 +$num" <<<"$out")" -eq 3 ]
# every store and floor tree removed, held ones too
if [ -n "$(ls -A "$dir")" ]; then
  echo "bench_meta_smoke: left behind in $dir: $(ls -A "$dir")" >&2
  exit 1
fi
echo "bench_meta_smoke: ok"
