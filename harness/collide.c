/* harness/collide.c: birthday and distinguished-point collision search over caller-defined inputs
 * (harness/collide.h). Workers are threads; the table is shared under one lock, taken once per
 * batch, so the lock costs little next to the evaluations. */
#include "harness/collide.h"

#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "core/alloc.h"
#include "core/clock.h"

#define DEFAULT_MEMORY ((size_t)1 << 30)
#define DEFAULT_BATCH 4096u
#define FIRST_TIMED_BATCH 64u /* a batch's states when a time limit is set and the rate is not known */
#define TIME_SLICE_S 0.25     /* a batch's time under a time limit, once the rate is known */
#define FIRST_CAPACITY ((size_t)1 << 16)
#define MIN_CAPACITY ((size_t)1 << 8) /* the smallest table: a memory bound must hold two of it */
#define MAX_LOAD_NUM 7                /* grow or switch at 70% load */
#define MAX_LOAD_DEN 10
#define MIN_DP_BITS 8
#define CONFIRM_TRIES 3 /* evaluations of a candidate pair whose outputs came back different */
#define WALK_LIMIT 20   /* a walk longer than 20 expected lengths is in a cycle: restart it */

enum { MODE_BIRTHDAY, MODE_DP };

/* Birthday: fp of an output and the state that gave it (len 0). Distinguished points: fp of the
 * endpoint, the walk's start and its length. fp 0 marks an empty slot (real 0 is stored as 1). */
typedef struct {
  uint64_t fp, start, len;
} entry;

typedef struct {
  const cs_collide_config *cfg;
  pthread_mutex_t lock;
  entry *table;
  size_t cap, count, max_cap;
  size_t peak; /* bytes the table's mappings held at once, at most */
  int mode, dp_bits;
  unsigned epoch; /* bumped when the mode changes: walks of the old mode are dropped */
  uint64_t max_walk;
  atomic_uint_fast64_t evals;
  atomic_uint_fast64_t unreal; /* outputs that were stand-ins */
  atomic_bool stop;
  bool found;
  uint64_t a, b;
  bool failed;
  cs_err err;
  double t0, expected;
} shared;

typedef struct {
  shared *sh;
  unsigned id;
  void *ev;
  uint64_t rng;
} worker;

static uint64_t mix(uint64_t x) {
  x += 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}

static uint64_t next_random(worker *w) {
  w->rng += 0x9E3779B97F4A7C15ULL;
  return mix(w->rng);
}

uint64_t cs_collide_fingerprint(cs_str out) {
  uint64_t h = 0x243F6A8885A308D3ULL ^ (uint64_t)out.len;
  size_t i = 0;
  const unsigned char *p = (const unsigned char *)out.ptr;
  for (; i + 8 <= out.len; i += 8) {
    uint64_t k;
    memcpy(&k, p + i, 8);
    h = mix(h ^ k);
  }
  uint64_t tail = 0;
  for (size_t k = 0; i < out.len; i++, k++)
    tail |= (uint64_t)p[i] << (8 * k);
  return mix(h ^ tail ^ 0x13198A2E03707344ULL);
}

