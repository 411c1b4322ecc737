#!/usr/bin/env bash
# The Debian packages (cpack -G DEB): `ibtool` holds the program, its
# module, ibtool(8) and the completion; `ibtool-diags-names` the command
# names (links, man pages, completions) and conflicts with infiniband-diags.
# Usage: package_test.sh BUILD_DIR IBTOOL
set -uo pipefail
BUILD=$1
IBTOOL=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
commands() { "$IBTOOL" help | awk '/^Commands:/{on=1;next} on && /^  [^ ]/{print $1}'; }

(cd "$tmp" && cpack -G DEB -B "$tmp/out" --config "$BUILD/CPackConfig.cmake" >"$tmp/cpack.log" 2>&1) ||
  fail "cpack failed: $(tail -5 "$tmp/cpack.log")"
main=$(ls "$tmp"/out/ibtool_*.deb 2>/dev/null)
names=$(ls "$tmp"/out/ibtool-diags-names_*.deb 2>/dev/null)
[ -f "$main" ] || fail "no ibtool package"
[ -f "$names" ] || fail "no ibtool-diags-names package"

dpkg-deb -c "$main" | awk '{print $6}' >"$tmp/main.list"
for f in ./usr/sbin/ibtool ./usr/share/man/man8/ibtool.8 ./usr/share/bash-completion/completions/ibtool \
  ./usr/share/zsh/vendor-completions/_ibtool; do
  grep -qx "$f" "$tmp/main.list" || fail "ibtool package lacks $f"
done
grep -q '^./usr/local' "$tmp/main.list" && fail "ibtool package installs under /usr/local"
dpkg-deb -f "$main" Depends | grep -q libibumad3 || fail "ibtool does not depend on libibumad3"
[ "$(dpkg-deb -f "$main" Package)" = ibtool ] || fail "wrong package name"

dpkg-deb -c "$names" | awk '{print $6, $7, $8}' >"$tmp/names.list"
[ "$(dpkg-deb -f "$names" Conflicts)" = infiniband-diags ] || fail "ibtool-diags-names does not conflict with infiniband-diags"
dpkg-deb -f "$names" Depends | grep -q "^ibtool (= " || fail "ibtool-diags-names does not depend on its ibtool"
grep -q '^./usr/local' "$tmp/names.list" && fail "ibtool-diags-names installs under /usr/local"
grep -q '^./usr/sbin/ibtool ' "$tmp/names.list" && fail "the program is in the names package"
n=0
for c in $(commands); do
  grep -qx "./usr/sbin/$c -> ibtool" "$tmp/names.list" || fail "no /usr/sbin/$c link"
  grep -qx "./usr/share/bash-completion/completions/$c -> ibtool" "$tmp/names.list" || fail "no completion link for $c"
  grep -q "^./usr/share/man/man8/$c.8 " "$tmp/names.list" || fail "no man page for $c"
  n=$((n + 1))
done
[ $n -gt 50 ] || fail "only $n commands"

# Unpacked together, the names run ibtool.
dpkg-deb -x "$main" "$tmp/root" && dpkg-deb -x "$names" "$tmp/root" || fail "cannot unpack"
"$tmp/root/usr/sbin/smpquery" --help >"$tmp/help" 2>&1
grep -q "^Usage: smpquery " "$tmp/help" || fail "smpquery from the package does not run: $(head -3 "$tmp/help")"
echo "ok package ($n command names)"
