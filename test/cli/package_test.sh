#!/usr/bin/env bash
# The Debian packages (cpack -G DEB), as a Debian admin takes them:
# - `ibtool`: the program, ibtool(8) and ibtool-CMD(8) for every command,
#   the completion; no cpp-httplib;
# - `ibtool-exporter`: the HTTP module, the systemd unit (hardened, not
#   enabled: no maintainer scripts) and the alert rules;
# - `ibtool-diags-names`: exactly the names of packaging/diags-names.txt
#   (links, man pages, completions), conflicting with infiniband-diags and
#   providing it with a version.
# lintian reports no error and no warning on any of them; the three install
# with `dpkg --root` into a clean root, where a legacy name runs and the
# exporter serves (its module found in that root) and says "address
# already in use" to a second one.
# Usage: package_test.sh BUILD_DIR IBTOOL [SOURCE_DIR]
set -uo pipefail
BUILD=$1
IBTOOL=$2
SRC=${3:-$(cd "$(dirname "$0")/../.." && pwd)}
tmp=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
  rm -rf "$tmp"
}
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
commands() { "$IBTOOL" help | awk '/^Commands:/{on=1;next} on && /^  [^ ]/{print $1}'; }
names() { grep -v '^#' "$SRC/packaging/diags-names.txt"; }

(cd "$tmp" && cpack -G DEB -B "$tmp/out" --config "$BUILD/CPackConfig.cmake" >"$tmp/cpack.log" 2>&1) ||
  fail "cpack failed: $(tail -5 "$tmp/cpack.log")"
main=$(ls "$tmp"/out/ibtool_*.deb 2>/dev/null)
exporter=$(ls "$tmp"/out/ibtool-exporter_*.deb 2>/dev/null)
namesdeb=$(ls "$tmp"/out/ibtool-diags-names_*.deb 2>/dev/null)
[ -f "$main" ] || fail "no ibtool package"
[ -f "$exporter" ] || fail "no ibtool-exporter package"
[ -f "$namesdeb" ] || fail "no ibtool-diags-names package"
version=$(dpkg-deb -f "$main" Version)

# --- ibtool --------------------------------------------------------------------
dpkg-deb -c "$main" | awk '{print $6}' >"$tmp/main.list"
for f in ./usr/sbin/ibtool ./usr/share/man/man8/ibtool.8.gz ./usr/share/bash-completion/completions/ibtool \
  ./usr/share/zsh/vendor-completions/_ibtool ./usr/share/doc/ibtool/copyright ./usr/share/doc/ibtool/changelog.gz; do
  grep -qx "$f" "$tmp/main.list" || fail "ibtool package lacks $f"
done
n=0
for c in $(commands); do
  grep -qx "./usr/share/man/man8/ibtool-$c.8.gz" "$tmp/main.list" || fail "no ibtool-$c(8) in the ibtool package"
  n=$((n + 1))
done
[ $n -gt 50 ] || fail "only $n commands"
grep -q '^./usr/local' "$tmp/main.list" && fail "ibtool package installs under /usr/local"
grep -q 'libibtool_http' "$tmp/main.list" && fail "the HTTP module is in the ibtool package"
grep -q '\.8$' "$tmp/main.list" && fail "uncompressed man pages in the ibtool package"
dpkg-deb -f "$main" Depends | grep -q libibumad3 || fail "ibtool does not depend on libibumad3"
dpkg-deb -f "$main" Depends | grep -q httplib && fail "ibtool depends on cpp-httplib: $(dpkg-deb -f "$main" Depends)"
[ "$(dpkg-deb -f "$main" Package)" = ibtool ] || fail "wrong package name"

# --- ibtool-exporter ----------------------------------------------------------
dpkg-deb -c "$exporter" | awk '{print $6}' >"$tmp/exporter.list"
for f in ./usr/lib/systemd/system/ibtool-exporter.service ./usr/share/ibtool-exporter/ibtool-alerts.yml \
  ./usr/share/doc/ibtool-exporter/copyright ./usr/share/doc/ibtool-exporter/changelog.gz; do
  grep -qx "$f" "$tmp/exporter.list" || fail "ibtool-exporter lacks $f"
done
grep -q '^./usr/lib/.*/ibtool/libibtool_http.so$' "$tmp/exporter.list" || fail "ibtool-exporter lacks the HTTP module"
dpkg-deb -f "$exporter" Depends | grep -q "ibtool (= $version)" || fail "ibtool-exporter does not depend on its ibtool"
dpkg-deb -f "$exporter" Depends | grep -q libcpp-httplib || fail "ibtool-exporter does not depend on cpp-httplib"
# Installed disabled: no maintainer script enables (or runs ldconfig).
dpkg-deb -e "$exporter" "$tmp/exporter.ctl"
for s in preinst postinst prerm postrm; do
  [ -e "$tmp/exporter.ctl/$s" ] && fail "ibtool-exporter has a $s script"
done
dpkg-deb --fsys-tarfile "$exporter" | tar -xO ./usr/lib/systemd/system/ibtool-exporter.service >"$tmp/unit"
for k in 'ExecStart=/usr/sbin/ibtool exporter --listen' NoNewPrivileges=yes ProtectSystem=strict ProtectHome=yes \
  PrivateTmp=yes 'WantedBy=multi-user.target'; do
  grep -q "^$k" "$tmp/unit" || fail "the unit lacks $k"
done

