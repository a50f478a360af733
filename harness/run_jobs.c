/* harness/run_jobs.c: the workers of `run --jobs`, the bytes their results travel as, and the
 * merge. Messages from a worker: 'R' its result, 'E' why it could not run, 'F' which cells it has
 * found failing (a bit each, sent when that changes), and the pool's progress. */
#include "harness/run_jobs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/clock.h"
#include "harness/workers.h"

#define PROGRESS_EVERY_S 0.1
#define NO_TEXT UINT64_MAX /* the length that marks a NULL string */

/* --- bytes ---------------------------------------------------------------------------------------- */

static void put_u64(cs_buf *b, uint64_t v) {
  unsigned char x[8];
  for (int i = 0; i < 8; i++)
    x[i] = (unsigned char)(v >> (8 * i));
  cs_buf_put(b, x, 8);
}

static void put_bytes(cs_buf *b, cs_str s) {
  put_u64(b, s.ptr ? s.len : NO_TEXT);
  if (s.ptr)
    cs_buf_put(b, s.ptr, s.len);
}

static void put_text(cs_buf *b, const char *s) {
  put_bytes(b, s ? cs_str_c(s) : CS_NULL_STR);
}

typedef struct {
  const unsigned char *p;
  size_t n, at;
  bool bad;
} reader;

static uint64_t get_u64(reader *r) {
  if (r->bad || r->n - r->at < 8) {
    r->bad = true;
    return 0;
  }
  uint64_t v = 0;
  for (int i = 0; i < 8; i++)
    v |= (uint64_t)r->p[r->at + (size_t)i] << (8 * i);
  r->at += 8;
  return v;
}

/* Bytes on the heap (NUL-terminated after them), or the null string for NO_TEXT and on bad input. */
static cs_str get_bytes(reader *r) {
  uint64_t n = get_u64(r);
  if (r->bad || n == NO_TEXT)
    return CS_NULL_STR;
  if (n > r->n - r->at) {
    r->bad = true;
    return CS_NULL_STR;
  }
  char *s = cs_xmalloc((size_t)n + 1);
  memcpy(s, r->p + r->at, (size_t)n);
  s[n] = 0;
  r->at += (size_t)n;
  return (cs_str){s, (size_t)n};
}

/* A string written by put_text (one without NUL bytes), or NULL. */
static char *get_text(reader *r) {
  return (char *)get_bytes(r).ptr;
}

static size_t property_index(const cs_property *p) {
  size_t np;
  const cs_property *all = cs_properties(&np);
  return (size_t)(p - all);
}

void cs_run_result_encode(const cs_run_result *r, cs_str stderr_tail, cs_buf *out) {
  put_u64(out, r->ncells);
  for (size_t i = 0; i < r->ncells; i++) {
    const cs_outcome *c = &r->cells[i];
    put_u64(out, property_index(c->prop));
    put_u64(out, (uint64_t)(int64_t)c->target);
    put_u64(out, c->applicable);
    put_u64(out, c->cases);
    put_u64(out, c->failed);
    put_u64(out, c->choices ? c->nchoices : NO_TEXT);
    for (size_t k = 0; c->choices && k < c->nchoices; k++)
      put_u64(out, c->choices[k]);
    put_u64(out, c->case_index);
    put_text(out, c->message);
    put_text(out, c->history_json);
    put_text(out, c->answer_json);
    put_u64(out, c->shrink_steps);
    put_u64(out, c->shrunk_turns);
    put_u64(out, c->shrunk_calls);
    put_u64(out, c->shrunk);
    put_u64(out, c->undecided);
    put_u64(out, c->undecided_case);
    put_text(out, c->undecided_why);
    put_text(out, c->literal_path);
  }
  put_u64(out, r->cases);
  put_u64(out, r->cases_cut);
  uint64_t secs;
  memcpy(&secs, &r->seconds, sizeof secs);
  put_u64(out, secs);
  for (int l = 0; l < CS_LABEL_COUNT; l++)
    put_u64(out, r->label_counts[l]);
  put_u64(out, r->stat_cases);
  for (size_t k = 0; k < sizeof r->faults / sizeof *r->faults; k++)
    put_u64(out, r->faults[k]);
  put_u64(out, r->given_up);
  put_u64(out, r->ended_early);
  put_bytes(out, stderr_tail);
}

