/* tests/unit/test_arena.c: core/arena.c: alignment, many allocations, reset reuse, huge blocks. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <string.h>

#include "core/arena.h"

Test(arena, zero_initialised_arena_allocates_aligned) {
  cs_arena a = {0};
  for (size_t size = 0; size < 100; size++) {
    void *p = cs_arena_alloc(&a, size);
    cr_assert_not_null(p);
    cr_assert_eq((uintptr_t)p % 16, 0, "size %zu gave %p", size, p);
  }
  cs_arena_free(&a);
}

Test(arena, many_allocations_do_not_overlap) {
  cs_arena a = {.chunk_size = 1024};
  enum { N = 20000 };
  static unsigned char *ptr[N];
  static size_t len[N];
  for (size_t i = 0; i < N; i++) {
    len[i] = 1 + (i * 7919) % 300;
    ptr[i] = cs_arena_alloc(&a, len[i]);
    cr_assert_eq((uintptr_t)ptr[i] % 16, 0);
    memset(ptr[i], (int)(i & 0xff), len[i]);
  }
  /* Every block still holds its own fill byte: no later allocation wrote over it. */
  for (size_t i = 0; i < N; i++)
    for (size_t k = 0; k < len[i]; k++)
      cr_assert_eq(ptr[i][k], (unsigned char)(i & 0xff), "block %zu byte %zu overwritten", i, k);
  cs_arena_free(&a);
}

Test(arena, zalloc_zeroes_reused_memory) {
  cs_arena a = {0};
  unsigned char *p = cs_arena_alloc(&a, 256);
  memset(p, 0xAB, 256);
  cs_arena_reset(&a);
  unsigned char *q = cs_arena_zalloc(&a, 256);
  cr_assert_eq(p, q, "reset should hand the same memory back");
  for (int i = 0; i < 256; i++)
    cr_assert_eq(q[i], 0);
  unsigned *arr = CS_ARENA_NEW(&a, unsigned, 10);
  for (int i = 0; i < 10; i++)
    cr_assert_eq(arr[i], 0u);
  cs_arena_free(&a);
}

Test(arena, reset_reuses_memory) {
  cs_arena a = {.chunk_size = 4096};
  void *first[50];
  for (int i = 0; i < 50; i++)
    first[i] = cs_arena_alloc(&a, 200); /* spans several chunks */
  for (int round = 0; round < 5; round++) {
    cs_arena_reset(&a);
    cr_assert_null(a.head);
    /* The same sequence of requests is served from the kept chunks: no new memory. */
    for (int i = 0; i < 50; i++) {
      void *p = cs_arena_alloc(&a, 200);
      int found = 0;
      for (int k = 0; k < 50; k++)
        found |= p == first[k];
      cr_assert(found, "round %d allocation %d came from new memory", round, i);
    }
  }
  cs_arena_free(&a);
  cr_assert_null(a.head);
  cr_assert_null(a.spare);
}

Test(arena, huge_allocation_larger_than_chunk) {
  cs_arena a = {.chunk_size = 1024};
  char *small = cs_arena_alloc(&a, 10);
  size_t big = 1u << 20;
  unsigned char *p = cs_arena_alloc(&a, big);
  cr_assert_eq((uintptr_t)p % 16, 0);
  memset(p, 0x5A, big);
  cr_assert_eq(p[0], 0x5A);
  cr_assert_eq(p[big - 1], 0x5A);
  /* Allocation goes on after the huge block. */
  char *after = cs_arena_alloc(&a, 10);
  memcpy(after, "123456789", 10);
  memcpy(small, "abcdefghi", 10);
  cr_assert_str_eq(after, "123456789");
  cr_assert_str_eq(small, "abcdefghi");
  cs_arena_free(&a);
}

/* A big chunk released behind a small one is found again after a reset (first fit over every spare
 * chunk), instead of fresh memory being taken for the same request. */
Test(arena, reset_finds_big_chunk_behind_small_one) {
  cs_arena a = {.chunk_size = 1024};
  cs_arena_alloc(&a, 16);
  void *huge1 = cs_arena_alloc(&a, 64 * 1024);
  cs_arena_reset(&a);
  void *huge2 = cs_arena_alloc(&a, 64 * 1024);
  cr_assert_eq(huge1, huge2, "the huge block should come from the chunk kept by the reset");
  cs_arena_free(&a);
}

/* Alternating the order of a small and a huge request across resets must not strand chunks on the
 * spare list: the huge block keeps coming from the same few chunks instead of fresh memory. */
Test(arena, alternating_sizes_across_resets_reuse_chunks) {
  cs_arena a = {.chunk_size = 1024};
  enum { ROUNDS = 200 };
  void *seen[ROUNDS];
  size_t nseen = 0;
  for (int round = 0; round < ROUNDS; round++) {
    cs_arena_reset(&a);
    void *huge;
    if (round % 2) {
      cs_arena_alloc(&a, 16);
      huge = cs_arena_alloc(&a, 64 * 1024);
    } else {
      huge = cs_arena_alloc(&a, 64 * 1024);
      cs_arena_alloc(&a, 16);
    }
    size_t k = 0;
    while (k < nseen && seen[k] != huge)
      k++;
    if (k == nseen)
      seen[nseen++] = huge;
  }
  cr_assert_leq(nseen, 3, "huge blocks came from %zu different chunks over %d rounds", nseen, ROUNDS);
  cs_arena_free(&a);
}

Test(arena, strings_and_printf) {
  cs_arena a = {0};
  cs_str n = cs_arena_str(&a, CS_NULL_STR);
  cr_assert(cs_str_is_null(n), "a null string stays null");
  cs_str e = cs_arena_str(&a, cs_str_n("xyz", 0));
  cr_assert_not_null(e.ptr);
  cr_assert_eq(e.len, 0);
  cr_assert_eq(e.ptr[0], '\0');
  const char raw[] = {'a', 0, 'b'};
  cs_str r = cs_arena_str(&a, cs_str_n(raw, 3));
  cr_assert_eq(r.len, 3);
  cr_assert_eq(memcmp(r.ptr, raw, 3), 0);
  cr_assert_eq(r.ptr[3], '\0', "copies are NUL-terminated");
  cr_assert_neq(r.ptr, raw);
  cs_str c = cs_arena_strc(&a, "hello");
  cr_assert(cs_str_eq_c(c, "hello"));
  cs_str p = cs_arena_printf(&a, "%s-%d-%05u", "id", -3, 42u);
  cr_assert(cs_str_eq_c(p, "id--3-00042"));
  cr_assert_eq(p.ptr[p.len], '\0');
  cs_str big = cs_arena_printf(&a, "%5000d", 7);
  cr_assert_eq(big.len, 5000);
  cr_assert_eq(big.ptr[4999], '7');
  cs_arena_free(&a);
}

Test(arena, free_then_reuse_as_new) {
  cs_arena a = {0};
  cs_arena_alloc(&a, 100);
  cs_arena_free(&a);
  cr_assert_null(a.head);
  /* A freed arena is again a zero arena and can be used. */
  char *p = cs_arena_alloc(&a, 5);
  memcpy(p, "abcd", 5);
  cr_assert_str_eq(p, "abcd");
  cs_arena_free(&a);
  cs_arena_free(&a); /* freeing twice is harmless */
}
