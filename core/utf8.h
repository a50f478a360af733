/* core/utf8.h: UTF-8 validation (IDs are Unicode text without U+0000, so every reader checks). */
#ifndef CS_CORE_UTF8_H
#define CS_CORE_UTF8_H

#include <stdbool.h>
#include <stddef.h>

/* True when the bytes are well-formed UTF-8 (no overlongs, no surrogates, <= U+10FFFF) and hold
 * no NUL byte. On false, *bad_at (if not NULL) is the offset of the first bad byte. */
bool cs_utf8_valid(const char *s, size_t n, size_t *bad_at);
/* cs_utf8_valid that also counts code points into *chars (when valid). Plain ASCII, the common
 * case for IDs, is checked eight bytes at a time. */
bool cs_utf8_valid_count(const char *s, size_t n, size_t *chars);
/* Makes s[0..n) well-formed UTF-8 without NUL in place: each byte that is not part of a
 * well-formed character (a stray continuation byte, a cut sequence, an overlong form, NUL)
 * becomes '?'. For text from outside (a provider's answer) on its way into JSON. */
void cs_utf8_scrub(char *s, size_t n);
/* The longest prefix of s[0..len) of at most `max` bytes that ends on a character boundary (len
 * itself when len <= max): where to cut a long ID or message without splitting a character.
 * Inline: the generator cuts every ID it makes with it. */
static inline size_t cs_utf8_clamp(const char *s, size_t len, size_t max) {
  if (len <= max)
    return len;
  size_t n = max;
  while (n > 0 && ((unsigned char)s[n] & 0xC0) == 0x80) /* s[n] continues a character: cut before its lead */
    n--;
  return n;
}

#endif
