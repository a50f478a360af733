#!/usr/bin/env bash
# Smoke test of the example protocol adapters (examples/adapters/), without the harness.
# Pipes a few PROTOCOL.md version 1 lines into each adapter (Python, Node, C) and checks the
# answers with python3: seq echoed, array lengths, target ID rules, uniqueness, pairing, orphans,
# server-call passthrough, determinism, canonical idempotence, normalize, unknown op, stop.
# Then, as a negative control, runs every `--bug` mode and checks that the same checks catch it.
# The C adapter is taken from $ADAPTER_C (default build/adapter-c).
# Prints one line per check and ends with "N passed, M failed"; exits 1 if any check failed.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
ADAPTER_C=${ADAPTER_C:-$root/build/adapter-c}
BUGS="sanitize-collide truncate random-fallback name-keyed per-turn-index asymmetric keep-orphans"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
passed=0
failed=0

pass() { echo "PASS $*"; passed=$((passed + 1)); }
fail() { echo "FAIL $*"; failed=$((failed + 1)); }

# The checker: `requests`, `check NAME OUT ARGV...` and `bug NAME OUT`. It prints PASS/FAIL lines.
cat >"$work/check.py" <<'PY'
import json, re, subprocess, sys

TARGETS = ["anthropic", "openai_chat", "openai_responses", "gemini", "bedrock", "mistral"]
SAFE64 = re.compile(r"[a-zA-Z0-9_-]{1,64}")
RULES = {
    "anthropic": lambda s: SAFE64.fullmatch(s),
    "bedrock": lambda s: SAFE64.fullmatch(s),
    "openai_chat": lambda s: 1 <= len(s) <= 40,
    "openai_responses": lambda s: 1 <= len(s) <= 64,
    "gemini": lambda s: len(s) >= 1,
    "mistral": lambda s: re.fullmatch(r"[a-zA-Z0-9]{9}", s),
    "canonical": lambda s: SAFE64.fullmatch(s),
}
# A small history: a duplicated raw id, a null id, a server call, an orphan result, IDs that
# collide once illegal characters are replaced, two assistant turns, results out of order.
HISTORY = {"turns": [
    {"role": "user", "text": "list files"},
    {"role": "assistant", "provider": "kimi", "turn_key": "k1", "calls": [
        {"id": "functions.glob:0", "name": "glob", "args": {"p": "*.c"}},
        {"id": "functions.glob:0", "name": "glob", "args": {"p": "*.h"}},
        {"id": None, "name": "read_file", "args": {}},
        {"id": "srvtoolu_01AbC", "name": "web_search", "server": True}]},
    {"role": "tool", "turn_key": "k2", "results": [
        {"call_id": "functions.glob:0", "name": "glob", "content": "a.c"},
        {"call_id": "functions.glob:0", "name": "glob", "content": "a.h"},
        {"call_id": None, "name": "read_file", "content": "..."},
        {"call_id": "ghost|1", "name": "glob", "content": "?"}]},
    {"role": "assistant", "provider": "unknown", "turn_key": "k3", "calls": [
        {"id": "a|b", "name": "read_file", "args": {}},
        {"id": "a:b", "name": "read_file", "args": {}}]},
    {"role": "tool", "turn_key": "k4", "results": [
        {"call_id": "a:b", "name": "read_file", "content": "2"},
        {"call_id": "a|b", "name": "read_file", "content": "1"}]},
]}
PAIRS = [0, 1, 2, None, 5, 4]  # the call each result answers under PROTOCOL.md's pairing rule
NCALLS, SERVER_CALL = 6, 3
NORMALIZE_IDS = ["a|b", "a_b", "a:b", "", "😀", "x" * 100, "call_0"]


def requests():
    reqs = [{"seq": 0, "op": "hello", "protocol": 1}]
    reqs += [{"seq": 1 + i, "op": "emit", "target": t, "history": HISTORY} for i, t in enumerate(TARGETS)]
    reqs.append({"seq": 7, "op": "emit", "target": "anthropic", "history": HISTORY})  # repeat of seq 1
    reqs.append({"seq": 8, "op": "canonicalize", "history": HISTORY})
    reqs += [{"seq": 9 + i, "op": "normalize", "target": t, "ids": NORMALIZE_IDS} for i, t in enumerate(TARGETS)]
    reqs.append({"seq": 15, "op": "frobnicate"})
    reqs.append({"seq": 16, "op": "stop"})
    reqs.append({"seq": 17, "op": "hello", "protocol": 1})  # must not be answered: the adapter stopped
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in reqs)


