# tests/e2e/lib/common.sh: what the end-to-end scripts share: a temporary directory $T removed at
# exit, PASS/FAIL lines with their counts, and the closing summary line that mk/run-e2e.sh sums.
# Sourced (bash) after `set -u`; `finish` ends a script with its status.
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0
fail=0
ok() { echo "PASS $1"; pass=$((pass + 1)); }
bad() { echo "FAIL $1"; fail=$((fail + 1)); }
check() { if eval "$2"; then ok "$1"; else bad "$1"; fi; }
# interrupt_after SECONDS OUT ERR CMD...: runs CMD in the background with SIGINT at its default (a
# script's & leaves it ignored) and its output in OUT and ERR, sends it SIGINT after SECONDS, and
# sets rc (its status) and ms (how long it took to end after the signal).
interrupt_after() {
  local secs=$1 out=$2 err=$3 pid start
  shift 3
  env --default-signal=INT "$@" >"$out" 2>"$err" &
  pid=$!
  sleep "$secs"
  start=$(date +%s%N)
  kill -INT $pid
  wait $pid
  rc=$?
  ms=$((($(date +%s%N) - start) / 1000000))
  sleep 0.3 # the implementation's process group ends after callsign
}
# Every sanitizer report of every command the script runs goes to $T/san.PID, whatever the command
# did with its stderr, so a report cannot hide behind a redirection or an overwritten file.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}log_path=$T/san"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:+$UBSAN_OPTIONS:}log_path=$T/san"
san_reports() { ls "$T"/san.* 2>/dev/null; }
# True when no command so far left a report; a report found is shown once and set aside, so a
# later check judges only the commands run after it.
san_clean() {
  local r
  r=$(san_reports)
  [ -z "$r" ] && return 0
  mkdir -p "$T/san-seen"
  for f in $r; do
    sed 's/^/    /' "$f" | head -n 20
    mv "$f" "$T/san-seen/"
  done
  return 1
}
finish() {
  check "no sanitizer report from any command" "san_clean"
  echo "$pass passed, $fail failed"
  [ "$fail" -eq 0 ]
}
