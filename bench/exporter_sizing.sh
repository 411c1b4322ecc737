#!/usr/bin/env bash
# The exporter's size at the scale of a big fabric (issue 29): on one
# simulated fat tree (k=32 by default: 49,152 ports), one `exporter --once`
# scrape for the default collectors, for each collector alone, and for
# every collector; for each, the series and bytes of the scrape, its wall
# time, and the MADs it sent (the scrape's own ib_scrape_mads: discovery
# included; the state collector's row is the discovery alone, so each PM
# collector's own cost is its row less that one).  Then the memory an idle
# Prometheus server (Debian's prometheus 2.42) needs to hold one scrape of
# the default set: the captured scrape is served as a static file, the
# server scrapes it a few times, and its RSS, Go heap in use and head
# series are read (against the same server scraping an empty target).
#
#   bench/exporter_sizing.sh [BUILD_DIR] [K]      (defaults: build 32)
#
# Environment: FABRIC=DIR uses a fabric already started with
# scripts/fabric.sh (left running); PROM=0 skips the Prometheus part;
# SCRAPES=N Prometheus scrapes to wait for (default 3) and INTERVAL=S
# seconds between them (default 30); EXTRA="..." more
# exporter arguments; ONLY="vl data ..." only those rows (and no
# Prometheus part unless the default row is among them).  A bench, not a test: run it by hand on a quiet
# machine (the k=32 run takes some minutes and a few GB for Prometheus).
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$here/build}" && pwd)
k=${2:-32}
scrapes=${SCRAPES:-3}
. "$here/bench/lib.sh"
pids=()
bench_on_exit() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done; }
bench_fabric exporter-sizing "$k"

# One scrape: NAME ARGS...  (the scrape collector is added to read the
# MADs; its own lines are left out of the series count unless NAME is
# scrape or default, where they are part of the set).
printf '%-12s %10s %8s %12s %9s %9s %9s\n' collector series per-port bytes seconds MADs PM-MADs
row() {
  local name=$1
  shift
  if [ -n "${ONLY:-}" ] && [[ " $ONLY " != *" $name "* ]]; then return 0; fi
  /usr/bin/time -f '%e' -o "$name.time" "$ibtool" exporter --once --scrape-timeout 600 ${EXTRA:-} "$@" \
    > "$name.prom" 2> "$name.err" || { echo "$name: exporter failed"; tail -5 "$name.err"; exit 1; }
  local series bytes secs mads pm ports
  case $name in
    scrape | default | all) series=$(grep -vc '^#' "$name.prom") ;;
    *) series=$(grep -v '^#' "$name.prom" | grep -vc '^ib_scrape_') ;;
  esac
  bytes=$(stat -c %s "$name.prom")
  secs=$(tail -1 "$name.time")
  mads=$(awk '$1 == "ib_scrape_mads" { print $2 }' "$name.prom")
  ports=$(awk '$1 == "ib_scrape_ports" { print $2 }' "$name.prom")
  pm=$(awk '$1 ~ /^ib_scrape_(pm_class_port_infos|pm_all_port_sums|pm_port_counters_reads|pm_port_counters_ext_reads|pm_details_reads|pm_vl_reads|sa_path_queries)$/ { s += $2 } END { print s + 0 }' "$name.prom")
  printf '%-12s %10s %8.1f %12s %9s %9s %9s\n' "$name" "$series" "$(awk -v s="$series" -v p="$ports" 'BEGIN { print s / p }')" \
    "$bytes" "$secs" "$mads" "$pm"
}
row default
for c in state link errors data details congestion vl; do
  row "$c" --collector.disable-defaults --collector.scrape --collector."$c"
done
row scrape --collector.disable-defaults --collector.scrape
row all --collector.link --collector.data --collector.details --collector.congestion --collector.vl
echo "(series per port: over ib_scrape_ports; ib_port_info, one per port, is in every row; MADs: the"
echo " scrape's, discovery included; PM-MADs: ClassPortInfo, sums, PortCounters, PortCountersExtended,"
echo " details, per-VL and the SA's PathRecord queries)"

