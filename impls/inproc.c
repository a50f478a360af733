/* impls/inproc.c: the vtable shared by built-ins that answer in-process. exec takes each
 * request's history index (the harness's, or one built in the case arena) from the batch memo and
 * calls the built-in's answer function; an op or target the built-in does not support is answered
 * CS_REPLY_REJECTED, like an {"error":...} line from a subprocess. Also the helpers of
 * impls/builtins.h. */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "impls/builtins.h"
#include "providers/canonical.h"

/* splitmix64: spreads a seed over all 64 bits (xorshift needs a well-mixed, non-zero state). */
static uint64_t mix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  x ^= x >> 31;
  return x ? x : 0x2545F4914F6CDD1DULL;
}

static uint64_t clock_entropy(void) {
  struct timespec rt = {0, 0}, mt = {0, 0};
  clock_gettime(CLOCK_REALTIME, &rt);
  clock_gettime(CLOCK_MONOTONIC, &mt);
  return ((uint64_t)rt.tv_sec * 1000000000ULL + (uint64_t)rt.tv_nsec) ^ ((uint64_t)mt.tv_nsec << 32) ^
         (uint64_t)mt.tv_sec;
}

uint64_t cs_inproc_random(cs_inproc_impl *p) {
  uint64_t x = p->rng;
  x ^= x >> 12;
  x ^= x << 25;
  x ^= x >> 27;
  p->rng = x;
  return x * 0x2545F4914F6CDD1DULL;
}

int cs_inproc_init(cs_inproc_impl *p, const cs_impl_env *env, cs_err *err) {
  if (!env || !env->rules)
    return cs_err_set(err, "built-in implementation: no target rules given");
  p->base.vt = &cs_inproc_vtable;
  p->rules = env->rules;
  p->seed = env->seed;
  p->rng = mix64(env->seed);
  p->emit = NULL;
  p->canonicalize = NULL;
  p->normalize = NULL;
  p->hasher = cs_hasher_new();
  if (!p->hasher)
    return cs_err_set(err, "built-in implementation: SHA-256 is not available from OpenSSL");
  return 0;
}

cs_inproc_impl *cs_inproc_new(size_t size, const cs_impl_env *env, cs_err *err) {
  if (size < sizeof(cs_inproc_impl)) {
    cs_err_set(err, "built-in implementation: state smaller than cs_inproc_impl");
    return NULL;
  }
  cs_inproc_impl *p = calloc(1, size);
  if (!p) {
    cs_err_set(err, "built-in implementation: out of memory");
    return NULL;
  }
  if (cs_inproc_init(p, env, err)) {
    cs_hasher_free(p->hasher);
    free(p);
    return NULL;
  }
  return p;
}

cs_inproc_memo *cs_inproc_memo_of(cs_inproc_impl *p, const cs_history *h, const cs_history_index *ix, cs_arena *a) {
  for (unsigned i = 0; i < p->nmemo; i++)
    if (p->memo[i].h == h)
      return &p->memo[i];
  /* Round-robin replacement: a batch touches a handful of histories at a time. */
  cs_inproc_memo *m = &p->memo[p->memo_next];
  p->memo_next = (p->memo_next + 1) % CS_INPROC_MEMO;
  if (p->nmemo < CS_INPROC_MEMO)
    p->nmemo++;
  m->h = h;
  m->has_canon = false;
  if (ix)
    m->ix = *ix;
  else
    cs_history_index_build(h, a, &m->ix);
  return m;
}

const cs_answer *cs_inproc_canonical(cs_inproc_impl *p, const cs_history *h, cs_arena *a) {
  cs_inproc_memo *m = cs_inproc_memo_of(p, h, NULL, a);
  if (!m->has_canon) {
    cs_digest d = cs_inproc_digest(p);
    m->canon = cs_canonicalize(h, &m->ix, &d, a);
    m->has_canon = true;
  }
  return &m->canon;
}

void cs_inproc_keep_canonical(cs_inproc_impl *p, const cs_history *h, const cs_history_index *ix,
                              const cs_answer *canon, cs_arena *a) {
  cs_inproc_memo *m = cs_inproc_memo_of(p, h, ix, a);
  if (m->has_canon)
    return;
  /* A copy: the caller owns the answer it was given. */
  m->canon = cs_answer_new(canon->ncalls, canon->nresults, a);
  memcpy(m->canon.calls, canon->calls, canon->ncalls * sizeof *canon->calls);
  memcpy(m->canon.results, canon->results, canon->nresults * sizeof *canon->results);
  m->has_canon = true;
}

uint32_t *cs_inproc_result_pos(const cs_history *h, const cs_history_index *ix, cs_arena *a) {
  uint32_t *pos = CS_ARENA_NEW(a, uint32_t, ix->nresults + 1);
  uint32_t r = 0;
  for (uint32_t t = 0; t < h->nturns; t++)
    for (uint32_t k = 0; k < h->turns[t].nresults && r < ix->nresults; k++)
      pos[r++] = k;
  return pos;
}

cs_str cs_inproc_concat(cs_arena *a, cs_str x, cs_str y) {
  char *out = cs_arena_alloc(a, x.len + y.len + 1);
  if (x.len)
    memcpy(out, x.ptr, x.len);
  if (y.len)
    memcpy(out + x.len, y.ptr, y.len);
  out[x.len + y.len] = 0;
  return (cs_str){out, x.len + y.len};
}

