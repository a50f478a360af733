/* harness/cmd_fuzz.c: `callsign fuzz`: a time-bounded campaign against one implementation
 * (harness/campaign.h): every property stays armed, distinct failures are shrunk, deduplicated by
 * signature, written to the results directory (--out, default fuzz-results) and saved to the
 * corpus. A live progress line on a terminal, a plain summary otherwise.
 * --jobs N forks N worker processes, each with its own instance of the implementation, running
 * shard I + N_shards * j of N_shards * N of the case space (so --shard and --jobs compose and still
 * cover each case once); they stream progress over a pipe each and write their findings to
 * OUT/.worker-j/, which the parent merges. --merge OUT DIR... merges the results of shards run
 * elsewhere. --list-cases prints every case run (index, SHA-256 of its history, token): shards
 * 0..N-1 together list exactly the cases of the unsharded run.
 * SIGINT or SIGTERM stops the campaign as its --time would: the batch in flight finishes (its
 * failures are reported unshrunk; requests still waiting are cut off, their cases not judged), the
 * findings are written and summed up as usual, and the summary says it was interrupted. The same
 * signal a second or more later ends callsign at once (harness/session.h).
 * Exit status: 1 a failure was found (not listed by --expect), 0 none, 2 usage, 3 cannot run. */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "core/alloc.h"
#include "core/clock.h"
#include "core/fs.h"
#include "core/hash.h"
#include "core/history_json.h"
#include "harness/campaign.h"
#include "harness/cli.h"
#include "harness/corpus.h"
#include "harness/expect.h"
#include "harness/session.h"
#include "harness/workers.h"
#include "reports/escape.h"
#include "reports/tally.h"

#define DEFAULT_TIME_S 60.0
#define DEFAULT_OUT "fuzz-results"
#define DEFAULT_CORPUS "corpus/regressions"
#define PROGRESS_EVERY_S 0.2

typedef struct {
  cs_options o;
  cs_ruleset *rs;
  const char *out_dir, *corpus_dir;
  double time_s;
  uint64_t cases;
  bool tty;
  /* live state (the parent's view, summed over workers) */
  char (*sigs)[17];
  size_t nsigs, capsigs;
  uint64_t failing;
  double last_print;
  /* a worker reports through this pipe (-1: the campaign runs in this process) */
  int report_fd;
  double last_report;
  const volatile sig_atomic_t *stop; /* cs_catch_stop_signals: a stop signal came */
  /* --list-cases */
  cs_hasher *hasher;
  cs_buf scratch;
  cs_arena rules; /* the --rule texts a --profile became (cs_options_inline_profile) */
} fuzz_ctx;

static void note_signature(fuzz_ctx *c, const char *sig) {
  for (size_t i = 0; i < c->nsigs; i++)
    if (!strcmp(c->sigs[i], sig))
      return;
  if (c->nsigs == c->capsigs) {
    c->capsigs = c->capsigs ? c->capsigs * 2 : 32;
    c->sigs = cs_xrealloc_array(c->sigs, c->capsigs, sizeof *c->sigs);
  }
  snprintf(c->sigs[c->nsigs++], 17, "%s", sig);
}

static void print_progress(fuzz_ctx *c, uint64_t cases, double elapsed, bool force) {
  if (!c->tty || (!force && elapsed - c->last_print < PROGRESS_EVERY_S))
    return;
  c->last_print = elapsed;
  double rate = elapsed > 0 ? (double)cases / elapsed : 0;
  /* signatures seen so far: the summary keeps one finding per window, so it may list fewer */
  fprintf(stderr, "\r\033[K  fuzz: %llu cases (%.0f/s), %llu failing checks, %zu failure signatures seen",
          (unsigned long long)cases, rate, (unsigned long long)c->failing, c->nsigs);
  if (c->time_s > 0)
    fprintf(stderr, ", %.0f s left", c->time_s > elapsed ? c->time_s - elapsed : 0.0);
  else if (c->cases && rate > 0)
    fprintf(stderr, ", ~%.0f s left", (double)(c->cases > cases ? c->cases - cases : 0) / rate);
}

/* Sends one message to the parent (harness/workers.h); a parent that is gone is ignored: the
 * campaign result still goes to the worker's directory. */
static void report(fuzz_ctx *c, char type, const char *data, size_t n) {
  cs_worker_send(c->report_fd, type, data, n);
}

