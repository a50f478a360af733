#!/usr/bin/env bash
# End-to-end tests of `callsign fuzz`: sharding covers exactly the unsharded cases, --jobs finds
# the same distinct failures as one process, --merge combines shard results, the reference holds,
# a buggy built-in's failures are saved and replay; fuzz/seeds.sh writes the seeds of the fuzz
# targets from the corpus and the cases `callsign fuzz --list-cases` lists; mk/fuzz.sh keeps every
# reproducer.
# Usage: fuzz.sh path/to/callsign
set -u
CS=${1:-build/san/callsign}
. "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
one_line_2() { [ "$1" -eq 2 ] && [ "$(wc -l <"$T/e")" -eq 1 ] && grep -qF -- "$2" "$T/e" && ! [ -s "$T/o" ]; }
one_line() { [ "$(wc -l <"$T/e")" -eq 1 ] && grep -qF -- "$1" "$T/e"; }
FIX="$(dirname "${BASH_SOURCE[0]}")/../fixtures"
distinct() { python3 -c "import json,sys;print('\n'.join(sorted(f['property']+' '+f['target']+' '+f['signature'] for f in json.load(open(sys.argv[1]))['findings'] if f['distinct'])))" "$1"; }

BUGGY=anthropic-sanitize
N=1500

# --out is made before the campaign: one that cannot be made is refused at once (not after --time).
: >"$T/plain-file"
start=$(date +%s)
"$CS" fuzz --impl reference --time 30s --no-corpus --quiet --out "$T/plain-file/below" >"$T/o" 2>"$T/e"
rc=$?
check "fuzz --out that cannot be made: exit 2 at once, one line with the reason" \
  "[ $rc -eq 2 ] && [ \$(( \$(date +%s) - $start )) -lt 10 ] && [ \$(wc -l <'$T/e') -eq 1 ] && grep -qF \"'$T/plain-file/below' lies below a file, not a directory\" '$T/e'"
# So is an --out whose cases/ is not a directory (the shrunk cases could not be written after it).
mkdir -p "$T/casesfile" && : >"$T/casesfile/cases"
start=$(date +%s)
"$CS" fuzz --impl reference --time 30s --no-corpus --quiet --out "$T/casesfile" >"$T/o" 2>"$T/e"
rc=$?
check "fuzz --out whose cases/ is a file: exit 2 at once, one line" \
  "[ $rc -eq 2 ] && [ \$(( \$(date +%s) - $start )) -lt 10 ] && [ \$(wc -l <'$T/e') -eq 1 ] && grep -q 'cases: not a directory' '$T/e'"
# ...and a directory made for a campaign that could not run at all is not left behind.
"$CS" fuzz --time 5s --no-corpus --quiet --out "$T/never" --impl-cmd -- /bin/true >"$T/o" 2>"$T/e"
rc=$?
check "fuzz that could not run: exit 3, its new --out removed" "[ $rc -eq 3 ] && [ ! -e '$T/never' ]"
# ...its parents too, and in a reused --out the earlier campaign's summary.json, which would be
# read as this one's.
"$CS" fuzz --time 5s --no-corpus --quiet --out "$T/never2/deep/er" --impl-cmd -- /bin/true >"$T/o" 2>"$T/e"
check "fuzz that could not run: the parents made for --out removed too" "[ $? -eq 3 ] && [ ! -e '$T/never2' ]"
"$CS" fuzz --impl $BUGGY --cases 50 --no-corpus --quiet --out "$T/reused" >"$T/o" 2>"$T/e"
"$CS" fuzz --time 5s --no-corpus --quiet --out "$T/reused" --impl-cmd -- /bin/true >"$T/o" 2>"$T/e"
check "fuzz that could not run in a reused --out: exit 3, the earlier summary.json removed" \
  "[ $? -eq 3 ] && [ ! -e '$T/reused/summary.json' ] && [ -d '$T/reused/cases' ]"
# Every directory the results need is checked before the campaign, not after it.
mkdir -p "$T/inway/cases" && touch "$T/inway/cases/$BUGGY"
start=$(date +%s)
"$CS" fuzz --impl $BUGGY --time 20 --no-corpus --out "$T/inway" >"$T/o" 2>"$T/e"
check "fuzz whose cases/IMPL is a file: exit 2 at once, one line" \
  "[ $? -eq 2 ] && [ \$(( \$(date +%s) - $start )) -lt 10 ] && one_line \"cases/$BUGGY: not a directory\""
mkdir -p "$T/inway2" && touch "$T/inway2/.worker-1"
start=$(date +%s)
"$CS" fuzz --impl $BUGGY --time 20 --jobs 2 --no-corpus --out "$T/inway2" >"$T/o" 2>"$T/e"
check "fuzz --jobs 2 with a file in a worker's place: exit 2 at once, not a lost worker" \
  "[ $? -eq 2 ] && [ \$(( \$(date +%s) - $start )) -lt 10 ] && one_line '.worker-1: cannot create: Not a directory'"
# A program's name is known only from its hello: a path in the way shows after the campaign, whose
# findings are still printed and saved to the corpus.
mkdir -p "$T/inway3/cases" && touch "$T/inway3/cases/proto-echo"
"$CS" fuzz --cases 50 --corpus "$T/inway3c" --out "$T/inway3" --impl-cmd -- python3 "$FIX/proto_echo.py" >"$T/o" 2>"$T/e"
check "fuzz --impl-cmd whose cases/NAME is a file: exit 2, findings printed and saved to the corpus" \
  "[ $? -eq 2 ] && grep -q 'FAIL canon' '$T/o' && ls '$T/inway3c/proto-echo/' | grep -q json && one_line 'cases/proto-echo: cannot create'"
# A killed campaign's worker directory is removed by the next campaign on that --out, one job or more.
mkdir -p "$T/stale/.worker-3" && echo '{}' >"$T/stale/.worker-3/summary.json"
"$CS" fuzz --impl $BUGGY --cases 20 --no-corpus --quiet --out "$T/stale" >"$T/o" 2>"$T/e"
check "fuzz --jobs 1 removes a stale .worker-N" "[ ! -e '$T/stale/.worker-3' ]"

# Sharding: the four shards together list exactly the cases of the unsharded run.
"$CS" fuzz --impl $BUGGY --cases $N --no-corpus --list-cases --out "$T/all" >"$T/all.txt" 2>"$T/all.err"
check "unsharded run exits 1 on a buggy built-in" "[ $? -eq 1 ]"
grep '^case ' "$T/all.txt" | sort >"$T/all.cases"
: >"$T/shards.cases"
shard_rcs=""
for i in 0 1 2 3; do
  "$CS" fuzz --impl $BUGGY --cases $N --no-corpus --list-cases --shard $i/4 --out "$T/s$i" >"$T/s$i.txt" 2>"$T/s$i.err"
  shard_rcs="$shard_rcs$?"
  grep '^case ' "$T/s$i.txt" >>"$T/shards.cases"
done
check "each shard runs and finds failures (exit 1)" "[ '$shard_rcs' = 1111 ]"
sort -o "$T/shards.cases" "$T/shards.cases"
check "unsharded run lists $N cases" "[ \$(wc -l <'$T/all.cases') -eq $N ]"
check "shards 0..3 of 4 list exactly the unsharded cases (index, history digest, token)" "cmp -s '$T/all.cases' '$T/shards.cases'"
check "no case is in two shards" "[ \$(cut -d' ' -f2 '$T/shards.cases' | sort -u | wc -l) -eq $N ]"
check "shard 2/4 lists only indices = 2 mod 4, and some" \
  "grep '^case ' '$T/s2.txt' | awk '{ if (\$2 % 4 != 2) exit 1; n++ } END { exit n == 0 }'"

# --strict: a recommended property's replay line carries it, from a campaign and from a merge.
for i in 0 1; do
  "$CS" fuzz --impl reference --strict --cases 300 --no-corpus --quiet --out "$T/st$i" --shard $i/2 >"$T/st$i.txt" 2>&1
done
"$CS" fuzz --merge "$T/stm" "$T/st0" "$T/st1" >"$T/stm.txt" 2>&1
check "fuzz --strict and its merge print replay lines with --strict" \
  "grep -q 'replay: callsign replay --impl reference --property normalize.idempotent --strict ' '$T/st0.txt' &&
   grep -q 'replay: callsign replay --impl reference --property normalize.idempotent --strict ' '$T/stm.txt'"

# Merge: the shards' results combine into the unsharded run's results.
"$CS" fuzz --merge "$T/merged" "$T/s0" "$T/s1" "$T/s2" "$T/s3" >"$T/merge.txt" 2>"$T/merge.err"
check "merge exits 1 (failures found)" "[ $? -eq 1 ]"
check "merged cases are the sum of the shards'" "python3 -c \"import json;d=json.load(open('$T/merged/summary.json'));assert d['cases']==$N and d['parts']=='0/4 1/4 2/4 3/4', d\""
distinct "$T/all/summary.json" >"$T/all.distinct"
distinct "$T/merged/summary.json" >"$T/merged.distinct"
check "merged distinct failures equal the unsharded run's" "[ -s '$T/all.distinct' ] && cmp -s '$T/all.distinct' '$T/merged.distinct'"
check "merge writes the distinct cases" "[ \$(ls '$T/merged/cases/$BUGGY/' | wc -l) -eq \$(wc -l <'$T/merged.distinct') ]"

