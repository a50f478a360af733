/* reports/terminal.c: the human-readable report: an overview when several implementations ran,
 * then per implementation its compliance matrix, failures (shrunk case and replay command),
 * faults and stderr tail, and a one-line summary. Every string from the data is made visible
 * (cs_esc_plain), so an ID holding ESC cannot drive the terminal. */
#include <string.h>

#include "reports/escape.h"
#include "reports/matrix.h"
#include "reports/output.h"
#include "reports/result.h"
#include "reports/tally.h"

typedef struct {
  cs_buf *b;
  bool color;
} term;

static void sgr(term *t, const char *code) {
  if (t->color && code)
    cs_buf_printf(t->b, "\x1b[%sm", code);
}

static void reset(term *t, const char *code) {
  if (t->color && code)
    cs_buf_puts(t->b, "\x1b[0m");
}

/* Display columns of escaped text: wide (East Asian, emoji) characters count 2, combining marks 0.
 * An approximation: alignment is cosmetic. */
static size_t display_width(const char *s, size_t n) {
  size_t w = 0, i = 0;
  while (i < n) {
    uint32_t cp;
    size_t k = cs_esc_decode(s + i, n - i, &cp);
    if (k == 0) {
      w++;
      i++;
      continue;
    }
    i += k;
    if (cp >= 0x300 && cp <= 0x36F)
      continue;
    bool wide = (cp >= 0x1100 && cp <= 0x115F) || (cp >= 0x2E80 && cp <= 0xA4CF) || (cp >= 0xAC00 && cp <= 0xD7A3) ||
                (cp >= 0xF900 && cp <= 0xFAFF) || (cp >= 0xFE30 && cp <= 0xFE4F) || (cp >= 0xFF00 && cp <= 0xFF60) ||
                (cp >= 0xFFE0 && cp <= 0xFFE6) || (cp >= 0x1F300 && cp <= 0x1FAFF) || (cp >= 0x20000 && cp <= 0x3FFFD);
    w += wide ? 2 : 1;
  }
  return w;
}

static const char *str_or(const char *s, const char *dflt) {
  return s ? s : dflt;
}

/* Appends s made visible; returns its display width. */
static size_t put_text(term *t, const char *s) {
  size_t start = t->b->len;
  s = str_or(s, "");
  cs_esc_plain(t->b, s, strlen(s), false);
  return display_width(t->b->data + start, t->b->len - start);
}

/* Appends a name or version (a hello's), made visible and cut at CS_REPORT_MAX_NAME bytes with a
 * note; returns its display width. */
static size_t put_name(term *t, const char *s) {
  size_t start = t->b->len;
  cs_esc_plain_name(t->b, s);
  return t->b->len > start ? display_width(t->b->data + start, t->b->len - start) : 0;
}

static size_t name_width(const char *s) {
  cs_buf tmp = {0};
  term t = {&tmp, false};
  size_t w = put_name(&t, s);
  cs_buf_free(&tmp);
  return w;
}

static size_t text_width(const char *s) {
  cs_buf tmp = {0};
  s = str_or(s, "");
  cs_esc_plain(&tmp, s, strlen(s), false);
  size_t w = display_width(tmp.data ? tmp.data : "", tmp.len);
  cs_buf_free(&tmp);
  return w;
}

static void pad(term *t, size_t used, size_t width) {
  for (; used < width; used++)
    cs_buf_putc(t->b, ' ');
}

/* A matrix cell's SGR colour; n/a shows as a middle dot (U+00B7), quieter than a word. */
static const char *const CELL_SGR[CS_VERDICT_COUNT] = {
    [CS_VERDICT_PASS] = "32",    [CS_VERDICT_FAIL] = "1;31",        [CS_VERDICT_EXPECTED_FAIL] = "33",
    [CS_VERDICT_FIXED] = "1;35", [CS_VERDICT_NOT_APPLICABLE] = "2", [CS_VERDICT_UNCHECKED] = "2",
};

