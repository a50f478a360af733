/* tests/unit/test_choices.c: the choice sequence: recording, replay, fuzzer bytes, draw budget and
 * the replay token. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "generators/choices.h"
#include "generators/history_gen.h"

static void record_some(cs_choices *c, uint64_t seed, uint64_t *out, size_t n) {
  cs_choices_record(c, seed);
  for (size_t i = 0; i < n; i++)
    out[i] = cs_draw(c, 1000 + i);
}

Test(choices, same_seed_same_values) {
  cs_choices a = {0}, b = {0};
  uint64_t va[64], vb[64];
  record_some(&a, 42, va, 64);
  record_some(&b, 42, vb, 64);
  cr_assert_eq(memcmp(va, vb, sizeof va), 0);
  cr_assert_eq(a.n, 64);
  cr_assert_eq(memcmp(a.v, va, sizeof va), 0, "recorded values are the drawn values");
  record_some(&b, 43, vb, 64);
  cr_assert_neq(memcmp(va, vb, sizeof va), 0, "another seed gives other values");
  /* Recording again from the same seed reuses the buffer and starts over. */
  record_some(&a, 42, vb, 64);
  cr_assert_eq(a.n, 64);
  cr_assert_eq(memcmp(va, vb, sizeof va), 0);
  cs_choices_free(&a);
  cs_choices_free(&b);
}

Test(choices, seed_zero_works) {
  cs_choices c = {0};
  cs_choices_record(&c, 0);
  uint64_t x = 0;
  for (int i = 0; i < 8; i++)
    x |= cs_draw(&c, UINT64_MAX);
  cr_assert_neq(x, 0, "seed 0 still gives a live generator");
  cs_choices_free(&c);
}

Test(choices, values_in_range_and_roughly_uniform) {
  cs_choices c = {0};
  cs_choices_record(&c, 7);
  unsigned hist[6] = {0};
  for (int i = 0; i < 60000; i++) {
    uint64_t v = cs_draw(&c, 6);
    cr_assert_lt(v, 6);
    hist[v]++;
  }
  for (int k = 0; k < 6; k++)
    cr_assert(hist[k] > 9000 && hist[k] < 11000, "bucket %d has %u", k, hist[k]);
  cs_choices_free(&c);
}

Test(choices, bound_zero_and_one_give_zero_and_record) {
  cs_choices c = {0};
  cs_choices_record(&c, 1);
  cr_assert_eq(cs_draw(&c, 0), 0);
  cr_assert_eq(cs_draw(&c, 1), 0);
  cr_assert_eq(c.n, 2);
  uint64_t v[2] = {5, 9};
  cs_choices_replay(&c, v, 2);
  cr_assert_eq(cs_draw(&c, 1), 0);
  cr_assert_eq(cs_draw(&c, 0), 0);
  cr_assert_eq(c.pos, 2, "replay consumes a value even for bound 0/1");
  cs_choices_free(&c);
}

Test(choices, replay_reduces_modulo_and_exhausts) {
  cs_choices c = {0};
  uint64_t v[3] = {17, 3, UINT64_MAX};
  cs_choices_replay(&c, v, 3);
  cr_assert_eq(cs_draw(&c, 5), 2);
  cr_assert_eq(cs_draw(&c, 5), 3);
  cr_assert_eq(cs_draw(&c, 10), UINT64_MAX % 10);
  cr_assert_not(c.exhausted);
  cr_assert_eq(cs_draw(&c, 10), 0);
  cr_assert(c.exhausted);
  cs_choices_free(&c);
}

Test(choices, replay_of_record_gives_same_values) {
  cs_choices c = {0}, r = {0};
  cs_choices_record(&c, 99);
  uint64_t got[100];
  unsigned w[4] = {1, 5, 0, 3};
  for (int i = 0; i < 100; i++)
    got[i] = i % 3 == 0 ? cs_draw(&c, 77) : i % 3 == 1 ? cs_draw_bool(&c, 1, 3) : cs_draw_weighted(&c, w, 4);
  cs_choices_replay(&r, c.v, c.n);
  for (int i = 0; i < 100; i++) {
    uint64_t x = i % 3 == 0 ? cs_draw(&r, 77) : i % 3 == 1 ? cs_draw_bool(&r, 1, 3) : cs_draw_weighted(&r, w, 4);
    cr_assert_eq(x, got[i], "draw %d", i);
  }
  cr_assert_not(r.exhausted);
  cs_choices_free(&c);
  cs_choices_free(&r);
}

