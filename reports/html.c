/* reports/html.c: the self-contained HTML report: inline CSS, no scripts, no external resources.
 * It holds the compliance matrices (coloured cells linking to their failure), the failures with
 * their shrunk cases, faults and stderr tails, and the generation statistics as an inline SVG bar
 * chart. The markup is also well-formed XML (every element closed, attributes quoted, numeric
 * references only), so both HTML5 and XML tools can read it; every string from the data goes
 * through cs_esc_markup. A history, answer or message is cut at CS_REPORT_MAX_SHOWN bytes, as the
 * terminal cuts it, and the implementation's name and version at CS_REPORT_MAX_NAME, so that a
 * browser can open the page. */
#include <ctype.h>
#include <stdint.h>
#include <string.h>

#include "reports/escape.h"
#include "reports/matrix.h"
#include "reports/output.h"
#include "reports/result.h"
#include "reports/tally.h"

/* Bar chart geometry, in SVG user units. */
#define CHART_LABEL_W 260
#define CHART_BAR_MAX 360
#define CHART_ROW_H 22
#define CHART_W 760
#define CHART_LABEL_BYTES 36

static const char css[] =
    "body{font:14px/1.45 system-ui,-apple-system,Segoe UI,sans-serif;margin:2em auto;max-width:72em;"
    "padding:0 1em;color:#1d1d1f;background:#fff}\n"
    "h1{font-size:1.6em;margin-bottom:.2em}h2{margin-top:1.8em;border-bottom:1px solid #ddd}\n"
    "code,pre,td.p,th.p{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}\n"
    "table{border-collapse:collapse;margin:.5em 0 1.2em}\n"
    "th,td{border:1px solid #d0d0d0;padding:2px 9px;text-align:center}th{background:#f3f3f3}\n"
    "td.p,th.p{text-align:left}td.tier{color:#666;font-size:.9em}\n"
    "td.ok{background:#dcf5dc;color:#165c16}td.fail{background:#f8caca;color:#8c0c0c;font-weight:bold}\n"
    "td.xfail{background:#fbefc3;color:#6a5200}td.fixed{background:#e6d8fb;color:#4b1d8f;font-weight:bold}\n"
    "td.na{color:#9a9a9a}td.none{color:#6a6a6a;font-style:italic}td a{color:inherit}\n"
    "pre{background:#f6f6f6;border:1px solid #ddd;padding:6px 8px;white-space:pre-wrap;word-break:break-all}\n"
    ".verdict{font-size:1.15em}.verdict.pass{color:#165c16}.verdict.fail{color:#8c0c0c}\n"
    ".banner{background:#f1e8ff;border-left:4px solid #7a3fd1;padding:6px 12px}\n"
    ".banner.coverage{background:#fdecea;border-left-color:#c62828}td.below{color:#8c0c0c;font-weight:bold}\n"
    ".failure{border-left:4px solid #c62828;padding:0 12px;margin:1em 0}\n"
    ".error{color:#8c0c0c;font-weight:bold}\n"
    "svg text{font:12px ui-monospace,Menlo,Consolas,monospace;fill:#1d1d1f}svg rect{fill:#4a78c2}\n";

static const char *str_or(const char *s, const char *dflt) {
  return s ? s : dflt;
}

/* One line: names, messages, headings. */
static void esc(cs_buf *b, const char *s) {
  s = str_or(s, "");
  cs_esc_markup(b, s, strlen(s), CS_ESC_LINE);
}

/* One line that may be long (a message), cut at CS_REPORT_MAX_SHOWN bytes with a note. */
static void esc_cut(cs_buf *b, const char *s) {
  cs_esc_left_out(b, cs_esc_markup_cut(b, s, CS_REPORT_MAX_SHOWN, CS_ESC_LINE));
}

/* An implementation's name or version, cut at CS_REPORT_MAX_NAME bytes with a note: the name is
 * repeated in every failure and list item. */
static void esc_name(cs_buf *b, const char *s) {
  cs_esc_markup_name(b, s, CS_ESC_LINE);
}

