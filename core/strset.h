/* core/strset.h: a set of byte strings in an arena (open addressing), for "already used" checks
 * in per-request uniqueness. Sized once for the expected count; it never reallocates beyond that
 * count, so callers pass an upper bound. */
#ifndef CS_CORE_STRSET_H
#define CS_CORE_STRSET_H

#include <stdbool.h>
#include <stdint.h>

#include "core/arena.h"
#include "core/str.h"

typedef struct {
  cs_str *slot;
  uint32_t mask, count, limit;
} cs_strset;

/* Room for at most `max_items` insertions. */
void cs_strset_init(cs_strset *s, uint32_t max_items, cs_arena *a);
bool cs_strset_has(const cs_strset *s, cs_str key);
/* Inserts (the bytes are not copied: keep them alive); returns false if it was already there.
 * Inserting past the bound given at init aborts: that is a programming error. */
bool cs_strset_add(cs_strset *s, cs_str key);

#endif
