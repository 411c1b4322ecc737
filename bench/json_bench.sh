#!/usr/bin/env bash
# --json against the text output of the same command, on one simulated fat
# tree: ibnetdiscover, iblinkinfo, dump_fts and ibqueryerrors, each run as
# text and with --json, interleaved; and one exporter scrape (--once)
# against its MAD floor: its MADs at the CPU a MAD costs the test bed in
# ibqueryerrors' run (target 1.15x; its time against ibqueryerrors' is
# printed too).  Prints wall time, peak RSS and the
# JSON/text ratios of both (and each run's own CPU time, user + system,
# which the machine's load disturbs less than wall time), checks each document parses (python3's json;
# dump_fts' 12M entries are counted against the text's rows instead of
# being loaded) and flags a ratio above the targets (time 1.3x, memory 2x).
#
#   bench/json_bench.sh [BUILD_DIR] [K]      (defaults: build 32)
#
# Environment: REPS=N runs of each (default 1: the k=32 runs are CPU
# heavy; the table shows the fastest); CMDS="..." the commands to compare
# (default all four; the exporter needs ibqueryerrors among them); FABRIC=DIR uses a fabric already
# started with scripts/fabric.sh (left running).  Exits non-zero when a run
# fails, a document does not parse or a target is missed.
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$here/build}" && pwd)
k=${2:-32}
reps=${REPS:-1}
. "$here/bench/lib.sh"
bench_fabric json-bench "$k"

declare -A WALL RSS CPU SIM
measure() {  # measure NAME CMD...: stdout to NAME.out; keeps the fastest run
  local name=$1 w m
  shift
  local rc=0 t0 t1
  t0=$(sim_ticks)
  /usr/bin/time -f '%e %M %U %S' -o "$name.time" "$@" > "$name.out.new" 2> "$name.err" || rc=$?
  # (ibqueryerrors exits 1 when it reports errors: a result, not a failure)
  if [ "$rc" -ne 0 ] && ! { [ "$rc" -eq 1 ] && [ "$2" = ibqueryerrors ]; }; then
    echo "$name failed ($rc):"; tail -5 "$name.err"; exit 1
  fi
  t1=$(sim_ticks)
  read -r w m u s < <(tail -1 "$name.time")
  if [ -z "${WALL[$name]:-}" ] || awk -v x="$w" -v y="${WALL[$name]}" 'BEGIN { exit !(x < y) }'; then
    WALL[$name]=$w
    RSS[$name]=$m
    CPU[$name]=$(awk -v u="$u" -v s="$s" 'BEGIN { printf "%.2f", u + s }')
    SIM[$name]=$(awk -v a="$t0" -v b="$t1" -v h="$hz" 'BEGIN { printf "%.2f", (b - a) / h }')
    mv "$name.out.new" "$name.out"
  else
    rm -f "$name.out.new"
  fi
}

read -r -a cmds <<< "${CMDS:-ibnetdiscover iblinkinfo dump_fts ibqueryerrors}"
for _ in $(seq "$reps"); do
  for c in "${cmds[@]}"; do
    measure "$c" "$ibtool" "$c"
    measure "$c.json" "$ibtool" "$c" --json
  done
  [[ " ${cmds[*]} " == *" ibqueryerrors "* ]] && measure exporter "$ibtool" exporter --once
done

status=0
printf '\n%-15s %9s %9s %7s %12s %12s %7s %11s %9s\n' command text_s json_s time text_rss_kB json_rss_kB rss json_MB cpu_s
for c in "${cmds[@]}"; do
  t=$(awk -v a="${WALL[$c.json]}" -v b="${WALL[$c]}" 'BEGIN { printf "%.2fx", a / (b > 0 ? b : 0.01) }')
  m=$(awk -v a="${RSS[$c.json]}" -v b="${RSS[$c]}" 'BEGIN { printf "%.2fx", a / b }')
  mb=$(awk -v s="$(stat -c %s "$c.json.out")" 'BEGIN { printf "%.1f", s / 1e6 }')
  printf '%-15s %9s %9s %7s %12s %12s %7s %11s %9s\n' "$c" "${WALL[$c]}" "${WALL[$c.json]}" "$t" "${RSS[$c]}" \
    "${RSS[$c.json]}" "$m" "$mb" "${CPU[$c]}/${CPU[$c.json]}"
  awk -v t="${t%x}" -v m="${m%x}" 'BEGIN { exit !(t > 1.3 || m > 2.0) }' && { echo "  $c: target missed"; status=1; }
