/* core/buf.c: growable buffer and JSON string escaping. */
#include "core/buf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void cs_buf_reserve(cs_buf *b, size_t extra) {
  if (b->cap - b->len > extra)
    return;
  size_t cap = b->cap ? b->cap : 256;
  while (cap - b->len <= extra)
    cap *= 2;
  char *p = realloc(b->data, cap);
  if (!p) {
    fputs("callsign: out of memory\n", stderr);
    abort();
  }
  b->data = p;
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

void cs_buf_json_str(cs_buf *b, cs_str s) {
  static const char hex[] = "0123456789abcdef";
  if (!s.ptr) {
    cs_buf_put(b, "null", 4);
    return;
  }
  cs_buf_reserve(b, s.len + 2);
  b->data[b->len++] = '"';
  size_t run = 0; /* start of the pending run of bytes that need no escape */
  for (size_t i = 0; i < s.len; i++) {
    unsigned char c = (unsigned char)s.ptr[i];
    const char *esc = NULL;
    char u[7];
    if (c == '"')
      esc = "\\\"";
    else if (c == '\\')
      esc = "\\\\";
    else if (c < 0x20) {
      u[0] = '\\', u[1] = 'u', u[2] = '0', u[3] = '0', u[4] = hex[c >> 4], u[5] = hex[c & 15], u[6] = 0;
      esc = u;
    } else if (c == 0xE2 && i + 2 < s.len && (unsigned char)s.ptr[i + 1] == 0x80 &&
               ((unsigned char)s.ptr[i + 2] == 0xA8 || (unsigned char)s.ptr[i + 2] == 0xA9)) {
      /* U+2028/U+2029 break JavaScript line readers; escape them. */
      esc = (unsigned char)s.ptr[i + 2] == 0xA8 ? "\\u2028" : "\\u2029";
      cs_buf_put(b, s.ptr + run, i - run);
      cs_buf_puts(b, esc);
      i += 2;
      run = i + 1;
      continue;
    }
    if (esc) {
      cs_buf_put(b, s.ptr + run, i - run);
      cs_buf_puts(b, esc);
      run = i + 1;
    }
  }
  cs_buf_put(b, s.ptr + run, s.len - run);
  cs_buf_putc(b, '"');
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
