#!/usr/bin/env bash
# End-to-end tests of `callsign probe` against the fake provider (tests/fake_provider/fake_provider.py)
# on 127.0.0.1: each provider's verdicts against its documented rules, rule discovery following the
# fake's configured limits, cassettes that replay to the same report, retries, gateway wrappers, the
# request budget, dry runs, missing keys, and a canary key that must appear in no output, report or
# cassette. Nothing leaves the loopback interface. Usage: probe.sh path/to/callsign
set -u
CS=${1:-build/san/callsign}
HERE=$(cd "$(dirname "$0")/.." && pwd)
FAKE="$HERE/fake_provider/fake_provider.py"
. "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
PIDS=()
cleanup() {
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done
  [ -n "${KEEP:-}" ] && echo "kept $T" || rm -rf "$T"
}
trap cleanup EXIT

# A safety net: anything not addressed to loopback would go to a proxy that does not exist.
export http_proxy=http://127.0.0.1:9 https_proxy=http://127.0.0.1:9 HTTP_PROXY=http://127.0.0.1:9 \
  HTTPS_PROXY=http://127.0.0.1:9 ALL_PROXY=http://127.0.0.1:9 no_proxy= NO_PROXY=
CANARY=sk-canary-DO-NOT-LEAK-123
AWS_ID=AKIACANARYDONOTLEAK7
AWS_SECRET=aws-canary-DO-NOT-LEAK-456
KEYS="ANTHROPIC_API_KEY OPENAI_API_KEY MISTRAL_API_KEY MOONSHOT_API_KEY KIMI_API_KEY GEMINI_API_KEY GOOGLE_API_KEY
AWS_BEARER_TOKEN_BEDROCK AWS_ACCESS_KEY_ID AWS_SECRET_ACCESS_KEY AWS_SESSION_TOKEN"
unset $KEYS
with_keys() {
  env ANTHROPIC_API_KEY=$CANARY OPENAI_API_KEY=$CANARY MISTRAL_API_KEY=$CANARY MOONSHOT_API_KEY=$CANARY \
    GEMINI_API_KEY=$CANARY AWS_BEARER_TOKEN_BEDROCK=$CANARY "$@"
}

# start_fake NAME ARGS...: starts a fake, sets PORT_<NAME>
start_fake() {
  local name=$1
  shift
  python3 "$FAKE" --expect-key "$CANARY" "$@" >"$T/port.$name" 2>"$T/fake.$name.err" &
  PIDS+=($!)
  for _ in $(seq 100); do
    [ -s "$T/port.$name" ] && break
    sleep 0.05
  done
  eval "PORT_$name=$(head -n 1 "$T/port.$name")"
}
stats() { python3 -c "import json,urllib.request as u; print(json.load(u.build_opener(u.ProxyHandler({})).open('http://127.0.0.1:$1/__stats'))['requests'])"; }

prefix() { case $1 in openai_chat | openai_responses) echo openai ;; *) echo "$1" ;; esac; }
PROVIDERS="anthropic openai_chat openai_responses mistral kimi gemini bedrock"
RUN=(--rate 1000 --seed 7)

# The verdicts each provider's documentation implies for the targeted cases (PROVIDERS.md), with the
# fake at its defaults. A accepted, R rejected for the ID rule, P rejected for pairing.
cat >"$T/expect.py" <<'PY'
import json, sys
provider, path = sys.argv[1], sys.argv[2]
lens = [1, 9, 40, 41, 64, 65, 128, 256, 1000, 10000]
chars = ["dash", "underscore", "dot", "colon", "pipe", "slash", "space", "non-ascii", "nul"]
foreign = {"anthropic": 29, "openai": 29, "kimi": 17, "mistral": 9, "responses_composite": 42, "bedrock": 30, "adk": 40}
def table(max_len=None, exact=None, char_ok=chars, empty="R", dup=("R", "R"), mismatch="P", foreign_ok=None):
    e = {"native": "A", "empty": empty, "dup.message": dup[0], "dup.request": dup[1],
         "pair.orphan": "P", "pair.missing": "P", "pair.mismatch": mismatch}
    for n in lens:
        e[f"len.{n}"] = "A" if (exact is None or n == exact) and (max_len is None or n <= max_len) else "R"
    for c in chars:
        e[f"char.{c}"] = "A" if c in char_ok else "R"
    for f, n in foreign.items():
        e[f"foreign.{f}"] = "A" if (foreign_ok is None or f in foreign_ok) and (max_len is None or n <= max_len) else "R"
    return e
pattern_ok = ["dash", "underscore"]
pattern_foreign = ["anthropic", "openai", "mistral", "bedrock", "adk"]
expected = {
    # pattern [a-zA-Z0-9_-]+ on both fields, no length limit known, unique within a message
    "anthropic": table(char_ok=pattern_ok, dup=("R", "A"), foreign_ok=pattern_foreign),
    # at most 40, no character rule, duplicate tool_call_id rejected over the request
    "openai_chat": table(max_len=40),
    # call_id 1-64, only the length is checked
    "openai_responses": table(max_len=64, dup=("A", "A")),
    # exactly 9 letters or digits; counts compared, IDs not matched
    "mistral": table(exact=9, char_ok=[], dup=("A", "A"), mismatch="A", foreign_ok=["mistral"]),
    # no format rule; duplicates rejected
    "kimi": table(empty="A"),
    # nothing documented about IDs; pairing by count and position
    "gemini": table(empty="A", dup=("A", "A"), mismatch="A"),
    # 1-64, [a-zA-Z0-9_-]+, duplicates within a message
    "bedrock": table(max_len=64, char_ok=pattern_ok, dup=("R", "A"), foreign_ok=pattern_foreign),
}[provider]
names = {"A": "accepted", "R": "rejected-rule", "P": "rejected-pairing"}
report = json.load(open(path))
got = {c["name"]: c for c in report["cases"]}
bad = [f"{k}: provider {got.get(k, {}).get('provider')}, documented {names[v]}" for k, v in expected.items()
       if got.get(k, {}).get("provider") != names[v]]
gen = [c for c in report["cases"] if c["name"].startswith("gen.")]
bad += [f"{c['name']}: agree {c['agree']}" for c in gen if c["agree"] != "yes"]
if not gen:
    bad.append("no generated case was sent")
for c in report["cases"]:  # the agreement column follows from the two verdicts
    want = "yes" if c["provider"] == c["callsign"] else "looser" if c["provider"] == "accepted" else \
        "STRICTER" if c["callsign"] == "accepted" else "other reason"
    if c["agree"] != want:
        bad.append(f"{c['name']}: agree {c['agree']}, expected {want}")
print("; ".join(bad[:6]))
sys.exit(1 if bad else 0)
PY

