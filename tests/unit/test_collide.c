/* tests/unit/test_collide.c: the collision search engine on toy functions with a known output
 * space: birthday and distinguished points find real collisions, with one and two workers; the
 * entropy estimate reads hex and base62 outputs right; budgets stop a hopeless search. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/utf8.h"
#include "harness/collide.h"
#include "reports/escape.h"

typedef struct {
  unsigned bits; /* output = the low `bits` bits of a mixed state, as hex */
  char buf[4096][20];
} toy;

static uint64_t toy_mix(uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ULL;
  return x ^ (x >> 33);
}

static int toy_eval(void *ev, const uint64_t *states, size_t n, cs_str *outs, bool *real, cs_err *err) {
  toy *t = ev;
  cr_assert(n <= 4096);
  for (size_t i = 0; i < n; i++) {
    uint64_t v = toy_mix(states[i]) & ((1ULL << t->bits) - 1);
    int len = snprintf(t->buf[i], sizeof t->buf[i], "id_%llx", (unsigned long long)v);
    outs[i] = (cs_str){t->buf[i], (size_t)len};
    real[i] = true;
  }
  return 0;
}

static void expect_collision(unsigned bits, unsigned workers, bool dp, int dp_bits) {
  static toy toys[2];
  void *evs[2] = {&toys[0], &toys[1]};
  toys[0].bits = toys[1].bits = bits;
  cs_collide_config cfg = {.eval = toy_eval,
                           .evaluators = evs,
                           .nworkers = workers,
                           .space_bits = bits,
                           .seed = 7,
                           .batch = 256,
                           .force_dp = dp,
                           .dp_bits = dp_bits,
                           .budget = 50000000};
  cs_collide_result r;
  cs_err err = {{0}};
  cr_assert_eq(cs_collide_search(&cfg, &r, &err), 0, "%s", err.msg);
  cr_assert(r.found, "no collision in %llu evaluations", (unsigned long long)r.evals);
  cr_assert_neq(r.a, r.b);
  uint64_t mask = (1ULL << bits) - 1;
  cr_assert_eq(toy_mix(r.a) & mask, toy_mix(r.b) & mask, "not a real collision");
  cr_assert_str_eq(r.mode, dp ? "distinguished points" : "birthday");
}

Test(collide, birthday_one_worker) {
  expect_collision(28, 1, false, 0);
}
Test(collide, birthday_two_workers) {
  expect_collision(28, 2, false, 0);
}
Test(collide, distinguished_points_one_worker) {
  expect_collision(32, 1, true, 6);
}
Test(collide, distinguished_points_two_workers) {
  expect_collision(32, 2, true, 6);
}

Test(collide, memory_bound_switches_to_distinguished_points) {
  static toy toys[1];
  void *evs[1] = {&toys[0]};
  toys[0].bits = 40; /* ~1.3M evaluations: more than a 64 KiB table holds */
  cs_collide_config cfg = {.eval = toy_eval,
                           .evaluators = evs,
                           .nworkers = 1,
                           .memory = 65536,
                           .seed = 3,
                           .batch = 1024,
                           .budget = 200000000};
  cs_collide_result r;
  cs_err err = {{0}};
  cr_assert_eq(cs_collide_search(&cfg, &r, &err), 0, "%s", err.msg);
  cr_assert(r.found);
  cr_assert_str_eq(r.mode, "distinguished points");
  cr_assert_eq(toy_mix(r.a) & ((1ULL << 40) - 1), toy_mix(r.b) & ((1ULL << 40) - 1));
  cr_assert_gt(r.table_peak, 0);
  cr_assert_leq(r.table_peak, 65536, "the table held %zu bytes at once under a 64 KiB bound", r.table_peak);
}

/* A birthday table that grows keeps within the bound while it grows: the old mapping and the new one
 * are held at once. */
