/* reports/junit.c: the JUnit XML report that CI systems read: one <testsuite> per
 * implementation, one <testcase classname="IMPL.PROPERTY" name="TARGET"> per cell. The output is
 * well-formed XML 1.0 for any bytes in the data: every string goes through cs_esc_markup, which
 * also replaces characters XML cannot carry (C0 controls, U+FFFE/U+FFFF, bad UTF-8) visibly.
 * No CDATA sections, so "]]>" in an ID needs no special case. A history, answer or message is cut
 * at CS_REPORT_MAX_SHOWN bytes, as the terminal cuts it, and the implementation's name and version at
 * CS_REPORT_MAX_NAME: CI keeps these files. */
#include <stdint.h>
#include <string.h>

#include "reports/escape.h"
#include "reports/output.h"
#include "reports/result.h"
#include "reports/tally.h"

static const char *str_or(const char *s, const char *dflt) {
  return s ? s : dflt;
}

static void attr(cs_buf *b, const char *s) {
  s = str_or(s, "");
  cs_esc_markup(b, s, strlen(s), CS_ESC_ATTR);
}

/* An implementation's name or version in an attribute, cut at CS_REPORT_MAX_NAME bytes with a
 * note: the name is repeated in every <testcase>. */
static void attr_name(cs_buf *b, const char *s) {
  cs_esc_markup_name(b, s, CS_ESC_ATTR);
}

/* A message in an attribute, cut at CS_REPORT_MAX_SHOWN bytes with a note. */
static void attr_cut(cs_buf *b, const char *s) {
  cs_esc_left_out(b, cs_esc_markup_cut(b, s, CS_REPORT_MAX_SHOWN, CS_ESC_ATTR));
}

/* One line of a failure body, cut at `max` bytes with a note (SIZE_MAX: whole): a newline in the
 * data shows as \n instead of starting a line. */
static void text(cs_buf *b, const char *s, size_t max) {
  cs_esc_left_out(b, cs_esc_markup_cut(b, s, max, CS_ESC_LINE));
}

static void property(cs_buf *b, const char *name, const char *value) {
  cs_buf_printf(b, "      <property name=\"%s\" value=\"", name);
  attr_name(b, value); /* all short but the version, which is its hello's */
  cs_buf_puts(b, "\"/>\n");
}

static void labelled(cs_buf *b, const char *label, const char *s, size_t max) {
  if (!s)
    return;
  cs_buf_printf(b, "%s: ", label);
  text(b, s, max);
  cs_buf_putc(b, '\n');
}

static void failure_body(cs_buf *b, const cs_cell *c, bool strict) {
  text(b, str_or(c->message, "failed"), CS_REPORT_MAX_SHOWN);
  cs_buf_putc(b, '\n');
  labelled(b, "contract", c->contract, SIZE_MAX);
  cs_buf_printf(b, "tier: %s%s\n", c->required ? "required" : "recommended",
                c->required || strict ? "" : " (does not fail the run without --strict)");
  char line[200];
  cs_buf_printf(b, "case: %s\n", cs_cell_case_line(c, line, sizeof line));
  labelled(b, "history", c->history_json, CS_REPORT_MAX_SHOWN);
  labelled(b, "answer", c->answer_json, CS_REPORT_MAX_SHOWN);
  labelled(b, "token", c->token, SIZE_MAX); /* whole: they are what reproduces the case */
  labelled(b, "replay", c->replay, SIZE_MAX);
}