# ---- 1. every provider's verdicts against its documented rules (recorded as a cassette)
start_fake main
for p in $PROVIDERS; do
  with_keys "$CS" probe --provider "$p" --base-url "http://127.0.0.1:$PORT_main/$(prefix "$p")" "${RUN[@]}" \
    --record "$T/cassette" --json "$T/rec.$p.json" >"$T/out.$p" 2>"$T/err.$p"
  rc=$?
  check "$p: exit 0 (the provider rejects nothing callsign accepts)" "[ $rc -eq 0 ]"
  check "$p: verdicts match the documented rules" "python3 '$T/expect.py' '$p' '$T/rec.$p.json' >'$T/why.$p' || { cat '$T/why.$p'; false; }"
done
check "callsign's reason gives a long ID's exact length (len.1000 to bedrock, at most 64)" \
  "python3 -c \"import json,sys; c={c['name']: c for c in json.load(open('$T/rec.bedrock.json'))['cases']}; r=c['len.1000']['callsign_reason']; sys.exit(0 if r == 'call 0: ID is 1000 characters, the maximum is 64' else 'got %r' % r)\""
check "help gives probe's default --cases, which the probe sends (gen.0 to gen.3)" \
  "\"$CS\" help probe | grep -q -- '--cases N  generated histories .*(default 4)' &&
   [ \"\$(python3 -c \"import json; print(' '.join(c['name'] for c in json.load(open('$T/rec.anthropic.json'))['cases'] if c['name'].startswith('gen.')))\")\" = 'gen.0 gen.1 gen.2 gen.3' ]"
with_keys "$CS" probe --provider anthropic:messages --base-url "http://127.0.0.1:$PORT_main/anthropic" "${RUN[@]}" \
  --json "$T/msg.json" >"$T/out.msg" 2>"$T/err.msg"
check "anthropic messages endpoint (max_tokens 1): documented verdicts" "python3 '$T/expect.py' anthropic '$T/msg.json' >/dev/null"

# ---- 2. a recorded cassette replays, without keys, to the same report
for p in $PROVIDERS; do
  "$CS" probe --provider "$p" --base-url "http://127.0.0.1:$PORT_main/$(prefix "$p")" "${RUN[@]}" \
    --replay "$T/cassette" --json "$T/rep.$p.json" >"$T/rout.$p" 2>"$T/rerr.$p"
  rc=$?
  check "$p: replay without a key gives the same report" "[ $rc -eq 0 ] && cmp -s '$T/rec.$p.json' '$T/rep.$p.json'"
done
check "replay prints the same table" "diff <(grep -v '^requests:' '$T/out.anthropic') <(grep -v '^requests:' '$T/rout.anthropic') >/dev/null"
before=$(stats "$PORT_main")
"$CS" probe --provider openai_chat --base-url "http://127.0.0.1:$PORT_main/openai" --rate 1000 --seed 8 \
  --replay "$T/cassette" --json "$T/rep.miss.json" >"$T/out.miss" 2>&1
rc=$?
check "replay of requests not in the cassette: transport, exit 1, nothing sent" \
  "[ $rc -eq 1 ] && [ $(stats "$PORT_main") -eq $before ] && grep -q 'no recorded answer' '$T/rep.miss.json'"

# A broken entry in the cassette is an input error naming the file, not a transport failure.
cp -r "$T/cassette" "$T/broken"
victim=$(ls "$T/broken"/*.json | head -n 1)
echo garbage >"$victim"
for p in $PROVIDERS; do
  "$CS" probe --provider "$p" --base-url "http://127.0.0.1:$PORT_main/$(prefix "$p")" "${RUN[@]}" \
    --replay "$T/broken" >"$T/o" 2>"$T/e"
  rc=$?
  if grep -q "^callsign: $victim: 1:1: " "$T/e"; then
    check "a garbage cassette entry: exit 2, one line naming it" "[ $rc -eq 2 ] && [ \$(wc -l <'$T/e') -eq 1 ] && ! [ -s '$T/o' ]"
    break
  fi
done
check "the garbage entry was met by one provider's replay" "grep -q '$victim' '$T/e'"

# ---- 3. discovery recovers the fake's limits, and follows them when they change
discover() { # discover PORTVAR TAG PROVIDER [extra args]
  local port=$1 tag=$2 p=$3
  shift 3
  with_keys "$CS" probe --discover --provider "$p" --base-url "http://127.0.0.1:$port/$(prefix "$p")" --rate 1000 "$@" \
    --json "$T/disc.$tag.$p.json" >"$T/dout.$tag.$p" 2>&1
}
# field FILE EXPR: prints a Python expression over the "discovered" object d
field() { python3 -c "import json,sys; d=json.load(open(sys.argv[1]))['discovered']; print($2)" "$1"; }
for p in $PROVIDERS; do discover "$PORT_main" a "$p"; done
check "discover anthropic: no maximum, - and _ only, unique per message" \
  "[ \"\$(field '$T/disc.a.anthropic.json' \"d['max_len'], d['min_len'], d['empty'], sorted(k for k,v in d['chars'].items() if v=='accepted'), d['unique']\")\" = \"None 1 rejected ['dash', 'underscore'] per message\" ]"
check "discover openai_chat: 1..40, every character, unique per request" \
  "[ \"\$(field '$T/disc.a.openai_chat.json' \"d['max_len'], d['min_len'], sum(v=='accepted' for v in d['chars'].values()), d['unique']\")\" = '40 1 9 per request' ]"
check "discover openai_responses: 1..64, uniqueness not checked" \
  "[ \"\$(field '$T/disc.a.openai_responses.json' \"d['max_len'], d['min_len'], d['unique']\")\" = '64 1 not checked' ]"
check "discover mistral: exactly 9, no other character" \
  "[ \"\$(field '$T/disc.a.mistral.json' \"d['max_len'], d['min_len'], sum(v=='accepted' for v in d['chars'].values())\")\" = '9 9 0' ]"
check "discover kimi: no limits, empty accepted, unique per request" \
  "[ \"\$(field '$T/disc.a.kimi.json' \"d['max_len'], d['min_len'], d['empty'], d['unique']\")\" = 'None 1 accepted per request' ]"
check "discover gemini: no limits, uniqueness not checked" \
  "[ \"\$(field '$T/disc.a.gemini.json' \"d['max_len'], d['empty'], d['unique']\")\" = 'None accepted not checked' ]"
check "discover bedrock: 1..64, - and _, unique per message" \
  "[ \"\$(field '$T/disc.a.bedrock.json' \"d['max_len'], d['min_len'], sorted(k for k,v in d['chars'].items() if v=='accepted'), d['unique']\")\" = \"64 1 ['dash', 'underscore'] per message\" ]"
check "discover prints observed beside configured" "grep -q 'maximum length  *none up to 4096  *64  *differs' '$T/dout.a.anthropic'"

start_fake alt --anthropic-max-len 100 --anthropic-unique request --openai-max-len 64 --openai-unique message \
  --responses-max-len 50 --mistral-len 12 --bedrock-max-len 80 --bedrock-pattern '[a-zA-Z0-9_.:-]+' --kimi-unique message
for p in anthropic openai_chat openai_responses bedrock kimi; do discover "$PORT_alt" b "$p"; done
# the control ID has the configured length: tell callsign Mistral's new length, the fake measures the rest
discover "$PORT_alt" b mistral --rule mistral.min_len=12 --rule mistral.max_len=12
check "discover follows anthropic: maximum 100, unique per request" \
  "[ \"\$(field '$T/disc.b.anthropic.json' \"d['max_len'], d['unique']\")\" = '100 per request' ]"
check "discover follows openai_chat: maximum 64, unique per message" \
  "[ \"\$(field '$T/disc.b.openai_chat.json' \"d['max_len'], d['unique']\")\" = '64 per message' ]"
check "discover follows openai_responses: maximum 50" "[ \"\$(field '$T/disc.b.openai_responses.json' \"d['max_len']\")\" = 50 ]"
check "discover follows mistral: exactly 12" "[ \"\$(field '$T/disc.b.mistral.json' \"d['max_len'], d['min_len']\")\" = '12 12' ]"
check "discover follows bedrock: maximum 80, '.' and ':' allowed" \
  "[ \"\$(field '$T/disc.b.bedrock.json' \"d['max_len'], sorted(k for k,v in d['chars'].items() if v=='accepted')\")\" = \"80 ['colon', 'dash', 'dot', 'underscore']\" ]"
check "discover follows kimi: unique per message" "[ \"\$(field '$T/disc.b.kimi.json' \"d['unique']\")\" = 'per message' ]"

# ---- 4. SigV4 (signature checked by the fake), retries on 429 and 503, gateway wrappers
start_fake sig --aws-key-id "$AWS_ID" --aws-secret "$AWS_SECRET" --flaky 2
env AWS_ACCESS_KEY_ID=$AWS_ID AWS_SECRET_ACCESS_KEY=$AWS_SECRET AWS_SESSION_TOKEN=$CANARY AWS_REGION=eu-west-1 \
  "$CS" probe --provider bedrock --base-url "http://127.0.0.1:$PORT_sig/bedrock" "${RUN[@]}" --json "$T/sig.json" \
  --record "$T/cassette-sig" >"$T/out.sig" 2>"$T/err.sig"
rc=$?
check "bedrock with SigV4: signed requests accepted, documented verdicts" \
  "[ $rc -eq 0 ] && python3 '$T/expect.py' bedrock '$T/sig.json' >/dev/null"
n=$(python3 -c "import json; print(sum(c['provider']!='-' for c in json.load(open('$T/sig.json'))['cases']))")
check "429 (Retry-After) and 503 retried: 2 extra requests, no transport error" \
  "[ $(stats "$PORT_sig") -eq $((n + 2)) ] && python3 -c \"import json,sys; sys.exit(json.load(open('$T/sig.json'))['summary']['transport'])\""
# A rejection that says nothing about IDs (a 400 with another text, every third request) is no
# measurement: the properties it answered are inconclusive, never measured from it.
start_fake unrelated --unrelated-every 3
with_keys "$CS" probe --discover --provider openai_chat --base-url "http://127.0.0.1:$PORT_unrelated/openai" \
  --rate 1000 --max-requests 200 --json "$T/unrel.json" >"$T/o" 2>"$T/e"
check "discover with unrelated 400s: nothing measured wrong (each property true or inconclusive)" \
  "python3 -c \"
import json,sys
d=json.load(open('$T/unrel.json'))['discovered']
ok=d['max_len'] in (40,'inconclusive') and d['min_len'] in (1,'inconclusive')
ok=ok and all(v in ('accepted','inconclusive') for v in d['chars'].values())
ok=ok and 'inconclusive' in (d['max_len'], d['min_len'], *d['chars'].values())
sys.exit(not ok)\""
check "discover with unrelated 400s: an inconclusive property reads 'not measured', never 'differs'" \
  "grep -q '^  [a-z].*  inconclusive  .*  not measured\$' '$T/o' && ! grep -q 'inconclusive.*differs' '$T/o'"
# The same request sent twice (adk-stream-v1 emits alike for many generated cases) has an entry per
# sending: answered differently each time, it replays to the same report.
start_fake twice --unrelated-every 3
with_keys "$CS" probe --provider openai_chat --base-url "http://127.0.0.1:$PORT_twice/openai" --rate 1000 \
  --impl adk-stream-v1 --cases 40 --max-requests 100 --record "$T/cassette-twice" --json "$T/twice.rec.json" >"$T/o" 2>"$T/e"
rc1=$?
"$CS" probe --provider openai_chat --base-url "http://127.0.0.1:$PORT_twice/openai" --rate 1000 \
  --impl adk-stream-v1 --cases 40 --max-requests 100 --replay "$T/cassette-twice" --json "$T/twice.rep.json" >"$T/o" 2>"$T/e"
rc2=$?
check "requests sent twice and answered differently: the cassette replays to the same report" \
  "[ $rc1 -eq $rc2 ] && cmp -s '$T/twice.rec.json' '$T/twice.rep.json' && ls '$T/cassette-twice' | grep -q '\.2\.json$'"
# An entry that cannot be written leaves the cassette incomplete: exit 2, saying so.
mkdir -p "$T/cassette-holes"
for f in "$T"/cassette-twice/*.json; do mkdir -p "$T/cassette-holes/$(basename "$f")"; break; done
with_keys "$CS" probe --provider openai_chat --base-url "http://127.0.0.1:$PORT_twice/openai" --rate 1000 \
  --impl adk-stream-v1 --cases 40 --max-requests 100 --record "$T/cassette-holes" >"$T/o" 2>"$T/e"
check "a cassette entry that cannot be written: exit 2, the cassette named incomplete" \
  "[ $? -eq 2 ] && grep -q 'cassette-holes is incomplete' '$T/e'"
# A key shorter than 8 bytes is a placeholder: noted, not redacted, and the reports stay JSON.
OPENAI_API_KEY=1 "$CS" probe --provider openai_chat --base-url "http://127.0.0.1:$PORT_twice/openai" --rate 1000 \
  --max-requests 3 --json "$T/k1.json" --record "$T/cassette-k1" >"$T/o" 2>"$T/e"
check "a 1-byte key: a note, the report and the cassette still parse" \
  "grep -q 'OPENAI_API_KEY is shorter than 8 bytes' '$T/e' && python3 -c \"import json,glob; json.load(open('$T/k1.json')); [json.load(open(f)) for f in glob.glob('$T/cassette-k1/*.json')]\""
# An implementation does not get the keys in its environment, but may hold one of its own (a config
# file of the same account): what it prints of it on stderr is redacted where callsign quotes it.
printf '#!/bin/sh\necho "config: api_key=%s env=${OPENAI_API_KEY:-unset}" >&2\nexit 4\n' "$CANARY" >"$T/leaky.sh" &&
  chmod +x "$T/leaky.sh"
with_keys "$CS" probe --provider openai_chat --base-url "http://127.0.0.1:$PORT_twice/openai" --rate 1000 \
  --impl-cmd -- "$T/leaky.sh" >"$T/o" 2>"$T/e"
check "an implementation printing the key on stderr: exit 3, the key redacted in the message, not in its environment" \
  "[ $? -eq 3 ] && grep -q 'api_key=\[redacted\] env=unset' '$T/e' && ! grep -q '$CANARY' '$T/e' '$T/o'"
# The region becomes part of bedrock's host name: one that is no region name is refused.
AWS_REGION='attacker.example/x?' AWS_BEARER_TOKEN_BEDROCK=$CANARY "$CS" probe --provider bedrock --dry-run >"$T/o" 2>"$T/e"
check "AWS_REGION that is no region name: exit 2, one line, nothing printed" \
  "[ $? -eq 2 ] && [ \$(wc -l <'$T/e') -eq 1 ] && grep -q 'is not a region name' '$T/e' && [ ! -s '$T/o' ]"
# Retries spend the budget, and a replay spends as much: recorded with retries under a budget they
# exhaust, the cassette replays to the same report, its unsent cases included.
start_fake flaky --flaky 4
with_keys "$CS" probe --provider openai_chat --base-url "http://127.0.0.1:$PORT_flaky/openai" --rate 1000 \
  --max-requests 10 --record "$T/cassette-flaky" --json "$T/flaky.rec.json" >"$T/o" 2>"$T/e"
rc1=$?
"$CS" probe --provider openai_chat --base-url "http://127.0.0.1:$PORT_flaky/openai" --rate 1000 \
  --max-requests 10 --replay "$T/cassette-flaky" --json "$T/flaky.rep.json" >"$T/o" 2>"$T/e"
rc2=$?
check "a cassette recorded through retries replays to the same report and exit status" \
  "[ $rc1 -eq $rc2 ] && python3 -c \"import json,sys; a,b=(json.load(open(f)) for f in sys.argv[1:]); [x.pop('requests',None) for x in (a,b)]; sys.exit(a!=b)\" '$T/flaky.rec.json' '$T/flaky.rep.json' &&
   python3 -c \"import json,sys; sys.exit(json.load(open('$T/flaky.rec.json'))['summary']['not sent']==0)\""
start_fake slow --flaky 1 --retry-after 2
t0=$(date +%s.%N)
with_keys "$CS" probe --provider openai_chat --base-url "http://127.0.0.1:$PORT_slow/openai" "${RUN[@]}" --max-requests 2 \
  --json "$T/slow.json" >"$T/out.slow" 2>&1
t1=$(date +%s.%N)
check "Retry-After: 2 is honoured before the retry" \
  "python3 -c 'import sys; sys.exit(not 2.0 <= $t1 - $t0 < 10)' && [ $(stats "$PORT_slow") -eq 2 ] && grep -q '\"accepted\"' '$T/slow.json'"
# Retry-After as an HTTP date (RFC 9110 allows both forms) is honoured too.
start_fake slowdate --flaky 1 --retry-after 3 --retry-after-date
t0=$(date +%s.%N)
with_keys "$CS" probe --provider openai_chat --base-url "http://127.0.0.1:$PORT_slowdate/openai" "${RUN[@]}" --max-requests 2 \
  --json "$T/slowdate.json" >"$T/out.slowdate" 2>&1
t1=$(date +%s.%N)
check "Retry-After as an HTTP date 3 s ahead is honoured before the retry" \
  "python3 -c 'import sys; sys.exit(not 1.5 <= $t1 - $t0 < 10)' && [ $(stats "$PORT_slowdate") -eq 2 ] && grep -q '\"accepted\"' '$T/slowdate.json'"
# A Retry-After longer than a probe waits (60 s) stops it: every request would be refused until then.
start_fake dayoff --flaky 1 --retry-after 86400
with_keys "$CS" probe --provider openai_chat --base-url "http://127.0.0.1:$PORT_dayoff/openai" "${RUN[@]}" \
  --record "$T/dayoff-cassette" --json "$T/dayoff.json" >"$T/o" 2>"$T/e"
rc=$?
"$CS" probe --provider openai_chat --base-url "http://127.0.0.1:$PORT_dayoff/openai" "${RUN[@]}" \
  --replay "$T/dayoff-cassette" --json "$T/dayoff2.json" >"$T/o2" 2>"$T/e2"
rc2=$?
check "Retry-After: 86400: exit 2, one line naming it, one request sent; the replay stops alike" \
  "[ $rc -eq 2 ] && [ \$(wc -l <'$T/e') -eq 1 ] && grep -q 'Retry-After 86400 s, longer than a probe waits' '$T/e' && [ $(stats "$PORT_dayoff") -eq 1 ] && [ $rc2 -eq 2 ] && cmp -s '$T/e' '$T/e2'"
t0=$(date +%s.%N)
with_keys "$CS" probe --provider openai_chat --base-url "http://127.0.0.1:$PORT_slow/openai" --rate 4 --max-requests 5 \
  >"$T/out.rate" 2>&1
t1=$(date +%s.%N)
check "--rate 4: five requests take at least one second" "python3 -c 'import sys; sys.exit(not 1.0 <= $t1 - $t0 < 10)'"
for w in openrouter vertex; do
  start_fake "w$w" --wrap "$w" --bedrock-claude
  for p in anthropic mistral bedrock; do
    with_keys "$CS" probe --provider "$p" --base-url "http://127.0.0.1:$(eval echo \$PORT_w$w)/$(prefix "$p")" "${RUN[@]}" \
      --json "$T/wrap.$w.$p.json" >"$T/out.wrap.$w.$p" 2>&1
    check "$p through a $w wrapper: documented verdicts" "python3 '$T/expect.py' '$p' '$T/wrap.$w.$p.json' >'$T/why' || { cat '$T/why'; false; }"
  done
done
check "Claude's text passed through by Bedrock is read" "grep -q 'The model returned\\|tool_use. ids were found' '$T/wrap.vertex.bedrock.json'"

# ---- 5. budget, dry run, missing keys, a model endpoint that refuses IDs
before=$(stats "$PORT_main")
with_keys "$CS" probe --provider openai_chat --base-url "http://127.0.0.1:$PORT_main/openai" "${RUN[@]}" --max-requests 5 \
  --json "$T/budget.json" >"$T/out.budget" 2>&1
rc=$?
check "--max-requests 5: 5 requests reach the provider, the rest are not sent" \
  "[ $rc -eq 0 ] && [ $(($(stats "$PORT_main") - before)) -eq 5 ] && [ \"\$(python3 -c \"import json; print(json.load(open('$T/budget.json'))['summary']['not sent'])\")\" -gt 20 ]"
# --quiet keeps the rows that disagree on acceptance (STRICTER, looser, transport), naming the cases
# its summary counts, and drops the rest.
with_keys "$CS" probe --provider openai_chat --base-url "http://127.0.0.1:$PORT_main/openai" "${RUN[@]}" \
  --rule openai_chat.max_len=64 --quiet >"$T/quiet" 2>&1
check "--quiet: the STRICTER and looser rows are printed, the agreeing ones are not" \
  "[ \$? -eq 1 ] && grep -q '^  len.41  *accepted  *rejected-rule  *STRICTER ' '$T/quiet' && grep -q '^  char.nul .* looser ' '$T/quiet' &&
   ! grep -q '^  native ' '$T/quiet' && grep -q '3 stricter' '$T/quiet'"
# ...and the rows where both reject for different reasons, as many as the summary counts.
with_keys "$CS" probe --provider bedrock --base-url "http://127.0.0.1:$PORT_main/bedrock" "${RUN[@]}" \
  --rule 'bedrock.pattern=^tooluse_[a-z]+$' --quiet >"$T/quiet2" 2>&1
n_reason=$(sed -n 's/.* \([0-9][0-9]*\) other reason.*/\1/p' "$T/quiet2")
check "--quiet: the 'other reason' rows are printed too, as many as counted ($n_reason)" \
  "[ \"$n_reason\" -gt 0 ] && [ \$(grep -c ' other reason ' '$T/quiet2') -eq $n_reason ]"
# Kimi's character cases put the character into the tool's name, the part of functions.NAME:N
# whose characters the rule leaves open: '-', '_' and '.' pass callsign's rule, the others do not.
"$CS" probe --provider kimi --dry-run --cases 1 --json "$T/kimichars.json" >/dev/null 2>&1
check "kimi's character cases vary the name, not the prefix or the index" "python3 - '$T/kimichars.json' <<'P'
import json, sys
c = {c['name']: c for c in json.load(open(sys.argv[1]))['cases'] if c['name'].startswith('char.')}
assert len(c) == 9, sorted(c)
for name, case in c.items():
    i = case['calls'][0]['id']
    assert i.startswith('functions.') and i.endswith(':0'), i
    want = 'accepted' if name in ('char.dash', 'char.underscore', 'char.dot') else 'rejected-rule'
    assert case['callsign'] == want, (name, i, case['callsign'])
P"
before=$(stats "$PORT_main")
with_keys "$CS" probe --provider anthropic --base-url "http://127.0.0.1:$PORT_main/anthropic" --dry-run >"$T/dry" 2>&1
rc=$?
check "--dry-run prints requests, sends nothing" \
  "[ $rc -eq 0 ] && grep -q '^POST http://127.0.0.1:$PORT_main/anthropic/v1/messages/count_tokens' '$T/dry' && grep -q '^x-api-key: \[redacted\]' '$T/dry' && [ $(stats "$PORT_main") -eq $before ]"
# Discovery picks each request from the answers before it: a dry run prints the control and says
# why no other request can be shown, exit 0, rather than report the control as not accepted.
with_keys "$CS" probe --discover --provider anthropic --base-url "http://127.0.0.1:$PORT_main/anthropic" --dry-run >"$T/dry" 2>&1
rc=$?
check "--discover --dry-run: the control request printed, the reason no other is, exit 0" \
  "[ $rc -eq 0 ] && [ \$(grep -c '^POST ' '$T/dry') -eq 1 ] && grep -q 'each next' '$T/dry' && grep -q 'can be printed in advance' '$T/dry' &&
   ! grep -q 'not accepted\|nothing can be measured' '$T/dry' && [ $(stats "$PORT_main") -eq $before ]"
for pv in anthropic:ANTHROPIC_API_KEY openai_chat:OPENAI_API_KEY openai_responses:OPENAI_API_KEY mistral:MISTRAL_API_KEY \
  kimi:MOONSHOT_API_KEY gemini:GEMINI_API_KEY bedrock:AWS_BEARER_TOKEN_BEDROCK; do
  "$CS" probe --provider "${pv%%:*}" --base-url "http://127.0.0.1:$PORT_main/x" >"$T/o" 2>"$T/e"
  rc=$?
  check "${pv%%:*} without a key: exit 2, names ${pv##*:}" \
    "[ $rc -eq 2 ] && [ \$(wc -l <'$T/e') -eq 1 ] && grep -q 'probe: set ${pv##*:}' '$T/e' && [ ! -s '$T/o' ]"
done
for m in . ..; do
  "$CS" probe --provider bedrock --model "$m" --dry-run >"$T/o" 2>"$T/e"
  check "probe --model '$m' (a dot segment in the URL path): exit 2, one line, nothing printed" \
    "[ $? -eq 2 ] && [ \$(wc -l <'$T/e') -eq 1 ] && grep -q \"model '$m' is not a model name\" '$T/e' && [ ! -s '$T/o' ]"
done
# A --model with a line end and an escape sequence reaches the terminal escaped, in probe and discover.
for m in "" --discover; do
  # shellcheck disable=SC2086
  with_keys "$CS" probe --provider openai_chat $m --dry-run --max-requests 1 --model $'a\nb\e[31mX' >"$T/o" 2>&1
  check "probe $m --model with control characters: shown escaped, nothing raw on the terminal" \
    "! grep -q \$'\\x1b' '$T/o' && grep -q '^callsign probe: openai_chat (chat_completions), model a\\\\nb\\\\u001B\\[31mX, ' '$T/o'"
done
# Nothing listening: no request gets an HTTP answer, and after 3 in a row the probe stops (exit 2)
# instead of spending a connection attempt, or a timeout, on every case.
closed=$(python3 -c "import socket; s=socket.socket(); s.bind(('127.0.0.1', 0)); print(s.getsockname()[1]); s.close()")
with_keys "$CS" probe --provider openai_chat --base-url "http://127.0.0.1:$closed/openai" --rate 1000 --quiet \
  --json "$T/closed.json" >"$T/o" 2>"$T/e"
rc=$?
check "a base URL where nothing listens: exit 2, one line, 3 requests tried, the rest not sent" \
  "[ $rc -eq 2 ] && [ \$(wc -l <'$T/e') -eq 1 ] && grep -q 'no answer to 3 requests in a row' '$T/e' &&
   python3 -c \"import json,sys; s=json.load(open('$T/closed.json'))['summary']; sys.exit(not (s['transport']==3 and s['not sent']>10))\""
# An answer larger than the 4 MiB read is an answer all the same: a transport case naming its status
# and the cap, never counted as no answer (which would stop the probe after 3); it replays alike.
cat >"$T/huge_fake.py" <<'P'
from http.server import BaseHTTPRequestHandler, HTTPServer
class H(BaseHTTPRequestHandler):
    def log_message(self, *a): pass
    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        size = 5 << 20
        self.send_response(400); self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(size)); self.end_headers()
        try:
            self.wfile.write(b"x" * size)
        except OSError:
            pass
s = HTTPServer(("127.0.0.1", 0), H)
print(s.server_address[1], flush=True)
s.serve_forever()
P
python3 "$T/huge_fake.py" >"$T/port.huge" 2>/dev/null &
PIDS+=($!)
for _ in $(seq 100); do [ -s "$T/port.huge" ] && break; sleep 0.05; done
PORT_huge=$(head -n 1 "$T/port.huge")
with_keys "$CS" probe --provider openai_chat --base-url "http://127.0.0.1:$PORT_huge" --rate 1000 --max-requests 4 \
  --record "$T/huge-cassette" --json "$T/huge.json" >"$T/o" 2>"$T/e"
rc=$?
"$CS" probe --provider openai_chat --base-url "http://127.0.0.1:$PORT_huge" --rate 1000 --max-requests 4 \
  --replay "$T/huge-cassette" --json "$T/huge2.json" >"$T/o2" 2>"$T/e2"
rc2=$?
check "answers larger than 4 MiB: transport with their status and the cap, not 'no answer'; the replay gives the same" \
  "[ $rc -eq 1 ] && ! grep -q 'no answer' '$T/e' &&
   python3 -c \"import json,sys; c=[c for c in json.load(open('$T/huge.json'))['cases'] if c['provider']!='-']; sys.exit(not (len(c)==4 and all(x['status']==400 and x['message']=='HTTP 400 with an answer larger than 4 MiB: not read' for x in c)))\" &&
   [ $rc2 -eq 1 ] && cmp -s '$T/huge.json' '$T/huge2.json'"
# A wrong key or a wrong path is no verdict on IDs: the first answer (401, 404) stops the probe with
# exit 2 naming it, and the rest of the budget is kept.
before=$(stats "$PORT_main")
OPENAI_API_KEY=sk-wrong-key-0123 "$CS" probe --provider openai_chat --base-url "http://127.0.0.1:$PORT_main/openai" \
  --rate 1000 --quiet >"$T/o" 2>"$T/e"
rc=$?
check "a wrong key: exit 2, one line naming HTTP 401, one request sent" \
  "[ $rc -eq 2 ] && [ \$(wc -l <'$T/e') -eq 1 ] && grep -q 'HTTP 401' '$T/e' && [ \$((\$(stats '$PORT_main') - $before)) -eq 1 ]"
# Gemini answers a wrong key with 400 and "API key not valid", a status that otherwise carries
# verdicts: the text says set-up, and the probe stops as for a 401.
before=$(stats "$PORT_main")
GEMINI_API_KEY=sk-wrong-key-0123 "$CS" probe --provider gemini --base-url "http://127.0.0.1:$PORT_main/gemini" \
  --rate 1000 --quiet >"$T/o" 2>"$T/e"
rc=$?
check "a wrong Gemini key (HTTP 400, API key not valid): exit 2, one line, one request sent" \
  "[ $rc -eq 2 ] && [ \$(wc -l <'$T/e') -eq 1 ] && grep -q 'API key not valid' '$T/e' && [ \$((\$(stats '$PORT_main') - $before)) -eq 1 ]"
before=$(stats "$PORT_main")
with_keys "$CS" probe --provider openai_chat --base-url "http://127.0.0.1:$PORT_main/nothere" --rate 1000 --quiet \
  --json "$T/404.json" >"$T/o" 2>"$T/e"
rc=$?
check "a wrong path: exit 2 naming HTTP 404, one request sent, the report says transport and not sent" \
  "[ $rc -eq 2 ] && grep -q 'HTTP 404' '$T/e' && [ \$((\$(stats '$PORT_main') - $before)) -eq 1 ] &&
   python3 -c \"import json,sys; d=json.load(open('$T/404.json')); s=d['summary']; sys.exit(not (s['transport']==1 and s['not sent']>10 and s['STRICTER']==0))\""
# A --record directory no file can be made in is refused before the first request (/proc/self:
# not even root can make one there).
if [ -d /proc/self ]; then
  before=$(stats "$PORT_main")
  with_keys "$CS" probe --provider openai_chat --base-url "http://127.0.0.1:$PORT_main/openai" --record /proc/self >"$T/o" 2>"$T/e"
  rc=$?
  check "--record where no file can be made: exit 2, one line, nothing sent" \
    "[ $rc -eq 2 ] && [ \$(wc -l <'$T/e') -eq 1 ] && grep -q '/proc/self: cannot record there' '$T/e' && [ \$(stats '$PORT_main') -eq $before ]"
fi
# A --base-url that is no URL, or one with a query or fragment the API path would land after, is a
# usage error before anything is sent; so is a --cases no budget could send.
for u in "http://" "http://127.0.0.1:99999/x" "http://[::1" "http://127.0.0.1:1/op enai" $'http://h/a\r\nX: 1' \
  "http://127.0.0.1:$PORT_main/openai?api-version=1" "http://127.0.0.1:$PORT_main/openai#f" \
  "http://user:pw-secret-1@127.0.0.1:$PORT_main/openai" "http://127.0.0.1:$PORT_main/openai#" \
  "http://127.0.0.1:$PORT_main/openai?"; do
  before=$(stats "$PORT_main")
  with_keys "$CS" probe --provider openai_chat --base-url "$u" >"$T/o" 2>"$T/e"
  rc=$?
  check "--base-url ${u//$'\r\n'/CRLF}: exit 2, one line, nothing sent" \
    "[ $rc -eq 2 ] && [ \$(wc -l <'$T/e') -eq 1 ] && grep -q 'probe: --base-url' '$T/e' && [ \$(stats '$PORT_main') -eq $before ] && ! grep -q pw-secret '$T/e'"
done
"$CS" probe --provider openai_chat --cases 99999999999 --dry-run >"$T/o" 2>"$T/e"
check "probe --cases beyond 10000: exit 2, one line" \
  "[ $? -eq 2 ] && [ \$(wc -l <'$T/e') -eq 1 ] && grep -q 'at most 10000' '$T/e'"
# An implementation that cannot answer its generated cases is exit 3, as in run, not a pass.
"$CS" probe --provider openai_chat --dry-run --quiet --impl-cmd -- python3 tests/fixtures/proto_echo.py --crash-op emit \
  >"$T/o" 2>"$T/e"
check "probe with an implementation that crashes on emit: exit 3, naming the case" \
  "[ $? -eq 3 ] && grep -q 'the implementation did not answer case gen.0' '$T/e'"
# --discover measures the provider alone: options it would ignore are refused.
for a in "--impl reference" "--cases 5" "--seed 9" "--seed 1" "--max-id-len 10" "--deadline 5"; do
  # shellcheck disable=SC2086
  "$CS" probe --provider openai_chat --discover --dry-run $a >"$T/o" 2>"$T/e"
  check "--discover with $a: exit 2, one line" "[ $? -eq 2 ] && [ \$(wc -l <'$T/e') -eq 1 ] && grep -q 'measures the provider alone' '$T/e'"
done
# --markdown carries what the terminal closes with: the observed rule (--discover) and the summary.
with_keys "$CS" probe --discover --provider openai_chat --base-url "http://127.0.0.1:$PORT_main/openai" --rate 1000 \
  --quiet --markdown "$T/disc.md" >"$T/o" 2>"$T/e"
check "discover --markdown holds the observed rule and the summary" \
  "[ $? -eq 0 ] && grep -q 'Rule observed for openai_chat' '$T/disc.md' && grep -q '^requests: ' '$T/disc.md' && grep -q '^maximum length\|  maximum length' '$T/disc.md'"
# A key with a line end (pasted with it) or a space would end or split the header: refused, unsent.
before=$(stats "$PORT_main")
for k in $'sk-canary-line-end\n' $'sk-a\r\nX-Evil: 1' ' '; do
  OPENAI_API_KEY="$k" "$CS" probe --provider openai_chat --base-url "http://127.0.0.1:$PORT_main/openai" >"$T/o" 2>"$T/e"
  rc=$?
  check "a key with a control character or a space: exit 2, one line, nothing sent" \
    "[ $rc -eq 2 ] && [ \$(wc -l <'$T/e') -eq 1 ] && grep -q 'OPENAI_API_KEY holds a space, a control character or a byte past ASCII' '$T/e' && [ \$(stats '$PORT_main') -eq $before ]"
done
# A pattern PCRE2 gives up on (it backtracks too much) gives callsign no verdict to compare: that is
# an input error naming the rule, never an agreement or disagreement with the provider.
before=$(stats "$PORT_main")
with_keys "$CS" probe --provider anthropic --base-url "http://127.0.0.1:$PORT_main/anthropic" "${RUN[@]}" \
  --rule 'anthropic.pattern=^([\w-]|[\w-])*_[\w-]*$' >"$T/o" 2>"$T/e"
rc=$?
check "probe, a rule PCRE2 gives up on: exit 2, one line naming it, nothing sent" \
  "[ $rc -eq 2 ] && [ \$(wc -l <'$T/e') -eq 1 ] && grep -q 'rule anthropic.pattern: PCRE2 match limit exceeded on ID' '$T/e' &&
   [ ! -s '$T/o' ] && [ $(stats "$PORT_main") -eq $before ]"
# In discovery the long IDs are made on the way: the one PCRE2 gives up on is not sent, the rest is.
discover "$PORT_main" u anthropic --rule 'anthropic.pattern=^(?:[\w-]{1,30}|(\w|\w)*(?!))$' --rule anthropic.max_len=0
rc=$?
check "discover, a rule PCRE2 gives up on for long IDs: exit 2, that case undecided and not sent" \
  "[ $rc -eq 2 ] && [ \$(grep -c '^callsign: probe: case len.4096: rule anthropic.pattern: PCRE2 ' '$T/dout.u.anthropic') -eq 1 ] &&
   python3 -c \"import json,sys; d=json.load(open('$T/disc.u.anthropic.json')); c=[x for x in d['cases'] if x['name']=='len.4096'][0]; sys.exit(not (c['callsign']=='undecided' and c['agree']=='not sent' and d['discovered']['max_len']=='inconclusive' and d['discovered']['min_len']==1))\""
"$CS" probe --provider nosuch >"$T/o" 2>"$T/e"
check "unknown provider: exit 2, one line" "[ $? -eq 2 ] && [ \$(wc -l <'$T/e') -eq 1 ]"
start_fake g2 --gemini-reject-id
with_keys "$CS" probe --provider gemini --base-url "http://127.0.0.1:$PORT_g2/gemini" "${RUN[@]}" >"$T/g2" 2>&1
rc=$?
check "an endpoint refusing id fields (Gemini 2.x): the control is stricter, the probe stops there, exit 2" \
  "[ $rc -eq 2 ] && grep -q '^  native .*rejected-other  *STRICTER  *Invalid JSON payload received. Unknown name \"id\"' '$T/g2' &&
   grep -q '^callsign: probe: the control case native .*Unknown name \"id\"' '$T/g2'"

# canned_fake NAME MESSAGE [cut]: a provider that answers every request 400 with MESSAGE as its
# error text, "{key}" in it replaced by the key it was sent, the key's first character as a JSON \u
# escape (a form no text search finds); with "cut", the body ends early (no JSON); sets PORT_<NAME>.
cat >"$T/canned_fake.py" <<'P'
import json, sys
from http.server import BaseHTTPRequestHandler, HTTPServer
class H(BaseHTTPRequestHandler):
    def log_message(self, *a): pass
    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        key = (self.headers.get("Authorization") or self.headers.get("x-api-key") or "").replace("Bearer ", "")
        msg = json.dumps(sys.argv[1]).replace("{key}", "\\u%04x" % ord(key[0]) + key[1:] if key else "")
        body = ('{"type":"error","error":{"type":"invalid_request_error","message":%s}}' % msg).encode()
        body = body[:-3] if sys.argv[2:] == ["cut"] else body
        self.send_response(400); self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body))); self.end_headers(); self.wfile.write(body)