int cs_run_result_decode(const char *data, size_t len, cs_run_result *out, cs_str *stderr_tail, cs_err *err) {
  reader r = {(const unsigned char *)data, len, 0, false};
  memset(out, 0, sizeof *out);
  *stderr_tail = CS_NULL_STR;
  size_t np;
  const cs_property *props = cs_properties(&np);
  uint64_t ncells = get_u64(&r);
  /* Each cell takes more than 100 bytes: a count the bytes cannot hold is not believed. */
  if (r.bad || ncells > len / 100 + 1)
    return cs_err_set(err, "worker result: bad cell count");
  out->cells = cs_xcalloc((size_t)ncells + 1, sizeof *out->cells);
  for (size_t i = 0; i < ncells && !r.bad; i++) {
    cs_outcome *c = &out->cells[out->ncells++];
    uint64_t pi = get_u64(&r);
    c->prop = pi < np ? &props[pi] : NULL;
    int64_t t = (int64_t)get_u64(&r);
    c->target = t >= -1 && t < CS_TARGET_COUNT ? (int)t : -2;
    c->applicable = get_u64(&r) != 0;
    c->cases = get_u64(&r);
    c->failed = get_u64(&r) != 0;
    uint64_t nch = get_u64(&r);
    if (nch != NO_TEXT && !r.bad) {
      if (nch > (len - r.at) / 8) {
        r.bad = true;
        break;
      }
      c->choices = cs_xcalloc((size_t)nch + 1, sizeof *c->choices);
      c->nchoices = (size_t)nch;
      for (size_t k = 0; k < c->nchoices; k++)
        c->choices[k] = get_u64(&r);
    }
    c->case_index = get_u64(&r);
    char *msg = get_text(&r);
    snprintf(c->message, sizeof c->message, "%s", msg ? msg : "");
    free(msg);
    c->history_json = get_text(&r);
    c->answer_json = get_text(&r);
    c->shrink_steps = (uint32_t)get_u64(&r);
    c->shrunk_turns = (uint32_t)get_u64(&r);
    c->shrunk_calls = (uint32_t)get_u64(&r);
    c->shrunk = get_u64(&r) != 0;
    c->undecided = get_u64(&r) != 0;
    c->undecided_case = get_u64(&r);
    msg = get_text(&r);
    snprintf(c->undecided_why, sizeof c->undecided_why, "%s", msg ? msg : "");
    free(msg);
    c->literal_path = get_text(&r);
    if (!c->prop || c->target == -2)
      r.bad = true;
  }
  out->cases = get_u64(&r);
  out->cases_cut = get_u64(&r);
  uint64_t secs = get_u64(&r);
  memcpy(&out->seconds, &secs, sizeof secs);
  for (int l = 0; l < CS_LABEL_COUNT; l++)
    out->label_counts[l] = get_u64(&r);
  out->stat_cases = get_u64(&r);
  for (size_t k = 0; k < sizeof out->faults / sizeof *out->faults; k++)
    out->faults[k] = get_u64(&r);
  out->given_up = (uint32_t)get_u64(&r);
  out->ended_early = get_u64(&r) != 0;
  *stderr_tail = get_bytes(&r);
  if (r.bad || r.at != len) {
    cs_run_result_free(out);
    free((char *)stderr_tail->ptr);
    *stderr_tail = CS_NULL_STR;
    return cs_err_set(err, "worker result: %s", r.bad ? "cut short or malformed" : "bytes after the end");
  }
  return 0;
}

/* --- merge ---------------------------------------------------------------------------------------- */

/* The order in which one process meets cases: literal and corpus cases (UINT64_MAX) first, then
 * generated cases by index. */
static uint64_t case_order(uint64_t case_index) {
  return case_index == UINT64_MAX ? 0 : case_index + 1;
}

/* Swaps what ended the checking of two cells, a failure or an undecided rule (everything but
 * identity, applicability and case counts). */
