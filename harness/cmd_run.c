/* harness/cmd_run.c: `callsign run`: every chosen implementation against every property and target,
 * the regression corpus first, the vectors for implementations claiming canonical v1, the
 * known-failures list, generation statistics, and the reports. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/fs.h"
#include "harness/cli.h"
#include "harness/corpus.h"
#include "harness/expect.h"
#include "harness/run_jobs.h"
#include "harness/runner.h"
#include "harness/session.h"
#include "harness/vectors.h"
#include "reports/escape.h"
#include "reports/result.h"
#include "reports/tally.h"

typedef struct {
  cs_options o;
  cs_ruleset *rs;
  cs_arena a; /* report strings */
  cs_expect expect;
  cs_report report;
  cJSON *vectors;
  const char *vectors_path; /* the file `vectors` was read from */
  bool vectors_unusable;    /* the vectors file could not be read: an input error (exit 2), said once */
  uint64_t label_counts[CS_LABEL_COUNT], stat_cases; /* summed over the implementations run */
  const cs_history *literal;                         /* replay of a literal history case: that history alone */
  cs_literal_twin literal_twin;                      /* and its planted twin */
  const char *literal_path;                          /* and its file (NULL: stdin, a pipe) */
  cs_arena literal_arena;
} run_ctx;

static const char *dup_s(cs_arena *a, const char *s) {
  return s ? cs_arena_strc(a, s).ptr : NULL;
}

/* The command line that produced a report, quoted for a shell ("callsign" for argv[0]). */
static const char *command_line(cs_arena *a, int argc, char **argv) {
  cs_buf cmd = {0};
  for (int i = 0; i < argc; i++) {
    if (i)
      cs_buf_putc(&cmd, ' ');
    cs_shell_arg(&cmd, i == 0 ? "callsign" : argv[i]);
  }
  const char *s = dup_s(a, cmd.data);
  cs_buf_free(&cmd);
  return s;
}

static void fill_cell(run_ctx *c, cs_impl_result *ir, const cs_outcome *oc, cs_cell *out, bool external) {
  const char *tname = oc->target >= 0 ? cs_target_get((cs_target_id)oc->target)->name : "-";
  out->property = oc->prop->name;
  out->target = tname;
  out->required = oc->prop->tier == CS_TIER_REQUIRED;
  out->contract = oc->prop->contract;
  out->cases = oc->cases;
  out->seed = c->o.seed;
  out->case_index = c->report.replay ? CS_CASE_REPLAYED : oc->case_index;
  out->verdict = !oc->applicable || oc->undecided ? CS_VERDICT_NOT_APPLICABLE
                 : oc->failed                     ? CS_VERDICT_FAIL
                 : oc->cases                      ? CS_VERDICT_PASS
                                                  : CS_VERDICT_UNCHECKED; /* held vacuously: say so, not "ok" */
  if (oc->failed) {
    out->message = dup_s(&c->a, oc->message);
    out->history_json = dup_s(&c->a, oc->history_json);
    out->answer_json = dup_s(&c->a, oc->answer_json);
    out->shrunk_turns = oc->shrunk_turns;
    out->shrunk_calls = oc->shrunk_calls;
    out->shrink_steps = oc->shrink_steps;
    if (oc->choices || oc->literal_path) {
      cs_buf tok = {0}, cmd = {0};
      if (oc->choices) {
        cs_choices_token(oc->choices, oc->nchoices, &tok);
        out->token = dup_s(&c->a, tok.data);
      }
      cs_replay_command(&c->o, ir->name, external, oc, tname, &cmd);
      out->replay = dup_s(&c->a, cmd.data);
      cs_buf_free(&tok);
      cs_buf_free(&cmd);
    }
  }
  /* Only a judged cell answers a line: one not applicable or not reached says nothing of it. */
  cs_expect_entry *e = cs_expect_find(&c->expect, ir->name, out->property, out->target);
  if (e && (out->verdict == CS_VERDICT_FAIL || out->verdict == CS_VERDICT_PASS)) {
    e->matched = true;
    out->verdict = out->verdict == CS_VERDICT_FAIL ? CS_VERDICT_EXPECTED_FAIL : CS_VERDICT_FIXED;
  }
}

/* Does an implementation of the run other than `self` still fail (property, target) as listed? */
static bool listed_failure_elsewhere(const cs_report *r, const cs_impl_result *self, const cs_cell *cell) {
  for (size_t k = 0; k < r->nimpls; k++)
    for (size_t i = 0; &r->impls[k] != self && i < r->impls[k].ncells; i++) {
      const cs_cell *o = &r->impls[k].cells[i];
      if (o->verdict == CS_VERDICT_EXPECTED_FAIL && !strcmp(o->property, cell->property) &&
          !strcmp(o->target, cell->target))
        return true;
    }
  return false;
}

