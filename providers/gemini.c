/* providers/gemini.c: Google Gemini. No rule documented: non-empty and unique. Pairing is by count
 * and position on the API side; the reference sends the canonical ID. */
#include "providers/probe.h"
#include "providers/target.h"

/* With the default rule, attempt 0 gives the canonical ID itself ("hist_tool_" + its 24 characters);
 * going through cs_map_prefixed also honours an overridden max_len. */
static cs_str gemini_map(const cs_rule *rule, const cs_digest *d, const cs_map_input *in, cs_arena *a) {
  return cs_map_prefixed(rule, d, in, "hist_tool_", a);
}

const cs_target cs_target_gemini = {
    .name = "gemini",
    .id = CS_PROV_GEMINI,
    .rule = {.pattern = NULL, .min_len = 1, .max_len = 0},
    .mapper = gemini_map,
    .native_passthrough = true,
    .summary = "functionCall.id optional, non-empty and unique when sent",
    .evidence = "nothing documented; pairing by count and order observed; Vertex was seen repeating an ID, so "
                "unique is the pairing's need, not an enforced rule",
    .probe = &cs_probe_gemini,
};

/* ---- live probe: PROVIDERS.md section 7 ---- */

/* Gemini 3 wants its IDs echoed and a thought signature on function calls; the documented bypass
 * value stands in for the signature. A null ID omits the field (Gemini 2.x rejects it). The id
 * follows name and args, so its key carries the leading ','. */
static const cs_probe_shape gemini_calls = {
    .open = ",{\"role\":\"model\",\"parts\":[",
    .close = "]}",
    .empty = ",{\"role\":\"model\",\"parts\":[{\"text\":\"ok\"}]}",
    .head = "{\"functionCall\":{\"name\":\"" CS_PROBE_TOOL "\",\"args\":{}",
    .id_key = ",\"id\":",
    .tail = "},\"thoughtSignature\":\"skip_thought_signature_validator\"}",
};
static const cs_probe_shape gemini_results = {
    .open = ",{\"role\":\"user\",\"parts\":[",
    .close = "]}",
    .empty = ",{\"role\":\"user\",\"parts\":[{\"text\":\"continue\"}]}",
    .head = "{\"functionResponse\":{\"name\":\"" CS_PROBE_TOOL "\"",
    .id_key = ",\"id\":",
    .tail = ",\"response\":{\"result\":\"ok\"}}}",
};

static void gemini_build(const cs_probe_request *req, cs_buf *b) {
  cs_buf_puts(b, "{\"contents\":[{\"role\":\"user\",\"parts\":[{\"text\":\"hi\"}]}");
  cs_probe_write_turns(req, &gemini_calls, &gemini_results, b);
  cs_buf_puts(b, "],\"tools\":[{\"functionDeclarations\":[{\"name\":\"" CS_PROBE_TOOL
                 "\",\"parameters\":{\"type\":\"object\",\"properties\":{}}}]}],"
                 "\"generationConfig\":{\"maxOutputTokens\":1}}");
}

/* Section 7.3. No ID error from Google is known; the mismatch text comes from proxies. An endpoint
 * that refuses the id field at all (Unknown name "id") is rejected-other: it takes no IDs. */
static const cs_probe_pattern gemini_errors[] = {
    {"number of function response parts is equal to the number of function call parts", CS_PROBE_REJECTED_PAIRING},
    {"function response turn comes immediately after a function call turn", CS_PROBE_REJECTED_PAIRING},
    {"function call turn comes immediately after", CS_PROBE_REJECTED_PAIRING},
    {"functionresponse.id*does not match*functioncall.id", CS_PROBE_REJECTED_PAIRING},
};

static void gemini_classify(long status, cs_str body, cs_probe_outcome *out) {
  cs_probe_classify_with(gemini_errors, sizeof gemini_errors / sizeof *gemini_errors, status, body, out);
}

const cs_probe_spec cs_probe_gemini = {
    .key_env = {"GEMINI_API_KEY", "GOOGLE_API_KEY"},
    .auth = CS_PROBE_AUTH_HEADER,
    .auth_header = "x-goog-api-key",
    .base_url = "https://generativelanguage.googleapis.com",
    .model = "gemini-3-flash-preview",
    .endpoints = {{"generate_content", "/v1beta/models/{model}:generateContent"}},
    .nendpoints = 1,
    .pairing = CS_PROBE_PAIR_BY_COUNT,
    .id_prefix = "call_",
    .build = gemini_build,
    .classify = gemini_classify,
};
