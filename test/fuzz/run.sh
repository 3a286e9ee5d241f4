#!/usr/bin/env bash
# Runs the libFuzzer targets of test/fuzz/ (a build with -DNCZARR_FUZZ=ON, clang):
#   test/fuzz/run.sh [--build DIR] [--time SECONDS] [--runs N] [--out DIR] [--jobs N] [TARGET...]
# Each target first replays its committed corpus (test/fuzz/corpus/TARGET: the seeds and
# every input that ever crashed it), then fuzzes for SECONDS (default 30; or until N
# executions, whichever comes first) from that corpus,
# with 1 GiB of memory and 1 s per input: an input that crashes, leaks, runs past 1 s or
# allocates past the limit is a finding. A finding fails the run and leaves its reproducer
# in OUT/findings/ (default: BUILD/fuzz-out); new inputs that found new coverage go to
# OUT/new/TARGET (merge them into the corpus with `-merge=1`, see docs/fuzzing.md). Prints one
# line per target: executions, coverage (edges), features and corpus size.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build="$root/build-fuzz"; secs=30; runs=-1; out=""; jobs=1; targets=()
while [ $# -gt 0 ]; do
  case "$1" in
    --build) build=$2; shift 2 ;;
    --time) secs=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --jobs) jobs=$2; shift 2 ;;
    -h|--help) sed -n 2,12p "$0"; exit 0 ;;
    *) targets+=("$1"); shift ;;
  esac
done
# absolute: each fuzzing run starts in the output folder
build=$(cd "$build" && pwd)
out=${out:-$build/fuzz-out}
mkdir -p "$out" && out=$(cd "$out" && pwd)
if [ ${#targets[@]} -eq 0 ]; then
  for f in "$here"/fuzz_*.c; do t=$(basename "$f" .c); targets+=("${t#fuzz_}"); done
fi
mkdir -p "$out/findings" "$out/logs"
# Leaks are findings; HDF5's own allocations that live until exit are not ours.
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=1:detect_odr_violation=0}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}"
# The stores a target writes for each input go to tmpfs where there is one.
export TMPDIR="${NCZARR_FUZZ_TMP:-$( [ -d /dev/shm ] && [ -w /dev/shm ] && echo /dev/shm || echo /tmp)}"
failed=0
for t in "${targets[@]}"; do
  exe="$build/test/fuzz/fuzz_$t"
  [ -x "$exe" ] || { echo "fuzz $t: no $exe (build with -DNCZARR_FUZZ=ON)" >&2; failed=1; continue; }
  corpus="$here/corpus/$t"; new="$out/new/$t"; log="$out/logs/$t.log"
  mkdir -p "$new"
  dict=(); [ -f "$here/dict/$t.dict" ] && dict=(-dict="$here/dict/$t.dict")
  opts=(-rss_limit_mb=1024 -malloc_limit_mb=1024 -timeout=1 "${dict[@]}"
    -artifact_prefix="$out/findings/$t-" -print_final_stats=1)
  # 1. every committed input once (a regression of any past crash fails here)
  if ! "$exe" "${opts[@]}" -runs=0 "$corpus" >"$log.replay" 2>&1; then
    echo "fuzz $t: FAILED replaying corpus/$t (log: $log.replay)"; tail -n 40 "$log.replay"; failed=1; continue
  fi
  # 2. fuzz from there for the time given
  if [ "$secs" -gt 0 ]; then
    # (-jobs runs each job in a process of its own, logging to fuzz-N.log in the current
    # directory: only asked for when there is more than one, from the output folder)
    par=(); [ "$jobs" -gt 1 ] && par=(-jobs="$jobs" -workers="$jobs")
    if ! (cd "$out/logs" && "$exe" "${opts[@]}" -max_total_time="$secs" -runs="$runs" "${par[@]}" "$new" "$corpus" \
        >"$log" 2>&1); then
      if grep -q "LeakSanitizer has encountered a fatal error" "$log"; then
        # the leak checker itself crashed (its unit is empty): not an input's fault, but a
        # run that could not check for leaks is not a pass either
        echo "fuzz $t: LEAK CHECKER FAILED (log: $log)"
        grep -m1 -B2 -A3 "LeakSanitizer has encountered" "$log"; failed=1; continue
      fi
      echo "fuzz $t: FINDING (log: $log; reproducer: $(ls "$out/findings/$t-"* 2>/dev/null | head -n 1))"
      grep -m1 -A30 "ERROR:\|==ERROR\|runtime error\|deadly signal\|timeout after\|out-of-memory" "$log" || tail -n 40 "$log"
      failed=1; continue
    fi
  fi
  logs=("$log.replay"); [ "$secs" -gt 0 ] && logs+=("$log")
  execs=$(cat "${logs[@]}" | awk '/stat::number_of_executed_units/ {s += $2} END {print s + 0}')
  # libFuzzer's last status line: "#N<TAB>DONE   cov: E ft: F corp: C/SIZE ..."
  last=$(cat "${logs[@]}" | awk '/^#[0-9]+[[:space:]]+(DONE|INITED)/ {l = $0} END {print l}')
  echo "fuzz $t: ok, $execs executions, $(echo "$last" | sed -E 's/^#[0-9]+[[:space:]]+[A-Z]+ +//; s/ +/ /g')"
done
exit $failed
