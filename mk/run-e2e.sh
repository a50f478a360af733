#!/bin/sh
# Runs every end-to-end script in tests/e2e/ with the (sanitized) binary; each prints its own
# "N passed, M failed" line; this sums them.
CS=${1:-build/san/callsign}
pass=0
fail=0
for t in tests/e2e/*.sh; do
  echo "== $t"
  out=$(ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 bash "$t" "$CS" 2>&1)
  rc=$?
  printf '%s\n' "$out"
  line=$(printf '%s\n' "$out" | grep -E '^[0-9]+ passed, [0-9]+ failed' | tail -n 1)
  p=$(echo "$line" | sed -E 's/^([0-9]+) passed.*/\1/')
  f=$(echo "$line" | sed -E 's/.* ([0-9]+) failed.*/\1/')
  [ -n "$line" ] || { p=0; f=1; echo "   (no summary line)"; }
  [ $rc -eq 0 ] || [ "$f" -gt 0 ] || f=1
  pass=$((pass + p))
  fail=$((fail + f))
done
echo "e2e: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
