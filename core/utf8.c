/* core/utf8.c: strict UTF-8 validation per RFC 3629. */
#include "core/utf8.h"

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
