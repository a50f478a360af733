#!/usr/bin/env bash
# Reports stay valid and inert whatever bytes the IDs hold: an implementation answers with markup,
# "]]>", control characters and U+FFFE; JUnit must pass xmllint, JSON must parse, and the HTML
# report, opened in headless Chromium, must run no script and show the matrix.
# Usage: reports.sh path/to/callsign
set -u
CS=${1:-build/san/callsign}
. "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"

"$CS" run --no-corpus --quiet --cases 50 --junit "$T/r.xml" --json "$T/r.json" --markdown "$T/r.md" \
  --html "$T/r.html" --impl-cmd -- python3 tests/fixtures/evil_ids.py >"$T/out" 2>"$T/err"
rc=$?
[ $rc -eq 1 ] && ok "hostile implementation fails (exit 1)" || bad "hostile implementation: exit $rc"
xmllint --noout "$T/r.xml" 2>"$T/xml" && ok "JUnit is well-formed XML" || bad "JUnit: $(head -c 300 "$T/xml")"
grep -q '<failure' "$T/r.xml" && ok "JUnit carries the failures" || bad "JUnit has no <failure>"
python3 -m json.tool "$T/r.json" >/dev/null && ok "JSON parses" || bad "JSON does not parse"
python3 - "$T/r.json" <<'P' && ok "JSON keeps the hostile answer as text" || bad "JSON lost the hostile answer"
import json,sys
d=json.load(open(sys.argv[1]))
f=[c for c in d['implementations'][0]['cells'] if c['verdict']=='fail']
assert f and any('<script>' in (c['failure'].get('answer_json') or '') for c in f)
P
python3 - "$T/r.md" <<'P' && ok "Markdown: no live markup outside code blocks, every table row whole" || bad "Markdown report"
import re, sys
fenced, table, seen, raw = False, None, 0, []
for line in open(sys.argv[1], encoding="utf-8"):
    if line.startswith("```"):
        fenced = not fenced
        continue
    if fenced:
        continue
    if re.search(r"<script|</pre|<&>", line):
        raw.append(line.strip()[:80])
    if line.startswith("|"):
        cells = len(re.findall(r"(?<!\\)\|", line))
        table = table or cells
        assert cells == table, "a row of %d cells in a table of %d: %s" % (cells, table, line)
        seen += 1
    else:
        table = None
assert not raw, raw
assert seen > 0, "no table"
P

BROWSER=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
if [ -z "$BROWSER" ]; then
  bad "headless Chromium not installed (make deps installs it)"
else
  flags="--headless --no-sandbox --disable-gpu --disable-quic --no-first-run --disable-background-networking --disable-component-update --disable-sync --user-data-dir=$T/profile"
  # shellcheck disable=SC2086
  timeout 60 "$BROWSER" $flags --dump-dom "file://$T/r.html" >"$T/dom" 2>"$T/browser.err"
  [ -s "$T/dom" ] && ok "Chromium renders the HTML report" || bad "Chromium produced no DOM: $(tail -c 300 "$T/browser.err")"
  grep -q '<table' "$T/dom" && ok "the DOM holds the compliance matrix" || bad "no matrix table in the DOM"
  ! grep -qi '<script' "$T/dom" && ok "no script element in the DOM" || bad "a script element reached the DOM"
  ! grep -q '<title>pwned' "$T/dom" && ok "no script ran" || bad "the title was rewritten by a script"
  grep -q '<svg' "$T/dom" && ok "statistics chart present" || bad "no SVG chart in the DOM"
  # shellcheck disable=SC2086
  timeout 60 "$BROWSER" $flags --window-size=1280,1600 --screenshot="$T/r.png" "file://$T/r.html" >/dev/null 2>&1
  [ -s "$T/r.png" ] && ok "screenshot taken" || bad "no screenshot"
  # The HTML parser drops a newline right after <pre>: a stderr tail that starts with two keeps both.
  "$CS" run --no-corpus --quiet --cases 5 --html "$T/nl.html" --impl-cmd -- \
    sh -c 'printf "\n\nfirst stderr line\n" >&2; exec python3 tests/fixtures/proto_echo.py' >/dev/null 2>&1
  # shellcheck disable=SC2086
  timeout 60 "$BROWSER" $flags --dump-dom "file://$T/nl.html" >"$T/nl.dom" 2>/dev/null
  python3 -c "import sys; sys.exit('<pre>\n\nfirst stderr line' not in open(sys.argv[1]).read())" "$T/nl.dom" &&
    ok "a stderr tail that starts with newlines keeps them in the DOM" ||
    bad "a stderr tail lost its leading newline in the DOM"
fi

