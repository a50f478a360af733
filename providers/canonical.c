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

/* ---- collision memo ----
 * A collision is resolved by trying attempt 1, 2, ... until the ID is unused. The k-th repeat of one
 * key (a call tuple repeated turn after turn) would re-try every attempt its earlier repeats took:
 * quadratic. The memo keeps, per key, the first attempt not yet known to be taken. That is exact:
 * the used set only grows, so an attempt once found taken stays taken. It is built in the arena on
 * the first collision only, so a history without one pays nothing. */
typedef struct {
  uint64_t hash;
  uint32_t call; /* 1 + the index of the call that brought the key; 0: an empty slot */
  uint32_t next; /* the first attempt (kimi: index) not known to be taken */
} memo_slot;

typedef struct {
  memo_slot *slot; /* NULL until the first collision */
  uint32_t mask;
} call_memo;

/* Room for `max_keys` keys. Callers pass the calls left, at most ix->ncalls, which cs_strset_init
 * has already bounded to 2^29: the doubling below stays within 32 bits. */
static void memo_init(call_memo *m, uint32_t max_keys, cs_arena *a) {
  uint32_t cap = 8;
  while (cap < max_keys * 2u + 2u)
    cap *= 2;
  m->slot = CS_ARENA_NEW(a, memo_slot, cap);
  m->mask = cap - 1;
}

typedef bool (*same_key_fn)(const cs_history *h, const cs_history_index *ix, uint32_t x, uint32_t y);

/* Calls x and y share the canonical v1 tuple. The fields themselves decide, not their hash; null and
 * empty differ (cs_str_eq). */
static bool same_tuple(const cs_history *h, const cs_history_index *ix, uint32_t x, uint32_t y) {
  const cs_turn *tx = &h->turns[ix->call_turn[x]], *ty = &h->turns[ix->call_turn[y]];
  return tx->provider == ty->provider && ix->call_pos[x] == ix->call_pos[y] &&
         cs_str_eq(ix->calls[x]->id, ix->calls[y]->id) && cs_str_eq(ix->calls[x]->name, ix->calls[y]->name) &&
         cs_str_eq(tx->turn_key, ty->turn_key);
}

static uint64_t tuple_hash(const cs_history *h, const cs_history_index *ix, uint32_t c) {
  const cs_turn *t = &h->turns[ix->call_turn[c]];
  const uint64_t k = 0x9E3779B97F4A7C15ULL;
  uint64_t x = cs_str_hash(ix->calls[c]->id);
  x = (x ^ cs_str_hash(ix->calls[c]->name)) * k;
  x = (x ^ cs_str_hash(t->turn_key)) * k;
  x = (x ^ ((uint64_t)t->provider << 32 | ix->call_pos[c])) * k;
  return x ^ x >> 32;
}

/* The slot of call c's key; a new key gets next = `fresh`. */
static memo_slot *memo_find(call_memo *m, uint64_t hash, same_key_fn same, const cs_history *h,
                            const cs_history_index *ix, uint32_t c, uint32_t fresh) {
  uint32_t i = (uint32_t)hash & m->mask;
  for (; m->slot[i].call; i = (i + 1) & m->mask)
    if (m->slot[i].hash == hash && same(h, ix, m->slot[i].call - 1, c))
      return &m->slot[i];
  m->slot[i] = (memo_slot){hash, c + 1, fresh};
  return &m->slot[i];
}

cs_answer cs_canonicalize(const cs_history *h, const cs_history_index *ix, const cs_digest *d, cs_arena *a) {
  cs_answer ans = cs_answer_new(ix->ncalls, ix->nresults, a);
  cs_strset used;
  cs_strset_init(&used, ix->ncalls, a);
  call_memo memo = {0};
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
      id = canonical_id_after(d, prefix, plen, call->id, call->name, turn->turn_key, ix->call_pos[c], 0, a);
      if (!cs_strset_add(&used, id)) {
        /* Attempt 0 is taken: go on from where the tuple's last repeat left its attempts. */
        if (!memo.slot)
          memo_init(&memo, ix->ncalls - c, a);
        memo_slot *m = memo_find(&memo, tuple_hash(h, ix, c), same_tuple, h, ix, c, 1);
        uint32_t attempt = m->next;
        do
          id = canonical_id_after(d, prefix, plen, call->id, call->name, turn->turn_key, ix->call_pos[c], attempt++, a);
        while (!cs_strset_add(&used, id));
        m->next = attempt;
      }
    }
    ans.calls[c] = id;
  }
  cs_answer_pair_results(&ans, ix);
  return ans;
}

