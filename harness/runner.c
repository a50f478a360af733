/* harness/runner.c: the case loop. Cases are built from choice sequences (or taken as literal
 * histories), run in pipelined batches (twins first, then the main requests, then the requests that
 * depend on earlier answers), checked against every active property, and each first failure (each
 * taken failure, in a campaign) is shrunk on its choice sequence. Also the one-case checker of the
 * coverage-guided fuzz targets. */
#include "harness/runner.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/buf.h"
#include "core/clock.h"
#include "core/history_json.h"
#include "generators/id_gen.h"
#include "generators/transforms.h"

#define NOT_ASKED ((cs_reply_status)99)
#define MAX_BATCH 256
#define FIRST_TIMED_BATCH 1 /* cases in the first batches of a run under --time */
#define SHRINK_GRACE_S 5.0  /* how long shrinking may go on after --time has run out */
/* How long one failure's shrinking may take: each try of a hanging implementation waits out the
 * request deadline. */
#define SHRINK_MAX_S 30.0
/* ...and all failures of one run together (cs_run_config.shrink_run_s; not a campaign's, which
 * shrinks by windows): a slow program that fails many cells would otherwise take SHRINK_MAX_S each. */
#define SHRINK_RUN_MAX_S 60.0
/* How long a batch started before --time ran out may still wait for answers. Batch sizes follow the
 * pace of the last batch, which a restart (every 500 cases; a tenth of a second for an interpreter)
 * or a slow answer can upset: without this, cases a normal implementation would answer a moment
 * later were cut off at the end of most timed runs. */
#define CUT_GRACE_S 1.0
#define CHECK_UNDECIDED (-2) /* check_cell: the rule gave no verdict */

typedef struct {
  cs_request req;
  cs_reply *dst;
} queued;

/* A failure a campaign took, waiting for the end of its batch to be shrunk and reported. */
typedef struct {
  size_t cell;
  uint64_t *choices; /* heap */
  size_t nchoices;
  uint64_t case_index;
  char message[600];
  char *history_json, *answer_json; /* heap: the case as it failed, before shrinking */
  uint32_t turns, calls;
  cs_literal_twin literal_twin; /* a literal case's */
  cs_literal_twin planted;      /* as cs_outcome's */
  const char *found_shrinking;  /* as cs_outcome's */
  bool start_fault;             /* as cs_outcome's */
} pending_failure;

typedef struct {
  cs_impl *impl;
  cs_ruleset *rs;
  const cs_run_config *cfg;
  cs_arena arena, scratch;
  cs_choices ch[MAX_BATCH];
  const cs_gen_case *pregen; /* while running a batch generated ahead: its cases */
  cs_caserun *runs;
  queued *q;
  size_t nq, capq;
  cs_reply *tmp;
  size_t captmp;
  unsigned emit_targets, norm_targets;
  cs_outcome *cells;
  size_t ncells;
  unsigned needs; /* union over active (not yet failed) cells */
  cs_run_result *res;
  cs_err *err;
  bool fatal;
  bool campaign;                  /* cfg->on_failure: failed cells stay armed */
  const cs_history *literal_case; /* while building a literal case: its history */
  cs_literal_twin literal_twin;   /* and its planted twin */
  const char *literal_path;       /* and its file, or NULL */
  bool batch_literal;             /* the batch being checked is one literal case */
  pending_failure *pending;
  size_t npending, cappending;
  bool shrink_without_restart; /* the failure being shrunk shows without restarting the implementation */
  /* While shrinking a protocol.answer failure: the replies among which its fault was (CS_NEED_*),
   * the only ones each try asks for; 0: every reply. */
  unsigned shrink_answer_needs;
  /* While shrinking a protocol.answer failure a request caused: a try's fault of the program's
   * start (cs_reply.at_start) is not that failure, only a program that could not start again. */
  bool request_faults_only;
  uint32_t kinds_asked; /* bit per request kind the run asked for */
  double deadline;      /* cs_now_s() at which --time runs out; 0: no time limit */
  char first_cut[300];  /* the message of the first reply cut off by the time */
  bool batch_cut;       /* a reply of the batch being run was cut off by the time */
  bool batch_fault;     /* a reply of the batch being run is a fault: protocol.answer scans only then */
  double shrink_spent;  /* seconds spent shrinking in this run so far */
} runner;

/* A time on cs_now_s()'s clock as cs_now_ns() counts it (the same monotonic clock). */
static int64_t ns_of(double seconds) {
  return (int64_t)(seconds * 1e9);
}

static uint64_t case_seed(uint64_t seed, uint64_t index) {
  return cs_seed_mix(seed ^ cs_seed_mix(index + 1));
}

/* --- request queue ------------------------------------------------------------------------------ */

static void enqueue(runner *r, cs_request req, cs_reply *dst) {
  r->kinds_asked |= 1u << cs_request_kind(&req);
  if (r->nq == r->capq) {
    r->capq = r->capq ? r->capq * 2 : 256;
    r->q = cs_xrealloc_array(r->q, r->capq, sizeof *r->q);
  }
  r->q[r->nq].req = req;
  r->q[r->nq].dst = dst;
  r->nq++;
}

static bool interrupted(const cs_run_config *cfg) {
  return cfg->interrupt && *cfg->interrupt;
}

/* A request that was sent and not answered: with `cut`, one cut off by the stop time; without, a
 * fault. Neither a request never asked nor one skipped (its kind given up) was sent. */
static bool unanswered(cs_reply_status st, bool cut) {
  return st != CS_REPLY_OK && st != NOT_ASKED && st != CS_REPLY_SKIPPED && (st == CS_REPLY_CUT) == cut;
}

/* Which replies first_reply looks for. */
static bool is_fault(const cs_reply *rp) {
  return unanswered(rp->status, false);
}
static bool is_request_fault(const cs_reply *rp) {
  return is_fault(rp) && !rp->at_start;
}
static bool is_cut(const cs_reply *rp) {
  return unanswered(rp->status, true);
}
static bool is_skipped(const cs_reply *rp) {
  return rp->status == CS_REPLY_SKIPPED;
}
/* Not sent: the program's restarts had failed too often to try one again. */
static bool is_start_skipped(const cs_reply *rp) {
  return rp->status == CS_REPLY_SKIPPED && rp->at_start;
}

static int flush(runner *r) {
  if (!r->nq)
    return 0;
  if (r->nq > r->captmp) {
    r->captmp = r->nq;
    r->tmp = cs_xrealloc_array(r->tmp, r->captmp, sizeof *r->tmp);
  }
  cs_request *reqs = cs_arena_alloc(&r->arena, r->nq * sizeof *reqs);
  for (size_t i = 0; i < r->nq; i++)
    reqs[i] = r->q[i].req;
  memset(r->tmp, 0, r->nq * sizeof *r->tmp);
  if (cs_impl_exec(r->impl, reqs, r->tmp, r->nq, &r->arena, r->err)) {
    r->fatal = true;
    r->nq = 0;
    return -1;
  }
  for (size_t i = 0; i < r->nq; i++) {
    const cs_reply *rp = &r->tmp[i];
    *r->q[i].dst = *rp;
    if (rp->status != CS_REPLY_OK && rp->status <= CS_REPLY_PROTOCOL)
      r->res->faults[rp->status]++;
    if (unanswered(rp->status, false))
      r->batch_fault = true;
    if (rp->status == CS_REPLY_CUT) {
      r->batch_cut = true;
      /* The first cut of a batch is the request that was waiting; the rest were behind it. */
      if (!r->first_cut[0])
        snprintf(r->first_cut, sizeof r->first_cut, "%.*s", rp->message.ptr ? (int)rp->message.len : 0,
                 rp->message.ptr ? rp->message.ptr : "");
    }
  }
  r->nq = 0;
  return 0;
}

/* --- case construction -------------------------------------------------------------------------- */

static void reset_replies(cs_caserun *run) {
  for (int t = 0; t < CS_TARGET_COUNT; t++) {
    run->emit[t].status = run->emit_again[t].status = run->emit_restart[t].status = NOT_ASKED;
    run->emit_appended[t].status = run->emit_compressed[t].status = NOT_ASKED;
    run->norm[t].status = run->norm_again[t].status = run->norm_twice[t].status = run->norm_restart[t].status =
        NOT_ASKED;
  }
  run->canon.status = run->canon_again.status = run->canon_reingest.status = run->emit_kimi.status = NOT_ASKED;
  run->have_restart = false;
  run->nnorm = 0; /* set again only when a normalize property needs the batch */
  run->nplanted = 0;
  run->twin_unanswered.status = NOT_ASKED;
}

static void index_of(cs_indexed *x, const cs_history *h, cs_arena *a) {
  x->h = h;
  cs_history_index_build(h, a, &x->ix);
}

/* Requests over an indexed history carry its index, so an in-process implementation need not
 * build its own. */
static cs_request emit_of(int target, const cs_indexed *x) {
  return (cs_request){.op = CS_OP_EMIT, .target = (cs_target_id)target, .history = x->h, .index = &x->ix};
}

static cs_request canonicalize_of(const cs_indexed *x) {
  return (cs_request){.op = CS_OP_CANONICALIZE, .history = x->h, .index = &x->ix};
}

/* The case's normalize batch for target t: asked once, again, and again after a restart. */
static cs_request batch_of(int t, const cs_caserun *run) {
  return (cs_request){.op = CS_OP_NORMALIZE, .target = (cs_target_id)t, .ids = run->norm_in, .nids = run->nnorm};
}

typedef struct {
  uint32_t drop; /* rounds to drop for compression (0: not applicable) */
} case_plan;

/* Only the history is drawn from the choice sequence; the transforms are derived from it without
 * further draws, so a choice sequence means the same case in a full run, a shrink and a replay, and
 * the transforms cost nothing when no enabled property reads them. */
static void build_case(runner *r, cs_choices *ch, cs_caserun *run, case_plan *plan) {
  if (r->literal_case) {
    memset(&run->gen, 0, sizeof run->gen);
    run->gen.h = *r->literal_case;
    for (uint32_t t = 0; t < run->gen.h.nturns; t++)
      run->gen.rounds += run->gen.h.turns[t].role == CS_ROLE_ASSISTANT;
    cs_history_index_build(&run->gen.h, &r->arena, &run->gen.ix);
  } else if (r->pregen) {
    run->gen = r->pregen[ch - r->ch];
  } else {
    cs_gen_history(ch, &r->cfg->gen, &r->arena, &run->gen);
  }
  plan->drop = run->gen.rounds > 1 ? run->gen.rounds / 2 : 0;
  reset_replies(run);
  const cs_literal_twin *lt = &r->literal_twin;
  if (r->literal_case && lt->set && lt->from < lt->to && lt->to < run->gen.ix.ncalls) {
    /* A collision pair planted by `collide`: its second call collided with its first, as a twin
     * does, so the relation is recorded the same way (compression_stable reads it). */
    run->planted_from[0] = lt->from;
    run->planted_to[0] = lt->to;
    run->nplanted = 1;
  }
}

