#!/usr/bin/env bash
# End-to-end tests of the callsign binary: commands, exit statuses, one-line errors, replay tokens
# that reproduce failures, the known-failures list and the reports. Usage: cli.sh path/to/callsign
set -u
CS=${1:-build/san/callsign}
. "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
# An input error: exit status $1 is 2, $T/e one line holding $2, nothing on stdout ($T/o).
one_line_2() { [ "$1" -eq 2 ] && [ "$(wc -l <"$T/e")" -eq 1 ] && grep -qF -- "$2" "$T/e" && ! [ -s "$T/o" ]; }
ROOT="$(dirname "${BASH_SOURCE[0]}")/../.."

"$CS" help >"$T/help" 2>&1
check "help exits 0 and lists run" "[ $? -eq 0 ] && grep -q '^  run ' '$T/help'"
"$CS" frobnicate >"$T/o" 2>"$T/e"
check "unknown command: exit 2, one line" "[ $? -eq 2 ] && [ \$(wc -l <'$T/e') -eq 1 ] && grep -q '^callsign: ' '$T/e'"
"$CS" run --cases abc >"$T/o" 2>"$T/e"
check "bad --cases: exit 2, one line" "[ $? -eq 2 ] && [ \$(wc -l <'$T/e') -eq 1 ]"
# strtod reads "nan" and "inf": numbers that are not finite are refused like any other bad value.
for a in "run --time nan" "run --time inf" "run --min-coverage nan" "probe --provider anthropic --dry-run --rate nan" \
  "probe --provider anthropic --dry-run --rate inf" "collide --impl anthropic-sanitize --memory nan"; do
  # shellcheck disable=SC2086
  "$CS" $a >"$T/o" 2>"$T/e"
  rc=$? opt=${a##*--}
  check "$a: exit 2, one line naming the option" "[ $rc -eq 2 ] && [ \$(wc -l <'$T/e') -eq 1 ] && grep -q -- '--${opt%% *}:' '$T/e'"
done
# Whole numbers are decimal, shards two of them, and a --property must name at least one property.
for a in "run --cases 0x10" "run --cases 5.0" "run --seed -1" "run --shard 1/-1" "run --shard 1/2x" "run --property nope" \
  "run --json="; do
  # shellcheck disable=SC2086
  "$CS" $a >"$T/o" 2>"$T/e"
  rc=$? opt=${a#* --} && opt=${opt%%=*}
  check "$a: exit 2, one line naming the option" "[ $rc -eq 2 ] && [ \$(wc -l <'$T/e') -eq 1 ] && grep -q -- '--${opt%% *}:' '$T/e'"
done
# A directory option refuses '-' rather than make a directory of that name.
CS_ABS=$(cd "$(dirname "$CS")" && pwd)/$(basename "$CS")
for a in "fuzz --impl reference --time 1s --out -" "fuzz --merge - $T" "run --corpus -" "probe --provider anthropic --record - --dry-run"; do
  # shellcheck disable=SC2086
  (cd "$T" && "$CS_ABS" $a >"$T/o" 2>"$T/e")
  rc=$?
  check "$a: exit 2, one line, no directory '-' made" \
    "[ $rc -eq 2 ] && [ \$(wc -l <'$T/e') -eq 1 ] && grep -q -- '-: names a directory' '$T/e' && [ ! -e '$T/-' ]"
done
"$CS" run --impl reference --no-corpus --quiet --property emit.pair --target anthropic --cases 010 >"$T/o" 2>"$T/e"
check "--cases 010 is ten cases" "[ $? -eq 0 ] && grep -q '(cases 10,' '$T/o'"
# The vectors are found from any working directory (a CI job in another repository); a vectors file
# that cannot be read is an input error, not a failure of the implementation.
CS_ABS=$(cd "$(dirname "$CS")" && pwd)/$(basename "$CS")
(cd "$T" && "$CS_ABS" run --impl reference --cases 20 --no-corpus --quiet --property vectors >"$T/o" 2>"$T/e")
check "run from another directory finds the vectors" "[ $? -eq 0 ] && grep -q ' 0 failed, 1 passed' '$T/o'"
"$CS" run --impl reference --cases 20 --no-corpus --quiet --vectors "$T/none.json" >"$T/o" 2>"$T/e"
check "--vectors naming nothing: exit 2, one line, before the run" "[ $? -eq 2 ] && [ \$(wc -l <'$T/e') -eq 1 ] && grep -q 'none.json: cannot open' '$T/e' && ! [ -s '$T/o' ]"
"$CS" replay --impl reference cs1.AQAB --json "$T/rp.json" >"$T/o" 2>"$T/e"
check "replay --json records its own command line" \
  "[ $? -eq 0 ] && python3 -c \"import json,sys; c=json.load(open('$T/rp.json'))['command']; sys.exit(c != 'callsign replay --impl reference cs1.AQAB --json $T/rp.json')\""
# A replayed history case that reaches the vectors frees them, as a run does (no leak report).
printf '{"history":{"turns":[]}}\n' >"$T/empty-case.json"
for f in "$T/empty-case.json" corpus/regressions/mistral-hash9/emit.unique@mistral-64acafa4.json; do
  "$CS" replay --impl reference --property vectors "$f" >"$T/o" 2>"$T/e"
  check "replay --property vectors of ${f##*/}: exit 0, nothing on stderr" "[ $? -eq 0 ] && ! [ -s '$T/e' ] && san_clean"
done
# help lists what a command takes: fuzz has no report files, collide no --cases; run takes --jobs
check "help: no refused option listed" "! \"$CS\" help fuzz | grep -q -- '--json\\|--stats' && \"$CS\" help run | grep -q -- '--jobs' && ! \"$CS\" help collide | grep -q -- '--cases'"
# vectors: one file for every target under the default rules; what it does not take, help leaves out.
"$CS" help vectors >"$T/hv" 2>&1
check "help vectors lists --generate but no --target, --rule or --profile" \
  "grep -q -- '--generate' '$T/hv' && ! grep -q -- '--target\\|--rule\\|--profile' '$T/hv'"
for a in "--target anthropic" "--rule anthropic.max_len=9" "--profile $T/none.txt"; do
  # shellcheck disable=SC2086
  "$CS" vectors $a >"$T/o" 2>"$T/e"
  check "vectors $a: exit 2, one line" "one_line_2 $? 'vectors: ${a%% *} does not apply'"
done
# canon: canonical IDs follow no target's rule, so --rule and --profile are refused, not ignored.
printf '{"turns":[]}' >"$T/no-turns.json"
for a in "--rule anthropic.max_len=12" "--profile $T/none.txt"; do
  # shellcheck disable=SC2086
  "$CS" canon $a "$T/no-turns.json" >"$T/o" 2>"$T/e"
  check "canon $a: exit 2, one line" "one_line_2 $? 'canon: ${a%% *} does not apply'"
done
"$CS" help canon >"$T/hc" 2>&1
check "help canon lists no --rule or --profile, and says it takes no option" \
  "! grep -q -- '--rule\\|--profile' '$T/hc' && grep -q '^  (none)$' '$T/hc'"
# replay runs the one case it is given: --cases 5000 --time 1h ran one case and passed.
for a in "--cases 5000" "--time 1h" "--seed 7"; do
  # shellcheck disable=SC2086
  "$CS" replay --impl reference $a cs1.AA >"$T/o" 2>"$T/e"
  check "replay $a: exit 2, one line" "one_line_2 $? 'replay: ${a%% *} does not apply'"
done
check "help replay lists --deadline and --max-id-len, not --cases, --time or --seed" \
  "\"$CS\" help replay | grep -q -- '--deadline' && \"$CS\" help replay | grep -q -- '--max-id-len' && ! \"$CS\" help replay | grep -q -- '--cases\\|--time\\|--seed'"
"$CS" run --no-corpus --impl-cmd -- "" >"$T/o" 2>"$T/e"
check "--impl-cmd with an empty program name: exit 2, one line" "[ $? -eq 2 ] && [ \$(wc -l <'$T/e') -eq 1 ] && grep -q 'name is empty' '$T/e'"
# A directory or a device is named as such, not as a permission to fix.
for p in "$T:is a directory" "/dev/null:not an executable file"; do
  "$CS" run --no-corpus --quiet --impl-cmd -- "${p%%:*}" >"$T/o" 2>"$T/e"
  check "--impl-cmd -- ${p%%:*}: exit 3, one line saying ${p#*:}" \
    "[ $? -eq 3 ] && [ \$(wc -l <'$T/e') -eq 1 ] && grep -qF \"cannot start '${p%%:*}': ${p#*:}\" '$T/e'"
done
# A vector file that does not say what it holds is refused whole (exit 2), not checked in part.
python3 - "$T" <<'P'
import copy, json, sys
d = json.load(open('corpus/vectors/canonical_v1.json'))
def w(name, x):
    json.dump(x, open('%s/v_%s.json' % (sys.argv[1], name), 'w'))
e = copy.deepcopy(d); e['testGroups'] = []; e['numberOfTests'] = 0; w('empty', e)
e = copy.deepcopy(d); e['numberOfTests'] = 7; w('count', e)
e = copy.deepcopy(d); e['testGroups'][0]['tests'][1]['tcId'] = e['testGroups'][0]['tests'][0]['tcId']; w('dup', e)
e = copy.deepcopy(d); e['testGroups'][0]['tests'][0]['tcId'] = '1'; w('str', e)
e = copy.deepcopy(d); del e['testGroups'][0]['tests'][0]['history']; w('nohist', e)
# Broken expectations are the file's fault, not a mismatch of the implementation that runs against them.
def t0(change):
    e = copy.deepcopy(d); change(e['testGroups'][0]['tests'][0]); return e
w('nocanon', t0(lambda t: t.pop('canonical')))
w('strcanon', t0(lambda t: t.update(canonical='x')))
w('numcanon', t0(lambda t: t['canonical']['calls'].__setitem__(0, 5)))
w('longcanon', t0(lambda t: t['canonical']['results'].append(None)))
w('nowire', t0(lambda t: t.pop('wire')))
w('wirename', t0(lambda t: t['wire'].update(kimi2=t['wire']['kimi'])))
w('shortwire', t0(lambda t: t['wire']['gemini']['calls'].pop()))
# So are a comment that is not a string and flags that are not an array of label names (notes).
w('numcomment', t0(lambda t: t.update(comment=5)))
w('nocomment', t0(lambda t: t.pop('comment')))
w('numflags', t0(lambda t: t.update(flags=5)))
w('noflags', t0(lambda t: t.pop('flags')))
w('numflag', t0(lambda t: t['flags'].append(5)))
w('unknownflag', t0(lambda t: t['flags'].append('id.nosuch')))
# A member named twice is read as its first copy here and as its last by other readers: refused.
def twice(name, old, new):
    s = json.dumps(d)
    assert old in s
    open('%s/v_%s.json' % (sys.argv[1], name), 'w').write(s.replace(old, new, 1))
twice('twicealg', '"algorithm": "callsign-canonical-v1"', '"algorithm": "callsign-canonical-v1", "algorithm": "x"')
twice('twicetc', '"tcId": 1,', '"tcId": 1, "tcId": 2,')
twice('twicecanon', '"canonical": ', '"canonical": {"calls": [], "results": []}, "canonical": ')
twice('twicegroup', '"tests": ', '"tests": [], "tests": ')
# tcIds are held to 1..1e9, and the group type is the one the format defines.
e = copy.deepcopy(d); e['testGroups'][0]['tests'][0]['tcId'] = 1000000001; w('big', e)
e = copy.deepcopy(d); e['testGroups'][0]['type'] = 'Other'; w('other', e)
P
for v in "empty:holds no test" "count:numberOfTests" "dup:appears twice" "str:no whole tcId" "nohist:no history object" \
  "nocanon:tcId 1: canonical is not an object" "strcanon:tcId 1: canonical is not an object" \
  "numcanon:tcId 1: canonical.calls.0. is not a string or null" "longcanon:tcId 1: canonical.results holds" \
  "nowire:tcId 1: wire is not an object" "wirename:tcId 1: wire names .kimi2., not a target" \
  "shortwire:tcId 1: wire.gemini.calls holds 1 IDs, the history has 2 calls" \
  "numcomment:tcId 1: comment is not a string" "nocomment:tcId 1 has no comment" \
  "numflags:tcId 1: flags is not an array of label names" "noflags:tcId 1 has no flags" \
  "numflag:tcId 1: flags.1. is not a label name" "unknownflag:tcId 1: flags.1. .id.nosuch. is not a label name" \
  "twicealg:the member .algorithm. occurs twice" "twicetc:tcId 1 names .tcId. twice" \
  "twicecanon:tcId 1 names .canonical. twice" "twicegroup:a test group names .tests. twice" \
  "big:test 1 has no whole tcId from 1 to 1000000000" "other:a test group.s type is .Other., not .CanonicalHistory."; do
  "$CS" vectors --check "$T/v_${v%%:*}.json" >"$T/o" 2>"$T/e"
  check "vectors --check, ${v%%:*} file: exit 2, one line" "[ $? -eq 2 ] && [ \$(wc -l <'$T/e') -eq 1 ] && grep -q '${v#*:}' '$T/e'"
done
# --generate, which keeps each test's comment and flags, refuses them too rather than write a comment
# of "" or flags that are not labels; the file is left as it was.
for v in numcomment numflags unknownflag; do
  cp "$T/v_$v.json" "$T/v_$v.orig"
  "$CS" vectors --generate "$T/v_$v.json" >"$T/o" 2>"$T/e"
  check "vectors --generate, $v file: exit 2, one line naming the test, file unchanged" \
    "one_line_2 $? '$T/v_$v.json: tcId 1: ' && cmp -s '$T/v_$v.json' '$T/v_$v.orig'"
done
for v in nocanon strcanon numcanon shortwire; do
  "$CS" run --no-corpus --impl reference --cases 5 --quiet --property vectors --vectors "$T/v_$v.json" >"$T/o" 2>"$T/e"
  check "run --vectors, $v file: exit 2, one line naming the file and the test, no run" \
    "[ $? -eq 2 ] && [ \$(wc -l <'$T/e') -eq 1 ] && grep -q '^callsign: $T/v_$v.json: tcId 1: ' '$T/e' && ! [ -s '$T/o' ]"
done
# A test whose history does not parse makes the file unusable: an input error in every command that
# reads it, naming the file and the test, never a disagreement or a failed property.
printf '%s\n' '{"algorithm":"callsign-canonical-v1","numberOfTests":1,"testGroups":[{"type":"CanonicalHistory","tests":[{"tcId":1,"history":{"turns":5}}]}]}' \
  >"$T/v_turns.json"
for a in "vectors" "vectors --generate" "run --impl reference --cases 5 --no-corpus --quiet --property vectors --vectors"; do
  # shellcheck disable=SC2086
  "$CS" $a "$T/v_turns.json" >"$T/o" 2>"$T/e"
  check "$a, a history that does not parse: exit 2, one line" \
    "one_line_2 $? '$T/v_turns.json: tcId 1: history.turns: expected an array'"
done
"$CS" run --impl nosuch >"$T/o" 2>"$T/e"
check "unknown --impl: exit 2" "[ $? -eq 2 ] && grep -q 'unknown implementation' '$T/e'"
# An implementation named twice runs once, however many times --impl repeats it or 'all' covers it.
many=(); for _ in $(seq 64); do many+=(--impl all); done
"$CS" run "${many[@]}" --no-corpus --quiet --cases 1 --property emit.pair --target anthropic >"$T/o" 2>"$T/e"
check "--impl all 64 times: each built-in runs once" \
  "[ $? -le 1 ] && [ \$(grep -c '^== ' '$T/o') -eq \$(\"$CS\" list | sed -n '/^IMPLEMENTATIONS/,/^LABELS/p' | grep -c '^[a-z]') ] && san_clean"
"$CS" run --impl reference --impl all --impl reference --no-corpus --quiet --cases 1 --property emit.pair \
  --target anthropic >"$T/o" 2>"$T/e"
check "--impl reference twice and in all: reference runs once, first" \
  "[ \$(grep -c '^== reference ' '$T/o') -eq 1 ] && grep -m 1 '^== ' '$T/o' | grep -q '^== reference '"
"$CS" run --rule 'anthropic.pattern=(' >"$T/o" 2>"$T/e"
check "bad rule pattern: exit 2, names the pattern" "[ $? -eq 2 ] && grep -q 'does not compile' '$T/e'"
"$CS" run --rule openai_chat.min_len=50 >"$T/o" 2>"$T/e"
check "rule with min_len above max_len: exit 2, one line" \
  "[ $? -eq 2 ] && [ \$(wc -l <'$T/e') -eq 1 ] && grep -q 'rule for openai_chat: min_len 50 is above max_len 40' '$T/e'"
# Overridden lengths, longer or shorter than the defaults: the reference meets them on every target.
"$CS" run --impl reference --cases 300 --no-corpus --quiet --rule openai_chat.max_len=64 --rule openai_chat.min_len=50 \
  --rule anthropic.min_len=64 --rule gemini.min_len=120 --rule 'mistral.pattern=^[a-zA-Z0-9]+$' --rule mistral.max_len=6 \
  --rule mistral.min_len=6 --rule kimi.max_len=16 --rule openai_responses.max_len=12 >"$T/o" 2>"$T/e"
check "overridden lengths: the reference passes every required property" "[ $? -eq 0 ]"

# Paths that exist but are the wrong kind: refused at once with the reason, before any work.
: >"$T/a-file"
mkdir -p "$T/a-dir"
"$CS" run --impl reference --cases 10 --corpus "$T/a-file" >"$T/o" 2>"$T/e"
check "--corpus naming a file: exit 2, one line" "one_line_2 $? \"--corpus: '$T/a-file' is not a directory\""
"$CS" fuzz --impl reference --time 1s --no-corpus --out "$T/a-file" >"$T/o" 2>"$T/e"
check "fuzz --out naming a file: exit 2, one line" "one_line_2 $? \"--out: '$T/a-file' is not a directory\""
"$CS" fuzz --impl reference --time 1s --no-corpus --out /proc >"$T/o" 2>"$T/e"
check "fuzz --out where root cannot write: refused before the campaign" \
  "one_line_2 $? '--out: /proc/summary.json: cannot write: '"
"$CS" fuzz --merge "$T/a-file" "$T/a-dir" >"$T/o" 2>"$T/e"
check "fuzz --merge naming a file: exit 2, one line" "one_line_2 $? \"--merge: '$T/a-file' is not a directory\""
# Paths that can never be made: under a file, or a symbolic link to nothing (the run used to warn
# afterwards that none of its failures could be saved).
ln -s "$T/nowhere" "$T/dangling"
"$CS" run --impl reference --cases 10 --corpus "$T/a-file/sub" >"$T/o" 2>"$T/e"
check "--corpus below a file: exit 2, one line" "one_line_2 $? \"--corpus: '$T/a-file/sub' lies below a file, not a directory\""
"$CS" fuzz --impl reference --time 1s --no-corpus --out "$T/dangling" >"$T/o" 2>"$T/e"
check "fuzz --out naming a dangling link: exit 2, one line" "one_line_2 $? \"--out: '$T/dangling' is a symbolic link to nothing\""
# A merge only joins result directories: a campaign's options given with it would be ignored.
"$CS" fuzz --impl reference --cases 10 --no-corpus --quiet --out "$T/res" >"$T/o" 2>"$T/e"
for a in "--impl reference --jobs 4 --out $T/x" "--quiet" "--jobs=4" "--impl-cmd -- build/adapter-c"; do
  # shellcheck disable=SC2086
  "$CS" fuzz --merge "$T/merged" $a "$T/res" >"$T/o" 2>"$T/e"
  check "fuzz --merge with ${a%% *}: exit 2, one line naming the option" \
    "one_line_2 $? \"fuzz --merge: '\${a%%[ =]*}' does not apply to a merge\" && [ ! -e '$T/merged' ]"
done
"$CS" run --impl reference --cases 10 --no-corpus --expect "$T/a-dir" >"$T/o" 2>"$T/e"
check "--expect naming a directory: exit 2, the reason" "one_line_2 $? \"$T/a-dir: cannot read: Is a directory\""
"$CS" run --impl reference --cases 10 --no-corpus --profile "$T/a-dir" >"$T/o" 2>"$T/e"
check "--profile naming a directory: exit 2, the reason" "one_line_2 $? \"$T/a-dir: cannot read: Is a directory\""
"$CS" run --impl reference --cases 10 --no-corpus --quiet --json "$T/a-dir" >"$T/o" 2>"$T/e"
check "--json naming a directory: refused before the run, one line" "one_line_2 $? \"$T/a-dir: cannot write: Is a directory\""
# Report paths are checked before the run: a long run must not end in a report that cannot be written.
"$CS" run --impl reference --cases 10 --no-corpus --quiet --junit "$T/a-file/r.xml" >"$T/o" 2>"$T/e"
check "--junit below a file: refused before the run, one line" "one_line_2 $? \"$T/a-file: cannot create: Not a directory\""
# access() says yes to root anywhere: the file itself is opened, and a new one removed again.
for opt in junit json markdown html failures; do
  "$CS" run --impl reference --cases 10 --no-corpus --quiet --$opt /proc/callsign-r.out >"$T/o" 2>"$T/e"
  check "--$opt in /proc: refused before the run, one line" "one_line_2 $? '/proc/callsign-r.out: cannot write: '"
done
"$CS" run --impl reference --cases 10 --no-corpus --quiet --json "$T/new.json" --vectors "$T/none.json" >"$T/o" 2>"$T/e"
check "a run refused after the report check leaves no report file" "one_line_2 $? 'none.json: cannot open' && ! [ -e '$T/new.json' ]"
# Reports are written one after the other: two in one file, or one option twice, would lose one.
(cd "$T" && "$CS_ABS" run --impl reference --cases 10 --no-corpus --quiet --junit same.out --json ./same.out >o 2>e)
check "--junit and --json naming one file: refused before the run, one line" \
  "one_line_2 $? '--junit same.out and --json ./same.out are the same file' && ! [ -e '$T/same.out' ]"
# Error messages quote input: its control characters and bidirectional overrides are shown escaped.
printf '{"turns":[{"role":"A\\u001b[2J\\u009b\\u202eB"}]}' | "$CS" canon >"$T/o" 2>"$T/e"
check "canon, a role holding ESC, CSI and U+202E: one line, each shown escaped" \
  "one_line_2 $? 'unknown role \"A\\u001B[2J\\u009B\\u202EB\"' && ! grep -q \$'\\x1b\\|\\xc2\\x9b\\|\\xe2\\x80\\xae' '$T/e'"
# A vector the implementation disagrees with is reported as what it is: no seed or case number, its
# history's size, the answer, and the IDs quoted and escaped.
python3 - "$ROOT/corpus/vectors/canonical_v1.json" "$T/vec_bad.json" <<'P'
import json, sys
d = json.load(open(sys.argv[1]))
d["testGroups"][0]["tests"][0]["canonical"]["calls"][0] = "bad\nid"
json.dump(d, open(sys.argv[2], "w"))
P
"$CS" run --impl reference --cases 5 --no-corpus --quiet --property vectors --vectors "$T/vec_bad.json" --json "$T/vb.json" \
  >"$T/o" 2>"$T/e"
check "a vector the implementation disagrees with: exit 1, no seed or case, the vector's size and the answer" \
  "[ $? -eq 1 ] && grep -q '    a canonical v1 vector (not shrunk): ' '$T/o' && grep -qF 'expected \"bad\\u000aid\", got \"' '$T/o' && python3 -c \"import json
f=[c['failure'] for c in json.load(open('$T/vb.json'))['implementations'][0]['cells'] if c['failure']][0]
h=json.loads(f['history_json'])
assert f['seed'] is None and f['case_index'] is None and f['shrink_steps']==0, f
assert f['shrunk_turns']==len(h['turns']) and f['shrunk_calls']==sum(len(t.get('calls',[])) for t in h['turns']), f
assert json.loads(f['answer_json'])['calls'], f\""
# A vector has no token: its failure is replayed by checking the same file again. Every report
# carries that command, with the file quoted for the shell; the contract names the file used; and
# the command, pasted, reproduces the failure, for a built-in and for an --impl-cmd program alike.
cp "$T/vec_bad.json" "$T/vec bad's.json"
cat >"$T/vr_check.py" <<'P'
import html, json, sys
t, printed = sys.argv[1], sys.argv[2]
cell = [c for c in json.load(open(t + "/vr.json"))["implementations"][0]["cells"] if c["failure"]][0]
assert cell["failure"]["replay"] == printed and cell["failure"]["token"] is None, cell["failure"]
want = "byte-exact agreement with " + t + "/vec bad's.json (only for implementations claiming the scheme)"
assert cell["contract"] == want, cell["contract"]
for ext in ("xml", "html"):
    assert printed in html.unescape(open(t + "/vr." + ext).read()), ext
assert "\n" + printed + "\n" in open(t + "/vr.md").read(), "md"
P
vector_replay() { # LABEL WANT IMPL-ARGS...: the run and its reports, then its replay command run
  local label=$1 want=$2 rc replay
  shift 2
  "$CS" run --no-corpus --quiet --property vectors --vectors "$T/vec bad's.json" --json "$T/vr.json" \
    --junit "$T/vr.xml" --markdown "$T/vr.md" --html "$T/vr.html" "$@" >"$T/o" 2>"$T/e"
  rc=$?
  replay=$(sed -n 's/^ *replay: *//p' "$T/o")
  check "a vector failure of $label: exit 1, replayed by checking the file again, the same in every report" \
    "[ $rc -eq 1 ] && [ \"\$replay\" = \"\$want\" ] && python3 '$T/vr_check.py' '$T' \"\$replay\""
  eval "\"$CS\" ${replay#callsign }" >"$T/o" 2>"$T/e"
  check "and pasting it reproduces the failure (exit 1)" "[ $? -eq 1 ] && grep -qF 'expected \"bad\\u000aid\", got' '$T/o'"
}
quoted="'$T/vec bad'\\''s.json'"
vector_replay "a built-in" "callsign run --impl reference --property vectors.canonical_v1 --vectors $quoted" \
  --impl reference
vector_replay "an external program" "callsign run --property vectors.canonical_v1 --vectors $quoted --impl-cmd -- \
python3 tests/fixtures/proto_echo.py --ops canonicalize --scheme callsign-canonical-v1 --name 'my impl'" \
  --impl-cmd -- python3 tests/fixtures/proto_echo.py --ops canonicalize --scheme callsign-canonical-v1 --name "my impl"
(cd "$T" && "$CS_ABS" run --impl reference --cases 10 --no-corpus --quiet --json - >o 2>e)
check "--json -: refused, one line, no file named '-'" \
  "one_line_2 $? '--json -: a report is written to a file (/dev/stdout for standard output)' && ! [ -e '$T/-' ]"
# A report must not overwrite an input of the run; --failures may rewrite the --expect list.
echo "normalize.idempotent mistral" >"$T/in.expect"
echo "mistral.max_len=9" >"$T/in.profile"
cp "$ROOT/corpus/vectors/canonical_v1.json" "$T/in.vectors"
for pair in "json|expect|in.expect" "markdown|profile|in.profile" "junit|vectors|in.vectors"; do
  IFS='|' read -r rep inp file <<<"$pair"
  cp "$T/$file" "$T/$file.before"
  "$CS" run --impl reference --target mistral --cases 10 --no-corpus --quiet --$inp "$T/$file" --$rep "$T/$file" >"$T/o" 2>"$T/e"
  check "--$rep naming the --$inp file: refused, one line, the file as it was" \
    "one_line_2 $? '--$rep $T/$file is the --$inp file: the report would overwrite what the run reads' && cmp -s '$T/$file' '$T/$file.before'"
done
"$CS" run --impl reference --target mistral --cases 10 --no-corpus --quiet --expect "$T/in.expect" --failures "$T/in.expect" \
  >"$T/o" 2>"$T/e"
check "--failures naming the --expect file: the list is rewritten (exit 0)" \
  "[ $? -eq 0 ] && grep -q '^normalize.idempotent mistral reference' '$T/in.expect'"
"$CS" run --impl reference --cases 10 --no-corpus --quiet --json "$T/r1.json" --json "$T/r2.json" >"$T/o" 2>"$T/e"
check "--json given twice: refused, one line" "one_line_2 $? '--json given twice'"
"$CS" probe --provider mistral --dry-run --json "$T/p.out" --markdown "$T/p.out" >"$T/o" 2>"$T/e"
check "probe --json and --markdown naming one file: refused before any request" \
  "one_line_2 $? '--json $T/p.out and --markdown $T/p.out are the same file'"
"$CS" replay --impl reference --html "$T/a-dir" cs1.AAAA >"$T/o" 2>"$T/e"
check "replay --html naming a directory: refused before the replay" "one_line_2 $? \"$T/a-dir: cannot write: Is a directory\""
"$CS" probe --provider mistral --dry-run --markdown "$T/a-file/p.md" >"$T/o" 2>"$T/e"
check "probe --markdown below a file: refused before any request" "one_line_2 $? \"$T/a-file: cannot create: Not a directory\""
"$CS" run --impl reference --cases 10 --no-corpus --quiet --json "$T/made/for/it/r.json" >"$T/o" 2>"$T/e"
check "a report's missing directories are made" "[ $? -eq 0 ] && python3 -m json.tool '$T/made/for/it/r.json' >/dev/null"
for cmd in run fuzz collide; do
  "$CS" $cmd --impl reference --target anthropic --no-corpus --corpus "$T/corp" >"$T/o" 2>"$T/e"
  check "$cmd --no-corpus --corpus DIR: refused, one line" "one_line_2 $? '--no-corpus and --corpus: give one of them'"
done
# A command refused before its work takes back the directories it made for its reports.
"$CS" run --impl reference --cases 10 --no-corpus --quiet --json "$T/gone1/a/r.json" --junit "$T/gone1/a/./r.json" >"$T/o" 2>"$T/e"
check "run refused at its second report: the first one's directories are gone" \
  "one_line_2 $? 'are the same file' && [ ! -e '$T/gone1' ]"
"$CS" run --impl reference --cases 10 --no-corpus --quiet --json "$T/gone2/a/r.json" --vectors "$T/no-vectors.json" >"$T/o" 2>"$T/e"
check "run refused for its --vectors file: no report directory made" "one_line_2 $? 'no-vectors.json' && [ ! -e '$T/gone2' ]"
env -u MISTRAL_API_KEY "$CS" probe --provider mistral --json "$T/gone3/p.json" --record "$T/gone3/tape" >"$T/o" 2>"$T/e"
check "probe refused for a missing key: neither report nor cassette directory made" \
  "one_line_2 $? 'probe: set MISTRAL_API_KEY' && [ ! -e '$T/gone3' ]"
"$CS" probe --provider anthropic --replay "$T/a-file" >"$T/o" 2>"$T/e"
check "probe --replay naming a file: exit 2, one line" "one_line_2 $? \"$T/a-file: cannot replay: not a directory\""
"$CS" probe --provider anthropic --replay "$T/no-such-dir" >"$T/o" 2>"$T/e"
check "probe --replay naming nothing: exit 2, one line" "one_line_2 $? \"$T/no-such-dir: cannot replay: No such file or directory\""
# A corpus whose implementation directory is a file (the run's own --corpus is refused below a file).
mkdir -p "$T/file-corpus" && : >"$T/file-corpus/reference"
"$CS" run --impl reference --cases 5 --quiet --corpus "$T/file-corpus" >"$T/o" 2>"$T/e"
check "a corpus that cannot be written: one warning counting the failures not saved, not one per failure" \
  "[ \$(grep -c 'warning: reference: [0-9]* failures not saved to the corpus' '$T/e') -eq 1 ] && [ \$(wc -l <'$T/e') -eq 2 ] &&
   grep -q 'cannot read the corpus directory .*: Not a directory' '$T/e'"

# --max-id-len is bounded: IDs near 4 GiB exhausted memory, and 0 silently meant the default.
for v in 0 1048577 4294967295; do
  "$CS" run --no-corpus --impl reference --cases 20 --quiet --max-id-len $v >"$T/o" 2>"$T/e"
  check "--max-id-len $v: exit 2, one line" "one_line_2 $? '--max-id-len: must be 1 to 1048576'"
done
"$CS" run --no-corpus --impl reference --cases 20 --quiet --max-id-len 1048576 >"$T/o" 2>"$T/e"
check "--max-id-len 1048576 (the bound) runs" "[ $? -eq 0 ]"
# A token regenerates its case under the run's bound: under another one the corpus is another set of
# cases, and what such a run finds would replay as other cases: the corpus is left alone, with a note.
mkdir -p "$T/bound"
# A server call keeps its whole ID under any bound: cut to "s", it broke the server rule for
# anthropic-sanitize, which keeps server IDs, and passed prefix-swap, which does not.
"$CS" run --no-corpus --seed 3 --cases 1500 --max-id-len 1 --impl prefix-swap --impl anthropic-sanitize \
  --property emit.server_passthrough --property emit.regex --target anthropic --json "$T/srv.json" >/dev/null 2>&1
check "--max-id-len 1: server IDs stay whole (prefix-swap fails emit.server_passthrough, anthropic-sanitize keeps emit.regex)" \
  "python3 -c \"import json
v = {(i['name'], c['property']): c['verdict'] for i in json.load(open('$T/srv.json'))['implementations'] for c in i['cells'] if c['target'] == 'anthropic'}
assert v[('prefix-swap', 'emit.server_passthrough')] == 'fail', v
assert v[('anthropic-sanitize', 'emit.regex')] == 'pass', v\""
"$CS" run --impl prefix-swap --cases 300 --quiet --max-id-len 8 --corpus "$T/bound" >"$T/o" 2>"$T/e"
check "--max-id-len 8: failures found, nothing saved to the corpus, one note saying why" \
  "[ $? -eq 1 ] && [ -z \"\$(ls -A '$T/bound')\" ] && [ \$(grep -c 'note: --max-id-len 8: the regression corpus is neither replayed nor saved' '$T/e') -eq 1 ]"
"$CS" run --impl prefix-swap --cases 300 --quiet --max-id-len 65536 --corpus "$T/bound" >"$T/o" 2>"$T/e"
check "--max-id-len 65536 (the default): the corpus is used" "[ $? -eq 1 ] && [ -n \"\$(ls -A '$T/bound')\" ] && ! grep -q note '$T/e'"
# A case saved under the default bound replayed under another one is another case: refused, as
# the other way round is (it ran and passed). A file read from a pipe is no replay command's.
bcase=$(ls "$T"/bound/prefix-swap/*.json | head -n 1)
"$CS" replay --impl prefix-swap --max-id-len 10 "$bcase" >"$T/o" 2>"$T/e"
check "replay of a default-bound case with --max-id-len 10: exit 2, one line" \
  "one_line_2 $? 'was found under --max-id-len 65536; --max-id-len 10 would replay another case'"
"$CS" replay --impl prefix-swap --max-id-len 65536 "$bcase" >"$T/o" 2>"$T/e"
check "and with --max-id-len 65536 it replays (exit 1)" "[ $? -eq 1 ]"
bproperty=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['property'])" "$bcase")
printf '{"property":"%s","history":%s}' "$bproperty" \
  "$(python3 -c "import json,sys; print(json.dumps(json.load(open(sys.argv[1]))['history']))" "$bcase")" >"$T/lit.json"
"$CS" replay --impl prefix-swap "$T/lit.json" >"$T/o" 2>"$T/e"
check "a literal case file replayed: its replay command names the file" "[ $? -eq 1 ] && grep -q 'replay: .*lit.json' '$T/o'"
"$CS" replay --impl prefix-swap <(cat "$T/lit.json") >"$T/o" 2>"$T/e"
check "the same case read from a pipe: it fails, and no replay command names the pipe" \
  "[ $? -eq 1 ] && grep -q FAIL '$T/o' && ! grep -q 'replay: ' '$T/o'"

# A timeout under a short --deadline is reproduced only under it: the replay command carries it.
"$CS" run --cases 2 --no-corpus --quiet --deadline 100 --target anthropic --property emit.regex \
  --impl-cmd -- python3 tests/fixtures/proto_echo.py --slow 0.2 >"$T/dl.txt" 2>"$T/dl.err"
dl_replay=$(sed -n 's/^ *replay: *//p' "$T/dl.txt" | head -n 1)
check "a timeout's replay command names --deadline 100" "[ -n \"\$dl_replay\" ] && echo \"\$dl_replay\" | grep -q -- '--deadline 100 '"
eval "\"$CS\" ${dl_replay#callsign }" >"$T/o" 2>"$T/e"
check "and running it reproduces the timeout (exit 1)" "[ $? -eq 1 ] && grep -q 'timeout' '$T/o'"

# --deadline 0 silently meant 5000 ms; a value past 2^32 was called "not a whole number".
for v in 0 3600001; do
  "$CS" run --no-corpus --cases 5 --quiet --deadline $v --impl-cmd -- build/adapter-c >"$T/o" 2>"$T/e"
  check "--deadline $v: exit 2, one line" "one_line_2 $? '--deadline: must be 1 to 3600000 milliseconds'"
done
"$CS" run --no-corpus --cases 5 --quiet --deadline 4294967296 --impl-cmd -- build/adapter-c >"$T/o" 2>"$T/e"
check "--deadline 4294967296: named as too large" "one_line_2 $? \"--deadline: '4294967296' is more than 4294967295\""

# --cases 0 silently ran the default: 2000 cases in run, a ten-minute campaign in fuzz.
"$CS" run --no-corpus --impl reference --quiet --cases 0 >"$T/o" 2>"$T/e"
check "run --cases 0: exit 2, one line" "one_line_2 $? '--cases: must be at least 1'"
timeout 60 "$CS" fuzz --no-corpus --impl reference --quiet --cases 0 --out "$T/fuzz0" >"$T/o" 2>"$T/e"
check "fuzz --cases 0: exit 2, one line" "one_line_2 $? '--cases: must be at least 1'"
"$CS" run --no-corpus --impl reference --quiet --property emit.pair --target anthropic --cases 1 >"$T/o" 2>"$T/e"
check "run --cases 1 runs one case" "[ $? -eq 0 ] && grep -q '(cases 1,' '$T/o'"

# --time 0 meant no limit in run and the default ten minutes in fuzz.
for c in run fuzz; do
  timeout 60 "$CS" $c --no-corpus --impl reference --time 0 >"$T/o" 2>"$T/e"
  check "$c --time 0: exit 2, one line" "one_line_2 $? '--time: must be more than 0'"
done

# A budget of no request is refused, not turned into the default budget of 50.
"$CS" probe --provider anthropic --dry-run --max-requests 0 >"$T/o" 2>"$T/e"
check "probe --max-requests 0: exit 2, one line" "one_line_2 $? '--max-requests: must be at least 1'"

# --rate is bounded: 1e-9 paused the probe for years between requests, and 1e-300 overflowed the
# conversion of that pause to a time_t.
for v in 1e-300 1e-9 0.0099 1001 1e300; do
  "$CS" probe --provider anthropic --dry-run --rate $v >"$T/o" 2>"$T/e"
  check "probe --rate $v: exit 2, one line" "one_line_2 $? '--rate: must be 0.01 to 1000 requests per second'"
done
for v in 0.01 1000; do
  "$CS" probe --provider anthropic --dry-run --max-requests 1 --rate $v >"$T/o" 2>"$T/e"
  check "probe --rate $v (a bound) is taken" "[ $? -eq 0 ] && grep -q '1 printed' '$T/o'"
done

# Output that cannot be written is an error, whatever the command: a full disk must not pass for a
# printed matrix. It turns 0 or 1 into 2; a 3 (the implementation could not be run) stands.
if [ -w /dev/full ]; then
  printf '{"turns":[{"role":"assistant","calls":[{"id":"a","name":"x"}]}]}' >"$T/full.json"
  for a in "canon $T/full.json" "emit --target mistral $T/full.json" "list" "vectors" \
    "run --impl reference --cases 10 --no-corpus" "run --impl prefix-swap --cases 10 --no-corpus" \
    "replay --impl reference cs1.AQAB" "help" "--version"; do
    # shellcheck disable=SC2086
    "$CS" $a >/dev/full 2>"$T/e"
    check "${a//$T\//} >/dev/full: exit 2, one line" \
      "[ $? -eq 2 ] && [ \$(wc -l <'$T/e') -eq 1 ] && grep -q '^callsign: stdout: ' '$T/e'"
  done
  "$CS" run --no-corpus --cases 10 --impl-cmd -- "$T/no-such-program" >/dev/full 2>"$T/e"
  check "an implementation that cannot run, stdout full: exit 3 stands" "[ $? -eq 3 ] && ! grep -q 'stdout:' '$T/e'"
  # Reports say so too, and a report that cannot be written keeps none of the others from being
  # written: each says exit status 2, as the process does.
  echo STALE >"$T/st.json" && echo STALE >"$T/st.md"
  "$CS" run --impl reference --cases 10 --no-corpus --quiet --junit /dev/full --json "$T/st.json" \
    --markdown "$T/st.md" >"$T/o" 2>"$T/e"
  check "--junit /dev/full: exit 2, one line; the JSON and Markdown reports written, saying exit 2" \
    "[ $? -eq 2 ] && [ \$(wc -l <'$T/e') -eq 1 ] && grep -q '/dev/full: cannot write: No space' '$T/e' &&
     python3 -c \"import json,sys; d=json.load(open('$T/st.json')); sys.exit(not (d['exit_status']==2 and d['output_error']))\" &&
     grep -q 'an output could not be written' '$T/st.md'"
  "$CS" run --impl reference --cases 10 --no-corpus --json "$T/st.json" >/dev/full 2>"$T/e"
  check "stdout full: the JSON report says exit status 2" \
    "[ $? -eq 2 ] && grep -q '^callsign: stdout: ' '$T/e' && grep -q '\"exit_status\": 2' '$T/st.json'"
fi
abs_cs="$(cd "$(dirname "$CS")" && pwd)/$(basename "$CS")"
# A report another user owns in a sticky directory (/tmp) can be written but not replaced: it is
# written over in place (as root, run as nobody).
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
  mkdir -p "$T/sticky" && chmod 1777 "$T/sticky" "$T" && echo old >"$T/sticky/r.json" && chmod 666 "$T/sticky/r.json"
  # nobody may not reach the build directory (a clone in a private temporary directory): a copy in $T
  cp "$abs_cs" "$T/cs-copy" && chmod 755 "$T/cs-copy"
  (cd "$T/sticky" && setpriv --reuid=65534 --regid=65534 --clear-groups "$T/cs-copy" run --impl reference --no-corpus \
    --cases 5 --quiet --property emit.regex --target anthropic --json r.json >/dev/null 2>"$T/e")
  check "a report in a sticky directory owned by another user: written over, exit 0" \
    "[ $? -eq 0 ] && grep -q '\"exit_status\": 0' '$T/sticky/r.json' && [ \$(ls -A '$T/sticky' | wc -l) -eq 1 ]"
fi
# A closed stdout pipe and a file size limit are output errors like a full disk, not a death by
# signal: the reports are written (each whole or not at all) and the exit status is 2.
("$CS" run --impl reference --no-corpus --cases 50 --json "$T/pipe.json" 2>"$T/e"; echo $? >"$T/pipe.rc") | true
check "stdout a closed pipe: exit 2, the report written saying 2" \
  "[ \$(cat '$T/pipe.rc') -eq 2 ] && grep -q '\"exit_status\": 2' '$T/pipe.json'"
mkdir -p "$T/fsz"
(cd "$T/fsz" && ulimit -f 20 && "$abs_cs" run --impl reference --no-corpus --cases 50 --quiet --json r.json \
  --markdown r.md >/dev/null 2>"$T/e"; echo $? >"$T/fsz.rc")
check "a file size limit: exit 2, the JSON not written (no temporary file), the Markdown written" \
  "[ \$(cat '$T/fsz.rc') -eq 2 ] && grep -q 'r.json: cannot write: File too large' '$T/e' && [ \"\$(ls -A '$T/fsz')\" = r.md ]"
# /dev/stdout (a link to what stdout was redirected to) is written through, not replaced.
"$CS" run --impl reference --no-corpus --cases 5 --quiet --json /dev/stdout >"$T/through.txt" 2>"$T/e"
check "--json /dev/stdout: the report follows the terminal output in the redirected file" \
  "[ $? -eq 0 ] && grep -q 'callsign: 1 implementation' '$T/through.txt' && grep -q '\"schema\": \"callsign-report/1\"' '$T/through.txt'"
# A report is written whole or not at all: a write cut off by a file size limit leaves the report
# that was there before, and no temporary file beside it.
mkdir -p "$T/whole" && echo '{"old": true}' >"$T/whole/r.json"
(
  trap '' XFSZ
  ulimit -f 16
  "$CS" run --impl prefix-swap --cases 20 --no-corpus --quiet --json "$T/whole/r.json" >/dev/null 2>"$T/e"
  echo $? >"$T/whole.rc"
)
check "a report cut off by a size limit: exit 2, one line, the old report whole, no temporary file" \
  "[ \$(cat '$T/whole.rc') -eq 2 ] && [ \$(wc -l <'$T/e') -eq 1 ] && grep -q 'r.json: cannot write: File too large' '$T/e' &&
   [ \"\$(cat '$T/whole/r.json')\" = '{\"old\": true}' ] && [ \$(ls -A '$T/whole' | wc -l) -eq 1 ]"
# A selection that leaves nothing to check is an input error, not a pass: no implementation has an
# operation for the targets (anthropic-sanitize emits for anthropic only), or the shard holds no case.
"$CS" run --impl anthropic-sanitize --no-corpus --cases 50 --target kimi --target mistral --json "$T/none.json" >"$T/o" 2>"$T/e"
check "targets no implementation serves: exit 2, one line; protocol.answer not applicable either" \
  "[ $? -eq 2 ] && [ \$(wc -l <'$T/e') -eq 1 ] && grep -q 'nothing to check' '$T/e' &&
   python3 -c \"import json,sys; d=json.load(open('$T/none.json')); c=d['implementations'][0]['cells']; sys.exit(not (d['exit_status']==2 and 'nothing to check' in d['input_error'] and all(x['verdict']=='not_applicable' for x in c)))\""
"$CS" run --impl all --no-corpus --cases 50 --target kimi --quiet >"$T/o" 2>"$T/e"
check "with one implementation that has something to check, the run is judged as usual" "[ $? -eq 1 ] && ! grep -q 'nothing to check' '$T/e'"
"$CS" run --impl reference --no-corpus --cases 2 --shard 2/3 >"$T/o" 2>"$T/e"
check "--shard past the last case: exit 2, one line" "one_line_2 $? 'shard 2 holds none (shards 0 to 1 do)'"
"$CS" run --impl reference --no-corpus --shard 1999/2000 --quiet >"$T/o" 2>"$T/e"
check "--shard 1999/2000 of the default 2000 cases runs its one case" "[ $? -eq 0 ] && grep -q 'cases 1,' '$T/o'"
"$CS" run --impl reference --no-corpus --shard 2/4294967296 >"$T/o" 2>"$T/e"
check "--shard with N past 32 bits: exit 2, the message states the limit" "one_line_2 $? 'with 0 <= I < N <= 4294967295'"
# A --time too short for one case checked nothing: exit 2 as fuzz does, in the report too, for an
# implementation with only per-case properties and for the reference, whose vectors pass without cases.
for impl in prefix-swap reference; do
  "$CS" run --impl $impl --no-corpus --quiet --time 0.000001 --json "$T/t.json" >"$T/o" 2>"$T/e"
  check "run --impl $impl --time 0.000001: exit 2, one line, the report says so" \
    "[ $? -eq 2 ] && [ \$(wc -l <'$T/e') -eq 1 ] && grep -qF 'run: $impl: no case was run within --time 1e-06s' '$T/e' &&
     python3 -c \"import json,sys; d=json.load(open('$T/t.json')); sys.exit(not (d['exit_status']==2 and 'no case was run' in d['input_error']))\""
done
# A recommended property fails a --strict run only: its replay command carries --strict, so it
# fails again when pasted; a required property's does not need it.
"$CS" run --impl reference --no-corpus --quiet --cases 100 --strict --json "$T/st.json" >"$T/o" 2>"$T/e"
rc=$?
line=$(python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(next(c['failure']['replay'] for i in d['implementations'] for c in i['cells'] if c.get('failure')))" "$T/st.json")
check "a --strict run's replay of a recommended property carries --strict" \
  "[ $rc -eq 1 ] && case '$line' in *' --property normalize.'*' --strict '*) true ;; *) false ;; esac"
# shellcheck disable=SC2086
"$CS" ${line#callsign } --quiet >"$T/o" 2>"$T/e"
check "the replay command as printed fails again (exit 1)" "[ $? -eq 1 ]"
"$CS" run --impl reference --no-corpus --quiet --property vectors --time 5s >"$T/o" 2>"$T/e"
check "run --property vectors --time 5s: the vectors need no case, exit 0" "[ $? -eq 0 ] && grep -q ' 0 failed, 1 passed' '$T/o' && ! [ -s '$T/e' ]"
# An emoji with its variation selector is one printable word: a --failures line keeps the name.
"$CS" run --no-corpus --quiet --cases 50 --property emit.regex --target anthropic --failures "$T/emoji.txt" \
  --impl-cmd -- python3 tests/fixtures/proto_echo.py --name $'fast\xe2\x9a\xa1\xef\xb8\x8f' >"$T/o" 2>"$T/e"
check "--failures keeps a name with an emoji and its variation selector" \
  "[ $? -eq 1 ] && grep -qx $'emit.regex anthropic fast\xe2\x9a\xa1\xef\xb8\x8f' '$T/emoji.txt'"
# Vectors read from stdin: the contract says so, and no replay command would read them again.
python3 -c "import json,sys; d=json.load(open(sys.argv[1])); d['testGroups'][0]['tests'][0]['canonical']['calls'][0]='hist_tool_'+'x'*24; json.dump(d,open(sys.argv[2],'w'))" \
  corpus/vectors/canonical_v1.json "$T/vstdin.json"
"$CS" run --impl reference --no-corpus --quiet --property vectors --vectors - --json "$T/vstdin-r.json" <"$T/vstdin.json" >"$T/o" 2>"$T/e"
check "run --vectors - with a failing vector: exit 1, the contract names stdin, no replay command" \
  "[ $? -eq 1 ] && grep -q 'contract: byte-exact agreement with the vectors read from stdin' '$T/o' && ! grep -q 'replay:' '$T/o' &&
   python3 -c \"import json,sys; c=[c for c in json.load(open('$T/vstdin-r.json'))['implementations'][0]['cells'] if c['property']=='vectors.canonical_v1'][0]; sys.exit(not (c['failure']['replay'] is None and 'stdin' in c['contract']))\""
"$CS" canon '' >"$T/o" 2>"$T/e"
check "canon '': exit 2, one line saying the file name is empty" "one_line_2 $? 'an empty file name (give a file, or - for stdin)'"

# replay: a saved literal case's failure names its file to replay it by; a selection with nothing
# to check is exit 2 as in run; an implementation that could not run stays exit 3 when a report
# cannot be written, as its reports say.
lit=$(ls corpus/regressions/mistral-hash9/emit.unique@mistral-*.json | head -n 1)
"$CS" replay --impl mistral-hash9 "$lit" --quiet >"$T/o" 2>"$T/e"
check "replay of a literal case file: exit 1, its replay line names the file" \
  "[ $? -eq 1 ] && grep -qF 'replay:  callsign replay --impl mistral-hash9 --property emit.unique --target mistral $lit' '$T/o'"
"$CS" replay --impl reference --target kimi --property normalize cs1. --quiet >"$T/o" 2>"$T/e"
check "replay with nothing to check: exit 2, one line" "[ $? -eq 2 ] && [ \$(wc -l <'$T/e') -eq 1 ] && grep -q 'nothing to check' '$T/e'"
if [ -w /dev/full ]; then
  "$CS" replay --json "$T/r3.json" --junit /dev/full cs1. --impl-cmd -- "$T/no-such-program" >"$T/o" 2>"$T/e"
  check "replay: cannot start, a report unwritable: exit 3, as the JSON says" \
    "[ $? -eq 3 ] && grep -q '\"exit_status\": 3' '$T/r3.json'"
fi

# Option parsing: a value that is an option is a missing value; times and sizes are decimal;
# `COMMAND --help` is `help COMMAND`; vectors --check finds the vectors from anywhere, as run does.
"$CS" run --impl reference --no-corpus --cases 3 --json --quiet >"$T/o" 2>"$T/e"
check "--json --quiet: exit 2, --json needs a value" "one_line_2 $? \"--json needs a value (got the option '--quiet'\""
for v in 0x2m ' 2s' inf; do
  "$CS" run --impl reference --no-corpus --cases 3 --time "$v" >"$T/o" 2>"$T/e"
  check "--time '$v': exit 2" "one_line_2 $? 'is not a duration'"
done
"$CS" run --help >"$T/o" 2>"$T/e"
check "run --help is help run" "[ $? -eq 0 ] && grep -q '^usage: callsign run' '$T/o'"
"$CS" help list >"$T/o" 2>"$T/e"
check "help list names --markdown" "[ $? -eq 0 ] && grep -q -- '--markdown' '$T/o'"
(cd "$T" && "$abs_cs" vectors >"$T/o" 2>"$T/e")
rc=$?
nvec=$(python3 -c 'import json,sys;print(json.load(open(sys.argv[1]))["numberOfTests"])' corpus/vectors/canonical_v1.json)
check "vectors from another directory finds them by the binary (all $nvec tests)" \
  "[ $rc -eq 0 ] && grep -q ' $nvec tests' '$T/o'"

# A command that takes no more arguments says so instead of ignoring the rest.
for a in "list --markdown x" "help run extra" "--help run extra" "--version x"; do
  # shellcheck disable=SC2086
  "$CS" $a >"$T/o" 2>"$T/e"
  check "$a: exit 2, one line" "one_line_2 $? \"unexpected argument '\${a##* }'\""
done
"$CS" --help run >"$T/o" 2>"$T/e"
check "--help run is help run" "[ $? -eq 0 ] && \"$CS\" help run | cmp -s - '$T/o'"
"$CS" list >"$T/list" 2>&1
check "list shows every target" "(for t in anthropic openai_chat openai_responses mistral kimi gemini bedrock; do grep -q \"^\$t \" '$T/list' || exit 1; done)"
check "list shows properties and implementations" "grep -q 'emit.pair' '$T/list' && grep -q 'anthropic-sanitize' '$T/list'"

cat >"$T/h.json" <<'J'
{"turns":[{"role":"user","text":"hi"},
 {"role":"assistant","provider":"kimi","turn_key":"k1","calls":[{"id":"functions.glob:0","name":"glob","args":{}},{"id":null,"name":"read_file"}]},
 {"role":"tool","turn_key":"k2","results":[{"call_id":"functions.glob:0","name":"glob","content":"a.c"},{"call_id":null,"name":"read_file","content":"x"}]}]}
J
"$CS" canon "$T/h.json" >"$T/c" 2>"$T/e"
check "canon prints canonical IDs, results paired" "python3 - '$T/c' <<'P'
import json,re,sys
d=json.load(open(sys.argv[1]))
assert len(d['calls'])==2 and all(re.fullmatch(r'hist_tool_[A-Za-z0-9_-]{24}',c) for c in d['calls'])
assert d['results']==d['calls']
P"
"$CS" emit --target kimi "$T/h.json" >"$T/k" 2>"$T/e"
check "emit kimi keeps Kimi's own IDs" "python3 -c \"import json;d=json.load(open('$T/k'));assert d['calls'][0]=='functions.glob:0' and d['calls'][1]=='functions.read_file:1', d\""
"$CS" emit --target mistral <"$T/h.json" >"$T/m" 2>"$T/e"
check "emit mistral from stdin: 9 alnum" "python3 -c \"import json,re;d=json.load(open('$T/m'));assert all(re.fullmatch('[A-Za-z0-9]{9}',c) for c in d['calls'])\""
"$CS" emit "$T/h.json" >"$T/o" 2>"$T/e"
check "emit without --target: exit 2" "[ $? -eq 2 ]"
printf '{"turns":[{"role":"assistant","calls":[{"id":5,"name":"x"}]}]}' >"$T/bad.json"
"$CS" canon "$T/bad.json" >"$T/o" 2>"$T/e"
check "canon names the bad field" "[ $? -eq 2 ] && grep -q 'turns\[0\].calls\[0\].id' '$T/e' && san_clean"

"$CS" vectors --check >"$T/v" 2>&1
check "vectors --check passes" "[ $? -eq 0 ] && grep -q 'all agree' '$T/v'"
# The committed file is what --generate makes of it: a generator change (a new pathology class, a
# new note) that was not followed by `callsign vectors --generate corpus/vectors/canonical_v1.json`
# leaves it stale, and this says so.
cp corpus/vectors/canonical_v1.json "$T/vfix.json"
"$CS" vectors --generate "$T/vfix.json" >"$T/o" 2>"$T/e"
check "corpus/vectors/canonical_v1.json is a fixpoint of vectors --generate (else regenerate it)" \
  "[ $? -eq 0 ] && cmp -s corpus/vectors/canonical_v1.json '$T/vfix.json'"

# --generate keeps existing tcIds: drop two tests, regenerate, the survivors keep their numbers.
python3 - corpus/vectors/canonical_v1.json "$T/v.json" <<'P'
import json,sys
d=json.load(open(sys.argv[1])); t=d['testGroups'][0]['tests']
del t[3]; del t[10]
json.dump(d,open(sys.argv[2],'w'))
P
"$CS" vectors --generate "$T/v.json" >"$T/o" 2>"$T/e"
check "vectors --generate rewrites the file" "[ $? -eq 0 ] && grep -q 'wrote' '$T/o'"
check "vectors --generate keeps every existing tcId with its history" "python3 - '$T/v.json' corpus/vectors/canonical_v1.json <<'P'
import json,sys
new={t['tcId']:t for t in json.load(open(sys.argv[1]))['testGroups'][0]['tests']}
old=json.load(open(sys.argv[2]))['testGroups'][0]['tests']
kept=[t for i,t in enumerate(old) if i not in (3,11)]
assert all(new[t['tcId']]['history']==t['history'] and new[t['tcId']]['canonical']==t['canonical'] for t in kept)
assert len(new) >= 200
P"
"$CS" vectors --check "$T/v.json" >"$T/o" 2>"$T/e"
check "regenerated vectors pass --check" "[ $? -eq 0 ]"
# --generate writes only what --check accepts: a new test's tcId past the largest must stay within
# 1..1e9, or the command is refused and the file left as it was.
python3 - corpus/vectors/canonical_v1.json "$T/vbig.json" <<'P'
import json,sys
d=json.load(open(sys.argv[1])); t=d['testGroups'][0]['tests']
del t[-40:]
t[0]['tcId']=1000000000
json.dump(d,open(sys.argv[2],'w'))
P
# '-' is stdin to --check; --generate, which rewrites its file, refuses it rather than write a file named -.
# A disagreement names the test, the expectation's path and both values: which ID of which target.
python3 - corpus/vectors/canonical_v1.json "$T/vone.json" <<'P'
import json,sys
d=json.load(open(sys.argv[1])); t=d['testGroups'][0]['tests']
t[0]['wire']['mistral']['calls'][0]='ABCDEFGHI'
t[1]['canonical']['calls'][0]='hist_tool_'+'x'*24
json.dump(d,open(sys.argv[2],'w'))
P
"$CS" vectors --check "$T/vone.json" >"$T/o" 2>"$T/e"
check "vectors --check names where each test differs and both values" \
  "[ $? -eq 1 ] && [ \$(wc -l <'$T/o') -eq 2 ] &&
   grep -qE '^tcId [0-9]+: wire.mistral.calls\[0\] differs from the reference: the file has \"ABCDEFGHI\", the reference gives \"[A-Za-z0-9]{9}\"$' '$T/o' &&
   grep -qE '^tcId [0-9]+: canonical.calls\[0\] differs from the reference: the file has \"hist_tool_x{24}\", the reference gives \"hist_tool_[A-Za-z0-9_-]{24}\"$' '$T/o'"
"$CS" vectors --check - <corpus/vectors/canonical_v1.json >"$T/o" 2>"$T/e"
check "vectors --check - reads stdin" "[ $? -eq 0 ] && grep -q 'all agree' '$T/o'"
(cd "$T" && "$CS_ABS" vectors --generate -) <corpus/vectors/canonical_v1.json >"$T/o" 2>"$T/e"
check "vectors --generate -: exit 2, one line, no file named - written" "one_line_2 $? \"'-' (stdin) is none: give a path\" && ! [ -e '$T/-' ]"
cp "$T/vbig.json" "$T/vbig.orig"
"$CS" vectors --generate "$T/vbig.json" >"$T/o" 2>"$T/e"
check "vectors --generate with tcId 1000000000 taken: exit 2, one line naming the limit, file unchanged" \
  "one_line_2 $? 'no tcId left for a new test: tcIds go from 1 to 1000000000, and 1000000000 is taken' && cmp -s '$T/vbig.json' '$T/vbig.orig'"
# --generate starts a new file only where there is none: one it cannot read is refused, not overwritten.
# Root reads any file, so as root the command runs as nobody (setpriv, util-linux).
mkdir -m 1777 "$T/u"
printf 'keep me\n' >"$T/u/wo.json"
chmod 200 "$T/u/wo.json"
as_user=()
if [ "$(id -u)" -eq 0 ]; then
  chmod o+x "$T"
  chown 65534 "$T/u/wo.json"
  as_user=(env "ASAN_OPTIONS=$ASAN_OPTIONS:log_path=$T/u/san" "UBSAN_OPTIONS=$UBSAN_OPTIONS:log_path=$T/u/san"
    setpriv --reuid=65534 --regid=65534 --clear-groups)
fi
"${as_user[@]}" "$CS" vectors --generate "$T/u/wo.json" >"$T/o" 2>"$T/e"
rc=$?
mv "$T/u"/san.* "$T/" 2>/dev/null
chmod 600 "$T/u/wo.json" # to read what is left in it
check "vectors --generate, a file it cannot read: exit 2, one line, the file kept" \
  "one_line_2 $rc '$T/u/wo.json: cannot open: Permission denied' && [ \"\$(cat '$T/u/wo.json')\" = 'keep me' ]"
"$CS" vectors --generate "$T/a-file/v.json" >"$T/o" 2>"$T/e"
check "vectors --generate below a file: exit 2, one line" "one_line_2 $? '$T/a-file/v.json: cannot open: Not a directory'"
python3 -c "import json,sys; d=json.load(open('$T/v.json')); d['testGroups'][0]['tests'][0]['canonical']['calls'][0]='hist_tool_XXXXXXXXXXXXXXXXXXXXXXXX'; json.dump(d,open('$T/v2.json','w'))"
"$CS" vectors --check "$T/v2.json" >"$T/o" 2>"$T/e"
check "a tampered vector fails --check (exit 1)" "[ $? -eq 1 ] && grep -q 'tcId' '$T/o'"

# The reference holds every required property; the built-ins fail what their designs break.
"$CS" run --impl reference --cases 300 --no-corpus --junit "$T/r.xml" --json "$T/r.json" --markdown "$T/r.md" --html "$T/r.html" >"$T/ref" 2>"$T/e"
rc=$?
check "reference passes (exit 0)" "[ $rc -eq 0 ]"
check "JUnit report is well-formed XML" "xmllint --noout '$T/r.xml'"
check "JSON report parses" "python3 -m json.tool '$T/r.json' >/dev/null"
check "HTML and Markdown reports written" "[ -s '$T/r.html' ] && [ -s '$T/r.md' ]"

"$CS" run --impl adk-stream-v1 --cases 300 --no-corpus --json "$T/adk.json" >"$T/adk" 2>"$T/e"
rc=$?
check "adk-stream-v1 fails (exit 1)" "[ $rc -eq 1 ]"
check "adk-stream-v1 fails emit.unique with a shrunk case and a replay command" "grep -q 'emit.unique' '$T/adk' && grep -q 'callsign replay' '$T/adk'"
tok=$(python3 - "$T/adk.json" <<'P'
import json,sys
d=json.load(open(sys.argv[1]))
for c in d['implementations'][0]['cells']:
    if c['property']=='emit.unique' and c['verdict']=='fail':
        print(c['failure']['token'], c['target']); break
P
)
set -- $tok
"$CS" replay --impl adk-stream-v1 --property emit.unique --target "$2" "$1" >"$T/rp" 2>"$T/e"
check "replay token reproduces the failure" "[ $? -eq 1 ] && grep -q 'emit.unique' '$T/rp'"
check "a replay names the replayed case, not a seed's case" \
  "head -n 1 '$T/rp' | grep -q ', replay\$' && grep -q '    the replayed case; shrunk to' '$T/rp' && ! grep -q 'corpus case' '$T/rp'"
# A token has one spelling: an altered last character (cs1.AB for cs1.AA) is refused, not replayed
# as the case it was altered from.
for t in cs1.AB cs1.AP; do
  "$CS" replay --impl reference "$t" >"$T/o" 2>"$T/e"
  check "replay $t (unused bits set): exit 2, one line" "one_line_2 $? 'not a canonical base64url ending'"
done

# A saved case names what replay checks: a property or target that is no known name, or no string,
# is refused with the file's name, not read as "every property" or "every target".
case_file=$(ls "$ROOT/corpus/regressions/prefix-swap/"emit.regex@anthropic-*.json | head -n 1)
lit_file=$(grep -l '"history": {' "$ROOT"/corpus/regressions/*/*.json | xargs grep -L '"token"' | head -n 1)
for f in "case:$case_file" "literal:$lit_file"; do
  for v in 'property:"nosuch"' 'property:5' 'target:"nosuch"' 'target:null'; do
    python3 -c "import json,sys; d=json.load(open(sys.argv[1])); d[sys.argv[2]]=json.loads(sys.argv[3]); json.dump(d,open(sys.argv[4],'w'))" \
      "${f#*:}" "${v%%:*}" "${v#*:}" "$T/badname.json"
    "$CS" replay --impl prefix-swap "$T/badname.json" >"$T/o" 2>"$T/e"
    check "replay of a ${f%%:*} file with ${v/:/ }: exit 2, one line naming the file" \
      "one_line_2 $? '$T/badname.json: ' && grep -q '${v%%:*}' '$T/e'"
  done
done
# A saved case is read once, so stdin ('-'), a pipe and a FIFO work as a file does: '-' and a pipe
# failed with "JSON ends early", and a FIFO waited forever for a second writer.
printf '{"token":"cs1.AA","property":"emit.regex","target":"mistral"}\n' >"$T/case.json"
"$CS" replay --impl reference - <"$T/case.json" >"$T/o" 2>"$T/e"
check "replay - < case file: exit 0, the case's property checked" "[ $? -eq 0 ] && grep -q 'emit.regex' '$T/o' && ! [ -s '$T/e' ]"
cat "$T/case.json" | "$CS" replay --impl reference /dev/stdin >"$T/o" 2>"$T/e"
check "replay /dev/stdin from a pipe: exit 0" "[ $? -eq 0 ] && grep -q 'emit.regex' '$T/o' && ! [ -s '$T/e' ]"
mkfifo "$T/case.fifo"
timeout 60 sh -c 'cat "$1" >"$2"' sh "$T/case.json" "$T/case.fifo" &
timeout 60 "$CS" replay --impl reference "$T/case.fifo" >"$T/o" 2>"$T/e"
check "replay of a FIFO: exit 0, no hang" "[ $? -eq 0 ] && grep -q 'emit.regex' '$T/o'"
wait
# A case file of the wrong shape is refused with what is wrong, not "no token and no history".
for v in '{"token":5,"history":{"turns":[]}}|"token" is not a string' \
  '{"history":null}|"history" is not an object' '{"token":"cs1.AB"}|not a canonical base64url ending' \
  '{"property":"emit.regex"}|no "token" and no "history"' '|stdin: 1:1: JSON ends early'; do
  printf '%s' "${v%%|*}" | "$CS" replay --impl reference - >"$T/o" 2>"$T/e"
  check "replay - of ${v%%|*}: exit 2, one line" "one_line_2 $? 'stdin: ' && grep -qF -- '${v#*|}' '$T/e'"
done
# --expect: exactly the listed failures pass the run; a listed property that holds is reported.
python3 - "$T/adk.json" >"$T/expect" <<'P'
import json,sys
d=json.load(open(sys.argv[1]))
for c in d['implementations'][0]['cells']:
    if c['verdict']=='fail' and c['tier']=='required':
        print(c['property'], c['target'])
P
"$CS" run --impl adk-stream-v1 --cases 300 --no-corpus --expect "$T/expect" >"$T/o" 2>"$T/e"
check "--expect with exactly the failures: exit 0" "[ $? -eq 0 ]"
for l in "canon.charset -" "emit.regex anthropic"; do # each line once: a repeat is refused
  grep -qxF "$l" "$T/expect" || echo "$l" >>"$T/expect"
done
"$CS" run --impl reference --cases 100 --no-corpus --expect "$T/expect" >"$T/o" 2>"$T/e"
check "listed failures that now pass are reported as fixed and fail the run" "[ \$? -eq 1 ] && grep -qi fixed '$T/o'"
echo "no.such.property x" >"$T/badexpect"
"$CS" run --impl reference --cases 10 --no-corpus --expect "$T/badexpect" >"$T/o" 2>"$T/e"
check "unknown property in --expect: exit 2, names the line" "[ $? -eq 2 ] && grep -q ':1:' '$T/e'"
{ echo "# a comment"; printf 'emit.pair anthropic %02000d\n' 0; } >"$T/longexpect"
"$CS" run --impl reference --cases 10 --no-corpus --expect "$T/longexpect" >"$T/o" 2>"$T/e"
check "over-long line in --expect: exit 2, names the line" "one_line_2 $? ':2: line longer than 1023 bytes'"
# A NUL byte would cut the line short ("max_len=9\0junk" read as "max_len=9"): refused, with its line.
printf '# profile\nmistral.max_len=9\0junk\n' >"$T/nulprofile"
"$CS" run --impl reference --cases 10 --no-corpus --profile "$T/nulprofile" >"$T/o" 2>"$T/e"
check "NUL byte in a --profile line: exit 2, one line naming it" "one_line_2 $? '$T/nulprofile:2: line holds a NUL byte'"
printf 'emit.pair anthropic\0 # junk\n' >"$T/nulexpect"
"$CS" run --impl reference --cases 10 --no-corpus --expect "$T/nulexpect" >"$T/o" 2>"$T/e"
check "NUL byte in an --expect line: exit 2, one line naming it" "one_line_2 $? '$T/nulexpect:1: line holds a NUL byte'"

# The default job (make run): every built-in fails exactly the cells corpus/expected/builtins.txt
# lists, found by generation and the committed corpus (a copy: the run saves new cases into it).
cp -r "$ROOT/corpus/regressions" "$T/default-corpus"
"$CS" run --quiet --corpus "$T/default-corpus" --expect "$ROOT/corpus/expected/builtins.txt" \
  --failures "$T/builtins.txt" >"$T/o" 2>"$T/e"
check "default job with the built-ins' list: exit 0, no failure, nothing fixed" \
  "[ $? -eq 0 ] && grep -q ', 0 failed, .* expected failures' '$T/o' && ! grep -q FIXED '$T/o'"
check "--failures writes back exactly the committed list" \
  "diff <(grep -v '^#' '$ROOT/corpus/expected/builtins.txt') <(grep -v '^#' '$T/builtins.txt')"
check "every built-in but reference fails a required property by design" "python3 - '$T/builtins.txt' <<'P'
import subprocess,sys
req={l.split()[2] for l in open(sys.argv[1]) if l.strip() and not l.startswith('#') and 'recommended' not in l}
names=[l.split()[0] for l in subprocess.run(['$CS','list'],capture_output=True,text=True).stdout.split('IMPLEMENTATIONS')[1].split('LABELS')[0].splitlines() if l.strip()]
assert 'reference' not in req and set(names)-{'reference'} <= req, (names, req)
P"
check "--quiet leaves out the matrices and the expected failures" "! grep -q 'overview' '$T/o' && ! grep -q xfail '$T/o'"
# Generation alone finds every listed cell but one: mistral-hash9's normalize.injective is a real
# collision of its 53.6-bit hash, which `collide` finds and the corpus keeps.
"$CS" run --quiet --no-corpus --failures "$T/generated.txt" >"$T/o" 2>"$T/e"
check "without the corpus, generation finds every listed failure but the hash collision" \
  "[ $? -eq 1 ] && diff <(grep -v '^#' '$ROOT/corpus/expected/builtins.txt' | grep -v '^normalize.injective mistral mistral-hash9$') <(grep -v '^#' '$T/generated.txt')"
"$CS" run --impl reference --cases 50 --no-corpus --expect "$ROOT/corpus/expected/builtins.txt" >"$T/o" 2>"$T/e"
check "the list names implementations: reference alone is held to its own lines" \
  "[ $? -eq 0 ] && grep -q 'expected failure' '$T/o' && ! grep -q 'FIXED' '$T/o'"

# Corpus: a saved failure is replayed first on the next run.
"$CS" run --impl prefix-swap --cases 200 --corpus "$T/corpus" --property emit.regex --target anthropic >"$T/o" 2>"$T/e"
check "failures are saved to the corpus" "ls '$T/corpus/prefix-swap/'*.json >/dev/null 2>&1"
"$CS" run --impl prefix-swap --cases 1 --corpus "$T/corpus" --property emit.regex --target anthropic >"$T/o2" 2>"$T/e"
check "corpus case replayed first (fails with one generated case)" "[ $? -eq 1 ] && grep -q 'emit.regex' '$T/o2'"
# A long corpus path is used whole, up to what the system takes: cut, it wrote the cases into a
# sibling directory with a cut name, or into a cut implementation directory ("prefix-").
for len in 1409 1420 3900; do
  p="$T/long"
  while [ ${#p} -lt $((len - 60)) ]; do p="$p/$(printf 'd%.0s' {1..50})"; done
  p="$p/$(printf 'e%.0s' $(seq $((len - ${#p} - 1))))"
  mkdir -p "$p"
  "$CS" run --impl prefix-swap --cases 20 --quiet --corpus "$p" >"$T/o" 2>"$T/e"
  n=$(find "$p/prefix-swap" -type f -name '*.json' 2>/dev/null | wc -l)
  check "--corpus of $len bytes: the cases are saved in it, nowhere else" \
    "[ $n -gt 0 ] && [ \$(find '$T/long' -type f | wc -l) -eq $n ] && ! [ -s '$T/e' ]"
  "$CS" run --impl prefix-swap --cases 1 --quiet --corpus "$p" >"$T/o" 2>"$T/e"
  check "--corpus of $len bytes: the saved cases replay" "grep -q '(cases $((n + 1)),' '$T/o'"
  rm -rf "$T/long"
done
# Past PATH_MAX the system refuses it: one warning that still says why, the run goes on.
"$CS" run --impl prefix-swap --cases 20 --quiet --corpus "$p/$(printf 'f%.0s' {1..200})" >"$T/o" 2>"$T/e"
check "--corpus past PATH_MAX: a warning that it cannot be read and one that the failures are not saved, with the reason" \
  "[ $? -eq 1 ] && [ \$(wc -l <'$T/e') -eq 2 ] && grep -q 'cannot read the corpus directory .*: File name too long (its cases are not replayed)' '$T/e' &&
   grep -q 'warning: prefix-swap: [0-9]* failures not saved to the corpus (the first: .*File name too long)' '$T/e'"
# A bad case file is skipped with one warning; the cases sorted after it still replay.
cp -r "$ROOT/corpus/regressions/prefix-swap" "$T/c2" && mkdir "$T/badcorpus" && mv "$T/c2" "$T/badcorpus/prefix-swap"
"$CS" run --impl prefix-swap --cases 1 --quiet --corpus "$T/badcorpus" >"$T/o" 2>"$T/e"
good=$(grep -o '(cases [0-9]*,' "$T/o")
echo garbage >"$T/badcorpus/prefix-swap/0000-bad.json"
"$CS" run --impl prefix-swap --cases 1 --quiet --corpus "$T/badcorpus" >"$T/o" 2>"$T/e"
check "a bad corpus file: one warning, exit 1 as without it, every other case replayed" \
  "[ $? -eq 1 ] && [ \$(wc -l <'$T/e') -eq 1 ] && grep -q 'warning: .*0000-bad.json: .*(corpus case skipped)' '$T/e' && [ '$good' != '(cases 1,' ] && grep -qF '$good' '$T/o'"

# Names that read alike once made safe for a directory keep their own corpora.
"$CS" run --cases 50 --quiet --corpus "$T/alike" --impl-cmd -- python3 tests/fixtures/proto_echo.py --name 'my/echo impl' >"$T/o" 2>"$T/e"
saved=$(find "$T/alike" -name '*.json' | wc -l)
"$CS" run --cases 1 --quiet --corpus "$T/alike" --impl-cmd -- python3 tests/fixtures/proto_echo.py --name 'my echo impl' >"$T/o" 2>"$T/e"
check "names alike once made safe ('my/echo impl', 'my echo impl'): two corpus directories, neither replays the other's cases" \
  "[ $saved -gt 0 ] && [ \$(ls '$T/alike' | wc -l) -eq 2 ] && ! grep -q 'corpus case' '$T/o'"

# The directory an earlier callsign gave a name that needed changing still replays, with a warning
# saying where its cases belong; a clean name's own directory of that spelling is not read by it.
alike_dir=$(ls -d "$T/alike"/my_echo_impl-* | head -n 1)
mv "$alike_dir" "$T/alike-legacy" && rm -rf "$T/alike"/* && mv "$T/alike-legacy" "$T/alike/my_echo_impl"
"$CS" run --cases 1 --quiet --corpus "$T/alike" --impl-cmd -- python3 tests/fixtures/proto_echo.py --name 'my echo impl' >"$T/o" 2>"$T/e"
check "a corpus in the directory an earlier callsign named: replayed, one warning naming where it belongs" \
  "grep -q 'corpus case' '$T/o' && [ \$(wc -l <'$T/e') -eq 1 ] && grep -q 'my_echo_impl, named so by an earlier callsign, holds [0-9]* of this implementation.s cases: they replay too; move them to .*my_echo_impl-' '$T/e'"
"$CS" run --cases 1 --quiet --corpus "$T/alike" --impl-cmd -- python3 tests/fixtures/proto_echo.py --name 'my/echo impl' >"$T/o" 2>"$T/e"
check "...another name that reads alike replays none of them" "! grep -q 'corpus case' '$T/o' && ! [ -s '$T/e' ]"

# A FIFO named like a case is skipped (opening it would wait for a writer), not a hang.
mkdir -p "$T/fifocorpus/reference" && mkfifo "$T/fifocorpus/reference/a.json"
timeout 60 "$CS" run --impl reference --cases 5 --quiet --property emit.pair --corpus "$T/fifocorpus" >"$T/o" 2>"$T/e"
check "a FIFO in the corpus: skipped with a warning, the run goes on (exit 0)" \
  "[ $? -eq 0 ] && grep -q 'a.json: not a regular file (corpus case skipped)' '$T/e'"
# ...and one at a case's file name is not written to (that would wait for a reader either).
mkdir -p "$T/fifosave"
"$CS" run --impl prefix-swap --property canon.charset --quiet --corpus "$T/fifosave" >"$T/o" 2>"$T/e"
one=$(find "$T/fifosave/prefix-swap" -name '*.json' | head -n 1)
rm "$one" && mkfifo "$one"
timeout 60 "$CS" run --impl prefix-swap --property canon.charset --quiet --corpus "$T/fifosave" >"$T/o" 2>"$T/e"
check "a FIFO at a case's file name: the save fails with a counted warning, no hang (exit 1 for the failure)" \
  "[ $? -eq 1 ] && grep -q 'failure not saved to the corpus (the first: .*: not a regular file: the case is not saved)' '$T/e'"
# A committed corpus stays as it is when its cases are found again, its cs1 tokens included: the
# files saved before tokens had their check are the same cases.
cp -r "$ROOT/corpus/regressions/prefix-swap" "$T/committed"
mkdir -p "$T/commitcorpus" && cp -r "$T/committed" "$T/commitcorpus/prefix-swap"
"$CS" run --impl prefix-swap --cases 300 --quiet --corpus "$T/commitcorpus" >"$T/o" 2>"$T/e"
check "a committed corpus (cs1 tokens) is left unchanged by a run that finds its cases again" \
  "[ $? -eq 1 ] && grep -q '\"token\": \"cs1\.' '$T/committed'/*.json && diff -r '$T/committed' '$T/commitcorpus/prefix-swap' >/dev/null"
# A case saved by a callsign whose generator differs: its token now makes another history (this one
# made a result with a null call_id before a result mode was added), so its saved history is the
# case, replayed as it is, with one warning; replay of the file reads it the same way.
mkdir -p "$T/stalecorpus/anthropic-sanitize"
cat >"$T/stalecorpus/anthropic-sanitize/emit.pair@anthropic-3ffb7c61.json" <<'J'
{
  "impl": "anthropic-sanitize",
  "property": "emit.pair",
  "target": "anthropic",
  "token": "cs1.AAAAAAAAAAAAAAAAjuqcpuK7zJ7-AQ",
  "message": "result 0 answers call 0 but gets wire ID \"toolu_a6685f3b62\", the call gets \"call_0\"",
  "history": {"turns":[{"role":"user","text":"list files"},{"role":"assistant","provider":"anthropic","turn_key":"t0","calls":[{"id":"call_0","name":"read_file","args":{"path":"a.c"}}]},{"role":"tool","turn_key":"t1","results":[{"call_id":null,"name":"read_file","content":"int main(void) { return 0; }"}]}]}
}
J
"$CS" run --impl anthropic-sanitize --cases 1 --quiet --property emit.pair --target anthropic \
  --corpus "$T/stalecorpus" >"$T/o" 2>"$T/e"
check "a corpus case whose token makes another history: one warning, its saved history fails as saved" \
  "[ $? -eq 1 ] && [ \$(wc -l <'$T/e') -eq 1 ] && grep -q 'warning: 1 corpus case no longer makes the saved history from the token (.*emit.pair@anthropic-3ffb7c61.json): the saved histories are replayed as they are' '$T/e' && grep -q 'gets wire ID \"toolu_a6685f3b62\", the call gets \"call_0\"' '$T/o'"
"$CS" replay --impl anthropic-sanitize "$T/stalecorpus/anthropic-sanitize/emit.pair@anthropic-3ffb7c61.json" >"$T/o" 2>"$T/e"
check "replay of that file: a warning, and the saved history fails" \
  "[ $? -eq 1 ] && grep -q 'the token no longer makes the saved history' '$T/e' && grep -q 'FAIL emit.pair on anthropic' '$T/o'"
"$CS" replay --impl anthropic-sanitize - <"$T/stalecorpus/anthropic-sanitize/emit.pair@anthropic-3ffb7c61.json" >"$T/o" 2>"$T/e"
check "replay of that file from stdin: the warning names stdin" \
  "[ $? -eq 1 ] && grep -q '^callsign: warning: stdin: the token no longer makes the saved history' '$T/e'"
# A corpus directory that is there but cannot be read is said, not taken for an empty one.
mkdir -p "$T/filecorpus" && echo x >"$T/filecorpus/prefix-swap"
"$CS" run --impl prefix-swap --cases 20 --quiet --corpus "$T/filecorpus" >"$T/o" 2>"$T/e"
check "a file in place of the implementation's corpus directory: a warning that it cannot be read" \
  "[ $? -eq 1 ] && grep -q 'cannot read the corpus directory .*filecorpus/prefix-swap: Not a directory (its cases are not replayed)' '$T/e'"
# One path in the way (a directory at one case's file name) keeps no other case out of the corpus,
# and the warning counts what was not saved.
"$CS" run --impl prefix-swap --cases 200 --quiet --corpus "$T/allcorpus" >"$T/o" 2>"$T/e"
nall=$(find "$T/allcorpus/prefix-swap" -name '*.json' | wc -l)
one=$(find "$T/allcorpus/prefix-swap" -name '*.json' | sort | head -n 1)
mkdir -p "$T/blocked/prefix-swap/$(basename "$one")"
"$CS" run --impl prefix-swap --cases 200 --quiet --corpus "$T/blocked" >"$T/o" 2>"$T/e"
rc=$?
nblocked=$(find "$T/blocked/prefix-swap" -type f -name '*.json' | wc -l)
check "a directory at one case's file name: the $((nall - 1)) others are saved, the warning counts 1" \
  "[ $rc -eq 1 ] && [ $nall -gt 2 ] && [ $nblocked -eq $((nall - 1)) ] && grep -q 'warning: prefix-swap: 1 failure not saved to the corpus (the first: ' '$T/e'"

"$CS" run --impl reference --cases 10 --no-corpus --min-coverage 1 >"$T/o" 2>"$T/e"
check "--min-coverage 1 (1% or 100%?): exit 2, one line saying how to write either" \
  "[ $? -eq 2 ] && [ \$(wc -l <'$T/e') -eq 1 ] && grep -q \"write 1% or 100%\" '$T/e'"
"$CS" run --impl reference --cases 500 --no-corpus --stats --min-coverage 0.5% >"$T/st" 2>"$T/e"
check "--stats prints every label" "grep -q 'id.missing' '$T/st' && grep -q 'twin.impl' '$T/st'"
check "--stats: twin.impl counted with a twin planted" "grep -qE '^  twin.impl +[1-9]' '$T/st'"
# A twin is planted from an emit or normalize answer: a program with neither gets none, and
# twin.impl does not count the generator's plans for it (it passed --min-coverage so).
"$CS" run --no-corpus --cases 300 --quiet --property canon.deterministic --stats --impl-cmd -- \
  python3 tests/fixtures/proto_echo.py --ops canonicalize --targets anthropic >"$T/st2" 2>"$T/e"
check "--stats: no twin.impl for a program that cannot make one" "[ $? -eq 0 ] && grep -qE '^  twin.impl +0 ' '$T/st2'"
check "--stats: the counts line up under the longest label" \
  "[ \$(grep -E '^  (id|native|twin|struct)\\.' '$T/st' | awk '{print index(\$0, \$2) + length(\$2)}' | sort -u | wc -l) -eq 1 ]"
"$CS" run --impl reference --cases 200 --no-corpus --min-coverage 90% --json "$T/mc.json" --junit "$T/mc.xml" \
  --markdown "$T/mc.md" --html "$T/mc.html" >"$T/o" 2>"$T/e"
check "--min-coverage fails when a class is rare" "[ $? -eq 1 ] && grep -q 'min-coverage' '$T/o'"
check "--min-coverage: every report says the run failed" "python3 - '$T/mc.json' <<'P' && grep -q 'Exit status 1' '$T/mc.md' && grep -q 'name=\"min_coverage\"' '$T/mc.xml'
import json, sys
d = json.load(open(sys.argv[1]))
assert d['exit_status'] == 1, d['exit_status']
assert d['summary']['failing_run'] == 0, 'no cell fails: only coverage does'
assert any(l['below_min_coverage'] for l in d['statistics']['labels'])
P"
reason=$(sed -n 's/^callsign: \(.* pathology class.* of cases\)$/\1/p' "$T/e")
check "--min-coverage: Markdown and HTML give the terminal's reason and name a label below it" \
  "[ -n \"\$reason\" ] && grep -qF \"\$reason\" '$T/mc.md' && grep -qF \"\$reason\" '$T/mc.html' &&
   grep -q '^> - \*\*id.empty\*\*: ' '$T/mc.md' && grep -q '<li><code>id.empty</code>: ' '$T/mc.html'"
# Without the vectors (a binary copied away from its tree), a run that needs them is incomplete:
# exit 2, and every report says 2 and why rather than a pass.
mkdir -p "$T/away/bin"
cp "$CS" "$T/away/bin/cs"
(cd "$T/away" && ./bin/cs run --impl reference --cases 20 --no-corpus --quiet --json r.json --junit r.xml \
  --markdown r.md --html r.html >o 2>e)
check "no vectors: exit 2, one line, and each report says exit 2 and why" \
  "[ $? -eq 2 ] && [ \$(wc -l <'$T/away/e') -eq 1 ] && grep -q 'canonical_v1.json: cannot open' '$T/away/e' &&
   python3 -c \"import json,sys; d=json.load(open('$T/away/r.json')); sys.exit(not (d['exit_status']==2 and 'cannot open' in d['input_error']))\" &&
   grep -q 'errors=\"1\"' '$T/away/r.xml' && grep -q 'Exit status 2' '$T/away/r.md' && grep -q '(exit status 2)' '$T/away/r.html'"
# A pattern PCRE2 gives up on (it backtracks too much) is the rule's fault, not the implementation's:
# never "does not match", but exit 2, one line naming the rule and the ID, and every report says 2
# and why; with --jobs the report is the one a single process gives.
R='anthropic.pattern=^([\w-]|[\w-])*_[\w-]*$'
for j in 1 2; do
  "$CS" run --impl reference --cases 20 --no-corpus --quiet --target anthropic --property emit. --rule "$R" --jobs $j \
    --json "$T/u$j.json" --junit "$T/u$j.xml" --markdown "$T/u$j.md" --html "$T/u$j.html" >"$T/o" 2>"$T/e"
  rc=$?
  check "run --jobs $j, a rule PCRE2 gives up on: exit 2, one line naming it, no failure" \
    "[ $rc -eq 2 ] && [ \$(wc -l <'$T/e') -eq 1 ] &&
     grep -q '^callsign: rule anthropic.pattern: PCRE2 match limit exceeded on ID \"toolu_.*\": the pattern backtracks too much (emit.regex on anthropic is not judged)\$' '$T/e' &&
     ! grep -q 'does not match\|FAIL' '$T/o'"
  check "run --jobs $j, a rule PCRE2 gives up on: every report says exit 2 and why" \
    "python3 -c \"import json,sys; d=json.load(open('$T/u$j.json')); c=[x for x in d['implementations'][0]['cells'] if x['property']=='emit.regex'][0]; sys.exit(not (d['exit_status']==2 and 'PCRE2 match limit' in d['input_error'] and c['verdict']=='not_applicable'))\" &&
     grep -q 'errors=\"1\"' '$T/u$j.xml' && grep -q 'Exit status 2' '$T/u$j.md' && grep -q '(exit status 2)' '$T/u$j.html'"
done
check "run --jobs 2 reports what one process reports" \
  "python3 -c \"import json,sys; a,b=(json.load(open('$T/u%d.json' % j)) for j in (1,2)); k=lambda d: (d['input_error'], [(c['property'],c['target'],c['verdict']) for c in d['implementations'][0]['cells']]); sys.exit(k(a)!=k(b))\""
"$CS" replay --impl reference --property emit.regex --target anthropic --rule "$R" cs1.AQAB >"$T/o" 2>"$T/e"
check "replay, a rule PCRE2 gives up on: exit 2, one line" \
  "[ $? -eq 2 ] && [ \$(wc -l <'$T/e') -eq 1 ] && grep -q 'rule anthropic.pattern: PCRE2 match limit exceeded' '$T/e'"
for j in 1 2; do
  "$CS" fuzz --impl reference --cases 20 --jobs $j --no-corpus --quiet --target anthropic --rule "$R" --out "$T/uf$j" \
    >"$T/o" 2>"$T/e"
  check "fuzz --jobs $j, a rule PCRE2 gives up on: exit 2, one line, no finding" \
    "[ $? -eq 2 ] && [ \$(wc -l <'$T/e') -eq 1 ] && grep -q 'rule anthropic.pattern: PCRE2 match limit exceeded' '$T/e' &&
     grep -q ' 0 distinct failures' '$T/o'"
done

# A --profile names a file relative to where the run was: its replay command (terminal and JSON)
# gives the rules it made as --rule options, and reproduces the failure from another directory.
mkdir -p "$T/prof"
printf '# a stricter gateway\nanthropic.pattern=^toolu_[A-Za-z0-9]+$\nmistral.max_len=9\n' >"$T/prof/p.txt"
CS_ABS=$(cd "$(dirname "$CS")" && pwd)/$(basename "$CS")
(cd "$T/prof" && "$CS_ABS" run --impl reference --target anthropic --property emit.regex --no-corpus --cases 50 \
  --quiet --profile p.txt --json r.json >out.txt 2>&1)
prof_replay=$(sed -n 's/^ *replay: *//p' "$T/prof/out.txt" | head -n 1)
check "--profile: the replay command gives its rules as --rule, not the file" \
  "echo \"\$prof_replay\" | grep -qF -- \"--rule 'anthropic.pattern=^toolu_[A-Za-z0-9]+\\$'\" &&
   ! grep -q -- '--profile' '$T/prof/out.txt' && python3 -c \"import json
c = [c for c in json.load(open('$T/prof/r.json'))['implementations'][0]['cells'] if c['verdict'] == 'fail'][0]
assert '--profile' not in c['failure']['replay'] and '--rule' in c['failure']['replay'], c['failure']['replay']\""
(cd / && eval "\"$CS_ABS\" ${prof_replay#callsign }" >"$T/prof/replay.txt" 2>&1)
check "...and it reproduces the failure from another directory (exit 1)" \
  "[ $? -eq 1 ] && grep -q 'FAIL emit.regex on anthropic' '$T/prof/replay.txt'"

# A listed name holding control characters is refused as --failures would not write it, without
# echoing them to a terminal; a line the run did not check is named on stderr as the file spells it.
printf 'emit.regex anthropic evil\033]0;pwned\007x\n' >"$T/expect-esc"
"$CS" run --no-corpus --cases 5 --quiet --property normalize --expect "$T/expect-esc" --impl reference >"$T/o" 2>"$T/e"
check "--expect name with control characters: exit 2, one line, no ESC or BEL on stderr" \
  "one_line_2 $? 'expect-esc:1: the implementation name holds a control or invisible character' &&
   ! LC_ALL=C grep -q \$'\x1b\\|\x07' '$T/e'"
printf 'emit.regex anthropic caf\303\251\n' >"$T/expect-word"
"$CS" run --no-corpus --cases 5 --quiet --property normalize --expect "$T/expect-word" --impl reference >"$T/o" 2>"$T/e"
check "--expect line not checked: named on stderr" "[ $? -eq 0 ] && grep -qF \"'emit.regex anthropic café'\" '$T/e'"
finish
