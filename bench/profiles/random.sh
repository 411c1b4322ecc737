#!/usr/bin/env bash
# Writes N profiles drawn at random (issue 35; Profile::random in
# test/model/fabric.cpp: every parameter independently over its range,
# the ranges and their sources are there), seeds SEED .. SEED+N-1, as
# random-<seed>.profile into DIR (default: the current directory).  The
# same seed draws the same profile everywhere; model_run also takes
# "random-<seed>" as a profile name without a file.
#
#   bench/profiles/random.sh SEED N [DIR]
#
# Environment: BUILD=DIR (default build; model_run is built there if
# missing).
set -euo pipefail
if [ $# -lt 2 ] || ! [[ $1 =~ ^[0-9]+$ ]] || ! [[ $2 =~ ^[0-9]+$ ]]; then
  echo "usage: random.sh SEED N [DIR]" >&2
  exit 2
fi
here=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD:-$here/build}
runner=$build/test/model_run
if [ ! -x "$runner" ]; then
  cmake --build "$build" --target model_run >&2
fi
dir=${3:-.}
mkdir -p "$dir"
for ((s = $1; s < $1 + $2; s++)); do
  "$runner" --print-profile "random-$s" > "$dir/random-$s.profile"
done