static void on_finding(void *user, const cs_finding *f) {
  fuzz_ctx *c = user;
  if (c->report_fd >= 0) {
    report(c, 'F', f->signature, strlen(f->signature));
    return;
  }
  note_signature(c, f->signature);
}

static void on_progress(void *user, uint64_t cases, uint64_t failing, double elapsed) {
  fuzz_ctx *c = user;
  if (c->report_fd >= 0) {
    if (elapsed - c->last_report < PROGRESS_EVERY_S / 2)
      return;
    c->last_report = elapsed;
    cs_worker_progress(c->report_fd, cases, failing);
    return;
  }
  c->failing = failing;
  print_progress(c, cases, elapsed, false);
}

static void on_case(void *user, uint64_t index, const uint64_t *choices, size_t n, const cs_history *h) {
  fuzz_ctx *c = user;
  uint8_t d[32];
  char hex[65];
  cs_buf_clear(&c->scratch);
  cs_history_write(&c->scratch, h);
  cs_sha256(c->hasher, c->scratch.data, c->scratch.len, d);
  cs_hex(d, 32, hex);
  cs_buf_clear(&c->scratch);
  cs_buf_printf(&c->scratch, "case %llu %s ", (unsigned long long)index, hex);
  cs_choices_token(choices, n, &c->scratch);
  cs_buf_putc(&c->scratch, '\n');
  if (c->report_fd >= 0)
    report(c, 'C', c->scratch.data, c->scratch.len);
  else
    fwrite(c->scratch.data, 1, c->scratch.len, stdout);
}

/* Runs the campaign of one process (the whole run, or one worker's shard) into `out`. */
static int run_part(fuzz_ctx *c, uint32_t shard_i, uint32_t shard_n, bool with_corpus, cs_findings *out, cs_err *err) {
  const char *name = c->o.nimpls ? c->o.impls[0] : NULL;
  cs_impl *impl = cs_session_open(&c->o, c->rs, name, err);
  if (!impl)
    return -1;
  cs_corpus corpus = {0};
  if (with_corpus && !c->o.no_corpus && cs_corpus_load(c->corpus_dir, impl->info.name, &corpus, err))
    fprintf(stderr, "callsign: warning: %s\n", err->msg);
  if (cs_corpus_stale(&corpus, err))
    fprintf(stderr, "callsign: warning: %s\n", err->msg);
  cs_campaign_config cfg = {
      .run =
          {
              .seed = c->o.seed,
              .cases = c->cases,
              .time_s = c->time_s,
              .targets = c->o.targets,
              .shard_i = shard_i,
              .shard_n = shard_n,
              .batch = name ? 32 : 256,
              .generate_ahead = name == NULL,
              .gen = {.max_id_len = c->o.max_id_len},
              .only = c->o.only,
              .nonly = c->o.nonly,
              .interrupt = c->stop,
          },
      .strict = c->o.strict,
      .answer_named = cs_options_named(&c->o, CS_PROPERTY_ANSWER),
      .impl_cmd = name ? NULL : c->o.impl_cmd,
      .deadline_ms = c->o.deadline_ms,
      .on_finding = on_finding,
      .on_progress = on_progress,
      .user = c,
  };
  cs_corpus_replay_first(&corpus, &cfg.run);
  if (c->o.list_cases) {
    cfg.run.on_case = on_case;
    cfg.run.case_user = c;
  }
  int rc = cs_campaign_run(impl, c->rs, &cfg, out, err);
  cs_corpus_free(&corpus);
  cs_session_close(impl, impl->info.name);
  return rc;
}

/* --- workers ------------------------------------------------------------------------------------ */

/* OUT/.worker-J (heap): built to its length, so a long --out is never cut into another directory. */
static char *worker_dir(const fuzz_ctx *c, unsigned j) {
  cs_buf dir = {0};
  cs_buf_printf(&dir, "%s/.worker-%u", c->out_dir, j);
  return dir.data;
}

static void remove_worker_dir(const char *dir) {
  char *summary = cs_findings_summary_path(dir);
  unlink(summary);
  free(summary);
  rmdir(dir);
}

/* Removes OUT/.worker-N directories a killed campaign left behind (a summary.json at most; a
 * directory holding anything else is left alone). Two campaigns on one OUT at once would share
 * these directories anyway, so one found at the start is stale. */
