#!/usr/bin/env bash
# Start-up and one-SMP cost: `smpquery nodeinfo LID` run N times (default
# 200) with the reference and with ibtool, interleaved in the same run on
# the same simulated fabric; prints both times and the ratio ibtool/reference.
# When valgrind is installed it also counts the instructions of one run of
# each (callgrind): a check that does not depend on the machine's load.
#
#   bench/smpquery_bench.sh [IBTOOL] [N] [TOPOFILE]
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
ibtool=${1:-$here/build/ibtool}
n=${2:-200}
topo=${3:-}
[ -x "$ibtool" ] || { echo "no ibtool at $ibtool (build first or pass its path)" >&2; exit 1; }
dir=$(mktemp -d /tmp/smpquery-bench-XXXXXX)
trap '"$here/scripts/fabric.sh" stop "$dir" >/dev/null 2>&1 || true' EXIT
if [ -z "$topo" ]; then
  topo=$dir/bench.net
  printf 'Hca 2 "bench host"\n[1] "bench switch"[1]\n\nSwitch 8 "bench switch"\n[1] "bench host"[1]\n[2] "other host"[1]\n\nHca 2 "other host"\n[1] "bench switch"[2]\n' >"$topo"
fi
"$here/scripts/fabric.sh" start "$topo" "$dir" >/dev/null
eval "$("$here/scripts/fabric.sh" env "$dir")"
cd "$dir"
lid=2
# Both must work before timing.
smpquery nodeinfo $lid >/dev/null 2>&1 || { echo "reference smpquery failed" >&2; exit 1; }
"$ibtool" smpquery nodeinfo $lid >/dev/null 2>&1 || { echo "ibtool smpquery failed" >&2; exit 1; }
ref_ns=0; ours_ns=0
for ((i = 0; i < n; i++)); do
  t0=$(date +%s%N); smpquery nodeinfo $lid >/dev/null 2>&1; t1=$(date +%s%N)
  "$ibtool" smpquery nodeinfo $lid >/dev/null 2>&1; t2=$(date +%s%N)
  ref_ns=$((ref_ns + t1 - t0)); ours_ns=$((ours_ns + t2 - t1))
  rm -rf "$dir"/sys-* 2>/dev/null || true
done
awk -v r="$ref_ns" -v o="$ours_ns" -v n="$n" 'BEGIN {
  printf "reference smpquery: %.2f ms per run\nibtool smpquery:    %.2f ms per run\nratio ibtool/reference: %.3f\n",
         r / n / 1e6, o / n / 1e6, o / r }'
if command -v valgrind >/dev/null; then
  instr() { valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" nodeinfo $lid 2>&1 >/dev/null |
            awk '/Collected :/ { print $NF }'; }
  ref_ir=$(instr smpquery || true); ours_ir=$(instr "$ibtool" smpquery || true)
  rm -rf "$dir"/sys-* 2>/dev/null || true
  if [ -n "$ref_ir" ] && [ -n "$ours_ir" ]; then
    awk -v r="$ref_ir" -v o="$ours_ir" 'BEGIN {
      printf "instructions (callgrind, one run): reference %d, ibtool %d, ratio %.3f\n", r, o, o / r }'
  fi
fi
