#!/usr/bin/env bash
# The README tells the truth: its tables are exactly `callsign list --markdown`, and the commands
# of its quick tour exist (and those that read its example history run); PROTOCOL.md names the deadline option as `help run` gives it.
# Usage: readme.sh path/to/callsign
set -u
CS=${1:-build/san/callsign}
. "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
want=$("$CS" list --markdown)
have=$(sed -n '/<!-- tables:/,/<!-- end of tables -->/p' README.md | sed '1d;$d' | sed '/./,$!d' | sed -e :a -e '/^\n*$/{$d;N;ba' -e '}')
[ "$want" = "$have" ] && ok "README tables match callsign list --markdown" || bad "README tables differ: run sh mk/readme-tables.sh build/callsign"
for cmd in $(grep -oE 'build/callsign [a-z]+' README.md | awk '{print $2}' | sort -u); do
  "$CS" help "$cmd" >/dev/null 2>&1 && ok "README command '$cmd' exists" || bad "README names a command that does not exist: $cmd"
done
# The quick tour's history is there, and both commands that read it run.
for cmd in "canon examples/history.json" "emit --target mistral examples/history.json"; do
  grep -qF "build/callsign $cmd" README.md && $CS $cmd >"$T/o" 2>"$T/e" && [ -s "$T/o" ] && ! [ -s "$T/e" ] &&
    ok "README's '$cmd' runs" || bad "README's '$cmd' is not in the README or does not run"
done
# PROTOCOL.md names the option that sets the deadline, with the range and default `help run` gives
# (its lines joined: the words may wrap anywhere).
range=$("$CS" help run | sed -n 's/^ *--deadline MS .*, \([0-9]* to [0-9]*\) (default \([0-9]*\)).*/\1, default \2/p')
[ -n "$range" ] && tr -s ' \n' '  ' <docs/PROTOCOL.md | grep -qF "\`--deadline MS\` sets ($range)" && ok "PROTOCOL.md names --deadline MS ($range)" ||
  bad "PROTOCOL.md does not name --deadline MS as 'help run' gives it (${range:-no range in help})"
grep -q 'make run' README.md && grep -q 'make test' README.md && ok "README gives the two set-up commands" || bad "set-up commands missing"
grep -q '^make deps' .ci/run && grep -q '^make test' .ci/run && ok ".ci/run runs make deps then the README's test command" || bad ".ci/run"
finish
