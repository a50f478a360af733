/* core/strset.c: open-addressing string set with linear probing. */
#include "core/strset.h"

#include <stdio.h>
#include <stdlib.h>

void cs_strset_init(cs_strset *s, uint32_t max_items, cs_arena *a) {
  if (max_items > (1u << 29)) {
    /* Past this the doubling below would overflow 32 bits and never end. */
    fputs("callsign: internal error: string set bound too large\n", stderr);
    abort();
  }
  uint32_t cap = 8;
  while (cap < max_items * 2u + 2u)
    cap *= 2;
  s->slot = CS_ARENA_NEW(a, cs_str, cap);
  s->mask = cap - 1;
  s->count = 0;
  s->limit = max_items;
}

bool cs_strset_has(const cs_strset *s, cs_str key) {
  uint32_t i = (uint32_t)cs_str_hash(key) & s->mask;
  while (s->slot[i].ptr) {
    if (cs_str_eq(s->slot[i], key))
      return true;
    i = (i + 1) & s->mask;
  }
  return false;
}

bool cs_strset_add(cs_strset *s, cs_str key) {
  if (!key.ptr)
    return true; /* null is never "used": it is not an ID */
  uint32_t i = (uint32_t)cs_str_hash(key) & s->mask;
  while (s->slot[i].ptr) {
    if (cs_str_eq(s->slot[i], key))
      return false;
    i = (i + 1) & s->mask;
  }
  if (s->count >= s->limit) {
    fputs("callsign: internal error: string set over its bound\n", stderr);
    abort();
  }
  s->slot[i] = key;
  s->count++;
  return true;
}
