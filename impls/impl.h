/* impls/impl.h: the implementation interface, one vtable for built-ins and external programs.
 * The harness sends batches of requests (so a subprocess can be pipelined) and gets one reply per
 * request. A fault of one request (crash, hang, garbage, wrong seq, error answer) is a reply status,
 * never a harness failure; only "cannot be run at all" is an error return. */
#ifndef CS_IMPLS_IMPL_H
#define CS_IMPLS_IMPL_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/arena.h"
#include "core/clock.h"
#include "core/error.h"
#include "core/history.h"
#include "providers/rule.h"

typedef enum { CS_OP_EMIT = 1u, CS_OP_CANONICALIZE = 2u, CS_OP_NORMALIZE = 4u } cs_op;
#define CS_OP_ALL (CS_OP_EMIT | CS_OP_CANONICALIZE | CS_OP_NORMALIZE)
const char *cs_op_name(cs_op op);

typedef struct {
  cs_op op;
  cs_target_id target;       /* emit, normalize */
  const cs_history *history; /* emit, canonicalize */
  const cs_str *ids;         /* normalize */
  uint32_t nids;
  /* Optional: the index of `history` (cs_history_index_build), which the harness builds anyway.
   * In-process implementations use it instead of building their own; NULL: build one. */
  const cs_history_index *index;
} cs_request;

typedef enum {
  CS_REPLY_OK,
  CS_REPLY_REJECTED, /* answered {"error":...}: every history sent is valid input */
  CS_REPLY_CRASH,    /* the process died */
  CS_REPLY_TIMEOUT,  /* no answer before the deadline */
  CS_REPLY_PROTOCOL, /* non-JSON line, wrong seq, wrong shape or length */
  /* Not a fault: still unanswered, within its deadline, when the caller's stop time came
   * (cs_impl.stop_at_ns). It says nothing about the implementation; the case is not judged. */
  CS_REPLY_CUT,
  /* Not a fault: not sent, because its request kind was given up (cs_impl.give_up_after). */
  CS_REPLY_SKIPPED,
} cs_reply_status;
const char *cs_reply_status_name(cs_reply_status s);

/* Request kinds: canonicalize, then emit to each target, then normalize for each target. A kind is
 * what one broken code path of an implementation tends to fail as a whole. */
#define CS_KIND_COUNT (1 + 2 * CS_TARGET_COUNT)
/* cs_impl.given_up with every kind given up. */
#define CS_KINDS_ALL ((1u << CS_KIND_COUNT) - 1u)
unsigned cs_request_kind(const cs_request *r);
/* "canonicalize", "emit anthropic", "normalize mistral" (as fault messages name requests). */
void cs_request_kind_name(unsigned kind, char *out, size_t n);

typedef struct {
  cs_reply_status status;
  cs_answer answer; /* emit, canonicalize: sized to the history's calls and results */
  cs_str *ids;      /* normalize: nids entries (null allowed: then normalize.regex fails) */
  uint32_t nids;
  cs_str message; /* not ok: one line, without the status word (callers name the status), with the
                   * tail of stderr when there is one */
  /* A fault or a skip the program's start caused, not this request: a restart failed at hello or
   * could not spawn (a fault), or restarts had failed too often to try again (skipped). No history
   * makes it happen, so a fault a request caused is not shrunk into one. */
  bool at_start;
} cs_reply;

typedef struct {
  const char *name;
  const char *version;
  unsigned ops;                    /* cs_op bits */
  unsigned emit_targets;           /* bit t: emit supports target t */
  unsigned normalize_targets;      /* bit t: normalize supports target t */
  bool claims_canonical_v1;        /* checked byte for byte against corpus/vectors */
  bool nondeterministic_by_design; /* documentation only: the design draws random values */
  /* What the first hello announced that callsign does not know and ignores (op "emitt", target
   * "antropic": a newer protocol, or a typo), as text; NULL or "" when nothing. */
  const char *unknown;
} cs_impl_info;

typedef struct cs_impl cs_impl;

typedef struct {
  /* Answers `n` requests; reply i (memory in `a`) answers request i. Returns 0, or -1 with `err`
   * when the implementation cannot be run at all (the harness then exits 3). */
  int (*exec)(cs_impl *self, const cs_request *reqs, cs_reply *replies, size_t n, cs_arena *a, cs_err *err);
  /* Restarts the implementation (fresh process or fresh state). */
  int (*restart)(cs_impl *self, cs_err *err);
  /* Bounded tail of the implementation's stderr (empty for built-ins). */
  cs_str (*stderr_tail)(cs_impl *self);
  /* Optional (NULL: nothing to end). Ends the implementation as a run's end does; 1 with `why`
   * ("exited with status 3", "wrote 40 bytes after its last answer, ...") when it ended otherwise
   * than PROTOCOL.md asks, else 0. A later exec starts it again. */
  int (*stop)(cs_impl *self, char *why, size_t n);
  void (*destroy)(cs_impl *self);
} cs_impl_vtable;