static void remove_stale_worker_dirs(const fuzz_ctx *c) {
  DIR *d = opendir(c->out_dir);
  if (!d)
    return;
  const char prefix[] = ".worker-";
  for (struct dirent *e; (e = readdir(d));) {
    const char *num = e->d_name + sizeof prefix - 1;
    if (strncmp(e->d_name, prefix, sizeof prefix - 1) || !*num || strspn(num, "0123456789") != strlen(num))
      continue;
    cs_buf dir = {0};
    cs_buf_printf(&dir, "%s/%s", c->out_dir, e->d_name);
    remove_worker_dir(dir.data);
    cs_buf_free(&dir);
  }
  closedir(d);
}

/* The workers (harness/workers.h): their context, and the parent's view of them. */
typedef struct {
  fuzz_ctx *c;
  char (*error)[620];     /* per worker: why it could not run */
  char (*undecided)[700]; /* per worker: cs_findings.undecided, which summary.json does not carry */
  bool checks_nothing;    /* a worker's cs_findings.checks_nothing (the same in each) */
  double t0;
} workers_view;

/* Shard 0 alone (or an unsharded campaign) replays the corpus, as worker 0 alone does: N shards
 * merged then count each corpus case once, as one unsharded campaign does. */
static bool replays_corpus(const cs_options *o) {
  return o->shard_n == 0 || o->shard_i == 0;
}

/* The worker process: its shard of the part, reported on fd, results in its directory. */
static int worker_main(void *user, unsigned j, unsigned jobs, int fd) {
  fuzz_ctx *c = ((workers_view *)user)->c;
  c->report_fd = fd;
  c->tty = false;
  uint32_t si, sn;
  cs_worker_shard(c->o.shard_i, c->o.shard_n, j, jobs, &si, &sn);
  cs_findings f = {0};
  cs_err err = {{0}};
  int rc = run_part(c, si, sn, j == 0 && replays_corpus(&c->o), &f, &err);
  if (rc == 0) {
    char *dir = worker_dir(c, j);
    rc = cs_findings_write(dir, &f, false, &err);
    free(dir);
  }
  if (rc == 0 && f.undecided[0])
    report(c, 'U', f.undecided, strlen(f.undecided));
  if (rc == 0 && f.checks_nothing)
    report(c, 'N', "", 0);
  if (rc)
    report(c, 'E', err.msg, strlen(err.msg));
  cs_findings_free(&f);
  return rc ? CS_EXIT_IMPL : 0;
}

static void on_worker_message(void *user, unsigned j, char type, const char *data, size_t len) {
  workers_view *v = user;
  char text[620];
  snprintf(text, sizeof text, "%.*s", (int)(len < sizeof text - 1 ? len : sizeof text - 1), data);
  if (type == 'F' && len == 16) {
    note_signature(v->c, text);
  } else if (type == 'C') {
    fwrite(data, 1, len, stdout);
  } else if (type == 'E') {
    snprintf(v->error[j], sizeof v->error[j], "%s", text);
  } else if (type == 'N') {
    v->checks_nothing = true;
  } else if (type == 'U') {
    snprintf(v->undecided[j], sizeof v->undecided[j], "%.*s", (int)len, data);
  }
}

static void on_worker_tick(void *user, uint64_t cases, uint64_t failing) {
  workers_view *v = user;
  v->c->failing = failing;
  print_progress(v->c, cases, cs_now_s() - v->t0, false);
}

/* Returns 0; 1 when some workers failed and `total` holds the others' findings (err says why); -1
 * with err when none could be kept. */