# A list written by --failures is read back by --expect whatever the command line and the name
# hold: its comment lines are cut within what --expect reads (1023 bytes a line).
round_trip() { # LABEL ARGS...: proto_echo with ARGS, --failures then --expect
  local label=$1
  shift
  "$CS" run --no-corpus --quiet --cases 30 --failures "$T/rt.txt" --impl-cmd -- python3 tests/fixtures/proto_echo.py "$@" \
    >/dev/null 2>&1
  "$CS" run --no-corpus --quiet --cases 30 --expect "$T/rt.txt" --impl-cmd -- python3 tests/fixtures/proto_echo.py "$@" \
    >"$T/rt.out" 2>&1
  local rc=$?
  [ $rc -eq 0 ] && [ "$(awk '{ if (length($0) > m) m = length($0) } END { print m }' "$T/rt.txt")" -le 1023 ] &&
    ok "--failures with $label: every line within 1023 bytes, --expect reads it back (exit 0)" ||
    bad "--failures with $label: --expect exit $rc: $(head -c 300 "$T/rt.out")"
}
round_trip "an argument of 1100 bytes" --tag "$(printf 'x%.0s' $(seq 1100))"
round_trip "a name of 600 words" --name "$(printf 'a %.0s' $(seq 600))"
round_trip "a name of 162 control bytes (each escaped in six)" --name "$(printf '\001%.0s' $(seq 162))"

# --failures over its own --expect list brings it up to date for what the run checked and keeps the
# lines it did not check: those filtered out, and those of an implementation that did not start.
lines() { grep -v '^#' "$1" | grep . | sort; }
ECHO=(python3 tests/fixtures/proto_echo.py)
"$CS" run --no-corpus --quiet --cases 100 --failures "$T/full.txt" --impl-cmd -- "${ECHO[@]}" >/dev/null 2>&1
cp "$T/full.txt" "$T/up.txt"
"$CS" run --no-corpus --quiet --cases 100 --property emit.regex --expect "$T/up.txt" --failures "$T/up.txt" \
  --impl-cmd -- "${ECHO[@]}" >/dev/null 2>"$T/up.err"
rc=$?
"$CS" run --no-corpus --quiet --cases 100 --expect "$T/up.txt" --impl-cmd -- "${ECHO[@]}" >/dev/null 2>&1
check "--expect F --failures F with --property: the lines of other properties kept, the list still passes the full run" \
  "[ $rc -eq 0 ] && [ $? -eq 0 ] && [ \$(lines '$T/full.txt' | wc -l) -gt 3 ] && [ \"\$(lines '$T/full.txt')\" = \"\$(lines '$T/up.txt')\" ] &&
   grep -q 'which this run did not check' '$T/up.err' && grep -q '^# listed in --expect and not checked by this run' '$T/up.txt'"
cp "$T/full.txt" "$T/up2.txt"
"$CS" run --no-corpus --quiet --cases 10 --expect "$T/up2.txt" --failures "$T/up2.txt" \
  --impl-cmd -- python3 "$T/no-such-adapter.py" >/dev/null 2>&1
check "--expect F --failures F with an implementation that cannot start: exit 3, every line kept" \
  "[ $? -eq 3 ] && [ \"\$(lines '$T/full.txt')\" = \"\$(lines '$T/up2.txt')\" ]"

# A line whose cells the implementation does not offer (its hello) was not checked: warned of, and
# in the JSON report, as a line filtered out is.
"$CS" run --no-corpus --quiet --cases 50 --expect "$T/full.txt" --json "$T/na.json" \
  --impl-cmd -- "${ECHO[@]}" --ops emit --targets anthropic >/dev/null 2>"$T/na.err"
check "--expect lines not applicable to the implementation: warned of, listed in the JSON report" \
  "[ $? -eq 0 ] && grep -q \"lists 'canon.unique - proto-echo', which this run did not check\" '$T/na.err' &&
   python3 -c \"import json,sys; d=json.load(open('$T/na.json')); x=d['expect_not_checked']; sys.exit(not (x and {'property': 'canon.unique', 'target': '-', 'implementation': 'proto-echo'} in x))\""

# --expect - reads the list from stdin, as replay reads a case; a bad line is named on "stdin".
"$CS" run --no-corpus --quiet --cases 100 --expect - --impl-cmd -- "${ECHO[@]}" <"$T/full.txt" >/dev/null 2>&1
rc=$?
printf 'emit.regex anthropic\nnot a line at all\n' | "$CS" run --no-corpus --quiet --cases 5 --impl reference --expect - \
  >/dev/null 2>"$T/stdin.err"
check "--expect - reads stdin: the list passes, a bad line is stdin:2 (exit 2)" \
  "[ $rc -eq 0 ] && [ $? -eq 2 ] && grep -q '^callsign: stdin:2: expected' '$T/stdin.err'"