done

if [ -n "${WALL[exporter]:-}" ]; then
t=$(awk -v a="${WALL[exporter]}" -v b="${WALL[ibqueryerrors]}" 'BEGIN { printf "%.2f", a / b }')
scalar() { grep "^$1 " exporter.out | cut -d' ' -f2; }
# ibqueryerrors' MAD count (its -v line; a run of its own, not timed)
qe_mads=$("$ibtool" ibqueryerrors -v 2>&1 >/dev/null | sed -n 's/.* \([0-9]*\) MADs in all.*/\1/p' | tail -1)
ex_mads=$(scalar ib_scrape_mads)
echo "exporter --once: ${WALL[exporter]} s (own CPU ${CPU[exporter]} s), ${RSS[exporter]} kB, ${t}x ibqueryerrors' time" \
  "($(grep -c '^ib_port_symbol_error_total' exporter.out) ports;" \
  "$(du -m exporter.out | cut -f1) MB of text)"
echo "  MADs: exporter $ex_mads, ibqueryerrors ${qe_mads:-?}" \
  "$(awk -v a="$ex_mads" -v b="${qe_mads:-0}" 'BEGIN { if (b > 0) printf "(%.2fx)", a / b }');" \
  "exporter PM: $(scalar ib_scrape_pm_class_port_infos) ClassPortInfo," \
  "$(scalar ib_scrape_pm_all_port_sums) AllPortSelect sums ($(scalar ib_scrape_pm_clean_sums) clean)," \
  "$(scalar ib_scrape_pm_port_counters_reads) PortCounters," \
  "$(scalar ib_scrape_pm_port_counters_ext_reads) PortCountersExtended"
# The CPU a run costs the whole test bed (its own + ibsim + OpenSM), per MAD:
# under the simulator that, not the wire, is what a MAD costs.
if [ -n "$qe_mads" ]; then
  awk -v ec="${CPU[exporter]}" -v es="${SIM[exporter]}" -v qc="${CPU[ibqueryerrors]}" -v qs="${SIM[ibqueryerrors]}" \
    -v em="$ex_mads" -v qm="$qe_mads" 'BEGIN {
      e = ec + es; q = qc + qs
      printf "  CPU (own + ibsim + OpenSM): exporter %.2f s, ibqueryerrors %.2f s (%.2fx); %.1f us per MAD in ibqueryerrors,", e, q, e / q, q / qm * 1e6
      printf " %.1f in the exporter\n", e / em * 1e6
      # The scrape'"'"'s floor: its own MADs (no fewer can read every
      # counter, pmscrape.h) at what a MAD costs in ibqueryerrors'"'"' run.
      floor = em * q / qm
      printf "  MAD floor: the scrape'"'"'s %d MADs at %.1f us each = %.2f s; the scrape cost %.2f s: %.2fx its floor (target 1.15x)\n", em, q / qm * 1e6, floor, e, e / floor
      exit (e / floor > 1.15) }' || { echo "  exporter: target missed (1.15x its MAD floor)"; status=1; }
else
  echo "  exporter: no MAD count from ibqueryerrors -v: no floor"; status=1
fi
fi

# The documents: one each, parsed; dump_fts' entries against the text rows.
for c in "${cmds[@]}"; do
  [ "$c" = dump_fts ] && continue
  python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$c.json.out" || { echo "$c: not JSON"; status=1; }
done
if [ -f dump_fts.out ]; then
rows=$(grep -c '^0x' dump_fts.out || true)
entries=$(grep -o '"LID":[0-9]*,"port"' dump_fts.json.out | wc -l)
echo "dump_fts: $rows text rows, $entries JSON entries"
[ "$rows" = "$entries" ] || status=1
fi
echo "(fastest of $reps runs; time and rss = JSON run / text run; targets 1.3x and 2x; cpu_s = text/JSON" \
  "own CPU of the fastest runs; load: $(uptime | sed 's/.*average: //'))"
exit $status
