#!/usr/bin/env bash
# End-to-end tests of `run --jobs N`: N worker processes report exactly what one process reports
# (verdicts, failing cases, replay tokens, shrunk histories, case counts, statistics, exit status),
# for built-ins, for the default job with its corpus and known-failures list, and for an external
# program; bad values and broken programs get one line and their exit status.
# Usage: run_jobs.sh path/to/callsign
set -u
CS=${1:-build/san/callsign}
. "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
FIX="$(dirname "${BASH_SOURCE[0]}")/../fixtures"
ROOT="$(dirname "${BASH_SOURCE[0]}")/../.."

# The report of a run, without what may differ between runs: timings, per-cell check counts (each
# worker checks a failing property up to its own first failure), the command line, and the random
# UUIDs that tool-id-strategy answers (they differ between any two runs).
cat >"$T/same.py" <<'PY'
import json, re, sys
def norm(s):
    return re.sub(r"[0-9a-f]{32}", "UUID", s) if isinstance(s, str) else s
def view(path):
    d = json.load(open(path))
    out = {"exit": d["exit_status"], "statistics": d["statistics"]}
    for i in d["implementations"]:
        out[i["name"] + " cases"] = i["cases"]
        out[i["name"] + " faults"] = i["faults"]
        for c in i["cells"]:
            f = c.get("failure") or {}
            out[" ".join((i["name"], c["property"], c["target"]))] = (
                c["verdict"], f.get("case_index"), f.get("token"), norm(f.get("message")), norm(f.get("history_json")),
                f.get("shrunk_turns"), f.get("shrunk_calls"))
    return out
a, b = view(sys.argv[1]), view(sys.argv[2])
diff = [k for k in sorted(set(a) | set(b)) if a.get(k) != b.get(k)]
for k in diff[:5]:
    print("  differs:", k, a.get(k), b.get(k))
failed = sum(1 for v in a.values() if isinstance(v, tuple) and v[0] in ("fail", "expected_fail"))
print("  compared", len(a), "entries,", failed, "failing cells")
sys.exit(1 if diff or failed == 0 else 0)
PY

# Built-ins whose designs fail many properties: the same failing cases, shrunk the same.
"$CS" run --impl prefix-swap --impl adk-stream-v1 --impl mistral-hash9 --cases 1500 --seed 5 --no-corpus --quiet \
  --json "$T/one.json" >"$T/one.out" 2>&1
rc1=$?
"$CS" run --impl prefix-swap --impl adk-stream-v1 --impl mistral-hash9 --cases 1500 --seed 5 --no-corpus --quiet \
  --jobs 3 --json "$T/three.json" >"$T/three.out" 2>&1
rc3=$?
check "built-ins, --jobs 3: exit 1 as with one process" "[ $rc1 -eq 1 ] && [ $rc3 -eq 1 ]"
check "built-ins, --jobs 3: the report of one process (cells, failing cases, tokens, statistics)" \
  "python3 '$T/same.py' '$T/one.json' '$T/three.json'"

# The default job of `make run`: every built-in, the committed corpus and the known-failures list.
cp -r "$ROOT/corpus/regressions" "$T/corpus1"
cp -r "$ROOT/corpus/regressions" "$T/corpus2"
"$CS" run --expect "$ROOT/corpus/expected/builtins.txt" --corpus "$T/corpus1" --quiet --json "$T/d1.json" \
  >"$T/d1.out" 2>&1
rc1=$?
"$CS" run --expect "$ROOT/corpus/expected/builtins.txt" --corpus "$T/corpus2" --quiet --jobs 2 --json "$T/d2.json" \
  >"$T/d2.out" 2>&1
rc2=$?
check "the default job with --jobs 2: exit 0, every listed failure and no other" "[ $rc1 -eq 0 ] && [ $rc2 -eq 0 ]"
check "the default job with --jobs 2: the report of one process" "python3 '$T/same.py' '$T/d1.json' '$T/d2.json'"
check "the default job with --jobs 2 saves the same corpus cases" \
  "diff <(cd '$T/corpus1' && find . | sort) <(cd '$T/corpus2' && find . | sort) >/dev/null"

# An external program: each worker starts its own; its stderr tail still reaches the report.
"$CS" run --cases 300 --no-corpus --quiet --json "$T/x1.json" --impl-cmd -- \
  python3 "$ROOT/examples/adapters/python/normalizer.py" >"$T/x1.out" 2>&1
"$CS" run --cases 300 --no-corpus --quiet --jobs 2 --json "$T/x2.json" --impl-cmd -- \
  python3 "$ROOT/examples/adapters/python/normalizer.py" >"$T/x2.out" 2>&1
check "an external program, --jobs 2: the report of one process" "python3 '$T/same.py' '$T/x1.json' '$T/x2.json'"

t0=$(date +%s)
"$CS" run --no-corpus --cases 20 --jobs 2 --json "$T/dead.json" --impl-cmd -- python3 "$FIX/proto_echo.py" \
  --crash-after 0 >"$T/dead.out" 2>&1
