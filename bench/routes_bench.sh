#!/usr/bin/env bash
# dump_fts on a big simulated fabric: ibtool against the reference, in one run.
#
#   bench/routes_bench.sh [K] [BUILD_DIR]     (default: K=32, BUILD_DIR=build)
#
# Starts a k-ary fat tree (build/test/topogen fattree K; k=32: 8192 hosts,
# 1280 switches; scripts/fabric.sh sizes ibsim for it), runs the reference
# dump_fts and `ibtool dump_fts` on it, checks that their outputs are
# identical, and prints the wall time, peak RSS, own CPU time and the CPU time
# ibsim spent answering (the floor under umad2sim) of each, and the time ratio.  Exits 1
# when the outputs differ.  Environment: FABRIC=DIR uses a fabric already
# started there with scripts/fabric.sh (left running); REPS=N runs ibtool N
# times (default 3) and keeps the fastest (the reference runs once: on k=32
# it alone takes minutes, one table block after the other).  Not for CI.
set -euo pipefail

K=${1:-32}
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${2:-$root/build}" && pwd)
reps=${REPS:-3}
. "$root/bench/lib.sh"
bench_fabric routes-bench "$K" 3600

# run NAME CMD...: stdout to $dir/NAME.out; "seconds peakKB ibsim_cpu_s cpu_s"
# of the fastest run so far in $dir/NAME.time
run() {
  local name=$1; shift
  local a b w m u s
  a=$(ticks)
  /usr/bin/time -f '%e %M %U %S' -o "$dir/$name.t" "$fabric" run "$fab" "$@" >"$dir/$name.new" 2>"$dir/$name.err" || {
    echo "routes_bench: $name exited with status $?" >&2; }
  b=$(ticks)
  read -r w m u s <"$dir/$name.t"
  if [ ! -e "$dir/$name.time" ] || awk -v x="$w" -v y="$(cut -d' ' -f1 "$dir/$name.time")" 'BEGIN { exit !(x < y) }'; then
    echo "$w $m $(awk -v t=$((b - a)) -v hz="$hz" 'BEGIN { printf "%.2f", t / hz }') $(awk -v u="$u" -v s="$s" 'BEGIN { printf "%.2f", u + s }')" >"$dir/$name.time"
    mv "$dir/$name.new" "$dir/$name.out"
  fi
}
run reference dump_fts
for _ in $(seq "$reps"); do run ibtool "$ibtool" dump_fts; done

read -r rt rm rs rc <"$dir/reference.time"
read -r it im is ic <"$dir/ibtool.time"
lines=$(wc -l <"$dir/reference.out")
same=yes
cmp -s "$dir/reference.out" "$dir/ibtool.out" || same=no
printf '%-10s %10s %12s %10s %12s\n' "" "seconds" "peak RSS MB" "CPU s" "ibsim CPU s"
printf '%-10s %10.2f %12.1f %10s %12s\n' reference "$rt" "$(echo "$rm / 1024" | bc -l)" "$rc" "$rs"
printf '%-10s %10.2f %12.1f %10s %12s\n' ibtool "$it" "$(echo "$im / 1024" | bc -l)" "$ic" "$is"
printf 'outputs identical: %s (%s lines)\n' "$same" "$lines"
printf 'speedup: %.1fx (ibtool: fastest of %s runs)\n' "$(echo "$rt / ($it + 0.001)" | bc -l)" "$reps"
if [ "$same" != yes ]; then
  diff "$dir/reference.out" "$dir/ibtool.out" | head -20 >&2
  exit 1
fi