/* A FIXED cell under a line for every implementation, which another implementation still fails:
 * removing the line would fail that one, so the reports ask for the line to be narrowed. */
static void mark_shared_fixed(run_ctx *c) {
  for (size_t k = 0; k < c->report.nimpls; k++) {
    cs_impl_result *ir = &c->report.impls[k];
    for (size_t i = 0; i < ir->ncells; i++) {
      cs_cell *cell = &ir->cells[i];
      if (cell->verdict != CS_VERDICT_FIXED)
        continue;
      const cs_expect_entry *e = cs_expect_find(&c->expect, ir->name, cell->property, cell->target);
      cell->fixed_line_shared = e && !e->impl[0] && listed_failure_elsewhere(&c->report, ir, cell);
    }
  }
}

/* The lines no judged cell matched: warned of, and kept by the failures list, so that a list
 * brought up to date by a narrower run (or one whose implementation did not start) loses none. */
static void note_expect_not_checked(run_ctx *c) {
  cs_expect_line *kept = CS_ARENA_NEW(&c->a, cs_expect_line, c->expect.n + 1);
  size_t n = 0;
  for (size_t i = 0; i < c->expect.n; i++) {
    const cs_expect_entry *e = &c->expect.e[i];
    if (e->matched)
      continue;
    kept[n++] = (cs_expect_line){cs_arena_strc(&c->a, e->property).ptr, cs_arena_strc(&c->a, e->target).ptr,
                                 cs_arena_strc(&c->a, e->impl).ptr};
    /* The line is the file's: escaped, so no byte of it drives the terminal. */
    cs_buf line = {0};
    cs_buf_printf(&line, "%s %s%s", e->property, e->target, e->impl[0] ? " " : "");
    cs_buf_puts(&line, e->impl);
    cs_buf shown = {0};
    cs_esc_plain(&shown, line.data, line.len, false);
    fprintf(stderr, "callsign: --expect lists '%s', which this run did not check\n", shown.data);
    cs_buf_free(&shown);
    cs_buf_free(&line);
  }
  c->report.expect_not_checked = kept;
  c->report.nexpect_not_checked = n;
}

/* A cell checked against the vectors names the file it used, and a failure on it gets the command that
 * checks that file again: a vector has no token, as no seed generated it. */
static void name_vectors(run_ctx *c, const cs_impl_result *ir, const cs_outcome *oc, cs_cell *out, bool external) {
  bool stdin_vectors = !strcmp(c->vectors_path, "-");
  out->contract =
      cs_arena_printf(&c->a, CS_VECTORS_CONTRACT("%s"), stdin_vectors ? "the vectors read from stdin" : c->vectors_path)
          .ptr;
  /* Vectors read from stdin are not there to read again: the command would wait on a terminal. */
  if (!oc->failed || stdin_vectors)
    return;
  cs_buf cmd = {0};
  cs_vectors_replay_command(&c->o, ir->name, external, oc->prop->name, c->vectors_path, &cmd);
  out->replay = dup_s(&c->a, cmd.data);
  cs_buf_free(&cmd);
}

/* The cell of `property` that speaks for the implementation: a failing one if any, else one that
 * held; NULL when no cell of it was judged (n/a or unchecked everywhere). */
static const cs_cell *judged_cell(const cs_impl_result *ir, const char *property) {
  const cs_cell *pick = NULL;
  for (size_t i = 0; i < ir->ncells; i++) {
    const cs_cell *c = &ir->cells[i];
    if (strcmp(c->property, property) != 0 || c->verdict == CS_VERDICT_NOT_APPLICABLE ||
        c->verdict == CS_VERDICT_UNCHECKED)
      continue;
    if (cs_cell_failed(c))
      return c;
    if (!pick)
      pick = c;
  }
  return pick;
}

static void progress_line(void *user, uint64_t cases, uint64_t failures, const cs_outcome *cells, size_t ncells,
                          double elapsed) {
  (void)user;
  (void)cells;
  (void)ncells;
  fprintf(stderr, "\r  %llu cases, %llu failing properties, %.1f s ", (unsigned long long)cases,
          (unsigned long long)failures, elapsed);
}

