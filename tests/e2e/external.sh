#!/usr/bin/env bash
# External implementations over PROTOCOL.md: the example adapters in Python, Node.js and C are judged
# correctly: the correct normalizer passes, and each defect from public bug reports (--bug) fails a
# required property with a shrunk case. Usage: external.sh path/to/callsign
set -u
CS=${1:-build/san/callsign}
ADAPTER_C=${ADAPTER_C:-build/adapter-c}
. "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
CASES=${EXTERNAL_CASES:-300}
FIX="$(dirname "${BASH_SOURCE[0]}")/../fixtures"
# The implementations written below import fixture_protocol.py from there.
PYTHONPATH="$(cd "$FIX" && pwd)${PYTHONPATH:+:$PYTHONPATH}"
export PYTHONPATH

run() { "$CS" run --no-corpus --quiet --cases "$CASES" --json "$T/r.json" --impl-cmd -- "$@" >"$T/out" 2>"$T/err"; }
required_failures() {
  python3 - "$T/r.json" <<'P'
import json,sys
d=json.load(open(sys.argv[1]))
print(' '.join(sorted({c['property'] for c in d['implementations'][0]['cells'] if c['verdict']=='fail' and c['tier']=='required'})))
P
}

for adapter in "python3 examples/adapters/python/normalizer.py" "node examples/adapters/node/normalizer.mjs" "$ADAPTER_C"; do
  # shellcheck disable=SC2086
  run $adapter
  rc=$?
  if [ $rc -eq 0 ] && [ -z "$(required_failures)" ]; then ok "correct adapter passes: $adapter"; else bad "correct adapter passes: $adapter (exit $rc: $(required_failures))"; fi
done

# Each defect must fail the property that names it, with a shrunk case and a replay command.
check_bug() {
  local bug=$1 want=$2
  run python3 examples/adapters/python/normalizer.py --bug "$bug"
  local rc=$? got
  got=$(required_failures)
  case " $got " in
  *" $want "*) [ $rc -eq 1 ] && grep -q 'callsign replay' "$T/out" && ok "--bug $bug fails $want" || bad "--bug $bug: exit $rc, no replay line" ;;
  *) bad "--bug $bug should fail $want, failed: $got (exit $rc)" ;;
  esac
  # shrunk: at most two assistant turns and three calls
  python3 - "$T/r.json" "$want" <<'P' && ok "--bug $bug: shrunk case is small" || bad "--bug $bug: shrunk case too big"
import json,sys
d=json.load(open(sys.argv[1]))
for c in d['implementations'][0]['cells']:
    if c['property']==sys.argv[2] and c['verdict']=='fail':
        h=json.loads(c['failure']['history_json'])
        a=[t for t in h['turns'] if t['role']=='assistant']
        n=sum(len(t.get('calls',[])) for t in a)
        sys.exit(0 if len(a)<=2 and n<=3 else 1)
sys.exit(1)
P
}
check_bug sanitize-collide emit.unique
check_bug truncate emit.unique
check_bug random-fallback emit.deterministic
check_bug name-keyed emit.pair
check_bug per-turn-index emit.unique
check_bug asymmetric emit.pair
check_bug keep-orphans emit.no_orphans

# An implementation that cannot be started: exit 3 with a one-line reason.
"$CS" run --no-corpus --quiet --cases 10 --impl-cmd -- ./no/such/program >"$T/out" 2>"$T/err"
rc=$?
[ $rc -eq 3 ] && grep -q '^callsign: ' "$T/err" && ok "missing program: exit 3" || bad "missing program: exit $rc"
# The reason names the program once, in every command that opens it.
for cmd in "run --no-corpus --quiet --cases 10" "fuzz --no-corpus --quiet --time 2s --out $T/fz" \
  "collide --target mistral --budget 10" "probe --provider mistral --dry-run --cases 1"; do
  # shellcheck disable=SC2086
  "$CS" $cmd --impl-cmd -- /bin/true >"$T/out" 2>"$T/err"
  rc=$?
  n=$(grep -o "/bin/true" "$T/err" | wc -l)
  if [ $rc -eq 3 ] && [ "$(wc -l <"$T/err")" -eq 1 ] && [ "$n" -eq 1 ] && grep -q "exited with status 0 before answering hello" "$T/err"; then
    ok "${cmd%% *}: a program that exits at once: exit 3, one line naming it once"
  else
    bad "${cmd%% *}: a program that exits at once: exit $rc, $n mention(s): $(head -c 200 "$T/err")"
  fi
