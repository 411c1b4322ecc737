#!/usr/bin/env bash
# dump_fts on a big simulated fabric: ibtool against the reference, in one run.
#
#   bench/routes_bench.sh [K] [BUILD_DIR]     (default: K=32, BUILD_DIR=build)
#
# Starts a k-ary fat tree (build/test/topogen fattree K; k=32: 8192 hosts,
# 1280 switches; scripts/fabric.sh sizes ibsim for it), runs the reference
# dump_fts and `ibtool dump_fts` on it, checks that their outputs are
# identical, and prints the wall time and peak RSS of each and the time
# ratio.  Exits 1 when the outputs differ.  Not for CI: on k=32 the
# reference alone takes many minutes (one table block after the other).
set -euo pipefail

K=${1:-32}
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${2:-$root/build}" && pwd)
ibtool=$build/ibtool
topogen=$build/test/topogen
fabric=$root/scripts/fabric.sh
[ -x "$ibtool" ] && [ -x "$topogen" ] || { echo "routes_bench: build ibtool and topogen first ($build)" >&2; exit 2; }

dir=$(mktemp -d /tmp/routes-bench.XXXXXX)
cleanup() { "$fabric" stop "$dir/fabric" >/dev/null 2>&1 || true; rm -rf "$dir"; }
trap cleanup EXIT INT TERM

"$topogen" fattree "$K" >"$dir/topo.net"
echo "routes_bench: fat tree k=$K ($(grep -c '^Switch' "$dir/topo.net") switches, $(grep -c '^Hca' "$dir/topo.net") hosts); starting the fabric..."
"$fabric" start "$dir/topo.net" "$dir/fabric" 3600 >/dev/null

# run NAME CMD...: stdout to $dir/NAME.out, "seconds peakKB" to $dir/NAME.time
run() {
  local name=$1; shift
  /usr/bin/time -f '%e %M' -o "$dir/$name.time" "$fabric" run "$dir/fabric" "$@" >"$dir/$name.out" 2>"$dir/$name.err" || {
    echo "routes_bench: $name exited with status $?" >&2; }
}
run reference dump_fts
run ibtool "$ibtool" dump_fts

read -r rt rm <"$dir/reference.time"
read -r it im <"$dir/ibtool.time"
lines=$(wc -l <"$dir/reference.out")
same=yes
cmp -s "$dir/reference.out" "$dir/ibtool.out" || same=no
printf '%-10s %10s %12s\n' "" "seconds" "peak RSS MB"
printf '%-10s %10.2f %12.1f\n' reference "$rt" "$(echo "$rm / 1024" | bc -l)"
printf '%-10s %10.2f %12.1f\n' ibtool "$it" "$(echo "$im / 1024" | bc -l)"
printf 'outputs identical: %s (%s lines)\n' "$same" "$lines"
printf 'speedup: %.1fx\n' "$(echo "$rt / ($it + 0.001)" | bc -l)"
if [ "$same" != yes ]; then
  diff "$dir/reference.out" "$dir/ibtool.out" | head -20 >&2
  exit 1
fi