s = HTTPServer(("127.0.0.1", 0), H)
print(s.server_address[1], flush=True)
s.serve_forever()
P
canned_fake() {
  python3 "$T/canned_fake.py" "${@:2}" >"$T/port.$1" 2>/dev/null &
  PIDS+=($!)
  for _ in $(seq 100); do [ -s "$T/port.$1" ] && break; sleep 0.05; done
  eval "PORT_$1=$(head -n 1 "$T/port.$1")"
}

# A provider (or a gateway) whose error text holds markup, table pipes, backticks and characters no
# terminal should get raw: the reports carry it inert.
canned_fake hostile $'tool_use.id: <!-- <img src=x> </p><script>alert(1)</script> | `x` **b** \e[31m \u202e \u2028 end'
with_keys "$CS" probe --provider anthropic --base-url "http://127.0.0.1:$PORT_hostile" --rate 1000 \
  --max-requests 2 --markdown "$T/hostile.md" --json "$T/hostile.json" >"$T/o" 2>"$T/e"
check "a provider message with markup and hidden characters: Markdown escaped, JSON without raw U+2028, terminal without ESC or U+202E" \
  "[ -s '$T/hostile.md' ] && ! grep -q '[^\\\\]<' '$T/hostile.md' && grep -q 'alert(1)' '$T/hostile.md' && ! grep -q \$'\\xe2\\x80\\xa8' '$T/hostile.json' && python3 -c \"import json;d=json.load(open('$T/hostile.json'));assert any('\\u2028' in c['message'] for c in d['cases']), d\" && ! grep -q \$'\\x1b\\|\\xe2\\x80\\xae' '$T/o' '$T/e'"

