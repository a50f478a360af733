/* providers/canonical.c: canonical v1, the reference emitter and the reference normalizer. */
#include "providers/canonical.h"

#include <stdio.h>
#include <string.h>

#include "core/strset.h"

/* The base64url alphabet as a byte table: the check runs on every call of every canonicalization. */
static const unsigned char B64URL_CHAR[256] = {
    ['A'] = 1, ['B'] = 1, ['C'] = 1, ['D'] = 1, ['E'] = 1, ['F'] = 1, ['G'] = 1, ['H'] = 1, ['I'] = 1, ['J'] = 1,
    ['K'] = 1, ['L'] = 1, ['M'] = 1, ['N'] = 1, ['O'] = 1, ['P'] = 1, ['Q'] = 1, ['R'] = 1, ['S'] = 1, ['T'] = 1,
    ['U'] = 1, ['V'] = 1, ['W'] = 1, ['X'] = 1, ['Y'] = 1, ['Z'] = 1, ['a'] = 1, ['b'] = 1, ['c'] = 1, ['d'] = 1,
    ['e'] = 1, ['f'] = 1, ['g'] = 1, ['h'] = 1, ['i'] = 1, ['j'] = 1, ['k'] = 1, ['l'] = 1, ['m'] = 1, ['n'] = 1,
    ['o'] = 1, ['p'] = 1, ['q'] = 1, ['r'] = 1, ['s'] = 1, ['t'] = 1, ['u'] = 1, ['v'] = 1, ['w'] = 1, ['x'] = 1,
    ['y'] = 1, ['z'] = 1, ['0'] = 1, ['1'] = 1, ['2'] = 1, ['3'] = 1, ['4'] = 1, ['5'] = 1, ['6'] = 1, ['7'] = 1,
    ['8'] = 1, ['9'] = 1, ['-'] = 1, ['_'] = 1,
};

bool cs_is_canonical(cs_str id) {
  if (id.len != CS_CANONICAL_LEN || !cs_str_starts(id, CS_CANONICAL_PREFIX))
    return false;
  unsigned char bad = 0;
  for (size_t i = 10; i < CS_CANONICAL_LEN; i++)
    bad |= (unsigned char)!B64URL_CHAR[(unsigned char)id.ptr[i]];
  return !bad;
}

/* Copies n bytes. Fields are mostly a few bytes to a few dozen: two overlapping fixed-size moves
 * (which compile to plain loads and stores) cost less than a call to memcpy, five times a message. */
static inline void put_bytes(char *out, const char *src, size_t n) {
  if (n > 32) {
    memcpy(out, src, n);
  } else if (n >= 16) {
    memcpy(out, src, 16);
    memcpy(out + n - 16, src + n - 16, 16);
  } else if (n >= 8) {
    memcpy(out, src, 8);
    memcpy(out + n - 8, src + n - 8, 8);
  } else if (n >= 4) {
    memcpy(out, src, 4);
    memcpy(out + n - 4, src + n - 4, 4);
  } else {
    for (size_t i = 0; i < n; i++)
      out[i] = src[i];
  }
}

/* Decimal digits of v into out (no NUL); returns the count. printf is too slow for the hot loop. */
static inline size_t dec_len(uint64_t v) {
  size_t n = 1;
  while (v >= 10) {
    v /= 10;
    n++;
  }
  return n;
}

static inline size_t put_dec(char *out, uint64_t v) {
  size_t n = dec_len(v);
  for (size_t i = n; i-- > 0; v /= 10) /* written from the end: no copy, no call to memcpy */
    out[i] = (char)('0' + v % 10);
  return n;
}

static inline size_t put_field(char *out, cs_str s) {
  if (!s.ptr) {
    out[0] = '~';
    out[1] = ',';
    return 2;
  }
  size_t n = put_dec(out, s.len);
  out[n++] = ':';
  put_bytes(out + n, s.ptr, s.len);
  out[n + s.len] = ',';
  return n + s.len + 1;
}

/* A decimal number as a field: the length of its digits, ':', the digits, ','. */
static inline size_t put_number_field(char *out, uint32_t v) {
  size_t n = put_dec(out, dec_len(v));
  out[n++] = ':';
  n += put_dec(out + n, v);
  out[n++] = ',';
  return n;
}

/* The part of every message that depends only on the provider: the scheme and the provider field.
 * At most CS_PREFIX_MAX bytes (provider names are short); `out` holds CS_PREFIX_MAX bytes, all
 * written, so that the prefix is copied as one fixed-size block. */
#define CS_PREFIX_MAX 64
static size_t put_prefix(char *out, cs_provider provider) {
  memset(out, 0, CS_PREFIX_MAX);
  size_t n = sizeof CS_CANONICAL_SCHEME; /* includes the NUL: replaced by ',' */
  memcpy(out, CS_CANONICAL_SCHEME ",", n);
  return n + put_field(out + n, cs_str_c(cs_provider_name(provider)));
}

/* canonical v1 after a prefix from put_prefix: the canonicalizer builds the prefix once per
 * provider, not once per call. */