/* v < 0: no cell (the implementation did not check that property on that target). */
static const char *cell_label(int v) {
  if (v < 0)
    return "";
  return v == CS_VERDICT_NOT_APPLICABLE ? "\xC2\xB7" : cs_verdict_of((cs_verdict)v)->word;
}

static const char *cell_sgr(int v) {
  return v >= 0 && v < CS_VERDICT_COUNT ? CELL_SGR[v] : NULL;
}

static void put_matrix(term *t, const cs_matrix *m, const char *corner, cs_arena *a) {
  size_t label_w = strlen(corner);
  for (size_t i = 0; i < m->nrows; i++) {
    size_t w = text_width(m->rows[i].name);
    if (w > label_w)
      label_w = w;
  }
  size_t *col_w = CS_ARENA_NEW(a, size_t, m->ncols + 1);
  for (size_t j = 0; j < m->ncols; j++) {
    col_w[j] = name_width(m->cols[j]); /* targets, or the overview's implementations */
    if (col_w[j] < 5)
      col_w[j] = 5;
  }

  cs_buf_puts(t->b, "  ");
  sgr(t, "1");
  cs_buf_puts(t->b, corner);
  pad(t, strlen(corner), label_w);
  cs_buf_puts(t->b, "  tier");
  for (size_t j = 0; j < m->ncols; j++) {
    cs_buf_puts(t->b, "  ");
    size_t w = put_name(t, m->cols[j]);
    if (j + 1 < m->ncols)
      pad(t, w, col_w[j]);
  }
  reset(t, "1");
  cs_buf_putc(t->b, '\n');

  for (size_t i = 0; i < m->nrows; i++) {
    cs_buf_puts(t->b, "  ");
    pad(t, put_text(t, m->rows[i].name), label_w);
    cs_buf_puts(t->b, m->rows[i].required ? "  req " : "  rec ");
    for (size_t j = 0; j < m->ncols; j++) {
      int v = cs_matrix_at(m, i, j);
      cs_buf_puts(t->b, "  ");
      sgr(t, cell_sgr(v));
      size_t w = put_text(t, cell_label(v));
      reset(t, cell_sgr(v));
      if (j + 1 < m->ncols)
        pad(t, w, col_w[j]);
    }
    /* Trailing blanks of empty last columns are trimmed for tidy copy and paste. */
    while (t->b->len && t->b->data[t->b->len - 1] == ' ')
      t->b->data[--t->b->len] = 0;
    cs_buf_putc(t->b, '\n');
  }
}

/* One line (a message, one-line JSON), cut at CS_REPORT_MAX_SHOWN bytes with a note. */
static void put_long(term *t, const char *label, const char *s) {
  if (!s)
    return;
  cs_buf_printf(t->b, "    %s", label);
  cs_esc_left_out(t->b, cs_esc_plain_cut(t->b, s, CS_REPORT_MAX_SHOWN));
  cs_buf_putc(t->b, '\n');
}

static void put_cell_head(term *t, const cs_cell *c, const char *word, const char *code) {
  cs_buf_puts(t->b, "  ");
  sgr(t, code);
  cs_buf_puts(t->b, word);
  reset(t, code);
  cs_buf_putc(t->b, ' ');
  sgr(t, "1");
  put_text(t, c->property);
  reset(t, "1");
  cs_buf_puts(t->b, " on ");
  put_text(t, c->target);
}

static void put_failure(term *t, const cs_cell *c, bool strict) {
  put_cell_head(t, c, "FAIL", "1;31");
  if (!c->required)
    cs_buf_puts(t->b, strict ? " (recommended; fails the run with --strict)"
                             : " (recommended: does not fail the run without --strict)");
  cs_buf_putc(t->b, '\n');
  if (c->contract) {
    cs_buf_puts(t->b, "    contract: ");
    put_text(t, c->contract);
    cs_buf_putc(t->b, '\n');
  }
  put_long(t, "", str_or(c->message, "(no message)"));
  char line[200];
  cs_buf_printf(t->b, "    %s\n", cs_cell_case_line(c, line, sizeof line));
  put_long(t, "history: ", c->history_json);
  put_long(t, "answer:  ", c->answer_json);
  if (c->replay) {
    cs_buf_puts(t->b, "    replay:  ");
    put_text(t, c->replay);
    cs_buf_putc(t->b, '\n');
  } else if (c->token) {
    cs_buf_puts(t->b, "    token:   ");
    put_text(t, c->token);
    cs_buf_putc(t->b, '\n');
  }
}