/* What a --jobs worker needs to open its own instance of the implementation. */
typedef struct {
  const cs_options *o;
  cs_ruleset *rs;
  const char *name;  /* NULL: --impl-cmd */
  const char *first; /* the name the first process's hello gave */
} session_args;

/* A worker's program must name itself as the first process did (PROTOCOL.md): the report and the
 * corpus are keyed by that name. */
static cs_impl *open_session(void *user, cs_err *err) {
  const session_args *s = user;
  cs_impl *impl = cs_session_open(s->o, s->rs, s->name, err);
  if (impl && impl->info.name && s->first && strcmp(impl->info.name, s->first) != 0) {
    cs_session_other_name(err, "a worker's", impl->info.name, "the first process's", s->first);
    cs_impl_destroy(impl);
    return NULL;
  }
  return impl;
}

/* The stderr tail the implementation kept (the null string when it keeps none). */
static cs_str stderr_tail_of(cs_impl *impl) {
  return impl->vt->stderr_tail ? impl->vt->stderr_tail(impl) : CS_NULL_STR;
}

/* Runs one implementation; with `token` choices, replays that one case instead of generating. */
static int run_one(run_ctx *c, const char *name, cs_impl_result *ir, const uint64_t *token, size_t ntoken) {
  cs_err err = {{0}};
  bool external = name == NULL;
  memset(ir, 0, sizeof *ir);
  ir->kind = external ? "external" : "built-in";
  ir->name = dup_s(&c->a, name ? name : (c->o.impl_cmd[0] ? c->o.impl_cmd[0] : "?"));
  cs_impl *impl = cs_session_open(&c->o, c->rs, name, &err);
  if (!impl) {
    ir->could_not_run = true;
    ir->error = dup_s(&c->a, err.msg);
    cs_fail(CS_EXIT_IMPL, "%s", err.msg);
    return 0;
  }
  ir->name = dup_s(&c->a, impl->info.name ? impl->info.name : ir->name);
  ir->version = dup_s(&c->a, impl->info.version ? impl->info.version : "");

  cs_corpus corpus = {0};
  const char *corpus_dir = c->o.corpus_dir ? c->o.corpus_dir : "corpus/regressions";
  if (!c->o.no_corpus && cs_corpus_load(corpus_dir, ir->name, &corpus, &err))
    fprintf(stderr, "callsign: warning: %s\n", err.msg);
  if (cs_corpus_stale(&corpus, &err))
    fprintf(stderr, "callsign: warning: %s\n", err.msg);

  cs_run_config rc = {
      .seed = c->o.seed,
      .cases = c->o.cases,
      .time_s = c->o.time_s,
      .targets = c->o.targets,
      .shard_i = c->o.shard_i,
      .shard_n = c->o.shard_n,
      .batch = external ? 256 : 32,
      .generate_ahead = external,
      .gen = {.max_id_len = c->o.max_id_len},
      .only = c->o.only,
      .nonly = c->o.nonly,
  };
  cs_corpus_replay_first(&corpus, &rc);
  if (c->literal) {
    rc.literal = &c->literal;
    rc.literal_twins = &c->literal_twin;
    rc.literal_paths = &c->literal_path;
    rc.nliteral = 1;
    rc.corpus_only = true;
    rc.replay_one = true;
  }
  if (!c->o.quiet && isatty(2))
    rc.progress = progress_line;
  cs_run_result res;
  cs_str tail = CS_NULL_STR;     /* with --jobs: the first worker's stderr tail (heap) */
  cs_str own_tail = CS_NULL_STR; /* with --jobs: this process's program's, from before it stopped */
  int status;
  if (token) {
    status = cs_run_replay(impl, c->rs, &rc, token, ntoken, &res, &err);
  } else if (c->o.jobs > 1) {
    /* The instance opened above gave the name and checks the vectors (starting its program again
     * for them); each worker opens its own, so this one's program is not left idle beside them. */
    own_tail = cs_arena_str(&c->a, stderr_tail_of(impl));
    cs_session_stop(impl, ir->name);
    session_args sa = {&c->o, c->rs, name, ir->name};
    status = cs_run_jobs(c->o.jobs, open_session, &sa, c->rs, &rc, &res, &tail, &err);
  } else {
    status = cs_run_impl(impl, c->rs, &rc, &res, &err);
  }
  if (rc.progress)
    fputs("\r\033[K", stderr);
  cs_corpus_free(&corpus);
  if (status) {
    ir->could_not_run = true;
    ir->error = dup_s(&c->a, err.msg);
    cs_fail(CS_EXIT_IMPL, "%s", err.msg);
  }
  ir->cases = res.cases;
  ir->cases_cut = res.cases_cut;
  ir->seconds = res.seconds;
  for (int l = 0; l < CS_LABEL_COUNT; l++)
    c->label_counts[l] += res.label_counts[l];
  c->stat_cases += res.stat_cases;
  memcpy(ir->faults, res.faults, sizeof ir->faults);
  ir->given_up = res.given_up;
  ir->ended_early = res.ended_early;
  ir->given_up_after = rc.replay_one || token ? CS_REPLAY_GIVE_UP_AFTER : CS_RUN_GIVE_UP_AFTER;
  char *tail_heap = (char *)tail.ptr;
  if (!tail.ptr)
    tail = own_tail.ptr ? own_tail : stderr_tail_of(impl);
  if (tail.len) { /* the reports take C strings: a NUL byte would hide everything after it */
    cs_buf clean = {0};
    for (size_t i = 0; i < tail.len; i++)
      if (tail.ptr[i])
        cs_buf_putc(&clean, tail.ptr[i]);
      else
        cs_buf_puts(&clean, "\xEF\xBF\xBD"); /* U+FFFD */
    ir->stderr_tail = cs_arena_strc(&c->a, clean.data).ptr;
    cs_buf_free(&clean);
  }
  free(tail_heap);

  ir->cells = CS_ARENA_NEW(&c->a, cs_cell, res.ncells + 1);
  size_t unsaved = 0; /* failures the corpus could not take */
  cs_err first_unsaved = {{0}};
  for (size_t i = 0; i < res.ncells; i++) {
    cs_outcome *oc = &res.cells[i];
    bool vectors_checked = false;
    /* The vectors are checked here, once, not per case, and only for an implementation that claims
     * the scheme and announced canonicalize. */
    if (!token && !strcmp(oc->prop->name, "vectors.canonical_v1") && impl->info.claims_canonical_v1 &&
        (impl->info.ops & CS_OP_CANONICALIZE) && !(c->o.nonly && !cs_property_find("vectors.canonical_v1"))) {
      oc->applicable = true;
      char where[4200];
      if (!c->vectors && !c->vectors_unusable) {
        c->vectors_path = dup_s(&c->a, c->o.vectors ? c->o.vectors : cs_vectors_locate(where, sizeof where));
        c->vectors = cs_vectors_load(c->vectors_path, true, &err);
        if (!c->vectors) {
          cs_fail(CS_EXIT_USAGE, "%s (--vectors FILE names it)", err.msg);
          c->vectors_unusable = true;
          c->report.input_error = cs_arena_printf(&c->a, "%s (--vectors FILE names it)", err.msg).ptr;
        }
      }
      if (!c->vectors) {
        oc->applicable = false; /* not judged: the input is missing, not the implementation wrong */
      } else {
        vectors_checked = true;
        cs_vector_mismatch m;
        int v = cs_vectors_check_impl(impl, c->vectors, &m, &oc->cases, &err);
        if (v != 1) {
          oc->failed = true;
          oc->case_index = CS_CASE_VECTOR;
          oc->history_json = m.history_json;
          oc->answer_json = m.answer_json;
          oc->shrunk_turns = m.turns;
          oc->shrunk_calls = m.calls;
          oc->shrink_steps = 0;
          snprintf(oc->message, sizeof oc->message, "%s", v < 0 ? err.msg : m.why);
        }
      }
    }
    fill_cell(c, ir, oc, &ir->cells[ir->ncells], external);
    if (vectors_checked)
      name_vectors(c, ir, oc, &ir->cells[ir->ncells], external);
    ir->ncells++;
    if (oc->undecided && !c->report.input_error) { /* the rule is at fault, not the implementation */
      char msg[sizeof oc->undecided_why + 100];
      cs_outcome_undecided_message(oc, msg, sizeof msg);
      c->report.input_error = cs_arena_printf(&c->a, "%s", msg).ptr;
      cs_fail(CS_EXIT_USAGE, "%s", c->report.input_error);
    }
    /* Each failure is tried: one path in the way (a file where a directory goes) keeps no other out. */
    if (oc->failed && oc->choices && !c->o.no_corpus && !token) {
      const char *tname = oc->target >= 0 ? cs_target_get((cs_target_id)oc->target)->name : "-";
      cs_err e;
      if (cs_corpus_save(corpus_dir, ir->name, oc, tname, c->o.max_id_len, &e) && unsaved++ == 0)
        first_unsaved = e;
    }
  }
  /* A --time too short for one case left properties unchecked, and would pass a gate that checked
   * nothing (fuzz refuses it too); the vectors alone need no case. */
  bool unchecked = false;
  for (size_t i = 0; i < ir->ncells && !unchecked; i++)
    unchecked = ir->cells[i].verdict == CS_VERDICT_UNCHECKED;
  if (!status && !token && !res.cases && unchecked && c->o.time_s > 0 && !c->report.input_error) {
    cs_buf shown = {0};
    c->report.input_error = cs_arena_printf(&c->a, "run: %s: no case was run within --time %gs",
                                            cs_shown(&shown, ir->name, 200), c->o.time_s)
                                .ptr;
    cs_buf_free(&shown);
    cs_fail(CS_EXIT_USAGE, "%s", c->report.input_error);
  }
  if (unsaved)
    fprintf(stderr, "callsign: warning: %s: %zu failure%s not saved to the corpus (the first: %s)\n", ir->name, unsaved,
            unsaved == 1 ? "" : "s", first_unsaved.msg);
  /* Which half of the normalizer theorem did it give up? */
  const cs_cell *idem = judged_cell(ir, "normalize.idempotent"), *inj = judged_cell(ir, "normalize.injective");
  if (idem && inj) {
    bool idem_ok = !cs_cell_failed(idem), inj_ok = !cs_cell_failed(inj); /* judged: failed or held */
    ir->note = idem_ok && !inj_ok   ? "normalize gave up injectivity and stayed idempotent"
               : !idem_ok && inj_ok ? "normalize gave up idempotence and stayed injective"
               : !idem_ok           ? "normalize is neither idempotent nor injective"
                                    : "normalize held both idempotence and injectivity on these cases";
  }
  cs_run_result_free(&res);
  cs_session_close(impl, ir->name);
  return 0;
}

