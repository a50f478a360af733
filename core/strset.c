/* core/strset.c: the out-of-line parts of the string set (core/strset.h). */
#include "core/strset.h"

#include <stdio.h>
#include <stdlib.h>

void cs_strset_fail(const char *what) {
  fprintf(stderr, "callsign: internal error: %s\n", what);
  abort();
}

bool cs_strset_has(const cs_strset *s, cs_str key) {
  uint32_t at;
  uint64_t f;
  return key.ptr && cs_strset_find(s, key, &at, &f);
}