Test(collide, a_growing_table_keeps_within_the_memory_bound) {
  static toy toys[1];
  void *evs[1] = {&toys[0]};
  toys[0].bits = 36; /* ~330k evaluations: the table grows from 2^16 entries to its bound, 2^17 */
  cs_collide_config cfg = {.eval = toy_eval,
                           .evaluators = evs,
                           .nworkers = 1,
                           .memory = 7000000,
                           .seed = 5,
                           .batch = 1024,
                           .budget = 50000000};
  cs_collide_result r;
  cs_err err = {{0}};
  cr_assert_eq(cs_collide_search(&cfg, &r, &err), 0, "%s", err.msg);
  cr_assert(r.found);
  /* Grown: 2^16 entries of 24 bytes and the 2^17 that replace them were held at once. */
  cr_assert_gt(r.table_peak, ((size_t)1 << 17) * 24, "the table never grew (%zu bytes)", r.table_peak);
  cr_assert_leq(r.table_peak, 7000000, "the table held %zu bytes at once under a 7000000-byte bound", r.table_peak);
}

/* A bound too small for the smallest table is an error, not a table past it. */
Test(collide, a_memory_bound_below_the_smallest_table_is_an_error) {
  static toy toys[1];
  void *evs[1] = {&toys[0]};
  toys[0].bits = 20;
  cs_collide_config cfg = {
      .eval = toy_eval, .evaluators = evs, .nworkers = 1, .memory = 1000, .seed = 1, .budget = 1000};
  cs_collide_result r;
  cs_err err = {{0}};
  cr_assert_eq(cs_collide_search(&cfg, &r, &err), -1);
  cr_assert(strstr(err.msg, "cannot hold a search table") != NULL, "%s", err.msg);
}

Test(collide, budget_stops_a_hopeless_search) {
  static toy toys[1];
  void *evs[1] = {&toys[0]};
  toys[0].bits = 63;
  cs_collide_config cfg = {
      .eval = toy_eval, .evaluators = evs, .nworkers = 1, .space_bits = 63, .seed = 1, .batch = 512, .budget = 10000};
  cs_collide_result r;
  cs_err err = {{0}};
  cr_assert_eq(cs_collide_search(&cfg, &r, &err), 0);
  cr_assert_not(r.found);
  cr_assert_eq(r.evals, 10000, "the budget is kept exactly when no candidate needs confirming (%llu)",
               (unsigned long long)r.evals);
}

static int failing_eval(void *ev, const uint64_t *states, size_t n, cs_str *outs, bool *real, cs_err *err) {
  return cs_err_set(err, "evaluator broke");
}

Test(collide, evaluator_error_is_returned) {
  void *evs[1] = {NULL};
  cs_collide_config cfg = {.eval = failing_eval, .evaluators = evs, .nworkers = 1, .seed = 1};
  cs_collide_result r;
  cs_err err = {{0}};
  cr_assert_eq(cs_collide_search(&cfg, &r, &err), -1);
  cr_assert_str_eq(err.msg, "evaluator broke");
}

Test(collide, entropy_of_hex_and_base62) {
  static char hex[2048][11], b62[2048][10];
  cs_str h[2048], b[2048];
  static const char digits[] = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
  for (int i = 0; i < 2048; i++) {
    uint64_t v = toy_mix((uint64_t)i + 1);
    snprintf(hex[i], sizeof hex[i], "%010llx", (unsigned long long)(v & 0xffffffffffULL));
    h[i] = (cs_str){hex[i], 10};
    for (int k = 0; k < 9; k++, v /= 62)
      b62[i][k] = digits[v % 62];
    b[i] = (cs_str){b62[i], 9};
  }
  double eh = cs_collide_entropy(h, 2048), eb = cs_collide_entropy(b, 2048);
  cr_assert(eh > 39.5 && eh < 40.5, "hex10: %f bits", eh);
  cr_assert(eb > 53 && eb < 54, "base62x9: %f bits", eb);
  cs_str same[3] = {{"abc", 3}, {"abc", 3}, {"abc", 3}};
  cr_assert_float_eq(cs_collide_entropy(same, 3), 0.0, 1e-9);
  /* The same 40 bits written out four times are still 40 bits. */
  static char rep[2048][41];
  cs_str r[2048];
  for (int i = 0; i < 2048; i++) {
    snprintf(rep[i], sizeof rep[i], "%s%s%s%s", hex[i], hex[i], hex[i], hex[i]);
    r[i] = (cs_str){rep[i], 40};
  }
  double er = cs_collide_entropy(r, 2048);
  cr_assert(er > 39.5 && er < 40.5, "hex10 four times: %f bits", er);
}