Test(choices, bool_and_weighted_semantics) {
  cs_choices c = {0};
  cs_choices_record(&c, 5);
  unsigned yes = 0;
  for (int i = 0; i < 30000; i++)
    yes += cs_draw_bool(&c, 1, 3);
  cr_assert(yes > 9000 && yes < 11000, "1/3 true gave %u of 30000", yes);
  for (size_t i = 0; i < c.n; i++)
    cr_assert_leq(c.v[i], 1, "bools are recorded as 0/1");

  unsigned w[3] = {0, 1, 0};
  cs_choices_record(&c, 5);
  for (int i = 0; i < 100; i++)
    cr_assert_eq(cs_draw_weighted(&c, w, 3), 1, "only index 1 has weight");

  uint64_t v[3] = {0, 7, 5};
  cs_choices_replay(&c, v, 3);
  cr_assert_eq(cs_draw_bool(&c, 1, 100), false);
  cr_assert_eq(cs_draw_bool(&c, 1, 100), true, "replay: any non-zero value is true");
  cr_assert_eq(cs_draw_weighted(&c, w, 3), 2, "replay: index modulo n");
  cs_choices_free(&c);
}

Test(choices, max_draws_bounds_generation) {
  cs_choices c = {0};
  c.max_draws = 10;
  cs_choices_record(&c, 3);
  for (int i = 0; i < 10; i++)
    (void)cs_draw(&c, 1000);
  for (int i = 0; i < 100; i++) {
    cr_assert_eq(cs_draw(&c, 1000), 0);
    cr_assert_eq(cs_draw_bool(&c, 1, 1), false);
  }
  cr_assert_eq(c.n, 10, "nothing recorded past the budget");
  uint64_t v[20];
  for (int i = 0; i < 20; i++)
    v[i] = 999;
  cs_choices_replay(&c, v, 20);
  for (int i = 0; i < 10; i++)
    cr_assert_eq(cs_draw(&c, 1000), 999);
  cr_assert_eq(cs_draw(&c, 1000), 0, "replay past the budget is 0 too");
  cs_choices_free(&c);

  cs_choices d = {0};
  cs_choices_record(&d, 3);
  for (int i = 0; i < (1 << 20) + 5; i++)
    (void)cs_draw(&d, 2);
  cr_assert_eq(d.n, (size_t)1 << 20, "default budget is 1 << 20");
  cs_choices_free(&d);
}

Test(choices, replay_bytes_reads_varints) {
  cs_choices c = {0};
  /* 5; 300 (0xAC 0x02); 0; then a trailing incomplete varint 0x81 (taken as 1). */
  const uint8_t bytes[] = {0x05, 0xAC, 0x02, 0x00, 0x81};
  cs_choices_replay_bytes(&c, bytes, sizeof bytes);
  cr_assert_eq(c.n, 4);
  cr_assert_eq(c.v[0], 5);
  cr_assert_eq(c.v[1], 300);
  cr_assert_eq(c.v[2], 0);
  cr_assert_eq(c.v[3], 1);
  cr_assert_eq(cs_draw(&c, 1000), 5);
  cr_assert_eq(cs_draw(&c, 1000), 300);

  /* Twelve continuation bytes: the first ten make one value, the rest another. */
  uint8_t run[12];
  memset(run, 0xFF, sizeof run);
  cs_choices_replay_bytes(&c, run, sizeof run);
  cr_assert_eq(c.n, 2);
  cr_assert_eq(c.v[0], UINT64_MAX);
  cr_assert_eq(c.v[1], 0x3FFF);

  cs_choices_replay_bytes(&c, NULL, 0);
  cr_assert_eq(c.n, 0);
  cr_assert_eq(cs_draw(&c, 9), 0);
  cr_assert(c.exhausted);
  cs_choices_free(&c);
}

