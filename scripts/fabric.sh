#!/usr/bin/env bash
# A simulated fabric (ibsim + OpenSM under umad2sim) for shell use: demos,
# benchmarks, poking at ibtool by hand.  See ../../shared/TESTBED.md.
#
#   fabric.sh start TOPOFILE DIR [SM_TIMEOUT]  start ibsim + OpenSM in DIR (created
#                                              if missing), wait for SUBNET UP
#   fabric.sh run DIR CMD [ARGS...]            run CMD under umad2sim in DIR
#   fabric.sh console DIR 'Unlink "Hca1"[1]'   send an ibsim console command
#   fabric.sh env DIR                          print export lines (eval "$(...)")
#   fabric.sh stop DIR                         stop both, remove what start made
#
# TOPOFILE is an ibsim net file; generate one with the topogen tool
# (build/test/topogen fattree 8 > t.net).  Each process runs in its own
# process group; stop kills exactly those groups (SIGTERM, then SIGKILL).
set -euo pipefail

UMAD2SIM=/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so

die() { echo "fabric.sh: $*" >&2; exit 1; }

alive() { [ -n "${1:-}" ] && kill -0 "$1" 2>/dev/null; }

# kill_group PID: SIGTERM the group, wait up to 2 s, then SIGKILL.
kill_group() {
  local pid=$1 i
  alive "$pid" || return 0
  kill -TERM -- "-$pid" 2>/dev/null || kill -TERM "$pid" 2>/dev/null || true
  for i in $(seq 20); do alive "$pid" || return 0; sleep 0.1; done
  kill -KILL -- "-$pid" 2>/dev/null || kill -KILL "$pid" 2>/dev/null || true
  for i in $(seq 20); do alive "$pid" || return 0; sleep 0.1; done
}

# Node, switch and port counts for ibsim's limits.
sizes() {
  awk '$1=="Switch"||$1=="Hca"||$1=="Rt" { n++; if ($1=="Switch") s++; p += $2 + 1 }
       END { n += 16; s += 16; p += 64;
             printf "%d %d %d\n", (n>2048?n:2048), (s>256?s:256), (p>13312?p:13312) }' "$1"
}

cmd_start() {
  [ $# -ge 2 ] || die "usage: start TOPOFILE DIR [SM_TIMEOUT]"
  local topo=$1 dir=$2 timeout=${3:-120}
  [ -r "$topo" ] || die "cannot read topology $topo"
  if [ ! -d "$dir" ]; then mkdir -p "$dir"; touch "$dir/.fabric-created"; fi
  dir=$(cd "$dir" && pwd)
  [ -e "$dir/ibsim.pid" ] && alive "$(cat "$dir/ibsim.pid")" && die "a fabric already runs in $dir"
  cp "$topo" "$dir/topo.net"
  local sock="fabricsh-$$-$RANDOM-$(basename "$dir")"
  echo "$sock" >"$dir/sockname"
  rm -f "$dir/console" && mkfifo "$dir/console"
  read -r nodes switches ports < <(sizes "$dir/topo.net")
  (cd "$dir" && IBSIM_SOCKNAME=$sock exec setsid ibsim -s -N "$nodes" -S "$switches" -P "$ports" topo.net \
     <>"$dir/console" >"$dir/ibsim.log" 2>&1) &
  echo $! >"$dir/ibsim.pid"
  local i
  for i in $(seq 600); do
    grep -q 'Network simulator ready' "$dir/ibsim.log" 2>/dev/null && break
    alive "$(cat "$dir/ibsim.pid")" || { tail "$dir/ibsim.log" >&2; die "ibsim exited"; }
    sleep 0.1
  done
  mkdir -p "$dir/osm"
  (cd "$dir" && IBSIM_SOCKNAME=$sock LD_PRELOAD=$UMAD2SIM OSM_TMP_DIR="$dir/osm" OSM_CACHE_DIR="$dir/osm" \
     exec setsid opensm -d2 -f "$dir/osm.log" </dev/null >"$dir/opensm.out" 2>&1) &
  echo $! >"$dir/opensm.pid"
  local deadline=$((SECONDS + timeout))
  until grep -q 'SUBNET UP' "$dir/osm.log" 2>/dev/null; do
    if ! alive "$(cat "$dir/opensm.pid")"; then
      tail "$dir/osm.log" >&2 || true; cmd_stop "$dir"; die "OpenSM exited before SUBNET UP"
    fi
    if [ $SECONDS -ge $deadline ]; then
      tail "$dir/osm.log" >&2 || true; cmd_stop "$dir"; die "no SUBNET UP after ${timeout}s"
    fi
    sleep 0.1
  done
  echo "fabric up in $dir (IBSIM_SOCKNAME=$sock)"
}

need_fabric() {
  [ -n "${1:-}" ] && [ -r "$1/sockname" ] || die "no fabric in '${1:-}' (fabric.sh start first)"
}

cmd_run() {
  need_fabric "${1:-}"
  local dir=$1; shift
  [ $# -ge 1 ] || die "usage: run DIR CMD [ARGS...]"
  cd "$dir"
  IBSIM_SOCKNAME=$(cat sockname) LD_PRELOAD=$UMAD2SIM exec "$@"
}

cmd_console() {
  need_fabric "${1:-}"
  [ $# -eq 2 ] || die "usage: console DIR 'COMMAND'"
  # Wait until ibsim has handled it: it prints its prompt again.
  local before i
  before=$(grep -o 'sim> ' "$1/ibsim.log" | wc -l)
  printf '%s\n' "$2" >"$1/console"
  for i in $(seq 100); do
    [ "$(grep -o 'sim> ' "$1/ibsim.log" | wc -l)" -gt "$before" ] && return 0
    sleep 0.05
  done
  die "ibsim did not answer '$2'"
}

cmd_env() {
  need_fabric "${1:-}"
  echo "export IBSIM_SOCKNAME=$(cat "$1/sockname") LD_PRELOAD=$UMAD2SIM"
}

cmd_stop() {
  [ $# -eq 1 ] && [ -d "$1" ] || die "usage: stop DIR"
  local dir=$1 f
  for f in opensm ibsim; do
    [ -r "$dir/$f.pid" ] && kill_group "$(cat "$dir/$f.pid")"
    rm -f "$dir/$f.pid"
  done
  if [ -e "$dir/.fabric-created" ]; then
    rm -rf "$dir"
  else
    rm -rf "$dir/osm" "$dir"/sys-* "$dir/console" "$dir/sockname" "$dir/topo.net"
  fi
}

[ $# -ge 1 ] || die "usage: fabric.sh start|run|console|env|stop ..."
sub=$1; shift
case "$sub" in
  start) cmd_start "$@" ;;
  run) cmd_run "$@" ;;
  console) cmd_console "$@" ;;
  env) cmd_env "$@" ;;
  stop) cmd_stop "$@" ;;
  *) die "unknown subcommand '$sub' (start|run|console|env|stop)" ;;
esac
