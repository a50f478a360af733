/* impls/builtins.h: what the built-in implementations share inside impls/: their create functions
 * (for the registry) and the small helpers of the in-process answer functions (impls/inproc.c).
 * Not part of the implementation interface: the harness uses impls/impl.h only. */
#ifndef CS_IMPLS_BUILTINS_H
#define CS_IMPLS_BUILTINS_H

#include "impls/impl.h"
#include "providers/target.h"

cs_impl *cs_builtin_reference_create(const cs_impl_env *env, cs_err *err);
cs_impl *cs_builtin_literal_join_create(const cs_impl_env *env, cs_err *err);
cs_impl *cs_builtin_prefix_swap_create(const cs_impl_env *env, cs_err *err);
cs_impl *cs_builtin_tool_id_strategy_create(const cs_impl_env *env, cs_err *err);
cs_impl *cs_builtin_adk_stream_v1_create(const cs_impl_env *env, cs_err *err);
cs_impl *cs_builtin_adk_stream_v2_create(const cs_impl_env *env, cs_err *err);
cs_impl *cs_builtin_anthropic_sanitize_create(const cs_impl_env *env, cs_err *err);
cs_impl *cs_builtin_mistral_hash9_create(const cs_impl_env *env, cs_err *err);

/* Allocates (zeroed) `size` bytes, a struct whose first member is a cs_inproc_impl, and runs
 * cs_inproc_init on it. NULL with `err` set on failure. cs_inproc_vtable.destroy frees it. */
cs_inproc_impl *cs_inproc_new(size_t size, const cs_impl_env *env, cs_err *err);

/* The SHA-256 digest of the implementation (no injection: built-ins always hash for real). */
static inline cs_digest cs_inproc_digest(const cs_inproc_impl *p) {
  return (cs_digest){p->hasher, NULL, NULL};
}

/* The batch memo entry of `h` (its index: `ix` when given, else built on first use), and its
 * canonical v1 answer: the one kept by cs_inproc_keep_canonical, else computed on first use. */
cs_inproc_memo *cs_inproc_memo_of(cs_inproc_impl *p, const cs_history *h, const cs_history_index *ix, cs_arena *a);
const cs_answer *cs_inproc_canonical(cs_inproc_impl *p, const cs_history *h, cs_arena *a);
/* Keeps a copy of `canon` as the memo's canonical answer of `h`, unless the memo has one already. */
void cs_inproc_keep_canonical(cs_inproc_impl *p, const cs_history *h, const cs_history_index *ix,
                              const cs_answer *canon, cs_arena *a);

/* Position of every result inside its own tool turn, in document order ([ix->nresults]). */
uint32_t *cs_inproc_result_pos(const cs_history *h, const cs_history_index *ix, cs_arena *a);

/* x followed by y, copied into the arena (NUL-terminated); a null part counts as empty. */
cs_str cs_inproc_concat(cs_arena *a, cs_str x, cs_str y);

/* Next value of the implementation's xorshift64* generator (designs that draw random values). */
uint64_t cs_inproc_random(cs_inproc_impl *p);

#endif
