/* providers/openai_chat.c: OpenAI Chat Completions. Rule: 1-40 characters (observed through early
 * 2026; 64 on some newer models, 40 on Azure and gateways), no character set found, unique. */
#include "providers/target.h"

static cs_str openai_chat_map(const cs_rule *rule, const cs_digest *d, const cs_map_input *in, cs_arena *a) {
  return cs_map_prefixed(rule, d, in, "call_", a);
}

const cs_target cs_target_openai_chat = {
    .name = "openai_chat",
    .id = CS_PROV_OPENAI_CHAT,
    .rule = {.pattern = NULL, .min_len = 1, .max_len = 40},
    .mapper = openai_chat_map,
    .native_passthrough = true,
    .summary = "tool_calls[].id 1-40 characters, unique (64 on some newer models)",
    .evidence = "40 observed 2025-03..2026-03; 64 observed 2026-07 on newer models",
};