/* Renders report `i` in memory and writes it whole or not at all (cs_write_file): a report that
 * fails leaves the file that was there before, never a cut-off one. 0, or -1 with err. */
static int write_report(run_ctx *c, const cs_report_format *f, size_t i, cs_err *err) {
  char *text = NULL;
  size_t len = 0;
  FILE *mem = open_memstream(&text, &len);
  if (!mem)
    return cs_err_set(err, "%s: cannot write: %s", c->o.report[i], strerror(errno));
  cs_err why = {{0}};
  int rc = f[i].write(&c->report, mem, &why);
  if (fclose(mem) && rc == 0)
    rc = cs_err_set(&why, "out of memory");
  if (rc)
    cs_err_set(err, "%s: %s", c->o.report[i], why.msg[0] ? why.msg : "write error");
  else
    rc = cs_write_file(c->o.report[i], text, len, err);
  free(text);
  return rc;
}

/* Writes every report asked for, each whole or not at all; one that fails does not keep the others
 * from being written. The reports state the exit status, so when stdout or a report could not be
 * written, the ones written before it are written again, saying 2. 0, or -1 when any failed (each
 * said on stderr). */
static int write_reports(run_ctx *c) {
  size_t nf;
  const cs_report_format *f = cs_report_formats(&nf);
  if (nf > 8)
    nf = 8;
  errno = 0;
  int flushed = fflush(stdout);
  if (flushed || ferror(stdout)) { /* said here: main's own check stays quiet on a status of 2 */
    if (cs_report_exit_status(&c->report) != CS_EXIT_IMPL) /* a 3 stands, its reason already said */
      cs_fail(CS_EXIT_USAGE, "stdout: %s", flushed && errno ? strerror(errno) : "write error");
    c->report.output_error = true;
  }
  bool written[8] = {false}, failed = false;
  for (size_t i = 0; i < nf; i++) {
    if (!c->o.report[i])
      continue;
    cs_err err = {{0}};
    if (write_report(c, f, i, &err)) {
      cs_fail(CS_EXIT_USAGE, "%s", err.msg);
      failed = true;
    } else {
      written[i] = true;
    }
  }
  if (failed && !c->report.output_error) {
    c->report.output_error = true;
    for (size_t i = 0; i < nf; i++) {
      cs_err err = {{0}};
      if (written[i] && write_report(c, f, i, &err))
        cs_fail(CS_EXIT_USAGE, "%s", err.msg);
    }
  }
  return failed || c->report.output_error ? -1 : 0;
}

