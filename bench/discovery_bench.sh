#!/usr/bin/env bash
# Discovery benchmark: ibtool against the reference (infiniband-diags) on
# one simulated fat tree, in one run: ibnetdiscover (the reference's default
# and -o 128), iblinkinfo and ibqueryerrors (full-fabric scans).  Checks the
# outputs agree, prints wall times and their ratios, peak RSS, the CPU time
# ibsim spent answering each run (the floor under umad2sim: every MAD goes
# through ibsim's socket) and OpenSM (the SA: ibqueryerrors' PathRecords),
# the tool's own CPU time, and MAD counts against the minimum a complete SMP
# discovery needs.
#
#   bench/discovery_bench.sh [BUILD_DIR] [K]      (defaults: build 32)
#
# Environment: REPS=N runs of each command, interleaved (default 3; the
# table shows the fastest, the least disturbed by other load); BASE=PATH
# another ibtool binary (an earlier build) whose ibnetdiscover runs
# interleaved with this one's (row "base", and this one's time against
# it); DISCOVER_ONLY=1 skips iblinkinfo and ibqueryerrors; FABRIC=DIR
# uses a fabric already started there with scripts/fabric.sh (left running)
# instead of starting one.  K=32 is 9472 nodes (1280 switches, 8192 hosts);
# starting that fabric (ibsim + OpenSM) takes a minute or more.  Exits
# non-zero when outputs differ or a run fails.
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$here/build}" && pwd)
k=${2:-32}
reps=${REPS:-3}
. "$here/bench/lib.sh"
bench_fabric disc-bench "$k"

# measure NAME CMD...: stdout to NAME.txt, stderr to NAME.err; keeps the
# fastest of the runs: wall time (s), peak RSS (kB, from rusage), the CPU
# time ibsim and OpenSM used meanwhile (s) and the tool's own (user +
# system, s).
declare -A WALL RSS SIM OSM CPU
measure() {
  local name=$1
  shift
  local a b oa ob w m u s
  a=$(ticks)
  oa=$(ticks "$opensm_pid")
  if ! /usr/bin/time -f '%e %M %U %S' -o "$name.time" "$@" > "$name.txt.new" 2> "$name.err"; then
    echo "$name failed:"; tail -5 "$name.err"; exit 1
  fi
  b=$(ticks)
  ob=$(ticks "$opensm_pid")
  read -r w m u s < "$name.time"
  if [ -z "${WALL[$name]:-}" ] || awk -v x="$w" -v y="${WALL[$name]}" 'BEGIN { exit !(x < y) }'; then
    WALL[$name]=$w
    RSS[$name]=$m
    SIM[$name]=$(awk -v t=$((b - a)) -v hz="$hz" 'BEGIN { printf "%.2f", t / hz }')
    OSM[$name]=$(awk -v t=$((ob - oa)) -v hz="$hz" 'BEGIN { printf "%.2f", t / hz }')
    CPU[$name]=$(awk -v u="$u" -v s="$s" 'BEGIN { printf "%.2f", u + s }')
    mv "$name.txt.new" "$name.txt"
  else
    rm -f "$name.txt.new"
  fi
}

base=${BASE:-}
for _ in $(seq "$reps"); do
  measure ref_default ibnetdiscover -m
  measure ref_o128 ibnetdiscover -m -o 128
  measure ibtool "$ibtool" ibnetdiscover -v -m
  [ -n "$base" ] && measure base "$base" ibnetdiscover -v -m
done
if [ -z "${DISCOVER_ONLY:-}" ]; then
  for _ in $(seq "$reps"); do
    measure ref_iblinkinfo iblinkinfo
    measure ibtool_iblinkinfo "$ibtool" iblinkinfo
  done
  for _ in $(seq "$reps"); do
    measure ref_ibqueryerrors ibqueryerrors
    measure ibtool_ibqueryerrors "$ibtool" ibqueryerrors -v
  done
fi