static bool supports(const runner *r, cs_op op, int t) {
  if (!(r->impl->info.ops & op))
    return false;
  if (op == CS_OP_EMIT)
    return t >= 0 && (r->emit_targets >> t & 1u);
  if (op == CS_OP_NORMALIZE)
    return t >= 0 && (r->norm_targets >> t & 1u);
  return true;
}

/* Twins are planted whatever --target restricts the checks to: a choice sequence must mean the
 * same case in a full run and in a replay narrowed to one target. */
static bool twin_supported(const runner *r, cs_op op, uint32_t t) {
  const cs_impl_info *info = &r->impl->info;
  unsigned mask = op == CS_OP_EMIT ? info->emit_targets : info->normalize_targets;
  return (info->ops & op) && t < CS_TARGET_COUNT && (mask >> t & 1u);
}

/* Phase 0: ask for the outputs that implementation-aware twins plant. */
static void queue_twins(runner *r, cs_caserun *run, cs_reply *twin_replies) {
  if (!run->gen.ntwins)
    return;
  const cs_history_index ix = run->gen.ix;
  for (uint32_t i = 0; i < run->gen.ntwins; i++) {
    const cs_twin_plan *tp = &run->gen.twins[i];
    twin_replies[i].status = NOT_ASKED;
    if (tp->from_call >= ix.ncalls || tp->to_call >= ix.ncalls)
      continue;
    if (tp->via_normalize && twin_supported(r, CS_OP_NORMALIZE, tp->target) && ix.calls[tp->from_call]->id.ptr) {
      cs_str *one = CS_ARENA_NEW(&r->arena, cs_str, 1);
      one[0] = ix.calls[tp->from_call]->id;
      enqueue(r, (cs_request){.op = CS_OP_NORMALIZE, .target = tp->target, .ids = one, .nids = 1}, &twin_replies[i]);
    } else if (twin_supported(r, CS_OP_EMIT, tp->target)) {
      enqueue(r, (cs_request){.op = CS_OP_EMIT, .target = tp->target, .history = &run->gen.h, .index = &run->gen.ix},
              &twin_replies[i]);
    }
  }
}

/* The history with its twins planted; the generated history itself when nothing was planted. */
static const cs_history *plant_twins(runner *r, cs_caserun *run, const cs_reply *twin_replies) {
  if (!run->gen.ntwins)
    return &run->gen.h;
  cs_history *h = cs_arena_alloc(&r->arena, sizeof *h);
  *h = run->gen.h;
  for (uint32_t i = 0; i < run->gen.ntwins; i++) {
    const cs_twin_plan *tp = &run->gen.twins[i];
    const cs_reply *rp = &twin_replies[i];
    if (rp->status != CS_REPLY_OK) {
      /* Kept for protocol.answer: a fault here is one like any other (an implementation that fails
       * on every request gave them up before any other request was sent). */
      if (run->twin_unanswered.status == NOT_ASKED && (unanswered(rp->status, false) || unanswered(rp->status, true)))
        run->twin_unanswered = *rp;
      continue;
    }
    cs_str out = CS_NULL_STR;
    if (rp->nids == 1)
      out = rp->ids[0];
    else if (tp->from_call < rp->answer.ncalls)
      out = rp->answer.calls[tp->from_call];
    if (!out.ptr)
      continue;
    *h = cs_transform_plant(h, tp->to_call, out, &r->arena);
    if (run->nplanted < 2) {
      run->planted_from[run->nplanted] = tp->from_call;
      run->planted_to[run->nplanted++] = tp->to_call;
    }
  }
  return h;
}

static void queue_main(runner *r, cs_caserun *run, case_plan *plan, unsigned needs) {
  const cs_history *h = run->main.h;
  cs_arena *a = &r->arena;
  /* derived histories */
  if (needs & CS_NEED_APPEND) {
    /* Append the simplest round (an all-zero choice sequence): plain IDs such as call_0 that an
     * earlier turn may already hold, which is where unstable collision handling shows. */
    cs_choices zero = {0};
    cs_choices_replay(&zero, NULL, 0);
    cs_history *ap = cs_arena_alloc(a, sizeof *ap);
    *ap = cs_transform_append(h, &zero, &r->cfg->gen, a);
    cs_choices_free(&zero);
    index_of(&run->appended, ap, a);
  }
  if ((needs & CS_NEED_COMPRESS) && plan->drop) {
    cs_history *cp = cs_arena_alloc(a, sizeof *cp);
    *cp = cs_transform_drop_leading(h, plan->drop, a, &run->call_off, &run->result_off);
    index_of(&run->compressed, cp, a);
  }
  /* Canonicalize before emit: an implementation that canonicalizes once per history for its emits
   * can take the first stored IDs it answered rather than compute them once more. */
  if (supports(r, CS_OP_CANONICALIZE, -1)) {
    if (needs & (CS_NEED_CANON | CS_NEED_CANON_AGAIN | CS_NEED_REINGEST))
      enqueue(r, canonicalize_of(&run->main), &run->canon);
    if (needs & CS_NEED_CANON_AGAIN)
      enqueue(r, canonicalize_of(&run->main), &run->canon_again);
  }
  if ((needs & CS_NEED_KIMI) && supports(r, CS_OP_EMIT, CS_PROV_KIMI)) {
    cs_history *kh = cs_arena_alloc(a, sizeof *kh);
    *kh = cs_transform_kimi_native(h, &run->main.ix, a);
    index_of(&run->kimi, kh, a);
    enqueue(r, emit_of(CS_PROV_KIMI, &run->kimi), &run->emit_kimi);
  }
  for (int t = 0; t < CS_TARGET_COUNT; t++) {
    if (!supports(r, CS_OP_EMIT, t))
      continue;
    if (needs & (CS_NEED_EMIT | CS_NEED_EMIT_AGAIN | CS_NEED_APPEND | CS_NEED_COMPRESS))
      enqueue(r, emit_of(t, &run->main), &run->emit[t]);
    if (needs & CS_NEED_EMIT_AGAIN)
      enqueue(r, emit_of(t, &run->main), &run->emit_again[t]);
    if ((needs & CS_NEED_APPEND))
      enqueue(r, emit_of(t, &run->appended), &run->emit_appended[t]);
    if ((needs & CS_NEED_COMPRESS) && plan->drop)
      enqueue(r, emit_of(t, &run->compressed), &run->emit_compressed[t]);
  }
  if (needs & (CS_NEED_NORM | CS_NEED_NORM_AGAIN | CS_NEED_NORM_TWICE)) {
    const cs_history_index *ix = &run->main.ix;
    run->norm_in = CS_ARENA_NEW(a, cs_str, ix->ncalls + 2);
    run->nnorm = 0;
    for (uint32_t c = 0; c < ix->ncalls; c++)
      if (ix->calls[c]->id.ptr)
        run->norm_in[run->nnorm++] = ix->calls[c]->id;
    if (run->nnorm == 0)
      run->norm_in[run->nnorm++] = cs_str_c("call_0");
    for (int t = 0; t < CS_TARGET_COUNT; t++) {
      if (!supports(r, CS_OP_NORMALIZE, t))
        continue;
      enqueue(r, batch_of(t, run), &run->norm[t]);
      if (needs & CS_NEED_NORM_AGAIN)
        enqueue(r, batch_of(t, run), &run->norm_again[t]);
    }
  }
}

static void queue_dependent(runner *r, cs_caserun *run, unsigned needs) {
  cs_arena *a = &r->arena;
  if ((needs & CS_NEED_REINGEST) && run->canon.status == CS_REPLY_OK) {
    cs_history *rh = cs_arena_alloc(a, sizeof *rh);
    *rh = cs_transform_reingest(run->main.h, &run->canon.answer, a);
    index_of(&run->reingested, rh, a);
    enqueue(r, canonicalize_of(&run->reingested), &run->canon_reingest);
  }
  if (needs & CS_NEED_NORM_TWICE) {
    for (int t = 0; t < CS_TARGET_COUNT; t++) {
      if (run->norm[t].status != CS_REPLY_OK)
        continue;
      /* The outputs fed back in, then the outputs without their prefix: a normalizer that
       * prefixes what it passes through gives "toolu_X" and "X" one ID. */
      uint32_t n = run->norm[t].nids, k = n;
      cs_str *in = CS_ARENA_NEW(a, cs_str, 2 * n + 1);
      for (uint32_t i = 0; i < n; i++) {
        in[i] = run->norm[t].ids[i].ptr ? run->norm[t].ids[i] : cs_str_c("");
        cs_str bare = cs_id_output_prefix_stripped(in[i]);
        if (bare.ptr != in[i].ptr)
          in[k++] = bare;
      }
      run->norm_twice_in[t] = in;
      enqueue(r, (cs_request){.op = CS_OP_NORMALIZE, .target = (cs_target_id)t, .ids = in, .nids = k},
              &run->norm_twice[t]);
    }
  }
}

/* The first reply of the case that `match` picks (is_fault, is_cut, is_skipped, ...), or NULL.
 * `needs` (may be NULL) gets the CS_NEED_* bits under which the runner asks for that reply. */
