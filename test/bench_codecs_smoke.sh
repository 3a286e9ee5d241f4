#!/usr/bin/env bash
# bench_codecs with a small array and one run, so that the codec benchmark and its floors
# do not rot: Zarr v3 raw and zstd, unsharded and in shards, the caller's buffers 16 bytes
# into a page (the connector then reads raw chunks through its scratch). It asserts that
# every row ran, the floors were timed and nothing was left behind, never a speed. On ext4
# without a journal (bench_retire.c) removed stores are held until a case ends and each
# case waits --inode-wait after their removal: 1 s here, not the minute a figure needs.
set -euo pipefail
bin=$1
dir=$(mktemp -d "${TMPDIR:-/tmp}/bench_codecs_smoke.XXXXXX")
trap 'rm -rf "$dir"' EXIT
for shards in 0 2; do
  args=(--dir "$dir" --mib 32 --runs 1 --zarr-format 3 --cases raw,zstd --peers nczarr --floor yes
    --buffer-offset 16 --inode-wait 1)
  [ "$shards" -eq 0 ] || args+=(--shards "$shards")
  out=$("$bin" "${args[@]}")
  printf '%s\n' "$out"
  if grep -q 'failed\[' <<<"$out"; then
    echo "bench_codecs_smoke: a row failed (shards $shards)" >&2
    exit 1
  fi
  grep -q 'buffers start 16 bytes into a page' <<<"$out"
  # two connector rows and two floor rows, each with a read figure
  [ "$(grep -cE '^(raw|zstd) +nczarr +[0-9.]+ +[0-9.]+' <<<"$out")" -eq 2 ]
  [ "$(grep -cE '^ +floor +[0-9.-]+ +[0-9.]+' <<<"$out")" -eq 2 ]
  # every store removed, held ones too, and the bench's own directory
  if [ -n "$(ls -A "$dir")" ]; then
    echo "bench_codecs_smoke: left behind in $dir: $(ls -A "$dir")" >&2
    exit 1
  fi
done
echo "bench_codecs_smoke: ok"
