/* tests/unit/run_cells.h: the lookup the runner tests share: the cell of a run result for one
 * property and target, or a failed assertion when the run has no such cell. */
#ifndef CALLSIGN_TESTS_RUN_CELLS_H
#define CALLSIGN_TESTS_RUN_CELLS_H

#include <criterion/criterion.h>
#include <string.h>

#include "harness/runner.h"

static inline const cs_outcome *cell_of(const cs_run_result *r, const char *prop, int target) {
  for (size_t i = 0; i < r->ncells; i++)
    if (!strcmp(r->cells[i].prop->name, prop) && r->cells[i].target == target)
      return &r->cells[i];
  cr_assert_fail("no cell %s/%d", prop, target);
  return NULL;
}

#endif
