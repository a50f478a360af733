#!/usr/bin/env bash
# `callsign canon FILE` on malformed histories, and the other commands that read JSON files on the
# same inputs: every one must be refused with exit status 2 and a single stderr line
# "callsign: FILE: <reason>" (no crash, no sanitizer report, nothing on stdout).
# Inputs: the files in tests/e2e/malformed/, plus large ones generated here at run time (a 10 MiB
# ID, 10000 nested arrays). Usage: malformed.sh path/to/callsign
# Prints one line per check and ends with "N passed, M failed"; exits 1 if any check failed.
set -u
CS=${1:?usage: malformed.sh path/to/callsign}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
data=$here/malformed
. "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"

# The reason each input must give (a fragment of the message); empty: any reason.
expected() {
  case "$1" in
  truncated.json | empty.json) echo "ends early" ;;
  number_id.json) echo "history.turns[1].calls[0].id" ;;
  invalid_utf8.json | overlong_utf8.json) echo "UTF-8" ;;
  nul_escape.json) echo "u0000" ;;
  raw_nul.json) echo "NUL" ;;
  lone_surrogate.json) echo "surrogate" ;;
  unknown_role.json) echo "unknown role" ;;
  unknown_provider.json) echo "unknown provider" ;;
  calls_on_user.json) echo "only assistant turns" ;;
  top_level_array.json | null.json) echo "expected an object" ;;
  trailing_garbage.json) echo "after the history object" ;;
  huge_id.json) echo "limit" ;;
  deep_nesting.json) echo "nested" ;;
  leading_zero.json) echo "number with a leading zero" ;;
  raw_control.json) echo "raw control character U+0001" ;;
  duplicate_id.json) echo "history.turns[0].calls[0]: the member \"id\" occurs twice" ;;
  *) echo "" ;;
  esac
}

# A 10 MiB ID (too big to keep in the repository) and 10000 levels of nesting in `args`.
{
  printf '{"turns":[{"role":"assistant","provider":"openai_chat","calls":[{"name":"f","id":"'
  head -c 10485760 /dev/zero | tr '\0' 'x'
  printf '"}]}]}\n'
} >"$T/huge_id.json"
{
  printf '{"turns":[{"role":"assistant","calls":[{"id":"a","name":"f","args":'
  head -c 10000 /dev/zero | tr '\0' '['
  head -c 10000 /dev/zero | tr '\0' ']'
  printf '}]}]}\n'
} >"$T/deep_nesting.json"

# Runs the binary (bounded in time) with stdin from /dev/null unless told otherwise.
run() {
  if command -v timeout >/dev/null 2>&1; then
    timeout 120 "$CS" "$@"
  else
    "$CS" "$@"
  fi
}

# check_refusal LABEL FILE-SHOWN-IN-MESSAGE EXPECTED-FRAGMENT: judges $T/rc, $T/out, $T/err.
check_refusal() {
  local label=$1 shown=$2 want=$3 rc lines first
  rc=$(cat "$T/rc")
  lines=$(wc -l <"$T/err" | tr -d ' ')
  first=$(head -n 1 "$T/err" | cut -c 1-200)
  if [ "$rc" -eq 2 ]; then ok "$label: exit status 2"; else bad "$label: exit status $rc, expected 2 ($first)"; fi
  # Exactly one line: one newline, and it is the last byte.
  if [ "$lines" -eq 1 ] && [ -z "$(tail -c 1 "$T/err")" ]; then
    ok "$label: stderr is one line"
  else
    bad "$label: stderr has $lines line(s), expected exactly 1 ($first)"
  fi
  case "$first" in
  "callsign: "*) ok "$label: stderr starts with 'callsign: '" ;;
  *) bad "$label: stderr does not start with 'callsign: ' ($first)" ;;
  esac
  if grep -qF -- "callsign: $shown: " "$T/err"; then
    ok "$label: message names the input"
  else
    bad "$label: message does not name '$shown' ($first)"
  fi
  if [ -n "$want" ]; then
    if grep -qF -- "$want" "$T/err"; then ok "$label: reason mentions '$want'"; else bad "$label: reason lacks '$want' ($first)"; fi
  fi
  if san_clean; then ok "$label: no sanitizer report"; else bad "$label: sanitizer report"; fi
  if [ -s "$T/out" ]; then bad "$label: something was printed on stdout"; else ok "$label: nothing on stdout"; fi
}

