/* tests/unit/test_run_jobs.c: `run --jobs`: N workers report what one process reports (the same
 * failing cases, shrunk the same, the same statistics and case count), the corpus is replayed once
 * and first, a result survives its bytes (and broken bytes are refused), the merge keeps the
 * earlier failure, and a worker that cannot open the implementation is named with the cases the
 * report lacks. */
#include <criterion/criterion.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/run_jobs.h"
#include "tests/unit/run_cells.h"

static cs_ruleset *rules(void) {
  cs_err err = {{0}};
  cs_ruleset *rs = cs_ruleset_new(&err);
  cr_assert_not_null(rs, "%s", err.msg);
  return rs;
}

typedef struct {
  cs_ruleset *rs;
  const char *name;
} opener;

static cs_impl *open_builtin(void *user, cs_err *err) {
  opener *o = user;
  const cs_builtin *b = cs_builtin_find(o->name);
  if (!b) {
    cs_err_set(err, "%s: no such built-in", o->name);
    return NULL;
  }
  cs_impl_env env = {o->rs, 1};
  return b->create(&env, err);
}

static cs_run_result run_once(opener *o, const cs_run_config *cfg) {
  cs_err err = {{0}};
  cs_impl *impl = open_builtin(o, &err);
  cr_assert_not_null(impl, "%s", err.msg);
  cs_run_result r;
  cr_assert_eq(cs_run_impl(impl, o->rs, cfg, &r, &err), 0, "%s", err.msg);
  cs_impl_destroy(impl);
  return r;
}

static cs_run_result run_jobs(opener *o, const cs_run_config *cfg, unsigned jobs) {
  cs_err err = {{0}};
  cs_run_result r;
  cs_str tail;
  cr_assert_eq(cs_run_jobs(jobs, open_builtin, o, o->rs, cfg, &r, &tail, &err), 0, "%s", err.msg);
  cr_assert_null(tail.ptr, "a built-in writes no stderr");
  return r;
}

static void assert_same_report(const cs_run_result *a, const cs_run_result *b) {
  cr_assert_eq(a->cases, b->cases);
  cr_assert_eq(a->stat_cases, b->stat_cases);
  for (int l = 0; l < CS_LABEL_COUNT; l++)
    cr_assert_eq(a->label_counts[l], b->label_counts[l], "label %d", l);
  cr_assert_eq(a->ncells, b->ncells);
  size_t failed = 0;
  for (size_t i = 0; i < a->ncells; i++) {
    const cs_outcome *x = &a->cells[i], *y = &b->cells[i];
    cr_assert_eq(x->prop, y->prop);
    cr_assert_eq(x->target, y->target);
    cr_assert_eq(x->applicable, y->applicable, "%s", x->prop->name);
    cr_assert_eq(x->failed, y->failed, "%s on %d", x->prop->name, x->target);
    if (!x->failed)
      continue;
    failed++;
    cr_assert_eq(x->case_index, y->case_index, "%s on %d", x->prop->name, x->target);
    cr_assert_eq(x->nchoices, y->nchoices, "%s on %d", x->prop->name, x->target);
    cr_assert_eq(memcmp(x->choices, y->choices, x->nchoices * sizeof *x->choices), 0);
    cr_assert_str_eq(x->message, y->message);
    cr_assert_str_eq(x->history_json, y->history_json);
    cr_assert_eq(x->shrunk_turns, y->shrunk_turns);
    cr_assert_eq(x->shrunk_calls, y->shrunk_calls);
  }
  cr_assert_gt(failed, 3, "the comparison needs failures to compare (%zu)", failed);
}

Test(run_jobs, three_workers_report_what_one_process_reports) {
  opener o = {rules(), "prefix-swap"};
  cs_run_config cfg = {.seed = 7, .cases = 1500};
  cs_run_result one = run_once(&o, &cfg), three = run_jobs(&o, &cfg, 3);
  assert_same_report(&one, &three);
  cr_assert_eq(three.cases, 1500);
  cs_run_result_free(&one);
  cs_run_result_free(&three);
  cs_ruleset_free(o.rs);
}