# A name past what a line holds is named as such, not as a line of the wrong shape.
printf 'emit.regex anthropic %s\n' "$(printf 'n%.0s' $(seq 96))" >"$T/longname.txt"
"$CS" run --no-corpus --quiet --cases 5 --impl reference --expect "$T/longname.txt" >/dev/null 2>"$T/ln.err"
check "--expect: an implementation name of 96 bytes is refused as too long (exit 2, one line)" \
  "[ $? -eq 2 ] && [ \$(wc -l <'$T/ln.err') -eq 1 ] && grep -q 'longname.txt:1: the implementation name is longer than 95 bytes' '$T/ln.err'"

# A line for every implementation that one now passes and another still fails: narrowed, not removed.
printf 'emit.regex anthropic\n' >"$T/any.txt"
"$CS" run --no-corpus --quiet --cases 100 --impl reference --impl prefix-swap --property emit.regex --target anthropic \
  --expect "$T/any.txt" --junit "$T/any.xml" >"$T/any.out" 2>&1
check "a line for every implementation, fixed for one, failed by another: the reports say to name the failing ones" \
  "[ $? -eq 1 ] && grep -q 'FIXED.*name the failing ones on the line' '$T/any.out' && ! grep -q 'remove it from the list' '$T/any.out' &&
   grep -q 'remove or narrow their lines' '$T/any.out' && grep -q 'message=\"listed in --expect but passes: its line covers every' '$T/any.xml'"

# A name of 100 KB (its hello's) is repeated per failure: the Markdown cuts it, and stays far below
# the 1 MiB of a step summary.
"$CS" run --no-corpus --quiet --cases 30 --markdown "$T/longname.md" --impl-cmd -- python3 tests/fixtures/proto_echo.py \
  --name "$(printf 'n%.0s' $(seq 100000))" >/dev/null 2>&1
size=$(wc -c <"$T/longname.md")
[ "$size" -gt 0 ] && [ "$size" -lt 200000 ] && ok "a name of 100 KB: the Markdown is $size bytes" ||
  bad "a name of 100 KB: the Markdown is $size bytes"

# A hello's name and version may be 64 MiB, and the name is repeated for every cell: every report
# but the JSON (the full record) shows them cut. No --quiet: the matrices name it too.
"$CS" run --no-corpus --cases 30 --junit "$T/huge.xml" --html "$T/huge.html" --markdown "$T/huge.md" --json "$T/huge.json" \
  --impl-cmd -- python3 tests/fixtures/proto_echo.py --name n --name-repeat 1000000 --version 'v|' \
  --version-repeat 600000 >"$T/huge.out" 2>/dev/null
rc=$?
sizes="terminal $(wc -c <"$T/huge.out"), JUnit $(wc -c <"$T/huge.xml"), HTML $(wc -c <"$T/huge.html"), Markdown $(wc -c <"$T/huge.md")"
check "a name of 1 MB and a version of 1.2 MB: the reports stay small ($sizes bytes, exit $rc)" \
  "[ $rc -eq 1 ] && [ \$(wc -c <'$T/huge.out') -lt 100000 ] && [ \$(wc -c <'$T/huge.xml') -lt 300000 ] &&
   [ \$(wc -c <'$T/huge.html') -lt 300000 ] && [ \$(wc -c <'$T/huge.md') -lt 1048576 ] && grep -q 'more bytes not shown: the JSON report keeps them' '$T/huge.out'"
check "a name of 1 MB and a version of 1.2 MB: JUnit and HTML stay well-formed" \
  "xmllint --noout '$T/huge.xml' && xmllint --noout '$T/huge.html'"
check "a name of 1 MB and a version of 1.2 MB: the JSON report keeps both whole" \
  "python3 -c \"import json,sys; i=json.load(open('$T/huge.json'))['implementations'][0]; sys.exit(not (i['name'] == 'n' * 1000000 and i['version'] == 'v|' * 600000))\""

# A replay's one case comes from its token: no report claims a seed decided it.
tok=$("$CS" run --no-corpus --quiet --impl prefix-swap --target mistral --property emit.unique --cases 300 2>&1 |
  grep -o 'cs2\.[A-Za-z0-9_.-]*' | head -1)
"$CS" replay --impl prefix-swap --target mistral --property emit.unique "$tok" --json "$T/rp.json" \
  --junit "$T/rp.xml" --failures "$T/rp.txt" >/dev/null 2>&1
rc=$?
python3 - "$T/rp.json" <<'P' && [ $rc -eq 1 ] && ! grep -q 'seed' "$T/rp.xml" "$T/rp.txt" &&
import json,sys
d=json.load(open(sys.argv[1]))
assert d['seed'] is None
assert all(c['failure']['seed'] is None for i in d['implementations'] for c in i['cells'] if c['failure'])
P
  ok "replay: JSON, JUnit and the failures list state no seed" || bad "replay report states a seed (exit $rc, token '$tok')"
finish