Test(choices, token_round_trip) {
  uint64_t v[] = {0, 1, 127, 128, 300, 16383, 16384, UINT32_MAX, (uint64_t)1 << 63, UINT64_MAX};
  size_t nv = sizeof v / sizeof v[0];
  for (size_t n = 0; n <= nv; n++) {
    cs_buf b = {0};
    cs_choices_token(v, n, &b);
    cr_assert(strncmp(b.data, "cs2.", 4) == 0);
    cr_assert(b.len >= 9 && b.data[b.len - 5] == '.', "%s: no check", b.data);
    for (size_t i = 4; i < b.len; i++)
      cr_assert(i == b.len - 5 ||
                strchr("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_", b.data[i]) != NULL);
    uint64_t *out = NULL;
    size_t m = 99;
    cs_err err = {{0}};
    cr_assert_eq(cs_choices_parse_token(b.data, &out, &m, &err), 0, "%s: %s", b.data, err.msg);
    cr_assert_eq(m, n);
    if (n)
      cr_assert_eq(memcmp(out, v, n * sizeof *v), 0);
    free(out);
    cs_buf_free(&b);
  }
}

Test(choices, token_of_recorded_sequence) {
  cs_choices c = {0};
  cs_choices_record(&c, 11);
  for (int i = 0; i < 500; i++)
    (void)cs_draw(&c, (uint64_t)1 << (i % 64));
  cs_buf b = {0};
  cs_choices_token(c.v, c.n, &b);
  uint64_t *out = NULL;
  size_t m = 0;
  cs_err err = {{0}};
  cr_assert_eq(cs_choices_parse_token(b.data, &out, &m, &err), 0, "%s", err.msg);
  cr_assert_eq(m, c.n);
  cr_assert_eq(memcmp(out, c.v, m * sizeof *out), 0);
  free(out);
  cs_buf_free(&b);
  cs_choices_free(&c);
}

static void expect_bad(const char *token, const char *needle) {
  uint64_t *out = (uint64_t *)1;
  size_t n = 5;
  cs_err err = {{0}};
  cr_assert_eq(cs_choices_parse_token(token, &out, &n, &err), -1, "%s should be rejected", token ? token : "NULL");
  cr_assert_null(out);
  cr_assert_eq(n, 0);
  cr_assert(strstr(err.msg, needle) != NULL, "message for %s: %s", token ? token : "NULL", err.msg);
  cr_assert(strchr(err.msg, '\n') == NULL);
}

Test(choices, malformed_tokens_rejected) {
  expect_bad(NULL, "must start with \"cs2.\" (or \"cs1.\")");
  expect_bad("", "cs2.");
  expect_bad("cs3.AAAA", "cs2.");
  expect_bad("CS1.AAAA", "cs2.");
  expect_bad("cs1.AA.AAAA", "invalid character '.'"); /* cs1 tokens have no check */
  expect_bad("cs2.AAE", "cut short: it does not end in '.'");
  expect_bad("cs2.AAE.AB", "has 2 characters, not 4: it was cut short");
  expect_bad("cs2.AAE.ABCDE", "has 5 characters, not 4: something follows the token");
  expect_bad("cs1.AA=A", "invalid character '='");
  expect_bad("cs1.AA A", "invalid character");
  expect_bad("cs1.AB\xC3\xA9", "invalid byte");
  expect_bad("cs1.A", "truncated base64url");
  expect_bad("cs1.gA", "truncated varint");              /* 0x80: continuation with nothing after */
  expect_bad("cs1.BYA", "truncated varint");             /* 0x05 0x80 */
  expect_bad("cs1.________________", "longer than 10");  /* twelve 0xFF bytes */
  expect_bad("cs1.____________Ag", "overflows 64 bits"); /* nine 0xFF, then 0x02: bit 64 */
}

/* A token cut short or altered in a copy is refused, not replayed as another case: every cut of a
 * token, and every change of one character, fails its check (or its spelling). Its "cs1." form
 * (no check) is the same sequence. */
