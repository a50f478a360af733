/* reports/matrix.c: builds the row/column layout of the compliance matrices. */
#include "reports/matrix.h"

#include <string.h>

static const char *str_or_empty(const char *s) {
  return s ? s : "";
}

static size_t find_name(const char *const *names, size_t n, const char *name) {
  for (size_t i = 0; i < n; i++)
    if (strcmp(names[i], name) == 0)
      return i;
  return n;
}

static size_t find_row(const cs_matrix_row *rows, size_t n, const char *name) {
  for (size_t i = 0; i < n; i++)
    if (strcmp(rows[i].name, name) == 0)
      return i;
  return n;
}

/* Adds the properties of `impl` not yet in m->rows (capacity checked by the caller). Required
 * ones go in a first pass so that the rows come out required first, in report order. */
static void add_rows(cs_matrix *m, const cs_impl_result *impl, bool required) {
  for (size_t i = 0; i < impl->ncells; i++) {
    const cs_cell *c = &impl->cells[i];
    const char *name = str_or_empty(c->property);
    if (c->required != required || find_row(m->rows, m->nrows, name) < m->nrows)
      continue;
    m->rows[m->nrows].name = name;
    m->rows[m->nrows].required = required;
    m->nrows++;
  }
}

/* Rows of a property listed as both required and recommended (inconsistent input) are merged
 * into the first one found, so every cell has exactly one row. */
static size_t row_of(const cs_matrix *m, const cs_cell *c) {
  return find_row(m->rows, m->nrows, str_or_empty(c->property));
}

static void alloc_grid(cs_matrix *m, cs_arena *a, bool with_cells) {
  size_t n = m->nrows * m->ncols;
  m->verdict = CS_ARENA_NEW(a, int, n ? n : 1);
  for (size_t i = 0; i < n; i++)
    m->verdict[i] = -1;
  m->cell = with_cells ? CS_ARENA_NEW(a, const cs_cell *, n ? n : 1) : NULL;
}

static void merge(cs_matrix *m, size_t row, size_t col, const cs_cell *c) {
  size_t at = row * m->ncols + col;
  int old = m->verdict[at];
  if (old >= 0 && cs_verdict_of((cs_verdict)old)->rank >= cs_verdict_of(c->verdict)->rank)
    return;
  m->verdict[at] = (int)c->verdict;
  if (m->cell)
    m->cell[at] = c;
}

void cs_matrix_impl(cs_matrix *m, const cs_report *r, const cs_impl_result *impl, cs_arena *a) {
  memset(m, 0, sizeof *m);
  m->rows = CS_ARENA_NEW(a, cs_matrix_row, impl->ncells + 1);
  add_rows(m, impl, true);
  add_rows(m, impl, false);

  m->cols = CS_ARENA_NEW(a, const char *, impl->ncells + r->ntargets + 1);
  for (size_t t = 0; t < r->ntargets && t < sizeof r->targets / sizeof r->targets[0]; t++) {
    const char *name = r->targets[t];
    if (!name || strcmp(name, "-") == 0 || find_name(m->cols, m->ncols, name) < m->ncols)
      continue;
    for (size_t i = 0; i < impl->ncells; i++)
      if (strcmp(str_or_empty(impl->cells[i].target), name) == 0) {
        m->cols[m->ncols++] = name;
        break;
      }
  }
  bool dash = false;
  for (size_t i = 0; i < impl->ncells; i++) {
    const char *name = str_or_empty(impl->cells[i].target);
    if (strcmp(name, "-") == 0)
      dash = true;
    else if (find_name(m->cols, m->ncols, name) == m->ncols)
      m->cols[m->ncols++] = name;
  }
  if (dash)
    m->cols[m->ncols++] = "-";

  alloc_grid(m, a, true);
  for (size_t i = 0; i < impl->ncells; i++) {
    const cs_cell *c = &impl->cells[i];
    merge(m, row_of(m, c), find_name(m->cols, m->ncols, str_or_empty(c->target)), c);
  }
}

void cs_matrix_overview(cs_matrix *m, const cs_report *r, cs_arena *a) {
  memset(m, 0, sizeof *m);
  size_t total = 0;
  for (size_t k = 0; k < r->nimpls; k++)
    total += r->impls[k].ncells;
  m->rows = CS_ARENA_NEW(a, cs_matrix_row, total + 1);
  for (int pass = 0; pass < 2; pass++)
    for (size_t k = 0; k < r->nimpls; k++)
      add_rows(m, &r->impls[k], pass == 0);

  m->ncols = r->nimpls;
  m->cols = CS_ARENA_NEW(a, const char *, r->nimpls + 1);
  for (size_t k = 0; k < r->nimpls; k++)
    m->cols[k] = str_or_empty(r->impls[k].name);

  alloc_grid(m, a, false);
  for (size_t k = 0; k < r->nimpls; k++)
    for (size_t i = 0; i < r->impls[k].ncells; i++)
      merge(m, row_of(m, &r->impls[k].cells[i]), k, &r->impls[k].cells[i]);
}
