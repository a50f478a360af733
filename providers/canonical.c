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

/* Decimal digits of v into out (no NUL); returns the count. printf is too slow for the hot loop. */
static size_t put_dec(char *out, uint64_t v) {
  if (v < 10) { /* call indexes, attempts and short lengths: the common case */
    out[0] = (char)('0' + v);
    return 1;
  }
  char tmp[24], *p = tmp + sizeof tmp;
  do
    *--p = (char)('0' + v % 10);
  while (v /= 10);
  size_t n = (size_t)(tmp + sizeof tmp - p);
  memcpy(out, p, n);
  return n;
}

static size_t put_field(char *out, cs_str s) {
  if (!s.ptr) {
    memcpy(out, "~,", 2);
    return 2;
  }
  size_t n = put_dec(out, s.len);
  out[n++] = ':';
  memcpy(out + n, s.ptr, s.len);
  out[n + s.len] = ',';
  return n + s.len + 1;
}

cs_str cs_canonical_id(const cs_digest *d, cs_provider provider, cs_str raw_id, cs_str tool_name, cs_str turn_key,
                       uint32_t call_index, uint32_t attempt, cs_arena *a) {
  char stackbuf[1024];
  cs_str pname = cs_str_c(cs_provider_name(provider));
  char idx[24], att[24];
  cs_str sidx = {idx, put_dec(idx, call_index)};
  cs_str satt = {att, put_dec(att, attempt)};
  size_t need = 32 + pname.len + raw_id.len + tool_name.len + turn_key.len + 5 * 24;
  char *msg = need <= sizeof stackbuf ? stackbuf : cs_arena_alloc(a, need);
  size_t n = sizeof CS_CANONICAL_SCHEME; /* includes the NUL: replaced by ',' */
  memcpy(msg, CS_CANONICAL_SCHEME ",", n);
  n += put_field(msg + n, pname);
  n += put_field(msg + n, raw_id);
  n += put_field(msg + n, tool_name);
  n += put_field(msg + n, turn_key);
  n += put_field(msg + n, sidx);
  if (attempt)
    n += put_field(msg + n, satt);
  uint8_t h[32];
  cs_digest_run(d, msg, n, h);
  char *out = cs_arena_alloc(a, CS_CANONICAL_LEN + 1);
  memcpy(out, CS_CANONICAL_PREFIX, 10);
  cs_base64url(h, 18, out + 10); /* 18 bytes -> exactly 24 characters, then the NUL */
  return (cs_str){out, CS_CANONICAL_LEN};
}

static void pair_results(const cs_history_index *ix, cs_answer *ans) {
  for (uint32_t r = 0; r < ix->nresults; r++)
    ans->results[r] = ix->pair[r] >= 0 ? ans->calls[ix->pair[r]] : CS_NULL_STR;
}

cs_answer cs_canonicalize(const cs_history *h, const cs_history_index *ix, const cs_digest *d, cs_arena *a) {
  cs_answer ans = cs_answer_new(ix->ncalls, ix->nresults, a);
  cs_strset used;
  cs_strset_init(&used, ix->ncalls, a);
  for (uint32_t c = 0; c < ix->ncalls; c++) {
    const cs_call *call = ix->calls[c];
    const cs_turn *turn = &h->turns[ix->call_turn[c]];
    cs_str id;
    /* cs_strset_add both checks and inserts: one probe sequence per ID. */
    if (cs_is_canonical(call->id) && cs_strset_add(&used, call->id)) {
      id = call->id;
    } else {
      uint32_t attempt = 0;
      do
        id = cs_canonical_id(d, turn->provider, call->id, call->name, turn->turn_key, ix->call_pos[c], attempt++, a);
      while (!cs_strset_add(&used, id));
    }
    ans.calls[c] = id;
  }
  pair_results(ix, &ans);
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
  pair_results(ix, &ans);
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