static int run_workers(fuzz_ctx *c, unsigned jobs, cs_findings *total, cs_err *err) {
  workers_view v = {c, cs_xcalloc(jobs, sizeof *v.error), cs_xcalloc(jobs, sizeof *v.undecided), false, cs_now_s()};
  cs_worker_end *ends = cs_xcalloc(jobs, sizeof *ends);
  cs_workers_config wc = {.n = jobs,
                          .work = worker_main,
                          .on_message = on_worker_message,
                          .on_tick = on_worker_tick,
                          .user = &v,
                          .interrupt = c->stop};
  int rc = cs_workers_run(&wc, ends, err);
  /* A worker that failed (killed, crashed, or could not run its part) loses its sub-shard, not the
   * others' findings: they are kept, and the parts say what was covered. */
  unsigned lost = 0;
  cs_err first_lost = {{0}};
  for (unsigned k = 0; k < jobs; k++) {
    char *dir = worker_dir(c, k);
    cs_err why = {{0}};
    bool failed = false;
    if (v.error[k][0]) {
      cs_err_set(&why, "worker %u: %s", k, v.error[k]);
      failed = true;
    } else if (ends[k].exit_status != 0 || ends[k].broken) {
      char msg[300];
      cs_worker_end_describe(k, &ends[k], msg, sizeof msg);
      cs_err_set(&why, "%s", msg);
      failed = true;
    }
    cs_findings part;
    if (rc == 0 && !failed) {
      if (cs_findings_read(dir, &part, &why) == 0) {
        /* PROTOCOL.md: every process of a program gives one name, which keys its results. */
        char whose[32];
        snprintf(whose, sizeof whose, "worker %u: its", k);
        int mrc = total->impl[0] && strcmp(total->impl, part.impl) != 0
                      ? cs_session_other_name(&why, whose, part.impl, "an earlier worker's", total->impl)
                      : cs_findings_merge(total, &part, &why);
        cs_findings_free(&part);
        failed = mrc != 0;
      } else {
        failed = true;
      }
    }
    if (rc == 0 && failed && lost++ == 0)
      first_lost = why;
    remove_worker_dir(dir);
    free(dir);
    if (!total->undecided[0]) /* the lowest worker's, as for errors */
      memcpy(total->undecided, v.undecided[k], sizeof total->undecided);
  }
  if (rc == 0 && lost == jobs) {
    rc = cs_err_set(err, "%s", first_lost.msg);
  } else if (rc == 0 && lost) {
    rc = 1;
    cs_err_set(err, "%s (%u of %u workers lost: the results hold the parts the others covered)", first_lost.msg, lost,
               jobs);
  } else if (rc == 0) {
    /* The workers' parts are sub-shards; the whole is the part this command was asked for. */
    cs_findings_set_shard(total, c->o.shard_i, c->o.shard_n);
  }
  total->seconds = cs_now_s() - v.t0;
  total->checks_nothing = v.checks_nothing;
  free(v.error);
  free(v.undecided);
  free(ends);
  return rc;
}

/* --- summary ------------------------------------------------------------------------------------ */

/* The longest line of a finding printed (its history, say); its whole case is in summary.json. */
#define FUZZ_MAX_LINE 2000

/* Appends s as one line of terminal text: an implementation's name, a message or a history may
 * hold any byte, and none may drive the terminal (ESC, C1, bidi controls are escaped). */
static void put_plain(cs_buf *b, const char *s) {
  size_t left = cs_esc_plain_cut(b, s, FUZZ_MAX_LINE);
  if (left)
    cs_buf_printf(b, " ... [%zu more bytes: see summary.json]", left);
}

/* Prints the distinct findings, with replay commands under the options `o` (the rules, --max-id-len
 * and, for an external implementation, its argv); returns how many count for the exit status (not
 * in --expect). */