static const cs_reply *first_reply(const cs_caserun *run, bool (*match)(const cs_reply *), unsigned *needs) {
  const struct {
    const cs_reply *reply;
    unsigned needs;
  } all[] = {{&run->twin_unanswered, CS_NEED_EMIT}, /* twins are asked for whatever the needs */
             {&run->canon, CS_NEED_CANON},
             {&run->canon_again, CS_NEED_CANON | CS_NEED_CANON_AGAIN},
             {&run->canon_reingest, CS_NEED_CANON | CS_NEED_REINGEST},
             {&run->emit_kimi, CS_NEED_KIMI}};
  for (size_t i = 0; i < sizeof all / sizeof *all; i++)
    if (match(all[i].reply)) {
      if (needs)
        *needs = all[i].needs;
      return all[i].reply;
    }
  for (int t = 0; t < CS_TARGET_COUNT; t++) {
    const struct {
      const cs_reply *reply;
      unsigned needs;
    } per[] = {{&run->emit[t], CS_NEED_EMIT},
               {&run->emit_again[t], CS_NEED_EMIT | CS_NEED_EMIT_AGAIN},
               {&run->emit_restart[t], CS_NEED_EMIT | CS_NEED_EMIT_RESTART},
               {&run->emit_appended[t], CS_NEED_EMIT | CS_NEED_APPEND},
               {&run->emit_compressed[t], CS_NEED_EMIT | CS_NEED_COMPRESS},
               {&run->norm[t], CS_NEED_NORM},
               {&run->norm_again[t], CS_NEED_NORM | CS_NEED_NORM_AGAIN},
               {&run->norm_twice[t], CS_NEED_NORM | CS_NEED_NORM_TWICE},
               {&run->norm_restart[t], CS_NEED_NORM | CS_NEED_NORM_RESTART}};
    for (size_t i = 0; i < sizeof per / sizeof *per; i++)
      if (match(per[i].reply)) {
        if (needs)
          *needs = per[i].needs;
        return per[i].reply;
      }
  }
  return NULL;
}

/* The fault protocol.answer reports on a case: one a request caused before one of the program's
 * start, which no history makes happen (and which shrinking a request's fault does not take). */
static const cs_reply *first_fault(const runner *r, const cs_caserun *run, unsigned *needs) {
  const cs_reply *f = first_reply(run, is_request_fault, needs);
  return f || r->request_faults_only ? f : first_reply(run, is_fault, needs);
}

static int run_restart(runner *r, cs_caserun *run, unsigned needs) {
  cs_err e;
  if (cs_impl_stop_came(r->impl))
    return 0; /* no process start after the stop time: this case goes without the restart check */
  /* A restart that fails (its hello did) is not skipped: the requests after it are sent all the
   * same, and the implementation answers them with the fault its start gave (or tries to start
   * again), so protocol.answer fails on it, as PROTOCOL.md says, and the restart check is not
   * reported as held. */
  r->impl->vt->restart(r->impl, &e);
  for (int t = 0; t < CS_TARGET_COUNT; t++) {
    if ((needs & CS_NEED_EMIT_RESTART) && supports(r, CS_OP_EMIT, t))
      enqueue(r, emit_of(t, &run->main), &run->emit_restart[t]);
    if ((needs & CS_NEED_NORM_RESTART) && run->nnorm && supports(r, CS_OP_NORMALIZE, t)) /* a per-process salt */
      enqueue(r, batch_of(t, run), &run->norm_restart[t]);
  }
  run->have_restart = true;
  return flush(r);
}

/* Runs cases [0, n) of r->runs, whose choice sequences are r->ch[0..n), through every phase. */
static int run_batch(runner *r, size_t n, case_plan *plans, unsigned needs, bool restart_case0,
                     const uint64_t *case_index) {
  r->batch_cut = r->batch_fault = false;
  cs_reply **twin_replies = CS_ARENA_NEW(&r->arena, cs_reply *, n);
  for (size_t i = 0; i < n; i++) {
    build_case(r, &r->ch[i], &r->runs[i], &plans[i]);
    r->runs[i].case_index = case_index[i];
    twin_replies[i] = CS_ARENA_NEW(&r->arena, cs_reply, r->runs[i].gen.ntwins + 1);
    queue_twins(r, &r->runs[i], twin_replies[i]);
  }
  if (flush(r))
    return -1;
  for (size_t i = 0; i < n; i++) {
    cs_caserun *run = &r->runs[i];
    const cs_history *h = plant_twins(r, run, twin_replies[i]);
    if (h == &run->gen.h) /* nothing planted: the generator's index holds */
      run->main = (cs_indexed){h, run->gen.ix};
    else
      index_of(&run->main, h, &r->arena);
    queue_main(r, &r->runs[i], &plans[i], needs);
  }
  if (flush(r))
    return -1;
  for (size_t i = 0; i < n; i++)
    queue_dependent(r, &r->runs[i], needs);
  if (flush(r))
    return -1;
  if (restart_case0 && (needs & CS_NEED_RESTART) && run_restart(r, &r->runs[0], needs))
    return -1;
  /* After the stop time every later request is cut too, so a case whose twins were cut has a cut
   * main reply as well. A fault before the cut is a finding all the same: that case is judged (the
   * properties that read a cut reply cannot be checked on it; protocol.answer can). The replies
   * are scanned only when the batch had a cut: most never do, and this runs for every case. */
  for (size_t i = 0; i < n; i++)
    r->runs[i].cut =
        r->batch_cut && first_reply(&r->runs[i], is_cut, NULL) && !first_reply(&r->runs[i], is_fault, NULL);
  return 0;
}

/* --- checking ----------------------------------------------------------------------------------- */

static const cs_reply *reply_for(const cs_caserun *run, unsigned need, int t) {
  switch (need) {
  case CS_NEED_EMIT:
    return &run->emit[t];
  case CS_NEED_EMIT_AGAIN:
    return &run->emit_again[t];
  case CS_NEED_CANON:
    return &run->canon;
  case CS_NEED_CANON_AGAIN:
    return &run->canon_again;
  case CS_NEED_REINGEST:
    return &run->canon_reingest;
  case CS_NEED_APPEND:
    return &run->emit_appended[t];
  case CS_NEED_COMPRESS:
    return &run->emit_compressed[t];
  case CS_NEED_NORM:
    return &run->norm[t];
  case CS_NEED_NORM_AGAIN:
    return &run->norm_again[t];
  case CS_NEED_NORM_TWICE:
    return &run->norm_twice[t];
  case CS_NEED_KIMI:
    return &run->emit_kimi;
  default:
    return NULL; /* optional replies (restart) */
  }
}

static bool needs_answered(const cs_caserun *run, unsigned needs, int t) {
  for (unsigned bit = 1; bit && bit <= needs; bit <<= 1) {
    if (!(needs & bit))
      continue;
    const cs_reply *rp = reply_for(run, bit, t < 0 ? 0 : t);
    if (rp && rp->status != CS_REPLY_OK)
      return false;
  }
  return true;
}

/* Checks one cell on one case: 1 holds, 0 fails (message in why), -1 not checkable on this case,
 * CHECK_UNDECIDED the rule could not decide on an ID (message in why): not judged either. */
static int check_cell(runner *r, const cs_outcome *cell, const cs_caserun *run, char *why, size_t why_len) {
  const cs_property *p = cell->prop;
  if (!p->check) {
    if (!cs_property_is_answer(p))
      return -1;
    const cs_reply *f = r->batch_fault ? first_fault(r, run, NULL) : NULL;
    if (!f)
      return 1;
    snprintf(why, why_len, "%s: %.*s", cs_reply_status_name(f->status),
             (int)(f->message.len < 500 ? f->message.len : 500), f->message.ptr ? f->message.ptr : "");
    return 0;
  }
  if (!needs_answered(run, p->needs, cell->target))
    return -1;
  cs_check_ctx ctx = {r->rs, &r->scratch, why, why_len, false};
  bool ok = p->check(&ctx, run, cell->target);
  cs_arena_reset(&r->scratch);
  return ok ? 1 : ctx.undecided ? CHECK_UNDECIDED : 0;
}

static void answer_json(const cs_outcome *cell, const cs_caserun *run, cs_buf *b) {
  const cs_property *p = cell->prop;
  int t = cell->target < 0 ? 0 : cell->target;
  const cs_reply *rp = NULL;
  if (p->needs & CS_NEED_KIMI)
    rp = &run->emit_kimi;
  else if (p->needs & CS_NEED_EMIT)
    rp = &run->emit[t];
  else if (p->needs & CS_NEED_CANON)
    rp = &run->canon;
  else if (p->needs & CS_NEED_NORM)
    rp = &run->norm[t];
  if (!rp || rp->status != CS_REPLY_OK)
    return;
  if (p->needs & CS_NEED_NORM) {
    cs_buf_puts(b, "{\"ids\":");
    cs_buf_json_strs(b, run->norm_in, run->nnorm);
    cs_buf_puts(b, ",\"normalized\":");
    cs_buf_json_strs(b, rp->ids, rp->nids);
    cs_buf_putc(b, '}');
    return;
  }
  cs_answer_write(b, &rp->answer);
}

/* --- shrinking ---------------------------------------------------------------------------------- */

static void fail_cell(runner *r, cs_outcome *cell, size_t i, const char *why);
static pending_failure *take_failure(runner *r, size_t c, size_t i, const char *why);

/* A try of another property's shrinking that faults is a generated case the implementation faults
 * on: protocol.answer fails on it, to be shrunk in turn, rather than the fault only counting as
 * "does not fail" for the property being shrunk. A run takes it once; a campaign takes it as it
 * takes a failure of its batch, through want_failure, as one of the shrinking case's window. */
static void fault_while_shrinking(runner *r, const cs_outcome *shrinking_cell) {
  /* Not in a replay, which judges the one case it was given. */
  if (r->cfg->replay_one || !r->batch_fault || cs_property_is_answer(shrinking_cell->prop))
    return;
  for (size_t c = 0; c < r->ncells; c++) {
    cs_outcome *a = &r->cells[c];
    if (!cs_property_is_answer(a->prop) || !a->applicable || a->undecided || (a->failed && !r->campaign))
      continue;
    char why[600];
    if (check_cell(r, a, &r->runs[0], why, sizeof why) != 0)
      return;
    if (r->campaign) {
      if (r->cfg->want_failure && !r->cfg->want_failure(r->cfg->failure_user, a, shrinking_cell->case_index, why))
        return;
      pending_failure *p = take_failure(r, c, 0, why); /* report_taken, shrinking the batch's, comes to it */
      p->case_index = shrinking_cell->case_index;
      p->found_shrinking = shrinking_cell->prop->name;
      return;
    }
    fail_cell(r, a, 0, why);
    a->case_index = shrinking_cell->case_index;
    a->found_shrinking = shrinking_cell->prop->name; /* said once its own shrinking is done */
    return;
  }
}

/* Runs one case from `v` for `cell` alone. Returns 1 if the cell fails on it (the case stays in
 * r->runs[0] until the next try), 0 if not or if the time ran out mid-case, -1 on a fatal error. */
