#!/usr/bin/env bash
# End-to-end tests of `callsign collide`: a real collision of anthropic-sanitize's 40-bit suffix
# (birthday and distinguished points), checked independently; the planted pair fails the
# implementation and passes the reference; emit-only implementations; external implementations;
# budgets and usage errors. Usage: collide.sh path/to/callsign
set -u
CS=${1:-build/san/callsign}
. "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
FIX="$(dirname "${BASH_SOURCE[0]}")/../fixtures"
# The implementations written below import fixture_protocol.py from there.
PYTHONPATH="$(cd "$FIX" && pwd)${PYTHONPATH:+:$PYTHONPATH}"
export PYTHONPATH
# Recomputes anthropic-sanitize on the two inputs printed as A: and B: (JSON strings).
independent() {
  python3 - "$1" <<'P'
import hashlib, json, re, sys
out = open(sys.argv[1]).read()
a = json.loads(re.search(r'^  A: (".*")$', out, re.M).group(1))
b = json.loads(re.search(r'^  B: (".*")$', out, re.M).group(1))
to = json.loads(re.search(r'^  -> (".*")$', out, re.M).group(1))
def sanitize(s):
    cut = re.sub(r'[^a-zA-Z0-9_-]', '_', s)[:53]
    return cut + '_' + hashlib.sha256(s.encode()).hexdigest()[:10]
assert a != b, 'same input twice'
assert sanitize(a) == sanitize(b) == to, (sanitize(a), sanitize(b), to)
P
}

# Birthday search on the 40-bit suffix (about 2^20 evaluations).
"$CS" collide --impl anthropic-sanitize --target anthropic --corpus "$T/c" >"$T/b.txt" 2>"$T/b.err"
check "collide finds a collision in anthropic-sanitize: exit 1" "[ $? -eq 1 ] && grep -q '^COLLISION: normalize anthropic of anthropic-sanitize' '$T/b.txt'"
check "it searched with a birthday table" "grep -q 'birthday' '$T/b.txt'"
check "the pair really collides (recomputed independently)" "independent '$T/b.txt'"
# The two planted shapes, built like the search's single-call histories (the assistant turn first):
# both calls in one turn (2 turns), each call in its own turn (4 turns).
shape() { for f in "$T/c/anthropic-sanitize/"emit.unique@anthropic-*.json; do
  python3 -c "import json,sys;sys.exit(len(json.load(open(sys.argv[1]))['history']['turns'])!=$1)" "$f" && echo "$f"; done; }
planted=$(shape 2)
planted2=$(shape 4)
check "the pair is planted as a literal history case (two calls in one turn)" "[ -n '$planted' ] && python3 -c \"import json;d=json.load(open('$planted'));c=d['history']['turns'][0]['calls'];assert 'token' not in d and len(c)==2 and c[0]['id']!=c[1]['id']\""
check "each planted file states its collided calls" "[ \$(grep -l '\"planted_twin\": \[0, 1\]' '$T/c/anthropic-sanitize/'*.json | wc -l) -eq 4 ]"
check "and as two turns shaped like the search's histories" "[ -n '$planted2' ] && [ \$(ls '$T/c/anthropic-sanitize/'emit.unique@* | wc -l) -eq 2 ]"
# A collision found through normalize is planted for normalize.injective too, which the pair fails
# whether or not emit keeps the two calls apart.
check "the pair is planted for normalize.injective too, in both shapes, and fails it" \
  "[ \$(ls '$T/c/anthropic-sanitize/'normalize.injective@anthropic-* | wc -l) -eq 2 ] &&
   grep -q 'run on the planted pair (one turn): normalize.injective on anthropic FAILS' '$T/b.txt' &&
   grep -q 'run on the planted pair (two turns): normalize.injective on anthropic FAILS' '$T/b.txt'"
check "collide runs the planted pair and reports the failure" "grep -q 'run on the planted pair (one turn): emit.unique on anthropic FAILS' '$T/b.txt' && grep -q 'run on the planted pair (two turns): emit.unique on anthropic FAILS' '$T/b.txt'"
"$CS" replay --impl anthropic-sanitize "$planted" >"$T/r1.txt" 2>"$T/r1.err"
check "replaying the planted pair fails anthropic-sanitize (emit.unique)" "[ $? -eq 1 ] && grep -q 'FAIL emit.unique on anthropic' '$T/r1.txt'"
"$CS" replay --impl reference "$planted" >"$T/r2.txt" 2>"$T/r2.err"
check "the reference handles the planted pair" "[ $? -eq 0 ] && grep -q 'emit.unique' '$T/r2.txt'"
a_id=$(python3 -c "import json;print(json.load(open('$planted'))['history']['turns'][0]['calls'][0]['id'])")
"$CS" run --impl anthropic-sanitize --target anthropic --property emit.unique --cases 1 --corpus "$T/c" >"$T/run.txt" 2>"$T/run.err"
check "run replays the planted pair first" "[ $? -eq 1 ] && grep -qF '$a_id' '$T/run.txt'"
# Its failure names the corpus file in the replay command, which reproduces it.
replay_cmd=$(grep -m1 '^    replay: ' "$T/run.txt" | sed 's/^    replay: *//')
check "a planted pair's failure has a replay command naming its file" \
  "[[ '$replay_cmd' == 'callsign replay --impl anthropic-sanitize --property emit.unique --target anthropic $T/c/anthropic-sanitize/'*.json ]]"