static void swap_failure(cs_outcome *a, cs_outcome *b) {
  cs_outcome t = *a;
  a->undecided = b->undecided, b->undecided = t.undecided;
  a->undecided_case = b->undecided_case, b->undecided_case = t.undecided_case;
  memcpy(a->undecided_why, b->undecided_why, sizeof a->undecided_why);
  memcpy(b->undecided_why, t.undecided_why, sizeof b->undecided_why);
  a->failed = b->failed, b->failed = t.failed;
  a->choices = b->choices, b->choices = t.choices;
  a->nchoices = b->nchoices, b->nchoices = t.nchoices;
  a->case_index = b->case_index, b->case_index = t.case_index;
  memcpy(a->message, b->message, sizeof a->message);
  memcpy(b->message, t.message, sizeof b->message);
  a->history_json = b->history_json, b->history_json = t.history_json;
  a->literal_path = b->literal_path, b->literal_path = t.literal_path;
  a->answer_json = b->answer_json, b->answer_json = t.answer_json;
  a->shrink_steps = b->shrink_steps, b->shrink_steps = t.shrink_steps;
  a->shrunk_turns = b->shrunk_turns, b->shrunk_turns = t.shrunk_turns;
  a->shrunk_calls = b->shrunk_calls, b->shrunk_calls = t.shrunk_calls;
  a->shrunk = b->shrunk, b->shrunk = t.shrunk;
}

static bool ended(const cs_outcome *c) {
  return c->failed || c->undecided;
}

static uint64_t ended_at(const cs_outcome *c) {
  return c->failed ? c->case_index : c->undecided_case;
}

int cs_run_result_merge(cs_run_result *into, cs_run_result *part, cs_err *err) {
  if (!into->cells) {
    into->cells = part->cells;
    into->ncells = part->ncells;
    part->cells = NULL;
    part->ncells = 0;
  } else {
    bool same = into->ncells == part->ncells;
    for (size_t i = 0; same && i < into->ncells; i++)
      same = into->cells[i].prop == part->cells[i].prop && into->cells[i].target == part->cells[i].target;
    if (!same) {
      cs_run_result_free(part);
      return cs_err_set(err, "worker results do not have the same properties and targets");
    }
    for (size_t i = 0; i < into->ncells; i++) {
      cs_outcome *a = &into->cells[i], *b = &part->cells[i];
      a->applicable = a->applicable || b->applicable;
      a->cases += b->cases;
      /* One process stops checking a cell at its first failure or undecided rule: the earliest wins. */
      if (ended(b) && (!ended(a) || case_order(ended_at(b)) < case_order(ended_at(a))))
        swap_failure(a, b);
    }
  }
  into->cases += part->cases;
  into->cases_cut += part->cases_cut;
  if (part->seconds > into->seconds)
    into->seconds = part->seconds;
  for (int l = 0; l < CS_LABEL_COUNT; l++)
    into->label_counts[l] += part->label_counts[l];
  into->stat_cases += part->stat_cases;
  for (size_t k = 0; k < sizeof into->faults / sizeof *into->faults; k++)
    into->faults[k] += part->faults[k];
  into->given_up |= part->given_up;
  into->ended_early |= part->ended_early; /* a worker that ended early left cases unrun */
  cs_run_result_free(part);
  return 0;
}

/* --- workers -------------------------------------------------------------------------------------- */

typedef struct {
  cs_impl_opener open;
  void *open_user;
  cs_ruleset *rs;
  const cs_run_config *cfg;
  /* in a worker */
  int fd;
  double last_sent;
  size_t failing_sent; /* failing cells in the last 'F' message */
  /* in the parent */
  double t0;
  bool *reported; /* per worker: its result came */
  /* per worker: all its cases were cut off by --time. Its error says so, but one process would
   * have judged the cases the other workers judged: it fails the run only when they judged none. */
  bool *only_cut;
  char (*error)[600]; /* per worker: why it could not run ("" none) */
  cs_run_result total;
  cs_str tail; /* heap */
  /* The cells some worker found failing, one bit each: the progress line counts a cell failing in
   * several workers once, as one process would. */
  cs_buf failing;
} jobs_ctx;

