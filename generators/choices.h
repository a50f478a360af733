/* generators/choices.h: the choice sequence. Every random decision of every generator goes through
 * cs_draw. Recording: values come from a seeded PRNG (xoshiro256**) and are appended. Replaying:
 * values are read back (reduced modulo the bound; 0 once exhausted), so a case is reproducible from
 * its seed or from its recorded values, shrinking works on the values, and fuzzer bytes can drive
 * the same generators. Contract for generators: 0 is always the simplest choice. */
#ifndef CS_GENERATORS_CHOICES_H
#define CS_GENERATORS_CHOICES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/buf.h"
#include "core/error.h"

/* A run of draws that made one unit of the history (a round, a call, an ID), so the shrinker can
 * delete or simplify whole units. `count_at` is the draw that chose how many units its list has
 * (CS_SPAN_NO_COUNT: not in a list). */
typedef struct {
  size_t start, end, count_at;
} cs_choice_span;
#define CS_SPAN_NO_COUNT ((size_t)-1)

typedef struct {
  uint64_t *v; /* recorded or replayed values (heap; owned) */
  size_t n, cap;
  size_t pos;            /* replay cursor */
  bool replay;           /* false: record from the PRNG */
  bool exhausted;        /* replay read past the end at least once */
  uint64_t s[4];         /* PRNG state */
  size_t max_draws;      /* 0: 1 << 20; past it every draw is 0 (bounds generation) */
  cs_choice_span *spans; /* marked by the generators; emptied by record and replay (heap; owned) */
  size_t nspans, capspans;
} cs_choices;

/* Starts recording from `seed` (any value; 0 is fine). Keeps the buffer for reuse. */
void cs_choices_record(cs_choices *c, uint64_t seed);
/* Starts replaying a copy of `v[0..n)`. */
void cs_choices_replay(cs_choices *c, const uint64_t *v, size_t n);
/* Starts replaying bytes (fuzzer input): each value is read as a little-endian varint. */
void cs_choices_replay_bytes(cs_choices *c, const uint8_t *data, size_t size);
void cs_choices_free(cs_choices *c);

/* The draws below are inline: a case makes about ninety of them. */
#define CS_CHOICES_MAX_DRAWS ((size_t)1 << 20) /* the default of max_draws */
/* Grows the value buffer to hold `need` values (out of line; ends the process when memory runs out, cs_out_of_memory).
 */
void cs_choices_grow(cs_choices *c, size_t need);

/* xoshiro256** */
static inline uint64_t cs_choices_rotl(uint64_t x, int k) {
  return (x << k) | (x >> (64 - k));
}

static inline uint64_t cs_choices_prng(uint64_t s[4]) {
  uint64_t result = cs_choices_rotl(s[1] * 5, 7) * 9;
  uint64_t t = s[1] << 17;
  s[2] ^= s[0];
  s[3] ^= s[1];
  s[1] ^= s[2];
  s[0] ^= s[3];
  s[2] ^= t;
  s[3] = cs_choices_rotl(s[3], 45);
  return result;
}

/* Unbiased value in [0, bound) for bound >= 2 (Lemire's multiply-and-reject). */
static inline uint64_t cs_choices_uniform(uint64_t s[4], uint64_t bound) {
#if defined(__SIZEOF_INT128__)
  __extension__ typedef unsigned __int128 u128;
  u128 m = (u128)cs_choices_prng(s) * bound;
  uint64_t lo = (uint64_t)m;
  if (lo < bound) {
    uint64_t threshold = -bound % bound;
    while (lo < threshold) {
      m = (u128)cs_choices_prng(s) * bound;
      lo = (uint64_t)m;
    }
  }
  return (uint64_t)(m >> 64);
#else
  uint64_t threshold = -bound % bound;
  for (;;) {
    uint64_t x = cs_choices_prng(s);
    if (x >= threshold)
      return x % bound;
  }
#endif
}

