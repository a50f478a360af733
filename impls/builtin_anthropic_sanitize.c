/* impls/builtin_anthropic_sanitize.c: built-in `anthropic-sanitize`, a stateless sanitizer for
 * anthropic (and bedrock, which has the same rule). An ID matching ^[a-zA-Z0-9_-]{1,64}$ passes
 * unchanged, and so does a srvtoolu_ ID; any other ID has every illegal character replaced by '_',
 * is cut to 53 characters and gets "_" + the first 10 hex digits of SHA-256(original) (64 at
 * most); a null or empty ID becomes "toolu_" + 10 hex digits of SHA-256 of its (turn, position).
 * Results get the same function of their own call_id, a missing one placed positionally (the
 * assistant turn it answers, its position in the tool turn); normalize applies it per ID.
 * What it gives up: an ID equal to another's sanitized form, or a duplicated ID, passes unchanged
 * (emit.unique, normalize.injective through twins); the 40-bit suffix admits collisions a search
 * finds (normalize.injective); a result without a call_id gets its call's ID only when results
 * come in the order of the calls; an orphan result keeps its sanitized ID; any ID that starts with
 * srvtoolu_ passes whatever follows (emit.regex, normalize.regex). It keeps
 * normalize.idempotent: every output passes unchanged. */
#include <stdio.h>

#include "impls/builtins.h"

#define SANITIZED_MAX 64
#define SANITIZED_CUT 53 /* 53 + "_" + 10 hex digits = 64 */
#define SUFFIX_HEX 10

static bool legal(unsigned char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
}

static bool passes(cs_str id) {
  if (id.len < 1 || id.len > SANITIZED_MAX)
    return false;
  for (size_t i = 0; i < id.len; i++)
    if (!legal((unsigned char)id.ptr[i]))
      return false;
  return true;
}

static void hex_prefix(cs_hasher *hs, const void *data, size_t len, char out[SUFFIX_HEX + 1]) {
  uint8_t h[32];
  char hex[65];
  cs_sha256(hs, data, len, h);
  cs_hex(h, 32, hex);
  memcpy(out, hex, SUFFIX_HEX);
  out[SUFFIX_HEX] = 0;
}

/* `turn` and `pos` place a missing ID (the only input the hash of a missing ID can use). */
static cs_str sanitize(cs_hasher *hs, cs_str id, uint32_t turn, uint32_t pos, cs_arena *a) {
  char hex[SUFFIX_HEX + 1];
  if (cs_str_is_blank(id)) {
    char where[32];
    int n = snprintf(where, sizeof where, "%u:%u", turn, pos);
    hex_prefix(hs, where, (size_t)n, hex);
    return cs_arena_printf(a, "toolu_%s", hex);
  }
  if (cs_str_starts(id, "srvtoolu_") || passes(id))
    return id;
  char *out = cs_arena_alloc(a, SANITIZED_MAX + 1);
  size_t n = 0;
  for (size_t i = 0; i < id.len && n < SANITIZED_CUT; i++) {
    unsigned char c = (unsigned char)id.ptr[i];
    if (c >= 0x80 && (c & 0xC0) == 0x80)
      continue; /* a UTF-8 continuation byte: its character already became one '_' */
    out[n++] = legal(c) ? (char)c : '_';
  }
  hex_prefix(hs, id.ptr, id.len, hex);
  out[n++] = '_';
  memcpy(out + n, hex, SUFFIX_HEX);
  n += SUFFIX_HEX;
  out[n] = 0;
  return (cs_str){out, n};
}

static cs_answer anthropic_sanitize_emit(void *self, const cs_history *h, const cs_history_index *ix, cs_target_id t,
                                         cs_arena *a) {
  cs_inproc_impl *p = self;
  cs_answer ans = cs_answer_new(ix->ncalls, ix->nresults, a);
  for (uint32_t c = 0; c < ix->ncalls; c++)
    ans.calls[c] = sanitize(p->hasher, ix->calls[c]->id, ix->call_turn[c], ix->call_pos[c], a);
  /* A missing call_id is placed like a missing call ID: the most recent assistant turn (the one a
   * positional result answers) and the result's position in its tool turn. */
  uint32_t r = 0, answered = 0;
  for (uint32_t ti = 0; ti < h->nturns; ti++) {
    if (h->turns[ti].role == CS_ROLE_ASSISTANT)
      answered = ti;
    for (uint32_t k = 0; k < h->turns[ti].nresults && r < ix->nresults; k++, r++)
      ans.results[r] = sanitize(p->hasher, h->turns[ti].results[k].call_id, answered, k, a);
  }
  return ans;
}

static cs_str anthropic_sanitize_normalize(void *self, cs_target_id t, cs_str id, cs_arena *a) {
  cs_inproc_impl *p = self;
  return sanitize(p->hasher, id, 0, 0, a);
}

cs_impl *cs_builtin_anthropic_sanitize_create(const cs_impl_env *env, cs_err *err) {
  cs_inproc_impl *p = cs_inproc_new(sizeof *p, env, err);
  if (!p)
    return NULL;
  unsigned targets = 1u << CS_PROV_ANTHROPIC | 1u << CS_PROV_BEDROCK;
  p->base.info = (cs_impl_info){
      .name = "anthropic-sanitize",
      .version = "1",
      .ops = CS_OP_EMIT | CS_OP_NORMALIZE,
      .emit_targets = targets,
      .normalize_targets = targets,
  };
  p->emit = anthropic_sanitize_emit;
  p->normalize = anthropic_sanitize_normalize;
  return &p->base;
}
