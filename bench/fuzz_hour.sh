#!/usr/bin/env bash
# Long fuzzing: builds the libFuzzer targets of test/fuzz (clang, ASan +
# UBSan) and runs each for its share of the time given (default one hour in
# all), one after another on one core, each growing its corpus in the build
# tree from the seeds and the regression inputs.  Prints, per target, the
# seconds run, executions, corpus size and coverage at the end, and any
# crash input libFuzzer saved (copy those into test/fuzz/regressions/<target>/
# once fixed).  Exits non-zero when a target crashed.
#
#   bench/fuzz_hour.sh [BUILD_DIR] [SECONDS]   (defaults: build-fuzz 3600)
#
# Environment: TARGETS="fuzz_cache fuzz_address" runs only those;
# JOBS=N runs N targets at once (default 1).
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$here/build-fuzz}
total=${2:-3600}
jobs=${JOBS:-1}
command -v clang++ >/dev/null || { echo "fuzz_hour: needs clang++ (scripts/install-deps.sh installs clang-14)" >&2; exit 2; }

CXX=${CXX:-clang++} CC=${CC:-clang} cmake -S "$here" -B "$build" -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_CXX_FLAGS_RELEASE=-O1 -DIBTOOL_FUZZ=ON >/dev/null
cmake --build "$build" -j"$(nproc)" --target fuzz_all >/dev/null

targets=${TARGETS:-$(cd "$here/test/fuzz" && ls fuzz_*.cpp | sed 's/\.cpp$//')}
n=$(echo $targets | wc -w)
per=$(( total / n ))
[ "$per" -ge 1 ] || per=1
logs=$build/fuzz-logs
mkdir -p "$logs"
echo "fuzz_hour: $n targets, ${per} s each, $jobs at a time; logs in $logs"

run_one() {
  local t=$1 work=$build/test/fuzz/corpus/$1 artifacts=$build/test/fuzz/crashes/$1/
  local inputs=("$here/test/fuzz/corpus/$t")
  [ -d "$here/test/fuzz/regressions/$t" ] && inputs+=("$here/test/fuzz/regressions/$t")
  mkdir -p "$work" "$artifacts"
  local start=$SECONDS rc=0
  "$build/test/fuzz/$t" -max_total_time="$per" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="$artifacts" "$work" "${inputs[@]}" >"$logs/$t.log" 2>&1 || rc=$?
  local execs cov
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$logs/$t.log" | tail -1)
  cov=$(grep -o 'cov: [0-9]*' "$logs/$t.log" | tail -1)
  printf '%-18s %5d s  %10s execs  corpus %5d  %-10s %s\n' "$t" $((SECONDS - start)) "${execs:-?}" \
    "$(ls "$work" | wc -l)" "${cov:-cov: ?}" "$([ $rc -eq 0 ] && echo ok || echo "CRASH (rc $rc): $(ls "$artifacts")")"
  return $rc
}

fail=0
running=0
for t in $targets; do
  run_one "$t" &
  running=$((running + 1))
  if [ "$running" -ge "$jobs" ]; then
    wait -n || fail=1
    running=$((running - 1))
  fi
done
while [ "$running" -gt 0 ]; do
  wait -n || fail=1
  running=$((running - 1))
done
exit $fail
