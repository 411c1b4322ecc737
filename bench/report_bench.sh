#!/usr/bin/env bash
# ibtool report against ibqueryerrors on one simulated fat tree (issue 37's
# targets): the report written in at most 1.3x ibqueryerrors' time on the
# same fabric (runs paired: report, ibqueryerrors, report, ...; the ratio
# of each pair, and of the medians), the file at most 25 MB, and the page
# drawn in headless Chromium in at most 5 s by the browser's own clock (the
# page's 'ibtool-drawn' performance mark: from the navigation's start to
# the frame after the picture went in; test/report/browser_check.py).
#
#   bench/report_bench.sh [BUILD_DIR] [K]      (defaults: build 32)
#
# Environment: REPS=N pairs (default 3); FABRIC=DIR a fabric already
# started with scripts/fabric.sh (left running).  Exits non-zero when a run
# fails or a target is missed.
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$here/build}" && pwd)
k=${2:-32}
reps=${REPS:-3}
. "$here/bench/lib.sh"
bench_fabric report-bench "$k"

wall() {  # wall NAME CMD...: seconds of the run
  local name=$1 rc=0
  shift
  /usr/bin/time -f '%e' -o "$name.time" "$@" > "$name.out" 2> "$name.err" || rc=$?
  # (ibqueryerrors exits 1 when it reports errors: a result, not a failure)
  if [ "$rc" -ne 0 ] && ! { [ "$rc" -eq 1 ] && [ "$2" = ibqueryerrors ]; }; then
    echo "$name failed ($rc):" >&2; tail -5 "$name.err" >&2; exit 1
  fi
  tail -1 "$name.time"
}

fail=0
r=() q=() ratios=()
printf '%-5s %10s %14s %7s\n' pair report ibqueryerrors ratio
for i in $(seq "$reps"); do
  a=$(wall report "$ibtool" report -o "report.html")
  b=$(wall ibqueryerrors "$ibtool" ibqueryerrors)
  r+=("$a") q+=("$b")
  ratios+=("$(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.2f", a / b }')")
  printf '%-5s %9ss %13ss %7s\n' "$i" "$a" "$b" "${ratios[-1]}"
done
median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
mr=$(median "${r[@]}") mq=$(median "${q[@]}")
# (the pairs' own ratios: a run and its pair see the same load)
ratio=$(median "${ratios[@]}")
echo "median: report ${mr}s, ibqueryerrors ${mq}s; median of the pairs' ratios $ratio (target <= 1.3)"
awk -v x="$ratio" 'BEGIN { exit !(x > 1.3) }' && { echo "MISSED: time ratio"; fail=1; }

size=$(stat -c %s report.html)
echo "file: $size bytes ($(awk -v s="$size" 'BEGIN { printf "%.1f", s / 1048576 }') MB, target <= 25 MB)"
[ "$size" -gt $((25 * 1024 * 1024)) ] && { echo "MISSED: file size"; fail=1; }

# The browser runs outside the fabric's LD_PRELOAD.
for i in 1 2 3; do
  env -u LD_PRELOAD /usr/bin/python3 "$here/test/report/browser_check.py" report.html "shot$i.png" --shot-only \
    > "open$i.json" || { echo "browser check failed"; fail=1; }
done
for i in 1 2 3; do
  /usr/bin/python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); print("open %s: picture drawn at %.0f ms (script %.0f ms), %d items, %d edges" % (sys.argv[2], d["drawn_ms"], d["script_ms"], d["items"], d["edges"]))' "open$i.json" "$i"
done
worst=$(/usr/bin/python3 -c 'import json, sys; print(max(json.load(open(f))["drawn_ms"] for f in sys.argv[1:]))' open1.json open2.json open3.json)
echo "slowest open: ${worst} ms (target <= 5000)"
awk -v x="$worst" 'BEGIN { exit !(x > 5000) }' && { echo "MISSED: open time"; fail=1; }
exit $fail