strip() { grep -v -e '^# Topology file: generated on' -e '^# Total MADs used:' "$1"; }
status=0
same() {  # same A B: outputs of runs A and B (stripped) agree
  if cmp -s <(strip "$1.txt") <(strip "$2.txt"); then
    echo "output: $2 == $1 ($(wc -l < "$2.txt") lines)"
  else
    echo "output: $2 DIFFERS from $1:"
    diff <(strip "$1.txt") <(strip "$2.txt") | head -20
    status=1
  fi
}
same ref_default ibtool
same ref_o128 ibtool
[ -n "$base" ] && same ref_default base
if [ -z "${DISCOVER_ONLY:-}" ]; then
  same ref_iblinkinfo ibtool_iblinkinfo
  same ref_ibqueryerrors ibtool_ibqueryerrors
fi

mads() { awk '/^# Total MADs used:/ {print $5}' "$1"; }
# ibtool's own count (resends included) from its -v line on stderr.
ibtool_mads=$(sed -n 's/^I: discovery: \([0-9]*\) MADs sent.*/\1/p' ibtool.err)
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

row() {  # row NAME BASE MADS: one line of the table; ratio = NAME's wall / BASE's
  local ratio
  ratio=$(awk -v a="${WALL[$1]}" -v b="${WALL[$2]}" 'BEGIN { printf "%.1fx", a / b }')
  printf '%-22s %8s %8s %12s %8s %11s %12s %10s\n' "$1" "${WALL[$1]}" "$ratio" "${RSS[$1]}" "${CPU[$1]}" "${SIM[$1]}" \
    "${OSM[$1]}" "$3"
}
printf '\n%-22s %8s %8s %12s %8s %11s %12s %10s\n' run wall_s ratio peak_rss_kB cpu_s ibsim_cpu_s opensm_cpu_s MADs
row ref_default ibtool "$(mads ref_default.txt)"
row ref_o128 ibtool "$(mads ref_o128.txt)"
row ibtool ibtool "$ibtool_mads"
[ -n "$base" ] && row base ibtool "$(sed -n 's/^I: discovery: \([0-9]*\) MADs sent.*/\1/p' base.err)"
if [ -z "${DISCOVER_ONLY:-}" ]; then
  row ref_iblinkinfo ibtool_iblinkinfo ""
  row ibtool_iblinkinfo ibtool_iblinkinfo ""
  row ref_ibqueryerrors ibtool_ibqueryerrors ""
  row ibtool_ibqueryerrors ibtool_ibqueryerrors \
    "$(sed -n 's/^I: ibqueryerrors: .* \([0-9]*\) MADs in all.*/\1/p' ibtool_ibqueryerrors.err)"
fi
echo "minimum MADs for a complete discovery: $minimum"
# The floor of ibnetdiscover's run on 2 cores: every MAD is worked on by the
# tool and by ibsim, so no run ends before (tool CPU + ibsim CPU) / 2.
awk -v w="${WALL[ibtool]}" -v c="${CPU[ibtool]}" -v s="${SIM[ibtool]}" \
  'BEGIN { f = (c + s) / 2; printf "ibnetdiscover against its floor (tool + ibsim CPU) / 2 = %.2f s: %.2fx\n", f, w / f }'
if [ -n "$base" ]; then
  awk -v w="${WALL[ibtool]}" -v b="${WALL[base]}" -v c="${CPU[base]}" -v s="${SIM[base]}" \
    'BEGIN { printf "ibnetdiscover against the base build in the same run: %.2fx (base against its floor: %.2fx)\n", w / b, b / ((c + s) / 2) }'
fi
echo "(fastest of $reps runs each; ratio = that run's wall time / ibtool's for the same command;"
echo " cpu_s = the tool's own CPU time (user + system, every thread);"
echo " ibsim_cpu_s = CPU time ibsim spent meanwhile, the floor of a run under umad2sim;"
echo " opensm_cpu_s = CPU time OpenSM spent meanwhile (answering SA queries);"
echo " the reference's MADs from its -m line, ibtool's from its -v line, resends included)"
exit $status
