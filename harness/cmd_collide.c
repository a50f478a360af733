/* harness/cmd_collide.c: `callsign collide`: searches for two different raw IDs that an
 * implementation maps to the same ID for one target (normalize, or emit on single-call histories
 * when it has no normalize). Inputs are a shared prefix plus a varying 11-character tail; the
 * prefix families force the hash path of typical schemes (long shared prefixes that a cut keeps,
 * illegal characters that sanitizing replaces). A short probe of each family estimates the output
 * space; harness/collide.c then runs a birthday or distinguished-point search on every core, each
 * worker with its own instance of the implementation (built-ins are called directly, external ones
 * through pipelined normalize requests). A collision found is shrunk when cheaply possible, printed,
 * and planted in the corpus as two literal histories, the two calls in one turn and in two turns
 * shaped like the search's (harness/cmd_collide.c planted()), which are then run against the
 * implementation to show whether its collision handling keeps the calls apart.
 * Exit status: 1 a collision was found, 0 none within the budget, 2 usage or output error (an
 * unwritable corpus), 3 cannot run, nothing usable answered, or the pair found not confirmed. */
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/alloc.h"
#include "core/clock.h"
#include "core/history_json.h"
#include "harness/cli.h"
#include "harness/collide.h"
#include "harness/corpus.h"
#include "harness/runner.h"
#include "harness/session.h"
#include "reports/escape.h"

#define PROBE_SAMPLES 2048
#define PROBE_SLICE 64      /* samples evaluated between two looks at the clock */
#define MAX_REQUEST_IDS 512 /* IDs per normalize request to an external implementation */
#define SHRINK_BUDGET 4000  /* evaluations spent on shrinking a found pair */
#define SHRINK_MAX_S 10.0   /* and seconds */
#define TAIL_LEN 11         /* base62 digits of a 64-bit state: 62^11 > 2^64, so tails are injective */
#define CONFIRM_TRIES 3     /* evaluations of the pair found, when the implementation faults on it */
#define CUT_GRACE_S 1.0     /* as in a run: answers in flight get this long past --time */
#define SHOWN_MAX 300       /* bytes of the implementation's text a message shows: two fit a cs_fail line */

typedef struct {
  const char *name;
  const char *prefix;
} input_family;

/* Probed in this order; the family whose outputs look smallest wins. */
static const input_family families[] = {
    {"long", "toolu_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx|"},
    {"illegal", "call|:"},
    {"long-plain", "call_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa_"},
    {"plain", "call_"},
    {"unicode", "\xe3\x83\x84\xe3\x83\xbc\xe3\x83\xab|"},
};
#define NFAMILIES (sizeof families / sizeof *families)

/* One worker's view of the implementation. */
typedef struct {
  cs_impl *impl;
  /* The worker's own rules: a ruleset's PCRE2 match data serves one thread at a time, and each
   * worker runs on a thread of its own. */
  cs_ruleset *rs;
  cs_inproc_impl *fast; /* a built-in's normalize, called directly */
  cs_target_id target;
  bool emit;            /* no normalize: emit on single-call histories */
  cs_provider provider; /* of those histories; never the target, so no native passthrough */
  const char *prefix;
  size_t plen;
  cs_arena arena;
  cs_str *inputs;
  bool *real; /* per output of the last evaluation: an answer (not null, not a fault's stand-in) */
  size_t cap;
  cs_request *reqs;
  cs_reply *replies;
  size_t capreq;
  /* Faults (crash, timeout, protocol, error answer): the process is restarted and the faulted
   * inputs are skipped, as a run goes on with the next case; only an implementation that never
   * answers stops the search. */
  uint64_t answered, faulted_batches;
  uint64_t faults; /* replies that faulted: crash, timeout, protocol, rejected */
  bool fault_told;
  char last_fault[400]; /* the last fault, as "normalize request got crash (...)" */
  /* Requests cut off by the stop time (cs_impl.stop_at_ns, --time and CUT_GRACE_S): not faults, and
   * their inputs are skipped; the first one's message names the request that was waiting. */
  uint64_t cut;
  char first_cut[300];
  const volatile sig_atomic_t *stop; /* cs_catch_stop_signals: a stop signal came */
} evaluator;

static void grow_inputs(evaluator *ev, size_t n) {
  if (n <= ev->cap)
    return;
  ev->cap = n;
  ev->inputs = cs_xrealloc_array(ev->inputs, n, sizeof *ev->inputs);
  ev->real = cs_xrealloc_array(ev->real, n, sizeof *ev->real);
  ev->reqs = cs_xrealloc_array(ev->reqs, n, sizeof *ev->reqs);
  ev->replies = cs_xrealloc_array(ev->replies, n, sizeof *ev->replies);
}

static cs_str input_of(evaluator *ev, uint64_t state) {
  static const char b62[] = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
  char *p = cs_arena_alloc(&ev->arena, ev->plen + TAIL_LEN + 1);
  memcpy(p, ev->prefix, ev->plen);
  for (size_t i = 0; i < TAIL_LEN; i++, state /= 62)
    p[ev->plen + i] = b62[state % 62];
  p[ev->plen + TAIL_LEN] = 0;
  return (cs_str){p, ev->plen + TAIL_LEN};
}

/* A single-call history carrying `id`, answered by one result. */
static cs_history *single_call(evaluator *ev, cs_str id) {
  cs_arena *a = &ev->arena;
  cs_history *h = cs_arena_alloc(a, sizeof *h);
  h->nturns = 2;
  h->turns = CS_ARENA_NEW(a, cs_turn, 2);
  h->turns[0] = (cs_turn){.role = CS_ROLE_ASSISTANT, .provider = ev->provider, .turn_key = cs_str_c("t0")};
  h->turns[0].calls = CS_ARENA_NEW(a, cs_call, 1);
  h->turns[0].calls[0] = (cs_call){.id = id, .name = cs_str_c("read_file"), .args = cs_str_c("{}")};
  h->turns[0].ncalls = 1;
  h->turns[1] = (cs_turn){.role = CS_ROLE_TOOL, .provider = CS_PROV_UNKNOWN, .turn_key = cs_str_c("t1")};
  h->turns[1].results = CS_ARENA_NEW(a, cs_result, 1);
  h->turns[1].results[0] = (cs_result){.call_id = id, .name = cs_str_c("read_file"), .content = cs_str_c("ok")};
  h->turns[1].nresults = 1;
  return h;
}

