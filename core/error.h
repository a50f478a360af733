/* core/error.h: the one-line error every fallible call fills in.
 * Contract: a function that returns an error status has written a message that names the place
 * (file, JSON path) and the reason, on one line, with no trailing newline. */
#ifndef CS_CORE_ERROR_H
#define CS_CORE_ERROR_H

#include <stdarg.h>

typedef struct {
  char msg[512];
} cs_err;

#if defined(__GNUC__)
#define CS_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define CS_PRINTF(a, b)
#endif

/* Writes the message, newlines replaced by spaces; returns -1 for `return cs_err_set(...)`. One too
 * long for msg keeps its head and its tail (where the reason is) around "...". */
int cs_err_set(cs_err *err, const char *fmt, ...) CS_PRINTF(2, 3);
/* Prepends "prefix: " to an existing message (used to add a file name or a case label). */
void cs_err_prefix(cs_err *err, const char *fmt, ...) CS_PRINTF(2, 3);

/* User input echoed in a message before its reason is cut to this many bytes, so that the reason
 * (a pattern's error offset, say) always fits in the line. */
#define CS_EXCERPT_MAX 60
typedef struct {
  char s[CS_EXCERPT_MAX + 4];
} cs_excerpt;
/* The first CS_EXCERPT_MAX bytes of `s` followed by "..." when it is longer (never cutting a UTF-8
 * sequence), for "%s" within one call: cs_err_set(err, "'%s': reason", cs_err_excerpt(v).s). */
cs_excerpt cs_err_excerpt(const char *s);

#endif