static int try_case(runner *r, const cs_outcome *cell, const uint64_t *v, size_t n, size_t *consumed, char *why,
                    size_t why_len) {
  cs_arena_reset(&r->arena);
  cs_choices_replay(&r->ch[0], v, n);
  case_plan plan;
  uint64_t idx = 0;
  unsigned needs = cell->prop->needs;
  if (cs_property_is_answer(cell->prop))
    needs = r->shrink_answer_needs ? r->shrink_answer_needs : r->needs | CS_NEED_EMIT;
  if (r->shrink_without_restart)
    needs &= ~(unsigned)CS_NEED_RESTART;
  /* A kind given up is sent again while shrinking: the fault being shrunk may be of that kind. Not
   * in a replay of one case, whose first fault already shows: each try of a program that hangs
   * would wait out a deadline per request. */
  unsigned give_up = r->impl->give_up_after;
  if (!r->cfg->replay_one)
    r->impl->give_up_after = 0;
  /* A try needs the first fault only: protocol.answer fails on it, and another property's failure
   * is not shrunk into a case the implementation faults on. A program that hangs on every request
   * of a case would otherwise cost a deadline and a restart for each (the first try of a failure
   * found among hangs took the whole shrink time). */
  bool first_fault_ends = r->impl->first_fault_ends_exec;
  r->impl->first_fault_ends_exec = true;
  int bad = run_batch(r, 1, &plan, needs, (needs & CS_NEED_RESTART) != 0, &idx);
  r->impl->first_fault_ends_exec = first_fault_ends;
  r->impl->give_up_after = give_up;
  if (bad)
    return -1;
  *consumed = r->ch[0].pos < n ? r->ch[0].pos : n;
  if (r->runs[0].cut)
    return 0;
  fault_while_shrinking(r, cell);
  return check_cell(r, cell, &r->runs[0], why, why_len) == 0;
}

/* A failing case as the report shows it: its history (after twins were planted), what the
 * implementation answered, its size, and its first planted twin when the history shown is the one
 * it was planted in. Strings on the heap; the old ones are freed. */
static void record_case(const cs_outcome *cell, const cs_caserun *run, char **hist, char **ans, uint32_t *turns,
                        uint32_t *calls, cs_literal_twin *planted) {
  /* emit.kimi_roundtrip is judged on the history as Kimi produced it: that is the one its answer is to. */
  const cs_indexed *shown = (cell->prop->needs & CS_NEED_KIMI) && run->kimi.h ? &run->kimi : &run->main;
  *planted = shown == &run->main && run->nplanted ? (cs_literal_twin){true, run->planted_from[0], run->planted_to[0]}
                                                  : (cs_literal_twin){0};
  cs_buf hb = {0}, ab = {0};
  cs_history_write(&hb, shown->h);
  answer_json(cell, run, &ab);
  free(*hist);
  free(*ans);
  *hist = cs_xstrdup(hb.data ? hb.data : "");
  *ans = ab.len ? cs_xstrdup(ab.data) : NULL;
  *turns = shown->h->nturns;
  *calls = shown->ix.ncalls;
  cs_buf_free(&hb);
  cs_buf_free(&ab);
}

static bool shortlex_less(const uint64_t *a, size_t na, const uint64_t *b, size_t nb) {
  if (na != nb)
    return na < nb;
  for (size_t i = 0; i < na; i++)
    if (a[i] != b[i])
      return a[i] < b[i];
  return false;
}

/* The size of a case for people: calls, then turns. */
typedef struct {
  uint32_t calls, turns;
} case_size;

static case_size size_of_last(const runner *r) {
  return (case_size){r->runs[0].main.ix.ncalls, r->runs[0].main.h->nturns};
}

/* Is the case just run (choices `cand`) smaller than `best`: fewer calls, then fewer turns, then
 * shortlex on the choices? A well-founded order, so shrinking ends; without the history's size
 * first, a shorter sequence could trade one long ID for three short calls. Updates *bs. */
static bool smaller(const runner *r, const uint64_t *cand, size_t nc, const uint64_t *best, size_t nb, case_size *bs) {
  case_size cs = size_of_last(r);
  bool less = cs.calls != bs->calls   ? cs.calls < bs->calls
              : cs.turns != bs->turns ? cs.turns < bs->turns
                                      : shortlex_less(cand, nc, best, nb);
  if (less)
    *bs = cs;
  return less;
}

/* One shrink in progress: the smallest failing choices so far, a scratch candidate, the tries left. */
typedef struct {
  runner *r;
  cs_outcome *cell;      /* its history, answer, size and message follow `best` */
  uint64_t *best, *cand; /* cand holds as many draws as best did at the start */
  size_t nbest;
  size_t consumed; /* draws the last try read */
  unsigned budget;
  case_size bs;           /* size of the case `best` makes */
  double stop_at;         /* cs_now_s() after which no more tries start; 0: none */
  const char *stopped_by; /* why the tries ended before shrinking did: the report says so */
  char stopped_why[300];  /* room for a stopped_by the implementation words */
  bool confirm_fresh;     /* a smaller case is taken once it fails again in a fresh process */
  char why[600];
} shrinking;

/* One try of the budget on draws v[0..n): 1 the cell fails, 0 it holds or no try is left, -1 fatal.
 * Once its time is up the budget is spent: a case that costs a process restart per try must not
 * hold a timed run for thousands of tries. */
static int spend_try(shrinking *s, const uint64_t *v, size_t n) {
  if (s->budget && s->stop_at > 0 && cs_now_s() >= s->stop_at) {
    s->budget = 0;
    s->stopped_by = "its time ran out";
  }
  if (s->budget && interrupted(s->r->cfg)) {
    s->budget = 0;
    s->stopped_by = "a stop signal came";
    s->r->res->interrupted = true;
  }
  if (!s->budget)
    return 0;
  s->budget--;
  int rc = try_case(s->r, s->cell, v, n, &s->consumed, s->why, sizeof s->why);
  /* No try runs any more: every request would go unsent, and the case found stays as it is. */
  const cs_reply *gone = rc >= 0 ? first_reply(&s->r->runs[0], is_start_skipped, NULL) : NULL;
  if (gone) {
    snprintf(s->stopped_why, sizeof s->stopped_why, "%.*s", (int)gone->message.len,
             gone->message.ptr ? gone->message.ptr : "");
    s->stopped_by = s->stopped_why;
    s->budget = 0;
  }
  return rc;
}

/* The case just run became `best`: the cell reports it. Kept as it is found, so the report needs
 * no final re-run, which a flaky implementation or the end of --time could deny. */
static void keep_case(shrinking *s) {
  cs_outcome *c = s->cell;
  record_case(c, &s->r->runs[0], &c->history_json, &c->answer_json, &c->shrunk_turns, &c->shrunk_calls, &c->planted);
  snprintf(c->message, sizeof c->message, "%s", s->why);
}

/* Starts the implementation's program afresh for the next try (not after the stop time): a fault
 * confirmed there needs no request of an earlier try. A start that fails faults the try, as in a run. */
static void fresh_start(runner *r) {
  cs_err e;
  if (!cs_impl_stop_came(r->impl))
    r->impl->vt->restart(r->impl, &e);
}

/* Runs `best` again, so that r->ch[0] holds the spans it marks. 1 fails, 0 holds, -1 fatal. */
static int rerun_best(shrinking *s) {
  return spend_try(s, s->best, s->nbest);
}

/* Tries the first nc draws of s->cand: if the cell fails on them and the case is smaller, the
 * draws it read become `best`. 1 taken, 0 not, -1 fatal. */
static int attempt(shrinking *s, size_t nc) {
  int rc = spend_try(s, s->cand, nc);
  case_size before = s->bs;
  if (rc != 1 || !smaller(s->r, s->cand, s->consumed, s->best, s->nbest, &s->bs))
    return rc < 0 ? -1 : 0;
  /* A fault that needs the requests of earlier tries first (a crash after the 20th request of a
   * process) would shrink into a case that never faults on its own, and whose replay passes. */
  if (s->confirm_fresh) {
    fresh_start(s->r);
    if ((rc = spend_try(s, s->cand, nc)) != 1) {
      s->bs = before;
      return rc < 0 ? -1 : 0;
    }
  }
  memcpy(s->best, s->cand, s->consumed * sizeof *s->best);
  s->nbest = s->consumed;
  keep_case(s);
  return 1;
}

static int by_size_desc(const void *a, const void *b) {
  const cs_choice_span *x = a, *y = b;
  size_t nx = x->end - x->start, ny = y->end - y->start;
  return nx < ny ? 1 : nx > ny ? -1 : (x->start > y->start) - (x->start < y->start);
}

/* Pass 3, on the history's own units (rounds, calls, IDs: the spans the generator marks on `best`),
 * largest first: delete a unit and take one from its list's count (also dropping the draw that
 * follows the count, which a shorter list may no longer make), or set all its draws to 0, its
 * simplest form. Fixed-size deletions cannot remove a call whose ID took hundreds of draws. Returns
 * the steps taken, or -1 on a fatal error. */
static int shrink_units(shrinking *s) {
  int steps = 0;
  cs_choice_span *spans = NULL;
  bool again = true;
  while (again && s->budget) {
    again = false;
    int rc = rerun_best(s);
    if (rc <= 0) { /* -1 fatal; 0 cannot happen (best fails), but then there is nothing to shrink */
      free(spans);
      return rc < 0 ? -1 : steps;
    }
    size_t ns = s->r->ch[0].nspans;
    if (!ns)
      break; /* no unit was drawn before the sequence ran out */
    cs_choice_span *grown = realloc(spans, ns * sizeof *spans);
    if (!grown)
      break;
    spans = grown;
    memcpy(spans, s->r->ch[0].spans, ns * sizeof *spans);
    qsort(spans, ns, sizeof *spans, by_size_desc);
    const uint64_t *best = s->best;
    for (size_t k = 0; k < ns && s->budget && !again; k++) {
      const cs_choice_span *u = &spans[k];
      if (u->end > s->nbest)
        continue;
      for (int variant = 0; variant < 3 && s->budget && !again; variant++) {
        size_t nc = 0;
        if (variant < 2) { /* delete the unit, one fewer in its list */
          if (u->count_at >= u->start || best[u->count_at] == 0)
            continue;
          size_t skip = variant == 1 && u->count_at + 1 < u->start ? u->count_at + 1 : SIZE_MAX;
          if (variant == 1 && skip == SIZE_MAX)
            continue;
          for (size_t i = 0; i < s->nbest; i++)
            if ((i < u->start || i >= u->end) && i != skip)
              s->cand[nc++] = i == u->count_at ? best[i] - 1 : best[i];
        } else { /* the unit's simplest form */
          bool zero = true;
          for (size_t i = u->start; i < u->end && zero; i++)
            zero = best[i] == 0;
          if (zero)
            continue;
          memcpy(s->cand, best, s->nbest * sizeof *s->cand);
          memset(s->cand + u->start, 0, (u->end - u->start) * sizeof *s->cand);
          nc = s->nbest;
        }
        rc = attempt(s, nc);
        if (rc < 0) {
          free(spans);
          return -1;
        }
        if (rc == 1) {
          steps++;
          again = true; /* the spans moved: mark them again on the new best */
        }
      }
    }
  }
  free(spans);
  return steps;
}