Test(run_jobs, jobs_compose_with_a_shard) {
  opener o = {rules(), "adk-stream-v1"};
  cs_run_config cfg = {.seed = 3, .cases = 1200, .shard_i = 1, .shard_n = 2};
  cs_run_result one = run_once(&o, &cfg), two = run_jobs(&o, &cfg, 2);
  assert_same_report(&one, &two);
  cr_assert_eq(two.cases, 600, "shard 1/2 of 1200 cases is 600 cases, split between the workers");
  cs_run_result_free(&one);
  cs_run_result_free(&two);
  cs_ruleset_free(o.rs);
}

Test(run_jobs, the_corpus_is_replayed_once_and_first) {
  opener o = {rules(), "prefix-swap"};
  cs_run_config cfg = {.seed = 1, .cases = 300};
  cs_run_result first = run_once(&o, &cfg);
  const cs_outcome *c = cell_of(&first, "emit.unique", CS_PROV_ANTHROPIC);
  cr_assert(c->failed && c->choices && c->case_index != UINT64_MAX);
  const uint64_t *seq[1] = {c->choices};
  size_t len[1] = {c->nchoices};
  cfg.replay = seq;
  cfg.replay_len = len;
  cfg.nreplay = 1;
  cs_run_result one = run_once(&o, &cfg), four = run_jobs(&o, &cfg, 4);
  assert_same_report(&one, &four);
  cr_assert_eq(four.cases, 301, "the corpus case counts once, not once per worker");
  cr_assert_eq(cell_of(&four, "emit.unique", CS_PROV_ANTHROPIC)->case_index, UINT64_MAX,
               "the corpus case fails before any generated case");
  cs_run_result_free(&first);
  cs_run_result_free(&one);
  cs_run_result_free(&four);
  cs_ruleset_free(o.rs);
}

Test(run_jobs, a_worker_that_cannot_open_is_named) {
  opener o = {rules(), "no-such-implementation"};
  cs_run_config cfg = {.seed = 1, .cases = 10};
  cs_run_result r;
  cs_str tail;
  cs_err err = {{0}};
  cr_assert_eq(cs_run_jobs(2, open_builtin, &o, o.rs, &cfg, &r, &tail, &err), -1);
  /* why, and which cases the report lacks: a worker that could not open has no result either */
  cr_assert(strstr(err.msg, "no-such-implementation: no such built-in (worker 0: its cases, shard 0/2, are not in "
                            "the report)") == err.msg,
            "%s", err.msg);
  cr_assert_eq(r.ncells, 0);
  cr_assert_eq(cs_run_jobs(0, open_builtin, &o, o.rs, &cfg, &r, &tail, &err), -1);
  cs_ruleset_free(o.rs);
}

static cs_impl *open_and_die(void *user, cs_err *err) {
  (void)user;
  (void)err;
  raise(SIGKILL);
  return NULL;
}

Test(run_jobs, every_part_lost_with_its_worker_is_named) {
  cs_ruleset *rs = rules();
  cs_run_config cfg = {.seed = 1, .cases = 10, .shard_i = 1, .shard_n = 2};
  cs_run_result r;
  cs_str tail;
  cs_err err = {{0}};
  cr_assert_eq(cs_run_jobs(3, open_and_die, NULL, rs, &cfg, &r, &tail, &err), -1);
  /* shard 1/2 on 3 workers: shards 1/6, 3/6 and 5/6, each of which --shard can run again */
  cr_assert(strstr(err.msg, "worker 0 was killed by signal 9") == err.msg, "%s", err.msg);
  cr_assert_not_null(strstr(err.msg, "(its cases, shard 1/6, are not in the report)"), "%s", err.msg);
  cr_assert_not_null(strstr(err.msg, "3 workers gave no result: shards 1/6, 3/6, 5/6 are not in the report"), "%s",
                     err.msg);
  cr_assert_eq(r.ncells, 0);
  cs_ruleset_free(rs);
}

