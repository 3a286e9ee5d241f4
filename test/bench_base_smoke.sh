#!/usr/bin/env bash
# bench/build_base.sh and bench_codecs' peer "base", so that measuring a change against an
# earlier commit does not rot: the connector of this clone's HEAD is built from git archive
# the way build_base.sh builds any commit's, then runs as "base" beside this build's
# connector on a small array, one run. It asserts that the build gave a connector, that
# both rows and their x base columns were printed, and nothing about speed.
#   bench_base_smoke.sh BENCH_CODECS BUILD_DIR
set -euo pipefail
bin=$1 build=$2
here=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/bench_base_smoke.XXXXXX")
trap 'rm -rf "$work"' EXIT
conn=$("$here/bench/build_base.sh" --build "$build" --out "$work/base" HEAD)
[ "$conn" = "$work/base/build/vol_connector" ] && [ -f "$conn/libnczarr_vol.so" ]
mkdir "$work/stores"
out=$("$bin" --dir "$work/stores" --mib 32 --runs 1 --cases raw --peers nczarr,base \
  --base-connector-dir "$conn" --settle 0 --inode-wait 1)
printf '%s\n' "$out"
grep -q "the connector from $conn (--base-connector-dir)" <<<"$out"
grep -qE ' w xbase +r xbase$' <<<"$out"
# each row: write, read, stored, then at the end its two ratios over base (1.00 for base)
grep -qE '^raw +nczarr +[0-9.]+ +[0-9.]+ .* [0-9]+\.[0-9]{2} +[0-9]+\.[0-9]{2}$' <<<"$out"
grep -qE '^ +base +[0-9.]+ +[0-9.]+ .* 1\.00 +1\.00$' <<<"$out"
if grep -q 'failed\[' <<<"$out"; then
  echo "bench_base_smoke: a row failed" >&2
  exit 1
fi
# a peer "base" without its connector is refused
if "$bin" --peers base --mib 32 2>/dev/null; then
  echo "bench_base_smoke: --peers base ran without --base-connector-dir" >&2
  exit 1
fi
echo "bench_base_smoke: ok"