def answers(path):
    """The answers of one run by seq; "order" lists the seqs as they came, "bad" the junk lines."""
    out = {"order": []}
    with open(path, encoding="utf-8") as f:
        for line in f.read().split("\n")[:-1]:
            try:
                a = json.loads(line)
                out[a.get("seq")] = a
                out["order"].append(a.get("seq"))
            except (ValueError, AttributeError):
                out.setdefault("bad", []).append(line[:80])
    return out


# The check each --bug mode's design breaks (the adapters' README describes the modes).
BUG_BREAKS = {"sanitize-collide": "unique", "truncate": "unique", "random-fallback": "determinism",
              "name-keyed": "pair", "per-turn-index": "unique", "asymmetric": "pair", "keep-orphans": "orphan"}


def problems(a, target):
    """What is wrong with one emit/canonicalize answer (empty list: nothing)."""
    calls, results = a.get("calls"), a.get("results")
    if not isinstance(calls, list) or not isinstance(results, list):
        return ["missing: no calls/results in %s" % json.dumps(a)[:120]]
    if len(calls) != NCALLS or len(results) != len(PAIRS):
        return ["lengths: %d/%d, expected %d/%d" % (len(calls), len(results), NCALLS, len(PAIRS))]
    p = []
    if not all(isinstance(c, str) and RULES[target](c) for c in calls):
        p.append("regex: %s" % calls)
    if len(set(calls)) != len(calls):
        p.append("unique: %s" % calls)
    if target == "anthropic" and calls[SERVER_CALL] != "srvtoolu_01AbC":
        p.append("server passthrough: %s" % calls[SERVER_CALL])
    for r, m in zip(results, PAIRS):
        if m is None and r is not None:
            p.append("orphan: result got %r" % r)
        if m is not None and r != calls[m]:
            p.append("pair: result %r, call %r" % (r, calls[m]))
    return p


def verdicts(out, argv):
    """(check name, problem or None) for every check of one adapter run."""
    v = []
    v.append(("no junk lines", "non-JSON: %s" % out["bad"] if "bad" in out else None))
    v.append(("seq echoed, in request order", None if out["order"] == list(range(16)) else "seqs %s" % out["order"]))
    h = out.get(0, {})
    v.append(("hello", None if h.get("protocol") == 1 and set(TARGETS) <= set(h.get("targets", []))
              and {"emit", "canonicalize", "normalize"} <= set(h.get("ops", [])) else "got %s" % h))
    for i, t in enumerate(TARGETS):
        a = out.get(1 + i)
        v.append(("emit %s" % t, "no answer with seq %d" % (1 + i) if a is None else "; ".join(problems(a, t)) or None))
    v.append(("emit deterministic", None if out.get(7) and out.get(7, {}).get("calls") == out.get(1, {}).get("calls")
              and out[7].get("results") == out[1].get("results") else "seq 7 differs from seq 1"))
    c = out.get(8)
    v.append(("canonicalize", "no answer with seq 8" if c is None else "; ".join(problems(c, "canonical")) or None))
    if c is not None and not problems(c, "canonical"):  # canonicalizing the canonical history changes nothing
        h2 = json.loads(json.dumps(HISTORY))
        ci = ri = 0
        for turn in h2["turns"]:
            for call in turn.get("calls", []):
                call["id"] = c["calls"][ci]; ci += 1
            for res in turn.get("results", []):
                if c["results"][ri] is not None:
                    res["call_id"] = c["results"][ri]
                ri += 1
        req = json.dumps({"seq": 1, "op": "canonicalize", "history": h2}) + "\n" + '{"seq":2,"op":"stop"}\n'
        run = subprocess.run(argv, input=req.encode(), capture_output=True, timeout=20)
        try:
            again = json.loads(run.stdout.decode().split("\n")[0])
        except ValueError:
            again = {}
        v.append(("canonicalize idempotent", None if (again.get("calls"), again.get("results"))
                  == (c["calls"], c["results"]) else "second pass: %s" % json.dumps(again)[:160]))
    for i, t in enumerate(TARGETS):
        ids = out.get(9 + i, {}).get("ids")
        bad = None
        if not isinstance(ids, list) or len(ids) != len(NORMALIZE_IDS):
            bad = "ids: %s" % ids
        elif not all(isinstance(x, str) and RULES[t](x) for x in ids) or len(set(ids)) != len(ids):
            bad = "invalid or colliding: %s" % ids
        v.append(("normalize %s" % t, bad))
    e = out.get(15, {})
    v.append(("unknown op answered with error", None if isinstance(e.get("error"), str) else "got %s" % e))
    v.append(("nothing answered after stop", "answered seq 17" if 17 in out else None))
    return v