static int print_stats(run_ctx *c) {
  const cs_report *r = &c->report;
  int low = 0;
  size_t width = 0; /* the longest name sets the column, so counts line up */
  for (size_t i = 0; i < r->nstats; i++)
    if (strlen(r->stats[i].name) > width)
      width = strlen(r->stats[i].name);
  if (c->o.stats)
    printf("\nGeneration statistics (%llu cases)\n", (unsigned long long)r->stat_cases);
  for (size_t i = 0; i < r->nstats; i++) {
    double share = cs_report_stat_share(r, i);
    bool below = cs_report_stat_below(r, i);
    if (c->o.stats || below)
      printf("  %-*s %8llu  %6.2f%%%s\n", (int)width, r->stats[i].name, (unsigned long long)r->stats[i].count,
             share * 100, below ? "  below --min-coverage" : "");
    low += below;
  }
  if (low) {
    cs_buf line = {0};
    cs_coverage_line(&line, (size_t)low, c->o.min_coverage);
    cs_fail(CS_EXIT_FAIL, "%s", line.data);
    cs_buf_free(&line);
  }
  return low;
}

/* Adds a built-in's name unless it is there: an implementation named twice (again, or by name and
 * by 'all') runs once. `cap` bounds the list whatever the arguments. */
static void add_name(const char **names, size_t *nn, size_t cap, const char *name) {
  for (size_t i = 0; i < *nn; i++)
    if (!strcmp(names[i], name))
      return;
  if (*nn < cap)
    names[(*nn)++] = name;
}

