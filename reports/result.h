/* reports/result.h: the result model every report writer reads. Plain data (strings and numbers),
 * filled by the harness, so writers depend on nothing above core/. All strings are NUL-terminated
 * UTF-8 owned by the report's arena; any of them may hold arbitrary bytes from IDs (control
 * characters, '<', '&', "]]>"), and each writer must escape for its format. */
#ifndef CS_REPORTS_RESULT_H
#define CS_REPORTS_RESULT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "core/arena.h"
#include "core/error.h"

typedef enum {
  CS_VERDICT_PASS,           /* held on every case checked */
  CS_VERDICT_FAIL,           /* failed, not listed in --expect */
  CS_VERDICT_EXPECTED_FAIL,  /* failed, and listed in --expect */
  CS_VERDICT_FIXED,          /* listed in --expect but held: the list should shrink */
  CS_VERDICT_NOT_APPLICABLE, /* the implementation lacks the op or target */
  CS_VERDICT_UNCHECKED,      /* applicable, but no case was judged on it (the run ended first) */
} cs_verdict;
/* Outside the enum, so that switches over verdicts stay checked for completeness (-Wswitch). */
#define CS_VERDICT_COUNT (CS_VERDICT_UNCHECKED + 1)

/* The verdict table, one row per verdict: what every writer calls it. A writer's own marks (colours,
 * symbols, CSS classes) are tables of that writer indexed by cs_verdict. */
typedef struct {
  const char *name; /* stable, in JSON reports: "pass", "expected_fail" */
  const char *word; /* a matrix cell in plain text: "ok", "FAIL", "xfail", "fixed", "n/a", "none" */
  int rank;         /* of two verdicts for one matrix cell, the one with the higher rank shows */
} cs_verdict_row;
/* The row of v; a value outside the enum gets a row named "unknown" rather than a crash. */
const cs_verdict_row *cs_verdict_of(cs_verdict v);
const char *cs_verdict_name(cs_verdict v);

/* One property on one target for one implementation (target "-" for properties without one). */
typedef struct {
  const char *property; /* stable name, e.g. "emit.pair" */
  const char *target;
  bool required;        /* required tier; recommended otherwise */
  const char *contract; /* one line */
  cs_verdict verdict;
  uint64_t cases; /* cases on which it was checked */
  /* Failure details (NULL when it held). */
  const char *message;      /* one line: what went wrong on the shrunk case */
  const char *history_json; /* the shrunk history (compact JSON, one line) */
  const char *answer_json;  /* what the implementation answered on it, or NULL */
  const char *token;        /* replay token */
  const char *replay;       /* a complete replay command line */
  uint64_t seed;            /* run seed */
  uint64_t case_index;      /* case number that first failed, or CS_CASE_CORPUS, _REPLAYED or _VECTOR */
  uint32_t shrunk_turns, shrunk_calls, shrink_steps;
  /* FIXED under an --expect line without an implementation that another implementation of the run
   * still fails: the line must name the failing ones, not go. */
  bool fixed_line_shared;
} cs_cell;

/* What a FIXED cell asks of the list, in every report. */
#define CS_FIXED_ADVICE "remove it from the list"
#define CS_FIXED_SHARED_ADVICE                                                                                         \
  "its line covers every implementation and another still fails it: name the failing ones on the line"

/* An --expect line that no judged cell matched (its cells were filtered out, not applicable or not
 * reached, or its implementation did not run): kept as it was by the failures list. */
typedef struct {
  const char *property, *target, *impl; /* impl "": any implementation */
} cs_expect_line;

typedef struct {
  const char *name; /* a statistics label */
  const char *desc;
  uint64_t count; /* cases in which it occurred */
} cs_stat;

typedef struct {
  const char *name, *version, *kind; /* kind: "built-in" or "external" */
  const char *note;                  /* e.g. which of idempotence/injectivity a normalizer gave up */
  cs_cell *cells;
  size_t ncells;
  uint64_t cases;
  uint64_t cases_cut; /* cut off by --time before their last answer: not judged */
  double seconds;
  uint64_t faults[5]; /* per cs_reply_status (ok unused): rejected, crash, timeout, protocol */
  /* Request kinds (cs_request_kind) no longer sent after given_up_after faults and no answer. */
  uint32_t given_up;
  unsigned given_up_after;
  bool ended_early; /* every property failed while cases were left: the run stopped there */
  const char *stderr_tail;
  bool could_not_run; /* exit status 3 */
  const char *error;  /* why it could not run */
} cs_impl_result;