[ "${PROM:-1}" = 0 ] && exit 0
[ -n "${ONLY:-}" ] && [[ " $ONLY " != *" default "* ]] && exit 0
command -v prometheus >/dev/null || { echo "no prometheus: memory not measured"; exit 0; }
# The default scrape served as a static file at /metrics; an empty one for
# the baseline.
mkdir -p full empty
cp default.prom full/metrics
: > empty/metrics
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
measure_prom() {  # measure_prom DIR: prints "RSS_KB HEAP_BYTES HEAD_SERIES" after SCRAPES scrapes
  local src=$1 fport pport tdir
  fport=$(free_port)
  python3 -m http.server "$fport" --bind 127.0.0.1 --directory "$src" > "$src.http.log" 2>&1 &
  local hpid=$!
  pids+=("$hpid")
  pport=$(free_port)
  tdir=$dir/tsdb-$(basename "$src")
  cat > "$src.yml" <<EOF
global:
  scrape_interval: ${INTERVAL:-30}s
  scrape_timeout: $(( ${INTERVAL:-30} * 5 / 6 ))s
scrape_configs:
  - job_name: infiniband
    metrics_path: /metrics
    static_configs:
      - targets: ['127.0.0.1:$fport']
EOF
  prometheus --config.file="$src.yml" --storage.tsdb.path="$tdir" --web.listen-address="127.0.0.1:$pport" \
    > "$src.prom.log" 2>&1 &
  local ppid=$!
  pids+=("$ppid")
  local q="http://127.0.0.1:$pport/api/v1/query"
  local n=0
  # (scrapes so far: the samples of `up` in the last hour)
  for _ in $(seq $((scrapes * 40 + 60))); do
    sleep 2
    n=$(curl -s "$q" --data-urlencode 'query=count_over_time(up{job="infiniband"}[1h])' 2>/dev/null |
        python3 -c 'import json,sys
try: r = json.load(sys.stdin)["data"]["result"]; print(r[0]["value"][1] if r else 0)
except Exception: print(0)')
    [ "$n" -ge "$scrapes" ] && break
  done
  sleep 2
  local rss heap head
  rss=$(awk '/^VmRSS/ { print $2 }' "/proc/$ppid/status")
  heap=$(curl -s "http://127.0.0.1:$pport/metrics" | awk '$1 == "go_memstats_heap_inuse_bytes" { printf "%.0f", $2 }')
  head=$(curl -s "http://127.0.0.1:$pport/metrics" | awk '$1 == "prometheus_tsdb_head_series" { printf "%.0f", $2 }')
  kill "$ppid" "$hpid" 2>/dev/null || true
  wait "$ppid" "$hpid" 2>/dev/null || true
  echo "$rss $heap $head"
}
read -r rss0 heap0 head0 < <(measure_prom "$dir/empty")
read -r rss1 heap1 head1 < <(measure_prom "$dir/full")
series=$(grep -vc '^#' default.prom)
echo
echo "Prometheus $(prometheus --version 2>&1 | head -1 | awk '{print $3}'), idle, after $scrapes scrapes of the default set ($series series):"
printf '  %-28s %14s %14s %12s\n' "" "RSS (MB)" "heap in use (MB)" "head series"
printf '  %-28s %14.0f %14.0f %12s\n' "scraping an empty target" "$(awk -v x="$rss0" 'BEGIN { print x / 1024 }')" \
  "$(awk -v x="$heap0" 'BEGIN { print x / 1048576 }')" "$head0"
printf '  %-28s %14.0f %14.0f %12s\n' "scraping the default set" "$(awk -v x="$rss1" 'BEGIN { print x / 1024 }')" \
  "$(awk -v x="$heap1" 'BEGIN { print x / 1048576 }')" "$head1"
printf '  per series: %.0f bytes of RSS, %.0f bytes of heap in use\n' \
  "$(awk -v a="$rss0" -v b="$rss1" -v n="$head1" -v m="$head0" 'BEGIN { print (b - a) * 1024 / (n - m) }')" \
  "$(awk -v a="$heap0" -v b="$heap1" -v n="$head1" -v m="$head0" 'BEGIN { print (b - a) / (n - m) }')"
