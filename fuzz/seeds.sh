#!/bin/sh
# fuzz/seeds.sh OUT [CALLSIGN]: writes the seed inputs of the fuzz targets (make fuzz-seeds).
#   OUT/properties/: for every replay token in corpus/regressions/*/*.json, its bytes (the
#     base64url-decoded varints of the choice sequence) after one selector byte naming the case's
#     target and op family (fuzz/fuzz_properties.c); given a callsign binary, the same for the first
#     64 cases of `callsign fuzz --list-cases`, selectors rotating over targets and op families.
#   OUT/reader/: the histories of the corpus cases and of tests/e2e/malformed/, and hello and
#     answer lines (fuzz/fuzz_reader.c).
# File names are the SHA-1 of the content, as libFuzzer names corpus files; the files so named that
# OUT/properties/ and OUT/reader/ held before are removed first. Runs from any directory: OUT and
# CALLSIGN are taken from the caller's, the corpus from this script's repository; one without
# corpus files is an error.
set -eu
OUT=${1:?usage: fuzz/seeds.sh OUT [CALLSIGN]}
CS=${2:-}
mkdir -p "$OUT/properties" "$OUT/reader"
OUT=$(cd "$OUT" && pwd)
case "$CS" in */*) CS=$(cd "$(dirname "$CS")" && pwd)/$(basename "$CS") ;; esac
cd "$(dirname "$0")/.."
# The case listing and the campaign's --out go to a directory of this run's own, removed at exit.
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
LIST=""
if [ -n "$CS" ]; then
  LIST=$WORK/cases
  "$CS" fuzz --impl reference --cases 64 --no-corpus --list-cases --quiet --out "$WORK/out" >"$LIST" || {
    echo "fuzz/seeds.sh: $CS fuzz --list-cases failed (exit $?)" >&2
    exit 1
  }
fi
python3 - "$OUT" "$LIST" <<'PY'
import base64, glob, hashlib, json, os, re, sys
out, listing = sys.argv[1], sys.argv[2]
targets = ["anthropic", "openai_chat", "openai_responses", "mistral", "kimi", "gemini", "bedrock"]
families = {"emit": 0, "canon": 1, "normalize": 2}

def put(sub, data):
    name = hashlib.sha1(data).hexdigest()
    with open(os.path.join(out, sub, name), "wb") as f:
        f.write(data)

def token_bytes(tok):
    body = tok[4:].split(".")[0]  # cs2.CHOICES.CHECK or cs1.CHOICES
    return base64.urlsafe_b64decode(body + "=" * (-len(body) % 4))

def selector(target, prop):
    t = targets.index(target) if target in targets else 0
    fam = families.get(prop.split(".")[0], 0)
    return bytes([t + 7 * fam])

def found(pattern):
    paths = sorted(glob.glob(pattern))
    if not paths:
        sys.exit("fuzz/seeds.sh: no corpus files %s in %s" % (pattern, os.getcwd()))
    return paths

regressions, malformed = found("corpus/regressions/*/*.json"), found("tests/e2e/malformed/*")

# The seeds of an earlier run go first (a case gone from the corpus takes its seed with it): the
# files named as this script names them, nothing else in OUT.
for sub in ("properties", "reader"):
    for name in os.listdir(os.path.join(out, sub)):
        path = os.path.join(out, sub, name)
        if re.fullmatch(r"[0-9a-f]{40}", name) and os.path.isfile(path):
            os.remove(path)

n = 0
for path in regressions:
    try:
        case = json.load(open(path))
    except ValueError:
        continue
    tok = case.get("token")
    if isinstance(tok, str) and tok.startswith(("cs1.", "cs2.")):
        put("properties", selector(case.get("target", ""), case.get("property", "")) + token_bytes(tok))
        n += 1
    if isinstance(case.get("history"), dict):
        put("reader", json.dumps(case["history"], separators=(",", ":")).encode())
if listing:
    for i, line in enumerate(open(listing)):
        parts = line.split()
        if len(parts) == 4 and parts[0] == "case":
            put("properties", bytes([i % 21]) + token_bytes(parts[3]))
            n += 1
put("properties", b"")
for path in malformed:
    put("reader", open(path, "rb").read())
for line in [
    b'{"seq":0,"protocol":1,"name":"x","version":"1","ops":["emit","canonicalize","normalize"],"targets":["anthropic","mistral"],"scheme":"callsign-canonical-v1"}',
    b'{"seq":1,"calls":["call_1","call_2"],"results":["call_1","call_2"]}',
    b'{"seq":1,"ids":["a",null,"b"]}',
    b'{"seq":1,"error":"unsupported"}',
    b'{"turns":[{"role":"assistant","provider":"kimi","calls":[{"id":"functions.f:0","name":"f","args":{}}]},{"role":"tool","results":[{"call_id":"functions.f:0","name":"f","content":"x"}]}]}',
]:
    put("reader", line)
print("fuzz seeds: %d choice sequences in %s/properties, %d inputs in %s/reader"
      % (len(os.listdir(os.path.join(out, "properties"))), out, len(os.listdir(os.path.join(out, "reader"))), out))
PY
