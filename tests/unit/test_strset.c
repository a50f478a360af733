/* tests/unit/test_strset.c: core/strset.c: add/has, byte-exact keys, "" versus null, bound. */
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
