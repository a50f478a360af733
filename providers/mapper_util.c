/* providers/mapper_util.c: the two shapes of reference wire IDs: prefix + hash text, and base62.
 * Collision resolution (attempt > 0) re-derives from digest(canonical "#" attempt) and then adds the
 * attempt number to the low-order characters, so successive attempts differ even when the digest
 * repeats itself (a truncated or injected digest): resolution never depends on the hash alone. */
#include <stdio.h>
#include <string.h>

#include "providers/target.h"

static const char b64url[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

void cs_digest_run(const cs_digest *d, const void *data, size_t len, uint8_t out[32]) {
  if (d->digest)
    d->digest(d->digest_user, data, len, out);
  else
    cs_sha256(d->hasher, data, len, out);
}

/* digest(canonical "#" attempt): the re-derivation used after a collision. */
static void rehash(const cs_digest *d, const cs_map_input *in, uint8_t out[32]) {
  char tmp[256];
  size_t n = in->canonical.len < 200 ? in->canonical.len : 200;
  if (n)
    memcpy(tmp, in->canonical.ptr, n);
  n += (size_t)snprintf(tmp + n, sizeof tmp - n, "#%u", in->attempt);
  cs_digest_run(d, tmp, n, out);
}

static unsigned b64url_value(char c) {
  const char *p = strchr(b64url, c);
  return p && c ? (unsigned)(p - b64url) : 0;
}

/* Adds `attempt` to the number written by the last (up to 4) base64url characters of s[0..n). */
static void add_attempt_b64(char *s, size_t n, uint32_t attempt) {
  size_t k = n < 4 ? n : 4;
  uint32_t v = 0, mod = 1;
  for (size_t i = n - k; i < n; i++) {
    v = v * 64 + b64url_value(s[i]);
    mod *= 64;
  }
  v = (uint32_t)(((uint64_t)v + attempt) % mod);
  for (size_t i = n; i-- > n - k;) {
    s[i] = b64url[v & 63];
    v >>= 6;
  }
}

/* Block k > 0 of a digest's stream: digest(h || k), for IDs that need more than one digest holds
 * (a raised min_len). Block 0 is h itself, so the default lengths read nothing else. */
static void stream_block(const cs_digest *d, const uint8_t h[32], uint32_t k, uint8_t out[32]) {
  uint8_t msg[36];
  memcpy(msg, h, 32);
  for (int i = 0; i < 4; i++)
    msg[32 + i] = (uint8_t)(k >> (24 - 8 * i));
  cs_digest_run(d, msg, sizeof msg, out);
}

/* `n` base64url characters: 43 from each block of h's stream. */
static void b64_text(const cs_digest *d, const uint8_t h[32], size_t n, char *out) {
  char b64[48];
  cs_base64url(h, 32, b64);
  for (uint32_t k = 1;; k++) {
    size_t take = n < 43 ? n : 43;
    memcpy(out, b64, take);
    out += take;
    n -= take;
    if (!n)
      return;
    uint8_t more[32];
    stream_block(d, h, k, more);
    cs_base64url(more, 32, b64);
  }
}

cs_str cs_map_prefixed(const cs_rule *rule, const cs_digest *d, const cs_map_input *in, const char *prefix,
                       cs_arena *a) {
  size_t plen = strlen(prefix), n = 24;
  if (rule->max_len && rule->max_len < plen + n) {
    if (rule->max_len >= plen + 8) {
      n = rule->max_len - plen; /* keep at least 48 bits of hash */
    } else {
      plen = 0; /* no room for the prefix and 48 bits: hash characters only, within the limit */
      n = rule->max_len;
    }
  }
  if (rule->min_len > plen + n) /* a raised minimum: more hash characters, past one digest if need be */
    n = rule->min_len - plen;
  char *out = cs_arena_alloc(a, plen + n + 1);
  memcpy(out, prefix, plen);
  static const size_t canon_prefix = 10; /* strlen("hist_tool_") */
  if (in->attempt == 0 && in->canonical.len >= canon_prefix + n) {
    memcpy(out + plen, in->canonical.ptr + canon_prefix, n);
  } else {
    uint8_t h[32];
    if (in->attempt == 0)
      cs_digest_run(d, in->canonical.ptr, in->canonical.len, h);
    else
      rehash(d, in, h);
    b64_text(d, h, n, out + plen);
    if (in->attempt)
      add_attempt_b64(out + plen, n, in->attempt);
  }
  out[plen + n] = 0;
  return (cs_str){out, plen + n};
}

cs_str cs_map_base62(const cs_digest *d, const cs_map_input *in, size_t n, cs_arena *a) {
  static const char b62[] = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
  uint8_t h[32], block[32];
  if (in->attempt == 0)
    cs_digest_run(d, in->canonical.ptr, in->canonical.len, h);
  else
    rehash(d, in, h);
  memcpy(block, h, 32);
  char *out = cs_arena_alloc(a, n + 1);
  /* Ten digits from each 8 bytes read as an integer (62^10 < 2^64: nearly uniform), four integers
   * to a block of the digest's stream. */
  unsigned long long v = 0;
  for (size_t i = 0; i < n; i++) {
    if (i % 10 == 0) {
      size_t word = i / 10 % 4;
      if (i && word == 0)
        stream_block(d, h, (uint32_t)(i / 40), block);
      v = 0;
      for (size_t k = 8 * word; k < 8 * word + 8; k++)
        v = v << 8 | block[k];
      if (i == 0 && in->attempt) {
        /* The first min(n, 10) digits are v mod 62^k: adding the attempt there keeps attempts
         * distinct. */
        unsigned long long mod = 1;
        for (size_t j = 0; j < n && j < 10; j++)
          mod *= 62;
        v = (v % mod + in->attempt % mod) % mod;
      }
    }
    out[i] = b62[v % 62];
    v /= 62;
  }
  out[n] = 0;
  return (cs_str){out, n};
}