done
# A program that is not an implementation (answers hello with garbage): exit 3.
"$CS" run --no-corpus --quiet --cases 10 --deadline 500 --impl-cmd -- sh -c 'read x; echo nonsense; sleep 5' >"$T/out" 2>"$T/err"
rc=$?
[ $rc -eq 3 ] && ok "garbage hello: exit 3" || bad "garbage hello: exit $rc"
# vectors.canonical_v1 asks only an implementation that claims the scheme and announced canonicalize;
# a NUL byte in the implementation's stderr hides nothing after it in the reports.
cat >"$T/emitonly.py" <<'PY'
import sys
from fixture_protocol import serve
def log(req):
    sys.stderr.write("before\0after the nul\n")
    sys.stderr.flush()
# exit 9 on any other request: nothing but hello and stop may come with --property vectors
serve(lambda r: sys.exit(9), "emit-only", ["emit"], ["anthropic"], on_hello=log, scheme="callsign-canonical-v1")
PY
"$CS" run --no-corpus --quiet --property vectors --json "$T/eo.json" --impl-cmd -- python3 "$T/emitonly.py" >"$T/eo.out" 2>&1
# (Nothing else is selected, so the run checked nothing: exit 2, said so.)
check "no canonicalize to an implementation that did not announce it; stderr kept past a NUL" \
  "[ $? -eq 2 ] && grep -q 'nothing to check' '$T/eo.out' && python3 - '$T/eo.json' <<'P'
import json, sys
d = json.load(open(sys.argv[1]))['implementations'][0]
cell = [c for c in d['cells'] if c['property'] == 'vectors.canonical_v1'][0]
assert cell['verdict'] == 'not_applicable', cell['verdict']
assert 'after the nul' in d['stderr_tail'], d['stderr_tail']
P"

# A program that dies while a child of its own keeps its stdout open is seen dying, not waited on
# until the hello deadline.
t0=$(date +%s)
"$CS" run --no-corpus --quiet --cases 5 --impl-cmd -- sh -c 'sleep 5 & exit 3' >"$T/o" 2>"$T/e"
rc=$? t1=$(date +%s)
check "a program that exits while its child holds stdout: exit 3 at once, its status named" \
  "[ $rc -eq 3 ] && [ $((t1 - t0)) -lt 3 ] && grep -q 'exited with status 3 before answering hello' '$T/e'"

# An implementation that hangs on every request: its failure is shrunk for 30 s at most (each try
# waits out the deadline), not for minutes.
cat >"$T/hang.py" <<'PY'
import time
from fixture_protocol import serve
serve(lambda r: time.sleep(3600), "hang", ["emit"], ["anthropic"], stop=None)  # stop too
PY
t0=$(date +%s)
"$CS" run --no-corpus --quiet --cases 1 --deadline 300 --impl-cmd -- python3 "$T/hang.py" >"$T/hang.out" 2>&1
rc=$?
t1=$(date +%s)
check "a hanging implementation: exit 1, a timeout, shrinking bounded (under 60 s)" \
  "[ $rc -eq 1 ] && grep -q 'timeout' '$T/hang.out' && [ $((t1 - t0)) -lt 60 ]"

# An implementation that crashes on every request: after 20 faults and no answer nothing more is
# sent (each crash costs a restart, about 30 per case: 20 cases once took 140 s), the fault is shrunk
# among the replies it was one of, and every report names what was given up.
t0=$(date +%s)
"$CS" run --no-corpus --cases 20 --json "$T/dead.json" --impl-cmd -- python3 "$FIX/proto_echo.py" --crash-after 0 \
  >"$T/dead.out" 2>&1
rc=$? t1=$(date +%s)
check "crashes on every request: exit 1 in under 60 s (took $((t1 - t0)) s), every announced kind given up, shrunk to one call" \
  "[ $rc -eq 1 ] && [ $((t1 - t0)) -lt 60 ] && grep -q 'not sent any more after 20 faults and no answer, 200 in all, or restarts that failed: canonicalize, emit anthropic' '$T/dead.out' &&
   python3 -c \"import json;i=json.load(open('$T/dead.json'))['implementations'][0]
assert i['given_up']==['canonicalize','emit anthropic','emit openai_chat','normalize anthropic','normalize openai_chat'], i['given_up']
assert i['faults']['crash'] < 150, i['faults']
c=[c for c in i['cells'] if c['property']=='protocol.answer'][0]
assert c['verdict']=='fail' and c['failure']['shrunk_calls']==1, c['failure']\""
# The same with every target announced: the first requests of a case are then often those that plant
# implementation-aware twins, and their faults must fail protocol.answer too (they once went
# unjudged: all 20 faults fell there, everything was given up, and the run passed with exit 0).
cat >"$T/crash_all.py" <<'PY'
import json, sys
from fixture_protocol import hello, say
say(hello(json.loads(sys.stdin.readline()), "crash-all", ["emit", "canonicalize", "normalize"],
          ["anthropic", "openai_chat", "openai_responses", "mistral", "gemini", "bedrock"]))