static void testcase(cs_buf *b, const cs_impl_result *impl, const cs_cell *c, bool strict) {
  cs_buf_puts(b, "    <testcase classname=\"");
  attr_name(b, str_or(impl->name, "(unnamed)"));
  cs_buf_putc(b, '.');
  attr(b, c->property);
  cs_buf_puts(b, "\" name=\"");
  attr(b, c->target);
  cs_buf_puts(b, "\"");
  switch (c->verdict) {
  case CS_VERDICT_PASS:
    cs_buf_puts(b, "/>\n");
    return;
  case CS_VERDICT_FAIL:
    if (!cs_cell_fails_run(c, strict)) {
      /* A recommended property without --strict: reported, but CI must not show the gate red. */
      cs_buf_puts(b, ">\n      <skipped message=\"recommended property failed (fails the run only with --strict): ");
      attr_cut(b, str_or(c->message, "failed"));
      cs_buf_puts(b, "\"/>\n");
      break;
    }
    cs_buf_puts(b, ">\n      <failure message=\"");
    attr_cut(b, str_or(c->message, "failed"));
    cs_buf_puts(b, "\" type=\"");
    attr(b, c->property);
    cs_buf_puts(b, "\">");
    failure_body(b, c, strict);
    cs_buf_puts(b, "</failure>\n");
    break;
  case CS_VERDICT_EXPECTED_FAIL:
    cs_buf_puts(b, ">\n      <skipped message=\"expected failure (listed in --expect)\"/>\n");
    break;
  case CS_VERDICT_FIXED:
    /* A failure on purpose: the --expect list is stale and should be shortened. */
    cs_buf_printf(b, ">\n      <failure type=\"fixed\" message=\"listed in --expect but passes: %s\"/>\n",
                  cs_cell_fixed_advice(c));
    break;
  case CS_VERDICT_NOT_APPLICABLE:
    cs_buf_puts(b, ">\n      <skipped message=\"not applicable\"/>\n");
    break;
  case CS_VERDICT_UNCHECKED:
    cs_buf_puts(b, ">\n      <skipped message=\"unchecked: no case was judged on it before the run ended\"/>\n");
    break;
  }
  cs_buf_puts(b, "    </testcase>\n");
}

static void suite(cs_buf *b, const cs_report *r, const cs_impl_result *impl) {
  cs_tally t = {0};
  cs_tally_add(&t, impl, r->strict);
  size_t errors = impl->could_not_run ? 1 : 0;
  cs_buf_puts(b, "  <testsuite name=\"");
  attr_name(b, str_or(impl->name, "(unnamed)"));
  /* failures: every cell that fails the run, FIXED ones included (each is a <failure>); a recommended
   * failure without --strict is a <skipped>. */
  cs_buf_printf(b, "\" tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" skipped=\"%zu\" time=\"%.3f\">\n",
                t.cells + errors, t.fails_run, errors,
                t.expected_failures + t.not_applicable + t.unchecked + t.soft_failed, impl->seconds);

  cs_buf_puts(b, "    <properties>\n");
  if (impl->version)
    property(b, "version", impl->version);
  if (impl->kind)
    property(b, "kind", impl->kind);
  if (impl->note)
    property(b, "note", impl->note);
  if (r->replay)
    property(b, "replay", "true"); /* the given case, not a seed, decided the run */
  else
    cs_buf_printf(b, "      <property name=\"seed\" value=\"%llu\"/>\n", (unsigned long long)r->seed);
  cs_buf_printf(b, "      <property name=\"cases\" value=\"%llu\"/>\n", (unsigned long long)impl->cases);
  cs_buf_printf(b, "      <property name=\"cases_cut\" value=\"%llu\"/>\n", (unsigned long long)impl->cases_cut);
  if (impl->ended_early)
    property(b, "ended_early", "true");
  cs_buf_printf(b, "      <property name=\"strict\" value=\"%s\"/>\n", r->strict ? "true" : "false");
  cs_buf_puts(b, "    </properties>\n");

  if (impl->could_not_run) {
    cs_buf_puts(b, "    <testcase classname=\"");
    attr_name(b, str_or(impl->name, "(unnamed)"));
    cs_buf_puts(b, "\" name=\"run\">\n      <error type=\"could_not_run\" message=\"");
    attr(b, str_or(impl->error, "could not run"));
    cs_buf_puts(b, "\"/>\n    </testcase>\n");
  }
  for (size_t i = 0; i < impl->ncells; i++)
    testcase(b, impl, &impl->cells[i], r->strict);

  uint64_t faults = 0;
  for (size_t f = 1; f < CS_FAULT_KINDS; f++)
    faults += impl->faults[f];
  /* What the matrix cannot show: faults, cases cut off unjudged, a run that ended early, request
   * kinds given up. */
  if (faults || impl->cases_cut || impl->ended_early || impl->given_up) {
    cs_buf_puts(b, "    <system-out>");
    const char *sep = "";
    if (faults) {
      cs_buf_puts(b, "faults:");
      for (size_t f = 1; f < CS_FAULT_KINDS; f++)
        cs_buf_printf(b, " %s=%llu", cs_fault_name(f), (unsigned long long)impl->faults[f]);
      sep = "\n";
    }
    cs_buf line = {0};
    if (impl->cases_cut) {
      cs_cut_line(&line, impl->cases_cut, "--time", false);
      cs_buf_puts(b, sep);
      cs_esc_markup(b, line.data, line.len, CS_ESC_TEXT);
      sep = "\n";
    }
    if (impl->ended_early) {
      cs_buf_clear(&line);
      cs_ended_early_line(&line, impl->cases);
      cs_buf_puts(b, sep);
      cs_esc_markup(b, line.data, line.len, CS_ESC_TEXT);
      sep = "\n";
    }
    if (impl->given_up) {
      cs_buf_clear(&line);
      cs_given_up_line(&line, impl->given_up, impl->given_up_after);
      cs_buf_puts(b, sep);
      cs_esc_markup(b, line.data, line.len, CS_ESC_TEXT);
    }
    cs_buf_free(&line);
    cs_buf_puts(b, "</system-out>\n");
  }
  if (impl->stderr_tail && impl->stderr_tail[0]) {
    cs_buf_puts(b, "    <system-err>");
    cs_esc_markup(b, impl->stderr_tail, strlen(impl->stderr_tail), CS_ESC_TEXT);
    cs_buf_puts(b, "</system-err>\n");
  }
  cs_buf_puts(b, "  </testsuite>\n");
}

