/* core/str.h: the byte-string view every layer passes IDs and names around as.
 * A cs_str is a pointer and a length; ptr == NULL means JSON null (distinct from ""). */
#ifndef CS_CORE_STR_H
#define CS_CORE_STR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
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
  /* Answers often repeat one string (a result carries its call's ID): no need to compare bytes.
   * IDs of one length mostly differ at the end (call_0, call_1): the last byte settles most. */
  return a.len == b.len && (a.ptr == b.ptr || a.len == 0 ||
                            (a.ptr[a.len - 1] == b.ptr[a.len - 1] && memcmp(a.ptr, b.ptr, a.len - 1) == 0));
}

static inline bool cs_str_eq_c(cs_str a, const char *b) {
  return a.ptr && cs_str_eq(a, cs_str_c(b));
}

static inline bool cs_str_starts(cs_str s, const char *prefix) {
  size_t n = strlen(prefix);
  return s.ptr && s.len >= n && memcmp(s.ptr, prefix, n) == 0;
}

static inline unsigned long long cs_load64(const char *p) {
  unsigned long long w;
  memcpy(&w, p, 8);
  return w;
}

/* A fast 64-bit hash for hash tables (not cryptographic); null hashes differently from "".
 * Short keys (most IDs) take one or two overlapping loads instead of a byte loop; long keys run
 * two independent multiply chains, so IDs of 64 KiB stay cheap. */
static inline unsigned long long cs_str_hash(cs_str s) {
  if (!s.ptr)
    return 7ULL;
  const char *p = s.ptr;
  size_t n = s.len;
  unsigned long long a = 0x9E3779B97F4A7C15ULL ^ n, b = 0xC2B2AE3D27D4EB4FULL;
  if (n >= 8) {
    size_t i = 0;
    for (; i + 16 <= n; i += 16) {
      a = (a ^ cs_load64(p + i)) * 0xFF51AFD7ED558CCDULL;
      a ^= a >> 32;
      b = (b ^ cs_load64(p + i + 8)) * 0xC4CEB9FE1A85EC53ULL;
      b ^= b >> 32;
    }
    if (i + 8 < n) {
      a = (a ^ cs_load64(p + i)) * 0xFF51AFD7ED558CCDULL;
      a ^= a >> 32;
    }
    b ^= cs_load64(p + n - 8); /* the last eight bytes, overlapping what came before */
  } else if (n >= 4) {
    uint32_t lo, hi;
    memcpy(&lo, p, 4);
    memcpy(&hi, p + n - 4, 4);
    b ^= (unsigned long long)lo << 32 | hi;
  } else if (n) {
    b ^= (unsigned long long)(unsigned char)p[0] << 16 | (unsigned)(unsigned char)p[n / 2] << 8 |
         (unsigned char)p[n - 1];
  }
  unsigned long long h = (a ^ (b * 0x9FB21C651E98DF25ULL)) * 0xC4CEB9FE1A85EC53ULL;
  return h ^ (h >> 29);
}

/* Equal strings have equal fingerprints: the length with the first and last (up to) eight bytes.
 * Different strings may share one; the bytes decide. */
static inline uint64_t cs_str_fingerprint(cs_str s) {
  if (!s.ptr)
    return 0;
  uint64_t head = 0, tail = 0;
  if (s.len >= 8) {
    head = cs_load64(s.ptr);
    tail = cs_load64(s.ptr + s.len - 8);
  } else {
    for (size_t i = 0; i < s.len; i++)
      head = head << 8 | (unsigned char)s.ptr[i];
  }
  return (head ^ (tail << 29 | tail >> 35) ^ (uint64_t)s.len << 56) | 1u; /* never 0: 0 is null's */
}

#endif