# --- ibtool-diags-names -------------------------------------------------------
dpkg-deb -c "$namesdeb" | awk '{print $6, $7, $8}' >"$tmp/names.list"
[ "$(dpkg-deb -f "$namesdeb" Conflicts)" = infiniband-diags ] || fail "ibtool-diags-names does not conflict with infiniband-diags"
dpkg-deb -f "$namesdeb" Provides | grep -Eq '^infiniband-diags \(= [0-9]' ||
  fail "Provides without a version: $(dpkg-deb -f "$namesdeb" Provides)"
dpkg-deb -f "$namesdeb" Depends | grep -q "^ibtool (= $version)" || fail "ibtool-diags-names does not depend on its ibtool"
grep -q '^./usr/local' "$tmp/names.list" && fail "ibtool-diags-names installs under /usr/local"
grep -q '^./usr/sbin/ibtool ' "$tmp/names.list" && fail "the program is in the names package"
for c in exporter query decode_mad rdma_bw init_all_ports subnet_diff ibv_devices; do
  grep -q "^./usr/sbin/$c " "$tmp/names.list" && fail "ibtool-diags-names installs /usr/sbin/$c (not an infiniband-diags name)"
done
k=0
for c in $(names); do
  grep -qx "./usr/sbin/$c -> ibtool" "$tmp/names.list" || fail "no /usr/sbin/$c link"
  grep -qx "./usr/share/bash-completion/completions/$c -> ibtool" "$tmp/names.list" || fail "no completion link for $c"
  grep -Eq "^./usr/share/man/man8/$c.8.gz -> ibtool-[a-z_]+.8.gz$" "$tmp/names.list" || fail "no man page for $c"
  k=$((k + 1))
done
[ "$(grep -c '^./usr/sbin/[^ ]* -> ibtool$' "$tmp/names.list")" = "$k" ] || fail "links beyond diags-names.txt"

# --- lintian: no error, no warning ----------------------------------------------
# (on the release build's packages: the sanitized build's are not what
# ships, and lintian has its own opinions of ASan's runtime)
if grep -q '^IBTOOL_SANITIZE:BOOL=ON' "$BUILD/CMakeCache.txt" 2>/dev/null ||
  grep -q '^IBTOOL_FUZZ:BOOL=ON' "$BUILD/CMakeCache.txt" 2>/dev/null; then
  echo "(sanitized build: lintian left to the release build's run)"
else
  command -v lintian >/dev/null || fail "lintian is not installed (scripts/install-deps.sh)"
  # (non-zero on any error or warning tag, and when lintian itself fails)
  lintian --fail-on error,warning "$main" "$exporter" "$namesdeb" >"$tmp/lintian.out" 2>&1 ||
    fail "lintian: $(grep -v 'root privileges' "$tmp/lintian.out")"
fi

# --- installed with dpkg into a clean root ---------------------------------------
root=$tmp/root
mkdir -p "$root/var/lib/dpkg/info" "$root/var/lib/dpkg/updates"
: >"$root/var/lib/dpkg/status"
# (--force-depends: the clean root has no libc; the host's libraries run it)
dpkg --root="$root" --force-depends --log=/dev/null -i "$main" "$exporter" "$namesdeb" >"$tmp/dpkg.log" 2>&1 ||
  fail "dpkg -i into a clean root: $(tail -5 "$tmp/dpkg.log")"
for p in ibtool ibtool-exporter ibtool-diags-names; do
  dpkg --root="$root" -s "$p" 2>/dev/null | grep -q '^Status: install ok installed' || fail "$p not installed in the root"
done
"$root/usr/sbin/smpquery" --help >"$tmp/help" 2>&1
grep -q "^Usage: smpquery " "$tmp/help" || fail "smpquery from the root does not run: $(head -3 "$tmp/help")"
"$root/usr/sbin/dump_lfts.sh" --help >"$tmp/help" 2>&1
grep -q "^Usage: dump_lfts" "$tmp/help" || fail "dump_lfts.sh from the root does not run: $(head -3 "$tmp/help")"
# (grep reads files: in a pipe, grep -q may exit first and pipefail counts the SIGPIPE.)
zcat "$root/usr/share/man/man8/ibtool-smpquery.8.gz" >"$tmp/smpquery.8"
zcat "$root/usr/share/man/man8/perfquery.8.gz" >"$tmp/perfquery.8"
grep -q '^ibtool-smpquery, smpquery \\-' "$tmp/smpquery.8" ||
  fail "ibtool-smpquery(8) is not named so"
grep -q '^\.TH "IBTOOL-PERFQUERY"' "$tmp/perfquery.8" || fail "perfquery(8) is not ibtool-perfquery(8)"
# The exporter from the root finds its module there, serves, and refuses a
# second exporter on its port.
port=$(/usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$root/usr/sbin/ibtool" exporter --listen 127.0.0.1:$port 2>"$tmp/srv.err" &
pids+=($!)
for _ in $(seq 50); do grep -q serving "$tmp/srv.err" && break; sleep 0.1; done
grep -q "serving http://127.0.0.1:$port/metrics" "$tmp/srv.err" || fail "the root's exporter does not serve: $(cat "$tmp/srv.err")"
"$root/usr/sbin/ibtool" exporter --listen 127.0.0.1:$port 2>"$tmp/second.err"
rc=$?
[ $rc = 1 ] || fail "a second exporter on the same port exited $rc"
[ "$(wc -l <"$tmp/second.err")" = 1 ] && grep -q 'address already in use' "$tmp/second.err" ||
  fail "a second exporter on the same port: $(cat "$tmp/second.err")"
echo "ok package ($n commands, $k infiniband-diags names, lintian clean, installed in a clean root)"
