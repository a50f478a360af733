/* providers/anthropic.c: Anthropic Messages. Rule: ^[a-zA-Z0-9_-]+$ (observed), at most 64 (library
 * claim only: probe it), unique; server-call IDs ^srvtoolu_[a-zA-Z0-9_]+$ pass through unchanged. */
#include "providers/target.h"

static cs_str anthropic_map(const cs_rule *rule, const cs_digest *d, const cs_map_input *in, cs_arena *a) {
  if (in->call && in->call->server) {
    /* A server call whose raw ID cannot pass: srvtoolu_ admits no '-', so use base62. */
    cs_str tail = cs_map_base62(d, in, 24, a);
    return cs_arena_printf(a, "srvtoolu_%.*s", (int)tail.len, tail.ptr);
  }
  return cs_map_prefixed(rule, d, in, "toolu_", a);
}

const cs_target cs_target_anthropic = {
    .name = "anthropic",
    .id = CS_PROV_ANTHROPIC,
    .rule = {.pattern = "^[a-zA-Z0-9_-]+$", .min_len = 1, .max_len = 64, .server_pattern = "^srvtoolu_[a-zA-Z0-9_]+$"},
    .mapper = anthropic_map,
    .native_passthrough = true,
    .summary = "tool_use.id ^[a-zA-Z0-9_-]{1,64}$, unique; server calls ^srvtoolu_[a-zA-Z0-9_]+$ unchanged",
    .evidence = "pattern observed; 64 cap is a library claim (probe it)",
};
