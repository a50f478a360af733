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

cs_str cs_map_prefixed(const cs_rule *rule, const cs_digest *d, const cs_map_input *in, const char *prefix,
                       cs_arena *a) {
  size_t plen = strlen(prefix), n = 24;
  if (rule->max_len && rule->max_len < plen + n) {
    if (rule->max_len >= plen + 8) {
      n = rule->max_len - plen; /* keep at least 48 bits of hash */
    } else {
      plen = 0; /* no room for the prefix and 48 bits: hash characters only, within the limit */
      n = rule->max_len < 43 ? rule->max_len : 43;
    }
  }
  if (rule->min_len > plen + n) /* a raised minimum: more hash characters, up to all 43 */
    n = rule->min_len - plen < 43 ? rule->min_len - plen : 43;
  char *out = cs_arena_alloc(a, plen + 48);
  memcpy(out, prefix, plen);
  static const size_t canon_prefix = 10; /* strlen("hist_tool_") */
  if (in->attempt == 0 && in->canonical.len >= canon_prefix + n) {
    memcpy(out + plen, in->canonical.ptr + canon_prefix, n);
  } else {
    uint8_t h[32];
    char b64[48];
    if (in->attempt == 0)
      cs_digest_run(d, in->canonical.ptr, in->canonical.len, h);
    else
      rehash(d, in, h);
    cs_base64url(h, 32, b64);
    memcpy(out + plen, b64, n);
    if (in->attempt)
      add_attempt_b64(out + plen, n, in->attempt);
  }
  out[plen + n] = 0;
  return (cs_str){out, plen + n};
}

cs_str cs_map_base62(const cs_digest *d, const cs_map_input *in, size_t n, cs_arena *a) {
  static const char b62[] = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
  uint8_t h[32];
  if (in->attempt == 0)
    cs_digest_run(d, in->canonical.ptr, in->canonical.len, h);
  else
    rehash(d, in, h);
  char *out = cs_arena_alloc(a, n + 1);
  /* 62^9 < 2^64: reading 8 bytes as an integer gives nearly uniform digits for n <= 10. */
  unsigned long long v = 0;
  for (int i = 0; i < 8; i++)
    v = v << 8 | h[i];
  if (in->attempt) {
    /* The first min(n, 10) digits are v mod 62^k: adding the attempt there keeps attempts distinct. */
    unsigned long long mod = 1;
    for (size_t i = 0; i < n && i < 10; i++)
      mod *= 62;
    v = (v % mod + in->attempt % mod) % mod;
  }
  for (size_t i = 0; i < n; i++) {
    if (i == 10) { /* past the first integer: continue from the next 8 bytes */
      v = 0;
      for (int k = 8; k < 16; k++)
        v = v << 8 | h[k];
    }
    out[i] = b62[v % 62];
    v /= 62;
  }
  out[n] = 0;
  return (cs_str){out, n};
}
