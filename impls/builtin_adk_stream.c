/* impls/builtin_adk_stream.c: built-ins `adk-stream-v1` and `adk-stream-v2`, the ID assignment of
 * a streaming agent framework. v1 numbers each assistant turn's calls call_0, call_1, ...
 * (restarting every turn) and matches every result through a map keyed by tool name, filled from
 * the most recent assistant turn (the last call with that name wins). v2 keeps the provider's raw
 * ID when it is present and non-empty, else call_N as v1; results without a call_id use the same
 * name map, results with one keep it as is. The IDs do not depend on the target.
 * What they give up: v1 repeats call_0 in every turn (emit.unique), pairs parallel same-name calls
 * to one ID (emit.pair) and never fits mistral's 9 alphanumerics (emit.regex); v2 passes illegal
 * raw IDs through (emit.regex) and keeps duplicates (emit.unique). */
#include "impls/builtins.h"

typedef struct {
  cs_inproc_impl base;
  bool keep_raw; /* v2 */
} adk_stream;

/* The ID the name map gives `name`: the last call with that name in the assistant turn whose
 * calls are [first, end); null when the turn has none. */
static cs_str by_name(const cs_history_index *ix, const cs_answer *ans, int64_t first, int64_t end, cs_str name) {
  for (int64_t c = end - 1; c >= first && c >= 0; c--)
    if (cs_str_eq(ix->calls[c]->name, name))
      return ans->calls[c];
  return CS_NULL_STR;
}

static cs_answer adk_stream_answer(void *self, const cs_history *h, const cs_history_index *ix, cs_arena *a) {
  const adk_stream *p = self;
  cs_answer ans = cs_answer_new(ix->ncalls, ix->nresults, a);
  uint32_t c = 0, r = 0;
  int64_t first = -1, end = -1; /* calls of the most recent assistant turn: the name map */
  for (uint32_t t = 0; t < h->nturns; t++) {
    const cs_turn *turn = &h->turns[t];
    if (turn->role == CS_ROLE_ASSISTANT) {
      first = c;
      for (uint32_t k = 0; k < turn->ncalls && c < ix->ncalls; k++, c++) {
        cs_str raw = turn->calls[k].id;
        ans.calls[c] = p->keep_raw && !cs_str_is_blank(raw) ? raw : cs_arena_printf(a, "call_%u", k);
      }
      end = c;
    }
    for (uint32_t k = 0; k < turn->nresults && r < ix->nresults; k++, r++) {
      const cs_result *res = &turn->results[k];
      if (p->keep_raw && !cs_str_is_blank(res->call_id))
        ans.results[r] = res->call_id;
      else
        ans.results[r] = by_name(ix, &ans, first, end, res->name);
    }
  }
  return ans;
}

static cs_answer adk_stream_emit(void *self, const cs_history *h, const cs_history_index *ix, cs_target_id t,
                                 cs_arena *a) {
  return adk_stream_answer(self, h, ix, a);
}

static cs_impl *adk_stream_create(const cs_impl_env *env, cs_err *err, bool keep_raw) {
  adk_stream *p = (adk_stream *)cs_inproc_new(sizeof *p, env, err);
  if (!p)
    return NULL;
  p->keep_raw = keep_raw;
  p->base.base.info = (cs_impl_info){
      .name = keep_raw ? "adk-stream-v2" : "adk-stream-v1",
      .version = keep_raw ? "2" : "1",
      .ops = CS_OP_EMIT | CS_OP_CANONICALIZE,
      .emit_targets = (1u << CS_TARGET_COUNT) - 1u, /* call_N for every target, Kimi too */
  };
  p->base.emit = adk_stream_emit;
  p->base.canonicalize = adk_stream_answer;
  return &p->base.base;
}

cs_impl *cs_builtin_adk_stream_v1_create(const cs_impl_env *env, cs_err *err) {
  return adk_stream_create(env, err, false);
}

cs_impl *cs_builtin_adk_stream_v2_create(const cs_impl_env *env, cs_err *err) {
  return adk_stream_create(env, err, true);
}
