#!/bin/sh
# Runs each Criterion unit-test binary (built with ASan+UBSan) and sums their synthesis lines.
pass=0
fail=0
for t in "$@"; do
  echo "== $t"
  out=$(ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 "$t" --jobs 2 2>&1)
  rc=$?
  printf '%s\n' "$out" | grep -vE '^\[----\]|^$' | tail -n 12
  syn=$(printf '%s\n' "$out" | grep 'Synthesis:' | tail -n 1)
  p=$(echo "$syn" | sed -nE 's/.*Passing: ([0-9]+).*/\1/p')
  f=$(echo "$syn" | sed -nE 's/.*Failing: ([0-9]+).*Crashing: ([0-9]+).*/\1 \2/p' | awk '{print $1+$2}')
  [ -n "$p" ] || p=0
  [ -n "$f" ] || f=1
  [ $rc -eq 0 ] || [ "$f" -gt 0 ] || f=1
  pass=$((pass + p))
  fail=$((fail + f))
done
echo "unit: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
