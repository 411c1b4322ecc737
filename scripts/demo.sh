#!/usr/bin/env bash
# The main job, end to end on a fresh machine: install what is missing,
# build, start a simulated demo fabric (ibsim + OpenSM), run
# `ibtool ibnetdiscover` on it, and tear the fabric down again.
#
#   scripts/demo.sh [TOPOLOGY-SPEC] [-- IBTOOL-ARGS...]
#
# TOPOLOGY-SPEC is anything topogen accepts (default: "fattree 4", a
# 3-level fat tree of 20 switches and 16 hosts); IBTOOL-ARGS replace
# "ibnetdiscover", e.g.  scripts/demo.sh irregular -- iblinkinfo
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
spec="fattree 4"
args=(ibnetdiscover)
if [ $# -gt 0 ] && [ "$1" != "--" ]; then spec=$1; shift; fi
if [ $# -gt 0 ] && [ "$1" = "--" ]; then shift; args=("$@"); fi

"$top/scripts/install-deps.sh"
build=${BUILD_DIR:-$top/build}
cmake -S "$top" -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build" -j"$(nproc)" --target ibtool topogen >/dev/null

work=$(mktemp -d /tmp/ibtool-demo.XXXXXX)
cleanup() { "$top/scripts/fabric.sh" stop "$work/fabric" >/dev/null 2>&1 || true; rm -rf "$work"; }
trap cleanup EXIT INT TERM
"$build/test/topogen" $spec >"$work/topo.net"
echo "demo: starting the simulated fabric ($spec) ..." >&2
"$top/scripts/fabric.sh" start "$work/topo.net" "$work/fabric" >&2
echo "demo: ibtool ${args[*]}" >&2
"$top/scripts/fabric.sh" run "$work/fabric" "$build/ibtool" "${args[@]}"
