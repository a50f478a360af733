/* core/str.h: the byte-string view every layer passes IDs and names around as.
 * A cs_str is a pointer and a length; ptr == NULL means JSON null (distinct from ""). */
#ifndef CS_CORE_STR_H
#define CS_CORE_STR_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

typedef struct {
  const char *ptr; /* NULL: the value is null (absent ID); otherwise `len` bytes, not NUL-terminated */
  size_t len;
} cs_str;

#define CS_NULL_STR ((cs_str){NULL, 0})

static inline cs_str cs_str_c(const char *s) { return (cs_str){s, s ? strlen(s) : 0}; }
static inline cs_str cs_str_n(const char *s, size_t n) { return (cs_str){s, n}; }
static inline bool cs_str_is_null(cs_str s) { return s.ptr == NULL; }
/* Null or zero length: the pairing rule treats both as "no ID". */
static inline bool cs_str_is_blank(cs_str s) { return s.ptr == NULL || s.len == 0; }

/* Equal when both are null, or both non-null with the same bytes. */
static inline bool cs_str_eq(cs_str a, cs_str b) {
  if (a.ptr == NULL || b.ptr == NULL)
    return a.ptr == b.ptr;
  return a.len == b.len && (a.len == 0 || memcmp(a.ptr, b.ptr, a.len) == 0);
}

static inline bool cs_str_eq_c(cs_str a, const char *b) { return a.ptr && cs_str_eq(a, cs_str_c(b)); }

static inline bool cs_str_starts(cs_str s, const char *prefix) {
  size_t n = strlen(prefix);
  return s.ptr && s.len >= n && memcmp(s.ptr, prefix, n) == 0;
}

/* FNV-1a over the bytes; null hashes differently from "". For hash tables only. */
static inline unsigned long long cs_str_hash(cs_str s) {
  unsigned long long h = s.ptr ? 1469598103934665603ULL : 7ULL;
  for (size_t i = 0; i < s.len; i++) {
    h ^= (unsigned char)s.ptr[i];
    h *= 1099511628211ULL;
  }
  return h;
}

#endif