/* Output o of an evaluation: `out`, or for a null output (a null answer, a fault, a cut) a text no
 * real output has the same as, since a null cannot collide. ev->real[o] says which it was. */
static cs_str or_unique(evaluator *ev, size_t o, cs_str out, cs_str in) {
  ev->real[o] = out.ptr != NULL;
  if (out.ptr)
    return out;
  return cs_arena_printf(&ev->arena, "\x01(null for %.*s)", (int)in.len, in.ptr);
}

/* Evaluates explicit inputs (in the arena or elsewhere); outputs in the arena. */
static int eval_inputs(evaluator *ev, const cs_str *in, size_t n, cs_str *outs, cs_err *err) {
  if (ev->fast) {
    for (size_t i = 0; i < n; i++)
      outs[i] = or_unique(ev, i, ev->fast->normalize(ev->fast, ev->target, in[i], &ev->arena), in[i]);
    ev->answered += n;
    return 0;
  }
  size_t nreq = 0;
  if (ev->emit) {
    for (size_t i = 0; i < n; i++)
      ev->reqs[nreq++] = (cs_request){.op = CS_OP_EMIT, .target = ev->target, .history = single_call(ev, in[i])};
  } else {
    for (size_t i = 0; i < n; i += MAX_REQUEST_IDS)
      ev->reqs[nreq++] = (cs_request){.op = CS_OP_NORMALIZE,
                                      .target = ev->target,
                                      .ids = in + i,
                                      .nids = (uint32_t)(n - i < MAX_REQUEST_IDS ? n - i : MAX_REQUEST_IDS)};
  }
  memset(ev->replies, 0, nreq * sizeof *ev->replies);
  if (cs_impl_exec(ev->impl, ev->reqs, ev->replies, nreq, &ev->arena, err))
    return -1;
  size_t o = 0;
  bool any_fault = false;
  for (size_t r = 0; r < nreq; r++) {
    const cs_reply *rp = &ev->replies[r];
    int ml = (int)(rp->message.len < 300 ? rp->message.len : 300);
    const char *msg = rp->message.ptr ? rp->message.ptr : "";
    size_t k = ev->emit ? 1 : rp->nids ? rp->nids : ev->reqs[r].nids; /* the inputs it was for */
    if (rp->status == CS_REPLY_CUT || rp->status == CS_REPLY_SKIPPED) {
      /* Not a fault: still in flight when the time ran out. Its inputs are skipped. */
      if (rp->status == CS_REPLY_CUT && !ev->cut++)
        snprintf(ev->first_cut, sizeof ev->first_cut, "%.*s", ml, msg);
      for (size_t j = 0; j < k; j++, o++)
        outs[o] = or_unique(ev, o, CS_NULL_STR, in[o]);
      continue;
    }
    if (rp->status != CS_REPLY_OK) {
      const char *op = cs_op_name(ev->reqs[r].op), *st = cs_reply_status_name(rp->status);
      snprintf(ev->last_fault, sizeof ev->last_fault, "%s request got %s (%.*s)", op, st, ml, msg);
      ev->faults++;
      if (!any_fault && !ev->fault_told) { /* once per worker: the search goes on */
        cs_buf b = {0};
        fprintf(stderr, "callsign: collide: %s %s; its inputs are skipped\n", ev->reqs[r].op == CS_OP_EMIT ? "an" : "a",
                cs_shown(&b, ev->last_fault, sizeof ev->last_fault));
        cs_buf_free(&b);
      }
      ev->fault_told = true;
      if (!any_fault && ev->answered == 0 && ++ev->faulted_batches >= 3)
        return cs_err_set(err, "no %s request answered in three batches (%s: %.*s)", op, st, ml, msg);
      any_fault = true;
      for (size_t j = 0; j < k; j++, o++)
        outs[o] = or_unique(ev, o, CS_NULL_STR, in[o]);
      continue;
    }
    ev->answered++;
    if (ev->emit) {
      cs_str out = rp->answer.ncalls == 1 ? rp->answer.calls[0] : CS_NULL_STR;
      outs[o] = or_unique(ev, o, out, in[o]);
      o++;
    } else {
      for (uint32_t j = 0; j < rp->nids; j++, o++)
        outs[o] = or_unique(ev, o, rp->ids[j], in[o]);
    }
  }
  return 0;
}

/* The search's evaluator (cs_collide_eval_fn); real NULL: ev->real alone says which were answers. */
static int eval_states(void *self, const uint64_t *states, size_t n, cs_str *outs, bool *real, cs_err *err) {
  evaluator *ev = self;
  cs_arena_reset(&ev->arena);
  grow_inputs(ev, n);
  for (size_t i = 0; i < n; i++)
    ev->inputs[i] = input_of(ev, states[i]);
  if (eval_inputs(ev, ev->inputs, n, outs, err))
    return -1;
  if (real)
    memcpy(real, ev->real, n * sizeof *real);
  return 0;
}

static void set_family(evaluator *ev, const input_family *f) {
  ev->prefix = f->prefix;
  ev->plen = strlen(f->prefix);
}

/* --- probing ------------------------------------------------------------------------------------ */

typedef struct {
  uint64_t fp, state;
} sample;

static int by_fp(const void *x, const void *y) {
  const sample *a = x, *b = y;
  return a->fp < b->fp ? -1 : a->fp > b->fp;
}

/* What the probe of one family saw. */
typedef struct {
  double bits;        /* estimated output entropy of the usable samples */
  uint64_t evaluated; /* samples evaluated */
  size_t usable;      /* of them, answered with an ID (not null, not faulted, not cut) */
  double share;       /* usable / evaluated, of this family alone */
  bool found;         /* two samples collided: a and b */
  uint64_t a, b;
} probe_result;

