#!/usr/bin/env bash
# Start-up and one-SMP cost: `smpquery nodeinfo LID` run N times (default
# 200) with the reference and with ibtool, interleaved (in alternating
# order) in the same run on the same simulated fabric; prints both times and
# the ratio ibtool/reference.
# It also counts the instructions of one run of each (valgrind's callgrind;
# scripts/install-deps.sh installs it): the figure that does not depend on
# the machine's load, the one docs/performance.md gives.
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
"$ibtool" smpquery nodeinfo $lid >/dev/null 2>"$dir/ours.err" || { echo "ibtool smpquery failed:" >&2; cat "$dir/ours.err" >&2; exit 1; }
# Wall time from $EPOCHREALTIME and the CPU time (user + sys) of each run
# from the shell's children times (`times`): both without forking anything
# but the tools, so that nothing else is counted.  On a loaded machine the
# wall time mostly measures waiting for a CPU; the CPU time is steadier.
cpu_ms=0
child_cpu() {  # sets cpu_ms: the children's user + sys so far, in ms
  local u s
  times >"$dir/times"
  { read -r _ _; read -r u s; } <"$dir/times"
  cpu_ms=$(($(tms "$u") + $(tms "$s")))
}
tms() { local m=${1%%m*} x=${1#*m}; x=${x%s}; echo $((10#$m * 60000 + 10#${x/./})); }
# One timed run of a tool; adds its wall and CPU time to the named totals.
timed() {  # timed WALL_VAR CPU_VAR COMMAND...
  local wall=$1 cpu=$2 t0 t1 c0
  shift 2
  child_cpu; c0=$cpu_ms; t0=${EPOCHREALTIME/[.,]/}
  "$@" nodeinfo $lid >/dev/null 2>&1
  t1=${EPOCHREALTIME/[.,]/}; child_cpu
  eval "$wall=\$(($wall + 10#$t1 - 10#$t0)); $cpu=\$(($cpu + cpu_ms - c0))"
}
# The tool that runs second in a pair waits for ibsim to finish with the
# first one's client (swapping the order swapped a 1.18 wall ratio into
# 0.89), so the order alternates: each tool runs first in half the pairs.
ref_us=0; ours_us=0; ref_cpu=0; ours_cpu=0
for ((i = 0; i < n; i++)); do
  if ((i % 2 == 0)); then
    timed ref_us ref_cpu smpquery
    timed ours_us ours_cpu "$ibtool" smpquery
  else
    timed ours_us ours_cpu "$ibtool" smpquery
    timed ref_us ref_cpu smpquery
  fi
  rm -rf "$dir"/sys-* 2>/dev/null || true
done
awk -v r="$ref_us" -v o="$ours_us" -v rc="$ref_cpu" -v oc="$ours_cpu" -v n="$n" 'BEGIN {
  printf "reference smpquery: %.2f ms per run\nibtool smpquery:    %.2f ms per run\nratio ibtool/reference: %.3f\n",
         r / n / 1e3, o / n / 1e3, o / r
  if (rc > 0)
    printf "CPU (user+sys) per run: reference %.2f ms, ibtool %.2f ms, ratio %.3f\n", rc / n, oc / n, oc / rc }'
if ! command -v valgrind >/dev/null; then
  echo "no instruction count: valgrind is not installed (scripts/install-deps.sh installs it)" >&2
else
  instr() { valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" nodeinfo $lid 2>&1 >/dev/null |
            awk '/Collected :/ { print $NF }'; }
  ref_ir=$(instr smpquery || true); ours_ir=$(instr "$ibtool" smpquery || true)
  rm -rf "$dir"/sys-* 2>/dev/null || true
  if [ -n "$ref_ir" ] && [ -n "$ours_ir" ]; then
    awk -v r="$ref_ir" -v o="$ours_ir" 'BEGIN {
      printf "instructions (callgrind, one run): reference %d, ibtool %d, ratio %.3f\n", r, o, o / r }'
  fi
fi
