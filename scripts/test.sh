#!/usr/bin/env bash
# Run every test: installs what is missing, builds, then runs the unit,
# CLI and conformance tests (the conformance tests start their own
# simulated fabrics with ibsim + OpenSM and tear them down).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
"$top/scripts/install-deps.sh"
build=${BUILD_DIR:-$top/build}
cmake -S "$top" -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build" -j"$(nproc)"
cd "$build"
ctest --output-on-failure -j"$(nproc)" --timeout 600 "$@"
