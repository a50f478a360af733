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

static inline cs_str cs_str_c(const char *s) {
  return (cs_str){s, s ? strlen(s) : 0};
}
static inline cs_str cs_str_n(const char *s, size_t n) {
  return (cs_str){s, n};
}
static inline bool cs_str_is_null(cs_str s) {
  return s.ptr == NULL;
}
/* Null or zero length: the pairing rule treats both as "no ID". */
static inline bool cs_str_is_blank(cs_str s) {
  return s.ptr == NULL || s.len == 0;
}

/* Equal when both are null, or both non-null with the same bytes. */
static inline bool cs_str_eq(cs_str a, cs_str b) {
  if (a.ptr == NULL || b.ptr == NULL)
    return a.ptr == b.ptr;
  return a.len == b.len && (a.len == 0 || memcmp(a.ptr, b.ptr, a.len) == 0);
}

static inline bool cs_str_eq_c(cs_str a, const char *b) {
  return a.ptr && cs_str_eq(a, cs_str_c(b));
}

static inline bool cs_str_starts(cs_str s, const char *prefix) {
  size_t n = strlen(prefix);
  return s.ptr && s.len >= n && memcmp(s.ptr, prefix, n) == 0;
}

/* A fast 64-bit hash for hash tables (not cryptographic): eight bytes per step, so IDs of 64 KiB
 * stay cheap; null hashes differently from "". */
static inline unsigned long long cs_str_hash(cs_str s) {
  unsigned long long h = s.ptr ? 0x9E3779B97F4A7C15ULL ^ s.len : 7ULL;
  size_t i = 0;
  for (; i + 8 <= s.len; i += 8) {
    unsigned long long w;
    memcpy(&w, s.ptr + i, 8);
    h = (h ^ w) * 0xFF51AFD7ED558CCDULL;
    h ^= h >> 32;
  }
  unsigned long long tail = 0;
  for (; i < s.len; i++)
    tail = tail << 8 | (unsigned char)s.ptr[i];
  h = (h ^ tail) * 0xC4CEB9FE1A85EC53ULL;
  return h ^ (h >> 29);
}

#endif
