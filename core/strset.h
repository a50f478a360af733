/* core/strset.h: a set of byte strings in an arena, for "already used" checks in per-request
 * uniqueness. Sized once for the expected count; it never reallocates beyond that count, so
 * callers pass an upper bound. Nearly every set holds a request's calls, a handful of IDs: up to
 * CS_STRSET_SMALL items the keys sit in a list with a fingerprint each (nothing to clear, no hash
 * over the whole key, a scan of a few words); larger sets use open addressing. Add and init are
 * inline: a case makes about a hundred insertions. */
#ifndef CS_CORE_STRSET_H
#define CS_CORE_STRSET_H

#include <stdbool.h>
#include <stdint.h>

#include "core/arena.h"
#include "core/str.h"

#define CS_STRSET_SMALL 16

/* A case makes about a hundred insertions from a handful of call sites: a call each costs more
 * than the scan of a small set, so add and find are inlined even where the compiler would not. */
#if defined(__GNUC__)
#define CS_STRSET_INLINE static inline __attribute__((always_inline))
#else
#define CS_STRSET_INLINE static inline
#endif

typedef struct {
  cs_str *slot;  /* small: the keys in insertion order; otherwise open-addressing slots */
  uint64_t *fp;  /* small: each key's fingerprint; NULL otherwise */
  uint32_t mask; /* otherwise: slots - 1 */
  uint32_t count, limit;
} cs_strset;

/* Aborts with a message: a bound too large at init, or an insertion past it (programming errors). */
void cs_strset_fail(const char *what);

/* Room for at most `max_items` insertions. */
static inline void cs_strset_init(cs_strset *s, uint32_t max_items, cs_arena *a) {
  if (max_items > (1u << 29))
    cs_strset_fail("string set bound too large"); /* the doubling below would overflow 32 bits */
  s->count = 0;
  s->limit = max_items;
  if (max_items <= CS_STRSET_SMALL) {
    s->slot = (cs_str *)cs_arena_alloc(a, ((size_t)max_items + 1) * sizeof(cs_str));
    s->fp = (uint64_t *)cs_arena_alloc(a, ((size_t)max_items + 1) * sizeof(uint64_t));
    s->mask = 0;
    return;
  }
  uint32_t cap = 8;
  while (cap < max_items * 2u + 2u)
    cap *= 2;
  /* Only the pointers mark empty slots. Scalar stores, not memset: the probes that follow read
   * these slots at once, and a load from a wide vector store still in flight stalls. */
  s->slot = (cs_str *)cs_arena_alloc(a, cap * sizeof(cs_str));
  for (uint32_t i = 0; i < cap; i++)
    s->slot[i].ptr = NULL;
  s->fp = NULL;
  s->mask = cap - 1;
}

/* Where `key` (not null) is: true when it is in the set, with *at its position; false with *at
 * where cs_strset_add puts it (small: the end of the list; hashed: the empty slot ending the probe).
 * In the small form *fp receives the key's fingerprint. Shared by add and has. */
CS_STRSET_INLINE bool cs_strset_find(const cs_strset *s, cs_str key, uint32_t *at, uint64_t *fp) {
  if (s->fp) {
    uint64_t f = cs_str_fingerprint(key);
    *fp = f;
    for (uint32_t i = 0; i < s->count; i++)
      if (s->fp[i] == f && cs_str_eq(s->slot[i], key)) {
        *at = i;
        return true;
      }
    *at = s->count;
    return false;
  }
  uint32_t i = (uint32_t)cs_str_hash(key) & s->mask;
  while (s->slot[i].ptr) {
    if (cs_str_eq(s->slot[i], key)) {
      *at = i;
      return true;
    }
    i = (i + 1) & s->mask;
  }
  *at = i;
  return false;
}

bool cs_strset_has(const cs_strset *s, cs_str key);

/* Inserts (the bytes are not copied: keep them alive); returns false if it was already there.
 * Inserting past the bound given at init aborts: that is a programming error. */
CS_STRSET_INLINE bool cs_strset_add(cs_strset *s, cs_str key) {
  if (!key.ptr)
    return true; /* null is never "used": it is not an ID */
  uint32_t at;
  uint64_t f = 0;
  if (cs_strset_find(s, key, &at, &f))
    return false;
  if (s->count >= s->limit)
    cs_strset_fail("string set over its bound");
  if (s->fp)
    s->fp[at] = f;
  s->slot[at] = key;
  s->count++;
  return true;
}

#endif
