#!/usr/bin/env bash
# Regenerate the README's command table from the registry (`ibtool help`).
# Usage: scripts/update-readme-table.sh [path/to/ibtool]
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
ibtool=${1:-$top/build/ibtool}
table=$("$ibtool" help | awk '/^Commands:/{on=1;next} on && /^  [^ ]/{name=$1; $1=""; sub(/^ +/,""); printf "| `%s` | %s |\n", name, $0}')
awk -v table="$table" '
  /<!-- commands:begin -->/ {print; print "| command | what it does |"; print "|---|---|"; if (table != "") print table; skip=1; next}
  /<!-- commands:end -->/ {skip=0}
  !skip {print}' "$top/README.md" >"$top/README.md.new"
mv "$top/README.md.new" "$top/README.md"