# A provider that rejects the control (IDs of its own form, first sent) for a reason of its own
# would reject every case alike: the probe stops after it, exit 2 with one line naming the
# rejection, and no other case is sent; the recording replays to the same, and --discover stops alike.
canned_fake disabled 'This organization has been disabled.'
with_keys "$CS" probe --provider anthropic --base-url "http://127.0.0.1:$PORT_disabled" --rate 1000 \
  --record "$T/disabled-cassette" --json "$T/disabled.json" >"$T/o" 2>"$T/e"
rc=$?
"$CS" probe --provider anthropic --base-url "http://127.0.0.1:$PORT_disabled" --rate 1000 \
  --replay "$T/disabled-cassette" --json "$T/disabled2.json" >"$T/o2" 2>"$T/e2"
rc2=$?
check "a rejected control: exit 2, one line naming the rejection, no other case sent; the replay stops alike" \
  "[ $rc -eq 2 ] && [ \$(wc -l <'$T/e') -eq 1 ] &&
   grep -q 'control case native (a native ID of 24 characters) was rejected (HTTP 400, rejected-other: This organization has been disabled.)' '$T/e' &&
   python3 -c \"import json,sys; s=json.load(open('$T/disabled.json'))['summary']; sys.exit(not (s['not sent']==s['cases']-1 and s['yes']==0))\" &&
   [ $rc2 -eq 2 ] && cmp -s '$T/e' '$T/e2' && cmp -s '$T/disabled.json' '$T/disabled2.json'"
