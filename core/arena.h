/* core/arena.h: bump allocator owning every allocation of one case.
 * Why: the hot loop builds histories, IDs and answers per case; an arena reset per case means no
 * malloc/free per ID. Contract: memory from an arena lives until cs_arena_reset or cs_arena_free.
 * A zero-initialised cs_arena is ready to use. */
#ifndef CS_CORE_ARENA_H
#define CS_CORE_ARENA_H

#include <stddef.h>
#include <stdint.h>

#include "core/str.h"

typedef struct cs_arena_chunk cs_arena_chunk;

typedef struct {
  cs_arena_chunk *head;  /* current chunk */
  cs_arena_chunk *spare; /* chunks kept across resets */
  size_t chunk_size;     /* 0: 64 KiB */
  /* The free part of the head chunk: the inline fast path below bumps `next` up to `end`. */
  unsigned char *next, *end;
} cs_arena;

/* The slow path of cs_arena_alloc: a size it does not take inline (0, or one that would wrap), or
 * no room left in the head chunk (then a spare or new chunk becomes the head). */
void *cs_arena_alloc_slow(cs_arena *a, size_t size);

/* Aligned to 16 bytes. Aborts the process only if the system is out of memory. Inline: the hot
 * loop allocates every ID, answer and index from an arena. */
static inline void *cs_arena_alloc(cs_arena *a, size_t size) {
  size_t rounded = (size + 15u) & ~(size_t)15u;
  /* As integers: before the first chunk both pointers are null, and null - null is undefined. */
  if (rounded >= size && rounded && (uintptr_t)a->end - (uintptr_t)a->next >= rounded) {
    void *p = a->next;
    a->next += rounded;
    return p;
  }
  return cs_arena_alloc_slow(a, size);
}
static inline void *cs_arena_zalloc(cs_arena *a, size_t size) {
  void *p = cs_arena_alloc(a, size);
  memset(p, 0, size);
  return p;
}
/* Copies bytes into the arena; a null cs_str stays null. The copy is NUL-terminated. */
cs_str cs_arena_str(cs_arena *a, cs_str s);
cs_str cs_arena_strc(cs_arena *a, const char *s);
cs_str cs_arena_printf(cs_arena *a, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* Releases everything allocated since the last reset, keeping the memory for reuse. */
void cs_arena_reset(cs_arena *a);
void cs_arena_free(cs_arena *a);

#define CS_ARENA_NEW(a, T, n) ((T *)cs_arena_zalloc((a), sizeof(T) * (size_t)(n)))

#endif