# A 64-bit seed survives the round trip through summary.json; a shard given twice is refused.
for i in 0 1; do
  "$CS" fuzz --impl reference --cases 4 --seed 18446744073709551615 --shard $i/2 --no-corpus --quiet --out "$T/big$i" \
    >"$T/big$i.txt" 2>"$T/big$i.err"
done
"$CS" fuzz --merge "$T/bigm" "$T/big0" "$T/big1" >"$T/bigm.txt" 2>"$T/bigm.err"
check "merge keeps a 64-bit seed exactly" \
  "[ $? -eq 0 ] && python3 -c \"import json;d=json.load(open('$T/bigm/summary.json'));assert d['seed']=='18446744073709551615' and d['cases']==4, d\""
check "a merge without findings names no cases/ directory it did not make" \
  "grep -qx 'merged 2 result directories into $T/bigm/summary.json' '$T/bigm.txt' && [ ! -e '$T/bigm/cases' ]"
# OUT among the inputs would overwrite that shard's own record.
cp "$T/big0/summary.json" "$T/big0.before"
for out in "$T/big0" "$T/big1/../big0"; do
  "$CS" fuzz --merge "$out" "$T/big0" "$T/big1" >"$T/o" 2>"$T/e"
  check "merge into one of its inputs ($out): exit 2, one line, the input kept" \
    "one_line_2 $? 'is also a directory to merge' && cmp -s '$T/big0.before' '$T/big0/summary.json'"
done
"$CS" fuzz --merge "$T/bigd" "$T/big0" "$T/big0" >"$T/o" 2>"$T/e"
check "merge of one shard twice: exit 2, one line" "[ $? -eq 2 ] && [ \$(wc -l <'$T/e') -eq 1 ] && grep -q 'share cases' '$T/e'"
# The parts a summary covers are what a merge checks for shared cases: parts it cannot read are
# refused, not taken as covering nothing (the same shard given twice would be counted twice).
for p in '"garbage"' '5' 'null' '"0/2 x"' '"2/2"' '"-1/2"' '" 0/2"' '"0/2  1/2"' '"0/0"'; do
  rm -rf "$T/bigg" && cp -r "$T/big0" "$T/bigg"
  python3 -c "import json,sys; f=sys.argv[1]; d=json.load(open(f)); d['parts']=json.loads(sys.argv[2]); json.dump(d,open(f,'w'))" \
    "$T/bigg/summary.json" "$p"
  "$CS" fuzz --merge "$T/biggm" "$T/bigg" "$T/bigg" >"$T/o" 2>"$T/e"
  check "merge of a summary with parts $p: exit 2, one line naming it" \
    "[ $? -eq 2 ] && [ \$(wc -l <'$T/e') -eq 1 ] && grep -qF '$T/bigg/summary.json: parts is not' '$T/e' && [ ! -e '$T/biggm' ]"
done
# A merge decides as its shards did: shards that ran no case, had nothing to check, or left a
# property unjudged (the rule at fault) do not merge into a pass.
for i in 0 1; do
  "$CS" fuzz --impl "$BUGGY" --time 0.000001 --shard $i/2 --out "$T/z$i" --no-corpus --quiet >/dev/null 2>&1
  "$CS" fuzz --time 2 --cases 50 --shard $i/2 --out "$T/nc$i" --no-corpus --quiet --property emit.pair \
    --impl-cmd -- python3 tests/fixtures/proto_echo.py --ops normalize >/dev/null 2>&1
  "$CS" fuzz --impl reference --cases 200 --shard $i/2 --out "$T/ud$i" --no-corpus --quiet --target anthropic \
    --property emit.regex --rule 'anthropic.pattern=^([a-zA-Z0-9_]|[a-zA-Z0-9_])*$' >/dev/null 2>&1
done
"$CS" fuzz --merge "$T/zm" "$T/z0" "$T/z1" >/dev/null 2>"$T/e"
check "merge of shards that ran no case: exit 2, saying nothing was checked" \
  "[ $? -eq 2 ] && grep -q 'the parts ran no case: nothing was checked' '$T/e'"
"$CS" fuzz --merge "$T/ncm" "$T/nc0" "$T/nc1" >/dev/null 2>"$T/e"
check "merge of shards with nothing to check: exit 2, saying so" "[ $? -eq 2 ] && grep -q '^callsign: nothing to check' '$T/e'"
"$CS" fuzz --merge "$T/udm" "$T/ud0" "$T/ud1" >/dev/null 2>"$T/e"
check "merge of shards whose rule left emit.regex unjudged: exit 2, saying which" \
  "[ $? -eq 2 ] && grep -q 'emit.regex on anthropic is not judged' '$T/e'"

# A merge counts the corpus once, as one unsharded campaign does: shard 0 alone replays it.
cp -r "$FIX/../../corpus/regressions" "$T/corpall"
"$CS" fuzz --impl prefix-swap --cases 600 --out "$T/call" --corpus "$T/corpall" --quiet >/dev/null 2>&1
for i in 0 1; do
  cp -r "$FIX/../../corpus/regressions" "$T/corp$i"
  "$CS" fuzz --impl prefix-swap --cases 600 --shard $i/2 --out "$T/cs$i" --corpus "$T/corp$i" --quiet >/dev/null 2>&1
done
"$CS" fuzz --merge "$T/csm" "$T/cs0" "$T/cs1" >/dev/null 2>&1
check "two shards with a corpus merge to the unsharded campaign's cases and findings" \
  "python3 - '$T/csm/summary.json' '$T/call/summary.json' <<'P'
import json, sys
m, a = (json.load(open(p)) for p in sys.argv[1:])
assert m['cases'] == a['cases'] > 600, (m['cases'], a['cases'])
key = lambda d: sorted((f['property'], f['target'], f['signature']) for f in d['findings'])
assert key(m) == key(a)
P"

# A summary is checked finding by finding: a signature that is not its finding's, or a duration that
# is not one, is refused by file (and finding).
edit() { # SRC DST PYTHON: a copy of summary SRC with d edited
  rm -rf "$2" && cp -r "$1" "$2" && python3 -c "import json,sys; p=sys.argv[1]; d=json.load(open(p)); $3; json.dump(d, open(p, 'w'))" "$2/summary.json"
}
edit "$T/cs1" "$T/sig1" "d['findings'][0]['signature'] = '0000000000000000'"
"$CS" fuzz --merge "$T/sigm" "$T/cs0" "$T/sig1" >"$T/o" 2>"$T/e"
check "merge of a summary whose finding's signature is not its own: exit 2, one line naming it" \
  "one_line_2 $? 'sig1/summary.json: findings[0]: signature 0000000000000000 is not that of its property, target and history' && [ ! -e '$T/sigm' ]"
for v in -5 "'abc'" 1e300; do
  edit "$T/cs1" "$T/sec1" "d['seconds'] = $v"
  "$CS" fuzz --merge "$T/secm" "$T/cs0" "$T/sec1" >"$T/o" 2>"$T/e"
  check "merge of a summary with seconds $v: exit 2, one line" "one_line_2 $? 'seconds is not a duration'"
done
for v in -1 "'abc'"; do
  edit "$T/cs1" "$T/shr1" "d['shrink_seconds'] = $v"
  "$CS" fuzz --merge "$T/shrm" "$T/cs0" "$T/shr1" >"$T/o" 2>"$T/e"
  check "merge of a summary with shrink_seconds $v: exit 2, one line" "one_line_2 $? 'shrink_seconds is not a duration'"
done
# A FIFO in place of a summary would block the merge on a writer: refused, not waited on.
mkdir -p "$T/fifosum" && mkfifo "$T/fifosum/summary.json"
timeout 20 "$CS" fuzz --merge "$T/fifom" "$T/cs0" "$T/fifosum" >"$T/o" 2>"$T/e"
check "merge of a directory whose summary.json is a FIFO: exit 2, one line, no wait, nothing written" \
  "one_line_2 $? 'fifosum/summary.json: not a regular file' && [ ! -e '$T/fifom' ]"
# A file where the merge's cases/<implementation>/ goes: refused before anything is written.
mkdir -p "$T/blockm/cases" && echo x >"$T/blockm/cases/prefix-swap"
"$CS" fuzz --merge "$T/blockm" "$T/cs0" "$T/cs1" >"$T/o" 2>"$T/e"
check "merge into an --out whose cases/prefix-swap is a file: exit 2, one line, no summary.json left" \
  "one_line_2 $? 'blockm/cases/prefix-swap: not a directory' && [ ! -e '$T/blockm/summary.json' ]"
# Parts are checked pair by pair for a shared case: a summary may list at most 16384 of them.
edit "$T/cs1" "$T/manyparts" "d['parts'] = ' '.join('%d/20000' % i for i in range(20000))"
timeout 60 "$CS" fuzz --merge "$T/manym" "$T/manyparts" >"$T/o" 2>"$T/e"
check "a summary listing 20000 parts: exit 2 at once, one line" \
  "one_line_2 $? 'parts lists 20000 shards, more than the 16384 a summary may hold'"
edit "$T/cs1" "$T/shr2" "d['shrink_seconds'] = 7.5"
"$CS" fuzz --merge "$T/shrm2" "$T/cs0" "$T/shr2" >"$T/o" 2>"$T/e"
check "a merge keeps the longest part's shrinking time" \
  "[ \$? -le 1 ] && python3 -c \"import json; assert json.load(open('$T/shrm2/summary.json'))['shrink_seconds'] == 7.5\""