double cs_collide_entropy(const cs_str *outs, size_t n) {
  if (n < 2)
    return 0;
  size_t maxlen = 0;
  for (size_t i = 0; i < n; i++)
    if (outs[i].len > maxlen)
      maxlen = outs[i].len;
  if (maxlen > 4096)
    maxlen = 4096;
  double bits = 0;
  /* A position whose column of values repeats an earlier one's adds nothing: an output that repeats
   * 32 bits eight times has 32 bits, not 256 (estimated too high, the search would choose
   * distinguished points that its small space may not hold). */
  uint64_t *columns = malloc(maxlen * sizeof *columns);
  for (size_t pos = 0; pos < maxlen; pos++) {
    bool seen[257] = {false};
    unsigned distinct = 0;
    uint64_t column = 1469598103934665603ULL; /* FNV-1a over the column */
    for (size_t i = 0; i < n; i++) {
      unsigned v = pos < outs[i].len ? (unsigned char)outs[i].ptr[pos] : 256u; /* past the end */
      column = (column ^ v) * 1099511628211ULL;
      if (!seen[v]) {
        seen[v] = true;
        distinct++;
      }
    }
    bool repeated = false;
    for (size_t k = 0; columns && k < pos && !repeated; k++)
      repeated = columns[k] == column;
    if (columns)
      columns[pos] = column;
    if (!repeated)
      bits += log2((double)distinct);
  }
  free(columns);
  /* Lengths: how many distinct ones (a sorted copy would cost more than this small loop). */
  unsigned nlen = 0;
  size_t lens[64];
  for (size_t i = 0; i < n && nlen < 64; i++) {
    bool dup = false;
    for (unsigned k = 0; k < nlen && !dup; k++)
      dup = lens[k] == outs[i].len;
    if (!dup)
      lens[nlen++] = outs[i].len;
  }
  return bits + log2((double)nlen);
}

/* --- the table (caller holds the lock) ---------------------------------------------------------- */

static uint64_t key_of(uint64_t fp) {
  return fp ? fp : 1;
}

/* Inserts or finds: returns the entry already holding key(fp), or NULL after inserting. */
static entry *table_put(shared *sh, uint64_t fp, uint64_t start, uint64_t len) {
  uint64_t k = key_of(fp);
  size_t mask = sh->cap - 1;
  for (size_t i = (size_t)mix(k) & mask;; i = (i + 1) & mask) {
    entry *e = &sh->table[i];
    if (e->fp == k)
      return e;
    if (e->fp == 0) {
      e->fp = k;
      e->start = start;
      e->len = len;
      sh->count++;
      return NULL;
    }
  }
}

/* The table is the one allocation whose size the user chooses (--memory), so it gets a mapping of
 * its own: mmap says MAP_FAILED when the system cannot give it, where calloc under AddressSanitizer
 * aborts the process instead of returning NULL. A fresh anonymous mapping is zero: an empty table.
 * (AddressSanitizer does not watch a mapping's bounds; every index into the table is masked by cap.) */
