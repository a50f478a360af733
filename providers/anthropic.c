/* providers/anthropic.c: Anthropic Messages. Rule: ^[a-zA-Z0-9_-]+$ (observed), at most 64 (library
 * claim only: probe it), unique; server-call IDs ^srvtoolu_[a-zA-Z0-9_]+$ pass through unchanged. */
#include "providers/probe.h"
#include "providers/target.h"

static cs_str anthropic_map(const cs_rule *rule, const cs_digest *d, const cs_map_input *in, cs_arena *a) {
  if (in->call && in->call->server && rule->server_pattern) {
    /* A server call whose raw ID cannot pass: srvtoolu_ admits no '-', so use base62. Without a
     * server pattern, server IDs are held to the plain rule, like any other. */
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
    .evidence = "pattern observed; the 64 cap is a library claim, and some clients keep longer IDs "
                "(probe it; --rule anthropic.max_len=0 drops it)",
    .probe = &cs_probe_anthropic,
};

/* ---- live probe: PROVIDERS.md section 2 ---- */

/* A message without a tool block carries a text block: content may not be empty. */
static const cs_probe_shape anthropic_calls = {
    .open = ",{\"role\":\"assistant\",\"content\":[",
    .close = "]}",
    .empty = ",{\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"ok\"}]}",
    .head = "{\"type\":\"tool_use\",",
    .id_key = "\"id\":",
    .id_after = ",",
    .tail = "\"name\":\"" CS_PROBE_TOOL "\",\"input\":{}}",
};
static const cs_probe_shape anthropic_results = {
    .open = ",{\"role\":\"user\",\"content\":[",
    .close = "]}",
    .empty = ",{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"continue\"}]}",
    .head = "{\"type\":\"tool_result\",",
    .id_key = "\"tool_use_id\":",
    .id_after = ",",
    .tail = "\"content\":\"ok\"}",
};

/* The same body serves count_tokens (free, runs the same tool validation) and messages (max_tokens 1). */
static void anthropic_build(const cs_probe_request *req, cs_buf *b) {
  cs_buf_puts(b, "{\"model\":");
  cs_buf_json_str(b, cs_str_c(req->model));
  if (req->endpoint == 1)
    cs_buf_puts(b, ",\"max_tokens\":1");
  cs_buf_puts(b, ",\"tools\":[{\"name\":\"" CS_PROBE_TOOL "\",\"description\":\"probe\",\"input_schema\":{\"type\":"
                 "\"object\",\"properties\":{}}}],\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}");
  cs_probe_write_turns(req, &anthropic_calls, &anthropic_results, b);
  cs_buf_puts(b, "]}");
}

/* Stable fragments of the errors of section 2.3 (index, ID and backticks wildcarded). */
static const cs_probe_pattern anthropic_errors[] = {
    {"id: string should match pattern", CS_PROBE_REJECTED_RULE},
    {"id: string should have", CS_PROBE_REJECTED_RULE}, /* length limits, if any, read the same way */
    {"tool_use* ids must be unique", CS_PROBE_REJECTED_RULE},
    {"unexpected*tool_use_id* found in*tool_result", CS_PROBE_REJECTED_PAIRING},
    {"tool_use* ids were found without*tool_result", CS_PROBE_REJECTED_PAIRING},
    {"did not find # *tool_result* block", CS_PROBE_REJECTED_PAIRING},
    {"must have a corresponding*tool_use* block", CS_PROBE_REJECTED_PAIRING},
};

static void anthropic_classify(long status, cs_str body, cs_probe_outcome *out) {
  cs_probe_classify_with(anthropic_errors, sizeof anthropic_errors / sizeof *anthropic_errors, status, body, out);
}

const cs_probe_spec cs_probe_anthropic = {
    .key_env = {"ANTHROPIC_API_KEY"},
    .auth = CS_PROBE_AUTH_HEADER,
    .auth_header = "x-api-key",
    .headers = {"anthropic-version: 2023-06-01"},
    .base_url = "https://api.anthropic.com",
    .model = "claude-haiku-4-5",
    .endpoints = {{"count_tokens", "/v1/messages/count_tokens"}, {"messages", "/v1/messages"}},
    .nendpoints = 2,
    .pairing = CS_PROBE_PAIR_BY_ID,
    .id_prefix = "toolu_01",
    .build = anthropic_build,
    .classify = anthropic_classify,
};