/* The CSS class of a matrix cell (see the style sheet above). */
static const char *const CELL_CLASS[CS_VERDICT_COUNT] = {
    [CS_VERDICT_PASS] = "ok",     [CS_VERDICT_FAIL] = "fail",         [CS_VERDICT_EXPECTED_FAIL] = "xfail",
    [CS_VERDICT_FIXED] = "fixed", [CS_VERDICT_NOT_APPLICABLE] = "na", [CS_VERDICT_UNCHECKED] = "none",
};

/* v < 0: no cell (the implementation did not check that property on that target). */
static const char *cell_class(int v) {
  return v >= 0 && v < CS_VERDICT_COUNT ? CELL_CLASS[v] : "none";
}

static const char *cell_text(int v) {
  return v >= 0 ? cs_verdict_of((cs_verdict)v)->word : "";
}

/* A list item naming a cell: property on target (implementation), and its message if asked. */
static void cell_item(cs_buf *b, const cs_cell *c, const char *impl, bool with_message) {
  cs_buf_puts(b, "<li><code>");
  esc(b, c->property);
  cs_buf_puts(b, "</code> on <code>");
  esc(b, c->target);
  cs_buf_puts(b, "</code> (");
  esc_name(b, str_or(impl, "(unnamed)"));
  cs_buf_puts(b, ")");
  if (with_message && c->message) {
    cs_buf_puts(b, ": ");
    esc_cut(b, c->message);
  }
  if (c->verdict == CS_VERDICT_FIXED && c->fixed_line_shared)
    cs_buf_puts(b, ": " CS_FIXED_SHARED_ADVICE);
  cs_buf_puts(b, "</li>\n");
}

/* impl_index < 0: the overview, whose cells do not link to a failure. */
static void matrix_table(cs_buf *b, const cs_matrix *m, const cs_impl_result *impl, long impl_index) {
  cs_buf_puts(b, "<table class=\"matrix\">\n<tr><th class=\"p\">property</th><th>tier</th>");
  for (size_t j = 0; j < m->ncols; j++) {
    cs_buf_puts(b, "<th>");
    esc_name(b, m->cols[j]); /* targets, or the overview's implementations */
    cs_buf_puts(b, "</th>");
  }
  cs_buf_puts(b, "</tr>\n");
  for (size_t i = 0; i < m->nrows; i++) {
    cs_buf_puts(b, "<tr><td class=\"p\">");
    esc(b, m->rows[i].name);
    cs_buf_printf(b, "</td><td class=\"tier\">%s</td>", m->rows[i].required ? "required" : "recommended");
    for (size_t j = 0; j < m->ncols; j++) {
      int v = cs_matrix_at(m, i, j);
      const cs_cell *c = m->cell ? m->cell[i * m->ncols + j] : NULL;
      cs_buf_printf(b, "<td class=\"%s\">", cell_class(v));
      if (c && impl && impl_index >= 0 && v == (int)CS_VERDICT_FAIL)
        cs_buf_printf(b, "<a href=\"#f-%ld-%zu\">%s</a>", impl_index, (size_t)(c - impl->cells), cell_text(v));
      else
        cs_buf_puts(b, cell_text(v));
      cs_buf_puts(b, "</td>");
    }
    cs_buf_puts(b, "</tr>\n");
  }
  cs_buf_puts(b, "</table>\n");
}

/* A labelled block of s, cut at `max` bytes with a note (SIZE_MAX: whole). An HTML parser drops
 * the newline right after <pre>: one is written there, so that one in s is kept. */
static void pre(cs_buf *b, const char *label, const char *s, size_t max) {
  if (!s)
    return;
  cs_buf_printf(b, "<h4>%s</h4>\n<pre>\n", label);
  cs_esc_left_out(b, cs_esc_markup_cut(b, s, max, CS_ESC_TEXT));
  cs_buf_puts(b, "</pre>\n");
}