# Parts are never cut short: 128 shards merged in halves, then the halves, still name every shard, so
# one given again is refused by name, and what a merge writes another merge reads.
for i in $(seq 0 127); do
  mkdir -p "$T/sh/s$i"
  sed "s|\"0/2\"|\"$i/128\"|" "$T/big0/summary.json" >"$T/sh/s$i/summary.json"
done
"$CS" fuzz --merge "$T/sh/a" $(seq -f "$T/sh/s%g" 0 63) >"$T/o" 2>"$T/e" &&
  "$CS" fuzz --merge "$T/sh/b" $(seq -f "$T/sh/s%g" 64 127) >"$T/o" 2>>"$T/e"
check "merge of 64 shards each: exit 0" "[ $? -eq 0 ] && ! [ -s '$T/e' ]"
"$CS" fuzz --merge "$T/sh/all" $(seq -f "$T/sh/s%g" 0 127) >"$T/o" 2>"$T/e"
check "merge of 128 shards in one command: exit 0, every shard named" \
  "[ $? -eq 0 ] && python3 -c \"import json;d=json.load(open('$T/sh/all/summary.json'));assert d['parts']==' '.join('%d/128' % i for i in range(128)), d['parts']\""
"$CS" fuzz --merge "$T/sh/over" $(seq -f "$T/sh/s%g" 0 1024) >"$T/o" 2>"$T/e"
check "merge of 1025 directories: exit 2, one line giving the limit" "one_line_2 $? 'too many positional options (at most 1024)'"
"$CS" fuzz --merge "$T/sh/ab" "$T/sh/a" "$T/sh/b" "$T/sh/s127" >"$T/o" 2>"$T/e"
check "merge with shard 127/128 a second time: exit 2, one line naming it" \
  "one_line_2 $? 'cannot merge: parts 127/128 and 127/128 share cases' && [ ! -e '$T/sh/ab' ]"
"$CS" fuzz --merge "$T/sh/ab" "$T/sh/a" "$T/sh/b" >"$T/o" 2>"$T/e"
check "merge of the two halves: every shard named once" \
  "[ $? -eq 0 ] && python3 -c \"import json;d=json.load(open('$T/sh/ab/summary.json'));assert d['parts']==' '.join('%d/128' % i for i in range(128)) and d['cases']==128*2, d['parts']\""
"$CS" fuzz --merge "$T/sh/again" "$T/sh/ab" >"$T/o" 2>"$T/e"
check "a merged summary merges again" "[ $? -eq 0 ] && ! [ -s '$T/e' ] && cmp -s <(grep -v seconds '$T/sh/ab/summary.json') <(grep -v seconds '$T/sh/again/summary.json')"
# A summary whose own parts share cases is refused, by name, as a shard given twice would be.
rm -rf "$T/bigg" && cp -r "$T/big0" "$T/bigg"
sed -i 's|"0/2"|"0/2 2/4"|' "$T/bigg/summary.json"
"$CS" fuzz --merge "$T/biggm" "$T/bigg" >"$T/o" 2>"$T/e"
check "merge of a summary with parts 0/2 2/4: exit 2, one line naming them" \
  "one_line_2 $? '$T/bigg/summary.json: parts 0/2 and 2/4 share cases' && [ ! -e '$T/biggm' ]"

# Every finding is checked when its summary is read, before a merge writes anything: one that no
# campaign makes is refused in one line naming the file and the finding, and OUT is not made.
# hostile EXPR: $T/h/in/summary.json is $T/s0's after the Python EXPR, which may change d (the
# summary) and f (its first finding), or make d the summary's text.
hostile() {
  rm -rf "$T/h" && mkdir -p "$T/h/in"
  python3 - "$T/s0/summary.json" "$T/h/in/summary.json" "$1" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
f = d["findings"][0]
exec(sys.argv[3])
open(sys.argv[2], "w").write(d if isinstance(d, str) else json.dumps(d))
PY
}
# refused LABEL EXPR WANT: a merge of that summary exits 2 with one line holding
# "$T/h/in/summary.json: WANT", and makes nothing.
refused() {
  hostile "$2"
  "$CS" fuzz --merge "$T/h/out" "$T/h/in" >"$T/o" 2>"$T/e"
  rc=$? want="$T/h/in/summary.json: $3"
  check "merge of a summary with $1: exit 2, one line naming the file and the finding, nothing written" \
    'one_line_2 $rc "$want" && [ ! -e "$T/h/out" ]'
}
literal='f["token"] = None; f["case_index"] = None; f["window"] = -1; f["planted_twin"] = None'
refused "a token that does not parse" 'f["token"] = "cs1.!!!"' \
  "findings[0]: replay token: invalid character '!' at offset 4"
refused "a literal finding whose history is 5" "$literal; f['history'] = 5" \
  'findings[0]: history: expected an object, got a number'
refused "emit.kimi_roundtrip on target -" 'f["property"] = "emit.kimi_roundtrip"; f["target"] = "-"' \
  'findings[0]: emit.kimi_roundtrip is checked per target: its target names one, not "-"'
refused "canon.charset on target mistral" 'f["property"] = "canon.charset"; f["target"] = "mistral"' \
  "findings[0]: canon.charset takes no target: its target is \"-\", not 'mistral'"
refused "a planted twin outside the history" "$literal; f['planted_twin'] = [0, 99]" \
  'findings[0]: planted_twin is not null or [from, to], two call numbers with from < to < '
refused "signature zzzz..." 'f["signature"] = "z" * 16' 'findings[0]: signature is not 16 lowercase hex digits'
refused "signature ../../..." 'f["signature"] = "../../../../../x"' 'findings[0]: signature is not 16 lowercase hex digits'
refused "a finding naming its property twice" \
  'd = json.dumps(d).replace("\"property\": ", "\"property\": \"emit.pair\", \"property\": ", 1)' \
  'findings[0]: the member "property" occurs twice'
refused "a summary naming impl twice" 'd = json.dumps(d).replace("\"impl\": ", "\"impl\": \"reference\", \"impl\": ", 1)' \
  'the member "impl" occurs twice'
# Shard 0/4 makes no finding at case 1 (1 mod 4 is shard 1's).
refused "a finding outside its shard" 'f["case_index"] = 1; f["window"] = 1' \
  'findings[0]: case_index 1 is not a case of parts "0/4"'
# The first finding is fine, the second is not: still nothing is written.
refused "a bad second finding" 'd["findings"][1]["token"] = "cs1.!!!"' "findings[1]: replay token: invalid character '!'"
# Cases summed past 2^64 - 1 are refused, not wrapped.
hostile 'd["cases"] = "18446744073709551615"'
"$CS" fuzz --merge "$T/h/out" "$T/h/in" "$T/s1" >"$T/o" 2>"$T/e"
check "merge of parts whose cases add up past 2^64 - 1: exit 2, one line naming the part, nothing written" \
  "one_line_2 $? \"$T/s1: cannot merge: the parts' cases add up to more than 18446744073709551615\" && [ ! -e '$T/h/out' ]"
# An OUT whose cases/ cannot be made is found before anything is written.
mkdir -p "$T/h/out" && : >"$T/h/out/cases"
"$CS" fuzz --merge "$T/h/out" "$T/s0" "$T/s1" >"$T/o" 2>"$T/e"
check "merge into an OUT whose cases/ is a file: exit 2, one line, no summary.json written" \
  "one_line_2 $? 'cases: not a directory' && [ ! -e '$T/h/out/summary.json' ]"

# Parts run with other settings are other case spaces, or judged otherwise: a merge refuses them in
# one line naming both directories and the setting, and writes nothing.
# space I/N ARGS...: a shard of the reference, 40 cases, with ARGS, into $T/sp/I (its whole shard).
space() {
  local i=$1
  shift
  rm -rf "$T/sp/$i"
  "$CS" fuzz --impl reference --cases 40 --no-corpus --quiet --shard "$i/2" --out "$T/sp/$i" "$@" >"$T/o" 2>"$T/e"
}
space 0 --max-id-len 10 --target mistral --property emit.unique
space 1
"$CS" fuzz --merge "$T/sp/m" "$T/sp/0" "$T/sp/1" >"$T/o" 2>"$T/e"
check "merge of shards run with --max-id-len 10 --target mistral --property emit.unique and with defaults: exit 2, one line naming both" \
  "one_line_2 $? 'cannot merge $T/sp/1 (max_id_len 65536) with $T/sp/0 (max_id_len 10)' && [ ! -e '$T/sp/m' ]"
echo 'openai_chat.max_len=64' >"$T/sp/profile"
for args in "--target mistral|targets all) with $T/sp/0 (targets mistral)" \
  "--property emit.unique|properties all) with $T/sp/0 (properties emit.unique)" \
  "--strict|strict false) with $T/sp/0 (strict true)" \
  "--rule openai_chat.max_len=64|rules.openai_chat.max_len 40) with $T/sp/0 (rules.openai_chat.max_len 64)" \
  "--profile $T/sp/profile|rules.openai_chat.max_len 40) with $T/sp/0 (rules.openai_chat.max_len 64)" \
  "--seed 2|seed 1) with $T/sp/0 (seed 2)"; do
  # shellcheck disable=SC2086 # the options are words
  space 0 ${args%%|*}
  "$CS" fuzz --merge "$T/sp/m" "$T/sp/0" "$T/sp/1" >"$T/o" 2>"$T/e"
  rc=$? want="cannot merge $T/sp/1 (${args#*|}: parts are merged only when run with the same settings"
  check "merge of a shard run with ${args%%|*} and one without: exit 2, one line naming both and the setting" \
    'one_line_2 $rc "$want" && [ ! -e "$T/sp/m" ]'
