/* harness/collide.h: the collision search of `callsign collide`: two different inputs that one
 * function maps to the same output. The caller owns the inputs: it turns 64-bit states into input
 * texts (injectively) and evaluates them in batches, one evaluator per worker thread. Outputs are
 * compared by a 64-bit fingerprint, then confirmed byte for byte.
 *
 * Two strategies, chosen from the estimated size of the output space and the memory bound:
 * - birthday: every (fingerprint, state) is kept in one table until two states share an output;
 * - distinguished points (van Oorschot and Wiener's parallel collision search), when the table
 *   could not hold the ~2^(bits/2) outputs a collision needs: each worker runs many walks
 *   state -> output -> next state = fingerprint(output); a walk ends at an output whose fingerprint
 *   starts with dp_bits zero bits, and only those endpoints are kept (with the walk's start and
 *   length). Two walks ending at the same point merged somewhere: both are re-walked from their
 *   starts, aligned by length, to the step where two different states give the same output.
 * When the space is unknown the search starts as birthday and switches to distinguished points if
 * the table fills up. */
#ifndef CS_HARNESS_COLLIDE_H
#define CS_HARNESS_COLLIDE_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/error.h"
#include "core/str.h"

/* Evaluates the inputs of states[0..n): outs[i] is the output of states[i] (memory owned by the
 * evaluator, valid until its next call). It sets every real[i]: false says outs[i] stands in for an
 * output the evaluator could not get (a null answer, a fault): a text unique to the input, which
 * walks pass through but a birthday table never stores (it cannot collide). Returns 0, or -1 with
 * `err` when evaluation is impossible (the search then stops with that error). */
typedef int (*cs_collide_eval_fn)(void *evaluator, const uint64_t *states, size_t n, cs_str *outs, bool *real,
                                  cs_err *err);

typedef struct {
  cs_collide_eval_fn eval;
  void **evaluators; /* one per worker thread */
  unsigned nworkers; /* 0: 1 */
  size_t memory;     /* bytes the table may hold at once, a resize's two mappings included; 0: 1 GiB */
  double space_bits; /* estimated output entropy in bits; 0: unknown */
  uint64_t budget;   /* evaluations of the search at most (confirming a candidate pair, and re-walking
                      * two chains to where they merged, may add some); 0: no limit */
  double time_s;     /* 0: no limit */
  uint64_t seed;     /* starting states are drawn from it */
  unsigned batch;    /* states per evaluation call (walks per worker); 0: 4096 */
  int dp_bits;       /* distinguished-point bits; 0: chosen from the space and the memory */
  bool force_dp;     /* distinguished points even when a table would do (tests) */
  /* NULL: none. Once it reads nonzero (a signal handler sets it), no worker starts another batch:
   * the search ends as when its time runs out, and says it was interrupted. */
  const volatile sig_atomic_t *interrupt;
  /* Called about every half second from the first worker. */
  void (*progress)(void *user, uint64_t evals, uint64_t stored, double elapsed, const char *mode);
  void *progress_user;
} cs_collide_config;

typedef struct {
  bool found;
  uint64_t a, b;     /* two different states with the same output */
  uint64_t evals;    /* evaluations done, re-walks included */
  uint64_t stored;   /* table entries at the end */
  uint64_t unreal;   /* evaluations whose output was a stand-in (real false): a birthday table stores none */
  size_t table_peak; /* bytes the table's mappings held at once (a resize holds two): within memory */
  double seconds;
  const char *mode; /* "birthday" or "distinguished points" */
  int dp_bits;
  double expected;  /* evaluations a collision needs on average (0: space unknown) */
  bool interrupted; /* cfg->interrupt ended the search */
} cs_collide_result;

/* What cs_collide_search returns when the system cannot give the table cfg->memory allows: the
 * run's resources fall short, the implementation is not at fault. */
#define CS_COLLIDE_NO_MEMORY (-2)

/* Searches until a collision, the budget or the time limit. Returns 0 (found or not), -1 with `err`
 * when an evaluator failed, or CS_COLLIDE_NO_MEMORY with `err`. */
int cs_collide_search(const cs_collide_config *cfg, cs_collide_result *out, cs_err *err);

/* The 64-bit fingerprint of an output (also the next state of a walk). */
uint64_t cs_collide_fingerprint(cs_str out);

/* Estimated entropy, in bits, of `n` sample outputs: the sum over byte positions of log2 of the
 * number of distinct bytes seen there, plus log2 of the number of distinct lengths. A position
 * that never varies, or whose values across the samples repeat an earlier position's, adds
 * nothing; a sample too small to show all values underestimates. */
double cs_collide_entropy(const cs_str *outs, size_t n);

/* A count or a rate as the terminal shows it, with a unit that keeps its digits: "1.23M" from a
 * million up, "45.6k" from a thousand, "789", and below ten two decimals ("0.42"): a slow
 * implementation's rate still shows. */
void cs_collide_amount(char *out, size_t cap, double v);

/* Does the pair (a, b) still collide? 1 yes, 0 no (or it could not be told: a fault is no
 * collision), -1 an error that ends the shrinking. */
typedef int (*cs_collide_pair_fn)(void *user, cs_str a, cs_str b);

typedef struct {
  cs_collide_pair_fn test;
  void *user;
  unsigned budget;                        /* candidate pairs tested at most */
  double max_s;                           /* seconds at most (0: no limit) */
  const volatile sig_atomic_t *interrupt; /* NULL, or no candidate is tested once it reads nonzero */
} cs_collide_shrink_config;

/* Shrinks a colliding pair of NUL-terminated heap strings in place (each replaced by a smaller heap
 * string while the pair still collides): deletes characters, first one both inputs share at the
 * same position, then one of A's, then one of B's, each pass scanning down from the end. Only whole
 * UTF-8 characters are deleted, so when a and b are valid UTF-8 every candidate is too; an empty
 * candidate is never tested. *steps counts the deletions kept. Returns 0, or -1 when `test` did. */
int cs_collide_shrink(const cs_collide_shrink_config *cfg, char **a, char **b, unsigned *steps);

#endif