/* How a later unit b comes into the list of an earlier unit a before b's unit d is deleted. */
typedef enum { MOVE_NONE, MOVE_REPLACE, MOVE_INSERT } move_kind;

/* Writes `best` without the unit `d` (and one fewer in its list) into `out`; with MOVE_REPLACE the
 * draws of `a` are replaced by those of `b` (b inside d, a before d), with MOVE_INSERT b's draws
 * follow a's (one more in a's list). Never longer than `best`. Returns the length. */
static size_t edit_units(const uint64_t *best, size_t nbest, const cs_choice_span *d, const cs_choice_span *a,
                         const cs_choice_span *b, move_kind kind, uint64_t *out) {
  size_t n = 0;
  for (size_t i = 0; i < nbest; i++) {
    if (kind == MOVE_REPLACE && i == a->start)
      for (size_t k = b->start; k < b->end; k++)
        out[n++] = best[k];
    if ((kind == MOVE_REPLACE && i >= a->start && i < a->end) || (i >= d->start && i < d->end))
      continue;
    uint64_t v = best[i];
    if (i == d->count_at)
      v--;
    if (kind == MOVE_INSERT && i == a->count_at)
      v++;
    out[n++] = v;
    if (kind == MOVE_INSERT && i + 1 == a->end)
      for (size_t k = b->start; k < b->end; k++)
        out[n++] = best[k];
  }
  return n;
}

static bool deletable(const cs_choice_span *u, const uint64_t *best, size_t nbest) {
  return u->count_at < u->start && u->end <= nbest && best[u->count_at] > 0;
}

/* Pass 4, when the others are stuck: two places at once, which the history's structure couples.
 * (a) Move a unit: a later list element's draws replace an earlier one's or join its list, and the
 * later one (or a unit around it) is deleted, so an ID that needs a round's provider moves into the
 * earlier round that set it, and two rounds become one. (b) Delete a unit and lower one later draw
 * by one, so a reference that counted back past the deleted unit still reaches its ID, and a number
 * in an ID that matched a call's global index follows the index down. (c) Delete a unit and one
 * later draw. Returns the steps taken (0 or 1), -1 if fatal. */
static int shrink_pairs(shrinking *s) {
  unsigned tries = 600; /* a bound of its own: pairs grow with the square of the units */
  int rc = rerun_best(s);
  if (rc <= 0)
    return rc < 0 ? -1 : 0;
  size_t ns = s->r->ch[0].nspans;
  cs_choice_span *spans = ns ? malloc(ns * sizeof *spans) : NULL;
  if (!spans)
    return 0; /* no unit was drawn before the sequence ran out */
  memcpy(spans, s->r->ch[0].spans, ns * sizeof *spans);
  int found = 0;
  for (size_t di = 0; di < ns && !found && s->budget && tries; di++) {
    const cs_choice_span *d = &spans[di];
    if (!deletable(d, s->best, s->nbest))
      continue;
    /* (a): d holds b; a is an element of a list that ends before d starts. */
    for (size_t bi = 0; bi < ns && !found && s->budget && tries; bi++) {
      const cs_choice_span *b = &spans[bi];
      if (b->count_at == CS_SPAN_NO_COUNT || b->start < d->start || b->end > d->end)
        continue;
      for (size_t ai = 0; ai < ns && !found && s->budget && tries; ai++) {
        const cs_choice_span *a = &spans[ai];
        if (a->count_at == CS_SPAN_NO_COUNT || a->end > d->start || (d->count_at >= a->start && d->count_at < a->end))
          continue;
        for (move_kind k = MOVE_REPLACE; k <= MOVE_INSERT && !found && s->budget && tries; k++) {
          size_t nc = edit_units(s->best, s->nbest, d, a, b, k, s->cand);
          tries--;
          if ((rc = attempt(s, nc)) < 0)
            goto fatal;
          found = rc;
        }
      }
    }
    /* (b): d deleted, one later draw lowered by one. */
    size_t nd = found ? 0 : edit_units(s->best, s->nbest, d, NULL, NULL, MOVE_NONE, s->cand);
    for (size_t j = d->start; j < nd && !found && s->budget && tries; j++) {
      if (!s->cand[j])
        continue;
      s->cand[j]--;
      tries--;
      if ((rc = attempt(s, nd)) < 0)
        goto fatal;
      found = rc;
      if (!found)
        s->cand[j]++;
    }
    /* (c): d deleted and one later draw with it: a draw that only a longer history makes (a twin
     * plan needs two calls) would otherwise shift every draw after it by one. */
    for (size_t j = d->start; j < nd && !found && s->budget && tries; j++) {
      edit_units(s->best, s->nbest, d, NULL, NULL, MOVE_NONE, s->cand);
      memmove(s->cand + j, s->cand + j + 1, (nd - j - 1) * sizeof *s->cand);
      tries--;
      if ((rc = attempt(s, nd - 1)) < 0)
        goto fatal;
      found = rc;
    }
  }
  free(spans);
  return found;
fatal:
  free(spans);
  return -1;
}

/* Appends " (" + the note + ")" to the failure's message: why it was not shrunk, or not all the way. */
static void note_shrink(cs_outcome *cell, const char *fmt, ...) {
  size_t len = strlen(cell->message);
  if (len + 3 >= sizeof cell->message)
    return;
  cell->message[len++] = ' ';
  cell->message[len++] = '(';
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(cell->message + len, sizeof cell->message - len, fmt, ap);
  va_end(ap);
  len = strlen(cell->message);
  if (len + 1 < sizeof cell->message) {
    cell->message[len] = ')';
    cell->message[len + 1] = 0;
  }
}

static void shrink(runner *r, cs_outcome *cell) {
  shrinking s = {.r = r,
                 .cell = cell,
                 .best = cell->choices,
                 .cand = cs_xcalloc(cell->nchoices + 1, sizeof *s.cand),
                 .nbest = cell->nchoices,
                 .budget = r->cfg->shrink_budget ? r->cfg->shrink_budget : 3000,
                 .bs = {UINT32_MAX, UINT32_MAX},
                 .confirm_fresh = r->impl->vt->restart && cs_property_is_answer(cell->prop)};
  /* Under --time, shrinking may go on SHRINK_GRACE_S past the deadline, no more (all failures
   * together), so that a failure found at the end is still shrunk; a try still waiting for answers
   * then is cut off. */
  int64_t run_stop = r->impl->stop_at_ns;
  double run_s = r->cfg->shrink_run_s > 0 ? r->cfg->shrink_run_s : SHRINK_RUN_MAX_S;
  double t0 = cs_now_s(), left = r->campaign ? SHRINK_MAX_S : run_s - r->shrink_spent;
  s.stop_at = t0 + (left < SHRINK_MAX_S ? left : SHRINK_MAX_S);
  if (r->deadline > 0 && r->deadline + SHRINK_GRACE_S < s.stop_at)
    s.stop_at = r->deadline + SHRINK_GRACE_S;
  r->impl->stop_at_ns = ns_of(s.stop_at);
  unsigned steps = 0;
  bool progress = s.cand != NULL; /* without room for a candidate, the case is reported unshrunk */
  bool unshrunk_said = false;     /* a "not shrunk" note is in the message */
  if (left <= 0) {
    progress = false;
    note_shrink(cell, "not shrunk: the run's %g s for shrinking were spent on earlier failures", run_s);
    unshrunk_said = true;
  }
  /* A restart per try costs a process start (tens of ms for an interpreter): first see whether the
   * failure shows without one (two answers of the same process differ); if not, restart per try. */
  r->shrink_without_restart = (cell->prop->needs & CS_NEED_RESTART) != 0;
  r->shrink_answer_needs = 0;
  r->request_faults_only = cs_property_is_answer(cell->prop) && !cell->start_fault;
  bool reproduced = false, held = false;
  while (progress && s.budget) {
    unsigned before = s.budget;
    if (s.confirm_fresh) /* alone: in a process that saw no request before */
      fresh_start(r);
    int rc = rerun_best(&s);
    if (rc < 0)
      goto done;
    /* held: it ran, every request was answered, and the cell holds (a fault leaves it open, and so
     * does a request not sent: a replay gives a kind up after a few faults) */
    held = rc == 0 && !s.stopped_by && s.budget < before && !r->runs[0].cut &&
           !first_reply(&r->runs[0], is_fault, NULL) && !first_reply(&r->runs[0], is_skipped, NULL);
    if (rc == 1) {
      reproduced = true;
      s.bs = size_of_last(r);
      keep_case(&s);
      /* A fault is shrunk among the replies it was one of: an implementation that faults on every
       * request would otherwise cost a restart for each of about 30 requests per try. */
      if (cs_property_is_answer(cell->prop))
        first_fault(r, &r->runs[0], &r->shrink_answer_needs);
    }
    if (rc == 1 || !r->shrink_without_restart)
      break;
    r->shrink_without_restart = false;
  }
  /* A case that held when run again alone (a fresh process, say, for a fault that needs many
   * requests first) has nothing to shrink against: every try would hold, and a slow program would
   * spend the whole shrink time on them. Reported as found, and said so. */
  if (!reproduced && held) {
    progress = false;
    note_shrink(cell, "not shrunk: the case held when run again alone");
    unshrunk_said = true;
  }
  while (progress && s.budget) {
    progress = false;
    /* Pass 1: delete spans, larger first, from the end. */
    for (size_t size = 8; size >= 1 && s.budget; size /= 2) {
      for (size_t i = s.nbest >= size ? s.nbest - size + 1 : 0; i-- > 0 && s.budget;) {
        if (i + size > s.nbest)
          continue;
        size_t nc = 0;
        for (size_t k = 0; k < s.nbest; k++)
          if (k < i || k >= i + size)
            s.cand[nc++] = s.best[k];
        int rc = attempt(&s, nc);
        if (rc < 0)
          goto done;
        if (rc == 1) {
          steps++;
          progress = true;
        }
      }
    }
    /* Pass 2: lower each value: to 0, then halve, then minus one. */
    for (size_t i = 0; i < s.nbest && s.budget; i++) {
      while (s.best[i] > 0 && s.budget) {
        uint64_t tries[3] = {0, s.best[i] / 2, s.best[i] - 1};
        bool lowered = false;
        for (int k = 0; k < 3 && s.budget && !lowered; k++) {
          if (tries[k] >= s.best[i] || (k > 0 && tries[k] == tries[k - 1]))
            continue;
          memcpy(s.cand, s.best, s.nbest * sizeof *s.cand);
          s.cand[i] = tries[k];
          int rc = attempt(&s, s.nbest);
          if (rc < 0)
            goto done;
          if (rc == 1) {
            steps++;
            progress = lowered = true;
          }
        }
        if (!lowered)
          break;
      }
    }
    /* Pass 3: from a case the fixed-size passes are stuck on, whole units. */
    int unit_steps = shrink_units(&s);
    if (unit_steps < 0)
      goto done;
    steps += (unsigned)unit_steps;
    progress = progress || unit_steps > 0;
    if (!progress) { /* Pass 4: only when the passes above are stuck */
      int pair_steps = shrink_pairs(&s);
      if (pair_steps < 0)
        goto done;
      steps += (unsigned)pair_steps;
      progress = pair_steps > 0;
    }
  }
done:
  /* The time or a stop signal ended shrinking (a signal also cuts the try in flight): the case is
   * reported as it stands, and says so. */
  if (interrupted(r->cfg) && !s.stopped_by)
    s.stopped_by = "a stop signal came";
  if (s.stopped_by && !unshrunk_said) {
    if (steps)
      note_shrink(cell, "shrinking stopped after %u step%s: %s", steps, steps == 1 ? "" : "s", s.stopped_by);
    else
      note_shrink(cell, "not shrunk: %s", s.stopped_by);
  }
  if (cell->found_shrinking) /* its case is not case_index itself: the report says whose it is */
    note_shrink(cell, "found on a case that shrinking %s's failure of that case tried", cell->found_shrinking);
  r->shrink_spent += cs_now_s() - t0;
  free(s.cand);
  cell->nchoices = s.nbest;
  cell->shrink_steps = steps;
  cell->shrunk = true;
  r->impl->stop_at_ns = run_stop;
  r->shrink_without_restart = false;
  r->shrink_answer_needs = 0;
  r->request_faults_only = false;
}