int cs_report_junit(const cs_report *r, FILE *out, cs_err *err) {
  if (!r)
    return cs_err_set(err, "junit report: no report");
  cs_buf b = {0};
  cs_tally t = {0};
  cs_tally_report(&t, r);
  size_t below = cs_report_coverage_below(r);
  cs_buf_puts(&b, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
  cs_buf_printf(&b,
                "<testsuites name=\"callsign\" tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" skipped=\"%zu\" "
                "time=\"%.3f\">\n",
                t.cells + t.could_not_run + (below > 0) + (r->input_error != NULL) + r->output_error,
                t.fails_run + (below > 0), t.could_not_run + (r->input_error != NULL) + r->output_error,
                t.expected_failures + t.not_applicable + t.unchecked + t.soft_failed, t.seconds);
  for (size_t k = 0; k < r->nimpls; k++)
    suite(&b, r, &r->impls[k]);
  if (below) { /* --min-coverage fails the run: CI must see it as a failed test, not only as exit 1 */
    cs_buf_puts(&b, "  <testsuite name=\"generation\" tests=\"1\" failures=\"1\" errors=\"0\" skipped=\"0\">\n"
                    "    <testcase classname=\"generation\" name=\"min_coverage\">\n      <failure message=\"");
    cs_buf line = {0};
    cs_coverage_line(&line, below, r->min_coverage);
    cs_esc_markup(&b, line.data, line.len, CS_ESC_ATTR);
    cs_buf_free(&line);
    cs_buf_puts(&b, "\">");
    for (size_t i = 0; i < r->nstats; i++)
      if (cs_report_stat_below(r, i)) {
        cs_esc_markup(&b, r->stats[i].name, strlen(r->stats[i].name), CS_ESC_TEXT);
        cs_buf_printf(&b, " %llu\n", (unsigned long long)r->stats[i].count);
      }
    cs_buf_puts(&b, "</failure>\n    </testcase>\n  </testsuite>\n");
  }
  if (r->input_error) { /* exit 2: an error, as CI counts errors, not a failed property */
    cs_buf_puts(&b, "  <testsuite name=\"input\" tests=\"1\" failures=\"0\" errors=\"1\" skipped=\"0\">\n"
                    "    <testcase classname=\"input\" name=\"input\">\n      <error message=\"");
    cs_esc_markup(&b, r->input_error, strlen(r->input_error), CS_ESC_ATTR);
    cs_buf_puts(&b, "\"/>\n    </testcase>\n  </testsuite>\n");
  }
  if (r->output_error) /* exit 2 as well: stdout or another report of the run could not be written */
    cs_buf_puts(&b, "  <testsuite name=\"output\" tests=\"1\" failures=\"0\" errors=\"1\" skipped=\"0\">\n"
                    "    <testcase classname=\"output\" name=\"output\">\n      <error message=\"stdout or another "
                    "report of this run could not be written (the reason is on stderr)\"/>\n    </testcase>\n"
                    "  </testsuite>\n");
  cs_buf_puts(&b, "</testsuites>\n");
  int rc = cs_report_output(&b, out, "junit", err);
  cs_buf_free(&b);
  return rc;
}