sys.stdin.readline()
sys.exit(3)
PY
"$CS" run --no-corpus --cases 200 --quiet --json "$T/crash_all.json" --impl-cmd -- python3 "$T/crash_all.py" >"$T/o" 2>&1
check "crashes on every request, every target announced: exit 1, protocol.answer fails" \
  "[ $? -eq 1 ] && python3 -c \"import json;i=json.load(open('$T/crash_all.json'))['implementations'][0]
c=[c for c in i['cells'] if c['property']=='protocol.answer'][0]
assert c['verdict']=='fail', c\""
# A replay of a program that hangs on every request gives each kind up after 3 faults without an
# answer, not 20 (or never): one case's first fault already shows, and each fault waits a deadline.
cat >"$T/hang_all.py" <<'PY'
import json, sys, time
from fixture_protocol import hello, say
say(hello(json.loads(sys.stdin.readline()), "hang-all", ["emit", "canonicalize"], ["anthropic", "openai_chat"]))
time.sleep(3600)
PY
"$CS" replay --deadline 200 cs1. --json "$T/hang_all.json" --impl-cmd -- python3 "$T/hang_all.py" >"$T/o" 2>&1
check "replay of a program hanging on every request: exit 1, kinds given up after 3 faults, shrinking too" \
  "[ $? -eq 1 ] && grep -q 'not sent any more after 3 faults and no answer, 30 in all, or restarts that failed: canonicalize, emit anthropic' '$T/o' &&
   python3 -c \"import json;f=json.load(open('$T/hang_all.json'))['implementations'][0]['faults'];assert f['timeout']==3, f\""
# The same for a saved history case (replay FILE).
printf '{"property":"protocol.answer","target":"-","history":{"turns":[{"role":"assistant","provider":"anthropic","calls":[{"id":"a","name":"f"}]}]}}' >"$T/hist_case.json"
"$CS" replay --deadline 200 --json "$T/hang_file.json" "$T/hist_case.json" --impl-cmd -- python3 "$T/hang_all.py" >"$T/o" 2>&1
check "replay FILE of a history, same program: exit 1, given up after 3 faults" \
  "[ $? -eq 1 ] && python3 -c \"import json;i=json.load(open('$T/hang_file.json'))['implementations'][0];assert i['faults']['timeout']==3, i['faults']\""
# Restarts that fail at hello (a stale lock, say): the first instance answers hello and ends on its
# first request; every later one hangs at hello, or answers it with garbage. The faults are named as
# the hello failed (timeout, protocol), and after 3 failed restarts in a row none is tried again:
# each had cost a hello deadline per batch (300 cases took 51 s).
cat >"$T/restart.py" <<'P'
import sys, os, time
from fixture_protocol import serve
mark = sys.argv[2]
first = not os.path.exists(mark)
open(mark, "a").close()
def restarted(req):  # a restart answers its hello with garbage, or not at all
    if not first:
        if sys.argv[1] == "garbage":
            print("garbage", flush=True)
        time.sleep(3600)
serve(lambda req: sys.exit(1), "restart", ["normalize"], ["anthropic"], stop=None, on_hello=restarted)
P
for how in garbage:protocol hang:timeout; do
  t0=$(date +%s)
  "$CS" run --no-corpus --cases 300 --json "$T/rs.json" --impl-cmd -- python3 "$T/restart.py" "${how%%:*}" \
    "$T/restart.${how%%:*}" >"$T/rs.out" 2>&1
  rc=$? t1=$(date +%s)
  check "restarts that fail at hello (${how%%:*}): exit 1 in under 60 s (took $((t1 - t0)) s), ${how#*:} faults, not restarted after 3" \
    "[ $rc -eq 1 ] && [ $((t1 - t0)) -lt 60 ] && grep -q 'not restarted: the last 3 restarts failed' '$T/rs.out' &&
     python3 -c \"import json;f=json.load(open('$T/rs.json'))['implementations'][0]['faults']
assert f['${how#*:}'] > 100 and f['crash'] == 1, f\""
  pkill -f "python3 $T/restart.py" 2>/dev/null