rc=$? t1=$(date +%s)
check "a program crashing on every request, --jobs 2: exit 1 in under 60 s (took $((t1 - t0)) s), its stderr kept" \
  "[ $rc -eq 1 ] && [ $((t1 - t0)) -lt 60 ] && python3 -c \"import json;i=json.load(open('$T/dead.json'))['implementations'][0]
c=[c for c in i['cells'] if c['property']=='protocol.answer'][0]
assert c['verdict']=='fail', c
assert i['faults']['crash'] > 0 and 'canonicalize' in i['given_up'], i
assert 'fixture' in (i.get('stderr_tail') or ''), i.get('stderr_tail')\""

# Each worker starts its own process: one whose hello gives another name than the first process's
# cannot be run (the report and the corpus are keyed by the name).
"$CS" run --no-corpus --cases 20 --jobs 2 --impl-cmd -- python3 "$FIX/proto_echo.py" --name 'echo-{pid}' \
  >"$T/pid.out" 2>&1
check "workers whose hellos give other names than the first process's: exit 3, naming both" \
  "[ $? -eq 3 ] && grep -Eq \"a worker's hello names the implementation 'echo-[0-9]+', the first process's 'echo-[0-9]+'\" '$T/pid.out'"

t0=$(date +%s)
"$CS" run --impl reference --time 2s --cases 100000000 --no-corpus --quiet --jobs 2 --json "$T/timed.json" \
  >"$T/timed.out" 2>&1
rc=$? t1=$(date +%s)
check "--time 2s with --jobs 2: exit 0 within 10 s (took $((t1 - t0)) s), cases from both workers" \
  "[ $rc -eq 0 ] && [ $((t1 - t0)) -lt 10 ] && python3 -c \"import json;i=json.load(open('$T/timed.json'))['implementations'][0]
assert i['cases'] > 1000, i['cases']\""

# Cases cut off by --time are not judged; when no worker judged any, the run checked nothing (exit 3,
# naming the request that was waiting), as with one process.
"$CS" run --no-corpus --time 1s --jobs 2 --impl-cmd -- python3 "$FIX/proto_echo.py" --slow 3 >"$T/o" 2>"$T/e"
check "every case cut off by --time in every worker: exit 3, one line naming the request" \
  "[ $? -eq 3 ] && [ \$(wc -l <'$T/e') -eq 1 ] && grep -q 'no case got all its answers.*unanswered' '$T/e'"

for v in 0 257 x; do
  "$CS" run --impl reference --jobs "$v" >"$T/o" 2>"$T/e"
  check "--jobs $v: exit 2, one line" "[ $? -eq 2 ] && [ \$(wc -l <'$T/e') -eq 1 ] && grep -q -- '--jobs' '$T/e'"
done
# Each worker runs shard I + N*j of N*J: past 32 bits that wrapped and ran other cases.
"$CS" run --impl reference --cases 10 --no-corpus --quiet --shard 1/2147483649 --jobs 2 >"$T/o" 2>"$T/e"
check "--shard 1/2147483649 with --jobs 2: exit 2, one line" \
  "[ $? -eq 2 ] && [ \$(wc -l <'$T/e') -eq 1 ] && grep -q 'shards are more than 4294967295' '$T/e'"

# Each worker has its own instance of the program, and the parent keeps none beside them: while the
# workers run, --jobs 2 means two copies.
"$CS" run --jobs 2 --time 4s --cases 100000000 --no-corpus --quiet \
  --impl-cmd -- python3 "$FIX/proto_echo.py" --slow 0.01 --tag "$T/copies" >/dev/null 2>&1 &
runner=$!
sleep 2
copies=$(pgrep -f -- "^[^ ]*python3 [^ ]*proto_echo.py .*--tag $T/copies" | wc -l)
wait "$runner"
check "--jobs 2: two copies of the program while the workers run ($copies)" "[ $copies -eq 2 ]"

# A SIGTERM to the parent alone (a CI runner's) ends the workers and their implementations too.
setsid "$CS" run --jobs 2 --time 30s --cases 100000000 --no-corpus --quiet \
  --impl-cmd -- python3 "$FIX/proto_echo.py" --slow 0.01 --tag "$T" >/dev/null 2>&1 &
parent=$!
sleep 2
before=$(pgrep -f -- "--tag $T" | wc -l)
kill -TERM "$parent"
for _ in 1 2 3 4 5 6 7 8 9 10; do
  [ "$(pgrep -f -- "--tag $T" | wc -l)" -eq 0 ] && break
  sleep 0.3
done
check "SIGTERM to the parent of --jobs 2: workers and implementations gone within 3 s ($before before)" \
  "[ $before -ge 5 ] && [ \$(pgrep -f -- '--tag $T' | wc -l) -eq 0 ]"

"$CS" run --jobs 2 --impl-cmd -- "$T/no-such-program" >"$T/o" 2>"$T/e"
check "a program that cannot start, --jobs 2: exit 3, one line naming it" \
  "[ $? -eq 3 ] && [ \$(wc -l <'$T/e') -eq 1 ] && grep -q 'no-such-program' '$T/e'"