eval "\"$CS\" ${replay_cmd#callsign }" >"$T/o" 2>"$T/e"
check "and that command fails the same way (exit 1)" "[ $? -eq 1 ] && grep -q 'FAIL emit.unique on anthropic' '$T/o'"

# Distinguished points on the same space.
"$CS" collide --impl anthropic-sanitize --target anthropic --dp-bits 6 --no-corpus --seed 5 >"$T/dp.txt" 2>"$T/dp.err"
check "distinguished points find a collision too" "[ $? -eq 1 ] && grep -q 'distinguished points (6 bits)' '$T/dp.txt' && independent '$T/dp.txt'"
# The pair is still run (nothing written): that line shows the check looks at output a plant would be in.
check "--no-corpus plants nothing" "! grep -q -e '^planted' -e 'replayed first' '$T/dp.txt' && grep -q '^run on the planted pair (one turn)' '$T/dp.txt'"

# From half the output's bits on, walks run as long as the cycles they fall into and may never reach a
# distinguished point: such a --dp-bits is refused after the probe, before any search.
for d in 40 20; do
  "$CS" collide --impl anthropic-sanitize --target anthropic --no-corpus --dp-bits $d --time 10s >"$T/o" 2>"$T/e"
  check "--dp-bits $d on 40-bit outputs: exit 2, one line, says what a search can use; nothing searched" \
    "[ $? -eq 2 ] && [ \$(wc -l <'$T/e') -eq 1 ] && grep -q -- '--dp-bits $d is too many for outputs of about 40.0 bits.*give at most 19\$' '$T/e' &&
     ! grep -q 'evaluations in' '$T/o'"
done

# An emit-only implementation: single-call histories, and the planted pair in one turn.
"$CS" collide --impl adk-stream-v1 --target openai_chat --corpus "$T/c" >"$T/adk.txt" 2>"$T/adk.err"
check "emit-only: adk-stream-v1 maps every single call to the same ID" "[ $? -eq 1 ] && grep -q 'COLLISION: emit openai_chat of adk-stream-v1' '$T/adk.txt' && grep -q '\"call_0\"' '$T/adk.txt'"
check "emit-only: the pair shrinks to one-character IDs" "grep -qE '^  A: \".\"$' '$T/adk.txt' && grep -q 'shrunk' '$T/adk.txt'"
check "emit-only: within one turn adk-stream-v1 keeps the two calls apart" "grep -q '(one turn): emit.unique on openai_chat holds' '$T/adk.txt'"
check "emit-only: across two turns it does not (call_0 restarts every turn)" "grep -q '(two turns): emit.unique on openai_chat FAILS' '$T/adk.txt'"
# An emit-only implementation whose wire ID hashes the raw ID with the call's place: its assistant
# turn's index ("turn"), and the call's index in it too ("place"). The planted cases put the pair where
# the search met it (turn 0), so the collision reaches the one-turn case; a case that holds says only
# what it shows, and when every one holds collide says the collision stays in single-call histories.
cat >"$T/posemit.py" <<'PY'
import hashlib, sys
from fixture_protocol import serve
mode = sys.argv[1]
def answer(r):
    calls, results, by = [], [], {}
    for ti, t in enumerate(r["history"]["turns"]):
        for ci, c in enumerate(t.get("calls", [])):
            place = "%d|%d" % (ti, ci) if mode == "place" else "%d" % ti
            w = "toolu_" + hashlib.sha256(("%s|%s" % (c.get("id"), place)).encode()).hexdigest()[:5]
            calls.append(w)
            by.setdefault(c.get("id"), w)
        results += [by.get(x.get("call_id")) for x in t.get("results", [])]
    return {"calls": calls, "results": results}
serve(answer, "posemit", ["emit"], ["anthropic"])
PY
"$CS" collide --target anthropic --corpus "$T/pe" --jobs 1 --time 60s --impl-cmd -- python3 "$T/posemit.py" turn \
  >"$T/pe.txt" 2>"$T/pe.err"
check "an ID drawn from the turn's index: the one-turn case, at the search's turn 0, fails emit.unique" \
  "[ $? -eq 1 ] && grep -q '^run on the planted pair (one turn): emit.unique on anthropic FAILS' '$T/pe.txt'"
check "the two-turn case holds, and says only that the calls got different IDs there" \
  "grep -q '^run on the planted pair (two turns): emit.unique on anthropic holds: the two calls get different wire IDs in this history, though alone each got the same one' '$T/pe.txt' &&
   ! grep -q 'every planted case holds' '$T/pe.txt'"
"$CS" collide --target anthropic --corpus "$T/pp" --jobs 1 --time 60s --impl-cmd -- python3 "$T/posemit.py" place \
  >"$T/pp.txt" 2>"$T/pp.err"