def main():
    cmd, *rest = sys.argv[1:]
    if cmd == "requests":
        sys.stdout.write(requests())
    elif cmd == "check":  # check NAME OUT ARGV...
        name, path, argv = rest[0], rest[1], rest[2:]
        for check, problem in verdicts(answers(path), argv):
            print("%s %s: %s%s" % ("FAIL" if problem else "PASS", name, check, ": " + problem if problem else ""))
    elif cmd == "bug":  # bug NAME BUG OUT: every emit answered, and the check the bug breaks fails
        name, bug, path = rest
        out = answers(path)
        missing = [1 + i for i in range(len(TARGETS) + 1) if not out.get(1 + i)]
        if missing:
            print("FAIL %s: no answer to seq %s" % (name, missing))
            return
        caught = sorted({p.split(":")[0] for i, t in enumerate(TARGETS) for p in problems(out[1 + i], t)})
        if out[7] != dict(out[1], seq=7):
            caught.append("determinism")
        want = BUG_BREAKS[bug]
        print("%s %s: caught (%s)" % ("PASS", name, ", ".join(caught)) if want in caught
              else "FAIL %s: %s not caught (caught: %s)" % (name, want, ", ".join(caught) or "nothing"))


main()
PY

python3 "$work/check.py" requests >"$work/requests"

# run_adapter NAME ARGV...: one run over the requests, then its checks.
run_adapter() {
  local name=$1 rc=0
  shift
  timeout 30 "$@" <"$work/requests" >"$work/$name.out" 2>"$work/$name.err" || rc=$?
  if [ "$rc" = 0 ]; then pass "$name: exits 0 on stop"; else fail "$name: exit status $rc on stop"; fi
  python3 "$work/check.py" check "$name" "$work/$name.out" "$@" >"$work/verdicts" || true
  record "$name"
}

# run_bugs NAME ARGV...: every --bug mode must be caught; an unknown one must exit 2.
run_bugs() {
  local name=$1 bug rc
  shift
  for bug in $BUGS; do
    rc=0
    timeout 30 "$@" --bug "$bug" <"$work/requests" >"$work/bug.out" 2>"$work/bug.err" || rc=$?
    if [ "$rc" = 0 ]; then
      python3 "$work/check.py" bug "$name --bug $bug" "$bug" "$work/bug.out" >"$work/verdicts" || true
    else
      echo "FAIL $name --bug $bug: exit $rc, stderr: $(head -c 200 "$work/bug.err")" >"$work/verdicts"
    fi
    record "$name --bug $bug"
  done
  rc=0
  "$@" --bug no-such-bug </dev/null >/dev/null 2>"$work/bug.err" || rc=$?
  if [ "$rc" = 2 ] && [ "$(wc -l <"$work/bug.err")" = 1 ]; then
    pass "$name --bug no-such-bug: exit 2 with a one-line reason"
  else
    fail "$name --bug no-such-bug: exit $rc, stderr: $(head -c 200 "$work/bug.err")"
  fi
}

# record NAME: echoes the checker's PASS/FAIL lines and counts them.
record() {
  local line
  if [ ! -s "$work/verdicts" ]; then
    fail "$1: the checker printed nothing"
    return
  fi
  while IFS= read -r line; do
    case "$line" in
    PASS*) pass "${line#PASS }" ;;
    *) fail "${line#FAIL }" ;;
    esac
  done <"$work/verdicts"
}

