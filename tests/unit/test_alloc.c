/* tests/unit/test_alloc.c: core/alloc.c: the wrappers return usable memory, and a size that cannot
 * be represented ends the process (out of memory) instead of coming back as a short block. */
#include <criterion/criterion.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"

Test(alloc, zero_sizes_still_give_distinct_pointers) {
  void *a = cs_xmalloc(0), *b = cs_xcalloc(0, 8), *c = cs_xrealloc_array(NULL, 0, 8);
  cr_assert_not_null(a);
  cr_assert_not_null(b);
  cr_assert_not_null(c);
  cr_assert_neq(a, b);
  cr_assert_neq(b, c);
  free(a);
  free(b);
  free(c);
}

Test(alloc, calloc_zeroes_and_strdup_copies) {
  uint64_t *v = cs_xcalloc(100, sizeof *v);
  for (int i = 0; i < 100; i++)
    cr_assert_eq(v[i], 0);
  free(v);
  const char *s = "call_0|toolu_1";
  char *d = cs_xstrdup(s);
  cr_assert_neq(d, s);
  cr_assert_str_eq(d, s);
  free(d);
}

Test(alloc, realloc_array_keeps_the_contents_while_growing) {
  uint32_t *v = NULL;
  size_t cap = 0;
  for (uint32_t i = 0; i < 10000; i++) {
    if (i == cap) {
      cap = cap ? cap * 2 : 4;
      v = cs_xrealloc_array(v, cap, sizeof *v);
    }
    v[i] = i * 7u;
  }
  for (uint32_t i = 0; i < 10000; i++)
    cr_assert_eq(v[i], i * 7u);
  free(v);
}

/* n * size wraps to a small number: without the check this would be a 8-byte block for 2^61 items.
 * It is out of memory: one line and status 2, not a crash. */
Test(alloc, realloc_array_overflow_is_out_of_memory, .exit_code = 2) {
  void *p = cs_xrealloc_array(NULL, SIZE_MAX / 8 + 2, 8);
  free(p);
}

/* A copy of part of a string that need not be terminated: n bytes and a NUL, embedded NULs kept. */
Test(alloc, strndup_copies_n_bytes_and_terminates) {
  char *p = cs_xstrndup("abcdef", 3);
  cr_assert_str_eq(p, "abc");
  free(p);
  p = cs_xstrndup("a\0b", 3);
  cr_assert(p[0] == 'a' && p[1] == 0 && p[2] == 'b' && p[3] == 0);
  free(p);
  p = cs_xstrndup("", 0);
  cr_assert_str_eq(p, "");
  free(p);
}