struct cs_impl {
  const cs_impl_vtable *vt;
  cs_impl_info info;
  /* Set by the caller: the cs_now_ns() time after which exec stops waiting and answers every
   * request still unanswered with CS_REPLY_CUT (a run under --time ends on time even when each
   * request would wait out its own deadline); a process start waiting for its hello answer is
   * ended then too, and the requests it was for are cut. 0: never. Built-ins answer at once and ignore it. */
  int64_t stop_at_ns;
  /* Set by the caller: the flag a stop signal sets (cs_catch_stop_signals). Once it is nonzero the
   * stop time has come, as at stop_at_ns: a Ctrl-C does not wait out a hanging request's deadline.
   * NULL: none. */
  const volatile sig_atomic_t *interrupt;
  /* Set by the caller: a request kind is given up once this many of its requests have faulted
   * (crash, timeout, protocol) while none of that kind was answered, and every kind once this many
   * requests have faulted while none at all was answered, or ten times this many in all with a
   * fault or more per ten answers. Requests of a given-up kind are not sent: exec answers them
   * CS_REPLY_SKIPPED at once. Each such fault costs a restart or a deadline, and a path that never
   * answers would otherwise cost them on every case. Faults are counted since the implementation
   * was opened. 0: nothing is given up (built-ins never fault). */
  unsigned give_up_after;
  uint32_t given_up; /* set by exec: bit k when kind k was given up */
  /* Set by the caller: once a request of an exec call faults or is answered with an error, the
   * rest of that call is not sent (CS_REPLY_SKIPPED). A shrinking try of protocol.answer needs
   * its first fault only. false: every request is sent. Built-ins never fault and ignore it. */
  bool first_fault_ends_exec;
};

/* Has the caller's stop time come? Then nothing more is started: no request, no process. */
static inline bool cs_impl_stop_came(const cs_impl *i) {
  return (i->interrupt && *i->interrupt) || (i->stop_at_ns && cs_now_ns() >= i->stop_at_ns);
}

/* What every implementation may use when it is created. */
typedef struct {
  cs_ruleset *rules; /* the run's target rules (the reference maps to them); not owned */
  uint64_t seed;     /* for built-ins whose design draws random values: a seed, not a replay */
} cs_impl_env;

static inline int cs_impl_exec(cs_impl *i, const cs_request *r, cs_reply *out, size_t n, cs_arena *a, cs_err *e) {
  return i->vt->exec(i, r, out, n, a, e);
}
static inline int cs_impl_stop(cs_impl *i, char *why, size_t n) {
  return i->vt->stop ? i->vt->stop(i, why, n) : 0;
}
static inline void cs_impl_destroy(cs_impl *i) {
  if (i)
    i->vt->destroy(i);
}

/* The registry of built-in implementations: one table, from which `callsign list`, `--impl` and the
 * README are derived. */
typedef struct {
  const char *name;
  const char *design; /* one line: the design it is faithful to */
  const char *breaks; /* documentation: what that design gives up (never used for judging) */
  cs_impl *(*create)(const cs_impl_env *env, cs_err *err);
} cs_builtin;

const cs_builtin *cs_builtins(size_t *count);
const cs_builtin *cs_builtin_find(const char *name);

/* Per-batch memo of an in-process implementation: the harness sends many requests over one history
 * in a batch (every target, repeats, transforms); the index of a history is built once per batch,
 * and its canonical answer is computed once for all of the batch's emits. Cleared at the start of
 * every exec, so it holds no state between batches (the harness may reuse the memory of a history
 * in the next batch). */
#define CS_INPROC_MEMO 16
typedef struct {
  const cs_history *h;
  cs_history_index ix;
  cs_answer canon;
  bool has_canon;
} cs_inproc_memo;

/* Helpers for built-ins that answer in-process (impls/inproc.c). */
typedef struct {
  cs_impl base;
  cs_ruleset *rules;
  cs_hasher *hasher;
  uint64_t seed, rng; /* random state for designs that use randomness */
  /* One answer function per op; NULL when unsupported. */
  cs_answer (*emit)(void *self, const cs_history *h, const cs_history_index *ix, cs_target_id t, cs_arena *a);
  cs_answer (*canonicalize)(void *self, const cs_history *h, const cs_history_index *ix, cs_arena *a);
  cs_str (*normalize)(void *self, cs_target_id t, cs_str id, cs_arena *a);
  cs_inproc_memo memo[CS_INPROC_MEMO];
  unsigned nmemo, memo_next;
} cs_inproc_impl;

/* Sets up `p` (vtable, hasher, rules); the answer functions are set by the caller afterwards. */
int cs_inproc_init(cs_inproc_impl *p, const cs_impl_env *env, cs_err *err);
extern const cs_impl_vtable cs_inproc_vtable;

/* The subprocess client for PROTOCOL.md (impls/subprocess.c). */
#define CS_MAX_DEADLINE_MS 3600000u  /* the longest per-request deadline the CLI accepts */
#define CS_DEFAULT_DEADLINE_MS 5000u /* the per-request deadline without one */
typedef struct {
  unsigned deadline_ms; /* per request; 0: CS_DEFAULT_DEADLINE_MS */
  size_t stderr_tail;   /* bytes kept; 0: 4096 */
  unsigned pipeline;    /* requests in flight; 0: 64 */
  size_t max_line;      /* longest answer line accepted; 0: 64 MiB */
} cs_subprocess_config;

/* Starts argv[0] (no shell) with argv, does the hello handshake. NULL with `err` when it cannot be
 * started or does not answer hello correctly. */
cs_impl *cs_subprocess_open(char *const argv[], const cs_subprocess_config *cfg, cs_err *err);
/* SIGKILLs the process group of every implementation this process started and has not reaped yet.
 * Async-signal-safe: for a handler of a fatal signal, so that no implementation outlives callsign
 * (each runs in a process group of its own, where a Ctrl-C does not reach it). */
void cs_subprocess_kill_all(void);

#endif
