/* impls/builtin_literal_join.c: built-in `seed-literal-join`, the original design of the canonical
 * ID: "hist_tool_" + the first 24 characters of base64url(SHA-256 of the literal string
 * provider|rawId|toolName|turnKey|callIndex), a null raw ID or turn key written as "". IDs that
 * already look canonical are kept without a duplicate check; results take their call's ID by the
 * pairing rule; emit maps the canonical ID through the reference mappers.
 * What it gives up: the join is not injective, so a raw ID holding '|' collides with another tuple
 * ("a|b" + tool "c" and "a" + tool "b|c"), and look-alike duplicates stay duplicates; nothing
 * resolves collisions, so canon.unique and emit.unique break. */
#include <stdio.h>

#include "impls/builtins.h"
#include "providers/canonical.h"

static void add(cs_hasher *hs, cs_str s) {
  if (s.ptr && s.len)
    cs_hasher_add(hs, s.ptr, s.len);
}

/* The hash is fed field by field: the same bytes as the joined string, without building it. */
static cs_str literal_join_id(cs_hasher *hs, cs_provider provider, cs_str raw, cs_str name, cs_str turn_key,
                              uint32_t call_index, cs_arena *a) {
  char idx[16];
  int nidx = snprintf(idx, sizeof idx, "%u", call_index);
  cs_hasher_begin(hs);
  add(hs, cs_str_c(cs_provider_name(provider)));
  cs_hasher_add(hs, "|", 1);
  add(hs, raw);
  cs_hasher_add(hs, "|", 1);
  add(hs, name);
  cs_hasher_add(hs, "|", 1);
  add(hs, turn_key);
  cs_hasher_add(hs, "|", 1);
  cs_hasher_add(hs, idx, (size_t)nidx);
  uint8_t h[32];
  cs_hasher_finish(hs, h);
  char b64[48];
  cs_base64url(h, 18, b64); /* 18 bytes: exactly 24 characters */
  return cs_arena_printf(a, CS_CANONICAL_PREFIX "%.24s", b64);
}

static cs_answer literal_join_canonicalize(void *self, const cs_history *h, const cs_history_index *ix, cs_arena *a) {
  cs_inproc_impl *p = self;
  cs_answer ans = cs_answer_new(ix->ncalls, ix->nresults, a);
  for (uint32_t c = 0; c < ix->ncalls; c++) {
    const cs_call *call = ix->calls[c];
    const cs_turn *turn = &h->turns[ix->call_turn[c]];
    if (cs_is_canonical(call->id))
      ans.calls[c] = call->id; /* kept even when an earlier call has the same ID */
    else
      ans.calls[c] =
          literal_join_id(p->hasher, turn->provider, call->id, call->name, turn->turn_key, ix->call_pos[c], a);
  }
  cs_answer_pair_results(&ans, ix);
  return ans;
}

/* The reference emitter's choices (server and native passthrough, else the target's mapper on the
 * canonical ID), but with no "already used" check and no re-derivation: the design has none. */
static cs_answer literal_join_emit(void *self, const cs_history *h, const cs_history_index *ix, cs_target_id t,
                                   cs_arena *a) {
  cs_inproc_impl *p = self;
  cs_digest d = cs_inproc_digest(p);
  cs_answer canon = literal_join_canonicalize(self, h, ix, a);
  const cs_target *tg = cs_target_get(t);
  const cs_rule *rule = cs_ruleset_rule(p->rules, t);
  cs_answer ans = cs_answer_new(ix->ncalls, ix->nresults, a);
  for (uint32_t c = 0; c < ix->ncalls; c++) {
    const cs_call *call = ix->calls[c];
    const cs_turn *turn = &h->turns[ix->call_turn[c]];
    if (call->server && rule->server_pattern && cs_rule_server_ok(p->rules, t, call->id, NULL, 0) == CS_RULE_MET) {
      ans.calls[c] = call->id;
    } else if (tg->native_passthrough && turn->provider == t && !call->server && call->id.ptr &&
               cs_rule_check(p->rules, t, call->id, c, false, NULL, 0) == CS_RULE_MET) {
      ans.calls[c] = call->id;
    } else {
      cs_map_input in = {canon.calls[c], call, c, 0};
      ans.calls[c] = tg->mapper(rule, &d, &in, a);
    }
  }
  cs_answer_pair_results(&ans, ix);
  return ans;
}

cs_impl *cs_builtin_literal_join_create(const cs_impl_env *env, cs_err *err) {
  cs_inproc_impl *p = cs_inproc_new(sizeof *p, env, err);
  if (!p)
    return NULL;
  p->base.info = (cs_impl_info){
      .name = "seed-literal-join",
      .version = "1",
      .ops = CS_OP_EMIT | CS_OP_CANONICALIZE,
      .emit_targets = (1u << CS_TARGET_COUNT) - 1u,
  };
  p->emit = literal_join_emit;
  p->canonicalize = literal_join_canonicalize;
  return &p->base;
}