/* Estimates the output space of one family from the samples answered with an ID: a null answer, a
 * fault or a cut says nothing of the space (their stand-ins are unique texts, which would read as
 * many bits). A collision among the samples themselves is reported too. Evaluated in slices of
 * PROBE_SLICE, so a time limit (stop_at > 0, cs_now_s()) is checked between them: through emit each
 * sample is a request of its own. A probe cut short estimates from the samples it has. Returns 0,
 * or -1 with err. */
static int probe(evaluator *ev, uint64_t seed, double stop_at, probe_result *pr, cs_err *err) {
  uint64_t *states = malloc(PROBE_SAMPLES * sizeof *states);
  cs_str *outs = malloc(PROBE_SAMPLES * sizeof *outs);
  sample *s = malloc(PROBE_SAMPLES * sizeof *s);
  cs_arena kept = {0}; /* the usable outputs, copied: each evaluation reuses the evaluator's arena */
  int rc = -1;
  size_t n = 0, u = 0;
  memset(pr, 0, sizeof *pr);
  if (!states || !outs || !s) {
    cs_err_set(err, "collide: out of memory");
    goto cleanup;
  }
  for (size_t i = 0; i < PROBE_SAMPLES; i++)
    states[i] = cs_seed_mix(seed + i);
  while (n < PROBE_SAMPLES && (n == 0 || ((stop_at <= 0 || cs_now_s() < stop_at) && !*ev->stop))) {
    size_t m = PROBE_SAMPLES - n < PROBE_SLICE ? PROBE_SAMPLES - n : PROBE_SLICE;
    size_t base = u; /* the slice's outputs land at outs[base..), the usable ones are moved down */
    if (eval_states(ev, states + n, m, outs + base, NULL, err))
      goto cleanup;
    for (size_t i = 0; i < m; i++)
      if (ev->real[i]) {
        outs[u] = cs_arena_str(&kept, outs[base + i]);
        s[u] = (sample){cs_collide_fingerprint(outs[u]), states[n + i]};
        u++;
      }
    n += m;
  }
  pr->evaluated = n;
  pr->usable = u;
  pr->share = n ? (double)u / (double)n : 0;
  pr->bits = cs_collide_entropy(outs, u);
  qsort(s, u, sizeof *s, by_fp);
  for (size_t i = 1; i < u && !pr->found; i++)
    if (s[i].fp == s[i - 1].fp && s[i].state != s[i - 1].state) {
      pr->found = true;
      pr->a = s[i - 1].state;
      pr->b = s[i].state;
    }
  rc = 0;
cleanup:
  cs_arena_free(&kept);
  free(states);
  free(outs);
  free(s);
  return rc;
}

/* Probes the family `given`, or (NULL) each in turn until one shows a collision or the probe's time
 * is up, and chooses the one whose usable outputs look smallest. A family with fewer than two
 * samples answered with an ID is not chosen (its estimate would say nothing): *chosen is NULL when
 * none had them. *pr is the chosen family's probe (evaluated: over all families probed), *usable
 * the usable samples over all of them. Returns 0, or -1 with err. */
static int probe_families(evaluator *ev, const input_family *given, uint64_t seed, double stop_at,
                          const input_family **chosen, probe_result *pr, size_t *usable, cs_err *err) {
  uint64_t evaluated = 0;
  *chosen = NULL;
  *usable = 0;
  memset(pr, 0, sizeof *pr);
  for (size_t i = 0; i < NFAMILIES && !pr->found; i++) {
    const input_family *f = given ? given : &families[i];
    if (given && i)
      break;
    if (i && ((stop_at > 0 && cs_now_s() >= stop_at) || *ev->stop))
      break;
    probe_result r;
    set_family(ev, f);
    if (probe(ev, seed, stop_at, &r, err))
      return -1;
    evaluated += r.evaluated;
    *usable += r.usable;
    if (r.found || (r.usable >= 2 && (!*chosen || r.bits < pr->bits))) {
      *pr = r;
      *chosen = f;
    }
  }
  pr->evaluated = evaluated;
  return 0;
}

/* --- shrinking, printing, planting -------------------------------------------------------------- */

/* What evaluating a pair again says. */
enum { PAIR_DIFFERENT = 0, PAIR_COLLIDES = 1, PAIR_NOT_ANSWERED = 2 };

/* PAIR_COLLIDES when a and b are different inputs with the same output (which goes to *out, heap),
 * PAIR_DIFFERENT when not, PAIR_NOT_ANSWERED when a request for them faulted or was cut off
 * (ev->last_fault, ev->first_cut say how), -1 on error. */
static int collides(evaluator *ev, cs_str a, cs_str b, char **out, cs_err *err) {
  if (a.len == b.len && memcmp(a.ptr, b.ptr, a.len) == 0)
    return PAIR_DIFFERENT;
  cs_arena_reset(&ev->arena);
  cs_str in[2] = {a, b}, o[2];
  grow_inputs(ev, 2);
  uint64_t unanswered = ev->faults + ev->cut;
  if (eval_inputs(ev, in, 2, o, err))
    return -1;
  if (ev->faults + ev->cut != unanswered)
    return PAIR_NOT_ANSWERED;
  if (o[0].len != o[1].len || memcmp(o[0].ptr, o[1].ptr, o[0].len) != 0)
    return PAIR_DIFFERENT;
  if (out) {
    free(*out);
    *out = cs_xstrndup(o[0].ptr, o[0].len);
  }
  return PAIR_COLLIDES;
}

/* Evaluates the pair found again, each time in a restarted implementation: a collision that only
 * one process makes (a salt drawn at start, state built up over the search) would be planted as a
 * case that never fails again. A fault there (a crash, a hang, garbage) says nothing of the
 * collision, so it is asked again, up to CONFIRM_TRIES times. Returns as collides();
 * PAIR_NOT_ANSWERED when every try faulted. */