check "an ID drawn from the call's place: every planted case holds, and collide says so" \
  "[ $? -eq 1 ] && [ \$(grep -c '^run on the planted pair (.*): emit.unique on anthropic holds' '$T/pp.txt') -eq 2 ] &&
   grep -q '^collide: every planted case holds on posemit: the collision shows only in the search.s single-call histories$' '$T/pp.txt'"
"$CS" collide --impl adk-stream-v1 --target openai_chat --via normalize >"$T/o" 2>"$T/e"
check "--via normalize on an emit-only implementation: exit 2, says so" "[ $? -eq 2 ] && grep -q 'has no normalize' '$T/e'"

# Kimi IDs are the call's position: emit gives every single-call history functions.read_file:0, which
# is no collision of the implementation's.
"$CS" collide --impl reference --target kimi --corpus "$T/kimi" >"$T/o" 2>"$T/e"
check "emit for kimi: exit 2, one line, says IDs there are positional; nothing planted" \
  "[ $? -eq 2 ] && [ \$(wc -l <'$T/e') -eq 1 ] && grep -q 'named by the call.s position' '$T/e' && ! [ -e '$T/kimi' ]"

# A normalize-only adapter for one target whose output is a Python expression of the input i.
cat >"$T/norm.py" <<'PY'
import hashlib, sys
from fixture_protocol import serve
target, expr = sys.argv[1], sys.argv[2]
serve(lambda r: {"ids": [eval(expr) for i in r["ids"]]}, "norm", ["normalize"], [target])
PY

# A structural collision shrinks to its core even from the long family (a normalizer that keeps the
# last three characters: the pair ends as one extra character before a shared three).
"$CS" collide --no-corpus --target anthropic --inputs long --jobs 1 --impl-cmd -- python3 "$T/norm.py" anthropic 'i[-3:]' >"$T/l3.txt" 2>"$T/l3.err"
check "a structural collision shrinks to one character more than the three kept" \
  "[ $? -eq 1 ] && python3 -c \"import json,re,sys;t=open('$T/l3.txt').read();a,b=(json.loads(re.search(r'^  %s: (\\\".*\\\")\$' % k,t,re.M).group(1)) for k in 'AB');assert sorted(map(len,(a,b)))==[3,4] and a[-3:]==b[-3:],(a,b)\""

# A normalizer that keeps the first character: the pair shrinks by whole characters (never a lone
# lead byte of the unicode family's prefix), the output is valid UTF-8, and the planted files read back.
"$CS" collide --target anthropic --corpus "$T/u8" --inputs unicode --jobs 1 --impl-cmd -- python3 "$T/norm.py" \
  anthropic '"toolu_%x" % ord(i[0])' >"$T/u8.txt" 2>"$T/u8.err"
check "a first-character collision shrinks to whole characters, printed as valid UTF-8" \
  "[ $? -eq 1 ] && python3 -c \"import json,re;t=open('$T/u8.txt','rb').read().decode('utf-8');a,b=(json.loads(re.search(r'^  %s: (\\\".*\\\")\$' % k,t,re.M).group(1)) for k in 'AB');assert a[0]==b[0]=='\\u30c4' and a!=b,(a,b)\""
for f in "$T/u8/norm/"*.json; do
  "$CS" replay "$f" --impl-cmd -- python3 "$T/norm.py" anthropic '"toolu_%x" % ord(i[0])' >"$T/o" 2>"$T/e"
  check "a planted file reads back and fails on replay (exit 1): ${f##*/}" "[ $? -eq 1 ] && ! grep -q 'UTF-8' '$T/e'"
done
check "two files were planted" "[ \$(ls '$T/u8/norm/' | wc -l) -eq 2 ]"
# Through emit, a normalizer that cuts its output: no request carries a cut character, so no answer
# is blamed for one.
"$CS" collide --target mistral --no-corpus --via emit --inputs unicode --jobs 1 --time 10s --impl-cmd -- \
  build/adapter-c --bug truncate >"$T/tr.txt" 2>"$T/tr.err"
check "emit through a truncating adapter: a collision, no request with invalid UTF-8" \
  "[ $? -eq 1 ] && grep -q '^COLLISION' '$T/tr.txt' && ! grep -q 'UTF-8' '$T/tr.err'"

# An output that repeats a short hash is as small as the hash: 8 hex digits repeated eight times are
# 32 bits, found by a birthday search (not missed by distinguished points chosen for 256 bits).
"$CS" collide --no-corpus --target gemini --jobs 1 --budget 2000000 --impl-cmd -- python3 "$T/norm.py" gemini \
  '"h" + hashlib.sha256(i.encode()).hexdigest()[:8] * 8' >"$T/rep.txt" 2>"$T/rep.err"
check "a repeated 32-bit hash: estimated at 32 bits, and the collision is found" \
  "[ $? -eq 1 ] && grep -q 'outputs look like 32.0 bits' '$T/rep.txt' && grep -q '^COLLISION' '$T/rep.txt'"

