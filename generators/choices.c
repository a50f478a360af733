/* generators/choices.c: the out-of-line part of the choice sequence: seeding the xoshiro256**
 * recording, replay of recorded values or of raw fuzzer bytes, spans, and the replay token
 * ("cs2.": base64url of LEB128 varints, '.', a check of them). The draws themselves are inline in
 * choices.h. */
#include "generators/choices.h"

#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/hash.h"

#define TOKEN_PREFIX "cs2."    /* written: the choices, '.', their check */
#define TOKEN_PREFIX_V1 "cs1." /* read too: the choices alone, as tokens were before the check */
#define CHECK_CHARS 4          /* base64url of the check's 3 bytes */
#define VARINT_MAX 10          /* 64 bits in 7-bit groups */

uint64_t cs_seed_mix(uint64_t x) {
  x += 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}

void cs_choices_grow(cs_choices *c, size_t need) {
  if (need <= c->cap)
    return;
  size_t cap = c->cap ? c->cap : 256;
  while (cap < need)
    cap *= 2;
  c->v = cs_xrealloc_array(c->v, cap, sizeof *c->v);
  c->cap = cap;
}

void cs_choices_record(cs_choices *c, uint64_t seed) {
  c->n = 0;
  c->pos = 0;
  c->nspans = 0;
  c->replay = false;
  c->exhausted = false;
  uint64_t x = seed;
  for (int i = 0; i < 4; i++) {
    x += 0x9E3779B97F4A7C15ULL; /* splitmix64 stream: never an all-zero state */
    c->s[i] = cs_seed_mix(x);
  }
}

void cs_choices_replay(cs_choices *c, const uint64_t *v, size_t n) {
  cs_choices_grow(c, n);
  if (n)
    memmove(c->v, v, n * sizeof *v); /* v may be c->v itself */
  c->n = n;
  c->pos = 0;
  c->nspans = 0;
  c->replay = true;
  c->exhausted = false;
}

void cs_choices_replay_bytes(cs_choices *c, const uint8_t *data, size_t size) {
  c->n = 0;
  size_t i = 0;
  while (i < size) {
    uint64_t value = 0;
    /* At most 10 bytes per value; a trailing incomplete varint is taken as it is. */
    for (int k = 0; k < VARINT_MAX && i < size; k++) {
      uint8_t b = data[i++];
      value |= (uint64_t)(b & 0x7F) << (7 * k);
      if (!(b & 0x80))
        break;
    }
    cs_choices_grow(c, c->n + 1);
    c->v[c->n++] = value;
  }
  c->pos = 0;
  c->nspans = 0;
  c->replay = true;
  c->exhausted = false;
}

void cs_choices_free(cs_choices *c) {
  free(c->v);
  free(c->spans);
  c->v = NULL;
  c->spans = NULL;
  c->n = c->cap = c->pos = 0;
  c->nspans = c->capspans = 0;
}

void cs_choices_span(cs_choices *c, size_t start, size_t count_at) {
  size_t end = cs_choices_at(c);
  if (end <= start)
    return; /* nothing drawn (past the draw budget, or exhausted): nothing to delete */
  if (c->nspans == c->capspans) {
    size_t cap = c->capspans ? 2 * c->capspans : 64;
    c->spans = cs_xrealloc_array(c->spans, cap, sizeof *c->spans);
    c->capspans = cap;
  }
  c->spans[c->nspans++] = (cs_choice_span){start, end, count_at};
}

/* The check of a token's varint bytes: FNV-1a, its low 24 bits as 3 bytes. A token cut short or
 * altered in a copy fails it, but for one in 2^24. */
static void token_check(const uint8_t *bytes, size_t len, uint8_t out[3]) {
  uint32_t h = 2166136261u;
  for (size_t i = 0; i < len; i++)
    h = (h ^ bytes[i]) * 16777619u;
  out[0] = (uint8_t)(h >> 16), out[1] = (uint8_t)(h >> 8), out[2] = (uint8_t)h;
}

