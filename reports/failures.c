/* reports/failures.c: the failing cells as a known-failures list, the plain-text format --expect
 * reads (harness/expect.h): one `property target implementation` per line, '#' comments. A run
 * given its own list passes when it fails exactly as before, so the list is how a project pins
 * the failures it knows of (and how `make run` checks the built-ins fail as designed).
 * Written: FAIL and EXPECTED_FAIL cells, both tiers (a recommended one is marked in a comment).
 * Left out: FIXED cells (the list shrinks) and implementations that could not run; a list of
 * nothing says whether a cell was judged ("no failures") or none was. Kept: the
 * lines of --expect no judged cell answered (written as they were read). A name that
 * --expect could not read back as one word (whitespace, '#', control bytes, over 95 bytes) is
 * left out of the line, which then matches any implementation, and shown escaped in a comment; such
 * a line is written once, and stands for the other implementations' lines of the same cell, since
 * --expect refuses a line that another covers. */
#include <stdint.h>
#include <string.h>

#include "reports/escape.h"
#include "reports/output.h"
#include "reports/result.h"

#define EXPECT_WORD_MAX 95 /* the implementation field of harness/expect.h's cs_expect_entry */

/* A name --expect reads back as it was written (harness/expect.c refuses the others). */
static bool one_word(const char *s) {
  return strlen(s) <= EXPECT_WORD_MAX && cs_esc_is_word(s);
}

static const char *impl_name(const cs_impl_result *ir) {
  return ir->name ? ir->name : "";
}

/* Does an implementation whose name is not one word fail the cell (property, target)? Only those
 * before implementation `k_end` (cell `i_end` of it) are asked, or all with k_end = SIZE_MAX. */
static bool failed_unnamed(const cs_report *r, const cs_cell *cell, size_t k_end, size_t i_end) {
  for (size_t k = 0; k < r->nimpls && k <= k_end; k++) {
    const cs_impl_result *ir = &r->impls[k];
    if (one_word(impl_name(ir)))
      continue;
    for (size_t i = 0; i < ir->ncells && (k < k_end || i < i_end); i++) {
      const cs_cell *c = &ir->cells[i];
      if (cs_cell_failed(c) && !strcmp(c->property, cell->property) && !strcmp(c->target, cell->target))
        return true;
    }
  }
  return false;
}

/* Text of a comment line, escaped and cut so that the line stays within what --expect reads (1023
 * bytes): an escape is at most six bytes for each byte of s (\u0001), and the rest of the line
 * (its "# ", the "..." and a heading's note) under 100. */
#define COMMENT_TEXT_MAX 150
static void put_comment_text(cs_buf *b, const char *s) {
  if (cs_esc_plain_cut(b, s, COMMENT_TEXT_MAX))
    cs_buf_puts(b, "...");
}

int cs_report_failures(const cs_report *r, FILE *out, cs_err *err) {
  if (!r || !out)
    return cs_err_set(err, "failures report: no %s", r ? "output stream" : "report");
  cs_buf b = {0};
  cs_buf_puts(&b, "# callsign known failures: 'property target implementation' per line (target - for properties\n"
                  "# without one). Give it to --expect: the run passes while it fails exactly as listed.\n");
  char origin[64];
  cs_buf_printf(&b, "# Written by callsign %s, %s, from:", r->tool_version ? r->tool_version : "",
                cs_report_origin(r, origin, sizeof origin));
  if (r->command) {
    cs_buf_putc(&b, ' ');
    put_comment_text(&b, r->command);
  }
  cs_buf_putc(&b, '\n');
  size_t listed = 0;
  for (size_t k = 0; k < r->nimpls; k++) {
    const cs_impl_result *ir = &r->impls[k];
    const char *name = impl_name(ir);
    bool named = one_word(name), headed = false;
    for (size_t i = 0; i < ir->ncells; i++) {
      const cs_cell *c = &ir->cells[i];
      if (!cs_cell_failed(c))
        continue;
      if (!headed) { /* a heading only for implementations with lines under it */
        cs_buf_puts(&b, "\n# ");
        put_comment_text(&b, name);
        cs_buf_puts(&b, named ? "\n" : " (not one word: these lines match any implementation)\n");
        headed = true;
      }
      if (named ? failed_unnamed(r, c, SIZE_MAX, 0) : failed_unnamed(r, c, k, i)) {
        cs_buf_printf(&b, "# %s %s: listed once for every implementation\n", c->property, c->target);
        listed++;
        continue;
      }
      cs_buf_printf(&b, "%s %s", c->property, c->target);
      if (named)
        cs_buf_printf(&b, " %s", name);
      cs_buf_puts(&b, c->required ? "\n" : "  # recommended\n");
      listed++;
    }
  }
  /* Lines of --expect this run did not check stay: a narrower run brings the list up to date for
   * what it checked and loses nothing else. A line a written line already covers is left out, as
   * --expect would refuse it. */
  bool kept_head = false;
  for (size_t i = 0; i < r->nexpect_not_checked; i++) {
    const cs_expect_line *x = &r->expect_not_checked[i];
    cs_cell cell = {.property = x->property, .target = x->target};
    if (failed_unnamed(r, &cell, SIZE_MAX, 0))
      continue;
    if (!kept_head)
      cs_buf_puts(&b, "\n# listed in --expect and not checked by this run (not run, not applicable or not "
                      "reached): kept\n");
    kept_head = true;
    cs_buf_printf(&b, "%s %s%s%s\n", x->property, x->target, x->impl[0] ? " " : "", x->impl);
    listed++;
  }
  /* "no failures" says something only when a cell was judged (held, failed or fixed): a case ran,
   * or the vectors were checked, by an implementation that ran whole or in part (--jobs). */
  bool checked = false;
  for (size_t k = 0; k < r->nimpls && !checked; k++)
    for (size_t i = 0; i < r->impls[k].ncells && !checked; i++) {
      cs_verdict v = r->impls[k].cells[i].verdict;
      checked = v == CS_VERDICT_PASS || v == CS_VERDICT_FIXED || cs_cell_failed(&r->impls[k].cells[i]);
    }
  if (!listed)
    cs_buf_puts(&b, checked ? "\n# no failures\n"
                            : "\n# nothing was checked (no implementation ran a case): no failure is known\n");
  int rc = cs_report_output(&b, out, "failures", err);
  cs_buf_free(&b);
  return rc;
}
