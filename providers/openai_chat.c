/* providers/openai_chat.c: OpenAI Chat Completions. Rule: 1-40 characters (observed through early
 * 2026; 64 on some newer models, Azure and gateways may still use 40), no character set found, unique. */
#include "providers/probe.h"
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
    .evidence = "40 observed 2025-03..2026-03; 64 observed 2026-08 (gpt-5.6-luna)",
    .probe = &cs_probe_openai_chat,
};

/* ---- live probe: PROVIDERS.md section 3 ---- */

static void openai_chat_build(const cs_probe_request *req, cs_buf *b) {
  /* max_completion_tokens: every current model takes it; o-series and gpt-5 refuse max_tokens. 16, not
   * 1: a reasoning model may fail an accepted request whose budget leaves it no output (PROVIDERS.md
   * section 3.1); a rejected one fails validation before generation, so the budget costs it nothing. */
  cs_probe_build_chat(req, "max_completion_tokens", 16, b);
}

/* Two tool messages with one tool_call_id: repeated call IDs (the rule) or a call answered twice
 * (pairing) give this same text; the request tells them apart (cs_probe_outcome.or_pairing). */
#define DUPLICATE_TOOL_CALL_ID "duplicate value for 'tool_call_id'"

/* Section 3.3, and the OpenAI-compatible variants (DeepSeek, Groq, Qwen: "preceding", capitals). */
static const cs_probe_pattern openai_chat_errors[] = {
    {"tool_calls[#].id': string", CS_PROBE_REJECTED_RULE}, /* too long, empty */
    {"tool_calls[#].id': empty", CS_PROBE_REJECTED_RULE},
    {"tool_call_id': string", CS_PROBE_REJECTED_RULE},
    {"tool_call_id': empty", CS_PROBE_REJECTED_RULE},
    {DUPLICATE_TOOL_CALL_ID, CS_PROBE_REJECTED_RULE},
    {"missing parameter 'tool_call_id'", CS_PROBE_REJECTED_RULE},
    {"property 'tool_call_id' is missing", CS_PROBE_REJECTED_RULE},
    {"must be a response to a prec*ding", CS_PROBE_REJECTED_PAIRING}, /* "preceeding" (sic) and "preceding" */
    {"must be followed by tool messages", CS_PROBE_REJECTED_PAIRING},
    {"did not have response messages", CS_PROBE_REJECTED_PAIRING},
    {"not found in 'tool_calls' of previous message", CS_PROBE_REJECTED_PAIRING},
    {"insufficient tool messages", CS_PROBE_REJECTED_PAIRING},
};

static void openai_chat_classify(long status, cs_str body, cs_probe_outcome *out) {
  cs_probe_classify_with(openai_chat_errors, sizeof openai_chat_errors / sizeof *openai_chat_errors, status, body, out);
  out->or_pairing =
      out->verdict == CS_PROBE_REJECTED_RULE && cs_probe_match(cs_str_c(out->message), DUPLICATE_TOOL_CALL_ID);
}

const cs_probe_spec cs_probe_openai_chat = {
    .key_env = {"OPENAI_API_KEY"},
    .auth = CS_PROBE_AUTH_BEARER,
    .base_url = "https://api.openai.com",
    .model = "gpt-4o-mini",
    .endpoints = {{"chat_completions", "/v1/chat/completions"}},
    .nendpoints = 1,
    .pairing = CS_PROBE_PAIR_BY_ID,
    .id_prefix = "call_",
    .build = openai_chat_build,
    .classify = openai_chat_classify,
};
