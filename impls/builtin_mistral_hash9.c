/* impls/builtin_mistral_hash9.c: built-in `mistral-hash9`, the plain truncated-hash scheme for
 * mistral: every call ID becomes 9 base62 characters of SHA-256 of the raw ID (the first 8 digest
 * bytes read as a big-endian integer, written least significant digit first), with no collision
 * handling at all; a null or empty ID is hashed from its place ("turn:position"). Results get
 * their call's ID by the pairing rule; normalize applies the same function per ID.
 * What it gives up: duplicated raw IDs stay duplicated (emit.unique, normalize.injective), and two
 * different raw IDs whose 53.6-bit hashes agree get the same wire ID: `callsign collide` finds such
 * a pair in about 2^27 evaluations. It is the benchmark of collide on a large output space. */
#include <stdio.h>

#include "impls/builtins.h"

#define HASH9_LEN 9

static cs_str hash9(cs_hasher *hs, const void *data, size_t len, cs_arena *a) {
  static const char b62[] = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
  uint8_t d[32];
  cs_sha256(hs, data, len, d);
  uint64_t v = 0;
  for (int i = 0; i < 8; i++)
    v = v << 8 | d[i];
  char *out = cs_arena_alloc(a, HASH9_LEN + 1);
  for (int i = 0; i < HASH9_LEN; i++, v /= 62)
    out[i] = b62[v % 62];
  out[HASH9_LEN] = 0;
  return (cs_str){out, HASH9_LEN};
}

static cs_str hash9_id(cs_hasher *hs, cs_str id, uint32_t turn, uint32_t pos, cs_arena *a) {
  if (id.ptr && id.len)
    return hash9(hs, id.ptr, id.len, a);
  char where[32];
  int n = snprintf(where, sizeof where, "%u:%u", turn, pos);
  return hash9(hs, where, (size_t)n, a);
}

static cs_answer mistral_hash9_emit(void *self, const cs_history *h, const cs_history_index *ix, cs_target_id t,
                                    cs_arena *a) {
  cs_inproc_impl *p = self;
  cs_answer ans = cs_answer_new(ix->ncalls, ix->nresults, a);
  for (uint32_t c = 0; c < ix->ncalls; c++)
    ans.calls[c] = hash9_id(p->hasher, ix->calls[c]->id, ix->call_turn[c], ix->call_pos[c], a);
  cs_answer_pair_results(&ans, ix);
  return ans;
}

static cs_str mistral_hash9_normalize(void *self, cs_target_id t, cs_str id, cs_arena *a) {
  cs_inproc_impl *p = self;
  return hash9_id(p->hasher, id, 0, 0, a);
}

cs_impl *cs_builtin_mistral_hash9_create(const cs_impl_env *env, cs_err *err) {
  cs_inproc_impl *p = cs_inproc_new(sizeof *p, env, err);
  if (!p)
    return NULL;
  unsigned targets = 1u << CS_PROV_MISTRAL;
  p->base.info = (cs_impl_info){
      .name = "mistral-hash9",
      .version = "1",
      .ops = CS_OP_EMIT | CS_OP_NORMALIZE,
      .emit_targets = targets,
      .normalize_targets = targets,
  };
  p->emit = mistral_hash9_emit;
  p->normalize = mistral_hash9_normalize;
  return &p->base;
}
