/* impls/builtin_prefix_swap.c: built-in `prefix-swap`: the stored ID is the raw ID with a known
 * native prefix swapped for "hist_tool_" (call_X, toolu_X, tooluse_X -> hist_tool_X; a stored
 * hist_tool_X stays), any other raw ID prefixed (X -> hist_tool_X), a null raw ID
 * "hist_tool_<position in its turn>". Emit swaps "hist_tool_" for the target's native prefix
 * (toolu_, call_, tooluse_, none for gemini), keeps the first 9 alphanumerics padded with '0' for
 * mistral, writes functions.{name}:{index within the turn} for kimi. Results get the same
 * transformation of their own call_id (position within the tool turn when it is null).
 * What it gives up: no sanitizing, hashing or length handling (emit.regex on illegal characters and
 * long IDs), twins collide (call_X and toolu_X, mistral's 9 characters: emit.unique, canon.unique),
 * kimi's index restarts every turn (emit.kimi_roundtrip), and results pair only when their call_id
 * is the raw ID of their call. */
#include "impls/builtins.h"
#include "providers/canonical.h"

static const char *const known_prefixes[] = {CS_CANONICAL_PREFIX, "toolu_", "call_", "tooluse_"};

/* The part after "hist_tool_" of the stored ID: the raw ID minus a known prefix. `pos` stands in
 * for a null ID. */
static cs_str stored_suffix(cs_str raw, uint32_t pos, cs_arena *a) {
  if (!raw.ptr)
    return cs_arena_printf(a, "%u", pos);
  for (size_t i = 0; i < sizeof known_prefixes / sizeof *known_prefixes; i++)
    if (cs_str_starts(raw, known_prefixes[i])) {
      size_t n = strlen(known_prefixes[i]);
      return (cs_str){raw.ptr + n, raw.len - n};
    }
  return raw;
}

static cs_str with_prefix(const char *prefix, cs_str suffix, cs_arena *a) {
  return cs_inproc_concat(a, cs_str_c(prefix), suffix);
}

static cs_str stored_id(cs_str raw, uint32_t pos, cs_arena *a) {
  return with_prefix(CS_CANONICAL_PREFIX, stored_suffix(raw, pos, a), a);
}

static bool is_alnum(unsigned char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

/* The stored ID (given by its suffix) as the target's wire ID; `name` and `pos` serve kimi. */
static cs_str wire_id(cs_target_id t, cs_str suffix, cs_str name, uint32_t pos, cs_arena *a) {
  switch (t) {
  case CS_PROV_ANTHROPIC:
    return with_prefix("toolu_", suffix, a);
  case CS_PROV_OPENAI_CHAT:
  case CS_PROV_OPENAI_RESPONSES:
    return with_prefix("call_", suffix, a);
  case CS_PROV_BEDROCK:
    return with_prefix("tooluse_", suffix, a);
  case CS_PROV_GEMINI:
    return with_prefix("", suffix, a);
  case CS_PROV_MISTRAL: {
    char *out = cs_arena_alloc(a, 10);
    size_t n = 0;
    for (size_t i = 0; i < suffix.len && n < 9; i++)
      if (is_alnum((unsigned char)suffix.ptr[i]))
        out[n++] = suffix.ptr[i];
    while (n < 9)
      out[n++] = '0';
    out[9] = 0;
    return (cs_str){out, 9};
  }
  case CS_PROV_KIMI:
    return cs_inproc_concat(a, cs_inproc_concat(a, cs_str_c("functions."), name), cs_arena_printf(a, ":%u", pos));
  default:
    return CS_NULL_STR;
  }
}

static cs_answer prefix_swap_canonicalize(void *self, const cs_history *h, const cs_history_index *ix, cs_arena *a) {
  cs_answer ans = cs_answer_new(ix->ncalls, ix->nresults, a);
  for (uint32_t c = 0; c < ix->ncalls; c++)
    ans.calls[c] = stored_id(ix->calls[c]->id, ix->call_pos[c], a);
  uint32_t *rpos = cs_inproc_result_pos(h, ix, a);
  for (uint32_t r = 0; r < ix->nresults; r++)
    ans.results[r] = stored_id(ix->results[r]->call_id, rpos[r], a);
  return ans;
}

static cs_answer prefix_swap_emit(void *self, const cs_history *h, const cs_history_index *ix, cs_target_id t,
                                  cs_arena *a) {
  cs_answer ans = cs_answer_new(ix->ncalls, ix->nresults, a);
  for (uint32_t c = 0; c < ix->ncalls; c++) {
    const cs_call *call = ix->calls[c];
    ans.calls[c] = wire_id(t, stored_suffix(call->id, ix->call_pos[c], a), call->name, ix->call_pos[c], a);
  }
  uint32_t *rpos = cs_inproc_result_pos(h, ix, a);
  for (uint32_t r = 0; r < ix->nresults; r++) {
    const cs_result *res = ix->results[r];
    ans.results[r] = wire_id(t, stored_suffix(res->call_id, rpos[r], a), res->name, rpos[r], a);
  }
  return ans;
}

cs_impl *cs_builtin_prefix_swap_create(const cs_impl_env *env, cs_err *err) {
  cs_inproc_impl *p = cs_inproc_new(sizeof *p, env, err);
  if (!p)
    return NULL;
  p->base.info = (cs_impl_info){
      .name = "prefix-swap",
      .version = "1",
      .ops = CS_OP_EMIT | CS_OP_CANONICALIZE,
      .emit_targets = (1u << CS_TARGET_COUNT) - 1u,
  };
  p->emit = prefix_swap_emit;
  p->canonicalize = prefix_swap_canonicalize;
  return &p->base;
}