with_keys "$CS" probe --discover --provider anthropic --base-url "http://127.0.0.1:$PORT_disabled" --rate 1000 \
  --json "$T/disabled-d.json" >"$T/o" 2>"$T/e"
check "discover, a rejected control: exit 2, one line naming it, nothing measured" \
  "[ \$? -eq 2 ] && [ \$(wc -l <'$T/e') -eq 1 ] && grep -q 'control case control .*This organization has been disabled' '$T/e' &&
   grep -q 'nothing can be measured without an accepted control' '$T/o' &&
   python3 -c \"import json,sys; d=json.load(open('$T/disabled-d.json')); sys.exit(not (len(d['cases'])==1 and not d['discovered']['control_accepted']))\""

# A provider that echoes the key back in a form no text search finds: the cassette holds the
# decoded body redacted, and replays to the same report.
canned_fake echo 'Incorrect API key provided: {key}'
with_keys "$CS" probe --provider openai_chat --base-url "http://127.0.0.1:$PORT_echo/v1" --rate 1000 \
  --max-requests 2 --record "$T/echo-cassette" --json "$T/echo1.json" >/dev/null 2>&1
"$CS" probe --provider openai_chat --base-url "http://127.0.0.1:$PORT_echo/v1" --max-requests 2 \
  --replay "$T/echo-cassette" --json "$T/echo2.json" >/dev/null 2>&1