static inline bool cs_choices_over_budget(const cs_choices *c) {
  size_t max = c->max_draws ? c->max_draws : CS_CHOICES_MAX_DRAWS;
  return (c->replay ? c->pos : c->n) >= max;
}

/* Replay: the next stored value, or 0 (and `exhausted`) past the end. */
static inline uint64_t cs_choices_replay_next(cs_choices *c) {
  if (c->pos < c->n)
    return c->v[c->pos++];
  c->exhausted = true;
  return 0;
}

static inline void cs_choices_push(cs_choices *c, uint64_t v) {
  if (c->n == c->cap)
    cs_choices_grow(c, c->n + 1);
  c->v[c->n++] = v;
}

/* A value in [0, bound); bound 0 or 1 gives 0 (and still records it). */
static inline uint64_t cs_draw(cs_choices *c, uint64_t bound) {
  if (cs_choices_over_budget(c))
    return 0;
  if (c->replay) {
    uint64_t v = cs_choices_replay_next(c);
    return bound > 1 ? v % bound : 0;
  }
  uint64_t v = bound > 1 ? cs_choices_uniform(c->s, bound) : 0;
  cs_choices_push(c, v);
  return v;
}

/* True with probability num/den in record mode; in replay, value != 0. */
static inline bool cs_draw_bool(cs_choices *c, unsigned num, unsigned den) {
  if (cs_choices_over_budget(c))
    return false;
  if (c->replay)
    return cs_choices_replay_next(c) != 0;
  bool b = den > 1 ? cs_choices_uniform(c->s, den) < num : num >= den && num > 0;
  cs_choices_push(c, b ? 1 : 0);
  return b;
}

/* Picks index i with weight w[i] (record mode); value 0 is index 0, the simplest. */
static inline size_t cs_draw_weighted(cs_choices *c, const unsigned *w, size_t n) {
  if (cs_choices_over_budget(c))
    return 0;
  if (c->replay) {
    uint64_t v = cs_choices_replay_next(c);
    return n > 1 ? (size_t)(v % n) : 0;
  }
  size_t idx = 0;
  if (n > 1) {
    uint64_t total = 0;
    for (size_t i = 0; i < n; i++)
      total += w[i];
    if (total > 0) {
      uint64_t u = total > 1 ? cs_choices_uniform(c->s, total) : 0;
      while (idx + 1 < n && u >= w[idx])
        u -= w[idx++];
    }
  }
  cs_choices_push(c, idx);
  return idx;
}

/* The index of the next draw. */
static inline size_t cs_choices_at(const cs_choices *c) {
  return c->replay ? c->pos : c->n;
}

/* Marks the draws from `start` to here as one unit (see cs_choice_span). */
void cs_choices_span(cs_choices *c, size_t start, size_t count_at);

/* Replay token: "cs2." + base64url of the varint-encoded values + "." + base64url of a 24-bit
 * check of them, so that a token cut short or altered in a copy is refused rather than replayed as
 * another case. */
void cs_choices_token(const uint64_t *v, size_t n, cs_buf *out);
/* The "cs1." form (no check), as tokens were written before the check: what corpus file names are
 * derived from, so that a case found again keeps the file it was saved in. */
void cs_choices_token_v1(const uint64_t *v, size_t n, cs_buf *out);
/* Does `s` start as a replay token does ("cs2." or "cs1.")? (A command argument that does not is a file.) */
bool cs_choices_is_token(const char *s);
/* Parses a token ("cs2.", or "cs1." without a check) into a heap array (*v, free with free()). -1
 * with `err` if malformed, if its check fails, or if not the one spelling cs_choices_token gives
 * (unused bits set in the last character, a redundant varint byte). */
int cs_choices_parse_token(const char *token, uint64_t **v, size_t *n, cs_err *err);

/* splitmix64: derives independent per-case seeds from a run seed. */
uint64_t cs_seed_mix(uint64_t x);

#endif
