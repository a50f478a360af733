/* core/utf8.c: strict UTF-8 validation per RFC 3629. */
#include "core/utf8.h"

#include <stdint.h>
#include <string.h>

bool cs_utf8_valid(const char *str, size_t n, size_t *bad_at) {
  const unsigned char *s = (const unsigned char *)str;
  size_t i = 0;
  while (i < n) {
    unsigned char c = s[i];
    if (c >= 0x01 && c < 0x80) {
      i++;
      continue;
    }
    size_t need;
    unsigned char lo = 0x80, hi = 0xBF;
    if (c >= 0xC2 && c <= 0xDF)
      need = 1;
    else if (c >= 0xE0 && c <= 0xEF) {
      need = 2;
      if (c == 0xE0)
        lo = 0xA0;
      if (c == 0xED)
        hi = 0x9F; /* no UTF-16 surrogates */
    } else if (c >= 0xF0 && c <= 0xF4) {
      need = 3;
      if (c == 0xF0)
        lo = 0x90;
      if (c == 0xF4)
        hi = 0x8F;
    } else
      goto bad; /* NUL, stray continuation, overlong lead, or > U+10FFFF */
    if (n - i <= need)
      goto bad;
    if (s[i + 1] < lo || s[i + 1] > hi)
      goto bad;
    for (size_t k = 2; k <= need; k++)
      if ((s[i + k] & 0xC0) != 0x80)
        goto bad;
    i += need + 1;
  }
  return true;
bad:
  if (bad_at)
    *bad_at = i;
  return false;
}

bool cs_utf8_valid_count(const char *s, size_t n, size_t *chars) {
  const uint64_t ones = 0x0101010101010101ULL, highs = 0x8080808080808080ULL;
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t w;
    memcpy(&w, s + i, 8);
    if ((w & highs) || ((w - ones) & ~w & highs)) /* a non-ASCII byte, or a NUL byte */
      break;
  }
  if (i == n) {
    *chars = n;
    return true;
  }
  size_t bad;
  if (!cs_utf8_valid(s + i, n - i, &bad))
    return false;
  size_t count = i;
  for (; i < n; i++)
    count += ((unsigned char)s[i] & 0xC0) != 0x80;
  *chars = count;
  return true;
}

void cs_utf8_scrub(char *s, size_t n) {
  size_t at = 0, bad;
  while (at < n && !cs_utf8_valid(s + at, n - at, &bad)) {
    s[at + bad] = '?';
    at += bad + 1;
  }
}