static void worker_progress(void *user, uint64_t cases, uint64_t failing, const cs_outcome *cells, size_t ncells,
                            double elapsed) {
  jobs_ctx *x = user;
  size_t nfailing = 0;
  for (size_t i = 0; i < ncells; i++)
    nfailing += cells[i].failed;
  if (nfailing != x->failing_sent) { /* which cells fail: rare, at most once a cell */
    cs_buf bits = {0};
    for (size_t i = 0; i < ncells; i += 8) {
      unsigned char byte = 0;
      for (size_t b = 0; b < 8 && i + b < ncells; b++)
        byte |= (unsigned char)(cells[i + b].failed << b);
      cs_buf_putc(&bits, (char)byte);
    }
    cs_worker_send(x->fd, 'F', bits.data, bits.len);
    cs_buf_free(&bits);
    x->failing_sent = nfailing;
  }
  if (elapsed - x->last_sent < PROGRESS_EVERY_S)
    return;
  x->last_sent = elapsed;
  cs_worker_progress(x->fd, cases, failing);
}

static int worker_main(void *user, unsigned j, unsigned n, int fd) {
  jobs_ctx *x = user;
  x->fd = fd;
  cs_err err = {{0}};
  cs_impl *impl = x->open(x->open_user, &err);
  if (!impl) {
    cs_worker_send(fd, 'E', err.msg, strlen(err.msg));
    return 1;
  }
  cs_run_config c = *x->cfg;
  cs_worker_shard(x->cfg->shard_i, x->cfg->shard_n, j, n, &c.shard_i, &c.shard_n);
  if (j) { /* one process replays the literal and corpus cases, as one process would */
    c.literal = NULL;
    c.nliteral = 0;
    c.replay = NULL;
    c.replay_len = NULL;
    c.nreplay = 0;
  }
  if (c.progress) {
    c.progress = worker_progress;
    c.progress_user = x;
  }
  cs_run_result res;
  int rc = cs_run_impl(impl, x->rs, &c, &res, &err);
  cs_str tail = impl->vt->stderr_tail ? impl->vt->stderr_tail(impl) : CS_NULL_STR;
  cs_buf b = {0};
  cs_run_result_encode(&res, tail, &b);
  int sent = cs_worker_send(fd, 'R', b.data, b.len);
  if (rc)
    cs_worker_send(fd, 'E', err.msg, strlen(err.msg));
  cs_buf_free(&b);
  cs_run_result_free(&res);
  cs_impl_destroy(impl);
  return sent || rc ? 1 : 0;
}

static void keep_error(jobs_ctx *x, unsigned j, const char *msg) {
  if (!x->error[j][0])
    snprintf(x->error[j], sizeof x->error[j], "%s", msg);
}

static void on_message(void *user, unsigned j, char type, const char *data, size_t len) {
  jobs_ctx *x = user;
  cs_err err = {{0}};
  char msg[600];
  if (type == 'R' && !x->reported[j]) {
    cs_run_result part;
    cs_str tail;
    if (cs_run_result_decode(data, len, &part, &tail, &err)) {
      snprintf(msg, sizeof msg, "worker %u: %s", j, err.msg);
      keep_error(x, j, msg);
      return;
    }
    x->only_cut[j] = part.cases == 0 && part.cases_cut > 0;
    if (cs_run_result_merge(&x->total, &part, &err)) {
      snprintf(msg, sizeof msg, "worker %u: %s", j, err.msg);
      keep_error(x, j, msg);
      free((char *)tail.ptr);
      return;
    }
    x->reported[j] = true;
    if (tail.len && !x->tail.len) {
      free((char *)x->tail.ptr);
      x->tail = tail;
    } else {
      free((char *)tail.ptr);
    }
  } else if (type == 'F') {
    while (x->failing.len < len)
      cs_buf_putc(&x->failing, 0);
    for (size_t i = 0; i < len; i++)
      x->failing.data[i] |= data[i];
  } else if (type == 'E') {
    snprintf(msg, sizeof msg, "%.*s", (int)(len < sizeof msg - 1 ? len : sizeof msg - 1), data);
    keep_error(x, j, msg);
  }
}

static void on_tick(void *user, uint64_t cases, uint64_t failing) {
  jobs_ctx *x = user;
  (void)failing; /* each worker's own count: a cell failing in two would count twice */
  uint64_t distinct = 0;
  for (size_t i = 0; i < x->failing.len; i++)
    for (unsigned char byte = (unsigned char)x->failing.data[i]; byte; byte &= (unsigned char)(byte - 1))
      distinct++;
  x->cfg->progress(x->cfg->progress_user, cases, distinct, NULL, 0, cs_now_s() - x->t0);
}