/* A small result by hand: two cells, one failed with choices and strings, a tail with a NUL. */
static cs_run_result sample(uint64_t case_index, uint64_t cases) {
  size_t np;
  const cs_property *props = cs_properties(&np);
  cs_run_result r;
  memset(&r, 0, sizeof r);
  r.cells = calloc(2, sizeof *r.cells);
  r.ncells = 2;
  r.cells[0] = (cs_outcome){.prop = &props[1], .target = CS_PROV_MISTRAL, .applicable = true, .cases = cases};
  r.cells[1] = (cs_outcome){.prop = &props[0], .target = -1, .applicable = true, .cases = cases, .failed = true};
  cs_outcome *f = &r.cells[1];
  f->case_index = case_index;
  f->nchoices = 3;
  f->choices = malloc(3 * sizeof *f->choices);
  f->choices[0] = UINT64_MAX;
  f->choices[1] = 0;
  f->choices[2] = case_index;
  snprintf(f->message, sizeof f->message, "failed at %llu", (unsigned long long)case_index);
  f->history_json = strdup("{\"turns\":[]}");
  f->answer_json = NULL;
  f->shrunk_turns = 2;
  f->shrunk_calls = 3;
  f->shrink_steps = 11;
  f->shrunk = true;
  r.cases = cases;
  r.cases_cut = 1;
  r.seconds = 0.25;
  r.label_counts[3] = 5;
  r.stat_cases = cases;
  r.faults[2] = 4;
  r.given_up = 1u << 2;
  r.ended_early = case_index == 30;
  return r;
}

Test(run_jobs, a_result_survives_its_bytes) {
  cs_run_result r = sample(42, 100), back;
  r.ended_early = true;
  cs_buf b = {0};
  const char tail[] = "line\0after a NUL";
  cs_run_result_encode(&r, (cs_str){tail, sizeof tail - 1}, &b);
  cs_str t;
  cs_err err = {{0}};
  cr_assert_eq(cs_run_result_decode(b.data, b.len, &back, &t, &err), 0, "%s", err.msg);
  cr_assert_eq(t.len, sizeof tail - 1);
  cr_assert_eq(memcmp(t.ptr, tail, t.len), 0);
  cr_assert_eq(back.ncells, 2);
  cr_assert_eq(back.cells[0].prop, r.cells[0].prop);
  cr_assert_eq(back.cells[0].target, CS_PROV_MISTRAL);
  cr_assert_null(back.cells[0].choices);
  const cs_outcome *f = &back.cells[1];
  cr_assert_eq(f->target, -1);
  cr_assert(f->failed && f->shrunk);
  cr_assert_eq(f->case_index, 42);
  cr_assert_eq(f->nchoices, 3);
  cr_assert_eq(f->choices[0], UINT64_MAX, "64-bit choices keep every bit");
  cr_assert_str_eq(f->message, "failed at 42");
  cr_assert_str_eq(f->history_json, "{\"turns\":[]}");
  cr_assert_null(f->answer_json);
  cr_assert_eq(f->shrink_steps, 11);
  cr_assert_eq(f->shrunk_turns, 2);
  cr_assert_eq(f->shrunk_calls, 3);
  cr_assert_eq(back.cases, 100);
  cr_assert_eq(back.cases_cut, 1);
  cr_assert_float_eq(back.seconds, 0.25, 1e-12);
  cr_assert_eq(back.label_counts[3], 5);
  cr_assert_eq(back.faults[2], 4);
  cr_assert_eq(back.given_up, 1u << 2);
  cr_assert(back.ended_early);
  free((char *)t.ptr);
  cs_run_result_free(&back);
  /* Every cut of the bytes, and one byte more, is refused without reading past them. */
  for (size_t n = 0; n < b.len; n++) {
    char *copy = malloc(n ? n : 1);
    memcpy(copy, b.data, n);
    cr_assert_eq(cs_run_result_decode(copy, n, &back, &t, &err), -1, "cut at %zu of %zu", n, b.len);
    free(copy);
  }
  cs_buf_putc(&b, 0);
  cr_assert_eq(cs_run_result_decode(b.data, b.len, &back, &t, &err), -1);
  cr_assert(strstr(err.msg, "after the end") != NULL, "%s", err.msg);
  cs_buf_free(&b);
  cs_run_result_free(&r);
}