static size_t print_summary(const cs_options *o, const cs_findings *f, cs_expect *expect, bool external) {
  size_t *idx = cs_xcalloc(f->n + 1, sizeof *idx);
  size_t nd = cs_findings_distinct(f, idx), counted = 0;
  double rate = f->seconds > 0 ? (double)f->cases / f->seconds : 0;
  cs_buf b = {0};
  cs_buf_puts(&b, "fuzz: ");
  put_plain(&b, f->impl);
  cs_buf_printf(&b, ", seed %llu, ", (unsigned long long)f->seed);
  put_plain(&b, f->parts);
  cs_buf_printf(&b, ": %llu case%s in %.1f s (%.0f/s), %zu distinct failure%s\n", (unsigned long long)f->cases,
                f->cases == 1 ? "" : "s", f->seconds, rate, nd, nd == 1 ? "" : "s");
  /* A slow implementation spends much of --time on shrinking tries: the case count alone would
   * hide where the time went. */
  if (f->shrink_seconds >= 1 && f->shrink_seconds >= 0.2 * f->seconds)
    cs_buf_printf(&b, "  %.1f s of it went to shrinking the failures, not to new cases\n", f->shrink_seconds);
  if (f->cases_cut) {
    cs_buf line = {0};
    cs_cut_line(&line, f->cases_cut, "--time", f->interrupted);
    cs_buf_printf(&b, "  %s\n", line.data);
    cs_buf_free(&line);
  }
  if (f->given_up) {
    cs_buf line = {0};
    cs_given_up_line(&line, f->given_up, CS_RUN_GIVE_UP_AFTER);
    cs_buf_printf(&b, "  %s\n", line.data);
    cs_buf_free(&line);
  }
  if (f->interrupted)
    cs_buf_puts(&b, "  interrupted by a signal: the campaign stopped early; these are its findings up to then\n");
  if (!f->settings.strict)
    cs_buf_puts(&b, "  failures of recommended properties were not looked for (--strict looks for them too)\n");
  for (size_t i = 0; i < nd; i++) {
    const cs_finding *x = &f->f[idx[i]];
    cs_expect_entry *e = expect ? cs_expect_find(expect, f->impl, x->property, x->target) : NULL;
    if (e)
      e->matched = true;
    else
      counted++;
    cs_buf_printf(&b, "  %s %s on %s [%s]", e ? "expected" : "FAIL", x->property, x->target, x->signature);
    if (x->case_index == UINT64_MAX)
      cs_buf_puts(&b, " (corpus case)\n");
    else
      cs_buf_printf(&b, " case %llu\n", (unsigned long long)x->case_index);
    cs_buf_puts(&b, "    ");
    put_plain(&b, x->message);
    cs_buf_putc(&b, '\n');
    const cs_property *p = cs_property_find(x->property);
    uint64_t *v = NULL;
    size_t n = 0;
    cs_err err;
    if (x->token && p && cs_choices_parse_token(x->token, &v, &n, &err) == 0) {
      cs_outcome oc = {.prop = p, .target = cs_target_parse(x->target), .choices = v, .nchoices = n};
      cs_buf cmd = {0};
      cs_replay_command(o, f->impl, external, &oc, x->target, &cmd);
      cs_buf_puts(&b, "    replay: ");
      cs_esc_plain(&b, cmd.data, cmd.len, false);
      cs_buf_putc(&b, '\n');
      cs_buf_free(&cmd);
    } else {
      cs_buf_puts(&b, "    history: ");
      put_plain(&b, x->history_json ? x->history_json : "null");
      cs_buf_putc(&b, '\n');
    }
    free(v);
  }
  /* A campaign that does not meet a listed failure does not show it fixed (run --expect judges that),
   * so such lines change no status; they are counted, not passed over in silence. */
  size_t unmet = 0;
  for (size_t i = 0; expect && i < expect->n; i++)
    unmet += !expect->e[i].matched && (!expect->e[i].impl[0] || !strcmp(expect->e[i].impl, f->impl));
  if (unmet)
    cs_buf_printf(&b,
                  "  %zu line%s of --expect met no finding of this campaign: not judged (run --expect says whether "
                  "a listed failure is fixed)\n",
                  unmet, unmet == 1 ? "" : "s");
  fwrite(b.data ? b.data : "", 1, b.len, stdout);
  cs_buf_free(&b);
  free(idx);
  return counted;
}

/* Makes the results directory `dir` and checks that its summary.json and cases/ can be written,
 * and cases/<impl>/ too when the implementation's name is known (NULL: not yet, a program's comes
 * with its hello): something else in the way is found now, not after the work or halfway through
 * writing. The directories made go to `made`, also on failure. 0, or -1 with err. */
static int prepare_out(const char *dir, const char *impl, cs_made *made, cs_err *err) {
  char *summary = cs_findings_summary_path(dir);
  cs_buf cases = {0};
  cs_buf_printf(&cases, "%s/cases", dir);
  int rc = cs_mkdir_p(dir, made, err) || cs_prepare_output(summary, made, err) || cs_dir_writable(cases.data, err) ||
           (impl && cs_corpus_writable(cases.data, impl, err));
  free(summary);
  cs_buf_free(&cases);
  return rc ? -1 : 0;
}

/* The first option of argv other than --merge itself (NULL: none). A merge only joins result
 * directories: --impl, --jobs, --out and the rest would be silently ignored, so they are refused.
 * cs_options_parse has accepted argv, so after --merge OUT every "--" word is an option's name. */
static const char *merge_foreign_option(int argc, char **argv) {
  for (int i = 2; i < argc; i++) {
    if (!strcmp(argv[i], "--merge")) {
      i++; /* its value, which may itself start with "--" */
      continue;
    }
    if (!strncmp(argv[i], "--", 2) && strncmp(argv[i], "--merge=", 8) != 0)
      return argv[i];
  }
  return NULL;
}