/* The token of v[0..n): with `checked`, "cs2." + choices + "." + check; without, the "cs1." form. */
static void write_token(const uint64_t *v, size_t n, bool checked, cs_buf *out) {
  uint8_t stack[1024];
  size_t need = n * VARINT_MAX;
  uint8_t *bytes = need <= sizeof stack ? stack : cs_xmalloc(need);
  size_t len = 0;
  for (size_t i = 0; i < n; i++) {
    uint64_t x = v[i];
    do {
      uint8_t b = x & 0x7F;
      x >>= 7;
      bytes[len++] = b | (x ? 0x80 : 0);
    } while (x);
  }
  cs_buf_puts(out, checked ? TOKEN_PREFIX : TOKEN_PREFIX_V1);
  size_t enc = 4 * ((len + 2) / 3) + 2 + CHECK_CHARS;
  cs_buf_reserve(out, enc);
  out->len += cs_base64url(bytes, len, out->data + out->len);
  if (checked) {
    uint8_t check[3];
    token_check(bytes, len, check);
    out->data[out->len++] = '.';
    out->len += cs_base64url(check, 3, out->data + out->len);
  }
  out->data[out->len] = 0;
  if (bytes != stack)
    free(bytes);
}

void cs_choices_token(const uint64_t *v, size_t n, cs_buf *out) {
  write_token(v, n, true, out);
}

void cs_choices_token_v1(const uint64_t *v, size_t n, cs_buf *out) {
  write_token(v, n, false, out);
}

bool cs_choices_is_token(const char *s) {
  return !strncmp(s, TOKEN_PREFIX, strlen(TOKEN_PREFIX)) || !strncmp(s, TOKEN_PREFIX_V1, strlen(TOKEN_PREFIX_V1));
}

static int b64url_value(unsigned char ch) {
  if (ch >= 'A' && ch <= 'Z')
    return ch - 'A';
  if (ch >= 'a' && ch <= 'z')
    return ch - 'a' + 26;
  if (ch >= '0' && ch <= '9')
    return ch - '0' + 52;
  if (ch == '-')
    return 62;
  if (ch == '_')
    return 63;
  return -1;
}

