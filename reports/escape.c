/* reports/escape.c: per-format escaping of report strings (plain, XML/HTML, Markdown, JSON). */
#include "reports/escape.h"

#include <stdio.h>
#include <string.h>

size_t cs_esc_decode(const char *str, size_t n, uint32_t *cp) {
  const unsigned char *s = (const unsigned char *)str;
  unsigned char c = s[0];
  if (c < 0x80) {
    *cp = c;
    return 1;
  }
  size_t need;
  unsigned char lo = 0x80, hi = 0xBF;
  uint32_t v;
  if (c >= 0xC2 && c <= 0xDF) {
    need = 1;
    v = c & 0x1Fu;
  } else if (c >= 0xE0 && c <= 0xEF) {
    need = 2;
    v = c & 0x0Fu;
    if (c == 0xE0)
      lo = 0xA0; /* no overlongs */
    if (c == 0xED)
      hi = 0x9F; /* no UTF-16 surrogates */
  } else if (c >= 0xF0 && c <= 0xF4) {
    need = 3;
    v = c & 0x07u;
    if (c == 0xF0)
      lo = 0x90;
    if (c == 0xF4)
      hi = 0x8F; /* nothing above U+10FFFF */
  } else {
    return 0;
  }
  if (n <= need || s[1] < lo || s[1] > hi)
    return 0;
  for (size_t k = 1; k <= need; k++) {
    if ((s[k] & 0xC0) != 0x80)
      return 0;
    v = (v << 6) | (s[k] & 0x3Fu);
  }
  *cp = v;
  return need + 1;
}

/* Characters shown escaped beyond the controls and the noncharacters: those that reorder what the
 * reader sees or end a line of JavaScript (U+2028-U+202E, U+2066-U+2069), and those that draw
 * nothing yet make two IDs differ (shown raw, "a\u200Bb" reads as "ab"): format controls and
 * fillers. The zero-width joiner (U+200D), the variation selectors and the tag characters are left
 * out: they are parts of ordinary emoji ("⚡️" is U+26A1 U+FE0F), and escaping them would take an
 * emoji apart in every name and message. */
static const struct {
  uint32_t lo, hi;
} hidden_ranges[] = {
    {0x00AD, 0x00AD}, {0x034F, 0x034F}, {0x061C, 0x061C},   {0x115F, 0x1160},   {0x17B4, 0x17B5},   {0x180E, 0x180E},
    {0x200B, 0x200C}, {0x200E, 0x200F}, {0x2028, 0x202E},   {0x2060, 0x206F},   {0x3164, 0x3164},   {0xFEFF, 0xFEFF},
    {0xFFA0, 0xFFA0}, {0xFFF9, 0xFFFB}, {0x1BCA0, 0x1BCA3}, {0x1D173, 0x1D17A}, {0xE0001, 0xE0001},
};

bool cs_esc_is_hidden(uint32_t cp) {
  if (cp < 0x20 || (cp >= 0x7F && cp <= 0x9F))
    return true; /* C0, DEL, C1: terminal escapes, invalid in XML 1.0, parse errors in HTML */
  if (cp < 0xAD)
    return false; /* the common case, ASCII and Latin-1 text, decided at once */
  if ((cp >= 0xFDD0 && cp <= 0xFDEF) || (cp & 0xFFFEu) == 0xFFFEu)
    return true; /* noncharacters: U+FFFE/U+FFFF are not XML characters */
  for (size_t i = 0; i < sizeof hidden_ranges / sizeof *hidden_ranges; i++)
    if (cp >= hidden_ranges[i].lo && cp <= hidden_ranges[i].hi)
      return true;
  return false;
}

bool cs_esc_is_word(const char *s) {
  size_t n = strlen(s);
  if (!n)
    return false;
  for (size_t i = 0; i < n;) {
    uint32_t cp;
    size_t k = cs_esc_decode(s + i, n - i, &cp);
    if (!k || cp <= ' ' || cp == '#' || cs_esc_is_hidden(cp))
      return false;
    i += k;
  }
  return true;
}

/* Writes the visible escape of cp into out (at least 12 bytes); returns its length. */
static size_t visible(uint32_t cp, char *out) {
  if (cp == '\n' || cp == '\t' || cp == '\r') {
    out[0] = '\\';
    out[1] = cp == '\n' ? 'n' : cp == '\t' ? 't' : 'r';
    return 2;
  }
  if (cp <= 0xFFFF)
    return (size_t)snprintf(out, 12, "\\u%04X", (unsigned)cp);
  return (size_t)snprintf(out, 12, "\\U%08X", (unsigned)cp);
}

