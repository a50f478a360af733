/* reports/matrix.h: the layout of a compliance matrix, shared by the terminal, Markdown and HTML
 * writers: which properties are rows (required first, then recommended, each in report order),
 * which columns there are, and which verdict sits in each place. */
#ifndef CS_REPORTS_MATRIX_H
#define CS_REPORTS_MATRIX_H

#include <stdbool.h>
#include <stddef.h>

#include "core/arena.h"
#include "reports/result.h"

typedef struct {
  const char *name;
  bool required;
} cs_matrix_row;

typedef struct {
  cs_matrix_row *rows;
  size_t nrows;
  const char **cols; /* targets ("-" last), or implementation names for the overview */
  size_t ncols;
  int *verdict;         /* nrows * ncols, row-major; -1 where there is no cell */
  const cs_cell **cell; /* same shape: the cell shown (NULL: none; always NULL in the overview) */
} cs_matrix;

/* One implementation: columns are the report's targets that the implementation has cells for, in
 * table order, then any other target, then "-". Two cells in one place keep the worse verdict.
 * Memory comes from `a`. */
void cs_matrix_impl(cs_matrix *m, const cs_report *r, const cs_impl_result *impl, cs_arena *a);
/* All implementations: rows are the properties of every implementation, columns the
 * implementations; a place holds the worst verdict over the targets (FAIL if any target failed). */
void cs_matrix_overview(cs_matrix *m, const cs_report *r, cs_arena *a);

static inline int cs_matrix_at(const cs_matrix *m, size_t row, size_t col) {
  return m->verdict[row * m->ncols + col];
}

#endif