Test(choices, cut_or_altered_tokens_fail_their_check) {
  uint64_t v[] = {0, 3, 1, 200, 7, 0, 0, 65, 1, 1, 9};
  size_t nv = sizeof v / sizeof *v;
  cs_buf b = {0}, v1 = {0};
  cs_choices_token(v, nv, &b);
  for (size_t cut = 1; cut < b.len; cut++) {
    char *t = strndup(b.data, b.len - cut);
    uint64_t *out = NULL;
    size_t n = 0;
    cs_err err = {{0}};
    cr_assert_eq(cs_choices_parse_token(t, &out, &n, &err), -1, "%s (cut by %zu) was taken", t, cut);
    free(t);
  }
  for (size_t i = 4; i < b.len; i++) {
    if (b.data[i] == '.')
      continue;
    char *t = strdup(b.data);
    t[i] = t[i] == 'A' ? 'B' : 'A';
    uint64_t *out = NULL;
    size_t n = 0;
    cs_err err = {{0}};
    cr_assert_eq(cs_choices_parse_token(t, &out, &n, &err), -1, "%s (character %zu changed) was taken", t, i);
    free(t);
  }
  cs_choices_token_v1(v, nv, &v1);
  cr_assert(strncmp(v1.data, "cs1.", 4) == 0 && !strchr(v1.data + 4, '.'), "%s", v1.data);
  cr_assert_eq(strncmp(v1.data + 4, b.data + 4, v1.len - 4), 0, "the two forms hold the same choices");
  uint64_t *out = NULL;
  size_t n = 0;
  cs_err err = {{0}};
  cr_assert_eq(cs_choices_parse_token(v1.data, &out, &n, &err), 0, "%s", err.msg);
  cr_assert_eq(n, nv);
  cr_assert_eq(memcmp(out, v, sizeof v), 0);
  free(out);
  cs_buf_free(&b);
  cs_buf_free(&v1);
}

/* A token is the one spelling of its sequence: cs1.AB and cs1.AP decoded as cs1.AA (bits past the
 * last byte were dropped), and cs1.gAA as 0 (a varint with a redundant zero byte), so an altered
 * character replayed the same case unnoticed. */
Test(choices, non_canonical_tokens_rejected) {
  const char *endings[] = {"cs1.AB", "cs1.AP", "cs1.AAB", "cs1.AAD", "cs1.BYB"};
  for (size_t i = 0; i < sizeof endings / sizeof *endings; i++)
    expect_bad(endings[i], "not a canonical base64url ending");
  expect_bad("cs1.gAA", "redundant zero byte");            /* 0x80 0x00: 0 in two bytes */
  expect_bad("cs1.BYAA", "redundant zero byte");           /* 0x05 0x80 0x00 */
  expect_bad("cs1.____________AA", "redundant zero byte"); /* nine 0xFF, then 0x00 */
  /* the canonical spellings of the same bytes' neighbours still parse */
  const char *good[] = {"cs1.", "cs1.AA", "cs1.AAA", "cs1.BYAB", "cs1.AAAA"};
  for (size_t i = 0; i < sizeof good / sizeof *good; i++) {
    uint64_t *out = NULL;
    size_t n = 0;
    cs_err err = {{0}};
    cr_assert_eq(cs_choices_parse_token(good[i], &out, &n, &err), 0, "%s: %s", good[i], err.msg);
    free(out);
  }
}

Test(choices, ten_byte_varint_at_the_limit_accepted) {
  uint64_t *out = NULL;
  size_t n = 0;
  cs_err err = {{0}};
  cr_assert_eq(cs_choices_parse_token("cs1.____________AQ", &out, &n, &err), 0, "%s", err.msg); /* nine 0xFF, 0x01 */
  cr_assert_eq(n, 1);
  cr_assert_eq(out[0], UINT64_MAX);
  free(out);
}

Test(choices, seed_mix_spreads) {
  cr_assert_neq(cs_seed_mix(0), cs_seed_mix(1));
  cr_assert_neq(cs_seed_mix(1), 1);
  cr_assert_eq(cs_seed_mix(12345), cs_seed_mix(12345));
}