# run_deep NAME ARGV...: a payload nested 990 levels deep (callsign reads up to 1000) is answered
# like any other, and the adapter goes on to the next request.
run_deep() {
  local name=$1 rc=0
  shift
  python3 -c '
import json, sys
sys.setrecursionlimit(5000)
args = 0
for _ in range(990):
    args = [args]
h = {"turns": [{"role": "assistant", "provider": "openai_chat", "turn_key": "t0",
                "calls": [{"id": "call_1", "name": "f", "args": args}]}]}
print(json.dumps({"seq": 1, "op": "emit", "target": "anthropic", "history": h}))
print(json.dumps({"seq": 2, "op": "normalize", "target": "anthropic", "ids": ["x"]}))
print(json.dumps({"seq": 3, "op": "stop"}))' >"$work/deep.in"
  timeout 30 "$@" <"$work/deep.in" >"$work/deep.out" 2>"$work/deep.err" || rc=$?
  if [ "$rc" = 0 ] && python3 -c '
import json, sys
a = [json.loads(l) for l in open(sys.argv[1])]
assert [x["seq"] for x in a] == [1, 2] and "error" not in a[0] and len(a[0]["calls"]) == 1, a' "$work/deep.out" 2>/dev/null; then
    pass "$name: a payload nested 990 deep is answered, and the next request too"
  else
    fail "$name: deep payload: exit $rc, answers: $(head -c 200 "$work/deep.out"), stderr: $(head -c 200 "$work/deep.err")"
  fi
}

# run_nesting NAME OK BAD ARGV...: the nesting limits README.md documents. A request nested OK levels
# (the request object is level 1) is answered; one nested BAD levels (none when BAD is -) is a bad
# request line (seq null), and the adapter goes on with the next request.
run_nesting() {
  local name=$1 ok=$2 bad=$3 rc=0
  shift 3
  python3 -c '
import sys
for d in sys.argv[1:]:
    if d != "-":
        inner = int(d) - 6  # request, history, turns, turn, calls, call
        print("{\"seq\":%s,\"op\":\"emit\",\"target\":\"anthropic\",\"history\":{\"turns\":[{\"role\":\"assistant\","
              "\"calls\":[{\"id\":\"a\",\"name\":\"f\",\"args\":%s%s}]}]}}" % (d, "[" * inner, "]" * inner))
print("{\"seq\":1,\"op\":\"normalize\",\"target\":\"anthropic\",\"ids\":[\"x\"]}")' "$ok" "$bad" >"$work/nest.in"
  timeout 30 "$@" <"$work/nest.in" >"$work/nest.out" 2>"$work/nest.err" || rc=$?
  if [ "$rc" = 0 ] && python3 -c '
import json, sys
ok, bad = sys.argv[2], sys.argv[3]
a = [json.loads(l) for l in open(sys.argv[1])]
assert a[0]["seq"] == int(ok) and len(a[0]["calls"]) == 1, a[0]
if bad != "-":
    assert a[1]["seq"] is None and a[1]["error"].startswith("bad request line"), a[1]
assert a[-1]["seq"] == 1 and len(a[-1]["ids"]) == 1 and len(a) == (3 if bad != "-" else 2), a' \
    "$work/nest.out" "$ok" "$bad" 2>"$work/nest.why"; then
    if [ "$bad" = - ]; then
      pass "$name: a request nested $ok levels is answered"
    else
      pass "$name: a request nested $ok levels is answered, one nested $bad is a bad request line"
    fi
  else
    fail "$name: nesting $ok/$bad: exit $rc, $(tail -n 1 "$work/nest.why" | head -c 200)"
  fi
}

