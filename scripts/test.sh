#!/usr/bin/env bash
# Run every test: installs what is missing, builds, then runs the unit,
# CLI and conformance tests (the conformance tests start their own
# simulated fabrics with ibsim + OpenSM and tear them down).
#
# Then the same suite again from a second build with ASan and UBSan
# (clang, every target instrumented, any report fatal), which also runs
# each libFuzzer target of test/fuzz for IBTOOL_FUZZ_SECONDS (default 20).
# SANITIZE=0 skips that second pass (a quicker local run).  Arguments are
# passed to both ctest runs (e.g. -R Json).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
"$top/scripts/install-deps.sh"
jobs=$(nproc)
build=${BUILD_DIR:-$top/build}
t0=$SECONDS
cmake -S "$top" -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build" -j"$jobs"
(cd "$build" && ctest --output-on-failure -j"$jobs" --timeout 600 "$@")
echo "test.sh: release build and tests: $((SECONDS - t0)) s"

[ "${SANITIZE:-1}" = 0 ] && exit 0
t0=$SECONDS
san=${SAN_BUILD_DIR:-$build-sanitize}
# -O1: the sanitizers' own advice, and half the compile time of -O2.
CXX=clang++-14 CC=clang-14 cmake -S "$top" -B "$san" -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_CXX_FLAGS_RELEASE=-O1 -DIBTOOL_FUZZ=ON -DIBTOOL_FUZZ_SECONDS="${IBTOOL_FUZZ_SECONDS:-20}" >/dev/null
cmake --build "$san" -j"$jobs"
(cd "$san" && ctest --output-on-failure -j"$jobs" --timeout 900 "$@")
echo "test.sh: sanitized build, tests and fuzzing: $((SECONDS - t0)) s"
