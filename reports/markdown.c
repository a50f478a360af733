/* reports/markdown.c: the Markdown report for CI job summaries (GitHub $GITHUB_STEP_SUMMARY):
 * a heading, a verdict line, the compliance matrices as GFM tables, then each failure in a
 * <details> block with its shrunk history in a fenced code block and the replay command.
 * Inline data is backslash-escaped (cs_esc_md_inline), so `|` or a newline cannot break a table
 * row; data inside HTML (<summary>) is entity-escaped; code blocks use a fence longer than any
 * backtick run in their content. */
#include <string.h>

#include "reports/escape.h"
#include "reports/matrix.h"
#include "reports/output.h"
#include "reports/result.h"
#include "reports/tally.h"

/* Job summaries are limited to 1 MiB per step: cut long JSON and list a bounded number of failures
 * in full (the JSON report has everything, and JUnit every failure). Sizes count escaped output, which can be
 * six times its source (DEL is written \u007F). A failure's details take at most about 4 blocks;
 * they stop once the document reaches MD_DETAILS_BUDGET, and the lists of cells at MD_LIST_BUDGET,
 * so that the whole stays below 1 MiB. */
#define MD_MAX_BLOCK 8000
#define MD_MAX_DETAILS 50
#define MD_DETAILS_BUDGET (640u << 10)
#define MD_LIST_BUDGET (960u << 10)
#define MD_LIST_MESSAGE 200 /* bytes of an expected failure's message in its list line */

static const char *str_or(const char *s, const char *dflt) {
  return s ? s : dflt;
}

static void md(cs_buf *b, const char *s) {
  s = str_or(s, "");
  cs_esc_md_inline(b, s, strlen(s));
}

/* Text inside an HTML block, kept on one line: a raw newline could end the block. */
static void html_line(cs_buf *b, const char *s) {
  s = str_or(s, "");
  cs_esc_markup(b, s, strlen(s), CS_ESC_LINE);
}

/* An implementation's name (its hello's, repeated per failure), cut at CS_REPORT_MAX_NAME bytes
 * with a note, in Markdown or in an HTML block. */
static void impl_name(cs_buf *b, const char *name, bool html) {
  name = str_or(name, "(unnamed)");
  if (html)
    cs_esc_markup_name(b, name, CS_ESC_LINE);
  else
    cs_esc_md_name(b, name);
}

/* A matrix cell as GitHub renders it: a symbol, and a word where the symbol alone is unclear. */
static const char *const CELL_MARK[CS_VERDICT_COUNT] = {
    [CS_VERDICT_PASS] = "\xE2\x9C\x85",                            /* check mark */
    [CS_VERDICT_FAIL] = "\xE2\x9D\x8C",                            /* cross mark */
    [CS_VERDICT_EXPECTED_FAIL] = "\xE2\x9A\xA0\xEF\xB8\x8F xfail", /* warning sign */
    [CS_VERDICT_FIXED] = "\xF0\x9F\x94\xA7 fixed",                 /* wrench */
    [CS_VERDICT_NOT_APPLICABLE] = "\xE2\x80\x94",                  /* em dash */
    [CS_VERDICT_UNCHECKED] = "none",
};

/* v < 0: no cell (the implementation did not check that property on that target). */
static const char *cell_mark(int v) {
  if (v < 0)
    return " ";
  return v < CS_VERDICT_COUNT ? CELL_MARK[v] : "?";
}

static void table(cs_buf *b, const cs_matrix *m) {
  cs_buf_puts(b, "| property | tier |");
  for (size_t j = 0; j < m->ncols; j++) {
    cs_buf_putc(b, ' ');
    cs_esc_md_name(b, m->cols[j]); /* targets, or the overview's implementations */
    cs_buf_puts(b, " |");
  }
  cs_buf_puts(b, "\n|---|---|");
  for (size_t j = 0; j < m->ncols; j++)
    cs_buf_puts(b, ":---:|");
  cs_buf_putc(b, '\n');
  for (size_t i = 0; i < m->nrows; i++) {
    cs_buf_puts(b, "| ");
    md(b, m->rows[i].name);
    cs_buf_puts(b, m->rows[i].required ? " | required |" : " | recommended |");
    for (size_t j = 0; j < m->ncols; j++)
      cs_buf_printf(b, " %s |", cell_mark(cs_matrix_at(m, i, j)));
    cs_buf_putc(b, '\n');
  }
  cs_buf_putc(b, '\n');
}