/* True when every implementation ran and not one cell of the run applied to it. protocol.answer
 * counts only when named: it judges the answers to the other cells' requests (a replay asks for
 * every request of its case, so there it may apply alone). */
static bool nothing_to_check(const run_ctx *c) {
  const cs_report *r = &c->report;
  bool answer_named = cs_options_named(&c->o, CS_PROPERTY_ANSWER);
  for (size_t k = 0; k < r->nimpls; k++) {
    if (r->impls[k].could_not_run)
      return false;
    for (size_t i = 0; i < r->impls[k].ncells; i++)
      if (r->impls[k].cells[i].verdict != CS_VERDICT_NOT_APPLICABLE &&
          (answer_named || strcmp(r->impls[k].cells[i].property, CS_PROPERTY_ANSWER)))
        return false;
  }
  return r->nimpls > 0;
}

/* A selection of targets and properties that leaves nothing to check would pass a gate that
 * checked nothing: an input error instead, said now and in the reports. */
static void refuse_nothing_to_check(run_ctx *c) {
  if (c->report.input_error || !nothing_to_check(c))
    return;
  c->report.input_error = "nothing to check: no implementation has an operation for the selected targets and "
                          "properties (see callsign list, and each implementation's hello)";
  cs_fail(CS_EXIT_USAGE, "%s", c->report.input_error);
}