static entry *table_alloc(size_t cap) {
  if (cap > SIZE_MAX / sizeof(entry))
    return NULL;
  void *p = mmap(NULL, cap * sizeof(entry), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  return p == MAP_FAILED ? NULL : p;
}

static void table_free(entry *t, size_t cap) {
  if (t)
    munmap(t, cap * sizeof *t);
}

static bool table_resize(shared *sh, size_t cap) {
  entry *old = sh->table;
  size_t oldcap = sh->cap;
  entry *t = table_alloc(cap);
  if (!t)
    return false;
  /* The old mapping is freed only once emptied into the new: both count against the bound. */
  if ((oldcap + cap) * sizeof(entry) > sh->peak)
    sh->peak = (oldcap + cap) * sizeof(entry);
  sh->table = t;
  sh->cap = cap;
  sh->count = 0;
  for (size_t i = 0; old && i < oldcap; i++)
    if (old[i].fp)
      table_put(sh, old[i].fp, old[i].start, old[i].len);
  table_free(old, oldcap);
  return true;
}

static bool over_load(const shared *sh) {
  return sh->count * MAX_LOAD_DEN >= sh->cap * MAX_LOAD_NUM;
}

static int choose_dp_bits(const shared *sh, double work) {
  if (sh->cfg->dp_bits > 0)
    return sh->cfg->dp_bits;
  /* Keep about a third of the table's room for the endpoints of the expected work. */
  double room = (double)sh->max_cap * MAX_LOAD_NUM / MAX_LOAD_DEN / 3;
  int bits = MIN_DP_BITS;
  while (bits < 40 && work / ldexp(1.0, bits) > room)
    bits++;
  return bits;
}

static void enter_dp(shared *sh, double work) {
  sh->mode = MODE_DP;
  sh->dp_bits = choose_dp_bits(sh, work);
  sh->max_walk = (uint64_t)WALK_LIMIT << sh->dp_bits;
  memset(sh->table, 0, sh->cap * sizeof *sh->table);
  sh->count = 0;
  sh->epoch++;
}

/* Birthday table full: grow within the memory bound, else switch to distinguished points. */
static void make_room(shared *sh) {
  if (!over_load(sh))
    return;
  if (sh->cap * 2 <= sh->max_cap && table_resize(sh, sh->cap * 2))
    return;
  enter_dp(sh, 4.0 * (double)atomic_load(&sh->evals));
}

/* --- confirming --------------------------------------------------------------------------------- */

static void fail(shared *sh, const cs_err *e) {
  pthread_mutex_lock(&sh->lock);
  if (!sh->failed) {
    sh->failed = true;
    sh->err = *e;
  }
  pthread_mutex_unlock(&sh->lock);
  atomic_store(&sh->stop, true);
}

static void record_found(shared *sh, uint64_t a, uint64_t b) {
  pthread_mutex_lock(&sh->lock);
  if (!sh->found) {
    sh->found = true;
    sh->a = a;
    sh->b = b;
  }
  pthread_mutex_unlock(&sh->lock);
  atomic_store(&sh->stop, true);
}

/* Evaluates two states; 1 when their outputs are equal, 0 when not (fps set), -1 on error. */
static int eval_pair(worker *w, uint64_t a, uint64_t b, uint64_t *fa, uint64_t *fb) {
  uint64_t st[2] = {a, b};
  cs_str out[2];
  bool real[2];
  cs_err e = {{0}};
  if (w->sh->cfg->eval(w->ev, st, 2, out, real, &e)) {
    fail(w->sh, &e);
    return -1;
  }
  atomic_fetch_add(&w->sh->evals, 2);
  *fa = cs_collide_fingerprint(out[0]);
  *fb = cs_collide_fingerprint(out[1]);
  return real[0] && real[1] && out[0].len == out[1].len &&
         (out[0].len == 0 || memcmp(out[0].ptr, out[1].ptr, out[0].len) == 0);
}

/* Confirms a birthday candidate, two states the table holds with one fingerprint: 1 when their
 * outputs are equal, 0 when not, -1 on error. Outputs whose fingerprints now differ are not the ones
 * the table saw: an evaluator stands in for an output it could not get (a fault of the
 * implementation) with a unique text, so the pair is asked again, up to CONFIRM_TRIES times. */
static int confirm_candidate(worker *w, uint64_t a, uint64_t b) {
  int eq = 0;
  for (int t = 0; t < CONFIRM_TRIES; t++) {
    uint64_t fa, fb;
    eq = eval_pair(w, a, b, &fa, &fb);
    if (eq != 0 || fa == fb) /* an answer, an error, or equal fingerprints of different outputs */
      break;
  }
  return eq;
}

/* Advances a walk one step: its next state. */
static int step(worker *w, uint64_t x, uint64_t *next) {
  cs_str out;
  bool real; /* a walk passes through a stand-in: not read */
  cs_err e = {{0}};
  if (w->sh->cfg->eval(w->ev, &x, 1, &out, &real, &e)) {
    fail(w->sh, &e);
    return -1;
  }
  atomic_fetch_add(&w->sh->evals, 1);
  *next = cs_collide_fingerprint(out);
  return 0;
}

/* Two walks reached the same distinguished point: re-walk them to where they merged. */
static void relocate(worker *w, uint64_t sa, uint64_t la, uint64_t sb, uint64_t lb) {
  if (sa == sb)
    return;
  while (la > lb) {
    if (step(w, sa, &sa))
      return;
    la--;
  }
  while (lb > la) {
    if (step(w, sb, &sb))
      return;
    lb--;
  }
  for (uint64_t i = 0; i < la && !atomic_load(&w->sh->stop); i++) {
    if (sa == sb)
      return; /* one start lay on the other walk: no collision there */
    uint64_t fa, fb;
    int eq = eval_pair(w, sa, sb, &fa, &fb);
    if (eq < 0)
      return;
    if (eq) {
      record_found(w->sh, sa, sb);
      return;
    }
    sa = fa;
    sb = fb;
  }
}

/* --- workers ------------------------------------------------------------------------------------ */

typedef struct {
  uint64_t fp, start, len;
} hit;

typedef struct {
  uint64_t a, la, b, lb;
} pair;

static bool interrupted(const volatile sig_atomic_t *flag) {
  return flag && *flag;
}

static bool out_of_bounds(shared *sh) {
  const cs_collide_config *cfg = sh->cfg;
  if (interrupted(cfg->interrupt))
    return true;
  if (cfg->budget && atomic_load(&sh->evals) >= cfg->budget)
    return true;
  if (cfg->time_s > 0 && cs_now_s() - sh->t0 >= cfg->time_s)
    return true;
  return false;
}

/* Takes up to n evaluations from the budget (all n without one); 0 once it is spent. Taken before
 * the batch runs, so that workers together never evaluate batches past the budget. */
static size_t reserve(shared *sh, size_t n) {
  uint64_t budget = sh->cfg->budget;
  if (!budget) {
    atomic_fetch_add(&sh->evals, n);
    return n;
  }
  uint_fast64_t cur = atomic_load(&sh->evals);
  for (;;) {
    if (cur >= budget)
      return 0;
    uint64_t take = budget - cur < n ? budget - cur : n;
    if (atomic_compare_exchange_weak(&sh->evals, &cur, cur + take))
      return (size_t)take;
  }
}

static void *work(void *arg) {
  worker *w = arg;
  shared *sh = w->sh;
  const cs_collide_config *cfg = sh->cfg;
  size_t n = cfg->batch ? cfg->batch : DEFAULT_BATCH;
  uint64_t *states = calloc(n, sizeof *states), *starts = calloc(n, sizeof *starts), *lens = calloc(n, sizeof *lens);
  uint64_t *fps = calloc(n, sizeof *fps);
  cs_str *outs = calloc(n, sizeof *outs);
  bool *real = calloc(n, sizeof *real);
  hit *hits = calloc(n, sizeof *hits);
  pair *pairs = calloc(n, sizeof *pairs);
  if (!states || !starts || !lens || !fps || !outs || !real || !hits || !pairs) {
    cs_err e;
    cs_err_set(&e, "collide: out of memory");
    fail(sh, &e);
    goto done;
  }
  unsigned epoch = ~0u;
  double last_progress = cs_now_s();
  /* Under a time limit a batch is sized to about TIME_SLICE_S of evaluation (the first one small,
   * until the rate is known): a slow implementation must not run a whole batch past the limit. */
  size_t take = cfg->time_s > 0 && n > FIRST_TIMED_BATCH ? FIRST_TIMED_BATCH : n;
  while (!atomic_load(&sh->stop)) {
    if (out_of_bounds(sh)) {
      atomic_store(&sh->stop, true);
      break;
    }
    pthread_mutex_lock(&sh->lock);
    int mode = sh->mode, dp_bits = sh->dp_bits;
    uint64_t max_walk = sh->max_walk;
    bool fresh = epoch != sh->epoch;
    epoch = sh->epoch;
    pthread_mutex_unlock(&sh->lock);
    if (fresh || mode == MODE_BIRTHDAY)
      for (size_t i = 0; i < n; i++) {
        states[i] = starts[i] = next_random(w);
        lens[i] = 0;
      }
    size_t batch = reserve(sh, take); /* this batch: the first `batch` states */
    if (!batch) {
      atomic_store(&sh->stop, true);
      break;
    }
    cs_err e = {{0}};
    double began = cs_now_s();
    if (cfg->eval(w->ev, states, batch, outs, real, &e)) {
      fail(sh, &e);
      break;
    }
    if (cfg->time_s > 0) {
      double per_eval = (cs_now_s() - began) / (double)batch, want = (double)n;
      if (per_eval > 0)
        want = TIME_SLICE_S / per_eval;
      take = want >= (double)n ? n : want < 1 ? 1 : (size_t)want;
    }
    size_t nhits = 0, npairs = 0, nreal = 0;
    for (size_t i = 0; i < batch; i++) {
      fps[i] = cs_collide_fingerprint(outs[i]);
      nreal += real[i];
    }
    atomic_fetch_add(&sh->unreal, batch - nreal);
    if (mode == MODE_BIRTHDAY) {
      pthread_mutex_lock(&sh->lock);
      if (sh->epoch == epoch)
        for (size_t i = 0; i < batch; i++) {
          if (!real[i]) /* a stand-in collides with nothing: it would only fill the table */
            continue;
          entry *old = table_put(sh, fps[i], states[i], 0);
          if (old && old->start != states[i] && npairs < n)
            pairs[npairs++] = (pair){old->start, 0, states[i], 0};
          if (!old)
            make_room(sh);
          if (sh->epoch != epoch)
            break;
        }
      pthread_mutex_unlock(&sh->lock);
      for (size_t k = 0; k < npairs && !atomic_load(&sh->stop); k++)
        if (confirm_candidate(w, pairs[k].a, pairs[k].b) == 1)
          record_found(sh, pairs[k].a, pairs[k].b);
    } else {
      for (size_t i = 0; i < batch; i++) {
        lens[i]++;
        if (dp_bits > 0 && fps[i] >> (64 - dp_bits) == 0) {
          hits[nhits++] = (hit){fps[i], starts[i], lens[i]};
        } else if (lens[i] <= max_walk) {
          states[i] = fps[i];
          continue;
        }
        states[i] = starts[i] = next_random(w);
        lens[i] = 0;
      }
      pthread_mutex_lock(&sh->lock);
      if (sh->epoch == epoch)
        for (size_t k = 0; k < nhits; k++) {
          entry *old = table_put(sh, hits[k].fp, hits[k].start, hits[k].len);
          if (old && old->start != hits[k].start)
            pairs[npairs++] = (pair){old->start, old->len, hits[k].start, hits[k].len};
          if (!old && over_load(sh) && !(sh->cap * 2 <= sh->max_cap && table_resize(sh, sh->cap * 2))) {
            /* Out of room for endpoints: keep the newest half of the work by starting over. */
            memset(sh->table, 0, sh->cap * sizeof *sh->table);
            sh->count = 0;
          }
        }
      pthread_mutex_unlock(&sh->lock);
      for (size_t k = 0; k < npairs && !atomic_load(&sh->stop); k++)
        relocate(w, pairs[k].a, pairs[k].la, pairs[k].b, pairs[k].lb);
    }
    if (w->id == 0 && cfg->progress && cs_now_s() - last_progress >= 0.5) {
      last_progress = cs_now_s();
      pthread_mutex_lock(&sh->lock);
      uint64_t stored = sh->count;
      const char *m = sh->mode == MODE_DP ? "distinguished points" : "birthday";
      pthread_mutex_unlock(&sh->lock);
      cfg->progress(cfg->progress_user, atomic_load(&sh->evals), stored, last_progress - sh->t0, m);
    }
  }
done:
  free(states);
  free(starts);
  free(lens);
  free(fps);
  free(outs);
  free(real);
  free(hits);
  free(pairs);
  return NULL;
}

int cs_collide_search(const cs_collide_config *cfg, cs_collide_result *out, cs_err *err) {
  memset(out, 0, sizeof *out);
  shared *sh = calloc(1, sizeof *sh);
  unsigned nw = cfg->nworkers ? cfg->nworkers : 1;
  worker *ws = calloc(nw, sizeof *ws);
  pthread_t *th = calloc(nw, sizeof *th);
  int rc = -1;
  if (!sh || !ws || !th) {
    cs_err_set(err, "collide: out of memory");
    free(sh);
    free(ws);
    free(th);
    return CS_COLLIDE_NO_MEMORY;
  }
  sh->cfg = cfg;
  pthread_mutex_init(&sh->lock, NULL);
  atomic_init(&sh->evals, 0);
  atomic_init(&sh->unreal, 0);
  atomic_init(&sh->stop, false);
  size_t memory = cfg->memory ? cfg->memory : DEFAULT_MEMORY;
  if (memory / (2 * sizeof(entry)) < MIN_CAPACITY) {
    cs_err_set(err, "collide: a memory bound of %zu bytes cannot hold a search table (at least %zu)", memory,
               2 * MIN_CAPACITY * sizeof(entry));
    goto cleanup;
  }
  /* The largest table whose growth keeps within the bound: growing to max_cap holds max_cap / 2
   * entries more until the old table is freed, so max_cap * 2 * sizeof(entry) <= memory (unwrapped). */
  sh->max_cap = MIN_CAPACITY;
  while (sh->max_cap <= memory / (4 * sizeof(entry)))
    sh->max_cap *= 2;
  if (cfg->space_bits > 0)
    sh->expected = sqrt(M_PI / 2 * pow(2.0, cfg->space_bits > 1000 ? 1000 : cfg->space_bits));
  /* Birthday needs room for about three times the expected work (then it fails only ~1 in 100). */
  double room = (double)sh->max_cap * MAX_LOAD_NUM / MAX_LOAD_DEN;
  bool dp = cfg->force_dp || (sh->expected > 0 && 3 * sh->expected > room);
  size_t cap = FIRST_CAPACITY < sh->max_cap ? FIRST_CAPACITY : sh->max_cap;
  if (!dp && sh->expected > 0)
    while (cap < sh->max_cap && (double)cap * MAX_LOAD_NUM / MAX_LOAD_DEN < 3 * sh->expected)
      cap *= 2;
  if (dp) { /* room for three times the endpoints the expected work leaves */
    double work = sh->expected > 0 ? sh->expected : 1e9;
    double endpoints = 3 * work / ldexp(1.0, choose_dp_bits(sh, work));
    while (cap < sh->max_cap && (double)cap * MAX_LOAD_NUM / MAX_LOAD_DEN < endpoints)
      cap *= 2;
  }
  if (!table_resize(sh, cap)) {
    cs_err_set(err, "collide: cannot allocate a search table of %zu entries (%.0f MiB): give a smaller --memory", cap,
               (double)cap * sizeof(entry) / 1048576);
    rc = CS_COLLIDE_NO_MEMORY;
    goto cleanup;
  }
  sh->mode = MODE_BIRTHDAY;
  if (dp)
    enter_dp(sh, sh->expected > 0 ? sh->expected : 1e9);
  sh->t0 = cs_now_s();
  unsigned started = 0;
  for (unsigned i = 0; i < nw; i++) {
    ws[i] = (worker){sh, i, cfg->evaluators[i], mix(cfg->seed ^ mix(i + 1))};
    if (pthread_create(&th[i], NULL, work, &ws[i]) == 0)
      started++;
    else if (i == 0) {
      cs_err_set(err, "collide: cannot start a worker thread");
      goto cleanup;
    }
  }
  for (unsigned i = 0; i < started; i++)
    pthread_join(th[i], NULL);
  if (sh->failed) {
    *err = sh->err;
    goto cleanup;
  }
  out->found = sh->found;
  out->a = sh->a;
  out->b = sh->b;
  out->evals = atomic_load(&sh->evals);
  out->stored = sh->count;
  out->unreal = atomic_load(&sh->unreal);
  out->table_peak = sh->peak;
  out->seconds = cs_now_s() - sh->t0;
  out->mode = sh->mode == MODE_DP ? "distinguished points" : "birthday";
  out->dp_bits = sh->mode == MODE_DP ? sh->dp_bits : 0;
  out->expected = sh->expected;
  out->interrupted = !sh->found && interrupted(cfg->interrupt);
  rc = 0;
cleanup:
  table_free(sh->table, sh->cap);
  pthread_mutex_destroy(&sh->lock);
  free(sh);
  free(ws);
  free(th);
  return rc;
}

void cs_collide_amount(char *out, size_t cap, double v) {
  if (v >= 1e6)
    snprintf(out, cap, "%.2fM", v / 1e6);
  else if (v >= 1e3)
    snprintf(out, cap, "%.1fk", v / 1e3);
  else if (v >= 10)
    snprintf(out, cap, "%.0f", v);
  else
    snprintf(out, cap, "%.2f", v);
}

/* --- shrinking a pair --------------------------------------------------------------------------- */

/* The start of the character that ends at byte `end` of s (end > 0): its continuation bytes are
 * stepped over back to its lead byte. */
static size_t char_before(const char *s, size_t end) {
  size_t i = end - 1;
  while (i > 0 && ((unsigned char)s[i] & 0xC0) == 0x80)
    i--;
  return i;
}

/* s[0..len) without its bytes [i, i + k), NUL-terminated in buf (len - k + 1 bytes). */
static cs_str without(const char *s, size_t len, size_t i, size_t k, char *buf) {
  memcpy(buf, s, i);
  memcpy(buf + i, s + i + k, len - i - k);
  buf[len - k] = 0;
  return (cs_str){buf, len - k};
}

/* One candidate: the pair without the character [i, i + k) of A (which 0), of B (1) or of both at
 * the same position (2). 1 when it still collides (and replaced the pair), 0 not, -1 error. */
static int try_without(const cs_collide_shrink_config *cfg, char **a, char **b, int which, size_t i, size_t k) {
  size_t la = strlen(*a), lb = strlen(*b);
  char *ba = cs_xmalloc(la + 1), *bb = cs_xmalloc(lb + 1);
  cs_str ca = which == 1 ? (cs_str){*a, la} : without(*a, la, i, k, ba);
  cs_str cb = which == 0 ? (cs_str){*b, lb} : without(*b, lb, i, k, bb);
  int rc = ca.len && cb.len ? cfg->test(cfg->user, ca, cb) : 0;
  if (rc == 1) {
    char *na = cs_xstrndup(ca.ptr, ca.len), *nb = cs_xstrndup(cb.ptr, cb.len);
    free(*a);
    free(*b);
    *a = na;
    *b = nb;
  }
  free(ba);
  free(bb);
  return rc;
}

int cs_collide_shrink(const cs_collide_shrink_config *cfg, char **a, char **b, unsigned *steps) {
  unsigned budget = cfg->budget;
  double stop_at = cfg->max_s > 0 ? cs_now_s() + cfg->max_s : 0;
  *steps = 0;
  bool progress = true;
  while (progress && budget) {
    progress = false;
    for (int which = 2; which >= 0 && budget; which--) { /* 2: both, 0: A, 1: B */
      /* Down from the end: a deletion leaves the characters below it where they were. */
      size_t end = strlen(which == 1 ? *b : *a);
      while (end > 0 && budget && !(stop_at > 0 && cs_now_s() >= stop_at) && !interrupted(cfg->interrupt)) {
        const char *s = which == 1 ? *b : *a;
        size_t i = char_before(s, end), k = end - i;
        end = i;
        /* Both: only a character B has at the same place (equal bytes from a lead byte: the same
         * whole character, as B is valid UTF-8 too). */
        if (which == 2 && (i + k > strlen(*b) || memcmp(*a + i, *b + i, k) != 0))
          continue;
        budget--;
        int rc = try_without(cfg, a, b, which, i, k);
        if (rc < 0)
          return -1;
        if (rc == 1) {
          (*steps)++;
          progress = true;
        }
      }
    }
  }
  return 0;
}
