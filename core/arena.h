/* core/arena.h: bump allocator owning every allocation of one case.
 * Why: the hot loop builds histories, IDs and answers per case; an arena reset per case means no
 * malloc/free per ID. Contract: memory from an arena lives until cs_arena_reset or cs_arena_free.
 * A zero-initialised cs_arena is ready to use. */
#ifndef CS_CORE_ARENA_H
#define CS_CORE_ARENA_H

#include <stddef.h>

#include "core/str.h"

typedef struct cs_arena_chunk cs_arena_chunk;

typedef struct {
  cs_arena_chunk *head;  /* current chunk */
  cs_arena_chunk *spare; /* chunks kept across resets */
  size_t chunk_size;     /* 0: 64 KiB */
} cs_arena;

/* Aligned to 16 bytes. Aborts the process only if the system is out of memory. */
void *cs_arena_alloc(cs_arena *a, size_t size);
void *cs_arena_zalloc(cs_arena *a, size_t size);
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