done
# The first instance answers everything; every restart fails at hello (a stale lock, say). The
# restart check of case 0 is such a restart: protocol.answer fails on it (it once passed, with the
# restart check skipped in silence and exit 0), in a run and in a replay.
"$CS" run --no-corpus --cases 2 --json "$T/once.json" --impl-cmd -- python3 "$FIX/proto_echo.py" --once "$T/once.flag" \
  >"$T/once.out" 2>&1
check "every restart fails at hello: protocol.answer fails, exit 1" \
  "[ $? -eq 1 ] && python3 -c \"import json;i=json.load(open('$T/once.json'))['implementations'][0]
c=[c for c in i['cells'] if c['property']=='protocol.answer'][0]
assert c['verdict']=='fail' and 'hello' in c['failure']['message'], c\""
rm -f "$T/once.flag"
"$CS" replay --property emit.deterministic --target anthropic cs1.AQABAAAAAAAAAAAAAAE --impl-cmd -- \
  python3 "$FIX/proto_echo.py" --once "$T/once.flag" >"$T/once.out" 2>&1
check "...and in a replay of emit.deterministic: protocol.answer fails, exit 1" \
  "[ $? -eq 1 ] && grep -q 'FAIL protocol.answer' '$T/once.out' && grep -q 'restart failed\\|restarts failed' '$T/once.out'"
# The first instance crashes on a call ID with ':' in it; every restart fails at hello. The
# restarts' faults are not the case's: protocol.answer reports the crash on its own case (not
# case 0's failed restart check), shrinking takes no try that only failed to start (it once shrank
# the case to one call with no ':', whose replay passes), and stops once no restart is tried,
# saying so. A replay with a program that starts again shows the crash.
cat >"$T/crash_once.py" <<'P'
import sys, os
from fixture_protocol import ids_of, serve
mark = sys.argv[1]
if os.path.exists(mark):
    sys.exit(7)
open(mark, "a").close()
def answer(req):
    calls, results = ids_of(req["history"])
    if any(i and ":" in i for i in calls):
        sys.exit(3)
    return {"calls": calls, "results": results}
serve(answer, "crash-once", ["emit"], ["anthropic"])
P
rm -f "$T/crash_once.mark"
"$CS" run --no-corpus --cases 300 --json "$T/co.json" --impl-cmd -- python3 "$T/crash_once.py" "$T/crash_once.mark" \
  >"$T/co.out" 2>&1
