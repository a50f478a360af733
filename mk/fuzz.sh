#!/bin/sh
# mk/fuzz.sh: the steps of the Makefile's fuzz targets.
#   check libfuzzer [CC]  clang can link -fsanitize=fuzzer (installs clang and libclang-rt-14-dev as
#                         root when missing; otherwise prints the command and fails)
#   check afl             afl-clang-fast is on PATH (installs afl++ as root when missing)
#   run BIN SECONDS JOBS SEEDS [LIBFUZZER ARGS...]
#                         runs a libFuzzer target for SECONDS on JOBS processes (one shared corpus
#                         in build/fuzz-corpus/NAME, seeded from SEEDS), then prints the executions
#                         per second summed over the processes and fails on any finding of its own.
#                         It runs in build/fuzz-run/NAME/ for a plain build (BIN in build/fuzz/),
#                         build/fuzz-run/NAME-SANITIZERS/ for one in build/fuzz-SANITIZERS/; the
#                         reproducers stay there, earlier runs' too (none is removed). The input
#                         size cap (-max_len) is the target's own: the Makefile passes it.
set -u

need_root_install() { # $1: packages, $2: what for
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "fuzz: installing $1 ($2)"
    export DEBIAN_FRONTEND=noninteractive
    (apt-get update -qq && apt-get install -y -qq --no-install-recommends $1) >/tmp/callsign-fuzz-deps.log 2>&1 || {
      echo "fuzz: apt-get failed, see /tmp/callsign-fuzz-deps.log" >&2; exit 1; }
  else
    echo "fuzz: $2 is missing; run: sudo apt-get install -y $1" >&2
    exit 1
  fi
}

libfuzzer_ok() {
  d=$(mktemp -d)
  printf '#include <stddef.h>\n#include <stdint.h>\nint LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { (void)d; (void)n; return 0; }\n' >"$d/t.c"
  "$1" -fsanitize=fuzzer "$d/t.c" -o "$d/t" >/dev/null 2>&1
  rc=$?
  rm -rf "$d"
  return $rc
}

case "${1:-}" in
check)
  case "${2:-}" in
  libfuzzer)
    cc=${3:-clang}
    command -v "$cc" >/dev/null 2>&1 || need_root_install "clang" "clang"
    libfuzzer_ok "$cc" || need_root_install "libclang-rt-14-dev" "clang's libFuzzer runtime"
    libfuzzer_ok "$cc" || { echo "fuzz: $cc cannot link -fsanitize=fuzzer" >&2; exit 1; }
    ;;
  afl)
    command -v afl-clang-fast >/dev/null 2>&1 || need_root_install "afl++" "AFL++ (afl-clang-fast)"
    command -v afl-clang-fast >/dev/null 2>&1 || { echo "fuzz: afl-clang-fast not found after installing afl++" >&2; exit 1; }
    ;;
  *)
    echo "usage: mk/fuzz.sh check libfuzzer|afl" >&2
    exit 2
    ;;
  esac
  ;;
run)
  bin=$2
  secs=$3
  jobs=$4
  seeds=$5
  shift 5
  name=$(basename "$bin")
  flavor=$(basename "$(dirname "$bin")") # the Makefile's FUZZ_DIR: fuzz, or fuzz-<sanitizers>
  case "$flavor" in
  fuzz-*) runname=$name-${flavor#fuzz-} ;;
  *) runname=$name ;;
  esac
  corpus=build/fuzz-corpus/$name
  run=build/fuzz-run/$runname
  mkdir -p "$corpus" "$run"
  rm -f "$run"/fuzz-*.log
  # The reproducers of earlier runs stay (a plain run and a sanitizer run have their own directory,
  # and neither removes a finding): this run reports only those it adds.
  findings() { ls "$run" | grep -E '^(crash|leak|timeout|oom|slow-unit)-' || true; }
  findings >"$run/.earlier"
  abs() { case "$1" in /*) echo "$1" ;; *) echo "$PWD/$1" ;; esac; }
  exe=$(abs "$bin")
  args=""
  for a in "$@"; do # the fuzzer runs in $run: make -dict paths absolute
    case "$a" in -dict=*) a="-dict=$(abs "${a#-dict=}")" ;; esac
    args="$args $a"
  done
  set -- -max_total_time="$secs" -print_final_stats=1 $args "$(abs "$corpus")" "$(abs "$seeds")"
  # libFuzzer keeps every input it ever saved: minimize a corpus grown large over many runs, so
  # loading it stays quick (not counted in the run's time).
  if [ "$(ls "$corpus" | wc -l)" -gt 3000 ]; then
    rm -rf "$corpus.min"
    mkdir -p "$corpus.min"
    cmin=$(abs "$corpus.min")
    cfull=$(abs "$corpus")
    if (cd "$run" && "$exe" -merge=1 "$cmin" "$cfull" >merge.log 2>&1); then
      rm -rf "$corpus"
      mv "$corpus.min" "$corpus"
      echo "fuzz: minimized the corpus to $(ls "$corpus" | wc -l) inputs"
    else
      rm -rf "$corpus.min"
    fi
  fi
  echo "fuzz: $name for $secs s on $jobs process(es); corpus $corpus"
  if [ "$jobs" -le 1 ]; then
    (cd "$run" && "$exe" "$@" >fuzz-0.log 2>&1)
  else
    (cd "$run" && "$exe" -jobs="$jobs" -workers="$jobs" "$@" >fuzz.log 2>&1)
  fi
  total=0
  for log in "$run"/fuzz-*.log; do
    [ -f "$log" ] || continue
    n=$(grep -E '^stat::number_of_executed_units:' "$log" | tail -n 1 | awk '{print $2}')
    r=$(grep -E '^stat::average_exec_per_sec:' "$log" | tail -n 1 | awk '{print $2}')
    echo "  $(basename "$log"): ${n:-?} executions, ${r:-?} exec/s"
    total=$((total + ${r:-0}))
  done
  echo "fuzz: $name: $total executions per second over $jobs process(es)"
  if [ "$total" -eq 0 ]; then
    echo "fuzz: $name did not run; see $run/fuzz-0.log:" >&2
    tail -n 3 "$run"/fuzz-0.log >&2
    exit 1
  fi
  found=$(findings | grep -vxF -f "$run/.earlier" | tr '\n' ' ' | sed 's/ $//')
  if [ -n "$found" ] || grep -qE '^==[0-9]+==ERROR|deadly signal' "$run"/fuzz-*.log 2>/dev/null; then
    echo "fuzz: $name FOUND a failure; reproducers in $run: ${found:-(an input an earlier run found)}" >&2
    grep -hE 'fuzz_(properties|reader):|ERROR' "$run"/fuzz-*.log | head -n 5 >&2
    echo "fuzz: replay one with: $bin $run/<file>" >&2
    exit 1
  fi
  earlier=$(wc -l <"$run/.earlier")
  if [ "$earlier" -gt 0 ]; then
    echo "fuzz: $name: no new finding ($earlier reproducer(s) of earlier runs kept in $run)"
  else
    echo "fuzz: $name: no new finding"
  fi
  ;;
*)
  echo "usage: mk/fuzz.sh check libfuzzer|afl | run BIN SECONDS JOBS SEEDS [ARGS...]" >&2
  exit 2
  ;;
esac