# --time holds for a slow implementation too: the probe counts, and batches are sized to the rate.
start=$(date +%s%N)
"$CS" collide --no-corpus --target anthropic --jobs 1 --time 3s --impl-cmd -- python3 tests/fixtures/proto_echo.py --slow 0.3 >"$T/t.txt" 2>"$T/t.err"
rc=$?
ms=$((($(date +%s%N) - start) / 1000000))
check "--time 3s with 0.3 s per request: exit 0 within 7 s (took ${ms} ms)" "[ $rc -eq 0 ] && [ $ms -lt 7000 ] && grep -q 'no collision found' '$T/t.txt'"
check "a slow implementation's rate shows in evaluations a second, not 0.00M/s" \
  "grep -qE '^collide: [0-9]+ evaluations in [0-9.]+ s \([0-9.]+/s\)' '$T/t.txt'"

# An implementation that never answers within --time: cut a second after it, as a run does, and
# exit 3 naming the request that was waiting (not "no collision found", exit 0, after --deadline).
cat >"$T/hang.py" <<'PY'
import time
from fixture_protocol import serve
serve(lambda r: time.sleep(100), "hang", ["normalize"], ["anthropic"])
PY
start=$(date +%s%N)
"$CS" collide --no-corpus --target anthropic --jobs 1 --time 2s --deadline 8000 --impl-cmd -- python3 "$T/hang.py" >"$T/h.txt" 2>"$T/h.err"
rc=$?
ms=$((($(date +%s%N) - start) / 1000000))
check "a hang under --time 2s: exit 3 within 5 s naming the request (took ${ms} ms)" \
  "[ $rc -eq 3 ] && [ $ms -lt 5000 ] && grep -q 'no request got its answer within --time 2s and 1s more' '$T/h.err' &&
   grep -q 'seq 1 (normalize anthropic) was unanswered' '$T/h.err' && ! grep -q 'no collision found' '$T/h.txt'"

# Through emit each input is a request of its own: the probe looks at the clock between slices.
start=$(date +%s%N)
"$CS" collide --no-corpus --target anthropic --via emit --jobs 1 --time 3s --impl-cmd -- python3 tests/fixtures/proto_echo.py --slow 0.01 >"$T/te.txt" 2>"$T/te.err"
rc=$?
ms=$((($(date +%s%N) - start) / 1000000))
check "--time 3s through emit at 10 ms a request: exit 0 within 7 s (took ${ms} ms)" "[ $rc -eq 0 ] && [ $ms -lt 7000 ] && grep -q 'no collision found' '$T/te.txt'"

# Without --time or --budget the search runs until a collision or a signal: it says so when a
# collision is out of reach, and SIGINT or SIGTERM ends it with the summary (exit 0, as for none found).
timeout --preserve-status -s INT 2 "$CS" collide --impl reference --target anthropic --no-corpus >"$T/int.txt" 2>"$T/int.err"
check "collide ended by SIGINT: exit 0, the summary with the evaluations and 'interrupted'" \
  "[ $? -eq 0 ] && grep -q 'outputs look like' '$T/int.txt' &&
   grep -qE '^collide: no collision found in [1-9][0-9]* evaluations .*; interrupted by SIGINT' '$T/int.txt'"
check "a collision out of reach is noted at the start: runs until a collision or a signal" \
  "grep -q '^collide: note: .* without --time or --budget the search runs until a collision or a signal' '$T/int.txt'"
# (5 s: a loaded machine may take a second or two to start Python and answer the hello)
timeout --preserve-status -s TERM 5 "$CS" collide --target anthropic --no-corpus --jobs 1 \
  --impl-cmd -- python3 "$T/norm.py" anthropic 'hashlib.sha256(i.encode()).hexdigest()' >"$T/int.txt" 2>"$T/int.err"
check "collide of an external implementation ended by SIGTERM: exit 0, interrupted" \
  "[ $? -eq 0 ] && grep -qE '^collide: no collision found in [1-9][0-9]* evaluations .*; interrupted by SIGTERM' '$T/int.txt'"
# A stop signal does not wait out a hanging request's --deadline: it is cut off at once, and the
# summary follows (exit 0); when no request was ever answered, nothing was searched (exit 2).
for after in 50 0; do
  interrupt_after 3 "$T/hang.txt" "$T/hang.err" "$CS" collide --target mistral --no-corpus --jobs 1 --deadline 60000 \
    --impl-cmd -- python3 "$FIX/proto_echo.py" --ops normalize --targets mistral --hang-after $after --tag "collide-hang-$after"
  if [ $after -gt 0 ]; then
    check "collide, SIGINT while a request hangs: the summary within 3 s (took ${ms} ms), exit 0" \
      "[ $rc -eq 0 ] && [ $ms -lt 3000 ] && grep -q 'interrupted by SIGINT' '$T/hang.txt' && ! pgrep -f collide-hang-$after >/dev/null"
  else
    check "collide, SIGINT while the first request hangs: exit 2 within 3 s (took ${ms} ms), nothing searched" \
      "[ $rc -eq 2 ] && [ $ms -lt 3000 ] && grep -q 'interrupted by SIGINT before any request was answered: nothing was searched' '$T/hang.err' &&
       ! pgrep -f collide-hang-$after >/dev/null"
  fi