int cs_cmd_run(int argc, char **argv) {
  run_ctx c;
  memset(&c, 0, sizeof c);
  cs_err err = {{0}};
  int first = argc > 1 && !strcmp(argv[1], "run") ? 2 : 1;
  if (cs_options_parse(&c.o, argc, argv, first, CS_CMD_RUN, &err))
    return cs_fail(CS_EXIT_USAGE, "%s", err.msg);
  if (c.o.npositional)
    return cs_fail(CS_EXIT_USAGE, "run: unexpected argument '%s'", c.o.positional[0]);
  if (c.o.impl_cmd && c.o.nimpls)
    return cs_fail(CS_EXIT_USAGE, "run: give --impl or --impl-cmd, not both");
  if (!(c.rs = cs_cli_ruleset(&c.o, &err)))
    return cs_fail(CS_EXIT_USAGE, "%s", err.msg);
  if (c.o.expect && cs_expect_load(c.o.expect, &c.expect, &err)) {
    cs_ruleset_free(c.rs);
    return cs_fail(CS_EXIT_USAGE, "%s", err.msg);
  }
  size_t nb;
  const cs_builtin *b = cs_builtins(&nb);
  /* Every name is a built-in's (others are refused) and each is taken once, so nb + 1 (the
   * --impl-cmd slot) holds them however often --impl repeats. */
  const char **names = CS_ARENA_NEW(&c.a, const char *, nb + 1);
  size_t nn = 0;
  for (size_t i = 0; i < c.o.nimpls; i++) {
    if (!strcmp(c.o.impls[i], "all")) {
      for (size_t k = 0; k < nb; k++)
        add_name(names, &nn, nb, b[k].name);
    } else if (!cs_builtin_find(c.o.impls[i])) {
      cs_expect_free(&c.expect);
      cs_ruleset_free(c.rs);
      cs_arena_free(&c.a);
      return cs_fail(CS_EXIT_USAGE, "unknown implementation '%s' (see callsign list)", c.o.impls[i]);
    } else {
      add_name(names, &nn, nb, cs_builtin_find(c.o.impls[i])->name);
    }
  }
  if (c.o.impl_cmd)
    names[nn++] = NULL;
  else if (!nn)
    for (size_t k = 0; k < nb; k++)
      names[nn++] = b[k].name;
  /* A --vectors file named on the command line is read now, so a mistyped path is refused before
   * the run; the default one is looked for only once an implementation claims the scheme. */
  cs_made made = {0};
  c.vectors_path = c.o.vectors;
  if ((c.o.vectors && !(c.vectors = cs_vectors_load(c.o.vectors, true, &err))) ||
      cs_options_prepare_reports(&c.o, &made, &err)) {
    cs_made_undo(&made);
    if (c.vectors)
      cJSON_Delete(c.vectors);
    cs_expect_free(&c.expect);
    cs_ruleset_free(c.rs);
    cs_arena_free(&c.a);
    return cs_fail(CS_EXIT_USAGE, "%s", err.msg);
  }

  cs_made_free(&made);
  cs_options_inline_profile(&c.o, c.rs, &c.a); /* after the reports were checked against the file */
  c.report.command = command_line(&c.a, argc, argv);
  c.report.tool_version = CS_VERSION;
  c.report.seed = c.o.seed;
  c.report.strict = c.o.strict;
  c.report.brief = c.o.quiet;
  for (int t = 0; t < CS_TARGET_COUNT; t++)
    if (!c.o.targets || (c.o.targets >> t & 1u))
      c.report.targets[c.report.ntargets++] = cs_target_get((cs_target_id)t)->name;
  c.report.impls = CS_ARENA_NEW(&c.a, cs_impl_result, nn + 1);
  cs_note_corpus_off(&c.o);
  for (size_t i = 0; i < nn; i++)
    run_one(&c, names[i], &c.report.impls[c.report.nimpls++], NULL, 0);
  refuse_nothing_to_check(&c);
  int status = 0;
  /* Generation statistics: the runner counted the labels of every generated case. */
  c.report.stats = CS_ARENA_NEW(&c.a, cs_stat, CS_LABEL_COUNT);
  for (int l = 0; l < CS_LABEL_COUNT; l++)
    c.report.stats[c.report.nstats++] =
        (cs_stat){cs_label_name((cs_label)l), cs_label_desc((cs_label)l), c.label_counts[l]};
  c.report.stat_cases = c.stat_cases;
  c.report.min_coverage = c.o.min_coverage;
  mark_shared_fixed(&c);
  note_expect_not_checked(&c);
  const char *color = c.o.color ? c.o.color : "auto";
  bool use_color = !strcmp(color, "always") || (!strcmp(color, "auto") && isatty(1) && getenv("NO_COLOR") == NULL);
  cs_report_terminal(&c.report, stdout, use_color, &err);
  fflush(stdout);
  if (print_stats(&c))
    status = CS_EXIT_FAIL;
  if (write_reports(&c))
    status = CS_EXIT_USAGE;
  int rs = cs_report_exit_status(&c.report);
  if (status == 0 || rs == CS_EXIT_IMPL)
    status = rs ? rs : status;
  if (c.report.input_error && status != CS_EXIT_IMPL) /* the vectors or a rule: the run is incomplete */
    status = CS_EXIT_USAGE;
  cs_expect_free(&c.expect);
  if (c.vectors)
    cJSON_Delete(c.vectors);
  cs_ruleset_free(c.rs);
  cs_arena_free(&c.a);
  return status;
}