static int confirm_pair(evaluator *ev, const char *a, const char *b, char **out, cs_err *err) {
  int rc = PAIR_NOT_ANSWERED;
  for (int t = 0; t < CONFIRM_TRIES && rc == PAIR_NOT_ANSWERED; t++) {
    if (ev->impl->vt->restart(ev->impl, err))
      return -1;
    rc = collides(ev, cs_str_c(a), cs_str_c(b), out, err);
  }
  return rc;
}

/* What cs_collide_shrink asks of the evaluator: does a candidate pair still collide? */
typedef struct {
  evaluator *ev;
  char **out;
  cs_err *err;
} shrink_ctx;

static int shrink_test(void *user, cs_str a, cs_str b) {
  shrink_ctx *c = user;
  int rc = collides(c->ev, a, b, c->out, c->err);
  return rc == PAIR_NOT_ANSWERED ? 0 : rc; /* a candidate that was not answered is not kept */
}

/* Shrinks the found pair (harness/collide.h cs_collide_shrink): structural collisions shrink, hash
 * collisions do not; SHRINK_BUDGET and SHRINK_MAX_S keep a slow implementation from spending long
 * on it. */
static int shrink_pair(evaluator *ev, char **a, char **b, char **out, unsigned *steps, cs_err *err) {
  shrink_ctx c = {ev, out, err};
  cs_collide_shrink_config cfg = {
      .test = shrink_test, .user = &c, .budget = SHRINK_BUDGET, .max_s = SHRINK_MAX_S, .interrupt = ev->stop};
  /* A candidate still unanswered when the shrinking's time is up is cut: no collision. */
  ev->impl->stop_at_ns = cs_now_ns() + (int64_t)(SHRINK_MAX_S * 1e9);
  int rc = cs_collide_shrink(&cfg, a, b, steps);
  ev->impl->stop_at_ns = 0;
  return rc;
}

/* An ID as a JSON string with every hidden character escaped: whatever the implementation
 * answered, nothing reaches the terminal raw. */
static void print_json_str(FILE *f, const char *s) {
  cs_buf b = {0};
  cs_esc_json_visible(&b, s, strlen(s));
  fputs(b.data, f);
  cs_buf_free(&b);
}

/* In both planted shapes call 1 collided with call 0. */
static const cs_literal_twin PLANTED_PAIR = {true, 0, 1};

/* The planted cases, built like the search's single-call histories (single_call(): the assistant
 * turn first, key "t0", the provider, answered by tool turn "t1"), so an implementation that derives
 * IDs from more than the raw ID (the turn's index or key) meets the pair where the search did.
 * `two_turns` false: one assistant turn at index 0 with the two calls (B at call 1, not 0).
 * `two_turns` true: each call at call 0 of an assistant turn "t0" of its own (B's turn at index 2). */
static cs_history planted(const char *a, const char *b, cs_provider provider, bool two_turns, cs_arena *ar) {
  cs_history h = {0};
  h.nturns = two_turns ? 4 : 2;
  h.turns = CS_ARENA_NEW(ar, cs_turn, h.nturns);
  const char *ids[2] = {a, b}, *paths[2] = {"{\"path\":\"a.c\"}", "{\"path\":\"b.c\"}"};
  for (int i = 0; i < 2; i++) {
    cs_turn *as = &h.turns[two_turns ? 2 * i : 0], *tool = &h.turns[two_turns ? 1 + 2 * i : 1];
    if (i == 0 || two_turns) {
      *as = (cs_turn){.role = CS_ROLE_ASSISTANT, .provider = provider, .turn_key = cs_str_c("t0")};
      *tool = (cs_turn){.role = CS_ROLE_TOOL, .provider = CS_PROV_UNKNOWN, .turn_key = cs_str_c("t1")};
      as->calls = CS_ARENA_NEW(ar, cs_call, 2);
      tool->results = CS_ARENA_NEW(ar, cs_result, 2);
    }
    cs_str id = cs_arena_strc(ar, ids[i]);
    as->calls[as->ncalls++] = (cs_call){.id = id, .name = cs_str_c("read_file"), .args = cs_str_c(paths[i])};
    tool->results[tool->nresults++] =
        (cs_result){.call_id = id, .name = cs_str_c("read_file"), .content = cs_str_c(i ? "b" : "a")};
  }
  return h;
}

/* The verdict of a run on a planted case: 1 the property failed, 0 it held, -1 not judged (a fault
 * of the implementation on the case, which `why` then names, or no answer checked at all). */
static int planted_verdict(const cs_run_result *res, const char *property, int target, const char **why) {
  *why = "no answer was checked";
  int verdict = -1;
  for (size_t i = 0; i < res->ncells; i++) {
    const cs_outcome *oc = &res->cells[i];
    if (!strcmp(oc->prop->name, CS_PROPERTY_ANSWER) && oc->failed) {
      *why = oc->message;
      return -1; /* a fault on the case: the property's own cell saw no answer to judge */
    }
    if (strcmp(oc->prop->name, property) != 0 || oc->target != target || !oc->applicable)
      continue;
    if (oc->failed) {
      *why = oc->message;
      verdict = 1;
    } else if (oc->cases > 0) {
      verdict = 0;
    }
  }
  return verdict;
}

/* What a planted case that holds shows: the two calls got different IDs there, which alone they did
 * not; whether by collision handling or by IDs drawn from more than the raw ID, it cannot tell. */
static const char *held_why(const evaluator *ev, const char *property) {
  if (strcmp(property, "emit.unique") != 0)
    return "normalize gave the two IDs different outputs in this run";
  return ev->emit ? "the two calls get different wire IDs in this history, though alone each got the same one "
                    "(resolved, or the ID depends on more than the raw ID)"
                  : "the two calls get different wire IDs in this history, though normalize maps both to one";
}

/* Runs a planted case against the implementation: does its collision handling keep the calls
 * apart? Prints the verdict; returns 1 if the property fails, 0 if it holds, -1 if it was not judged
 * (could not run, or the implementation faulted on the case). */