static void failure(cs_buf *b, const cs_impl_result *impl, size_t k, size_t i, bool strict) {
  const cs_cell *c = &impl->cells[i];
  cs_buf_printf(b, "<div class=\"failure\" id=\"f-%zu-%zu\">\n<h3>FAIL <code>", k, i);
  esc(b, c->property);
  cs_buf_puts(b, "</code> on <code>");
  esc(b, c->target);
  cs_buf_puts(b, "</code> (");
  esc_name(b, str_or(impl->name, "(unnamed)"));
  cs_buf_puts(b, ")</h3>\n<p class=\"error\">");
  esc_cut(b, str_or(c->message, "failed"));
  cs_buf_puts(b, "</p>\n<ul>\n");
  if (c->contract) {
    cs_buf_puts(b, "<li>contract: ");
    esc(b, c->contract);
    cs_buf_puts(b, "</li>\n");
  }
  cs_buf_printf(b, "<li>tier: %s%s</li>\n", c->required ? "required" : "recommended",
                c->required || strict ? "" : " (does not fail the run without --strict)");
  char line[200];
  cs_buf_printf(b, "<li>%s</li>\n</ul>\n", cs_cell_case_line(c, line, sizeof line));
  pre(b, "Shrunk history", c->history_json, CS_REPORT_MAX_SHOWN);
  pre(b, "Answer", c->answer_json, CS_REPORT_MAX_SHOWN);
  if (c->replay) /* whole: it is what reproduces the case */
    pre(b, "Replay", c->replay, SIZE_MAX);
  else
    pre(b, "Replay token", c->token, SIZE_MAX);
  cs_buf_puts(b, "</div>\n");
}

static void impl_section(cs_buf *b, const cs_report *r, const cs_impl_result *impl, size_t k, cs_arena *a) {
  cs_buf_printf(b, "<h2 id=\"impl-%zu\">", k);
  esc_name(b, str_or(impl->name, "(unnamed)"));
  if (impl->version) {
    cs_buf_putc(b, ' ');
    esc_name(b, impl->version);
  }
  cs_buf_puts(b, "</h2>\n<p>");
  if (impl->kind) {
    esc(b, impl->kind);
    cs_buf_puts(b, "; ");
  }
  cs_buf_printf(b, "%llu cases, %.1f s</p>\n", (unsigned long long)impl->cases, impl->seconds);
  if (impl->note) {
    cs_buf_puts(b, "<p>Note: ");
    esc(b, impl->note);
    cs_buf_puts(b, "</p>\n");
  }
  if (impl->could_not_run) {
    cs_buf_puts(b, "<p class=\"error\">Could not run: ");
    esc(b, str_or(impl->error, "(no reason given)"));
    cs_buf_puts(b, "</p>\n");
  }
  if (impl->ncells) {
    cs_matrix m;
    cs_matrix_impl(&m, r, impl, a);
    matrix_table(b, &m, impl, (long)k);
  }
  uint64_t faults = 0;
  for (size_t f = 1; f < CS_FAULT_KINDS; f++)
    faults += impl->faults[f];
  if (faults) {
    cs_buf_puts(b, "<h3>Faults</h3>\n<table class=\"faults\">\n<tr>");
    for (size_t f = 1; f < CS_FAULT_KINDS; f++)
      cs_buf_printf(b, "<th>%s</th>", cs_fault_name(f));
    cs_buf_puts(b, "</tr>\n<tr>");
    for (size_t f = 1; f < CS_FAULT_KINDS; f++)
      cs_buf_printf(b, "<td>%llu</td>", (unsigned long long)impl->faults[f]);
    cs_buf_puts(b, "</tr>\n</table>\n");
  }
  if (impl->cases_cut) {
    cs_buf line = {0};
    cs_cut_line(&line, impl->cases_cut, "--time", false);
    cs_buf_puts(b, "<p class=\"cut\">");
    esc(b, line.data);
    cs_buf_puts(b, ".</p>\n");
    cs_buf_free(&line);
  }
  if (impl->ended_early) {
    cs_buf line = {0};
    cs_ended_early_line(&line, impl->cases);
    cs_buf_puts(b, "<p class=\"ended-early\">");
    esc(b, line.data);
    cs_buf_puts(b, ".</p>\n");
    cs_buf_free(&line);
  }
  if (impl->given_up) {
    cs_buf line = {0};
    cs_given_up_line(&line, impl->given_up, impl->given_up_after);
    cs_buf_puts(b, "<p class=\"given-up\">");
    esc(b, line.data);
    cs_buf_puts(b, "</p>\n");
    cs_buf_free(&line);
  }
  if (impl->stderr_tail && impl->stderr_tail[0])
    pre(b, "stderr (tail)", impl->stderr_tail, SIZE_MAX); /* a tail: bounded where it is kept */
}

