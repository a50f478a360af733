/* providers/openai_responses.c: OpenAI Responses. Rule: call_id 1-64 characters (observed), unique
 * (what pairing by call_id needs; no error for a repeat was found);
 * the item id (fc_...) is separate and not mapped here. */
#include "providers/probe.h"
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
    .evidence = "64 and empty-string errors observed; no error for a repeated call_id found (the duplicate "
                "error seen is the item id's), so unique is the pairing's need, not an enforced rule",
    .probe = &cs_probe_openai_responses,
};

/* ---- live probe: PROVIDERS.md section 4 ---- */

/* Calls and results are top-level input items; a message without them writes nothing. Items carry
 * only call_id: an item `id` (fc_...) would need its reasoning item (section 4.3). */
static const cs_probe_shape openai_responses_calls = {
    .head = "{\"type\":\"function_call\",",
    .id_key = "\"call_id\":",
    .id_after = ",",
    .tail = "\"name\":\"" CS_PROBE_TOOL "\",\"arguments\":\"{}\"}",
};
static const cs_probe_shape openai_responses_results = {
    .head = "{\"type\":\"function_call_output\",",
    .id_key = "\"call_id\":",
    .id_after = ",",
    .tail = "\"output\":\"ok\"}",
};

/* max_output_tokens has a minimum of 16; store false keeps probes out of the stored responses. */
static void openai_responses_build(const cs_probe_request *req, cs_buf *b) {
  cs_buf_puts(b, "{\"model\":");
  cs_buf_json_str(b, cs_str_c(req->model));
  cs_buf_puts(b, ",\"max_output_tokens\":16,\"store\":false,\"tools\":[{\"type\":\"function\",\"name\":\"" CS_PROBE_TOOL
                 "\",\"parameters\":{\"type\":\"object\",\"properties\":{}}}],\"input\":[{\"role\":\"user\","
                 "\"content\":\"hi\"}");
  cs_probe_write_turns(req, &openai_responses_calls, &openai_responses_results, b);
  cs_buf_puts(b, "]}");
}

static const cs_probe_pattern openai_responses_errors[] = {
    {"call_id': string", CS_PROBE_REJECTED_RULE}, /* too long */
    {"call_id': empty string", CS_PROBE_REJECTED_RULE},
    {"input[#].id': ", CS_PROBE_REJECTED_RULE}, /* item id prefix, charset, length */
    {"duplicate item found with id", CS_PROBE_REJECTED_RULE},
    {"no tool call found for", CS_PROBE_REJECTED_PAIRING},
    {"no tool output found for", CS_PROBE_REJECTED_PAIRING},
};

static void openai_responses_classify(long status, cs_str body, cs_probe_outcome *out) {
  cs_probe_classify_with(openai_responses_errors, sizeof openai_responses_errors / sizeof *openai_responses_errors,
                         status, body, out);
}

const cs_probe_spec cs_probe_openai_responses = {
    .key_env = {"OPENAI_API_KEY"},
    .auth = CS_PROBE_AUTH_BEARER,
    .base_url = "https://api.openai.com",
    .model = "gpt-4.1-mini",
    .endpoints = {{"responses", "/v1/responses"}},
    .nendpoints = 1,
    .pairing = CS_PROBE_PAIR_BY_ID,
    .id_prefix = "call_",
    .build = openai_responses_build,
    .classify = openai_responses_classify,
};
