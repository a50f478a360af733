/* reports/result.c: verdict names, the run's exit status, and the table of report file formats. */
#include "reports/result.h"

#include <stdio.h>

static const cs_verdict_row VERDICTS[CS_VERDICT_COUNT] = {
    [CS_VERDICT_PASS] = {"pass", "ok", 2},
    [CS_VERDICT_FAIL] = {"fail", "FAIL", 5},
    [CS_VERDICT_EXPECTED_FAIL] = {"expected_fail", "xfail", 3},
    [CS_VERDICT_FIXED] = {"fixed", "fixed", 4},
    [CS_VERDICT_NOT_APPLICABLE] = {"not_applicable", "n/a", 0},
    [CS_VERDICT_UNCHECKED] = {"unchecked", "none", 1},
};

const cs_verdict_row *cs_verdict_of(cs_verdict v) {
  static const cs_verdict_row unknown = {"unknown", "?", 0};
  return (unsigned)v < CS_VERDICT_COUNT ? &VERDICTS[v] : &unknown;
}

const char *cs_verdict_name(cs_verdict v) {
  return cs_verdict_of(v)->name;
}

/* A listed failure that now holds fails the run too: the run passes only when the failures are
 * exactly those listed, so the known-failures list can only shrink. */
const char *cs_cell_fixed_advice(const cs_cell *c) {
  return c->fixed_line_shared ? CS_FIXED_SHARED_ADVICE : CS_FIXED_ADVICE;
}

bool cs_cell_fails_run(const cs_cell *c, bool strict) {
  return c && ((c->verdict == CS_VERDICT_FAIL && (c->required || strict)) || c->verdict == CS_VERDICT_FIXED);
}

bool cs_cell_failed(const cs_cell *c) {
  return c->verdict == CS_VERDICT_FAIL || c->verdict == CS_VERDICT_EXPECTED_FAIL;
}

const char *cs_cell_origin(const cs_cell *c, char *buf, size_t len) {
  if (c->case_index == CS_CASE_VECTOR)
    snprintf(buf, len, "a canonical v1 vector");
  else if (c->case_index == CS_CASE_REPLAYED)
    snprintf(buf, len, "the replayed case");
  else if (c->case_index == CS_CASE_CORPUS)
    snprintf(buf, len, "seed %llu, a corpus case", (unsigned long long)c->seed);
  else
    snprintf(buf, len, "seed %llu, case %llu", (unsigned long long)c->seed, (unsigned long long)c->case_index);
  return buf;
}

const char *cs_report_origin(const cs_report *r, char *buf, size_t len) {
  if (r->replay)
    snprintf(buf, len, "replay%s", r->strict ? ", strict" : "");
  else
    snprintf(buf, len, "seed %llu%s", (unsigned long long)r->seed, r->strict ? ", strict" : "");
  return buf;
}

const char *cs_cell_shrunk_size(const cs_cell *c, char *buf, size_t len) {
  snprintf(buf, len, "%u turn%s, %u call%s", (unsigned)c->shrunk_turns, c->shrunk_turns == 1 ? "" : "s",
           (unsigned)c->shrunk_calls, c->shrunk_calls == 1 ? "" : "s");
  return buf;
}

const char *cs_cell_case_line(const cs_cell *c, char *buf, size_t len) {
  char where[80], size[48];
  cs_cell_origin(c, where, sizeof where);
  cs_cell_shrunk_size(c, size, sizeof size);
  if (c->case_index == CS_CASE_VECTOR)
    snprintf(buf, len, "%s (not shrunk): %s", where, size);
  else
    snprintf(buf, len, "%s; shrunk to %s in %u steps", where, size, (unsigned)c->shrink_steps);
  return buf;
}

int cs_report_exit_status(const cs_report *r) {
  if (!r)
    return 3;
  for (size_t k = 0; k < r->nimpls; k++)
    if (r->impls[k].could_not_run)
      return 3;
  if (r->input_error || r->output_error)
    return 2; /* the run is incomplete: what it did check cannot pass for the whole */
  /* EXPECTED_FAIL never fails the run; FIXED does (cs_cell_fails_run), so a listed failure that
   * now holds gets the --expect list shortened. */
  for (size_t k = 0; k < r->nimpls; k++)
    for (size_t i = 0; i < r->impls[k].ncells; i++)
      if (cs_cell_fails_run(&r->impls[k].cells[i], r->strict))
        return 1;
  return cs_report_coverage_below(r) ? 1 : 0;
}

const char *cs_report_verdict(const cs_report *r) {
  switch (cs_report_exit_status(r)) {
  case 0:
    return "passed";
  case 1:
    return "failed";
  case 2:
    return r->input_error ? "an input could not be used" : "an output could not be written";
  default:
    return "an implementation could not be run";
  }
}

double cs_report_stat_share(const cs_report *r, size_t i) {
  return r->stat_cases ? (double)r->stats[i].count / (double)r->stat_cases : 0;
}

bool cs_report_stat_below(const cs_report *r, size_t i) {
  return r->min_coverage > 0 && cs_report_stat_share(r, i) < r->min_coverage;
}

size_t cs_report_coverage_below(const cs_report *r) {
  size_t n = 0;
  for (size_t i = 0; i < r->nstats; i++)
    n += cs_report_stat_below(r, i);
  return n;
}

/* The terminal writer is not listed: it writes to stdout and takes a color flag. */
static const cs_report_format formats[] = {
    {"junit", cs_report_junit, "JUnit XML: one testsuite per implementation, one testcase per property and target"},
    {"json", cs_report_json, "JSON, schema callsign-report/1 (docs/report-schema.md)"},
    {"markdown", cs_report_markdown, "Markdown for CI job summaries ($GITHUB_STEP_SUMMARY)"},
    {"html", cs_report_html, "self-contained HTML page with the matrix, failures and statistics"},
    {"failures", cs_report_failures, "the failing cells as a known-failures list, the format --expect reads"},
};

const cs_report_format *cs_report_formats(size_t *count) {
  if (count)
    *count = sizeof formats / sizeof formats[0];
  return formats;
}
