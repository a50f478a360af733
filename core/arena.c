/* core/arena.c: chunked bump allocation with chunk reuse across resets. */
#include "core/arena.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"

struct cs_arena_chunk {
  cs_arena_chunk *next;
  size_t cap, used;
  _Alignas(16) unsigned char data[];
};

static cs_arena_chunk *chunk_new(size_t cap) {
  if (cap > SIZE_MAX - sizeof(cs_arena_chunk))
    cs_out_of_memory();
  cs_arena_chunk *c = cs_xmalloc(sizeof *c + cap);
  c->next = NULL;
  c->cap = cap;
  c->used = 0;
  return c;
}

/* Unlinks the first spare chunk with room for `size`: looking past the first spare chunk keeps a
 * big chunk reusable when a smaller one was released after it (else memory grows with every case). */
static cs_arena_chunk *take_spare(cs_arena *a, size_t size) {
  for (cs_arena_chunk **p = &a->spare; *p; p = &(*p)->next) {
    cs_arena_chunk *c = *p;
    if (c->cap >= size) {
      *p = c->next;
      c->used = 0;
      return c;
    }
  }
  return NULL;
}

/* The head chunk's `used` is kept in a->next while it is the head; written back when it is not. */
static void sync_head(cs_arena *a) {
  if (a->head)
    a->head->used = (size_t)(a->next - a->head->data);
}

void *cs_arena_alloc_slow(cs_arena *a, size_t size) {
  if (size > SIZE_MAX - 15u)
    cs_out_of_memory(); /* rounding up would wrap to a tiny block */
  size = (size + 15u) & ~(size_t)15u;
  if (size == 0)
    size = 16;
  sync_head(a);
  if (!a->head || a->head->cap - a->head->used < size) {
    size_t base = a->chunk_size ? a->chunk_size : 65536;
    cs_arena_chunk *c = take_spare(a, size);
    if (!c)
      c = chunk_new(size > base ? size : base);
    c->next = a->head;
    a->head = c;
  }
  void *p = a->head->data + a->head->used;
  a->head->used += size;
  a->next = a->head->data + a->head->used;
  a->end = a->head->data + a->head->cap;
  return p;
}

cs_str cs_arena_str(cs_arena *a, cs_str s) {
  if (!s.ptr)
    return s;
  char *p = cs_arena_alloc(a, s.len + 1);
  if (s.len)
    memcpy(p, s.ptr, s.len);
  p[s.len] = 0;
  return (cs_str){p, s.len};
}

cs_str cs_arena_strc(cs_arena *a, const char *s) {
  return cs_arena_str(a, cs_str_c(s));
}

cs_str cs_arena_printf(cs_arena *a, const char *fmt, ...) {
  va_list ap, ap2;
  va_start(ap, fmt);
  va_copy(ap2, ap);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  if (n < 0)
    n = 0;
  char *p = cs_arena_alloc(a, (size_t)n + 1);
  vsnprintf(p, (size_t)n + 1, fmt, ap2);
  va_end(ap2);
  return (cs_str){p, (size_t)n};
}

void cs_arena_reset(cs_arena *a) {
  /* Every chunk goes to the spare list; cs_arena_alloc takes them back by first fit. */
  cs_arena_chunk *c = a->head;
  a->head = NULL;
  a->next = a->end = NULL;
  while (c) {
    cs_arena_chunk *next = c->next;
    c->used = 0;
    c->next = a->spare;
    a->spare = c;
    c = next;
  }
}

void cs_arena_free(cs_arena *a) {
  cs_arena_reset(a);
  cs_arena_chunk *c = a->spare;
  while (c) {
    cs_arena_chunk *next = c->next;
    free(c);
    c = next;
  }
  a->spare = NULL;
}