/* The shared wording of a share ("17.00%"), escaped for the page. */
static void percent(cs_buf *b, double share) {
  cs_buf p = {0};
  cs_percent(&p, share);
  esc(b, p.data);
  cs_buf_free(&p);
}

/* --min-coverage alone can fail the run: say so under the verdict, naming the threshold and each
 * label below it, as the terminal does. */
static void coverage_banner(cs_buf *b, const cs_report *r, size_t below) {
  cs_buf line = {0};
  cs_coverage_line(&line, below, r->min_coverage);
  cs_buf_puts(b, "<div class=\"banner coverage\"><p><strong>");
  esc(b, line.data);
  cs_buf_puts(b, "</strong> (--min-coverage): the run fails.</p>\n<ul>\n");
  cs_buf_free(&line);
  for (size_t i = 0; i < r->nstats; i++) {
    if (!cs_report_stat_below(r, i))
      continue;
    cs_buf_puts(b, "<li><code>");
    esc(b, r->stats[i].name);
    cs_buf_printf(b, "</code>: %llu of %llu cases (", (unsigned long long)r->stats[i].count,
                  (unsigned long long)r->stat_cases);
    percent(b, cs_report_stat_share(r, i));
    cs_buf_puts(b, ")</li>\n");
  }
  cs_buf_puts(b, "</ul></div>\n");
}

static void stats_chart(cs_buf *b, const cs_report *r) {
  cs_buf_printf(b,
                "<h2>Generation statistics</h2>\n<p>%llu cases; each bar is the share of cases in which the "
                "label occurred.</p>\n",
                (unsigned long long)r->stat_cases);
  if (!r->nstats) {
    cs_buf_puts(b, "<p>No statistics were recorded.</p>\n");
    return;
  }
  size_t h = r->nstats * CHART_ROW_H + 8;
  cs_buf_printf(b,
                "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%zu\" viewBox=\"0 0 %d %zu\" "
                "role=\"img\" aria-label=\"generation statistics\">\n",
                CHART_W, h, CHART_W, h);
  for (size_t i = 0; i < r->nstats; i++) {
    const cs_stat *s = &r->stats[i];
    double share = cs_report_stat_share(r, i);
    double w = (share > 1 ? 1 : share) * CHART_BAR_MAX;
    size_t y = 4 + i * CHART_ROW_H;
    const char *name = str_or(s->name, "");
    size_t n = strlen(name), cut = cs_esc_cut(name, n, CHART_LABEL_BYTES);
    cs_buf_printf(b, "<text x=\"%d\" y=\"%zu\" text-anchor=\"end\">", CHART_LABEL_W - 8, y + 15);
    cs_esc_markup(b, name, cut, CS_ESC_LINE);
    if (cut < n)
      cs_buf_puts(b, "\xE2\x80\xA6"); /* ellipsis */
    cs_buf_printf(b, "</text><rect x=\"%d\" y=\"%zu\" width=\"%.1f\" height=\"16\"/>", CHART_LABEL_W, y + 2, w);
    cs_buf_printf(b, "<text x=\"%.1f\" y=\"%zu\">%llu (%.1f%%)</text>\n", CHART_LABEL_W + w + 6, y + 15,
                  (unsigned long long)s->count, share * 100.0);
  }
  cs_buf_puts(b, "</svg>\n");
  cs_buf_puts(b, "<table class=\"stats\">\n<tr><th class=\"p\">label</th><th class=\"p\">meaning</th><th>cases</th>"
                 "<th>share</th>");
  if (r->min_coverage > 0) {
    cs_buf_puts(b, "<th>--min-coverage ");
    percent(b, r->min_coverage);
    cs_buf_puts(b, "</th>");
  }
  cs_buf_puts(b, "</tr>\n");
  for (size_t i = 0; i < r->nstats; i++) {
    const cs_stat *s = &r->stats[i];
    double share = cs_report_stat_share(r, i);
    cs_buf_puts(b, "<tr><td class=\"p\">");
    esc(b, s->name);
    cs_buf_puts(b, "</td><td class=\"p\">");
    esc(b, s->desc);
    cs_buf_printf(b, "</td><td>%llu</td><td>%.1f%%</td>", (unsigned long long)s->count, share * 100.0);
    if (r->min_coverage > 0)
      cs_buf_puts(b, cs_report_stat_below(r, i) ? "<td class=\"below\">below</td>" : "<td></td>");
    cs_buf_puts(b, "</tr>\n");
  }
  cs_buf_puts(b, "</table>\n");
}