/* A cell whose rule could not decide travels with its message and case, and merging keeps what
 * one process would have met first: an earlier undecided rule or an earlier failure. */
Test(run_jobs, an_undecided_cell_survives_bytes_and_merge) {
  cs_run_result r = sample(42, 10), back, total;
  cs_outcome *u = &r.cells[0];
  u->undecided = true;
  u->undecided_case = 7;
  snprintf(u->undecided_why, sizeof u->undecided_why, "rule mistral.pattern: PCRE2 gave up");
  cs_buf b = {0};
  cs_run_result_encode(&r, CS_NULL_STR, &b);
  cs_str t;
  cs_err err = {{0}};
  cr_assert_eq(cs_run_result_decode(b.data, b.len, &back, &t, &err), 0, "%s", err.msg);
  cr_assert(back.cells[0].undecided && back.cells[0].undecided_case == 7);
  cr_assert_str_eq(back.cells[0].undecided_why, "rule mistral.pattern: PCRE2 gave up");
  cr_assert_not(back.cells[1].undecided);
  cs_buf_free(&b);
  /* Cell 1: failed at 42 in `back`, undecided at 5 in `early`: the undecided rule came first. */
  cs_run_result early = sample(42, 10);
  early.cells[1].failed = false;
  early.cells[1].undecided = true;
  early.cells[1].undecided_case = 5;
  memset(&total, 0, sizeof total);
  cr_assert_eq(cs_run_result_merge(&total, &back, &err), 0);
  cr_assert_eq(cs_run_result_merge(&total, &early, &err), 0);
  cr_assert(total.cells[1].undecided && !total.cells[1].failed, "the earlier event wins");
  cr_assert(total.cells[0].undecided && total.cells[0].undecided_case == 7);
  /* and a failure before the undecided rule wins over it */
  cs_run_result late = sample(3, 10);
  cr_assert_eq(cs_run_result_merge(&total, &late, &err), 0);
  cr_assert(total.cells[1].failed && !total.cells[1].undecided && total.cells[1].case_index == 3);
  cs_run_result_free(&total);
  cs_run_result_free(&r);
}

Test(run_jobs, merge_keeps_the_earlier_failure) {
  cs_run_result total, a = sample(90, 10), b = sample(30, 20), c = sample(UINT64_MAX, 1);
  memset(&total, 0, sizeof total);
  cs_err err = {{0}};
  cr_assert_eq(cs_run_result_merge(&total, &a, &err), 0);
  cr_assert(!total.ended_early);
  cr_assert_eq(cs_run_result_merge(&total, &b, &err), 0);
  cr_assert(total.ended_early, "one worker that ended early leaves the run short of cases");
  cr_assert_eq(total.cells[1].case_index, 30);
  cr_assert_str_eq(total.cells[1].message, "failed at 30");
  cr_assert_eq(total.cells[1].choices[2], 30, "the failure's choices travel with it");
  cr_assert_eq(cs_run_result_merge(&total, &c, &err), 0);
  cr_assert_eq(total.cells[1].case_index, UINT64_MAX, "a corpus case comes before every generated case");
  cr_assert_eq(total.cases, 31);
  cr_assert_eq(total.cells[0].cases, 31);
  cr_assert_eq(total.label_counts[3], 15);
  cr_assert_eq(total.faults[2], 12);
  cr_assert_eq(total.given_up, 1u << 2);
  cr_assert_null(a.cells, "a merged part is emptied");
  cs_run_result other = sample(1, 1);
  other.cells[0].target = CS_PROV_KIMI;
  cr_assert_eq(cs_run_result_merge(&total, &other, &err), -1);
  cr_assert(strstr(err.msg, "same properties") != NULL, "%s", err.msg);
  cr_assert_null(other.cells, "a refused part is emptied too");
  cs_run_result_free(&total);
}
