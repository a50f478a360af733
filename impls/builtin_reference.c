/* impls/builtin_reference.c: built-in `reference`: callsign canonical v1 (an injective,
 * length-prefixed encoding of the call tuple, SHA-256, collisions resolved in document order) and
 * the reference mappers of providers/. Every canonicalize request is computed; the emits of a batch
 * share one canonical answer per history. It gives up nothing required; its stateless normalize
 * always derives, so it gives up normalize.idempotent (it keeps injectivity), and it has no
 * stateless form for kimi, whose IDs depend on the call's index. */
#include "impls/builtins.h"

#include "providers/canonical.h"

static cs_answer reference_canonicalize(void *self, const cs_history *h, const cs_history_index *ix, cs_arena *a) {
  /* Computed anew for every request, never answered from the memo: canon.deterministic compares
   * two requests, and a memoized answer would make that comparison vacuous. The first answer of
   * the batch is kept for the emits that follow. */
  cs_inproc_impl *p = self;
  cs_digest d = cs_inproc_digest(p);
  cs_answer out = cs_canonicalize(h, ix, &d, a);
  cs_inproc_keep_canonical(p, h, ix, &out, a);
  return out;
}

static cs_answer reference_emit(void *self, const cs_history *h, const cs_history_index *ix, cs_target_id t,
                                cs_arena *a) {
  cs_inproc_impl *p = self;
  cs_digest d = cs_inproc_digest(p);
  return cs_reference_emit(h, ix, cs_inproc_canonical(p, h, a), p->rules, t, &d, a);
}

static cs_str reference_normalize(void *self, cs_target_id t, cs_str id, cs_arena *a) {
  cs_inproc_impl *p = self;
  cs_digest d = cs_inproc_digest(p);
  return cs_reference_normalize(p->rules, t, id, &d, a);
}

cs_impl *cs_builtin_reference_create(const cs_impl_env *env, cs_err *err) {
  cs_inproc_impl *p = cs_inproc_new(sizeof *p, env, err);
  if (!p)
    return NULL;
  unsigned all = (1u << CS_TARGET_COUNT) - 1u;
  p->base.info = (cs_impl_info){
      .name = "reference",
      .version = "1",
      .ops = CS_OP_EMIT | CS_OP_CANONICALIZE | CS_OP_NORMALIZE,
      .emit_targets = all,
      .normalize_targets = all & ~(1u << CS_PROV_KIMI),
      .claims_canonical_v1 = true,
  };
  p->emit = reference_emit;
  p->canonicalize = reference_canonicalize;
  p->normalize = reference_normalize;
  return &p->base;
}
