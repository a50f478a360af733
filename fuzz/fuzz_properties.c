/* fuzz/fuzz_properties.c: the coverage-guided target of callsign's own properties. An input is one
 * selector byte and a choice sequence: the selector picks the scope of the case, a target
 * (selector % 7, in the target table's order) and an op family ((selector / 7) % 3: emit,
 * canonicalize, normalize); the remaining bytes are read as the choice sequence of one case
 * (cs_choices_replay_bytes), so libFuzzer and AFL++ steer the same generators `run` uses. The
 * reference runs the case in-process through the runner's one-case checker (harness/runner.h),
 * which makes only the requests the properties in scope read; any failing required property, or
 * any fault of the reference, aborts with the property, the message and the history.
 * One scope per input keeps an execution short (the engines gain more from many small runs than
 * from few complete ones); over a campaign every target and op is covered. Generated IDs are kept
 * under 512 bytes for the same reason: `callsign run` and `fuzz` cover huge IDs.
 * Build: `make fuzz` (libFuzzer), `make fuzz-afl` (AFL++), .clusterfuzzlite/build.sh. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/buf.h"
#include "core/history_json.h"
#include "harness/runner.h"
#include "providers/target.h"

#define FUZZ_MAX_ID_LEN 512

static const unsigned op_families[3] = {CS_OP_EMIT, CS_OP_CANONICALIZE, CS_OP_NORMALIZE};

/* The fuzzing engines call a plain function per input: the implementation, its rules and the
 * checker are made once, on the first input, and live as long as the process. */
typedef struct {
  cs_ruleset *rules;
  cs_impl *impl;
  cs_case_checker *checker;
} fuzz_state;

static fuzz_state *state(void) {
  static fuzz_state st;
  if (st.checker)
    return &st;
  cs_err err = {{0}};
  st.rules = cs_ruleset_new(&err);
  const cs_builtin *ref = cs_builtin_find("reference");
  cs_impl_env env = {st.rules, 1};
  st.impl = st.rules && ref ? ref->create(&env, &err) : NULL;
  cs_run_config cfg = {.seed = 1, .gen = {.max_rounds = 3, .max_calls = 3, .max_id_len = FUZZ_MAX_ID_LEN}};
  st.checker = st.impl ? cs_case_checker_new(st.impl, st.rules, &cfg, true, &err) : NULL;
  if (!st.checker) {
    fprintf(stderr, "fuzz_properties: cannot set up the reference: %s\n", err.msg);
    abort();
  }
  return &st;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fuzz_state *st = state();
  unsigned selector = size ? data[0] : 0;
  unsigned targets = 1u << (selector % CS_TARGET_COUNT);
  unsigned ops = op_families[(selector / CS_TARGET_COUNT) % 3];
  if (size) {
    data++;
    size--;
  }
  cs_err err = {{0}};
  const cs_outcome *failed = NULL;
  if (cs_case_checker_run(st->checker, data, size, targets, ops, &failed, &err)) {
    fprintf(stderr, "fuzz_properties: the reference could not be run: %s\n", err.msg);
    abort();
  }
  if (!failed)
    return 0;
  cs_buf hist = {0};
  const cs_history *h = cs_case_checker_history(st->checker);
  if (h)
    cs_history_write(&hist, h);
  fprintf(stderr, "fuzz_properties: %s fails on %s: %s\nhistory: %s\n", failed->prop->name,
          failed->target >= 0 ? cs_target_get((cs_target_id)failed->target)->name : "-", failed->message,
          hist.data ? hist.data : "(none)");
  cs_buf_free(&hist);
  abort();
}
