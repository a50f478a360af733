/* core/error.c: formatting of one-line errors. */
#include "core/error.h"

#include <stdio.h>
#include <string.h>

#include "core/utf8.h"

static void flatten(char *s) {
  for (; *s; s++)
    if (*s == '\n' || *s == '\r')
      *s = ' ';
}

int cs_err_set(cs_err *err, const char *fmt, ...) {
  if (!err)
    return -1;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err->msg, sizeof err->msg, fmt, ap);
  va_end(ap);
  flatten(err->msg);
  return -1;
}

void cs_err_prefix(cs_err *err, const char *fmt, ...) {
  if (!err)
    return;
  char head[256];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(head, sizeof head, fmt, ap);
  va_end(ap);
  char old[sizeof err->msg];
  memcpy(old, err->msg, sizeof old);
  /* Truncation is intended: the message stays one bounded line. */
  size_t h = strlen(head);
  if (h > sizeof err->msg - 3)
    h = sizeof err->msg - 3;
  memcpy(err->msg, head, h);
  memcpy(err->msg + h, ": ", 2);
  size_t room = sizeof err->msg - h - 3;
  size_t o = strlen(old);
  if (o > room)
    o = room;
  memcpy(err->msg + h + 2, old, o);
  err->msg[h + 2 + o] = 0;
  flatten(err->msg);
}

cs_excerpt cs_err_excerpt(const char *s) {
  cs_excerpt e;
  size_t len = strnlen(s, CS_EXCERPT_MAX + 1), n = cs_utf8_clamp(s, len, CS_EXCERPT_MAX);
  memcpy(e.s, s, n);
  snprintf(e.s + n, sizeof e.s - n, "%s", n < len ? "..." : "");
  return e;
}