/* A fenced code block whose fence no backtick run in the content can close, holding at most `max`
 * bytes of escaped text. */
static void code_block(cs_buf *b, const char *info, const char *s, size_t max) {
  size_t n = strlen(s), cut = cs_esc_cut(s, n, max);
  cs_buf text = {0};
  cs_esc_plain(&text, s, cut, true);
  while (text.len > max && cut > 0) { /* escaping grew it: take less of the source */
    cut = cs_esc_cut(s, n, (size_t)((double)cut * max / (double)text.len * 0.98));
    text.len = 0;
    cs_esc_plain(&text, s, cut, true);
  }
  size_t fence = cs_esc_backtick_run(s, cut) + 1;
  if (fence < 3)
    fence = 3;
  for (size_t i = 0; i < fence; i++)
    cs_buf_putc(b, '`');
  cs_buf_printf(b, "%s\n", info);
  cs_buf_put(b, text.data ? text.data : "", text.len);
  cs_buf_free(&text);
  if (!cut || s[cut - 1] != '\n')
    cs_buf_putc(b, '\n');
  for (size_t i = 0; i < fence; i++)
    cs_buf_putc(b, '`');
  cs_buf_puts(b, "\n\n");
  if (cut < n)
    cs_buf_printf(b, "_(%zu more bytes cut; the replay command shows the whole case)_\n\n", n - cut);
}

static void failure(cs_buf *b, const cs_impl_result *impl, const cs_cell *c, bool strict) {
  cs_buf_puts(b, "<details><summary>\xE2\x9D\x8C <b>");
  html_line(b, c->property);
  cs_buf_puts(b, "</b> on <b>");
  html_line(b, c->target);
  cs_buf_puts(b, "</b> (");
  impl_name(b, impl->name, true);
  cs_buf_puts(b, "): ");
  html_line(b, str_or(c->message, "failed"));
  cs_buf_puts(b, "</summary>\n\n");
  if (c->contract) {
    cs_buf_puts(b, "- contract: ");
    md(b, c->contract);
    cs_buf_putc(b, '\n');
  }
  cs_buf_printf(b, "- tier: %s%s\n", c->required ? "required" : "recommended",
                c->required || strict ? "" : " (does not fail the run without \\-\\-strict)");
  char line[200];
  cs_buf_printf(b, "- %s\n\n", cs_cell_case_line(c, line, sizeof line));
  if (c->history_json) {
    cs_buf_puts(b, "Shrunk history:\n\n");
    code_block(b, "json", c->history_json, MD_MAX_BLOCK);
  }
  if (c->answer_json) {
    cs_buf_puts(b, "Answer:\n\n");
    code_block(b, "json", c->answer_json, MD_MAX_BLOCK);
  }
  if (c->replay) {
    cs_buf_puts(b, "Replay:\n\n");
    code_block(b, "sh", c->replay, MD_MAX_BLOCK);
  } else if (c->token) {
    cs_buf_puts(b, "Replay token:\n\n");
    code_block(b, "", c->token, MD_MAX_BLOCK);
  }
  cs_buf_puts(b, "</details>\n\n");
}