/* --- the run ------------------------------------------------------------------------------------ */

bool cs_run_selects(const cs_run_config *cfg, const char *name) {
  if (!cfg->nonly)
    return true;
  for (size_t i = 0; i < cfg->nonly; i++)
    if (strncmp(name, cfg->only[i], strlen(cfg->only[i])) == 0)
      return true;
  return false;
}

static void make_cells(runner *r) {
  size_t np;
  const cs_property *props = cs_properties(&np);
  r->cells = cs_xcalloc(np * CS_TARGET_COUNT + 1, sizeof *r->cells);
  r->ncells = 0;
  for (size_t i = 0; i < np; i++) {
    const cs_property *p = &props[i];
    if (!cs_run_selects(r->cfg, p->name) && !cs_property_is_answer(p))
      continue;
    if (!p->per_target) {
      cs_outcome *c = &r->cells[r->ncells++];
      c->prop = p;
      c->target = -1;
      c->applicable = (r->impl->info.ops & p->op) != 0;
      if (strcmp(p->name, "vectors.canonical_v1") == 0)
        c->applicable = false; /* checked by the caller against the vectors file */
      continue;
    }
    for (int t = 0; t < CS_TARGET_COUNT; t++) {
      if (p->only_target >= 0 && p->only_target != t)
        continue;
      if (r->cfg->targets && !(r->cfg->targets >> t & 1u))
        continue;
      cs_outcome *c = &r->cells[r->ncells++];
      c->prop = p;
      c->target = t;
      c->applicable = supports(r, p->op, t);
    }
  }
  /* protocol.answer judges the answers to the other cells' requests: when none of them applies,
   * no request is sent and there is nothing for it to judge (a replay of one case asks for every
   * request of the case: replay_needs). */
  cs_outcome *answer = NULL;
  bool any = false;
  for (size_t i = 0; i < r->ncells; i++) {
    if (cs_property_is_answer(r->cells[i].prop))
      answer = &r->cells[i];
    else
      any = any || r->cells[i].applicable;
  }
  if (answer && !any && !r->cfg->replay_one)
    answer->applicable = false;
}

/* The replies read by every property of an op the implementation has, whether checked or not. */
static unsigned every_need(const runner *r) {
  unsigned needs = 0;
  size_t np;
  const cs_property *props = cs_properties(&np);
  for (size_t i = 0; i < np; i++)
    if (r->impl->info.ops & props[i].op)
      needs |= props[i].needs;
  return needs;
}

/* What a replay of one case asks for: protocol.answer reads no reply of its own, so asked for by
 * name it is every request a full run makes, since the fault it replays may be in any of them. */
static unsigned replay_needs(const runner *r, const cs_run_config *cfg) {
  return cfg->nonly && cs_run_selects(cfg, CS_PROPERTY_ANSWER) ? r->needs | every_need(r) : r->needs;
}

static void recompute_needs(runner *r) {
  r->needs = 0;
  for (size_t i = 0; i < r->ncells; i++)
    if (r->cells[i].applicable && (!r->cells[i].failed || r->campaign))
      r->needs |= r->cells[i].prop->needs;
}

/* The choices case i of the batch consumed (a replayed sequence may be longer than what it used). */
static uint64_t *copy_choices(const cs_choices *ch, size_t *n) {
  size_t nv = ch->replay ? ch->pos : ch->n;
  if (nv > ch->n)
    nv = ch->n;
  uint64_t *v = cs_xcalloc(nv + 1, sizeof *v);
  if (nv)
    memcpy(v, ch->v, nv * sizeof *v);
  *n = nv;
  return v;
}

/* The first failure of a run's cell, on case i of the batch: the cell reports it. */
/* Did protocol.answer fail on `run` for a fault of the program's start (cs_outcome.start_fault)? */
static bool started_fault(const runner *r, const cs_outcome *cell, const cs_caserun *run) {
  const cs_reply *f = cs_property_is_answer(cell->prop) ? first_fault(r, run, NULL) : NULL;
  return f && f->at_start;
}

static void fail_cell(runner *r, cs_outcome *cell, size_t i, const char *why) {
  cell->failed = true;
  cell->start_fault = started_fault(r, cell, &r->runs[i]);
  snprintf(cell->message, sizeof cell->message, "%s", why);
  cell->case_index = r->runs[i].case_index;
  cell->choices = r->batch_literal ? NULL : copy_choices(&r->ch[i], &cell->nchoices);
  cell->literal_twin = r->batch_literal ? r->literal_twin : (cs_literal_twin){0};
  cell->literal_path = r->batch_literal && r->literal_path ? cs_xstrdup(r->literal_path) : NULL;
  record_case(cell, &r->runs[i], &cell->history_json, &cell->answer_json, &cell->shrunk_turns, &cell->shrunk_calls,
              &cell->planted);
}

/* A failure a campaign takes, on case i of the batch, to be shrunk and reported after the batch. */
static pending_failure *take_failure(runner *r, size_t c, size_t i, const char *why) {
  if (r->npending == r->cappending) {
    r->cappending = r->cappending ? r->cappending * 2 : 16;
    r->pending = cs_xrealloc_array(r->pending, r->cappending, sizeof *r->pending);
  }
  pending_failure *p = &r->pending[r->npending++];
  memset(p, 0, sizeof *p);
  p->cell = c;
  p->case_index = r->runs[i].case_index;
  p->start_fault = started_fault(r, &r->cells[c], &r->runs[i]);
  snprintf(p->message, sizeof p->message, "%s", why);
  p->choices = r->batch_literal ? NULL : copy_choices(&r->ch[i], &p->nchoices);
  p->literal_twin = r->batch_literal ? r->literal_twin : (cs_literal_twin){0};
  record_case(&r->cells[c], &r->runs[i], &p->history_json, &p->answer_json, &p->turns, &p->calls, &p->planted);
  return p;
}

static void shrink(runner *r, cs_outcome *cell);

/* Campaigns: shrinks and reports every failure taken in the batch; the first one of a cell stays
 * in the cell for the result. */
static void report_taken(runner *r) {
  for (size_t k = 0; k < r->npending; k++) {
    pending_failure *p = &r->pending[k];
    cs_outcome *cell = &r->cells[p->cell];
    cs_outcome tmp = *cell;
    tmp.failed = true;
    tmp.choices = p->choices;
    tmp.nchoices = p->nchoices;
    tmp.literal_twin = p->literal_twin;
    tmp.planted = p->planted;
    tmp.case_index = p->case_index;
    snprintf(tmp.message, sizeof tmp.message, "%s", p->message);
    tmp.history_json = p->history_json;
    tmp.answer_json = p->answer_json;
    tmp.shrink_steps = 0;
    tmp.shrunk = false;
    tmp.shrunk_turns = p->turns;
    tmp.shrunk_calls = p->calls;
    tmp.found_shrinking = p->found_shrinking;
    tmp.start_fault = p->start_fault;
    /* p is not read after here: shrinking may take more failures (fault_while_shrinking), moving
     * r->pending; the loop reaches them. */
    if (tmp.choices && !r->fatal) /* a literal case has no choices: it is reported as it is */
      shrink(r, &tmp);
    if (!r->fatal)
      r->cfg->on_failure(r->cfg->failure_user, &tmp);
    if (!cell->failed) {
      tmp.cases = cell->cases;
      *cell = tmp;
    } else {
      free(tmp.choices);
      free(tmp.history_json);
      free(tmp.answer_json);
    }
  }
  r->npending = 0;
}

