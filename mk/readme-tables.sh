#!/bin/sh
# Rewrites the README's tables from the binary's own tables (`callsign list --markdown`), so the
# README cannot drift from the target, property and implementation tables. Usage: mk/readme-tables.sh build/callsign
set -eu
CS=${1:-build/callsign}
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
"$CS" list --markdown >"$tmp"
python3 - "$tmp" README.md <<'P'
import sys
tables = open(sys.argv[1]).read()
path = sys.argv[2]
text = open(path).read()
start = text.index('<!-- tables:')
start = text.index('-->', start) + 3
end = text.index('<!-- end of tables -->')
open(path, 'w').write(text[:start] + '\n\n' + tables.strip() + '\n\n' + text[end:])
P
