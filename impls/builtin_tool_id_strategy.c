/* impls/builtin_tool_id_strategy.c: built-in `tool-id-strategy`, a per-target ID strategy. The
 * "standard" strategy (every target but kimi) strips each character outside [A-Za-z0-9_] from the
 * raw ID and, when nothing is left (or the ID is null), draws a random UUID (32 hex digits); a
 * result gets the same treatment of its own call_id. Kimi gets functions.{name}:{global index}
 * with the tool name as it is, and results take their call's ID by the pairing rule. normalize is the standard
 * stripping. What it gives up: random UUIDs make it nondeterministic (emit.deterministic, normalize.deterministic) and
 * break pairing of calls without an ID (the result draws its own); stripping merges IDs ("a-b" and "ab": emit.unique,
 * normalize.injective); no length handling (mistral's 9 characters, openai_chat's 40); a tool name outside Kimi's name
 * class (emit.regex). */
#include "impls/builtins.h"

static bool kept(unsigned char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

/* A version-4 UUID in hex without dashes, from the implementation's generator. */
static cs_str random_uuid(cs_inproc_impl *p, cs_arena *a) {
  uint8_t b[16];
  uint64_t hi = cs_inproc_random(p), lo = cs_inproc_random(p);
  for (int i = 0; i < 8; i++) {
    b[i] = (uint8_t)(hi >> (8 * i));
    b[8 + i] = (uint8_t)(lo >> (8 * i));
  }
  b[6] = (uint8_t)((b[6] & 0x0F) | 0x40);
  b[8] = (uint8_t)((b[8] & 0x3F) | 0x80);
  char *out = cs_arena_alloc(a, 33);
  cs_hex(b, 16, out);
  return (cs_str){out, 32};
}

static cs_str standard_id(cs_inproc_impl *p, cs_str raw, cs_arena *a) {
  char *out = cs_arena_alloc(a, raw.len + 1);
  size_t n = 0;
  for (size_t i = 0; i < raw.len; i++)
    if (kept((unsigned char)raw.ptr[i]))
      out[n++] = raw.ptr[i];
  out[n] = 0;
  if (n == 0)
    return random_uuid(p, a);
  return (cs_str){out, n};
}

static cs_answer tool_id_strategy_emit(void *self, const cs_history *h, const cs_history_index *ix, cs_target_id t,
                                       cs_arena *a) {
  cs_inproc_impl *p = self;
  cs_answer ans = cs_answer_new(ix->ncalls, ix->nresults, a);
  if (t == CS_PROV_KIMI) {
    /* The strategy writes the tool name as it is: "my tool" gives functions.my tool:0. */
    for (uint32_t c = 0; c < ix->ncalls; c++)
      ans.calls[c] = cs_arena_printf(a, "functions.%.*s:%u", (int)ix->calls[c]->name.len, ix->calls[c]->name.ptr, c);
    cs_answer_pair_results(&ans, ix);
    return ans;
  }
  for (uint32_t c = 0; c < ix->ncalls; c++)
    ans.calls[c] = standard_id(p, ix->calls[c]->id, a);
  for (uint32_t r = 0; r < ix->nresults; r++)
    ans.results[r] = standard_id(p, ix->results[r]->call_id, a);
  return ans;
}

static cs_str tool_id_strategy_normalize(void *self, cs_target_id t, cs_str id, cs_arena *a) {
  return standard_id(self, id, a);
}

cs_impl *cs_builtin_tool_id_strategy_create(const cs_impl_env *env, cs_err *err) {
  cs_inproc_impl *p = cs_inproc_new(sizeof *p, env, err);
  if (!p)
    return NULL;
  unsigned all = (1u << CS_TARGET_COUNT) - 1u;
  p->base.info = (cs_impl_info){
      .name = "tool-id-strategy",
      .version = "1",
      .ops = CS_OP_EMIT | CS_OP_NORMALIZE,
      .emit_targets = all,
      .normalize_targets = all & ~(1u << CS_PROV_KIMI),
      .nondeterministic_by_design = true,
  };
  p->emit = tool_id_strategy_emit;
  p->normalize = tool_id_strategy_normalize;
  /* The design draws real random UUIDs: seed from the env seed, the instance and the clock, so
   * two runs (and a restart) differ, as they would in the original. */
  cs_inproc_vtable.restart(&p->base, err);
  return &p->base;
}