static int check_planted(evaluator *ev, cs_ruleset *rs, const cs_history *h, const char *property, const char *shape) {
  const cs_history *lit[1] = {h};
  const char *only[1] = {property};
  cs_run_config rc = {.targets = 1u << ev->target,
                      .only = only,
                      .nonly = 1,
                      .literal = lit,
                      .literal_twins = &PLANTED_PAIR,
                      .nliteral = 1,
                      .corpus_only = true};
  cs_run_result res;
  cs_err err = {{0}};
  cs_buf b = {0};
  const char *target = cs_target_label((int)ev->target);
  if (cs_run_impl(ev->impl, rs, &rc, &res, &err)) {
    printf("run on the planted pair (%s): %s on %s not judged: the case could not be run: %s\n", shape, property,
           target, cs_shown(&b, err.msg, SHOWN_MAX));
    cs_buf_free(&b);
    cs_run_result_free(&res);
    return -1;
  }
  const char *why;
  int verdict = planted_verdict(&res, property, (int)ev->target, &why);
  if (verdict == 0) {
    printf("run on the planted pair (%s): %s on %s holds: %s\n", shape, property, target, held_why(ev, property));
  } else {
    printf("run on the planted pair (%s): %s on %s %s: %s\n", shape, property, target,
           verdict == 1 ? "FAILS" : "not judged", cs_shown(&b, why, SHOWN_MAX));
  }
  cs_buf_free(&b);
  cs_run_result_free(&res);
  return verdict;
}

/* Exit 3 for an implementation that answered no request at all: names the request that was
 * waiting when the time ran out, as `run` does, or the last fault. */
static int never_answered(const char *name, const evaluator *ev, double time_s) {
  if (ev->cut)
    return cs_fail(CS_EXIT_IMPL,
                   "collide: %s: no request got its answer within --time %gs and %gs more for answers in flight (%s)",
                   name, time_s, CUT_GRACE_S, ev->first_cut);
  cs_buf b = {0};
  int st = cs_fail(CS_EXIT_IMPL, "collide: %s: no request answered (the last: %s)", name,
                   ev->last_fault[0] ? cs_shown(&b, ev->last_fault, SHOWN_MAX) : "none was sent");
  cs_buf_free(&b);
  return st;
}

/* A duration for a person: seconds, minutes, hours, days or years. */
static void describe_duration(char *out, size_t cap, double s) {
  if (s < 120)
    snprintf(out, cap, "%.0f s", s);
  else if (s < 7200)
    snprintf(out, cap, "%.0f minutes", s / 60);
  else if (s < 2 * 86400)
    snprintf(out, cap, "%.0f hours", s / 3600);
  else if (s < 2 * 365.25 * 86400)
    snprintf(out, cap, "%.0f days", s / 86400);
  else
    snprintf(out, cap, "%.3g years", s / (365.25 * 86400));
}

/* A one-line note before the search when the expected work is far beyond what the rate allows:
 * more than ten times --time or --budget, or without either (the search then runs until a
 * collision or a signal) more than a day. rate: evaluations a second over all workers, 0 unknown. */
static void note_expected_work(const cs_options *o, double expected, double rate) {
  if (expected <= 0 || rate <= 0)
    return;
  double need_s = expected / rate;
  char r[32], took[48];
  cs_collide_amount(r, sizeof r, rate);
  describe_duration(took, sizeof took, need_s);
  if (o->time_s > 0 && need_s > 10 * o->time_s)
    printf("collide: note: at about %s evaluations/s the %.3g a collision needs take about %s: --time %gs will most "
           "likely end without one\n",
           r, expected, took, o->time_s);
  else if (o->time_s <= 0 && o->budget && expected > 10 * (double)o->budget)
    printf("collide: note: a collision needs about %.3g evaluations: --budget %llu will most likely end without one\n",
           expected, (unsigned long long)o->budget);
  else if (o->time_s <= 0 && !o->budget && need_s > 86400)
    printf("collide: note: at about %s evaluations/s the %.3g a collision needs take about %s; without --time or "
           "--budget the search runs until a collision or a signal (SIGINT or SIGTERM sums it up)\n",
           r, expected, took);
}

/* The most distinguished-point bits a search of outputs of `bits` bits can use (bits 0, unknown:
 * any): fewer than half. A walk runs about 2^dp_bits steps to a point, and one through a random map
 * on 2^bits outputs falls into a cycle after about 2^(bits/2): from half the bits on, many walks
 * circle without reaching a point (from all of them there may be none), and the search costs many
 * times the work a collision needs, or never stores a point. */
static unsigned max_dp_bits(double bits) {
  if (bits <= 0)
    return UINT32_MAX;
  double half = ceil(bits / 2) - 1;
  return half < 0 ? 0 : (unsigned)half;
}

/* Exit 2 for a --dp-bits the output space cannot serve: one line naming what it can. */
static int dp_bits_refused(unsigned dp_bits, double bits) {
  unsigned most = max_dp_bits(bits);
  char fix[48];
  if (most)
    snprintf(fix, sizeof fix, "give at most %u", most);
  else
    snprintf(fix, sizeof fix, "leave --dp-bits out");
  return cs_fail(CS_EXIT_USAGE,
                 "collide: --dp-bits %u is too many for outputs of about %.1f bits: a walk to a distinguished point "
                 "(about 2^%u steps) is no shorter than the 2^%.1f evaluations a collision needs, so walks circle "
                 "without reaching one and the search costs far more, or stores none; %s",
                 dp_bits, bits, dp_bits, bits / 2, fix);
}

/* --- the command -------------------------------------------------------------------------------- */

typedef struct {
  bool on;
  double expected;
} progress_state;

static void show_progress(void *user, uint64_t evals, uint64_t stored, double elapsed, const char *mode) {
  progress_state *p = user;
  char done[32], rate[32], kept[32];
  cs_collide_amount(done, sizeof done, (double)evals);
  cs_collide_amount(rate, sizeof rate, elapsed > 0 ? (double)evals / elapsed : 0.0);
  cs_collide_amount(kept, sizeof kept, (double)stored);
  fprintf(stderr, "\r\033[K  collide: %s evaluations (%s/s), %s stored, %s, %.0f s", done, rate, kept, mode, elapsed);
  if (p->expected > 0)
    fprintf(stderr, ", ~%.0f%% of the expected work", 100.0 * (double)evals / p->expected);
}

