/* reports/json.c: the machine-readable report, schema "callsign-report/1" as documented in
 * docs/report-schema.md (keep the two in step). Strings go through cs_esc_json, which keeps the
 * document valid JSON even when a string holds bytes that are not UTF-8. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "impls/impl.h"
#include "reports/escape.h"
#include "reports/output.h"
#include "reports/result.h"
#include "reports/tally.h"

#define CS_REPORT_SCHEMA "callsign-report/1"

static void key(cs_buf *b, const char *indent, const char *name) {
  cs_buf_printf(b, "%s\"%s\": ", indent, name);
}

static void num(cs_buf *b, uint64_t v) {
  cs_buf_printf(b, "%llu", (unsigned long long)v);
}

/* JSON has no NaN or infinity. */
static void seconds(cs_buf *b, double s) {
  cs_buf_printf(b, "%.3f", isfinite(s) && s >= 0 ? s : 0.0);
}

/* The shortest decimal that reads back as the same double (JSON has no NaN or infinity: 0), so a
 * reader comparing a label's share with min_coverage decides as callsign did, and a threshold of
 * 1e-07 is not written as 0, which means none. */
static void real(cs_buf *b, double v) {
  cs_buf_double(b, isfinite(v) ? v : 0);
}

/* 64-bit seeds are written as decimal strings: JSON readers that use doubles lose digits past 2^53.
 * A replay's case is decided by its token or file, not by a seed: null. */
static void seed(cs_buf *b, uint64_t v, bool decides) {
  if (decides)
    cs_buf_printf(b, "\"%llu\"", (unsigned long long)v);
  else
    cs_buf_puts(b, "null");
}

static bool has_failure(const cs_cell *c) {
  return c->message || c->history_json || c->token || c->replay;
}

static void cell(cs_buf *b, const cs_cell *c, bool strict) {
  cs_buf_puts(b, "{\"property\": ");
  cs_esc_json(b, c->property);
  cs_buf_puts(b, ", \"target\": ");
  cs_esc_json(b, c->target);
  cs_buf_printf(b, ", \"tier\": \"%s\", \"contract\": ", c->required ? "required" : "recommended");
  cs_esc_json(b, c->contract);
  cs_buf_printf(b, ", \"verdict\": \"%s\", \"fails_run\": %s, \"cases\": ", cs_verdict_name(c->verdict),
                cs_cell_fails_run(c, strict) ? "true" : "false");
  num(b, c->cases);
  cs_buf_puts(b, ", \"failure\": ");
  if (!has_failure(c)) {
    cs_buf_puts(b, "null}");
    return;
  }
  cs_buf_puts(b, "{\"message\": ");
  cs_esc_json(b, c->message);
  cs_buf_puts(b, ", \"seed\": ");
  seed(b, c->seed, c->case_index != CS_CASE_REPLAYED && c->case_index != CS_CASE_VECTOR);
  cs_buf_puts(b, ", \"case_index\": ");
  if (c->case_index == CS_CASE_CORPUS || c->case_index == CS_CASE_REPLAYED || c->case_index == CS_CASE_VECTOR)
    cs_buf_puts(b, "null");
  else
    num(b, c->case_index);
  cs_buf_printf(b, ", \"shrunk_turns\": %u, \"shrunk_calls\": %u, \"shrink_steps\": %u", (unsigned)c->shrunk_turns,
                (unsigned)c->shrunk_calls, (unsigned)c->shrink_steps);
  cs_buf_puts(b, ", \"history_json\": ");
  cs_esc_json(b, c->history_json);
  cs_buf_puts(b, ", \"answer_json\": ");
  cs_esc_json(b, c->answer_json);
  cs_buf_puts(b, ", \"token\": ");
  cs_esc_json(b, c->token);
  cs_buf_puts(b, ", \"replay\": ");
  cs_esc_json(b, c->replay);
  cs_buf_puts(b, "}}");
}

