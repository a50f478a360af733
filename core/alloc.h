/* core/alloc.h: heap allocation that does not return NULL. Out of memory, callsign prints
 * "callsign: out of memory" and ends with status 2: the arena and the buffers do so too, and a NULL
 * that one caller forgot to test would crash without a word. Allocations whose size the user chooses
 * (collide's tables, for one) test for NULL themselves and report an error with that size instead. */
#ifndef CS_CORE_ALLOC_H
#define CS_CORE_ALLOC_H

#include <stddef.h>

/* Prints the one line and ends the process with status 2 (no handlers run, nothing flushed). */
_Noreturn void cs_out_of_memory(void);

/* malloc, calloc and strdup that end the process (cs_out_of_memory) on failure. A size of 0 still gives a unique
 * pointer. */
void *cs_xmalloc(size_t size);
void *cs_xcalloc(size_t n, size_t size);
char *cs_xstrdup(const char *s);
/* A NUL-terminated heap copy of s[0..n) (s need not be terminated). */
char *cs_xstrndup(const char *s, size_t n);

/* `p` (NULL or from these functions) resized to n elements of `size` bytes; n * size overflowing
 * counts as out of memory. */
void *cs_xrealloc_array(void *p, size_t n, size_t size);

#endif