check "a key echoed with a JSON escape: redacted in the cassette (no tail of it), the replay gives the same report" \
  "[ -n \"\$(ls '$T/echo-cassette')\" ] && ! grep -r -a -q -e '${CANARY:1}' '$T/echo-cassette' && grep -r -q 'redacted' '$T/echo-cassette' && python3 -c \"import json;a,b=[json.load(open(f)) for f in ('$T/echo1.json','$T/echo2.json')];assert a['cases']==b['cases'], (a,b)\""

# The same in a body cut short, which no JSON parser decodes: the escaped key is found in the text.
canned_fake echocut 'Incorrect API key provided: {key}' cut
with_keys "$CS" probe --provider anthropic --base-url "http://127.0.0.1:$PORT_echocut" --rate 1000 \
  --max-requests 2 --record "$T/echocut-cassette" --json "$T/echocut.json" >"$T/echocut.out" 2>&1
check "a key echoed with a JSON escape in a body that is no JSON: redacted in the cassette, the report and the output" \
  "[ -n \"\$(ls '$T/echocut-cassette')\" ] && ! grep -r -a -q -e '${CANARY:1}' '$T/echocut-cassette' '$T/echocut.json' '$T/echocut.out' && grep -q 'redacted' '$T/echocut.json'"

# Keys of other providers than the one probed are redacted too: an implementation (or a gateway)
# may print any of them, and its text reaches messages and reports.
OTHER=sk-other-canary-DO-NOT-LEAK-789
printf 'import os, sys\nsys.stderr.write("key %s env " + os.environ.get("ANTHROPIC_API_KEY", "unset") + "\\n")\nsys.exit(3)\n' \
  "$OTHER" >"$T/other.py"
OPENAI_API_KEY=$CANARY ANTHROPIC_API_KEY=$OTHER "$CS" probe --provider openai_chat --dry-run --json "$T/other.json" \
  --impl-cmd -- python3 "$T/other.py" >"$T/other.out" 2>"$T/other.err"
check "an implementation printing another provider's key: exit 3, the key redacted in its message and any report" \
  "[ $? -eq 3 ] && grep -q 'key \[redacted\] env unset' '$T/other.err' && ! grep -a -q -e '$OTHER' '$T/other.out' '$T/other.err' && { [ ! -e '$T/other.json' ] || ! grep -a -q -e '$OTHER' '$T/other.json'; }"

# ---- 6. the canary key appears nowhere
check "no key, secret or session token in any output, report or cassette" \
  "! grep -r -a -l -e '$CANARY' -e '$AWS_SECRET' -e '$AWS_ID' '$T' --exclude=probe.sh --exclude=expect.py --exclude=leaky.sh"
check "cassettes hold requests with the authorization redacted" \
  "grep -q -r '\"x-api-key\":.*\"\[redacted\]\"' '$T/cassette' && grep -q -r '\"authorization\":.*\"\[redacted\]\"' '$T/cassette-sig'"

finish
