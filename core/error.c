/* core/error.c: formatting of one-line errors. */
#include "core/error.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/utf8.h"

static void flatten(char *s) {
  for (; *s; s++)
    if (*s == '\n' || *s == '\r')
      *s = ' ';
}

/* Puts `len` bytes of `src` into `dst` (of `cap` bytes). A longer text keeps its head and its tail
 * around "...": a message ends in its reason, which a long path or input before it must not push
 * out. Neither cut splits a UTF-8 sequence. */
static void fit_line(char *dst, size_t cap, const char *src, size_t len) {
  if (len < cap) {
    memcpy(dst, src, len);
    dst[len] = 0;
    return;
  }
  size_t head = cs_utf8_clamp(src, len, cap / 3);
  size_t tail = cap - head - 4, from = len - tail;
  while (from < len && ((unsigned char)src[from] & 0xC0) == 0x80)
    from++;
  memcpy(dst, src, head);
  memcpy(dst + head, "...", 3);
  memcpy(dst + head + 3, src + from, len - from);
  dst[head + 3 + len - from] = 0;
}

/* Formats into err->msg through fit_line. */
static void set_fitted(cs_err *err, const char *fmt, va_list ap) {
  char buf[4096];
  va_list again;
  va_copy(again, ap);
  int n = vsnprintf(buf, sizeof buf, fmt, ap);
  if (n < 0) {
    snprintf(err->msg, sizeof err->msg, "(the error message could not be formatted)");
  } else if ((size_t)n < sizeof buf) {
    fit_line(err->msg, sizeof err->msg, buf, (size_t)n);
  } else {
    char *big = malloc((size_t)n + 1);
    if (big && vsnprintf(big, (size_t)n + 1, fmt, again) == n)
      fit_line(err->msg, sizeof err->msg, big, (size_t)n);
    else
      fit_line(err->msg, sizeof err->msg, buf, sizeof buf - 1);
    free(big);
  }
  va_end(again);
  flatten(err->msg);
}

int cs_err_set(cs_err *err, const char *fmt, ...) {
  if (!err)
    return -1;
  va_list ap;
  va_start(ap, fmt);
  set_fitted(err, fmt, ap);
  va_end(ap);
  return -1;
}

void cs_err_prefix(cs_err *err, const char *fmt, ...) {
  if (!err)
    return;
  char head[256];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(head, sizeof head, fmt, ap); /* a prefix names a place: cut, it still does */
  va_end(ap);
  char old[sizeof err->msg];
  memcpy(old, err->msg, sizeof old);
  cs_err_set(err, "%s: %s", head, old);
}

cs_excerpt cs_err_excerpt(const char *s) {
  cs_excerpt e;
  size_t len = strnlen(s, CS_EXCERPT_MAX + 1), n = cs_utf8_clamp(s, len, CS_EXCERPT_MAX);
  memcpy(e.s, s, n);
  snprintf(e.s + n, sizeof e.s - n, "%s", n < len ? "..." : "");
  return e;
}
