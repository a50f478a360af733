/* core/strset.c: the out-of-line parts of the string set (core/strset.h). */
#include "core/strset.h"

#include <stdio.h>
#include <stdlib.h>

void cs_strset_fail(const char *what) {
  fprintf(stderr, "callsign: internal error: %s\n", what);
  abort();
}

bool cs_strset_has(const cs_strset *s, cs_str key) {
  if (s->fp) {
    if (!key.ptr)
      return false;
    uint64_t f = cs_str_fingerprint(key);
    for (uint32_t i = 0; i < s->count; i++)
      if (s->fp[i] == f && cs_str_eq(s->slot[i], key))
        return true;
    return false;
  }
  uint32_t i = (uint32_t)cs_str_hash(key) & s->mask;
  while (s->slot[i].ptr) {
    if (cs_str_eq(s->slot[i], key))
      return true;
    i = (i + 1) & s->mask;
  }
  return false;
}