static int check_batch(runner *r, size_t n, uint64_t *failures) {
  bool any_new = false;
  /* A restart that failed after a request's fault in the same batch (case 0's restart check after
   * a later case's request ended the process) is that fault's wake, not a finding: its case
   * replays as a pass. The request's fault is the one reported, in a run as in a campaign. */
  bool request_fault = false;
  for (size_t i = 0; r->batch_fault && i < n && !request_fault; i++)
    request_fault = first_reply(&r->runs[i], is_request_fault, NULL) != NULL;
  for (size_t i = 0; i < n; i++) {
    const cs_caserun *run = &r->runs[i];
    if (run->cut)
      continue;
    for (size_t c = 0; c < r->ncells; c++) {
      cs_outcome *cell = &r->cells[c];
      if (!cell->applicable || cell->undecided || (cell->failed && !r->campaign))
        continue;
      char why[600];
      int rc = check_cell(r, cell, run, why, sizeof why);
      if (rc == CHECK_UNDECIDED) { /* the rule is at fault: the cell is not judged from here on */
        cell->undecided = true;
        cell->undecided_case = run->case_index;
        snprintf(cell->undecided_why, sizeof cell->undecided_why, "%s", why);
        continue;
      }
      if (rc < 0 || (rc == 0 && request_fault && started_fault(r, cell, run)))
        continue;
      cell->cases++;
      if (rc == 1)
        continue;
      (*failures)++;
      if (r->campaign) {
        if (!r->cfg->want_failure || r->cfg->want_failure(r->cfg->failure_user, cell, run->case_index, why))
          take_failure(r, c, i, why);
        continue;
      }
      fail_cell(r, cell, i, why);
      any_new = true;
    }
  }
  if (r->npending) {
    /* After the batch: shrinking reuses the batch's buffers. */
    report_taken(r);
    return r->fatal ? -1 : 0;
  }
  if (!any_new)
    return 0;
  /* Shrink after the batch: shrinking reuses the batch's buffers. Again while a failure shrinking
   * found (protocol.answer on a try that faulted) is left. */
  for (bool again = true; again && !r->fatal;) {
    again = false;
    for (size_t c = 0; c < r->ncells; c++) {
      cs_outcome *cell = &r->cells[c];
      if (cell->failed && cell->choices && !cell->shrunk && !r->fatal) {
        shrink(r, cell);
        again = true;
      }
    }
  }
  recompute_needs(r);
  return r->fatal ? -1 : 0;
}

/* Cases [0, n) of the batch ran: those cut off by the time are counted apart. */
static void count_run(runner *r, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (r->runs[i].cut)
      r->res->cases_cut++;
    else
      r->res->cases++;
}

static void count_labels(runner *r, size_t n) {
  for (size_t i = 0; i < n; i++) {
    cs_labelset l = r->runs[i].gen.labels;
    /* A twin is planned by the generator and planted only from an answer of the implementation:
     * one it does not support (or that faulted) leaves the case without one. */
    if (!r->runs[i].nplanted)
      l &= ~CS_LABEL_BIT(CS_LABEL_TWIN_IMPL);
    for (int k = 0; k < CS_LABEL_COUNT; k++)
      if (l >> k & 1u)
        r->res->label_counts[k]++;
    r->res->stat_cases++;
  }
}

static int runner_init(runner *r, cs_impl *impl, cs_ruleset *rs, const cs_run_config *cfg, cs_run_result *out,
                       cs_err *err) {
  memset(r, 0, sizeof *r);
  memset(out, 0, sizeof *out);
  r->impl = impl;
  r->rs = rs;
  r->cfg = cfg;
  r->res = out;
  r->err = err;
  r->emit_targets = impl->info.emit_targets;
  r->norm_targets = impl->info.normalize_targets;
  if (cfg->targets) {
    r->emit_targets &= cfg->targets;
    r->norm_targets &= cfg->targets;
  }
  r->runs = cs_xcalloc(MAX_BATCH, sizeof *r->runs);
  r->campaign = cfg->on_failure != NULL;
  make_cells(r);
  recompute_needs(r);
  return 0;
}

static void runner_finish(runner *r, double t0) {
  r->res->cells = r->cells;
  r->res->ncells = r->ncells;
  r->res->seconds = cs_now_s() - t0;
  r->res->shrink_seconds = r->shrink_spent;
  for (size_t i = 0; i < MAX_BATCH; i++)
    cs_choices_free(&r->ch[i]);
  free(r->runs);
  free(r->q);
  free(r->tmp);
  for (size_t i = 0; i < r->npending; i++) {
    free(r->pending[i].choices);
    free(r->pending[i].history_json);
    free(r->pending[i].answer_json);
  }
  free(r->pending);
  cs_arena_free(&r->arena);
  cs_arena_free(&r->scratch);
}

/* Chooses the case indices of the next batch: this shard's indices, and a batch that holds a
 * restart check starts with it. */
typedef struct {
  uint64_t seed, next, max_cases;
  size_t batch;
  unsigned restart_every;
  uint32_t sn, si;
} batch_picker;

/* One batch of generated cases: its indices, choices and histories (memory in `arena`). */
typedef struct {
  const cs_gen_config *gc;
  uint64_t seed;
  size_t n;
  bool restart_now;
  uint64_t idx[MAX_BATCH];
  cs_choices ch[MAX_BATCH];
  cs_gen_case gen[MAX_BATCH];
  cs_arena arena;
} gen_slot;

/* How far case ci is from the shard's next case (0: ci is the shard's). */
static uint64_t to_shard(const batch_picker *p, uint64_t ci) {
  uint64_t r = ci % p->sn;
  return r <= p->si ? p->si - r : p->sn - r + p->si;
}

/* Whether the shard has a case left at or after p->next. */
static bool picker_has_more(const batch_picker *p) {
  return p->next < p->max_cases && to_shard(p, p->next) < p->max_cases - p->next;
}

static size_t pick_batch(batch_picker *p, gen_slot *sl) {
  size_t n = 0;
  sl->restart_now = false;
  sl->seed = p->seed;
  while (n < p->batch && p->next < p->max_cases) {
    uint64_t ci = p->next, skip = to_shard(p, ci);
    if (skip) { /* to the shard's next index at once: one by one took seconds under --shard 0/4294967295 */
      p->next = skip < p->max_cases - ci ? ci + skip : p->max_cases;
      continue;
    }
    p->next++;
    if (ci % p->restart_every == 0 && n == 0) {
      sl->restart_now = true;
    } else if (ci % p->restart_every == 0) {
      p->next--; /* start a new batch so this case is first and gets the restart check */
      break;
    }
    sl->idx[n++] = ci;
  }
  sl->n = n;
  return n;
}

/* Generates a slot's cases; touches nothing but the slot, so it may run on its own thread. */
static void generate_slot(gen_slot *sl) {
  cs_arena_reset(&sl->arena);
  for (size_t i = 0; i < sl->n; i++) {
    cs_choices_record(&sl->ch[i], case_seed(sl->seed, sl->idx[i]));
    cs_gen_history(&sl->ch[i], sl->gc, &sl->arena, &sl->gen[i]);
  }
}

static void *generate_slot_main(void *slot) {
  generate_slot(slot);
  return NULL;
}

/* The size of a batch that starts after `before` more cases. Without --time, `cap`. Under --time,
 * what half the time left then allows at the pace of the last batch (`last_n` cases in `last_s`
 * seconds), at most twice the last batch and at least one case: an implementation that crashes and
 * restarts on every request may take seconds per case, and a whole batch of those would overrun
 * --time many times over. A batch generated ahead is sized while the one before it runs, hence
 * `before`: sized on the time left now, the two together would take all of it. */
static size_t next_batch_size(const runner *r, size_t cap, size_t last_n, double last_s, size_t before) {
  if (r->deadline <= 0)
    return cap;
  size_t n = last_n ? 2 * last_n : FIRST_TIMED_BATCH;
  if (last_n && last_s > 0) {
    double pace = last_s / (double)last_n;
    double fits = (r->deadline - cs_now_s() - (double)before * pace) / 2 / pace;
    if (fits < (double)n)
      n = fits < 1 ? 1 : (size_t)fits;
  }
  return n < cap ? n : cap;
}

