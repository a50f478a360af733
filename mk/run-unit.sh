#!/bin/sh
# Runs each Criterion unit-test binary (built with ASan+UBSan); fails if any fails.
fail=0
for t in "$@"; do
  echo "== $t"
  ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 "$t" --jobs 2 || fail=1
done
exit $fail