Test(collide, fingerprint_depends_on_every_byte) {
  cs_str a = {"abcdefghijk", 11}, b = {"abcdefghijl", 11}, c = {"abcdefghij", 10};
  cr_assert_neq(cs_collide_fingerprint(a), cs_collide_fingerprint(b));
  cr_assert_neq(cs_collide_fingerprint(a), cs_collide_fingerprint(c));
  cr_assert_eq(cs_collide_fingerprint(a), cs_collide_fingerprint((cs_str){"abcdefghijk", 11}));
}

/* An evaluator that could not get most outputs (null answers, faults) stands in a unique text for each
 * and says so: the birthday table keeps only the real ones, which alone can collide. */
typedef struct {
  toy t;
  char stand_in[4096][32];
} nulling_toy;

static int nulling_eval(void *ev, const uint64_t *states, size_t n, cs_str *outs, bool *real, cs_err *err) {
  nulling_toy *z = ev;
  toy_eval(&z->t, states, n, outs, real, err);
  for (size_t i = 0; i < n; i++)
    if (toy_mix(states[i] ^ 0x5555) % 10 != 0) { /* nine in ten */
      int len = snprintf(z->stand_in[i], sizeof z->stand_in[i], "\x01(null %llx)", (unsigned long long)states[i]);
      outs[i] = (cs_str){z->stand_in[i], (size_t)len};
      real[i] = false;
    }
  return 0;
}

Test(collide, stand_ins_for_null_outputs_are_not_stored) {
  static nulling_toy z;
  z.t.bits = 60;
  void *evs[1] = {&z};
  cs_collide_config cfg = {.eval = nulling_eval, /* the space unknown: a birthday table, 2^16 entries */
                           .evaluators = evs,
                           .nworkers = 1,
                           .seed = 1,
                           .batch = 512,
                           .budget = 100000};
  cs_collide_result r;
  cs_err err = {{0}};
  cr_assert_eq(cs_collide_search(&cfg, &r, &err), 0, "%s", err.msg);
  cr_assert_str_eq(r.mode, "birthday");
  cr_assert(r.unreal > 85000 && r.unreal < 95000, "%llu stand-ins of %llu", (unsigned long long)r.unreal,
            (unsigned long long)r.evals);
  cr_assert_eq(r.stored, r.evals - r.unreal, "%llu stored of %llu evaluations, %llu of them stand-ins",
               (unsigned long long)r.stored, (unsigned long long)r.evals, (unsigned long long)r.unreal);
}

/* A table the system cannot give is an error the caller can tell from an evaluator's failure, and
 * never an abort: calloc under AddressSanitizer aborted on a table this size. Here the space asks for
 * about 2^55 entries, more than any address space holds. */
Test(collide, a_table_that_cannot_be_allocated_is_an_error) {
  static toy toys[1];
  void *evs[1] = {&toys[0]};
  toys[0].bits = 63;
  cs_collide_config cfg = {.eval = toy_eval,
                           .evaluators = evs,
                           .nworkers = 1,
                           .memory = (size_t)1 << 62,
                           .space_bits = 120,
                           .seed = 1,
                           .batch = 512,
                           .budget = 1000};
  cs_collide_result r;
  cs_err err = {{0}};
  cr_assert_eq(cs_collide_search(&cfg, &r, &err), CS_COLLIDE_NO_MEMORY, "%s", err.msg);
  cr_assert(strstr(err.msg, "cannot allocate a search table") != NULL, "%s", err.msg);
  cr_assert(strchr(err.msg, '\n') == NULL);
}

/* A memory bound near SIZE_MAX: sizing the table must not wrap around (and loop for ever). */
Test(collide, memory_near_size_max_does_not_wrap) {
  static toy toys[1];
  void *evs[1] = {&toys[0]};
  toys[0].bits = 20;
  cs_collide_config cfg = {.eval = toy_eval,
                           .evaluators = evs,
                           .nworkers = 1,
                           .memory = SIZE_MAX,
                           .space_bits = 20,
                           .seed = 1,
                           .batch = 512,
                           .budget = 50000000};
  cs_collide_result r;
  cs_err err = {{0}};
  cr_assert_eq(cs_collide_search(&cfg, &r, &err), 0, "%s", err.msg);
  cr_assert(r.found);
}

/* --- shrinking a pair ----------------------------------------------------------------------------- */

typedef struct {
  unsigned tested, invalid;
} shrink_probe;

/* Collides when the two inputs differ and start with the same character (a normalizer that keeps
 * the first character): every candidate must be whole characters. */