static void impl_obj(cs_buf *b, const cs_impl_result *impl, bool strict) {
  const char *in = "      ";
  cs_buf_puts(b, "    {\n");
  key(b, in, "name");
  cs_esc_json(b, impl->name);
  cs_buf_puts(b, ",\n");
  key(b, in, "version");
  cs_esc_json(b, impl->version);
  cs_buf_puts(b, ",\n");
  key(b, in, "kind");
  cs_esc_json(b, impl->kind);
  cs_buf_puts(b, ",\n");
  key(b, in, "note");
  cs_esc_json(b, impl->note);
  cs_buf_puts(b, ",\n");
  key(b, in, "could_not_run");
  cs_buf_puts(b, impl->could_not_run ? "true" : "false");
  cs_buf_puts(b, ",\n");
  key(b, in, "error");
  cs_esc_json(b, impl->error);
  cs_buf_puts(b, ",\n");
  key(b, in, "cases");
  num(b, impl->cases);
  cs_buf_puts(b, ",\n");
  key(b, in, "cases_cut");
  num(b, impl->cases_cut);
  cs_buf_puts(b, ",\n");
  key(b, in, "ended_early");
  cs_buf_puts(b, impl->ended_early ? "true,\n" : "false,\n");
  key(b, in, "seconds");
  seconds(b, impl->seconds);
  cs_buf_puts(b, ",\n");
  key(b, in, "faults");
  cs_buf_putc(b, '{');
  for (size_t f = 1; f < CS_FAULT_KINDS; f++) {
    cs_buf_printf(b, "%s\"%s\": ", f > 1 ? ", " : "", cs_fault_name(f));
    num(b, impl->faults[f]);
  }
  cs_buf_puts(b, "},\n");
  key(b, in, "given_up");
  cs_buf_putc(b, '[');
  for (unsigned k = 0, n = 0; k < CS_KIND_COUNT; k++)
    if (impl->given_up >> k & 1u) {
      char name[64];
      cs_request_kind_name(k, name, sizeof name);
      cs_buf_printf(b, "%s\"%s\"", n++ ? ", " : "", name);
    }
  cs_buf_puts(b, "],\n");
  key(b, in, "stderr_tail");
  cs_esc_json(b, impl->stderr_tail);
  cs_buf_puts(b, ",\n");
  key(b, in, "cells");
  cs_buf_putc(b, '[');
  for (size_t i = 0; i < impl->ncells; i++) {
    cs_buf_puts(b, i ? ",\n        " : "\n        ");
    cell(b, &impl->cells[i], strict);
  }
  cs_buf_puts(b, impl->ncells ? "\n      ]\n    }" : "]\n    }");
}

static void summary(cs_buf *b, const cs_report *r) {
  cs_tally t = {0};
  cs_tally_report(&t, r);
  cs_buf_printf(b,
                "{\"implementations\": %zu, \"could_not_run\": %zu, \"cells\": %zu, \"passed\": %zu, "
                "\"failed\": %zu, \"expected_failures\": %zu, \"fixed\": %zu, \"not_applicable\": %zu, "
                "\"unchecked\": %zu, "
                "\"failing_run\": %zu, \"faults\": ",
                t.impls, t.could_not_run, t.cells, t.passed, t.failed, t.expected_failures, t.fixed, t.not_applicable,
                t.unchecked, t.fails_run);
  num(b, t.faults);
  cs_buf_puts(b, ", \"cases\": ");
  num(b, t.cases);
  cs_buf_puts(b, ", \"seconds\": ");
  seconds(b, t.seconds);
  cs_buf_putc(b, '}');
}