# A worker killed mid-run: exit 3, and the line says which part of the cases the report lacks.
"$CS" run --no-corpus --quiet --cases 100000 --jobs 3 --json "$T/kill.json" --impl-cmd -- python3 tests/fixtures/proto_echo.py \
  --tag "$T-kill" >"$T/kill.out" 2>"$T/kill.err" &
parent=$!
victim=""
for _ in $(seq 50); do
  sleep 0.2
  victim=$(pgrep -P "$parent" -x "$(basename "$CS")" | sort -n | head -n 1)
  [ -n "$victim" ] && break
done
sleep 1
[ -n "$victim" ] && kill -KILL "$victim"
wait "$parent"
rc=$?
j=$(sed -n 's/.*worker \([0-9]*\) was killed by signal 9.*/\1/p' "$T/kill.err" | head -n 1)
check "a worker killed: exit 3, its part of the cases named as missing from the report" \
  "[ -n '$victim' ] && [ $rc -eq 3 ] && [ -n '$j' ] && grep -q \"worker $j was killed by signal 9.* (its cases, shard $j/3, are not in the report)\" '$T/kill.err'"
# The report keeps what the other workers judged, and says the run was not whole (report-schema.md).
check "a worker killed: the JSON report has could_not_run, the missing shard, and the other workers' cases" \
  "python3 -c \"import json;i=json.load(open('$T/kill.json'))['implementations'][0]
assert i['could_not_run'] is True and 'shard $j/3, are not in the report' in i['error'], i['error']
assert i['cases'] > 0, i['cases']\""

# A worker killed while its program hangs takes the program with it, and so does callsign killed
# under --jobs 1: no program is left to run on under init, waiting for an answer nobody reads.
for j in 2 1; do
  tag="$T/orphan$j"
  "$CS" run --no-corpus --quiet --cases 10 --deadline 60000 --jobs $j --impl-cmd -- python3 "$FIX/proto_echo.py" \
    --hang-after 0 --tag "$tag" >/dev/null 2>&1 &
  parent=$!
  progs=0
  for _ in $(seq 50); do
    sleep 0.2
    progs=$(pgrep -f -- "^[^ ]*python3 [^ ]*proto_echo.py .*--tag $tag" | wc -l)
    [ "$progs" -ge "$j" ] && break
  done
  sleep 0.5 # the programs got their first request
  if [ $j -eq 1 ]; then
    kill -KILL "$parent"
  else
    kill -KILL $(pgrep -P "$parent" -x "$(basename "$CS")")
  fi
  wait "$parent" 2>/dev/null
  for _ in $(seq 15); do
    left=$(pgrep -f -- "^[^ ]*python3 [^ ]*proto_echo.py .*--tag $tag" | wc -l)
    [ "$left" -eq 0 ] && break
    sleep 0.2
  done
  check "--jobs $j, killed while its programs hang: the programs end too ($progs before, $left left)" \
    "[ $progs -eq $j ] && [ $left -eq 0 ]"
  leftover=$(pgrep -f -- "^[^ ]*python3 [^ ]*proto_echo.py .*--tag $tag")
  [ -n "$leftover" ] && kill -KILL $leftover
done

# A run whose every selected property fails stops short of --cases and says so, with one worker or
# two; a run that reaches --cases says nothing of the kind.
one="--no-corpus --impl prefix-swap --property emit.regex --target openai_chat"
for j in 1 2; do
  "$CS" run $one --cases 100000 --jobs $j --json "$T/early$j.json" >"$T/early$j.out" 2>&1
  check "--jobs $j: a run whose every property failed ends early, saying so in the terminal and the JSON report" \
    "grep -q 'ended after [0-9]* cases: every selected property had failed' '$T/early$j.out' && python3 -c \"import json; i=json.load(open('$T/early$j.json'))['implementations'][0]; assert i['ended_early'] is True and i['cases'] < 100000\""
done
"$CS" run $one --cases 32 --json "$T/whole.json" >"$T/whole.out" 2>&1
check "a run that reaches --cases before its property fails everywhere is not said to end early" \
  "grep -q 'cases 32,' '$T/whole.out' && ! grep -q 'ended after' '$T/whole.out' && grep -q '\"ended_early\": false' '$T/whole.json'"

# On a terminal, the progress line counts a property failing in several workers once: never more
# than the report's failures.
if command -v script >/dev/null 2>&1; then
  script -qec "'$CS' run --no-corpus --impl prefix-swap --cases 20000 --jobs 3" "$T/tty" >/dev/null 2>&1
  most=$(tr '\r' '\n' <"$T/tty" | sed -n 's/.* \([0-9]*\) failing properties.*/\1/p' | sort -n | tail -n 1)
  failed=$(sed -n 's/.*callsign:.* 1 implementation, \([0-9]*\) failed.*/\1/p' "$T/tty" | tr -d '\r')
  check "--jobs 3 on a terminal: the progress line's failing properties ($most at most) never pass the report's ($failed)" \
    "[ -n '$most' ] && [ -n '$failed' ] && [ '$most' -gt 0 ] && [ '$most' -le '$failed' ]"
fi
finish
