/* providers/mapper_util.c: the two shapes of reference wire IDs: prefix + hash text, and base62. */
#include <stdio.h>
#include <string.h>

#include "providers/target.h"

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
  memcpy(tmp, in->canonical.ptr, n);
  n += (size_t)snprintf(tmp + n, sizeof tmp - n, "#%u", in->attempt);
  cs_digest_run(d, tmp, n, out);
}

cs_str cs_map_prefixed(const cs_rule *rule, const cs_digest *d, const cs_map_input *in, const char *prefix,
                       cs_arena *a) {
  size_t plen = strlen(prefix), n = 24;
  if (rule->max_len && rule->max_len < plen + n)
    n = rule->max_len > plen + 8 ? rule->max_len - plen : 8; /* keep at least 48 bits of hash */
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
