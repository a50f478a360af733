/* harness/runner.h: runs the property table against one implementation: generates cases from the
 * seed (after replaying the regression corpus), batches requests so external implementations are
 * pipelined, checks every applicable property, and shrinks each first failure to a minimal case. */
#ifndef CS_HARNESS_RUNNER_H
#define CS_HARNESS_RUNNER_H

#include <stdbool.h>
#include <stdint.h>

#include "generators/history_gen.h"
#include "harness/property.h"
#include "impls/impl.h"

typedef struct {
  uint64_t seed;
  uint64_t cases;          /* 0: 2000 (upper bound when time_s is set) */
  double time_s;           /* 0: no time limit */
  unsigned targets;        /* bit per target; 0: all */
  uint32_t shard_i, shard_n; /* run only cases with index % shard_n == shard_i; shard_n 0: no sharding */
  unsigned restart_every;  /* compare against a restarted implementation every N cases; 0: 500 */
  unsigned batch;          /* cases per pipelined batch; 0: 32 */
  unsigned shrink_budget;  /* candidate runs per failure; 0: 3000 */
  cs_gen_config gen;
  const char *const *only; /* property name prefixes to run (NULL: all) */
  size_t nonly;
  const uint64_t *const *replay; /* choice sequences to run first (the corpus), each with its length */
  const size_t *replay_len;
  size_t nreplay;
  bool stop_on_first;       /* fuzzing: stop at the first failure */
  void (*progress)(void *user, uint64_t cases, uint64_t failures, double elapsed);
  void *progress_user;
} cs_run_config;

typedef struct {
  const cs_property *prop;
  int target;      /* -1: target-less */
  bool applicable; /* the implementation has the op (and the target) */
  uint64_t cases;  /* cases on which it was checked */
  bool failed;
  /* First failure, shrunk. */
  uint64_t *choices; /* heap */
  size_t nchoices;
  uint64_t case_index; /* UINT64_MAX: from the corpus */
  char message[600];
  char *history_json; /* heap */
  char *answer_json;  /* heap, or NULL */
  uint32_t shrink_steps, shrunk_turns, shrunk_calls;
} cs_outcome;

typedef struct {
  cs_outcome *cells; /* heap */
  size_t ncells;
  uint64_t cases;
  double seconds;
  uint64_t label_counts[CS_LABEL_COUNT];
  uint64_t stat_cases;
  uint64_t faults[5];
} cs_run_result;

/* Runs. Returns 0, or -1 with `err` when the implementation could not be run at all. */
int cs_run_impl(cs_impl *impl, cs_ruleset *rs, const cs_run_config *cfg, cs_run_result *out, cs_err *err);
void cs_run_result_free(cs_run_result *r);

/* Re-runs one case from its choices and reports, for every applicable property, whether it holds.
 * Used by `replay`. `only`: property names (prefix) to check, NULL for all. */
int cs_run_replay(cs_impl *impl, cs_ruleset *rs, const cs_run_config *cfg, const uint64_t *choices, size_t n,
                  cs_run_result *out, cs_err *err);

#endif
