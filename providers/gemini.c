/* providers/gemini.c: Google Gemini. No rule documented: non-empty and unique. Pairing is by count
 * and position on the API side; the reference sends the canonical ID. */
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
    .evidence = "nothing documented; pairing by count and order observed",
};
