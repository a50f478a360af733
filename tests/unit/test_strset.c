/* tests/unit/test_strset.c: core/strset.c: add/has, byte-exact keys, "" versus null, bound, and the
 * small (fingerprint list) and hashed forms agreeing on both sides of the size that separates them. */
#include <criterion/criterion.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "core/strset.h"

Test(strset, add_then_has) {
  cs_arena a = {0};
  cs_strset s;
  cs_strset_init(&s, 3, &a);
  cr_assert_not(cs_strset_has(&s, cs_str_c("a")));
  cr_assert(cs_strset_add(&s, cs_str_c("a")), "first insertion is new");
  cr_assert(cs_strset_has(&s, cs_str_c("a")));
  cr_assert_not(cs_strset_add(&s, cs_str_c("a")), "second insertion is not new");
  cr_assert_eq(s.count, 1);
  cr_assert(cs_strset_add(&s, cs_str_c("b")));
  cr_assert_not(cs_strset_has(&s, cs_str_c("c")));
  cr_assert_not(cs_strset_has(&s, cs_str_c("ab")));
  cr_assert_eq(s.count, 2);
  cs_arena_free(&a);
}

Test(strset, keys_compare_by_bytes_not_pointers) {
  cs_arena a = {0};
  cs_strset s;
  cs_strset_init(&s, 4, &a);
  char k1[] = "call_0", k2[] = "call_0";
  cr_assert(cs_strset_add(&s, cs_str_c(k1)));
  cr_assert(cs_strset_has(&s, cs_str_c(k2)), "same bytes at another address");
  cr_assert_not(cs_strset_add(&s, cs_str_c(k2)));
  /* Length matters: a prefix is a different key; embedded NUL bytes count. */
  cr_assert_not(cs_strset_has(&s, cs_str_n("call_0", 5)));
  cr_assert(cs_strset_add(&s, cs_str_n("a\0b", 3)));
  cr_assert_not(cs_strset_has(&s, cs_str_n("a\0c", 3)));
  cr_assert_not(cs_strset_has(&s, cs_str_n("a", 1)));
  cr_assert(cs_strset_has(&s, cs_str_n("a\0b", 3)));
  cs_arena_free(&a);
}

Test(strset, empty_string_is_a_key_null_is_not) {
  cs_arena a = {0};
  cs_strset s;
  cs_strset_init(&s, 2, &a);
  cr_assert_not(cs_strset_has(&s, cs_str_c("")));
  cr_assert_not(cs_strset_has(&s, CS_NULL_STR));
  /* null is never "used": adding it always reports new and stores nothing. */
  cr_assert(cs_strset_add(&s, CS_NULL_STR));
  cr_assert(cs_strset_add(&s, CS_NULL_STR));
  cr_assert_eq(s.count, 0);
  cr_assert_not(cs_strset_has(&s, CS_NULL_STR));
  cr_assert_not(cs_strset_has(&s, cs_str_c("")), "null did not register as the empty string");
  cr_assert(cs_strset_add(&s, cs_str_c("")));
  cr_assert(cs_strset_has(&s, cs_str_c("")));
  cr_assert(cs_strset_has(&s, cs_str_n("xyz", 0)), "any zero-length non-null string is \"\"");
  cr_assert_not(cs_strset_add(&s, cs_str_c("")));
  cr_assert_not(cs_strset_has(&s, CS_NULL_STR), "\"\" did not register as null");
  cr_assert_eq(s.count, 1);
  cs_arena_free(&a);
}

Test(strset, many_keys_up_to_the_bound) {
  cs_arena a = {0};
  enum { N = 5000 };
  cs_strset s;
  cs_strset_init(&s, N, &a);
  for (int i = 0; i < N; i++) {
    cs_str k = cs_arena_printf(&a, "id%d", i);
    cr_assert(cs_strset_add(&s, k), "key %d", i);
  }
  cr_assert_eq(s.count, N);
  char tmp[32];
  for (int i = 0; i < N; i++) {
    snprintf(tmp, sizeof tmp, "id%d", i);
    cr_assert(cs_strset_has(&s, cs_str_c(tmp)));
    cr_assert_not(cs_strset_add(&s, cs_str_c(tmp)), "re-adding at the bound is not an insertion");
  }
  for (int i = N; i < N + 100; i++) {
    snprintf(tmp, sizeof tmp, "id%d", i);
    cr_assert_not(cs_strset_has(&s, cs_str_c(tmp)));
  }
  cs_arena_free(&a);
}