done
"$CS" collide --impl reference --target anthropic --no-corpus --time 1s >"$T/o" 2>"$T/e"
check "--time far short of the expected work: noted at the start" \
  "[ $? -eq 0 ] && grep -q '^collide: note: .* --time 1s will most likely end without one' '$T/o'"

# The corpus directory is made before the search (to refuse one that cannot be), and removed again
# when no pair was planted in it.
"$CS" collide --impl reference --target anthropic --corpus "$T/none/deeper" --budget 1000 --quiet >"$T/o" 2>"$T/e"
check "no pair found: exit 0, no corpus directory made for it" "[ $? -eq 0 ] && ! [ -e '$T/none' ]"

# A kimi pair is planted for normalize.injective: kimi's emitted IDs are positional, so emit.unique
# holds on any pair and would plant a case that can never fail.
cat >"$T/kimi.py" <<'PY'
from fixture_protocol import serve
def answer(r):
    if r["op"] == "normalize":
        return {"ids": ["functions.f:" + str(len(i) % 3) for i in r["ids"]]}
    calls = [c for t in r["history"]["turns"] if t["role"] == "assistant" for c in t["calls"]]
    ids = ["functions.%s:%d" % (c["name"], k) for k, c in enumerate(calls)]
    by = {c.get("id"): ids[k] for k, c in enumerate(calls)}
    res = [by.get(x.get("call_id")) for t in r["history"]["turns"] if t["role"] == "tool" for x in t["results"]]
    return {"calls": ids, "results": res}
serve(answer, "kimi-cut", ["normalize", "emit"], ["kimi"])
PY
"$CS" collide --target kimi --corpus "$T/kc" --jobs 1 --impl-cmd -- python3 "$T/kimi.py" >"$T/k.txt" 2>"$T/k.err"
check "a kimi collision: planted for normalize.injective, which the pair fails" \
  "[ $? -eq 1 ] && [ \$(ls '$T/kc/kimi-cut/' | grep -c '^normalize.injective@kimi-') -eq 2 ] &&
   grep -q '(one turn): normalize.injective on kimi FAILS' '$T/k.txt'"

# A corpus that cannot be written is refused before the search, not found out after it.
mkdir -p "$T/file-corpus" && : >"$T/file-corpus/anthropic-sanitize"
"$CS" collide --impl anthropic-sanitize --target anthropic --corpus "$T/file-corpus" >"$T/o" 2>"$T/e"
check "an unwritable corpus: exit 2 before any search, one line" \
  "[ $? -eq 2 ] && [ \$(wc -l <'$T/e') -eq 1 ] && grep -q 'collide: the corpus' '$T/e' && ! grep -q COLLISION '$T/o'"

# The planted pair is judged only on an answer: a fault of emit on it is reported as the fault, never
# as the property holding.
cat >"$T/emitfault.py" <<'PY'
import hashlib, os, sys, time
from fixture_protocol import serve
mode = sys.argv[1]
def answer(r):
    if r["op"] == "normalize":
        return {"ids": ["toolu_%s" % hashlib.sha256(i.encode()).hexdigest()[:2] for i in r["ids"]]}
    if mode == "crash":
        os._exit(9)
    elif mode == "hang":
        time.sleep(100)
    elif mode == "garbage":
        print("{nope", flush=True)
    else:
        return {"error": "no emit today"}
serve(answer, "ef", ["normalize", "emit"], ["anthropic"])
PY
for m in crash:crash hang:timeout garbage:protocol error:rejected; do
  "$CS" collide --target anthropic --corpus "$T/ef-${m%%:*}" --jobs 1 --deadline 500 --impl-cmd -- python3 "$T/emitfault.py" "${m%%:*}" >"$T/ef.txt" 2>"$T/ef.err"
  check "emit on the planted pair: ${m%%:*} reported as ${m#*:}, never as holding" \
    "[ $? -eq 1 ] && [ \$(grep -c 'emit.unique on anthropic not judged: ${m#*:}: ' '$T/ef.txt') -eq 2 ] && ! grep -q 'holds' '$T/ef.txt'"
done

# The implementation's name (from its hello) and its stderr are its own text: escaped on the terminal.
cat >"$T/badname.py" <<'PY'
import hashlib
from fixture_protocol import serve
serve(lambda r: {"ids": ["toolu_" + hashlib.sha256(i.encode()).hexdigest()[:2] for i in r["ids"]]},
      "bad\n\x1b[31mname", ["normalize"], ["anthropic"])
PY
"$CS" collide --target anthropic --corpus "$T/bn" --jobs 1 --impl-cmd -- python3 "$T/badname.py" >"$T/bn.txt" 2>"$T/bn.err"
check "a hello name with a newline and ESC: escaped in every line that names it" \
  "[ $? -eq 1 ] && python3 -c \"import sys;d=open('$T/bn.txt','rb').read()+open('$T/bn.err','rb').read();sys.exit(b'\\x1b' in d or b'bad\\n' in d)\" &&
   grep -qF 'COLLISION: normalize anthropic of bad\n\u001B[31mname maps' '$T/bn.txt' &&
   grep -qF 'replayed first by every run of bad\n\u001B[31mname;' '$T/bn.txt'"