static int same_first_char(void *user, cs_str a, cs_str b) {
  shrink_probe *p = user;
  p->tested++;
  if (!cs_utf8_valid(a.ptr, a.len, NULL) || !cs_utf8_valid(b.ptr, b.len, NULL))
    p->invalid++;
  if (a.len == b.len && !memcmp(a.ptr, b.ptr, a.len))
    return 0;
  uint32_t ca, cb;
  size_t ka = cs_esc_decode(a.ptr, a.len, &ca), kb = cs_esc_decode(b.ptr, b.len, &cb);
  return ka && kb && ca == cb;
}

Test(collide, shrinking_deletes_whole_characters) {
  char *a = strdup("\xe3\x83\x84\xe3\x83\xbc\xe3\x83\xab|abc"), *b = strdup("\xe3\x83\x84\xe3\x83\xbc\xe3\x83\xab|xyz");
  shrink_probe p = {0};
  cs_collide_shrink_config cfg = {.test = same_first_char, .user = &p, .budget = 4000};
  unsigned steps = 0;
  cr_assert_eq(cs_collide_shrink(&cfg, &a, &b, &steps), 0);
  cr_assert_gt(p.tested, 0);
  cr_assert_eq(p.invalid, 0, "%u of %u candidates were not valid UTF-8", p.invalid, p.tested);
  cr_assert(cs_utf8_valid(a, strlen(a), NULL) && cs_utf8_valid(b, strlen(b), NULL), "%s / %s", a, b);
  /* As small as whole characters allow: one input is the first character alone, the other one more. */
  size_t la = strlen(a), lb = strlen(b);
  cr_assert(!strncmp(a, "\xe3\x83\x84", 3) && !strncmp(b, "\xe3\x83\x84", 3), "%s / %s", a, b);
  cr_assert((la == 3 && lb == 4) || (la == 4 && lb == 3) || (la == 3 && lb == 6) || (la == 6 && lb == 3),
            "not shrunk to the first character and one more: %zu / %zu bytes", la, lb);
  cr_assert_gt(steps, 0);
  free(a);
  free(b);
}

static int keeps_last_char(void *user, cs_str a, cs_str b) {
  shrink_probe *p = user;
  p->tested++;
  if (!cs_utf8_valid(a.ptr, a.len, NULL) || !cs_utf8_valid(b.ptr, b.len, NULL))
    p->invalid++;
  return !(a.len == b.len && !memcmp(a.ptr, b.ptr, a.len)) && a.len >= 2 && b.len >= 2 &&
         !memcmp(a.ptr + a.len - 2, b.ptr + b.len - 2, 2);
}

Test(collide, shrinking_a_pair_of_multibyte_characters_stays_valid) {
  /* The last two bytes are the second half of a three-byte character: deleting single bytes could
   * make a pair that keeps them, which no valid UTF-8 candidate is. */
  char *a = strdup("\xc3\xa9\xe2\x82\xac\xe3\x83\x84"), *b = strdup("\xf0\x9f\x98\x80\xe3\x83\x84");
  shrink_probe p = {0};
  cs_collide_shrink_config cfg = {.test = keeps_last_char, .user = &p, .budget = 4000};
  unsigned steps = 0;
  cr_assert_eq(cs_collide_shrink(&cfg, &a, &b, &steps), 0);
  cr_assert_eq(p.invalid, 0, "%u of %u candidates were not valid UTF-8", p.invalid, p.tested);
  cr_assert(cs_utf8_valid(a, strlen(a), NULL) && cs_utf8_valid(b, strlen(b), NULL));
  free(a);
  free(b);
}

Test(collide, json_visible_escapes_hidden_characters_and_stray_bytes) {
  cs_buf b = {0};
  const char in[] = "a\"\\\x1b[31m\xc2\x85\xe2\x80\xae\xf0\x9f\x98\x80\xe3p";
  cs_esc_json_visible(&b, in, sizeof in - 1);
  cr_assert_str_eq(b.data, "\"a\\\"\\\\\\u001b[31m\\u0085\\u202e\xf0\x9f\x98\x80\\ufffdp\"");
  cs_buf_free(&b);
}

/* An evaluator that cannot get the first output of a pair the first time it is asked for it (a crash
 * of the implementation) stands in a unique text for it: the search asks again rather than drop a
 * real collision. */