static cs_reply rejected(cs_arena *a, const char *fmt, ...) CS_PRINTF(2, 3);
static cs_reply rejected(cs_arena *a, const char *fmt, ...) {
  char msg[256];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  cs_reply r = {0};
  r.status = CS_REPLY_REJECTED;
  r.message = cs_arena_strc(a, msg);
  return r;
}

static bool target_supported(cs_target_id t, unsigned mask) {
  return (unsigned)t < CS_TARGET_COUNT && (mask >> (unsigned)t & 1u);
}

static const char *target_label(cs_target_id t) {
  const cs_target *tg = cs_target_get(t);
  return tg ? tg->name : "(not a target)";
}

/* Our own answer functions are trusted, but a wrongly sized answer must surface as a fault of the
 * case, not as an out-of-bounds read in the properties. */
static cs_reply checked(cs_reply r, const cs_history_index *ix, cs_arena *a, const char *name) {
  if (r.answer.ncalls != ix->ncalls || r.answer.nresults != ix->nresults || !r.answer.calls || !r.answer.results) {
    cs_reply bad = rejected(a, "%s: answer has %u calls and %u results for %u and %u", name, r.answer.ncalls,
                            r.answer.nresults, ix->ncalls, ix->nresults);
    bad.status = CS_REPLY_PROTOCOL;
    return bad;
  }
  return r;
}

static cs_reply answer_one(cs_inproc_impl *p, const cs_request *rq, cs_arena *a) {
  const cs_impl_info *info = &p->base.info;
  const char *name = info->name ? info->name : "built-in";
  cs_reply r = {0};
  r.status = CS_REPLY_OK;
  r.message = cs_str_c("");
  const cs_history_index *ix;
  switch (rq->op) {
  case CS_OP_EMIT:
    if (!(info->ops & CS_OP_EMIT) || !p->emit)
      return rejected(a, "%s does not support op emit", name);
    if (!target_supported(rq->target, info->emit_targets))
      return rejected(a, "%s: emit does not support target %s", name, target_label(rq->target));
    if (!rq->history)
      return rejected(a, "%s: emit request without a history", name);
    ix = &cs_inproc_memo_of(p, rq->history, rq->index, a)->ix;
    r.answer = p->emit(p, rq->history, ix, rq->target, a);
    return checked(r, ix, a, name);
  case CS_OP_CANONICALIZE:
    if (!(info->ops & CS_OP_CANONICALIZE) || !p->canonicalize)
      return rejected(a, "%s does not support op canonicalize", name);
    if (!rq->history)
      return rejected(a, "%s: canonicalize request without a history", name);
    ix = &cs_inproc_memo_of(p, rq->history, rq->index, a)->ix;
    r.answer = p->canonicalize(p, rq->history, ix, a);
    return checked(r, ix, a, name);
  case CS_OP_NORMALIZE:
    if (!(info->ops & CS_OP_NORMALIZE) || !p->normalize)
      return rejected(a, "%s does not support op normalize", name);
    if (!target_supported(rq->target, info->normalize_targets))
      return rejected(a, "%s: normalize does not support target %s", name, target_label(rq->target));
    if (rq->nids && !rq->ids)
      return rejected(a, "%s: normalize request with %u IDs but no array", name, rq->nids);
    r.nids = rq->nids;
    r.ids = CS_ARENA_NEW(a, cs_str, rq->nids + 1);
    for (uint32_t i = 0; i < rq->nids; i++)
      r.ids[i] = p->normalize(p, rq->target, rq->ids[i], a);
    return r;
  }
  return rejected(a, "%s: unknown op %d", name, (int)rq->op);
}

static int inproc_exec(cs_impl *self, const cs_request *reqs, cs_reply *replies, size_t n, cs_arena *a, cs_err *err) {
  if (n && (!reqs || !replies || !a))
    return cs_err_set(err, "%s: exec called without requests, replies or arena",
                      self->info.name ? self->info.name : "built-in");
  cs_inproc_impl *p = (cs_inproc_impl *)self;
  p->nmemo = p->memo_next = 0; /* the arena may reuse a history's address in the next batch */
  for (size_t i = 0; i < n; i++)
    replies[i] = answer_one(p, &reqs[i], a);
  return 0;
}

/* Deterministic designs keep no state between requests: nothing to reset. A design that draws
 * random values gets a fresh generator, as a restarted process would (seed, old state, clock). */
static int inproc_restart(cs_impl *self, cs_err *err) {
  cs_inproc_impl *p = (cs_inproc_impl *)self;
  if (self->info.nondeterministic_by_design)
    p->rng = mix64(p->seed ^ p->rng ^ clock_entropy() ^ (uint64_t)(uintptr_t)p);
  return 0;
}

static cs_str inproc_stderr_tail(cs_impl *self) {
  return cs_str_c("");
}

static void inproc_destroy(cs_impl *self) {
  cs_inproc_impl *p = (cs_inproc_impl *)self;
  cs_hasher_free(p->hasher);
  free(p);
}

const cs_impl_vtable cs_inproc_vtable = {
    .exec = inproc_exec,
    .restart = inproc_restart,
    .stderr_tail = inproc_stderr_tail,
    .destroy = inproc_destroy,
};