Test(strset, zero_bound_set_answers_has) {
  cs_arena a = {0};
  cs_strset s;
  cs_strset_init(&s, 0, &a);
  cr_assert_not(cs_strset_has(&s, cs_str_c("x")));
  cr_assert(cs_strset_add(&s, CS_NULL_STR));
  cs_arena_free(&a);
}

Test(strset, inserting_past_the_bound_aborts, .signal = SIGABRT) {
  cs_arena a = {0};
  cs_strset s;
  cs_strset_init(&s, 1, &a);
  cs_strset_add(&s, cs_str_c("one"));
  cs_strset_add(&s, cs_str_c("two"));
}

Test(strset, absurd_bound_aborts_instead_of_looping, .signal = SIGABRT, .timeout = 10) {
  cs_arena a = {0};
  cs_strset s;
  cs_strset_init(&s, 1u << 31, &a);
}

/* Both representations, at the size where one gives way to the other: the same answers. */
static void exercise(uint32_t bound) {
  cs_arena a = {0};
  cs_strset s;
  cs_strset_init(&s, bound, &a);
  char keys[64][32];
  for (uint32_t i = 0; i < bound; i++) {
    snprintf(keys[i], sizeof keys[i], "toolu_%020u", i * 7919u);
    cr_assert_not(cs_strset_has(&s, cs_str_c(keys[i])), "bound %u, key %u before insertion", bound, i);
    cr_assert(cs_strset_add(&s, cs_str_c(keys[i])), "bound %u, key %u is new", bound, i);
  }
  for (uint32_t i = 0; i < bound; i++) {
    char again[32];
    memcpy(again, keys[i], sizeof again);
    cr_assert(cs_strset_has(&s, cs_str_c(again)), "bound %u, key %u after insertion", bound, i);
    cr_assert_not(cs_strset_add(&s, cs_str_c(again)), "bound %u, key %u is not new", bound, i);
  }
  cr_assert_eq(s.count, bound);
  cr_assert_not(cs_strset_has(&s, cs_str_c("toolu_")));
  cs_arena_free(&a);
}

Test(strset, small_and_hashed_sets_agree) {
  uint32_t bounds[] = {1, CS_STRSET_SMALL - 1, CS_STRSET_SMALL, CS_STRSET_SMALL + 1, 40, 64};
  for (size_t i = 0; i < sizeof bounds / sizeof *bounds; i++)
    exercise(bounds[i]);
}

Test(strset, equal_fingerprints_still_compare_the_bytes) {
  /* Same length, same first and last eight bytes, different middle: one fingerprint, two keys. */
  const char *x = "hist_tool_AAAAAAAAAAAAAAAAAAxxxxxxxx", *y = "hist_tool_AAAAAAABAAAAAAAAAAxxxxxxxx";
  cr_assert_eq(cs_str_fingerprint(cs_str_c(x)), cs_str_fingerprint(cs_str_c(y)));
  uint32_t bounds[] = {2, CS_STRSET_SMALL + 4};
  for (size_t i = 0; i < 2; i++) {
    cs_arena a = {0};
    cs_strset s;
    cs_strset_init(&s, bounds[i], &a);
    cr_assert(cs_strset_add(&s, cs_str_c(x)));
    cr_assert_not(cs_strset_has(&s, cs_str_c(y)));
    cr_assert(cs_strset_add(&s, cs_str_c(y)));
    cr_assert_eq(s.count, 2);
    cs_arena_free(&a);
  }
  /* Short keys: the fingerprint holds them whole, with their length ("a" is not "\0a"). */
  cr_assert_neq(cs_str_fingerprint(cs_str_n("a", 1)), cs_str_fingerprint(cs_str_n("\0a", 2)));
  cr_assert_neq(cs_str_fingerprint(cs_str_c("")), cs_str_fingerprint(CS_NULL_STR));
}