/* The options under which the replay commands of merged results reproduce their cases: the
 * --max-id-len the parts ran with (when not the default), --strict, their rules, as --rule overrides of this
 * callsign's defaults (their text in `text`, which must outlive `o`), and an external
 * implementation's argv and --deadline (when not the default; both borrowed from f). */
static void merged_options(const cs_findings *f, cs_options *o, cs_buf *text) {
  memset(o, 0, sizeof *o);
  if (f->settings.max_id_len != CS_GEN_DEFAULT_MAX_ID_LEN)
    o->max_id_len = f->settings.max_id_len;
  o->impl_cmd = f->settings.impl_cmd;
  o->strict = f->settings.strict;
  if (f->settings.deadline_ms != CS_DEFAULT_DEADLINE_MS)
    o->deadline_ms = f->settings.deadline_ms;
  size_t n = cs_findings_rule_overrides(f, text);
  const char *p = text->data;
  for (size_t i = 0; i < n && o->nrules < CS_MAX_LIST; i++, p += strlen(p) + 1)
    o->rules[o->nrules++] = p;
}

/* Adds the results of DIR `dir` to `total`, which holds those of `first` and the directories
 * after it: -1 with err naming the directories when they cannot be merged. */
static int merge_one(cs_findings *total, const cs_findings *part, const char *dir, const char *first, cs_err *err) {
  cs_findings_difference d;
  if (total->impl[0] && cs_findings_differ(part, total, &d))
    return cs_err_set(err,
                      "cannot merge %s (%s %s) with %s (%s %s): parts are merged only when run with the same settings",
                      dir, d.name, d.a, first, d.name, d.b);
  if (cs_findings_merge(total, part, err)) {
    cs_err_prefix(err, "%s", dir);
    return -1;
  }
  return 0;
}

/* The status of results whose findings gave `status`: results that checked nothing, or left a
 * property unjudged (the rule is at fault), must not pass a gate: an input error, as in run. A
 * merge decides as the campaigns it merges did. */
static int checked_status(const cs_findings *f, const char *no_case, int status) {
  if (f->checks_nothing)
    status = cs_fail(CS_EXIT_USAGE, "nothing to check: the implementation has no operation for the selected targets "
                                    "and properties (see callsign list, and its hello)");
  else if (f->cases == 0)
    status = cs_fail(CS_EXIT_USAGE, "%s", no_case);
  if (f->undecided[0])
    status = cs_fail(CS_EXIT_USAGE, "%s", f->undecided);
  return status;
}

static int merge_command(fuzz_ctx *c, int argc, char **argv) {
  const char *foreign = merge_foreign_option(argc, argv);
  if (foreign)
    return cs_fail(CS_EXIT_USAGE, "fuzz --merge: '%.*s' does not apply to a merge (it takes only OUT and DIR...)",
                   (int)strcspn(foreign, "="), foreign);
  if (!c->o.npositional)
    return cs_fail(CS_EXIT_USAGE, "fuzz --merge OUT: name the result directories to merge after it");
  /* OUT's summary.json would replace an input's own record of its shard. */
  for (size_t i = 0; i < c->o.npositional; i++)
    if (cs_same_file(c->o.merge_out, c->o.positional[i]))
      return cs_fail(CS_EXIT_USAGE, "fuzz --merge: OUT '%s' is also a directory to merge; name a new one",
                     c->o.merge_out);
  cs_findings total = {0};
  cs_err err = {{0}};
  /* Every input is read, each finding checked, and merged before OUT is touched: a refused input
   * leaves nothing behind. */
  for (size_t i = 0; i < c->o.npositional; i++) {
    cs_findings part;
    if (cs_findings_read(c->o.positional[i], &part, &err)) {
      cs_findings_free(&total);
      return cs_fail(CS_EXIT_USAGE, "%s", err.msg);
    }
    int rc = merge_one(&total, &part, c->o.positional[i], c->o.positional[0], &err);
    cs_findings_free(&part);
    if (rc) {
      cs_findings_free(&total);
      return cs_fail(CS_EXIT_USAGE, "%s", err.msg);
    }
  }
  int status = CS_EXIT_OK;
  cs_made made = {0};
  if (prepare_out(c->o.merge_out, total.n ? total.impl : NULL, &made, &err) ||
      cs_findings_write(c->o.merge_out, &total, true, &err)) {
    cs_made_undo(&made);
    status = cs_fail(CS_EXIT_USAGE, "%s", err.msg);
  } else {
    cs_made_free(&made);
    cs_options o;
    cs_buf rules = {0};
    merged_options(&total, &o, &rules);
    size_t counted = print_summary(&o, &total, NULL, o.impl_cmd != NULL);
    cs_buf_free(&rules);
    printf("merged %zu result directories into %s/summary.json", c->o.npositional, c->o.merge_out);
    printf(total.n ? " and %s/cases/\n" : "\n", c->o.merge_out); /* cases/ is made only for findings */
    status = checked_status(&total, "fuzz --merge: the parts ran no case: nothing was checked",
                            counted ? CS_EXIT_FAIL : CS_EXIT_OK);
  }
  cs_findings_free(&total);
  return status;
}