/* Multi-line text (stderr tail), each line indented and cut at CS_REPORT_MAX_SHOWN bytes. */
static void put_block(term *t, const char *s) {
  size_t n = strlen(s);
  size_t i = 0;
  while (i < n) {
    const char *nl = memchr(s + i, '\n', n - i);
    size_t len = nl ? (size_t)(nl - (s + i)) : n - i;
    size_t cut = cs_esc_cut(s + i, len, CS_REPORT_MAX_SHOWN);
    cs_buf_puts(t->b, "    | ");
    cs_esc_plain(t->b, s + i, cut, false);
    if (cut < len)
      cs_buf_printf(t->b, " ... [%zu more bytes]", len - cut);
    cs_buf_putc(t->b, '\n');
    i += len + 1;
  }
}

static void put_impl(term *t, const cs_report *r, const cs_impl_result *impl, cs_arena *a) {
  cs_buf_puts(t->b, "\n");
  sgr(t, "1");
  cs_buf_puts(t->b, "== ");
  put_name(t, str_or(impl->name, "(unnamed)"));
  if (impl->version) {
    cs_buf_putc(t->b, ' ');
    put_name(t, impl->version);
  }
  reset(t, "1");
  if (impl->kind) {
    cs_buf_puts(t->b, " (");
    put_text(t, impl->kind);
    cs_buf_putc(t->b, ')');
  }
  cs_buf_printf(t->b, ": %llu cases, %.1f s\n", (unsigned long long)impl->cases, impl->seconds);
  if (impl->note) {
    cs_buf_puts(t->b, "  note: ");
    put_text(t, impl->note);
    cs_buf_putc(t->b, '\n');
  }
  if (impl->could_not_run) {
    cs_buf_puts(t->b, "  ");
    sgr(t, "1;31");
    cs_buf_puts(t->b, "could not run");
    reset(t, "1;31");
    cs_buf_puts(t->b, ": ");
    put_text(t, str_or(impl->error, "(no reason given)"));
    cs_buf_putc(t->b, '\n');
  }

  if (impl->ncells && !r->brief) {
    cs_matrix m;
    cs_matrix_impl(&m, r, impl, a);
    put_matrix(t, &m, "property", a);
  }

  /* Each failure stands apart; one-line entries (fixed, xfail) are grouped. */
  bool first = true, after_block = false;
  for (size_t i = 0; i < impl->ncells; i++) {
    const cs_cell *c = &impl->cells[i];
    if (c->verdict != CS_VERDICT_FAIL && c->verdict != CS_VERDICT_FIXED &&
        (c->verdict != CS_VERDICT_EXPECTED_FAIL || r->brief))
      continue;
    if (first || after_block || c->verdict == CS_VERDICT_FAIL)
      cs_buf_putc(t->b, '\n');
    first = false;
    after_block = c->verdict == CS_VERDICT_FAIL;
    if (c->verdict == CS_VERDICT_FAIL) {
      put_failure(t, c, r->strict);
    } else if (c->verdict == CS_VERDICT_FIXED) {
      put_cell_head(t, c, "FIXED", "1;35");
      cs_buf_printf(t->b, ": listed in --expect but now passes: %s\n", cs_cell_fixed_advice(c));
    } else {
      put_cell_head(t, c, "xfail", "33");
      cs_buf_puts(t->b, ": expected failure (listed in --expect)");
      if (c->message) {
        cs_buf_puts(t->b, ": ");
        put_text(t, c->message);
      }
      cs_buf_putc(t->b, '\n');
    }
  }

  uint64_t faults = 0;
  for (size_t f = 1; f < CS_FAULT_KINDS; f++)
    faults += impl->faults[f];
  if (faults) {
    cs_buf_puts(t->b, "\n  faults:");
    const char *sep = " ";
    for (size_t f = 1; f < CS_FAULT_KINDS; f++)
      if (impl->faults[f]) {
        cs_buf_printf(t->b, "%s%llu %s", sep, (unsigned long long)impl->faults[f], cs_fault_name(f));
        sep = ", ";
      }
    cs_buf_putc(t->b, '\n');
  }
  if (impl->cases_cut) {
    cs_buf_puts(t->b, "\n  ");
    cs_cut_line(t->b, impl->cases_cut, "--time", false);
    cs_buf_putc(t->b, '\n');
  }
  if (impl->ended_early) {
    cs_buf_puts(t->b, "\n  ");
    cs_ended_early_line(t->b, impl->cases);
    cs_buf_putc(t->b, '\n');
  }
  if (impl->given_up) {
    cs_buf_puts(t->b, "\n  ");
    cs_given_up_line(t->b, impl->given_up, impl->given_up_after);
    cs_buf_putc(t->b, '\n');
  }
  if (impl->stderr_tail && impl->stderr_tail[0]) {
    cs_buf_puts(t->b, "  stderr (tail):\n");
    put_block(t, impl->stderr_tail);
  }
}