"$CS" collide --target mistral --no-corpus --jobs 1 --impl-cmd -- python3 "$T/badname.py" >"$T/o" 2>"$T/e"
check "and in an error naming it: one line, escaped" \
  "[ $? -eq 2 ] && [ \$(wc -l <'$T/e') -eq 1 ] && grep -qF 'bad\n\u001B[31mname has neither' '$T/e'"

# Budgets: a 53.6-bit space is not searched through in a test.
"$CS" collide --impl mistral-hash9 --target mistral --budget 200000 --no-corpus --jobs 2 >"$T/m.txt" 2>"$T/m.err"
check "mistral-hash9 under a small budget: exit 0, says how much work a collision needs" "[ $? -eq 0 ] && grep -q 'no collision found' '$T/m.txt' && grep -q '53.6 bits' '$T/m.txt'"
# `make e2e` builds build/adapter-c first: its absence is a failure, not a reason to skip.
"$CS" collide --target mistral --budget 50000 --no-corpus --jobs 2 --impl-cmd -- build/adapter-c >"$T/x.txt" 2>"$T/x.err"
check "an external implementation is searched through pipelined normalize requests" "[ $? -eq 0 ] && grep -q 'normalize mistral of' '$T/x.txt'"

# Help and messages say what collide does: one target; "an emit request".
"$CS" help collide >"$T/o" 2>"$T/e"
check "help collide: --target is exactly one, not repeatable" \
  "grep -q -- '--target T  the target to search for, exactly one' '$T/o' && ! grep -q -- '--target.*repeatable' '$T/o'"
"$CS" collide --no-corpus --target anthropic --via emit --jobs 1 --budget 100 --impl-cmd -- python3 tests/fixtures/proto_echo.py \
  --crash-after 40 >"$T/o" 2>"$T/e"
check "a fault of emit is told as 'an emit request'" "[ $? -eq 0 ] && grep -q 'collide: an emit request got crash' '$T/e'"

# Faults do not end a search: the process is restarted and the faulted inputs skipped (said once);
# an implementation that never answers is exit 3.
cat >"$T/crash5.py" <<'PY'
import hashlib, sys
from fixture_protocol import serve
n = 0
def answer(r):
    global n
    n += 1
    if len(sys.argv) > 1 or n == 5:
        sys.exit(7)
    return {"ids": ["".join("abcdefghij"[b % 10] for b in hashlib.sha256(i.encode()).digest()[:9]) for i in r["ids"]]}
serve(answer, "c5", ["normalize"], ["mistral"], stop=7)
PY
"$CS" collide --no-corpus --target mistral --budget 2000 --jobs 1 --impl-cmd -- python3 "$T/crash5.py" >"$T/c5.out" 2>"$T/c5.err"
check "a crash during a search: restarted, skipped, said once, the search goes on" \
  "[ $? -eq 0 ] && [ \$(grep -c 'its inputs are skipped' '$T/c5.err') -eq 1 ] && grep -q 'no collision found' '$T/c5.out'"
check "the skipped inputs do not count toward the estimate: 9 decimal digits are 29.9 bits" \
  "grep -q 'outputs look like 29.9 bits' '$T/c5.out'"
# Null answers say nothing of the output space either: half of them null leaves a 16-bit hash at about
# 16 bits (found at once, not missed by a search sized for 100 bits); all of them null is nothing to
# search, exit 3.
"$CS" collide --no-corpus --target anthropic --jobs 1 --budget 100000 --impl-cmd -- python3 "$T/norm.py" anthropic \
  'None if hashlib.sha256(("k" + i).encode()).digest()[0] & 1 else "toolu_" + hashlib.sha256(i.encode()).hexdigest()[:4]' \
  >"$T/nh.txt" 2>"$T/nh.err"
check "half the outputs null: estimated from the others (16 bits), the collision found" \
  "[ $? -eq 1 ] && grep -q 'outputs look like 16.0 bits' '$T/nh.txt' && grep -q '^COLLISION' '$T/nh.txt'"
# Nine in ten outputs null: their stand-ins are not stored (they collide with nothing), the summary
# counts them apart, and the expected work counts the evaluations the answers with an ID take.
"$CS" collide --no-corpus --target anthropic --jobs 1 --budget 60000 --impl-cmd -- python3 "$T/norm.py" anthropic \
  'None if hashlib.md5(i.encode()).digest()[0] >= 26 else "toolu_" + hashlib.sha256(i.encode()).hexdigest()[:10]' \
  >"$T/nn.txt" 2>"$T/nn.err"
check "nine in ten outputs null: only answers are stored, the nulls are counted apart" \
  "[ $? -eq 0 ] && python3 -c \"import re;t=open('$T/nn.txt').read();m=re.search(r'^collide: (\\d+) evaluations in .*, (\\d+) stored; (\\d+) null, faulted or cut off \\(not stored\\)\$',t,re.M);n,s,k=map(int,m.groups());assert s+k==n and 0<s<n/5,(n,s,k)\""
check "and a collision needs about ten times the evaluations the 40 bits alone would" \
  "grep -qE '^collide: a collision needs about 2\\^23\\.[0-9] evaluations if the outputs behave as a hash of the input \\(1[0-9.]*% of the probe.s inputs were answered with an ID\\)' '$T/nn.txt'"