static void impl_section(cs_buf *b, const cs_report *r, const cs_impl_result *impl, cs_arena *a) {
  cs_buf_puts(b, "### ");
  impl_name(b, impl->name, false);
  if (impl->version) {
    cs_buf_putc(b, ' ');
    cs_esc_md_name(b, impl->version); /* a hello's, as the name */
  }
  if (impl->kind) {
    cs_buf_puts(b, " (");
    md(b, impl->kind);
    cs_buf_putc(b, ')');
  }
  cs_buf_printf(b, "\n\n%llu cases, %.1f s\n\n", (unsigned long long)impl->cases, impl->seconds);
  if (impl->note) {
    cs_buf_puts(b, "Note: ");
    md(b, impl->note);
    cs_buf_puts(b, "\n\n");
  }
  if (impl->could_not_run) {
    cs_buf_puts(b, "**\xE2\x9B\x94 Could not run:** ");
    md(b, str_or(impl->error, "(no reason given)"));
    cs_buf_puts(b, "\n\n");
  }
  if (impl->ncells) {
    cs_matrix m;
    cs_matrix_impl(&m, r, impl, a);
    table(b, &m);
  }
  uint64_t faults = 0;
  for (size_t f = 1; f < CS_FAULT_KINDS; f++)
    faults += impl->faults[f];
  if (faults) {
    cs_buf_puts(b, "Faults:");
    const char *sep = " ";
    for (size_t f = 1; f < CS_FAULT_KINDS; f++)
      if (impl->faults[f]) {
        cs_buf_printf(b, "%s%llu %s", sep, (unsigned long long)impl->faults[f], cs_fault_name(f));
        sep = ", ";
      }
    cs_buf_puts(b, "\n\n");
  }
  if (impl->cases_cut) {
    cs_cut_line(b, impl->cases_cut, "`--time`", false);
    cs_buf_puts(b, ".\n\n");
  }
  if (impl->ended_early) {
    cs_ended_early_line(b, impl->cases);
    cs_buf_puts(b, ".\n\n");
  }
  if (impl->given_up) {
    cs_given_up_line(b, impl->given_up, impl->given_up_after);
    cs_buf_puts(b, ".\n\n");
  }
  if (impl->stderr_tail && impl->stderr_tail[0]) {
    cs_buf_puts(b, "<details><summary>stderr (tail)</summary>\n\n");
    code_block(b, "", impl->stderr_tail, MD_MAX_BLOCK);
    cs_buf_puts(b, "</details>\n\n");
  }
}

/* --min-coverage alone can fail the run: say so where the verdict is, naming the threshold and
 * each label below it, as the terminal does. */
static void coverage_below(cs_buf *b, const cs_report *r, size_t below) {
  cs_buf line = {0};
  cs_coverage_line(&line, below, r->min_coverage);
  cs_buf_puts(b, "> [!CAUTION]\n> \xE2\x9D\x8C **");
  md(b, line.data);
  cs_buf_puts(b, "** (\\-\\-min\\-coverage): the run fails.\n>\n");
  cs_buf_free(&line);
  for (size_t i = 0; i < r->nstats; i++) {
    if (!cs_report_stat_below(r, i))
      continue;
    const cs_stat *s = &r->stats[i];
    cs_buf_puts(b, "> - **");
    md(b, s->name);
    cs_buf_printf(b, "**: %llu of %llu cases (", (unsigned long long)s->count, (unsigned long long)r->stat_cases);
    line = (cs_buf){0};
    cs_percent(&line, cs_report_stat_share(r, i));
    md(b, line.data);
    cs_buf_free(&line);
    cs_buf_puts(b, ")\n");
  }
  cs_buf_putc(b, '\n');
}

static void list_cells(cs_buf *b, const cs_report *r, cs_verdict v) {
  size_t left = 0; /* cells past MD_LIST_BUDGET */
  for (size_t k = 0; k < r->nimpls; k++)
    for (size_t i = 0; i < r->impls[k].ncells; i++) {
      const cs_cell *c = &r->impls[k].cells[i];
      if (c->verdict != v)
        continue;
      if (b->len >= MD_LIST_BUDGET) {
        left++;
        continue;
      }
      cs_buf_puts(b, v == CS_VERDICT_FIXED ? "> - **" : "- **");
      md(b, c->property);
      cs_buf_puts(b, "** on ");
      md(b, c->target);
      cs_buf_puts(b, " (");
      impl_name(b, r->impls[k].name, false);
      cs_buf_putc(b, ')');
      if (v == CS_VERDICT_EXPECTED_FAIL && c->message) {
        cs_buf_puts(b, ": ");
        size_t n = strlen(c->message), cut = cs_esc_cut(c->message, n, MD_LIST_MESSAGE);
        cs_esc_md_inline(b, c->message, cut);
        if (cut < n)
          cs_buf_puts(b, "...");
      }
      if (v == CS_VERDICT_FIXED && c->fixed_line_shared)
        cs_buf_puts(b, ": " CS_FIXED_SHARED_ADVICE);
      cs_buf_putc(b, '\n');
    }
  if (left)
    cs_buf_printf(b, "%s_%zu more are in the JSON and JUnit reports._\n", v == CS_VERDICT_FIXED ? "> - " : "- ", left);
  cs_buf_putc(b, '\n');
}

