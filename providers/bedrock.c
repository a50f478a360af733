/* providers/bedrock.c: AWS Bedrock Converse. Rule: toolUseId [a-zA-Z0-9_-]+, 1-64 (documented; a later
 * revision also admits '.' and ':'), unique within a message. */
#include "providers/target.h"

static cs_str bedrock_map(const cs_rule *rule, const cs_digest *d, const cs_map_input *in, cs_arena *a) {
  return cs_map_prefixed(rule, d, in, "tooluse_", a);
}

const cs_target cs_target_bedrock = {
    .name = "bedrock",
    .id = CS_PROV_BEDROCK,
    .rule = {.pattern = "^[a-zA-Z0-9_-]+$", .min_len = 1, .max_len = 64},
    .mapper = bedrock_map,
    .native_passthrough = true,
    .summary = "toolUse.toolUseId ^[a-zA-Z0-9_-]{1,64}$, unique",
    .evidence = "documented (API reference)",
};