static cs_provider other_provider(cs_target_id t) {
  return t == CS_PROV_OPENAI_CHAT ? CS_PROV_ANTHROPIC : CS_PROV_OPENAI_CHAT;
}

static void close_evaluators(evaluator *evs, unsigned n) {
  for (unsigned i = 0; i < n; i++) {
    cs_impl_destroy(evs[i].impl);
    cs_ruleset_free(evs[i].rs);
    cs_arena_free(&evs[i].arena);
    free(evs[i].inputs);
    free(evs[i].real);
    free(evs[i].reqs);
    free(evs[i].replies);
  }
}

int cs_cmd_collide(int argc, char **argv) {
  cs_options o;
  cs_err err = {{0}};
  /* A search often ends by Ctrl-C or a CI timeout: each line is out when printed, even into a pipe. */
  setvbuf(stdout, NULL, _IOLBF, 0);
  if (cs_options_parse(&o, argc, argv, 2, CS_CMD_COLLIDE, &err))
    return cs_fail(CS_EXIT_USAGE, "%s", err.msg);
  /* A stop signal ends the search as its time would: what was searched is summed up. */
  const volatile sig_atomic_t *stop = cs_catch_stop_signals();
  if (o.npositional)
    return cs_fail(CS_EXIT_USAGE, "collide: unexpected argument '%s'", o.positional[0]);
  if ((o.impl_cmd != NULL) == (o.nimpls == 1) || o.nimpls > 1)
    return cs_fail(CS_EXIT_USAGE, "collide: give one --impl NAME or --impl-cmd -- ARGV...");
  if (o.nimpls && !cs_builtin_find(o.impls[0]))
    return cs_fail(CS_EXIT_USAGE, "unknown implementation '%s' (see callsign list)", o.impls[0]);
  if (!o.targets || (o.targets & (o.targets - 1)))
    return cs_fail(CS_EXIT_USAGE, "collide: give exactly one --target");
  const input_family *family = NULL;
  if (o.inputs && strcmp(o.inputs, "auto") != 0) {
    for (size_t i = 0; i < NFAMILIES; i++)
      if (!strcmp(families[i].name, o.inputs))
        family = &families[i];
    if (!family)
      return cs_fail(CS_EXIT_USAGE, "--inputs: unknown family '%s' (auto, long, illegal, long-plain, plain, unicode)",
                     o.inputs);
  }
  cs_target_id target = 0;
  while (!(o.targets >> target & 1u))
    target++;
  long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  unsigned jobs = o.jobs ? o.jobs : cpus > 0 ? (unsigned)cpus : 1;
  if (jobs > CS_MAX_JOBS) /* the default, one per core: --jobs itself is at most CS_MAX_JOBS */
    jobs = CS_MAX_JOBS;
  cs_ruleset *rs = cs_cli_ruleset(&o, &err);
  if (!rs)
    return cs_fail(CS_EXIT_USAGE, "%s", err.msg);

  int status = CS_EXIT_IMPL;
  evaluator *evs = cs_xcalloc(jobs, sizeof *evs);
  void **evp = cs_xcalloc(jobs, sizeof *evp);
  unsigned opened = 0;
  char *a = NULL, *b = NULL, *out = NULL;
  cs_buf nameb = {0}, msgb = {0}; /* the name and a message as shown on the terminal */
  int saved = 0;
  const char *name = o.nimpls ? o.impls[0] : NULL;
  for (; opened < jobs; opened++) {
    evaluator *ev = &evs[opened];
    ev->stop = stop;
    ev->rs = cs_cli_ruleset(&o, &err);
    ev->impl = ev->rs ? cs_session_open(&o, ev->rs, name, &err) : NULL;
    if (!ev->impl) {
      cs_ruleset_free(ev->rs); /* close_evaluators ends at the ones opened */
      cs_fail(CS_EXIT_IMPL, "%s", cs_shown(&msgb, err.msg, SHOWN_MAX));
      goto cleanup;
    }
    const cs_impl_info *info = &ev->impl->info;
    ev->target = target;
    ev->provider = other_provider(target);
    bool norm = (info->ops & CS_OP_NORMALIZE) && (info->normalize_targets >> target & 1u);
    bool emit = (info->ops & CS_OP_EMIT) && (info->emit_targets >> target & 1u);
    const char *missing = o.via && !strcmp(o.via, "normalize") && !norm ? "normalize"
                          : o.via && !strcmp(o.via, "emit") && !emit    ? "emit"
                          : !norm && !emit                              ? "neither normalize nor emit"
                                                                        : NULL;
    if (missing) {
      cs_fail(CS_EXIT_USAGE, "collide: %s has %s%s for target %s", cs_shown(&nameb, info->name, SHOWN_MAX),
              strchr(missing, ' ') ? "" : "no ", missing, cs_target_label((int)target));
      status = CS_EXIT_USAGE;
      opened++;
      goto cleanup;
    }
    ev->emit = o.via ? !strcmp(o.via, "emit") : !norm;
    if (ev->emit && cs_ruleset_rule(ev->rs, target)->global_index) {
      /* Every single-call history would "collide": the wire ID there is the position's. */
      cs_fail(CS_EXIT_USAGE,
              "collide: %s IDs are named by the call's position (functions.NAME:INDEX), not by its raw ID: emit "
              "gives every single-call history the same one, so only a normalize for %s can be searched",
              cs_target_label((int)target), cs_target_label((int)target));
      status = CS_EXIT_USAGE;
      opened++;
      goto cleanup;
    }
    norm = !ev->emit;
    if (norm && ev->impl->vt == &cs_inproc_vtable && ((cs_inproc_impl *)ev->impl)->normalize)
      ev->fast = (cs_inproc_impl *)ev->impl;
    evp[opened] = ev;
  }
  const char *impl_name = evs[0].impl->info.name ? evs[0].impl->info.name : "external";
  const char *shown_name =
      cs_shown(&nameb, impl_name, SHOWN_MAX); /* the corpus makes its own directory name of impl_name */
  const char *op = evs[0].emit ? "emit" : "normalize";
  uint64_t seed = o.seed_set ? o.seed : 1;
  const char *corpus_dir = o.corpus_dir ? o.corpus_dir : "corpus/regressions";
  if (!o.no_corpus && cs_corpus_writable(corpus_dir, impl_name, &err)) {
    status = cs_fail(CS_EXIT_USAGE, "collide: the corpus: %s (--no-corpus plants nothing)",
                     cs_shown(&msgb, err.msg, SHOWN_MAX));
    goto cleanup;
  }

  /* Probe the input families: the smallest-looking output space is the one to search. Under
   * --time the probe counts: it stops after a quarter of it (the search gets the rest). */
  double t0 = cs_now_s(), probe_stop = o.time_s > 0 ? t0 + o.time_s / 4 : 0;
  /* Under --time a request still unanswered a second after it is cut off, as in a run: an
   * implementation that hangs cannot hold the search to its --deadline. */
  for (unsigned i = 0; i < opened; i++) {
    if (o.time_s > 0)
      evs[i].impl->stop_at_ns = cs_now_ns() + (int64_t)((o.time_s + CUT_GRACE_S) * 1e9);
    evs[i].impl->interrupt = stop; /* a stop signal cuts a hanging request too */
  }
  double bits = 0;
  bool found = false;
  uint64_t sa = 0, sb = 0, evals = 0;
  const char *mode = "probe";
  double seconds = 0, expected = 0;
  probe_result pr;
  size_t usable = 0;
  if (probe_families(&evs[0], family, seed, probe_stop, &family, &pr, &usable, &err)) {
    cs_fail(CS_EXIT_IMPL, "collide: %s: %s", shown_name, cs_shown(&msgb, err.msg, SHOWN_MAX));
    goto cleanup;
  }
  double probe_rate = cs_now_s() > t0 ? (double)pr.evaluated / (cs_now_s() - t0) : 0; /* one worker's */
  found = pr.found;
  sa = pr.a;
  sb = pr.b;
  bits = pr.bits;
  evals = pr.evaluated;
  /* Only answers with an ID can collide: a search needs 1 / share evaluations for each. */
  double share = pr.share > 0 ? pr.share : 1;
  if (!found && evs[0].answered == 0 && *stop) { /* as fuzz: no fault of the implementation's is known */
    status =
        cs_fail(CS_EXIT_USAGE, "collide: %s: interrupted by %s before any request was answered: nothing was searched",
                shown_name, *stop == SIGINT ? "SIGINT" : "SIGTERM");
    goto cleanup;
  }
  if (!found && evs[0].answered == 0) {
    status = never_answered(shown_name, &evs[0], o.time_s);
    goto cleanup;
  }
  if (!family) { /* nothing to estimate the space from, nor to search */
    status = cs_fail(CS_EXIT_IMPL,
                     "collide: %s answered %zu of %llu probe inputs with an ID (the rest null, faulted or cut off): "
                     "too few to search",
                     shown_name, usable, (unsigned long long)evals);
    goto cleanup;
  }
  if (!found && o.dp_bits > max_dp_bits(bits)) {
    status = dp_bits_refused(o.dp_bits, bits);
    goto cleanup;
  }
  for (unsigned i = 0; i < opened; i++)
    set_family(&evs[i], family);
  if (!o.quiet)
    printf("collide: %s %s of %s, inputs '%s' (%s + %d varying characters): outputs look like %.1f bits\n", op,
           cs_target_label((int)target), shown_name, family->name, family->prefix, TAIL_LEN, bits);
  double left = o.time_s > 0 ? o.time_s - (cs_now_s() - t0) : 0;
  if (!found && o.time_s > 0 && left <= 0 && !o.quiet)
    printf("collide: the time limit ran out in the probe\n");
  if (!found && !*stop && (o.time_s <= 0 || left > 0)) {
    progress_state ps = {!o.quiet && isatty(2), 0};
    cs_collide_config cfg = {
        .eval = eval_states,
        .evaluators = evp,
        .nworkers = opened,
        .memory = (size_t)o.memory,
        .space_bits = bits,
        .budget = o.budget,
        .time_s = left,
        .seed = seed,
        .batch = evs[0].fast ? 4096 : 8192,
        .dp_bits = (int)o.dp_bits,
        .force_dp = o.dp_bits > 0,
        .progress = ps.on ? show_progress : NULL,
        .progress_user = &ps,
        .interrupt = stop,
    };
    cs_collide_result r;
    if (bits > 0) {
      ps.expected = 1.2533 * pow(2.0, bits / 2) / share;
      if (!o.quiet) {
        printf("collide: a collision needs about 2^%.1f evaluations if the outputs behave as a hash of the input",
               bits / 2 - log2(share));
        if (share < 1)
          printf(" (%.3g%% of the probe's inputs were answered with an ID)", 100 * share);
        printf("; %u worker%s\n", opened, opened == 1 ? "" : "s");
        note_expected_work(&o, ps.expected, probe_rate * opened);
      }
    }
    int src = cs_collide_search(&cfg, &r, &err);
    if (ps.on)
      fputs("\r\033[K", stderr);
    if (src == CS_COLLIDE_NO_MEMORY) { /* the machine's fault, not the implementation's */
      status = cs_fail(CS_EXIT_USAGE, "%s", err.msg);
      goto cleanup;
    }
    if (src) {
      cs_fail(CS_EXIT_IMPL, "collide: %s: %s", shown_name, cs_shown(&msgb, err.msg, SHOWN_MAX));
      goto cleanup;
    }
    found = r.found;
    sa = r.a;
    sb = r.b;
    evals += r.evals;
    mode = r.mode;
    seconds = r.seconds;
    expected = r.expected / share; /* r.expected counts outputs answered with an ID */
    if (!o.quiet) {
      char rate[32];
      cs_collide_amount(rate, sizeof rate, r.seconds > 0 ? (double)r.evals / r.seconds : 0.0);
      printf("collide: %llu evaluations in %.1f s (%s/s), %s", (unsigned long long)r.evals, r.seconds, rate, mode);
      if (r.dp_bits)
        printf(" (%d bits)", r.dp_bits);
      printf(", %llu stored", (unsigned long long)r.stored);
      if (r.unreal) /* a walk's endpoint may be one: only a birthday table never stores them */
        printf("; %llu null, faulted or cut off%s", (unsigned long long)r.unreal, r.dp_bits ? "" : " (not stored)");
      printf("\n");
    }
  }
  if (!found) {
    printf("collide: no collision found in %llu evaluations", (unsigned long long)evals);
    if (expected > 0)
      printf(" (one needs about %.3g on average)", expected);
    if (*stop)
      printf("; interrupted by %s: the search stopped early", *stop == SIGINT ? "SIGINT" : "SIGTERM");
    printf("\n");
    status = CS_EXIT_OK;
    goto cleanup;
  }

  /* The pair: rebuild the inputs, confirm, shrink. */
  evaluator *ev = &evs[0];
  ev->impl->stop_at_ns = 0; /* the time was the search's: the pair is confirmed, shrunk and run */
  ev->impl->interrupt = NULL;
  cs_arena_reset(&ev->arena);
  cs_str ia = input_of(ev, sa), ib = input_of(ev, sb);
  a = cs_xstrndup(ia.ptr, ia.len);
  b = cs_xstrndup(ib.ptr, ib.len);
  int confirmed = confirm_pair(ev, a, b, &out, &err);
  if (confirmed != PAIR_COLLIDES) {
    if (confirmed < 0)
      cs_fail(CS_EXIT_IMPL, "collide: %s: %s", shown_name, cs_shown(&msgb, err.msg, SHOWN_MAX));
    else if (confirmed == PAIR_NOT_ANSWERED)
      cs_fail(CS_EXIT_IMPL,
              "collide: %s: the pair found could not be confirmed: %d tries, each after a restart, got no "
              "answer (the last: %s)",
              shown_name, CONFIRM_TRIES, cs_shown(&msgb, ev->last_fault, SHOWN_MAX));
    else
      cs_fail(CS_EXIT_IMPL,
              "collide: %s: the pair found does not collide when evaluated again in a restarted "
              "implementation (a salt drawn per process, or state kept between requests?)",
              shown_name);
    goto cleanup;
  }
  unsigned steps = 0;
  if (shrink_pair(ev, &a, &b, &out, &steps, &err)) {
    cs_fail(CS_EXIT_IMPL, "collide: %s: %s", shown_name, cs_shown(&msgb, err.msg, SHOWN_MAX));
    goto cleanup;
  }
  printf("COLLISION: %s %s of %s maps two different IDs to the same ID\n  A: ", op, cs_target_label((int)target),
         shown_name);
  print_json_str(stdout, a);
  printf("\n  B: ");
  print_json_str(stdout, b);
  printf("\n  -> ");
  print_json_str(stdout, out);
  printf("\n  found after %llu evaluations in %.1f s (%s)%s\n", (unsigned long long)evals, seconds, mode,
         steps ? ", shrunk" : "");
  status = CS_EXIT_FAIL;

  /* Plant it: two calls in one turn, replayed first by every later run, for each property the pair
   * can fail: normalize.injective when the search went through normalize (it fails on the pair),
   * and emit.unique when the implementation emits for the target (whether the collision reaches
   * the wire); emit.unique cannot fail on a pair where wire IDs are positional (kimi). */
  const cs_impl_info *info = &evs[0].impl->info;
  bool emits = (info->ops & CS_OP_EMIT) && (info->emit_targets >> target & 1u) &&
               !cs_ruleset_rule(evs[0].rs, target)->global_index;
  const char *properties[2];
  size_t nprops = 0;
  if (emits)
    properties[nprops++] = "emit.unique";
  if (!evs[0].emit || !nprops)
    properties[nprops++] = "normalize.injective";
  cs_arena ar = {0};
  static const char *const shapes[2] = {"one turn", "two turns"};
  size_t held = 0; /* planted cases that hold */
  for (size_t p = 0; p < nprops; p++)
    for (int k = 0; k < 2; k++) {
      cs_history h = planted(a, b, other_provider(target), k == 1, &ar);
      if (!o.no_corpus) {
        char msg[1024], *path = NULL;
        cs_buf m = {0};
        cs_buf_printf(&m, "%s %s maps two different raw IDs to ", op, cs_target_label((int)target));
        cs_buf_json_str(&m, cs_str_c(out));
        cs_buf_printf(&m, "; the pair planted in %s", shapes[k]);
        snprintf(msg, sizeof msg, "%s", m.data);
        cs_buf_free(&m);
        if (cs_corpus_save_literal(corpus_dir, impl_name, properties[p], cs_target_label((int)target), msg, &h,
                                   &PLANTED_PAIR, &path, &err)) {
          fprintf(stderr, "callsign: collide: the pair could not be planted: %s\n",
                  cs_shown(&msgb, err.msg, SHOWN_MAX));
          status = CS_EXIT_USAGE; /* an output error: the run lost what it found */
        } else {
          printf("planted (%s): %s\n", shapes[k], cs_shown(&msgb, path, SHOWN_MAX));
          saved++;
        }
        free(path);
      }
      held += check_planted(&evs[0], rs, &h, properties[p], shapes[k]) == 0;
    }
  if (held == 2 * nprops) /* exit 1 says a collision was found, not that a planted case will catch it */
    printf("collide: every planted case holds on %s: the collision shows only in the search's %s\n", shown_name,
           evs[0].emit ? "single-call histories" : "normalize requests");
  if (saved)
    printf("the planted cases are replayed first by every run of %s; `callsign replay --impl NAME FILE` runs them "
           "against another implementation\n",
           shown_name);
  cs_arena_free(&ar);
cleanup:
  free(a);
  free(b);
  free(out);
  cs_buf_free(&nameb);
  cs_buf_free(&msgb);
  close_evaluators(evs, opened);
  free(evs);
  free(evp);
  cs_ruleset_free(rs);
  return status;
}
