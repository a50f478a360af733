#!/bin/sh
# make test: unit tests, then end-to-end tests; prints one closing total.
sh mk/run-unit.sh "$@" | tee build/unit.log
u=$(grep -E '^unit: ' build/unit.log | tail -n 1)
sh mk/run-e2e.sh build/san/callsign | tee build/e2e.log
e=$(grep -E '^e2e: ' build/e2e.log | tail -n 1)
up=$(echo "$u" | sed -nE 's/^unit: ([0-9]+) passed, ([0-9]+) failed.*/\1/p'); uf=$(echo "$u" | sed -nE 's/^unit: ([0-9]+) passed, ([0-9]+) failed.*/\2/p')
ep=$(echo "$e" | sed -nE 's/^e2e: ([0-9]+) passed, ([0-9]+) failed.*/\1/p'); ef=$(echo "$e" | sed -nE 's/^e2e: ([0-9]+) passed, ([0-9]+) failed.*/\2/p')
[ -n "$up" ] || { up=0; uf=1; }
[ -n "$ep" ] || { ep=0; ef=1; }
echo "total: $((up + ep)) passed, $((uf + ef)) failed"
[ $((uf + ef)) -eq 0 ]