static cs_str canonical_id_after(const cs_digest *d, const char *prefix, size_t plen, cs_str raw_id, cs_str tool_name,
                                 cs_str turn_key, uint32_t call_index, uint32_t attempt, cs_arena *a) {
  char stackbuf[1024];
  size_t need = CS_PREFIX_MAX + raw_id.len + tool_name.len + turn_key.len + 5 * 24;
  char *msg = need <= sizeof stackbuf ? stackbuf : cs_arena_alloc(a, need);
  memcpy(msg, prefix, CS_PREFIX_MAX); /* the whole buffer: a constant size needs no call */
  size_t n = plen;
  n += put_field(msg + n, raw_id);
  n += put_field(msg + n, tool_name);
  n += put_field(msg + n, turn_key);
  n += put_number_field(msg + n, call_index);
  if (attempt)
    n += put_number_field(msg + n, attempt);
  uint8_t h[32];
  cs_digest_run(d, msg, n, h);
  char *out = cs_arena_alloc(a, CS_CANONICAL_LEN + 1);
  memcpy(out, CS_CANONICAL_PREFIX, 10);
  cs_base64url(h, 18, out + 10); /* 18 bytes -> exactly 24 characters, then the NUL */
  return (cs_str){out, CS_CANONICAL_LEN};
}

cs_str cs_canonical_id(const cs_digest *d, cs_provider provider, cs_str raw_id, cs_str tool_name, cs_str turn_key,
                       uint32_t call_index, uint32_t attempt, cs_arena *a) {
  char prefix[CS_PREFIX_MAX];
  size_t plen = put_prefix(prefix, provider);
  return canonical_id_after(d, prefix, plen, raw_id, tool_name, turn_key, call_index, attempt, a);
}

cs_answer cs_canonicalize(const cs_history *h, const cs_history_index *ix, const cs_digest *d, cs_arena *a) {
  cs_answer ans = cs_answer_new(ix->ncalls, ix->nresults, a);
  cs_strset used;
  cs_strset_init(&used, ix->ncalls, a);
  char prefix[CS_PREFIX_MAX];
  size_t plen = 0;
  cs_provider prefix_of = CS_PROVIDER_COUNT; /* none yet */
  for (uint32_t c = 0; c < ix->ncalls; c++) {
    const cs_call *call = ix->calls[c];
    const cs_turn *turn = &h->turns[ix->call_turn[c]];
    cs_str id;
    /* cs_strset_add both checks and inserts: one probe sequence per ID. */
    if (cs_is_canonical(call->id) && cs_strset_add(&used, call->id)) {
      id = call->id;
    } else {
      if (turn->provider != prefix_of) {
        plen = put_prefix(prefix, turn->provider);
        prefix_of = turn->provider;
      }
      uint32_t attempt = 0;
      do
        id = canonical_id_after(d, prefix, plen, call->id, call->name, turn->turn_key, ix->call_pos[c], attempt++, a);
      while (!cs_strset_add(&used, id));
    }
    ans.calls[c] = id;
  }
  cs_answer_pair_results(&ans, ix);
  return ans;
}

cs_answer cs_reference_emit(const cs_history *h, const cs_history_index *ix, const cs_answer *canon, cs_ruleset *rs,
                            cs_target_id target, const cs_digest *d, cs_arena *a) {
  const cs_target *tg = cs_target_get(target);
  const cs_rule *rule = cs_ruleset_rule(rs, target);
  cs_answer ans = cs_answer_new(ix->ncalls, ix->nresults, a);
  cs_strset used;
  cs_strset_init(&used, ix->ncalls, a);
  for (uint32_t c = 0; c < ix->ncalls; c++) {
    const cs_call *call = ix->calls[c];
    const cs_turn *turn = &h->turns[ix->call_turn[c]];
    cs_str id = CS_NULL_STR;
    /* cs_strset_add both checks and inserts: an ID is taken exactly when it is added. */
    if (call->server && rule->server_pattern && cs_rule_server_ok(rs, target, call->id) &&
        cs_strset_add(&used, call->id)) {
      id = call->id;
    } else if (tg->native_passthrough && turn->provider == target && !call->server && call->id.ptr &&
               cs_rule_check(rs, target, call->id, c, false, NULL, 0) && cs_strset_add(&used, call->id)) {
      id = call->id;
    } else {
      cs_map_input in = {canon->calls[c], call, c, 0};
      do
        id = tg->mapper(rule, d, &in, a);
      while (!cs_strset_add(&used, id) && ++in.attempt < 10000);
    }
    ans.calls[c] = id;
  }
  cs_answer_pair_results(&ans, ix);
  return ans;
}

cs_str cs_reference_normalize(cs_ruleset *rs, cs_target_id target, cs_str id, const cs_digest *d, cs_arena *a) {
  if (target == CS_PROV_KIMI)
    return CS_NULL_STR;
  /* Normalize by hashing the tuple (target, id) into a canonical-looking ID, then map it. */
  cs_str canon =
      cs_canonical_id(d, CS_PROV_UNKNOWN, id, cs_str_c("normalize"), cs_str_c(cs_target_get(target)->name), 0, 0, a);
  cs_map_input in = {canon, NULL, 0, 0};
  return cs_target_get(target)->mapper(cs_ruleset_rule(rs, target), d, &in, a);
}