/* Is a FIXED cell's line one to narrow rather than remove? */
static bool shared_fixed(const cs_report *r) {
  for (size_t k = 0; k < r->nimpls; k++)
    for (size_t i = 0; i < r->impls[k].ncells; i++)
      if (r->impls[k].cells[i].verdict == CS_VERDICT_FIXED && r->impls[k].cells[i].fixed_line_shared)
        return true;
  return false;
}

int cs_report_terminal(const cs_report *r, FILE *out, bool color, cs_err *err) {
  if (!r)
    return cs_err_set(err, "terminal report: no report");
  cs_buf b = {0};
  cs_arena a = {0};
  term t = {&b, color};

  sgr(&t, "1");
  cs_buf_puts(&b, "callsign");
  if (r->tool_version) {
    cs_buf_putc(&b, ' ');
    put_text(&t, r->tool_version);
  }
  reset(&t, "1");
  char origin[48];
  cs_buf_printf(&b, ", %s\n", cs_report_origin(r, origin, sizeof origin));
  cs_tally tally = {0};
  cs_tally_report(&tally, r);
  cs_buf_puts(&b, "  (req: required, fails the run; rec: recommended, fails it only with --strict; "
                  "\xC2\xB7 not applicable");
  /* Only a run that ended before judging every cell shows "none": explain it then, not every time. */
  if (tally.unchecked)
    cs_buf_puts(&b, ";\n   none: unchecked, no case was judged on it before the run ended");
  cs_buf_puts(&b, ")\n");

  if (r->nimpls > 1 && !r->brief) {
    cs_matrix m;
    cs_matrix_overview(&m, r, &a);
    cs_buf_puts(&b, "\noverview (FAIL: failed on at least one target)\n");
    put_matrix(&t, &m, "property", &a);
  }
  for (size_t k = 0; k < r->nimpls; k++)
    put_impl(&t, r, &r->impls[k], &a);

  cs_buf_putc(&b, '\n');
  if (tally.fixed) {
    sgr(&t, "1;35");
    cs_buf_printf(&b, "callsign: %zu listed in --expect but now passing: %s", tally.fixed,
                  shared_fixed(r)    ? "remove or narrow their lines (see FIXED above)"
                  : tally.fixed == 1 ? "remove it from the list"
                                     : "remove them from the list");
    reset(&t, "1;35");
    cs_buf_putc(&b, '\n');
  }
  int status = cs_report_exit_status(r);
  const char *code = status == 0 ? "1;32" : "1;31";
  sgr(&t, code);
  cs_buf_puts(&b, "callsign:");
  reset(&t, code);
  cs_buf_putc(&b, ' ');
  cs_tally_line(&b, &tally);
  cs_buf_putc(&b, '\n');

  int rc = cs_report_output(&b, out, "terminal", err);
  cs_arena_free(&a);
  cs_buf_free(&b);
  return rc;
}