int cs_report_html(const cs_report *r, FILE *out, cs_err *err) {
  if (!r)
    return cs_err_set(err, "html report: no report");
  cs_buf b = {0};
  cs_arena a = {0};
  cs_tally t = {0};
  cs_tally_report(&t, r);
  int status = cs_report_exit_status(r);

  cs_buf_puts(&b, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n"
                  "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"/>\n"
                  "<title>callsign report</title>\n<style>\n");
  cs_buf_puts(&b, css);
  cs_buf_puts(&b, "</style>\n</head>\n<body>\n<h1>callsign report</h1>\n");
  const char *verdict = cs_report_verdict(r);
  cs_buf_printf(&b, "<p class=\"verdict %s\"><strong>%c%s</strong> (exit status %d): ", status == 0 ? "pass" : "fail",
                toupper((unsigned char)verdict[0]), verdict + 1, status);
  cs_tally_line(&b, &t);
  char origin[48];
  cs_buf_printf(&b, "</p>\n<p>%s", cs_report_origin(r, origin, sizeof origin));
  if (r->tool_version) {
    cs_buf_puts(&b, "; callsign ");
    esc(&b, r->tool_version);
  }
  cs_buf_puts(&b, "</p>\n");
  if (r->command) {
    cs_buf_puts(&b, "<p>Command: <code>");
    esc(&b, r->command);
    cs_buf_puts(&b, "</code></p>\n");
  }
  if (r->input_error) {
    cs_buf_puts(&b, "<div class=\"banner coverage\"><p><strong>");
    esc(&b, r->input_error);
    cs_buf_puts(&b, "</strong>: the cells that needed it were not judged, so the run is incomplete.</p></div>\n");
  }

  if (t.fixed) {
    cs_buf_puts(&b, "<div class=\"banner\"><p><strong>Listed in --expect but now passing: remove these from the "
                    "list.</strong></p>\n<ul>\n");
    for (size_t k = 0; k < r->nimpls; k++)
      for (size_t i = 0; i < r->impls[k].ncells; i++) {
        const cs_cell *c = &r->impls[k].cells[i];
        if (c->verdict != CS_VERDICT_FIXED)
          continue;
        cell_item(&b, c, r->impls[k].name, false);
      }
    cs_buf_puts(&b, "</ul></div>\n");
  }

  size_t below = cs_report_coverage_below(r);
  if (below)
    coverage_banner(&b, r, below);

  if (r->nimpls > 1) {
    cs_matrix m;
    cs_matrix_overview(&m, r, &a);
    cs_buf_puts(&b, "<h2>Overview</h2>\n<p>FAIL: the property failed on at least one target.</p>\n");
    matrix_table(&b, &m, NULL, -1);
  }
  for (size_t k = 0; k < r->nimpls; k++)
    impl_section(&b, r, &r->impls[k], k, &a);

  if (t.failed) {
    cs_buf_puts(&b, "<h2>Failures</h2>\n");
    for (size_t k = 0; k < r->nimpls; k++)
      for (size_t i = 0; i < r->impls[k].ncells; i++)
        if (r->impls[k].cells[i].verdict == CS_VERDICT_FAIL)
          failure(&b, &r->impls[k], k, i, r->strict);
  }
  if (t.expected_failures) {
    cs_buf_puts(&b, "<h2>Expected failures (listed in --expect)</h2>\n<ul>\n");
    for (size_t k = 0; k < r->nimpls; k++)
      for (size_t i = 0; i < r->impls[k].ncells; i++) {
        const cs_cell *c = &r->impls[k].cells[i];
        if (c->verdict != CS_VERDICT_EXPECTED_FAIL)
          continue;
        cell_item(&b, c, r->impls[k].name, true);
      }
    cs_buf_puts(&b, "</ul>\n");
  }
  stats_chart(&b, r);
  cs_buf_puts(&b, "</body>\n</html>\n");

  int rc = cs_report_output(&b, out, "html", err);
  cs_arena_free(&a);
  cs_buf_free(&b);
  return rc;
}