co_rc=$?
read -r co_ok co_replay < <(python3 -c "
import json
c = [c for c in json.load(open('$T/co.json'))['implementations'][0]['cells'] if c['property'] == 'protocol.answer'][0]
f = c['failure']
calls = [k['id'] for t in json.loads(f['history_json'])['turns'] for k in t.get('calls', [])]
ok = (c['verdict'] == 'fail' and any(':' in i for i in calls) and f['message'].startswith('crash: the process exited with status 3')
      and 'not shrunk: not restarted: the last 3 restarts failed' in f['message'])
print(int(ok), f['replay'])")
check "a crash, then restarts that fail: protocol.answer reports the crash on its own case, unshrunk by restart faults" \
  "[ $co_rc -eq 1 ] && [ '$co_ok' = 1 ]"
rm -f "$T/crash_once.mark"
eval "\"$CS\"${co_replay#callsign}" >"$T/co_replay.out" 2>&1
check "...and its replay, with a program that starts again, shows the crash" \
  "[ $? -eq 1 ] && grep -q 'exited with status 3' '$T/co_replay.out'"

# A fault that needs earlier requests of the same process (a crash after the 20th) is not shrunk
# into a case that never faults alone: the case reported either fails again in its replay or says
# it held when run again alone.
"$CS" run --no-corpus --cases 300 --seed 3 --json "$T/ca.json" --impl-cmd -- python3 "$FIX/proto_echo.py" --crash-after 20 \
  >/dev/null 2>&1
read -r msg_held replay_cmd < <(python3 -c "
import json
c = [c for c in json.load(open('$T/ca.json'))['implementations'][0]['cells'] if c['property'] == 'protocol.answer'][0]
f = c['failure']
print(int('held when run again alone' in f['message']), f['replay'])")
eval "\"$CS\"${replay_cmd#callsign}" >/dev/null 2>&1
replay_rc=$?
check "a crash after the 20th request: its protocol.answer case replays as a failure, or says it held alone" \
  "[ -n '$replay_cmd' ] && { [ $replay_rc -eq 1 ] || [ $msg_held -eq 1 ]; }"

# A program that hangs only on the smallest history, the one shrinking ends at
# (fixtures/hang_on_smallest.py): the fault a shrink try met is a protocol.answer failure, and its
# replay fails too (it was a timeout counted, no more).
"$CS" run --no-corpus --cases 5 --deadline 150 --property emit.regex --json "$T/hm.json" \
  --impl-cmd -- python3 "$FIX/hang_on_smallest.py" >/dev/null 2>&1
hm_rc=$?
hm_replay=$(python3 -c "
import json
c = [c for c in json.load(open('$T/hm.json'))['implementations'][0]['cells'] if c['property'] == 'protocol.answer'][0]
print(c['failure']['replay'] if c['verdict'] == 'fail' else '')")
eval "\"$CS\"${hm_replay#callsign}" >/dev/null 2>&1
check "a hang met only by shrinking's tries: protocol.answer fails, and its replay fails too" \
  "[ $hm_rc -eq 1 ] && [ -n '$hm_replay' ] && [ $? -eq 1 ]"
check "...its message says it was found on a case shrinking emit.regex tried" \
  "grep -q 'found on a case that shrinking emit.regex' '$T/hm.json'"
# A replay judges the one case it was given: a fault on a try of its shrinking is not its failure.
hm_regex=$(python3 -c "
import json
c = [c for c in json.load(open('$T/hm.json'))['implementations'][0]['cells'] if c['property'] == 'emit.regex'][0]
print(c['failure']['replay'])")
eval "\"$CS\" replay --json '$T/hmr.json'${hm_regex#callsign replay}" >/dev/null 2>&1
check "...a replay of emit.regex's case: emit.regex fails, protocol.answer holds on it" \
  "[ $? -eq 1 ] && python3 -c \"import json,sys; c={c['property']: c['verdict'] for c in json.load(open('$T/hmr.json'))['implementations'][0]['cells']}; sys.exit(not (c['emit.regex'] == 'fail' and c['protocol.answer'] == 'pass'))\""

# A restart whose hello announces other targets than the first: the run planned its requests by the
# first, so the restart fails at hello (a protocol fault) rather than be sent what it disowns.
cat >"$T/fewer.py" <<'P'
import sys, os
from fixture_protocol import serve
mark = sys.argv[1]
first = not os.path.exists(mark)
open(mark, "a").close()
def answer(req):  # the first instance ends at its first request after hello, stop too
    if first:
        sys.exit(1)
    return {"ids": req["ids"]}
serve(answer, "fewer", ["normalize"], ["anthropic", "openai_chat"] if first else ["anthropic"], stop=None)
P
"$CS" run --no-corpus --cases 3 --impl-cmd -- python3 "$T/fewer.py" "$T/fewer.flag" >"$T/fewer.out" 2>&1
check "a restart's hello announces fewer targets: a protocol fault naming it, exit 1" \
  "[ $? -eq 1 ] && grep -q \"a restart's hello announces other ops, targets or scheme than the first hello did\" '$T/fewer.out'"
# A restart's hello must give the first one's name: the report, the corpus and fuzz results are
# keyed by it. A program with its process id in its name fails protocol.answer at its first restart.
"$CS" run --no-corpus --cases 3 --impl-cmd -- python3 "$FIX/proto_echo.py" --name 'echo-{pid}' --crash-after 2 \
  >"$T/pidname.out" 2>&1
check "a restart's hello gives another name: a protocol fault naming both, exit 1" \
  "[ $? -eq 1 ] && grep -q 'FAIL protocol.answer' '$T/pidname.out' && grep -Eq \"a restart's hello names the implementation 'echo-[0-9]+', the first hello 'echo-[0-9]+'\" '$T/pidname.out'"
# A program that hangs on some histories (a ':' in an ID, as Kimi's IDs have): the timeout shrinks
# like a crash (a try stops at its first fault, so a hang costs one deadline, not one per request),
# and a replay of the shrunk case fails without calling it "held when run again" (replay gives a
# kind up after a few faults).
cat >"$T/hang_pipe.py" <<PY
import json, sys, time
sys.path.insert(0, "$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/examples/adapters/python")
import normalizer
for line in sys.stdin:
    req = json.loads(line)
    if req.get("op") == "stop":
        break
    ids = [c.get("id") or "" for t in (req.get("history") or {}).get("turns", []) for c in t.get("calls", [])]
    if req.get("op") == "emit" and any(":" in i for i in ids):
        time.sleep(3600)
    print(json.dumps(normalizer.handle(req, None)), flush=True)
PY
"$CS" run --cases 13 --deadline 500 --property emit.regex --no-corpus --json "$T/hang.json" --impl-cmd -- python3 "$T/hang_pipe.py" \
  >"$T/hang.out" 2>&1
check "a hang shrinks to one call (protocol.answer, exit 1)" \
  "[ $? -eq 1 ] && python3 -c \"import json; d=json.load(open('$T/hang.json')); f=[c for c in d['implementations'][0]['cells'] if c['property']=='protocol.answer'][0]['failure']; assert f['shrunk_calls'] == 1 and f['shrink_steps'] > 0, f\""
tok=$(python3 -c "import json; d=json.load(open('$T/hang.json')); print([c for c in d['implementations'][0]['cells'] if c['property']=='protocol.answer'][0]['failure']['token'])")
"$CS" replay --property protocol.answer --deadline 500 "$tok" --impl-cmd -- python3 "$T/hang_pipe.py" >"$T/hang_replay.out" 2>&1
check "its replay fails with the timeout, not 'held when run again'" \
  "[ $? -eq 1 ] && grep -q 'timeout: no answer' '$T/hang_replay.out' && ! grep -q 'held when run again' '$T/hang_replay.out'"
# A program that closes its stdin after the hello can answer nothing more: each request it never
# got is a protocol fault saying so, not a timeout after the whole deadline.
cat >"$T/closes_stdin.py" <<'PY'
import json, os, sys, time
from fixture_protocol import hello, say
req = json.loads(sys.stdin.readline())
os.close(0)
say(hello(req, "closes-stdin", ["normalize"], ["mistral"]))
time.sleep(30)
PY
"$CS" run --cases 3 --no-corpus --quiet --impl-cmd -- python3 "$T/closes_stdin.py" >"$T/closed.out" 2>&1
check "a program that closed its stdin: protocol faults naming it, no timeout" \
  "[ $? -eq 1 ] && grep -Eq 'protocol: the process closed its stdin before seq [0-9]+ \(normalize mistral\) was sent to it' '$T/closed.out' &&
   ! grep -q 'timeout' '$T/closed.out'"
# A program that can no longer be started (removed while the run restarts it) is a protocol.answer
# failure like a failed hello, and the run keeps what it found: before, the run ended at once,
# every finding lost, as if the program had never run.
mkdir -p "$T/vanish"
cat >"$T/vanish/impl.py" <<PY
#!/usr/bin/env python3
import json, os, sys
sys.path.insert(0, "$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/examples/adapters/python")
import normalizer
n = 0
for line in sys.stdin:
    req = json.loads(line)
    if req.get("op") == "stop":
        break
    n += req.get("op") != "hello"
    if n == 300:
        os.remove(sys.argv[0])
        sys.exit(1)
    print(json.dumps(normalizer.handle(req, None)), flush=True)
PY
chmod +x "$T/vanish/impl.py"
"$CS" run --cases 200 --no-corpus --strict --impl-cmd -- "$T/vanish/impl.py" >"$T/vanish.out" 2>&1
check "a program removed while the run restarts it: exit 1, protocol.answer says it cannot start, the rest kept" \
  "[ $? -eq 1 ] && grep -q 'FAIL protocol.answer' '$T/vanish.out' && grep -q 'cannot start' '$T/vanish.out' &&
   grep -q 'FAIL emit.native_passthrough' '$T/vanish.out' && ! grep -q 'could not run' '$T/vanish.out'"
# Provider keys stay with callsign: an ID normalizer needs none, and one it never sees it cannot
# print or send. Any other variable is passed (the control: the fixture does see it).
for var in OPENAI_API_KEY AWS_SECRET_ACCESS_KEY GEMINI_API_KEY; do
  env "$var=sk-callsign-test-0123456789" "$CS" run --no-corpus --cases 2 --quiet --impl-cmd -- python3 "$FIX/proto_echo.py" \
    --hello-exit-if-env "$var" >"$T/envkey.out" 2>&1
  check "$var is not in an implementation's environment (it runs; exit 1 for its failures)" \
    "[ $? -eq 1 ] && ! grep -q 'in my environment' '$T/envkey.out'"
done
CALLSIGN_TEST_VAR=1 "$CS" run --no-corpus --cases 2 --quiet --impl-cmd -- python3 "$FIX/proto_echo.py" \
  --hello-exit-if-env CALLSIGN_TEST_VAR >"$T/envother.out" 2>&1
check "another variable is in the implementation's environment (cannot run: exit 3)" \
  "[ $? -eq 3 ] && grep -q 'CALLSIGN_TEST_VAR is in my environment' '$T/envother.out'"
# PROTOCOL.md: on stop the program exits with status 0. Another status is named in a note; it is
# not a property (every answer was judged already), so the exit status stays that of the checks.
"$CS" run --no-corpus --cases 3 --quiet --impl-cmd -- python3 "$FIX/proto_echo.py" --stop-exit 3 >"$T/stop3.out" 2>"$T/stop3.err"
rc=$?
"$CS" run --no-corpus --cases 3 --quiet --impl-cmd -- python3 "$FIX/proto_echo.py" >"$T/stop0.out" 2>"$T/stop0.err"
check "a program that exits with status 3 on stop: a note naming it, the exit status of the checks (1)" \
  "[ $rc -eq 1 ] && [ $? -eq 1 ] && grep -qx 'callsign: note: proto-echo, at stop: exited with status 3 (PROTOCOL.md: one answer per request, status 0 on stop)' '$T/stop3.err' && ! grep -q 'at stop' '$T/stop0.err'"
# A line after the last answer is seen by no later request (a replay of one case sends one): the
# note at stop names it.
"$CS" replay --property emit.regex --target anthropic cs1.AQABAAAAAAAAAAAAAAE --impl-cmd -- python3 "$FIX/proto_echo.py" \
  --ops emit --targets anthropic --twice-on call_0 >"$T/twice.out" 2>"$T/twice.err"
check "a program that answers its last request twice: a note at stop naming the bytes, exit 0 (every answer held)" \
  "[ $? -eq 0 ] && grep -q 'callsign: note: proto-echo, at stop: wrote 65 bytes after its last answer, which no request asked for' '$T/twice.err'"
# normalize.injective feeds a normalizer its own outputs without their prefix too: one that passes
# valid IDs through behind its prefix and hashes the rest gives "a|b" and the bare hash one ID.
cat >"$T/reprefix.py" <<'P'
import hashlib, re
from fixture_protocol import serve
serve(lambda r: {"ids": ["toolu_" + (i if re.fullmatch(r"[A-Za-z0-9_-]{1,58}", i) else hashlib.sha256(i.encode()).hexdigest()[:24])
                         for i in r["ids"]]}, "reprefix", ["normalize"], ["anthropic"])
P
"$CS" run --no-corpus --quiet --property normalize.injective --impl-cmd -- python3 "$T/reprefix.py" >"$T/reprefix.out" 2>&1
check "a normalizer that prefixes what it passes through: normalize.injective fails on an output without its prefix" \
  "[ $? -eq 1 ] && grep -Eq 'normalize\\(\"[0-9a-f]{24}\"\\) = normalize\\(|= normalize\\(\"[0-9a-f]{24}\"\\)' '$T/reprefix.out'"
# A hello answered without its line end waits out the hello deadline, and the reason says why.
cat >"$T/noeol.py" <<'P'
import sys, json, time
from fixture_protocol import hello
sys.stdout.write(json.dumps(hello(json.loads(sys.stdin.readline()), "noeol", ["canonicalize"], [])))
sys.stdout.flush()
time.sleep(30)
P
"$CS" run --no-corpus --cases 1 --quiet --impl-cmd -- python3 "$T/noeol.py" >"$T/o" 2>"$T/e"
check "a hello without its line end: exit 3, the bytes that came without one named" \
  "[ $? -eq 3 ] && grep -q 'no answer to hello within 5000 ms (98 bytes came without a line end)' '$T/e'"
# Ops and targets callsign does not know are ignored, and a note says which (a typo drops checks).
"$CS" run --no-corpus --cases 3 --quiet --impl-cmd -- python3 "$FIX/proto_echo.py" --ops emitt,canonicalize \
  --targets antropic,mistral >"$T/o" 2>"$T/e"
check "hello with an unknown op and target: a note naming both" \
  "grep -q 'callsign: note: the hello of proto-echo announces what callsign does not know, and ignores: op \"emitt\", target \"antropic\"' '$T/e'"
# Only canonicalize crashes: it alone is given up, and emit goes on being checked.
"$CS" run --no-corpus --cases 60 --json "$T/half.json" --impl-cmd -- python3 "$FIX/proto_echo.py" \
  --crash-op canonicalize >"$T/half.out" 2>&1
rc=$?
check "crashes on every canonicalize: exit 1, canonicalize alone given up, emit still checked" \
  "[ $rc -eq 1 ] && python3 -c \"import json;i=json.load(open('$T/half.json'))['implementations'][0]
assert i['given_up']==['canonicalize'], i['given_up']
assert i['faults']['crash'] < 80, i['faults']
e=[c['verdict'] for c in i['cells'] if c['property'].startswith('emit.') and c['target'] in ('anthropic','openai_chat')]
assert e and all(v in ('pass','fail') for v in e), e
k=[c['verdict'] for c in i['cells'] if c['property'].startswith('canon.')]
assert k and all(v=='unchecked' for v in k), k\""
# Its replay line reproduces the crash (protocol.answer asks for every request, not none).
replay=$(python3 -c "import json;i=json.load(open('$T/half.json'))['implementations'][0]
print([c for c in i['cells'] if c['property']=='protocol.answer'][0]['failure']['replay'])")
eval "${replay/callsign/\"\$CS\"}" >"$T/o" 2>&1
rc=$?
check "the protocol.answer replay line reproduces the crash: exit 1" \
  "[ $rc -eq 1 ] && grep -q 'FAIL protocol.answer' '$T/o' && grep -q 'crashing on every canonicalize' '$T/o'"
# No implementation outlives callsign. Each runs in a process group of its own, so what it starts
# (a wrapper's child) must be ended with the group, and a Ctrl-C, which reaches callsign alone, must
# end it too. A hung implementation, the usual reason for a Ctrl-C, does not see its stdin close.
cat >"$T/hang_impl.py" <<'P'
import json, sys, time
from fixture_protocol import hello, say
say(hello(json.loads(sys.stdin.readline()), "hang", ["normalize"], ["anthropic"]))
sys.stdin.readline()
time.sleep(1000)
P
left() { pgrep -f "python3 $T/hang_impl.py" | wc -l; }
"$CS" run --no-corpus --quiet --cases 1 --deadline 100 --impl-cmd -- bash -c "python3 '$T/hang_impl.py'; exit 0" >"$T/o" 2>&1
sleep 0.3
check "a wrapper's child ends with the implementation: none left after the run" "[ \$(left) -eq 0 ]"
pkill -f "python3 $T/hang_impl.py"
env --default-signal=INT "$CS" run --no-corpus --quiet --cases 1 --deadline 60000 --impl-cmd -- python3 "$T/hang_impl.py" \
  >"$T/o" 2>&1 &
cs=$!
for _ in $(seq 50); do [ "$(left)" -ge 1 ] && break; sleep 0.1; done
kill -INT "$cs"
wait "$cs"
rc=$?
sleep 0.3
check "Ctrl-C during run: callsign ends by the signal (130) and the hung implementation with it" \
  "[ $rc -eq 130 ] && [ \$(left) -eq 0 ]"
# Every other signal that ends callsign (a CPU-time limit's SIGXCPU, a stray SIGUSR1 or SIGALRM) ends
# the implementation first too.
for sig in USR1 ALRM XCPU; do
  pkill -f "python3 $T/hang_impl.py"
  "$CS" run --no-corpus --quiet --cases 1 --deadline 60000 --impl-cmd -- python3 "$T/hang_impl.py" >"$T/o" 2>&1 &
  cs=$!
  for _ in $(seq 50); do [ "$(left)" -ge 1 ] && break; sleep 0.1; done
  kill -$sig "$cs"
  wait "$cs" 2>/dev/null
  rc=$?
  sleep 0.3
  check "SIG$sig during run: callsign ends by the signal ($((128 + $(kill -l $sig)))) and the hung implementation with it" \
    "[ $rc -eq $((128 + $(kill -l $sig))) ] && [ \$(left) -eq 0 ]"
done
pkill -f "python3 $T/hang_impl.py"

# A replay restarts the implementation and asks again what its property reads: the normalize batch
# for a normalize property (a salt drawn per process shows there), and none for another property.
printf '#!/bin/sh\ntee -a "%s" | python3 "%s"\n' "$T/asked.log" "$(cd "$FIX" && pwd)/proto_echo.py" >"$T/logged.sh"
chmod +x "$T/logged.sh"
: >"$T/asked.log"
"$CS" replay --property emit.regex --target anthropic cs2.AAAAAAAAAAAAAAE.E9YE --impl-cmd -- "$T/logged.sh" >"$T/o" 2>"$T/e"
rc=$?
check "replay of emit.regex: exit 0, no normalize request (no empty batch)" \
  "[ $rc -eq 0 ] && grep -q '\"op\":\"emit\"' '$T/asked.log' && ! grep -q '\"op\":\"normalize\"' '$T/asked.log'"
: >"$T/asked.log"
"$CS" replay --property normalize.deterministic --target anthropic cs2.AAAAAAAAAAAAAAE.E9YE --impl-cmd -- "$T/logged.sh" \
  >"$T/o" 2>"$T/e"
rc=$?
check "replay of normalize.deterministic: the batch asked twice, then again after a restart (two hellos)" \
  "[ $rc -eq 0 ] && [ \$(grep -c '\"op\":\"normalize\",\"target\":\"anthropic\",\"ids\":\[\"' '$T/asked.log') -eq 3 ] &&
   [ \$(grep -c '\"op\":\"hello\"' '$T/asked.log') -eq 2 ]"
finish