# run_drain NAME ARGV...: a 330 kB answer (10000 IDs) is written out whole before the adapter exits,
# at `stop` and at the end of input, even when the reader is slow to drain the pipe (a pipe holds
# 64 kB; the rest of a large write waits in the process).
run_drain() {
  local name=$1 how rc
  shift
  for how in stop eof; do
    python3 -c '
import json, sys
print(json.dumps({"seq": 0, "op": "hello", "protocol": 1}))
print(json.dumps({"seq": 1, "op": "normalize", "target": "anthropic", "ids": ["id%d" % i for i in range(10000)]}))
if sys.argv[1] == "stop":
    print(json.dumps({"seq": 2, "op": "stop"}))' "$how" >"$work/drain.in"
    { timeout 30 "$@" <"$work/drain.in" 2>"$work/drain.err" && echo 0 >"$work/drain.rc" || echo $? >"$work/drain.rc"; } |
      { sleep 0.3; cat; } >"$work/drain.out"
    rc=$(cat "$work/drain.rc")
    if [ "$rc" = 0 ] && python3 -c '
import json, sys
a = [json.loads(l) for l in open(sys.argv[1])]
assert [x["seq"] for x in a] == [0, 1] and len(a[1]["ids"]) == 10000' "$work/drain.out" 2>/dev/null; then
      pass "$name: a 10000-ID answer reaches a slow reader whole at $how"
    else
      fail "$name: 10000-ID answer at $how: exit $rc, $(wc -c <"$work/drain.out") bytes out, stderr: $(head -c 200 "$work/drain.err")"
    fi
  done
}

# run_cr NAME ARGV...: a line ends at '\n' alone (PROTOCOL.md); a '\r' inside a line, or before its
# '\n', is JSON whitespace and splits nothing.
run_cr() {
  local name=$1 rc=0
  shift
  printf '%s\r%s\n%s\r\n%s\r\r%s\n%s\r\n' '{"seq":1,' '"op":"hello","protocol":1}' \
    '{"seq":2,"op":"normalize","target":"anthropic","ids":["a"]}' \
    '{"seq":3,' '"op":"normalize","target":"mistral","ids":["b","c"]}' '{"seq":4,"op":"stop"}' >"$work/cr.in"
  timeout 30 "$@" <"$work/cr.in" >"$work/cr.out" 2>"$work/cr.err" || rc=$?
  if [ "$rc" = 0 ] && python3 -c '
import json, sys
a = [json.loads(l) for l in open(sys.argv[1], newline="\n")]
assert [x["seq"] for x in a] == [1, 2, 3] and not any("error" in x for x in a), a
assert a[0]["protocol"] == 1 and len(a[1]["ids"]) == 1 and len(a[2]["ids"]) == 2, a' "$work/cr.out" 2>/dev/null; then
    pass "$name: a carriage return in a line or before its newline splits nothing"
  else
    fail "$name: carriage returns: exit $rc, answers: $(head -c 300 "$work/cr.out" | tr '\n' '|')"
  fi
}

# run_scale NAME ARGV...: pairing takes time linear in the history. One turn of 100000 calls and
# its 100000 results is answered, for each rule of PROTOCOL.md's pairing: distinct IDs answered in
# reverse order (rule 1), one ID shared by every call (rule 1, the earliest unanswered call each
# time), and null IDs of one name (rule 2). Linear pairing answers in about a second; a scan of the
# earlier calls per result takes 5e9 steps here, over a minute even in C. The bound of 30 s tells
# the two apart on a loaded machine without timing anything finer (make bench measures speed).
SCALE_N=100000
run_scale() {
  local name=$1 pattern rc size
  shift
  # 65 too: the C adapter scans histories of up to 64 calls and uses its tables past that.
  for size in 65 "$SCALE_N"; do
  for pattern in reverse shared null; do
    if [ ! -s "$work/scale-$pattern-$size.in" ]; then
      python3 -c '
import json, sys
pattern, n = sys.argv[1], int(sys.argv[2])
ids = {"reverse": ["c%d" % i for i in range(n)], "shared": ["c"] * n, "null": [None] * n}[pattern]
order = reversed(range(n)) if pattern == "reverse" else range(n)
h = {"turns": [{"role": "assistant", "turn_key": "k", "calls": [{"id": i, "name": "f"} for i in ids]},
               {"role": "tool", "results": [{"call_id": ids[i], "name": "f"} for i in order]}]}
print(json.dumps({"seq": 1, "op": "emit", "target": "anthropic", "history": h}, separators=(",", ":")))
print(json.dumps({"seq": 2, "op": "stop"}))' "$pattern" "$size" >"$work/scale-$pattern-$size.in"
    fi
    rc=0
    timeout 30 "$@" <"$work/scale-$pattern-$size.in" >"$work/scale.out" 2>"$work/scale.err" || rc=$?
    if [ "$rc" = 0 ] && python3 -c '
import json, sys
pattern, n = sys.argv[2], int(sys.argv[3])
a = [json.loads(l) for l in open(sys.argv[1])]
calls, results = a[0]["calls"], a[0]["results"]
want = [calls[n - 1 - j] for j in range(n)] if pattern == "reverse" else calls
assert len(a) == 1 and len(set(calls)) == n and results == want' "$work/scale.out" "$pattern" "$size" 2>/dev/null; then
      pass "$name: $size calls and results ($pattern) paired, within 30 s"
    else
      fail "$name: $size calls and results ($pattern): exit $rc (124: over 30 s), stderr: $(head -c 200 "$work/scale.err")"
    fi
  done
  done
}