int cs_choices_parse_token(const char *token, uint64_t **v, size_t *n, cs_err *err) {
  uint8_t *bytes = NULL;
  uint64_t *vals = NULL;
  int rc = -1;
  *v = NULL;
  *n = 0;
  bool checked = token && !strncmp(token, TOKEN_PREFIX, strlen(TOKEN_PREFIX));
  if (!checked && (!token || strncmp(token, TOKEN_PREFIX_V1, strlen(TOKEN_PREFIX_V1)) != 0)) {
    cs_err_set(err, "replay token: must start with \"%s\" (or \"%s\")", TOKEN_PREFIX, TOKEN_PREFIX_V1);
    goto cleanup;
  }
  const char *p = token + strlen(TOKEN_PREFIX);
  size_t chars = strlen(p);
  const char *check = NULL;
  if (checked) { /* the check follows the last '.', which base64url never holds */
    const char *dot = strrchr(p, '.');
    size_t nc = dot ? strlen(dot + 1) : 0;
    if (!dot) {
      cs_err_set(err,
                 "replay token: cut short: it does not end in '.' and its %d-character check (copy the whole "
                 "token)",
                 CHECK_CHARS);
      goto cleanup;
    }
    if (nc != CHECK_CHARS) {
      cs_err_set(err, "replay token: its check (after the last '.') has %zu characters, not %d: %s", nc, CHECK_CHARS,
                 nc < CHECK_CHARS ? "it was cut short (copy the whole token)"
                                  : "something follows the token, or it was altered");
      goto cleanup;
    }
    check = dot + 1;
    chars = (size_t)(dot - p);
  }
  if (chars % 4 == 1) {
    cs_err_set(err, "replay token: truncated base64url (%zu characters after the prefix)", chars);
    goto cleanup;
  }
  bytes = malloc(chars * 3 / 4 + 1);
  vals = malloc((chars * 3 / 4 + 1) * sizeof *vals);
  if (!bytes || !vals) {
    cs_err_set(err, "replay token: out of memory");
    goto cleanup;
  }
  size_t len = 0;
  uint32_t acc = 0;
  int bits = 0;
  for (size_t i = 0; i < chars; i++) {
    int d = b64url_value((unsigned char)p[i]);
    if (d < 0) {
      unsigned char ch = (unsigned char)p[i];
      if (ch >= 0x20 && ch < 0x7F)
        cs_err_set(err, "replay token: invalid character '%c' at offset %zu", ch, strlen(TOKEN_PREFIX) + i);
      else
        cs_err_set(err, "replay token: invalid byte 0x%02x at offset %zu", ch, strlen(TOKEN_PREFIX) + i);
      goto cleanup;
    }
    acc = (acc << 6) | (uint32_t)d;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      bytes[len++] = (uint8_t)(acc >> bits);
      acc &= (1u << bits) - 1;
    }
  }
  /* Each sequence has one token: unused low bits of the last character must be 0, or an altered
   * last character (cs1.AB for cs1.AA) would replay the same case unnoticed. */
  if (acc) {
    cs_err_set(err,
               "replay token: the last character '%c' is not a canonical base64url ending (its unused bits must be 0)",
               p[chars - 1]);
    goto cleanup;
  }
  if (checked) {
    uint8_t want[3], got[3];
    token_check(bytes, len, want);
    int d[CHECK_CHARS];
    for (int k = 0; k < CHECK_CHARS; k++)
      d[k] = b64url_value((unsigned char)check[k]);
    bool ok = d[0] >= 0 && d[1] >= 0 && d[2] >= 0 && d[3] >= 0;
    if (ok) {
      uint32_t x = (uint32_t)d[0] << 18 | (uint32_t)d[1] << 12 | (uint32_t)d[2] << 6 | (uint32_t)d[3];
      got[0] = (uint8_t)(x >> 16), got[1] = (uint8_t)(x >> 8), got[2] = (uint8_t)x;
      ok = !memcmp(want, got, 3);
    }
    if (!ok) {
      cs_err_set(err,
                 "replay token: its check '%.*s' does not match its choices: the token was cut short or "
                 "altered (copy the whole token)",
                 CHECK_CHARS, check);
      goto cleanup;
    }
  }
  size_t count = 0, i = 0;
  while (i < len) {
    uint64_t x = 0;
    for (int k = 0;; k++) {
      if (i >= len) {
        cs_err_set(err, "replay token: truncated varint at value %zu", count);
        goto cleanup;
      }
      uint8_t b = bytes[i++];
      if (k == VARINT_MAX - 1 && (b & 0x80)) {
        cs_err_set(err, "replay token: value %zu is longer than %d bytes", count, VARINT_MAX);
        goto cleanup;
      }
      if (k == VARINT_MAX - 1 && (b & 0x7E)) { /* the 10th byte holds only bit 63 */
        cs_err_set(err, "replay token: value %zu overflows 64 bits", count);
        goto cleanup;
      }
      x |= (uint64_t)(b & 0x7F) << (7 * k);
      if (k > 0 && b == 0) { /* a redundant zero byte: a second spelling of a shorter varint */
        cs_err_set(err, "replay token: value %zu is not canonical (it ends in a redundant zero byte)", count);
        goto cleanup;
      }
      if (!(b & 0x80))
        break;
    }
    vals[count++] = x;
  }
  *v = vals;
  *n = count;
  vals = NULL;
  rc = 0;
cleanup:
  free(bytes);
  free(vals);
  return rc;
}