typedef struct {
  const char *tool_version;
  const char *command; /* the command line that produced it */
  uint64_t seed;
  bool replay; /* `callsign replay`: one given case, which the seed does not decide */
  bool strict;
  bool brief; /* terminal: no matrices or expected failures; failures, fixed entries, summary stay */
  cs_impl_result *impls;
  size_t nimpls;
  cs_stat *stats; /* generation statistics, over all implementations */
  size_t nstats;
  uint64_t stat_cases;
  double min_coverage; /* --min-coverage: a label below this share fails the run (0: none) */
  /* An input the run needed and could not use (the canonical v1 vectors), or NULL: exit status 2,
   * and the cells that needed it are not judged. */
  const char *input_error;
  /* An output of this run could not be written (stdout, or another report): exit status 2 unless
   * an implementation could not run. Set before the reports are written, so that they say so. */
  bool output_error;
  const char *targets[8]; /* targets run, in table order */
  size_t ntargets;
  const cs_expect_line *expect_not_checked;
  size_t nexpect_not_checked;
} cs_report;

/* Does this cell make the run fail? FAIL of a required property (of any property with strict), or
 * FIXED: a listed failure that holds means the list must shrink. */
bool cs_cell_fails_run(const cs_cell *c, bool strict);
/* What a FIXED cell asks of the --expect list: CS_FIXED_SHARED_ADVICE or CS_FIXED_ADVICE. */
const char *cs_cell_fixed_advice(const cs_cell *c);
/* Did the property fail on this implementation, listed in --expect or not (FAIL, EXPECTED_FAIL)? */
bool cs_cell_failed(const cs_cell *c);
/* case_index of a failure on a corpus case, and on the one case `callsign replay` was given. */
#define CS_CASE_CORPUS UINT64_MAX
#define CS_CASE_REPLAYED (UINT64_MAX - 1)
/* case_index of a failure on a canonical v1 vector: no seed decided it, and it is not shrunk. */
#define CS_CASE_VECTOR (UINT64_MAX - 2)
/* Where the failing case came from, for people: "seed 7, case 12", "seed 7, a corpus case", or "the
 * replayed case" (its token or file decides it, not the seed). */
const char *cs_cell_origin(const cs_cell *c, char *buf, size_t len);
/* What decided the run's cases, for report headers: "seed 7" or "replay", then ", strict" if so. */
const char *cs_report_origin(const cs_report *r, char *buf, size_t len);
/* The shrunk case's size, for people: "3 turns, 1 call" (singular and plural as the counts need). */
const char *cs_cell_shrunk_size(const cs_cell *c, char *buf, size_t len);
/* Where a failing case came from and how far it shrank, as every report says it: "seed 7, case 12;
 * shrunk to 1 turn, 2 calls in 9 steps", or "a canonical v1 vector (not shrunk): 3 turns, 2 calls". */
const char *cs_cell_case_line(const cs_cell *c, char *buf, size_t len);
/* Exit status per DESIGN.md: 0 pass, 1 a property failed (or a label fell below --min-coverage), 3 an
 * implementation could not be run. */
int cs_report_exit_status(const cs_report *r);
/* What the exit status says, in lower case: "passed", "failed", "an input could not be used", "an
 * output could not be written" or "an implementation could not be run" (the reports' headline). */
const char *cs_report_verdict(const cs_report *r);
/* The share of generated cases that statistics label i occurred in (0 when no case was). */
double cs_report_stat_share(const cs_report *r, size_t i);
/* Is statistics label i below --min-coverage? How many are? Either fails the run (exit 1). */
bool cs_report_stat_below(const cs_report *r, size_t i);
size_t cs_report_coverage_below(const cs_report *r);

/* Writers. Each writes a complete document; returns 0, or -1 with `err` on an I/O error. */
int cs_report_terminal(const cs_report *r, FILE *out, bool color, cs_err *err);
int cs_report_junit(const cs_report *r, FILE *out, cs_err *err);
int cs_report_json(const cs_report *r, FILE *out, cs_err *err);
int cs_report_markdown(const cs_report *r, FILE *out, cs_err *err);
int cs_report_html(const cs_report *r, FILE *out, cs_err *err);
/* The failing cells as a known-failures list that --expect reads back (reports/failures.c). */
int cs_report_failures(const cs_report *r, FILE *out, cs_err *err);

/* The writer table: name (also the CLI flag --NAME FILE), writer. */
typedef struct {
  const char *name;
  int (*write)(const cs_report *r, FILE *out, cs_err *err);
  const char *summary;
} cs_report_format;
const cs_report_format *cs_report_formats(size_t *count);

#endif