done
# The same rules are the same, however given; --time, --jobs and --deadline do not change the case space.
space 0 --profile "$T/sp/profile" --time 30s --jobs 2
space 1 --rule openai_chat.max_len=64
"$CS" fuzz --merge "$T/sp/m" "$T/sp/0" "$T/sp/1" >"$T/o" 2>"$T/e"
check "merge of shards with the same rule from --profile and from --rule: exit 0, the rule recorded" \
  "[ $? -eq 0 ] && ! [ -s '$T/e' ] && python3 -c \"import json;d=json.load(open('$T/sp/m/summary.json'));assert d['rules']['openai_chat']['max_len']==64 and d['cases']==40, d['rules']\""
# The replay commands a merge prints carry the parts' --max-id-len and rules: they reproduce the case.
for i in 0 1; do
  "$CS" fuzz --impl $BUGGY --cases 300 --no-corpus --quiet --shard $i/2 --max-id-len 100 --rule anthropic.max_len=50 \
    --property emit.regex --target anthropic --out "$T/sp/r$i" >"$T/o" 2>"$T/e"
done
"$CS" fuzz --merge "$T/sp/rm" "$T/sp/r0" "$T/sp/r1" >"$T/sp/rm.txt" 2>"$T/e"
rc=$?
cmd=$(grep -m 1 'replay: callsign replay' "$T/sp/rm.txt" | sed 's/^ *replay: callsign //')
check "merged replay commands carry --rule anthropic.max_len=50 and --max-id-len 100" \
  "[ $rc -eq 1 ] && grep -q -- '--rule anthropic.max_len=50 --max-id-len 100 cs2\.' <<<'$cmd'"
# shellcheck disable=SC2086 # the printed command is words
"$CS" $cmd >"$T/o" 2>"$T/e"
check "a merged replay command reproduces its failure" "[ $? -eq 1 ] && grep -q 'FAIL emit.regex' '$T/o'"
# A summary of an earlier callsign records no settings: refused, saying so.
hostile 'd["callsign_fuzz"] = 1'
"$CS" fuzz --merge "$T/h/out" "$T/h/in" >"$T/o" 2>"$T/e"
check "merge of a callsign_fuzz 1 summary: exit 2, one line saying it lacks the settings" \
  "one_line_2 $? '$T/h/in/summary.json: callsign_fuzz 1, from an earlier callsign, does not record the settings' && [ ! -e '$T/h/out' ]"
refused "a finding on a target the summary does not select" 'd["targets"] = ["bedrock"]' \
  'findings[0]: target anthropic is not among the targets the summary selects'
refused "a rule that does not compile" 'd["rules"]["mistral"]["pattern"] = "("' \
  "rules: mistral: pattern '(' does not compile"