/* Spans mark units of draws for the shrinker; record and replay start with none. */
Test(choices, spans_are_marked_and_reset) {
  cs_choices c = {0};
  cs_choices_record(&c, 5);
  size_t count_at = cs_choices_at(&c);
  cr_assert_eq(count_at, 0);
  (void)cs_draw(&c, 4);
  size_t s = cs_choices_at(&c);
  (void)cs_draw(&c, 10);
  (void)cs_draw(&c, 10);
  cs_choices_span(&c, s, count_at);
  cs_choices_span(&c, cs_choices_at(&c), CS_SPAN_NO_COUNT); /* empty: not marked */
  cr_assert_eq(c.nspans, 1);
  cr_assert_eq(c.spans[0].start, 1);
  cr_assert_eq(c.spans[0].end, 3);
  cr_assert_eq(c.spans[0].count_at, 0);
  uint64_t v[3] = {1, 2, 3};
  cs_choices_replay(&c, v, 3);
  cr_assert_eq(c.nspans, 0);
  (void)cs_draw(&c, 10);
  cr_assert_eq(cs_choices_at(&c), 1);
  cs_choices_record(&c, 1);
  cr_assert_eq(c.nspans, 0);
  cs_choices_free(&c);
}

/* The history generator marks its rounds (counted by the first draw), calls, IDs, and the tool
 * turns that its own draw counts (a stray tool turn, the compression cut). */
Test(choices, generator_marks_rounds_calls_and_ids) {
  cs_choices c = {0};
  cs_arena a = {0};
  cs_gen_config gc = {0};
  unsigned rounds_seen = 0, calls_seen = 0, ids_seen = 0, tool_units_seen = 0;
  for (uint64_t seed = 1; seed <= 50; seed++) {
    cs_choices_record(&c, seed);
    cs_gen_case g;
    cs_gen_history(&c, &gc, &a, &g);
    uint32_t ncalls = 0;
    for (uint32_t t = 0; t < g.h.nturns; t++)
      ncalls += g.h.turns[t].role == CS_ROLE_ASSISTANT ? g.h.turns[t].ncalls : 0;
    uint32_t tool_turns = 0;
    for (uint32_t t = 0; t < g.h.nturns; t++)
      tool_turns += g.h.turns[t].role == CS_ROLE_TOOL;
    unsigned rounds = 0, calls = 0, ids = 0, tool_units = 0, cut_units = 0;
    for (size_t i = 0; i < c.nspans; i++) {
      const cs_choice_span *sp = &c.spans[i];
      cr_assert_lt(sp->start, sp->end);
      cr_assert_leq(sp->end, c.n);
      if (sp->count_at == 0) {
        rounds++;
      } else if (sp->count_at == CS_SPAN_NO_COUNT) {
        ids++;
      } else if (sp->count_at == 1 || sp->start == sp->count_at + 1) { /* the cut draw; a stray turn's */
        cr_assert_eq(c.v[sp->count_at], 1, "seed %llu: a tool-turn unit whose draw is not set",
                     (unsigned long long)seed);
        tool_units++;
        cut_units += sp->count_at == 1;
      } else {
        calls++;
      }
    }
    /* a compression cut adds an assistant turn of its own, outside the drawn rounds */
    bool cut = (g.labels & CS_LABEL_BIT(CS_LABEL_S_COMPRESSION_CUT)) != 0;
    /* a join twin's round is a unit of its own too, marked by its draw */
    unsigned join = (g.labels & CS_LABEL_BIT(CS_LABEL_TWIN_JOIN)) != 0;
    cr_assert(cut ? rounds <= g.rounds - join : rounds == g.rounds - join, "seed %llu", (unsigned long long)seed);
    cr_assert(cut ? calls <= ncalls - join : calls == ncalls - join, "seed %llu", (unsigned long long)seed);
    cr_assert_eq(cut_units, cut ? 1u : 0u, "seed %llu", (unsigned long long)seed);
    cr_assert_leq(tool_units, tool_turns, "seed %llu", (unsigned long long)seed);
    tool_units_seen += tool_units;
    rounds_seen += rounds;
    calls_seen += calls;
    ids_seen += ids;
    cs_arena_reset(&a);
  }
  cr_assert_gt(ids_seen, 0);
  cr_assert_gt(tool_units_seen, 0);
  cr_assert_geq(calls_seen, rounds_seen);
  cs_choices_free(&c);
  cs_arena_free(&a);
}
