#!/usr/bin/env bash
# Install everything ibtool needs to build and test, from Debian 12 packages.
# Idempotent and non-interactive: packages already present are skipped
# without touching the network.
set -euo pipefail

PKGS=(
  # build
  cmake g++ make pkg-config
  libibumad-dev libibverbs-dev libpcre2-dev
  # the named stack: CLI11 parses every command line, spdlog carries every
  # diagnostic (both used header-only, in one translation unit each)
  libcli11-dev libspdlog-dev
  googletest libgtest-dev
  # test bed: simulator, subnet manager, reference tools
  ibsim-utils libumad2sim0 opensm infiniband-diags ibverbs-utils
  # test-only cross checks of the IBA definitions
  libibmad-dev libopensm-dev
  # exporter --listen's HTTP server (a module ibtool loads only then)
  libcpp-httplib-dev
  # tests: --json output parsed by a real JSON parser, the exporter's
  # metrics by Prometheus' own (nlohmann-json also reads a report's
  # embedded document back for `report --baseline`, core/report/compare)
  nlohmann-json3-dev python3-prometheus-client
  # `report`'s pages opened in a real browser (test/report/browser_check.py)
  chromium chromium-driver python3-selenium
  # the sanitized build (ASan + UBSan) and the fuzz targets CI runs
  clang-14 libclang-rt-14-dev
  # man page rendering test
  groff-base man-db
  # the Debian packages (cpack: dpkg-shlibdeps finds the libraries through
  # file(1)) and the zsh completion's syntax check
  dpkg-dev file zsh
  # the packages checked as Debian checks them (test/cli/package_test.sh)
  lintian
  # the exporter against Prometheus' own tools: promtool check metrics /
  # check rules / test rules, and a real server scraping it in a test
  prometheus
  # bench/smpquery_bench.sh: the start-up cost in instructions (callgrind),
  # the figure that does not depend on the machine's load
  valgrind
)

missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
echo "install-deps: installing ${missing[*]}" >&2
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