# A long --out is used whole: the workers' directories below it were cut into other names.
o="$T/longout"
while [ ${#o} -lt 3000 ]; do o="$o/$(printf 'd%.0s' {1..50})"; done
"$CS" fuzz --impl $BUGGY --cases 200 --no-corpus --quiet --jobs 2 --out "$o" >"$T/o" 2>"$T/e"
check "fuzz --jobs 2 --out of 3000 bytes: results in it, nothing else written" \
  "[ $? -eq 1 ] && ! [ -s '$T/e' ] && [ -s '$o/summary.json' ] && [ \$(find '$T/longout' -type f -path '$o/*' | wc -l) -eq \$(find '$T/longout' -type f | wc -l) ] && ! ls -a '$o' | grep -q worker"
"$CS" fuzz --merge "$o/m" "$o" >"$T/o" 2>"$T/e"
check "fuzz --merge into and from a long path" "[ $? -eq 1 ] && ! [ -s '$T/e' ] && [ -s '$o/m/summary.json' ]"
rm -rf "$T/longout"

# --jobs 2: the same distinct failures as one process, for the same case budget.
"$CS" fuzz --impl $BUGGY --cases $N --no-corpus --jobs 2 --out "$T/j2" >"$T/j2.txt" 2>"$T/j2.err"
check "--jobs 2 exits 1" "[ $? -eq 1 ]"
distinct "$T/j2/summary.json" >"$T/j2.distinct"
check "--jobs 2 finds the same distinct failures as --jobs 1" "cmp -s '$T/all.distinct' '$T/j2.distinct'"
check "--jobs 2 runs the whole budget" "python3 -c \"import json;d=json.load(open('$T/j2/summary.json'));assert d['cases']==$N and d['parts']=='all', d\""
check "--jobs 2 leaves no worker directories" "[ -d '$T/j2' ] && ! ls -a '$T/j2' | grep -q worker"
# Workers whose programs name themselves differently: the results are keyed by the name, so the
# second worker's part is lost with a message that says why (exit 3).
"$CS" fuzz --cases 40 --no-corpus --quiet --jobs 2 --out "$T/pidname" --impl-cmd -- python3 "$FIX/proto_echo.py" \
  --name 'echo-{pid}' >"$T/o" 2>"$T/e"
check "fuzz --jobs 2, workers whose hellos give different names: exit 3, naming both" \
  "[ $? -eq 3 ] && grep -Eq \"worker 1: its hello names the implementation 'echo-[0-9]+', an earlier worker's 'echo-[0-9]+' \\(every process must give one name\\)\" '$T/e'"
# Worker directories a killed campaign left in OUT are removed by the next --jobs run; a directory
# that merely looks like one but holds something else is left alone.
mkdir -p "$T/stale/.worker-7" "$T/stale/.worker-9x" "$T/stale/.worker-3"
echo '{}' >"$T/stale/.worker-7/summary.json"
echo keep >"$T/stale/.worker-3/notes.txt"
"$CS" fuzz --impl reference --cases 100 --no-corpus --quiet --jobs 2 --out "$T/stale" >"$T/o" 2>"$T/e"
check "fuzz --jobs removes stale OUT/.worker-N directories, keeps others" \
  "[ $? -eq 0 ] && [ ! -e '$T/stale/.worker-7' ] && [ -d '$T/stale/.worker-9x' ] && [ -f '$T/stale/.worker-3/notes.txt' ]"
"$CS" fuzz --impl $BUGGY --cases 600 --no-corpus --jobs 2 --shard 1/2 --list-cases --out "$T/js" >"$T/js.txt" 2>"$T/js.err"
js_rc=$?
"$CS" fuzz --impl $BUGGY --cases 600 --no-corpus --shard 1/2 --list-cases --out "$T/js1" >"$T/js1.txt" 2>"$T/js1.err"
js1_rc=$?
check "--jobs 2 within --shard 1/2 runs exactly that shard's 300 cases" \
  "[ $js_rc -eq 1 ] && [ $js1_rc -eq 1 ] && [ \$(grep -c '^case ' '$T/js.txt') -eq 300 ] && cmp -s <(grep '^case ' '$T/js.txt' | sort) <(grep '^case ' '$T/js1.txt' | sort)"

# A buggy built-in: failures are saved to the corpus and to --out, and replay.
"$CS" fuzz --impl $BUGGY --time 2 --corpus "$T/corpus" --out "$T/buggy" >"$T/buggy.txt" 2>"$T/buggy.err"
check "fuzz on $BUGGY exits 1" "[ $? -eq 1 ]"
check "summary names distinct failures with replay commands" "grep -qE '^fuzz: $BUGGY, seed 1, all: [0-9]+ cases' '$T/buggy.txt' && grep -q 'replay: callsign replay --impl $BUGGY' '$T/buggy.txt'"
check "failures saved to the corpus" "[ \$(ls '$T/corpus/$BUGGY/' | wc -l) -ge 3 ]"
f=$(ls "$T/corpus/$BUGGY/"emit.unique@anthropic-*.json 2>/dev/null | head -n 1)
"$CS" replay --impl $BUGGY "$f" >"$T/rp.txt" 2>"$T/rp.err"
check "a saved case replays and fails again" "[ -n '$f' ] && [ $? -eq 1 ] && grep -q 'FAIL emit.unique' '$T/rp.txt'"
check "summary.json is machine-readable" "python3 -c \"import json;d=json.load(open('$T/buggy/summary.json'));assert d['impl']=='$BUGGY' and d['distinct']>0 and all('signature' in f and 'history' in f for f in d['findings'])\""

# The reference: a short campaign finds nothing.
"$CS" fuzz --impl reference --time 2 --corpus "$T/refcorpus" --out "$T/ref" >"$T/ref.txt" 2>"$T/ref.err"
check "fuzz on the reference for 2 s: exit 0, nothing found" "[ $? -eq 0 ] && grep -q ', 0 distinct failures' '$T/ref.txt' && [ ! -d '$T/refcorpus/reference' ]"

# --time holds when every request crashes and restarts the implementation (a few tenths of a second
# each for Python, seconds per case): batches shrink to what the time left allows, and shrinking
# stops 5 s after the deadline. A fixed batch of 256 such cases once ran for ten minutes.
start=$(date +%s)
"$CS" fuzz --time 2 --no-corpus --out "$T/crashy" --impl-cmd -- python3 "$FIX/proto_echo.py" --crash-after 0 \
  >"$T/crashy.txt" 2>"$T/crashy.err"
rc=$?
took=$(($(date +%s) - start))
check "fuzz --time 2, every request crashes: exit 1, the crash reported, done in under 40 s (took $took s)" \
  "[ $rc -eq 1 ] && grep -q 'crash' '$T/crashy.txt' && [ $took -lt 40 ]"
# A fault that needs many requests of one process first (here the 31st) holds when its case runs
# again alone in a fresh process: it is reported unshrunk, and said so, instead of every shrink try
# restarting the program until the shrink time ran out (20 s gave 6 cases).
"$CS" fuzz --cases 60 --property emit.pair --target anthropic --no-corpus --out "$T/late" --impl-cmd -- \
  python3 "$FIX/proto_echo.py" --crash-after 30 >"$T/late.txt" 2>&1
check "a fault that does not show when its case runs alone: reported unshrunk, said so" \
  "[ $? -eq 1 ] && grep -q 'crash: .*(not shrunk: the case held when run again alone)' '$T/late.txt'"
# A case file written under another ID bound says so: its token is another case under the default.
"$CS" fuzz --impl prefix-swap --cases 300 --max-id-len 10 --no-corpus --quiet --out "$T/bound" >"$T/o" 2>"$T/e"
bf=$(ls "$T"/bound/cases/prefix-swap/canon.charset@* 2>/dev/null | head -n 1)
"$CS" replay --impl prefix-swap "$bf" >"$T/o" 2>"$T/e"
check "a case file found under --max-id-len 10 records it and replays the same history" \
  "[ -n '$bf' ] && [ $? -eq 1 ] && grep -q '\"max_id_len\": 10' '$bf' && grep -q '|all_0000' '$bf' && grep -q '|all_0000' '$T/o'"
"$CS" replay --impl prefix-swap --max-id-len 20 "$bf" >"$T/o" 2>"$T/e"
check "...and replaying it under another bound is refused" "one_line_2 $? 'was found under --max-id-len 10; --max-id-len 20'"
# A campaign that checks nothing must not pass a gate: exit 2, as in run.
"$CS" fuzz --impl prefix-swap --property vectors --time 2 --no-corpus --out "$T/none1" >"$T/o" 2>"$T/e"
check "fuzz --property vectors (a fixed file, not fuzzed): exit 2, nothing to check" \
  "[ $? -eq 2 ] && grep -q '^callsign: nothing to check' '$T/e'"
"$CS" fuzz --property emit --time 2 --jobs 2 --no-corpus --out "$T/none2" --impl-cmd -- python3 "$FIX/proto_echo.py" \
  --ops normalize >"$T/o" 2>"$T/e"
check "fuzz --jobs 2 of a program with no emit, --property emit: exit 2, nothing to check" \
  "[ $? -eq 2 ] && grep -q '^callsign: nothing to check' '$T/e'"
"$CS" fuzz --impl prefix-swap --time 1e-9 --no-corpus --out "$T/none3" >"$T/o" 2>"$T/e"
check "fuzz --time 1e-9: no case run, exit 2" "[ $? -eq 2 ] && grep -q '^callsign: fuzz: no case was run within --time' '$T/e'"
# A program that can no longer be started (its first instance ends on its first request, every
# later one before hello) answers nothing again: the campaign stops there, with every kind given up,
# instead of counting cases that check nothing until its --time ends (4 s once gave 570000 cases).
cat >"$T/dies.py" <<'P'
import sys, json, os
mark = sys.argv[1]
if os.path.exists(mark):
    sys.exit(7)
open(mark, "a").close()
json.loads(sys.stdin.readline())
print(json.dumps({"seq": 0, "protocol": 1, "name": "dies", "version": "1", "ops": ["emit"], "targets": ["anthropic"]}), flush=True)
sys.stdin.readline()
sys.exit(3)
P
start=$(date +%s)
"$CS" fuzz --time 30 --no-corpus --out "$T/dies" --impl-cmd -- python3 "$T/dies.py" "$T/dies.mark" >"$T/dies.txt" 2>&1
rc=$?
took=$(($(date +%s) - start))
check "fuzz --time 30 of a program that cannot be restarted: exit 1 in under 15 s (took $took s), everything given up" \
  "[ $rc -eq 1 ] && [ $took -lt 15 ] && grep -q 'not restarted: the last 3 restarts failed' '$T/dies.txt' &&
   python3 -c \"import json;d=json.load(open('$T/dies/summary.json'))
assert d['given_up']==['emit anthropic'] and d['cases'] < 1000, (d['given_up'], d['cases'])\""

# The program crashes on a call ID with ':' in it, and every second start of it fails at hello. A
# campaign takes the crashes; a restart that failed after one in the same batch is its wake, not a
# finding of its own (each was saved as a case whose replay passes).
cat >"$T/alt.py" <<'P'
import json, os, sys
count = sys.argv[1]
n = int(open(count).read()) if os.path.exists(count) else 0
open(count, "w").write(str(n + 1))
if n % 2 == 1:
    sys.exit(7)
for line in sys.stdin:
    req = json.loads(line)
    if req["op"] == "hello":
        print(json.dumps({"seq": 0, "protocol": 1, "name": "alt", "version": "1", "ops": ["emit"],
                          "targets": ["anthropic"]}), flush=True)
        continue
    if req["op"] == "stop":
        sys.exit(0)
    turns = req["history"]["turns"]
    calls = [c.get("id") for t in turns for c in t.get("calls", [])]
    if any(i and ":" in i for i in calls):
        sys.exit(3)
    print(json.dumps({"seq": req["seq"], "calls": calls,
                      "results": [r.get("call_id") for t in turns for r in t.get("results", [])]}), flush=True)
P
rm -f "$T/alt.count"
"$CS" fuzz --no-corpus --cases 30 --out "$T/alt" --impl-cmd -- python3 "$T/alt.py" "$T/alt.count" >"$T/alt.txt" 2>&1
alt_rc=$?
check "fuzz, a crash and every second start failing: the crash is found, no failed restart is a finding" \
  "[ $alt_rc -eq 1 ] && grep -q 'exited with status 3' '$T/alt.txt' && ! grep -q 'restart failed' '$T/alt.txt'"

# --time holds when the implementation hangs: a request still within its own deadline (5 s) when
# the time runs out is cut off, and its case is not judged. Before, each of a case's dozens of
# requests waited out its deadline in turn: `fuzz --time 3` against a hanging adapter ran 173 s.
start=$(date +%s)
"$CS" fuzz --time 2 --no-corpus --out "$T/hang" --impl-cmd -- python3 "$FIX/proto_echo.py" --slow 100 \
  >"$T/hang.txt" 2>"$T/hang.err"
rc=$?
took=$(($(date +%s) - start))
check "fuzz --time 2, every request hangs: exit 3 in under 15 s (took $took s), one line naming the waiting request" \
  "[ $rc -eq 3 ] && [ $took -lt 15 ] && [ \$(wc -l <'$T/hang.err') -eq 1 ] &&
   grep -q 'no case got all its answers within --time 2s and 1s more for answers in flight (seq 1 (.*) was unanswered after' '$T/hang.err'"
"$CS" run --time 2 --no-corpus --json "$T/hang.json" --impl-cmd -- python3 "$FIX/proto_echo.py" --slow 100 \
  >"$T/hangrun.txt" 2>"$T/hangrun.err"
rc=$?
check "run --time 2, every request hangs: exit 3, no cell reported as held, each one unchecked" \
  "[ $rc -eq 3 ] && python3 -c \"import json;d=json.load(open('$T/hang.json'));s=d['summary'];i=d['implementations'][0]
assert s['passed']==0 and s['unchecked']>0 and i['cases']==0 and i['cases_cut']==1, s
assert {c['verdict'] for c in i['cells']} <= {'unchecked','not_applicable'}\""
# With a per-request deadline shorter than the time, the hang is a timeout: a finding, not a cut.
start=$(date +%s)
"$CS" fuzz --time 2 --deadline 400 --no-corpus --out "$T/hang2" --impl-cmd -- python3 "$FIX/proto_echo.py" \
  --slow 100 >"$T/hang2.txt" 2>"$T/hang2.err"
rc=$?
took=$(($(date +%s) - start))
check "fuzz --time 2 --deadline 400, every request hangs: exit 1, the timeout reported, under 20 s (took $took s)" \
  "[ $rc -eq 1 ] && grep -q 'FAIL protocol.answer' '$T/hang2.txt' &&
   grep -q 'timeout: no answer to seq' '$T/hang2.txt' && [ $took -lt 20 ]"
# One hanging case among correct ones: the cases before it are judged, the cut ones are counted
# (the echo fixture sends every ID as it came, which emit.deterministic always accepts).
start=$(date +%s)
"$CS" run --time 3 --property emit.deterministic --no-corpus --json "$T/cut.json" --impl-cmd -- python3 "$FIX/proto_echo.py" \
  --hang-on call_3 >"$T/cut.txt" 2>"$T/cut.err"
rc=$?
took=$(($(date +%s) - start))
check "run --time 3, one case hangs: exit 0, cases judged and cut counted, under 15 s (took $took s)" \
  "[ $rc -eq 0 ] && [ $took -lt 15 ] && grep -q 'cut off by --time' '$T/cut.txt' &&
   python3 -c \"import json;i=json.load(open('$T/cut.json'))['implementations'][0];assert i['cases']>0 and i['cases_cut']>0\""

# A correct adapter is never cut off: batches started before the time ran out finish (the Python
# adapter once lost about 90 cases at the end of a 3 s run, to batches sized on a stale pace).
ROOT="$(dirname "${BASH_SOURCE[0]}")/../.."
"$CS" run --time 3 --cases 100000000 --no-corpus --json "$T/paced.json" --impl-cmd -- python3 \
  "$ROOT/examples/adapters/python/normalizer.py" >"$T/paced.txt" 2>"$T/paced.err"
rc=$?
check "run --time 3 on the correct Python adapter: exit 0, no case cut off, done within 4.5 s" \
  "[ $rc -eq 0 ] && python3 -c \"import json;i=json.load(open('$T/paced.json'))['implementations'][0]
assert i['cases']>0 and i['cases_cut']==0 and i['seconds']<4.5, (i['cases'], i['cases_cut'], i['seconds'])\""

# SIGINT or SIGTERM ends a campaign early and keeps what it found: the summary, the results
# directory and the exit status are those of a campaign whose time ran out, marked interrupted.
interrupted() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert d['interrupted'] is True and d['cases'] > 0, d" "$1"; }
# A command started with & from a script inherits SIGINT ignored (the shell's doing, so that a Ctrl-C
# meant for the foreground does not reach it), and callsign leaves it so; env restores the default.
start=$(date +%s)
env --default-signal=INT "$CS" fuzz --impl $BUGGY --time 120s --no-corpus --out "$T/int1" >"$T/int1.txt" 2>"$T/int1.err" &
pid=$!
sleep 3
kill -INT $pid
wait $pid
rc=$?
check "fuzz stopped by SIGINT: exit 1 with its findings, at once, summary marked interrupted" \
  "[ $rc -eq 1 ] && [ \$(( \$(date +%s) - $start )) -lt 60 ] && grep -q 'interrupted by a signal' '$T/int1.txt' &&
   interrupted '$T/int1/summary.json' && [ \$(ls '$T/int1/cases/$BUGGY' | wc -l) -gt 0 ]"
# A SIGTERM to the parent alone (a CI runner's) stops its workers too.
start=$(date +%s)
"$CS" fuzz --impl reference --time 120s --jobs 2 --no-corpus --out "$T/int2" >"$T/int2.txt" 2>"$T/int2.err" &
pid=$!
sleep 3
kill -TERM $pid
wait $pid
rc=$?
check "fuzz --jobs 2, SIGTERM to the parent: exit 0, workers stopped, merged summary interrupted" \
  "[ $rc -eq 0 ] && [ \$(( \$(date +%s) - $start )) -lt 60 ] && ! [ -s '$T/int2.err' ] && interrupted '$T/int2/summary.json'"
# A worker killed mid-campaign loses its sub-shard, not the other workers' findings: they are
# written (their parts named), and the exit status is 3 with one line saying what was lost.
"$CS" fuzz --impl $BUGGY --time 6s --jobs 2 --no-corpus --out "$T/lost" >"$T/lost.txt" 2>"$T/lost.err" &
pid=$!
sleep 3
kill -KILL "$(pgrep -P "$pid" | sort -n | tail -n 1)"
wait $pid
rc=$?
check "fuzz --jobs 2, one worker killed: exit 3, one line, the other worker's findings kept as part 0/2" \
  "[ $rc -eq 3 ] && [ \$(wc -l <'$T/lost.err') -eq 1 ] && grep -q '1 of 2 workers lost' '$T/lost.err' &&
   python3 -c \"import json;d=json.load(open('$T/lost/summary.json'));assert d['parts']=='0/2' and d['findings'], d['parts']\" &&
   [ \$(ls '$T/lost/cases/$BUGGY' | wc -l) -gt 0 ]"
# A literal corpus case found failing again is saved with the planted twin it states: a hand-written
# case with "planted_twin": null stays without one (read without the member, its two calls would be
# taken for a collide pair, and its compression_stable failure excused).
cat >"$T/initial.py" <<'PY'
import json, sys
for line in sys.stdin:
    r = json.loads(line)
    if r["op"] == "hello":
        print(json.dumps({"seq": 0, "protocol": 1, "name": "initial", "version": "1", "ops": ["emit"],
                          "targets": ["openai_chat"]}), flush=True)
    elif r["op"] == "stop":
        sys.exit(0)
    else:  # "id_" and the first character of the raw ID; a repeat gets _2, _3, ...
        calls, results, first, taken = [], [], {}, set()
        for t in r["history"]["turns"]:
            for c in t.get("calls", []):
                base = w = "id_" + "".join(ch if ch.isalnum() else "_" for ch in (c.get("id") or "x")[:1])
                k = 2
                while w in taken:
                    w, k = "%s_%d" % (base, k), k + 1
                taken.add(w); calls.append(w); first.setdefault(c.get("id"), w)
            results += [first.get(x.get("call_id")) for x in t.get("results", [])]
        print(json.dumps({"seq": r["seq"], "calls": calls, "results": results}), flush=True)
PY
mkdir -p "$T/hand/initial"
turn() { printf '{"role":"assistant","provider":"openai_chat","turn_key":"t%s","calls":[{"id":"%s","name":"read_file","args":{}}]},{"role":"tool","turn_key":"t%s1","results":[{"call_id":"%s","name":"read_file","content":"x"}]}' "$1" "$2" "$1" "$2"; }
printf '{"impl":"initial","property":"emit.compression_stable","target":"openai_chat","message":"hand","planted_twin":null,"history":{"turns":[{"role":"user","text":"x"},%s,%s]}}' \
  "$(turn 0 apple)" "$(turn 2 avocado)" >"$T/hand/initial/hand.json"
"$CS" fuzz --strict --cases 5 --corpus "$T/hand" --out "$T/handout" --quiet --impl-cmd -- python3 "$T/initial.py" >"$T/o" 2>"$T/e"
saved=$(grep -L '"token"' "$T/hand/initial/"emit.compression_stable@*.json 2>/dev/null | head -n 1)
check "a literal case's null planted_twin is kept when a campaign saves it again; its replay still fails" \
  "[ -n '$saved' ] && grep -q '\"planted_twin\": null' '$saved' &&
   ! \"$CS\" replay --strict '$saved' --impl-cmd -- python3 '$T/initial.py' >/dev/null 2>&1"
# The results of an external implementation replay with its argv, merged too: a merge's replay
# commands name --impl-cmd, never the name from its hello (a built-in of that name, or none).
cat >"$T/same.py" <<'PY'
import json, sys
for line in sys.stdin:
    r = json.loads(line)
    if r["op"] == "hello":
        print(json.dumps({"seq": 0, "protocol": 1, "name": sys.argv[1], "version": "1", "ops": ["emit"],
                          "targets": ["openai_chat"]}), flush=True)
    elif r["op"] == "stop":
        sys.exit(0)
    else:  # every call and result gets the one ID
        calls = [c for t in r["history"]["turns"] for c in t.get("calls", [])]
        results = [x for t in r["history"]["turns"] for x in t.get("results", [])]
        print(json.dumps({"seq": r["seq"], "calls": ["same"] * len(calls), "results": ["same"] * len(results)}), flush=True)
PY
for i in 0 1; do
  "$CS" fuzz --cases 60 --no-corpus --quiet --shard $i/2 --out "$T/ext$i" --impl-cmd -- python3 "$T/same.py" reference \
    >"$T/o" 2>"$T/e"
done
python3 -c "import json;d=json.load(open('$T/ext0/summary.json'));assert d['impl']=='reference' and d['impl_cmd']==['python3','$T/same.py','reference'] and d['deadline_ms']==5000, d['impl_cmd']" 2>"$T/e"
check "summary.json of an --impl-cmd campaign records its argv and deadline" "[ $? -eq 0 ]"
"$CS" fuzz --merge "$T/extm" "$T/ext0" "$T/ext1" >"$T/extm.txt" 2>"$T/e"
rc=$?
cmd=$(grep -m 1 'replay: callsign replay' "$T/extm.txt" | sed 's/^ *replay: callsign //')
check "merged results of an external implementation named reference: replay commands name its argv, not --impl" \
  "[ $rc -eq 1 ] && grep -q -- ' cs2\.[^ ]* --impl-cmd -- python3 $T/same.py reference\$' <<<'$cmd' && ! grep -q -- '--impl ' '$T/extm.txt'"
# shellcheck disable=SC2086 # the printed command is words
"$CS" $cmd >"$T/o" 2>"$T/e"
check "the merged replay command runs the external implementation and reproduces its failure" \
  "[ $? -eq 1 ] && grep -q '== reference 1 (external)' '$T/o' && grep -qF \"FAIL \$(cut -d' ' -f3 <<<'$cmd')\" '$T/o'"
"$CS" fuzz --impl reference --cases 60 --no-corpus --quiet --shard 1/2 --out "$T/ext1" >"$T/o" 2>"$T/e"
"$CS" fuzz --merge "$T/extm2" "$T/ext0" "$T/ext1" >"$T/o" 2>"$T/e"
check "merge of an external 'reference' with the built-in reference: exit 2, one line naming both" \
  "one_line_2 $? 'cannot merge $T/ext1 (impl_cmd null (a built-in)) with $T/ext0 (impl_cmd python3 $T/same.py reference)' && [ ! -e '$T/extm2' ]"
"$CS" fuzz --cases 60 --no-corpus --quiet --shard 1/2 --deadline 400 --out "$T/ext1" --impl-cmd -- python3 "$T/same.py" \
  reference >"$T/o" 2>"$T/e"
"$CS" fuzz --merge "$T/extm2" "$T/ext0" "$T/ext1" >"$T/o" 2>"$T/e"
check "merge of external parts run with other deadlines: exit 2, one line naming both" \
  "one_line_2 $? 'cannot merge $T/ext1 (deadline_ms 400) with $T/ext0 (deadline_ms 5000)' && [ ! -e '$T/extm2' ]"
# A Ctrl-C reaches the whole process group of the terminal; an external implementation runs in a
# group of its own, so it is not killed mid-answer (which would read as its fault) and callsign
# ends it itself.
setsid env --default-signal=INT "$CS" fuzz --time 120s --no-corpus --out "$T/int3" --impl-cmd -- "$ROOT/build/adapter-c" \
  >"$T/int3.txt" 2>"$T/int3.err" &
pid=$!
sleep 3
adapters=$(pgrep -f -- "$ROOT/build/adapter-c" | wc -l)
kill -INT -- -"$pid"
wait $pid
rc=$?
check "fuzz --impl-cmd, SIGINT to its process group: exit 0, no fault found, the adapter ended" \
  "[ $adapters -ge 1 ] && [ $rc -eq 0 ] && grep -q ' 0 distinct failures' '$T/int3.txt' && interrupted '$T/int3/summary.json' &&
   ! pgrep -f -- '$ROOT/build/adapter-c' >/dev/null"

# A slow implementation spends most of --time on shrinking tries: the summary says so, and
# summary.json records it.
"$CS" fuzz --time 3s --no-corpus --out "$T/slowshrink" --impl-cmd -- python3 "$FIX/proto_echo.py" --slow 0.02 \
  >"$T/slowshrink.txt" 2>"$T/slowshrink.err"
check "fuzz of a slow implementation: the summary says how much of the time went to shrinking" \
  "grep -Eq '^  [0-9.]+ s of it went to shrinking the failures, not to new cases$' '$T/slowshrink.txt' &&
   python3 -c \"import json; d=json.load(open('$T/slowshrink/summary.json')); assert 0 < d['shrink_seconds'] <= d['seconds'], d\""

# A stop signal does not wait out a hanging request's --deadline: the request is cut off, its case
# not judged, and the campaign ends at once with what it judged before.
# In the run (emit.deterministic, which the echo passes: nothing to shrink) and while shrinking
# (every property).
for where in run shrink; do
  props=$([ $where = run ] && echo "--property emit.deterministic")
  # shellcheck disable=SC2086
  interrupt_after 4 "$T/int5.txt" "$T/int5.err" "$CS" fuzz $props --time 120s --deadline 60000 --no-corpus \
    --out "$T/int5$where" --impl-cmd -- python3 "$FIX/proto_echo.py" --hang-after 30 --tag int5-hang
  if [ $where = run ]; then
    check "fuzz, SIGINT while a request of the run hangs: ends within 3 s (took ${ms} ms), the waiting cases cut off" \
      "[ $rc -eq 0 ] && [ $ms -lt 3000 ] && grep -q 'cut off by --time or the stop signal' '$T/int5.txt' &&
       interrupted '$T/int5$where/summary.json' && ! pgrep -f int5-hang >/dev/null"
  else
    check "fuzz, SIGINT while a shrinking try hangs: ends within 3 s (took ${ms} ms), the failure reported unshrunk" \
      "[ $rc -eq 1 ] && [ $ms -lt 3000 ] && grep -q '(not shrunk: a stop signal came)' '$T/int5.txt' &&
       ! grep -q 'held when run again' '$T/int5.txt' && interrupted '$T/int5$where/summary.json' && ! pgrep -f int5-hang >/dev/null"
  fi
done
interrupt_after 3 "$T/int6.txt" "$T/int6.err" "$CS" fuzz --time 120s --deadline 60000 --no-corpus --out "$T/int6" \
  --impl-cmd -- python3 "$FIX/proto_echo.py" --hang-after 0 --tag int6-hang
check "fuzz, SIGINT while the first request hangs: exit 2 within 3 s (took ${ms} ms), nothing was checked" \
  "[ $rc -eq 2 ] && [ $ms -lt 3000 ] && grep -qx 'callsign: fuzz: interrupted before its first case: nothing was checked' '$T/int6.err' &&
   ! pgrep -f int6-hang >/dev/null"

# coreutils timeout signals callsign and then its group; a group's SIGTERM reaches the workers beside
# the one their parent forwards: a copy within a second is the same stop, not the "second time" that
# ends callsign at once. Every worker's findings are written, parts "all".
whole() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert d['interrupted'] is True and d['parts'] == 'all', d" "$1"; }
timeout --preserve-status -s TERM 3 "$CS" fuzz --impl $BUGGY --time 60s --jobs 3 --no-corpus --quiet --out "$T/int7" \
  >"$T/int7.txt" 2>"$T/int7.err"
rc=$?
check "fuzz --jobs 3 under timeout -s TERM: exit 1, every worker's findings, parts all, no worker directory left" \
  "[ $rc -eq 1 ] && whole '$T/int7/summary.json' && ! ls -a '$T/int7' | grep -q worker && ! grep -q 'lost' '$T/int7.err'"
setsid "$CS" fuzz --impl $BUGGY --time 60s --jobs 3 --no-corpus --quiet --out "$T/int8" >"$T/int8.txt" 2>"$T/int8.err" &
pid=$!
sleep 3
kill -TERM -- -"$pid"
wait $pid
rc=$?
check "fuzz --jobs 3, SIGTERM to its process group: exit 1, no worker lost, parts all" \
  "[ $rc -eq 1 ] && whole '$T/int8/summary.json' && ! grep -q 'lost' '$T/int8.err'"

# ...and a SIGINT the caller left ignored is not taken as a stop.
"$CS" fuzz --impl reference --time 4s --no-corpus --out "$T/int4" >"$T/int4.txt" 2>"$T/int4.err" &
pid=$!
sleep 1
kill -INT $pid
wait $pid
rc=$?
check "fuzz started with SIGINT ignored: the campaign runs its time" \
  "[ $rc -eq 0 ] && python3 -c \"import json; d=json.load(open('$T/int4/summary.json')); assert d['interrupted'] is False and d['seconds'] >= 3.5, d\""

# A shard of a large N reaches its indices at once: stepping through the others overran --time.
start=$(date +%s%N)
"$CS" fuzz --impl reference --time 2s --shard 1/4294967295 --no-corpus --quiet --out "$T/bigshard" >"$T/o" 2>"$T/e"
rc=$?
ms=$((($(date +%s%N) - start) / 1000000))
check "fuzz --time 2s --shard 1/4294967295: keeps its time (took ${ms} ms), cases run" \
  "[ $rc -eq 0 ] && [ $ms -lt 8000 ] && python3 -c \"import json; d=json.load(open('$T/bigshard/summary.json')); assert d['cases'] > 0, d\""

# Usage errors: one line, exit 2.
"$CS" fuzz --time 1 >"$T/o" 2>"$T/e"
check "fuzz without an implementation: exit 2, one line" "[ $? -eq 2 ] && [ \$(wc -l <'$T/e') -eq 1 ]"
# Without --strict a campaign looks for required properties' failures only: a selection of
# recommended ones alone would run its whole time looking for nothing, and pass.
"$CS" fuzz --impl reference --time 5s --no-corpus --out "$T/rec" --property normalize.idempotent >"$T/o" 2>"$T/e"
check "fuzz --property naming only recommended properties, without --strict: exit 2, one line, no run" \
  "[ $? -eq 2 ] && [ \$(wc -l <'$T/e') -eq 1 ] && grep -q 'only recommended properties, whose failures fuzz looks for only with --strict' '$T/e' && ! [ -e '$T/rec' ]"
"$CS" fuzz --impl reference --cases 200 --no-corpus --quiet --out "$T/rec" --property normalize.idempotent --strict >"$T/o" 2>"$T/e"
check "...and with --strict they are looked for (exit 1, found)" "[ $? -eq 1 ] && grep -q 'FAIL normalize.idempotent' '$T/o'"
"$CS" fuzz --merge "$T/m2" >"$T/o" 2>"$T/e"
check "merge without directories: exit 2" "[ $? -eq 2 ]"
mkdir -p "$T/notresults"
"$CS" fuzz --merge "$T/m3" "$T/notresults" >"$T/o" 2>"$T/e"
check "merge of a directory without a summary: exit 2, names it" "[ $? -eq 2 ] && grep -q notresults '$T/e'"
"$CS" fuzz --merge "$T/m4" "$T/all" "$T/ref" >"$T/o" 2>"$T/e"
check "merge refuses results of different implementations" "[ $? -eq 2 ] && grep -q 'cannot merge' '$T/e'"

# The summary printed to the terminal carries the implementation's name, messages and histories:
# none of their bytes may drive the terminal.
# A hang met only by a shrink try (fixtures/hang_on_smallest.py) is a protocol.answer finding of
# the campaign, as in run, saved to the corpus, and its replay fails.
"$CS" fuzz --cases 5 --deadline 150 --property emit.regex --corpus "$T/hm-corpus" --out "$T/hm" \
  --impl-cmd -- python3 "$FIX/hang_on_smallest.py" >"$T/hm.out" 2>&1
hm_rc=$?
hm_replay=$(python3 -c "
import json
f = [f for f in json.load(open('$T/hm/summary.json'))['findings'] if f['property'] == 'protocol.answer' and f['distinct']]
print(f[0]['token'] if len(f) == 1 and 'found on a case that shrinking emit.regex' in f[0]['message'] else '')")
"$CS" replay --property protocol.answer --deadline 150 "$hm_replay" --impl-cmd -- python3 "$FIX/hang_on_smallest.py" \
  >/dev/null 2>&1
check "fuzz: a hang met only by shrinking's tries is a protocol.answer finding saying so, and its replay fails" \
  "[ $hm_rc -eq 1 ] && [ -n '$hm_replay' ] && [ $? -eq 1 ] && ls '$T/hm-corpus'/*/ | grep -q protocol.answer"

"$CS" fuzz --cases 300 --no-corpus --out "$T/evil" --impl-cmd -- python3 tests/fixtures/evil_ids.py --evil-name \
  >"$T/evil.out" 2>"$T/evil.err"
rc=$?
check "fuzz summary of a hostile implementation: exit 1, no ESC, BEL, C1 or bidi control on stdout" \
  "[ $rc -eq 1 ] && grep -q 'FAIL emit' '$T/evil.out' && ! LC_ALL=C grep -q \$'\x1b\\|\x07\\|\xc2\x9b\\|\xe2\x80\xae' '$T/evil.out'"

# fuzz/seeds.sh (make fuzz-seeds) works from any directory on the corpus of its own repository,
# and fails when it finds no corpus files rather than write next to no seeds.
repo=$PWD
sh fuzz/seeds.sh "$T/seeds-here" >"$T/o" 2>"$T/e"
rc_here=$?
(cd "$T" && sh "$repo/fuzz/seeds.sh" seeds-there) >"$T/o" 2>"$T/e"
rc=$?
check "fuzz/seeds.sh from another directory: the seeds it writes from the repository" \
  "[ $rc_here -eq 0 ] && [ $rc -eq 0 ] && [ \$(ls '$T/seeds-there/reader' | wc -l) -gt 20 ] &&
   diff -r '$T/seeds-here' '$T/seeds-there' >/dev/null"
mkdir -p "$T/bare/fuzz" && cp fuzz/seeds.sh "$T/bare/fuzz/"
(cd "$T/bare" && sh fuzz/seeds.sh out) >"$T/o" 2>"$T/e"
check "fuzz/seeds.sh in a tree without corpus files: fails, saying so" "[ $? -ne 0 ] && grep -q 'no corpus' '$T/e'"

# Its work files are its own (mktemp, removed at exit): a callsign-seeds-out of someone else's in
# the temporary directory is left alone. A `callsign fuzz --list-cases` that fails fails the script.
mkdir -p "$T/tmpd/callsign-seeds-out" && : >"$T/tmpd/callsign-seeds-out/theirs"
TMPDIR="$T/tmpd" sh fuzz/seeds.sh "$T/seeds-cs" "$CS" >"$T/o" 2>"$T/e"
rc=$?
check "fuzz/seeds.sh with callsign: the listed cases seeded, its temporary files gone, no one else's touched" \
  "[ $rc -eq 0 ] && [ \$(ls '$T/seeds-cs/properties' | wc -l) -gt \$(ls '$T/seeds-here/properties' | wc -l) ] &&
   [ -e '$T/tmpd/callsign-seeds-out/theirs' ] && [ \"\$(ls -A '$T/tmpd')\" = callsign-seeds-out ]"
printf '#!/bin/sh\necho "callsign: broken" >&2\nexit 3\n' >"$T/broken-cs" && chmod +x "$T/broken-cs"
TMPDIR="$T/tmpd" sh fuzz/seeds.sh "$T/seeds-broken" "$T/broken-cs" >"$T/o" 2>"$T/e"
check "fuzz/seeds.sh with a callsign whose --list-cases fails: fails, with its message" \
  "[ $? -ne 0 ] && grep -q 'callsign: broken' '$T/e'"

# A run replaces the seeds it wrote before (files named by a SHA-1, as it names them), so a seed
# whose case left the corpus does not stay; other files in OUT are not its to remove. The committed
# fuzz/seeds/ is what the script makes (make fuzz-seeds regenerates it).
mkdir -p "$T/seeds-stale/properties" "$T/seeds-stale/reader"
old=0123456789abcdef0123456789abcdef01234567
: >"$T/seeds-stale/properties/$old" && : >"$T/seeds-stale/reader/$old"
: >"$T/seeds-stale/reader/NOTES" && : >"$T/seeds-stale/keep"
sh fuzz/seeds.sh "$T/seeds-stale" >"$T/o" 2>"$T/e"
rc=$?
kept=0
[ -e "$T/seeds-stale/reader/NOTES" ] && [ -e "$T/seeds-stale/keep" ] && kept=1
rm -f "$T/seeds-stale/reader/NOTES" "$T/seeds-stale/keep"
check "fuzz/seeds.sh replaces the seeds it wrote before and leaves other files" \
  "[ $rc -eq 0 ] && [ $kept -eq 1 ] && diff -r '$T/seeds-here' '$T/seeds-stale' >/dev/null"
check "fuzz/seeds/ is what fuzz/seeds.sh writes (else: make fuzz-seeds)" "diff -r fuzz/seeds '$T/seeds-cs' >/dev/null"

# mk/fuzz.sh (make fuzz, make fuzz-reader) keeps every reproducer: a run of a sanitizer build and a
# plain one have their own run directories, and a run removes no earlier finding (it reports only
# its own). A stand-in for the libFuzzer binary prints the stat lines and, asked to, a crash file.
mkdir -p "$T/mkf/build/fuzz" "$T/mkf/build/fuzz-address-undefined" "$T/mkf/seeds"
printf '#!/bin/sh\necho stat::number_of_executed_units: 10\necho stat::average_exec_per_sec: 10\n[ -z "${FAKE_CRASH:-}" ] || echo x >"crash-$FAKE_CRASH"\n' \
  >"$T/mkf/build/fuzz/fuzz_fake"
chmod +x "$T/mkf/build/fuzz/fuzz_fake" && cp "$T/mkf/build/fuzz/fuzz_fake" "$T/mkf/build/fuzz-address-undefined/"
(cd "$T/mkf" && FAKE_CRASH=san1 sh "$repo/mk/fuzz.sh" run build/fuzz-address-undefined/fuzz_fake 1 1 seeds) \
  >"$T/o" 2>"$T/e"
rc=$?
run_san=$T/mkf/build/fuzz-run/fuzz_fake-address-undefined
check "mk/fuzz.sh: a finding of a sanitizer build fails the run, its reproducer in the sanitizer run's directory" \
  "[ $rc -eq 1 ] && grep -q 'crash-san1' '$T/e' && [ -f '$run_san/crash-san1' ]"
(cd "$T/mkf" && sh "$repo/mk/fuzz.sh" run build/fuzz/fuzz_fake 1 1 seeds) >"$T/o" 2>"$T/e"
rc=$?
check "mk/fuzz.sh: a plain build's run passes and leaves the sanitizer run's reproducer" \
  "[ $rc -eq 0 ] && [ -f '$run_san/crash-san1' ]"
(cd "$T/mkf" && sh "$repo/mk/fuzz.sh" run build/fuzz-address-undefined/fuzz_fake 1 1 seeds) >"$T/o" 2>"$T/e"
rc=$?
check "mk/fuzz.sh: the next run of the same build keeps the earlier reproducer and reports only its own findings" \
  "[ $rc -eq 0 ] && [ -f '$run_san/crash-san1' ] && grep -q 'no new finding' '$T/o'"

# --expect excuses the failures it lists; a listed one the campaign does not meet is counted in a
# note, not passed over in silence, and changes no status (a campaign cannot show it fixed).
"$CS" fuzz --impl prefix-swap --cases 600 --no-corpus --out "$T/fx" --quiet >"$T/o" 2>"$T/e"
awk '$1 == "FAIL" {print $2, $4}' "$T/o" | sort -u >"$T/fx.expect"
printf 'emit.deterministic kimi\n' >>"$T/fx.expect"
"$CS" fuzz --impl prefix-swap --cases 600 --no-corpus --out "$T/fx" --quiet --expect "$T/fx.expect" >"$T/o" 2>"$T/e"
check "fuzz --expect listing every failure and one more: exit 0, the one counted in a note" \
  "[ $? -eq 0 ] && [ \$(wc -l <'$T/fx.expect') -gt 3 ] && ! grep -q '  FAIL ' '$T/o' && grep -q '^  expected ' '$T/o' &&
   grep -q '^  1 line of --expect met no finding of this campaign: not judged' '$T/o'"

finish
