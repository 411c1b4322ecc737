# The simulated fabric the benches run on, brought up once here (source
# this file; it is not run on its own):
#
#   bench_fabric NAME K [SM_TIMEOUT]
#
# with $build set to ibtool's build directory.  Makes $dir (a temporary
# directory) and $fab: the fabric FABRIC=DIR names (started before with
# scripts/fabric.sh, and left running), or a fat tree k=K (test/topogen)
# started in $dir/fab (SM_TIMEOUT seconds for SUBNET UP, default 900) and
# stopped at exit.  Then waits until ibsim is idle (OpenSM keeps it busy
# for a while after SUBNET UP: sweeps, traps), so that every run sees the
# same simulator, exports the fabric's environment (umad2sim) and enters
# $dir.  NAME prefixes its messages.
#
# Sets: dir fab ibsim_pid opensm_pid hz ibtool topogen fabric; functions:
#   ticks [PID]  CPU ticks (user + system) of PID (default ibsim) so far
#   sim_ticks    those of ibsim and OpenSM together (the fabric's side of a run)
# At exit: the bench's bench_on_exit (when it defines one), then the fabric
# stopped (when started here) and $dir removed.

ibtool=$build/ibtool
topogen=$build/test/topogen
fabric=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/scripts/fabric.sh

bench_fabric() {
  local name=$1 k=$2 sm_timeout=${3:-900}
  [ -x "$ibtool" ] || { echo "$name: no $ibtool (build first)" >&2; exit 2; }
  dir=$(mktemp -d "/tmp/$name.XXXXXX")
  trap bench_cleanup EXIT
  trap 'exit 130' INT TERM
  if [ -n "${FABRIC:-}" ]; then
    fab=$(cd "$FABRIC" && pwd)
    bench_own_fabric=
    echo "fabric: the one running in $fab ($(grep -c '^Switch' "$fab/topo.net") switches, $(grep -c '^Hca' "$fab/topo.net") hosts)"
  else
    [ -x "$topogen" ] || { echo "$name: no $topogen (build the tests)" >&2; exit 2; }
    fab=$dir/fab
    bench_own_fabric=1
    "$topogen" fattree "$k" > "$dir/topo.net"
    echo "fabric: fat tree k=$k, $("$topogen" size fattree "$k")"
    local t0
    t0=$(date +%s)
    "$fabric" start "$dir/topo.net" "$fab" "$sm_timeout" >/dev/null
    echo "fabric up in $(( $(date +%s) - t0 )) s"
  fi
  ibsim_pid=$(cat "$fab/ibsim.pid")
  opensm_pid=$(cat "$fab/opensm.pid")
  hz=$(getconf CLK_TCK)
  local a b
  for _ in $(seq 300); do
    a=$(ticks); sleep 1; b=$(ticks)
    [ $((b - a)) -lt $((hz / 20)) ] && break
  done
  eval "$("$fabric" env "$fab")"
  cd "$dir"
}

ticks() { awk '{print $14 + $15}' "/proc/${1:-$ibsim_pid}/stat"; }
sim_ticks() { echo $(( $(ticks "$ibsim_pid") + $(ticks "$opensm_pid") )); }

bench_cleanup() {
  trap - EXIT
  if declare -F bench_on_exit >/dev/null; then bench_on_exit; fi
  if [ -n "${bench_own_fabric:-}" ]; then "$fabric" stop "$fab" >/dev/null 2>&1 || true; fi
  cd /
  rm -rf "$dir"
}