for f in "$data"/* "$T/huge_id.json" "$T/deep_nesting.json"; do
  [ -f "$f" ] || continue
  name=$(basename "$f")
  run canon "$f" </dev/null >"$T/out" 2>"$T/err"
  echo $? >"$T/rc"
  check_refusal "$name" "$f" "$(expected "$name")"
done

# Every other command that reads a JSON file refuses the same inputs the same way: a vector file,
# a saved case, a fuzz summary. Errors in the JSON text itself give the same reason as for canon.
json_reason() {
  case "$1" in
  trailing_garbage.json) echo "unexpected data after" ;;
  truncated.json | empty.json | invalid_utf8.json | overlong_utf8.json | nul_escape.json | raw_nul.json | \
    lone_surrogate.json | deep_nesting.json | leading_zero.json | raw_control.json) expected "$1" ;;
  *) echo "" ;;
  esac
}
for f in "$data"/* "$T/huge_id.json" "$T/deep_nesting.json"; do
  [ -f "$f" ] || continue
  name=$(basename "$f")
  run vectors --check "$f" </dev/null >"$T/out" 2>"$T/err"
  echo $? >"$T/rc"
  check_refusal "vectors --check $name" "$f" "$(json_reason "$name")"
  run replay --impl reference "$f" </dev/null >"$T/out" 2>"$T/err"
  echo $? >"$T/rc"
  check_refusal "replay $name" "$f" "$(json_reason "$name")"
  rm -rf "$T/shard" "$T/merged" && mkdir "$T/shard" && cp "$f" "$T/shard/summary.json"
  run fuzz --merge "$T/merged" "$T/shard" </dev/null >"$T/out" 2>"$T/err"
  echo $? >"$T/rc"
  check_refusal "fuzz --merge, summary.json = $name" "$T/shard/summary.json" "$(json_reason "$name")"
done

# A top-level member named twice says two things (cJSON reads the first, another reader the last):
# a saved case, a vector file and a fuzz summary are refused, naming the member.
printf '{"property":"emit.unique","target":"anthropic","target":"mistral","token":"cs1."}' >"$T/dup_member.json"
run replay --impl reference "$T/dup_member.json" </dev/null >"$T/out" 2>"$T/err"
echo $? >"$T/rc"
check_refusal "replay of a case naming target twice" "$T/dup_member.json" 'the member "target" occurs twice'
printf '{"algorithm":"x","algorithm":"y","testGroups":[]}' >"$T/dup_vectors.json"
run vectors --check "$T/dup_vectors.json" </dev/null >"$T/out" 2>"$T/err"
echo $? >"$T/rc"
check_refusal "vectors --check of a file naming algorithm twice" "$T/dup_vectors.json" 'the member "algorithm" occurs twice'

# The same refusal when the history comes on stdin.
run canon <"$data/truncated.json" >"$T/out" 2>"$T/err"
echo $? >"$T/rc"
check_refusal "truncated.json on stdin" "stdin" "ends early"

# Inputs that are not files with content.
run canon "$T/does-not-exist.json" </dev/null >"$T/out" 2>"$T/err"
echo $? >"$T/rc"
check_refusal "missing file" "$T/does-not-exist.json" "cannot open: No such file or directory"
mkdir "$T/a-directory"
run canon "$T/a-directory" </dev/null >"$T/out" 2>"$T/err"
echo $? >"$T/rc"
check_refusal "a directory" "$T/a-directory" "cannot read: Is a directory"

# Out of memory: a well-formed history larger than the memory callsign may take is one line and
# status 2, not a crash. The sanitized binary is limited by the allocator (ulimit -v cannot hold
# ASan's shadow memory), any other by the address space.
python3 -c "
import json, sys
turns = [{'role': 'user', 'text': 'hi'}]
for r in range(1500):
    i = 'call_%d' % r + 'x' * 3000
    turns.append({'role': 'assistant', 'provider': 'openai_chat', 'calls': [{'id': i, 'name': 'f', 'args': {}}]})
    turns.append({'role': 'tool', 'results': [{'call_id': i, 'name': 'f', 'content': 'ok'}]})
json.dump({'turns': turns}, sys.stdout)" >"$T/big.json"
"$CS" canon "$T/big.json" >"$T/out" 2>"$T/err"
check "canon of the 9 MB history with memory enough: exit 0" "[ $? -eq 0 ] && [ -s '$T/out' ]"
if grep -q __asan_init "$CS"; then
  ASAN_OPTIONS="$ASAN_OPTIONS:allocator_may_return_null=1:max_allocation_size_mb=4:log_path=$T/oom-asan" \
    "$CS" canon "$T/big.json" >"$T/out" 2>"$T/err.asan"
  rc=$?
  # ASan says on stderr, whatever log_path says, that it returned NULL: that line is its, not ours.
  grep -v '^==[0-9]*==WARNING: AddressSanitizer failed to allocate' "$T/err.asan" >"$T/err"
  (exit $rc)
else
  (ulimit -v 40000 && exec "$CS" canon "$T/big.json") >"$T/out" 2>"$T/err"
fi
echo $? >"$T/rc"
check "canon of the same history out of memory: exit 2, one line" \
  "[ \$(cat '$T/rc') -eq 2 ] && [ \"\$(cat '$T/err')\" = 'callsign: out of memory' ] && ! [ -s '$T/out' ]"

finish