"$CS" collide --no-corpus --target anthropic --jobs 1 --impl-cmd -- python3 "$T/norm.py" anthropic 'None' >"$T/o" 2>"$T/e"
check "every output null: exit 3, one line, says there is too little to search" \
  "[ $? -eq 3 ] && [ \$(wc -l <'$T/e') -eq 1 ] && grep -q 'answered 0 of 10240 probe inputs with an ID' '$T/e' && ! grep -q 'bits' '$T/o'"
"$CS" collide --no-corpus --target mistral --budget 2000 --jobs 1 --impl-cmd -- python3 "$T/crash5.py" always >"$T/o" 2>"$T/e"
check "an implementation that never answers: exit 3" "[ $? -eq 3 ] && grep -q 'no normalize request answered' '$T/e'"

# A fault on the request that confirms the pair found says nothing of the collision: asked again after
# a restart; a program that faults on every try is reported with its fault, exit 3.
cat >"$T/confirm.py" <<'PY'
import hashlib, os, sys
from fixture_protocol import serve
mode, n = sys.argv[1], 0
salt = os.urandom(8).hex() if mode == "salted" else ""  # salted: a salt drawn per process
def answer(r):
    global n
    n += 1
    if (mode == "every11" and n == 11) or (mode == "pairs" and len(r["ids"]) == 2):
        os._exit(7)
    return {"ids": ["toolu_" + hashlib.sha256((salt + i).encode()).hexdigest()[:4] for i in r["ids"]]}
serve(answer, "cf", ["normalize"], ["anthropic"])
PY
"$CS" collide --no-corpus --target anthropic --jobs 1 --impl-cmd -- python3 "$T/confirm.py" every11 >"$T/cf.txt" 2>"$T/cf.err"
check "a crash on the confirming request: asked again after a restart, the collision reported (exit 1)" \
  "[ $? -eq 1 ] && grep -q '^COLLISION' '$T/cf.txt' && ! grep -q 'does not collide' '$T/cf.err'"
"$CS" collide --no-corpus --target anthropic --jobs 1 --impl-cmd -- python3 "$T/confirm.py" pairs >"$T/cf.txt" 2>"$T/cf.err"
check "a crash on every try at confirming: exit 3, one line naming the crash, not nondeterminism" \
  "[ $? -eq 3 ] && [ \$(grep -c 'could not be confirmed: 3 tries' '$T/cf.err') -eq 1 ] &&
   grep -q 'got crash (the process exited with status 7' '$T/cf.err' && ! grep -q 'does not collide' '$T/cf.err'"
# A salt drawn per process makes collisions that no other process makes: the pair is confirmed in a
# restarted implementation, so none is planted as a case that would never fail again.
"$CS" collide --corpus "$T/salted-corpus" --target anthropic --jobs 1 --impl-cmd -- python3 "$T/confirm.py" salted \
  >"$T/cf.txt" 2>"$T/cf.err"