int cs_run_impl(cs_impl *impl, cs_ruleset *rs, const cs_run_config *cfg, cs_run_result *out, cs_err *err) {
  runner r;
  runner_init(&r, impl, rs, cfg, out, err);
  double t0 = cs_now_s();
  int64_t caller_stop = impl->stop_at_ns;
  const volatile sig_atomic_t *caller_interrupt = impl->interrupt;
  impl->interrupt = cfg->interrupt; /* a stop signal cuts the requests still waiting */
  unsigned caller_give_up = impl->give_up_after;
  impl->give_up_after = cfg->replay_one ? CS_REPLAY_GIVE_UP_AFTER : CS_RUN_GIVE_UP_AFTER;
  if (cfg->time_s > 0) {
    r.deadline = t0 + cfg->time_s;
    impl->stop_at_ns = ns_of(r.deadline + CUT_GRACE_S);
  }
  uint64_t failures = 0;
  size_t batch = cfg->batch ? cfg->batch : 32;
  if (batch > MAX_BATCH)
    batch = MAX_BATCH;
  unsigned restart_every = cfg->restart_every ? cfg->restart_every : 500;
  case_plan *plans = cs_xcalloc(MAX_BATCH, sizeof *plans);
  uint64_t idx[MAX_BATCH];
  int rc = 0;

  /* Literal cases first (planted collision pairs), then the corpus: saved failures are replayed
   * before anything new. */
  for (size_t i = 0; i < cfg->nliteral && rc == 0; i++) {
    cs_arena_reset(&r.arena);
    cs_choices_replay(&r.ch[0], NULL, 0);
    idx[0] = UINT64_MAX;
    r.literal_case = cfg->literal[i];
    r.literal_twin = cfg->literal_twins ? cfg->literal_twins[i] : (cs_literal_twin){0};
    r.literal_path = cfg->literal_paths ? cfg->literal_paths[i] : NULL;
    int bad = run_batch(&r, 1, plans, cfg->replay_one ? replay_needs(&r, cfg) : r.needs, false, idx);
    r.literal_case = NULL;
    r.batch_literal = true;
    if (bad || check_batch(&r, 1, &failures))
      rc = -1;
    r.batch_literal = false;
    count_run(&r, 1);
  }
  for (size_t i = 0; i < cfg->nreplay && rc == 0; i++) {
    cs_arena_reset(&r.arena);
    cs_choices_replay(&r.ch[0], cfg->replay[i], cfg->replay_len[i]);
    idx[0] = UINT64_MAX;
    if (run_batch(&r, 1, plans, r.needs, false, idx) || check_batch(&r, 1, &failures))
      rc = -1;
    count_run(&r, 1);
  }

  batch_picker pick = {
      .seed = cfg->seed,
      .next = 0,
      .max_cases = cfg->corpus_only ? 0
                   : cfg->cases     ? cfg->cases
                                    : CS_RUN_DEFAULT_CASES,
      .batch = batch,
      .restart_every = restart_every,
      .sn = cfg->shard_n ? cfg->shard_n : 1,
      .si = cfg->shard_n ? cfg->shard_i : 0,
  };
  bool gen_ahead = cfg->generate_ahead;
  gen_slot *slots = calloc(2, sizeof *slots);
  if (!slots) {
    free(plans);
    impl->stop_at_ns = caller_stop;
    impl->interrupt = caller_interrupt;
    impl->give_up_after = caller_give_up;
    runner_finish(&r, t0);
    return cs_err_set(err, "out of memory for the case batches");
  }
  int cur = 0;
  slots[0].gc = slots[1].gc = &cfg->gen;
  size_t last_n = 0; /* the last batch run, for sizing the next under --time */
  double last_s = 0;
  pick.batch = next_batch_size(&r, batch, 0, 0, 0);
  if (gen_ahead && pick_batch(&pick, &slots[0]))
    generate_slot(&slots[0]);
  while (rc == 0 && r.needs) {
    if (r.deadline > 0 && cs_now_s() >= r.deadline)
      break;
    if (interrupted(cfg)) {
      out->interrupted = true;
      break;
    }
    if (cfg->stop_on_first && failures)
      break;
    cs_arena_reset(&r.arena);
    gen_slot *sl = &slots[cur], *nx = gen_ahead ? &slots[cur ^ 1] : NULL;
    pick.batch = next_batch_size(&r, batch, last_n, last_s, gen_ahead ? sl->n : 0);
    if (!gen_ahead)
      pick_batch(&pick, sl);
    if (!sl->n)
      break;
    /* While this batch runs, a second thread generates the next one: an external implementation
     * then waits less for the harness, which otherwise generates between batches. */
    pthread_t th;
    bool ahead = false;
    if (nx && pick_batch(&pick, nx) > 0) {
      ahead = pthread_create(&th, NULL, generate_slot_main, nx) == 0;
      if (!ahead)
        generate_slot(nx);
    }
    size_t n = sl->n;
    for (size_t i = 0; i < n; i++) {
      idx[i] = sl->idx[i];
      if (gen_ahead) { /* the slot's recorded choices become the runner's; its old buffers are reused */
        cs_choices t = r.ch[i];
        r.ch[i] = sl->ch[i];
        sl->ch[i] = t;
      } else {
        cs_choices_record(&r.ch[i], case_seed(cfg->seed, idx[i]));
      }
    }
    r.pregen = gen_ahead ? sl->gen : NULL;
    double batch_t0 = cs_now_s();
    int bad = run_batch(&r, n, plans, r.needs, sl->restart_now, idx);
    r.pregen = NULL;
    if (!bad) {
      count_labels(&r, n);
      count_run(&r, n);
      for (size_t i = 0; cfg->on_case && i < n; i++)
        if (!r.runs[i].cut)
          cfg->on_case(cfg->case_user, idx[i], r.ch[i].v, r.ch[i].n, &r.runs[i].gen.h);
      bad = check_batch(&r, n, &failures);
    }
    if (ahead)
      pthread_join(th, NULL);
    if (bad) {
      rc = -1;
      break;
    }
    /* Every kind of request the run needs was given up: no later case could be judged, and a
     * campaign would spin through cases that check nothing until its --time ran out. */
    if (r.kinds_asked && (impl->given_up & r.kinds_asked) == r.kinds_asked)
      break;
    last_n = n;
    last_s = cs_now_s() - batch_t0;
    if (cfg->progress)
      cfg->progress(cfg->progress_user, out->cases, failures, r.cells, r.ncells, cs_now_s() - t0);
    if (gen_ahead)
      cur ^= 1;
  }
  /* The loop's own condition ended it with cases left (with generation ahead, a picked batch is one). */
  out->ended_early = rc == 0 && !r.needs && !out->interrupted && !(cfg->stop_on_first && failures) &&
                     (picker_has_more(&pick) || (gen_ahead && slots[cur].n));
  for (int k = 0; k < 2; k++) {
    for (size_t i = 0; i < MAX_BATCH; i++)
      cs_choices_free(&slots[k].ch[i]);
    cs_arena_free(&slots[k].arena);
  }
  free(slots);
  free(plans);
  impl->stop_at_ns = caller_stop;
  impl->interrupt = caller_interrupt;
  impl->give_up_after = caller_give_up;
  out->given_up = impl->given_up & r.kinds_asked;
  /* Cases cut off by the time are not judged; when that was every case, the run checked nothing.
   * Cut off by a stop signal, the run was interrupted: the caller says so. */
  if (interrupted(cfg))
    out->interrupted = true;
  if (rc == 0 && out->cases == 0 && out->cases_cut > 0 && !out->interrupted) {
    cs_err_set(err, "no case got all its answers within --time %gs and %gs more for answers in flight (%s)",
               cfg->time_s, CUT_GRACE_S, r.first_cut);
    rc = -1;
  }
  runner_finish(&r, t0);
  return rc;
}

int cs_run_replay(cs_impl *impl, cs_ruleset *rs, const cs_run_config *cfg, const uint64_t *choices, size_t n,
                  cs_run_result *out, cs_err *err) {
  const uint64_t *one[1] = {choices};
  size_t len[1] = {n};
  cs_run_config c = *cfg;
  c.replay = one;
  c.replay_len = len;
  c.nreplay = 1;
  c.cases = 0;
  c.replay_one = true;
  /* cases = 0 means the default; run no generated case at all */
  runner r;
  runner_init(&r, impl, rs, &c, out, err);
  double t0 = cs_now_s();
  uint64_t failures = 0, idx[1] = {UINT64_MAX};
  case_plan plan;
  cs_choices_replay(&r.ch[0], choices, n);
  int rc = 0;
  unsigned needs = replay_needs(&r, &c) | CS_NEED_EMIT_RESTART;
  if (needs & CS_NEED_NORM) /* the batch is built only for normalize's properties */
    needs |= CS_NEED_NORM_RESTART;
  unsigned caller_give_up = impl->give_up_after;
  impl->give_up_after = CS_REPLAY_GIVE_UP_AFTER;
  if (run_batch(&r, 1, &plan, needs, true, idx) || check_batch(&r, 1, &failures))
    rc = -1;
  impl->give_up_after = caller_give_up;
  out->given_up = impl->given_up & r.kinds_asked;
  out->cases = 1;
  runner_finish(&r, t0);
  return rc;
}

void cs_outcome_undecided_message(const cs_outcome *oc, char *out, size_t n) {
  const char *tname = oc->target >= 0 ? cs_target_get((cs_target_id)oc->target)->name : "-";
  snprintf(out, n, "%s (%s on %s is not judged)", oc->undecided_why, oc->prop->name, tname);
}

void cs_run_result_free(cs_run_result *r) {
  for (size_t i = 0; i < r->ncells; i++) {
    free(r->cells[i].choices);
    free(r->cells[i].history_json);
    free(r->cells[i].answer_json);
    free(r->cells[i].literal_path);
  }
  free(r->cells);
  r->cells = NULL;
  r->ncells = 0;
}

/* --- one case at a time (coverage-guided fuzzing) ---------------------------------------------- */

struct cs_case_checker {
  runner r;
  cs_run_config cfg; /* the runner points at this copy */
  cs_run_result res;
  const cs_history *last;
};

cs_case_checker *cs_case_checker_new(cs_impl *impl, cs_ruleset *rs, const cs_run_config *cfg, bool required_only,
                                     cs_err *err) {
  cs_case_checker *c = calloc(1, sizeof *c);
  if (!c) {
    cs_err_set(err, "out of memory");
    return NULL;
  }
  c->cfg = *cfg;
  c->cfg.on_failure = NULL; /* each case stands alone: nothing is retired, nothing is shrunk */
  runner_init(&c->r, impl, rs, &c->cfg, &c->res, err);
  for (size_t i = 0; required_only && i < c->r.ncells; i++)
    if (c->r.cells[i].prop->tier != CS_TIER_REQUIRED)
      c->r.cells[i].applicable = false;
  recompute_needs(&c->r);
  return c;
}

static bool in_scope(const cs_outcome *cell, unsigned targets, unsigned ops) {
  return cell->applicable && (cell->target < 0 || (targets >> cell->target & 1u)) && (cell->prop->op & ops);
}

int cs_case_checker_run(cs_case_checker *c, const uint8_t *data, size_t size, unsigned targets, unsigned ops,
                        const cs_outcome **failed, cs_err *err) {
  runner *r = &c->r;
  *failed = NULL;
  if (!targets)
    targets = c->cfg.targets ? c->cfg.targets : ~0u;
  if (!ops)
    ops = CS_OP_ALL;
  /* Only the requests the properties in scope read are made. */
  r->emit_targets = ops & CS_OP_EMIT ? r->impl->info.emit_targets & targets : 0;
  r->norm_targets = ops & CS_OP_NORMALIZE ? r->impl->info.normalize_targets & targets : 0;
  r->needs = 0;
  for (size_t i = 0; i < r->ncells; i++)
    if (in_scope(&r->cells[i], targets, ops))
      r->needs |= r->cells[i].prop->needs;
  r->err = err;
  r->fatal = false;
  cs_arena_reset(&r->arena);
  cs_choices_replay_bytes(&r->ch[0], data, size);
  uint64_t idx = 0;
  case_plan plan;
  c->last = NULL;
  if (run_batch(r, 1, &plan, r->needs, false, &idx))
    return -1;
  c->last = r->runs[0].main.h;
  for (size_t i = 0; i < r->ncells; i++) {
    cs_outcome *cell = &r->cells[i];
    if (!in_scope(cell, targets, ops))
      continue;
    if (check_cell(r, cell, &r->runs[0], cell->message, sizeof cell->message) == 0) {
      *failed = cell;
      return 0;
    }
  }
  return 0;
}

const cs_history *cs_case_checker_history(const cs_case_checker *c) {
  return c->last;
}

void cs_case_checker_free(cs_case_checker *c) {
  if (!c)
    return;
  runner_finish(&c->r, cs_now_s());
  cs_run_result_free(&c->res);
  free(c);
}
