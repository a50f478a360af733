/* reports/tally.h: the counts every writer summarises (cells per verdict, cases, time) and the
 * one-line summary built from them, so all formats report the same numbers. */
#ifndef CS_REPORTS_TALLY_H
#define CS_REPORTS_TALLY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/buf.h"
#include "reports/result.h"

typedef struct {
  size_t impls, could_not_run;
  size_t cells, passed, failed, expected_failures, fixed, not_applicable, unchecked;
  /* Cells that fail the run (cs_cell_fails_run): FAIL of a required property (of any with strict),
   * and every FIXED cell, since a listed failure that holds means the --expect list must shrink. */
  size_t fails_run;
  size_t soft_failed; /* FAIL cells that do not fail the run: recommended, without strict */
  uint64_t cases;
  double seconds;
  uint64_t faults; /* rejected + crash + timeout + protocol */
} cs_tally;

/* Adds one implementation's cells and numbers to t (zero t first). */
void cs_tally_add(cs_tally *t, const cs_impl_result *impl, bool strict);
void cs_tally_report(cs_tally *t, const cs_report *r);
/* "3 implementations, 12 failed, 340 passed, 1 expected failure, 1 fixed, 4 n/a, 2 unchecked
 * (cases 20000, 1.8 s)": counts that are zero, other than failed and passed, are left out. */
void cs_tally_line(cs_buf *b, const cs_tally *t);
/* "3 cases cut off by --time: still waiting for answers when the time ran out, not judged", the
 * flag spelt as `flag` (a format may quote it); no newline. `interrupted`: a stop signal ended the
 * campaign (it cuts the requests still waiting too), and the line says so. */
void cs_cut_line(cs_buf *b, uint64_t cases_cut, const char *flag, bool interrupted);
/* "ended after 32 cases: every selected property had failed, leaving no request to send": why a run
 * has fewer cases than asked for (protocol.answer is judged on those requests); no newline. */
void cs_ended_early_line(cs_buf *b, uint64_t cases);

/* A share (0.2) as a percentage for people: two decimals ("20.00%"), more where two would round a
 * nonzero share to "0.00%" ("0.000010%"), so a --min-coverage threshold never reads as none. */
void cs_percent(cs_buf *b, double share);
/* "3 pathology classes occurred in fewer than 20.00% of cases": why --min-coverage failed the run,
 * worded alike by every format; no newline. */
void cs_coverage_line(cs_buf *b, size_t below, double min_coverage);

/* "not sent any more after 20 faults and no answer: canonicalize, emit anthropic (their properties
 * went unchecked from then on)" for the request kinds in `given_up` (bit per cs_request_kind), after
 * `after` faults; no newline. */
void cs_given_up_line(cs_buf *b, uint32_t given_up, unsigned after);

/* Names of cs_impl_result.faults[1..4] (index 0, "ok", is not a fault). */
#define CS_FAULT_KINDS 5
const char *cs_fault_name(size_t i);

#endif