check "a collision only one process makes: exit 3, one line, nothing planted" \
  "[ $? -eq 3 ] && [ \$(wc -l <'$T/cf.err') -eq 1 ] && grep -q 'does not collide when evaluated again in a restarted implementation' '$T/cf.err' &&
   ! grep -q '^COLLISION' '$T/cf.txt' && [ -z \"\$(find '$T/salted-corpus' -type f 2>/dev/null)\" ]"
# run sees the same salt: normalize.deterministic asks the batch again of a restarted implementation.
"$CS" run --no-corpus --quiet --cases 600 --property normalize.deterministic --impl-cmd -- python3 "$T/confirm.py" salted \
  >"$T/o" 2>"$T/e"
check "run: a salt drawn per process fails normalize.deterministic after a restart" \
  "[ $? -eq 1 ] && grep -q 'FAIL normalize.deterministic on anthropic' '$T/o' && grep -qE 'normalize\(.*\) = .*, then .* after a restart' '$T/o'"
"$CS" help collide >"$T/o" 2>"$T/e"
check "help collide states exit status 3 and what it covers" \
  "grep -q '3 the implementation could not be run' '$T/o' && grep -q 'could not be confirmed' '$T/o'"
check "help collide says that without --time or --budget the search runs until a collision or a signal" \
  "grep -q 'Without --time or --budget the search runs until a collision or a signal' '$T/o'"

# A real collision of the reference's own mistral mapper, found by
#   callsign collide --impl reference --target mistral --via emit   (about 2^27 evaluations)
# Alone, each call gets the same wire ID; planted in two turns of one history, the reference's
# collision resolution must give the second call another one.
PA='toolu_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx|8RUhUZJCdc4'
PB='toolu_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx|HA8sR10rbs5'
turn() { printf '{"role":"assistant","provider":"openai_chat","turn_key":"t0","calls":[{"id":"%s","name":"read_file","args":{}}]},{"role":"tool","turn_key":"t1","results":[{"call_id":"%s","name":"read_file","content":"x"}]}' "$1" "$1"; }
printf '{"turns":[%s]}' "$(turn "$PA")" >"$T/ra.json"
printf '{"turns":[%s]}' "$(turn "$PB")" >"$T/rb.json"
printf '{"turns":[%s,%s]}' "$(turn "$PA")" "$(turn "$PB")" >"$T/rab.json"
"$CS" emit --target mistral "$T/ra.json" >"$T/ra.out" 2>>"$T/emit.err"
"$CS" emit --target mistral "$T/rb.json" >"$T/rb.out" 2>>"$T/emit.err"
"$CS" emit --target mistral "$T/rab.json" >"$T/rab.out" 2>>"$T/emit.err"
check "the reference maps the two single-call histories to the same mistral ID" "python3 -c \"import json;a=json.load(open('$T/ra.out'))['calls'];b=json.load(open('$T/rb.out'))['calls'];assert a==b and len(a[0])==9, (a,b)\""
check "planted together, the reference resolves the collision" "python3 -c \"import json;a=json.load(open('$T/ra.out'))['calls'][0];c=json.load(open('$T/rab.out'))['calls'];assert c[0]==a and c[1]!=a and len(c[1])==9, c\""

# --jobs is honoured up to the 256 that help states, not cut to 64 without a word.
"$CS" collide --impl reference --target anthropic --no-corpus --jobs 65 --budget 1000 >"$T/o" 2>"$T/e"
check "--jobs 65: 65 workers" "[ $? -eq 0 ] && grep -q '; 65 workers$' '$T/o'"
"$CS" collide --impl reference --target anthropic --no-corpus --jobs 257 --budget 1000 >"$T/o" 2>"$T/e"
check "--jobs 257: exit 2, one line naming the limit" "[ $? -eq 2 ] && [ \$(wc -l <'$T/e') -eq 1 ] && grep -q 'must be 1 to 256' '$T/e'"

# Usage errors: one line, exit 2.
"$CS" collide --impl anthropic-sanitize >"$T/o" 2>"$T/e"
check "no --target: exit 2, one line" "[ $? -eq 2 ] && [ \$(wc -l <'$T/e') -eq 1 ]"
"$CS" collide --impl anthropic-sanitize --target anthropic --target mistral >"$T/o" 2>"$T/e"
check "two targets: exit 2" "[ $? -eq 2 ]"
"$CS" collide --impl anthropic-sanitize --target mistral >"$T/o" 2>"$T/e"
check "a target the implementation lacks: exit 2, says so" "[ $? -eq 2 ] && grep -q 'neither normalize nor emit' '$T/e'"
"$CS" collide --impl anthropic-sanitize --target anthropic --budget 0 >"$T/o" 2>"$T/e"
check "--budget 0 (it would never end): exit 2" "[ $? -eq 2 ] && grep -q -- '--budget: must be at least 1' '$T/e'"
"$CS" collide --impl anthropic-sanitize --target anthropic --max-id-len 4 >"$T/o" 2>"$T/e"
check "--max-id-len (collide's inputs are its own): exit 2" "[ $? -eq 2 ] && grep -q 'does not apply' '$T/e'"
"$CS" collide --impl anthropic-sanitize --target anthropic --inputs nosuch >"$T/o" 2>"$T/e"
check "unknown --inputs: exit 2" "[ $? -eq 2 ] && grep -q 'unknown family' '$T/e'"
"$CS" collide --impl anthropic-sanitize --target anthropic --memory 12Q >"$T/o" 2>"$T/e"
check "bad --memory: exit 2" "[ $? -eq 2 ] && grep -q -- '--memory' '$T/e'"
# More memory than the machine has: refused as an option, not an allocation failure blamed on the
# implementation (exit 3) or an allocator's abort.
phys=$(($(getconf _PHYS_PAGES) * $(getconf PAGESIZE)))
for m in 1e15 "$((phys / 1048576 * 2))M"; do
  "$CS" collide --no-corpus --impl reference --target mistral --memory "$m" --budget 1000 >"$T/o" 2>"$T/e"
  check "--memory $m: exit 2, one line" \
    "[ $? -eq 2 ] && [ \$(wc -l <'$T/e') -eq 1 ] && grep -q \"'$m' is more than this machine's memory\" '$T/e' && ! [ -s '$T/o' ]"
done
# A table the system still cannot give (here under an address-space limit) is exit 2 with one line,
# not exit 3: --memory 2G allows a table of 768 MiB (a resize holds 1.5 times that within the
# bound), more than a 512 MiB limit leaves. A sanitized binary reserves terabytes of address space
# and cannot start under such a limit: this check runs with a binary that can (bash
# tests/e2e/collide.sh build/callsign).
if (ulimit -v 524288 && ASAN_OPTIONS= "$CS" help; exit $?) >/dev/null 2>&1; then
  (ulimit -v 524288 && exec "$CS" collide --no-corpus --impl reference --target mistral --memory 2G --dp-bits 1 \
    --jobs 1 --budget 1000) >"$T/o" 2>"$T/e"
  check "a table that cannot be allocated: exit 2, one line" \
    "[ $? -eq 2 ] && [ \$(wc -l <'$T/e') -eq 1 ] && grep -q 'cannot allocate a search table' '$T/e'"
fi

finish