# run_strict NAME ARGV...: every answer is strict JSON (RFC 8259 has no NaN or Infinity), even to a
# request line that is not: NaN, Infinity and a number out of double range (1e400) make a bad request
# line (or, read as infinite, a seq that is not echoed: null). An `ids` that is not an array is an
# error, not a list of its characters or members.
run_strict() {
  local name=$1 rc=0
  shift
  cat >"$work/strict.in" <<'EOF'
{"seq":NaN,"op":"normalize","target":"mistral","ids":[]}
{"seq":1e400,"op":"hello","protocol":1}
{"seq":-Infinity,"op":"frob"}
{"seq":4,"op":"normalize","target":"anthropic","ids":["a"],"x":Infinity}
{"seq":5,"op":"normalize","target":"anthropic","ids":"abc"}
{"seq":6,"op":"normalize","target":"anthropic","ids":{"a":"b"}}
{"seq":7,"op":"normalize","target":"anthropic","ids":null}
{"seq":8,"op":"hello","protocol":1}
{"seq":9,"op":"stop"}
EOF
  timeout 30 "$@" <"$work/strict.in" >"$work/strict.out" 2>"$work/strict.err" || rc=$?
  if [ "$rc" = 0 ] && python3 -c '
import json, math, sys
def refuse(x):
    raise ValueError("not JSON: %s" % x)
def finite(s):
    if not math.isfinite(float(s)):
        refuse(s)
    return float(s)
a = [json.loads(l, parse_constant=refuse, parse_float=finite) for l in open(sys.argv[1])]
assert [x["seq"] for x in a] == [None, None, None, None, 5, 6, 7, 8], a
assert all("error" in a[i] for i in (0, 2, 3, 4, 5)), a
assert a[6]["ids"] == [] and a[7]["protocol"] == 1, a' "$work/strict.out" 2>"$work/strict.why"; then
    pass "$name: answers are strict JSON; NaN, Infinity, 1e400 and an ids that is no array are refused"
  else
    fail "$name: strict JSON: exit $rc, $(tail -n 1 "$work/strict.why"), answers: $(head -c 400 "$work/strict.out" | tr '\n' '|')"
  fi
}

# run_all NAME ARGV...
run_all() {
  run_adapter "$@"
  run_deep "$@"
  run_drain "$@"
  run_cr "$@"
  run_scale "$@"
  run_strict "$@"
  run_bugs "$@"
}

run_all python python3 "$root/examples/adapters/python/normalizer.py"
run_nesting python 4900 5100 python3 "$root/examples/adapters/python/normalizer.py"
if command -v node >/dev/null; then
  run_all node node "$root/examples/adapters/node/normalizer.mjs"
  run_nesting node 100000 - node "$root/examples/adapters/node/normalizer.mjs"
else
  fail "node: not on PATH"
fi
if [ -x "$ADAPTER_C" ]; then
  run_all c "$ADAPTER_C"
  run_nesting c 1000 1001 "$ADAPTER_C"
else
  fail "c: $ADAPTER_C is not an executable (build it with: make build/adapter-c)"
fi

# The three implement one scheme: to the same requests they give the same answers, byte for byte,
# but for the name in hello (seq 0).
for name in node c; do
  [ -s "$work/$name.out" ] || continue
  if diff <(grep -v '^{"seq":0,' "$work/python.out") <(grep -v '^{"seq":0,' "$work/$name.out") >"$work/diff"; then
    pass "$name: the same answers as python, byte for byte (hello aside)"
  else
    fail "$name: answers differ from python's: $(head -c 300 "$work/diff")"
  fi
done

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