int cs_cmd_replay(int argc, char **argv) {
  run_ctx c;
  memset(&c, 0, sizeof c);
  cs_err err = {{0}};
  if (cs_options_parse(&c.o, argc, argv, 2, CS_CMD_REPLAY, &err))
    return cs_fail(CS_EXIT_USAGE, "%s", err.msg);
  if (c.o.npositional != 1)
    return cs_fail(CS_EXIT_USAGE, "replay: give one replay token (cs2.…) or one saved case file (- for stdin)");
  if ((c.o.impl_cmd != NULL) == (c.o.nimpls == 1) || c.o.nimpls > 1)
    return cs_fail(CS_EXIT_USAGE, "replay: give one --impl NAME or --impl-cmd -- ARGV...");
  if (c.o.nimpls && !cs_builtin_find(c.o.impls[0]))
    return cs_fail(CS_EXIT_USAGE, "unknown implementation '%s' (see callsign list)", c.o.impls[0]);
  uint64_t *v = NULL;
  size_t n = 0;
  const char *arg = c.o.positional[0];
  if (cs_choices_is_token(arg)) {
    if (cs_choices_parse_token(arg, &v, &n, &err))
      return cs_fail(CS_EXIT_USAGE, "%s", err.msg);
  } else {
    char prop[128], tgt[64];
    cs_history *lit = cs_arena_alloc(&c.literal_arena, sizeof *lit);
    uint32_t bound;
    int kind = cs_corpus_read_file(arg, &c.literal_arena, lit, &c.literal_twin, &v, &n, &bound, prop, sizeof prop, tgt,
                                   sizeof tgt, &err);
    if (kind < 0) {
      cs_arena_free(&c.literal_arena);
      return cs_fail(CS_EXIT_USAGE, "%s", err.msg);
    }
    /* A case found under another ID bound is regenerated under that bound, or it is another case
     * (a saved history replayed as it is has no bound to keep). A file without one was found
     * under the default bound. */
    uint32_t found_under = bound ? bound : CS_GEN_DEFAULT_MAX_ID_LEN;
    if (kind == 0 && c.o.max_id_len && c.o.max_id_len != found_under) {
      free(v);
      cs_arena_free(&c.literal_arena);
      return cs_fail(CS_EXIT_USAGE,
                     "replay: %s was found under --max-id-len %u; --max-id-len %u would replay another case",
                     strcmp(arg, "-") ? arg : "stdin", found_under, c.o.max_id_len);
    }
    if (kind == 0 && bound)
      c.o.max_id_len = bound;
    if (kind == 2)
      fprintf(stderr,
              "callsign: warning: %s: the token no longer makes the saved history (saved by a callsign whose "
              "generator differs): the saved history is replayed as it is\n",
              strcmp(arg, "-") ? arg : "stdin");
    if (kind >= 1)
      c.literal = lit; /* a planted or saved history: run as it is */
    /* Named in the replay command only when it can be read again: not stdin, a pipe or a FIFO. */
    struct stat st;
    c.literal_path = strcmp(arg, "-") && stat(arg, &st) == 0 && S_ISREG(st.st_mode) ? arg : NULL;
    /* A saved case names its property and target: check those unless told otherwise. */
    if (!c.o.nonly && prop[0] && cs_property_find(prop))
      c.o.only[c.o.nonly++] = cs_property_find(prop)->name;
    if (!c.o.targets && cs_target_parse(tgt) >= 0)
      c.o.targets = 1u << cs_target_parse(tgt);
  }
  cs_made made = {0};
  if (!(c.rs = cs_cli_ruleset(&c.o, &err)) || cs_options_prepare_reports(&c.o, &made, &err)) {
    cs_made_undo(&made);
    free(v);
    cs_ruleset_free(c.rs);
    cs_arena_free(&c.literal_arena);
    return cs_fail(CS_EXIT_USAGE, "%s", err.msg);
  }
  cs_made_free(&made);
  cs_options_inline_profile(&c.o, c.rs, &c.a);
  c.o.no_corpus = true;
  c.report.replay = true;
  c.report.tool_version = CS_VERSION;
  c.report.seed = c.o.seed;
  c.report.strict = c.o.strict;
  c.report.brief = c.o.quiet;
  c.report.command = command_line(&c.a, argc, argv);
  for (int t = 0; t < CS_TARGET_COUNT; t++)
    if (!c.o.targets || (c.o.targets >> t & 1u))
      c.report.targets[c.report.ntargets++] = cs_target_get((cs_target_id)t)->name;
  c.report.impls = CS_ARENA_NEW(&c.a, cs_impl_result, 1);
  run_one(&c, c.o.nimpls ? c.o.impls[0] : NULL, &c.report.impls[c.report.nimpls++], c.literal ? NULL : v, n);
  free(v);
  const char *color = c.o.color ? c.o.color : "auto";
  bool use_color = !strcmp(color, "always") || (!strcmp(color, "auto") && isatty(1) && getenv("NO_COLOR") == NULL);
  refuse_nothing_to_check(&c);
  cs_report_terminal(&c.report, stdout, use_color, &err);
  write_reports(&c); /* a report that cannot be written sets output_error: 2, unless a 3 stands */
  int status = cs_report_exit_status(&c.report);
  cJSON_Delete(c.vectors); /* loaded by run_one when the replayed case reached the vectors */
  cs_ruleset_free(c.rs);
  cs_arena_free(&c.a);
  cs_arena_free(&c.literal_arena);
  return status;
}