static void statistics(cs_buf *b, const cs_report *r) {
  cs_buf_puts(b, "{\n    \"cases\": ");
  num(b, r->stat_cases);
  cs_buf_puts(b, ",\n    \"min_coverage\": ");
  real(b, r->min_coverage);
  cs_buf_puts(b, ",\n    \"labels\": [");
  for (size_t i = 0; i < r->nstats; i++) {
    const cs_stat *s = &r->stats[i];
    cs_buf_puts(b, i ? ",\n      {\"name\": " : "\n      {\"name\": ");
    cs_esc_json(b, s->name);
    cs_buf_puts(b, ", \"desc\": ");
    cs_esc_json(b, s->desc);
    cs_buf_puts(b, ", \"count\": ");
    num(b, s->count);
    cs_buf_puts(b, ", \"share\": ");
    real(b, cs_report_stat_share(r, i));
    cs_buf_printf(b, ", \"below_min_coverage\": %s}", cs_report_stat_below(r, i) ? "true" : "false");
  }
  cs_buf_puts(b, r->nstats ? "\n    ]\n  }" : "]\n  }");
}

int cs_report_json(const cs_report *r, FILE *out, cs_err *err) {
  if (!r)
    return cs_err_set(err, "json report: no report");
  cs_buf b = {0};
  const char *in = "  ";
  cs_buf_puts(&b, "{\n");
  key(&b, in, "schema");
  cs_buf_puts(&b, "\"" CS_REPORT_SCHEMA "\",\n");
  key(&b, in, "tool_version");
  cs_esc_json(&b, r->tool_version);
  cs_buf_puts(&b, ",\n");
  key(&b, in, "command");
  cs_esc_json(&b, r->command);
  cs_buf_puts(&b, ",\n");
  key(&b, in, "seed");
  seed(&b, r->seed, !r->replay);
  cs_buf_puts(&b, ",\n");
  key(&b, in, "strict");
  cs_buf_puts(&b, r->strict ? "true" : "false");
  cs_buf_puts(&b, ",\n");
  key(&b, in, "exit_status");
  cs_buf_printf(&b, "%d,\n", cs_report_exit_status(r));
  key(&b, in, "input_error");
  if (r->input_error)
    cs_esc_json(&b, r->input_error);
  else
    cs_buf_puts(&b, "null");
  cs_buf_puts(&b, ",\n");
  key(&b, in, "output_error");
  cs_buf_puts(&b, r->output_error ? "true,\n" : "false,\n");
  key(&b, in, "expect_not_checked");
  cs_buf_putc(&b, '[');
  for (size_t i = 0; i < r->nexpect_not_checked; i++) {
    const cs_expect_line *x = &r->expect_not_checked[i];
    cs_buf_puts(&b, i ? ", {\"property\": " : "{\"property\": ");
    cs_esc_json(&b, x->property);
    cs_buf_puts(&b, ", \"target\": ");
    cs_esc_json(&b, x->target);
    cs_buf_puts(&b, ", \"implementation\": ");
    if (x->impl[0])
      cs_esc_json(&b, x->impl);
    else
      cs_buf_puts(&b, "null");
    cs_buf_putc(&b, '}');
  }
  cs_buf_puts(&b, "],\n");
  key(&b, in, "targets");
  cs_buf_putc(&b, '[');
  size_t ntargets = r->ntargets < 8 ? r->ntargets : 8;
  for (size_t i = 0; i < ntargets; i++) {
    if (i)
      cs_buf_puts(&b, ", ");
    cs_esc_json(&b, r->targets[i] ? r->targets[i] : "");
  }
  cs_buf_puts(&b, "],\n");
  key(&b, in, "summary");
  summary(&b, r);
  cs_buf_puts(&b, ",\n");
  key(&b, in, "implementations");
  cs_buf_putc(&b, '[');
  for (size_t k = 0; k < r->nimpls; k++) {
    cs_buf_puts(&b, k ? ",\n" : "\n");
    impl_obj(&b, &r->impls[k], r->strict);
  }
  cs_buf_puts(&b, r->nimpls ? "\n  ],\n" : "],\n");
  key(&b, in, "statistics");
  statistics(&b, r);
  cs_buf_puts(&b, "\n}\n");
  int rc = cs_report_output(&b, out, "json", err);
  cs_buf_free(&b);
  return rc;
}
