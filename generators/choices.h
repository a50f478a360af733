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

/* A value in [0, bound); bound 0 or 1 gives 0 (and still records it). */
uint64_t cs_draw(cs_choices *c, uint64_t bound);
/* True with probability num/den in record mode; in replay, value != 0. */
bool cs_draw_bool(cs_choices *c, unsigned num, unsigned den);
/* Picks index i with weight w[i] (record mode); value 0 is index 0, the simplest. */
size_t cs_draw_weighted(cs_choices *c, const unsigned *w, size_t n);

/* The index of the next draw. */
size_t cs_choices_at(const cs_choices *c);
/* Marks the draws from `start` to here as one unit (see cs_choice_span). */
void cs_choices_span(cs_choices *c, size_t start, size_t count_at);

/* Replay token: "cs1." + base64url of the varint-encoded values. */
void cs_choices_token(const uint64_t *v, size_t n, cs_buf *out);
/* Parses a token into a heap array (*v, free with free()). -1 with `err` if malformed. */
int cs_choices_parse_token(const char *token, uint64_t **v, size_t *n, cs_err *err);

/* splitmix64: derives independent per-case seeds from a run seed. */
uint64_t cs_seed_mix(uint64_t x);

#endif