int cs_report_markdown(const cs_report *r, FILE *out, cs_err *err) {
  if (!r)
    return cs_err_set(err, "markdown report: no report");
  cs_buf b = {0};
  cs_arena a = {0};
  cs_tally t = {0};
  cs_tally_report(&t, r);
  int status = cs_report_exit_status(r);

  cs_buf_printf(&b, "## callsign: %s %s\n\n",
                status == 0   ? "\xE2\x9C\x85" /* check mark */
                : status == 1 ? "\xE2\x9D\x8C" /* cross */
                              : "\xE2\x9B\x94" /* no entry */,
                cs_report_verdict(r));
  cs_buf_printf(&b, "**Exit status %d** \xE2\x80\x94 ", status);
  cs_tally_line(&b, &t);
  char origin[48];
  cs_buf_printf(&b, "; %s", cs_report_origin(r, origin, sizeof origin));
  if (r->tool_version) {
    cs_buf_puts(&b, "; callsign ");
    md(&b, r->tool_version);
  }
  cs_buf_puts(&b, "\n\n");
  if (r->command) {
    cs_buf_puts(&b, "Command:\n\n");
    code_block(&b, "sh", r->command, MD_MAX_BLOCK);
  }
  if (r->input_error) {
    cs_buf_puts(&b, "> [!CAUTION]\n> \xE2\x9B\x94 **");
    md(&b, r->input_error);
    cs_buf_puts(&b, "**: the cells that needed it were not judged, so the run is incomplete.\n\n");
  }

  if (t.fixed) {
    cs_buf_puts(&b, "> [!WARNING]\n> \xF0\x9F\x94\xA7 **Listed in \\-\\-expect but now passing: remove these from the "
                    "list.**\n>\n");
    list_cells(&b, r, CS_VERDICT_FIXED);
  }

  size_t below = cs_report_coverage_below(r);
  if (below)
    coverage_below(&b, r, below);

  cs_buf_puts(&b, "Legend: \xE2\x9C\x85 pass \xC2\xB7 \xE2\x9D\x8C fail \xC2\xB7 \xE2\x9A\xA0\xEF\xB8\x8F xfail "
                  "(listed in \\-\\-expect) \xC2\xB7 \xF0\x9F\x94\xA7 fixed (listed in \\-\\-expect but passes) "
                  "\xC2\xB7 \xE2\x80\x94 not applicable \xC2\xB7 none: unchecked, no case was judged on it before the "
                  "run ended. Required properties fail the run; recommended ones only with \\-\\-strict.\n\n");

  if (r->nimpls > 1) {
    cs_matrix m;
    cs_matrix_overview(&m, r, &a);
    cs_buf_puts(&b, "### Overview\n\n\xE2\x9D\x8C means the property failed on at least one target.\n\n");
    table(&b, &m);
  }
  for (size_t k = 0; k < r->nimpls; k++)
    impl_section(&b, r, &r->impls[k], &a);

  if (t.failed) {
    cs_buf_puts(&b, "### Failures\n\n");
    size_t shown = 0, failing = 0;
    for (size_t k = 0; k < r->nimpls; k++)
      for (size_t i = 0; i < r->impls[k].ncells; i++) {
        const cs_cell *c = &r->impls[k].cells[i];
        if (c->verdict != CS_VERDICT_FAIL)
          continue;
        failing++;
        if (shown < MD_MAX_DETAILS && b.len < MD_DETAILS_BUDGET) {
          failure(&b, &r->impls[k], c, r->strict);
          shown++;
        }
      }
    if (failing > shown)
      cs_buf_printf(&b, "_%zu more failures are in the JSON and JUnit reports._\n\n", failing - shown);
  }
  if (t.expected_failures) {
    cs_buf_puts(&b, "### Expected failures (listed in \\-\\-expect)\n\n");
    list_cells(&b, r, CS_VERDICT_EXPECTED_FAIL);
  }

  int rc = cs_report_output(&b, out, "markdown", err);
  cs_arena_free(&a);
  cs_buf_free(&b);
  return rc;
}
