/* core/buf.c: growable buffer and JSON string escaping. */
#include "core/buf.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"

void cs_buf_reserve(cs_buf *b, size_t extra) {
  if (b->cap - b->len > extra)
    return;
  size_t cap = b->cap ? b->cap : 256;
  while (cap - b->len <= extra)
    cap *= 2;
  b->data = cs_xrealloc_array(b->data, cap, 1);
  b->cap = cap;
}

void cs_buf_put(cs_buf *b, const void *p, size_t n) {
  cs_buf_reserve(b, n);
  if (n)
    memcpy(b->data + b->len, p, n);
  b->len += n;
  b->data[b->len] = 0;
}

void cs_buf_puts(cs_buf *b, const char *s) {
  cs_buf_put(b, s, strlen(s));
}

void cs_buf_putc(cs_buf *b, char c) {
  cs_buf_reserve(b, 1);
  b->data[b->len++] = c;
  b->data[b->len] = 0;
}

void cs_buf_printf(cs_buf *b, const char *fmt, ...) {
  va_list ap, ap2;
  va_start(ap, fmt);
  va_copy(ap2, ap);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  if (n < 0)
    n = 0;
  /* Reserve even for empty output: the contents must be NUL-terminated after any append. */
  cs_buf_reserve(b, (size_t)n);
  if (n > 0)
    vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap2);
  b->len += (size_t)n;
  b->data[b->len] = 0;
  va_end(ap2);
}

/* 1 for the bytes that end a run in cs_buf_json_str: controls, quote and backslash (always escaped)
 * and 0xE2, the lead byte of U+2028/U+2029 (escaped when the next two bytes complete one of them). */
#define X16 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1
static const unsigned char json_stop[256] = {X16, X16, ['"'] = 1, ['\\'] = 1, [0xE2] = 1};
#undef X16

/* Whether any of the 8 bytes in `w` is in json_stop: (x - 0x0101..) & ~x & 0x8080.. is nonzero iff a
 * byte of x is 0, and with 0x2020.. iff a byte is below 0x20. Eight bytes per step, as histories are
 * mostly text that needs no escape. */
static inline bool word_stops(uint64_t w) {
  const uint64_t ones = 0x0101010101010101u, tops = 0x8080808080808080u;
  uint64_t q = w ^ (ones * '"'), bs = w ^ (ones * '\\'), e2 = w ^ (ones * 0xE2);
  return (((w - ones * 0x20) & ~w) | ((q - ones) & ~q) | ((bs - ones) & ~bs) | ((e2 - ones) & ~e2)) & tops;
}

void cs_buf_double(cs_buf *b, double v) {
  char s[40];
  for (int digits = 1; digits <= 17; digits++) {
    snprintf(s, sizeof s, "%.*g", digits, v);
    if (strtod(s, NULL) == v)
      break;
  }
  cs_buf_puts(b, s);
}

void cs_buf_json_str(cs_buf *b, cs_str s) {
  static const char hex[] = "0123456789abcdef";
  if (!s.ptr) {
    cs_buf_put(b, "null", 4);
    return;
  }
  /* Runs of bytes that need no escape are copied with one memcpy each. This room suffices when
   * nothing is escaped; each escape (up to 6 bytes for 1) makes room for itself and the rest. */
  cs_buf_reserve(b, s.len + 2);
  const unsigned char *in = (const unsigned char *)s.ptr;
  char *out = b->data + b->len;
  *out++ = '"';
  for (size_t i = 0; i < s.len;) {
    size_t run = i;
    uint64_t w;
    while (run + 8 <= s.len && (memcpy(&w, in + run, 8), !word_stops(w)))
      run += 8;
    while (run < s.len && !json_stop[in[run]])
      run++;
    memcpy(out, in + i, run - i);
    out += run - i;
    if ((i = run) == s.len)
      break;
    b->len = (size_t)(out - b->data);
    cs_buf_reserve(b, s.len - i + 8);
    out = b->data + b->len;
    unsigned char c = in[i++];
    if (c == 0xE2) {
      /* U+2028/U+2029 break JavaScript line readers; escape them. Other 0xE2 sequences pass. */
      if (i + 1 < s.len && in[i] == 0x80 && (in[i + 1] == 0xA8 || in[i + 1] == 0xA9)) {
        memcpy(out, in[i + 1] == 0xA8 ? "\\u2028" : "\\u2029", 6);
        out += 6;
        i += 2;
      } else {
        *out++ = (char)c;
      }
    } else if (c == '"' || c == '\\') {
      *out++ = '\\';
      *out++ = (char)c;
    } else {
      memcpy(out, "\\u00", 4);
      out[4] = hex[c >> 4];
      out[5] = hex[c & 15];
      out += 6;
    }
  }
  *out++ = '"';
  b->len = (size_t)(out - b->data);
  b->data[b->len] = 0;
}

void cs_buf_clear(cs_buf *b) {
  b->len = 0;
  if (b->data)
    b->data[0] = 0;
}

void cs_buf_free(cs_buf *b) {
  free(b->data);
  b->data = NULL;
  b->len = b->cap = 0;
}

void cs_buf_json_strs(cs_buf *b, const cs_str *v, size_t n) {
  cs_buf_putc(b, '[');
  for (size_t i = 0; i < n; i++) {
    if (i)
      cs_buf_putc(b, ',');
    cs_buf_json_str(b, v[i]);
  }
  cs_buf_putc(b, ']');
}