size_t cs_esc_cut(const char *s, size_t n, size_t max) {
  if (n <= max)
    return n;
  size_t i = 0;
  while (i < max) {
    uint32_t cp;
    size_t k = cs_esc_decode(s + i, n - i, &cp);
    if (k == 0)
      k = 1;
    if (i + k > max)
      break;
    i += k;
  }
  return i;
}

void cs_esc_left_out(cs_buf *b, size_t left) {
  if (left)
    cs_buf_printf(b, " ... [%zu more bytes not shown: the replay command and the JSON report show the whole case]",
                  left);
}

void cs_esc_name_left_out(cs_buf *b, size_t left) {
  if (left)
    cs_buf_printf(b, " [%zu more bytes not shown: the JSON report keeps them]", left);
}

/* A format's substitution: writes the replacement of cp into out (at least 12 bytes) and returns
 * its length, or returns 0 when cp is copied raw. */
typedef size_t (*subst_fn)(uint32_t cp, const void *ctx, char *out);

/* Copies s, substituting characters and replacing bad bytes by \xNN; plain runs are copied whole. */
static void walk(cs_buf *b, const char *s, size_t n, subst_fn subst, const void *ctx) {
  if (!s)
    return;
  size_t run = 0, i = 0;
  char out[12];
  while (i < n) {
    uint32_t cp;
    size_t k = cs_esc_decode(s + i, n - i, &cp), len;
    if (k == 0) {
      len = (size_t)snprintf(out, sizeof out, "\\x%02X", (unsigned)(unsigned char)s[i]);
      k = 1;
    } else {
      len = subst(cp, ctx, out);
    }
    if (len) {
      cs_buf_put(b, s + run, i - run);
      cs_buf_put(b, out, len);
      run = i + k;
    }
    i += k;
  }
  cs_buf_put(b, s + run, n - run);
}

static size_t plain_subst(uint32_t cp, const void *ctx, char *out) {
  bool keep_lines = *(const bool *)ctx;
  if (keep_lines && (cp == '\n' || cp == '\t'))
    return 0;
  return cs_esc_is_hidden(cp) ? visible(cp, out) : 0;
}

void cs_esc_plain(cs_buf *b, const char *s, size_t n, bool keep_lines) {
  walk(b, s, n, plain_subst, &keep_lines);
}

size_t cs_esc_plain_cut(cs_buf *b, const char *s, size_t max) {
  s = s ? s : "";
  size_t n = strlen(s), cut = cs_esc_cut(s, n, max);
  cs_esc_plain(b, s, cut, false);
  return n - cut;
}

void cs_esc_plain_name(cs_buf *b, const char *s) {
  cs_esc_name_left_out(b, cs_esc_plain_cut(b, s, CS_REPORT_MAX_NAME));
}

static size_t put_str(char *out, const char *s) {
  size_t n = strlen(s);
  memcpy(out, s, n);
  return n;
}

static size_t markup_subst(uint32_t cp, const void *ctx, char *out) {
  cs_esc_markup_ctx where = *(const cs_esc_markup_ctx *)ctx;
  switch (cp) {
  case '&':
    return put_str(out, "&amp;");
  case '<':
    return put_str(out, "&lt;");
  case '>':
    return put_str(out, "&gt;"); /* also keeps "]]>" out of XML text */
  case '"':
    return put_str(out, "&quot;");
  case '\'':
    return put_str(out, "&#39;"); /* &apos; is not an HTML4 entity; the number works everywhere */
  case '\n':
  case '\t':
    if (where == CS_ESC_TEXT)
      return 0;
    if (where == CS_ESC_LINE)
      return visible(cp, out);
    /* Parsers normalise whitespace in attribute values unless it is written as a reference. */
    return put_str(out, cp == '\n' ? "&#10;" : "&#9;");
  default:
    return cs_esc_is_hidden(cp) ? visible(cp, out) : 0;
  }
}

void cs_esc_markup(cs_buf *b, const char *s, size_t n, cs_esc_markup_ctx ctx) {
  walk(b, s, n, markup_subst, &ctx);
}

size_t cs_esc_markup_cut(cs_buf *b, const char *s, size_t max, cs_esc_markup_ctx ctx) {
  s = s ? s : "";
  size_t n = strlen(s), cut = cs_esc_cut(s, n, max);
  cs_esc_markup(b, s, cut, ctx);
  return n - cut;
}