int cs_run_jobs(unsigned jobs, cs_impl_opener open, void *open_user, cs_ruleset *rs, const cs_run_config *cfg,
                cs_run_result *out, cs_str *stderr_tail, cs_err *err) {
  memset(out, 0, sizeof *out);
  *stderr_tail = CS_NULL_STR;
  if (jobs < 1 || jobs > CS_WORKERS_MAX)
    return cs_err_set(err, "--jobs: must be 1 to %d", CS_WORKERS_MAX);
  jobs_ctx x = {.open = open, .open_user = open_user, .rs = rs, .cfg = cfg, .fd = -1, .t0 = cs_now_s()};
  x.reported = cs_xcalloc(jobs, sizeof *x.reported);
  x.only_cut = cs_xcalloc(jobs, sizeof *x.only_cut);
  x.error = cs_xcalloc(jobs, sizeof *x.error);
  cs_worker_end *ends = cs_xcalloc(jobs, sizeof *ends);
  cs_workers_config wc = {
      .n = jobs, .work = worker_main, .on_message = on_message, .on_tick = cfg->progress ? on_tick : NULL, .user = &x};
  int rc = cs_workers_run(&wc, ends, err);
  /* A result comes whole at the end: a worker that gave none, whether it could not open the
   * implementation or died on the way, took its part of the cases with it. One that neither
   * reported nor said why ended some other way: its end is its error. The error of the lowest
   * worker is the run's, with the part of the cases it lost. */
  unsigned lost = 0;     /* workers that gave no result */
  cs_buf shards = {0};   /* their shards, "1/6, 3/6" */
  unsigned first = jobs; /* the lowest worker with an error */
  char note[128] = "";   /* the cases that worker lost */
  for (unsigned j = 0; j < jobs; j++) {
    if (x.only_cut[j] && x.total.cases > 0)
      x.error[j][0] = 0;
    bool said = x.error[j][0] != 0;
    if (!x.reported[j]) {
      if (!said)
        cs_worker_end_describe(j, &ends[j], x.error[j], sizeof x.error[j]);
      uint32_t si, sn;
      cs_worker_shard(cfg->shard_i, cfg->shard_n, j, jobs, &si, &sn);
      cs_buf_printf(&shards, "%s%u/%u", lost ? ", " : "", si, sn);
      lost++;
    }
    if (x.error[j][0] && first == jobs) {
      first = j;
      uint32_t si, sn;
      cs_worker_shard(cfg->shard_i, cfg->shard_n, j, jobs, &si, &sn);
      if (!x.reported[j] && said) /* the worker's own words do not name it */
        snprintf(note, sizeof note, " (worker %u: its cases, shard %u/%u, are not in the report)", j, si, sn);
      else if (!x.reported[j])
        snprintf(note, sizeof note, " (its cases, shard %u/%u, are not in the report)", si, sn);
    }
  }
  /* Every lost shard, so that --shard can run them again: after the first worker's note when it
   * does not say them all. */
  if (rc) /* the pool's own error comes first: it names no worker's shard */
    note[0] = 0;
  cs_buf more = {0};
  if (lost > 1 || (lost == 1 && !note[0]))
    cs_buf_printf(&more, "; %u worker%s gave no result: shard%s %s %s not in the report", lost, lost > 1 ? "s" : "",
                  lost > 1 ? "s" : "", shards.data, lost > 1 ? "are" : "is");
  if (first < jobs) {
    /* the note and the shards whole, the worker's words (or the pool's) cut to what room is left */
    const char *why = rc ? err->msg : x.error[first];
    char why_copy[sizeof err->msg];
    snprintf(why_copy, sizeof why_copy, "%s", why);
    int room = (int)(sizeof err->msg - 1 - strlen(note) - more.len);
    cs_err_set(err, "%.*s%s%s", room > 0 ? room : 0, why_copy, note, more.len ? more.data : "");
    rc = -1;
  }
  cs_buf_free(&shards);
  cs_buf_free(&more);
  *out = x.total;
  out->seconds = cs_now_s() - x.t0;
  *stderr_tail = x.tail;
  cs_buf_free(&x.failing);
  free(x.reported);
  free(x.only_cut);
  free(x.error);
  free(ends);
  return rc;
}