/* Does the --property selection hold a required property? Without --strict only their failures are
 * looked for. (One fuzz cannot check, as the vectors, is "nothing to check" after the run.) */
static bool selects_required(const cs_options *o) {
  cs_run_config sel = {.only = o->only, .nonly = o->nonly};
  size_t n;
  const cs_property *p = cs_properties(&n);
  for (size_t i = 0; i < n; i++)
    if (p[i].tier == CS_TIER_REQUIRED && cs_run_selects(&sel, p[i].name))
      return true;
  return false;
}

int cs_cmd_fuzz(int argc, char **argv) {
  fuzz_ctx c;
  memset(&c, 0, sizeof c);
  c.report_fd = -1;
  cs_err err = {{0}};
  if (cs_options_parse(&c.o, argc, argv, 2, CS_CMD_FUZZ, &err))
    return cs_fail(CS_EXIT_USAGE, "%s", err.msg);
  if (c.o.merge_out)
    return merge_command(&c, argc, argv);
  if (c.o.npositional)
    return cs_fail(CS_EXIT_USAGE, "fuzz: unexpected argument '%s'", c.o.positional[0]);
  if ((c.o.impl_cmd != NULL) == (c.o.nimpls == 1) || c.o.nimpls > 1 || (c.o.nimpls && !strcmp(c.o.impls[0], "all")))
    return cs_fail(CS_EXIT_USAGE, "fuzz: give one --impl NAME or --impl-cmd -- ARGV...");
  if (c.o.nimpls && !cs_builtin_find(c.o.impls[0]))
    return cs_fail(CS_EXIT_USAGE, "unknown implementation '%s' (see callsign list)", c.o.impls[0]);
  unsigned jobs = c.o.jobs ? c.o.jobs : 1;
  if (jobs > CS_WORKERS_MAX)
    return cs_fail(CS_EXIT_USAGE, "--jobs: at most %d", CS_WORKERS_MAX);
  /* It would run its whole time looking for nothing, and pass a gate. */
  if (c.o.nonly && !c.o.strict && !selects_required(&c.o))
    return cs_fail(CS_EXIT_USAGE, "fuzz: --property selects only recommended properties, whose failures fuzz looks "
                                  "for only with --strict");
  c.time_s = c.o.time_s;
  c.cases = c.o.cases;
  if (!c.time_s && !c.cases)
    c.time_s = DEFAULT_TIME_S;
  if (!c.cases)
    c.cases = UINT64_MAX; /* bounded by time */
  c.out_dir = c.o.out_dir ? c.o.out_dir : DEFAULT_OUT;
  c.corpus_dir = c.o.corpus_dir ? c.o.corpus_dir : DEFAULT_CORPUS;
  c.tty = !c.o.quiet && isatty(2);
  cs_expect expect = {0};
  if (c.o.expect && cs_expect_load(c.o.expect, &expect, &err))
    return cs_fail(CS_EXIT_USAGE, "%s", err.msg);
  if (!(c.rs = cs_cli_ruleset(&c.o, &err))) {
    cs_expect_free(&expect);
    return cs_fail(CS_EXIT_USAGE, "%s", err.msg);
  }
  if (!(c.hasher = cs_hasher_new())) {
    cs_expect_free(&expect);
    cs_ruleset_free(c.rs);
    return cs_fail(CS_EXIT_USAGE, "OpenSSL provides no SHA-256");
  }
  /* Made now: an --out that cannot be made is refused before the campaign, not after it. The
   * directories made here are removed again if the campaign cannot run at all. */
  cs_made made = {0};
  /* a built-in's name is known now (a program's only from its hello) */
  bool out_ok = prepare_out(c.out_dir, c.o.nimpls ? cs_builtin_find(c.o.impls[0])->name : NULL, &made, &err) == 0;
  /* The workers' directories are made now: a file in the way would otherwise cost a worker's
   * findings after the campaign, and read as a worker that could not run. */
  if (out_ok)
    remove_stale_worker_dirs(&c);
  for (unsigned j = 0; out_ok && jobs > 1 && j < jobs; j++) {
    char *dir = worker_dir(&c, j);
    out_ok = cs_mkdir_p(dir, &made, &err) == 0;
    free(dir);
  }
  if (!out_ok) {
    cs_made_undo(&made);
    cs_hasher_free(c.hasher);
    cs_expect_free(&expect);
    cs_ruleset_free(c.rs);
    return cs_fail(CS_EXIT_USAGE, "--out: %s", err.msg);
  }
  cs_options_inline_profile(&c.o, c.rs, &c.rules);
  cs_findings total = {0};
  int status = CS_EXIT_OK, rc;
  /* Before the workers fork: they inherit it. */
  c.stop = cs_catch_stop_signals();
  cs_note_corpus_off(&c.o);
  if (jobs == 1)
    rc = run_part(&c, c.o.shard_i, c.o.shard_n, replays_corpus(&c.o), &total, &err);
  else
    rc = run_workers(&c, jobs, &total, &err);
  if (c.tty)
    fputs("\r\033[K", stderr);
  fflush(stdout);
  if (rc < 0) {
    status = cs_fail(CS_EXIT_IMPL, "%s", err.msg);
    /* The campaign did not run: a summary.json of an earlier one in a reused --out would be read
     * as this one's, and what was made here and left empty goes. */
    char *old = cs_findings_summary_path(c.out_dir);
    unlink(old);
    free(old);
    cs_made_undo(&made);
    goto cleanup;
  }
  cs_made_free(&made);
  cs_err lost = err; /* rc 1: a part was lost; the rest is reported, and the exit status says so */
  cs_findings_select(&total);
  /* Results that cannot all be written are still printed and saved to the corpus: a long
   * campaign's findings are not lost to one path in the way. */
  cs_err write_err = {{0}};
  bool written = cs_findings_write(c.out_dir, &total, true, &write_err) == 0;
  size_t counted = print_summary(&c.o, &total, &expect, c.o.impl_cmd != NULL);
  size_t *idx = cs_xcalloc(total.n + 1, sizeof *idx);
  size_t nd = cs_findings_distinct(&total, idx);
  free(idx);
  char sub[256];
  cs_corpus_dirname(total.impl, sub, sizeof sub);
  if (written) {
    printf("results: %s/summary.json", c.out_dir);
    if (nd)
      printf(", %s/cases/%s/", c.out_dir, sub);
  } else {
    printf("results: not all written to %s (see below)", c.out_dir);
  }
  size_t unsaved = 0; /* said after the results line */
  cs_err corpus_err = {{0}};
  if (nd && !c.o.no_corpus) {
    size_t saved = cs_findings_save_corpus(&total, c.corpus_dir, &unsaved, &corpus_err);
    if (saved)
      printf("; %zu case%s saved to %s/%s/", saved, saved == 1 ? "" : "s", c.corpus_dir, sub);
  }
  printf("\n");
  if (unsaved)
    fprintf(stderr, "callsign: warning: %zu distinct failure%s not saved to the corpus (the first: %s)\n", unsaved,
            unsaved == 1 ? "" : "s", corpus_err.msg);
  char no_case[96];
  if (total.interrupted)
    snprintf(no_case, sizeof no_case, "fuzz: interrupted before its first case: nothing was checked");
  else
    snprintf(no_case, sizeof no_case, "fuzz: no case was run within --time %gs", c.time_s);
  status = checked_status(&total, no_case, counted ? CS_EXIT_FAIL : CS_EXIT_OK);
  if (rc == 1)
    status = cs_fail(CS_EXIT_IMPL, "%s", lost.msg);
  if (!written && status != CS_EXIT_IMPL)
    status = cs_fail(CS_EXIT_USAGE, "%s", write_err.msg);
  else if (!written)
    cs_fail(CS_EXIT_USAGE, "%s", write_err.msg);
cleanup:
  cs_findings_free(&total);
  cs_expect_free(&expect);
  cs_hasher_free(c.hasher);
  cs_buf_free(&c.scratch);
  cs_arena_free(&c.rules);
  free(c.sigs);
  cs_ruleset_free(c.rs);
  return status;
}
