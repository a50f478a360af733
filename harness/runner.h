/* harness/runner.h: runs the property table against one implementation: generates cases from the
 * seed (after the literal cases and the replayed regression corpus), batches requests so external
 * implementations are pipelined, checks every applicable property, and shrinks each first failure
 * to a minimal case (in a campaign, every failure the caller takes). Also the one-case checker of
 * the coverage-guided fuzz targets. */
#ifndef CS_HARNESS_RUNNER_H
#define CS_HARNESS_RUNNER_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "generators/history_gen.h"
#include "harness/property.h"
#include "impls/impl.h"

struct cs_outcome; /* below */

/* A literal case's planted collision (collide's pairs): call `to` holds a raw ID that the
 * implementation maps to the ID of call `from`, as an implementation-aware twin does, so
 * emit.compression_stable excuses `to` changing when `from` is dropped. */
typedef struct {
  bool set;
  uint32_t from, to; /* from < to */
} cs_literal_twin;

#define CS_RUN_DEFAULT_CASES 2000

typedef struct {
  uint64_t seed;
  uint64_t cases;            /* 0: CS_RUN_DEFAULT_CASES (upper bound when time_s is set) */
  double time_s;             /* 0: no time limit */
  unsigned targets;          /* bit per target; 0: all */
  uint32_t shard_i, shard_n; /* run only cases with index % shard_n == shard_i; shard_n 0: no sharding */
  unsigned restart_every;    /* compare against a restarted implementation every N cases; 0: 500 */
  unsigned batch;            /* cases per pipelined batch; 0: 32 */
  unsigned shrink_budget;    /* candidate runs per failure; 0: 3000 */
  double shrink_run_s;       /* seconds of shrinking for all failures of a run (not a campaign); 0: 60 */
  cs_gen_config gen;
  const char *const *only; /* property name prefixes to run (NULL: all) */
  size_t nonly;
  const uint64_t *const *replay; /* choice sequences to run first (the corpus), each with its length */
  const size_t *replay_len;
  size_t nreplay;
  bool stop_on_first; /* fuzzing: stop at the first failure */
  /* NULL: none. Once it reads nonzero (a signal handler sets it), no further batch or shrink try
   * starts: the run ends as when --time runs out, with what it found so far. */
  const volatile sig_atomic_t *interrupt;
  /* `cells` (ncells): the run's cells as they stand, so that a caller can tell which fail. */
  void (*progress)(void *user, uint64_t cases, uint64_t failures, const struct cs_outcome *cells, size_t ncells,
                   double elapsed);
  void *progress_user;

  /* Campaigns (callsign fuzz). With on_failure set, a failure does not retire its cell: each failing
   * case is offered to want_failure (NULL: every one is taken); a taken case is shrunk after its
   * batch and handed to on_failure (case_index set), and the cell keeps being checked on later
   * cases, so one run can find several distinct failures of a property. The result's cells keep
   * the first failure taken; `failures` of the progress callback then counts failing checks.
   * want_failure is where the caller bounds the shrinking work. */
  bool (*want_failure)(void *user, const struct cs_outcome *cell, uint64_t case_index, const char *message);
  void (*on_failure)(void *user, const struct cs_outcome *shrunk);
  void *failure_user;
  /* Called for every generated case once it ran: its index, recorded choices and generated
   * history (before twins are planted). Lists the cases of a run (fuzz --list-cases). */
  void (*on_case)(void *user, uint64_t case_index, const uint64_t *choices, size_t n, const cs_history *h);
  void *case_user;
  /* Literal histories, checked before the replayed corpus (collision pairs planted by collide).
   * A failure on one is reported with that history as it is: no shrinking, no replay token.
   * literal_twins (NULL: none) says per case which call was planted as a twin of which. */
  const cs_history *const *literal;
  const cs_literal_twin *literal_twins;
  const char *const *literal_paths; /* NULL, or each literal case's file (its replay command) */
  size_t nliteral;
  bool corpus_only; /* run the literal and replay cases only, no generated case */
  /* A replay of one case (replay FILE; cs_run_replay sets it itself): request kinds are given up
   * after CS_REPLAY_GIVE_UP_AFTER faults without an answer, while shrinking too. */
  bool replay_one;
  /* Generate the next batch on a second thread while this one runs: for external implementations,
   * whose process otherwise waits while the harness generates. The cases are the same either way. */
  bool generate_ahead;
} cs_run_config;