void cs_esc_markup_name(cs_buf *b, const char *s, cs_esc_markup_ctx ctx) {
  cs_esc_name_left_out(b, cs_esc_markup_cut(b, s, CS_REPORT_MAX_NAME, ctx));
}

static size_t md_subst(uint32_t cp, const void *ctx, char *out) {
  /* Characters that can start Markdown or HTML constructs, split a table cell, or trigger GitHub
   * extensions (math, mentions). CommonMark allows a backslash before any ASCII punctuation. */
  static const char punct[] = "\\`*_[]<>&|~#!$@";
  if (cp == '\n')
    return put_str(out, "<br>");
  if (cp > 0 && cp < 0x80 && strchr(punct, (int)cp)) {
    out[0] = '\\';
    out[1] = (char)cp;
    return 2;
  }
  return cs_esc_is_hidden(cp) ? visible(cp, out) : 0;
}

void cs_esc_md_inline(cs_buf *b, const char *s, size_t n) {
  walk(b, s, n, md_subst, NULL);
}

void cs_esc_md_name(cs_buf *b, const char *s) {
  s = s ? s : "";
  size_t n = strlen(s), cut = cs_esc_cut(s, n, CS_REPORT_MAX_NAME);
  cs_esc_md_inline(b, s, cut);
  cs_esc_name_left_out(b, n - cut);
}

size_t cs_esc_backtick_run(const char *s, size_t n) {
  size_t best = 0, cur = 0;
  for (size_t i = 0; s && i < n; i++) {
    cur = s[i] == '`' ? cur + 1 : 0;
    if (cur > best)
      best = cur;
  }
  return best;
}

/* \uXXXX for a code point of the Basic Multilingual Plane, else its UTF-16 surrogate pair. */
static void json_u_escape(cs_buf *b, uint32_t cp) {
  if (cp <= 0xFFFF) {
    cs_buf_printf(b, "\\u%04x", (unsigned)cp);
    return;
  }
  cp -= 0x10000;
  cs_buf_printf(b, "\\u%04x\\u%04x", (unsigned)(0xD800 + (cp >> 10)), (unsigned)(0xDC00 + (cp & 0x3FF)));
}

void cs_esc_json_visible(cs_buf *b, const char *s, size_t n) {
  cs_buf_putc(b, '"');
  size_t kept = 0; /* s[kept, i) is copied as it is, in one put: most text needs no escape */
  for (size_t i = 0; i < n;) {
    unsigned char c = (unsigned char)s[i];
    if (c >= 0x20 && c < 0x7F && c != '"' && c != '\\') {
      i++;
      continue;
    }
    uint32_t cp;
    size_t k = c < 0x80 ? (cp = c, 1) : cs_esc_decode(s + i, n - i, &cp);
    if (k > 0 && c >= 0x80 && !cs_esc_is_hidden(cp)) {
      i += k;
      continue;
    }
    cs_buf_put(b, s + kept, i - kept);
    if (k == 0) { /* not UTF-8: JSON cannot hold the byte */
      cs_buf_puts(b, "\\ufffd");
      k = 1;
    } else if (cp == '"' || cp == '\\') {
      cs_buf_putc(b, '\\');
      cs_buf_putc(b, (char)cp);
    } else {
      json_u_escape(b, cp);
    }
    i += k;
    kept = i;
  }
  cs_buf_put(b, s + kept, n - kept);
  cs_buf_putc(b, '"');
}

void cs_esc_json(cs_buf *b, const char *s) {
  if (!s)
    cs_buf_puts(b, "null");
  else
    cs_esc_json_visible(b, s, strlen(s));
}

void cs_esc_json_text(cs_buf *b, const char *text) {
  size_t n = strlen(text), kept = 0; /* text[kept, i) is copied in one put */
  for (size_t i = 0; i < n;) {
    uint32_t cp;
    size_t k = (unsigned char)text[i] < 0x7F ? 1 : cs_esc_decode(text + i, n - i, &cp);
    if (k == 0 || (unsigned char)text[i] < 0x7F || !cs_esc_is_hidden(cp)) {
      i += k ? k : 1; /* not UTF-8: copied, the caller's text is its own */
      continue;
    }
    cs_buf_put(b, text + kept, i - kept);
    json_u_escape(b, cp);
    i += k;
    kept = i;
  }
  cs_buf_put(b, text + kept, n - kept);
}
