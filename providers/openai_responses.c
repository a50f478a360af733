/* providers/openai_responses.c: OpenAI Responses. Rule: call_id 1-64 characters (observed), unique;
 * the item id (fc_...) is separate and not mapped here. */
#include "providers/target.h"

static cs_str openai_responses_map(const cs_rule *rule, const cs_digest *d, const cs_map_input *in, cs_arena *a) {
  return cs_map_prefixed(rule, d, in, "call_", a);
}

const cs_target cs_target_openai_responses = {
    .name = "openai_responses",
    .id = CS_PROV_OPENAI_RESPONSES,
    .rule = {.pattern = NULL, .min_len = 1, .max_len = 64},
    .mapper = openai_responses_map,
    .native_passthrough = true,
    .summary = "function_call.call_id 1-64 characters, unique (item id must start with fc)",
    .evidence = "64 and empty-string errors observed",
};