typedef struct cs_outcome {
  const cs_property *prop;
  int target;      /* -1: target-less */
  bool applicable; /* the implementation has the op (and the target) */
  uint64_t cases;  /* cases on which it was checked */
  bool failed;
  /* A rule could not decide on an ID this property needed (PCRE2 gave up on an overridden pattern):
   * from that case on the cell is not judged, and the run has an input error, not a failure. Beside
   * the other flags every case reads: after message[] it cost a cache line per cell and case. */
  bool undecided;
  /* First failure, shrunk (a literal case: as it is). The history, answer, size and message are
   * those of the smallest case shrinking found, or of the failing case itself. */
  uint64_t *choices; /* heap */
  size_t nchoices;
  cs_literal_twin literal_twin; /* a literal case's (choices NULL): its planted twin */
  /* The first implementation-aware twin planted in the history shown (calls counted in it), or
   * none: the corpus keeps it beside the token, for the day the token makes another history. */
  cs_literal_twin planted;
  char *literal_path;  /* and its file when it came from one (cs_run_config.literal_paths; heap) */
  uint64_t case_index; /* UINT64_MAX: from the corpus */
  char message[600];
  char *history_json; /* heap */
  char *answer_json;  /* heap, or NULL */
  uint32_t shrink_steps, shrunk_turns, shrunk_calls;
  bool shrunk;             /* shrinking ran (it may have found nothing smaller) */
  uint64_t undecided_case; /* as case_index, when undecided */
  char undecided_why[600]; /* cs_rule_check's message */
  /* protocol.answer failed on a case that shrinking this property tried (static name), not on a
   * case of the run; case_index is that of the failure being shrunk. NULL otherwise. */
  const char *found_shrinking;
  /* protocol.answer failed on a fault of the program's start (cs_reply.at_start: a restart failed
   * at hello), not on one a request caused: shrinking takes such faults only then. */
  bool start_fault;
} cs_outcome;

typedef struct {
  cs_outcome *cells; /* heap */
  size_t ncells;
  uint64_t cases;     /* cases run and judged */
  uint64_t cases_cut; /* cases cut off by time_s before their last answer: neither run nor judged */
  double seconds;
  double shrink_seconds; /* of `seconds`, spent shrinking failures */
  uint64_t label_counts[CS_LABEL_COUNT];
  uint64_t stat_cases;
  uint64_t faults[5];
  /* Request kinds (cs_request_kind) the run stopped sending, bit per kind: CS_RUN_GIVE_UP_AFTER
   * faults of the kind and none of it answered, or as many of any kind and nothing answered at all.
   * Their properties went unchecked after that. */
  uint32_t given_up;
  /* cfg->interrupt stopped the run: a batch or a shrink try it would have run was not. */
  bool interrupted;
  /* Every selected property had failed (or had nothing to check) while cases were left: the run
   * stopped there, so `cases` is fewer than asked for. */
  bool ended_early;
} cs_run_result;

/* cs_impl.give_up_after during a run (not while shrinking): a program that crashes on every request
 * costs a restart per request, about 30 a case; a kind that is answered now and then is never given
 * up. */
#define CS_RUN_GIVE_UP_AFTER 20
/* ...and during a replay: one case, whose first fault already shows; a program that hangs on every
 * request waited out about 40 deadlines. */
#define CS_REPLAY_GIVE_UP_AFTER 3

/* Runs. Returns 0, or -1 with `err` when the implementation could not be run at all, or when under
 * time_s not one case got all its answers in time (then `err` says which request was waiting). */
int cs_run_impl(cs_impl *impl, cs_ruleset *rs, const cs_run_config *cfg, cs_run_result *out, cs_err *err);
void cs_run_result_free(cs_run_result *r);
/* True when cfg's property selection (`only`: name prefixes; none: every property) names `property`.
 * protocol.answer is checked whether named or not. */
bool cs_run_selects(const cs_run_config *cfg, const char *property);
/* An undecided cell as the one-line input error a command reports: "WHY (PROPERTY on TARGET is not
 * judged)". */
void cs_outcome_undecided_message(const cs_outcome *oc, char *out, size_t n);

/* Re-runs one case from its choices and reports, for every applicable property, whether it holds.
 * Used by `replay`. `only`: property names (prefix) to check, NULL for all. */
int cs_run_replay(cs_impl *impl, cs_ruleset *rs, const cs_run_config *cfg, const uint64_t *choices, size_t n,
                  cs_run_result *out, cs_err *err);

/* One case at a time, for coverage-guided fuzzing (fuzz/fuzz_properties.c): the runner's buffers
 * and arenas are kept from one case to the next, nothing is shrunk and no report is built. */
typedef struct cs_case_checker cs_case_checker;

/* Prepares the cells of `impl` under `cfg` (targets, only, gen); with `required_only`, recommended
 * properties are neither requested nor checked. NULL with `err` on failure. */
cs_case_checker *cs_case_checker_new(cs_impl *impl, cs_ruleset *rs, const cs_run_config *cfg, bool required_only,
                                     cs_err *err);
/* Runs the case that `data` spells as a choice sequence (cs_choices_replay_bytes) through every
 * checked property of the ops in `ops` (cs_op bits; 0: all) and the targets in `targets` (0: those
 * of the config); only the requests those properties read are made (protocol.answer is always
 * checked). Returns 0 with *failed NULL when all hold, 0 with *failed the first failing cell (its
 * message filled), or -1 with `err` when the implementation could not be run. */
int cs_case_checker_run(cs_case_checker *c, const uint8_t *data, size_t size, unsigned targets, unsigned ops,
                        const cs_outcome **failed, cs_err *err);
/* The history of the last case run (valid until the next run). */
const cs_history *cs_case_checker_history(const cs_case_checker *c);
void cs_case_checker_free(cs_case_checker *c);

#endif
