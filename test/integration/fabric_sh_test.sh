#!/usr/bin/env bash
# scripts/fabric.sh end to end: start, run, console, env, stop; nothing left.
# Usage: fabric_sh_test.sh FABRIC_SH TOPOGEN
set -uo pipefail
FABRIC=$1
TOPOGEN=$2
fail() { echo "FAIL: $*" >&2; [ -n "${dir:-}" ] && "$FABRIC" stop "$dir" 2>/dev/null; exit 1; }
topo=$(mktemp /tmp/testbed-topo-XXXXXX)
trap 'rm -f "$topo"' EXIT
dir=/tmp/testbed-sh-$$
"$TOPOGEN" example net.2sw2path4hca >"$topo" || fail "topogen"
"$FABRIC" start "$topo" "$dir" 120 >/dev/null || fail "start"
ibsim=$(cat "$dir/ibsim.pid") opensm=$(cat "$dir/opensm.pid")
kill -0 "$ibsim" && kill -0 "$opensm" || fail "processes not running"
# A second start in the same directory is refused.
"$FABRIC" start "$topo" "$dir" 2>/dev/null && fail "second start accepted"
out=$("$FABRIC" run "$dir" ibnetdiscover 2>/dev/null) || fail "ibnetdiscover failed"
[ "$(grep -c '^Ca' <<<"$out")" -eq 4 ] || fail "expected 4 CAs: $out"
"$FABRIC" console "$dir" 'Unlink "Hca4"' || fail "console"
out=$("$FABRIC" run "$dir" ibnetdiscover 2>/dev/null) || fail "ibnetdiscover after unlink failed"
[ "$(grep -c '^Ca' <<<"$out")" -eq 3 ] || fail "expected 3 CAs after Unlink: $out"
eval "$("$FABRIC" env "$dir")"
[ "$IBSIM_SOCKNAME" = "$(cat "$dir/sockname")" ] || fail "env"
"$FABRIC" stop "$dir" || fail "stop"
for p in $ibsim $opensm; do
  kill -0 "$p" 2>/dev/null && fail "process $p still alive"
done
[ ! -e "$dir" ] || fail "$dir not removed"
"$FABRIC" run "$dir" true 2>/dev/null && fail "run on a stopped fabric succeeded"
echo ok
