/* providers/mistral.c: Mistral. Rule: ^[a-zA-Z0-9]{9}$ (documented in mistral-common, observed).
 * The mapper draws 9 base62 characters from SHA-256 of the canonical ID (fewer or more when the rule's
 * length limits are overridden); a collision within the request is resolved by re-deriving from
 * canonical#attempt, in document order. */
#include "providers/probe.h"
#include "providers/target.h"

static cs_str mistral_map(const cs_rule *rule, const cs_digest *d, const cs_map_input *in, cs_arena *a) {
  size_t n = 9;
  if (rule->max_len && rule->max_len < n)
    n = rule->max_len;
  if (rule->min_len > n)
    n = rule->min_len;
  return cs_map_base62(d, in, n, a);
}

const cs_target cs_target_mistral = {
    .name = "mistral",
    .id = CS_PROV_MISTRAL,
    .rule = {.pattern = "^[a-zA-Z0-9]{9}$", .min_len = 9, .max_len = 9},
    .mapper = mistral_map,
    .native_passthrough = true,
    .summary = "tool_calls[].id ^[a-zA-Z0-9]{9}$, unique",
    .evidence = "pattern documented (mistral-common validator) and observed; hosted models were seen reusing an ID "
                "across turns, so unique is the pairing's need, not an enforced rule",
    .probe = &cs_probe_mistral,
};

/* ---- live probe: PROVIDERS.md section 5 ---- */

static void mistral_build(const cs_probe_request *req, cs_buf *b) {
  cs_probe_build_chat(req, "max_tokens", 1, b);
}

static const cs_probe_pattern mistral_errors[] = {
    {"tool call id was * but must be", CS_PROBE_REJECTED_RULE},
    {"tool call id has to be defined", CS_PROBE_REJECTED_RULE},
    {"tool call ids should be alphanumeric", CS_PROBE_REJECTED_RULE}, /* self-hosted vLLM */
    {"not the same number of function calls and responses", CS_PROBE_REJECTED_PAIRING},
    {"invalid_request_message_order", CS_PROBE_REJECTED_PAIRING},
};

static void mistral_classify(long status, cs_str body, cs_probe_outcome *out) {
  cs_probe_classify_with(mistral_errors, sizeof mistral_errors / sizeof *mistral_errors, status, body, out);
}

/* mistral-common's validators count calls and responses without matching their IDs (section 5.3). */
const cs_probe_spec cs_probe_mistral = {
    .key_env = {"MISTRAL_API_KEY"},
    .auth = CS_PROBE_AUTH_BEARER,
    .base_url = "https://api.mistral.ai",
    .model = "mistral-small-latest",
    .endpoints = {{"chat_completions", "/v1/chat/completions"}},
    .nendpoints = 1,
    .pairing = CS_PROBE_PAIR_BY_COUNT,
    .id_prefix = "",
    .build = mistral_build,
    .classify = mistral_classify,
};
