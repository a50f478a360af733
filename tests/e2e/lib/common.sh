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
san_clean() { ! grep -qE 'Sanitizer|runtime error' "$@"; }
finish() {
  echo "$pass passed, $fail failed"
  [ "$fail" -eq 0 ]
}
