/* core/alloc.c: the allocation wrappers of alloc.h. */
#include "core/alloc.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

_Noreturn void cs_out_of_memory(void) {
  fputs("callsign: out of memory\n", stderr);
  /* Status 2, an input too large for the machine (README: exit statuses), not a crash: _Exit, as
   * exit's handlers and flushes would ask for memory again. */
  _Exit(2);
}

void *cs_xmalloc(size_t size) {
  void *p = malloc(size ? size : 1);
  if (!p)
    cs_out_of_memory();
  return p;
}

void *cs_xcalloc(size_t n, size_t size) {
  void *p = calloc(n ? n : 1, size ? size : 1);
  if (!p)
    cs_out_of_memory();
  return p;
}

char *cs_xstrdup(const char *s) {
  size_t n = strlen(s) + 1;
  return memcpy(cs_xmalloc(n), s, n);
}

char *cs_xstrndup(const char *s, size_t n) {
  char *p = cs_xmalloc(n + 1);
  memcpy(p, s, n);
  p[n] = 0;
  return p;
}

void *cs_xrealloc_array(void *p, size_t n, size_t size) {
  if (size && n > SIZE_MAX / size)
    cs_out_of_memory();
  size_t bytes = n * size;
  void *q = realloc(p, bytes ? bytes : 1);
  if (!q)
    cs_out_of_memory();
  return q;
}