/* Calls x and y share a tool name: the key of a mapper with attempt_shifts_index. */
static bool same_name(const cs_history *h, const cs_history_index *ix, uint32_t x, uint32_t y) {
  (void)h;
  return cs_str_eq(ix->calls[x]->name, ix->calls[y]->name);
}

/* The reference emitter; with `chk`, also finds the first bad call (and stops there if `stop`). */
static cs_answer reference_emit(const cs_history *h, const cs_history_index *ix, const cs_answer *canon, cs_ruleset *rs,
                                cs_target_id target, const cs_digest *d, cs_arena *a, cs_emit_check *chk, bool stop) {
  const cs_target *tg = cs_target_get(target);
  const cs_rule *rule = cs_ruleset_rule(rs, target);
  cs_answer ans = cs_answer_new(ix->ncalls, ix->nresults, a);
  cs_strset used;
  cs_strset_init(&used, ix->ncalls, a);
  call_memo memo = {0};
  uint64_t candidates = 0;
  if (chk)
    *chk = (cs_emit_check){.bad = ix->ncalls};
  for (uint32_t c = 0; c < ix->ncalls; c++) {
    const cs_call *call = ix->calls[c];
    const cs_turn *turn = &h->turns[ix->call_turn[c]];
    cs_str id = CS_NULL_STR;
    bool fresh = true;
    /* cs_strset_add both checks and inserts: an ID is taken exactly when it is added. An ID the rule
     * cannot decide on is not passed: a derived one is checked in its place. */
    if (call->server && rule->server_pattern && cs_rule_server_ok(rs, target, call->id, NULL, 0) == CS_RULE_MET &&
        cs_strset_add(&used, call->id)) {
      id = call->id;
    } else if (tg->native_passthrough && turn->provider == target && !call->server && call->id.ptr &&
               cs_rule_check(rs, target, call->id, c, false, NULL, 0) == CS_RULE_MET &&
               cs_strset_add(&used, call->id)) {
      id = call->id;
    } else {
      cs_map_input in = {canon->calls[c], call, c, 0};
      id = tg->mapper(rule, d, &in, a);
      candidates++;
      if (!cs_strset_add(&used, id)) {
        in.attempt = 1;
        memo_slot *m = NULL;
        if (tg->attempt_shifts_index) {
          /* Calls of one name share their candidates, shifted by index: without the memo each would
           * walk again the run of indices the ones before it found taken. */
          if (!memo.slot)
            memo_init(&memo, ix->ncalls - c, a);
          m = memo_find(&memo, cs_str_hash(call->name), same_name, h, ix, c, 0);
          if (m->next > c + 1) /* past the limit: the last attempt, known taken, still ends the loop */
            in.attempt = m->next - c < CS_EMIT_ATTEMPTS ? m->next - c : CS_EMIT_ATTEMPTS - 1;
        }
        do {
          id = tg->mapper(rule, d, &in, a);
          candidates++;
        } while (!(fresh = cs_strset_add(&used, id)) && ++in.attempt < CS_EMIT_ATTEMPTS);
        if (m && c + in.attempt + fresh > m->next)
          m->next = c + in.attempt + fresh;
      }
    }
    ans.calls[c] = id;
    if (chk && chk->bad == ix->ncalls &&
        (!fresh || cs_rule_check(rs, target, id, c, call->server, NULL, 0) != CS_RULE_MET)) {
      chk->bad = c;
      chk->repeated = !fresh;
      if (stop)
        break;
    }
  }
  if (chk)
    chk->candidates = candidates;
  cs_answer_pair_results(&ans, ix);
  return ans;
}

cs_answer cs_reference_emit(const cs_history *h, const cs_history_index *ix, const cs_answer *canon, cs_ruleset *rs,
                            cs_target_id target, const cs_digest *d, cs_arena *a) {
  return reference_emit(h, ix, canon, rs, target, d, a, NULL, false);
}

cs_answer cs_reference_emit_checked(const cs_history *h, const cs_history_index *ix, const cs_answer *canon,
                                    cs_ruleset *rs, cs_target_id target, const cs_digest *d, cs_arena *a, bool stop,
                                    cs_emit_check *chk) {
  return reference_emit(h, ix, canon, rs, target, d, a, chk, stop);
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
