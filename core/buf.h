/* core/buf.h: growable byte buffer for output (JSON lines, reports, request bodies).
 * A zero-initialised cs_buf is empty and ready; cs_buf_free releases it. The contents are always
 * NUL-terminated after any append, so `data` can be printed directly. */
#ifndef CS_CORE_BUF_H
#define CS_CORE_BUF_H

#include <stddef.h>

#include "core/str.h"

typedef struct {
  char *data;
  size_t len, cap;
} cs_buf;

void cs_buf_reserve(cs_buf *b, size_t extra);
void cs_buf_put(cs_buf *b, const void *p, size_t n);
void cs_buf_puts(cs_buf *b, const char *s);
void cs_buf_putc(cs_buf *b, char c);
void cs_buf_printf(cs_buf *b, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* Appends a JSON string literal (with quotes), or `null` for a null cs_str. Bytes are copied as
 * UTF-8; control characters, quote, backslash and U+2028/U+2029 are escaped. */
void cs_buf_json_str(cs_buf *b, cs_str s);
/* Appends a JSON array of the n strings (cs_buf_json_str each): [..., ...]. */
void cs_buf_json_strs(cs_buf *b, const cs_str *v, size_t n);
/* Appends `v` in the shortest %g form that reads back as the same double (5.4, 1e-07, 0.2), so a
 * value is never shown rounded to something else. NaN and infinities as printf writes them. */
void cs_buf_double(cs_buf *b, double v);
void cs_buf_clear(cs_buf *b);
void cs_buf_free(cs_buf *b);
static inline cs_str cs_buf_view(const cs_buf *b) {
  return (cs_str){b->data ? b->data : "", b->len};
}

#endif