typedef struct {
  toy t;
  unsigned pairs;
  uint64_t last[2];
  char stand_in[32];
} flaky_toy;

static int flaky_eval(void *ev, const uint64_t *states, size_t n, cs_str *outs, bool *real, cs_err *err) {
  flaky_toy *f = ev;
  toy_eval(&f->t, states, n, outs, real, err);
  if (n == 2 && (states[0] != f->last[0] || states[1] != f->last[1])) {
    f->last[0] = states[0];
    f->last[1] = states[1];
    int len = snprintf(f->stand_in, sizeof f->stand_in, "\x01(fault %u)", f->pairs++);
    outs[0] = (cs_str){f->stand_in, (size_t)len};
    real[0] = false;
  }
  return 0;
}

Test(collide, a_fault_on_confirming_a_candidate_is_asked_again) {
  static flaky_toy f;
  f.t.bits = 20;
  void *evs[1] = {&f};
  cs_collide_config cfg = {.eval = flaky_eval,
                           .evaluators = evs,
                           .nworkers = 1,
                           .space_bits = 20,
                           .seed = 11,
                           .batch = 256,
                           .budget = 1000000};
  cs_collide_result r;
  cs_err err = {{0}};
  cr_assert_eq(cs_collide_search(&cfg, &r, &err), 0, "%s", err.msg);
  cr_assert(r.found, "a candidate whose confirmation faulted was dropped (%llu evaluations)",
            (unsigned long long)r.evals);
  cr_assert_gt(f.pairs, 0);
}

/* Rates are shown with a unit that keeps their digits: a slow adapter's 42 evaluations a second are
 * not "0.00M/s". */
Test(collide, amounts_keep_their_digits) {
  char s[32];
  cs_collide_amount(s, sizeof s, 1234567);
  cr_assert_str_eq(s, "1.23M");
  cs_collide_amount(s, sizeof s, 45600);
  cr_assert_str_eq(s, "45.6k");
  cs_collide_amount(s, sizeof s, 42);
  cr_assert_str_eq(s, "42");
  cs_collide_amount(s, sizeof s, 0.4166);
  cr_assert_str_eq(s, "0.42");
}

/* A stop signal (its handler sets the flag) ends the search as its time would, and says so. */
static volatile sig_atomic_t stop_flag;
static unsigned interrupt_calls;

static int interrupting_eval(void *ev, const uint64_t *states, size_t n, cs_str *outs, bool *real, cs_err *err) {
  if (++interrupt_calls == 5)
    stop_flag = 1;
  return toy_eval(ev, states, n, outs, real, err);
}

Test(collide, an_interrupt_ends_the_search_and_says_so) {
  static toy toys[1];
  void *evs[1] = {&toys[0]};
  toys[0].bits = 63;
  stop_flag = 0;
  interrupt_calls = 0;
  cs_collide_config cfg = {.eval = interrupting_eval,
                           .evaluators = evs,
                           .nworkers = 1,
                           .space_bits = 63,
                           .seed = 1,
                           .batch = 512,
                           .budget = 50000000,
                           .interrupt = &stop_flag};
  cs_collide_result r;
  cs_err err = {{0}};
  cr_assert_eq(cs_collide_search(&cfg, &r, &err), 0, "%s", err.msg);
  cr_assert_not(r.found);
  cr_assert(r.interrupted, "the result does not say it was interrupted");
  cr_assert_eq(r.evals, 5 * 512, "batches after the interrupt were run (%llu evaluations)",
               (unsigned long long)r.evals);
}

Test(collide, an_interrupt_stops_shrinking) {
  char *a = strdup("\xe3\x83\x84\xe3\x83\xbc\xe3\x83\xab|abc"), *b = strdup("\xe3\x83\x84\xe3\x83\xbc\xe3\x83\xab|xyz");
  shrink_probe p = {0};
  stop_flag = 1;
  cs_collide_shrink_config cfg = {.test = same_first_char, .user = &p, .budget = 4000, .interrupt = &stop_flag};
  unsigned steps = 0;
  cr_assert_eq(cs_collide_shrink(&cfg, &a, &b, &steps), 0);
  cr_assert_eq(p.tested, 0, "%u candidates tested after the interrupt", p.tested);
  cr_assert_str_eq(a, "\xe3\x83\x84\xe3\x83\xbc\xe3\x83\xab|abc");
  free(a);
  free(b);
}
