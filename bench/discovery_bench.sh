#!/usr/bin/env bash
# Discovery benchmark: ibtool ibnetdiscover against the reference
# (infiniband-diags' ibnetdiscover, default and -o 128) on one simulated
# fat tree.  Checks the outputs agree (modulo the timestamp and MAD count
# lines), prints wall times and their ratios, peak RSS, and MAD counts
# against the minimum a complete SMP discovery needs.
#
#   bench/discovery_bench.sh [BUILD_DIR] [K]      (defaults: build 32)
#
# K=32 is 9472 nodes (1280 switches, 8192 hosts); starting that fabric
# (ibsim + OpenSM) takes about a minute.  Exits non-zero when the outputs
# differ or a run fails.
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$here/build}
k=${2:-32}
ibtool=$build/ibtool
topogen=$build/test/topogen
fabric=$here/scripts/fabric.sh
[ -x "$ibtool" ] || { echo "discovery_bench: no $ibtool (build first)" >&2; exit 2; }
[ -x "$topogen" ] || { echo "discovery_bench: no $topogen (build the tests)" >&2; exit 2; }

dir=$(mktemp -d /tmp/disc-bench.XXXXXX)
cleanup() { "$fabric" stop "$dir/fab" >/dev/null 2>&1 || true; rm -rf "$dir"; }
trap cleanup EXIT

"$topogen" fattree "$k" > "$dir/topo.net"
echo "fabric: fat tree k=$k, $("$topogen" size fattree "$k")"
t0=$(date +%s)
"$fabric" start "$dir/topo.net" "$dir/fab" 900 >/dev/null
echo "fabric up in $(( $(date +%s) - t0 )) s"
# OpenSM keeps ibsim busy for a while after SUBNET UP (sweeps, traps): wait
# until ibsim is idle (under 5% of a CPU over a second) so every run sees
# the same simulator.
ibsim_pid=$(cat "$dir/fab/ibsim.pid")
ticks() { awk '{print $14 + $15}' "/proc/$ibsim_pid/stat"; }
for _ in $(seq 300); do
  a=$(ticks); sleep 1; b=$(ticks)
  [ $((b - a)) -lt 5 ] && break
done
echo "fabric idle after $(( $(date +%s) - t0 )) s"
eval "$("$fabric" env "$dir/fab")"
cd "$dir"

# measure NAME OUTFILE CMD...: wall time (s) and peak RSS (kB, sampled from
# /proc every 10 ms; VmHWM only grows so the last sample is the peak).
declare -A WALL RSS
measure() {
  local name=$1 out=$2
  shift 2
  local s e pid hwm=0 v
  s=$(date +%s%N)
  "$@" > "$out" 2> "$out.err" &
  pid=$!
  while kill -0 "$pid" 2>/dev/null; do
    v=$(awk '/^VmHWM/ {print $2}' "/proc/$pid/status" 2>/dev/null || true)
    [ -n "$v" ] && hwm=$v
    sleep 0.01
  done
  wait "$pid" || { echo "$name failed:"; tail -5 "$out.err"; exit 1; }
  e=$(date +%s%N)
  WALL[$name]=$(awk -v a="$s" -v b="$e" 'BEGIN { printf "%.3f", (b - a) / 1e9 }')
  RSS[$name]=$hwm
}

measure ref_default ref_default.txt ibnetdiscover -m
measure ref_o128 ref_o128.txt ibnetdiscover -m -o 128
measure ibtool ibtool.txt "$ibtool" ibnetdiscover -m

strip() { grep -v -e '^# Topology file: generated on' -e '^# Total MADs used:' "$1"; }
status=0
for r in ref_default ref_o128; do
  if cmp -s <(strip $r.txt) <(strip ibtool.txt); then
    echo "output: ibtool == $r ($(wc -l < ibtool.txt) lines)"
  else
    echo "output: ibtool DIFFERS from $r:"
    diff <(strip $r.txt) <(strip ibtool.txt) | head -20
    status=1
  fi
done

mads() { awk '/^# Total MADs used:/ {print $5}' "$1"; }
# The minimum for a complete SMP discovery: NodeInfo of the start node and
# one probe per link (each finds a link, and every node but the first), a
# NodeDescription per node, SwitchInfo and PortInfo 0..N per switch, and
# PortInfo of every linked CA port.
minimum=$(awk '
  /^Switch\t/ { nodes++; sw++; pi += $2 + 1 }
  /^(Ca|Rt)\t/ { nodes++; ca = 1; next }
  /^(Switch|Ca|Rt)/ { ca = 0 }
  /^\[/ { ends++; if (ca) pi++ }
  /^$/ { ca = 0 }
  END { print 1 + ends / 2 + nodes + sw + pi }' ibtool.txt)

printf '\n%-12s %9s %9s %12s %10s\n' run wall_s ratio peak_rss_kB MADs
for r in ref_default ref_o128 ibtool; do
  ratio=$(awk -v a="${WALL[$r]}" -v b="${WALL[ibtool]}" 'BEGIN { printf "%.1fx", a / b }')
  printf '%-12s %9s %9s %12s %10s\n' "$r" "${WALL[$r]}" "$ratio" "${RSS[$r]}" "$(mads $r.txt)"
done
echo "minimum MADs for a complete discovery: $minimum"
echo "(ratio = that run's wall time / ibtool's; ibtool's MADs include resends)"
exit $status
