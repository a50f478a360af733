/* reports/tally.c: counting cells by verdict, the shared one-line summary and the lines every format
 * words alike (cut cases, request kinds given up). */
#include "reports/tally.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "impls/impl.h"

void cs_tally_add(cs_tally *t, const cs_impl_result *impl, bool strict) {
  t->impls++;
  if (impl->could_not_run)
    t->could_not_run++;
  t->cases += impl->cases;
  t->seconds += impl->seconds;
  for (size_t f = 1; f < CS_FAULT_KINDS; f++)
    t->faults += impl->faults[f];
  for (size_t i = 0; i < impl->ncells; i++) {
    const cs_cell *c = &impl->cells[i];
    t->cells++;
    switch (c->verdict) {
    case CS_VERDICT_PASS:
      t->passed++;
      break;
    case CS_VERDICT_FAIL:
      t->failed++;
      break;
    case CS_VERDICT_EXPECTED_FAIL:
      t->expected_failures++;
      break;
    case CS_VERDICT_FIXED:
      t->fixed++;
      break;
    case CS_VERDICT_NOT_APPLICABLE:
      t->not_applicable++;
      break;
    case CS_VERDICT_UNCHECKED:
      t->unchecked++;
      break;
    }
    if (cs_cell_fails_run(c, strict))
      t->fails_run++;
    else if (c->verdict == CS_VERDICT_FAIL)
      t->soft_failed++;
  }
}

void cs_tally_report(cs_tally *t, const cs_report *r) {
  for (size_t k = 0; k < r->nimpls; k++)
    cs_tally_add(t, &r->impls[k], r->strict);
}

static void count(cs_buf *b, size_t n, const char *one, const char *many) {
  if (n)
    cs_buf_printf(b, ", %zu %s", n, n == 1 ? one : many);
}

void cs_tally_line(cs_buf *b, const cs_tally *t) {
  cs_buf_printf(b, "%zu implementation%s, %zu failed, %zu passed", t->impls, t->impls == 1 ? "" : "s", t->failed,
                t->passed);
  count(b, t->expected_failures, "expected failure", "expected failures");
  count(b, t->fixed, "fixed", "fixed");
  count(b, t->not_applicable, "n/a", "n/a");
  count(b, t->unchecked, "unchecked", "unchecked");
  count(b, t->could_not_run, "could not run", "could not run");
  cs_buf_printf(b, " (cases %llu, %.1f s)", (unsigned long long)t->cases, t->seconds);
}

void cs_cut_line(cs_buf *b, uint64_t cases_cut, const char *flag, bool interrupted) {
  cs_buf_printf(b, "%llu case%s cut off by %s%s: still waiting for answers when %s, not judged",
                (unsigned long long)cases_cut, cases_cut == 1 ? "" : "s", flag,
                interrupted ? " or the stop signal" : "", interrupted ? "the campaign stopped" : "the time ran out");
}

void cs_ended_early_line(cs_buf *b, uint64_t cases) {
  cs_buf_printf(b, "ended after %llu case%s: every selected property had failed, leaving no request to send",
                (unsigned long long)cases, cases == 1 ? "" : "s");
}

void cs_percent(cs_buf *b, double share) {
  double p = isfinite(share) && share > 0 ? share * 100 : 0;
  int decimals = 2;
  if (p > 0 && p < 0.01) {
    /* Two significant digits, counted on the rounded value: 1e-7 * 100 is 9.99...e-06, and its
     * digits are those of 1.0e-05. */
    char e[16];
    snprintf(e, sizeof e, "%.1e", p);
    const char *x = strchr(e, 'e');
    int exp10 = x ? atoi(x + 1) : -2;
    decimals = 1 - exp10 > 2 ? 1 - exp10 : 2;
  }
  if (decimals > 12) /* a run of zeros nobody reads: exponent form */
    cs_buf_printf(b, "%.2g%%", p);
  else
    cs_buf_printf(b, "%.*f%%", decimals, p);
}

void cs_coverage_line(cs_buf *b, size_t below, double min_coverage) {
  cs_buf_printf(b, "%zu pathology class%s occurred in fewer than ", below, below == 1 ? "" : "es");
  cs_percent(b, min_coverage);
  cs_buf_puts(b, " of cases");
}

void cs_given_up_line(cs_buf *b, uint32_t given_up, unsigned after) {
  cs_buf_printf(b, "not sent any more after %u faults and no answer, %u in all, or restarts that failed:", after,
                10 * after);
  const char *sep = " ";
  for (unsigned k = 0; k < CS_KIND_COUNT; k++)
    if (given_up >> k & 1u) {
      char name[64];
      cs_request_kind_name(k, name, sizeof name);
      cs_buf_printf(b, "%s%s", sep, name);
      sep = ", ";
    }
  cs_buf_puts(b, " (their properties went unchecked from then on)");
}

const char *cs_fault_name(size_t i) {
  static const char *const names[CS_FAULT_KINDS] = {"ok", "rejected", "crash", "timeout", "protocol"};
  return i < CS_FAULT_KINDS ? names[i] : "?";
}
