/* providers/bedrock.c: AWS Bedrock Converse. Rule: toolUseId [a-zA-Z0-9_-]+, 1-64 (documented; a later
 * revision also admits '.' and ':'), unique within a message. */
#include "providers/probe.h"
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
    .evidence = "documented (API reference); a later revision reads [a-zA-Z0-9_.:-]+",
    .probe = &cs_probe_bedrock,
};

/* ---- live probe: PROVIDERS.md section 8 ---- */

/* Every message holds a content list; one without a tool block carries a text block. */
static const cs_probe_shape bedrock_calls = {
    .open = ",{\"role\":\"assistant\",\"content\":[",
    .close = "]}",
    .empty = ",{\"role\":\"assistant\",\"content\":[{\"text\":\"ok\"}]}",
    .head = "{\"toolUse\":{",
    .id_key = "\"toolUseId\":",
    .id_after = ",",
    .tail = "\"name\":\"" CS_PROBE_TOOL "\",\"input\":{}}}",
};
static const cs_probe_shape bedrock_results = {
    .open = ",{\"role\":\"user\",\"content\":[",
    .close = "]}",
    .empty = ",{\"role\":\"user\",\"content\":[{\"text\":\"continue\"}]}",
    .head = "{\"toolResult\":{",
    .id_key = "\"toolUseId\":",
    .id_after = ",",
    .tail = "\"content\":[{\"text\":\"ok\"}],\"status\":\"success\"}}",
};

/* toolConfig is required whenever the history holds toolUse or toolResult blocks. */
static void bedrock_build(const cs_probe_request *req, cs_buf *b) {
  cs_buf_puts(b, "{\"messages\":[{\"role\":\"user\",\"content\":[{\"text\":\"hi\"}]}");
  cs_probe_write_turns(req, &bedrock_calls, &bedrock_results, b);
  cs_buf_puts(b, "],\"toolConfig\":{\"tools\":[{\"toolSpec\":{\"name\":\"" CS_PROBE_TOOL
                 "\",\"inputSchema\":{\"json\":{\"type\":\"object\",\"properties\":{}}}}}]},"
                 "\"inferenceConfig\":{\"maxTokens\":1}}");
}

static const cs_probe_pattern bedrock_errors[] = {
    {"toolUseId' failed to satisfy constraint", CS_PROBE_REJECTED_RULE}, /* length and pattern */
    {"contain duplicate ids", CS_PROBE_REJECTED_RULE},
    {"exceeds the number of toolUse blocks", CS_PROBE_REJECTED_PAIRING},
    {"expected toolResult blocks at", CS_PROBE_REJECTED_PAIRING},
};

/* Claude on Bedrock passes Anthropic's texts through ("The model returned the following errors: ",
 * unwrapped by cs_probe_error_text): Anthropic's classifier reads what Bedrock's does not know. */
static void bedrock_classify(long status, cs_str body, cs_probe_outcome *out) {
  cs_probe_classify_with(bedrock_errors, sizeof bedrock_errors / sizeof *bedrock_errors, status, body, out);
  if (out->verdict == CS_PROBE_REJECTED_OTHER)
    cs_probe_anthropic.classify(status, body, out);
}

const cs_probe_spec cs_probe_bedrock = {
    .key_env = {"AWS_BEARER_TOKEN_BEDROCK"},
    .auth = CS_PROBE_AUTH_AWS,
    .base_url = "https://bedrock-runtime.{region}.amazonaws.com",
    .model = "us.anthropic.claude-haiku-4-5-20251001-v1:0",
    .endpoints = {{"converse", "/model/{model}/converse"}},
    .nendpoints = 1,
    .pairing = CS_PROBE_PAIR_BY_ID,
    .id_prefix = "tooluse_",
    .build = bedrock_build,
    .classify = bedrock_classify,
};
